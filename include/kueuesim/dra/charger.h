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
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/model/feature_gates.h"
#include "kueuesim/model/objects.h"

namespace kueuesim::dra {

// What DRA adds to one pod of a pod set.
struct PodSetCharge {
  // Per-pod requests by resource name, after DRA: the input requests with
  // DRA-backed extended resources removed, plus the logical resources.
  std::map<std::string, Amount> per_pod_requests;
  // Non-empty when Kueue refuses the workload (QuotaReserved=False,
  // reason Misconfigured, Requeued=False): Kueue's condition message, i.e.
  // its field error(s) rendered as Go does, e.g.
  //   spec.podSets[main].template.spec.resourceClaims[0]
  //   .resourceClaimTemplateName: Not found: "DeviceClass gpu.example.com is
  //   not mapped in DRA configuration for podset main"
  // The one difference: the pod set is named in the path where Kueue gives
  // its index. per_pod_requests is then the input, unchanged.
  std::string inadmissible_reason;
};

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
  // Compiles every CEL expression (DeviceClass selectors, claim template
  // request selectors, mapping device selectors) and validates the mappings
  // as Kueue's Configuration validation does (including the gates a source
  // kind needs). Errors (InvalidArgument) name the file, the object and the
  // field; the first error only (Kueue lists them all).
  static absl::StatusOr<std::unique_ptr<Charger>> Create(const ChargerInputs& inputs);
  ~Charger();

  // Whether DRA can affect this pod set (it references claims, or requests
  // an extended resource that a DeviceClass provides).
  bool Applies(const model::PodSet& pod_set, const std::map<std::string, Amount>& per_pod_requests) const;

  // Charges one pod set of a workload in `namespace_`. Kueue runs each stage
  // (templates, extended resources, counters, capacity) over all pod sets
  // before the next, so when several pod sets fail for different reasons
  // Kueue reports the earliest stage's; a caller taking the first refused
  // pod set may name another (the workload is refused either way).
  PodSetCharge Charge(const std::string& namespace_, const model::PodSet& pod_set,
                      const std::map<std::string, Amount>& per_pod_requests) const;

 private:
  struct Impl;
  explicit Charger(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kueuesim::dra

#endif  // KUEUESIM_DRA_CHARGER_H_
