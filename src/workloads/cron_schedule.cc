// CronJob schedules and syncs; see kueuesim/workloads/cron_schedule.h.
#include "kueuesim/workloads/cron_schedule.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "absl/time/civil_time.h"
#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"

namespace kueuesim::workloads {
namespace {

constexpr uint64_t kStarBit = uint64_t{1} << 63;
// robfig/cron searches at most this many years ahead.
constexpr int kYearLimit = 5;
// Kubernetes' nextScheduleDelta: the controller wakes up 100 ms after a
// schedule time.
constexpr absl::Duration kNextScheduleDelta = absl::Milliseconds(100);
// Kubernetes warns (TooManyMissedTimes) beyond this many missed times.
constexpr int64_t kTooManyMissed = 100;

struct Bounds {
  unsigned min;
  unsigned max;
  const char* const* names;  // lower-case names for min.., or nullptr
};

constexpr const char* kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                       "jul", "aug", "sep", "oct", "nov", "dec", nullptr};
constexpr const char* kDayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", nullptr};

constexpr Bounds kMinutes{0, 59, nullptr};
constexpr Bounds kHours{0, 23, nullptr};
constexpr Bounds kDom{1, 31, nullptr};
constexpr Bounds kMonths{1, 12, kMonthNames};
constexpr Bounds kDow{0, 6, kDayNames};

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

// `text` split at `separator`; empty pieces kept unless `skip_empty`.
std::vector<std::string_view> Split(std::string_view text, char separator, bool skip_empty = false) {
  std::vector<std::string_view> pieces;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    const std::string_view piece = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!skip_empty || !piece.empty()) pieces.push_back(piece);
    if (end == std::string_view::npos) return pieces;
    start = end + 1;
  }
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view Strip(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

// The whitespace-separated fields of `text` (Go's strings.Fields).
std::vector<std::string_view> Fields(std::string_view text) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !IsSpace(text[i])) ++i;
    if (i > start) fields.push_back(text.substr(start, i - start));
  }
  return fields;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

uint64_t Bits(unsigned min, unsigned max, unsigned step) {
  uint64_t bits = 0;
  for (unsigned i = min; i <= max; i += step) bits |= uint64_t{1} << i;
  return bits;
}

uint64_t All(const Bounds& r) { return Bits(r.min, r.max, 1) | kStarBit; }

// robfig mustParseInt.
absl::StatusOr<unsigned> ParseInt(std::string_view text) {
  // strconv.Atoi: an optional sign, then decimal digits.
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size()) {
    return Invalid(fmt::format("failed to parse int from {}: strconv.Atoi: parsing \"{}\": invalid syntax", text,
                               text));
  }
  if (negative && value != 0) return Invalid(fmt::format("negative number ({}) not allowed: {}", -value, text));
  if (value > 1000000) value = 1000000;  // beyond every bound: reported as out of range
  return static_cast<unsigned>(value);
}

absl::StatusOr<unsigned> ParseIntOrName(std::string_view text, const Bounds& r) {
  if (r.names != nullptr) {
    const std::string lower = Lower(text);
    for (unsigned i = 0; r.names[i] != nullptr; ++i) {
      if (lower == r.names[i]) return r.min + i;
    }
  }
  return ParseInt(text);
}

// robfig getRange: "*", "?", "N", "N-M", each optionally "/step".
absl::StatusOr<uint64_t> ParseRange(std::string_view expr, const Bounds& r) {
  std::vector<std::string_view> range_and_step = Split(expr, '/');
  std::vector<std::string_view> low_and_high = Split(range_and_step[0], '-');
  const bool single = low_and_high.size() == 1;
  unsigned start = 0;
  unsigned end = 0;
  unsigned step = 1;
  uint64_t extra = 0;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    start = r.min;
    end = r.max;
    extra = kStarBit;
  } else {
    auto low = ParseIntOrName(low_and_high[0], r);
    if (!low.ok()) return low.status();
    start = *low;
    if (low_and_high.size() == 1) {
      end = start;
    } else if (low_and_high.size() == 2) {
      auto high = ParseIntOrName(low_and_high[1], r);
      if (!high.ok()) return high.status();
      end = *high;
    } else {
      return Invalid(fmt::format("too many hyphens: {}", expr));
    }
  }
  if (range_and_step.size() == 2) {
    auto parsed = ParseInt(range_and_step[1]);
    if (!parsed.ok()) return parsed.status();
    step = *parsed;
    if (single) end = r.max;  // "N/step" is "N-max/step"
    if (step > 1) extra = 0;
  } else if (range_and_step.size() > 2) {
    return Invalid(fmt::format("too many slashes: {}", expr));
  }
  if (start < r.min) return Invalid(fmt::format("beginning of range ({}) below minimum ({}): {}", start, r.min, expr));
  if (end > r.max) return Invalid(fmt::format("end of range ({}) above maximum ({}): {}", end, r.max, expr));
  if (start > end) return Invalid(fmt::format("beginning of range ({}) beyond end of range ({}): {}", start, end, expr));
  if (step == 0) return Invalid(fmt::format("step of range should be a positive number: {}", expr));
  return Bits(start, end, step) | extra;
}

// robfig getField: a comma-separated list of ranges (empty items ignored).
absl::StatusOr<uint64_t> ParseField(std::string_view field, const Bounds& r) {
  uint64_t bits = 0;
  for (std::string_view expr : Split(field, ',', /*skip_empty=*/true)) {
    auto range = ParseRange(expr, r);
    if (!range.ok()) return range.status();
    bits |= *range;
  }
  return bits;
}

bool Has(uint64_t bits, int value) { return (bits >> value) & 1; }

// Go's weekday numbering: Sunday = 0.
int GoWeekday(const absl::CivilSecond& cs) {
  switch (absl::GetWeekday(absl::CivilDay(cs))) {
    case absl::Weekday::sunday:
      return 0;
    case absl::Weekday::monday:
      return 1;
    case absl::Weekday::tuesday:
      return 2;
    case absl::Weekday::wednesday:
      return 3;
    case absl::Weekday::thursday:
      return 4;
    case absl::Weekday::friday:
      return 5;
    case absl::Weekday::saturday:
      return 6;
  }
  return 0;
}

// Truncates to a multiple of `unit` since the Unix epoch (Go's
// Time.Truncate for minutes and seconds).
absl::Time Truncate(absl::Time t, absl::Duration unit) {
  return absl::UnixEpoch() + absl::Floor(t - absl::UnixEpoch(), unit);
}

}  // namespace

absl::StatusOr<CronSchedule> CronSchedule::Parse(std::string_view spec, std::string_view time_zone) {
  CronSchedule s;
  s.zone_ = absl::UTCTimeZone();
  std::string zone(time_zone);
  std::string_view text = Strip(spec);
  if (text.empty()) return Invalid("empty spec string");
  if (text.starts_with("TZ=") || text.starts_with("CRON_TZ=")) {
    const size_t space = text.find(' ');
    const size_t eq = text.find('=');
    if (space == std::string_view::npos) return Invalid(fmt::format("missing fields after the time zone: {}", spec));
    if (!zone.empty()) return Invalid("a TZ= or CRON_TZ= prefix cannot be used together with timeZone");
    zone = std::string(text.substr(eq + 1, space - eq - 1));
    text = Strip(text.substr(space));
  }
  if (!zone.empty()) {
    if (zone == "Local") return Invalid("unknown time zone Local");
    if (!absl::LoadTimeZone(zone, &s.zone_)) return Invalid(fmt::format("unknown time zone {}", zone));
    s.zone_name_ = zone;
  }
  if (text.starts_with("@")) {
    const Bounds* bounds[] = {&kMinutes, &kHours, &kDom, &kMonths, &kDow};
    uint64_t* fields[] = {&s.minute_, &s.hour_, &s.dom_, &s.month_, &s.dow_};
    // Each descriptor as the five fields it stands for ("" for all).
    struct Descriptor {
      const char* name;
      const char* values[5];
    };
    static constexpr Descriptor kDescriptors[] = {
        {"@yearly", {"0", "0", "1", "1", ""}},  {"@annually", {"0", "0", "1", "1", ""}},
        {"@monthly", {"0", "0", "1", "", ""}},  {"@weekly", {"0", "0", "", "", "0"}},
        {"@daily", {"0", "0", "", "", ""}},     {"@midnight", {"0", "0", "", "", ""}},
        {"@hourly", {"0", "", "", "", ""}},
    };
    for (const Descriptor& d : kDescriptors) {
      if (text != d.name) continue;
      for (int i = 0; i < 5; ++i) {
        *fields[i] = d.values[i][0] == '\0' ? All(*bounds[i]) : *ParseField(d.values[i], *bounds[i]);
      }
      return s;
    }
    constexpr std::string_view kEvery = "@every ";
    if (text.starts_with(kEvery)) {
      std::string_view duration_text = text.substr(kEvery.size());
      auto duration = ParseDuration(duration_text);
      if (!duration.ok()) {
        return Invalid(fmt::format("failed to parse duration {}: {}", text, StatusMessage(duration.status())));
      }
      // robfig Every: at least one second, whole seconds.
      absl::Duration every = absl::Microseconds(*duration);
      if (every < absl::Seconds(1)) every = absl::Seconds(1);
      s.every_ = absl::Trunc(every, absl::Seconds(1));
      return s;
    }
    return Invalid(fmt::format("unrecognized descriptor: {}", text));
  }
  std::vector<std::string_view> fields = Fields(text);
  if (fields.size() != 5) {
    return Invalid(fmt::format("expected exactly 5 fields, found {}: {}", fields.size(), text));
  }
  const Bounds* bounds[] = {&kMinutes, &kHours, &kDom, &kMonths, &kDow};
  uint64_t* targets[] = {&s.minute_, &s.hour_, &s.dom_, &s.month_, &s.dow_};
  for (int i = 0; i < 5; ++i) {
    auto bits = ParseField(fields[static_cast<size_t>(i)], *bounds[i]);
    if (!bits.ok()) return bits.status();
    *targets[i] = *bits;
  }
  return s;
}

bool CronSchedule::DayMatches(int day_of_month, int weekday) const {
  const bool dom_match = Has(dom_, day_of_month);
  const bool dow_match = Has(dow_, weekday);
  if ((dom_ & kStarBit) != 0 || (dow_ & kStarBit) != 0) return dom_match && dow_match;
  return dom_match || dow_match;
}

absl::Time CronSchedule::Next(absl::Time t) const {
  if (every_ > absl::ZeroDuration()) return Truncate(t, absl::Seconds(1)) + every_;
  // robfig SpecSchedule.Next, with Go's time.Date rules for local times
  // that a daylight-saving change skips (the later offset) or repeats (the
  // earlier one).
  auto date = [this](const absl::CivilSecond& cs) {
    const absl::TimeZone::TimeInfo info = zone_.At(cs);
    return info.kind == absl::TimeZone::TimeInfo::SKIPPED ? info.post : info.pre;
  };
  auto local = [this](absl::Time at) { return zone_.At(at).cs; };
  t = Truncate(t, absl::Seconds(1)) + absl::Seconds(1);
  bool added = false;
  const int64_t year_limit = local(t).year() + kYearLimit;
wrap:
  if (local(t).year() > year_limit) return absl::InfiniteFuture();
  while (!Has(month_, local(t).month())) {
    absl::CivilSecond cs = local(t);
    if (!added) {
      added = true;
      t = date(absl::CivilSecond(cs.year(), cs.month(), 1, 0, 0, 0));
      cs = local(t);
    }
    t = date(absl::CivilSecond(cs.year(), cs.month() + 1, cs.day(), cs.hour(), cs.minute(), cs.second()));
    if (local(t).month() == 1) goto wrap;
  }
  while (!DayMatches(local(t).day(), GoWeekday(local(t)))) {
    absl::CivilSecond cs = local(t);
    if (!added) {
      added = true;
      t = date(absl::CivilSecond(cs.year(), cs.month(), cs.day(), 0, 0, 0));
      cs = local(t);
    }
    t = date(absl::CivilSecond(cs.year(), cs.month(), cs.day() + 1, cs.hour(), cs.minute(), cs.second()));
    // A daylight-saving change can move midnight: back to 0h.
    const int hour = local(t).hour();
    if (hour != 0) t += hour > 12 ? absl::Hours(24 - hour) : absl::Hours(-hour);
    if (local(t).day() == 1) goto wrap;
  }
  while (!Has(hour_, local(t).hour())) {
    if (!added) {
      added = true;
      const absl::CivilSecond cs = local(t);
      t = date(absl::CivilSecond(cs.year(), cs.month(), cs.day(), cs.hour(), 0, 0));
    }
    t += absl::Hours(1);
    if (local(t).hour() == 0) goto wrap;
  }
  while (!Has(minute_, local(t).minute())) {
    if (!added) {
      added = true;
      t = Truncate(t, absl::Minutes(1));
    }
    t += absl::Minutes(1);
    if (local(t).minute() == 0) goto wrap;
  }
  while (local(t).second() != 0) {  // the standard parser's seconds field is "0"
    if (!added) {
      added = true;
      t = Truncate(t, absl::Seconds(1));
    }
    t += absl::Seconds(1);
    if (local(t).second() == 0) goto wrap;
  }
  return t;
}

CronMostRecent MostRecentScheduleTime(const CronSchedule& schedule, absl::Time earliest, absl::Time now,
                                      std::optional<int64_t> starting_deadline_seconds) {
  CronMostRecent out;
  out.earliest = earliest;
  if (starting_deadline_seconds.has_value()) {
    const absl::Time deadline = now - absl::Seconds(*starting_deadline_seconds);
    if (deadline > out.earliest) out.earliest = deadline;
  }
  const absl::Time t1 = schedule.Next(out.earliest);
  const absl::Time t2 = t1 == absl::InfiniteFuture() ? t1 : schedule.Next(t1);
  if (t2 == absl::InfiniteFuture()) {
    out.error = true;  // Kubernetes: "time difference between two schedules is less than 1 second"
    return out;
  }
  if (now < t1) return out;
  if (now < t2) {
    out.time = t1;
    out.missed = 1;
    return out;
  }
  const int64_t interval = std::llround(absl::ToDoubleSeconds(t2 - t1));
  if (interval < 1) {
    out.error = true;
    return out;
  }
  const int64_t elapsed = absl::ToInt64Seconds(now - t1);
  out.missed = elapsed / interval + 1;
  // As Kubernetes: from one interval before the estimated most recent time,
  // the schedule finds the exact one.
  const absl::Time potential = t1 + absl::Seconds((out.missed - 2) * interval);
  for (absl::Time t = schedule.Next(potential); t <= now; t = schedule.Next(t)) out.time = t;
  return out;
}

CronSyncDecision SyncCronJob(const CronSchedule& schedule, const CronSyncInput& input) {
  CronSyncDecision decision;
  if (input.suspend) return decision;
  // nextScheduleTimeDuration: from the most recent time (no deadline), or
  // the earliest when none; `now` on error.
  auto next_sync = [&schedule](const CronSyncInput& in) {
    const CronMostRecent recent = MostRecentScheduleTime(schedule, in.earliest, in.now);
    // Kubernetes nextScheduleTimeDuration: from the most recent time; when
    // none was found, from the earliest time if none was missed, else from
    // now; from now on error.
    absl::Time from = in.now;
    if (!recent.error) from = recent.time.value_or(recent.missed == 0 ? recent.earliest : in.now);
    const absl::Time next = schedule.Next(from);
    return next == absl::InfiniteFuture() ? next : next + kNextScheduleDelta;
  };
  const CronMostRecent recent =
      MostRecentScheduleTime(schedule, input.earliest, input.now, input.starting_deadline_seconds);
  decision.too_many_missed = recent.missed > kTooManyMissed;
  if (!recent.time.has_value() || *recent.time > input.now) {
    decision.next_sync = next_sync(input);
    return decision;
  }
  decision.scheduled = *recent.time;
  if (input.starting_deadline_seconds.has_value() &&
      decision.scheduled + absl::Seconds(*input.starting_deadline_seconds) < input.now) {
    decision.action = CronSyncDecision::Action::kMissed;
    decision.next_sync = next_sync(input);
    return decision;
  }
  if (input.policy == CronSyncInput::Policy::kForbid && input.active_jobs > 0) {
    decision.action = CronSyncDecision::Action::kAlreadyActive;
    decision.next_sync = next_sync(input);
    return decision;
  }
  decision.action = CronSyncDecision::Action::kCreate;
  decision.replace = input.policy == CronSyncInput::Policy::kReplace && input.active_jobs > 0;
  CronSyncInput after = input;
  after.earliest = decision.scheduled;  // status.lastScheduleTime
  decision.next_sync = next_sync(after);
  return decision;
}

std::string CronJobName(std::string_view cron_job, absl::Time scheduled) {
  return fmt::format("{}-{}", cron_job, absl::ToUnixSeconds(scheduled) / 60);
}

}  // namespace kueuesim::workloads
