// Why a workload does not fit, as Kueue words it: the message of the
// QuotaReserved=False condition (Assignment.Message) and its reason
// (Assignment.NoFitReason), pinned against the expectations of Kueue's
// pkg/scheduler/flavorassigner/flavorassigner_test.go (TestAssignFlavors) at
// ff69552e. Each test names the Kueue case it ports; the cluster queues,
// flavors (one: type=one, two: type=two, b_one: b_type=one, as the Kueue
// test defines them), usage and requests are the case's.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/cluster/pending_condition.h"
#include "kueuesim/flavor/flavor_assigner.h"
#include "testing/cluster_fixtures.h"
#include "testing/scenario_fixtures.h"

namespace kueuesim::flavor {
namespace {

using cluster::QuotaReservedReason;
using ::kueuesim::testing::BuildClusterState;
using ::kueuesim::testing::ClusterQueueYaml;
using ::kueuesim::testing::FlavorQuota;
using ::kueuesim::testing::ResourceFlavorYaml;
using ::kueuesim::testing::WorkloadOptions;
using ::kueuesim::testing::WorkloadYaml;

// Kueue's test flavors.
std::string KueueTestFlavors() {
  return ResourceFlavorYaml("default") + ResourceFlavorYaml("one", "  nodeLabels:\n    type: one\n") +
         ResourceFlavorYaml("two", "  nodeLabels:\n    type: two\n") +
         ResourceFlavorYaml("b_one", "  nodeLabels:\n    b_type: one\n") +
         ResourceFlavorYaml("b_two", "  nodeLabels:\n    b_type: two\n");
}

// Always answers "preemption possible" (Kueue's test oracle default).
class PreemptOracle : public PreemptionOracle {
 public:
  std::pair<PreemptionPossibility, int> SimulatePreemption(cluster::CqId, cluster::WorkloadId, FrId,
                                                           Amount) override {
    return {PreemptionPossibility::kPreempt, 0};
  }
};

class PendingReasonTest : public ::testing::Test {
 protected:
  void Build(const std::string& yaml) {
    auto state = BuildClusterState(KueueTestFlavors() + yaml);
    ASSERT_TRUE(state.ok()) << state.status();
    state_ = std::move(state).value();
  }
  // Usage held by workloads outside the test.
  void Use(const std::string& cq, const std::string& flavor, const std::string& resource, Amount amount) {
    const FrId fr = state_->FindFr(state_->FindFlavor(flavor), state_->FindResource(resource));
    state_->tree().AddUsage(state_->cq(state_->FindClusterQueue(cq)).node, fr, amount);
  }
  Assignment Assign(const std::string& cq = "test-clusterqueue") {
    PreemptOracle oracle;
    FlavorAssigner assigner(*state_, state_->FindClusterQueue(cq), state_->workload(0), 0, &oracle, nullptr, {});
    return assigner.Assign();
  }
  std::string Message(const Assignment& a) const { return a.Message(*state_, state_->workload(0)); }

  std::unique_ptr<cluster::ClusterState> state_;
};

std::string Wl(std::vector<std::pair<std::string, std::string>> requests, const std::string& pod_spec_extra = "",
               int count = 1) {
  WorkloadOptions o;
  o.requests = std::move(requests);
  o.pod_spec_extra = pod_spec_extra;
  o.count = count;
  return WorkloadYaml("wl", o);
}

// "single flavor, used resources, doesn't fit": Preempt, "1 more needed".
TEST_F(PendingReasonTest, SingleFlavorUsedResourcesDoesNotFit) {
  Build(ClusterQueueYaml("test-clusterqueue", {"cpu"}, {{"default", {"4"}, {}}}) + Wl({{"cpu", "2"}}));
  Use("test-clusterqueue", "default", "cpu", 3000);
  Assignment a = Assign();
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kPreempt);
  EXPECT_EQ(Message(a), "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
                        "default, 1 more needed");
  EXPECT_EQ(a.no_fit_reason, QuotaReservedReason::kNone);  // not NoFit
}

// "not enough space to borrow": NoFit, ExceedsMaxQuota; the other queue of
// the cohort lends nothing (lendingLimit 0).
TEST_F(PendingReasonTest, NotEnoughSpaceToBorrow) {
  Build(ClusterQueueYaml("test-clusterqueue", {"cpu"}, {{"one", {"1"}, {}}}, "  cohortName: test-cohort\n") +
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: test-secondary-clusterqueue\n"
        "spec:\n  namespaceSelector: {}\n  cohortName: test-cohort\n  resourceGroups:\n  - coveredResources: [cpu]\n"
        "    flavors:\n    - name: one\n      resources:\n      - name: cpu\n        nominalQuota: \"10\"\n"
        "        lendingLimit: \"0\"\n---\n" +
        Wl({{"cpu", "2"}}));
  Use("test-secondary-clusterqueue", "one", "cpu", 9000);
  Assignment a = Assign();
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_EQ(Message(a),
            "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor one, previously considered "
            "podsets requests (0) + current podset request (2) > maximum capacity (1)");
  EXPECT_EQ(a.no_fit_reason, QuotaReservedReason::kExceedsMaxQuota);
}

// "resource not listed in clusterQueue": NoFit, NoMatchingFlavor (no flavor
// was tried).
TEST_F(PendingReasonTest, ResourceNotListedInClusterQueue) {
  Build(ClusterQueueYaml("test-clusterqueue", {"cpu"}, {{"one", {"4"}, {}}}) + Wl({{"example.com/gpu", "2"}}));
  Assignment a = Assign();
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_EQ(Message(a), "couldn't assign flavors to pod set main: resource example.com/gpu unavailable in ClusterQueue");
  EXPECT_EQ(a.no_fit_reason, QuotaReservedReason::kNoMatchingFlavor);
}

// The node-affinity case of TestAssignFlavors (required affinity type In
// [three]): every flavor is skipped, NoMatchingFlavor, reasons sorted.
TEST_F(PendingReasonTest, NoFlavorMatchesNodeAffinity) {
  const std::string affinity =
      "        affinity:\n          nodeAffinity:\n            requiredDuringSchedulingIgnoredDuringExecution:\n"
      "              nodeSelectorTerms:\n              - matchExpressions:\n                - key: type\n"
      "                  operator: In\n                  values: [three]\n";
  Build(ClusterQueueYaml("test-clusterqueue", {"cpu"}, {{"one", {"4"}, {}}, {"two", {"4"}, {}}}) +
        Wl({{"cpu", "1"}}, affinity));
  Assignment a = Assign();
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_EQ(Message(a), "couldn't assign flavors to pod set main: flavor one doesn't match node affinity, flavor two "
                        "doesn't match node affinity");
  EXPECT_EQ(a.no_fit_reason, QuotaReservedReason::kNoMatchingFlavor);
}

// "can only preempt flavors that match affinity": Preempt in two; both
// reasons in the message.
TEST_F(PendingReasonTest, CanOnlyPreemptFlavorsThatMatchAffinity) {
  Build(ClusterQueueYaml("test-clusterqueue", {"cpu"}, {{"one", {"4"}, {}}, {"two", {"4"}, {}}}) +
        Wl({{"cpu", "2"}}, "        nodeSelector:\n          type: two\n"));
  Use("test-clusterqueue", "one", "cpu", 3000);
  Use("test-clusterqueue", "two", "cpu", 3000);
  Assignment a = Assign();
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kPreempt);
  EXPECT_EQ(Message(a), "couldn't assign flavors to pod set main: flavor one doesn't match node affinity, "
                        "insufficient unused quota for cpu in flavor two, 1 more needed");
}

// "multiple resource groups, one could fit with preemption, other doesn't
// fit": memory exceeds b_one's maximum: ExceedsMaxQuota, quantities in
// binary units as Kueue prints them.
TEST_F(PendingReasonTest, MultipleResourceGroupsOneDoesNotFit) {
  Build("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: test-clusterqueue\nspec:\n"
        "  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: one\n"
        "      resources:\n      - name: cpu\n        nominalQuota: \"3\"\n  - coveredResources: [memory]\n"
        "    flavors:\n    - name: b_one\n      resources:\n      - name: memory\n        nominalQuota: 1Mi\n---\n" +
        Wl({{"cpu", "3"}, {"memory", "10Mi"}}));
  Use("test-clusterqueue", "one", "cpu", 1000);
  Assignment a = Assign();
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_THAT(Message(a), ::testing::HasSubstr("insufficient quota for memory in flavor b_one, previously considered "
                                               "podsets requests (0) + current podset request (10Mi) > maximum "
                                               "capacity (1Mi)"));
  EXPECT_EQ(a.no_fit_reason, QuotaReservedReason::kExceedsMaxQuota);
}

// "multi-podset, one fits and another fails, fitting podset attempts skipped
// in resolveNoFitReason": only the blocking pod set is in the message; the
// previously considered request of the first pod set (1) is counted in
// flavor one.
TEST_F(PendingReasonTest, MultiPodSetOneFitsAnotherFails) {
  Build(ClusterQueueYaml("test-clusterqueue", {"cpu"}, {{"one", {"2"}, {}}, {"two", {"2"}, {}}}) +
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: wl\n  namespace: default\nspec:\n"
        "  queueName: q\n  podSets:\n  - name: fitting-podset\n    count: 1\n    template:\n      spec:\n"
        "        nodeSelector:\n          type: one\n        containers:\n        - name: c\n          resources:\n"
        "            requests:\n              cpu: \"1\"\n  - name: blocking-podset\n    count: 1\n    template:\n"
        "      spec:\n        containers:\n        - name: c\n          resources:\n            requests:\n"
        "              cpu: \"5\"\n---\n");
  Assignment a = Assign();
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_EQ(Message(a),
            "couldn't assign flavors to pod set blocking-podset: insufficient quota for cpu in flavor one, previously "
            "considered podsets requests (1) + current podset request (5) > maximum capacity (2), insufficient "
            "quota for cpu in flavor two, previously considered podsets requests (0) + current podset request (5) > "
            "maximum capacity (2)");
  EXPECT_EQ(a.no_fit_reason, QuotaReservedReason::kExceedsMaxQuota);
}

// A NoFit where only waiting helps: the request (6) exceeds the queue's
// nominal quota (4) and needs the lender's quota, which the lender uses
// within its own nominal quota: nothing to reclaim, no preemption while
// borrowing. fitsResourceQuota keeps WaitingForQuota when the oracle is not
// asked.
TEST_F(PendingReasonTest, WaitingForQuotaWhenNoPreemptionCanHelp) {
  Build(ClusterQueueYaml("test-clusterqueue", {"cpu"}, {{"default", {"4"}, {}}},
                         "  cohortName: c\n") +
        ClusterQueueYaml("lender", {"cpu"}, {{"default", {"4"}, {}}}, "  cohortName: c\n") + Wl({{"cpu", "6"}}));
  // The cohort has 8; the lender uses all of its 4.
  Use("lender", "default", "cpu", 4000);
  Assignment a = Assign();
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_EQ(Message(a), "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
                        "default, 2 more needed");
  EXPECT_EQ(a.no_fit_reason, QuotaReservedReason::kWaitingForQuota);
}

// The example "request > maximum capacity (2Gi > 1Gi)": memory in
// binary units.
TEST_F(PendingReasonTest, MemoryInBinaryUnits) {
  Build("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: test-clusterqueue\nspec:\n"
        "  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [memory]\n    flavors:\n    - name: b_one\n"
        "      resources:\n      - name: memory\n        nominalQuota: 1Gi\n---\n" +
        Wl({{"memory", "2Gi"}}));
  Assignment a = Assign();
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_EQ(Message(a), "couldn't assign flavors to pod set main: insufficient quota for memory in flavor b_one, "
                        "previously considered podsets requests (0) + current podset request (2Gi) > maximum "
                        "capacity (1Gi)");
  EXPECT_EQ(a.no_fit_reason, QuotaReservedReason::kExceedsMaxQuota);
}

// scheduler_test.go's taint case: taints print as Go prints a corev1.Taint
// ("{key val NoSchedule <nil>}"); NoMatchingFlavor.
TEST_F(PendingReasonTest, UntoleratedTaints) {
  Build(ResourceFlavorYaml("spot-tainted", "  nodeTaints:\n  - key: key\n    value: val\n    effect: NoSchedule\n") +
        ResourceFlavorYaml("spot-tainted-2", "  nodeTaints:\n  - key: key\n    value: val2\n    effect: NoSchedule\n") +
        ClusterQueueYaml("test-clusterqueue", {"cpu"}, {{"spot-tainted", {"5"}, {}}, {"spot-tainted-2", {"5"}, {}}}) +
        Wl({{"cpu", "1"}}));
  Assignment a = Assign();
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_EQ(Message(a), "couldn't assign flavors to pod set main: untolerated taint {key val NoSchedule <nil>} in "
                        "flavor spot-tainted, untolerated taint {key val2 NoSchedule <nil>} in flavor spot-tainted-2");
  EXPECT_EQ(a.no_fit_reason, QuotaReservedReason::kNoMatchingFlavor);
}

// With UnadmittedWorkloadsObservability off Kueue computes no NoFitReason.
TEST_F(PendingReasonTest, NoReasonWithObservabilityOff) {
  Build("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates:\n"
        "  UnadmittedWorkloadsObservability: false\n---\n" +
        ClusterQueueYaml("test-clusterqueue", {"cpu"}, {{"one", {"4"}, {}}}) + Wl({{"example.com/gpu", "2"}}));
  Assignment a = Assign();
  EXPECT_EQ(a.RepresentativeMode(), AssignmentMode::kNoFit);
  EXPECT_EQ(a.no_fit_reason, QuotaReservedReason::kNone);
}

}  // namespace
}  // namespace kueuesim::flavor
