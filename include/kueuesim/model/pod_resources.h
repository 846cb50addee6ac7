// A pod template's resources as written (containers, init containers,
// sidecars, pod-level resources, overhead) and what Kueue derives from them:
// the pod's effective request, the checks of requests against limits, and
// the namespace's LimitRanges and the cluster's RuntimeClasses applied as
// Kueue's AdjustResources applies them before it charges a workload.
//
// Upstream: pkg/workload/resources.go (AdjustResources, ValidateResources,
// ValidateLimitRange), pkg/util/limitrange (Summarize, ValidatePodSpec),
// k8s.io/component-helpers/resource (PodRequests).
#ifndef KUEUESIM_MODEL_POD_RESOURCES_H_
#define KUEUESIM_MODEL_POD_RESOURCES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kueuesim/model/objects.h"

namespace kueuesim::model {

// One container's resources as written (canonical amounts, sorted by name).
struct ContainerResources {
  enum class Role : uint8_t {
    kRegular,  // spec.containers[index] (or an operator's added container)
    kInit,     // spec.initContainers[index]
    kSidecar,  // spec.initContainers[index] with restartPolicy: Always
  };
  Role role = Role::kRegular;
  int32_t index = 0;
  // Whether ValidateResources and the LimitRange checks look at it: false
  // for a container an operator adds that is not in the written spec (its
  // path would name nothing).
  bool in_spec = true;
  std::vector<ResourceAmount> requests;
  std::vector<ResourceAmount> limits;
  bool operator==(const ContainerResources& other) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ContainerResources& c) {
    return H::combine(std::move(h), c.role, c.index, c.in_spec, c.requests, c.limits);
  }
};

// (Equal and hashable: the loader keeps one copy of each distinct pod
// template's resources, shared by the pod sets written alike.)
struct PodResources {
  // The field the regular containers are under ("containers" for a pod spec).
  std::string containers_field = "containers";
  // Regular containers first (in order), then init containers (in order).
  std::vector<ContainerResources> containers;
  // spec.resources (pod-level resources, KEP-2837); nullopt when absent.
  struct PodLevel {
    std::vector<ResourceAmount> requests;
    std::vector<ResourceAmount> limits;
    bool operator==(const PodLevel& other) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const PodLevel& p) {
      return H::combine(std::move(h), p.requests, p.limits);
    }
  };
  std::optional<PodLevel> pod_level;
  // spec.overhead; nullopt when absent (a RuntimeClass may supply it).
  std::optional<std::vector<ResourceAmount>> overhead;
  std::string runtime_class_name;  // spec.runtimeClassName
  bool operator==(const PodResources& other) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const PodResources& p) {
    h = H::combine(std::move(h), p.containers_field, p.containers, p.runtime_class_name, p.pod_level.has_value(),
                   p.overhead.has_value());
    if (p.pod_level.has_value()) h = H::combine(std::move(h), *p.pod_level);
    if (p.overhead.has_value()) h = H::combine(std::move(h), *p.overhead);
    return h;
  }
};

// What Kubernetes and Kueue derive from PodResources.
struct PodRequestTotals {
  // The pod's effective request (PodRequests after Kueue's limits-for-missing-
  // requests): max(sum of containers and sidecars, each init container with
  // the sidecars started before it), pod-level requests replacing the
  // resources they name, plus overhead; negative amounts floored at zero;
  // sorted by name.
  std::vector<ResourceAmount> requests;
  // Domain-prefixed resources as Kueue's DRA extended-resource quota adds
  // them (see PodSet::container_extended_requests).
  std::vector<ResourceAmount> container_extended_requests;
  // ValidateResources' findings (init containers, containers, pod level).
  std::vector<PodSet::RequestsAboveLimits> requests_above_limits;
};

PodRequestTotals ComputePodRequests(const PodResources& pod);

// Summarize of the LimitRanges of one namespace, for one limit type:
// the lowest max, the highest min, the first default and defaultRequest
// (in the order the ranges are given).
struct LimitRangeBounds {
  bool present = false;
  std::vector<ResourceAmount> max;
  std::vector<ResourceAmount> min;
  std::vector<ResourceAmount> default_limits;
  std::vector<ResourceAmount> default_requests;
};

struct LimitRangeSummary {
  LimitRangeBounds container;
  LimitRangeBounds pod;
};

// Kueue lists a namespace's LimitRanges from its informer cache, in no
// defined order; kueuesim takes them by name, so that "the first default"
// is the one of the LimitRange whose name sorts first.
LimitRangeSummary SummarizeLimitRanges(const std::vector<const LimitRange*>& ranges);

// AdjustResources on one pod: the RuntimeClass's fixed overhead when the pod
// names one and sets no overhead (`runtime_class` null: not found, nothing
// added), then the LimitRange defaults (limits and requests keep what the
// container says). Returns whether anything changed.
bool AdjustPodResources(const LimitRangeSummary& summary, const RuntimeClass* runtime_class,
                        PodResources* pod);

// ValidateLimitRange on one adjusted pod whose effective request is
// `pod_requests` (the pod's totals, overhead included).
std::vector<PodSet::LimitRangeViolation> ValidateLimitRanges(const LimitRangeSummary& summary,
                                                             const PodResources& pod,
                                                             const std::vector<ResourceAmount>& pod_requests);

}  // namespace kueuesim::model

#endif  // KUEUESIM_MODEL_POD_RESOURCES_H_
