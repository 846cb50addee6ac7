// trainer.kubeflow.org/v1alpha1 TrainJob, as kueue pkg/controller/jobs/trainjob
// (trainjob_controller.go getChildJobSet, trainjob_webhook.go) turns it into a
// Workload: Kueue rebuilds the JobSet the Kubeflow Trainer (v2.3.0) would
// create from the TrainJob's TrainingRuntime or ClusterTrainingRuntime, then
// applies the JobSet rules (jobset.cc):
//   1. the runtime's JobSet template, with each of the TrainJob's
//      runtimePatches strategic-merged into it (replicated jobs, containers,
//      volumes and env merged by name; the runtime's job order kept);
//   2. spec.trainer.resourcesPerNode merged key by key into the resources of
//      the container "node" of the trainer job (the one labelled
//      trainer.kubeflow.org/trainjob-ancestor-step: trainer, when the runtime
//      has an mlPolicy) or of the job "node" of an MPI runtime that runs the
//      launcher as a node;
//   3. one count per replicated job: its parallelism (1), or mlPolicy.numNodes
//      (1) for the trainer job; then spec.trainer.numNodes for the trainer
//      job (Torch, JAX, XGBoost, plain), or for the job "node" of an MPI
//      runtime (numNodes - 1, at least 1, when the launcher runs as a node);
//      the count becomes the job's parallelism and completions;
//   4. replicas 1 for the initializer and trainer jobs (the others keep the
//      runtime's, 1 by default).
#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/doc/reader.h"
#include "scenario/kinds/common.h"
#include "scenario/kinds/kinds.h"

namespace kueuesim::scenario::kinds {
namespace {

constexpr char kTrainerGroup[] = "trainer.kubeflow.org";
constexpr char kAncestorLabel[] = "trainer.kubeflow.org/trainjob-ancestor-step";
constexpr char kAncestorTrainer[] = "trainer";
constexpr char kDatasetInitializer[] = "dataset-initializer";
constexpr char kModelInitializer[] = "model-initializer";
constexpr char kNode[] = "node";

// An owned copy of a manifest subtree, for merging.
struct Value {
  enum class Kind { kNull, kScalar, kMap, kList } kind = Kind::kNull;
  std::string text;
  bool quoted = false;
  // A key and its value. Not a std::pair: pair<std::string, Value> checks
  // that Value is default-constructible while Value is still being defined,
  // which clang with libstdc++ refuses.
  struct Entry;
  std::vector<Entry> map;
  std::vector<Value> list;

  Value* Find(std::string_view key);
  Value& At(std::string_view key);
  static Value Scalar(std::string text, bool quoted);
};

struct Value::Entry {
  std::string first;
  Value second;
};

Value* Value::Find(std::string_view key) {
  for (auto& [k, v] : map) {
    if (k == key) return &v;
  }
  return nullptr;
}

Value& Value::At(std::string_view key) {
  if (Value* v = Find(key)) return *v;
  kind = Kind::kMap;
  map.push_back(Entry{std::string(key), Value()});
  return map.back().second;
}

Value Value::Scalar(std::string text, bool quoted) {
  Value v;
  v.kind = Kind::kScalar;
  v.text = std::move(text);
  v.quoted = quoted;
  return v;
}

Value Copy(const doc::Node& node) {
  Value v;
  if (!node.valid() || node.IsNull()) return v;
  if (node.IsScalar()) return Value::Scalar(std::string(node.scalar()), node.style() == doc::ScalarStyle::kQuoted);
  if (node.IsSequence()) {
    v.kind = Value::Kind::kList;
    for (size_t i = 0; i < node.size(); ++i) v.list.push_back(Copy(node.at(i)));
    return v;
  }
  v.kind = Value::Kind::kMap;
  for (size_t i = 0; i < node.size(); ++i) v.map.push_back(Value::Entry{std::string(node.key(i)), Copy(node.value(i))});
  return v;
}

// The merge key of the lists Kubernetes' strategic merge patch merges
// element by element (patchMergeKey tags of the JobSet and core types).
const char* MergeKey(std::string_view list_field) {
  static const std::pair<const char*, const char*> kKeys[] = {
      {"replicatedJobs", "name"}, {"containers", "name"}, {"initContainers", "name"}, {"volumes", "name"},
      {"env", "name"},            {"volumeMounts", "mountPath"}, {"ports", "containerPort"},
      {"imagePullSecrets", "name"}, {"dependsOn", "name"},    {"ephemeralContainers", "name"}};
  for (const auto& [field, key] : kKeys) {
    if (list_field == field) return key;
  }
  return nullptr;
}

std::string KeyOf(const Value& item, const char* key) {
  if (item.kind != Value::Kind::kMap) return "";
  const Value* v = const_cast<Value&>(item).Find(key);
  return v != nullptr && v->kind == Value::Kind::kScalar ? v->text : "";
}

// Strategic merge of `patch` into `base` (maps recursively, null deletes,
// keyed lists element by element, anything else replaced).
void Merge(Value* base, const Value& patch, std::string_view field) {
  if (patch.kind == Value::Kind::kMap && base->kind == Value::Kind::kMap) {
    for (const auto& [key, value] : patch.map) {
      if (value.kind == Value::Kind::kNull) {
        base->map.erase(std::remove_if(base->map.begin(), base->map.end(),
                                       [&name = key](const auto& e) { return e.first == name; }),
                        base->map.end());
        continue;
      }
      Value* existing = base->Find(key);
      if (existing == nullptr) {
        base->map.push_back(Value::Entry{key, value});
      } else {
        Merge(existing, value, key);
      }
    }
    return;
  }
  const char* merge_key = MergeKey(field);
  if (merge_key != nullptr && patch.kind == Value::Kind::kList && base->kind == Value::Kind::kList) {
    for (const Value& item : patch.list) {
      const std::string key = KeyOf(item, merge_key);
      auto it = std::find_if(base->list.begin(), base->list.end(),
                             [&](const Value& b) { return !key.empty() && KeyOf(b, merge_key) == key; });
      if (it == base->list.end()) {
        base->list.push_back(item);
      } else {
        Merge(&*it, item, "");
      }
    }
    return;
  }
  *base = patch;
}

bool IsJsonLiteral(const std::string& text) {
  if (text == "true" || text == "false") return true;
  if (text.empty()) return false;
  size_t i = text[0] == '-' ? 1 : 0;
  if (i >= text.size()) return false;
  bool digits = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-') {
      return false;
    }
  }
  return digits && text.find_first_of(".eE") == std::string::npos;  // integers only; others stay strings
}

void WriteJson(const Value& v, std::string* out) {
  switch (v.kind) {
    case Value::Kind::kNull:
      *out += "null";
      return;
    case Value::Kind::kScalar:
      if (!v.quoted && IsJsonLiteral(v.text)) {
        *out += v.text;
        return;
      }
      *out += '"';
      for (char c : v.text) {
        if (c == '"' || c == '\\') {
          *out += '\\';
          *out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
          *out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        } else {
          *out += c;
        }
      }
      *out += '"';
      return;
    case Value::Kind::kList:
      *out += '[';
      for (size_t i = 0; i < v.list.size(); ++i) {
        if (i > 0) *out += ',';
        WriteJson(v.list[i], out);
      }
      *out += ']';
      return;
    case Value::Kind::kMap: {
      *out += '{';
      bool first = true;
      for (const auto& [key, value] : v.map) {
        if (!first) *out += ',';
        first = false;
        WriteJson(Value::Scalar(key, true), out);
        *out += ':';
        WriteJson(value, out);
      }
      *out += '}';
      return;
    }
  }
}

absl::StatusOr<std::optional<int32_t>> OptCount(const FieldReader& field) {
  KUEUESIM_ASSIGN_OR_RETURN(auto value, field.OptInt32());
  if (value.has_value() && *value < 0) return field.Error(fmt::format("{} must not be negative", *value));
  return value;
}

}  // namespace

absl::StatusOr<Decoded> CheckTrainJob(const FieldReader& object, TrainJobRuntimeRef* runtime_ref) {
  KUEUESIM_ASSIGN_OR_RETURN(JobObject job, ReadJobObject(object, "TrainJob"));
  Decoded out;
  if (job.queue_name.empty()) {
    out.ignored = NoQueueNameReason();
    return out;
  }
  KUEUESIM_RETURN_IF_ERROR(ValidateJobOnCreate(object, job, /*elastic_supported=*/false));
  FieldReader ref = object.Field("spec").Field("runtimeRef");
  KUEUESIM_ASSIGN_OR_RETURN(runtime_ref->name, ref.Field("name").String());
  KUEUESIM_ASSIGN_OR_RETURN(auto group, ref.Field("apiGroup").OptString());
  KUEUESIM_ASSIGN_OR_RETURN(auto kind, ref.Field("kind").OptString());
  if (group.value_or(kTrainerGroup) != kTrainerGroup ||
      (kind.value_or("ClusterTrainingRuntime") != "ClusterTrainingRuntime" && *kind != "TrainingRuntime")) {
    return ref.Error(fmt::format("unsupported runtime: {}.{} (valid: ClusterTrainingRuntime, TrainingRuntime of {})",
                                 kind.value_or("ClusterTrainingRuntime"), group.value_or(kTrainerGroup),
                                 kTrainerGroup));
  }
  runtime_ref->cluster_scoped = kind.value_or("ClusterTrainingRuntime") == "ClusterTrainingRuntime";
  runtime_ref->namespace_ = job.meta.namespace_;
  return out;
}

absl::StatusOr<model::Workload> DecodeTrainJob(const FieldReader& object, const FieldReader* runtime) {
  TrainJobRuntimeRef ref;
  KUEUESIM_RETURN_IF_ERROR(CheckTrainJob(object, &ref).status());
  KUEUESIM_ASSIGN_OR_RETURN(JobObject job, ReadJobObject(object, "TrainJob"));
  FieldReader spec = object.Field("spec");
  const char* runtime_kind = ref.cluster_scoped ? "ClusterTrainingRuntime" : "TrainingRuntime";
  if (runtime == nullptr) {
    return spec.Field("runtimeRef").Field("name").Error(fmt::format(
        "runtime '{}' not found: no {} \"{}\"{} in the input", ref.name, runtime_kind, ref.name,
        ref.cluster_scoped ? "" : fmt::format(" in namespace \"{}\"", ref.namespace_)));
  }
  FieldReader runtime_spec = runtime->Field("spec");
  FieldReader jobset_spec = runtime_spec.Field("template").Field("spec");
  // The runtime's own templates are checked where they are written.
  KUEUESIM_RETURN_IF_ERROR(JobSetPodSets(jobset_spec).status());

  // 1. The runtime's JobSet spec with the TrainJob's patches.
  Value derived = Copy(jobset_spec.node());
  std::vector<std::string> order;
  if (Value* jobs = derived.Find("replicatedJobs"); jobs != nullptr && jobs->kind == Value::Kind::kList) {
    for (const Value& rj : jobs->list) order.push_back(KeyOf(rj, "name"));
  }
  FieldReader patches = spec.Field("runtimePatches");
  KUEUESIM_RETURN_IF_ERROR(patches.ExpectSequence());
  for (size_t i = 0; i < patches.size(); ++i) {
    FieldReader patch = patches.Index(i).Field("trainingRuntimeSpec").Field("template").Field("spec");
    KUEUESIM_RETURN_IF_ERROR(patch.ExpectMapping());
    if (!patch.present()) continue;
    // Resources written in a patch are checked where they are written.
    FieldReader jobs = patch.Field("replicatedJobs");
    KUEUESIM_RETURN_IF_ERROR(jobs.ExpectSequence());
    for (size_t j = 0; j < jobs.size(); ++j) {
      FieldReader pod = jobs.Index(j).Field("template").Field("spec").Field("template");
      if (!pod.Field("spec").present()) continue;
      model::PodSet scratch;
      KUEUESIM_RETURN_IF_ERROR(DecodePodTemplate(pod, &scratch));
    }
    Merge(&derived, Copy(patch.node()), "");
  }
  Value* jobs = derived.Find("replicatedJobs");
  if (jobs == nullptr || jobs->kind != Value::Kind::kList) {
    return jobset_spec.Field("replicatedJobs").Error("is required (the runtime's JobSet has no replicated jobs)");
  }
  std::stable_sort(jobs->list.begin(), jobs->list.end(), [&](const Value& a, const Value& b) {
    auto rank = [&](const Value& v) {
      auto it = std::find(order.begin(), order.end(), KeyOf(v, "name"));
      return it == order.end() ? order.size() : static_cast<size_t>(it - order.begin());
    };
    return rank(a) < rank(b);
  });

  // The ML policy and the TrainJob's trainer.
  FieldReader ml_policy = runtime_spec.Field("mlPolicy");
  const bool has_ml_policy = ml_policy.present();
  KUEUESIM_ASSIGN_OR_RETURN(auto policy_nodes, OptCount(ml_policy.Field("numNodes")));
  const bool mpi = ml_policy.Field("mpi").present();
  bool launcher_as_node = false;
  if (ml_policy.Field("mpi").Field("runLauncherAsNode").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(launcher_as_node, ml_policy.Field("mpi").Field("runLauncherAsNode").Bool());
  }
  FieldReader trainer = spec.Field("trainer");
  KUEUESIM_ASSIGN_OR_RETURN(auto trainer_nodes, OptCount(trainer.Field("numNodes")));
  FieldReader resources_per_node = trainer.Field("resourcesPerNode");
  KUEUESIM_RETURN_IF_ERROR(resources_per_node.ExpectMapping());
  for (const char* list : {"requests", "limits"}) {
    FieldReader field = resources_per_node.Field(list);
    KUEUESIM_RETURN_IF_ERROR(field.ExpectMapping());
    for (size_t i = 0; i < field.node().size(); ++i) {
      std::string name(field.node().key(i));
      KUEUESIM_RETURN_IF_ERROR(field.Field(name).AmountOf(name, false).status());
    }
  }
  const Value per_node = Copy(resources_per_node.node());

  // 2-4. Per replicated job.
  bool trainer_counted = false;
  for (Value& rj : jobs->list) {
    const std::string name = KeyOf(rj, "name");
    Value& job_template = rj.At("template");
    std::string ancestor;
    if (Value* labels = job_template.At("metadata").Find("labels"); labels != nullptr) {
      ancestor = KeyOf(*labels, kAncestorLabel);
    }
    Value& job_spec = job_template.At("spec");
    int32_t count = 1;
    if (Value* parallelism = job_spec.Find("parallelism"); parallelism && parallelism->kind == Value::Kind::kScalar) {
      count = std::max(0, std::atoi(parallelism->text.c_str()));
    }
    const bool is_trainer = ancestor == kAncestorTrainer && has_ml_policy;
    if (is_trainer) count = policy_nodes.value_or(1);
    if (resources_per_node.present() && (is_trainer || (mpi && launcher_as_node && name == kNode))) {
      Value* containers = job_spec.At("template").At("spec").Find("containers");
      for (size_t k = 0; containers != nullptr && k < containers->list.size(); ++k) {
        if (KeyOf(containers->list[k], "name") != kNode) continue;
        Merge(&containers->list[k].At("resources"), per_node, "");
        break;
      }
    }
    // The ML-policy plugins: the first trainer job (Torch, JAX, XGBoost,
    // plain) or the job "node" (MPI) takes spec.trainer.numNodes.
    if (trainer_nodes.has_value()) {
      if (mpi && name == kNode) {
        count = launcher_as_node ? std::max(*trainer_nodes - 1, 1) : *trainer_nodes;
      } else if (!mpi && ancestor == kAncestorTrainer && !trainer_counted) {
        count = *trainer_nodes;
      }
    }
    if (!mpi && ancestor == kAncestorTrainer) trainer_counted = true;
    job_spec.At("parallelism") = Value::Scalar(std::to_string(count), false);
    job_spec.At("completions") = Value::Scalar(std::to_string(count), false);
    if (ancestor == kDatasetInitializer || ancestor == kModelInitializer || ancestor == kAncestorTrainer) {
      rj.At("replicas") = Value::Scalar("1", false);
    }
  }

  // The derived JobSet, read back as a document, through the JobSet rules.
  std::string json;
  WriteJson(derived, &json);
  const std::string display = fmt::format("{}:{} (the JobSet {} \"{}\" gives TrainJob \"{}\")", object.node().file(),
                                          object.node().position().line, runtime_kind, ref.name, job.meta.name);
  KUEUESIM_ASSIGN_OR_RETURN(std::vector<doc::Document> documents, doc::ReadAllFromString(json, display));
  if (documents.size() != 1) return object.Error("internal error: the derived JobSet did not read back");
  FieldReader derived_spec(documents.front().root(), std::make_shared<const std::string>(object.object()), "spec");
  KUEUESIM_ASSIGN_OR_RETURN(model::Workload wl, NewWorkload(object, job, model::WorkloadSourceKind::kTrainJob));
  KUEUESIM_ASSIGN_OR_RETURN(wl.pod_sets, JobSetPodSets(derived_spec));
  return wl;
}

}  // namespace kueuesim::scenario::kinds
