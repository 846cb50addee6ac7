// Exact integer arithmetic for values that come from input: counts times
// sizes, intervals times units, sums of times. Each operation returns
// nullopt instead of wrapping (signed overflow is undefined behaviour in C++;
// a wrapped count or time would silently change a run). Callers turn nullopt
// into an input error naming the file, the line and the field.
//
// Built on the compiler's __builtin_*_overflow (GCC and Clang), which are
// exact for every int64 operand.
#ifndef KUEUESIM_BASE_CHECKED_H_
#define KUEUESIM_BASE_CHECKED_H_

#include <cmath>
#include <cstdint>
#include <optional>

namespace kueuesim {

inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_sub_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// Chains: nullopt in, nullopt out.
inline std::optional<int64_t> CheckedAdd(std::optional<int64_t> a, int64_t b) {
  return a.has_value() ? CheckedAdd(*a, b) : std::nullopt;
}
inline std::optional<int64_t> CheckedSub(std::optional<int64_t> a, int64_t b) {
  return a.has_value() ? CheckedSub(*a, b) : std::nullopt;
}
inline std::optional<int64_t> CheckedMul(std::optional<int64_t> a, int64_t b) {
  return a.has_value() ? CheckedMul(*a, b) : std::nullopt;
}

// `value` rounded to the nearest integer (halves away from zero, as
// std::llround), or nullopt when it is not finite or outside int64.
inline std::optional<int64_t> CheckedRound(double value) {
  if (!std::isfinite(value)) return std::nullopt;
  const double rounded = std::round(value);
  // 2^63 is exactly representable; every double below it in magnitude fits.
  constexpr double kLimit = 9223372036854775808.0;
  if (rounded >= kLimit || rounded < -kLimit) return std::nullopt;
  return static_cast<int64_t>(rounded);
}

}  // namespace kueuesim

#endif  // KUEUESIM_BASE_CHECKED_H_
