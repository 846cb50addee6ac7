// Policy registry and the built-in policies' registration.
#include "kueuesim/policy/registry.h"

#include <cstdlib>

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
    case PolicyKind::kDispatcher:
      return "dispatcher";
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

absl::Status PolicyRegistry::RegisterDispatcher(std::string name, std::string description,
                                                DispatcherFactory factory) {
  if (dispatchers_.count(name)) {
    return absl::AlreadyExistsError("dispatcher \"" + name + "\" is already registered");
  }
  dispatchers_.emplace(std::move(name), Entry<DispatcherFactory>{std::move(description), std::move(factory)});
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<DispatchPolicy>> PolicyRegistry::MakeDispatcher(
    const std::string& name, const PolicyParameters& parameters) const {
  auto it = dispatchers_.find(name);
  if (it == dispatchers_.end()) {
    return InvalidArgument(fmt::format(
        "unknown dispatcher \"{}\" (valid: {}); Kueue would wait for an external controller to "
        "nominate clusters: register one under this name",
        name, ValidNames(dispatchers_)));
  }
  return it->second.factory(parameters);
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
  for (const auto& [name, entry] : dispatchers_) {
    out.push_back({PolicyKind::kDispatcher, name, entry.description});
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
  check(registry->RegisterDispatcher(
      std::string(kAllAtOnceDispatcher),
      "MultiKueue AllAtOnce: a copy to every connected worker of the MultiKueueConfig at once",
      [](const PolicyParameters& p) -> absl::StatusOr<std::unique_ptr<DispatchPolicy>> {
        for (const auto& [key, value] : p) {
          if (key != "stepSize" && key != "roundDuration" && key != "configOrder") {
            return InvalidArgument(fmt::format("dispatcher \"{}\": unknown parameter \"{}\"",
                                               kAllAtOnceDispatcher, key));
          }
        }
        return NewAllAtOnceDispatcher();
      }));
  check(registry->RegisterDispatcher(
      std::string(kIncrementalDispatcher),
      "MultiKueue Incremental: stepSize more workers (default 3) every round (5 min), in the "
      "MultiKueueConfig's order (configOrder=false: by name)",
      [](const PolicyParameters& p) -> absl::StatusOr<std::unique_ptr<DispatchPolicy>> {
        int32_t step = 3;
        SimDuration round = 5 * kMinute;
        bool config_order = true;
        for (const auto& [key, value] : p) {
          if (key == "stepSize") {
            char* end = nullptr;
            const long parsed = std::strtol(value.c_str(), &end, 10);
            if (value.empty() || *end != '\0' || parsed < 1 || parsed > 1000) {
              return InvalidArgument(fmt::format("dispatcher \"{}\": stepSize \"{}\" must be an integer >= 1",
                                                 kIncrementalDispatcher, value));
            }
            step = static_cast<int32_t>(parsed);
          } else if (key == "roundDuration") {
            auto d = ParseDuration(value);
            if (!d.ok() || *d <= 0) {
              return InvalidArgument(fmt::format("dispatcher \"{}\": roundDuration \"{}\" must be a positive "
                                                 "duration such as 5m",
                                                 kIncrementalDispatcher, value));
            }
            round = *d;
          } else if (key == "configOrder") {
            if (value != "true" && value != "false") {
              return InvalidArgument(fmt::format("dispatcher \"{}\": configOrder \"{}\" must be true or false",
                                                 kIncrementalDispatcher, value));
            }
            config_order = value == "true";
          } else {
            return InvalidArgument(fmt::format("dispatcher \"{}\": unknown parameter \"{}\" (valid: stepSize, "
                                               "roundDuration, configOrder)",
                                               kIncrementalDispatcher, key));
          }
        }
        return NewIncrementalDispatcher(step, round, config_order);
      }));
}

}  // namespace kueuesim::policy
