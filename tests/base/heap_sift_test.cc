#include "base/heap_sift.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

namespace kueuesim::heap {
namespace {

bool IsMinHeap(const std::vector<int>& h) {
  for (size_t i = 1; i < h.size(); ++i) {
    if (h[i] < h[(i - 1) / 2]) return false;
  }
  return true;
}

TEST(HeapSiftTest, PushAndPopGiveSortedOrder) {
  std::mt19937 rng(7);
  std::vector<int> heap;
  std::vector<int> values;
  for (int i = 0; i < 200; ++i) {
    const int v = static_cast<int>(rng() % 50);
    values.push_back(v);
    heap.push_back(v);
    SiftUp(heap, heap.size() - 1, std::less<int>());
    ASSERT_TRUE(IsMinHeap(heap));
  }
  std::vector<int> popped;
  while (!heap.empty()) {
    popped.push_back(heap.front());
    heap.front() = heap.back();
    heap.pop_back();
    if (!heap.empty()) SiftDown(heap, 0, heap.size(), std::less<int>());
    ASSERT_TRUE(IsMinHeap(heap));
  }
  std::sort(values.begin(), values.end());
  EXPECT_EQ(popped, values);
}

TEST(HeapSiftTest, SiftDownReportsWhetherItMoved) {
  std::vector<int> heap = {1, 5, 6, 7, 8};
  EXPECT_FALSE(SiftDown(heap, 0, heap.size(), std::less<int>()));
  heap[0] = 9;
  EXPECT_TRUE(SiftDown(heap, 0, heap.size(), std::less<int>()));
  EXPECT_EQ(heap, (std::vector<int>{5, 7, 6, 9, 8}));
  // Only the first n elements are the heap: the last one is left alone.
  std::vector<int> partial = {9, 3, 4, 0};
  EXPECT_TRUE(SiftDown(partial, 0, 3, std::less<int>()));
  EXPECT_EQ(partial, (std::vector<int>{3, 9, 4, 0}));
}

TEST(HeapSiftTest, PlacedRecordsEveryMovedElementsIndex) {
  struct Item {
    int key;
    int id;
  };
  std::vector<Item> heap;
  std::vector<size_t> position(6, 99);
  auto less = [](const Item& a, const Item& b) { return a.key < b.key; };
  auto placed = [&](const Item& item, size_t index) { position[static_cast<size_t>(item.id)] = index; };
  for (int id = 0; id < 6; ++id) {
    heap.push_back({10 - id, id});
    SiftUp(heap, heap.size() - 1, less, placed);
  }
  for (size_t i = 0; i < heap.size(); ++i) EXPECT_EQ(position[static_cast<size_t>(heap[i].id)], i);
  // Fix after a key change: down when it grew, up when it shrank.
  heap[0].key = 100;
  Fix(heap, 0, heap.size(), less, placed);
  heap[heap.size() - 1].key = -1;
  Fix(heap, heap.size() - 1, heap.size(), less, placed);
  EXPECT_EQ(heap[0].key, -1);
  for (size_t i = 0; i < heap.size(); ++i) EXPECT_EQ(position[static_cast<size_t>(heap[i].id)], i);
  for (size_t i = 1; i < heap.size(); ++i) EXPECT_LE(heap[(i - 1) / 2].key, heap[i].key);
}

}  // namespace
}  // namespace kueuesim::heap
