// CronJob schedules and syncs: robfig/cron v3's parser and spec tests
// (parser_test.go, spec_test.go; six-field specs there written here without
// their seconds field) and Kubernetes' pkg/controller/cronjob utils_test.go
// (TestMostRecentScheduleTime, TestNextScheduleTimeDuration) and
// cronjob_controllerv2_test.go policies.
#include "kueuesim/workloads/cron_schedule.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kueuesim::workloads {
namespace {

using ::testing::HasSubstr;

absl::Time At(const std::string& text) {
  absl::Time t;
  std::string error;
  if (!absl::ParseTime("%Y-%m-%dT%H:%M:%S%Ez", text, &t, &error)) ADD_FAILURE() << text << ": " << error;
  return t;
}

CronSchedule MustParse(const std::string& spec, const std::string& zone = "") {
  auto schedule = CronSchedule::Parse(spec, zone);
  EXPECT_TRUE(schedule.ok()) << spec << ": " << schedule.status();
  return schedule.ok() ? *schedule : *CronSchedule::Parse("* * * * *");
}

std::string Next(const std::string& spec, const std::string& from, const std::string& zone = "") {
  absl::Time next = MustParse(spec, zone).Next(At(from));
  if (next == absl::InfiniteFuture()) return "never";
  absl::TimeZone tz = absl::UTCTimeZone();
  if (!zone.empty()) {
    EXPECT_TRUE(absl::LoadTimeZone(zone, &tz));
  }
  return absl::FormatTime("%Y-%m-%dT%H:%M:%S%Ez", next, tz);
}

// spec_test.go TestActivation: the schedule fires exactly at `time`.
bool FiresAt(const std::string& spec, const std::string& time) {
  const absl::Time t = At(time);
  return MustParse(spec).Next(t - absl::Seconds(1)) == t;
}

TEST(CronScheduleTest, Activation) {
  // Every fifteen minutes.
  EXPECT_TRUE(FiresAt("0/15 * * *  *", "2012-07-09T15:00:00+00:00"));
  EXPECT_TRUE(FiresAt("0/15 * * * *", "2012-07-09T15:45:00+00:00"));
  EXPECT_FALSE(FiresAt("0/15 * * * *", "2012-07-09T15:40:00+00:00"));
  // Starting at 5 minutes.
  EXPECT_TRUE(FiresAt("5/15 * * * *", "2012-07-09T15:05:00+00:00"));
  EXPECT_TRUE(FiresAt("5/15 * * * *", "2012-07-09T15:20:00+00:00"));
  EXPECT_TRUE(FiresAt("5/15 * * * *", "2012-07-09T15:50:00+00:00"));
  // Named months (any case).
  EXPECT_TRUE(FiresAt("0/15 * * Jul *", "2012-07-15T15:00:00+00:00"));
  EXPECT_FALSE(FiresAt("0/15 * * Jun *", "2012-07-15T15:00:00+00:00"));
  // Everything set.
  EXPECT_TRUE(FiresAt("30 08 ? Jul Sun", "2012-07-15T08:30:00+00:00"));
  EXPECT_TRUE(FiresAt("30 08 15 Jul ?", "2012-07-15T08:30:00+00:00"));
  EXPECT_FALSE(FiresAt("30 08 ? Jul Sun", "2012-07-16T08:30:00+00:00"));
  EXPECT_FALSE(FiresAt("30 08 15 Jul ?", "2012-07-16T08:30:00+00:00"));
  // Descriptors.
  EXPECT_TRUE(FiresAt("@hourly", "2012-07-09T15:00:00+00:00"));
  EXPECT_FALSE(FiresAt("@hourly", "2012-07-09T15:04:00+00:00"));
  EXPECT_FALSE(FiresAt("@daily", "2012-07-09T15:00:00+00:00"));
  EXPECT_TRUE(FiresAt("@daily", "2012-07-09T00:00:00+00:00"));
  EXPECT_TRUE(FiresAt("@midnight", "2012-07-09T00:00:00+00:00"));
  EXPECT_FALSE(FiresAt("@weekly", "2012-07-09T00:00:00+00:00"));
  EXPECT_TRUE(FiresAt("@weekly", "2012-07-08T00:00:00+00:00"));
  EXPECT_FALSE(FiresAt("@weekly", "2012-07-08T01:00:00+00:00"));
  EXPECT_FALSE(FiresAt("@monthly", "2012-07-08T00:00:00+00:00"));
  EXPECT_TRUE(FiresAt("@monthly", "2012-07-01T00:00:00+00:00"));
  EXPECT_TRUE(FiresAt("@yearly", "2013-01-01T00:00:00+00:00"));
  EXPECT_TRUE(FiresAt("@annually", "2013-01-01T00:00:00+00:00"));
  // Both day fields restricted: either matches ("*/10" with a step is not
  // a star in robfig v3, which Kubernetes uses: robfig/cron#70).
  EXPECT_TRUE(FiresAt("* * 1,15 * Sun", "2012-07-15T00:00:00+00:00"));
  EXPECT_TRUE(FiresAt("* * 1,15 * Sun", "2012-06-15T00:00:00+00:00"));
  EXPECT_TRUE(FiresAt("* * 1,15 * Sun", "2012-08-01T00:00:00+00:00"));
  EXPECT_TRUE(FiresAt("* * */10 * Sun", "2012-07-15T00:00:00+00:00"));
  // One of them a star: both must match.
  EXPECT_FALSE(FiresAt("* * * * Mon", "2012-07-15T00:00:00+00:00"));
  EXPECT_FALSE(FiresAt("* * 1,15 * *", "2012-07-09T00:00:00+00:00"));
  EXPECT_TRUE(FiresAt("* * 1,15 * *", "2012-07-15T00:00:00+00:00"));
  EXPECT_TRUE(FiresAt("* * */2 * Sun", "2012-07-15T00:00:00+00:00"));
}

TEST(CronScheduleTest, Next) {
  EXPECT_EQ(Next("0/15 * * * *", "2012-07-09T14:45:00+00:00"), "2012-07-09T15:00:00+00:00");
  EXPECT_EQ(Next("0/15 * * * *", "2012-07-09T14:59:00+00:00"), "2012-07-09T15:00:00+00:00");
  EXPECT_EQ(Next("0/15 * * * *", "2012-07-09T14:59:59+00:00"), "2012-07-09T15:00:00+00:00");
  // Wrap around hours, days, months, years.
  EXPECT_EQ(Next("20-35/15 * * * *", "2012-07-09T15:45:00+00:00"), "2012-07-09T16:20:00+00:00");
  EXPECT_EQ(Next("*/15 * * * *", "2012-07-09T23:46:00+00:00"), "2012-07-10T00:00:00+00:00");
  EXPECT_EQ(Next("20-35/15 * * * *", "2012-07-09T23:45:00+00:00"), "2012-07-10T00:20:00+00:00");
  EXPECT_EQ(Next("20-35/15 1/2 * * *", "2012-07-09T23:35:51+00:00"), "2012-07-10T01:20:00+00:00");
  EXPECT_EQ(Next("20-35/15 10-12 * * *", "2012-07-09T23:35:51+00:00"), "2012-07-10T10:20:00+00:00");
  EXPECT_EQ(Next("20-35/15 1/2 */2 * *", "2012-07-09T23:35:51+00:00"), "2012-07-11T01:20:00+00:00");
  EXPECT_EQ(Next("20-35/15 * 9-20 * *", "2012-07-09T23:35:51+00:00"), "2012-07-10T00:20:00+00:00");
  EXPECT_EQ(Next("20-35/15 * 9-20 Jul *", "2012-07-09T23:35:51+00:00"), "2012-07-10T00:20:00+00:00");
  EXPECT_EQ(Next("0 0 9 Apr-Oct ?", "2012-07-09T23:35:00+00:00"), "2012-08-09T00:00:00+00:00");
  // (robfig v3: "*/5" restricts the day of month, so a day matches either.)
  EXPECT_EQ(Next("0 0 */5 Apr,Aug,Oct Mon", "2012-07-09T23:35:00+00:00"), "2012-08-01T00:00:00+00:00");
  EXPECT_EQ(Next("0 0 */5 Oct Mon", "2012-07-09T23:35:00+00:00"), "2012-10-01T00:00:00+00:00");
  EXPECT_EQ(Next("0 0 * Feb Mon", "2012-07-09T23:35:00+00:00"), "2013-02-04T00:00:00+00:00");
  EXPECT_EQ(Next("0 0 * Feb Mon/2", "2012-07-09T23:35:00+00:00"), "2013-02-01T00:00:00+00:00");
  EXPECT_EQ(Next("* * * * *", "2012-12-31T23:59:45+00:00"), "2013-01-01T00:00:00+00:00");
  // Leap year.
  EXPECT_EQ(Next("0 0 29 Feb ?", "2012-07-09T23:35:00+00:00"), "2016-02-29T00:00:00+00:00");
  // Unsatisfiable within five years.
  EXPECT_EQ(Next("0 0 30 Feb ?", "2012-07-09T23:35:00+00:00"), "never");
  EXPECT_EQ(Next("0 0 31 Apr ?", "2012-07-09T23:35:00+00:00"), "never");
  // @every: from the previous time, in whole seconds, at least one.
  EXPECT_EQ(Next("@every 1h30m", "2012-07-09T23:35:10+00:00"), "2012-07-10T01:05:10+00:00");
  EXPECT_EQ(Next("@every 10ms", "2012-07-09T23:35:10+00:00"), "2012-07-09T23:35:11+00:00");
  EXPECT_EQ(Next("@every 90500ms", "2012-07-09T23:35:10+00:00"), "2012-07-09T23:36:40+00:00");
}

TEST(CronScheduleTest, DaylightSavingTransitionsFollowRobfig) {
  const std::string ny = "America/New_York";
  // 2am EST (-5) -> 3am EDT (-4): 02:30 does not exist on 2012-03-11.
  EXPECT_EQ(Next("30 2 11 Mar ?", "2012-03-11T00:00:00-05:00", ny), "2013-03-11T02:30:00-04:00");
  // Hourly job.
  EXPECT_EQ(Next("0 * * * ?", "2012-03-11T00:00:00-05:00", ny), "2012-03-11T01:00:00-05:00");
  EXPECT_EQ(Next("0 * * * ?", "2012-03-11T01:00:00-05:00", ny), "2012-03-11T03:00:00-04:00");
  EXPECT_EQ(Next("0 * * * ?", "2012-03-11T03:00:00-04:00", ny), "2012-03-11T04:00:00-04:00");
  // 1am nightly job, 2am nightly job (skipped that day).
  EXPECT_EQ(Next("0 1 * * ?", "2012-03-11T00:00:00-05:00", ny), "2012-03-11T01:00:00-05:00");
  EXPECT_EQ(Next("0 1 * * ?", "2012-03-11T01:00:00-05:00", ny), "2012-03-12T01:00:00-04:00");
  EXPECT_EQ(Next("0 2 * * ?", "2012-03-11T00:00:00-05:00", ny), "2012-03-12T02:00:00-04:00");
  // 2am EDT (-4) -> 1am EST (-5): 01:00-01:59 happen twice on 2012-11-04.
  EXPECT_EQ(Next("30 2 04 Nov ?", "2012-11-04T00:00:00-04:00", ny), "2012-11-04T02:30:00-05:00");
  EXPECT_EQ(Next("30 1 04 Nov ?", "2012-11-04T01:45:00-04:00", ny), "2012-11-04T01:30:00-05:00");
  EXPECT_EQ(Next("0 * * * ?", "2012-11-04T00:00:00-04:00", ny), "2012-11-04T01:00:00-04:00");
  EXPECT_EQ(Next("0 * * * ?", "2012-11-04T01:00:00-04:00", ny), "2012-11-04T01:00:00-05:00");
  EXPECT_EQ(Next("0 * * * ?", "2012-11-04T01:00:00-05:00", ny), "2012-11-04T02:00:00-05:00");
  // 1am nightly job runs twice.
  EXPECT_EQ(Next("0 1 * * ?", "2012-11-04T00:00:00-04:00", ny), "2012-11-04T01:00:00-04:00");
  EXPECT_EQ(Next("0 1 * * ?", "2012-11-04T01:00:00-04:00", ny), "2012-11-04T01:00:00-05:00");
  EXPECT_EQ(Next("0 1 * * ?", "2012-11-04T01:00:00-05:00", ny), "2012-11-05T01:00:00-05:00");
  EXPECT_EQ(Next("0 2 * * ?", "2012-11-04T00:00:00-04:00", ny), "2012-11-04T02:00:00-05:00");
  EXPECT_EQ(Next("0 3 * * ?", "2012-11-04T00:00:00-04:00", ny), "2012-11-04T03:00:00-05:00");
}

TEST(CronScheduleTest, TimeZones) {
  // The design note's example: weekdays 02:30 Berlin = 00:30 UTC in summer,
  // 01:30 UTC in winter.
  EXPECT_EQ(Next("30 2 * * 1-5", "2026-07-03T12:00:00+00:00", "Europe/Berlin"), "2026-07-06T02:30:00+02:00");
  EXPECT_EQ(Next("30 2 * * 1-5", "2026-12-04T12:00:00+00:00", "Europe/Berlin"), "2026-12-07T02:30:00+01:00");
  // A TZ= / CRON_TZ= prefix names the zone.
  EXPECT_EQ(absl::FormatTime("%Y-%m-%dT%H:%M:%S%Ez",
                             MustParse("CRON_TZ=Asia/Tokyo 0 9 * * *").Next(At("2025-12-31T23:00:00+00:00")),
                             absl::UTCTimeZone()),
            "2026-01-01T00:00:00+00:00");
  EXPECT_THAT(CronSchedule::Parse("TZ=UTC 0 9 * * *", "Europe/Berlin").status().message(),
              HasSubstr("cannot be used together with timeZone"));
  EXPECT_THAT(CronSchedule::Parse("0 9 * * *", "Mars/Olympus").status().message(),
              HasSubstr("unknown time zone Mars/Olympus"));
  EXPECT_THAT(CronSchedule::Parse("0 9 * * *", "Local").status().message(), HasSubstr("unknown time zone"));
}

TEST(CronScheduleTest, ParseErrorsUseRobfigWording) {
  auto message = [](const std::string& spec) {
    auto parsed = CronSchedule::Parse(spec);
    return parsed.ok() ? std::string("ok") : std::string(parsed.status().message());
  };
  EXPECT_THAT(message("xyz"), HasSubstr("expected exactly 5 fields, found 1: xyz"));
  EXPECT_THAT(message("* * * *"), HasSubstr("expected exactly 5 fields, found 4"));
  EXPECT_THAT(message("0 0 * * * *"), HasSubstr("expected exactly 5 fields, found 6"));
  EXPECT_THAT(message("60 0 * * *"), HasSubstr("end of range (60) above maximum (59): 60"));
  EXPECT_THAT(message("0 24 * * *"), HasSubstr("end of range (24) above maximum (23): 24"));
  EXPECT_THAT(message("0 0 0 * *"), HasSubstr("beginning of range (0) below minimum (1): 0"));
  EXPECT_THAT(message("0 0 * 13 *"), HasSubstr("end of range (13) above maximum (12)"));
  EXPECT_THAT(message("0 0 * * 7"), HasSubstr("end of range (7) above maximum (6)"));
  EXPECT_THAT(message("0 0 * * XYZ"), HasSubstr("failed to parse int from XYZ"));
  EXPECT_THAT(message("5-1 * * * *"), HasSubstr("beginning of range (5) beyond end of range (1): 5-1"));
  EXPECT_THAT(message("1-2-3 * * * *"), HasSubstr("too many hyphens: 1-2-3"));
  EXPECT_THAT(message("*/2/3 * * * *"), HasSubstr("too many slashes: */2/3"));
  EXPECT_THAT(message("*/0 * * * *"), HasSubstr("step of range should be a positive number: */0"));
  EXPECT_THAT(message("-1 * * * *"), HasSubstr("failed to parse int from "));
  EXPECT_THAT(message("@fortnightly"), HasSubstr("unrecognized descriptor: @fortnightly"));
  EXPECT_THAT(message("@every soon"), HasSubstr("failed to parse duration @every soon"));
  EXPECT_THAT(message(""), HasSubstr("empty spec string"));
  // Names in any case, lists with empty items, "?" as "*".
  EXPECT_EQ(message("0 0 * jan,MAR mon-FRI"), "ok");
  EXPECT_EQ(message("0,,30 * * * ?"), "ok");
}

// Kubernetes utils_test.go TestMostRecentScheduleTime; times from the top
// of the hour 2016-05-19T10:00:00Z (a Thursday).
absl::Time Top(absl::Duration delta = absl::ZeroDuration()) { return At("2016-05-19T10:00:00+00:00") + delta; }

TEST(CronSyncTest, MostRecentScheduleTime) {
  struct Case {
    std::string name;
    std::string schedule;
    absl::Time earliest;
    absl::Time now;
    std::optional<int64_t> deadline;
    std::optional<absl::Time> recent;
    bool many_missed = false;
    bool error = false;
  };
  const Case cases[] = {
      {"now before next schedule", "0 * * * *", Top(), Top(absl::Seconds(30)), {}, {}},
      {"now just after next schedule", "0 * * * *", Top(), Top(absl::Minutes(61)), {}, Top(absl::Minutes(60))},
      {"missed 5 schedules", "0 * * * *", Top(absl::Seconds(10)), Top(absl::Minutes(301)), {},
       Top(absl::Minutes(300))},
      {"complex schedule", "30 6-16/4 * * 1-5", Top(absl::Minutes(30)), Top(absl::Hours(24) + absl::Minutes(31)),
       {}, Top(absl::Hours(24) + absl::Minutes(30))},
      // Kubernetes' estimate overshoots the weekend: no time is found.
      {"another complex schedule", "30 10,11,12 * * 1-5", Top(absl::Minutes(30)),
       Top(absl::Hours(30) + absl::Minutes(30)), {}, {}},
      {"complex schedule with longer diff between executions", "30 6-16/4 * * 1-5", Top(absl::Minutes(30)),
       Top(absl::Hours(96) + absl::Minutes(31)), {}, Top(absl::Hours(96) + absl::Minutes(30))},
      {"complex schedule with shorter diff between executions", "30 6-16/4 * * 1-5", Top(),
       Top(absl::Hours(24) + absl::Minutes(31)), {}, Top(absl::Hours(24) + absl::Minutes(30))},
      {"@every schedule", "@every 1h", Top(absl::Minutes(1)), Top(absl::Hours(7 * 24)), {},
       Top(absl::Hours(6 * 24 + 23) + absl::Minutes(1)), /*many_missed=*/true},
      {"rogue cronjob", "59 23 31 2 *", Top(absl::Seconds(10)), Top(absl::Hours(1)), {}, {}, false, true},
      {"earliestTime being LastScheduleTime", "*/5 * * * *", Top(absl::Minutes(30)), Top(absl::Minutes(31)), {},
       {}},
      {"within StartingDeadlineSeconds", "*/5 * * * *", Top(absl::Minutes(30)), Top(absl::Minutes(31)), 60, {}},
      {"outside StartingDeadlineSeconds", "*/5 * * * *", Top(absl::Minutes(30)), Top(absl::Minutes(32)), 60, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const CronMostRecent got = MostRecentScheduleTime(MustParse(c.schedule), c.earliest, c.now, c.deadline);
    EXPECT_EQ(got.error, c.error);
    if (c.error) continue;
    EXPECT_EQ(got.time, c.recent);
    EXPECT_EQ(got.missed > 100, c.many_missed);
  }
  // The deadline moves the earliest time up.
  EXPECT_EQ(MostRecentScheduleTime(MustParse("*/5 * * * *"), Top(absl::Minutes(30)), Top(absl::Minutes(32)), 60)
                .earliest,
            Top(absl::Minutes(31)));
}

TEST(CronSyncTest, NextSyncIsTheNextScheduleTimePlus100ms) {
  // utils_test.go TestNextScheduleTimeDuration.
  CronSyncInput input;
  input.earliest = Top(absl::Minutes(30));
  input.now = Top(absl::Hours(24) + absl::Minutes(31));
  CronSyncDecision d = SyncCronJob(MustParse("30 6-16/4 * * 1-5"), input);
  EXPECT_EQ(d.next_sync - input.now, absl::Hours(3) + absl::Minutes(59) + absl::Milliseconds(100));

  input.now = Top(absl::Hours(30) + absl::Minutes(30));
  d = SyncCronJob(MustParse("30 10,11,12 * * 1-5"), input);
  EXPECT_EQ(d.action, CronSyncDecision::Action::kNone);
  EXPECT_EQ(d.next_sync - input.now, absl::Hours(66) + absl::Milliseconds(100));

  input.earliest = Top(absl::Hours(2));
  input.now = Top(absl::Hours(19 * 24 + 1) + absl::Minutes(30));
  d = SyncCronJob(MustParse("0 12 * * 4"), input);
  EXPECT_EQ(d.next_sync - input.now, absl::Hours(48) + absl::Minutes(30) + absl::Milliseconds(100));

  input.earliest = Top();
  input.now = Top(absl::Hours(6));
  d = SyncCronJob(MustParse("0 12 * * 5"), input);
  EXPECT_EQ(d.action, CronSyncDecision::Action::kNone);
  EXPECT_EQ(d.next_sync - input.now, absl::Hours(20) + absl::Milliseconds(100));
}

TEST(CronSyncTest, Policies) {
  const CronSchedule hourly = MustParse("0 * * * *");
  CronSyncInput input;
  input.earliest = Top();
  input.now = Top(absl::Minutes(61));

  // Allow: only the most recent of the missed times runs.
  input.now = Top(absl::Minutes(181));
  CronSyncDecision d = SyncCronJob(hourly, input);
  EXPECT_EQ(d.action, CronSyncDecision::Action::kCreate);
  EXPECT_EQ(d.scheduled, Top(absl::Hours(3)));
  EXPECT_FALSE(d.replace);
  EXPECT_EQ(d.next_sync, Top(absl::Hours(4) + absl::Milliseconds(100)));
  input.active_jobs = 2;
  EXPECT_EQ(SyncCronJob(hourly, input).action, CronSyncDecision::Action::kCreate);

  // Forbid: an active Job (one Kueue keeps suspended counts) holds the run
  // back; the next sync is at the next schedule time.
  input.policy = CronSyncInput::Policy::kForbid;
  d = SyncCronJob(hourly, input);
  EXPECT_EQ(d.action, CronSyncDecision::Action::kAlreadyActive);
  EXPECT_EQ(d.next_sync, Top(absl::Hours(4) + absl::Milliseconds(100)));
  // Once the Job finished, the held-back time runs (late) when it is still
  // the most recent one.
  input.active_jobs = 0;
  input.now = Top(absl::Minutes(230));
  d = SyncCronJob(hourly, input);
  EXPECT_EQ(d.action, CronSyncDecision::Action::kCreate);
  EXPECT_EQ(d.scheduled, Top(absl::Hours(3)));

  // Replace: the active Jobs go first.
  input.policy = CronSyncInput::Policy::kReplace;
  input.active_jobs = 1;
  d = SyncCronJob(hourly, input);
  EXPECT_EQ(d.action, CronSyncDecision::Action::kCreate);
  EXPECT_TRUE(d.replace);
  input.active_jobs = 0;
  EXPECT_FALSE(SyncCronJob(hourly, input).replace);

  // startingDeadlineSeconds: a time older than the deadline is not run (the
  // window starts at now - deadline, so nothing is due).
  input.policy = CronSyncInput::Policy::kAllow;
  input.starting_deadline_seconds = 600;
  input.now = Top(absl::Minutes(189));  // 9 minutes after 13:00
  EXPECT_EQ(SyncCronJob(hourly, input).action, CronSyncDecision::Action::kCreate);
  input.now = Top(absl::Minutes(190));  // the window (now - deadline, now] no longer holds 13:00
  d = SyncCronJob(hourly, input);
  EXPECT_EQ(d.action, CronSyncDecision::Action::kNone);
  EXPECT_EQ(d.next_sync, Top(absl::Hours(4) + absl::Milliseconds(100)));

  // Suspended: nothing, and no next sync.
  input.suspend = true;
  d = SyncCronJob(hourly, input);
  EXPECT_EQ(d.action, CronSyncDecision::Action::kNone);
  EXPECT_EQ(d.next_sync, absl::InfiniteFuture());
}

TEST(CronSyncTest, JobNameIsTheScheduledTimeInMinutes) {
  // Kubernetes getJobName: <cronjob>-<Unix time / 60>.
  EXPECT_EQ(CronJobName("nightly", At("2016-05-19T10:00:00+00:00")), "nightly-24394200");
}

}  // namespace
}  // namespace kueuesim::workloads
