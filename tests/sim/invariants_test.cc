// The invariant checker (sim/invariants.h): each invariant is broken on
// purpose, by corrupting a live simulation's state through the runtime's
// mutable_state() (test-only use), and must be caught with a message naming
// the invariant, the object and the figures. Clean runs must pass.
#include "kueuesim/sim/invariants.h"

#include <memory>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kueuesim/base/time.h"
#include "kueuesim/cluster/events.h"
#include "kueuesim/sim/simulation.h"
#include "testing/simulation_fixtures.h"

namespace kueuesim {
namespace {

using cluster::ClusterState;
using cluster::WorkloadId;
using cluster::WorkloadPhase;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string ClusterQueue(const std::string& name, const std::string& cohort, const std::string& limits) {
  return fmt::format(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {0}}}
spec:
{1}  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: "4"
{2}---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: {0}, namespace: ns}}
spec: {{clusterQueue: {0}}}
---
)",
                     name, cohort.empty() ? "" : fmt::format("  cohortName: {}\n", cohort), limits);
}

std::string Job(const std::string& name, const std::string& queue, const std::string& cpu,
                const std::string& duration) {
  return fmt::format(R"(apiVersion: batch/v1
kind: Job
metadata:
  name: {0}
  namespace: ns
  labels:
    kueue.x-k8s.io/queue-name: {1}
  annotations:
    kueuesim.io/arrival: 0s
    kueuesim.io/duration: {3}
spec:
  template:
    spec:
      containers:
      - name: main
        resources:
          requests:
            cpu: "{2}"
---
)",
                     name, queue, cpu, duration);
}

// Cohort "all": ClusterQueue "a" (4 cpu, borrowingLimit 2) and "b" (4 cpu,
// lendingLimit 1); "solo" (4 cpu) has no cohort. At 50 s: j1 (2 cpu in a),
// j2 (1 cpu in b) and j3 (2 cpu in solo) are admitted, j4 (8 cpu in a)
// waits, j5 (2 cpu in solo, 5 s) has finished.
std::string Scenario() {
  return std::string("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n---\n") +
         ClusterQueue("a", "all", "        borrowingLimit: \"2\"\n") +
         ClusterQueue("b", "all", "        lendingLimit: \"1\"\n") + ClusterQueue("solo", "", "") +
         Job("j1", "a", "2", "100s") + Job("j2", "b", "1", "100s") + Job("j3", "solo", "2", "100s") +
         Job("j4", "a", "8", "100s") + Job("j5", "solo", "2", "5s");
}

class InvariantsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto simulation = testing::SimulationFromYaml(Scenario(), {}, "invariants.yaml");
    ASSERT_TRUE(simulation.ok()) << simulation.status();
    sim_ = *std::move(simulation);
    sim::RunOptions options;
    options.until = 50 * kSecond;
    options.check_invariants = true;
    ASSERT_TRUE(sim_->Run(options).ok());
    ASSERT_EQ(Wl("ns/job-j1").phase, WorkloadPhase::kAdmitted);
    ASSERT_EQ(Wl("ns/job-j3").phase, WorkloadPhase::kAdmitted);
    ASSERT_EQ(Wl("ns/job-j4").phase, WorkloadPhase::kPending);
    ASSERT_EQ(Wl("ns/job-j5").phase, WorkloadPhase::kFinished);
  }

  // Test-only: the live state, to corrupt.
  ClusterState& State() { return sim_->clusters()[0]->mutable_state(); }
  WorkloadId Id(const std::string& key) {
    for (WorkloadId id = 0; id < State().num_workloads(); ++id) {
      if (State().workload(id).key == key) return id;
    }
    std::string keys;
    for (WorkloadId id = 0; id < State().num_workloads(); ++id) keys += State().workload(id).key + " ";
    ADD_FAILURE() << "no workload " << key << " among " << keys;
    return 0;
  }
  cluster::WorkloadRecord& Wl(const std::string& key) { return State().workload(Id(key)); }
  quota::FrId Cpu() { return State().FindFr(State().FindFlavor("default"), State().FindResource("cpu")); }
  quota::NodeId Node(const std::string& cq) { return State().cq(State().FindClusterQueue(cq)).node; }
  // Gives a workload `extra` more cpu, in its admission and in the quota
  // tree alike (the accounting stays right; only the limits may break).
  void Inflate(const std::string& key, Amount extra) {
    cluster::WorkloadRecord& wl = Wl(key);
    for (quota::FrAmount& u : wl.admission->usage) {
      if (u.fr == Cpu()) u.amount += extra;
    }
    const quota::NodeId node = State().cq(wl.admission->cq).node;
    if (extra >= 0) {
      State().tree().AddUsage(node, Cpu(), extra);
    } else {
      State().tree().RemoveUsage(node, Cpu(), -extra);
    }
  }
  absl::Status All() {
    absl::Status s = sim::CheckWorkloadStates(State(), "here");
    if (s.ok()) s = sim::CheckQuotaAccounting(State(), "here");
    return s;
  }

  std::unique_ptr<sim::Simulation> sim_;
};

TEST_F(InvariantsTest, CleanRunPasses) {
  EXPECT_TRUE(All().ok()) << All();
  for (const char* key : {"ns/job-j1", "ns/job-j2", "ns/job-j3"}) {
    EXPECT_TRUE(sim::CheckAdmissionFits(State(), Id(key), "here").ok()) << key;
  }
  ASSERT_NE(sim_->invariant_checker(), nullptr);
  EXPECT_GT(sim_->invariant_checker()->checks(), 3);
  // To the end: everything finishes and the quota is all given back.
  sim::RunOptions options;
  options.check_invariants = true;
  ASSERT_TRUE(sim_->Run(options).ok());
  EXPECT_TRUE(All().ok());
  for (quota::NodeId n = 0; n < State().tree().num_nodes(); ++n) EXPECT_EQ(State().tree().usage(n, Cpu()), 0);
}

// --- Quota accounting ---

TEST_F(InvariantsTest, ClusterQueueUsageOffTheWorkloadsIsCaught) {
  State().tree().AddUsage(Node("a"), Cpu(), 1000);
  EXPECT_THAT(std::string(All().message()),
              AllOf(HasSubstr("invariant violated: a ClusterQueue's usage equals the quota its workloads hold (here)"),
                    HasSubstr("ClusterQueue \"a\": usage of cpu of flavor default is 3, the workloads holding quota "
                              "add up to 2")));
}

TEST_F(InvariantsTest, CohortUsageOffItsMembersIsCaught) {
  State().tree().AddUsage(State().FindCohortNode("all"), Cpu(), 500);
  EXPECT_THAT(std::string(All().message()),
              AllOf(HasSubstr("a cohort's usage equals what its members use beyond their lending limits"),
                    HasSubstr("Cohort \"all\": usage of cpu of flavor default is 2500m, the workloads holding quota "
                              "add up to 2")));
}

TEST_F(InvariantsTest, NegativeUsageIsCaught) {
  Wl("ns/job-j2").admission->usage[0].amount = -1000;
  EXPECT_THAT(std::string(All().message()), AllOf(HasSubstr("usage is never negative"),
                                     HasSubstr("workload \"ns/job-j2\" holds -1 of cpu of flavor default in "
                                               "ClusterQueue \"b\"")));
}

// --- Workload states ---

TEST_F(InvariantsTest, WorkloadListedTwiceIsCaught) {
  State().cq(State().FindClusterQueue("a")).holding.push_back(Id("ns/job-j1"));
  EXPECT_THAT(std::string(All().message()), AllOf(HasSubstr("no workload holds quota twice"),
                                     HasSubstr("workload \"ns/job-j1\" is listed at position 1 of ClusterQueue \"a\"'s "
                                               "holders, its record says position 0")));
}

TEST_F(InvariantsTest, HolderWithoutQuotaIsCaught) {
  State().cq(State().FindClusterQueue("a")).holding.push_back(Id("ns/job-j4"));
  EXPECT_THAT(std::string(All().message()), AllOf(HasSubstr("a ClusterQueue lists only workloads that hold its quota"),
                                     HasSubstr("ClusterQueue \"a\" lists workload \"ns/job-j4\" (Pending), which holds "
                                               "no quota")));
}

TEST_F(InvariantsTest, QuotaHolderMissingFromItsClusterQueueIsCaught) {
  State().cq(State().FindClusterQueue("a")).holding.clear();
  EXPECT_THAT(std::string(All().message()), AllOf(HasSubstr("a workload that holds quota is listed once by its ClusterQueue"),
                                     HasSubstr("workload \"ns/job-j1\" holds quota in ClusterQueue \"a\" but is not "
                                               "among its 0 holders")));
}

TEST_F(InvariantsTest, PendingWorkloadHoldingQuotaIsCaught) {
  Wl("ns/job-j1").phase = WorkloadPhase::kPending;
  EXPECT_THAT(std::string(All().message()), AllOf(HasSubstr("a workload holds quota exactly when QuotaReserved or Admitted"),
                                     HasSubstr("workload \"ns/job-j1\" is Pending and holds quota in ClusterQueue "
                                               "\"a\"")));
}

TEST_F(InvariantsTest, AdmittedWorkloadWithoutQuotaIsCaught) {
  Wl("ns/job-j4").phase = WorkloadPhase::kAdmitted;
  Wl("ns/job-j4").queue_state = cluster::QueueState::kNotQueued;
  EXPECT_THAT(std::string(All().message()), AllOf(HasSubstr("a workload holds quota exactly when QuotaReserved or Admitted"),
                                     HasSubstr("workload \"ns/job-j4\" is Admitted and holds no quota")));
}

TEST_F(InvariantsTest, AdmittedAndQueuedIsCaught) {
  Wl("ns/job-j3").queue_state = cluster::QueueState::kQueued;
  EXPECT_THAT(std::string(All().message()), AllOf(HasSubstr("no workload is in two states"),
                                     HasSubstr("workload \"ns/job-j3\" holds quota in ClusterQueue \"solo\" and is "
                                               "queued")));
}

TEST_F(InvariantsTest, FinishedAndQueuedIsCaught) {
  Wl("ns/job-j5").queue_state = cluster::QueueState::kQueued;
  EXPECT_THAT(std::string(All().message()),
              AllOf(HasSubstr("no workload is in two states"), HasSubstr("workload \"ns/job-j5\" is Finished and queued")));
}

TEST_F(InvariantsTest, WorkloadLeftInFlightIsCaught) {
  Wl("ns/job-j4").queue_state = cluster::QueueState::kInflight;
  EXPECT_THAT(std::string(All().message()), AllOf(HasSubstr("no workload is left in flight between cycles"),
                                     HasSubstr("workload \"ns/job-j4\" (Pending) is still popped")));
}

TEST_F(InvariantsTest, AdmissionMissingAPodSetIsCaught) {
  Wl("ns/job-j1").admission->pod_sets.clear();
  EXPECT_THAT(std::string(All().message()), AllOf(HasSubstr("an admission covers every pod set"),
                                     HasSubstr("workload \"ns/job-j1\" has 1 pod sets, its admission 0")));
}

// --- Limits at admission ---

TEST_F(InvariantsTest, AdmissionOverNominalWithoutCohortIsCaught) {
  Inflate("ns/job-j3", 3000);
  EXPECT_TRUE(All().ok()) << All();  // the accounting itself is consistent
  EXPECT_THAT(std::string(sim::CheckAdmissionFits(State(), Id("ns/job-j3"), "here").message()),
              AllOf(HasSubstr("admission stays within nominal quota (no cohort)"),
                    HasSubstr("workload \"ns/job-j3\" reserved 5 of cpu of flavor default in ClusterQueue \"solo\": "
                              "usage 5 > nominal 4")));
}

TEST_F(InvariantsTest, AdmissionOverBorrowingLimitIsCaught) {
  Inflate("ns/job-j1", 5000);
  EXPECT_THAT(std::string(sim::CheckAdmissionFits(State(), Id("ns/job-j1"), "here").message()),
              AllOf(HasSubstr("admission stays within nominal quota + borrowingLimit"),
                    HasSubstr("ClusterQueue \"a\": usage 7 > nominal 4 + borrowingLimit 2")));
}

TEST_F(InvariantsTest, AdmissionIntoAnotherQueuesLendingLimitIsCaught) {
  // a may use its 4 and the 1 b lends: 5.5 is within a's borrowingLimit
  // (4 + 2) but takes 0.5 of what b's lendingLimit keeps to b.
  Inflate("ns/job-j1", 3500);
  EXPECT_THAT(std::string(sim::CheckAdmissionFits(State(), Id("ns/job-j1"), "here").message()),
              AllOf(HasSubstr("admission fits the cohort's quota"),
                    HasSubstr("workload \"ns/job-j1\" reserved 5500m of cpu of flavor default in ClusterQueue \"a\": "
                              "500m over what the ClusterQueue may use (usage 5500m)")));
  Inflate("ns/job-j1", -500);
  EXPECT_TRUE(All().ok()) << All();
  EXPECT_TRUE(sim::CheckAdmissionFits(State(), Id("ns/job-j1"), "here").ok())
      << sim::CheckAdmissionFits(State(), Id("ns/job-j1"), "here");
}

// Kueue admits into what a preempted workload still holds while its
// eviction completes (its fit test leaves the preemption targets out).
TEST_F(InvariantsTest, AdmissionIntoQuotaBeingEvictedPasses) {
  // j2 grows to 4 cpu in b: it takes the 1 cpu b lends, so a may use only
  // its own 4, and j1 at 5 is over by 1.
  Inflate("ns/job-j2", 3000);
  Inflate("ns/job-j1", 3000);
  EXPECT_THAT(std::string(sim::CheckAdmissionFits(State(), Id("ns/job-j1"), "here").message()),
              AllOf(HasSubstr("admission fits the cohort's quota"), HasSubstr("over what the ClusterQueue may use")));
  Wl("ns/job-j2").evicted = true;  // preempted; its quota is released when the eviction completes
  EXPECT_TRUE(sim::CheckAdmissionFits(State(), Id("ns/job-j1"), "here").ok())
      << sim::CheckAdmissionFits(State(), Id("ns/job-j1"), "here");
  Wl("ns/job-j2").evicted = false;
}

TEST_F(InvariantsTest, CheckerChecksEachReservation) {
  sim::InvariantChecker checker({&State()});
  Inflate("ns/job-j3", 3000);
  cluster::SimEvent event;
  event.type = cluster::EventType::kQuotaReserved;
  event.time = 50 * kSecond;
  event.cluster = &State();
  event.workload = Id("ns/job-j3");
  checker.OnEvent(event);
  EXPECT_THAT(std::string(checker.Check(50 * kSecond, "after cycle 9").message()),
              AllOf(HasSubstr("admission stays within nominal quota"),
                    HasSubstr("after cycle 9; last event: #1 QuotaReserved at 50.0 s workload \"ns/job-j3\"")));
}

// --- Time ---

TEST_F(InvariantsTest, EventTimeGoingBackIsCaught) {
  sim::InvariantChecker checker({&State()});
  cluster::SimEvent event;
  event.type = cluster::EventType::kArrived;
  event.time = 10 * kSecond;
  checker.OnEvent(event);
  event.time = 5 * kSecond;
  checker.OnEvent(event);
  EXPECT_THAT(std::string(checker.status().message()), AllOf(HasSubstr("event times never go back (event #2)"),
                                                HasSubstr("Arrived at 5.0 s comes after an event at 10.0 s")));
}

TEST_F(InvariantsTest, ClockGoingBackIsCaught) {
  sim::InvariantChecker checker({&State()});
  EXPECT_TRUE(checker.Check(10 * kSecond, "first").ok());
  EXPECT_THAT(std::string(checker.Check(9 * kSecond, "second").message()),
              AllOf(HasSubstr("simulated time never goes back (second)"),
                    HasSubstr("the clock reads 9.0 s after 10.0 s")));
}

// --- Through the simulation ---

TEST_F(InvariantsTest, RunStopsAtTheFirstViolation) {
  State().tree().AddUsage(Node("solo"), Cpu(), 1000);
  sim::RunOptions options;
  options.check_invariants = true;
  absl::Status status = sim_->Run(options);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("ClusterQueue \"solo\": usage of cpu"),
                    HasSubstr("after engine event #")));
  // It stopped there: j1..j3 (100 s) have not finished.
  EXPECT_EQ(sim_->now(), 100 * kSecond);
  EXPECT_EQ(Wl("ns/job-j3").phase, WorkloadPhase::kAdmitted);
}

TEST_F(InvariantsTest, OffChecksNothing) {
  auto simulation = testing::SimulationFromYaml(Scenario(), {}, "invariants.yaml");
  ASSERT_TRUE(simulation.ok());
  sim::RunOptions options;
  options.until = 50 * kSecond;
  ASSERT_TRUE((*simulation)->Run(options).ok());
  EXPECT_EQ((*simulation)->invariant_checker(), nullptr);
  ClusterState& state = (*simulation)->clusters()[0]->mutable_state();
  state.tree().AddUsage(state.cq(state.FindClusterQueue("solo")).node, Cpu(), 1000);
  EXPECT_TRUE((*simulation)->Run(sim::RunOptions{}).ok());
}

// --- LeaderWorkerSet groups ---

TEST_F(InvariantsTest, TwoLiveWorkloadsOfOneGroupAreCaught) {
  // j1 (Admitted) and j4 (Pending) as the Workloads of group 3 of the
  // first LeaderWorkerSet.
  for (const char* key : {"ns/job-j1", "ns/job-j4"}) {
    Wl(key).owner = 0;
    Wl(key).owner_index = 3;
  }
  EXPECT_THAT(std::string(sim::CheckOwnedWorkloads(State(), "here").message()),
              AllOf(HasSubstr("invariant violated: a LeaderWorkerSet group has at most one live Workload (here)"),
                    HasSubstr("group 3 of LeaderWorkerSet #0 has workload \"ns/job-j1\" (Admitted) and workload "
                              "\"ns/job-j4\" (Pending)")));
  // A finished Workload of the group does not count.
  Wl("ns/job-j4").owner = cluster::kNone;
  Wl("ns/job-j5").owner = 0;
  Wl("ns/job-j5").owner_index = 3;
  EXPECT_TRUE(sim::CheckOwnedWorkloads(State(), "here").ok());
  Wl("ns/job-j1").owner_index = -1;
  EXPECT_THAT(std::string(sim::CheckOwnedWorkloads(State(), "here").message()),
              HasSubstr("workload \"ns/job-j1\" (Admitted) has owner 0 and group index -1"));
}

// --- Topology-aware placements ---

// Two hosts (one rack) of 8 GPUs each, a TAS flavor over them, and a job of
// two pods of 8 GPUs each required in the rack: one pod per host.
std::string TasScenario() {
  return R"(apiVersion: kueuesim.io/v1alpha1
kind: NodePool
metadata: {name: n}
spec:
  count: 2
  namePattern: "n-{n}"
  levels: [{label: rack, count: 1, valuePattern: "r{i}"}]
  labels: {gpu: "yes"}
  allocatable: {cpu: 96, nvidia.com/gpu: 8, pods: 110}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: topo}
spec:
  levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: gpu}
spec: {nodeLabels: {gpu: "yes"}, topologyName: topo}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: gpu
      resources: [{name: nvidia.com/gpu, nominalQuota: "100"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: team, namespace: ml}
spec: {clusterQueue: team}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: big
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: team}
  annotations: {kueuesim.io/arrival: 0s, kueuesim.io/duration: 10h}
spec:
  parallelism: 2
  completions: 2
  template:
    metadata:
      annotations: {kueue.x-k8s.io/podset-required-topology: rack}
    spec:
      restartPolicy: Never
      containers:
      - name: c
        resources: {requests: {nvidia.com/gpu: "8"}}
)";
}

TEST(TopologyInvariantTest, PlacementsWithinAllocatablePassAndOverflowIsCaught) {
  auto simulation = testing::SimulationFromYaml(TasScenario(), {}, "tas.yaml");
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  sim::RunOptions options;
  options.until = 60 * kSecond;
  options.check_invariants = true;
  ASSERT_TRUE((*simulation)->Run(options).ok());
  ClusterState& state = (*simulation)->clusters()[0]->mutable_state();
  ASSERT_EQ(state.num_workloads(), 1);
  cluster::WorkloadRecord& wl = state.workload(0);
  ASSERT_EQ(wl.phase, WorkloadPhase::kAdmitted);
  ASSERT_TRUE(wl.admission->pod_sets[0].topology_assignment.has_value());
  model::TopologyAssignment& ta = *wl.admission->pod_sets[0].topology_assignment;
  ASSERT_EQ(ta.domains.size(), 2u);
  EXPECT_TRUE(sim::CheckTopologyPlacements(state, "here").ok()) << sim::CheckTopologyPlacements(state, "here");
  // Both pods on the first host: 16 GPUs on a node of 8.
  ta.domains[0].count = 2;
  const std::string first = ta.domains[0].values.back();
  ta.domains.pop_back();
  EXPECT_THAT(std::string(sim::CheckTopologyPlacements(state, "here").message()),
              AllOf(HasSubstr("invariant violated: topology-aware placements fit the nodes' allocatable (here)"),
                    HasSubstr("flavor gpu, domain "),
                    HasSubstr(fmt::format("kubernetes.io/hostname={0} (node {0})", first)),
                    HasSubstr("by ml/job-big request 16 of nvidia.com/gpu, the allocatable is 8")));
  // The same overfull placement held by the input (admitted in its exported
  // status, as in Kueue's own TAS tests) is the starting point, not a
  // decision of the run: not a violation.
  const auto from_input = [](cluster::WorkloadId id) { return id == 0; };
  EXPECT_TRUE(sim::CheckTopologyPlacements(state, "here", from_input).ok());
  const auto from_run = [](cluster::WorkloadId) { return false; };
  EXPECT_FALSE(sim::CheckTopologyPlacements(state, "here", from_run).ok());
}

}  // namespace
}  // namespace kueuesim
