// Tests for kueuesim/engine/event_queue.h: the (time, sequence) event heap
// and the Engine's clock (RunUntil, RunDueNow, AdvanceTo, scheduling in the
// past).
#include "kueuesim/engine/event_queue.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kueuesim::engine {
namespace {

using ::testing::ElementsAre;

// Records (now, kind, a) of every event it handles, and runs an optional
// callback (to schedule more events from inside a handler).
class Recorder : public EventHandler {
 public:
  explicit Recorder(Engine* engine) : engine_(engine) {}
  void HandleEvent(int32_t kind, int64_t a, int64_t b) override {
    seen.emplace_back(engine_->now(), kind, a);
    last_b = b;
    if (on_event) on_event(kind, a);
  }
  std::vector<std::tuple<SimTime, int32_t, int64_t>> seen;
  int64_t last_b = 0;
  std::function<void(int32_t, int64_t)> on_event;

 private:
  Engine* engine_;
};

Event MakeEvent(SimTime time, uint64_t sequence, int32_t kind = 0) {
  Event e;
  e.time = time;
  e.sequence = sequence;
  e.kind = kind;
  return e;
}

// Setup: events pushed out of order: (5,0) (1,3) (5,1) (1,2) (3,4).
// Invariant: pops come sorted by time, then by sequence: (1,2) (1,3) (3,4)
// (5,0) (5,1).
TEST(EventQueueTest, OrdersByTimeThenSequence) {
  EventQueue q;
  for (const auto& [t, s] : std::vector<std::pair<SimTime, uint64_t>>{{5, 0}, {1, 3}, {5, 1}, {1, 2}, {3, 4}}) {
    q.Push(MakeEvent(t, s));
  }
  EXPECT_EQ(q.size(), 5u);
  EXPECT_EQ(q.Top().time, 1);
  EXPECT_EQ(q.Top().sequence, 2u);
  std::vector<std::pair<SimTime, uint64_t>> popped;
  while (!q.empty()) {
    Event e = q.Pop();
    popped.emplace_back(e.time, e.sequence);
  }
  EXPECT_THAT(popped, ElementsAre(std::make_pair(SimTime{1}, uint64_t{2}), std::make_pair(SimTime{1}, uint64_t{3}),
                                  std::make_pair(SimTime{3}, uint64_t{4}), std::make_pair(SimTime{5}, uint64_t{0}),
                                  std::make_pair(SimTime{5}, uint64_t{1})));
}

// Setup: 100,000 events with random times in [0, 1000) (many ties) and
// increasing sequence numbers, pushed in random order, with pops
// interleaved with pushes. Invariant: the final drain pops in
// non-decreasing (time, sequence) order and nothing is lost.
TEST(EventQueueTest, HundredThousandRandomEventsPopSorted) {
  std::mt19937_64 rng(2024);
  std::vector<Event> events;
  events.reserve(100000);
  for (uint64_t i = 0; i < 100000; ++i) events.push_back(MakeEvent(static_cast<SimTime>(rng() % 1000), i));
  std::shuffle(events.begin(), events.end(), rng);
  EventQueue q;
  std::vector<Event> early;
  for (size_t i = 0; i < events.size(); ++i) {
    q.Push(events[i]);
    if (i % 10 == 9) early.push_back(q.Pop());  // interleave some pops
  }
  // Re-push what was popped early, then drain.
  for (const Event& e : early) q.Push(e);
  ASSERT_EQ(q.size(), events.size());
  Event prev = q.Pop();
  size_t count = 1;
  bool sorted = true;
  while (!q.empty()) {
    Event e = q.Pop();
    ++count;
    if (e.time < prev.time || (e.time == prev.time && e.sequence <= prev.sequence)) sorted = false;
    prev = e;
  }
  EXPECT_TRUE(sorted);
  EXPECT_EQ(count, events.size());
}

// Setup: three events at time 10 scheduled A, B, C, and one at time 5
// scheduled last. Invariant: the time-5 event runs first, then A, B, C in
// scheduling order (same-time FIFO); the clock follows each event.
TEST(EngineTest, SameTimeEventsRunInSchedulingOrder) {
  Engine engine;
  Recorder r(&engine);
  engine.Schedule(10, &r, 1, 'A');
  engine.Schedule(10, &r, 1, 'B');
  engine.Schedule(10, &r, 1, 'C');
  engine.Schedule(5, &r, 2, 'D');
  EXPECT_TRUE(engine.HasEvents());
  EXPECT_EQ(engine.NextEventTime(), 5);
  engine.RunUntil(100);
  using E = std::tuple<SimTime, int32_t, int64_t>;
  EXPECT_THAT(r.seen, ElementsAre(E{5, 2, 'D'}, E{10, 1, 'A'}, E{10, 1, 'B'}, E{10, 1, 'C'}));
  EXPECT_EQ(engine.now(), 100);
  EXPECT_EQ(engine.events_processed(), 4u);
  EXPECT_FALSE(engine.HasEvents());
}

// Setup: at time 10 the handler of event X schedules Y at now (10) and Z at
// 10 + 0, then W at 15; an event V at 10 was scheduled before X ran.
// Invariant: V (scheduled earlier) runs before Y and Z, which run in order
// within the same RunUntil(12); W waits for a later RunUntil.
TEST(EngineTest, EventsScheduledWhileRunningAtSameTimeRunInOrder) {
  Engine engine;
  Recorder r(&engine);
  r.on_event = [&](int32_t kind, int64_t a) {
    if (kind == 1 && a == 'X') {
      engine.Schedule(engine.now(), &r, 2, 'Y');
      engine.ScheduleAfter(0, &r, 2, 'Z');
      engine.ScheduleAfter(5, &r, 2, 'W');
    }
  };
  engine.Schedule(10, &r, 1, 'X');
  engine.Schedule(10, &r, 1, 'V');
  engine.RunUntil(12);
  using E = std::tuple<SimTime, int32_t, int64_t>;
  EXPECT_THAT(r.seen, ElementsAre(E{10, 1, 'X'}, E{10, 1, 'V'}, E{10, 2, 'Y'}, E{10, 2, 'Z'}));
  EXPECT_EQ(engine.now(), 12);
  EXPECT_EQ(engine.NextEventTime(), 15);
  engine.RunUntil(15);
  EXPECT_EQ(std::get<2>(r.seen.back()), 'W');
  EXPECT_EQ(engine.now(), 15);
}

// Setup: an event at 7; RunUntil(6) then RunDueNow at 6; AdvanceTo(7) then
// RunDueNow. Invariant: RunUntil runs only events due by its argument and
// moves the clock to it; RunDueNow at 7 runs the event; payload b is passed.
TEST(EngineTest, RunUntilStopsAtBoundAndRunDueNowRunsDue) {
  Engine engine;
  Recorder r(&engine);
  engine.Schedule(7, &r, 3, 1, 99);
  engine.RunUntil(6);
  EXPECT_TRUE(r.seen.empty());
  EXPECT_EQ(engine.now(), 6);
  engine.RunDueNow();
  EXPECT_TRUE(r.seen.empty());
  engine.AdvanceTo(7);
  EXPECT_EQ(engine.now(), 7);
  EXPECT_TRUE(r.seen.empty());  // AdvanceTo never runs events
  engine.RunDueNow();
  ASSERT_EQ(r.seen.size(), 1u);
  EXPECT_EQ(r.last_b, 99);
}

// Setup: the clock at 50; schedule at 20 (the past) and ScheduleAfter(-5).
// Invariant: both are clamped to now (50) and run at 50, in scheduling
// order, on RunDueNow; the clock never goes backwards (RunUntil(30) runs
// nothing and AdvanceTo(40) is a no-op).
TEST(EngineTest, SchedulingInThePastClampsToNow) {
  Engine engine;
  Recorder r(&engine);
  engine.AdvanceTo(50);
  engine.Schedule(20, &r, 1, 1);
  engine.ScheduleAfter(-5, &r, 1, 2);
  EXPECT_EQ(engine.NextEventTime(), 50);
  engine.RunUntil(30);  // nothing is due by 30; the clock stays at 50
  EXPECT_EQ(engine.now(), 50);
  EXPECT_TRUE(r.seen.empty());
  engine.RunDueNow();
  using E = std::tuple<SimTime, int32_t, int64_t>;
  EXPECT_THAT(r.seen, ElementsAre(E{50, 1, 1}, E{50, 1, 2}));
  engine.AdvanceTo(40);
  EXPECT_EQ(engine.now(), 50);
}

// Setup: 1000 events at random times scheduled through the Engine, 10% of
// them scheduling a follow-up at the same time from the handler. Invariant:
// handled times never decrease and every event runs exactly once.
TEST(EngineTest, RandomScheduleRunsMonotonically) {
  Engine engine;
  Recorder r(&engine);
  std::mt19937 rng(7);
  int follow_ups = 0;
  r.on_event = [&](int32_t kind, int64_t a) {
    if (kind == 1 && a % 10 == 0) {
      ++follow_ups;
      engine.Schedule(engine.now(), &r, 2, a);
    }
  };
  for (int i = 0; i < 1000; ++i) engine.Schedule(static_cast<SimTime>(rng() % 200), &r, 1, i);
  engine.RunUntil(kInfiniteFuture - 1);
  EXPECT_EQ(r.seen.size(), static_cast<size_t>(1000 + follow_ups));
  EXPECT_TRUE(std::is_sorted(r.seen.begin(), r.seen.end(),
                             [](const auto& x, const auto& y) { return std::get<0>(x) < std::get<0>(y); }));
  EXPECT_EQ(engine.events_processed(), r.seen.size());
}

// Setup: events at 10 (scheduled first), then, while running at 10, events
// scheduled for 10 (the list of events due now) and for 20, and at 10 from
// outside a run after the clock got there.
// Invariant: the heap's events of an instant run before the events
// scheduled during it, and those in the order they were scheduled.
TEST(EngineTest, EventsDueNowRunAfterTheInstantsEarlierEvents) {
  Engine engine;
  Recorder r(&engine);
  engine.Schedule(10, &r, 1, 0);
  engine.Schedule(10, &r, 1, 1);
  r.on_event = [&](int32_t kind, int64_t a) {
    if (kind == 1 && a == 0) {
      engine.Schedule(10, &r, 2, 0);
      engine.Schedule(20, &r, 2, 1);
      engine.Schedule(10, &r, 2, 2);
    }
  };
  engine.RunUntil(10);
  EXPECT_THAT(r.seen, ElementsAre(std::make_tuple(10, 1, 0), std::make_tuple(10, 1, 1), std::make_tuple(10, 2, 0),
                                  std::make_tuple(10, 2, 2)));
  // Scheduled for now between runs: due now, before the event at 20.
  engine.Schedule(10, &r, 3, 0);
  ASSERT_TRUE(engine.HasEvents());
  EXPECT_EQ(engine.NextEventTime(), 10);
  // Not due before now.
  engine.RunUntil(5);
  EXPECT_EQ(r.seen.size(), 4u);
  engine.RunDueNow();
  EXPECT_EQ(r.seen.back(), std::make_tuple(10, 3, 0));
  EXPECT_EQ(engine.NextEventTime(), 20);
  engine.RunUntil(30);
  EXPECT_EQ(r.seen.back(), std::make_tuple(20, 2, 1));
  EXPECT_FALSE(engine.HasEvents());
  EXPECT_EQ(engine.now(), 30);
}

// Setup: 20,000 events from random handlers, each scheduling 0-2 more at
// now or a little later (half of them at now), in random RunUntil steps.
// Invariant: they run in (time, sequence) order, as one heap of every
// event would run them.
TEST(EngineTest, RandomEventsRunInTimeThenSchedulingOrder) {
  Engine engine;
  Recorder r(&engine);
  std::mt19937 rng(11);
  uint64_t sequence = 0;
  std::vector<std::pair<SimTime, uint64_t>> order;  // (time, sequence) as they run
  std::vector<uint64_t> sequence_of;                // by payload
  auto schedule = [&](SimTime time) {
    const int64_t payload = static_cast<int64_t>(sequence_of.size());
    sequence_of.push_back(sequence++);
    engine.Schedule(time, &r, 1, payload);
  };
  r.on_event = [&](int32_t, int64_t a) {
    order.emplace_back(engine.now(), sequence_of[static_cast<size_t>(a)]);
    if (sequence_of.size() >= 20000) return;
    const int more = static_cast<int>(rng() % 3);
    for (int i = 0; i < more; ++i) schedule(engine.now() + (rng() % 2 == 0 ? 0 : static_cast<SimTime>(rng() % 5)));
  };
  for (int i = 0; i < 200; ++i) schedule(static_cast<SimTime>(rng() % 50));
  SimTime until = 0;
  while (engine.HasEvents()) {
    until += static_cast<SimTime>(rng() % 4);
    engine.RunUntil(until);
    if (rng() % 3 == 0 && sequence_of.size() < 20000) schedule(engine.now());  // between runs
  }
  EXPECT_EQ(order.size(), sequence_of.size());
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
}

// Invariant: AdvanceTo past a pending event violates its precondition and
// aborts (KUEUESIM_CHECK).
TEST(EngineDeathTest, AdvancePastPendingEventAborts) {
  Engine engine;
  Recorder r(&engine);
  engine.Schedule(5, &r, 1);
  EXPECT_DEATH(engine.AdvanceTo(6), "");
}

}  // namespace
}  // namespace kueuesim::engine
