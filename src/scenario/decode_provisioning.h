// Decoders for ProvisioningRequest admission checks and the simulated
// cluster autoscaler behind them:
//
// - kueue.x-k8s.io ProvisioningRequestConfig (Kueue's API, CRD defaults);
// - kueuesim.io/v1alpha1 AutoscalerPool, a node group the autoscaler grows
//   and shrinks (see docs/scenario-format.md);
// - the kueuesim.io/check-* annotations that declare how an AdmissionCheck
//   of a controller kueuesim does not model answers;
// - Simulation spec.autoscaler and spec.admissionChecks;
// - Change targets of kind AutoscalerPool;
// - duration distributions ("90s", "uniform(1m, 5m)", "exponential(2m)",
//   "normal(5m, 1m)").
#ifndef KUEUESIM_SCENARIO_DECODE_PROVISIONING_H_
#define KUEUESIM_SCENARIO_DECODE_PROVISIONING_H_

#include <optional>

#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/scenario/scenario.h"
#include "scenario/field.h"

namespace kueuesim::scenario {

absl::StatusOr<model::ProvisioningRequestConfig> DecodeProvisioningRequestConfig(const FieldReader& object);
absl::StatusOr<model::AutoscalerPool> DecodeAutoscalerPool(const FieldReader& object);

// A duration or a distribution of durations (a scalar field).
absl::StatusOr<model::DurationDistribution> DecodeDurationDistribution(const FieldReader& field);

// The kueuesim.io/check-* annotations of an AdmissionCheck (`annotations`
// is metadata.annotations); nullopt when none is set.
absl::StatusOr<std::optional<model::SimulatedCheckBehavior>> DecodeCheckBehavior(const FieldReader& annotations);

// Simulation spec.autoscaler and spec.admissionChecks.
absl::Status DecodeProvisioningSettings(const FieldReader& spec, SimulationSettings* settings);

// Cross-object checks of one cluster: ProvisioningRequest checks name an
// existing ProvisioningRequestConfig (else, as in Kueue, the check is
// inactive: a warning); check behaviours are declared only on checks of
// controllers kueuesim does not model; checks nobody answers get a warning;
// AutoscalerPool names are unique and Changes name existing pools.
absl::Status ValidateProvisioning(ClusterSpec* cluster, LoadReport* report);

// spec of a Change whose target is an AutoscalerPool.
absl::StatusOr<model::Change> DecodeAutoscalerPoolChange(const FieldReader& spec, model::Change change);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_DECODE_PROVISIONING_H_
