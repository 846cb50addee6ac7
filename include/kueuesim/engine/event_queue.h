// A discrete-event engine with integer time. Events are ordered by time,
// then by the sequence number given when they were scheduled, so events at
// the same instant run in the order they were scheduled (ns-3's EventKey).
// Events scheduled for the current instant (most of a simulation's: a
// reservation's admission, a start without delay) skip the heap: they wait
// in a first-in first-out list, which comes after the heap's events of the
// same instant (those were scheduled earlier, their sequence is lower), so
// the order is exactly the heap's.
// It knows nothing about Kueue, holds no global state, and allocates
// nothing per event beyond the heap's storage.
#ifndef KUEUESIM_ENGINE_EVENT_QUEUE_H_
#define KUEUESIM_ENGINE_EVENT_QUEUE_H_

#include <cstdint>
#include <vector>

#include "kueuesim/base/time.h"

namespace kueuesim::engine {

// Receives events. `kind`, `a` and `b` are the handler's own payload.
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void HandleEvent(int32_t kind, int64_t a, int64_t b) = 0;
};

struct Event {
  SimTime time = 0;
  uint64_t sequence = 0;
  EventHandler* handler = nullptr;
  int32_t kind = 0;
  int64_t a = 0;
  int64_t b = 0;
};

// A binary min-heap of events keyed by (time, sequence).
class EventQueue {
 public:
  void Push(const Event& event);
  // REQUIRES: !empty().
  Event Pop();
  const Event& Top() const { return heap_.front(); }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }

 private:
  static bool Before(const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : a.sequence < b.sequence;
  }
  std::vector<Event> heap_;
};

// Watches the events as they run (invariant checking): called after each
// event's handler; returning false stops RunUntil there.
class EventObserver {
 public:
  virtual ~EventObserver() = default;
  virtual bool AfterEvent() = 0;
};

// The clock and the pending events of one simulation.
class Engine {
 public:
  // Sets (null: clears) the observer of every event. Costs one branch per
  // event when unset.
  void set_observer(EventObserver* observer) { observer_ = observer; }
  SimTime now() const { return now_; }
  // Schedules an event at `time` (clamped to now: the past cannot be
  // scheduled).
  void Schedule(SimTime time, EventHandler* handler, int32_t kind, int64_t a = 0, int64_t b = 0);
  void ScheduleAfter(SimDuration delay, EventHandler* handler, int32_t kind, int64_t a = 0,
                     int64_t b = 0) {
    Schedule(now_ + delay, handler, kind, a, b);
  }
  bool HasEvents() const { return !queue_.empty() || due_now_head_ < due_now_.size(); }
  // Time of the next event. REQUIRES: HasEvents().
  SimTime NextEventTime() const { return due_now_head_ < due_now_.size() ? now_ : queue_.Top().time; }
  // Runs every event due at or before `time`, in order, advancing the clock
  // to each event's time, then sets the clock to `time`. Events scheduled
  // while running that are due by `time` run too.
  void RunUntil(SimTime time);
  // Runs the events due exactly at now().
  void RunDueNow() { RunUntil(now_); }
  // Moves the clock forward without running anything. REQUIRES: no event is
  // due before `time`.
  void AdvanceTo(SimTime time);
  uint64_t events_processed() const { return processed_; }

 private:
  // The next event due by `time`, taken from the heap or the list of events
  // due now; false when there is none.
  bool TakeNext(SimTime time, Event* event);

  EventQueue queue_;
  // Events scheduled for now_, in sequence order, from due_now_head_ on
  // (the list is emptied before the clock moves).
  std::vector<Event> due_now_;
  size_t due_now_head_ = 0;
  SimTime now_ = 0;
  uint64_t next_sequence_ = 0;
  uint64_t processed_ = 0;
  EventObserver* observer_ = nullptr;
};

}  // namespace kueuesim::engine

#endif  // KUEUESIM_ENGINE_EVENT_QUEUE_H_
