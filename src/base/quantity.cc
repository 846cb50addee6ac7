// Kubernetes resource quantities: parsing, exact conversion to int64 amounts
// (rounded up away from zero), formatting for reports, and Kueue's saturating
// amount arithmetic.
//
// Exactness: a parsed Quantity keeps every significant digit. ScaledValue
// multiplies the digit string by 1024^exponent2 with a small base-10^9 big
// integer and then moves the decimal point by the decimal exponent, reading
// the integer part and whether any nonzero digit was cut off (which rounds
// the magnitude up). Order-of-magnitude bounds computed first settle huge
// values (OutOfRange) and tiny nonzero values (+-1) without building large
// numbers, so any exponent is handled in bounded time.
//
// Deliberate differences from Kubernetes, which caps a parsed quantity at
// INT64_MAX units and rounds it up to a multiple of 10^-9: kueuesim keeps the
// exact value and reports OutOfRange instead of capping. For the scales
// Kueue uses (units and milli-units) the rounding makes no difference.
#include "kueuesim/base/quantity.h"

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

constexpr size_t kMaxSignificantDigits = 64;
constexpr int64_t kMaxWrittenExponent = 1000;
// |exponent2| accepted by ScaledValue; ParseQuantity only produces 0..6.
constexpr int32_t kMaxExponent2 = 1000;
constexpr uint64_t kInt64MaxMagnitude = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
constexpr uint64_t kInt64MinMagnitude = kInt64MaxMagnitude + 1;
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

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

absl::Status Malformed(std::string_view text, const std::string& why) {
  return InvalidArgument(fmt::format("malformed quantity {}: {}", Quote(text), why));
}

// The multiplier a suffix stands for: 10^exponent10 * 1024^exponent2.
struct Suffix {
  int64_t exponent10 = 0;
  int32_t exponent2 = 0;
};

struct NamedSuffix {
  std::string_view name;
  Suffix suffix;
};

constexpr std::array<NamedSuffix, 16> kSuffixes = {{
    {"", {0, 0}},
    {"n", {-9, 0}},
    {"u", {-6, 0}},
    {"m", {-3, 0}},
    {"k", {3, 0}},
    {"M", {6, 0}},
    {"G", {9, 0}},
    {"T", {12, 0}},
    {"P", {15, 0}},
    {"E", {18, 0}},
    {"Ki", {0, 1}},
    {"Mi", {0, 2}},
    {"Gi", {0, 3}},
    {"Ti", {0, 4}},
    {"Pi", {0, 5}},
    {"Ei", {0, 6}},
}};

constexpr std::array<std::string_view, 7> kBinarySuffixNames = {"",   "Ki", "Mi", "Gi",
                                                                "Ti", "Pi", "Ei"};

absl::StatusOr<Suffix> ParseSuffix(std::string_view text, std::string_view suffix) {
  for (const NamedSuffix& named : kSuffixes) {
    if (suffix == named.name) return named.suffix;
  }
  // Decimal exponent: ("e" | "E") [sign] digits. "E" alone is exa (above).
  if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    size_t pos = 1;
    bool negative = false;
    if (suffix[pos] == '+' || suffix[pos] == '-') {
      negative = suffix[pos] == '-';
      ++pos;
    }
    const size_t digits_begin = pos;
    int64_t exponent = 0;
    bool too_large = false;
    for (; pos < suffix.size() && IsDigit(suffix[pos]); ++pos) {
      if (!too_large) {
        exponent = exponent * 10 + (suffix[pos] - '0');
        too_large = exponent > kMaxWrittenExponent;
      }
    }
    if (pos == suffix.size() && pos > digits_begin) {
      if (too_large) {
        return Malformed(text, fmt::format("exponent {} is outside [{}, {}]", Quote(suffix),
                                           -kMaxWrittenExponent, kMaxWrittenExponent));
      }
      return Suffix{negative ? -exponent : exponent, 0};
    }
  }
  return Malformed(text, fmt::format("unknown suffix {}", Quote(suffix)));
}

// A nonnegative big integer in base 10^9, least significant limb first.
class BigUnsigned {
 public:
  static constexpr uint32_t kBase = 1000000000;

  // `digits` is a nonempty string of decimal digits.
  explicit BigUnsigned(std::string_view digits) {
    size_t end = digits.size();
    while (end > 0) {
      const size_t begin = end >= 9 ? end - 9 : 0;
      uint32_t limb = 0;
      for (size_t i = begin; i < end; ++i) {
        limb = limb * 10 + static_cast<uint32_t>(digits[i] - '0');
      }
      limbs_.push_back(limb);
      end = begin;
    }
  }

  void Multiply(uint32_t factor) {
    uint64_t carry = 0;
    for (uint32_t& limb : limbs_) {
      const uint64_t product = static_cast<uint64_t>(limb) * factor + carry;
      limb = static_cast<uint32_t>(product % kBase);
      carry = product / kBase;
    }
    while (carry != 0) {
      limbs_.push_back(static_cast<uint32_t>(carry % kBase));
      carry /= kBase;
    }
  }

  // Decimal digits without leading zeros ("0" for zero).
  std::string ToDecimal() const {
    size_t top = limbs_.size();
    while (top > 1 && limbs_[top - 1] == 0) --top;
    std::string out = fmt::format("{}", limbs_[top - 1]);
    for (size_t i = top - 1; i-- > 0;) out += fmt::format("{:09d}", limbs_[i]);
    return out;
  }

 private:
  std::vector<uint32_t> limbs_;
};

// ceil(|q| * 10^scale_exponent), or overflow when it is 2^64 or more.
struct Magnitude {
  bool overflow = false;
  uint64_t value = 0;
  bool inexact = false;  // whether rounding up changed the value
};

std::string DescribeQuantity(const Quantity& q) {
  std::string out = q.negative ? "-" : "";
  out += q.IsZero() ? "0" : q.mantissa;
  if (q.exponent10 != 0) out += fmt::format("e{}", q.exponent10);
  if (q.exponent2 > 0 && q.exponent2 < static_cast<int32_t>(kBinarySuffixNames.size())) {
    out += kBinarySuffixNames[static_cast<size_t>(q.exponent2)];
  } else if (q.exponent2 != 0) {
    out += fmt::format("*1024^{}", q.exponent2);
  }
  return out;
}

absl::Status ValidateQuantity(const Quantity& q) {
  if (!q.mantissa.empty() && q.mantissa[0] == '0') {
    return InvalidArgument(
        fmt::format("invalid quantity: mantissa {} has a leading zero", Quote(q.mantissa)));
  }
  for (const char c : q.mantissa) {
    if (!IsDigit(c)) {
      return InvalidArgument(
          fmt::format("invalid quantity: mantissa {} is not all digits", Quote(q.mantissa)));
    }
  }
  if (q.exponent2 < -kMaxExponent2 || q.exponent2 > kMaxExponent2) {
    return InvalidArgument(fmt::format("invalid quantity: exponent2 {} is outside [{}, {}]",
                                       q.exponent2, -kMaxExponent2, kMaxExponent2));
  }
  return absl::OkStatus();
}

// Parses at most 19 decimal digits (so < 10^19 < 2^64).
uint64_t DigitsToUint64(std::string_view digits) {
  uint64_t value = 0;
  for (const char c : digits) value = value * 10 + static_cast<uint64_t>(c - '0');
  return value;
}

absl::StatusOr<Magnitude> ScaleMagnitude(const Quantity& q, int scale_exponent) {
  KUEUESIM_RETURN_IF_ERROR(ValidateQuantity(q));
  Magnitude result;
  if (q.IsZero()) return result;

  const Magnitude kHuge{true, 0, false};
  const Magnitude kTiny{false, 1, true};
  // |q| * 10^scale = m * 1024^e2 * 10^e with 10^(L-1) <= m < 10^L.
  int64_t e = 0;
  if (__builtin_add_overflow(q.exponent10, static_cast<int64_t>(scale_exponent), &e)) {
    return q.exponent10 > 0 ? kHuge : kTiny;
  }
  const auto length = static_cast<int64_t>(q.mantissa.size());
  const int64_t e2 = q.exponent2;
  // 10^-4000 < 1024^e2 < 10^4000, so these settle extreme exponents at once
  // and keep the sums below from overflowing.
  if (e > 4100) return kHuge;
  if (e < -(length + 4100)) return kTiny;
  // 10^(3*e2) <= 1024^e2 <= 10^(4*e2) for e2 >= 0; 10^(4*e2) < 1024^e2 <=
  // 10^(3*e2) for e2 < 0. So 10^low <= value < 10^high.
  const int64_t low = length - 1 + e + (e2 >= 0 ? 3 * e2 : 4 * e2);
  const int64_t high = length + e + (e2 >= 0 ? 4 * e2 : 3 * e2);
  if (low >= 19) return kHuge;  // >= 10^19 > 2^63
  if (high <= 0) return kTiny;  // 0 < value < 1

  // digits * 10^e == m * 1024^e2 * 10^(original e), exactly. 1024^-k is
  // 5^(10k) * 10^(-10k).
  BigUnsigned big(q.mantissa);
  if (e2 >= 0) {
    for (int64_t i = 0; i < e2; ++i) big.Multiply(1024);
  } else {
    for (int64_t i = 0; i < -e2; ++i) big.Multiply(9765625);  // 5^10
    e -= 10 * -e2;
  }
  const std::string digits = big.ToDecimal();
  const auto digit_count = static_cast<int64_t>(digits.size());
  if (e >= 0) {
    if (digit_count + e > 19) return kHuge;
    uint64_t value = DigitsToUint64(digits);
    for (int64_t i = 0; i < e; ++i) value *= 10;  // stays below 10^19
    result.value = value;
    return result;
  }
  const int64_t cut = digit_count + e;  // digits before the decimal point
  if (cut > 19) return kHuge;
  const size_t integer_digits = cut > 0 ? static_cast<size_t>(cut) : 0;
  result.value = DigitsToUint64(std::string_view(digits).substr(0, integer_digits));
  for (size_t i = integer_digits; i < digits.size(); ++i) {
    if (digits[i] != '0') {
      result.inexact = true;
      break;
    }
  }
  if (result.inexact) ++result.value;  // value < 10^19, so this cannot wrap
  return result;
}

}  // namespace

absl::StatusOr<Quantity> ParseQuantity(std::string_view text) {
  if (text.empty()) return Malformed(text, "empty string");
  for (const char c : text) {
    if (IsSpace(c)) return Malformed(text, "whitespace is not allowed");
  }
  size_t pos = 0;
  bool negative = false;
  if (text[pos] == '+' || text[pos] == '-') {
    negative = text[pos] == '-';
    ++pos;
  }
  const size_t integer_begin = pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  const std::string_view integer_part = text.substr(integer_begin, pos - integer_begin);
  std::string_view fraction_part;
  if (pos < text.size() && text[pos] == '.') {
    const size_t fraction_begin = ++pos;
    while (pos < text.size() && IsDigit(text[pos])) ++pos;
    fraction_part = text.substr(fraction_begin, pos - fraction_begin);
  }
  if (integer_part.empty() && fraction_part.empty()) {
    return Malformed(text, "expected a number");
  }
  KUEUESIM_ASSIGN_OR_RETURN(const Suffix suffix, ParseSuffix(text, text.substr(pos)));

  std::string digits;
  digits.reserve(integer_part.size() + fraction_part.size());
  digits.append(integer_part);
  digits.append(fraction_part);
  const size_t first = digits.find_first_not_of('0');
  Quantity q;
  if (first == std::string::npos) return q;  // zero: never negative, no exponents
  const size_t last = digits.find_last_not_of('0');
  const size_t significant = last - first + 1;
  if (significant > kMaxSignificantDigits) {
    return Malformed(text, fmt::format("too many significant digits ({} > {})", significant,
                                       kMaxSignificantDigits));
  }
  q.negative = negative;
  q.mantissa = digits.substr(first, significant);
  const auto trailing_zeros = static_cast<int64_t>(digits.size() - 1 - last);
  q.exponent10 = suffix.exponent10 - static_cast<int64_t>(fraction_part.size()) + trailing_zeros;
  q.exponent2 = suffix.exponent2;
  return q;
}

absl::StatusOr<int64_t> ScaledValue(const Quantity& q, int scale_exponent) {
  KUEUESIM_ASSIGN_OR_RETURN(const Magnitude magnitude, ScaleMagnitude(q, scale_exponent));
  const uint64_t limit = q.negative ? kInt64MinMagnitude : kInt64MaxMagnitude;
  if (magnitude.overflow || magnitude.value > limit) {
    return absl::OutOfRangeError(fmt::format("quantity {} does not fit in int64 in units of 10^{}",
                                             DescribeQuantity(q), -scale_exponent));
  }
  if (!q.negative) return static_cast<int64_t>(magnitude.value);
  if (magnitude.value == kInt64MinMagnitude) return std::numeric_limits<int64_t>::min();
  return -static_cast<int64_t>(magnitude.value);
}

absl::StatusOr<int64_t> CanonicalValue(const Quantity& q, std::string_view resource_name) {
  return ScaledValue(q, IsMilliResource(resource_name) ? 3 : 0);
}

// Positive values at or above the threshold (exact comparison, as Kueue's
// q.Cmp(max) >= 0) become kUnlimited; negative values too large in magnitude
// saturate at INT64_MIN. A Quantity ParseQuantity could not have produced is
// a caller bug and aborts.
Amount CanonicalAmountSaturating(const Quantity& q, std::string_view resource_name) {
  const bool milli = IsMilliResource(resource_name);
  absl::StatusOr<Magnitude> magnitude = ScaleMagnitude(q, milli ? 3 : 0);
  KUEUESIM_CHECK_MSG(magnitude.ok(), StatusMessage(magnitude.status()));
  if (q.negative) {
    if (magnitude->overflow || magnitude->value >= kInt64MinMagnitude) {
      return std::numeric_limits<int64_t>::min();
    }
    return -static_cast<int64_t>(magnitude->value);
  }
  // Kueue: cpu >= INT64_MAX/1000 cores, others >= INT64_MAX units.
  const uint64_t threshold = milli ? kInt64MaxMagnitude / 1000 * 1000 : kInt64MaxMagnitude;
  // value is ceil(exact); exact >= threshold iff value > threshold, or
  // value == threshold without rounding.
  if (magnitude->overflow || magnitude->value > threshold ||
      (magnitude->value == threshold && !magnitude->inexact)) {
    return kUnlimited;
  }
  return static_cast<int64_t>(magnitude->value);
}

absl::StatusOr<int64_t> ParseCanonicalValue(std::string_view text, std::string_view resource_name) {
  KUEUESIM_ASSIGN_OR_RETURN(const Quantity q, ParseQuantity(text));
  absl::StatusOr<int64_t> value = CanonicalValue(q, resource_name);
  if (!value.ok()) {
    return Annotate(value.status(),
                    fmt::format("quantity {} for resource {}", Quote(text), Quote(resource_name)));
  }
  return value;
}

// cpu: whole cores ("2") or milli-cores ("1500m"). Others: the largest
// binary suffix that divides the value exactly ("1536Mi", "1Gi"), else the
// plain integer ("100", "1000000000"). Negative values keep their sign.
std::string FormatAmount(Amount amount, std::string_view resource_name) {
  if (amount == kUnlimited) return "unlimited";
  const std::string sign = amount < 0 ? "-" : "";
  // |amount| as uint64, safe for INT64_MIN.
  const uint64_t magnitude =
      amount < 0 ? uint64_t{0} - static_cast<uint64_t>(amount) : static_cast<uint64_t>(amount);
  if (IsMilliResource(resource_name)) {
    if (magnitude % 1000 == 0) return fmt::format("{}{}", sign, magnitude / 1000);
    return fmt::format("{}{}m", sign, magnitude);
  }
  if (magnitude != 0) {
    for (size_t k = kBinarySuffixNames.size() - 1; k >= 1; --k) {
      const uint64_t unit = uint64_t{1} << (10 * k);
      if (magnitude % unit == 0) {
        return fmt::format("{}{}{}", sign, magnitude / unit, kBinarySuffixNames[k]);
      }
    }
  }
  return fmt::format("{}{}", sign, magnitude);
}


namespace {

// resource.Quantity's canonical decimal form of value * 10^scale
// (int64Amount.AsCanonicalBytes with the DecimalSI suffixes).
std::string CanonicalDecimal(int64_t value, int32_t scale) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  // |value| as uint64, safe for INT64_MIN.
  uint64_t amount = negative ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  int32_t exponent = scale;
  while (amount >= 10 && amount % 10 == 0) {
    amount /= 10;
    ++exponent;
  }
  // The exponent must be a multiple of 3.
  const int32_t mod = ((exponent % 3) + 3) % 3;
  for (int32_t i = 0; i < mod; ++i) amount *= 10;
  exponent -= mod;
  std::string_view suffix;
  switch (exponent) {
    case -9: suffix = "n"; break;
    case -6: suffix = "u"; break;
    case -3: suffix = "m"; break;
    case 0: suffix = ""; break;
    case 3: suffix = "k"; break;
    case 6: suffix = "M"; break;
    case 9: suffix = "G"; break;
    case 12: suffix = "T"; break;
    case 15: suffix = "P"; break;
    case 18: suffix = "E"; break;
    default: return fmt::format("{}{}e{}", negative ? "-" : "", amount, exponent);
  }
  return fmt::format("{}{}{}", negative ? "-" : "", amount, suffix);
}

bool UsesBinaryFormat(std::string_view resource_name) {
  return resource_name == "memory" || resource_name == "ephemeral-storage" ||
         resource_name.substr(0, 10) == "hugepages-";
}

}  // namespace

std::string KueueQuantityString(Amount amount, std::string_view resource_name) {
  if (amount == kUnlimited) return "<unlimited>";
  if (IsMilliResource(resource_name)) return CanonicalDecimal(amount, -3);
  if (UsesBinaryFormat(resource_name) && (amount <= -1024 || amount >= 1024)) {
    // Exact in powers of 1024: "1Gi"; otherwise Kubernetes prints the number
    // without a suffix, which the formatter parses again as decimal.
    const bool negative = amount < 0;
    uint64_t magnitude = negative ? uint64_t{0} - static_cast<uint64_t>(amount) : static_cast<uint64_t>(amount);
    size_t k = 0;
    while (k + 1 < kBinarySuffixNames.size() && magnitude % 1024 == 0) {
      magnitude /= 1024;
      ++k;
    }
    if (k > 0) return fmt::format("{}{}{}", negative ? "-" : "", magnitude, kBinarySuffixNames[k]);
  }
  return CanonicalDecimal(amount, 0);
}

}  // namespace kueuesim
