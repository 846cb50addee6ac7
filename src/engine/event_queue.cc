// Discrete-event engine: heap of (time, sequence) keyed events.
#include "kueuesim/engine/event_queue.h"

#include <algorithm>
#include <utility>

#include "kueuesim/base/status.h"

namespace kueuesim::engine {

// Both sift with a hole: the moving event is written once, where it ends,
// instead of being swapped at every level (the same comparisons, so the
// same heap as swapping).
void EventQueue::Push(const Event& event) {
  heap_.push_back(event);
  size_t i = heap_.size() - 1;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!Before(event, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = event;
}

Event EventQueue::Pop() {
  Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n == 0) return top;
  size_t i = 0;
  while (true) {
    size_t left = 2 * i + 1;
    size_t right = left + 1;
    const Event* smallest = &last;
    size_t next = i;
    if (left < n && Before(heap_[left], *smallest)) {
      smallest = &heap_[left];
      next = left;
    }
    if (right < n && Before(heap_[right], *smallest)) {
      smallest = &heap_[right];
      next = right;
    }
    if (next == i) break;
    heap_[i] = *smallest;
    i = next;
  }
  heap_[i] = last;
  return top;
}

void Engine::Schedule(SimTime time, EventHandler* handler, int32_t kind, int64_t a, int64_t b) {
  KUEUESIM_CHECK(handler != nullptr);
  queue_.Push(Event{std::max(time, now_), next_sequence_++, handler, kind, a, b});
}

void Engine::RunUntil(SimTime time) {
  while (!queue_.empty() && queue_.Top().time <= time) {
    Event event = queue_.Pop();
    now_ = event.time;
    ++processed_;
    event.handler->HandleEvent(event.kind, event.a, event.b);
  }
  if (time > now_) now_ = time;
}

void Engine::AdvanceTo(SimTime time) {
  KUEUESIM_CHECK(queue_.empty() || queue_.Top().time >= time);
  if (time > now_) now_ = time;
}

}  // namespace kueuesim::engine
