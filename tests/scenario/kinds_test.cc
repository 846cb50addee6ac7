// Tests for scenario/kinds: Kueue's other job integrations (JobSet, Kubeflow
// jobs, MPIJob, TrainJob, Ray, AppWrapper, SparkApplication) loaded from
// YAML into the Workloads Kueue builds. Cases follow Kueue's own controller
// tests (pkg/controller/jobs/<kind>/*_test.go, TestPodSets and friends); the
// test names say which.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/time.h"
#include "kueuesim/cluster/cluster_state.h"
#include "kueuesim/scenario/scenario.h"
#include "testing/scenario_fixtures.h"
#include "testing/status_matchers.h"

namespace kueuesim::scenario {
namespace {

using ::kueuesim::testing::LoadYaml;
using ::kueuesim::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kFile[] = "test.yaml";

// The 1-based line of the `n`th (0-based) occurrence of `needle` in `text`.
int LineOf(std::string_view text, std::string_view needle, int n = 0) {
  size_t at = text.find(needle);
  for (int i = 0; i < n && at != std::string_view::npos; ++i) at = text.find(needle, at + 1);
  if (at == std::string_view::npos) return -1;
  int line = 1;
  for (size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

std::string At(std::string_view text, std::string_view needle, int n = 0) {
  return std::string(kFile) + ":" + std::to_string(LineOf(text, needle, n)) + ": ";
}

Amount RequestOf(const model::PodSet& ps, const std::string& resource) {
  for (const auto& r : ps.requests) {
    if (r.name == resource) return r.amount;
  }
  return -1;
}

// "name:count" per pod set, in order.
std::vector<std::string> Shape(const model::Workload& wl) {
  std::vector<std::string> out;
  for (const auto& ps : wl.pod_sets) out.push_back(ps.name + ":" + std::to_string(ps.count));
  return out;
}

// The only workload of the default cluster of `yaml`.
model::Workload OnlyWorkload(std::string_view yaml) {
  auto scenario = LoadYaml(yaml, kFile);
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  if (!scenario.ok()) return {};
  EXPECT_EQ(scenario->clusters.front().workloads.size(), 1u);
  if (scenario->clusters.front().workloads.size() != 1) return {};
  return scenario->clusters.front().workloads.front();
}

absl::Status LoadError(std::string_view yaml) { return LoadYaml(yaml, kFile).status(); }

constexpr Amount kGi = 1024LL * 1024 * 1024;
constexpr Amount kMi = 1024LL * 1024;

// --- JobSet (jobset_controller_test.go) ---

// A JobSet of two replicated jobs; `job1_annotations` go on job1's pod
// template (lines indented by 14).
std::string JobSet(const std::string& job1_annotations = "", const std::string& extra_metadata = "") {
  std::string pod1 = job1_annotations.empty() ? "" : "          metadata:\n            annotations:\n" + job1_annotations;
  return R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: jobset
  namespace: ns
  labels:
    kueue.x-k8s.io/queue-name: user-queue
)" + extra_metadata +
         R"(spec:
  replicatedJobs:
  - name: job1
    replicas: 2
    template:
      spec:
        parallelism: 1
        completions: 1
        template:
)" + pod1 + R"(          spec:
            containers: [{name: c, image: busybox, resources: {requests: {cpu: "2"}}}]
  - name: job2
    replicas: 3
    template:
      spec:
        parallelism: 2
        completions: 3
        template:
          spec:
            containers: [{name: c, image: busybox, resources: {requests: {cpu: "1", memory: 1Gi}}}]
)";
}

// TestPodSets "no annotations": a pod set per replicated job, in order,
// replicas x min(parallelism, completions) pods, requests from the template.
TEST(JobSetTest, PodSetPerReplicatedJob) {
  model::Workload wl = OnlyWorkload(JobSet());
  EXPECT_EQ(wl.meta.name, "jobset-jobset");
  EXPECT_EQ(wl.meta.namespace_, "ns");
  EXPECT_EQ(wl.queue_name, "user-queue");
  EXPECT_EQ(wl.source_kind, model::WorkloadSourceKind::kJobSet);
  EXPECT_THAT(Shape(wl), ElementsAre("job1:2", "job2:6"));
  EXPECT_EQ(RequestOf(wl.pod_sets[0], "cpu"), 2000);
  EXPECT_EQ(RequestOf(wl.pod_sets[1], "cpu"), 1000);
  EXPECT_EQ(RequestOf(wl.pod_sets[1], "memory"), kGi);
  EXPECT_FALSE(wl.pod_sets[0].min_count.has_value());
  // With TAS on (the default), the index labels make a (non-explicit)
  // topology request.
  ASSERT_TRUE(wl.pod_sets[0].topology_request.has_value());
  EXPECT_FALSE(wl.pod_sets[0].topology_request->IsExplicit());
  EXPECT_EQ(wl.pod_sets[0].topology_request->pod_index_label, "batch.kubernetes.io/job-completion-index");
  EXPECT_EQ(wl.pod_sets[0].topology_request->sub_group_index_label, "jobset.sigs.k8s.io/job-index");
  EXPECT_EQ(wl.pod_sets[0].topology_request->sub_group_count, 2);
  EXPECT_EQ(wl.pod_sets[1].topology_request->sub_group_count, 3);
}

// TestPodSets "with required topology annotation": only job1 asks for a
// level.
TEST(JobSetTest, RequiredTopologyOnOneReplicatedJob) {
  model::Workload wl =
      OnlyWorkload(JobSet("              kueue.x-k8s.io/podset-required-topology: cloud.com/block\n"));
  ASSERT_EQ(wl.pod_sets.size(), 2u);
  EXPECT_EQ(wl.pod_sets[0].topology_request->required, "cloud.com/block");
  EXPECT_TRUE(wl.pod_sets[0].topology_request->IsExplicit());
  EXPECT_FALSE(wl.pod_sets[1].topology_request->IsExplicit());
}

// TestPodSets "with preferred topology annotation" (on job1 here).
TEST(JobSetTest, PreferredTopology) {
  model::Workload wl =
      OnlyWorkload(JobSet("              kueue.x-k8s.io/podset-preferred-topology: cloud.com/block\n"));
  ASSERT_EQ(wl.pod_sets.size(), 2u);
  EXPECT_EQ(wl.pod_sets[0].topology_request->preferred, "cloud.com/block");
  EXPECT_FALSE(wl.pod_sets[0].topology_request->required.has_value());
}

// The JobSet API defaults replicas to 1, a Job's parallelism to 1 and its
// completions to the parallelism (PodsCountPerReplica).
TEST(JobSetTest, Defaults) {
  model::Workload wl = OnlyWorkload(R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  replicatedJobs:
  - name: Driver
    template: {spec: {template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}}
  - name: workers
    replicas: 4
    template: {spec: {parallelism: 3, template: {spec: {containers: [{name: c}]}}}}
  - name: capped
    template: {spec: {parallelism: 5, completions: 2, template: {spec: {containers: [{name: c}]}}}}
)");
  // Pod set names are lowercased (kueue.NewPodSetReference).
  EXPECT_THAT(Shape(wl), ElementsAre("driver:1", "workers:12", "capped:2"));
}

TEST(JobSetTest, TimingAnnotationsAndPriorityLabel) {
  model::Workload wl = OnlyWorkload(JobSet("", R"(  annotations:
    kueuesim.io/arrival: 30s
    kueuesim.io/duration: 10m
)"));
  EXPECT_EQ(wl.arrival, 30 * kSecond);
  EXPECT_EQ(wl.duration, 10 * kMinute);
}

TEST(JobSetTest, NoQueueNameIsAWarning) {
  const std::string yaml = R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js}
spec:
  replicatedJobs: [{name: a, template: {spec: {template: {spec: {containers: [{name: c}]}}}}}]
)";
  auto scenario = LoadYaml(yaml, kFile);
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  EXPECT_THAT(scenario->clusters.front().workloads, IsEmpty());
  ASSERT_EQ(scenario->report.warnings.size(), 1u);
  EXPECT_EQ(scenario->report.warnings[0],
            "test.yaml:1: JobSet \"js\" has no kueue.x-k8s.io/queue-name label; Kueue does not manage it");
  EXPECT_THAT(scenario->report.unknown_kinds, IsEmpty());
}

// Webhook rejections name the file, line, object and field.
TEST(JobSetTest, WebhookRejections) {
  // More than one of required / preferred / unconstrained.
  std::string yaml = JobSet(
      "              kueue.x-k8s.io/podset-required-topology: cloud.com/block\n"
      "              kueue.x-k8s.io/podset-preferred-topology: cloud.com/rack\n");
  EXPECT_THAT(LoadError(yaml),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(At(yaml, "kueue.x-k8s.io/podset-required") +
                                 "JobSet \"jobset\": spec.replicatedJobs[0].template.spec.template.metadata."
                                 "annotations: must not contain more than one topology annotation")));
  // A slice size above the pod set count.
  yaml = JobSet(
      "              kueue.x-k8s.io/podset-slice-required-topology: cloud.com/block\n"
      "              kueue.x-k8s.io/podset-slice-size: \"3\"\n");
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("kueue.x-k8s.io/podset-slice-size: \"3\" must not be greater "
                                                  "than pod set count 2")));
  // A slice topology without a size.
  yaml = JobSet("              kueue.x-k8s.io/podset-slice-required-topology: cloud.com/block\n");
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("must be set when 'kueue.x-k8s.io/podset-slice-required-topology' "
                                                  "is specified")));
  // elastic-job is only for Job and the Ray kinds.
  yaml = JobSet("", "  annotations: {kueue.x-k8s.io/elastic-job: \"true\"}\n");
  EXPECT_THAT(LoadError(yaml),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(At(yaml, "kueue.x-k8s.io/elastic-job") +
                                 "JobSet \"jobset\": metadata.annotations.kueue.x-k8s.io/elastic-job: elastic jobs "
                                 "are not supported for JobSet")));
  // A queue name that is not a DNS subdomain.
  yaml = R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, labels: {kueue.x-k8s.io/queue-name: User_Queue}}
spec: {replicatedJobs: [{name: a, template: {spec: {template: {spec: {containers: [{name: c}]}}}}}]}
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("\"User_Queue\" is not a valid queue name")));
  // A malformed quantity in a template.
  yaml = R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  replicatedJobs:
  - name: a
    template: {spec: {template: {spec: {containers: [{name: c, resources: {requests: {cpu: 2x}}}]}}}}
)";
  EXPECT_THAT(LoadError(yaml),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(At(yaml, "cpu: 2x") + "JobSet \"js\": spec.replicatedJobs[0].template.spec.template."
                                                       "spec.containers[0].resources.requests.cpu")));
  // Two replicated jobs whose names lowercase alike.
  yaml = R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  replicatedJobs:
  - {name: a, template: {spec: {template: {spec: {containers: [{name: c}]}}}}}
  - {name: A, template: {spec: {template: {spec: {containers: [{name: c}]}}}}}
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("spec.replicatedJobs: gives the pod set name \"a\" twice")));
}

// ValidatePodSetGroupingTopology: a group has exactly two pod sets, one of
// them of one pod, with the same level; a valid group is recorded.
TEST(JobSetTest, PodSetGroups) {
  const std::string group = R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  replicatedJobs:
  - name: leader
    template:
      spec:
        template:
          metadata:
            annotations: {kueue.x-k8s.io/podset-required-topology: rack, kueue.x-k8s.io/podset-group-name: g}
          spec: {containers: [{name: c}]}
  - name: workers
    replicas: 4
    template:
      spec:
        template:
          metadata:
            annotations: {kueue.x-k8s.io/podset-required-topology: LEVEL, kueue.x-k8s.io/podset-group-name: g}
          spec: {containers: [{name: c}]}
)";
  std::string yaml = group;
  yaml.replace(yaml.find("LEVEL"), 5, "rack");
  model::Workload wl = OnlyWorkload(yaml);
  EXPECT_EQ(wl.pod_sets[0].topology_request->pod_set_group_name, "g");
  EXPECT_EQ(wl.pod_sets[1].topology_request->pod_set_group_name, "g");
  yaml = group;
  yaml.replace(yaml.find("LEVEL"), 5, "block");
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("topology consistent with pod set \"workers\" in group 'g'")));
}

// --- Kubeflow v1 (kubeflow/jobs/*_controller_test.go) ---

// tfjob_controller_test.go TestOrderedReplicaTypes / TestPodSets: the fixed
// order chief, (master), ps, worker, evaluator, whatever the map's order.
TEST(KubeflowTest, TFJobReplicaOrder) {
  model::Workload wl = OnlyWorkload(R"(apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: tf, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  tfReplicaSpecs:
    Worker:    {replicas: 4, template: {spec: {containers: [{name: tensorflow, resources: {requests: {cpu: "4", nvidia.com/gpu: "1"}}}]}}}
    PS:        {replicas: 2, template: {spec: {containers: [{name: tensorflow, resources: {requests: {cpu: "2"}}}]}}}
    Chief:     {replicas: 1, template: {spec: {containers: [{name: tensorflow, resources: {requests: {cpu: "1"}}}]}}}
    Evaluator: {replicas: 1, template: {spec: {containers: [{name: tensorflow, resources: {requests: {cpu: "1"}}}]}}}
)");
  EXPECT_EQ(wl.meta.name, "tfjob-tf");
  EXPECT_EQ(wl.source_kind, model::WorkloadSourceKind::kTFJob);
  EXPECT_THAT(Shape(wl), ElementsAre("chief:1", "ps:2", "worker:4", "evaluator:1"));
  EXPECT_EQ(RequestOf(wl.pod_sets[2], "nvidia.com/gpu"), 1);
  EXPECT_EQ(wl.pod_sets[2].topology_request->pod_index_label, "training.kubeflow.org/replica-index");
}

// pytorchjob_controller_test.go TestPodSets "no annotations": master first;
// TestPriorityClass: runPolicy.schedulingPolicy.priorityClass wins over
// the templates' classes.
TEST(KubeflowTest, PyTorchJobOrderAndRunPolicyPriority) {
  model::Workload wl = OnlyWorkload(R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  runPolicy:
    schedulingPolicy: {priorityClass: high}
  pytorchReplicaSpecs:
    Worker: {replicas: 3, template: {spec: {priorityClassName: low, containers: [{name: pytorch}]}}}
    Master: {template: {spec: {containers: [{name: pytorch}]}}}
)");
  EXPECT_THAT(Shape(wl), ElementsAre("master:1", "worker:3"));
  EXPECT_EQ(wl.priority_class_name, "high");
  EXPECT_EQ(wl.rare->priority_class_source, "scheduling.k8s.io/priorityclass");
}

TEST(KubeflowTest, OtherKinds) {
  EXPECT_THAT(Shape(OnlyWorkload(R"(apiVersion: kubeflow.org/v1
kind: JAXJob
metadata: {name: j, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {jaxReplicaSpecs: {Worker: {replicas: 2, template: {spec: {containers: [{name: jax}]}}}}}
)")),
              ElementsAre("worker:2"));
  EXPECT_THAT(Shape(OnlyWorkload(R"(apiVersion: kubeflow.org/v1
kind: XGBoostJob
metadata: {name: x, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  xgbReplicaSpecs:
    Worker: {replicas: 2, template: {spec: {containers: [{name: xgboost}]}}}
    Master: {replicas: 1, template: {spec: {containers: [{name: xgboost}]}}}
)")),
              ElementsAre("master:1", "worker:2"));
  model::Workload paddle = OnlyWorkload(R"(apiVersion: kubeflow.org/v1
kind: PaddleJob
metadata: {name: p, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  paddleReplicaSpecs:
    Worker: {replicas: 2, template: {spec: {containers: [{name: paddle}]}}}
    Master: null
)");
  EXPECT_THAT(Shape(paddle), ElementsAre("worker:2"));
  EXPECT_EQ(paddle.meta.name, "paddlejob-p");
}

TEST(KubeflowTest, Rejections) {
  std::string yaml = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  pytorchReplicaSpecs:
    Launcher: {replicas: 1, template: {spec: {containers: [{name: pytorch}]}}}
)";
  EXPECT_THAT(LoadError(yaml),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(At(yaml, "Launcher") + "PyTorchJob \"pt\": spec.pytorchReplicaSpecs.Launcher: unknown "
                                                        "replica type \"Launcher\" (valid: Master, Worker)")));
  yaml = R"(apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: tf, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  tfReplicaSpecs:
    Worker:
      replicas: -1
      template: {spec: {containers: [{name: c}]}}
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(At(yaml, "replicas: -1") + "TFJob \"tf\": spec.tfReplicaSpecs.Worker."
                                                                             "replicas: -1 must not be negative")));
  yaml = R"(apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: tf, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {tfReplicaSpecs: {}}
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("spec.tfReplicaSpecs: gives 0 pod sets; a Workload has 1 to 18")));
}

// A kubeflow.org kind Kueue does not integrate stays an unsupported kind.
TEST(KubeflowTest, MXJobIsUnsupported) {
  auto scenario = LoadYaml(R"(apiVersion: kubeflow.org/v1
kind: MXJob
metadata: {name: mx, labels: {kueue.x-k8s.io/queue-name: q}}
)",
                           kFile);
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  EXPECT_EQ(scenario->report.unknown_kinds.at("kubeflow.org/v1/MXJob"), 1);
}

// --- MPIJob (mpijob_controller_test.go) ---

// TestPodSets "no annotations" (launcher 1, worker 3) with the worker's
// required topology; "nil launcher replica spec is skipped".
TEST(MPIJobTest, LauncherAndWorkers) {
  model::Workload wl = OnlyWorkload(R"(apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: pi, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  slotsPerWorker: 1
  runLauncherAsWorker: true
  mpiReplicaSpecs:
    Launcher: {replicas: 1, template: {spec: {containers: [{name: l, resources: {requests: {cpu: "1"}}}]}}}
    Worker:
      replicas: 3
      template:
        metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: cloud.com/rack}}
        spec: {containers: [{name: w, resources: {requests: {cpu: "2"}}}]}
)");
  EXPECT_EQ(wl.meta.name, "mpijob-pi");
  EXPECT_THAT(Shape(wl), ElementsAre("launcher:1", "worker:3"));
  EXPECT_EQ(RequestOf(wl.pod_sets[1], "cpu"), 2000);
  EXPECT_EQ(wl.pod_sets[1].topology_request->required, "cloud.com/rack");
  EXPECT_FALSE(wl.pod_sets[0].topology_request->IsExplicit());

  EXPECT_THAT(Shape(OnlyWorkload(R"(apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: pi, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  mpiReplicaSpecs:
    Launcher: null
    Worker: {template: {spec: {containers: [{name: w}]}}}
)")),
              ElementsAre("worker:1"));
}

// --- Ray (rayjob / raycluster / rayservice controller tests, common_test.go) ---

std::string RayJob(const std::string& spec_extra, const std::string& metadata_extra = "") {
  return R"(apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: rj
  labels: {kueue.x-k8s.io/queue-name: user-queue}
)" + metadata_extra +
         R"(spec:
  entrypoint: python train.py
  shutdownAfterJobFinishes: true
)" + spec_extra +
         R"(  rayClusterSpec:
    headGroupSpec:
      rayStartParams: {}
      template: {spec: {containers: [{name: ray-head, resources: {requests: {cpu: "2", memory: 8Gi}}}]}}
    workerGroupSpecs:
    - {groupName: small, replicas: 2, rayStartParams: {}, template: {spec: {containers: [{name: w, resources: {requests: {cpu: "4"}}}]}}}
    - {groupName: tpu-slice, replicas: 2, numOfHosts: 4, rayStartParams: {}, template: {spec: {containers: [{name: w, resources: {requests: {cpu: "8", google.com/tpu: "4"}}}]}}}
)";
}

// TestPodSets "with default job submitter" and "with NumOfHosts > 1": head,
// workers (replicas x numOfHosts), then the default submitter (K8sJobMode,
// the CRD default).
TEST(RayTest, RayJobDefaultSubmitter) {
  model::Workload wl = OnlyWorkload(RayJob(""));
  EXPECT_EQ(wl.meta.name, "rayjob-rj");
  EXPECT_EQ(wl.source_kind, model::WorkloadSourceKind::kRayJob);
  EXPECT_THAT(Shape(wl), ElementsAre("head:1", "small:2", "tpu-slice:8", "submitter:1"));
  EXPECT_EQ(RequestOf(wl.pod_sets[2], "google.com/tpu"), 4);
  EXPECT_EQ(RequestOf(wl.pod_sets[3], "cpu"), 500);
  EXPECT_EQ(RequestOf(wl.pod_sets[3], "memory"), 200 * kMi);
  // Ray sets no pod index label: no topology request without annotations.
  EXPECT_FALSE(wl.pod_sets[0].topology_request.has_value());
  EXPECT_FALSE(wl.duration.has_value());
}

// TestPodSets "with sidecar submission mode...": the submitter container
// joins the head; HTTPMode / InteractiveMode add nothing.
TEST(RayTest, RayJobSubmissionModes) {
  model::Workload sidecar = OnlyWorkload(RayJob("  submissionMode: SidecarMode\n"));
  EXPECT_THAT(Shape(sidecar), ElementsAre("head:1", "small:2", "tpu-slice:8"));
  EXPECT_EQ(RequestOf(sidecar.pod_sets[0], "cpu"), 2500);
  EXPECT_EQ(RequestOf(sidecar.pod_sets[0], "memory"), 8 * kGi + 200 * kMi);
  EXPECT_THAT(Shape(OnlyWorkload(RayJob("  submissionMode: HTTPMode\n"))),
              ElementsAre("head:1", "small:2", "tpu-slice:8"));
  model::Workload custom = OnlyWorkload(RayJob(R"(  submitterPodTemplate:
    metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: cloud.com/block}}
    spec: {restartPolicy: Never, containers: [{name: s, resources: {requests: {cpu: 100m}}}]}
)"));
  EXPECT_EQ(RequestOf(custom.pod_sets[3], "cpu"), 100);
  EXPECT_EQ(custom.pod_sets[3].topology_request->required, "cloud.com/block");
}

// TestPodSets "with gcs fault tolerance": the head's Ray container requests
// at least 200m / 256Mi (KubeRay's Redis cleanup Job); also by annotation.
TEST(RayTest, GcsFaultToleranceShim) {
  model::Workload wl = OnlyWorkload(R"(apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rc, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  gcsFaultToleranceOptions: {redisAddress: "redis:6379"}
  headGroupSpec: {template: {spec: {containers: [{name: head_c, resources: {requests: {cpu: 100m, memory: 1Gi}}}]}}}
  workerGroupSpecs:
  - {groupName: group1, replicas: 1, template: {spec: {containers: [{name: group1_c}]}}}
)");
  EXPECT_EQ(wl.meta.name, "raycluster-rc");
  EXPECT_EQ(RequestOf(wl.pod_sets[0], "cpu"), 200);
  EXPECT_EQ(RequestOf(wl.pod_sets[0], "memory"), kGi);
  model::Workload by_annotation = OnlyWorkload(R"(apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rc, labels: {kueue.x-k8s.io/queue-name: q}, annotations: {ray.io/ft-enabled: "True"}}
spec:
  headGroupSpec: {template: {spec: {containers: [{name: head_c}]}}}
)");
  EXPECT_EQ(RequestOf(by_annotation.pod_sets[0], "cpu"), 200);
  EXPECT_EQ(RequestOf(by_annotation.pod_sets[0], "memory"), 256 * kMi);
}

// common_test.go TestBuildPodSets: NumOfHosts multiplies; the autoscaler
// sidecar (500m / 512Mi by default) joins the head of an elastic
// autoscaling RayCluster; a RayCluster never finishes by itself.
TEST(RayTest, RayClusterAutoscalerAndHosts) {
  model::Workload wl = OnlyWorkload(R"(apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: rc
  labels: {kueue.x-k8s.io/queue-name: q}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
spec:
  enableInTreeAutoscaling: true
  headGroupSpec: {template: {spec: {containers: [{name: head, resources: {requests: {cpu: "1"}}}]}}}
  workerGroupSpecs:
  - {groupName: Workers, replicas: 3, numOfHosts: 2, minReplicas: 0, maxReplicas: 10, template: {spec: {containers: [{name: w}]}}}
  - {groupName: spare, template: {spec: {containers: [{name: w}]}}}
)");
  // KubeRay's CRD defaults an omitted replicas to 0.
  EXPECT_THAT(Shape(wl), ElementsAre("head:1", "workers:6", "spare:0"));
  EXPECT_EQ(RequestOf(wl.pod_sets[0], "cpu"), 1500);
  EXPECT_EQ(RequestOf(wl.pod_sets[0], "memory"), 512 * kMi);
  EXPECT_EQ(wl.source_kind, model::WorkloadSourceKind::kRayCluster);
  EXPECT_FALSE(wl.duration.has_value());
  // autoscalerOptions.resources replaces the defaults.
  model::Workload custom = OnlyWorkload(R"(apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: rc
  labels: {kueue.x-k8s.io/queue-name: q}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
spec:
  enableInTreeAutoscaling: true
  autoscalerOptions: {resources: {requests: {cpu: 250m}, limits: {cpu: 250m, memory: 1Gi}}}
  headGroupSpec: {template: {spec: {containers: [{name: head, resources: {requests: {cpu: "1"}}}]}}}
)");
  EXPECT_EQ(RequestOf(custom.pod_sets[0], "cpu"), 1250);
  EXPECT_EQ(RequestOf(custom.pod_sets[0], "memory"), kGi);
}

// rayservice_controller_test.go TestPodSets "no annotations": head 1,
// group1 1, group2 3; a RayService is serving (no duration).
TEST(RayTest, RayService) {
  model::Workload wl = OnlyWorkload(R"(apiVersion: ray.io/v1
kind: RayService
metadata: {name: rs, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  rayClusterConfig:
    headGroupSpec: {template: {spec: {containers: [{name: head_c}]}}}
    workerGroupSpecs:
    - {groupName: group1, replicas: 1, template: {spec: {containers: [{name: group1_c}]}}}
    - {groupName: group2, replicas: 3, template: {spec: {containers: [{name: group2_c}]}}}
)");
  EXPECT_EQ(wl.meta.name, "rayservice-rs");
  EXPECT_THAT(Shape(wl), ElementsAre("head:1", "group1:1", "group2:3"));
  EXPECT_EQ(wl.source_kind, model::WorkloadSourceKind::kRayService);
  EXPECT_FALSE(wl.duration.has_value());
}

// RayJob Skip: a RayJob on an existing cluster (clusterSelector) is not
// Kueue's; the webhook rejects the other inconsistent shapes.
TEST(RayTest, RayJobWebhookRules) {
  const std::string selector = R"(apiVersion: ray.io/v1
kind: RayJob
metadata: {name: rj, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  clusterSelector: {ray.io/cluster: shared}
)";
  auto scenario = LoadYaml(selector, kFile);
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  EXPECT_THAT(scenario->clusters.front().workloads, IsEmpty());
  ASSERT_EQ(scenario->report.warnings.size(), 1u);
  EXPECT_THAT(scenario->report.warnings[0], HasSubstr("test.yaml:1: RayJob \"rj\" runs on an existing RayCluster"));

  std::string yaml = RayJob("");
  yaml.replace(yaml.find("shutdownAfterJobFinishes: true"), 30, "shutdownAfterJobFinishes: false");
  EXPECT_THAT(LoadError(yaml),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(At(yaml, "shutdownAfterJobFinishes") +
                                 "RayJob \"rj\": spec.shutdownAfterJobFinishes: a kueue managed job should delete "
                                 "the cluster after finishing")));
  yaml = RayJob("  clusterSelector: {ray.io/cluster: shared}\n");
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("spec.clusterSelector: a kueue managed job should not use an "
                                                  "existing cluster")));
  yaml = R"(apiVersion: ray.io/v1
kind: RayJob
metadata: {name: rj, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {shutdownAfterJobFinishes: true}
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("spec.rayClusterSpec: rayClusterSpec is required")));
  // Autoscaling without elasticity.
  yaml = RayJob("", "");
  yaml.replace(yaml.find("  rayClusterSpec:\n"), 18, "  rayClusterSpec:\n    enableInTreeAutoscaling: true\n");
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("spec.rayClusterSpec.enableInTreeAutoscaling: a kueue managed job "
                                                  "should only use autoscaling when workload slicing is enabled")));
  // A worker group named head.
  yaml = R"(apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rc, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  headGroupSpec: {template: {spec: {containers: [{name: h}]}}}
  workerGroupSpecs:
  - {groupName: head, replicas: 1, template: {spec: {containers: [{name: w}]}}}
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(At(yaml, "groupName: head") +
                                                  "RayCluster \"rc\": spec.workerGroupSpecs[0].groupName: \"head\" is "
                                                  "reserved for the head group")));
  // RayCluster autoscaling without the elastic-job annotation.
  yaml = R"(apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rc, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  enableInTreeAutoscaling: true
  headGroupSpec: {template: {spec: {containers: [{name: h}]}}}
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("a kueue-managed RayCluster can use autoscaling only as an elastic "
                                                  "job")));
}

// --- AppWrapper (appwrapper_controller_test.go) ---

// TestPodSets "no annotations": a PyTorchJob (Master 1, Worker 4) and a Job
// (parallelism 2) give aw-0, aw-1, aw-2 with inferred TAS index labels.
TEST(AppWrapperTest, InferredPodSets) {
  model::Workload wl = OnlyWorkload(R"(apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: aw, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  components:
  - template:
      apiVersion: kubeflow.org/v1
      kind: PyTorchJob
      metadata: {name: ptj}
      spec:
        pytorchReplicaSpecs:
          Master: {replicas: 1, template: {spec: {containers: [{name: pytorch, resources: {requests: {cpu: "2"}}}]}}}
          Worker: {replicas: 4, template: {spec: {containers: [{name: pytorch, resources: {requests: {cpu: "2", nvidia.com/gpu: "1"}}}]}}}
  - template:
      apiVersion: batch/v1
      kind: Job
      metadata: {name: post}
      spec: {parallelism: 2, template: {spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}
)");
  EXPECT_EQ(wl.meta.name, "appwrapper-aw");
  EXPECT_THAT(Shape(wl), ElementsAre("aw-0:1", "aw-1:4", "aw-2:2"));
  EXPECT_EQ(RequestOf(wl.pod_sets[1], "nvidia.com/gpu"), 1);
  EXPECT_EQ(wl.pod_sets[0].topology_request->pod_index_label, "training.kubeflow.org/replica-index");
  EXPECT_EQ(wl.pod_sets[2].topology_request->pod_index_label, "batch.kubernetes.io/job-completion-index");
}

// Declared pod sets win over inference (and must agree with it); kinds the
// library does not know need them; a RayCluster's worker replicas default
// to 1 (no CRD defaulting inside an AppWrapper).
TEST(AppWrapperTest, DeclaredPodSets) {
  model::Workload wl = OnlyWorkload(R"(apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: AW, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  components:
  - podSets:
    - {path: template.spec.template, replicas: 3, annotations: {workload.codeflare.dev.appwrapper/tas-pod-index-label: my-index}}
    template:
      apiVersion: example.com/v1
      kind: Custom
      metadata: {name: c}
      spec: {template: {spec: {containers: [{name: c, resources: {requests: {cpu: 250m}}}]}}}
  - template:
      apiVersion: ray.io/v1
      kind: RayCluster
      metadata: {name: rc}
      spec:
        headGroupSpec: {template: {spec: {containers: [{name: h}]}}}
        workerGroupSpecs: [{groupName: g, numOfHosts: 2, template: {spec: {containers: [{name: w}]}}}]
)");
  EXPECT_THAT(Shape(wl), ElementsAre("aw-0:3", "aw-1:1", "aw-2:1"));
  EXPECT_EQ(RequestOf(wl.pod_sets[0], "cpu"), 250);
  EXPECT_EQ(wl.pod_sets[0].topology_request->pod_index_label, "my-index");
  EXPECT_FALSE(wl.pod_sets[1].topology_request.has_value());
}

TEST(AppWrapperTest, WebhookRejections) {
  std::string yaml = R"(apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: aw, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  components:
  - podSets: [{path: template.spec.template, replicas: 5}]
    template:
      apiVersion: batch/v1
      kind: Job
      metadata: {name: j}
      spec: {parallelism: 2, template: {spec: {containers: [{name: c}]}}}
)";
  EXPECT_THAT(LoadError(yaml),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("AppWrapper \"aw\": spec.components[0].podSets: replica count 5 differs from inferred "
                                 "count 2 for PodSet at path position 'template.spec.template'")));
  yaml = R"(apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: aw, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  components:
  - podSets: [{path: template.spec.missing}]
    template: {apiVersion: example.com/v1, kind: Custom, metadata: {name: c}, spec: {}}
)";
  EXPECT_THAT(LoadError(yaml),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(At(yaml, "path: template.spec.missing") +
                                 "AppWrapper \"aw\": spec.components[0].podSets[0].path: \"template.spec.missing\": "
                                 "path does not refer to a v1.PodSpecTemplate")));
  yaml = R"(apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: aw, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  components:
  - template: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("spec.components: components contains no podspecs")));
}

// --- SparkApplication (sparkapplication_controller_test.go) ---

// TestPodSets "base": driver 1 and executor 3 (instances), cpu from
// coreRequest, memory from `memory` in Java units.
TEST(SparkTest, DriverAndExecutors) {
  model::Workload wl = OnlyWorkload(R"(apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: pi, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  type: Scala
  mode: cluster
  driver: {cores: 1, coreRequest: 100m, memory: 512m, serviceAccount: spark, priorityClassName: high}
  executor:
    cores: 2
    coreRequest: 1500m
    memory: 4g
    instances: 3
    gpu: {name: nvidia.com/gpu, quantity: 1}
    annotations: {kueue.x-k8s.io/podset-required-topology: cloud.com/rack}
)");
  EXPECT_EQ(wl.meta.name, "sparkapplication-pi");
  EXPECT_THAT(Shape(wl), ElementsAre("driver:1", "executor:3"));
  EXPECT_EQ(RequestOf(wl.pod_sets[0], "cpu"), 100);
  EXPECT_EQ(RequestOf(wl.pod_sets[0], "memory"), 512 * kMi);
  EXPECT_EQ(wl.pod_sets[0].rare->priority_class_name, "high");
  EXPECT_EQ(RequestOf(wl.pod_sets[1], "cpu"), 1500);
  EXPECT_EQ(RequestOf(wl.pod_sets[1], "memory"), 4 * kGi);
  EXPECT_EQ(RequestOf(wl.pod_sets[1], "nvidia.com/gpu"), 1);  // a limit standing in for the request
  EXPECT_EQ(wl.pod_sets[1].topology_request->required, "cloud.com/rack");
  EXPECT_FALSE(wl.pod_sets[0].topology_request.has_value());
}

// The operator's defaulting (memory 1g, one executor), sidecars and init
// containers; Kueue ignores `cores`.
TEST(SparkTest, DefaultsAndSidecars) {
  model::Workload wl = OnlyWorkload(R"(apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: app, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  driver:
    cores: 4
    sidecars: [{name: log, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
    initContainers: [{name: init, resources: {requests: {cpu: "3"}}}]
  executor: {memory: 2gb}
)");
  EXPECT_THAT(Shape(wl), ElementsAre("driver:1", "executor:1"));
  EXPECT_EQ(RequestOf(wl.pod_sets[0], "cpu"), 3000);
  EXPECT_EQ(RequestOf(wl.pod_sets[0], "memory"), kGi + 64 * kMi);
  EXPECT_EQ(RequestOf(wl.pod_sets[1], "memory"), 2 * kGi);
  EXPECT_EQ(RequestOf(wl.pod_sets[1], "cpu"), -1);
}

// sparkapplication_webhook_test.go TestValidateCreate.
TEST(SparkTest, WebhookRejections) {
  std::string yaml = R"(apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: app, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  mode: client
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(At(yaml, "mode: client") +
                                                  "SparkApplication \"app\": spec.mode: \"client\": only Cluster mode "
                                                  "is supported for a kueue managed job")));
  yaml = R"(apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: app, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  dynamicAllocation: {enabled: true}
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("spec.dynamicAllocation.enabled: a kueue managed job can use "
                                                  "dynamicAllocation only when")));
  // "1G": the operator's conversion gives "1GGi", not a quantity.
  yaml = R"(apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: app, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  driver: {memory: 1G}
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(At(yaml, "memory: 1G") + "SparkApplication \"app\": spec.driver."
                                                                           "memory: \"1GGi\" is not a memory quantity")));
}

// --- TrainJob (trainjob_controller_test.go) ---

constexpr char kTorchRuntime[] = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: torch-small}
spec:
  mlPolicy: {numNodes: 1, torch: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              spec:
                containers: [{name: node, image: pytorch, resources: {requests: {cpu: "2", memory: 16Gi}}}]
      - name: foo
        template:
          spec:
            parallelism: 2
            template: {spec: {containers: [{name: foo, resources: {requests: {cpu: "1"}}}]}}
)";

constexpr char kTrainJob[] = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: ml, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  runtimeRef: {name: torch-small}
  trainer: {numNodes: 4, resourcesPerNode: {requests: {cpu: "8", nvidia.com/gpu: "1"}}}
)";

// TestReconciler "podset count for the trainer job is set to
// .Spec.Trainer.NumNodes": the trainer job takes numNodes, the other job
// its parallelism; resourcesPerNode merges key by key into container node.
// The runtime may come after the TrainJob.
TEST(TrainJobTest, TrainerNumNodesAndResourcesPerNode) {
  for (const bool runtime_first : {true, false}) {
    const std::string yaml = runtime_first ? std::string(kTorchRuntime) + "---\n" + kTrainJob
                                           : std::string(kTrainJob) + "---\n" + kTorchRuntime;
    model::Workload wl = OnlyWorkload(yaml);
    EXPECT_EQ(wl.meta.name, "trainjob-tj");
    EXPECT_EQ(wl.meta.namespace_, "ml");
    EXPECT_EQ(wl.source_kind, model::WorkloadSourceKind::kTrainJob);
    EXPECT_THAT(Shape(wl), ElementsAre("node:4", "foo:2"));
    ASSERT_EQ(wl.pod_sets.size(), 2u);
    EXPECT_EQ(RequestOf(wl.pod_sets[0], "cpu"), 8000);
    EXPECT_EQ(RequestOf(wl.pod_sets[0], "memory"), 16 * kGi);
    EXPECT_EQ(RequestOf(wl.pod_sets[0], "nvidia.com/gpu"), 1);
    EXPECT_EQ(RequestOf(wl.pod_sets[1], "cpu"), 1000);
    EXPECT_EQ(wl.pod_sets[0].topology_request->pod_index_label, "batch.kubernetes.io/job-completion-index");
  }
}

// runtimePatches are strategic-merged into the runtime's JobSet (by job
// and container name); the runtime's job order stays.
TEST(TrainJobTest, RuntimePatches) {
  const std::string yaml = std::string(kTorchRuntime) + R"(---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  runtimeRef: {name: torch-small, kind: ClusterTrainingRuntime}
  runtimePatches:
  - manager: example.com/tool
    trainingRuntimeSpec:
      template:
        spec:
          replicatedJobs:
          - name: foo
            template:
              spec:
                template:
                  metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: cloud.com/rack}}
                  spec:
                    containers: [{name: foo, resources: {requests: {memory: 1Gi}}}]
          - name: node
            template:
              spec:
                template:
                  spec: {nodeSelector: {pool: a100}}
)";
  model::Workload wl = OnlyWorkload(yaml);
  EXPECT_THAT(Shape(wl), ElementsAre("node:1", "foo:2"));
  EXPECT_EQ(RequestOf(wl.pod_sets[1], "cpu"), 1000);
  EXPECT_EQ(RequestOf(wl.pod_sets[1], "memory"), kGi);
  EXPECT_EQ(wl.pod_sets[1].topology_request->required, "cloud.com/rack");
  EXPECT_EQ(wl.pod_sets[0].rare->node_selector.at("pool"), "a100");
}

// An MPI runtime running the launcher as a node: job "node" gets
// numNodes - 1 (design note example 5.2), the launcher keeps 1.
TEST(TrainJobTest, MpiLauncherAsNode) {
  model::Workload wl = OnlyWorkload(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: deepspeed, namespace: ml}
spec:
  mlPolicy: {numNodes: 1, mpi: {runLauncherAsNode: true}}
  template:
    spec:
      replicatedJobs:
      - name: launcher
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec: {template: {spec: {containers: [{name: node, resources: {requests: {cpu: "1"}}}]}}}
      - name: node
        template:
          spec: {template: {spec: {containers: [{name: node, resources: {requests: {cpu: "4"}}}]}}}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: ds, namespace: ml, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  runtimeRef: {name: deepspeed, kind: TrainingRuntime}
  trainer: {numNodes: 3}
)");
  EXPECT_THAT(Shape(wl), ElementsAre("launcher:1", "node:2"));
}

TEST(TrainJobTest, Rejections) {
  std::string yaml = kTrainJob;
  EXPECT_THAT(LoadError(yaml),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(At(yaml, "runtimeRef") + "TrainJob \"tj\": spec.runtimeRef.name: runtime "
                                                          "'torch-small' not found: no ClusterTrainingRuntime "
                                                          "\"torch-small\" in the input")));
  // A TrainingRuntime is namespaced: one in another namespace does not count.
  yaml = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: other}
spec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: {template: {spec: {containers: [{name: node}]}}}}}]}}}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: ml, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {runtimeRef: {name: rt, kind: TrainingRuntime}}
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("no TrainingRuntime \"rt\" in namespace \"ml\" in the input")));
  yaml = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {runtimeRef: {name: rt, kind: Runtime}}
)";
  EXPECT_THAT(LoadError(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("spec.runtimeRef: unsupported runtime: Runtime.trainer.kubeflow.org")));
  // A TrainJob without a queue name is a warning and needs no runtime.
  auto scenario = LoadYaml(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj}
spec: {runtimeRef: {name: nowhere}}
)",
                           kFile);
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  EXPECT_THAT(scenario->clusters.front().workloads, IsEmpty());
  EXPECT_EQ(scenario->report.warnings.size(), 1u);
}

// Workloads keep their objects' input order, deferred TrainJobs included.
TEST(IntegratedKindsTest, InputOrderAcrossKinds) {
  const std::string yaml = std::string(kTrainJob) + "---\n" + JobSet() + "---\n" + kTorchRuntime;
  auto scenario = LoadYaml(yaml, kFile);
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  const auto& workloads = scenario->clusters.front().workloads;
  ASSERT_EQ(workloads.size(), 2u);
  EXPECT_EQ(workloads[0].meta.name, "trainjob-tj");
  EXPECT_EQ(workloads[1].meta.name, "jobset-jobset");
  EXPECT_LT(workloads[0].input_sequence, workloads[1].input_sequence);
}

// --- Priority (jobframework.ExtractPriority through ClusterState) ---

// WorkloadPriorityClass label, then the kind's own class (Kubeflow's run
// policy), then the first pod set's priorityClassName.
TEST(IntegratedKindsTest, PriorityResolution) {
  const std::string classes = R"(apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: urgent}
value: 5000
---
)";
  auto priority_of = [&](const std::string& job) -> int32_t {
    auto scenario = LoadYaml(classes + job, kFile);
    EXPECT_TRUE(scenario.ok()) << scenario.status();
    if (!scenario.ok()) return -1;
    auto state = cluster::ClusterState::Build(scenario->clusters.front(), 0, 0);
    EXPECT_TRUE(state.ok()) << state.status();
    if (!state.ok()) return -1;
    return (*state)->ResolvePriority(scenario->clusters.front().workloads.front());
  };
  const std::string pytorch = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt, labels: {kueue.x-k8s.io/queue-name: q LABEL}}
spec:
  RUNPOLICY
  pytorchReplicaSpecs:
    Master: {template: {spec: {priorityClassName: low, containers: [{name: pytorch}]}}}
)";
  auto variant = [&](const std::string& label, const std::string& run_policy) {
    std::string out = pytorch;
    out.replace(out.find(" LABEL"), 6, label);
    out.replace(out.find("RUNPOLICY"), 9, run_policy);
    return out;
  };
  EXPECT_EQ(priority_of(variant("", "runPolicy: {}")), 10);
  EXPECT_EQ(priority_of(variant("", "runPolicy: {schedulingPolicy: {priorityClass: high}}")), 1000);
  EXPECT_EQ(priority_of(variant(", kueue.x-k8s.io/priority-class: urgent",
                                "runPolicy: {schedulingPolicy: {priorityClass: high}}")),
            5000);
}

}  // namespace
}  // namespace kueuesim::scenario
