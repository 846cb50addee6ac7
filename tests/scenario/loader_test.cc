// Tests for kueuesim/scenario/scenario.h (LoadScenarioStrings) on valid
// input: v1beta1 and v1beta2 spellings, defaults, the Job integration,
// effective pod requests, timing annotations, kind: List, clusters, unknown
// kinds and warnings.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/time.h"
#include "kueuesim/scenario/default_durations.h"
#include "kueuesim/scenario/scenario.h"
#include "testing/scenario_fixtures.h"
#include "testing/status_matchers.h"

namespace kueuesim::scenario {
namespace {

using ::kueuesim::testing::IsOk;
using ::kueuesim::testing::LoadYaml;
using ::kueuesim::testing::StatusIs;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

Amount RequestOf(const model::PodSet& ps, const std::string& resource) {
  for (const auto& r : ps.requests) {
    if (r.name == resource) return r.amount;
  }
  return -1;
}

constexpr char kV1beta1Cq[] = R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: old
spec:
  cohort: shared
  flavorFungibility:
    whenCanBorrow: Borrow
    whenCanPreempt: Preempt
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: "4"
        borrowingLimit: "2"
)";

constexpr char kV1beta2Cq[] = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: new
spec:
  cohortName: shared
  flavorFungibility:
    whenCanBorrow: TryNextFlavor
    whenCanPreempt: MayStopSearch
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 1500m
)";

// Setup: a v1beta1 ClusterQueue (cohort, whenCanBorrow: Borrow,
// whenCanPreempt: Preempt) and a v1beta2 one (cohortName, TryNextFlavor /
// MayStopSearch). Invariant: both name cohort "shared"; Borrow and Preempt
// are read as MayStopSearch; quotas are canonical (4 cpu = 4000m, 2 -> 2000m,
// 1500m).
TEST(ScenarioLoaderTest, V1beta1AndV1beta2FieldNames) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(std::string(kV1beta1Cq) + "---\n" + kV1beta2Cq));
  ASSERT_EQ(s.clusters.size(), 1u);
  const auto& cqs = s.clusters[0].cluster_queues;
  ASSERT_EQ(cqs.size(), 2u);
  EXPECT_EQ(cqs[0].cohort, "shared");
  EXPECT_EQ(cqs[0].flavor_fungibility.when_can_borrow, model::FungibilityPolicy::kMayStopSearch);
  EXPECT_EQ(cqs[0].flavor_fungibility.when_can_preempt, model::FungibilityPolicy::kMayStopSearch);
  EXPECT_EQ(cqs[0].resource_groups[0].flavors[0].resources[0].nominal_quota, 4000);
  EXPECT_EQ(cqs[0].resource_groups[0].flavors[0].resources[0].borrowing_limit, 2000);
  EXPECT_EQ(cqs[1].cohort, "shared");
  EXPECT_EQ(cqs[1].flavor_fungibility.when_can_borrow, model::FungibilityPolicy::kTryNextFlavor);
  EXPECT_EQ(cqs[1].flavor_fungibility.when_can_preempt, model::FungibilityPolicy::kMayStopSearch);
  EXPECT_EQ(cqs[1].resource_groups[0].flavors[0].resources[0].nominal_quota, 1500);
}

// Setup: a v1beta2 ClusterQueue using the v1beta1 field `cohort`.
// Invariant: InvalidArgument naming the file, the object and spec.cohort.
TEST(ScenarioLoaderTest, V1beta2RejectsV1beta1CohortField) {
  std::string yaml = kV1beta2Cq;
  yaml.replace(yaml.find("cohortName"), 10, "cohort");
  EXPECT_THAT(LoadYaml(yaml, "spell.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("spell.yaml:"), HasSubstr("ClusterQueue \"new\""),
                             HasSubstr("spec.cohort"), HasSubstr("cohortName"))));
}

// Setup: a minimal ClusterQueue without namespaceSelector, fungibility,
// preemption, strategy or weight, and one with namespaceSelector: {}.
// Invariant: absent namespaceSelector is "not present" (matches nothing),
// {} is present and empty; fungibility defaults MayStopSearch /
// TryNextFlavor; BestEffortFIFO; preemption Never; weight 1; no stop policy.
TEST(ScenarioLoaderTest, ClusterQueueDefaults) {
  const std::string yaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: bare
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: "1"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: open
spec:
  namespaceSelector: {}
  queueingStrategy: StrictFIFO
  fairSharing:
    weight: "0.5"
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml));
  const auto& bare = s.clusters[0].cluster_queues[0];
  EXPECT_FALSE(bare.namespace_selector.present);
  EXPECT_EQ(bare.flavor_fungibility.when_can_borrow, model::FungibilityPolicy::kMayStopSearch);
  EXPECT_EQ(bare.flavor_fungibility.when_can_preempt, model::FungibilityPolicy::kTryNextFlavor);
  EXPECT_EQ(bare.flavor_fungibility.preference, model::FungibilityPreference::kNone);
  EXPECT_EQ(bare.queueing_strategy, model::QueueingStrategy::kBestEffortFIFO);
  EXPECT_EQ(bare.preemption.within_cluster_queue, model::PreemptionPolicy::kNever);
  EXPECT_EQ(bare.preemption.reclaim_within_cohort, model::PreemptionPolicy::kNever);
  EXPECT_FALSE(bare.preemption.borrow_within_cohort.has_value());
  EXPECT_DOUBLE_EQ(bare.fair_weight, 1.0);
  EXPECT_EQ(bare.stop_policy, model::StopPolicy::kNone);
  EXPECT_EQ(bare.cohort, "");
  const auto& open = s.clusters[0].cluster_queues[1];
  EXPECT_TRUE(open.namespace_selector.present);
  EXPECT_TRUE(open.namespace_selector.match_labels.empty());
  EXPECT_TRUE(open.namespace_selector.match_expressions.empty());
  EXPECT_EQ(open.queueing_strategy, model::QueueingStrategy::kStrictFIFO);
  EXPECT_DOUBLE_EQ(open.fair_weight, 0.5);
}

// Setup: a v1beta1 and a v1beta2 Workload naming a priority class.
// Invariant: v1beta1 priorityClassName/priorityClassSource and v1beta2
// priorityClassRef {group, name} land in the same fields; a v1beta2 ref with
// group scheduling.k8s.io is a pod PriorityClass, otherwise a WPC.
TEST(ScenarioLoaderTest, WorkloadPriorityClassSpellings) {
  const std::string yaml = R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: old, namespace: ns}
spec:
  queueName: q
  priorityClassName: high
  priorityClassSource: kueue.x-k8s.io/workloadpriorityclass
  podSets:
  - name: main
    count: 1
    template: {spec: {containers: [{name: c}]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: new, namespace: ns}
spec:
  queueName: q
  priority: 7
  priorityClassRef: {group: scheduling.k8s.io, kind: PriorityClass, name: pod-high}
  podSets:
  - template: {spec: {containers: [{name: c}]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: wpc, namespace: ns}
spec:
  queueName: q
  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: low}
  podSets:
  - template: {spec: {containers: [{name: c}]}}
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml));
  const auto& wls = s.clusters[0].workloads;
  ASSERT_EQ(wls.size(), 3u);
  EXPECT_EQ(wls[0].priority_class_name, "high");
  EXPECT_EQ(wls[0].rare->priority_class_source, "kueue.x-k8s.io/workloadpriorityclass");
  EXPECT_FALSE(wls[0].priority.has_value());
  EXPECT_EQ(wls[1].priority, 7);
  EXPECT_EQ(wls[1].priority_class_name, "pod-high");
  EXPECT_EQ(wls[1].rare->priority_class_source, "scheduling.k8s.io/priorityclass");
  // Pod set defaults: name "main", count 1, no minCount.
  EXPECT_EQ(wls[1].pod_sets[0].name, "main");
  EXPECT_EQ(wls[1].pod_sets[0].count, 1);
  EXPECT_FALSE(wls[1].pod_sets[0].min_count.has_value());
  EXPECT_EQ(wls[2].rare->priority_class_source, "kueue.x-k8s.io/workloadpriorityclass");
  // Input order is recorded for ties.
  EXPECT_LT(wls[0].input_sequence, wls[1].input_sequence);
  EXPECT_LT(wls[1].input_sequence, wls[2].input_sequence);
}

constexpr char kJobs[] = R"(apiVersion: batch/v1
kind: Job
metadata:
  name: capped
  namespace: team
  labels:
    kueue.x-k8s.io/queue-name: q
    kueue.x-k8s.io/priority-class: high
spec:
  parallelism: 3
  completions: 2
  template:
    spec:
      priorityClassName: pod-prio
      containers:
      - name: c
        resources: {requests: {cpu: 500m}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: elastic
  namespace: team
  labels:
    kueue.x-k8s.io/queue-name: q
  annotations:
    kueue.x-k8s.io/job-min-parallelism: "2"
spec:
  parallelism: 5
  template:
    spec:
      containers:
      - name: c
        resources: {requests: {cpu: "1"}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: defaults
  labels:
    kueue.x-k8s.io/queue-name: q
spec:
  template:
    spec:
      containers: [{name: c}]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: annotated
  annotations:
    kueue.x-k8s.io/queue-name: q
spec:
  template:
    spec:
      containers: [{name: c}]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: unmanaged
spec:
  template:
    spec:
      containers: [{name: c}]
)";

// Setup: Jobs "capped" (parallelism 3, completions 2), "elastic"
// (parallelism 5, job-min-parallelism 2), "defaults" (no parallelism, no
// namespace), "annotated" (the queue name in the deprecated annotation only)
// and "unmanaged" (no queue-name).
// Invariant: count = min(parallelism, completions) (2, 5, 1); minCount from
// the annotation (2); names "job-<name>"; the queue label (Kueue no longer
// reads the annotation: "annotated" is unmanaged); the namespace defaults to
// "default"; the WPC label becomes the priority class; the unmanaged Jobs
// are skipped with a warning.
TEST(ScenarioLoaderTest, JobBecomesWorkload) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(kJobs, "jobs.yaml"));
  const auto& wls = s.clusters[0].workloads;
  ASSERT_EQ(wls.size(), 3u);
  EXPECT_EQ(wls[0].meta.name, "job-capped");
  EXPECT_EQ(wls[0].meta.namespace_, "team");
  EXPECT_EQ(wls[0].source_kind, model::WorkloadSourceKind::kJob);
  EXPECT_EQ(wls[0].queue_name, "q");
  ASSERT_EQ(wls[0].pod_sets.size(), 1u);
  EXPECT_EQ(wls[0].pod_sets[0].name, "main");
  EXPECT_EQ(wls[0].pod_sets[0].count, 2);
  EXPECT_FALSE(wls[0].pod_sets[0].min_count.has_value());
  EXPECT_EQ(RequestOf(wls[0].pod_sets[0], "cpu"), 500);
  EXPECT_EQ(wls[0].pod_sets[0].rare->priority_class_name, "pod-prio");
  EXPECT_EQ(wls[0].priority_class_name, "high");
  EXPECT_EQ(wls[0].rare->priority_class_source, "kueue.x-k8s.io/workloadpriorityclass");
  EXPECT_EQ(wls[1].meta.name, "job-elastic");
  EXPECT_EQ(wls[1].pod_sets[0].count, 5);
  EXPECT_EQ(wls[1].pod_sets[0].min_count, 2);
  EXPECT_EQ(wls[2].meta.name, "job-defaults");
  EXPECT_EQ(wls[2].meta.namespace_, "default");
  EXPECT_EQ(wls[2].queue_name, "q");
  EXPECT_EQ(wls[2].pod_sets[0].count, 1);
  EXPECT_THAT(s.report.warnings, Contains(AllOf(HasSubstr("jobs.yaml"), HasSubstr("\"unmanaged\""),
                                                HasSubstr("queue-name"))));
  EXPECT_THAT(s.report.warnings, Contains(AllOf(HasSubstr("jobs.yaml"), HasSubstr("\"annotated\""),
                                                HasSubstr("queue-name"))));
}

// Setup: an export with parents and children: a JobSet (queue label, uid
// u-js) with its child Job (controller owner the JobSet) and that Job's pod;
// a Job "owned-elsewhere" whose controller owner reference names the JobSet
// with another uid; a Job "running" with its exported Workload (controller
// owner the Job); a plain Pod "solo" with its exported Workload; a pod
// carrying the prebuilt-workload-name annotation.
// Invariant: the child Job and its pod get no Workload (the JobSet's admits
// them, FindAncestorJobManagedByKueue); the Job whose reference's uid does
// not match keeps its own; "running" is represented by its exported
// Workload only (one Workload per job), and so is a plain Pod with its
// exported Workload; the prebuilt pod gets none; each
// dropped object is named in a warning.
TEST(ScenarioLoaderTest, ObjectsOthersStandForGetNoWorkload) {
  const std::string queue = "  labels: {kueue.x-k8s.io/queue-name: q}\n";
  const auto owner = [](const std::string& kind, const std::string& api, const std::string& name,
                        const std::string& uid) {
    return "  ownerReferences:\n  - {apiVersion: " + api + ", kind: " + kind + ", name: " + name + ", uid: " + uid +
           ", controller: true}\n";
  };
  const std::string job_spec = "spec:\n  template: {spec: {containers: [{name: c}]}}\n";
  const std::string yaml =
      "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: js\n  namespace: ns\n  uid: u-js\n" +
      queue +
      "spec:\n  replicatedJobs:\n  - name: w\n    template:\n      spec:\n        template: {spec: {containers: "
      "[{name: c}]}}\n---\n"
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: js-w-0\n  namespace: ns\n  uid: u-child\n" + queue +
      owner("JobSet", "jobset.x-k8s.io/v1alpha2", "js", "u-js") + job_spec + "---\n" +
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: js-w-0-0\n  namespace: ns\n" + queue +
      owner("Job", "batch/v1", "js-w-0", "u-child") + "spec:\n  containers: [{name: c}]\n---\n" +
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: owned-elsewhere\n  namespace: ns\n" + queue +
      owner("JobSet", "jobset.x-k8s.io/v1alpha2", "js", "u-other") + job_spec + "---\n" +
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: running\n  namespace: ns\n  uid: u-run\n" + queue +
      job_spec + "---\n" +
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: job-running-1a2b3\n  namespace: ns\n" +
      owner("Job", "batch/v1", "running", "u-run") +
      "spec:\n  queueName: q\n  podSets:\n  - name: main\n    count: 1\n    template: {spec: {containers: [{name: "
      "c}]}}\n---\n" +
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: solo\n  namespace: ns\n  uid: u-solo\n" + queue +
      "spec:\n  containers: [{name: c}]\n---\n"
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: pod-solo-4d5e6\n  namespace: ns\n" +
      owner("Pod", "v1", "solo", "u-solo") +
      "spec:\n  queueName: q\n  podSets:\n  - name: main\n    count: 1\n    template: {spec: {containers: [{name: "
      "c}]}}\n---\n" +
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: lws-0\n  namespace: ns\n" + queue +
      "  annotations: {kueue.x-k8s.io/prebuilt-workload-name: leaderworkerset-lws-0-ab12c}\n"
      "spec:\n  containers: [{name: c}]\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml, "export.yaml"));
  std::vector<std::string> names;
  for (const auto& wl : s.clusters[0].workloads) names.push_back(wl.meta.name);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("jobset-js", "job-owned-elsewhere", "job-running-1a2b3",
                                                     "pod-solo-4d5e6"));
  for (const char* expected : {"Job \"js-w-0\" belongs to JobSet \"js\"", "Pod \"js-w-0-0\" belongs to JobSet \"js\"",
                               "Job \"running\" has its Workload \"job-running-1a2b3\" in the input",
                               "Pod \"lws-0\" uses the prebuilt Workload \"leaderworkerset-lws-0-ab12c\""}) {
    EXPECT_THAT(s.report.warnings, Contains(AllOf(HasSubstr("export.yaml:"), HasSubstr(expected)))) << expected;
  }
}

// Setup: an export of Deployments with their pods (Kueue's pod integration
// admits a Deployment's pods one by one): "web" (3 replicas) with two pods
// owned by ReplicaSet "web-5d9f8" (not in the input) labelled
// pod-template-hash 5d9f8; "api" (2 replicas) with its ReplicaSet in the
// input (controller owner "api") and one pod of it, the ReplicaSet named
// otherwise; "other" (1 replica) and a pod of ReplicaSet "other-abc" whose
// pod-template-hash label is "xyz" (not the Deployment controller's name).
// Invariant: the pods are their Deployment's current replicas and stand for
// as many of its replica Workloads (the last ones): web keeps one replica
// Workload beside its two pods, api one beside its pod; the pod whose
// ReplicaSet name does not match is not taken for other's, which keeps its
// replica; each Deployment that lost replicas is named in a warning. The
// pods (and the exported Workload standing for api's pod) are of object
// kind Deployment, as the replicas kueuesim makes (serving: a default
// run-time rule without a kind does not apply to them).
TEST(ScenarioLoaderTest, PodsOfADeploymentAreItsCurrentReplicas) {
  const auto deployment = [](const std::string& name, int replicas) {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\n  namespace: ns\n  uid: u-" +
           name + "\n  labels: {kueue.x-k8s.io/queue-name: q}\nspec:\n  replicas: " + std::to_string(replicas) +
           "\n  selector: {matchLabels: {app: " + name + "}}\n  template:\n    metadata: {labels: {app: " + name +
           "}}\n    spec: {containers: [{name: c}]}\n---\n";
  };
  const auto pod = [](const std::string& name, const std::string& replica_set, const std::string& hash) {
    return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
           "\n  namespace: ns\n  labels: {kueue.x-k8s.io/queue-name: q, pod-template-hash: " + hash +
           "}\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: " + replica_set +
           ", uid: u-" + replica_set + ", controller: true}\nspec:\n  containers: [{name: c}]\n---\n";
  };
  const std::string yaml =
      deployment("web", 3) + pod("web-5d9f8-aaaaa", "web-5d9f8", "5d9f8") + pod("web-5d9f8-bbbbb", "web-5d9f8", "5d9f8") +
      deployment("api", 2) +
      "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: api-rs\n  namespace: ns\n  uid: u-api-rs\n"
      "  ownerReferences:\n  - {apiVersion: apps/v1, kind: Deployment, name: api, uid: u-api, controller: true}\n"
      "spec:\n  template: {spec: {containers: [{name: c}]}}\n---\n" +
      pod("api-rs-ccccc", "api-rs", "77aa") +
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: pod-api-rs-ccccc-1x2y3\n  namespace: ns\n"
      "  ownerReferences:\n  - {apiVersion: v1, kind: Pod, name: api-rs-ccccc, controller: true}\n"
      "spec:\n  queueName: q\n  podSets:\n  - name: main\n    count: 1\n    template: {spec: {containers: [{name: "
      "c}]}}\n---\n" +
      deployment("other", 1) + pod("other-abc-ddddd", "other-abc", "xyz");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml, "export.yaml"));
  std::vector<std::string> names;
  for (const auto& wl : s.clusters[0].workloads) names.push_back(wl.meta.name);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("pod-web-0", "pod-web-5d9f8-aaaaa", "pod-web-5d9f8-bbbbb",
                                                     "pod-api-0", "pod-api-rs-ccccc-1x2y3", "pod-other-0",
                                                     "pod-other-abc-ddddd"));
  // The pods standing for replicas (or their exported Workload) are the
  // Deployment's replicas, serving as the ones kueuesim makes; the pod of
  // no Deployment stays a Pod.
  for (const auto& wl : s.clusters[0].workloads) {
    const bool replica = wl.meta.name != "pod-other-abc-ddddd";
    EXPECT_EQ(WorkloadObjectKind(wl), replica ? "Deployment" : "Pod") << wl.meta.name;
  }
  EXPECT_THAT(s.report.warnings,
              Contains(AllOf(HasSubstr("export.yaml:1: Deployment \"web\" has 2 pod(s) in the input"),
                             HasSubstr("\"web-5d9f8-aaaaa\""), HasSubstr("stand for 2 of the 3"))));
  EXPECT_THAT(s.report.warnings, Contains(AllOf(HasSubstr("Deployment \"api\" has 1 pod(s)"),
                                                HasSubstr("stand for 1 of the 2"))));
  EXPECT_THAT(s.report.warnings, Not(Contains(HasSubstr("Deployment \"other\" has"))));
}

// Setup: an export of a managed LeaderWorkerSet "srv" (uid u-srv) with the
// group Workloads Kueue's LWS reconciler made for it (owner reference to the
// LeaderWorkerSet, not a controller reference), one of them admitted, one
// whose reference is a controller reference, and a Workload whose owner
// reference names "srv" with another uid.
// Invariant: kueuesim runs the LeaderWorkerSet's groups from it, so its
// exported group Workloads go (each named in a warning) and the quota is
// not held twice; the Workload of another uid stays.
TEST(ScenarioLoaderTest, GroupWorkloadsOfALeaderWorkerSetGo) {
  const auto group_workload = [](const std::string& name, const std::string& uid, const std::string& status) {
    return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: " + name +
           "\n  namespace: ns\n  ownerReferences:\n  - {apiVersion: leaderworkerset.x-k8s.io/v1, kind: "
           "LeaderWorkerSet, name: srv, uid: " + uid +
           "}\nspec:\n  queueName: q\n  podSets:\n  - name: main\n    count: 2\n    template: {spec: "
           "{containers: [{name: c}]}}\n" + status + "---\n";
  };
  const std::string yaml =
      "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: srv\n  namespace: ns\n"
      "  uid: u-srv\n  labels: {kueue.x-k8s.io/queue-name: q}\nspec:\n  replicas: 2\n  leaderWorkerTemplate:\n"
      "    size: 2\n    workerTemplate: {spec: {containers: [{name: c}]}}\n---\n" +
      group_workload("leaderworkerset-srv-0-1a2b3", "u-srv",
                     "status:\n  admission:\n    clusterQueue: cq\n    podSetAssignments:\n    - name: main\n"
                     "      count: 2\n      flavors: {cpu: default}\n      resourceUsage: {cpu: \"2\"}\n") +
      group_workload("leaderworkerset-srv-1-4c5d6", "u-srv", "") +
      group_workload("leaderworkerset-srv-2-0f1e2", "u-srv, controller: true", "") +
      group_workload("leaderworkerset-srv-0-9e8f7", "u-old", "");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml, "export.yaml"));
  EXPECT_EQ(s.clusters[0].leader_worker_sets.size(), 1u);
  std::vector<std::string> names;
  for (const auto& wl : s.clusters[0].workloads) names.push_back(wl.meta.name);
  EXPECT_THAT(names, ::testing::ElementsAre("leaderworkerset-srv-0-9e8f7"));
  for (const char* name : {"leaderworkerset-srv-0-1a2b3", "leaderworkerset-srv-1-4c5d6", "leaderworkerset-srv-2-0f1e2"}) {
    EXPECT_THAT(s.report.warnings,
                Contains(AllOf(HasSubstr("export.yaml:"), HasSubstr(std::string("Workload \"") + name +
                                                                    "\" is a group Workload of LeaderWorkerSet \"srv\""))))
        << name;
  }
}

// Setup: Jobs of 8 pods whose pod templates carry (a) the multi-layer slice
// annotation (blocks of 8, racks of 4), (b) both the required and the
// preferred topology annotation. Invariant: (a) gives two slice layers and
// the completion index as the pod index label, as Kueue's request builder
// does for a Job; (b) is refused, as Kueue's Job webhook
// (ValidateTASPodSetRequest) refuses it.
TEST(ScenarioLoaderTest, JobTopologyAnnotationsAsKueueReadsThem) {
  const auto job = [](const std::string& annotations) {
    return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  labels: {kueue.x-k8s.io/queue-name: q}\n"
           "spec:\n  parallelism: 8\n  template:\n    metadata:\n      annotations:\n" +
           annotations + "    spec: {containers: [{name: c}]}\n";
  };
  KUEUESIM_ASSERT_OK_AND_ASSIGN(
      Scenario s, LoadYaml(job("        kueue.x-k8s.io/podset-slice-required-topology-constraints: "
                               "'[{\"topology\": \"block\", \"size\": 8}, {\"topology\": \"rack\", \"size\": 4}]'\n")));
  const auto& request = s.clusters[0].workloads[0].pod_sets[0].topology_request;
  ASSERT_TRUE(request.has_value());
  ASSERT_EQ(request->slice_layers.size(), 2u);
  EXPECT_EQ(request->slice_layers[0].topology, "block");
  EXPECT_EQ(request->slice_layers[0].size, 8);
  EXPECT_EQ(request->slice_layers[1].topology, "rack");
  EXPECT_EQ(request->slice_layers[1].size, 4);
  EXPECT_EQ(request->pod_index_label, "batch.kubernetes.io/job-completion-index");
  EXPECT_THAT(LoadYaml(job("        kueue.x-k8s.io/podset-required-topology: rack\n"
                           "        kueue.x-k8s.io/podset-preferred-topology: block\n"),
                       "job.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("job.yaml:"), HasSubstr("more than one topology annotation"))));
}

// Setup: a managed LeaderWorkerSet with the exclusive-topology annotation.
// Invariant: it loads, with a warning naming the annotation (exclusive
// placement is not modelled).
TEST(ScenarioLoaderTest, LeaderWorkerSetExclusiveTopologyIsNamedInAWarning) {
  const std::string yaml =
      "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: x\n  namespace: ns\n"
      "  labels: {kueue.x-k8s.io/queue-name: q}\n  annotations: {leaderworkerset.sigs.k8s.io/exclusive-topology: rack}\n"
      "spec:\n  replicas: 1\n  leaderWorkerTemplate:\n    size: 2\n    workerTemplate: {spec: {containers: [{name: c}]}}\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml, "lws.yaml"));
  EXPECT_EQ(s.clusters[0].leader_worker_sets.size(), 1u);
  EXPECT_THAT(s.report.warnings, Contains(AllOf(HasSubstr("lws.yaml:"), HasSubstr("LeaderWorkerSet \"x\""),
                                                HasSubstr("leaderworkerset.sigs.k8s.io/exclusive-topology"))));
}

// Setup: Jobs labelled kueue.x-k8s.io/max-exec-time-seconds "60" and "0".
// Invariant: the Workload's maximumExecutionTimeSeconds is 60
// (jobframework.NewWorkload reads the label for every kind); "0" is refused,
// as Kueue's webhook refuses it.
TEST(ScenarioLoaderTest, JobMaximumExecutionTimeLabel) {
  const auto job = [](const std::string& seconds) {
    return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  labels: {kueue.x-k8s.io/queue-name: q, "
           "kueue.x-k8s.io/max-exec-time-seconds: \"" + seconds +
           "\"}\nspec:\n  template: {spec: {containers: [{name: c}]}}\n";
  };
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(job("60")));
  EXPECT_EQ(s.clusters[0].workloads[0].rare->maximum_execution_time_seconds, 60);
  EXPECT_THAT(LoadYaml(job("0"), "job.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("job.yaml:"), HasSubstr("kueue.x-k8s.io/max-exec-time-seconds"))));
}

// Setup: objects of managed kinds as an export holds them: a Job with
// Complete=True, a Job with Failed=True, a queue-labelled Pod in phase
// Succeeded, a RayJob whose jobDeploymentStatus is Complete, a running Job,
// and an AppWrapper in phase Failed that still has ResourcesDeployed=True.
// Invariant: Kueue makes no Workload for a finished object (each is skipped
// with a warning naming it and its state); the running Job and the
// AppWrapper, not finished until its resources are gone, are loaded.
TEST(ScenarioLoaderTest, FinishedJobsGetNoWorkload) {
  const std::string labels = "  labels: {kueue.x-k8s.io/queue-name: q}\n";
  const std::string job_spec = "spec:\n  template: {spec: {containers: [{name: c}]}}\n";
  const std::string yaml =
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: complete\n" + labels + job_spec +
      "status:\n  conditions:\n  - {type: Complete, status: \"True\"}\n---\n"
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: failed\n" + labels + job_spec +
      "status:\n  conditions:\n  - {type: Failed, status: \"True\"}\n---\n"
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: done\n" + labels +
      "spec:\n  containers: [{name: c}]\nstatus: {phase: Succeeded}\n---\n"
      "apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: ray\n" + labels +
      "spec:\n  rayClusterSpec:\n    headGroupSpec:\n      template: {spec: {containers: [{name: head}]}}\n"
      "status: {jobDeploymentStatus: Complete}\n---\n"
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: running\n" + labels + job_spec +
      "status:\n  conditions:\n  - {type: Suspended, status: \"False\"}\n---\n"
      "apiVersion: workload.codeflare.dev/v1beta2\nkind: AppWrapper\nmetadata:\n  name: aw\n" + labels +
      "spec:\n  components:\n  - template:\n      apiVersion: batch/v1\n      kind: Job\n"
      "      metadata: {name: inner}\n      spec:\n        template: {spec: {containers: [{name: c}]}}\n"
      "status:\n  phase: Failed\n  conditions:\n  - {type: ResourcesDeployed, status: \"True\"}\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml, "export.yaml"));
  std::vector<std::string> names;
  for (const auto& wl : s.clusters[0].workloads) names.push_back(wl.meta.name);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("job-running", "appwrapper-aw"));
  for (const char* expected : {"Job \"complete\" has finished (condition Complete)",
                               "Job \"failed\" has finished (condition Failed)",
                               "Pod \"done\" has finished (phase Succeeded)",
                               "RayJob \"ray\" has finished (jobDeploymentStatus Complete)"}) {
    EXPECT_THAT(s.report.warnings, Contains(AllOf(HasSubstr("export.yaml:"), HasSubstr(expected)))) << expected;
  }
}

// Setup: job-min-parallelism below parallelism (3), equal to it (4) and
// above it (9). Invariant: below is the pod set's minCount; equal and above
// are InvalidArgument naming the annotation, as Kueue's Job webhook refuses
// them (validatePartialAdmissionCreate: "should be between 0 and 3").
TEST(ScenarioLoaderTest, JobMinParallelismBounds) {
  auto job = [](const std::string& min) {
    return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  labels: {kueue.x-k8s.io/queue-name: q}\n"
           "  annotations: {kueue.x-k8s.io/job-min-parallelism: \"" +
           min + "\"}\nspec:\n  parallelism: 4\n  template: {spec: {containers: [{name: c}]}}\n";
  };
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(job("3")));
  EXPECT_EQ(s.clusters[0].workloads[0].pod_sets[0].min_count, 3);
  for (const char* refused : {"4", "9"}) {
    EXPECT_THAT(LoadYaml(job(refused), "job.yaml"),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("job.yaml:"), HasSubstr("Job \"j\""),
                               HasSubstr("kueue.x-k8s.io/job-min-parallelism"), HasSubstr("between 0 and 3"))));
  }
}

// Setup: a pod template with
//   containers: c1 requests cpu 1, memory 1Gi; c2 requests cpu 500m with
//   limit cpu 2; c3 only limits memory 2Gi and nvidia.com/gpu 1;
//   initContainers: i1 cpu 4 (regular), s1 cpu 100m memory 512Mi
//   (restartPolicy Always: a sidecar), i2 cpu 3 memory 4Gi (regular, after
//   s1); overhead cpu 250m, memory 100Mi.
// Invariant (k8s PodRequests): cpu = max(1 + 0.5 + 0.1, 4, 3 + 0.1) + 0.25 =
// 4250m; memory = max(1Gi + 2Gi + 512Mi, 512Mi, 4Gi + 512Mi) + 100Mi =
// 4.5Gi + 100Mi; gpu = 1 (limit stands in for the missing request).
TEST(ScenarioLoaderTest, EffectivePodRequests) {
  const std::string yaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  queueName: q
  podSets:
  - name: main
    count: 2
    template:
      spec:
        overhead: {cpu: 250m, memory: 100Mi}
        initContainers:
        - name: i1
          resources: {requests: {cpu: "4"}}
        - name: s1
          restartPolicy: Always
          resources: {requests: {cpu: 100m, memory: 512Mi}}
        - name: i2
          resources: {requests: {cpu: "3", memory: 4Gi}}
        containers:
        - name: c1
          resources: {requests: {cpu: "1", memory: 1Gi}}
        - name: c2
          resources: {requests: {cpu: 500m}, limits: {cpu: "2"}}
        - name: c3
          resources: {limits: {memory: 2Gi, nvidia.com/gpu: "1"}}
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml));
  const model::PodSet& ps = s.clusters[0].workloads[0].pod_sets[0];
  EXPECT_EQ(ps.count, 2);
  EXPECT_EQ(RequestOf(ps, "cpu"), 4250);
  EXPECT_EQ(RequestOf(ps, "memory"), 4608LL * 1024 * 1024 + 100LL * 1024 * 1024);
  EXPECT_EQ(RequestOf(ps, "nvidia.com/gpu"), 1);
  // Sorted by resource name.
  ASSERT_EQ(ps.requests.size(), 3u);
  EXPECT_EQ(ps.requests[0].name, "cpu");
  EXPECT_EQ(ps.requests[1].name, "memory");
  EXPECT_EQ(ps.requests[2].name, "nvidia.com/gpu");
}

// Setup: only regular containers (cpu 1 + 2) and a bigger init container
// (cpu 5), no sidecars. Invariant: init containers are maxed, not summed:
// max(3, 5) = 5 cpu.
TEST(ScenarioLoaderTest, InitContainersAreMaxedNotSummed) {
  const std::string yaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  queueName: q
  podSets:
  - template:
      spec:
        initContainers: [{name: i, resources: {requests: {cpu: "5"}}}]
        containers:
        - {name: a, resources: {requests: {cpu: "1"}}}
        - {name: b, resources: {requests: {cpu: "2"}}}
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml));
  EXPECT_EQ(RequestOf(s.clusters[0].workloads[0].pod_sets[0], "cpu"), 5000);
}

// Setup: annotations arrival 90s, duration 1h30m, startup-delay 250ms on one
// workload; none on another. Invariant: parsed as microseconds; absent
// arrival is 0 and absent duration nullopt.
TEST(ScenarioLoaderTest, TimingAnnotations) {
  const std::string yaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: timed
  namespace: ns
  annotations:
    kueuesim.io/arrival: 90s
    kueuesim.io/duration: 1h30m
    kueuesim.io/startup-delay: 250ms
spec:
  queueName: q
  podSets: [{template: {spec: {containers: [{name: c}]}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: plain, namespace: ns}
spec:
  queueName: q
  podSets: [{template: {spec: {containers: [{name: c}]}}}]
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml));
  const auto& timed = s.clusters[0].workloads[0];
  EXPECT_EQ(timed.arrival, 90 * kSecond);
  EXPECT_EQ(timed.duration, 90 * kMinute);
  EXPECT_EQ(timed.rare->startup_delay, 250 * kMillisecond);
  const auto& plain = s.clusters[0].workloads[1];
  EXPECT_EQ(plain.arrival, 0);
  EXPECT_FALSE(plain.duration.has_value());
  EXPECT_FALSE(plain.rare->startup_delay.has_value());
}

// Setup: a malformed arrival annotation. Invariant: InvalidArgument naming
// the file, the workload and the annotation.
TEST(ScenarioLoaderTest, BadTimingAnnotationIsAnError) {
  const std::string yaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: timed
  namespace: ns
  annotations: {kueuesim.io/arrival: soon}
spec:
  queueName: q
  podSets: [{template: {spec: {containers: [{name: c}]}}}]
)";
  EXPECT_THAT(LoadYaml(yaml, "t.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("t.yaml:"), HasSubstr("Workload \"timed\""),
                             HasSubstr("kueuesim.io/arrival"))));
}

// Setup: a `kind: List` holding a ResourceFlavor and a ClusterQueue, plus a
// plain document. Invariant: the List's items are loaded as objects (3
// objects from 2 documents).
TEST(ScenarioLoaderTest, KindListItemsAreLoaded) {
  const std::string yaml = R"(apiVersion: v1
kind: List
items:
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ResourceFlavor
  metadata: {name: default}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ClusterQueue
  metadata: {name: cq}
  spec:
    namespaceSelector: {}
    resourceGroups:
    - coveredResources: [cpu]
      flavors: [{name: default, resources: [{name: cpu, nominalQuota: "1"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: ns}
spec: {clusterQueue: cq}
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml));
  EXPECT_EQ(s.report.documents, 2);
  EXPECT_EQ(s.report.objects, 3);
  ASSERT_EQ(s.clusters.size(), 1u);
  EXPECT_EQ(s.clusters[0].resource_flavors.size(), 1u);
  EXPECT_EQ(s.clusters[0].cluster_queues.size(), 1u);
  EXPECT_EQ(s.clusters[0].local_queues.size(), 1u);
  EXPECT_THAT(s.report.warnings, IsEmpty());
}

// Setup: Lists as kubectl prints them (items before kind: they are read one
// item at a time), a typed WorkloadList, a List in a List, a non-List with
// top-level items, a broken item.
// Invariant: items load as objects in order, one document per List; a List
// in a List, items outside a List and a broken field are errors naming the
// file, line and field.
TEST(ScenarioLoaderTest, KubectlListsLoadItemByItem) {
  const std::string items = R"(items:
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ResourceFlavor
  metadata: {name: a}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ResourceFlavor
  metadata: {name: b}
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml("apiVersion: v1\n" + items + "kind: List\nmetadata: {}\n"));
  EXPECT_EQ(s.report.documents, 1);
  EXPECT_EQ(s.report.objects, 2);
  ASSERT_EQ(s.clusters[0].resource_flavors.size(), 2u);
  EXPECT_EQ(s.clusters[0].resource_flavors[0].meta.name, "a");
  EXPECT_EQ(s.clusters[0].resource_flavors[1].meta.name, "b");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario typed,
                                LoadYaml("apiVersion: kueue.x-k8s.io/v1beta2\n" + items + "kind: ResourceFlavorList\n"));
  EXPECT_EQ(typed.clusters[0].resource_flavors.size(), 2u);

  EXPECT_THAT(LoadYaml("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a List inside a List is not supported")));
  EXPECT_THAT(LoadYaml("apiVersion: v1\n" + items + "kind: ConfigMap\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("test.yaml:3: object: items: a document with top-level items must be a List"),
                             HasSubstr("not ConfigMap"))));
  EXPECT_THAT(LoadYaml(R"(apiVersion: v1
items:
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ResourceFlavor
  metadata: {name: a}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ClusterQueue
  metadata: {name: cq}
  spec:
    namespaceSelector: {}
    resourceGroups: 7
kind: List
)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(":11: ClusterQueue \"cq\": spec.resourceGroups"))));
}

// Setup: file a.yaml: a flavor, then a kueuesim.io/v1alpha1 Cluster "west",
// then a flavor and a flavor annotated kueuesim.io/cluster: east; file b.yaml:
// a flavor (no marker). Invariant: a.yaml's first flavor is in the default
// cluster, the next in "west", the annotated one in "east"; the marker ends
// with the file, so b.yaml's flavor is in the default cluster, which is
// listed first.
TEST(ScenarioLoaderTest, ClusterMarkerAndAnnotationGrouping) {
  const std::string a = ::kueuesim::testing::ResourceFlavorYaml("d1") + R"(apiVersion: kueuesim.io/v1alpha1
kind: Cluster
metadata: {name: west}
---
)" + ::kueuesim::testing::ResourceFlavorYaml("w1") + R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: e1
  annotations: {kueuesim.io/cluster: east}
)";
  const std::string b = ::kueuesim::testing::ResourceFlavorYaml("d2");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadScenarioStrings({{"a.yaml", a}, {"b.yaml", b}}));
  ASSERT_EQ(s.clusters.size(), 3u);
  EXPECT_EQ(s.clusters[0].name, "");
  auto names = [](const ClusterSpec& c) {
    std::vector<std::string> out;
    for (const auto& f : c.resource_flavors) out.push_back(f.meta.name);
    return out;
  };
  EXPECT_THAT(names(s.clusters[0]), ElementsAre("d1", "d2"));
  const ClusterSpec* west = s.FindCluster("west");
  const ClusterSpec* east = s.FindCluster("east");
  ASSERT_NE(west, nullptr);
  ASSERT_NE(east, nullptr);
  EXPECT_THAT(names(*west), ElementsAre("w1"));
  EXPECT_THAT(names(*east), ElementsAre("e1"));
  EXPECT_EQ(s.FindCluster("north"), nullptr);
}

// Setup: two apps/v1 DaemonSets, a v1 ConfigMap and a flavor. Invariant:
// unknown kinds are counted per "apiVersion/kind", not fatal; the known
// object still loads.
TEST(ScenarioLoaderTest, UnknownKindsAreCountedNotFatal) {
  const std::string yaml = R"(apiVersion: apps/v1
kind: DaemonSet
metadata: {name: d1}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: d2}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
---
)" + ::kueuesim::testing::ResourceFlavorYaml("default");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml));
  EXPECT_THAT(s.report.unknown_kinds, ElementsAre(Pair("apps/v1/DaemonSet", 2), Pair("v1/ConfigMap", 1)));
  EXPECT_EQ(s.clusters[0].resource_flavors.size(), 1u);
}

// Setup: a ClusterQueue naming missing flavor "ghost"; a LocalQueue pointing
// to missing ClusterQueue "nowhere"; a workload naming missing LocalQueue
// "absent". Invariant: the load succeeds with one warning each, naming the
// file and the objects.
TEST(ScenarioLoaderTest, WarningsForMissingReferences) {
  using ::kueuesim::testing::ClusterQueueYaml;
  using ::kueuesim::testing::WorkloadOptions;
  WorkloadOptions o;
  o.queue = "absent";
  const std::string yaml = ClusterQueueYaml("cq", {"cpu"}, {{"ghost", {"1"}, {}}}) +
                           ::kueuesim::testing::LocalQueueYaml("ns", "lq", "nowhere") +
                           ::kueuesim::testing::WorkloadYaml("w", o);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml, "refs.yaml"));
  const auto& w = s.report.warnings;
  EXPECT_THAT(w, Contains(AllOf(HasSubstr("refs.yaml:"), HasSubstr("ClusterQueue \"cq\""),
                                HasSubstr("ResourceFlavor \"ghost\""))));
  EXPECT_THAT(w, Contains(AllOf(HasSubstr("refs.yaml:"), HasSubstr("LocalQueue \"ns/lq\""),
                                HasSubstr("ClusterQueue \"nowhere\""))));
  EXPECT_THAT(w, Contains(AllOf(HasSubstr("refs.yaml:"), HasSubstr("Workload \"default/w\""),
                                HasSubstr("LocalQueue \"absent\""))));
  // And one for the workload without a run time.
  EXPECT_THAT(w, Contains(AllOf(HasSubstr("1 workload(s) have no run time"), HasSubstr("default/w"))));
  EXPECT_EQ(w.size(), 4u);
}

// Setup: a Simulation object with settings and a Configuration with
// fairSharing {} and an unknown feature gate. Invariant: settings are
// parsed; presence of fairSharing enables the default strategy pair; the
// unknown gate is a warning and known gates are applied.
TEST(ScenarioLoaderTest, SimulationAndConfiguration) {
  const std::string yaml = R"(apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: sim}
spec:
  startTime: "2025-06-02T09:00:00Z"
  evictionDelay: 30s
  cycleDuration: 10ms
  until: 2h
  seed: 42
  policies:
    queueOrdering: kueue
---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
fairSharing: {}
featureGates:
  PartialAdmission: false
  SomethingElse: true
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml, "sim.yaml"));
  EXPECT_EQ(s.settings.start_time, 1748854800LL * kSecond);
  EXPECT_EQ(s.settings.eviction_delay, 30 * kSecond);
  EXPECT_EQ(s.settings.cycle_duration, 10 * kMillisecond);
  EXPECT_EQ(s.settings.until, 2 * kHour);
  EXPECT_EQ(s.settings.seed, 42u);
  EXPECT_EQ(s.settings.queue_ordering.name, "kueue");
  const ClusterSpec& c = s.clusters[0];
  ASSERT_TRUE(c.configuration.fair_sharing.has_value());
  EXPECT_EQ(c.configuration.fair_sharing->preemption_strategies.size(), 2u);
  EXPECT_FALSE(c.feature_gates.partial_admission);
  EXPECT_THAT(s.report.warnings, Contains(AllOf(HasSubstr("sim.yaml"), HasSubstr("SomethingElse"))));
}

// Setup: no Simulation start time; workloads with creationTimestamps at
// 10:00 and 11:00, and none at all. Invariant: the start time defaults to the
// latest creationTimestamp, or to 2025-01-01T00:00:00Z without any.
TEST(ScenarioLoaderTest, StartTimeDefaults) {
  using ::kueuesim::testing::WorkloadOptions;
  WorkloadOptions a, b;
  a.creation = "2025-03-01T10:00:00Z";
  b.creation = "2025-03-01T11:00:00Z";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(
      Scenario s, LoadYaml(::kueuesim::testing::WorkloadYaml("a", a) + ::kueuesim::testing::WorkloadYaml("b", b)));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(UnixMicros eleven, ParseRfc3339("2025-03-01T11:00:00Z"));
  EXPECT_EQ(s.settings.start_time, eleven);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario empty, LoadYaml("# nothing\n"));
  EXPECT_EQ(empty.settings.start_time, 1735689600LL * kSecond);
  ASSERT_EQ(empty.clusters.size(), 1u);  // the default cluster always exists
}

}  // namespace
}  // namespace kueuesim::scenario
