// Decoders for the DRA objects (resource.k8s.io/v1 ResourceSlice,
// DeviceClass, ResourceClaimTemplate), the Configuration's
// resources.deviceClassMappings and a pod spec's resourceClaims. Errors name
// the file, the line, the object and the field path (scenario/field.h).
//
// The decoders check what the Kubernetes API server would (required fields,
// one-of fields, name syntax, limits that matter); CEL expressions are only
// read here and compiled by dra::Charger::Create, and the mappings' Kueue
// validation (which depends on feature gates) is also done there.
#ifndef KUEUESIM_SCENARIO_DECODE_DRA_H_
#define KUEUESIM_SCENARIO_DECODE_DRA_H_

#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"
#include "scenario/field.h"

namespace kueuesim::scenario {

// A ResourceSlice (cluster-scoped). Attribute and capacity names written
// bare are qualified with spec.driver; the resource.k8s.io/v1beta1 layout
// (spec.devices[].basic) is accepted too.
absl::StatusOr<model::ResourceSlice> DecodeResourceSlice(const FieldReader& object);

// A DeviceClass (cluster-scoped): spec.selectors[].cel.expression and
// spec.extendedResourceName; spec.config is ignored.
absl::StatusOr<model::DeviceClass> DecodeDeviceClass(const FieldReader& object);

// A ResourceClaimTemplate (namespaced): spec.spec.devices.requests[];
// constraints and config are ignored. `v1beta1_layout`: resource.k8s.io/v1beta1,
// whose requests carry the `exactly` fields (deviceClassName, selectors,
// allocationMode, count, adminAccess, capacity) themselves.
absl::StatusOr<model::ResourceClaimTemplate> DecodeResourceClaimTemplate(const FieldReader& object,
                                                                        bool v1beta1_layout = false);

// The Configuration's `resources` field: its deviceClassMappings (empty when
// absent).
absl::StatusOr<std::vector<model::DeviceClassMapping>> DecodeDeviceClassMappings(
    const FieldReader& resources);

// A pod spec's `resourceClaims` (empty when absent).
absl::StatusOr<std::vector<model::PodResourceClaim>> DecodePodResourceClaims(const FieldReader& pod_spec);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_DECODE_DRA_H_
