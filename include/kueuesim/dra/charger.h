// How Kueue charges DRA devices against ClusterQueue quota
// (../shared/design/lws-multikueue-dra.md part D; kueue pkg/dra and
// pkg/controller/core/workload_controller.go): each pod's
// ResourceClaimTemplates become per-pod requests of the logical resources
// named in Configuration resources.deviceClassMappings, or the workload is
// refused (inadmissible) for the reasons Kueue refuses it.
#ifndef KUEUESIM_DRA_CHARGER_H_
#define KUEUESIM_DRA_CHARGER_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/model/feature_gates.h"
#include "kueuesim/model/objects.h"

namespace kueuesim::dra {

// The step of Kueue's handleDRA that refused a pod set, in the order Kueue
// runs them (each over every pod set before the next).
enum class ChargeStage {
  kNone,               // not refused
  kWorkload,           // workload-level: DRA gate off + reject, claims by name
  kTemplates,          // GetResourceRequestsForResourceClaimTemplates
  kExtendedResources,  // ResolveExtendedResourceQuota
  kCounters,           // GetCounterResourcesForWorkload
  kCapacity,           // DetermineCapacityResourcesForWorkload
};

// What DRA adds to one pod of a pod set.
struct PodSetCharge {
  // Per-pod requests by resource name, after DRA: the input requests with
  // DRA-backed extended resources removed, plus the logical resources.
  std::map<std::string, Amount> per_pod_requests;
  // The two parts of that change, for callers that (like Kueue's
  // totalRequestsFromPodSets) apply them after their own steps: the
  // extended resources DRA replaces, and the logical resources it adds.
  std::set<std::string> replaced_extended_resources;
  std::map<std::string, Amount> dra_requests;
  // Non-empty when Kueue refuses the workload (QuotaReserved=False,
  // reason Misconfigured, Requeued=False): Kueue's condition message, i.e.
  // its field error(s) rendered as Go does, e.g.
  //   spec.podSets[0].template.spec.resourceClaims[0]
  //   .resourceClaimTemplateName: Not found: "DeviceClass gpu.example.com is
  //   not mapped in DRA configuration for podset main"
  // (the pod set is named in the path when Charge is not given its index).
  // per_pod_requests is then the input, unchanged, and the parts are empty.
  std::string inadmissible_reason;
  // Where it was refused, and the field errors behind the reason (one
  // element when the reason is not a field error list).
  ChargeStage refused_at = ChargeStage::kNone;
  std::vector<std::string> errors;
};

// The workload's reason from the charges of its pod sets (in pod set
// order; pod sets DRA does not apply to may be left out or unrefused), as
// Kueue words it: a workload-level refusal first, else the earliest stage;
// in the extended-resource stage, which Kueue runs over every pod set before
// failing, the errors of all pod sets refused there, aggregated; in the
// other stages, which stop at the first error, the first refused pod set's.
// Empty when none is refused.
std::string WorkloadInadmissibleReason(const std::vector<PodSetCharge>& charges);

// Kueue's IsExtendedResourceName: a resource name with a domain outside
// kubernetes.io/, not hugepages-*.
bool IsExtendedResourceName(const std::string& name);

// Everything is copied by Create; the pointed-to vectors need not outlive
// it. A null pointer is an empty list.
struct ChargerInputs {
  std::vector<model::DeviceClassMapping> mappings;
  // Where the mappings were written (the Configuration), for messages.
  model::SourceRef mappings_source;
  const std::vector<model::DeviceClass>* device_classes = nullptr;
  const std::vector<model::ResourceClaimTemplate>* templates = nullptr;
  const std::vector<model::ResourceSlice>* slices = nullptr;
  model::FeatureGates gates;
};

class Charger {
 public:
  // Validates the mappings as Kueue's Configuration validation does
  // (including the gates a source kind needs, and compiling their device
  // selectors). Errors (InvalidArgument) name the file, the object and the
  // field; the first error only (Kueue lists them all). DeviceClass and claim
  // template selectors are compiled too, but one that does not compile is
  // not a load error: as in Kueue, it refuses (Charge) only the workloads
  // whose charging compiles it.
  static absl::StatusOr<std::unique_ptr<Charger>> Create(const ChargerInputs& inputs);
  ~Charger();

  // Whether DRA can affect this pod set (it references claims, or requests
  // an extended resource that a DeviceClass provides).
  bool Applies(const model::PodSet& pod_set, const std::map<std::string, Amount>& per_pod_requests) const;

  // Charges one pod set of a workload in `namespace_`; `pod_set_index` is
  // its position in spec.podSets, for the field paths of the messages (-1:
  // name the pod set instead). Kueue runs each stage (templates, extended
  // resources, counters, capacity) over all pod sets before the next, so
  // when several pod sets fail for different reasons Kueue reports the
  // earliest stage's: combine the pod sets' charges with
  // WorkloadInadmissibleReason.
  PodSetCharge Charge(const std::string& namespace_, const model::PodSet& pod_set,
                      const std::map<std::string, Amount>& per_pod_requests, int pod_set_index = -1) const;

 private:
  struct Impl;
  explicit Charger(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kueuesim::dra

#endif  // KUEUESIM_DRA_CHARGER_H_
