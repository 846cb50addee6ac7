// Policy registry and the built-in policies' registration.
#include "kueuesim/policy/registry.h"

#include <fmt/format.h>

#include "kueuesim/base/status.h"

namespace kueuesim::policy {
namespace {

template <typename Map>
std::string ValidNames(const Map& map) {
  std::string names;
  for (const auto& [name, entry] : map) names += (names.empty() ? "" : ", ") + name;
  return names;
}

absl::Status NoParameters(const std::string& policy, const PolicyParameters& parameters) {
  if (parameters.empty()) return absl::OkStatus();
  return InvalidArgument(fmt::format("policy \"{}\" takes no parameters (got \"{}\")", policy,
                                     parameters.begin()->first));
}

}  // namespace

std::string_view PolicyKindName(PolicyKind kind) {
  switch (kind) {
    case PolicyKind::kQueueOrdering:
      return "queueOrdering";
    case PolicyKind::kPreemption:
      return "preemption";
  }
  return "";
}

absl::Status PolicyRegistry::RegisterQueueOrdering(std::string name, std::string description,
                                                   QueueOrderingFactory factory) {
  if (queue_orderings_.count(name)) {
    return absl::AlreadyExistsError("queue ordering policy \"" + name + "\" is already registered");
  }
  queue_orderings_.emplace(std::move(name), Entry<QueueOrderingFactory>{std::move(description), std::move(factory)});
  return absl::OkStatus();
}

absl::Status PolicyRegistry::RegisterPreemption(std::string name, std::string description,
                                                PreemptionFactory factory) {
  if (preemptions_.count(name)) {
    return absl::AlreadyExistsError("preemption policy \"" + name + "\" is already registered");
  }
  preemptions_.emplace(std::move(name), Entry<PreemptionFactory>{std::move(description), std::move(factory)});
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<QueueOrderingPolicy>> PolicyRegistry::MakeQueueOrdering(
    const std::string& name, const PolicyParameters& parameters) const {
  const std::string key = name.empty() ? "kueue" : name;
  auto it = queue_orderings_.find(key);
  if (it == queue_orderings_.end()) {
    return InvalidArgument(fmt::format("unknown queue ordering policy \"{}\" (valid: {})", key,
                                       ValidNames(queue_orderings_)));
  }
  return it->second.factory(parameters);
}

absl::StatusOr<std::unique_ptr<PreemptionPolicy>> PolicyRegistry::MakePreemption(
    const std::string& name, const PolicyParameters& parameters) const {
  const std::string key = name.empty() ? "kueue" : name;
  auto it = preemptions_.find(key);
  if (it == preemptions_.end()) {
    return InvalidArgument(fmt::format("unknown preemption policy \"{}\" (valid: {})", key,
                                       ValidNames(preemptions_)));
  }
  return it->second.factory(parameters);
}

std::vector<PolicyInfo> PolicyRegistry::List() const {
  std::vector<PolicyInfo> out;
  for (const auto& [name, entry] : queue_orderings_) {
    out.push_back({PolicyKind::kQueueOrdering, name, entry.description});
  }
  for (const auto& [name, entry] : preemptions_) {
    out.push_back({PolicyKind::kPreemption, name, entry.description});
  }
  return out;
}

PolicyRegistry PolicyRegistry::WithBuiltins() {
  PolicyRegistry registry;
  RegisterBuiltinPolicies(&registry);
  return registry;
}

void RegisterBuiltinPolicies(PolicyRegistry* registry) {
  auto check = [](const absl::Status& status) { KUEUESIM_CHECK_MSG(status.ok(), StatusMessage(status)); };
  check(registry->RegisterQueueOrdering(
      "kueue", "Kueue's order: higher priority, then earlier creation (or eviction), then UID",
      [](const PolicyParameters& p) -> absl::StatusOr<std::unique_ptr<QueueOrderingPolicy>> {
        KUEUESIM_RETURN_IF_ERROR(NoParameters("kueue", p));
        return NewKueueQueueOrdering();
      }));
  check(registry->RegisterPreemption(
      "kueue",
      "Kueue's preemptor: classical (withinClusterQueue, reclaimWithinCohort, borrowWithinCohort) "
      "or fair sharing, as the Configuration says",
      [](const PolicyParameters& p) -> absl::StatusOr<std::unique_ptr<PreemptionPolicy>> {
        KUEUESIM_RETURN_IF_ERROR(NoParameters("kueue", p));
        return NewKueuePreemptionPolicy();
      }));
}

}  // namespace kueuesim::policy
