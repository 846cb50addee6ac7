// Which unknown kinds carry workloads; see workload_kinds.h.
#include "scenario/workload_kinds.h"

#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace kueuesim::scenario {
namespace {

struct GroupKind {
  std::string_view group;
  std::string_view kind;
};

// Kinds that create pods, some without embedding a pod spec.
constexpr GroupKind kWorkloadKinds[] = {
    {"argoproj.io", "Workflow"},
    {"argoproj.io", "CronWorkflow"},
    {"tekton.dev", "PipelineRun"},
    {"tekton.dev", "TaskRun"},
    {"serving.kserve.io", "InferenceService"},
    {"serving.kserve.io", "InferenceGraph"},
    {"serving.knative.dev", "Service"},
    {"kubeflow.org", "MXJob"},
    {"kubeflow.org", "Notebook"},
    {"batch.volcano.sh", "Job"},
    {"flux-framework.org", "MiniCluster"},
    {"agents.x-k8s.io", "Sandbox"},
    {"apps", "ReplicaSet"},
    {"", "ReplicationController"},
};

// Kinds that describe pods without creating any, or configure others.
constexpr GroupKind kTemplateKinds[] = {
    {"", "PodTemplate"},
    {"apps", "ControllerRevision"},
    // Node agents: Kueue does not manage DaemonSets or charge their pods.
    {"apps", "DaemonSet"},
    {"argoproj.io", "WorkflowTemplate"},
    {"argoproj.io", "ClusterWorkflowTemplate"},
    {"tekton.dev", "Task"},
    {"tekton.dev", "ClusterTask"},
    {"tekton.dev", "Pipeline"},
    {"tekton.dev", "StepAction"},
    {"trainer.kubeflow.org", "TrainingRuntime"},
    {"trainer.kubeflow.org", "ClusterTrainingRuntime"},
    {"serving.kserve.io", "ServingRuntime"},
    {"serving.kserve.io", "ClusterServingRuntime"},
    {"agents.x-k8s.io", "SandboxTemplate"},
};

// Nodes looked at, at most, for an embedded pod definition.
constexpr size_t kMaxVisitedNodes = 100'000;

bool Contains(const GroupKind* begin, const GroupKind* end, std::string_view group, std::string_view kind) {
  for (const GroupKind* it = begin; it != end; ++it) {
    if (it->group == group && it->kind == kind) return true;
  }
  return false;
}

bool HasImage(const doc::Node& node) { return node.IsMapping() && node.Get("image").IsScalar(); }

// A pod definition somewhere under `root` (metadata and status excluded).
bool EmbedsPodDefinition(const doc::Node& root) {
  std::vector<doc::Node> stack;
  for (size_t i = 0; i < root.size(); ++i) {
    if (root.key(i) != "metadata" && root.key(i) != "status") stack.push_back(root.value(i));
  }
  size_t visited = 0;
  while (!stack.empty() && visited++ < kMaxVisitedNodes) {
    const doc::Node node = stack.back();
    stack.pop_back();
    if (node.IsSequence()) {
      for (size_t i = 0; i < node.size(); ++i) stack.push_back(node.at(i));
      continue;
    }
    if (!node.IsMapping()) continue;
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string_view key = node.key(i);
      const doc::Node value = node.value(i);
      if (key == "containers" && value.IsSequence() && value.size() > 0) return true;
      if ((key == "container" || key == "script") && HasImage(value)) return true;
      if (key == "steps" && value.IsSequence()) {
        for (size_t s = 0; s < value.size(); ++s) {
          if (HasImage(value.at(s))) return true;
        }
      }
      stack.push_back(value);
    }
  }
  return false;
}

// Whether the object has a controller owner (a ReplicaSet of a Deployment,
// a Job of a CronJob): its owner carries the workload.
bool HasControllerOwner(const doc::Node& object) {
  const doc::Node owners = object.Get("metadata").Get("ownerReferences");
  for (size_t i = 0; i < owners.size() && owners.IsSequence(); ++i) {
    const doc::Node controller = owners.at(i).Get("controller");
    if (controller.IsScalar() && controller.scalar() == "true") return true;
  }
  return false;
}

}  // namespace

bool CarriesWorkloads(std::string_view api_version, std::string_view kind, const doc::Node& object) {
  const size_t slash = api_version.find('/');
  const std::string_view group = slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
  if (HasControllerOwner(object)) return false;
  if (Contains(std::begin(kWorkloadKinds), std::end(kWorkloadKinds), group, kind)) return true;
  if (Contains(std::begin(kTemplateKinds), std::end(kTemplateKinds), group, kind)) return false;
  return object.IsMapping() && EmbedsPodDefinition(object);
}

namespace {

// The scalar at `node`, or "" (absent or not a scalar).
std::string_view ScalarOf(const doc::Node& node) { return node.IsScalar() ? node.scalar() : std::string_view(); }

// The first of `types` among the object's status conditions with status
// "True", or "".
std::string_view TrueCondition(const doc::Node& object, std::initializer_list<std::string_view> types) {
  const doc::Node conditions = object.Get("status").Get("conditions");
  if (!conditions.IsSequence()) return {};
  for (size_t i = 0; i < conditions.size(); ++i) {
    const doc::Node condition = conditions.at(i);
    if (ScalarOf(condition.Get("status")) != "True") continue;
    const std::string_view type = ScalarOf(condition.Get("type"));
    for (std::string_view wanted : types) {
      if (type == wanted) return type;
    }
  }
  return {};
}

std::string Condition(std::string_view type) {
  return type.empty() ? std::string() : "condition " + std::string(type);
}

}  // namespace

std::string FinishedJobState(std::string_view api_version, std::string_view kind, const doc::Node& object) {
  if (!object.IsMapping()) return {};
  const size_t slash = api_version.find('/');
  const std::string_view group = slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
  const doc::Node status = object.Get("status");
  if (group.empty() && kind == "Pod") {
    const std::string_view phase = ScalarOf(status.Get("phase"));
    return phase == "Succeeded" || phase == "Failed" ? "phase " + std::string(phase) : std::string();
  }
  if (group == "batch" && kind == "Job") return Condition(TrueCondition(object, {"Complete", "Failed"}));
  if (group == "jobset.x-k8s.io" && kind == "JobSet") return Condition(TrueCondition(object, {"Completed", "Failed"}));
  if (group == "kubeflow.org") return Condition(TrueCondition(object, {"Succeeded", "Failed"}));
  if (group == "trainer.kubeflow.org" && kind == "TrainJob") {
    return Condition(TrueCondition(object, {"Complete", "Failed"}));
  }
  if (group == "ray.io" && kind == "RayJob") {
    const std::string_view state = ScalarOf(status.Get("jobDeploymentStatus"));
    return state == "Complete" || state == "Failed" ? "jobDeploymentStatus " + std::string(state) : std::string();
  }
  if (group == "workload.codeflare.dev" && kind == "AppWrapper") {
    const std::string_view phase = ScalarOf(status.Get("phase"));
    // A failed AppWrapper still deleting its resources has not finished.
    if (phase == "Succeeded" || (phase == "Failed" && TrueCondition(object, {"ResourcesDeployed"}).empty())) {
      return "phase " + std::string(phase);
    }
    return {};
  }
  if (group == "sparkoperator.k8s.io" && kind == "SparkApplication") {
    const std::string_view state = ScalarOf(status.Get("applicationState").Get("state"));
    return state == "COMPLETED" || state == "FAILED" || state == "SUBMISSION_FAILED"
               ? "applicationState " + std::string(state)
               : std::string();
  }
  return {};
}

}  // namespace kueuesim::scenario
