// Tests for kueuesim/base/time.h: Go-style duration parsing, RFC 3339
// timestamps and the seconds / duration formatters.
#include "kueuesim/base/time.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace kueuesim {
namespace {

using ::kueuesim::testing::StatusIs;
using ::testing::HasSubstr;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr SimDuration kDay = 24 * kHour;

struct DurationCase {
  std::string text;
  SimDuration want;
};

// Setup: Go duration strings, bare numbers and the "d" unit. Invariant: the
// exact duration in microseconds, with sub-microsecond totals rounded up
// once (not per component).
TEST(ParseDurationTest, ParsesGoDurations) {
  const std::vector<DurationCase> cases = {
      // Bare numbers are seconds.
      {"0", 0},
      {"45", 45 * kSecond},
      {"1.5", 1500 * kMillisecond},
      {"+45", 45 * kSecond},
      {"5.", 5 * kSecond},
      {".25", 250 * kMillisecond},
      {"007", 7 * kSecond},
      // Go's examples and every unit.
      {"0s", 0},
      {"90s", 90 * kSecond},
      {"1h30m", 90 * kMinute},
      {"1.5h", 90 * kMinute},
      {"2h30m", 150 * kMinute},
      {"300ms", 300 * kMillisecond},
      {"2h45m30.5s", 2 * kHour + 45 * kMinute + 30 * kSecond + 500 * kMillisecond},
      {".5s", 500 * kMillisecond},
      {"1.s", kSecond},
      {"+5s", 5 * kSecond},
      {"10us", 10},
      {"1us", 1},
      {"1\u00b5s", 1},  // micro sign
      {"1\u03bcs", 1},  // Greek mu
      {"1ms", kMillisecond},
      {"1m", kMinute},
      {"1h", kHour},
      {"1d", kDay},
      {"1.5d", 36 * kHour},
      {"1d2h", 26 * kHour},
      {"1h1h", 2 * kHour},
      {"1s1ms1us", kSecond + kMillisecond + 1},
      {"0.000001s", 1},
      {"0.0000000001h", 1},  // 0.36us
      {"0.1ms", 100},
  };
  for (const DurationCase& c : cases) {
    SCOPED_TRACE(c.text);
    KUEUESIM_ASSERT_OK_AND_ASSIGN(const SimDuration d, ParseDuration(c.text));
    EXPECT_EQ(d, c.want);
  }
}

// Setup: nanosecond and sub-microsecond amounts. Invariant: the exact total
// is rounded up to a whole microsecond (1ns -> 1us), and fractions of
// several components add up exactly before rounding.
TEST(ParseDurationTest, RoundsNanosecondsUpOnce) {
  const std::vector<DurationCase> cases = {
      {"1ns", 1},
      {"0ns", 0},
      {"999ns", 1},
      {"1000ns", 1},
      {"1001ns", 2},
      {"0.1ns", 1},
      {"1.5us", 2},
      {"0.5us", 1},
      {"1s1ns", kSecond + 1},
      {"500ns500ns", 1},
      {"0.0000005s0.0000005s", 1},
      {"0.0000005s0.0000006s", 2},
      {"0.3us0.3us0.4us", 1},
      {"0.3us0.3us0.41us", 2},
      {"1.000000000000000000000000000001s", kSecond + 1},
      {"0." + std::string(1000, '0') + "1h", 1},
  };
  for (const DurationCase& c : cases) {
    SCOPED_TRACE(c.text);
    KUEUESIM_ASSERT_OK_AND_ASSIGN(const SimDuration d, ParseDuration(c.text));
    EXPECT_EQ(d, c.want);
  }
}

// Setup: durations at and beyond the int64 microsecond range. Invariant:
// the largest value parses exactly; anything larger is OutOfRange.
TEST(ParseDurationTest, DetectsOverflow) {
  const std::vector<DurationCase> ok_cases = {
      {"9223372036854775807us", kMax},      {"9223372036854.775807s", kMax},
      {"9223372036854775806us999ns", kMax}, {"9223372036854775806us1us", kMax},
      {"106751991d", 106751991 * kDay},     {"0000000000000000000000000000001s", kSecond},
  };
  for (const DurationCase& c : ok_cases) {
    SCOPED_TRACE(c.text);
    KUEUESIM_ASSERT_OK_AND_ASSIGN(const SimDuration d, ParseDuration(c.text));
    EXPECT_EQ(d, c.want);
  }
  const std::vector<std::string> overflow_cases = {
      "9223372036854775808us",
      "9223372036854.775808s",
      "9223372036854775807us1ns",
      "9223372036854775807us1us",
      "106751992d",
      "99999999999999999999999s",
      "1" + std::string(1000, '0') + "h",
      "2562047788h2562047788h",
  };
  for (const std::string& text : overflow_cases) {
    SCOPED_TRACE(text);
    EXPECT_THAT(ParseDuration(text),
                StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("overflows int64 microseconds")));
  }
}

struct MalformedCase {
  std::string text;
  std::string message;  // expected substring
};

// Setup: strings Go rejects, negative durations and kueuesim's extra rules.
// Invariant: InvalidArgument naming the text and the reason.
TEST(ParseDurationTest, RejectsMalformedDurations) {
  const std::vector<MalformedCase> cases = {
      {"", "malformed duration \"\": empty string"},
      {"-5s", "\"-5s\": negative durations are not allowed"},
      {"-0", "negative durations are not allowed"},
      {"+", "expected a number"},
      {"1h30", "\"1h30\": missing unit after \"30\""},
      {"1m5", "missing unit after \"5\""},
      {"1.2.3s", "missing unit after \"1.2\""},
      {"1..5s", "missing unit after \"1.\""},
      {"5x", "unknown unit \"x\""},
      {"1H", "unknown unit \"H\""},
      {"1sec", "unknown unit \"sec\""},
      {"1e3s", "unknown unit \"e\""},
      {"1h 30m", "unknown unit \"h \""},
      {"1s ", "unknown unit \"s \""},
      {"1D", "unknown unit \"D\""},
      {"1h-30m", "unknown unit \"h-\""},
      {"h", "expected a number at \"h\""},
      {".", "expected a number"},
      {".s", "expected a number at \".s\""},
      {"1h.m", "expected a number at \".m\""},
      {" 1s", "expected a number"},
      {"1h\n", "unknown unit \"h\\n\""},
  };
  for (const MalformedCase& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_THAT(ParseDuration(c.text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)));
  }
}

struct TimestampCase {
  std::string text;
  UnixMicros want;
};

// Setup: RFC 3339 timestamps in UTC and with offsets, fractions, leap days
// and lowercase separators. Invariant: microseconds since the epoch, with
// fractions truncated to microseconds.
TEST(ParseRfc3339Test, ParsesTimestamps) {
  const std::vector<TimestampCase> cases = {
      {"1970-01-01T00:00:00Z", 0},
      {"2024-12-31T23:00:00Z", 1735686000000000},
      {"2024-12-31T23:00:00.5+01:00", 1735682400500000},
      {"2024-12-31T22:00:00.5Z", 1735682400500000},
      {"2024-03-01T11:00:00+05:30", 1709271000000000},
      {"2024-02-29T19:00:00-10:30", 1709271000000000},
      {"2024-03-01T05:30:00-00:00", 1709271000000000},
      {"2024-03-01t05:30:00z", 1709271000000000},
      {"1970-01-01T00:00:00.1Z", 100000},
      {"1970-01-01T00:00:00.000001Z", 1},
      {"1970-01-01T00:00:00.123456789Z", 123456},
      {"1970-01-01T00:00:00.0000009Z", 0},
      {"1969-12-31T23:59:59.999999Z", -1},
      {"1969-12-31T23:59:59.9999999Z", -1},
      {"1970-01-01T01:00:00+01:00", 0},
      {"1970-01-01T00:00:00+23:59", -(23 * kHour + 59 * kMinute)},
      {"1969-12-31T23:59:60Z", 0},  // leap second: next minute
      {"2000-02-29T00:00:00Z", 951782400 * kSecond},
      {"2100-03-01T00:00:00Z", 4107542400 * kSecond},
      {"0001-01-01T00:00:00Z", -62135596800 * kSecond},
      {"0000-01-01T00:00:00Z", -62167219200 * kSecond},
      {"0000-02-29T00:00:00Z", (-62167219200 + 59 * 86400) * kSecond},  // year 0 is leap
      {"9999-12-31T23:59:59.999999Z", 253402300799999999},
  };
  for (const TimestampCase& c : cases) {
    SCOPED_TRACE(c.text);
    KUEUESIM_ASSERT_OK_AND_ASSIGN(const UnixMicros t, ParseRfc3339(c.text));
    EXPECT_EQ(t, c.want);
  }
}

// Setup: malformed layouts and out-of-range fields, including non-leap
// February 29ths. Invariant: InvalidArgument naming the text and the field.
TEST(ParseRfc3339Test, RejectsMalformedTimestamps) {
  const std::vector<MalformedCase> cases = {
      {"", "malformed timestamp \"\": empty string"},
      {"2024-13-01T00:00:00Z", "month 13 out of range"},
      {"2024-00-01T00:00:00Z", "month 0 out of range"},
      {"2024-01-00T00:00:00Z", "day 0 out of range"},
      {"2024-01-32T00:00:00Z", "day 32 out of range"},
      {"2024-04-31T00:00:00Z", "day 31 out of range"},
      {"2023-02-29T00:00:00Z", "day 29 out of range"},
      {"1900-02-29T00:00:00Z", "day 29 out of range"},
      {"2024-02-30T00:00:00Z", "day 30 out of range"},
      {"2024-01-01T24:00:00Z", "hour 24 out of range"},
      {"2024-01-01T23:60:00Z", "minute 60 out of range"},
      {"2024-01-01T23:59:61Z", "second 61 out of range"},
      {"2024-01-01T00:00:00+24:00", "offset hour 24 out of range"},
      {"2024-01-01T00:00:00+01:60", "offset minute 60 out of range"},
      {"2024-12-31 23:00:00Z", "expected \"T\""},
      {"2024-12-31T23:00:00", "expected \"Z\""},
      {"2024-12-31T23:00:00+0100", "expected an offset"},
      {"2024-12-31T23:00:00+01", "expected an offset"},
      {"2024-12-31T23:00:00.Z", "expected digits after \".\""},
      {"2024-12-31T23:00:00.1234567890Z", "more than 9 digits"},
      {"2024-1-01T00:00:00Z", "expected a date"},
      {"24-01-01T00:00:00Z", "expected a date"},
      {"+2024-01-01T00:00:00Z", "expected a date"},
      {"2024-01-01T00:00Z", "expected a time"},
      {"2024-01-01T0:00:00Z", "expected a time"},
      {"2024-01-01T00:00:00Zx", "unexpected trailing text \"x\""},
      {"2024-01-01T00:00:00Z ", "unexpected trailing text \" \""},
      {" 2024-01-01T00:00:00Z", "expected a date"},
      {"2024-01-01", "expected \"T\""},
      {"2024-01-01T00:00:00 Z", "expected \"Z\""},
  };
  for (const MalformedCase& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_THAT(ParseRfc3339(c.text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)));
  }
}

// Setup: instants around the epoch and far from it. Invariant: UTC, "Z",
// a fraction only when nonzero with trailing zeros trimmed.
TEST(FormatRfc3339Test, FormatsUtc) {
  const std::vector<TimestampCase> cases = {
      {"1970-01-01T00:00:00Z", 0},
      {"1970-01-01T00:00:00.25Z", 250000},
      {"1970-01-01T00:00:00.000001Z", 1},
      {"1969-12-31T23:59:59.999999Z", -1},
      {"1969-12-31T23:59:59Z", -kSecond},
      {"2024-12-31T23:00:00Z", 1735686000000000},
      {"2024-12-31T22:00:00.5Z", 1735682400500000},
      {"2000-02-29T00:00:00Z", 951782400 * kSecond},
      {"0000-01-01T00:00:00Z", -62167219200 * kSecond},
      {"9999-12-31T23:59:59.999999Z", 253402300799999999},
      {"294247-01-10T04:00:54.775807Z", kMax},
      {"-290308-12-21T19:59:05.224192Z", kMin},
  };
  for (const TimestampCase& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(FormatRfc3339(c.want), c.text);
  }
}

// Setup: a sweep of instants across centuries, leap days and sub-second
// offsets. Invariant: ParseRfc3339(FormatRfc3339(t)) == t.
TEST(FormatRfc3339Test, RoundTripsThroughParse) {
  const UnixMicros start = -62167219200 * kSecond;  // 0000-01-01
  const UnixMicros end = 253402300799 * kSecond;    // 9999-12-31T23:59:59
  const UnixMicros step = 7 * kDay + 3 * kHour + 17 * kMinute + 13 * kSecond + 123457;
  int checked = 0;
  for (UnixMicros t = start; t < end; t += step) {
    const std::string text = FormatRfc3339(t);
    absl::StatusOr<UnixMicros> parsed = ParseRfc3339(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    ASSERT_EQ(*parsed, t) << text;
    ++checked;
  }
  EXPECT_GT(checked, 500000);
}

// Setup: simulated times of various magnitudes and signs. Invariant: seconds
// with at least one and at most six decimals, trailing zeros trimmed.
TEST(FormatSecondsTest, FormatsSeconds) {
  const std::vector<std::pair<SimTime, std::string>> cases = {
      {0, "0.0"},
      {1500000, "1.5"},
      {90000001, "90.000001"},
      {-1250000, "-1.25"},
      {1, "0.000001"},
      {-1, "-0.000001"},
      {kSecond, "1.0"},
      {100000, "0.1"},
      {-kSecond, "-1.0"},
      {3600 * kSecond + 10, "3600.00001"},
      {kMax, "9223372036854.775807"},
      {kMin, "-9223372036854.775808"},
  };
  for (const auto& [t, want] : cases) {
    SCOPED_TRACE(t);
    EXPECT_EQ(FormatSeconds(t), want);
  }
}

// Setup: durations from microseconds to days. Invariant: Go's
// Duration.String layout with "us" and a leading day unit.
TEST(FormatDurationTest, FormatsForPeople) {
  const std::vector<std::pair<SimDuration, std::string>> cases = {
      {0, "0s"},
      {1, "1us"},
      {999, "999us"},
      {kMillisecond, "1ms"},
      {1500, "1.5ms"},
      {1001, "1.001ms"},
      {250 * kMillisecond, "250ms"},
      {999999, "999.999ms"},
      {kSecond, "1s"},
      {1500 * kMillisecond, "1.5s"},
      {kSecond + 1, "1.000001s"},
      {59 * kSecond, "59s"},
      {kMinute, "1m0s"},
      {150 * kSecond, "2m30s"},
      {90 * kSecond + 1, "1m30.000001s"},
      {kHour, "1h0m0s"},
      {3 * kHour + 5 * kSecond, "3h0m5s"},
      {23 * kHour + 59 * kMinute + 59 * kSecond, "23h59m59s"},
      {kDay, "1d0h0m0s"},
      {2 * kDay + 3 * kHour, "2d3h0m0s"},
      {2 * kDay + 3 * kHour + 4 * kMinute + 5 * kSecond + 6, "2d3h4m5.000006s"},
      {-1500 * kMillisecond, "-1.5s"},
      {-1, "-1us"},
      {-2 * kDay, "-2d0h0m0s"},
      {kMax, "106751991d4h0m54.775807s"},
      {kMin, "-106751991d4h0m54.775808s"},
  };
  for (const auto& [d, want] : cases) {
    SCOPED_TRACE(d);
    EXPECT_EQ(FormatDuration(d), want);
  }
}

// Setup: nonnegative durations spread over the whole int64 range.
// Invariant: ParseDuration(FormatDuration(d)) == d.
TEST(FormatDurationTest, RoundTripsThroughParse) {
  std::vector<SimDuration> durations = {0,           1,         999,      1000, 1001, kSecond,
                                        kMinute - 1, kHour + 1, kDay - 1, kDay, kMax};
  for (SimDuration d = 1; d < kMax / 3; d = d * 3 + 1) durations.push_back(d);
  for (const SimDuration d : durations) {
    const std::string text = FormatDuration(d);
    SCOPED_TRACE(text);
    KUEUESIM_ASSERT_OK_AND_ASSIGN(const SimDuration parsed, ParseDuration(text));
    EXPECT_EQ(parsed, d);
  }
}

}  // namespace
}  // namespace kueuesim
