// OptionalMicros: an optional UnixMicros in 8 bytes instead of
// std::optional's 16, for records kept per workload.
#ifndef KUEUESIM_BASE_OPTIONAL_MICROS_H_
#define KUEUESIM_BASE_OPTIONAL_MICROS_H_

#include <cstdint>
#include <limits>
#include <optional>

#include "kueuesim/base/time.h"

namespace kueuesim {

// The absent value is the smallest int64, which no timestamp a manifest can
// write (year 0000 on) nor the simulation computes can be. Reads as
// std::optional<UnixMicros> does, and converts from it.
class OptionalMicros {
 public:
  constexpr OptionalMicros() = default;
  constexpr OptionalMicros(std::nullopt_t) {}                    // NOLINT: as std::optional
  constexpr OptionalMicros(UnixMicros value) : value_(value) {}  // NOLINT: as std::optional
  constexpr OptionalMicros(const std::optional<UnixMicros>& value)  // NOLINT: as std::optional
      : value_(value.value_or(kAbsent)) {}
  constexpr bool has_value() const { return value_ != kAbsent; }
  // REQUIRES: has_value().
  constexpr UnixMicros operator*() const { return value_; }
  constexpr UnixMicros value_or(UnixMicros fallback) const { return has_value() ? value_ : fallback; }
  constexpr void reset() { value_ = kAbsent; }

 private:
  static constexpr UnixMicros kAbsent = std::numeric_limits<int64_t>::min();
  UnixMicros value_ = kAbsent;
};

}  // namespace kueuesim

#endif  // KUEUESIM_BASE_OPTIONAL_MICROS_H_
