// Tests for kueuesim/flavor/flavor_assigner.h on small states built from
// YAML: flavor order, taints and node labels, quota and borrowing, flavor
// fungibility (whenCanBorrow, whenCanPreempt, preference), several resource
// groups, the "pods" resource, undeclared resources, the scan cursor, and
// the partial-admission search (ported from Kueue podset_reducer_test.go
// TestSearch). Usage held by other workloads is put directly in the quota
// tree; preemption goes through a fake PreemptionOracle.
#include "kueuesim/flavor/flavor_assigner.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/cluster_fixtures.h"
#include "testing/scenario_fixtures.h"
#include "testing/status_matchers.h"

namespace kueuesim::flavor {
namespace {

using cluster::ClusterState;
using cluster::CqId;
using cluster::WorkloadId;
using ::kueuesim::testing::BuildClusterState;
using ::kueuesim::testing::ClusterQueueYaml;
using ::kueuesim::testing::LocalQueueYaml;
using ::kueuesim::testing::ResourceFlavorYaml;
using ::kueuesim::testing::WorkloadOptions;
using ::kueuesim::testing::WorkloadYaml;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Answers every preemption question with a fixed possibility and records
// the questions (cq, workload, fr, quantity).
class FakeOracle : public PreemptionOracle {
 public:
  explicit FakeOracle(PreemptionPossibility answer, int borrow = 0) : answer_(answer), borrow_(borrow) {}
  std::pair<PreemptionPossibility, int> SimulatePreemption(cluster::CqId cq, cluster::WorkloadId workload,
                                                           FrId fr, Amount quantity) override {
    calls.emplace_back(cq, workload, fr, quantity);
    return {answer_, borrow_};
  }
  std::vector<std::tuple<cluster::CqId, cluster::WorkloadId, FrId, Amount>> calls;

 private:
  PreemptionPossibility answer_;
  int borrow_;
};

// A built state plus lookups by name.
class AssignerTest : public ::testing::Test {
 protected:
  void Build(const std::string& yaml) {
    auto state = BuildClusterState(yaml);
    ASSERT_TRUE(state.ok()) << state.status();
    state_ = std::move(state).value();
  }
  CqId Cq(const std::string& name) const { return state_->FindClusterQueue(name); }
  FlavorId Flavor(const std::string& name) const { return state_->FindFlavor(name); }
  ResourceId Res(const std::string& name) const { return state_->FindResource(name); }
  FrId Fr(const std::string& flavor, const std::string& resource) const {
    return state_->FindFr(Flavor(flavor), Res(resource));
  }
  WorkloadId Wl(const std::string& name) const {
    for (WorkloadId id = 0; id < state_->num_workloads(); ++id) {
      if (state_->workload(id).key == "default/" + name) return id;
    }
    return cluster::kNone;
  }
  // Usage held in `cq` by workloads outside the test.
  void Use(const std::string& cq, const std::string& flavor, const std::string& resource, Amount amount) {
    state_->tree().AddUsage(state_->cq(Cq(cq)).node, Fr(flavor, resource), amount);
  }
  Assignment Assign(const std::string& cq, const std::string& workload, PreemptionOracle* oracle = nullptr,
                    const std::vector<int32_t>* counts = nullptr, FlavorAssignerOptions options = {}) {
    WorkloadId id = Wl(workload);
    EXPECT_NE(id, cluster::kNone) << workload;
    FlavorAssigner assigner(*state_, Cq(cq), state_->workload(id), id, oracle, nullptr, options);
    return assigner.Assign(counts);
  }
  // The flavor name of `resource` in pod set 0, or "" when unassigned.
  std::string FlavorOf(const Assignment& a, const std::string& resource, size_t pod_set = 0) const {
    if (pod_set >= a.pod_sets.size()) return "";
    const ResourceFlavorAssignment* f = a.pod_sets[pod_set].FlavorFor(Res(resource));
    return f == nullptr ? "" : state_->flavor(f->flavor).name;
  }
  Amount UsageOf(const Assignment& a, const std::string& flavor, const std::string& resource) const {
    for (const auto& u : a.usage) {
      if (u.fr == Fr(flavor, resource)) return u.amount;
    }
    return 0;
  }

  std::unique_ptr<ClusterState> state_;
};

std::string Workload(const std::string& name, const std::string& cpu, int count = 1,
                     const std::string& pod_spec_extra = "") {
  WorkloadOptions o;
  o.requests = {{"cpu", cpu}};
  o.count = count;
  o.pod_spec_extra = pod_spec_extra;
  return WorkloadYaml(name, o);
}

// Setup: cq with flavors [small (cpu 4), big (cpu 10)]; workloads of 2 and 6
// cpu. Invariant: 2 cpu fits in the first flavor (Fit, borrowing 0, usage
// small/cpu 2000m, cursor at index 0); 6 cpu exceeds small's maximum (4) and
// lands in big, the last flavor (cursor -1: the scan reached the end).
TEST_F(AssignerTest, FitsInFirstFlavorThatHasRoom) {
  Build(ResourceFlavorYaml("small") + ResourceFlavorYaml("big") +
        ClusterQueueYaml("cq", {"cpu"}, {{"small", {"4"}, {}}, {"big", {"10"}, {}}}) +
        Workload("two", "2") + Workload("six", "6"));
  Assignment two = Assign("cq", "two");
  EXPECT_EQ(two.RepresentativeMode(), AssignmentMode::kFit);
  EXPECT_EQ(FlavorOf(two, "cpu"), "small");
  EXPECT_EQ(two.borrowing, 0);
  EXPECT_EQ(UsageOf(two, "small", "cpu"), 2000);
  EXPECT_EQ(two.Message(*state_, state_->workload(Wl("two"))), "");
  ASSERT_EQ(two.last_state.last_tried_flavor_idx.size(), 1u);
  EXPECT_THAT(two.last_state.last_tried_flavor_idx[0], ElementsAre(std::make_pair(Res("cpu"), 0)));
  Assignment six = Assign("cq", "six");
  EXPECT_EQ(six.RepresentativeMode(), AssignmentMode::kFit);
  EXPECT_EQ(FlavorOf(six, "cpu"), "big");
  EXPECT_EQ(UsageOf(six, "big", "cpu"), 6000);
  EXPECT_THAT(six.last_state.last_tried_flavor_idx[0], ElementsAre(std::make_pair(Res("cpu"), -1)));
  EXPECT_FALSE(six.last_state.PendingFlavors());
}

// Setup: cq [small (cpu 4)] alone; 3 cpu already used; a 2-cpu workload (no
// preemption possible: nominal 4 >= 2 but no oracle) and a 6-cpu workload.
// Invariant: 2 cpu -> Preempt mode with "insufficient unused quota ... 1
// more needed"; 6 cpu -> NoFit "... > maximum capacity (4)".
TEST_F(AssignerTest, QuotaMessages) {
  Build(ResourceFlavorYaml("small") + ClusterQueueYaml("cq", {"cpu"}, {{"small", {"4"}, {}}}) +
        Workload("two", "2") + Workload("six", "6"));
  Use("cq", "small", "cpu", 3000);
  Assignment two = Assign("cq", "two");
  EXPECT_EQ(two.RepresentativeMode(), AssignmentMode::kPreempt);
  EXPECT_THAT(two.Message(*state_, state_->workload(Wl("two"))),
              HasSubstr("insufficient unused quota for cpu in flavor small, 1 more needed"));
  Assignment six = Assign("cq", "six");
  EXPECT_EQ(six.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_THAT(six.Message(*state_, state_->workload(Wl("six"))),
              HasSubstr("couldn't assign flavors to pod set main: insufficient quota for cpu in flavor small, "
                        "previously considered podsets requests (0) + current podset request (6) > maximum "
                        "capacity (4)"));
}

// Setup: flavors tainted (taint spot=true:NoSchedule) and plain, in that
// order; a workload without tolerations, and one tolerating spot. Invariant:
// the taint skips the first flavor for the first workload (plain); the
// tolerating one gets tainted; with only the tainted flavor, the message
// names the untolerated taint. A PreferNoSchedule taint is ignored.
TEST_F(AssignerTest, TaintSkipsFlavor) {
  const std::string flavors =
      ResourceFlavorYaml("tainted", "  nodeTaints: [{key: spot, value: \"true\", effect: NoSchedule}]\n") +
      ResourceFlavorYaml("plain") +
      ResourceFlavorYaml("soft", "  nodeTaints: [{key: x, effect: PreferNoSchedule}]\n");
  Build(flavors + ClusterQueueYaml("cq", {"cpu"}, {{"tainted", {"10"}, {}}, {"plain", {"10"}, {}}}) +
        ClusterQueueYaml("only-tainted", {"cpu"}, {{"soft", {"0"}, {}}, {"tainted", {"10"}, {}}}) +
        Workload("intolerant", "1") +
        Workload("tolerant", "1", 1, "        tolerations: [{key: spot, operator: Exists}]\n"));
  EXPECT_EQ(FlavorOf(Assign("cq", "intolerant"), "cpu"), "plain");
  EXPECT_EQ(FlavorOf(Assign("cq", "tolerant"), "cpu"), "tainted");
  Assignment none = Assign("only-tainted", "intolerant");
  EXPECT_EQ(none.RepresentativeMode(), AssignmentMode::kNoFit);
  const std::string message = none.Message(*state_, state_->workload(Wl("intolerant")));
  EXPECT_THAT(message, HasSubstr("untolerated taint {spot true NoSchedule <nil>} in flavor tainted"));
  // The soft flavor was checked for quota (not skipped for its taint).
  EXPECT_THAT(message, HasSubstr("flavor soft"));
}

// Setup: flavor "zone-a" labelled zone=a and "zone-b" labelled zone=b; a
// workload with nodeSelector zone: b and one with an unrelated selector
// (disk: ssd). Invariant: the selector skips zone-a for the first; keys the
// flavors do not have are ignored, so the second gets zone-a.
TEST_F(AssignerTest, NodeSelectorMatchesFlavorLabels) {
  Build(ResourceFlavorYaml("zone-a", "  nodeLabels: {zone: a}\n") +
        ResourceFlavorYaml("zone-b", "  nodeLabels: {zone: b}\n") +
        ClusterQueueYaml("cq", {"cpu"}, {{"zone-a", {"10"}, {}}, {"zone-b", {"10"}, {}}}) +
        Workload("wants-b", "1", 1, "        nodeSelector: {zone: b}\n") +
        Workload("ssd", "1", 1, "        nodeSelector: {disk: ssd}\n"));
  EXPECT_EQ(FlavorOf(Assign("cq", "wants-b"), "cpu"), "zone-b");
  EXPECT_EQ(FlavorOf(Assign("cq", "ssd"), "cpu"), "zone-a");
}

// Cohort "c": cq (flavors a cpu 2, b cpu 10) and lender (flavor a cpu 10).
// A 4-cpu workload fits in a only by borrowing (level 1) and in b without.
std::string BorrowingSetup(const std::string& fungibility) {
  return ResourceFlavorYaml("a") + ResourceFlavorYaml("b") +
         ClusterQueueYaml("cq", {"cpu"}, {{"a", {"2"}, {}}, {"b", {"10"}, {}}},
                          "  cohortName: c\n" + fungibility) +
         ClusterQueueYaml("lender", {"cpu"}, {{"a", {"10"}, {}}}, "  cohortName: c\n") + Workload("four", "4");
}

// Setup: BorrowingSetup with the default fungibility (whenCanBorrow
// MayStopSearch). Invariant: the search stops at a, borrowing level 1 (the
// cohort's height), mode Fit, usage a/cpu 4000m.
TEST_F(AssignerTest, MayStopSearchTakesBorrowingFlavor) {
  Build(BorrowingSetup(""));
  Assignment a = Assign("cq", "four");
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kFit);
  EXPECT_EQ(FlavorOf(a, "cpu"), "a");
  EXPECT_EQ(a.borrowing, 1);
  EXPECT_EQ(UsageOf(a, "a", "cpu"), 4000);
}

// Setup: BorrowingSetup with whenCanBorrow: TryNextFlavor. Invariant: a is
// noted (borrowing) but b, which fits without borrowing, is preferred:
// flavor b, borrowing 0.
TEST_F(AssignerTest, TryNextFlavorAvoidsBorrowing) {
  Build(BorrowingSetup("  flavorFungibility: {whenCanBorrow: TryNextFlavor}\n"));
  Assignment a = Assign("cq", "four");
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kFit);
  EXPECT_EQ(FlavorOf(a, "cpu"), "b");
  EXPECT_EQ(a.borrowing, 0);
}

// Setup: TryNextFlavor, but b already has 9 of 10 cpu used. Invariant: b
// cannot take 4 (it could only by preemption, which the null oracle
// refuses: no candidates), so the best flavor seen, a with borrowing, wins.
TEST_F(AssignerTest, TryNextFlavorFallsBackToBorrowing) {
  Build(BorrowingSetup("  flavorFungibility: {whenCanBorrow: TryNextFlavor}\n"));
  Use("cq", "b", "cpu", 9000);
  Assignment a = Assign("cq", "four");
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kFit);
  EXPECT_EQ(FlavorOf(a, "cpu"), "a");
  EXPECT_EQ(a.borrowing, 1);
}

// Setup: cq flavors [a cpu 4 (fully used), b cpu 4 (free)], no cohort; a
// 2-cpu workload; an oracle answering Preempt. Invariant: a needs
// preemption (nominal 4 >= 2, so the oracle is asked for (cq, a/cpu, 2000));
// the default whenCanPreempt TryNextFlavor moves on to b, which fits; with
// whenCanPreempt MayStopSearch the search stops at a in Preempt mode, and
// FrsNeedingPreemption lists a/cpu.
TEST_F(AssignerTest, WhenCanPreempt) {
  const std::string flavors = ResourceFlavorYaml("a") + ResourceFlavorYaml("b");
  Build(flavors + ClusterQueueYaml("try", {"cpu"}, {{"a", {"4"}, {}}, {"b", {"4"}, {}}}) +
        ClusterQueueYaml("stop", {"cpu"}, {{"a", {"4"}, {}}, {"b", {"4"}, {}}},
                         "  flavorFungibility: {whenCanPreempt: MayStopSearch}\n") +
        Workload("two", "2"));
  Use("try", "a", "cpu", 4000);
  Use("stop", "a", "cpu", 4000);
  FakeOracle oracle(PreemptionPossibility::kPreempt);
  Assignment tried = Assign("try", "two", &oracle);
  EXPECT_EQ(tried.RepresentativeMode(), AssignmentMode::kFit);
  EXPECT_EQ(FlavorOf(tried, "cpu"), "b");
  ASSERT_EQ(oracle.calls.size(), 1u);
  EXPECT_EQ(oracle.calls[0], std::make_tuple(Cq("try"), Wl("two"), Fr("a", "cpu"), Amount{2000}));
  Assignment stopped = Assign("stop", "two", &oracle);
  EXPECT_EQ(stopped.RepresentativeMode(), AssignmentMode::kPreempt);
  EXPECT_EQ(FlavorOf(stopped, "cpu"), "a");
  EXPECT_THAT(stopped.FrsNeedingPreemption(*state_), ElementsAre(Fr("a", "cpu")));
  // Without an oracle there are no candidates: try the next flavor even
  // with MayStopSearch.
  Assignment no_oracle = Assign("stop", "two");
  EXPECT_EQ(FlavorOf(no_oracle, "cpu"), "b");
}

// Setup: cohort c; cq (both fungibility policies TryNextFlavor) has flavor a
// (cpu 4, all used by itself: preemption possible, level 0) then b (cpu 0;
// the lender has b cpu 10: fits only by borrowing, level 1); the oracle
// answers Preempt. Invariant: default preference (and
// BorrowingOverPreemption) compares the mode first: b (Fit, borrowing) wins;
// PreemptionOverBorrowing compares borrowing first: a (Preempt, level 0).
TEST_F(AssignerTest, FungibilityPreference) {
  auto setup = [](const std::string& preference) {
    return ResourceFlavorYaml("a") + ResourceFlavorYaml("b") +
           ClusterQueueYaml("cq", {"cpu"}, {{"a", {"4"}, {}}, {"b", {"0"}, {}}},
                            "  cohortName: c\n  flavorFungibility: {whenCanBorrow: TryNextFlavor, "
                            "whenCanPreempt: TryNextFlavor" +
                                preference + "}\n") +
           ClusterQueueYaml("lender", {"cpu"}, {{"b", {"10"}, {}}}, "  cohortName: c\n") + Workload("two", "2");
  };
  for (const std::string& preference : {std::string(""), std::string(", preference: BorrowingOverPreemption")}) {
    SCOPED_TRACE(preference);
    Build(setup(preference));
    Use("cq", "a", "cpu", 4000);
    FakeOracle oracle(PreemptionPossibility::kPreempt);
    Assignment a = Assign("cq", "two", &oracle);
    EXPECT_EQ(FlavorOf(a, "cpu"), "b");
    EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kFit);
    EXPECT_EQ(a.borrowing, 1);
  }
  Build(setup(", preference: PreemptionOverBorrowing"));
  Use("cq", "a", "cpu", 4000);
  FakeOracle oracle(PreemptionPossibility::kPreempt);
  Assignment a = Assign("cq", "two", &oracle);
  EXPECT_EQ(FlavorOf(a, "cpu"), "a");
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kPreempt);
  EXPECT_EQ(a.borrowing, 0);
}

// Setup: the §3.5 tree as manifests (cores): cohort R; cohort A (parent R)
// with a1 (10, lendingLimit 4, usage 8) and a2 (6); b (10, borrowingLimit 5,
// usage 12) in R. A 7-cpu workload in a2 with the null oracle, then with an
// oracle answering Reclaim. Invariant: 7 > available 6 but <= potential 20;
// nominal 6 < 7 yet mayReclaim (A has a parent) makes the assigner ask the
// oracle for 7000m; NoCandidates -> Preempt mode (no targets), Reclaim ->
// Preempt mode too, with the oracle's borrowing level.
TEST_F(AssignerTest, WorkedExampleAsksOracleThroughMayReclaim) {
  const std::string yaml = ResourceFlavorYaml("f") + R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: A}
spec: {parentName: R}
---
)" + ClusterQueueYaml("a1", {"cpu"}, {{"f", {"10"}, {}}}, "  cohortName: A\n") +
                           ClusterQueueYaml("a2", {"cpu"}, {{"f", {"6"}, {}}}, "  cohortName: A\n") +
                           ClusterQueueYaml("b", {"cpu"}, {{"f", {"10"}, {"5"}}}, "  cohortName: R\n") +
                           Workload("seven", "7");
  std::string with_lending = yaml;
  const std::string a1_quota = "        nominalQuota: \"10\"\n";
  with_lending.insert(with_lending.find(a1_quota) + a1_quota.size(), "        lendingLimit: \"4\"\n");
  Build(with_lending);
  Use("a1", "f", "cpu", 8000);
  Use("b", "f", "cpu", 12000);
  const quota::QuotaTree& tree = state_->tree();
  const quota::NodeId a2 = state_->cq(Cq("a2")).node;
  EXPECT_EQ(tree.Available(a2, Fr("f", "cpu")), 6000);
  EXPECT_EQ(tree.PotentialAvailable(a2, Fr("f", "cpu")), 20000);
  Assignment none = Assign("a2", "seven");
  EXPECT_EQ(none.RepresentativeMode(), AssignmentMode::kPreempt);
  EXPECT_EQ(none.borrowing, 1);
  FakeOracle oracle(PreemptionPossibility::kReclaim, 1);
  Assignment reclaim = Assign("a2", "seven", &oracle);
  ASSERT_EQ(oracle.calls.size(), 1u);
  EXPECT_EQ(std::get<3>(oracle.calls[0]), 7000);
  EXPECT_EQ(reclaim.RepresentativeMode(), AssignmentMode::kPreempt);
  EXPECT_EQ(FlavorOf(reclaim, "cpu"), "f");
  EXPECT_EQ(reclaim.borrowing, 1);
}

// Setup: cohort c (the root) with x (cpu 2) and y (cpu 10, all 10 used); a
// 3-cpu workload in x: available 2, potential 12, nominal 2 < 3, and the
// lowest subtree that fits is none (mayReclaim false: c has no parent).
// Invariant: preemption is not considered: NoFit (WaitingForQuota), and the
// oracle is never asked.
TEST_F(AssignerTest, NoPreemptionWhenBorrowingAtRoot) {
  Build(ResourceFlavorYaml("f") + ClusterQueueYaml("x", {"cpu"}, {{"f", {"2"}, {}}}, "  cohortName: c\n") +
        ClusterQueueYaml("y", {"cpu"}, {{"f", {"10"}, {}}}, "  cohortName: c\n") + Workload("three", "3"));
  Use("y", "f", "cpu", 10000);
  EXPECT_EQ(state_->tree().Available(state_->cq(Cq("x")).node, Fr("f", "cpu")), 2000);
  FakeOracle oracle(PreemptionPossibility::kPreempt);
  Assignment a = Assign("x", "three", &oracle);
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_THAT(oracle.calls, IsEmpty());
}

// Setup: cq with resource groups {cpu, memory: flavors x (cpu 10, memory
// 1Gi), y (cpu 10, memory 8Gi)} and {nvidia.com/gpu: flavors g1 (0), g2
// (4)}; a workload of 2 pods each cpu 1, memory 2Gi, gpu 1. Invariant: cpu
// and memory get the same flavor (y: x lacks memory); gpu is assigned
// independently (g2); usage y/cpu 2000m, y/memory 4Gi, g2/gpu 2.
TEST_F(AssignerTest, MultipleResourceGroups) {
  const std::string cq = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - {name: x, resources: [{name: cpu, nominalQuota: "10"}, {name: memory, nominalQuota: 1Gi}]}
    - {name: y, resources: [{name: cpu, nominalQuota: "10"}, {name: memory, nominalQuota: 8Gi}]}
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - {name: g1, resources: [{name: nvidia.com/gpu, nominalQuota: "0"}]}
    - {name: g2, resources: [{name: nvidia.com/gpu, nominalQuota: "4"}]}
---
)";
  WorkloadOptions o;
  o.count = 2;
  o.requests = {{"cpu", "1"}, {"memory", "2Gi"}, {"nvidia.com/gpu", "1"}};
  Build(ResourceFlavorYaml("x") + ResourceFlavorYaml("y") + ResourceFlavorYaml("g1") + ResourceFlavorYaml("g2") +
        cq + WorkloadYaml("w", o));
  Assignment a = Assign("cq", "w");
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kFit);
  EXPECT_EQ(FlavorOf(a, "cpu"), "y");
  EXPECT_EQ(FlavorOf(a, "memory"), "y");
  EXPECT_EQ(FlavorOf(a, "nvidia.com/gpu"), "g2");
  EXPECT_EQ(UsageOf(a, "y", "cpu"), 2000);
  EXPECT_EQ(UsageOf(a, "y", "memory"), 4LL << 30);
  EXPECT_EQ(UsageOf(a, "g2", "nvidia.com/gpu"), 2);
  EXPECT_EQ(UsageOf(a, "x", "cpu"), 0);
}

// Setup: cq-pods covers [cpu, pods] (cpu 10, pods 3); cq-plain covers only
// cpu; a workload of 3 pods x 1 cpu and one of 4 pods. Invariant: when the
// CQ covers "pods", pods = count is added to the request (usage pods 3);
// 4 pods exceed the pods quota (NoFit); without coverage there is no pods
// request at all.
TEST_F(AssignerTest, PodsResourceAddedWhenCovered) {
  Build(ResourceFlavorYaml("f") + ClusterQueueYaml("cq-pods", {"cpu", "pods"}, {{"f", {"10", "3"}, {}}}) +
        ClusterQueueYaml("cq-plain", {"cpu"}, {{"f", {"10"}, {}}}) + Workload("three", "1", 3) +
        Workload("four", "1", 4));
  Assignment three = Assign("cq-pods", "three");
  EXPECT_EQ(three.RepresentativeMode(), AssignmentMode::kFit);
  EXPECT_EQ(UsageOf(three, "f", "pods"), 3);
  EXPECT_EQ(UsageOf(three, "f", "cpu"), 3000);
  ASSERT_EQ(three.pod_sets.size(), 1u);
  EXPECT_EQ(three.pod_sets[0].count, 3);
  EXPECT_EQ(FlavorOf(three, "pods"), "f");
  Assignment four = Assign("cq-pods", "four");
  EXPECT_EQ(four.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_THAT(four.Message(*state_, state_->workload(Wl("four"))), HasSubstr("insufficient quota for pods"));
  Assignment plain = Assign("cq-plain", "three");
  EXPECT_EQ(plain.RepresentativeMode(), AssignmentMode::kFit);
  EXPECT_EQ(FlavorOf(plain, "pods"), "");
  ASSERT_EQ(plain.usage.size(), 1u);
}

// Setup: cq covers cpu only; a workload asking cpu 1 + nvidia.com/gpu 1, and
// one asking cpu 1 + gpu 0. Invariant: a non-zero request for an uncovered
// resource is NoFit "resource nvidia.com/gpu unavailable in ClusterQueue";
// a zero request is ignored; with quotaCheckStrategy IgnoreUndeclared the
// first workload fits on cpu alone.
TEST_F(AssignerTest, UndeclaredResources) {
  WorkloadOptions gpu;
  gpu.requests = {{"cpu", "1"}, {"nvidia.com/gpu", "1"}};
  WorkloadOptions zero;
  zero.requests = {{"cpu", "1"}, {"nvidia.com/gpu", "0"}};
  const std::string objects = ResourceFlavorYaml("f") + ClusterQueueYaml("cq", {"cpu"}, {{"f", {"10"}, {}}}) +
                              WorkloadYaml("gpu", gpu) + WorkloadYaml("zero", zero);
  Build(objects);
  Assignment a = Assign("cq", "gpu");
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_THAT(a.Message(*state_, state_->workload(Wl("gpu"))),
              HasSubstr("resource nvidia.com/gpu unavailable in ClusterQueue"));
  EXPECT_EQ(Assign("cq", "zero").RepresentativeMode(), AssignmentMode::kFit);
  Build("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
        "resources: {quotaCheckStrategy: IgnoreUndeclared}\n---\n" +
        objects);
  Assignment ignored = Assign("cq", "gpu");
  EXPECT_EQ(ignored.RepresentativeMode(), AssignmentMode::kFit);
  EXPECT_EQ(FlavorOf(ignored, "cpu"), "f");
}

// Setup: cq flavors [a, b, c] (cpu 10 each); the workload's cursor says a
// was tried last for cpu (index 0). Invariant: with FlavorFungibility on the
// scan starts at b (index 1); with the gate off the cursor is ignored (a).
TEST_F(AssignerTest, ScanCursorResumesAfterLastTriedFlavor) {
  const std::string objects =
      ResourceFlavorYaml("a") + ResourceFlavorYaml("b") + ResourceFlavorYaml("c") +
      ClusterQueueYaml("cq", {"cpu"}, {{"a", {"10"}, {}}, {"b", {"10"}, {}}, {"c", {"10"}, {}}}) + Workload("w", "1");
  Build(objects);
  cluster::LastAssignmentState cursor;
  cursor.last_tried_flavor_idx = {{{Res("cpu"), 0}}};
  state_->workload(Wl("w")).last_assignment = cursor;
  Assignment a = Assign("cq", "w");
  EXPECT_EQ(FlavorOf(a, "cpu"), "b");
  EXPECT_THAT(a.last_state.last_tried_flavor_idx[0], ElementsAre(std::make_pair(Res("cpu"), 1)));
  Build("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates: {FlavorFungibility: false}\n"
        "---\n" +
        objects);
  state_->workload(Wl("w")).last_assignment = cursor;
  EXPECT_EQ(FlavorOf(Assign("cq", "w"), "cpu"), "a");
}

// Setup: cq (cpu 4) and a workload of 6 pods x 1 cpu with minCount 2,
// assigned at explicit counts. Invariant: Assign(counts) scales the request
// by the given count: 4 pods fit (usage 4000m, count 4), 5 do not.
TEST_F(AssignerTest, AssignAtReducedCounts) {
  WorkloadOptions o;
  o.count = 6;
  o.min_count = 2;
  Build(ResourceFlavorYaml("f") + ClusterQueueYaml("cq", {"cpu"}, {{"f", {"4"}, {}}}) + WorkloadYaml("w", o));
  EXPECT_EQ(Assign("cq", "w").RepresentativeMode(), AssignmentMode::kNoFit);
  const std::vector<int32_t> four = {4};
  Assignment a = Assign("cq", "w", nullptr, &four);
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kFit);
  EXPECT_EQ(a.pod_sets[0].count, 4);
  EXPECT_EQ(UsageOf(a, "f", "cpu"), 4000);
  const std::vector<int32_t> five = {5};
  EXPECT_EQ(Assign("cq", "w", nullptr, &five).RepresentativeMode(), AssignmentMode::kNoFit);
  // The search over counts finds 4 against this quota.
  auto counts = SearchPartialAdmissionCounts({6}, {2}, [&](const std::vector<int32_t>& c) {
    return Assign("cq", "w", nullptr, &c).RepresentativeMode() == AssignmentMode::kFit;
  });
  ASSERT_TRUE(counts.has_value());
  EXPECT_THAT(*counts, ElementsAre(4));
}

// --- SearchPartialAdmissionCounts, ported from Kueue TestSearch ---

struct SearchCase {
  std::string name;
  std::vector<int32_t> counts;
  std::vector<int32_t> min_counts;
  int64_t limit;
  bool want_found;
  int64_t want_total;
};

// Setup (each case): pod sets with counts and minCounts; `fits` accepts when
// the total pod count is <= the limit. Invariant: the search returns the
// largest counts (on Kueue's index scale) that fit: totals 15, 19, 10, 20,
// 150000, 150000; nothing when no pod set can shrink or nothing fits.
TEST(SearchPartialAdmissionCountsTest, KueueTestSearchCases) {
  const std::vector<int32_t> big(8, 150000);
  std::vector<int32_t> max_pods = {150000, 1, 1, 1, 1, 1, 1, 1};
  const std::vector<SearchCase> cases = {
      {"empty", {}, {}, 10, false, 0},
      {"partial not available", {1, 2}, {1, 2}, 2, false, 0},
      {"partial available", {5, 5, 5, 5}, {3, 4, 1, 2}, 15, true, 15},
      {"one partial available", {5, 5, 5, 5}, {3, 5, 5, 5}, 19, true, 19},
      {"to min", {5, 5, 5, 5}, {3, 4, 1, 2}, 10, true, 10},
      {"to max", {5, 5, 5, 5}, {3, 4, 1, 2}, 20, true, 20},
      {"no overflow", big, std::vector<int32_t>(8, 1), 150000, true, 150000},
      {"max pods on 1.27", max_pods, std::vector<int32_t>{1, 1, 1, 1, 1, 1, 1, 1}, 150000, true, 150000},
      {"podset with replica count 0", {0}, {0}, 0, false, 0},
      {"below min", {5, 5}, {4, 4}, 7, false, 0},
  };
  for (const SearchCase& c : cases) {
    SCOPED_TRACE(c.name);
    int calls = 0;
    auto result = SearchPartialAdmissionCounts(c.counts, c.min_counts, [&](const std::vector<int32_t>& counts) {
      ++calls;
      int64_t total = 0;
      for (size_t i = 0; i < counts.size(); ++i) {
        EXPECT_LE(counts[i], c.counts[i]);
        EXPECT_GE(counts[i], c.min_counts[i]);
        total += counts[i];
      }
      return total <= c.limit;
    });
    EXPECT_EQ(result.has_value(), c.want_found);
    int64_t total = 0;
    if (result.has_value()) {
      for (int32_t v : *result) total += v;
    }
    EXPECT_EQ(total, c.want_total);
    EXPECT_LE(calls, 22);  // binary search: ~log2(total delta + 1) probes
  }
}

// Setup: counts {10, 4} with minCounts {2, 4} (delta 8 + 0), fits iff the
// first count <= 7. Invariant: index i gives counts 10 - floor(8 i / 8);
// the smallest accepted index is 3 -> {7, 4}; the pod set without slack
// keeps its count.
TEST(SearchPartialAdmissionCountsTest, ProportionalReduction) {
  std::vector<std::vector<int32_t>> probes;
  auto result = SearchPartialAdmissionCounts({10, 4}, {2, 4}, [&](const std::vector<int32_t>& c) {
    probes.push_back(c);
    return c[0] <= 7;
  });
  ASSERT_TRUE(result.has_value());
  EXPECT_THAT(*result, ElementsAre(7, 4));
  for (const auto& p : probes) EXPECT_EQ(p[1], 4);
}

// Setup: counts {6, 6}, minCounts {3, 1}: deltas 3 and 5, D = 8; fits iff
// the total is <= 4. Invariant: each pod set shrinks by floor(delta * i /
// D), so only i = 8 ({3, 1}, the minimum counts) fits, and that is the
// answer.
TEST(SearchPartialAdmissionCountsTest, ReachesMinimumCounts) {
  auto result = SearchPartialAdmissionCounts({6, 6}, {3, 1}, [](const std::vector<int32_t>& c) {
    return c[0] + c[1] <= 4;
  });
  ASSERT_TRUE(result.has_value());
  EXPECT_THAT(*result, ElementsAre(3, 1));
}

}  // namespace
}  // namespace kueuesim::flavor
