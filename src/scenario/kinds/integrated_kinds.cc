// Dispatch of Kueue's other job integrations to their decoders; TrainJobs
// wait for the end of loading, when every training runtime is known.
#include "scenario/kinds/integrated_kinds.h"

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "scenario/decode.h"
#include "scenario/kinds/kinds.h"

namespace kueuesim::scenario {
namespace {

constexpr char kTrainerApi[] = "trainer.kubeflow.org/v1alpha1";

IntegratedKinds::Outcome FromDecoded(kinds::Decoded decoded) {
  IntegratedKinds::Outcome outcome;
  if (decoded.workload.has_value()) outcome.workloads.push_back(std::move(*decoded.workload));
  outcome.ignored = std::move(decoded.ignored);
  return outcome;
}

}  // namespace

bool IsIntegratedKind(std::string_view api_version, std::string_view kind) {
  if (api_version == "jobset.x-k8s.io/v1alpha2") return kind == "JobSet";
  if (api_version == "kubeflow.org/v1") return kinds::IsKubeflowV1Kind(kind);
  if (api_version == "kubeflow.org/v2beta1") return kind == "MPIJob";
  if (api_version == kTrainerApi) {
    return kind == "TrainJob" || kind == "TrainingRuntime" || kind == "ClusterTrainingRuntime";
  }
  if (api_version == "ray.io/v1") return kind == "RayJob" || kind == "RayCluster" || kind == "RayService";
  if (api_version == "workload.codeflare.dev/v1beta2") return kind == "AppWrapper";
  if (api_version == "sparkoperator.k8s.io/v1beta2") return kind == "SparkApplication";
  return false;
}

absl::StatusOr<IntegratedKinds::Outcome> IntegratedKinds::Decode(std::string_view api_version, std::string_view kind,
                                                                 const FieldReader& object,
                                                                 const std::string& cluster,
                                                                 int64_t input_sequence) {
  if (api_version == kTrainerApi) {
    Outcome outcome;
    if (kind == "TrainJob") {
      kinds::TrainJobRuntimeRef ref;
      KUEUESIM_ASSIGN_OR_RETURN(kinds::Decoded checked, kinds::CheckTrainJob(object, &ref));
      if (!checked.ignored.empty()) return FromDecoded(std::move(checked));
      train_jobs_.push_back(PendingTrainJob{object, cluster, input_sequence});
      outcome.deferred = true;
      return outcome;
    }
    // A training runtime: kept for the TrainJobs that name it.
    const bool cluster_scoped = kind == "ClusterTrainingRuntime";
    KUEUESIM_ASSIGN_OR_RETURN(model::ObjectMeta meta, DecodeMeta(object, !cluster_scoped));
    auto key = std::make_tuple(cluster, cluster_scoped ? std::string() : meta.namespace_, meta.name);
    if (!runtimes_.emplace(key, object).second) {
      return object.Field("metadata").Field("name").Error(
          fmt::format("a second {} \"{}\"{}", kind, meta.name,
                      cluster_scoped ? "" : fmt::format(" in namespace \"{}\"", meta.namespace_)));
    }
    outcome.deferred = true;
    return outcome;
  }
  kinds::Decoded decoded;
  if (kind == "JobSet") {
    KUEUESIM_ASSIGN_OR_RETURN(decoded, kinds::DecodeJobSet(object));
  } else if (kind == "MPIJob") {
    KUEUESIM_ASSIGN_OR_RETURN(decoded, kinds::DecodeMPIJob(object));
  } else if (api_version == "kubeflow.org/v1") {
    KUEUESIM_ASSIGN_OR_RETURN(decoded, kinds::DecodeKubeflowJob(object, kind));
  } else if (kind == "RayJob") {
    KUEUESIM_ASSIGN_OR_RETURN(decoded, kinds::DecodeRayJob(object));
  } else if (kind == "RayCluster") {
    KUEUESIM_ASSIGN_OR_RETURN(decoded, kinds::DecodeRayCluster(object));
  } else if (kind == "RayService") {
    KUEUESIM_ASSIGN_OR_RETURN(decoded, kinds::DecodeRayService(object));
  } else if (kind == "AppWrapper") {
    KUEUESIM_ASSIGN_OR_RETURN(decoded, kinds::DecodeAppWrapper(object));
  } else if (kind == "SparkApplication") {
    KUEUESIM_ASSIGN_OR_RETURN(decoded, kinds::DecodeSparkApplication(object));
  } else {
    return object.Field("kind").Error(fmt::format("{} {} is not a kind kueuesim integrates", api_version, kind));
  }
  return FromDecoded(std::move(decoded));
}

absl::StatusOr<std::vector<std::pair<std::string, model::Workload>>> IntegratedKinds::Finish() {
  std::vector<std::pair<std::string, model::Workload>> out;
  for (const PendingTrainJob& pending : train_jobs_) {
    kinds::TrainJobRuntimeRef ref;
    KUEUESIM_RETURN_IF_ERROR(kinds::CheckTrainJob(pending.object, &ref).status());
    auto it = runtimes_.find(
        std::make_tuple(pending.cluster, ref.cluster_scoped ? std::string() : ref.namespace_, ref.name));
    const FieldReader* runtime = it == runtimes_.end() ? nullptr : &it->second;
    KUEUESIM_ASSIGN_OR_RETURN(model::Workload workload, kinds::DecodeTrainJob(pending.object, runtime));
    workload.input_sequence = pending.input_sequence;
    out.emplace_back(pending.cluster, std::move(workload));
  }
  train_jobs_.clear();
  runtimes_.clear();
  return out;
}

}  // namespace kueuesim::scenario
