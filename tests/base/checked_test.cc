// Tests for kueuesim/base/checked.h: exact results inside int64, nullopt at
// and beyond its ends (never a wrapped value).
#include "kueuesim/base/checked.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace kueuesim {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// Setup: sums, differences and products at the edges of int64.
// Expectation: exact inside, nullopt when the true result is outside.
TEST(CheckedTest, IntegerOperations) {
  EXPECT_EQ(CheckedAdd(kMax - 1, 1), kMax);
  EXPECT_EQ(CheckedAdd(kMax, 1), std::nullopt);
  EXPECT_EQ(CheckedAdd(kMin, -1), std::nullopt);
  EXPECT_EQ(CheckedSub(kMin + 1, 1), kMin);
  EXPECT_EQ(CheckedSub(0, kMin), std::nullopt);
  EXPECT_EQ(CheckedMul(int64_t{3037000499}, int64_t{3037000499}), int64_t{9223372030926249001});
  EXPECT_EQ(CheckedMul(int64_t{3037000500}, int64_t{3037000500}), std::nullopt);
  EXPECT_EQ(CheckedMul(int64_t{9223372036854775}, int64_t{1000}), int64_t{9223372036854775000});
  EXPECT_EQ(CheckedMul(int64_t{9223372036854776}, int64_t{1000}), std::nullopt);  // an interval in ms
  EXPECT_EQ(CheckedMul(kMin, -1), std::nullopt);
  EXPECT_EQ(CheckedMul(CheckedAdd(kMax, 1), 0), std::nullopt);  // nullopt propagates
  EXPECT_EQ(CheckedAdd(CheckedMul(int64_t{4}, 5), 1), 21);
}

// Setup: doubles that round into and out of int64, and non-finite ones.
TEST(CheckedTest, Rounding) {
  EXPECT_EQ(CheckedRound(2.5), 3);
  EXPECT_EQ(CheckedRound(-2.5), -3);
  EXPECT_EQ(CheckedRound(9223372036854774784.0), int64_t{9223372036854774784});
  EXPECT_EQ(CheckedRound(9223372036854775808.0), std::nullopt);
  EXPECT_EQ(CheckedRound(-9223372036854775808.0), kMin);
  EXPECT_EQ(CheckedRound(1e300), std::nullopt);
  EXPECT_EQ(CheckedRound(std::nan("")), std::nullopt);
  EXPECT_EQ(CheckedRound(-INFINITY), std::nullopt);
}

}  // namespace
}  // namespace kueuesim
