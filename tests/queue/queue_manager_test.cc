// Tests for the pending queues (src/queue/queue_manager.h), after Kueue's
// pkg/cache/queue: heap order, StrictFIFO vs BestEffortFIFO requeueing,
// parking and QueueInadmissible, the sticky preemptor, and bulk parking by
// scheduling-equivalence hash (kueue-semantics.md §2.1, §2.9).
#include "queue/queue_manager.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/policy/queue_ordering.h"
#include "testing/cluster_fixtures.h"
#include "testing/scenario_fixtures.h"

namespace kueuesim::queue {
namespace {

using cluster::ClusterState;
using cluster::WorkloadPhase;
using ::kueuesim::testing::BuildClusterState;
using ::kueuesim::testing::ClusterQueueYaml;
using ::kueuesim::testing::LocalQueueYaml;
using ::kueuesim::testing::ResourceFlavorYaml;
using ::kueuesim::testing::WorkloadOptions;
using ::kueuesim::testing::WorkloadYaml;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr UnixMicros kNow = 1'000'000'000'000'000;

class QueueManagerTest : public ::testing::Test {
 protected:
  // Builds a state with flavor "f", the given ClusterQueues and workloads,
  // and LocalQueue default/q -> `lq_target`.
  void Build(const std::string& objects, const std::string& lq_target = "cq") {
    auto state = BuildClusterState(ResourceFlavorYaml("f") + LocalQueueYaml("default", "q", lq_target) + objects);
    ASSERT_TRUE(state.ok()) << state.status();
    state_ = std::move(state).value();
    ordering_ = policy::NewKueueQueueOrdering();
    queues_ = std::make_unique<QueueManager>(state_.get(), ordering_.get());
  }
  WorkloadId Id(const std::string& name) const {
    for (WorkloadId id = 0; id < state_->num_workloads(); ++id) {
      if (state_->workload(id).key == "default/" + name) return id;
    }
    ADD_FAILURE() << "no workload " << name;
    return cluster::kNone;
  }
  std::string Name(WorkloadId id) const { return state_->workload(id).spec->meta.name; }
  CqId Cq(const std::string& name) const { return state_->FindClusterQueue(name); }
  // Arrives (pending) and is filed.
  bool Arrive(const std::string& name) {
    WorkloadId id = Id(name);
    state_->workload(id).phase = WorkloadPhase::kPending;
    return queues_->AddOrUpdate(id, kNow, /*reevaluate=*/false);
  }
  // The names of the heads of the next cycle.
  std::vector<std::string> Heads() {
    std::vector<std::string> out;
    for (const Head& h : queues_->Heads()) out.push_back(Name(h.workload));
    return out;
  }
  // Pops every workload of one ClusterQueue in heap order (one per cycle).
  std::vector<std::string> Drain() {
    std::vector<std::string> out;
    while (true) {
      auto heads = queues_->Heads();
      if (heads.empty()) break;
      for (const Head& h : heads) out.push_back(Name(h.workload));
    }
    return out;
  }
  std::vector<std::string> Names(const std::vector<WorkloadId>& ids) const {
    std::vector<std::string> out;
    for (WorkloadId id : ids) out.push_back(Name(id));
    return out;
  }

  std::unique_ptr<ClusterState> state_;
  std::unique_ptr<policy::QueueOrderingPolicy> ordering_;
  std::unique_ptr<QueueManager> queues_;
};

std::string CqYaml(const std::string& name, const std::string& extra = "") {
  return ClusterQueueYaml(name, {"cpu"}, {{"f", {"10"}, {}}}, extra);
}

std::string Wl(const std::string& name, int priority = 0, const std::string& creation = "2025-01-01T10:00:00Z",
               const std::string& uid = "", const std::string& cpu = "1") {
  WorkloadOptions o;
  o.set_priority = true;
  o.priority = priority;
  o.creation = creation;
  o.uid = uid;
  o.requests = {{"cpu", cpu}};
  return WorkloadYaml(name, o);
}

// Setup: one BestEffortFIFO queue; workloads (priority, creation, uid):
// late-low (0, 11:00, -), high (5, 11:00, -), early (0, 10:00, -), uid-b (0,
// 10:30, b), uid-a (0, 10:30, a), tie-1 and tie-2 (0, 10:45, -, in that input
// order), all arriving in this order. Invariant: pops by higher priority,
// then earlier timestamp, then smaller UID, then input order: high, early,
// uid-a, uid-b, tie-1, tie-2, late-low.
TEST_F(QueueManagerTest, HeapOrderPriorityTimestampUidInputOrder) {
  Build(CqYaml("cq") + Wl("late-low", 0, "2025-01-01T11:00:00Z") + Wl("high", 5, "2025-01-01T11:00:00Z") +
        Wl("early", 0, "2025-01-01T10:00:00Z") + Wl("uid-b", 0, "2025-01-01T10:30:00Z", "b") +
        Wl("uid-a", 0, "2025-01-01T10:30:00Z", "a") + Wl("tie-1", 0, "2025-01-01T10:45:00Z") +
        Wl("tie-2", 0, "2025-01-01T10:45:00Z"));
  for (const char* name : {"late-low", "high", "early", "uid-b", "uid-a", "tie-1", "tie-2"}) {
    ASSERT_TRUE(Arrive(name));
  }
  EXPECT_EQ(queues_->ActiveCount(Cq("cq")), 7u);
  EXPECT_THAT(Drain(), ElementsAre("high", "early", "uid-a", "uid-b", "tie-1", "tie-2", "late-low"));
}

// Setup: ClusterQueues "b-cq" and "a-cq" (declared in that order), each with
// one pending workload, plus "held" (stopPolicy Hold) with one. Invariant:
// Heads pops exactly one per active ClusterQueue, in name order, skipping
// the inactive one; the popped workloads are in flight.
TEST_F(QueueManagerTest, HeadsOnePerActiveClusterQueueInNameOrder) {
  Build(CqYaml("b-cq") + CqYaml("a-cq") + CqYaml("held", "  stopPolicy: Hold\n") + LocalQueueYaml("default", "qa", "a-cq") +
            LocalQueueYaml("default", "qh", "held") + Wl("in-b") + Wl("in-b-2") + [] {
              WorkloadOptions o;
              o.queue = "qa";
              return WorkloadYaml("in-a", o);
            }() + [] {
              WorkloadOptions o;
              o.queue = "qh";
              return WorkloadYaml("in-held", o);
            }(),
        "b-cq");
  for (const char* name : {"in-b", "in-b-2", "in-a", "in-held"}) ASSERT_TRUE(Arrive(name));
  auto heads = queues_->Heads();
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_EQ(Name(heads[0].workload), "in-a");
  EXPECT_EQ(heads[0].cq, Cq("a-cq"));
  EXPECT_EQ(Name(heads[1].workload), "in-b");
  EXPECT_FALSE(heads[0].is_preemptor);
  EXPECT_EQ(queues_->PlacementOf(heads[0].workload), Placement::kInflight);
  EXPECT_EQ(queues_->ActiveCount(Cq("held")), 1u);
  EXPECT_TRUE(queues_->AnyActive());
  EXPECT_THAT(Names(queues_->Pending(Cq("b-cq"))), UnorderedElementsAre("in-b", "in-b-2"));
}

// Setup: a LocalQueue pointing to a missing ClusterQueue. Invariant:
// AddOrUpdate refuses (false) and the workload is not queued anywhere.
TEST_F(QueueManagerTest, WorkloadWithoutClusterQueueIsNotQueued) {
  Build(CqYaml("cq") + Wl("w"), "missing");
  EXPECT_FALSE(Arrive("w"));
  EXPECT_EQ(queues_->PlacementOf(Id("w")), Placement::kNotQueued);
  EXPECT_FALSE(queues_->AnyActive());
}

// Setup: StrictFIFO queue with head (priority 5) and next (priority 0).
// Pop head, requeue with NoFit. Invariant: StrictFIFO requeues at once (not
// parked) so head blocks the queue and is popped again; a NamespaceMismatch
// requeue parks it.
TEST_F(QueueManagerTest, StrictFifoRequeuesImmediately) {
  Build(CqYaml("cq", "  queueingStrategy: StrictFIFO\n") + Wl("head", 5) + Wl("next", 0));
  Arrive("head");
  Arrive("next");
  EXPECT_THAT(Heads(), ElementsAre("head"));
  EXPECT_TRUE(queues_->Requeue(Id("head"), RequeueReason::kNoFit, kNow));
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 0u);
  EXPECT_THAT(Heads(), ElementsAre("head"));
  EXPECT_TRUE(queues_->Requeue(Id("head"), RequeueReason::kPreemptionNoCandidates, kNow));
  EXPECT_THAT(Heads(), ElementsAre("head"));
  queues_->Requeue(Id("head"), RequeueReason::kNamespaceMismatch, kNow);
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 1u);
  EXPECT_EQ(queues_->PlacementOf(Id("head")), Placement::kParked);
  EXPECT_THAT(Heads(), ElementsAre("next"));
}

// Setup: BestEffortFIFO queue with head (5), next (0), last (0), all of
// different shapes. Invariant: a NoFit requeue parks head so next becomes
// the head ("BestEffort"); FailedAfterNomination, PendingPreemption,
// PendingMigration and PreemptionFailed requeue at once; Generic parks.
TEST_F(QueueManagerTest, BestEffortFifoParksNoFit) {
  Build(CqYaml("cq") + Wl("head", 5, "2025-01-01T10:00:00Z", "", "1") + Wl("next", 0, "2025-01-01T10:00:00Z", "", "2") +
        Wl("last", 0, "2025-01-01T11:00:00Z", "", "3"));
  Arrive("head");
  Arrive("next");
  Arrive("last");
  EXPECT_THAT(Heads(), ElementsAre("head"));
  EXPECT_TRUE(queues_->Requeue(Id("head"), RequeueReason::kNoFit, kNow));
  EXPECT_EQ(queues_->PlacementOf(Id("head")), Placement::kParked);
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 1u);
  EXPECT_THAT(Heads(), ElementsAre("next"));
  for (RequeueReason reason : {RequeueReason::kFailedAfterNomination, RequeueReason::kPreemptionFailed}) {
    queues_->Requeue(Id("next"), reason, kNow);
    EXPECT_EQ(queues_->PlacementOf(Id("next")), Placement::kActive);
    EXPECT_THAT(Heads(), ElementsAre("next"));
  }
  queues_->Requeue(Id("next"), RequeueReason::kGeneric, kNow);
  EXPECT_EQ(queues_->PlacementOf(Id("next")), Placement::kParked);
  EXPECT_THAT(Heads(), ElementsAre("last"));
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 2u);
  EXPECT_THAT(Names(queues_->Pending(Cq("cq"))), UnorderedElementsAre("head", "next", "last"));
}

// Setup: BestEffortFIFO; head popped, then a QueueInadmissible runs while
// it is in flight; then it is requeued with NoFit. Invariant: an
// inadmissible requeue after the pop sends it back to the heap (Kueue's
// queueInadmissibleCycle >= popCycle).
TEST_F(QueueManagerTest, RequeueAfterQueueInadmissibleDuringCycleGoesToHeap) {
  Build(CqYaml("cq") + Wl("head"));
  Arrive("head");
  EXPECT_THAT(Heads(), ElementsAre("head"));
  EXPECT_EQ(queues_->QueueInadmissible(Cq("cq"), kNow), 0);
  queues_->Requeue(Id("head"), RequeueReason::kNoFit, kNow);
  EXPECT_EQ(queues_->PlacementOf(Id("head")), Placement::kActive);
  // The next pop starts a new cycle: a NoFit requeue now parks it.
  EXPECT_THAT(Heads(), ElementsAre("head"));
  queues_->Requeue(Id("head"), RequeueReason::kNoFit, kNow);
  EXPECT_EQ(queues_->PlacementOf(Id("head")), Placement::kParked);
}

// Setup: BestEffortFIFO; head's flavor cursor has flavors left to try
// (last tried index 0 of several). Invariant: a NoFit requeue with pending
// flavors goes back into the heap instead of parking.
TEST_F(QueueManagerTest, PendingFlavorsRequeueToHeap) {
  Build(CqYaml("cq") + Wl("head"));
  Arrive("head");
  Heads();
  cluster::LastAssignmentState cursor;
  cursor.last_tried_flavor_idx = {{{state_->FindResource("cpu"), 0}}};
  state_->workload(Id("head")).last_assignment = cursor;
  queues_->Requeue(Id("head"), RequeueReason::kNoFit, kNow);
  EXPECT_EQ(queues_->PlacementOf(Id("head")), Placement::kActive);
}

// Setup: BestEffortFIFO with low (priority 0, 10:00) which is requeued with
// PendingPreemption; then high (priority 9) arrives. Invariant: the sticky
// preemptor pops before the higher-priority workload (and is marked as the
// preemptor) until it leaves the queue (Delete); then high is first.
TEST_F(QueueManagerTest, StickyPreemptorInBestEffortFifo) {
  Build(CqYaml("cq") + Wl("low", 0, "2025-01-01T10:00:00Z", "", "1") + Wl("high", 9, "2025-01-01T11:00:00Z", "", "2"));
  Arrive("low");
  EXPECT_THAT(Heads(), ElementsAre("low"));
  queues_->Requeue(Id("low"), RequeueReason::kPendingPreemption, kNow);
  EXPECT_TRUE(queues_->IsPreemptor(Cq("cq"), Id("low")));
  Arrive("high");
  auto heads = queues_->Heads();
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_EQ(Name(heads[0].workload), "low");
  EXPECT_TRUE(heads[0].is_preemptor);
  queues_->Requeue(Id("low"), RequeueReason::kPendingPreemption, kNow);
  EXPECT_THAT(Heads(), ElementsAre("low"));
  // Admitted: it leaves the queue and the preemptor mark goes with it.
  queues_->Delete(Id("low"));
  EXPECT_FALSE(queues_->IsPreemptor(Cq("cq"), Id("low")));
  EXPECT_THAT(Heads(), ElementsAre("high"));
}

// Setup: the same with StrictFIFO. Invariant: the preemptor is recorded but
// not sticky: the higher-priority arrival jumps ahead of it.
TEST_F(QueueManagerTest, PreemptorNotStickyInStrictFifo) {
  Build(CqYaml("cq", "  queueingStrategy: StrictFIFO\n") + Wl("low", 0, "2025-01-01T10:00:00Z") +
        Wl("high", 9, "2025-01-01T11:00:00Z"));
  Arrive("low");
  Heads();
  queues_->Requeue(Id("low"), RequeueReason::kPendingPreemption, kNow);
  EXPECT_TRUE(queues_->IsPreemptor(Cq("cq"), Id("low")));
  Arrive("high");
  auto heads = queues_->Heads();
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_EQ(Name(heads[0].workload), "high");
  EXPECT_THAT(Heads(), ElementsAre("low"));
}

// Setup: BestEffortFIFO; a, b parked by NoFit (popped one after the other);
// c's backoff ends in the future (requeueAt = now + 1 min) and it is parked
// on arrival. Invariant: QueueInadmissible moves a and b back (2 moved), not
// c; once the clock passes requeueAt, c moves too.
TEST_F(QueueManagerTest, QueueInadmissibleMovesParkedBack) {
  Build(CqYaml("cq") + Wl("a", 0, "2025-01-01T10:00:00Z", "", "1") + Wl("b", 0, "2025-01-01T10:01:00Z", "", "2") +
        Wl("c", 0, "2025-01-01T10:02:00Z", "", "3"));
  Arrive("a");
  Arrive("b");
  state_->workload(Id("c")).requeue_at = kNow + kMinute;
  Arrive("c");
  EXPECT_EQ(queues_->PlacementOf(Id("c")), Placement::kParked);
  EXPECT_THAT(Heads(), ElementsAre("a"));
  queues_->Requeue(Id("a"), RequeueReason::kNoFit, kNow);
  EXPECT_THAT(Heads(), ElementsAre("b"));
  queues_->Requeue(Id("b"), RequeueReason::kNoFit, kNow);
  EXPECT_THAT(Heads(), IsEmpty());
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 3u);
  EXPECT_EQ(queues_->QueueInadmissible(Cq("cq"), kNow), 2);
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 1u);
  EXPECT_THAT(Drain(), ElementsAre("a", "b"));
  EXPECT_EQ(queues_->QueueInadmissible(Cq("cq"), kNow + kMinute), 1);
  EXPECT_THAT(Drain(), ElementsAre("c"));
}

// Setup: a ClusterQueue selecting namespaces labelled team=a; the workload's
// namespace "default" has no such label. Invariant: a parked workload whose
// namespace does not match stays parked on QueueInadmissible.
TEST_F(QueueManagerTest, NamespaceMismatchStaysParked) {
  // ClusterQueueYaml sets namespaceSelector: {}; replace it with a selector.
  std::string cq = ClusterQueueYaml("cq", {"cpu"}, {{"f", {"10"}, {}}});
  cq.replace(cq.find("namespaceSelector: {}"), 21, "namespaceSelector: {matchLabels: {team: a}}");
  Build(cq + Wl("w"));
  Arrive("w");
  Heads();
  queues_->Requeue(Id("w"), RequeueReason::kNamespaceMismatch, kNow);
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 1u);
  EXPECT_EQ(queues_->QueueInadmissible(Cq("cq"), kNow), 0);
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 1u);
}

// Setup: BestEffortFIFO with same-shape workloads s1, s2, s3 and a
// different one d. Pop s1, requeue NoFit. Invariant: s2 and s3 (same
// equivalence hash) are bulk-parked with it, d stays active; a new arrival
// s4 of that shape is parked on arrival; QueueInadmissible clears the hash
// and moves all four back.
TEST_F(QueueManagerTest, EquivalenceHashBulkParking) {
  Build(CqYaml("cq") + Wl("s1", 0, "2025-01-01T10:00:00Z") + Wl("s2", 0, "2025-01-01T10:01:00Z") +
        Wl("s3", 0, "2025-01-01T10:02:00Z") + Wl("d", 0, "2025-01-01T10:03:00Z", "", "7") +
        Wl("s4", 0, "2025-01-01T10:04:00Z"));
  ASSERT_EQ(state_->workload(Id("s1")).scheduling_hash, state_->workload(Id("s2")).scheduling_hash);
  ASSERT_NE(state_->workload(Id("s1")).scheduling_hash, state_->workload(Id("d")).scheduling_hash);
  for (const char* name : {"s1", "s2", "s3", "d"}) Arrive(name);
  EXPECT_THAT(Heads(), ElementsAre("s1"));
  queues_->Requeue(Id("s1"), RequeueReason::kNoFit, kNow);
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 3u);
  EXPECT_EQ(queues_->ActiveCount(Cq("cq")), 1u);
  EXPECT_EQ(queues_->PlacementOf(Id("s3")), Placement::kParked);
  Arrive("s4");
  EXPECT_EQ(queues_->PlacementOf(Id("s4")), Placement::kParked);
  EXPECT_THAT(Heads(), ElementsAre("d"));
  EXPECT_EQ(queues_->QueueInadmissible(Cq("cq"), kNow), 4);
  EXPECT_THAT(Drain(), ElementsAre("s1", "s2", "s3", "s4"));
}

// Setup: two same-shape workloads, the first popped and requeued with (a)
// PreemptionNoCandidates, (b) Generic, (c) NoFit in a StrictFIFO queue.
// Invariant: (a) bulk-parks; (b) parks only the
// head; (c) parks nothing (StrictFIFO requeues at once and never bulk-moves).
TEST_F(QueueManagerTest, BulkParkingOnlyForNoFitReasonsInBestEffortFifo) {
  const std::string workloads = Wl("s1", 0, "2025-01-01T10:00:00Z") + Wl("s2", 0, "2025-01-01T10:01:00Z");
  Build(CqYaml("cq") + workloads);
  Arrive("s1");
  Arrive("s2");
  Heads();
  queues_->Requeue(Id("s1"), RequeueReason::kPreemptionNoCandidates, kNow);
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 2u);

  Build(CqYaml("cq") + workloads);
  Arrive("s1");
  Arrive("s2");
  Heads();
  queues_->Requeue(Id("s1"), RequeueReason::kGeneric, kNow);
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 1u);
  EXPECT_EQ(queues_->PlacementOf(Id("s2")), Placement::kActive);

  Build(CqYaml("cq", "  queueingStrategy: StrictFIFO\n") + workloads);
  Arrive("s1");
  Arrive("s2");
  Heads();
  queues_->Requeue(Id("s1"), RequeueReason::kNoFit, kNow);
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 0u);
  EXPECT_EQ(queues_->ActiveCount(Cq("cq")), 2u);
}

// Setup: SchedulingEquivalenceHashing turned off in the Configuration.
// Invariant: a NoFit requeue parks only the head.
TEST_F(QueueManagerTest, BulkParkingFollowsGate) {
  Build("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
        "featureGates: {SchedulingEquivalenceHashing: false}\n---\n" +
        CqYaml("cq") + Wl("s1", 0, "2025-01-01T10:00:00Z") + Wl("s2", 0, "2025-01-01T10:01:00Z"));
  Arrive("s1");
  Arrive("s2");
  Heads();
  queues_->Requeue(Id("s1"), RequeueReason::kNoFit, kNow);
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 1u);
  EXPECT_THAT(Heads(), ElementsAre("s2"));
}

// Setup: a workload with Requeued=False (backoff running). Invariant: it is
// parked on AddOrUpdate; an update without reevaluate leaves it parked;
// once the condition clears, a reevaluating update moves it to the heap.
TEST_F(QueueManagerTest, BackoffParksUntilReevaluated) {
  Build(CqYaml("cq") + Wl("w"));
  state_->workload(Id("w")).requeued_condition_false = true;
  Arrive("w");
  EXPECT_EQ(queues_->PlacementOf(Id("w")), Placement::kParked);
  state_->workload(Id("w")).requeued_condition_false = false;
  queues_->AddOrUpdate(Id("w"), kNow, /*reevaluate=*/false);
  EXPECT_EQ(queues_->PlacementOf(Id("w")), Placement::kParked);
  queues_->AddOrUpdate(Id("w"), kNow, /*reevaluate=*/true);
  EXPECT_EQ(queues_->PlacementOf(Id("w")), Placement::kActive);
  EXPECT_THAT(Heads(), ElementsAre("w"));
  // A requeue of a workload that is no longer pending does nothing.
  state_->workload(Id("w")).phase = WorkloadPhase::kQuotaReserved;
  EXPECT_FALSE(queues_->Requeue(Id("w"), RequeueReason::kNoFit, kNow));
}

// Setup: BestEffortFIFO with two shapes interleaved in time: small s1..s4
// (1 cpu, 10:00, 10:02, 10:04, 10:06) and large l1..l3 (7 cpu, 10:01, 10:03,
// 10:05). s1 is popped and parked for NoFit (its shape with it), then l1
// likewise; s5 arrives while its shape is parked. Invariant: the queue is
// empty; QueueInadmissible brings all eight back and they pop in Kueue's
// single order (timestamp), interleaving the two shapes.
TEST_F(QueueManagerTest, ParkedShapesComeBackInOneOrder) {
  Build(CqYaml("cq") + Wl("s1", 0, "2025-01-01T10:00:00Z") + Wl("l1", 0, "2025-01-01T10:01:00Z", "", "7") +
        Wl("s2", 0, "2025-01-01T10:02:00Z") + Wl("l2", 0, "2025-01-01T10:03:00Z", "", "7") +
        Wl("s3", 0, "2025-01-01T10:04:00Z") + Wl("l3", 0, "2025-01-01T10:05:00Z", "", "7") +
        Wl("s4", 0, "2025-01-01T10:06:00Z") + Wl("s5", 0, "2025-01-01T10:07:00Z"));
  for (const char* name : {"s4", "l3", "s3", "l2", "s2", "l1", "s1"}) Arrive(name);
  EXPECT_THAT(Heads(), ElementsAre("s1"));
  queues_->Requeue(Id("s1"), RequeueReason::kNoFit, kNow);
  EXPECT_THAT(Heads(), ElementsAre("l1"));
  queues_->Requeue(Id("l1"), RequeueReason::kNoFit, kNow);
  EXPECT_FALSE(queues_->HasActive(Cq("cq")));
  Arrive("s5");
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 8u);
  EXPECT_EQ(queues_->QueueInadmissible(Cq("cq"), kNow), 8);
  EXPECT_THAT(Drain(), ElementsAre("s1", "l1", "s2", "l2", "s3", "l3", "s4", "s5"));
}

// Setup: BestEffortFIFO; same-shape workloads a (10:00), b (10:01), c (10:02);
// b's backoff ends a minute after now. a is popped and parked for NoFit,
// which parks c with it. Invariant: QueueInadmissible now moves a and c
// back, b stays parked (its backoff); a minute later b follows, and the
// order is by timestamp throughout.
TEST_F(QueueManagerTest, ParkedShapeKeepsWorkloadsInBackoff) {
  Build(CqYaml("cq") + Wl("a", 0, "2025-01-01T10:00:00Z") + Wl("b", 0, "2025-01-01T10:01:00Z") +
        Wl("c", 0, "2025-01-01T10:02:00Z"));
  state_->workload(Id("b")).requeue_at = kNow + kMinute;
  for (const char* name : {"a", "b", "c"}) Arrive(name);
  EXPECT_EQ(queues_->PlacementOf(Id("b")), Placement::kParked);
  EXPECT_THAT(Heads(), ElementsAre("a"));
  queues_->Requeue(Id("a"), RequeueReason::kNoFit, kNow);
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 3u);
  EXPECT_EQ(queues_->QueueInadmissible(Cq("cq"), kNow), 2);
  EXPECT_EQ(queues_->PlacementOf(Id("b")), Placement::kParked);
  EXPECT_EQ(queues_->QueueInadmissible(Cq("cq"), kNow + kMinute), 1);
  EXPECT_THAT(Drain(), ElementsAre("a", "b", "c"));
}

// Setup: BestEffortFIFO; low (priority 0), mid (priority 5) and high
// (priority 9), each its own shape. low becomes the sticky preemptor, is
// parked (Generic) and comes back by QueueInadmissible while high is in
// flight; then high is requeued as the new preemptor. Invariant: low, no
// longer sticky, takes its place by priority: high, mid, low.
TEST_F(QueueManagerTest, FormerPreemptorLosesTheHead) {
  Build(CqYaml("cq") + Wl("low", 0, "2025-01-01T10:00:00Z", "", "1") + Wl("mid", 5, "2025-01-01T10:00:00Z", "", "2") +
        Wl("high", 9, "2025-01-01T10:00:00Z", "", "3"));
  Arrive("low");
  EXPECT_THAT(Heads(), ElementsAre("low"));
  queues_->Requeue(Id("low"), RequeueReason::kPendingPreemption, kNow);
  EXPECT_THAT(Heads(), ElementsAre("low"));
  queues_->Requeue(Id("low"), RequeueReason::kGeneric, kNow);
  EXPECT_EQ(queues_->PlacementOf(Id("low")), Placement::kParked);
  Arrive("mid");
  Arrive("high");
  EXPECT_THAT(Heads(), ElementsAre("high"));
  EXPECT_EQ(queues_->QueueInadmissible(Cq("cq"), kNow), 1);
  queues_->Requeue(Id("high"), RequeueReason::kPendingPreemption, kNow);
  EXPECT_TRUE(queues_->IsPreemptor(Cq("cq"), Id("high")));
  EXPECT_THAT(Drain(), ElementsAre("high", "mid", "low"));
}

// Setup: five workloads arrive; one in the middle of the heap is deleted;
// a parked one is deleted. Invariant: Delete removes from either place and
// the remaining order is intact.
TEST_F(QueueManagerTest, DeleteFromHeapAndParked) {
  Build(CqYaml("cq") + Wl("p5", 5) + Wl("p4", 4) + Wl("p3", 3) + Wl("p2", 2) + Wl("p1", 1));
  for (const char* name : {"p1", "p2", "p3", "p4", "p5"}) Arrive(name);
  queues_->Delete(Id("p3"));
  EXPECT_EQ(queues_->PlacementOf(Id("p3")), Placement::kNotQueued);
  EXPECT_THAT(Heads(), ElementsAre("p5"));
  queues_->Requeue(Id("p5"), RequeueReason::kGeneric, kNow);
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 1u);
  queues_->Delete(Id("p5"));
  EXPECT_EQ(queues_->ParkedCount(Cq("cq")), 0u);
  EXPECT_THAT(Drain(), ElementsAre("p4", "p2", "p1"));
}

}  // namespace
}  // namespace kueuesim::queue
