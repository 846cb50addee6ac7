// Discrete-event engine: heap of (time, sequence) keyed events.
#include "kueuesim/engine/event_queue.h"

#include <algorithm>
#include <utility>

#include "base/heap_sift.h"
#include "kueuesim/base/status.h"

namespace kueuesim::engine {

// Go's container/heap Push and Pop (the last event moves to the root and
// sifts down).
void EventQueue::Push(const Event& event) {
  heap_.push_back(event);
  heap::SiftUp(heap_, heap_.size() - 1, &EventQueue::Before);
}

Event EventQueue::Pop() {
  Event top = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) heap::SiftDown(heap_, 0, heap_.size(), &EventQueue::Before);
  return top;
}

void Engine::Schedule(SimTime time, EventHandler* handler, int32_t kind, int64_t a, int64_t b) {
  KUEUESIM_CHECK(handler != nullptr);
  const Event event{std::max(time, now_), next_sequence_++, handler, kind, a, b};
  if (event.time == now_) {
    due_now_.push_back(event);
  } else {
    queue_.Push(event);
  }
}

bool Engine::TakeNext(SimTime time, Event* event) {
  if (time < now_) return false;  // nothing is due before now
  // The heap's events of this instant were scheduled before it began, so
  // before every event of the list.
  if (!queue_.empty() && queue_.Top().time == now_) {
    *event = queue_.Pop();
    return true;
  }
  if (due_now_head_ < due_now_.size()) {
    *event = due_now_[due_now_head_++];
    if (due_now_head_ == due_now_.size()) {
      due_now_.clear();
      due_now_head_ = 0;
    }
    return true;
  }
  if (queue_.empty() || queue_.Top().time > time) return false;
  *event = queue_.Pop();
  return true;
}

void Engine::RunUntil(SimTime time) {
  Event event;
  while (TakeNext(time, &event)) {
    now_ = event.time;
    ++processed_;
    event.handler->HandleEvent(event.kind, event.a, event.b);
    if (observer_ != nullptr && !observer_->AfterEvent()) [[unlikely]] return;
  }
  if (time > now_) now_ = time;
}

void Engine::AdvanceTo(SimTime time) {
  KUEUESIM_CHECK(queue_.empty() || queue_.Top().time >= time);
  KUEUESIM_CHECK(due_now_head_ == due_now_.size() || time <= now_);
  if (time > now_) now_ = time;
}

}  // namespace kueuesim::engine
