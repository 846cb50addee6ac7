// Tests for scenario/decode_pods.h: plain Pods, pod groups, Deployments and
// StatefulSets decoded from YAML into the Workloads Kueue's pod-based
// integrations create.
#include "scenario/decode_pods.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/time.h"
#include "kueuesim/doc/reader.h"
#include "kueuesim/scenario/scenario.h"
#include "scenario/field.h"
#include "testing/status_matchers.h"

namespace kueuesim::scenario {
namespace {

using ::kueuesim::testing::IsOk;
using ::kueuesim::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

constexpr char kFile[] = "pods.yaml";

// The documents of a YAML stream, read as the loader reads them; objects are
// named "<Kind> \"<name>\"" as in the loader's messages.
class Objects {
 public:
  explicit Objects(std::string_view yaml) {
    auto docs = doc::ReadAllFromString(yaml, kFile);
    EXPECT_TRUE(docs.ok()) << docs.status().ToString();
    if (docs.ok()) docs_ = std::move(*docs);
  }
  size_t size() const { return docs_.size(); }
  FieldReader operator[](size_t i) const {
    doc::Node root = docs_.at(i).root();
    std::string kind(root.Get("kind").scalar());
    std::string name(root.Get("metadata").Get("name").scalar());
    return FieldReader(root, std::make_shared<const std::string>(kind + " \"" + name + "\""), "");
  }

 private:
  std::vector<doc::Document> docs_;
};

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

// A pod of group `group` (total count `total`) requesting `cpu`, with extra
// metadata lines (indented by 4) under labels and annotations.
std::string GroupPod(const std::string& name, const std::string& group, const std::string& total,
                     const std::string& cpu, const std::string& extra_labels = "",
                     const std::string& extra_annotations = "",
                     const std::string& queue = "    kueue.x-k8s.io/queue-name: training\n") {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
         "\n  namespace: team\n  labels:\n    kueue.x-k8s.io/pod-group-name: " + group + "\n" + queue +
         extra_labels + "  annotations:\n    kueue.x-k8s.io/pod-group-total-count: \"" + total + "\"\n" +
         extra_annotations +
         "spec:\n  containers:\n  - name: c\n    image: busybox\n    resources:\n      requests:\n        cpu: " +
         cpu + "\n---\n";
}

// --- Single pods ---

// Setup: a pod with the queue-name label, requests, a pod priority class and
// timing annotations. Invariant: one Workload "pod-<name>" of kind kPod in
// the pod's namespace, pod set "main" of 1 pod with the pod's requests and
// priority class, the timing annotations applied.
TEST(DecodePodTest, SinglePod) {
  const std::string yaml = R"(apiVersion: v1
kind: Pod
metadata:
  name: sleeper
  namespace: team
  labels:
    kueue.x-k8s.io/queue-name: user-queue
  annotations:
    kueuesim.io/arrival: 10s
    kueuesim.io/duration: 1m
spec:
  priorityClassName: high
  containers:
  - name: c
    image: busybox
    resources:
      requests:
        cpu: 500m
        memory: 1Gi
)";
  Objects objects(yaml);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::optional<model::Workload> wl, DecodePod(objects[0]));
  ASSERT_TRUE(wl.has_value());
  EXPECT_EQ(wl->meta.name, "pod-sleeper");
  EXPECT_EQ(wl->meta.namespace_, "team");
  EXPECT_EQ(wl->source_kind, model::WorkloadSourceKind::kPod);
  EXPECT_EQ(wl->queue_name, "user-queue");
  ASSERT_EQ(wl->pod_sets.size(), 1u);
  EXPECT_EQ(wl->pod_sets[0].name, "main");
  EXPECT_EQ(wl->pod_sets[0].count, 1);
  EXPECT_EQ(RequestOf(wl->pod_sets[0], "cpu"), 500);
  EXPECT_EQ(RequestOf(wl->pod_sets[0], "memory"), 1073741824);
  // The pod PriorityClass is resolved as for a Job (ResolvePriority).
  EXPECT_EQ(wl->pod_sets[0].rare->priority_class_name, "high");
  EXPECT_EQ(wl->priority_class_name, "");
  EXPECT_EQ(wl->arrival, 10 * kSecond);
  EXPECT_EQ(wl->duration, kMinute);
  EXPECT_EQ(wl->meta.source.file, kFile);
  EXPECT_EQ(wl->meta.source.line, 1);
}

// Setup: a pod labelled with a WorkloadPriorityClass and a pod priority
// class. Invariant: the WorkloadPriorityClass wins (ExtractPriority).
TEST(DecodePodTest, WorkloadPriorityClassLabelWins) {
  Objects objects(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
  labels:
    kueue.x-k8s.io/queue-name: q
    kueue.x-k8s.io/priority-class: urgent
spec:
  priorityClassName: high
  containers: [{name: c, image: x}]
)");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::optional<model::Workload> wl, DecodePod(objects[0]));
  ASSERT_TRUE(wl.has_value());
  EXPECT_EQ(wl->meta.namespace_, "default");
  EXPECT_EQ(wl->priority_class_name, "urgent");
  EXPECT_EQ(wl->rare->priority_class_source, "kueue.x-k8s.io/workloadpriorityclass");
}

// Setup: a pod without the queue-name label. Invariant: not managed
// (nullopt), with a reason naming the label.
TEST(DecodePodTest, UnmanagedPod) {
  Objects objects(R"(apiVersion: v1
kind: Pod
metadata:
  name: free
spec:
  containers: [{name: c, image: x}]
)");
  std::string why;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::optional<model::Workload> wl, DecodePod(objects[0], &why));
  EXPECT_FALSE(wl.has_value());
  EXPECT_THAT(why, HasSubstr("kueue.x-k8s.io/queue-name"));
}

// Setup: a pod with the total-count annotation but no group name.
// Invariant: an error naming the missing group-name label (pod webhook).
TEST(DecodePodTest, TotalCountWithoutGroupName) {
  const std::string yaml = R"(apiVersion: v1
kind: Pod
metadata:
  name: lone
  labels:
    kueue.x-k8s.io/queue-name: q
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "2"
spec:
  containers: [{name: c, image: x}]
)";
  Objects objects(yaml);
  EXPECT_THAT(DecodePod(objects[0]),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("pods.yaml:"), HasSubstr("Pod \"lone\""),
                             HasSubstr("metadata.labels.kueue.x-k8s.io/pod-group-name: is required"))));
}

// Setup: a group member handed to DecodePod. Invariant: IsPodGroupMember
// says so and DecodePod returns nullopt.
TEST(DecodePodTest, GroupMemberIsLeftToTheCollector) {
  Objects objects(GroupPod("g-0", "g", "1", "1"));
  EXPECT_TRUE(IsPodGroupMember(objects[0]));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::optional<model::Workload> wl, DecodePod(objects[0]));
  EXPECT_FALSE(wl.has_value());
}

// --- Pod groups ---

// Setup: a group "train" of 4 pods: one leader (1 cpu) and three workers
// (2 cpu), each with the total count 4 and a duration annotation.
// Invariant: one Workload "train" of kind kPodGroup with two pod sets of
// counts 1 and 3 (matched by request), sorted by name; the group takes the
// last member's input sequence; no warnings.
TEST(PodGroupCollectorTest, TwoRoles) {
  const std::string timing = "    kueuesim.io/duration: 5m\n";
  std::string yaml = GroupPod("train-leader", "train", "4", "1", "", timing);
  for (int i = 0; i < 3; ++i) yaml += GroupPod("train-worker-" + std::to_string(i), "train", "4", "2", "", timing);
  Objects objects(yaml);
  ASSERT_EQ(objects.size(), 4u);
  PodGroupCollector collector;
  for (size_t i = 0; i < objects.size(); ++i) {
    ASSERT_THAT(collector.Add(objects[i], static_cast<int64_t>(10 + i)), IsOk());
  }
  std::vector<std::string> warnings;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::vector<model::Workload> wls, collector.Finish(&warnings));
  EXPECT_THAT(warnings, IsEmpty());
  EXPECT_TRUE(collector.empty());
  ASSERT_EQ(wls.size(), 1u);
  const model::Workload& wl = wls[0];
  EXPECT_EQ(wl.meta.name, "train");
  EXPECT_EQ(wl.meta.namespace_, "team");
  EXPECT_EQ(wl.source_kind, model::WorkloadSourceKind::kPodGroup);
  EXPECT_EQ(wl.queue_name, "training");
  EXPECT_EQ(wl.duration, 5 * kMinute);
  EXPECT_EQ(wl.input_sequence, 13);
  ASSERT_EQ(wl.pod_sets.size(), 2u);
  EXPECT_LT(wl.pod_sets[0].name, wl.pod_sets[1].name);
  const model::PodSet* leader = nullptr;
  const model::PodSet* workers = nullptr;
  for (const auto& ps : wl.pod_sets) (RequestOf(ps, "cpu") == 1000 ? leader : workers) = &ps;
  ASSERT_NE(leader, nullptr);
  ASSERT_NE(workers, nullptr);
  EXPECT_EQ(leader->count, 1);
  EXPECT_EQ(workers->count, 3);
  EXPECT_EQ(RequestOf(*workers, "cpu"), 2000);
  EXPECT_EQ(leader->name.size(), 8u);  // a role hash
}

// Setup: members carrying kueue.x-k8s.io/role-hash annotations (as pods read
// back from a cluster do), and a worker whose request is spelled "2000m".
// Invariant: the annotations name the pod sets; equal quantities spelled
// differently form one role.
TEST(PodGroupCollectorTest, RoleHashAnnotationNamesPodSets) {
  std::string yaml = GroupPod("a", "g", "3", "1", "", "    kueue.x-k8s.io/role-hash: leader\n");
  yaml += GroupPod("b", "g", "3", "2", "", "    kueue.x-k8s.io/role-hash: worker\n");
  yaml += GroupPod("c", "g", "3", "2000m", "", "    kueue.x-k8s.io/role-hash: worker\n");
  Objects objects(yaml);
  PodGroupCollector collector;
  for (size_t i = 0; i < objects.size(); ++i) ASSERT_THAT(collector.Add(objects[i]), IsOk());
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::vector<model::Workload> wls, collector.Finish(nullptr));
  ASSERT_EQ(wls.size(), 1u);
  ASSERT_EQ(wls[0].pod_sets.size(), 2u);
  EXPECT_EQ(wls[0].pod_sets[0].name, "leader");
  EXPECT_EQ(wls[0].pod_sets[0].count, 1);
  EXPECT_EQ(wls[0].pod_sets[1].name, "worker");
  EXPECT_EQ(wls[0].pod_sets[1].count, 2);

  // Without annotations, "2" and "2000m" hash to the same role.
  Objects plain(GroupPod("x", "h", "2", "2") + GroupPod("y", "h", "2", "2000m"));
  PodGroupCollector second;
  for (size_t i = 0; i < plain.size(); ++i) ASSERT_THAT(second.Add(plain[i]), IsOk());
  KUEUESIM_ASSERT_OK_AND_ASSIGN(wls, second.Finish(nullptr));
  ASSERT_EQ(wls.size(), 1u);
  ASSERT_EQ(wls[0].pod_sets.size(), 1u);
  EXPECT_EQ(wls[0].pod_sets[0].count, 2);
}

// Setup: a group whose total count is 4 with only 3 pods given.
// Invariant: Finish fails naming the file and line of the first member's
// total-count annotation, the pod, the field, the group and both counts.
TEST(PodGroupCollectorTest, FewerPodsThanTotalCount) {
  std::string yaml;
  for (int i = 0; i < 3; ++i) yaml += GroupPod("g-" + std::to_string(i), "short", "4", "1");
  Objects objects(yaml);
  PodGroupCollector collector;
  for (size_t i = 0; i < objects.size(); ++i) ASSERT_THAT(collector.Add(objects[i]), IsOk());
  EXPECT_THAT(collector.Finish(nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(At(yaml, "kueue.x-k8s.io/pod-group-total-count") + "Pod \"g-0\": " +
                                       "metadata.annotations.kueue.x-k8s.io/pod-group-total-count: "),
                             HasSubstr("pod group \"short\" in namespace \"team\""), HasSubstr("has 3 runnable pods"),
                             HasSubstr("total count is 4"))));
}

// Setup: a group of 2 (total count 2) given 3 pods. Invariant: an error
// about the excess pod.
TEST(PodGroupCollectorTest, MorePodsThanTotalCount) {
  std::string yaml;
  for (int i = 0; i < 3; ++i) yaml += GroupPod("g-" + std::to_string(i), "big", "2", "1");
  Objects objects(yaml);
  PodGroupCollector collector;
  for (size_t i = 0; i < objects.size(); ++i) ASSERT_THAT(collector.Add(objects[i]), IsOk());
  EXPECT_THAT(collector.Finish(nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("has 3 runnable pods but its total count is 2"), HasSubstr("1 excess pod"))));
}

// Setup: two members disagreeing on the total count. Invariant: Add fails
// at the second pod's annotation, naming both values and the first pod.
TEST(PodGroupCollectorTest, TotalCountsMustAgree) {
  const std::string yaml = GroupPod("a", "g", "2", "1") + GroupPod("b", "g", "3", "1");
  Objects objects(yaml);
  PodGroupCollector collector;
  ASSERT_THAT(collector.Add(objects[0]), IsOk());
  EXPECT_THAT(collector.Add(objects[1]),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(At(yaml, "pod-group-total-count", 1) + "Pod \"b\": " +
                                       "metadata.annotations.kueue.x-k8s.io/pod-group-total-count: 3 differs from 2 "
                                       "on pod \"a\""))));
}

// Setup: members with different queue names, then with different
// WorkloadPriorityClass labels. Invariant: errors naming the field.
TEST(PodGroupCollectorTest, QueueAndPriorityMustAgree) {
  {
    const std::string yaml = GroupPod("a", "g", "2", "1") +
                             GroupPod("b", "g", "2", "1", "", "", "    kueue.x-k8s.io/queue-name: other\n");
    Objects objects(yaml);
    PodGroupCollector collector;
    ASSERT_THAT(collector.Add(objects[0]), IsOk());
    EXPECT_THAT(collector.Add(objects[1]),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr(At(yaml, "queue-name: other") + "Pod \"b\": " +
                                         "metadata.labels.kueue.x-k8s.io/queue-name: \"other\" differs from "
                                         "\"training\""),
                               HasSubstr("pod group \"g\""))));
  }
  {
    const std::string yaml = GroupPod("a", "g", "2", "1", "    kueue.x-k8s.io/priority-class: low\n") +
                             GroupPod("b", "g", "2", "1", "    kueue.x-k8s.io/priority-class: high\n");
    Objects objects(yaml);
    PodGroupCollector collector;
    ASSERT_THAT(collector.Add(objects[0]), IsOk());
    EXPECT_THAT(collector.Add(objects[1]),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("Pod \"b\": metadata.labels.kueue.x-k8s.io/priority-class: \"high\" differs "
                                   "from \"low\"")));
  }
}

// Setup: members with different kueuesim.io/arrival values. Invariant: an
// error at the second member's annotation.
TEST(PodGroupCollectorTest, TimingAnnotationsMustAgree) {
  const std::string yaml = GroupPod("a", "g", "2", "1", "", "    kueuesim.io/arrival: 1m\n") +
                           GroupPod("b", "g", "2", "1", "", "    kueuesim.io/arrival: 2m\n");
  Objects objects(yaml);
  PodGroupCollector collector;
  ASSERT_THAT(collector.Add(objects[0]), IsOk());
  EXPECT_THAT(collector.Add(objects[1]),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Pod \"b\": metadata.annotations.kueuesim.io/arrival: 2m0s differs from 1m0s")));
}

// Setup: a group without the queue-name label. Invariant: no Workload, one
// warning naming the group.
TEST(PodGroupCollectorTest, UnmanagedGroupWarns) {
  Objects objects(GroupPod("a", "free", "2", "1", "", "", "") + GroupPod("b", "free", "2", "1", "", "", ""));
  PodGroupCollector collector;
  for (size_t i = 0; i < objects.size(); ++i) ASSERT_THAT(collector.Add(objects[i]), IsOk());
  std::vector<std::string> warnings;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::vector<model::Workload> wls, collector.Finish(&warnings));
  EXPECT_THAT(wls, IsEmpty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], AllOf(HasSubstr("pods.yaml:1"), HasSubstr("pod group \"free\""),
                                 HasSubstr("kueue.x-k8s.io/queue-name")));
}

// Setup: a fast-admission group of total count 3 with one pod given, and a
// group whose Failed member is ignored. Invariant: the fast group admits
// 3 pods of the first pod's role; the Failed pod is not counted.
TEST(PodGroupCollectorTest, FastAdmissionAndFailedPods) {
  std::string yaml =
      GroupPod("fast-0", "fast", "3", "1", "", "    kueue.x-k8s.io/pod-group-fast-admission: \"true\"\n");
  yaml += GroupPod("s-0", "steady", "2", "1") + GroupPod("s-1", "steady", "2", "1");
  yaml += GroupPod("s-dead", "steady", "2", "1");
  yaml.insert(yaml.rfind("---"), "status:\n  phase: Failed\n");
  Objects objects(yaml);
  PodGroupCollector collector;
  for (size_t i = 0; i < objects.size(); ++i) {
    ASSERT_THAT(collector.Add(objects[i], static_cast<int64_t>(i)), IsOk());
  }
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::vector<model::Workload> wls, collector.Finish(nullptr));
  ASSERT_EQ(wls.size(), 2u);
  EXPECT_EQ(wls[0].meta.name, "fast");
  ASSERT_EQ(wls[0].pod_sets.size(), 1u);
  EXPECT_EQ(wls[0].pod_sets[0].count, 3);
  EXPECT_EQ(wls[1].meta.name, "steady");
  ASSERT_EQ(wls[1].pod_sets.size(), 1u);
  EXPECT_EQ(wls[1].pod_sets[0].count, 2);
}

// Setup: a member with a non-numeric total count, and one with an invalid
// group name. Invariant: Add fails naming the field.
TEST(PodGroupCollectorTest, MalformedGroupMetadata) {
  Objects bad_count(GroupPod("a", "g", "many", "1"));
  PodGroupCollector collector;
  EXPECT_THAT(collector.Add(bad_count[0]),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("metadata.annotations.kueue.x-k8s.io/pod-group-total-count: \"many\" is not an "
                                 "integer")));
  Objects bad_name(GroupPod("a", "Bad_Name", "1", "1"));
  EXPECT_THAT(collector.Add(bad_name[0]),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("metadata.labels.kueue.x-k8s.io/pod-group-name: \"Bad_Name\" is not a valid")));
}

// --- Deployments ---

constexpr char kDeployment[] = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team
  annotations:
    kueuesim.io/arrival: 30s
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels:
        app: web
        kueue.x-k8s.io/queue-name: serving
    spec:
      containers:
      - name: c
        image: nginx
        resources:
          requests:
            cpu: 250m
)";

// Setup: a Deployment of 3 replicas whose pod template carries the queue
// label. Invariant: 3 Workloads pod-web-0..2 of kind kDeployment, each a
// single pod, recording the Deployment as owner, with the Deployment's
// arrival.
TEST(DecodeDeploymentTest, ReplicasWithLabelOnTemplate) {
  Objects objects(kDeployment);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto wls, DecodeDeployment(objects[0]));
  ASSERT_TRUE(wls.has_value());
  ASSERT_EQ(wls->size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const model::Workload& wl = (*wls)[static_cast<size_t>(i)];
    EXPECT_EQ(wl.meta.name, "pod-web-" + std::to_string(i));
    EXPECT_EQ(wl.meta.namespace_, "team");
    EXPECT_EQ(wl.source_kind, model::WorkloadSourceKind::kDeployment);
    EXPECT_EQ(wl.queue_name, "serving");
    EXPECT_EQ(wl.arrival, 30 * kSecond);
    ASSERT_EQ(wl.pod_sets.size(), 1u);
    EXPECT_EQ(wl.pod_sets[0].name, "main");
    EXPECT_EQ(wl.pod_sets[0].count, 1);
    EXPECT_EQ(RequestOf(wl.pod_sets[0], "cpu"), 250);
    EXPECT_EQ(wl.meta.labels.at("app"), "web");
    EXPECT_EQ(wl.meta.annotations.at("kueue.x-k8s.io/job-owner-name"), "web");
    EXPECT_EQ(wl.meta.annotations.at("kueue.x-k8s.io/job-owner-gvk"), "apps/v1, Kind=Deployment");
  }
}

// Setup: the queue label and a WorkloadPriorityClass label on the
// Deployment only, no replicas field. Invariant: the webhook's propagation:
// 1 replica, queue and priority class from the Deployment.
TEST(DecodeDeploymentTest, LabelOnDeploymentPropagates) {
  std::string yaml = kDeployment;
  yaml.replace(yaml.find("  replicas: 3\n"), 14, "");
  yaml.replace(yaml.find("        kueue.x-k8s.io/queue-name: serving\n"), 43, "");
  yaml.replace(yaml.find("  annotations:"), 0,
               "  labels:\n    kueue.x-k8s.io/queue-name: web-queue\n    kueue.x-k8s.io/priority-class: prod\n");
  Objects objects(yaml);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto wls, DecodeDeployment(objects[0]));
  ASSERT_TRUE(wls.has_value());
  ASSERT_EQ(wls->size(), 1u);
  EXPECT_EQ((*wls)[0].queue_name, "web-queue");
  EXPECT_EQ((*wls)[0].priority_class_name, "prod");
  EXPECT_EQ((*wls)[0].rare->priority_class_source, "kueue.x-k8s.io/workloadpriorityclass");
  EXPECT_THAT((*wls)[0].meta.labels, ::testing::Contains(Pair("kueue.x-k8s.io/queue-name", "web-queue")));
}

// Setup: a Deployment without any queue label, and a bare one without
// spec. Invariant: nullopt (with a reason), no error.
TEST(DecodeDeploymentTest, Unmanaged) {
  std::string yaml = kDeployment;
  yaml.replace(yaml.find("        kueue.x-k8s.io/queue-name: serving\n"), 43, "");
  Objects objects(yaml);
  std::string why;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto wls, DecodeDeployment(objects[0], &why));
  EXPECT_FALSE(wls.has_value());
  EXPECT_THAT(why, HasSubstr("kueue.x-k8s.io/queue-name"));

  // An unmanaged object is not checked further: no template is fine.
  Objects bare("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d1}\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(wls, DecodeDeployment(bare[0]));
  EXPECT_FALSE(wls.has_value());
}

// Setup: replicas: -1. Invariant: an error naming the file and line, the
// Deployment and spec.replicas.
TEST(DecodeDeploymentTest, NegativeReplicas) {
  std::string yaml = kDeployment;
  yaml.replace(yaml.find("replicas: 3"), 11, "replicas: -1");
  Objects objects(yaml);
  EXPECT_THAT(DecodeDeployment(objects[0]),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(At(yaml, "replicas: -1") + "Deployment \"web\": spec.replicas: -1 must not be "
                                                            "negative")));
}

// --- StatefulSets ---

constexpr char kStatefulSet[] = R"(apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: team
  labels:
    kueue.x-k8s.io/queue-name: stateful
spec:
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      priorityClassName: high
      containers:
      - name: c
        image: postgres
        resources:
          requests:
            cpu: "2"
)";

// Setup: a labelled StatefulSet without spec.replicas. Invariant: one
// pod-group Workload "statefulset-db" of kind kStatefulSet with pod set
// "main" of count 1 (the default) carrying the template's priority class.
TEST(DecodeStatefulSetTest, ReplicasDefault) {
  Objects objects(kStatefulSet);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto wls, DecodeStatefulSet(objects[0]));
  ASSERT_TRUE(wls.has_value());
  ASSERT_EQ(wls->size(), 1u);
  const model::Workload& wl = (*wls)[0];
  EXPECT_EQ(wl.meta.name, "statefulset-db");
  EXPECT_EQ(wl.source_kind, model::WorkloadSourceKind::kStatefulSet);
  EXPECT_EQ(wl.queue_name, "stateful");
  ASSERT_EQ(wl.pod_sets.size(), 1u);
  EXPECT_EQ(wl.pod_sets[0].name, "main");
  EXPECT_EQ(wl.pod_sets[0].count, 1);
  EXPECT_EQ(RequestOf(wl.pod_sets[0], "cpu"), 2000);
  EXPECT_EQ(wl.pod_sets[0].rare->priority_class_name, "high");
  EXPECT_EQ(wl.meta.annotations.at("kueue.x-k8s.io/is-group-workload"), "true");
}

// Setup: replicas 4 and a duration annotation on the StatefulSet; then
// replicas 0. Invariant: one pod set of 4 with the duration; none at 0
// (managed, but Kueue creates no Workload).
TEST(DecodeStatefulSetTest, ReplicasAndScaleToZero) {
  std::string yaml = kStatefulSet;
  yaml.replace(yaml.find("  serviceName"), 0, "  replicas: 4\n");
  yaml.replace(yaml.find("  labels:"), 0, "  annotations:\n    kueuesim.io/duration: 2h\n");
  Objects objects(yaml);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto wls, DecodeStatefulSet(objects[0]));
  ASSERT_TRUE(wls.has_value());
  ASSERT_EQ(wls->size(), 1u);
  EXPECT_EQ((*wls)[0].pod_sets[0].count, 4);
  EXPECT_EQ((*wls)[0].duration, 2 * kHour);

  yaml.replace(yaml.find("replicas: 4"), 11, "replicas: 0");
  Objects zero(yaml);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(wls, DecodeStatefulSet(zero[0]));
  ASSERT_TRUE(wls.has_value());
  EXPECT_THAT(*wls, IsEmpty());
}

// Setup: the queue label only on the pod template. Invariant: the
// StatefulSet integration ignores it and the pod integration admits each
// replica alone: Workloads pod-db-0..1 of kind kPod.
TEST(DecodeStatefulSetTest, LabelOnlyOnTemplate) {
  std::string yaml = kStatefulSet;
  yaml.replace(yaml.find("  labels:\n    kueue.x-k8s.io/queue-name: stateful\n"), 50, "");
  yaml.replace(yaml.find("labels: {app: db}"), 17, "labels: {app: db, kueue.x-k8s.io/queue-name: pods}");
  yaml.replace(yaml.find("  serviceName"), 0, "  replicas: 2\n");
  Objects objects(yaml);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto wls, DecodeStatefulSet(objects[0]));
  ASSERT_TRUE(wls.has_value());
  ASSERT_EQ(wls->size(), 2u);
  EXPECT_EQ((*wls)[0].meta.name, "pod-db-0");
  EXPECT_EQ((*wls)[1].meta.name, "pod-db-1");
  EXPECT_EQ((*wls)[1].source_kind, model::WorkloadSourceKind::kPod);
  EXPECT_EQ((*wls)[1].queue_name, "pods");
  EXPECT_EQ((*wls)[1].meta.annotations.at("kueue.x-k8s.io/job-owner-gvk"), "apps/v1, Kind=StatefulSet");
}

// Setup: a negative replica count, and a StatefulSet without a template.
// Invariant: errors naming the object and the field.
TEST(DecodeStatefulSetTest, BadSpec) {
  std::string yaml = kStatefulSet;
  yaml.replace(yaml.find("  serviceName"), 0, "  replicas: -3\n");
  Objects objects(yaml);
  EXPECT_THAT(DecodeStatefulSet(objects[0]),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(At(yaml, "replicas: -3") + "StatefulSet \"db\": spec.replicas: -3 must not be "
                                                            "negative")));
  Objects no_template(R"(apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: empty
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  replicas: 1
)");
  EXPECT_THAT(DecodeStatefulSet(no_template[0]),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("StatefulSet \"empty\": spec.template: is required")));
}

// --- The loader ---

// The names of a cluster's Workloads, in the loader's order.
std::vector<std::string> WorkloadNames(const Scenario& scenario, const std::string& cluster) {
  std::vector<std::string> names;
  const ClusterSpec* spec = scenario.FindCluster(cluster);
  if (spec == nullptr) return names;
  for (const auto& wl : spec->workloads) names.push_back(wl.meta.name);
  return names;
}

// Setup: two clusters; in "east" the members of pod group "g" are
// interleaved with a Deployment of 2 replicas, an unlabelled Pod and a
// StatefulSet; "west" has a pod group of the same name. Invariant: the
// loader dispatches each kind to its decoder; a group becomes one Workload
// per cluster, placed after the objects read before its last member; the
// unmanaged Pod is a warning naming file and line.
TEST(LoaderPodsTest, KindsDispatchedAndGroupsFinishedPerCluster) {
  const std::string east = "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata: {name: east}\n---\n" +
                           GroupPod("g-0", "g", "2", "1") + kDeployment + "---\n" + GroupPod("g-1", "g", "2", "1") +
                           "apiVersion: v1\nkind: Pod\nmetadata: {name: loose, namespace: team}\n"
                           "spec:\n  containers: [{name: c}]\n---\n" +
                           kStatefulSet;
  const std::string west = "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata: {name: west}\n---\n" +
                           GroupPod("g-0", "g", "1", "2");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario scenario, LoadScenarioStrings({{"east.yaml", east}, {"west.yaml", west}}));
  EXPECT_THAT(WorkloadNames(scenario, "east"),
              ::testing::ElementsAre("pod-web-0", "pod-web-1", "pod-web-2", "g", "statefulset-db"));
  EXPECT_THAT(WorkloadNames(scenario, "west"), ::testing::ElementsAre("g"));
  const ClusterSpec& east_spec = *scenario.FindCluster("east");
  EXPECT_EQ(east_spec.workloads[3].source_kind, model::WorkloadSourceKind::kPodGroup);
  EXPECT_EQ(east_spec.workloads[3].pod_sets.at(0).count, 2);
  EXPECT_LT(east_spec.workloads[2].input_sequence, east_spec.workloads[3].input_sequence);
  EXPECT_EQ(scenario.FindCluster("west")->workloads[0].pod_sets.at(0).count, 1);
  const int loose_line = LineOf(east, "apiVersion: v1\nkind: Pod\nmetadata: {name: loose");
  EXPECT_THAT(scenario.report.warnings,
              ::testing::Contains(AllOf(HasSubstr("east.yaml:" + std::to_string(loose_line)),
                                        HasSubstr("Pod \"loose\" has no kueue.x-k8s.io/queue-name label"))));
}

// Setup: a pod group missing one of its 2 pods. Invariant: loading fails
// with the group's count error, naming the file and the field.
TEST(LoaderPodsTest, IncompleteGroupFailsTheLoad) {
  const std::string yaml = GroupPod("g-0", "g", "2", "1");
  EXPECT_THAT(LoadScenarioStrings({{kFile, yaml}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(At(yaml, "pod-group-total-count")),
                             HasSubstr("has 1 runnable pod but its total count is 2"))));
}

// Setup: pods without a queue name: bound and running (two containers), bound
// but Succeeded, bound but Failed, bound with a TAS annotation, and not bound.
// Invariant: only the first is a bound pod, on its node, with the sum of its
// containers' requests (Kueue's pod usage controller, belongsToNonTASCache).
TEST(DecodeBoundPodTest, OnlyBoundRunningPodsWithoutTopologyAnnotationsCount) {
  const auto pod = [](const std::string& name, const std::string& node, const std::string& phase,
                      const std::string& annotations) {
    return "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: ns\n" + annotations +
           "spec:\n" + (node.empty() ? "" : "  nodeName: " + node + "\n") +
           "  containers:\n  - {name: a, resources: {requests: {cpu: 250m}}}\n"
           "  - {name: b, resources: {requests: {cpu: 500m, memory: 1Gi}}}\n" +
           (phase.empty() ? "" : "status: {phase: " + phase + "}\n");
  };
  Objects objects(pod("running", "n1", "Running", "") + pod("succeeded", "n1", "Succeeded", "") +
                  pod("failed", "n1", "Failed", "") +
                  pod("tas", "n1", "Running",
                      "  annotations: {kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname}\n") +
                  pod("unbound", "", "Pending", ""));
  ASSERT_EQ(objects.size(), 5u);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::optional<model::BoundPod> running, DecodeBoundPod(objects[0]));
  ASSERT_TRUE(running.has_value());
  EXPECT_EQ(running->node_name, "n1");
  ASSERT_EQ(running->requests.size(), 2u);
  EXPECT_EQ(running->requests[0].name, "cpu");
  EXPECT_EQ(running->requests[0].amount, 750);
  EXPECT_EQ(running->requests[1].name, "memory");
  EXPECT_EQ(running->requests[1].amount, int64_t{1} << 30);
  for (size_t i = 1; i < objects.size(); ++i) {
    KUEUESIM_ASSERT_OK_AND_ASSIGN(std::optional<model::BoundPod> other, DecodeBoundPod(objects[i]));
    EXPECT_FALSE(other.has_value()) << i;
  }
}

}  // namespace
}  // namespace kueuesim::scenario
