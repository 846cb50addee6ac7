// Tests for kueuesim/base/boxed.h: an optional on the heap reads, copies,
// moves and compares like std::optional, and is the size of a pointer.
#include "kueuesim/base/boxed.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace kueuesim {
namespace {

struct Large {
  std::string text;
  std::vector<int> numbers;
  char padding[200] = {};
  bool operator==(const Large& other) const { return text == other.text && numbers == other.numbers; }
};

// Setup: a Boxed of a 250-byte type. Expectation: one pointer wide, empty
// by default and from std::nullopt.
TEST(BoxedTest, SizeOfAPointerAndEmptyByDefault) {
  static_assert(sizeof(Boxed<Large>) == sizeof(void*));
  static_assert(std::is_nothrow_move_constructible_v<Boxed<Large>>);
  Boxed<Large> empty;
  EXPECT_FALSE(empty.has_value());
  EXPECT_FALSE(static_cast<bool>(empty));
  Boxed<Large> from_nullopt = std::nullopt;
  EXPECT_FALSE(from_nullopt.has_value());
  EXPECT_TRUE(empty == std::nullopt);
  EXPECT_EQ(empty.ToOptional(), std::nullopt);
}

// Setup: values assigned from T, from a set and an empty std::optional,
// emplaced, reset. Expectation: has_value and the value follow each step.
TEST(BoxedTest, AssignsFromValuesAndOptionals) {
  Boxed<std::string> box = std::string("first");
  ASSERT_TRUE(box.has_value());
  EXPECT_EQ(*box, "first");
  EXPECT_EQ(box->size(), 5u);
  box = std::optional<std::string>("second");
  EXPECT_EQ(*box, "second");
  box = std::optional<std::string>();
  EXPECT_FALSE(box.has_value());
  EXPECT_EQ(box.value_or("fallback"), "fallback");
  box.emplace(3, 'x');
  EXPECT_EQ(*box, "xxx");
  EXPECT_EQ(box.value_or("fallback"), "xxx");
  EXPECT_EQ(box.value(), "xxx");
  box.reset();
  EXPECT_FALSE(box.has_value());
  EXPECT_THROW(box.value(), std::bad_optional_access);
  box = std::nullopt;
  EXPECT_FALSE(box.has_value());
  EXPECT_EQ(Boxed<std::string>(std::optional<std::string>("kept")).ToOptional(), std::optional<std::string>("kept"));
}

// Setup: a boxed value copied, the copy changed; then moved.
// Expectation: copies are deep (the original is unchanged), a move takes
// the value and leaves the source empty.
TEST(BoxedTest, CopiesDeeplyAndMovesThePointer) {
  Boxed<Large> original = Large{"a", {1, 2}};
  Boxed<Large> copy = original;
  copy->text = "b";
  copy->numbers.push_back(3);
  EXPECT_EQ(original->text, "a");
  EXPECT_EQ(original->numbers, (std::vector<int>{1, 2}));
  const Large* address = &*copy;
  Boxed<Large> moved = std::move(copy);
  EXPECT_EQ(&*moved, address);
  EXPECT_FALSE(copy.has_value());  // NOLINT(bugprone-use-after-move): a moved-from Boxed is empty
  Boxed<Large> assigned;
  assigned = original;
  EXPECT_EQ(assigned->text, "a");
  const Boxed<Large>& same = assigned;
  assigned = same;  // self-assignment keeps the value
  EXPECT_EQ(assigned->text, "a");
  Boxed<Large> empty;
  assigned = empty;
  EXPECT_FALSE(assigned.has_value());
}

// Setup: pairs of empty and set boxes. Expectation: equal when both are
// empty or both hold equal values, as std::optional compares.
TEST(BoxedTest, ComparesLikeOptional) {
  Boxed<std::string> empty;
  Boxed<std::string> a = std::string("a");
  Boxed<std::string> other_a = std::string("a");
  Boxed<std::string> b = std::string("b");
  EXPECT_TRUE(empty == Boxed<std::string>());
  EXPECT_TRUE(a == other_a);
  EXPECT_FALSE(a == b);
  EXPECT_FALSE(a == empty);
  EXPECT_FALSE(empty == a);
  EXPECT_FALSE(a == std::nullopt);
}

// Setup: a LazyBox of a 250-byte type, read before anything is written.
// Expectation: one pointer wide, reads the defaults without allocating.
TEST(LazyBoxTest, ReadsDefaultsWithoutAllocating) {
  static_assert(sizeof(LazyBox<Large>) == sizeof(void*));
  static_assert(std::is_nothrow_move_constructible_v<LazyBox<Large>>);
  LazyBox<Large> box;
  EXPECT_TRUE(box->text.empty());
  EXPECT_TRUE((*box).numbers.empty());
  EXPECT_FALSE(box.allocated());
  // Two empty boxes read the same shared default.
  LazyBox<Large> other;
  EXPECT_EQ(&*box, &*other);
}

// Setup: a member written through Mutable, the box copied, moved, reset.
// Expectation: the write is read back, copies are deep, a move takes the
// value, reset returns to the defaults; equality compares values.
TEST(LazyBoxTest, WritesCopiesMovesAndCompares) {
  LazyBox<Large> box;
  box.Mutable().text = "written";
  ASSERT_TRUE(box.allocated());
  EXPECT_EQ(box->text, "written");

  LazyBox<Large> copy = box;
  copy.Mutable().numbers.push_back(7);
  EXPECT_TRUE(box->numbers.empty());
  EXPECT_EQ(copy->text, "written");
  EXPECT_FALSE(copy == box);

  LazyBox<Large> moved = std::move(copy);
  EXPECT_EQ(moved->numbers, std::vector<int>{7});

  LazyBox<Large> empty;
  LazyBox<Large> written_default;
  written_default.Mutable();
  EXPECT_TRUE(empty == written_default);  // a made default equals an empty box
  EXPECT_FALSE(empty == box);

  box.reset();
  EXPECT_FALSE(box.allocated());
  EXPECT_TRUE(box->text.empty());
  EXPECT_TRUE(box == empty);
}

}  // namespace
}  // namespace kueuesim
