#include "kueuesim/model/pod_resources.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace kueuesim::model {
namespace {

using AmountMap = std::map<std::string, Amount>;

AmountMap ToMap(const std::vector<ResourceAmount>& list) {
  AmountMap out;
  for (const ResourceAmount& entry : list) out.emplace(entry.name, entry.amount);
  return out;
}

std::vector<ResourceAmount> ToList(const AmountMap& map) {
  std::vector<ResourceAmount> out;
  out.reserve(map.size());
  for (const auto& [name, amount] : map) out.push_back({name, amount});
  return out;
}

// Adds `from` into `into`, saturating at the int64 bounds (Kueue's
// ResourceValue saturates the exact sum Kubernetes computes).
void AddInto(AmountMap* into, const AmountMap& from) {
  for (const auto& [name, amount] : from) {
    Amount& total = (*into)[name];
    total = AddAmounts(total, amount);
  }
}

void MaxInto(AmountMap* into, const AmountMap& from) {
  for (const auto& [name, amount] : from) {
    auto it = into->find(name);
    if (it == into->end() || it->second < amount) (*into)[name] = amount;
  }
}

// MergeResourceListKeepFirst: what `first` has, plus what only `second` has.
std::vector<ResourceAmount> MergeKeepFirst(const std::vector<ResourceAmount>& first,
                                           const std::vector<ResourceAmount>& second) {
  AmountMap merged = ToMap(first);
  for (const ResourceAmount& entry : second) merged.emplace(entry.name, entry.amount);
  return ToList(merged);
}

// MergeResourceListKeepMin / KeepMax.
AmountMap MergeKeep(const AmountMap& a, const AmountMap& b, bool keep_min) {
  AmountMap out = a;
  for (const auto& [name, amount] : b) {
    auto [it, inserted] = out.emplace(name, amount);
    if (!inserted) it->second = keep_min ? std::min(it->second, amount) : std::max(it->second, amount);
  }
  return out;
}

// Requests.GreaterKeys: the names in both where `left` is greater, sorted;
// nothing when either side is empty.
std::vector<std::string> GreaterKeys(const AmountMap& left, const AmountMap& right) {
  std::vector<std::string> out;
  if (left.empty() || right.empty()) return out;
  for (const auto& [name, amount] : left) {
    auto it = right.find(name);
    if (it != right.end() && amount > it->second) out.push_back(name);
  }
  return out;  // std::map iterates in name order
}

// The request of one container: its requests, its limits standing in for
// the requests it does not name (UseLimitsAsMissingRequestsInPod).
AmountMap EffectiveRequests(const std::vector<ResourceAmount>& requests, const std::vector<ResourceAmount>& limits) {
  AmountMap out = ToMap(requests);
  for (const ResourceAmount& entry : limits) out.emplace(entry.name, entry.amount);
  return out;
}

AmountMap DomainPrefixed(const AmountMap& from) {
  AmountMap out;
  for (const auto& [name, amount] : from) {
    if (amount != 0 && name.find('/') != std::string::npos) out.emplace(name, amount);
  }
  return out;
}

std::string ContainerPath(const PodResources& pod, const ContainerResources& container) {
  const bool init = container.role != ContainerResources::Role::kRegular;
  return (init ? std::string("initContainers") : pod.containers_field) + "[" + std::to_string(container.index) + "]";
}

LimitRangeBounds& Merge(LimitRangeBounds* into, const LimitRangeItem& item) {
  into->present = true;
  into->max = ToList(MergeKeep(ToMap(into->max), ToMap(item.max), /*keep_min=*/true));
  into->min = ToList(MergeKeep(ToMap(into->min), ToMap(item.min), /*keep_min=*/false));
  into->default_limits = MergeKeepFirst(into->default_limits, item.default_limits);
  into->default_requests = MergeKeepFirst(into->default_requests, item.default_requests);
  return *into;
}

void ValidateAgainst(const LimitRangeBounds& bounds, const AmountMap& highest, const AmountMap& lowest,
                     const std::string& path, std::vector<PodSet::LimitRangeViolation>* out) {
  if (auto names = GreaterKeys(highest, ToMap(bounds.max)); !names.empty()) {
    out->push_back({path, std::move(names), /*above_max=*/true});
  }
  if (auto names = GreaterKeys(ToMap(bounds.min), lowest); !names.empty()) {
    out->push_back({path, std::move(names), /*above_max=*/false});
  }
}

}  // namespace

PodRequestTotals ComputePodRequests(const PodResources& pod) {
  PodRequestTotals totals;
  AmountMap requests;
  AmountMap extended_sum;
  AmountMap extended_init_max;
  AmountMap restartable_sum;
  AmountMap init_max;
  std::vector<PodSet::RequestsAboveLimits> init_above;
  std::vector<PodSet::RequestsAboveLimits> regular_above;
  for (const ContainerResources& container : pod.containers) {
    const AmountMap own = EffectiveRequests(container.requests, container.limits);
    if (auto names = GreaterKeys(ToMap(container.requests), ToMap(container.limits)); !names.empty()) {
      (container.role == ContainerResources::Role::kRegular ? regular_above : init_above)
          .push_back({ContainerPath(pod, container), std::move(names)});
    }
    switch (container.role) {
      case ContainerResources::Role::kRegular:
        AddInto(&requests, own);
        AddInto(&extended_sum, DomainPrefixed(own));
        break;
      case ContainerResources::Role::kSidecar:
        MaxInto(&extended_init_max, DomainPrefixed(own));
        AddInto(&requests, own);
        AddInto(&restartable_sum, own);
        MaxInto(&init_max, restartable_sum);
        break;
      case ContainerResources::Role::kInit: {
        MaxInto(&extended_init_max, DomainPrefixed(own));
        AmountMap with_sidecars = own;
        AddInto(&with_sidecars, restartable_sum);
        MaxInto(&init_max, with_sidecars);
        break;
      }
    }
  }
  MaxInto(&requests, init_max);
  totals.requests_above_limits = std::move(init_above);
  for (auto& entry : regular_above) totals.requests_above_limits.push_back(std::move(entry));
  if (pod.pod_level.has_value()) {
    if (auto names = GreaterKeys(ToMap(pod.pod_level->requests), ToMap(pod.pod_level->limits)); !names.empty()) {
      totals.requests_above_limits.push_back({"resources", std::move(names)});
    }
    // Pod-level resources (KEP-2837) replace the containers' aggregate for
    // the resources they name; pod-level limits stand in for missing
    // pod-level requests.
    for (const auto& [name, amount] : EffectiveRequests(pod.pod_level->requests, pod.pod_level->limits)) {
      requests[name] = amount;
    }
  }
  if (pod.overhead.has_value()) AddInto(&requests, ToMap(*pod.overhead));
  totals.requests.reserve(requests.size());
  // Negative requests are floored to zero (Requests.FloorToZero).
  for (const auto& [name, amount] : requests) totals.requests.push_back({name, std::max<Amount>(amount, 0)});
  MaxInto(&extended_sum, extended_init_max);
  totals.container_extended_requests = ToList(extended_sum);
  return totals;
}

LimitRangeSummary SummarizeLimitRanges(const std::vector<const LimitRange*>& ranges) {
  std::vector<const LimitRange*> by_name = ranges;
  std::stable_sort(by_name.begin(), by_name.end(),
                   [](const LimitRange* a, const LimitRange* b) { return a->meta.name < b->meta.name; });
  LimitRangeSummary summary;
  for (const LimitRange* range : by_name) {
    for (const LimitRangeItem& item : range->limits) {
      if (item.type == "Container") Merge(&summary.container, item);
      if (item.type == "Pod") Merge(&summary.pod, item);
    }
  }
  return summary;
}

bool AdjustPodResources(const LimitRangeSummary& summary, const RuntimeClass* runtime_class, PodResources* pod) {
  bool changed = false;
  // handlePodOverhead: only when the pod sets no overhead of its own.
  if (!pod->runtime_class_name.empty() && (!pod->overhead.has_value() || pod->overhead->empty()) &&
      runtime_class != nullptr && runtime_class->pod_fixed_overhead.has_value()) {
    pod->overhead = *runtime_class->pod_fixed_overhead;
    changed = true;
  }
  // handlePodLimitRange.
  if (summary.container.present) {
    for (ContainerResources& container : pod->containers) {
      auto limits = MergeKeepFirst(container.limits, summary.container.default_limits);
      auto requests = MergeKeepFirst(container.requests, summary.container.default_requests);
      if (limits.size() != container.limits.size() || requests.size() != container.requests.size()) changed = true;
      container.limits = std::move(limits);
      container.requests = std::move(requests);
    }
  }
  if (summary.pod.present && pod->pod_level.has_value()) {
    auto limits = MergeKeepFirst(pod->pod_level->limits, summary.pod.default_limits);
    auto requests = MergeKeepFirst(pod->pod_level->requests, summary.pod.default_requests);
    if (limits.size() != pod->pod_level->limits.size() || requests.size() != pod->pod_level->requests.size()) {
      changed = true;
    }
    pod->pod_level->limits = std::move(limits);
    pod->pod_level->requests = std::move(requests);
  }
  return changed;
}

std::vector<PodSet::LimitRangeViolation> ValidateLimitRanges(const LimitRangeSummary& summary,
                                                             const PodResources& pod,
                                                             const std::vector<ResourceAmount>& pod_requests) {
  std::vector<PodSet::LimitRangeViolation> init_violations;
  std::vector<PodSet::LimitRangeViolation> regular_violations;
  if (summary.container.present) {
    for (const ContainerResources& container : pod.containers) {
      // After UseLimitsAsMissingRequestsInPod: the requests include the
      // limits for names without a request.
      const AmountMap requests = EffectiveRequests(container.requests, container.limits);
      const AmountMap limits = ToMap(container.limits);
      ValidateAgainst(summary.container, MergeKeep(requests, limits, /*keep_min=*/false),
                      MergeKeep(requests, limits, /*keep_min=*/true), ContainerPath(pod, container),
                      container.role == ContainerResources::Role::kRegular ? &regular_violations
                                                                           : &init_violations);
    }
  }
  std::vector<PodSet::LimitRangeViolation> out = std::move(init_violations);
  for (auto& entry : regular_violations) out.push_back(std::move(entry));
  if (summary.pod.present) {
    const AmountMap total = ToMap(pod_requests);
    ValidateAgainst(summary.pod, total, total, "", &out);
  }
  return out;
}

}  // namespace kueuesim::model
