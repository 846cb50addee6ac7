// CronJob schedules and the CronJob controller's decision at each sync, as
// pure functions so that each can be tested on its own.
//
// The schedule is what Kubernetes' CronJob controller reads with
// robfig/cron v3 ParseStandard: five fields (minute, hour, day of month,
// month, day of week) of values, names (JAN-DEC, SUN-SAT, any case), ranges,
// lists, steps ("*/15", "1-30/5", "5/10" = 5 to the maximum by 10) and "?"
// (as "*"), or a descriptor: @yearly (@annually), @monthly, @weekly,
// @daily (@midnight), @hourly, @every <Go duration>. When both day fields are
// restricted a day matches either; when one is "*" (or "?") both must match.
// Next() reproduces robfig's search, daylight-saving transitions included
// (a time that does not exist is skipped, a repeated one runs twice), in
// the CronJob's spec.timeZone (IANA zone from the system's tz database), or
// UTC.
//
// The controller's sync (Kubernetes pkg/controller/cronjob
// cronjob_controllerv2.go syncCronJob, utils.go mostRecentScheduleTime):
// only the most recent unmet schedule time after the last one (or the
// creation) is considered; startingDeadlineSeconds drops it when it is too
// late; Forbid waits while a Job is active (the missed time runs when the
// active Job finishes, if it is still the most recent one and within the
// deadline); Replace deletes the active Jobs first; Allow just creates.
#ifndef KUEUESIM_WORKLOADS_CRON_SCHEDULE_H_
#define KUEUESIM_WORKLOADS_CRON_SCHEDULE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kueuesim::workloads {

class CronSchedule {
 public:
  // Parses `spec` (a leading "TZ=<zone> " or "CRON_TZ=<zone> " names the
  // zone) in `time_zone` ("" for UTC). Errors: InvalidArgument with robfig's
  // wording ("end of range (60) above maximum (59): 0-60"), unknown zones.
  static absl::StatusOr<CronSchedule> Parse(std::string_view spec, std::string_view time_zone = "");

  // The first schedule time strictly after `t` (whole seconds), or
  // absl::InfiniteFuture() when none in the next five years (robfig's
  // limit; e.g. "0 0 30 2 *").
  absl::Time Next(absl::Time t) const;

  // The schedule's zone name ("UTC" by default).
  const std::string& zone_name() const { return zone_name_; }

 private:
  // Bit sets of allowed values (bit 63: the field was "*" or "?").
  uint64_t minute_ = 0, hour_ = 0, dom_ = 0, month_ = 0, dow_ = 0;
  // @every: the constant delay (whole seconds), else zero.
  absl::Duration every_ = absl::ZeroDuration();
  absl::TimeZone zone_;
  std::string zone_name_ = "UTC";

  bool DayMatches(int day_of_month, int weekday) const;
};

// What the CronJob controller sees at a sync.
struct CronSyncInput {
  absl::Time now;
  // status.lastScheduleTime, else the CronJob's creation.
  absl::Time earliest;
  bool suspend = false;
  std::optional<int64_t> starting_deadline_seconds;
  enum class Policy : uint8_t { kAllow, kForbid, kReplace } policy = Policy::kAllow;
  int active_jobs = 0;  // Jobs not finished (a Job suspended by Kueue counts)
};

struct CronSyncDecision {
  enum class Action : uint8_t {
    kNone,          // nothing due (or suspended)
    kCreate,        // create the Job for `scheduled` (after deleting the active ones when `replace`)
    kMissed,        // `scheduled` is past its starting deadline (event MissSchedule)
    kAlreadyActive  // Forbid with an active Job (event JobAlreadyActive)
  };
  Action action = Action::kNone;
  absl::Time scheduled = absl::InfinitePast();
  bool replace = false;  // Replace: delete the active Jobs first
  // More than 100 schedule times were missed (event TooManyMissedTimes).
  bool too_many_missed = false;
  // The next sync the controller asks for: the next schedule time after
  // the most recent one (plus 100 ms, nextScheduleDelta); InfiniteFuture
  // when suspended or none.
  absl::Time next_sync = absl::InfiniteFuture();
};

// Kubernetes mostRecentScheduleTime: the most recent schedule time in
// (earliest, now], where `earliest` is status.lastScheduleTime (else the
// creation), moved up to now - startingDeadlineSeconds when one is given.
// Like Kubernetes, it estimates the number of missed times from the first
// interval and searches from one interval before the estimate, so an
// irregular schedule can find no time although some were missed.
struct CronMostRecent {
  absl::Time earliest;
  std::optional<absl::Time> time;  // nullopt: none
  int64_t missed = 0;              // schedule times missed (estimated)
  bool error = false;              // the schedule never fires, or fires less than a second apart
};
CronMostRecent MostRecentScheduleTime(const CronSchedule& schedule, absl::Time earliest, absl::Time now,
                                      std::optional<int64_t> starting_deadline_seconds = std::nullopt);

// One sync of one CronJob.
CronSyncDecision SyncCronJob(const CronSchedule& schedule, const CronSyncInput& input);

// The Job name the controller gives the run of `scheduled`:
// "<cronjob>-<Unix minutes>".
std::string CronJobName(std::string_view cron_job, absl::Time scheduled);

}  // namespace kueuesim::workloads

#endif  // KUEUESIM_WORKLOADS_CRON_SCHEDULE_H_
