// Kubeflow training jobs as kueue pkg/controller/jobs/kubeflow
// (kubeflowjob_controller.go, jobs/<kind>) and pkg/controller/jobs/mpijob
// (mpijob_controller.go, mpijob_webhook.go) turn them into Workloads: one pod
// set per replica type present, in the kind's fixed order, named after the
// type (lowercased), of `replicas` pods (1 when unset); no partial admission.
// Priority: the WorkloadPriorityClass label, else
// runPolicy.schedulingPolicy.priorityClass, else the first replica template
// (in that order) with a priorityClassName.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "scenario/kinds/common.h"
#include "scenario/kinds/kinds.h"

namespace kueuesim::scenario::kinds {
namespace {

constexpr char kReplicaIndexLabel[] = "training.kubeflow.org/replica-index";

struct KubeflowKind {
  const char* kind;
  const char* replica_specs_field;
  std::vector<const char*> ordered_types;
  model::WorkloadSourceKind source;
};

const std::array<KubeflowKind, 5>& KubeflowV1Kinds() {
  static const std::array<KubeflowKind, 5> kinds = {{
      {"TFJob", "tfReplicaSpecs", {"Chief", "Master", "PS", "Worker", "Evaluator"}, model::WorkloadSourceKind::kTFJob},
      {"PyTorchJob", "pytorchReplicaSpecs", {"Master", "Worker"}, model::WorkloadSourceKind::kPyTorchJob},
      {"XGBoostJob", "xgbReplicaSpecs", {"Master", "Worker"}, model::WorkloadSourceKind::kXGBoostJob},
      {"PaddleJob", "paddleReplicaSpecs", {"Master", "Worker"}, model::WorkloadSourceKind::kPaddleJob},
      {"JAXJob", "jaxReplicaSpecs", {"Worker"}, model::WorkloadSourceKind::kJAXJob},
  }};
  return kinds;
}

// The pod sets of a replica-spec map, in `ordered_types` order; an entry
// that is null is skipped, as Kueue does. A replica type the operator does
// not know is an error (its validation rejects the job).
absl::StatusOr<std::vector<model::PodSet>> ReplicaPodSets(const FieldReader& specs,
                                                          const std::vector<const char*>& ordered_types,
                                                          std::vector<FieldReader>* annotations) {
  KUEUESIM_RETURN_IF_ERROR(specs.ExpectMapping());
  for (size_t i = 0; i < specs.node().size(); ++i) {
    const std::string_view key = specs.node().key(i);
    if (std::find(ordered_types.begin(), ordered_types.end(), key) == ordered_types.end()) {
      std::string valid;
      for (const char* type : ordered_types) valid += (valid.empty() ? "" : ", ") + std::string(type);
      return specs.Field(key).Error(fmt::format("unknown replica type \"{}\" (valid: {})", key, valid));
    }
  }
  std::vector<model::PodSet> pod_sets;
  for (const char* type : ordered_types) {
    FieldReader replica = specs.Field(type);
    if (!replica.present()) continue;
    KUEUESIM_RETURN_IF_ERROR(replica.ExpectMapping());
    KUEUESIM_ASSIGN_OR_RETURN(int32_t replicas, CountField(replica.Field("replicas"), 1));
    FieldReader pod_template = replica.Field("template");
    KUEUESIM_ASSIGN_OR_RETURN(
        model::PodSet pod_set,
        PodSetFromTemplate(pod_template, Lower(type), replicas, TopologyIndex{kReplicaIndexLabel, {}, {}}));
    pod_sets.push_back(std::move(pod_set));
    if (annotations != nullptr) annotations->push_back(pod_template.Field("metadata").Field("annotations"));
  }
  KUEUESIM_RETURN_IF_ERROR(ValidatePodSetList(pod_sets, specs));
  return pod_sets;
}

// KubeflowJob.PriorityClass / MPIJob.PriorityClass: the run policy's class
// comes after the WorkloadPriorityClass label; the replica templates' classes
// are the pod sets' (ClusterState::ResolvePriority takes the first).
absl::Status ApplyRunPolicyPriority(const FieldReader& run_policy, model::Workload* wl) {
  KUEUESIM_ASSIGN_OR_RETURN(auto priority_class,
                            run_policy.Field("schedulingPolicy").Field("priorityClass").OptString());
  if (!wl->priority_class_name.empty() || priority_class.value_or("").empty()) return absl::OkStatus();
  wl->priority_class_name = *priority_class;
  wl->rare.Mutable().priority_class_source = kPodPriorityClassSource;
  return absl::OkStatus();
}

}  // namespace

bool IsKubeflowV1Kind(std::string_view kind) {
  for (const auto& k : KubeflowV1Kinds()) {
    if (kind == k.kind) return true;
  }
  return false;
}

absl::StatusOr<Decoded> DecodeKubeflowJob(const FieldReader& object, std::string_view kind) {
  const KubeflowKind* info = nullptr;
  for (const auto& k : KubeflowV1Kinds()) {
    if (kind == k.kind) info = &k;
  }
  if (info == nullptr) return object.Field("kind").Error(fmt::format("\"{}\" is not a Kubeflow v1 job kind", kind));
  KUEUESIM_ASSIGN_OR_RETURN(JobObject job, ReadJobObject(object, info->kind));
  Decoded out;
  if (job.queue_name.empty()) {
    out.ignored = NoQueueNameReason();
    return out;
  }
  KUEUESIM_RETURN_IF_ERROR(ValidateJobOnCreate(object, job, /*elastic_supported=*/false));
  KUEUESIM_ASSIGN_OR_RETURN(model::Workload wl, NewWorkload(object, job, info->source));
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(wl.pod_sets,
                            ReplicaPodSets(spec.Field(info->replica_specs_field), info->ordered_types, nullptr));
  KUEUESIM_RETURN_IF_ERROR(ApplyRunPolicyPriority(spec.Field("runPolicy"), &wl));
  out.workload = std::move(wl);
  return out;
}

absl::StatusOr<Decoded> DecodeMPIJob(const FieldReader& object) {
  KUEUESIM_ASSIGN_OR_RETURN(JobObject job, ReadJobObject(object, "MPIJob"));
  Decoded out;
  if (job.queue_name.empty()) {
    out.ignored = NoQueueNameReason();
    return out;
  }
  KUEUESIM_RETURN_IF_ERROR(ValidateJobOnCreate(object, job, /*elastic_supported=*/false));
  KUEUESIM_ASSIGN_OR_RETURN(model::Workload wl, NewWorkload(object, job, model::WorkloadSourceKind::kMPIJob));
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  // runLauncherAsWorker changes neither the pod sets nor their counts; the
  // webhook's kueue.x-k8s.io/pod-index-offset on the workers only shifts TAS
  // ranks, which kueuesim does not assign.
  std::vector<FieldReader> annotations;
  KUEUESIM_ASSIGN_OR_RETURN(wl.pod_sets, ReplicaPodSets(spec.Field("mpiReplicaSpecs"), {"Launcher", "Worker"},
                                                        &annotations));
  KUEUESIM_RETURN_IF_ERROR(ValidatePodSetGroups(wl.pod_sets, annotations));
  KUEUESIM_RETURN_IF_ERROR(ApplyRunPolicyPriority(spec.Field("runPolicy"), &wl));
  out.workload = std::move(wl);
  return out;
}

}  // namespace kueuesim::scenario::kinds
