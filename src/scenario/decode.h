// Decoders from manifest documents to model objects, one per kind.
#ifndef KUEUESIM_SCENARIO_DECODE_H_
#define KUEUESIM_SCENARIO_DECODE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/scenario/scenario.h"
#include "scenario/field.h"

namespace kueuesim::scenario {

// The API version family of a Kueue object, for field spellings.
enum class KueueApiVersion { kV1beta1, kV1beta2 };

absl::StatusOr<model::ObjectMeta> DecodeMeta(const FieldReader& object, bool namespaced);

absl::StatusOr<model::ResourceFlavor> DecodeResourceFlavor(const FieldReader& object);
absl::StatusOr<model::ClusterQueue> DecodeClusterQueue(const FieldReader& object,
                                                       KueueApiVersion version);
absl::StatusOr<model::Cohort> DecodeCohort(const FieldReader& object, KueueApiVersion version);
absl::StatusOr<model::LocalQueue> DecodeLocalQueue(const FieldReader& object);
absl::StatusOr<model::WorkloadPriorityClass> DecodeWorkloadPriorityClass(const FieldReader& object);
absl::StatusOr<model::PriorityClass> DecodePriorityClass(const FieldReader& object);
absl::StatusOr<model::Namespace> DecodeNamespace(const FieldReader& object);
// v1 LimitRange, with the API server's defaulting of Container items.
absl::StatusOr<model::LimitRange> DecodeLimitRange(const FieldReader& object);
// node.k8s.io RuntimeClass (its overhead.podFixed).
absl::StatusOr<model::RuntimeClass> DecodeRuntimeClass(const FieldReader& object);
absl::StatusOr<model::AdmissionCheck> DecodeAdmissionCheck(const FieldReader& object);
absl::StatusOr<model::Topology> DecodeTopology(const FieldReader& object);
absl::StatusOr<model::MultiKueueConfig> DecodeMultiKueueConfig(const FieldReader& object);
absl::StatusOr<model::MultiKueueCluster> DecodeMultiKueueCluster(const FieldReader& object);
// A Node is ready only with a Ready condition of status True, as Kueue's TAS
// node cache reads it; `has_ready_condition` (optional) says whether it had
// a Ready condition at all.
absl::StatusOr<model::Node> DecodeNode(const FieldReader& object, bool* has_ready_condition = nullptr);
// A v1 taint list (Node spec.taints, NodePool spec.taints).
absl::StatusOr<std::vector<model::Taint>> DecodeTaintList(const FieldReader& list);
absl::StatusOr<model::Workload> DecodeWorkload(const FieldReader& object, KueueApiVersion version);
// A batch/v1 Job labelled with kueue.x-k8s.io/queue-name, as the Workload
// Kueue's Job integration creates for it. Returns nullopt for a Job without
// the label (Kueue ignores it).
absl::StatusOr<std::optional<model::Workload>> DecodeJob(const FieldReader& object);
// As DecodeJob, for a Job-shaped `object` (metadata and spec, e.g. a
// CronJob's jobTemplate) whose metadata is already decoded into `meta`.
absl::StatusOr<std::optional<model::Workload>> DecodeJobWithMeta(const FieldReader& object,
                                                                 model::ObjectMeta meta);
absl::StatusOr<model::Configuration> DecodeConfiguration(const FieldReader& object,
                                                         KueueApiVersion version);
absl::Status DecodeSimulation(const FieldReader& object, SimulationSettings* settings);
// A Simulation's spec.limits: {nodes, workloads, queues: positive integers,
// time: a duration} (see kueuesim/scenario/limits.h).
absl::Status DecodeSimulationLimits(const FieldReader& limits, LimitOverrides* out);

// Decodes a pod template (`template` of a pod set, Job, LWS) into the
// scheduling-relevant parts of `pod_set`: effective requests, node
// selection, tolerations, priority class name.
// `api_server_validated`: the template belongs to a built-in kind (Job, Pod,
// Deployment, StatefulSet) whose pod template the API server validates, so a
// container requesting more than its limit is a load error (the object could
// not be created); otherwise it is recorded in pod_set->requests_above_limits
// (Kueue leaves the workload pending).
absl::Status DecodePodTemplate(const FieldReader& template_field, model::PodSet* pod_set,
                               bool api_server_validated = false);

// What an operator adds to the pods of a template beyond what the template
// says, as Kueue accounts for it in the pod set (Ray's autoscaler and
// submitter sidecars and its GCS fault-tolerance shim, Spark's synthesised
// driver and executor containers).
struct PodSpecExtras {
  // The list of containers under the pod spec: "containers", or Spark's
  // "sidecars".
  std::string containers_field = "containers";
  // Requests max-merged into the first container's requests, before limits
  // stand in for missing requests (Kueue's MergeResourceListKeepMax).
  std::map<std::string, Amount> first_container_request_floor;
  // Containers appended after those of the list, with their requests and
  // limits (a limit stands in for a missing request, as for the others).
  struct Container {
    std::map<std::string, Amount> requests;
    std::map<std::string, Amount> limits;
  };
  std::vector<Container> extra_containers;
  // See DecodePodTemplate.
  bool api_server_validated = false;
};

// DecodePodTemplate on a pod spec given directly (`spec`), with `extras`.
absl::Status DecodePodSpec(const FieldReader& spec, const PodSpecExtras& extras, model::PodSet* pod_set);

// The topology request written as kueue.x-k8s.io/podset-* annotations.
absl::StatusOr<std::optional<model::TopologyRequest>> DecodeTopologyAnnotations(
    const FieldReader& annotations_field);

// Decodes the timing annotations (kueuesim.io/arrival, duration,
// startup-delay) into `workload`.
absl::Status DecodeTimingAnnotations(const FieldReader& metadata, model::Workload* workload);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_DECODE_H_
