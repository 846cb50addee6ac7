// workload.codeflare.dev/v1beta2 AppWrapper, as kueue
// pkg/controller/jobs/appwrapper (appwrapper_controller.go) and the
// AppWrapper library it calls (project-codeflare/appwrapper pkg/utils:
// GetComponentPodSpecs, InferPodSets; internal/webhook for the checks) turn
// it into a Workload: the pod sets of every component in order, declared
// (spec.components[].podSets) or else inferred from the wrapped object,
// flattened and named "<appwrapper>-<k>" (k from 0, lowercased); count = the
// pod set's replicas (1 when unset). No partial admission.
#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "scenario/kinds/common.h"
#include "scenario/kinds/kinds.h"

namespace kueuesim::scenario::kinds {
namespace {

constexpr char kTasPodIndexLabel[] = "workload.codeflare.dev.appwrapper/tas-pod-index-label";
constexpr char kTasSubGroupIndexLabel[] = "workload.codeflare.dev.appwrapper/tas-sub-group-index-label";
constexpr char kTasSubGroupCount[] = "workload.codeflare.dev.appwrapper/tas-sub-group-count";
constexpr char kJobCompletionIndex[] = "batch.kubernetes.io/job-completion-index";
constexpr char kJobSetJobIndex[] = "jobset.sigs.k8s.io/job-index";
constexpr char kReplicaIndexLabel[] = "training.kubeflow.org/replica-index";
// The AppWrapper webhook's limit on pod specs (a Kueue invariant of its time).
constexpr size_t kMaxAppWrapperPodSets = 8;

// An AppWrapper pod set: where the pod template is, its replicas (nullopt:
// 1) and its annotations.
struct AwPodSet {
  std::string path;
  std::optional<int32_t> replicas;
  model::Labels annotations;
};

// The value at an AppWrapper path ("template.spec.replicatedJobs[0].template")
// in the component's `template` (the path's first element); nullopt with
// `why` when it does not resolve (getValueAtPath).
std::optional<FieldReader> ValueAtPath(const FieldReader& root, const std::string& path, std::string* why) {
  const std::string first = "template";
  if (path.rfind(first, 0) != 0) {
    *why = "first element of the path must be 'template'";
    return std::nullopt;
  }
  FieldReader cursor = root;
  size_t at = first.size();
  while (at < path.size()) {
    if (path[at] == '[') {
      const size_t end = path.find(']', at);
      if (end == std::string::npos) {
        *why = fmt::format("invalid array index '{}'", path.substr(at));
        return std::nullopt;
      }
      const std::string number = path.substr(at + 1, end - at - 1);
      if (number.empty() || !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        *why = fmt::format("invalid index expression '{}'", number);
        return std::nullopt;
      }
      if (!cursor.node().IsSequence()) {
        *why = fmt::format("at '{}': found a non-array value", path.substr(0, at));
        return std::nullopt;
      }
      const size_t index = std::stoul(number);
      if (index >= cursor.size()) {
        *why = fmt::format("at '{}': index {} is out of bounds", path.substr(0, at), index);
        return std::nullopt;
      }
      cursor = cursor.Index(index);
      at = end + 1;
    } else if (path[at] == '.') {
      size_t end = path.find_first_of(".[", at + 1);
      if (end == std::string::npos) end = path.size();
      const std::string key = path.substr(at + 1, end - at - 1);
      if (!cursor.node().IsMapping()) {
        *why = fmt::format("at '{}': non-map value", path.substr(0, at));
        return std::nullopt;
      }
      if (!cursor.node().Get(key).valid()) {
        *why = fmt::format("at '{}': missing field '{}'", path.substr(0, at + 1), key);
        return std::nullopt;
      }
      cursor = cursor.Field(key);
      at = end;
    } else {
      *why = fmt::format("invalid path element '{}'", path.substr(at));
      return std::nullopt;
    }
  }
  return cursor;
}

// The pod template at `path` (GetPodTemplateSpec: a mapping with a spec).
std::optional<FieldReader> PodTemplateAt(const FieldReader& root, const std::string& path, std::string* why) {
  std::optional<FieldReader> value = ValueAtPath(root, path, why);
  if (!value.has_value()) return std::nullopt;
  if (!value->node().IsMapping()) {
    *why = fmt::format("at '{}': non-map value", path);
    return std::nullopt;
  }
  if (!value->Field("spec").node().IsMapping()) {
    *why = fmt::format("content at {} does not contain a spec", path);
    return std::nullopt;
  }
  return value;
}

// An integer at `path` (GetReplicas): nullopt when absent or not an integer.
std::optional<int32_t> IntAt(const FieldReader& root, const std::string& path) {
  std::string why;
  std::optional<FieldReader> value = ValueAtPath(root, path, &why);
  if (!value.has_value()) return std::nullopt;
  auto parsed = value->Int32();
  if (!parsed.ok()) return std::nullopt;
  return *parsed;
}

// inferReplicas: 1 when absent; an error when not an integer.
absl::StatusOr<int32_t> InferReplicas(const FieldReader& root, const std::string& path, const FieldReader& component) {
  std::string why;
  const size_t dot = path.rfind('.');
  std::optional<FieldReader> parent = ValueAtPath(root, path.substr(0, dot), &why);
  if (!parent.has_value() || !parent->node().IsMapping()) {
    return component.Error(fmt::format("error inferring PodSets: at path position '{}': {}", path, why));
  }
  FieldReader value = parent->Field(path.substr(dot + 1));
  if (!value.present()) return 1;
  auto parsed = value.Int32();
  if (!parsed.ok()) return value.Error("error inferring PodSets: non-int replica count");
  return *parsed;
}

// InferPodSets: the pod sets of the wrapped kinds the AppWrapper library
// knows; none for the others.
absl::StatusOr<std::vector<AwPodSet>> InferPodSets(const FieldReader& root, const FieldReader& component) {
  KUEUESIM_ASSIGN_OR_RETURN(std::string api_version, root.Field("apiVersion").String());
  KUEUESIM_ASSIGN_OR_RETURN(std::string kind, root.Field("kind").String());
  std::vector<AwPodSet> out;
  std::string why;
  auto exists = [&](const std::string& path) { return ValueAtPath(root, path, &why).has_value(); };
  if (api_version == "batch/v1" && kind == "Job") {
    int32_t replicas = IntAt(root, "template.spec.parallelism").value_or(1);
    if (auto completions = IntAt(root, "template.spec.completions"); completions && *completions < replicas) {
      replicas = *completions;
    }
    out.push_back({"template.spec.template", replicas, {{kTasPodIndexLabel, kJobCompletionIndex}}});
  } else if (api_version == "jobset.x-k8s.io/v1alpha2" && kind == "JobSet") {
    FieldReader jobs = root.Field("spec").Field("replicatedJobs");
    for (size_t i = 0; jobs.node().IsSequence() && i < jobs.size(); ++i) {
      const std::string prefix = fmt::format("template.spec.replicatedJobs[{}].", i);
      if (!exists(prefix + "template")) continue;
      int32_t pods = IntAt(root, prefix + "template.spec.parallelism").value_or(1);
      if (auto completions = IntAt(root, prefix + "template.spec.completions"); completions && *completions < pods) {
        pods = *completions;
      }
      const int32_t replicas = IntAt(root, prefix + "replicas").value_or(1);
      out.push_back({prefix + "template.spec.template",
                     replicas * pods,
                     {{kTasPodIndexLabel, kJobCompletionIndex},
                      {kTasSubGroupIndexLabel, kJobSetJobIndex},
                      {kTasSubGroupCount, std::to_string(replicas)}}});
    }
  } else if (api_version == "kubeflow.org/v1" && kind == "PyTorchJob") {
    for (const char* type : {"Master", "Worker"}) {
      const std::string prefix = std::string("template.spec.pytorchReplicaSpecs.") + type + ".";
      if (!exists(prefix + "template")) continue;
      KUEUESIM_ASSIGN_OR_RETURN(int32_t replicas, InferReplicas(root, prefix + "replicas", component));
      out.push_back({prefix + "template", replicas, {{kTasPodIndexLabel, kReplicaIndexLabel}}});
    }
  } else if (api_version == "ray.io/v1" && (kind == "RayCluster" || kind == "RayJob")) {
    const std::string prefix = kind == "RayCluster" ? "template.spec." : "template.spec.rayClusterSpec.";
    out.push_back({prefix + "headGroupSpec.template", 1, {}});
    std::optional<FieldReader> workers = ValueAtPath(root, prefix + "workerGroupSpecs", &why);
    for (size_t i = 0; workers.has_value() && workers->node().IsSequence() && i < workers->size(); ++i) {
      const std::string group = fmt::format("{}workerGroupSpecs[{}].", prefix, i);
      if (!exists(group + "template")) continue;
      KUEUESIM_ASSIGN_OR_RETURN(int32_t replicas, InferReplicas(root, group + "replicas", component));
      out.push_back({group + "template", replicas, {}});
    }
  } else if (api_version == "v1" && kind == "Pod") {
    out.push_back({"template", 1, {}});
  } else if (api_version == "apps/v1" && (kind == "Deployment" || kind == "StatefulSet")) {
    if (exists("template.spec.template")) {
      KUEUESIM_ASSIGN_OR_RETURN(int32_t replicas, InferReplicas(root, "template.spec.replicas", component));
      out.push_back({"template.spec.template", replicas, {}});
    }
  }
  for (const AwPodSet& pod_set : out) {
    if (!PodTemplateAt(root, pod_set.path, &why).has_value()) {
      return component.Error(
          fmt::format("error inferring PodSets: {} does not refer to a v1.PodSpecTemplate: {}", pod_set.path, why));
    }
  }
  return out;
}

// ValidatePodSets: declared pod sets have distinct paths and, for a kind
// whose pod sets are inferred, match them.
absl::Status ValidateDeclared(const std::vector<AwPodSet>& declared, const std::vector<AwPodSet>& inferred,
                              const FieldReader& field) {
  if (declared.empty()) return absl::OkStatus();
  std::set<std::string> paths;
  for (const AwPodSet& pod_set : declared) {
    if (!paths.insert(pod_set.path).second) {
      return field.Error(fmt::format("multiple DeclaredPodSets with path '{}'", pod_set.path));
    }
  }
  if (inferred.empty()) return absl::OkStatus();
  if (inferred.size() != declared.size()) {
    return field.Error(
        fmt::format("DeclaredPodSet count {} differs from inferred count {}", declared.size(), inferred.size()));
  }
  for (const AwPodSet& want : inferred) {
    auto it = std::find_if(declared.begin(), declared.end(), [&](const AwPodSet& d) { return d.path == want.path; });
    if (it == declared.end()) return field.Error(fmt::format("PodSet with path '{}' is missing", want.path));
    if (it->replicas.value_or(1) != want.replicas.value_or(1)) {
      return field.Error(fmt::format("replica count {} differs from inferred count {} for PodSet at path position '{}'",
                                     it->replicas.value_or(1), want.replicas.value_or(1), want.path));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Decoded> DecodeAppWrapper(const FieldReader& object) {
  KUEUESIM_ASSIGN_OR_RETURN(JobObject job, ReadJobObject(object, "AppWrapper"));
  Decoded out;
  if (job.queue_name.empty()) {
    out.ignored = NoQueueNameReason();
    return out;
  }
  KUEUESIM_RETURN_IF_ERROR(ValidateJobOnCreate(object, job, /*elastic_supported=*/false));
  KUEUESIM_ASSIGN_OR_RETURN(model::Workload wl, NewWorkload(object, job, model::WorkloadSourceKind::kAppWrapper));
  FieldReader components = object.Field("spec").Field("components");
  KUEUESIM_RETURN_IF_ERROR(components.ExpectSequence());

  // The AppWrapper webhook's checks, then the pod sets Kueue sees.
  struct Resolved {
    FieldReader template_field;
    AwPodSet pod_set;
  };
  std::vector<Resolved> resolved;
  size_t pod_spec_count = 0;
  for (size_t c = 0; c < components.size(); ++c) {
    FieldReader component = components.Index(c);
    KUEUESIM_RETURN_IF_ERROR(component.ExpectMapping());
    FieldReader root = component.Field("template");
    if (!root.node().IsMapping()) return root.Error("failed to decode as an object with apiVersion and kind");
    KUEUESIM_ASSIGN_OR_RETURN(std::string api_version, root.Field("apiVersion").String());
    KUEUESIM_ASSIGN_OR_RETURN(std::string kind, root.Field("kind").String());
    if (api_version == "workload.codeflare.dev/v1beta2" && kind == "AppWrapper") {
      return root.Error("Nested AppWrappers are forbidden");
    }
    KUEUESIM_ASSIGN_OR_RETURN(auto component_namespace, root.Field("metadata").Field("namespace").OptString());
    if (!component_namespace.value_or("").empty() && *component_namespace != job.meta.namespace_) {
      return root.Field("metadata").Field("namespace").Error("AppWrappers cannot create objects in other namespaces");
    }
    std::vector<AwPodSet> declared;
    FieldReader declared_field = component.Field("podSets");
    KUEUESIM_RETURN_IF_ERROR(declared_field.ExpectSequence());
    for (size_t i = 0; i < declared_field.size(); ++i) {
      FieldReader item = declared_field.Index(i);
      KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
      AwPodSet pod_set;
      KUEUESIM_ASSIGN_OR_RETURN(auto path, item.Field("path").OptString());
      if (path.value_or("").empty()) return item.Field("path").Error("podspec must specify path");
      pod_set.path = *path;
      std::string why;
      if (!PodTemplateAt(root, pod_set.path, &why).has_value()) {
        return item.Field("path").Error(
            fmt::format("\"{}\": path does not refer to a v1.PodSpecTemplate: {}", pod_set.path, why));
      }
      KUEUESIM_ASSIGN_OR_RETURN(pod_set.replicas, item.Field("replicas").OptInt32());
      if (pod_set.replicas.value_or(0) < 0) return item.Field("replicas").Error("must not be negative");
      KUEUESIM_ASSIGN_OR_RETURN(pod_set.annotations, item.Field("annotations").StringMap());
      declared.push_back(std::move(pod_set));
    }
    KUEUESIM_ASSIGN_OR_RETURN(std::vector<AwPodSet> inferred, InferPodSets(root, root));
    pod_spec_count += std::max(declared.size(), inferred.size());
    KUEUESIM_RETURN_IF_ERROR(ValidateDeclared(declared, inferred, declared_field));
    for (AwPodSet& pod_set : declared.empty() ? inferred : declared) {
      std::string why;
      std::optional<FieldReader> pod_template = PodTemplateAt(root, pod_set.path, &why);
      if (!pod_template.has_value()) continue;  // dropped, as GetComponentPodSpecs does
      resolved.push_back({*pod_template, std::move(pod_set)});
    }
  }
  if (pod_spec_count == 0) return components.Error("components contains no podspecs");
  if (pod_spec_count > kMaxAppWrapperPodSets) {
    return components.Error(
        fmt::format("components contains {} podspecs; at most {} are allowed", pod_spec_count, kMaxAppWrapperPodSets));
  }

  for (size_t k = 0; k < resolved.size(); ++k) {
    const AwPodSet& pod_set = resolved[k].pod_set;
    TopologyIndex index;
    if (auto it = pod_set.annotations.find(kTasPodIndexLabel); it != pod_set.annotations.end()) {
      index.pod_index_label = it->second;
    }
    if (auto it = pod_set.annotations.find(kTasSubGroupIndexLabel); it != pod_set.annotations.end()) {
      index.sub_group_index_label = it->second;
    }
    if (auto it = pod_set.annotations.find(kTasSubGroupCount); it != pod_set.annotations.end()) {
      // A malformed count is ignored (logged) by Kueue.
      int32_t count = 0;
      auto [ptr, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), count);
      if (ec == std::errc() && ptr == it->second.data() + it->second.size()) index.sub_group_count = count;
    }
    KUEUESIM_ASSIGN_OR_RETURN(model::PodSet built,
                              PodSetFromTemplate(resolved[k].template_field, Lower(fmt::format("{}-{}", job.meta.name, k)),
                                                 pod_set.replicas.value_or(1), index));
    wl.pod_sets.push_back(std::move(built));
  }
  KUEUESIM_RETURN_IF_ERROR(ValidatePodSetList(wl.pod_sets, components));
  out.workload = std::move(wl);
  return out;
}

}  // namespace kueuesim::scenario::kinds
