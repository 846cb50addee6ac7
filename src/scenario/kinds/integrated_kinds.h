// Kueue's job integrations beyond batch/v1 Job and the pod-based kinds
// (kueue pkg/controller/jobs/<kind> at the reference commit): each object
// becomes the Workload Kueue's integration builds for it, with the pod sets
// (names, order, counts), priority, topology requests and webhook checks of
// that integration.
//
//   jobset.x-k8s.io/v1alpha2          JobSet                  (jobset.cc)
//   kubeflow.org/v1                   PyTorchJob, TFJob, XGBoostJob, PaddleJob, JAXJob
//   kubeflow.org/v2beta1              MPIJob                  (kubeflow.cc)
//   trainer.kubeflow.org/v1alpha1     TrainJob, TrainingRuntime, ClusterTrainingRuntime (trainjob.cc)
//   ray.io/v1                         RayJob, RayCluster, RayService (ray.cc)
//   workload.codeflare.dev/v1beta2    AppWrapper              (appwrapper.cc)
//   sparkoperator.k8s.io/v1beta2      SparkApplication        (spark.cc)
//
// The loader hands every object of these kinds to one IntegratedKinds and
// adds what comes back. Kueue only manages these kinds when its
// Configuration enables their frameworks (its shipped configuration enables
// all but the Kubeflow v1 kinds and SparkApplication, which also needs an
// alpha gate); kueuesim assumes they are enabled, as for the pod-based kinds.
#ifndef KUEUESIM_SCENARIO_KINDS_INTEGRATED_KINDS_H_
#define KUEUESIM_SCENARIO_KINDS_INTEGRATED_KINDS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"
#include "scenario/field.h"

namespace kueuesim::scenario {

// True for the apiVersion/kind pairs above: their objects go to
// IntegratedKinds::Decode. Other kinds and versions of these API groups
// (e.g. kubeflow.org/v1 MXJob, which Kueue does not integrate) stay
// unsupported kinds for the loader.
bool IsIntegratedKind(std::string_view api_version, std::string_view kind);

class IntegratedKinds {
 public:
  // What became of one object.
  struct Outcome {
    // Its Workloads (usually one; none when ignored or deferred). The caller
    // sets their input_sequence.
    std::vector<model::Workload> workloads;
    // Non-empty when Kueue does not manage the object: why, for a load
    // warning ("has no kueue.x-k8s.io/queue-name label; ...").
    std::string ignored;
    // The object is resolved by Finish (a TrainJob needs its runtime, which
    // may come later in the input; a runtime is kept for the TrainJobs):
    // the caller must keep the object's document alive until Finish.
    bool deferred = false;
  };

  // Decodes one object of `cluster` (the simulated cluster's name).
  // `input_sequence` is its position in the input, for deferred objects.
  absl::StatusOr<Outcome> Decode(std::string_view api_version, std::string_view kind, const FieldReader& object,
                                 const std::string& cluster, int64_t input_sequence);

  // Builds the Workloads of the deferred objects once every object is read:
  // (cluster, Workload) pairs, each Workload with the input_sequence of its
  // object. Errors name the object (e.g. a TrainJob's missing runtime).
  absl::StatusOr<std::vector<std::pair<std::string, model::Workload>>> Finish();

 private:
  struct PendingTrainJob {
    FieldReader object;
    std::string cluster;
    int64_t input_sequence = 0;
  };
  std::vector<PendingTrainJob> train_jobs_;
  // (cluster, namespace, name) -> the runtime object; namespace "" for a
  // ClusterTrainingRuntime.
  std::map<std::tuple<std::string, std::string, std::string>, FieldReader> runtimes_;
};

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_KINDS_INTEGRATED_KINDS_H_
