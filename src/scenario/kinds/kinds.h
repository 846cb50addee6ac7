// The decoders of each integrated kind family (one .cc per family), called by
// IntegratedKinds (integrated_kinds.cc). Each returns the object's Workload,
// or no Workload and the reason Kueue ignores the object.
#ifndef KUEUESIM_SCENARIO_KINDS_KINDS_H_
#define KUEUESIM_SCENARIO_KINDS_KINDS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"
#include "scenario/field.h"

namespace kueuesim::scenario::kinds {

struct Decoded {
  std::optional<model::Workload> workload;
  std::string ignored;  // why Kueue ignores the object (no workload)
};

// jobset.x-k8s.io/v1alpha2 JobSet (jobset.cc).
absl::StatusOr<Decoded> DecodeJobSet(const FieldReader& object);
// The pod sets of a JobSet spec (`spec`: replicatedJobs), as JobSet.PodSets
// builds them; shared with TrainJob's derived JobSet.
absl::StatusOr<std::vector<model::PodSet>> JobSetPodSets(const FieldReader& spec);

// kubeflow.org/v1 PyTorchJob, TFJob, XGBoostJob, PaddleJob, JAXJob and
// kubeflow.org/v2beta1 MPIJob (kubeflow.cc).
bool IsKubeflowV1Kind(std::string_view kind);
absl::StatusOr<Decoded> DecodeKubeflowJob(const FieldReader& object, std::string_view kind);
absl::StatusOr<Decoded> DecodeMPIJob(const FieldReader& object);

// ray.io/v1 RayJob, RayCluster, RayService (ray.cc).
absl::StatusOr<Decoded> DecodeRayJob(const FieldReader& object);
absl::StatusOr<Decoded> DecodeRayCluster(const FieldReader& object);
absl::StatusOr<Decoded> DecodeRayService(const FieldReader& object);

// workload.codeflare.dev/v1beta2 AppWrapper (appwrapper.cc).
absl::StatusOr<Decoded> DecodeAppWrapper(const FieldReader& object);

// sparkoperator.k8s.io/v1beta2 SparkApplication (spark.cc).
absl::StatusOr<Decoded> DecodeSparkApplication(const FieldReader& object);

// trainer.kubeflow.org/v1alpha1 TrainJob (trainjob.cc), in two steps: when
// read, whether Kueue manages it (and the checks that need no runtime); at
// the end, its Workload from its runtime (`runtime`: the TrainingRuntime or
// ClusterTrainingRuntime object, absent when the input has none).
struct TrainJobRuntimeRef {
  std::string name;
  bool cluster_scoped = true;  // ClusterTrainingRuntime (the default)
  std::string namespace_;      // the TrainJob's
};
absl::StatusOr<Decoded> CheckTrainJob(const FieldReader& object, TrainJobRuntimeRef* runtime_ref);
absl::StatusOr<model::Workload> DecodeTrainJob(const FieldReader& object, const FieldReader* runtime);

}  // namespace kueuesim::scenario::kinds

#endif  // KUEUESIM_SCENARIO_KINDS_KINDS_H_
