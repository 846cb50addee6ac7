// Simulated time: integer microseconds, never floating point.
//
// SimTime is an offset from the start of the simulation; SimDuration a
// difference of two. Wall-clock timestamps from manifests (RFC 3339, e.g.
// metadata.creationTimestamp) are read as microseconds since the Unix epoch
// and only ever compared or subtracted.
#ifndef KUEUESIM_BASE_TIME_H_
#define KUEUESIM_BASE_TIME_H_

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kueuesim {

using SimTime = int64_t;      // microseconds since the simulation started
using SimDuration = int64_t;  // microseconds
using UnixMicros = int64_t;   // microseconds since 1970-01-01T00:00:00Z

inline constexpr SimDuration kMicrosecond = 1;
inline constexpr SimDuration kMillisecond = 1000;
inline constexpr SimDuration kSecond = 1000 * kMillisecond;
inline constexpr SimDuration kMinute = 60 * kSecond;
inline constexpr SimDuration kHour = 60 * kMinute;
inline constexpr SimTime kInfiniteFuture = std::numeric_limits<int64_t>::max();

// Parses a duration the way Go's time.ParseDuration does, plus a bare number
// meaning seconds: "90s", "2h30m", "1.5h", "300ms", "10us", "0", "45".
// Units: ns (rounded up to whole microseconds), us, µs, ms, s, m, h, and d
// (24h, a kueuesim extension). Errors name the text: empty, negative, unknown
// unit, overflow. (Clarification: overflow is OutOfRange, every other error
// InvalidArgument; rounding up to microseconds applies once, to the exact
// total.)
absl::StatusOr<SimDuration> ParseDuration(std::string_view text);

// Parses an RFC 3339 timestamp ("2024-12-31T23:00:00Z",
// "2024-12-31T23:00:00.5+01:00") into microseconds since the Unix epoch.
absl::StatusOr<UnixMicros> ParseRfc3339(std::string_view text);

// Formats an RFC 3339 UTC timestamp with second or sub-second precision
// ("2024-12-31T23:00:00Z", "2024-12-31T23:00:00.25Z").
std::string FormatRfc3339(UnixMicros t);

// Formats a simulated time as seconds with up to six decimals and at least
// one: 0 -> "0.0", 1500000 -> "1.5", 90000001 -> "90.000001". Byte-stable.
std::string FormatSeconds(SimTime t);

// Formats a duration for people: "0s", "250us", "250ms", "1.5s", "2m30s",
// "3h0m5s", "2d3h0m0s" (Go's Duration.String plus a day unit; ParseDuration
// reads every output back).
std::string FormatDuration(SimDuration d);

}  // namespace kueuesim

#endif  // KUEUESIM_BASE_TIME_H_
