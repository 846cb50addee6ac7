// Durations and timestamps as integer microseconds: Go-style duration
// parsing, RFC 3339 parsing and formatting, and readable formatting of
// simulated times and durations.
//
// No floating point and no locale or time-zone functions: durations are
// summed exactly as decimal digits (so "1.5h" and "0.0000005s0.0000005s" are
// exact), then rounded up to whole microseconds once; calendar dates use
// Howard Hinnant's days_from_civil / civil_from_days algorithms.
#include "kueuesim/base/time.h"

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "kueuesim/base/status.h"

namespace kueuesim {
namespace {

constexpr int64_t kDay = 24 * kHour;
constexpr uint64_t kInt64MaxMagnitude = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
// Error messages quote at most this many bytes of the offending text.
constexpr size_t kMaxQuotedBytes = 128;

// `text` in double quotes with quotes, backslashes and control bytes escaped,
// cut (at a UTF-8 boundary) after kMaxQuotedBytes bytes.
std::string Quote(std::string_view text) {
  bool truncated = false;
  if (text.size() > kMaxQuotedBytes) {
    size_t cut = kMaxQuotedBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut);
    truncated = true;
  }
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (byte < 0x20 || byte == 0x7F) {
          out += fmt::format("\\x{:02x}", byte);
        } else {
          out += c;
        }
    }
  }
  out += '"';
  if (truncated) out += "...";
  return out;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// |v| as uint64, safe for INT64_MIN.
uint64_t Magnitude(int64_t v) {
  return v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
}

// `micros` (< 10^6) as ".ffffff" without trailing zeros, at least
// `min_digits` digits; "" when zero and min_digits is 0.
std::string Fraction(uint64_t micros, int width, size_t min_digits) {
  std::string digits = fmt::format("{:0{}d}", micros, width);
  size_t keep = digits.find_last_not_of('0');
  keep = keep == std::string::npos ? 0 : keep + 1;
  if (keep < min_digits) keep = min_digits;
  if (keep == 0) return "";
  // Built by append: GCC 12 warns (-Wrestrict, a false positive) on
  // "." + std::string in release builds.
  std::string out;
  out.reserve(keep + 1);
  out.push_back('.');
  out.append(digits, 0, keep);
  return out;
}

// ---------------------------------------------------------------------------
// ParseDuration

absl::Status MalformedDuration(std::string_view text, const std::string& why) {
  return InvalidArgument(fmt::format("malformed duration {}: {}", Quote(text), why));
}

struct DurationUnit {
  std::string_view name;
  uint64_t nanoseconds;
};

constexpr std::array<DurationUnit, 9> kDurationUnits = {{
    {"ns", 1},
    {"us", 1000},
    {"\u00b5s", 1000},  // U+00B5 MICRO SIGN, as Go accepts
    {"\u03bcs", 1000},  // U+03BC GREEK SMALL LETTER MU, as Go accepts
    {"ms", 1000 * 1000},
    {"s", 1000 * 1000 * 1000},
    {"m", uint64_t{60} * 1000 * 1000 * 1000},
    {"h", uint64_t{3600} * 1000 * 1000 * 1000},
    {"d", uint64_t{86400} * 1000 * 1000 * 1000},
}};

// An exact nonnegative sum of microseconds: whole + 0.fraction.
class MicrosSum {
 public:
  // Adds (digits / 10^fraction_digits) * nanoseconds_per_unit nanoseconds,
  // where `digits` is the number's integer and fraction digits run together.
  // Returns false on overflow beyond INT64_MAX whole microseconds.
  bool Add(std::string_view digits, size_t fraction_digits, uint64_t nanoseconds_per_unit) {
    // product = digits * unit, as decimal digits, least significant first.
    std::vector<uint8_t> product;
    product.reserve(digits.size() + 20);
    uint64_t carry = 0;
    for (size_t i = digits.size(); i-- > 0;) {
      // carry < unit <= 8.64e13, so this cannot overflow.
      const uint64_t v = static_cast<uint64_t>(digits[i] - '0') * nanoseconds_per_unit + carry;
      product.push_back(static_cast<uint8_t>(v % 10));
      carry = v / 10;
    }
    for (; carry != 0; carry /= 10) product.push_back(static_cast<uint8_t>(carry % 10));
    // product[i] is the digit of 10^i in units of 10^-(fraction_digits + 3) us.
    const size_t point = fraction_digits + 3;
    // product[point - 1] is the tenths digit; add the fraction digits into
    // fraction_ from the least significant end, carrying towards the tenths.
    if (fraction_.size() < point) fraction_.resize(point, 0);
    uint8_t fraction_carry = 0;
    for (size_t i = 0; i < point; ++i) {
      if (i >= product.size() && fraction_carry == 0) break;
      const size_t place = point - 1 - i;
      const uint8_t digit = i < product.size() ? product[i] : 0;
      const auto sum = static_cast<uint8_t>(fraction_[place] + digit + fraction_carry);
      fraction_[place] = static_cast<uint8_t>(sum % 10);
      fraction_carry = static_cast<uint8_t>(sum / 10);
    }
    // Whole microseconds: product[point..], at most 19 significant digits.
    uint64_t whole = 0;
    for (size_t i = product.size(); i-- > point;) {
      if (whole > kInt64MaxMagnitude / 10) return false;
      whole = whole * 10 + product[i];
    }
    whole += fraction_carry;
    if (whole > kInt64MaxMagnitude - whole_) return false;
    whole_ += whole;
    return whole_ <= kInt64MaxMagnitude;
  }

  // The sum rounded up to whole microseconds, or false on overflow.
  bool RoundUp(int64_t* out) const {
    uint64_t total = whole_;
    for (const uint8_t digit : fraction_) {
      if (digit != 0) {
        ++total;
        break;
      }
    }
    if (total > kInt64MaxMagnitude) return false;
    *out = static_cast<int64_t>(total);
    return true;
  }

 private:
  uint64_t whole_ = 0;
  std::vector<uint8_t> fraction_;  // fraction_[i] is the digit of 10^-(i+1) us
};

// ---------------------------------------------------------------------------
// Calendar

// Days since 1970-01-01 of the proleptic Gregorian date y-m-d.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);                 // [0, 399]
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  // [0, 365]
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;            // [0, 146096]
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

struct CivilDate {
  int64_t year;
  unsigned month;
  unsigned day;
};

// The proleptic Gregorian date `z` days after 1970-01-01.
CivilDate CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);                    // [0, 146096]
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);  // [0, 365]
  const unsigned mp = (5 * doy + 2) / 153;                       // [0, 11]
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;               // [1, 31]
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;                  // [1, 12]
  return {y + (m <= 2 ? 1 : 0), m, d};
}

bool IsLeapYear(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr std::array<unsigned, 12> kDays = {31, 28, 31, 30, 31, 30,
                                                     31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

// Reads RFC 3339 text left to right.
class TimestampScanner {
 public:
  explicit TimestampScanner(std::string_view text) : text_(text) {}

  // Reads exactly `count` digits into `out`.
  bool Digits(size_t count, unsigned* out) {
    if (text_.size() - pos_ < count) return false;
    unsigned value = 0;
    for (size_t i = 0; i < count; ++i) {
      const char c = text_[pos_ + i];
      if (!IsDigit(c)) return false;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    pos_ += count;
    *out = value;
    return true;
  }

  // Consumes `c` (or its lowercase form when `fold_case`) if it is next.
  bool Literal(char c, bool fold_case = false) {
    if (pos_ >= text_.size()) return false;
    const char next = text_[pos_];
    if (next == c || (fold_case && next == c - 'A' + 'a')) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool AtEnd() const { return pos_ == text_.size(); }
  std::string_view Rest() const { return text_.substr(pos_); }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void Skip() { ++pos_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

absl::Status MalformedTimestamp(std::string_view text, const std::string& why) {
  return InvalidArgument(fmt::format("malformed timestamp {}: {}", Quote(text), why));
}

}  // namespace

// Go's time.ParseDuration grammar, [+]? (number unit)+ with number =
// digits ["." digits*] | "." digits, with these differences: a lone number
// means seconds, "d" is 24h, a leading "-" is rejected, nanoseconds are kept
// exactly and the total is rounded up to whole microseconds once, and the
// range is int64 microseconds (OutOfRange beyond it).
absl::StatusOr<SimDuration> ParseDuration(std::string_view text) {
  if (text.empty()) return MalformedDuration(text, "empty string");
  std::string_view rest = text;
  if (rest[0] == '-') return MalformedDuration(text, "negative durations are not allowed");
  if (rest[0] == '+') rest.remove_prefix(1);
  if (rest.empty()) return MalformedDuration(text, "expected a number");
  MicrosSum sum;
  bool first = true;
  while (!rest.empty()) {
    size_t pos = 0;
    while (pos < rest.size() && IsDigit(rest[pos])) ++pos;
    const std::string_view integer_part = rest.substr(0, pos);
    std::string_view fraction_part;
    if (pos < rest.size() && rest[pos] == '.') {
      const size_t fraction_begin = ++pos;
      while (pos < rest.size() && IsDigit(rest[pos])) ++pos;
      fraction_part = rest.substr(fraction_begin, pos - fraction_begin);
    }
    if (integer_part.empty() && fraction_part.empty()) {
      return MalformedDuration(text, fmt::format("expected a number at {}", Quote(rest)));
    }
    const std::string_view number = rest.substr(0, pos);
    size_t unit_end = pos;
    while (unit_end < rest.size() && rest[unit_end] != '.' && !IsDigit(rest[unit_end])) {
      ++unit_end;
    }
    std::string_view unit = rest.substr(pos, unit_end - pos);
    if (unit.empty()) {
      if (!first || pos != rest.size()) {
        return MalformedDuration(text, fmt::format("missing unit after {}", Quote(number)));
      }
      unit = "s";  // a lone number means seconds
    }
    uint64_t nanoseconds = 0;
    for (const DurationUnit& candidate : kDurationUnits) {
      if (candidate.name == unit) nanoseconds = candidate.nanoseconds;
    }
    if (nanoseconds == 0) {
      return MalformedDuration(
          text, fmt::format("unknown unit {} (want ns, us, ms, s, m, h or d)", Quote(unit)));
    }
    std::string digits;
    digits.reserve(integer_part.size() + fraction_part.size());
    digits.append(integer_part);
    digits.append(fraction_part);
    if (!sum.Add(digits, fraction_part.size(), nanoseconds)) {
      return absl::OutOfRangeError(
          fmt::format("duration {} overflows int64 microseconds", Quote(text)));
    }
    rest.remove_prefix(unit_end);
    first = false;
  }
  SimDuration result = 0;
  if (!sum.RoundUp(&result)) {
    return absl::OutOfRangeError(
        fmt::format("duration {} overflows int64 microseconds", Quote(text)));
  }
  return result;
}

// YYYY-MM-DD"T"hh:mm:ss["." 1-9 digits]("Z" | ("+" | "-") hh:mm), with "t"
// and "z" accepted. Fractions are truncated to microseconds. A leap second
// (ss = 60) is accepted and counted as the first second of the next minute.
absl::StatusOr<UnixMicros> ParseRfc3339(std::string_view text) {
  if (text.empty()) return MalformedTimestamp(text, "empty string");
  // The common form "YYYY-MM-DDThh:mm:ssZ", valid, read directly; anything
  // else (and any out-of-range field, for its message) by the scanner below.
  if (text.size() == 20 && text[4] == '-' && text[7] == '-' && text[10] == 'T' && text[13] == ':' &&
      text[16] == ':' && text[19] == 'Z') {
    auto number = [&](size_t begin, size_t count, unsigned* out) {
      unsigned value = 0;
      for (size_t i = begin; i < begin + count; ++i) {
        if (!IsDigit(text[i])) return false;
        value = value * 10 + static_cast<unsigned>(text[i] - '0');
      }
      *out = value;
      return true;
    };
    unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (number(0, 4, &year) && number(5, 2, &month) && number(8, 2, &day) && number(11, 2, &hour) &&
        number(14, 2, &minute) && number(17, 2, &second) && month >= 1 && month <= 12 && day >= 1 &&
        day <= DaysInMonth(year, month) && hour <= 23 && minute <= 59 && second <= 60) {
      const int64_t seconds = DaysFromCivil(year, month, day) * 86400 + static_cast<int64_t>(hour) * 3600 +
                              static_cast<int64_t>(minute) * 60 + second;
      return seconds * kSecond;
    }
  }
  TimestampScanner scan(text);
  unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!scan.Digits(4, &year) || !scan.Literal('-') || !scan.Digits(2, &month) ||
      !scan.Literal('-') || !scan.Digits(2, &day)) {
    return MalformedTimestamp(text, "expected a date YYYY-MM-DD");
  }
  if (!scan.Literal('T', /*fold_case=*/true)) {
    return MalformedTimestamp(text, "expected \"T\" after the date");
  }
  if (!scan.Digits(2, &hour) || !scan.Literal(':') || !scan.Digits(2, &minute) ||
      !scan.Literal(':') || !scan.Digits(2, &second)) {
    return MalformedTimestamp(text, "expected a time hh:mm:ss");
  }
  int64_t micros = 0;
  if (scan.Literal('.')) {
    size_t digits = 0;
    while (IsDigit(scan.Peek())) {
      if (digits < 6) micros = micros * 10 + (scan.Peek() - '0');
      ++digits;
      scan.Skip();
    }
    if (digits == 0) return MalformedTimestamp(text, "expected digits after \".\"");
    if (digits > 9) {
      return MalformedTimestamp(text, "fractional seconds have more than 9 digits");
    }
    for (size_t i = digits; i < 6; ++i) micros *= 10;
  }
  int64_t offset_minutes = 0;
  if (!scan.Literal('Z', /*fold_case=*/true)) {
    const char sign = scan.Peek();
    unsigned offset_hour = 0, offset_minute = 0;
    if (sign != '+' && sign != '-') {
      return MalformedTimestamp(text, "expected \"Z\" or a \"+hh:mm\" / \"-hh:mm\" offset");
    }
    scan.Skip();
    if (!scan.Digits(2, &offset_hour) || !scan.Literal(':') || !scan.Digits(2, &offset_minute)) {
      return MalformedTimestamp(text, "expected an offset \"+hh:mm\" or \"-hh:mm\"");
    }
    if (offset_hour > 23) {
      return MalformedTimestamp(text, fmt::format("offset hour {} out of range", offset_hour));
    }
    if (offset_minute > 59) {
      return MalformedTimestamp(text, fmt::format("offset minute {} out of range", offset_minute));
    }
    offset_minutes = static_cast<int64_t>(offset_hour * 60 + offset_minute);
    if (sign == '-') offset_minutes = -offset_minutes;
  }
  if (!scan.AtEnd()) {
    return MalformedTimestamp(text, fmt::format("unexpected trailing text {}", Quote(scan.Rest())));
  }
  if (month < 1 || month > 12) {
    return MalformedTimestamp(text, fmt::format("month {} out of range", month));
  }
  if (day < 1 || day > DaysInMonth(year, month)) {
    return MalformedTimestamp(text, fmt::format("day {} out of range", day));
  }
  if (hour > 23) return MalformedTimestamp(text, fmt::format("hour {} out of range", hour));
  if (minute > 59) return MalformedTimestamp(text, fmt::format("minute {} out of range", minute));
  if (second > 60) return MalformedTimestamp(text, fmt::format("second {} out of range", second));
  const int64_t days = DaysFromCivil(year, month, day);
  const int64_t seconds = days * 86400 + static_cast<int64_t>(hour) * 3600 +
                          static_cast<int64_t>(minute) * 60 + second - offset_minutes * 60;
  return seconds * kSecond + micros;
}

// Years outside 0000..9999 (not RFC 3339) are printed as "-0001" or "10000".
std::string FormatRfc3339(UnixMicros t) {
  int64_t days = t / kDay;
  int64_t rest = t % kDay;
  if (rest < 0) {
    rest += kDay;
    --days;
  }
  const CivilDate date = CivilFromDays(days);
  const int64_t second_of_day = rest / kSecond;
  const auto micros = static_cast<uint64_t>(rest % kSecond);
  const std::string year =
      date.year < 0 ? fmt::format("-{:04d}", -date.year) : fmt::format("{:04d}", date.year);
  return fmt::format("{}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}{}Z", year, date.month, date.day,
                     second_of_day / 3600, second_of_day / 60 % 60, second_of_day % 60,
                     Fraction(micros, 6, 0));
}

std::string FormatSeconds(SimTime t) {
  const uint64_t magnitude = Magnitude(t);
  const auto second_unit = static_cast<uint64_t>(kSecond);
  return fmt::format("{}{}{}", t < 0 ? "-" : "", magnitude / second_unit,
                     Fraction(magnitude % second_unit, 6, 1));
}

// Go's Duration.String layout with microsecond resolution and a day unit:
//   0                 -> "0s"
//   under 1ms         -> "<n>us"                 ("250us")
//   under 1s          -> "<n>[.fff]ms"           ("250ms", "1.5ms")
//   under 1m          -> "<n>[.ffffff]s"         ("1.5s")
//   under 1h          -> "<m>m<s>s"              ("2m30s")
//   under 24h         -> "<h>h<m>m<s>s"          ("3h0m5s")
//   otherwise         -> "<d>d<h>h<m>m<s>s"      ("2d3h0m0s")
// Seconds carry up to six decimals, trailing zeros trimmed; negative
// durations get a leading "-". ParseDuration reads every output back.
std::string FormatDuration(SimDuration d) {
  if (d == 0) return "0s";
  const std::string sign = d < 0 ? "-" : "";
  uint64_t u = Magnitude(d);
  const auto ms = static_cast<uint64_t>(kMillisecond);
  const auto s = static_cast<uint64_t>(kSecond);
  if (u < ms) return fmt::format("{}{}us", sign, u);
  if (u < s) return fmt::format("{}{}{}ms", sign, u / ms, Fraction(u % ms, 3, 0));
  std::string out = sign;
  const auto day = static_cast<uint64_t>(kDay);
  const auto hour = static_cast<uint64_t>(kHour);
  const auto minute = static_cast<uint64_t>(kMinute);
  if (u >= day) out += fmt::format("{}d", u / day);
  if (u >= hour) out += fmt::format("{}h", u % day / hour);
  if (u >= minute) out += fmt::format("{}m", u % hour / minute);
  out += fmt::format("{}{}s", u % minute / s, Fraction(u % s, 6, 0));
  return out;
}

}  // namespace kueuesim
