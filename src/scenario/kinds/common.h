// What Kueue's job integrations share (kueue pkg/controller/jobframework):
// whether an object is managed, the create-time validation every job webhook
// applies, the Workload's metadata and priority, and the pod set of one pod
// template with its topology request (tas.go, tas_validation.go). Used by the
// kind decoders of this directory only.
#ifndef KUEUESIM_SCENARIO_KINDS_COMMON_H_
#define KUEUESIM_SCENARIO_KINDS_COMMON_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"
#include "scenario/decode.h"
#include "scenario/field.h"

namespace kueuesim::scenario::kinds {

inline constexpr char kQueueNameLabel[] = "kueue.x-k8s.io/queue-name";
inline constexpr char kPriorityClassLabel[] = "kueue.x-k8s.io/priority-class";
inline constexpr char kElasticJobAnnotation[] = "kueue.x-k8s.io/elastic-job";
inline constexpr char kWorkloadPriorityClassSource[] = "kueue.x-k8s.io/workloadpriorityclass";
inline constexpr char kPodPriorityClassSource[] = "scheduling.k8s.io/priorityclass";
// jobframework.MaxPodSets.
inline constexpr size_t kMaxPodSets = 18;

// A job object's metadata and its queue: the kueue.x-k8s.io/queue-name label
// (or the deprecated annotation of the same key). Empty queue: Kueue does
// not manage the object (manageJobsWithoutQueueName off, the default).
struct JobObject {
  model::ObjectMeta meta;
  std::string queue_name;
  std::string kind;  // for the Workload's name and messages
};

absl::StatusOr<JobObject> ReadJobObject(const FieldReader& object, std::string_view kind);

// The reason to give in a load warning for an object without a queue name.
std::string NoQueueNameReason();

// jobframework.ValidateJobOnCreate for a managed object: the queue name is a
// DNS subdomain, kueue.x-k8s.io/max-exec-time-seconds a positive integer, and
// the elastic-job annotation only on the kinds that support it (batch/v1
// Job and the Ray kinds).
absl::Status ValidateJobOnCreate(const FieldReader& object, const JobObject& job, bool elastic_supported);

// True when the object carries kueue.x-k8s.io/elastic-job: "true" (gate
// ElasticJobsViaWorkloadSlices, beta and on at the reference commit).
bool IsElastic(const JobObject& job);

// A Workload for a managed job (jobframework.ConstructWorkload): named
// "<lower(kind)>-<name>", with the object's metadata (for the priority-class
// label), queue, WorkloadPriorityClass, maximum execution time and the
// kueuesim.io/arrival, duration and startup-delay annotations of the object.
// Pod sets are the caller's.
absl::StatusOr<model::Workload> NewWorkload(const FieldReader& object, const JobObject& job,
                                            model::WorkloadSourceKind source);

// What the integration adds to every pod set's topology request
// (podSetTopologyRequestBuilder.PodIndexLabel / SubGroup).
struct TopologyIndex {
  std::optional<std::string> pod_index_label;
  std::optional<std::string> sub_group_index_label;
  std::optional<int32_t> sub_group_count;
};

// A pod set named `name` of `count` pods from the pod template
// `pod_template` (metadata + spec). Its topology request is built from the
// template's annotations as Kueue's builder does, after the checks of the
// TAS webhook validation (ValidateTASPodSetRequest and the slice-size upper
// bound); a violation is an error at the annotation. `extras`: what the
// operator adds to the pods (may be null).
absl::StatusOr<model::PodSet> PodSetFromTemplate(const FieldReader& pod_template, std::string name, int32_t count,
                                                 const TopologyIndex& index, const PodSpecExtras* extras = nullptr);

// The topology request of a pod template's annotations (validated as above);
// for pod sets whose template is synthesised (Spark).
absl::StatusOr<std::optional<model::TopologyRequest>> TopologyRequestFromAnnotations(
    const FieldReader& annotations, int32_t count, const TopologyIndex& index);

// The same for annotations merged from several places (Spark's role metadata
// over its template's): `values` are the annotations, `field_of(key)` the
// field a key's value came from and `annotations` the field for errors
// about the whole set.
absl::StatusOr<std::optional<model::TopologyRequest>> TopologyRequestFromMap(
    const model::Labels& values, const FieldReader& annotations,
    const std::function<FieldReader(std::string_view)>& field_of, int32_t count, const TopologyIndex& index);

// ValidatePodSetGroupingTopology (JobSet, MPIJob and Ray webhooks): pod sets
// sharing kueue.x-k8s.io/podset-group-name come in pairs, one of them of one
// pod, with the same required or preferred level. `annotations[i]` is the
// annotations field of pod set i's template, for the error.
absl::Status ValidatePodSetGroups(const std::vector<model::PodSet>& pod_sets,
                                  const std::vector<FieldReader>& annotations);

// The checks the Workload API applies to the pod sets (1 to 18, distinct
// names); `field` is where the pod sets come from, for the error.
absl::Status ValidatePodSetList(const std::vector<model::PodSet>& pod_sets, const FieldReader& field);

// An optional non-negative int32 field; `fallback` when absent.
absl::StatusOr<int32_t> CountField(const FieldReader& field, int32_t fallback);

// A canonical amount of `resource` from a quantity literal (constants).
Amount ConstantAmount(std::string_view quantity, std::string_view resource);

// Lowercases ASCII letters (kueue.NewPodSetReference).
std::string Lower(std::string_view text);

}  // namespace kueuesim::scenario::kinds

#endif  // KUEUESIM_SCENARIO_KINDS_COMMON_H_
