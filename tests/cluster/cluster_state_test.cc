// Tests for kueuesim/cluster/cluster_state.h: ClusterState::Build from YAML
// (FR interning, the quota tree, inactive ClusterQueues), AddWorkload
// (effective requests, timestamps, hashes) and priority resolution
// (kueue-semantics.md §1.7).
#include "kueuesim/cluster/cluster_state.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/cluster_fixtures.h"
#include "testing/scenario_fixtures.h"
#include "testing/status_matchers.h"

namespace kueuesim::cluster {
namespace {

using ::kueuesim::testing::BuildClusterState;
using ::kueuesim::testing::ClusterQueueYaml;
using ::kueuesim::testing::IsOk;
using ::kueuesim::testing::LocalQueueYaml;
using ::kueuesim::testing::ResourceFlavorYaml;
using ::kueuesim::testing::StatusIs;
using ::kueuesim::testing::WorkloadOptions;
using ::kueuesim::testing::WorkloadYaml;
using ::testing::AllOf;
using ::testing::HasSubstr;

WorkloadId FindWorkload(const ClusterState& state, const std::string& key) {
  for (WorkloadId id = 0; id < state.num_workloads(); ++id) {
    if (state.workload(id).key == key) return id;
  }
  return kNone;
}

Amount PerPod(const ClusterState& state, const WorkloadRecord& wl, const std::string& resource,
              size_t pod_set = 0) {
  for (const auto& r : wl.pod_sets[pod_set].per_pod) {
    if (state.resource_name(r.resource) == resource) return r.amount;
  }
  return -1;
}

// Setup: flavors on-demand and spot; cq-a covers [cpu, memory] with both
// flavors (cpu 10/20, memory 10Gi/20Gi) and [nvidia.com/gpu] with accel
// (4), in cohort "pool" (implicit: no Cohort object); cq-b covers [cpu,
// pods] with spot (5 cpu, 10 pods) in the same cohort.
// Invariant: every (flavor, resource) is interned once (FindFr round-trips
// through fr_flavor/fr_resource); group tables map each resource to its
// group; "pods" exists and only cq-b covers it; the implicit cohort sums
// the members' nominal quota (spot cpu 20+5 = 25 cores).
TEST(ClusterStateBuildTest, InternsFlavorResourcesAndGroups) {
  const std::string yaml =
      ResourceFlavorYaml("on-demand") + ResourceFlavorYaml("spot") + ResourceFlavorYaml("accel") +
      ClusterQueueYaml("cq-a", {"cpu", "memory"},
                       {{"on-demand", {"10", "10Gi"}, {}}, {"spot", {"20", "20Gi"}, {}}},
                       "  cohortName: pool\n") +
      ClusterQueueYaml("cq-b", {"cpu", "pods"}, {{"spot", {"5", "10"}, {}}}, "  cohortName: pool\n");
  // Add a second resource group to cq-a by hand.
  std::string with_gpu = yaml;
  const std::string marker = "        nominalQuota: \"20Gi\"\n";
  with_gpu.insert(with_gpu.find(marker) + marker.size(),
                  "  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: accel\n"
                  "      resources:\n      - name: nvidia.com/gpu\n        nominalQuota: \"4\"\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state, BuildClusterState(with_gpu));
  const ResourceId cpu = state->FindResource("cpu");
  const ResourceId memory = state->FindResource("memory");
  const ResourceId gpu = state->FindResource("nvidia.com/gpu");
  const ResourceId pods = state->FindResource("pods");
  ASSERT_NE(cpu, kNone);
  ASSERT_NE(gpu, kNone);
  ASSERT_NE(pods, kNone);
  EXPECT_EQ(state->pods_resource(), pods);
  EXPECT_EQ(state->FindResource("ephemeral-storage"), kNone);
  const FlavorId od = state->FindFlavor("on-demand");
  const FlavorId spot = state->FindFlavor("spot");
  ASSERT_NE(od, kNone);
  EXPECT_TRUE(state->flavor(od).exists);
  ASSERT_NE(state->flavor(od).spec, nullptr);
  // Every FR of the quota holders, once.
  for (FlavorId f : {od, spot}) {
    for (ResourceId r : {cpu, memory}) {
      FrId fr = state->FindFr(f, r);
      ASSERT_NE(fr, kNone);
      EXPECT_EQ(state->fr_flavor(fr), f);
      EXPECT_EQ(state->fr_resource(fr), r);
    }
  }
  const FlavorId accel = state->FindFlavor("accel");
  EXPECT_NE(state->FindFr(accel, gpu), kNone);
  EXPECT_EQ(state->FindFr(od, gpu), kNone);
  EXPECT_NE(state->FindFr(spot, pods), kNone);
  EXPECT_EQ(state->tree().num_frs(), 6);  // od/cpu od/mem spot/cpu spot/mem accel/gpu spot/pods

  const CqId a = state->FindClusterQueue("cq-a");
  const CqId b = state->FindClusterQueue("cq-b");
  ASSERT_NE(a, kNone);
  const ClusterQueueInfo& info = state->cq(a);
  ASSERT_EQ(info.groups.size(), 2u);
  EXPECT_EQ(info.GroupOf(cpu), 0);
  EXPECT_EQ(info.GroupOf(memory), 0);
  EXPECT_EQ(info.GroupOf(gpu), 1);
  EXPECT_EQ(info.GroupOf(pods), kNone);
  EXPECT_EQ(info.GroupOf(kNone), kNone);
  EXPECT_EQ(info.groups[0].Fr(1, 0), state->FindFr(spot, cpu));
  EXPECT_EQ(info.groups[0].Fr(0, 1), state->FindFr(od, memory));
  EXPECT_FALSE(info.covers_pods);
  EXPECT_TRUE(state->cq(b).covers_pods);
  EXPECT_TRUE(info.active);
  EXPECT_EQ(state->CqOfNode(info.node), a);
  const quota::QuotaTree& tree = state->tree();
  ASSERT_TRUE(tree.has_parent(info.node));
  const NodeId pool = tree.parent(info.node);
  EXPECT_EQ(tree.name(pool), "pool");
  EXPECT_EQ(state->CqOfNode(pool), kNone);
  EXPECT_EQ(tree.subtree_quota(pool, state->FindFr(spot, cpu)), 25000);
  EXPECT_EQ(tree.subtree_quota(pool, state->FindFr(od, memory)), 10LL * 1024 * 1024 * 1024);
  EXPECT_EQ(tree.quota(info.node, state->FindFr(accel, gpu)).nominal, 4);
}

// Setup: cq-missing names flavor "ghost" (no ResourceFlavor); cq-held has
// stopPolicy Hold; cq-check names a missing AdmissionCheck; cq-inactive-check
// names an AdmissionCheck whose Active condition is False; cq-ok is normal.
// Invariant: the first four are inactive with a reason naming the cause;
// cq-ok is active.
TEST(ClusterStateBuildTest, InactiveClusterQueueReasons) {
  const std::string yaml =
      ResourceFlavorYaml("default") +
      ClusterQueueYaml("cq-missing", {"cpu"}, {{"ghost", {"1"}, {}}}) +
      ClusterQueueYaml("cq-held", {"cpu"}, {{"default", {"1"}, {}}}, "  stopPolicy: Hold\n") +
      ClusterQueueYaml("cq-check", {"cpu"}, {{"default", {"1"}, {}}}, "  admissionChecks: [prov]\n") +
      ClusterQueueYaml("cq-inactive-check", {"cpu"}, {{"default", {"1"}, {}}},
                       "  admissionChecksStrategy:\n    admissionChecks: [{name: sleepy}]\n") +
      ClusterQueueYaml("cq-ok", {"cpu"}, {{"default", {"1"}, {}}}) + R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: sleepy}
spec: {controllerName: example.com/check}
status:
  conditions: [{type: Active, status: "False"}]
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state, BuildClusterState(yaml));
  auto cq = [&](const char* name) -> const ClusterQueueInfo& { return state->cq(state->FindClusterQueue(name)); };
  EXPECT_FALSE(cq("cq-missing").active);
  EXPECT_THAT(cq("cq-missing").inactive_reason, HasSubstr("ghost"));
  EXPECT_FALSE(state->flavor(state->FindFlavor("ghost")).exists);
  EXPECT_FALSE(cq("cq-held").active);
  EXPECT_THAT(cq("cq-held").inactive_reason, HasSubstr("stopped"));
  EXPECT_FALSE(cq("cq-check").active);
  EXPECT_THAT(cq("cq-check").inactive_reason, HasSubstr("prov"));
  EXPECT_FALSE(cq("cq-inactive-check").active);
  EXPECT_THAT(cq("cq-inactive-check").inactive_reason, HasSubstr("sleepy"));
  EXPECT_TRUE(cq("cq-ok").active);
  EXPECT_EQ(cq("cq-ok").inactive_reason, "");
}

// Setup: LocalQueues ns/lq -> cq and ns/dangling -> missing; a Namespace
// object "labelled" with team=a. Invariant: LocalQueues resolve to their CQ
// or kNone; namespaces named only by a LocalQueue exist with the
// kubernetes.io/metadata.name label; the Namespace object keeps its labels.
TEST(ClusterStateBuildTest, LocalQueuesAndNamespaces) {
  const std::string yaml = ResourceFlavorYaml("default") +
                           ClusterQueueYaml("cq", {"cpu"}, {{"default", {"1"}, {}}}) +
                           LocalQueueYaml("ns", "lq", "cq") + LocalQueueYaml("ns", "dangling", "missing") +
                           "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: labelled\n  labels: {team: a}\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state, BuildClusterState(yaml));
  const LqId lq = state->FindLocalQueue("ns", "lq");
  ASSERT_NE(lq, kNone);
  EXPECT_EQ(state->lq(lq).cq, state->FindClusterQueue("cq"));
  const LqId dangling = state->FindLocalQueue("ns", "dangling");
  ASSERT_NE(dangling, kNone);
  EXPECT_EQ(state->lq(dangling).cq, kNone);
  EXPECT_EQ(state->FindLocalQueue("other", "lq"), kNone);
  const NamespaceInfo& ns = state->namespace_info(state->lq(lq).ns);
  EXPECT_EQ(ns.name, "ns");
  EXPECT_TRUE(ns.exists);
  EXPECT_EQ(ns.labels.at("kubernetes.io/metadata.name"), "ns");
  const NamespaceId labelled = state->FindOrAddNamespace("labelled");
  EXPECT_EQ(state->namespace_info(labelled).labels.at("team"), "a");
  EXPECT_EQ(state->namespace_info(labelled).labels.at("kubernetes.io/metadata.name"), "labelled");
}

constexpr char kPriorityObjects[] = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: wpc-high}
value: 500
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: pod-high}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: default-a}
value: 50
globalDefault: true
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: default-b}
value: 40
globalDefault: true
---
)";

std::string Job(const std::string& name, const std::string& labels, const std::string& pod_class) {
  std::string out = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name +
                    "\n  namespace: ns\n  labels:\n    kueue.x-k8s.io/queue-name: q\n" + labels +
                    "spec:\n  template:\n    spec:\n";
  if (!pod_class.empty()) out += "      priorityClassName: " + pod_class + "\n";
  return out + "      containers: [{name: c}]\n---\n";
}

// Setup: WPC wpc-high 500, PriorityClasses pod-high 1000 and two global
// defaults (50 and 40), and workloads: a Workload with spec.priority 7 and a
// WPC ref (spec.priority wins: 7); a Workload with only a WPC ref (500); a
// plain Workload (0: no global default for Workload objects); Jobs with the
// priority-class label (500), with a pod priorityClassName (1000), and with
// neither (the lowest global default, 40).
TEST(PriorityResolutionTest, SpecPriorityWpcPodClassGlobalDefault) {
  WorkloadOptions explicit_priority;
  explicit_priority.set_priority = true;
  explicit_priority.priority = 7;
  explicit_priority.pod_set_extra = "";
  std::string yaml = kPriorityObjects;
  std::string w1 = WorkloadYaml("explicit", explicit_priority);
  w1.insert(w1.find("  podSets:"), "  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: wpc-high}\n");
  std::string w2 = WorkloadYaml("by-ref");
  w2.insert(w2.find("  podSets:"), "  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: wpc-high}\n");
  yaml += w1 + w2 + WorkloadYaml("plain") +
          Job("labelled", "    kueue.x-k8s.io/priority-class: wpc-high\n", "pod-high") +
          Job("pod-class", "", "pod-high") + Job("nothing", "", "");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state, BuildClusterState(yaml));
  auto priority = [&](const std::string& key) {
    WorkloadId id = FindWorkload(*state, key);
    EXPECT_NE(id, kNone) << key;
    return id == kNone ? -12345 : state->workload(id).priority;
  };
  EXPECT_EQ(priority("default/explicit"), 7);
  EXPECT_EQ(priority("default/by-ref"), 500);
  EXPECT_EQ(priority("default/plain"), 0);
  EXPECT_EQ(priority("ns/job-labelled"), 500);
  EXPECT_EQ(priority("ns/job-pod-class"), 1000);
  EXPECT_EQ(priority("ns/job-nothing"), 40);
}

// Setup: a WorkloadPriorityClass named "default" (value 5) exists, the gate
// WorkloadPriorityClassDefaulting is on (default), and a Job has no
// priority-class label but a pod priorityClassName pod-high (1000); another
// Job has neither, with global-default PriorityClasses present (40).
// Invariant (Kueue jobframework ApplyDefaultWorkloadPriorityClass: the
// webhook labels the Job with kueue.x-k8s.io/priority-class: default before
// ExtractPriority, which reads the label first): both Jobs get 5.
TEST(PriorityResolutionTest, DefaultWorkloadPriorityClassBeatsPodAndGlobalDefault) {
  std::string yaml = std::string(kPriorityObjects) +
                     "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: default}\n"
                     "value: 5\n---\n" +
                     Job("pod-class", "", "pod-high") + Job("nothing", "", "");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state, BuildClusterState(yaml));
  EXPECT_EQ(state->workload(FindWorkload(*state, "ns/job-pod-class")).priority, 5);
  EXPECT_EQ(state->workload(FindWorkload(*state, "ns/job-nothing")).priority, 5);
}

// Setup: the "default" WPC (5), no global default PriorityClass, a Job with
// neither label nor pod class; then the same with the gate turned off.
// Invariant: 5 with the gate on; 0 with WorkloadPriorityClassDefaulting
// false.
TEST(PriorityResolutionTest, DefaultWorkloadPriorityClassFollowsGate) {
  const std::string wpc =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: default}\nvalue: 5\n---\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto on, BuildClusterState(wpc + Job("j", "", "")));
  EXPECT_EQ(on->workload(0).priority, 5);
  const std::string gate_off =
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates:\n"
      "  WorkloadPriorityClassDefaulting: false\n---\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto off, BuildClusterState(gate_off + wpc + Job("j", "", "")));
  EXPECT_EQ(off->workload(0).priority, 0);
}

// Setup: a workload with creationTimestamp, one without (arrival 90s), start
// time 2025-06-01T00:00:00Z. Invariant: creation/queue-order timestamp is
// creationTimestamp, else start + arrival; arrival and duration are copied.
TEST(ClusterStateWorkloadTest, CreationTimestampAndArrival) {
  WorkloadOptions stamped;
  stamped.creation = "2025-05-31T23:00:00Z";
  WorkloadOptions late;
  late.arrival = "90s";
  late.duration = "10m";
  const std::string yaml =
      "apiVersion: kueuesim.io/v1alpha1\nkind: Simulation\nmetadata: {name: s}\n"
      "spec: {startTime: \"2025-06-01T00:00:00Z\"}\n---\n" +
      WorkloadYaml("stamped", stamped) + WorkloadYaml("late", late);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state, BuildClusterState(yaml));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(UnixMicros start, ParseRfc3339("2025-06-01T00:00:00Z"));
  EXPECT_EQ(state->start_time(), start);
  const WorkloadRecord& s = state->workload(FindWorkload(*state, "default/stamped"));
  EXPECT_EQ(s.creation, start - kHour);
  EXPECT_EQ(s.queue_order_timestamp, start - kHour);
  const WorkloadRecord& l = state->workload(FindWorkload(*state, "default/late"));
  EXPECT_EQ(l.creation, start + 90 * kSecond);
  EXPECT_EQ(l.arrival, 90 * kSecond);
  EXPECT_EQ(l.duration, 10 * kMinute);
  EXPECT_EQ(l.phase, WorkloadPhase::kNotArrived);
  EXPECT_EQ(state->WallTime(5), start + 5);
}

// Setup: Configuration excludeResourcePrefixes [example.com/] and
// transformations: nvidia.com/mig-1g.5gb -> example.org/accel-memory 5Gi per
// unit (Replace), cpu -> example.org/credits 2 per cpu (Retain). A pod
// requests cpu 500m, memory 1Gi, example.com/ignored 3, mig 2.
// Invariant: example.com/ignored is dropped; mig is replaced by 10Gi of
// accel-memory; cpu stays 500m and adds 1 credit; per-pod requests are
// sorted by name.
TEST(ClusterStateWorkloadTest, ExcludedPrefixesAndTransformations) {
  const std::string config = R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  excludeResourcePrefixes: [example.com/]
  transformations:
  - input: nvidia.com/mig-1g.5gb
    strategy: Replace
    outputs: {example.org/accel-memory: 5Gi}
  - input: cpu
    strategy: Retain
    outputs: {example.org/credits: "2"}
---
)";
  WorkloadOptions o;
  o.requests = {{"cpu", "500m"}, {"memory", "1Gi"}, {"example.com/ignored", "3"}, {"nvidia.com/mig-1g.5gb", "2"}};
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state, BuildClusterState(config + WorkloadYaml("w", o)));
  const WorkloadRecord& wl = state->workload(0);
  EXPECT_EQ(PerPod(*state, wl, "cpu"), 500);
  EXPECT_EQ(PerPod(*state, wl, "memory"), 1LL << 30);
  EXPECT_EQ(PerPod(*state, wl, "example.com/ignored"), -1);
  EXPECT_EQ(PerPod(*state, wl, "nvidia.com/mig-1g.5gb"), -1);
  EXPECT_EQ(PerPod(*state, wl, "example.org/accel-memory"), 10LL << 30);
  EXPECT_EQ(PerPod(*state, wl, "example.org/credits"), 1);
  std::vector<std::string> names;
  for (const auto& r : wl.pod_sets[0].per_pod) names.push_back(state->resource_name(r.resource));
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

// Setup: workloads a and b with the same shape and priority, c with a
// different cpu request, d with a different priority, e with minCount.
// Invariant: the scheduling-equivalence hash is equal for a and b, differs
// for c and d, never 0; minCount < count marks e partially admissible with
// min_count 2.
TEST(ClusterStateWorkloadTest, SchedulingHashAndPartialAdmission) {
  WorkloadOptions base;
  base.count = 4;
  WorkloadOptions c = base;
  c.requests = {{"cpu", "2"}};
  WorkloadOptions d = base;
  d.set_priority = true;
  d.priority = 3;
  WorkloadOptions e = base;
  e.min_count = 2;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state, BuildClusterState(WorkloadYaml("a", base) + WorkloadYaml("b", base) +
                                                              WorkloadYaml("c", c) + WorkloadYaml("d", d) +
                                                              WorkloadYaml("e", e)));
  auto hash = [&](const char* key) { return state->workload(FindWorkload(*state, key)).scheduling_hash; };
  EXPECT_EQ(hash("default/a"), hash("default/b"));
  EXPECT_NE(hash("default/a"), hash("default/c"));
  EXPECT_NE(hash("default/a"), hash("default/d"));
  EXPECT_NE(hash("default/a"), 0u);
  const WorkloadRecord& we = state->workload(FindWorkload(*state, "default/e"));
  EXPECT_TRUE(we.partially_admissible);
  EXPECT_EQ(we.pod_sets[0].count, 4);
  EXPECT_EQ(we.pod_sets[0].min_count, 2);
  const WorkloadRecord& wa = state->workload(FindWorkload(*state, "default/a"));
  EXPECT_FALSE(wa.partially_admissible);
  EXPECT_EQ(wa.pod_sets[0].min_count, 4);
}

// Setup: workload "or" with required node affinity of two terms [{zone In
// [a]}, {zone In [b]}] (zone a OR b) and "and" with one term {zone In [a],
// zone In [b]} (matches nothing); otherwise identical. Invariant (Kueue's
// computeSchedulingHash hashes the whole affinity): their scheduling hashes
// differ, since one can fit where the other cannot; an equal hash would let
// a NoFit of "and" bulk-park "or".
TEST(ClusterStateWorkloadTest, SchedulingHashKeepsAffinityTermBoundaries) {
  WorkloadOptions or_terms;
  or_terms.pod_spec_extra =
      "        affinity:\n          nodeAffinity:\n            requiredDuringSchedulingIgnoredDuringExecution:\n"
      "              nodeSelectorTerms:\n"
      "              - matchExpressions: [{key: zone, operator: In, values: [a]}]\n"
      "              - matchExpressions: [{key: zone, operator: In, values: [b]}]\n";
  WorkloadOptions and_terms;
  and_terms.pod_spec_extra =
      "        affinity:\n          nodeAffinity:\n            requiredDuringSchedulingIgnoredDuringExecution:\n"
      "              nodeSelectorTerms:\n"
      "              - matchExpressions: [{key: zone, operator: In, values: [a]}, "
      "{key: zone, operator: In, values: [b]}]\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state,
                                BuildClusterState(WorkloadYaml("or", or_terms) + WorkloadYaml("and", and_terms)));
  EXPECT_NE(state->workload(FindWorkload(*state, "default/or")).scheduling_hash,
            state->workload(FindWorkload(*state, "default/and")).scheduling_hash);
}

// Setup: workloads tolerating taint key "spot" (Exists) with effect
// NoSchedule and with effect NoExecute; otherwise identical. Invariant
// (Kueue hashes the full tolerations): the hashes differ, since only the
// first tolerates a spot:NoSchedule flavor.
TEST(ClusterStateWorkloadTest, SchedulingHashIncludesTolerationEffect) {
  WorkloadOptions no_schedule;
  no_schedule.pod_spec_extra = "        tolerations: [{key: spot, operator: Exists, effect: NoSchedule}]\n";
  WorkloadOptions no_execute;
  no_execute.pod_spec_extra = "        tolerations: [{key: spot, operator: Exists, effect: NoExecute}]\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state, BuildClusterState(WorkloadYaml("ns", no_schedule) +
                                                              WorkloadYaml("ne", no_execute)));
  EXPECT_NE(state->workload(FindWorkload(*state, "default/ns")).scheduling_hash,
            state->workload(FindWorkload(*state, "default/ne")).scheduling_hash);
}

// Setup: a state built from one workload, then the same spec added again.
// Invariant: AddWorkload refuses the duplicate key with InvalidArgument
// naming the workload.
TEST(ClusterStateWorkloadTest, DuplicateWorkloadIsRejected) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state, BuildClusterState(WorkloadYaml("w")));
  auto again = state->AddWorkload(state->workload(0).spec);
  EXPECT_THAT(again, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("default/w")));
  EXPECT_EQ(state->num_workloads(), 1);
}

// Setup: 300 workloads added one by one (the record table grows and the
// key index rehashes many times), with short keys (kept inside the record's
// string) and long ones (on the heap); then copies of some of them, and a
// released one added again.
// Invariant: the index refuses every duplicate key whatever the table's
// growth moved, accepts new keys, and forgets a released workload's key
// (its slot's next occupant may reuse it) while still refusing the others.
TEST(ClusterStateWorkloadTest, DuplicatesAreFoundAcrossGrowthAndRelease) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state, BuildClusterState(WorkloadYaml("w")));
  const std::shared_ptr<const model::Workload> w = state->workload(0).spec;
  auto named = [&](const std::string& name) {
    auto wl = std::make_shared<model::Workload>(*w);
    wl->meta.name = name;
    return std::shared_ptr<const model::Workload>(std::move(wl));
  };
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) {
    names.push_back(i % 2 == 0 ? "s" + std::to_string(i) : "a-rather-long-workload-name-" + std::to_string(i));
    ASSERT_THAT(state->AddWorkload(named(names.back())), IsOk());
  }
  ASSERT_EQ(state->live_workloads(), 301);
  for (const std::string& name : {names[0], names[1], names[150], names[299], std::string("w")}) {
    EXPECT_THAT(state->AddWorkload(named(name)),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("default/" + name + "\": duplicate")))
        << name;
  }
  const WorkloadId released = FindWorkload(*state, "default/" + names[7]);
  ASSERT_NE(released, kNone);
  state->ReleaseWorkload(released);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(WorkloadId again, state->AddWorkload(named(names[7])));
  EXPECT_EQ(again, released);
  EXPECT_THAT(state->AddWorkload(named(names[7])), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("duplicate workload")));
  EXPECT_THAT(state->AddWorkload(named(names[8])), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("duplicate workload")));
  EXPECT_THAT(state->AddWorkload(named("fresh")), IsOk());
  EXPECT_EQ(state->live_workloads(), 302);
}

// Setup: a transformation cpu -> example.org/credits 9E per cpu (Retain);
// workload w asks for 1m cpu. A copy named "big" asks for 2 cpu, whose
// credits overflow int64.
// Invariant: AddWorkload refuses "big", naming it; the record slot it took
// is given back (no half-built record is live and the next workload takes
// that slot); a released slot is taken again with a newer run generation,
// so that its previous occupant's timed events never match.
TEST(ClusterStateWorkloadTest, RecordSlotsAreGivenBackAndReused) {
  const std::string config = R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  transformations:
  - input: cpu
    strategy: Retain
    outputs: {example.org/credits: 9E}
---
)";
  WorkloadOptions o;
  o.requests = {{"cpu", "1m"}};
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto state, BuildClusterState(config + WorkloadYaml("w", o)));
  ASSERT_EQ(state->live_workloads(), 1);
  const std::shared_ptr<const model::Workload> w = state->workload(0).spec;
  auto copy_named = [&](const std::string& name) {
    auto wl = std::make_shared<model::Workload>(*w);
    wl->meta.name = name;
    return wl;
  };
  auto big = copy_named("big");
  big->pod_sets[0].requests = {{"cpu", 2000}};
  EXPECT_THAT(state->AddWorkload(big), StatusIs(absl::StatusCode::kInvalidArgument,
                                                AllOf(HasSubstr("default/big"), HasSubstr("overflows"))));
  EXPECT_EQ(state->live_workloads(), 1);
  EXPECT_EQ(FindWorkload(*state, "default/big"), kNone);

  KUEUESIM_ASSERT_OK_AND_ASSIGN(WorkloadId next, state->AddWorkload(copy_named("next")));
  EXPECT_EQ(next, 1);
  EXPECT_EQ(state->workload(next).key, "default/next");
  EXPECT_EQ(state->live_workloads(), 2);

  const uint32_t generation = state->workload(0).run_generation;
  state->ReleaseWorkload(0);
  EXPECT_EQ(state->live_workloads(), 1);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(WorkloadId again, state->AddWorkload(copy_named("again")));
  EXPECT_EQ(again, 0);
  EXPECT_EQ(state->workload(again).key, "default/again");
  EXPECT_GT(state->workload(again).run_generation, generation);
  EXPECT_EQ(state->num_workloads(), 2);
}

// Invariant: LastAssignmentState: PendingFlavors iff some stored index is
// not -1; NextFlavorToTry is index + 1, 0 for unknown pod sets/resources.
TEST(LastAssignmentStateTest, PendingFlavorsAndNextFlavor) {
  LastAssignmentState s;
  EXPECT_FALSE(s.PendingFlavors());
  s.last_tried_flavor_idx = {{{0, -1}, {1, -1}}};
  EXPECT_FALSE(s.PendingFlavors());
  EXPECT_EQ(s.NextFlavorToTry(0, 0), 0);
  s.last_tried_flavor_idx.push_back({{0, 1}});
  EXPECT_TRUE(s.PendingFlavors());
  EXPECT_EQ(s.NextFlavorToTry(1, 0), 2);
  EXPECT_EQ(s.NextFlavorToTry(1, 5), 0);
  EXPECT_EQ(s.NextFlavorToTry(7, 0), 0);
}

}  // namespace
}  // namespace kueuesim::cluster
