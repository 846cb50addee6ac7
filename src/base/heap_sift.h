// Binary min-heap sifting, as Go's container/heap up() and down(), shared by
// the event queue and the queue manager's heaps.
//
// Both sift with a hole: the moving element is written once, where it ends,
// instead of being swapped at every level. The comparisons are Go's, so the
// heap is the one Go's swaps would build (which matters where Kueue's order
// is not total). `placed(element, index)` is called for every element
// written to a new index, for heaps whose elements record their position.
#ifndef KUEUESIM_BASE_HEAP_SIFT_H_
#define KUEUESIM_BASE_HEAP_SIFT_H_

#include <cstddef>
#include <utility>

namespace kueuesim::heap {

// An element's new index is not recorded.
struct NotPlaced {
  template <typename T>
  void operator()(const T& /*element*/, size_t /*index*/) const {}
};

// up(j): moves heap[j] towards the root while it is less than its parent.
template <typename Heap, typename Less, typename Placed = NotPlaced>
void SiftUp(Heap& heap, size_t j, Less less, Placed placed = {}) {
  auto moving = std::move(heap[j]);
  while (j > 0) {
    const size_t parent = (j - 1) / 2;
    if (!less(moving, heap[parent])) break;
    heap[j] = std::move(heap[parent]);
    placed(heap[j], j);
    j = parent;
  }
  heap[j] = std::move(moving);
  placed(heap[j], j);
}

// down(i0, n): moves heap[i0] towards the leaves of the first n elements
// while a child is less. Returns whether it moved (Go's return value: when
// it did not, the caller may need SiftUp).
template <typename Heap, typename Less, typename Placed = NotPlaced>
bool SiftDown(Heap& heap, size_t i0, size_t n, Less less, Placed placed = {}) {
  auto moving = std::move(heap[i0]);
  size_t i = i0;
  while (true) {
    const size_t left = 2 * i + 1;
    if (left >= n) break;
    size_t child = left;
    const size_t right = left + 1;
    if (right < n && less(heap[right], heap[left])) child = right;
    if (!less(heap[child], moving)) break;
    heap[i] = std::move(heap[child]);
    placed(heap[i], i);
    i = child;
  }
  heap[i] = std::move(moving);
  placed(heap[i], i);
  return i > i0;
}

// fix(i): after heap[i] changed, restores the order of the first n elements.
template <typename Heap, typename Less, typename Placed = NotPlaced>
void Fix(Heap& heap, size_t i, size_t n, Less less, Placed placed = {}) {
  if (!SiftDown(heap, i, n, less, placed)) SiftUp(heap, i, less, placed);
}

}  // namespace kueuesim::heap

#endif  // KUEUESIM_BASE_HEAP_SIFT_H_
