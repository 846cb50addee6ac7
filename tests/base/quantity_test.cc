// Tests for kueuesim/base/quantity.h: Kubernetes quantity parsing, exact
// round-up scaling, Kueue's canonical amounts, formatting and saturating
// amount arithmetic.
#include "kueuesim/base/quantity.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace kueuesim {
namespace {

using ::kueuesim::testing::IsOk;
using ::kueuesim::testing::StatusIs;
using ::testing::_;
using ::testing::HasSubstr;

// Matches an OK absl::StatusOr whose value equals `expected`.
MATCHER_P(IsOkAndHolds, expected, "is OK and holds " + ::testing::PrintToString(expected)) {
  if (!arg.ok()) {
    *result_listener << "status: " << arg.status().ToString();
    return false;
  }
  *result_listener << "value: " << *arg;
  return *arg == expected;
}

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

struct ParseCase {
  std::string text;
  bool negative;
  std::string mantissa;
  int64_t exponent10;
  int32_t exponent2;
};

// Setup: every number form, sign, decimal and binary suffix and exponent.
// Invariant: the parsed Quantity is normalized (no leading or trailing zeros
// in the mantissa, zero is {false, "", 0, 0}) and denotes the written value.
TEST(ParseQuantityTest, ParsesValidQuantities) {
  const std::vector<ParseCase> cases = {
      // Zero in every spelling.
      {"0", false, "", 0, 0},
      {"-0", false, "", 0, 0},
      {"+0", false, "", 0, 0},
      {"0.000", false, "", 0, 0},
      {"000", false, "", 0, 0},
      {"0Ki", false, "", 0, 0},
      {"0e5", false, "", 0, 0},
      {"-.0m", false, "", 0, 0},
      // Number forms.
      {"1", false, "1", 0, 0},
      {"+1", false, "1", 0, 0},
      {"-1", true, "1", 0, 0},
      {"1.", false, "1", 0, 0},
      {".5", false, "5", -1, 0},
      {"-.5", true, "5", -1, 0},
      {"1.5", false, "15", -1, 0},
      {"1.50", false, "15", -1, 0},
      {"007", false, "7", 0, 0},
      {"100", false, "1", 2, 0},
      {"-0.05", true, "5", -2, 0},
      {"120.0340", false, "120034", -3, 0},
      // Decimal SI suffixes.
      {"1n", false, "1", -9, 0},
      {"1u", false, "1", -6, 0},
      {"1m", false, "1", -3, 0},
      {"1k", false, "1", 3, 0},
      {"1M", false, "1", 6, 0},
      {"1G", false, "1", 9, 0},
      {"1T", false, "1", 12, 0},
      {"1P", false, "1", 15, 0},
      {"1E", false, "1", 18, 0},
      {"100m", false, "1", -1, 0},
      {"1.5m", false, "15", -4, 0},
      {"1.G", false, "1", 9, 0},
      {"-2.5k", true, "25", 2, 0},
      // Binary SI suffixes.
      {"1Ki", false, "1", 0, 1},
      {"1Mi", false, "1", 0, 2},
      {"1Gi", false, "1", 0, 3},
      {"1Ti", false, "1", 0, 4},
      {"1Pi", false, "1", 0, 5},
      {"1Ei", false, "1", 0, 6},
      {"1.5Gi", false, "15", -1, 3},
      {"512Mi", false, "512", 0, 2},
      {"-8Ei", true, "8", 0, 6},
      // Decimal exponents.
      {"1e3", false, "1", 3, 0},
      {"1E3", false, "1", 3, 0},
      {"1E-3", false, "1", -3, 0},
      {"12e+2", false, "12", 2, 0},
      {"1e0", false, "1", 0, 0},
      {"1.5e1", false, "15", 0, 0},
      {"1e1000", false, "1", 1000, 0},
      {"1e-1000", false, "1", -1000, 0},
      {"1e+0001000", false, "1", 1000, 0},
      {"-3.01e-2", true, "301", -4, 0},
      // 64 significant digits, and many insignificant zeros.
      {std::string(64, '9'), false, std::string(64, '9'), 0, 0},
      {"1" + std::string(100, '0'), false, "1", 100, 0},
      {"0." + std::string(100, '0') + "1", false, "1", -101, 0},
      {std::string(100, '0') + "3", false, "3", 0, 0},
  };
  for (const ParseCase& c : cases) {
    SCOPED_TRACE(c.text);
    KUEUESIM_ASSERT_OK_AND_ASSIGN(const Quantity q, ParseQuantity(c.text));
    EXPECT_EQ(q.negative, c.negative);
    EXPECT_EQ(q.mantissa, c.mantissa);
    EXPECT_EQ(q.exponent10, c.exponent10);
    EXPECT_EQ(q.exponent2, c.exponent2);
    EXPECT_EQ(q.IsZero(), c.mantissa.empty());
  }
}

// Setup: a quantity with an unknown suffix. Invariant: the message quotes the
// whole text and the offending suffix, exactly as documented.
TEST(ParseQuantityTest, ErrorMessageQuotesTextAndSuffix) {
  EXPECT_THAT(ParseQuantity("12x"), StatusIs(absl::StatusCode::kInvalidArgument,
                                             "malformed quantity \"12x\": unknown suffix \"x\""));
}

struct MalformedCase {
  std::string text;
  std::string message;  // expected substring
};

// Setup: strings Kubernetes refuses (and a few it would misread). Invariant:
// each is InvalidArgument naming the text and the reason.
TEST(ParseQuantityTest, RejectsMalformedQuantities) {
  const std::vector<MalformedCase> cases = {
      {"", "malformed quantity \"\": empty string"},
      {" 1", "whitespace is not allowed"},
      {"1 ", "whitespace is not allowed"},
      {"1 Ki", "whitespace is not allowed"},
      {"1\t", "whitespace is not allowed"},
      {"1\n", "\"1\\n\": whitespace"},
      {"1.2.3", "unknown suffix \".3\""},
      {"1..2", "unknown suffix \".2\""},
      {"Ki", "\"Ki\": expected a number"},
      {"e3", "\"e3\": expected a number"},
      {"--1", "\"--1\": expected a number"},
      {"+-1", "expected a number"},
      {"+", "expected a number"},
      {"-", "expected a number"},
      {".", "expected a number"},
      {"-.", "expected a number"},
      {".Ki", "expected a number"},
      {"abc", "expected a number"},
      {"\xe2\x88\x9e", "expected a number"},
      {"1KI", "unknown suffix \"KI\""},
      {"1ki", "unknown suffix \"ki\""},
      {"1K", "unknown suffix \"K\""},
      {"1k5", "unknown suffix \"k5\""},
      {"1m5", "unknown suffix \"m5\""},
      {"1Mi2", "unknown suffix \"Mi2\""},
      {"1MM", "unknown suffix \"MM\""},
      {"1i", "unknown suffix \"i\""},
      {"0.1mi", "unknown suffix \"mi\""},
      {"0.1am", "unknown suffix \"am\""},
      {"1e", "unknown suffix \"e\""},
      {"1e+", "unknown suffix \"e+\""},
      {"1e-", "unknown suffix \"e-\""},
      {"1E+", "unknown suffix \"E+\""},
      {"1e3.5", "unknown suffix \"e3.5\""},
      {"1e3Ki", "unknown suffix \"e3Ki\""},
      {"1e--3", "unknown suffix \"e--3\""},
      {"1,000", "unknown suffix \",000\""},
      {"0x10", "unknown suffix \"x10\""},
      {"1+1", "unknown suffix \"+1\""},
      {"1\"", "unknown suffix \"\\\"\""},
      {"1e1001", "exponent \"e1001\" is outside [-1000, 1000]"},
      {"1e-1001", "exponent \"e-1001\" is outside [-1000, 1000]"},
      {"0e99999999999999999999999", "is outside [-1000, 1000]"},
      {std::string(65, '9'), "too many significant digits (65 > 64)"},
      {"1." + std::string(63, '0') + "1", "too many significant digits (65 > 64)"},
  };
  for (const MalformedCase& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_THAT(ParseQuantity(c.text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)));
  }
}

// Setup: a very long malformed string. Invariant: the error message quotes
// a bounded prefix, not the whole input.
TEST(ParseQuantityTest, LongTextIsTruncatedInMessages) {
  const std::string text = "1" + std::string(100000, 'x');
  const absl::StatusOr<Quantity> q = ParseQuantity(text);
  ASSERT_THAT(q, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("...")));
  EXPECT_LT(q.status().message().size(), 400u);
}

struct ScaledCase {
  std::string text;
  int scale;
  int64_t want;
};

// Setup: quantities scaled to units, milli, micro, nano and coarser units.
// Invariant: the result is the exact value rounded up away from zero, as
// Quantity.ScaledValue/MilliValue/Value compute it.
TEST(ScaledValueTest, RoundsUpAwayFromZeroExactly) {
  const std::string digits64 = "1234.567890123456789012345678901234567890123456789012345678901234";
  const std::vector<ScaledCase> cases = {
      // Kubernetes examples.
      {"0.1", 0, 1},
      {"-0.1", 0, -1},
      {"1.5m", 3, 2},
      {"100m", 0, 1},
      {"1Ki", 3, 1024000},
      // Rounding.
      {"0", 0, 0},
      {"-0", 3, 0},
      {"1", 3, 1000},
      {"1.5", 0, 2},
      {"-1.5", 0, -2},
      {"2.5", 0, 3},
      {"1m", 0, 1},
      {"999m", 0, 1},
      {"1000m", 0, 1},
      {"1001m", 0, 2},
      {"-1001m", 0, -2},
      {"1n", 3, 1},
      {"1n", 9, 1},
      {"1n", 10, 10},
      {"1u", 6, 1},
      {"1u", 3, 1},
      {"1500", -3, 2},
      {"1k", -3, 1},
      {"1.000000000000000000000000000000000000000000000000000000000000001", 0, 2},
      {"0." + std::string(64, '9'), 0, 1},
      {"-0." + std::string(64, '9'), 0, -1},
      {digits64, 0, 1235},
      {digits64, 3, 1234568},
      {digits64, 15, 1234567890123456790},
      // Every suffix at its natural scale.
      {"7n", 9, 7},
      {"7u", 6, 7},
      {"7m", 3, 7},
      {"7k", 0, 7000},
      {"7M", 0, 7000000},
      {"7G", 0, 7000000000},
      {"7T", 0, 7000000000000},
      {"7P", 0, 7000000000000000},
      {"7E", 0, 7000000000000000000},
      {"1E", 0, 1000000000000000000},
      {"3Ki", 0, 3072},
      {"3Mi", 0, 3145728},
      {"3Gi", 0, 3221225472},
      {"3Ti", 0, 3298534883328},
      {"3Pi", 0, 3377699720527872},
      {"3Ei", 0, 3458764513820540928},
      {"7Ei", 0, 8070450532247928832},
      {"-8Ei", 0, kMin},
      // Binary suffixes with fractions.
      {"0.5Ki", 0, 512},
      {"0.1Ki", 0, 103},  // 102.4
      {"-0.1Ki", 0, -103},
      {"1.5Gi", 0, 1610612736},
      {"0.001Ki", 3, 1024},
      {"1Ki", -3, 2},  // 1.024 thousands
      // Exponents.
      {"1e3", 0, 1000},
      {"1E-3", 3, 1},
      {"12e+2", 0, 1200},
      {"1e18", 0, 1000000000000000000},
      {"1e-1000", 0, 1},
      {"-1e-1000", 0, -1},
      {"1e-1000", 1000, 1},
      {"1e1000", -1000, 1},
      {"9e-1", 0, 1},
      // int64 bounds.
      {"9223372036854775807", 0, kMax},
      {"-9223372036854775808", 0, kMin},
      {"9.223372036854775807E", 0, kMax},
      {"9223372036854775.807", 3, kMax},
      {"9223372036854775806.1", 0, kMax},
  };
  for (const ScaledCase& c : cases) {
    SCOPED_TRACE(c.text + " at scale " + std::to_string(c.scale));
    KUEUESIM_ASSERT_OK_AND_ASSIGN(const Quantity q, ParseQuantity(c.text));
    KUEUESIM_ASSERT_OK_AND_ASSIGN(const int64_t value, ScaledValue(q, c.scale));
    EXPECT_EQ(value, c.want);
  }
}

// Setup: quantities whose scaled value does not fit in int64, including huge
// exponents. Invariant: OutOfRange, promptly, never a wrapped value.
TEST(ScaledValueTest, OutOfRangeWhenResultDoesNotFit) {
  const std::vector<std::pair<std::string, int>> cases = {
      {"10E", 0},
      {"9223372036854775808", 0},
      {"-9223372036854775809", 0},
      {"9223372036854775807.1", 0},
      {"9.2233720368547758071E", 0},
      {"8Ei", 0},
      {"-9Ei", 0},
      {"1e19", 0},
      {"1e1000", 0},
      {"-1e1000", 0},
      {"1E", 3},
      {"1Ki", 17},
      {std::string(64, '9'), 0},
      {"1234.567890123456789012345678901234567890123456789012345678901234", 16},
  };
  for (const auto& [text, scale] : cases) {
    SCOPED_TRACE(text + " at scale " + std::to_string(scale));
    KUEUESIM_ASSERT_OK_AND_ASSIGN(const Quantity q, ParseQuantity(text));
    EXPECT_THAT(ScaledValue(q, scale),
                StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("does not fit in int64")));
  }
}

// Setup: Quantity structs built by hand, beyond what the parser produces.
// Invariant: extreme exponents are settled without overflow or hanging,
// 1024^-k is exact, and invalid structs are InvalidArgument.
TEST(ScaledValueTest, HandlesHandBuiltQuantities) {
  EXPECT_THAT(ScaledValue(Quantity{false, "1", kMax, 0}, 1),
              StatusIs(absl::StatusCode::kOutOfRange, _));
  EXPECT_THAT(ScaledValue(Quantity{false, "1", kMax, 0}, -5),
              StatusIs(absl::StatusCode::kOutOfRange, _));
  EXPECT_THAT(ScaledValue(Quantity{false, "1", kMin, 0}, -1), IsOkAndHolds(1));
  EXPECT_THAT(ScaledValue(Quantity{true, "1", kMin, 0}, std::numeric_limits<int>::max()),
              IsOkAndHolds(-1));
  EXPECT_THAT(ScaledValue(Quantity{false, "1", kMin, 1000}, 0), IsOkAndHolds(1));
  // 5 / 1024 = 0.0048828125.
  EXPECT_THAT(ScaledValue(Quantity{false, "5", 0, -1}, 0), IsOkAndHolds(1));
  EXPECT_THAT(ScaledValue(Quantity{false, "5", 0, -1}, 10), IsOkAndHolds(48828125));
  EXPECT_THAT(ScaledValue(Quantity{false, "5", 0, -1}, 9), IsOkAndHolds(4882813));
  // ceil(1024^1000 / 10^3000).
  EXPECT_THAT(ScaledValue(Quantity{false, "1", -3000, 1000}, 0), IsOkAndHolds(19950631169));
  EXPECT_THAT(ScaledValue(Quantity{false, "1", 0, 1000}, 0),
              StatusIs(absl::StatusCode::kOutOfRange, _));
  // A zero mantissa is zero whatever the exponents say.
  EXPECT_THAT(ScaledValue(Quantity{true, "", kMax, 1000}, 0), IsOkAndHolds(0));
  EXPECT_THAT(ScaledValue(Quantity{false, "01", 0, 0}, 0),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("leading zero")));
  EXPECT_THAT(ScaledValue(Quantity{false, "1a", 0, 0}, 0),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not all digits")));
  EXPECT_THAT(ScaledValue(Quantity{false, "1", 0, 1001}, 0),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("exponent2")));
}

// Setup: the canonical units per resource. Invariant: "cpu" is milli-units,
// every other name (even "cpus") whole units, both rounded up.
TEST(CanonicalValueTest, CpuIsMilliOthersAreUnits) {
  struct Case {
    std::string text;
    std::string resource;
    int64_t want;
  };
  const std::vector<Case> cases = {
      {"1.5", "cpu", 1500},
      {"100m", "cpu", 100},
      {"0.1m", "cpu", 1},
      {"2", "cpu", 2000},
      {"1Gi", "memory", 1073741824},
      {"100m", "memory", 1},
      {"2", "nvidia.com/gpu", 2},
      {"1.5", "cpus", 2},
      {"1", "CPU", 1},
      {"-250m", "cpu", -250},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text + " " + c.resource);
    KUEUESIM_ASSERT_OK_AND_ASSIGN(const Quantity q, ParseQuantity(c.text));
    EXPECT_THAT(CanonicalValue(q, c.resource), IsOkAndHolds(c.want));
    EXPECT_THAT(ParseCanonicalValue(c.text, c.resource), IsOkAndHolds(c.want));
  }
  EXPECT_TRUE(IsMilliResource("cpu"));
  EXPECT_FALSE(IsMilliResource("memory"));
}

// Setup: quantities too large for the canonical unit, and malformed text.
// Invariant: OutOfRange / InvalidArgument, naming the text and resource.
TEST(CanonicalValueTest, ReportsErrors) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(const Quantity exa, ParseQuantity("1E"));
  EXPECT_THAT(CanonicalValue(exa, "cpu"), StatusIs(absl::StatusCode::kOutOfRange, _));
  EXPECT_THAT(CanonicalValue(exa, "memory"), IsOkAndHolds(1000000000000000000));
  EXPECT_THAT(ParseCanonicalValue("10E", "memory"),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("quantity \"10E\" for resource \"memory\"")));
  EXPECT_THAT(ParseCanonicalValue("12x", "cpu"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown suffix \"x\"")));
}

// Setup: Kueue's AmountFromQuantity table plus the exact threshold edges.
// Invariant: cpu >= INT64_MAX/1000 cores and others >= INT64_MAX units
// (compared exactly) become kUnlimited; smaller values convert as
// CanonicalValue; too-negative values saturate at INT64_MIN.
TEST(CanonicalAmountSaturatingTest, MatchesKueueAmountFromQuantity) {
  struct Case {
    std::string text;
    std::string resource;
    Amount want;
  };
  const std::vector<Case> cases = {
      // kueue/pkg/resources/amount_test.go.
      {"2", "cpu", 2000},
      {"500m", "cpu", 500},
      {"1P", "cpu", 1000000000000000000},
      {"1E", "cpu", kUnlimited},
      {"10P", "cpu", kUnlimited},
      {"512Mi", "memory", 512 * 1024 * 1024},
      {"1E", "memory", 1000000000000000000},
      {"10E", "memory", kUnlimited},
      {"8", "example.com/gpu", 8},
      // Thresholds.
      {"9223372036854775", "cpu", kUnlimited},
      {"9223372036854774.999", "cpu", 9223372036854774999},
      {"9223372036854774.9991", "cpu", 9223372036854775000},  // below, rounded up
      {"9223372036854775.0001", "cpu", kUnlimited},
      {"9223372036854775807", "memory", kUnlimited},
      {"9223372036854775806", "memory", 9223372036854775806},
      {"1e1000", "memory", kUnlimited},
      {"1e1000", "cpu", kUnlimited},
      {"1e-1000", "memory", 1},
      {"0", "cpu", 0},
      // Negative values convert exactly, saturating at INT64_MIN.
      {"-1", "cpu", -1000},
      {"-1", "memory", -1},
      {"-9223372036854775.808", "cpu", kMin},
      {"-9223372036854775.809", "cpu", kMin},
      {"-10E", "memory", kMin},
      {"-1e1000", "cpu", kMin},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text + " " + c.resource);
    KUEUESIM_ASSERT_OK_AND_ASSIGN(const Quantity q, ParseQuantity(c.text));
    EXPECT_EQ(CanonicalAmountSaturating(q, c.resource), c.want);
  }
}

// Setup: amounts of cpu and other resources. Invariant: the documented,
// deterministic rendering (cores or "m", exact binary suffix or integer).
TEST(FormatAmountTest, FormatsReadably) {
  struct Case {
    Amount amount;
    std::string resource;
    std::string want;
  };
  const std::vector<Case> cases = {
      {2000, "cpu", "2"},
      {1500, "cpu", "1500m"},
      {0, "cpu", "0"},
      {1, "cpu", "1m"},
      {-1500, "cpu", "-1500m"},
      {-2000, "cpu", "-2"},
      {kUnlimited, "cpu", "unlimited"},
      {kMin, "cpu", "-9223372036854775808m"},
      {9223372036854775000, "cpu", "9223372036854775"},
      {1073741824, "memory", "1Gi"},
      {1610612736, "memory", "1536Mi"},
      {100, "memory", "100"},
      {0, "memory", "0"},
      {1023, "memory", "1023"},
      {1024, "memory", "1Ki"},
      {2048, "memory", "2Ki"},
      {1024000, "memory", "1000Ki"},
      {1000, "memory", "1000"},
      {1000000000, "memory", "1000000000"},
      {3LL << 40, "memory", "3Ti"},
      {3LL << 50, "memory", "3Pi"},
      {1LL << 60, "memory", "1Ei"},
      {1LL << 62, "memory", "4Ei"},
      {-1024, "memory", "-1Ki"},
      {kMin, "memory", "-8Ei"},
      {kMax - 1, "memory", "9223372036854775806"},
      {kUnlimited, "memory", "unlimited"},
      {8, "nvidia.com/gpu", "8"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.resource + " " + std::to_string(c.amount));
    EXPECT_EQ(FormatAmount(c.amount, c.resource), c.want);
  }
}

// Setup: amounts as Kueue's condition messages print them
// (resources.ResourceFormatter over resource.Quantity's canonical String).
// Invariant: cpu is a milli-quantity ("2", "500m", "1k"); memory,
// ephemeral-storage and hugepages-* use binary suffixes only when exact, else
// decimal SI ("2k", "1G"); other resources are decimal SI; unlimited is
// "<unlimited>" (Amount.String).
TEST(KueueQuantityStringTest, FormatsAsKueue) {
  struct Case {
    Amount amount;
    std::string resource;
    std::string want;
  };
  const std::vector<Case> cases = {
      {2000, "cpu", "2"},
      {1000, "cpu", "1"},
      {500, "cpu", "500m"},
      {1500, "cpu", "1500m"},
      {0, "cpu", "0"},
      {1000000, "cpu", "1k"},
      {2500000, "cpu", "2500"},
      {-1500, "cpu", "-1500m"},
      {10485760, "memory", "10Mi"},
      {1048576, "memory", "1Mi"},
      {1073741824, "memory", "1Gi"},
      {2147483648, "memory", "2Gi"},
      {1610612736, "memory", "1536Mi"},
      {1000000000, "memory", "1G"},
      {2000, "memory", "2k"},
      {1536, "memory", "1536"},
      {1000, "memory", "1k"},
      {512, "memory", "512"},
      {1024, "memory", "1Ki"},
      {1073741824, "ephemeral-storage", "1Gi"},
      {2097152, "hugepages-2Mi", "2Mi"},
      {3, "pods", "3"},
      {1000, "pods", "1k"},
      {2048, "nvidia.com/gpu", "2048"},
      {kUnlimited, "cpu", "<unlimited>"},
      {kUnlimited, "memory", "<unlimited>"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.resource + " " + std::to_string(c.amount));
    EXPECT_EQ(KueueQuantityString(c.amount, c.resource), c.want);
  }
}

// Setup: bounded amounts near interesting boundaries. Invariant: formatting
// then parsing gives back the same canonical amount.
TEST(FormatAmountTest, RoundTripsThroughParse) {
  const std::vector<Amount> amounts = {0,     1,       999,        1000,      1001,     1024,
                                       1536,  1048576, 1073741825, 1LL << 62, kMax - 1, -1,
                                       -1024, -1500,   kMin,       123456789};
  for (const std::string& resource : std::vector<std::string>{"cpu", "memory"}) {
    for (const Amount amount : amounts) {
      const std::string text = FormatAmount(amount, resource);
      SCOPED_TRACE(resource + " " + text);
      EXPECT_THAT(ParseCanonicalValue(text, resource), IsOkAndHolds(amount));
    }
  }
}

struct ArithmeticCase {
  Amount a;
  int64_t b;
  Amount want;
};

// Setup: sums with Unlimited and at the int64 bounds. Invariant: Unlimited
// absorbs everything; bounded sums saturate (an upward overflow yields
// INT64_MAX, which is kUnlimited).
TEST(AmountArithmeticTest, AddAmounts) {
  const std::vector<ArithmeticCase> cases = {
      {1, 2, 3},
      {-5, -6, -11},
      {5, kUnlimited, kUnlimited},
      {kUnlimited, 5, kUnlimited},
      {kUnlimited, kUnlimited, kUnlimited},
      {kUnlimited, -5, kUnlimited},
      {kMin, kUnlimited, kUnlimited},
      {kMax - 5, 100, kMax},
      {kMax - 1, 0, kMax - 1},
      {kMax - 1, 1, kMax},
      {kMin, -1, kMin},
      {kMin, kMin, kMin},
      {kMin, kMax - 1, -2},
  };
  for (const ArithmeticCase& c : cases) {
    SCOPED_TRACE(std::to_string(c.a) + " + " + std::to_string(c.b));
    EXPECT_EQ(AddAmounts(c.a, c.b), c.want);
  }
}

// Setup: differences with Unlimited on either side and at the bounds.
// Invariant: Unlimited - Unlimited = 0, Unlimited - x = Unlimited,
// x - Unlimited = INT64_MIN, otherwise saturating.
TEST(AmountArithmeticTest, SubAmounts) {
  const std::vector<ArithmeticCase> cases = {
      {5, 3, 2},
      {3, 5, -2},
      {kUnlimited, kUnlimited, 0},
      {kUnlimited, 1000, kUnlimited},
      {kUnlimited, -1, kUnlimited},
      {1000, kUnlimited, kMin},
      {kMin, kUnlimited, kMin},
      {kMin, 1, kMin},
      {kMax - 1, -5, kMax},
      {0, kMin, kMax},
      {-1, kMin, kMax},
      {-2, kMax - 1, kMin},
  };
  for (const ArithmeticCase& c : cases) {
    SCOPED_TRACE(std::to_string(c.a) + " - " + std::to_string(c.b));
    EXPECT_EQ(SubAmounts(c.a, c.b), c.want);
  }
}

// Setup: products with Unlimited, zero and overflow. Invariant: plain
// saturating multiplication (Unlimited * n >= 1 stays Unlimited; * 0 is 0).
TEST(AmountArithmeticTest, MulAmount) {
  const std::vector<ArithmeticCase> cases = {
      {3, 4, 12},
      {-5, 3, -15},
      {0, kMax, 0},
      {kUnlimited, 1, kUnlimited},
      {kUnlimited, 2, kUnlimited},
      {kUnlimited, 0, 0},
      {kMax / 2 + 1, 2, kMax},
      {kMin / 2 - 1, 2, kMin},
      {kMin, 1, kMin},
      {-1, kMax, -kMax},
  };
  for (const ArithmeticCase& c : cases) {
    SCOPED_TRACE(std::to_string(c.a) + " * " + std::to_string(c.b));
    EXPECT_EQ(MulAmount(c.a, c.b), c.want);
  }
}

}  // namespace
}  // namespace kueuesim
