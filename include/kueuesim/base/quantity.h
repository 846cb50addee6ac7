// Kubernetes resource quantities, exactly.
//
// Mirrors k8s.io/apimachinery/pkg/api/resource (Quantity) for parsing and
// kueue/pkg/resources/amount.go for the integer amounts Kueue computes with:
// CPU in milli-cores, every other resource in whole units (bytes, counts),
// both rounded up ("away from zero") as Quantity.MilliValue()/Value() do.
//
// Grammar (the one Kubernetes accepts):
//   quantity  ::= [sign] number [suffix]
//   number    ::= digits | digits "." [digits] | "." digits
//   suffix    ::= binarySI | decimalSI | decimalExponent
//   binarySI  ::= Ki | Mi | Gi | Ti | Pi | Ei
//   decimalSI ::= n | u | m | "" | k | M | G | T | P | E
//   decimalExponent ::= ("e" | "E") [sign] digits
// No whitespace anywhere; an empty string is malformed.
#ifndef KUEUESIM_BASE_QUANTITY_H_
#define KUEUESIM_BASE_QUANTITY_H_

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kueuesim {

// An amount in canonical integer units. kUnlimited (INT64_MAX) is the
// sentinel Kueue uses for a quota too large for int64; arithmetic saturates.
using Amount = int64_t;
inline constexpr Amount kUnlimited = std::numeric_limits<int64_t>::max();

// A parsed quantity, kept exact: value = sign * mantissa * 10^exponent10 *
// 1024^exponent2 where mantissa is a decimal digit string without leading
// zeros (empty for zero). Kept exact so that conversion to an integer unit can
// round up exactly as Kubernetes does.
struct Quantity {
  bool negative = false;
  std::string mantissa;  // decimal digits, no leading zeros; "" means zero
  int64_t exponent10 = 0;
  int32_t exponent2 = 0;  // multiples of 10 from binary suffixes (Ki = 1, Mi = 2, ...)

  bool IsZero() const { return mantissa.empty(); }
};

// Parses a Kubernetes quantity string. Errors (InvalidArgument) name the
// offending text: empty, bad characters, unknown suffix, too many digits
// (more than 64) or an exponent outside [-1000, 1000].
// (Clarification: the digit limit counts significant digits, i.e. leading and
// trailing zeros are free; the exponent limit applies to a written "e"/"E"
// exponent. The result is normalized: no trailing zeros in the mantissa, and
// zero is always {false, "", 0, 0}.)
absl::StatusOr<Quantity> ParseQuantity(std::string_view text);

// Value in units of 10^-scale_exponent rounded up away from zero, e.g.
// scale_exponent 3 gives milli-units. Returns OutOfRange when the result does
// not fit in int64. (Clarification: a hand-built Quantity ParseQuantity could
// not produce, i.e. a mantissa with non-digits or a leading zero or
// |exponent2| > 1000, is InvalidArgument; any exponent10 is handled.)
absl::StatusOr<int64_t> ScaledValue(const Quantity& q, int scale_exponent);

// The canonical integer amount Kueue uses for `resource_name`: milli-units for
// "cpu", units for everything else. OutOfRange when it does not fit in int64.
absl::StatusOr<int64_t> CanonicalValue(const Quantity& q, std::string_view resource_name);

// As CanonicalValue, but a value >= the largest representable amount becomes
// kUnlimited, as kueue's AmountFromQuantity does for quotas. Negative values
// still convert exactly (callers validate the sign).
// (Clarification: the threshold comparison is exact, like kueue's q.Cmp; a
// negative value below INT64_MIN saturates at INT64_MIN; a Quantity that
// ScaledValue rejects as invalid aborts, being a caller bug.)
Amount CanonicalAmountSaturating(const Quantity& q, std::string_view resource_name);

// Parses `text` and returns CanonicalValue for `resource_name`.
absl::StatusOr<int64_t> ParseCanonicalValue(std::string_view text, std::string_view resource_name);

// Whether `resource_name` is counted in milli-units ("cpu").
inline bool IsMilliResource(std::string_view resource_name) { return resource_name == "cpu"; }

// Formats a canonical amount back as a readable quantity string, e.g. 1500
// milli-cpu -> "1500m", 2000 -> "2", 1073741824 bytes -> "1Gi",
// kUnlimited -> "unlimited". Deterministic; used for reports.
std::string FormatAmount(Amount amount, std::string_view resource_name);

// Formats an amount as Kueue writes it in condition messages
// (resources.ResourceFormatter: resource.Quantity's canonical String): cpu
// as a milli-quantity (1000 -> "1", 1500 -> "1500m", 10^6 -> "1k"); memory,
// ephemeral-storage and hugepages-* in binary units when exact ("1Gi",
// "1536Mi", else decimal: 2000 -> "2k"); others as decimal SI (1000 ->
// "1k"); kUnlimited -> "<unlimited>".
std::string KueueQuantityString(Amount amount, std::string_view resource_name);

// Saturating arithmetic on amounts with Kueue's Unlimited rules
// (kueue/pkg/resources/amount.go): Unlimited + x = Unlimited;
// Unlimited - Unlimited = 0; Unlimited - x = Unlimited;
// x - Unlimited = INT64_MIN; otherwise saturating at the int64 bounds.
// (Inline: the quota arithmetic of every admission attempt.)
inline Amount AddAmounts(Amount a, Amount b) {
  if (a == kUnlimited || b == kUnlimited) return kUnlimited;
  Amount sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    return a > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return sum;
}

inline Amount SubAmounts(Amount a, Amount b) {
  if (a == kUnlimited && b == kUnlimited) return 0;
  if (a == kUnlimited) return kUnlimited;
  if (b == kUnlimited) return std::numeric_limits<int64_t>::min();
  Amount difference = 0;
  if (__builtin_sub_overflow(a, b, &difference)) {
    return a >= 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return difference;
}

// a * n saturating at the int64 bounds (n >= 0): kUnlimited * n stays
// kUnlimited for n >= 1 and is 0 for n == 0. A negative n (outside the
// contract) also saturates.
inline Amount MulAmount(Amount a, int64_t n) {
  Amount product = 0;
  if (__builtin_mul_overflow(a, n, &product)) {
    return (a < 0) == (n < 0) ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return product;
}

}  // namespace kueuesim

#endif  // KUEUESIM_BASE_QUANTITY_H_
