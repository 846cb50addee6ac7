// The policy registry: policies chosen by name (from scenario YAML, the CLI,
// C++ or Python), each with a one-line description and a factory taking
// string parameters. Built-ins are registered explicitly by
// RegisterBuiltinPolicies (no static constructors: they vanish when linked
// from a static library). A registry is an ordinary object; nothing is
// global.
#ifndef KUEUESIM_POLICY_REGISTRY_H_
#define KUEUESIM_POLICY_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/policy/dispatch.h"
#include "kueuesim/policy/preemption.h"
#include "kueuesim/policy/queue_ordering.h"

namespace kueuesim::policy {

using PolicyParameters = std::map<std::string, std::string>;

enum class PolicyKind { kQueueOrdering, kPreemption, kDispatcher };

std::string_view PolicyKindName(PolicyKind kind);

struct PolicyInfo {
  PolicyKind kind;
  std::string name;
  std::string description;
};

class PolicyRegistry {
 public:
  using QueueOrderingFactory =
      std::function<absl::StatusOr<std::unique_ptr<QueueOrderingPolicy>>(const PolicyParameters&)>;
  using PreemptionFactory =
      std::function<absl::StatusOr<std::unique_ptr<PreemptionPolicy>>(const PolicyParameters&)>;
  using DispatcherFactory =
      std::function<absl::StatusOr<std::unique_ptr<DispatchPolicy>>(const PolicyParameters&)>;

  // A registry with Kueue's policies and the other built-ins.
  static PolicyRegistry WithBuiltins();

  // Registration fails (AlreadyExists) when the name is taken.
  absl::Status RegisterQueueOrdering(std::string name, std::string description,
                                     QueueOrderingFactory factory);
  absl::Status RegisterPreemption(std::string name, std::string description,
                                  PreemptionFactory factory);
  absl::Status RegisterDispatcher(std::string name, std::string description,
                                  DispatcherFactory factory);

  // Creates a policy; an empty name means "kueue". An unknown name is an
  // InvalidArgument error listing the valid ones.
  absl::StatusOr<std::unique_ptr<QueueOrderingPolicy>> MakeQueueOrdering(
      const std::string& name, const PolicyParameters& parameters) const;
  absl::StatusOr<std::unique_ptr<PreemptionPolicy>> MakePreemption(
      const std::string& name, const PolicyParameters& parameters) const;
  // MultiKueue dispatchers have no empty-name default: the caller passes
  // the Configuration's dispatcherName. The built-in Kueue dispatchers read
  // stepSize, roundDuration and configOrder from `parameters`.
  absl::StatusOr<std::unique_ptr<DispatchPolicy>> MakeDispatcher(const std::string& name,
                                                                 const PolicyParameters& parameters) const;
  bool HasDispatcher(const std::string& name) const { return dispatchers_.count(name) > 0; }

  // Every registered policy, by kind then name.
  std::vector<PolicyInfo> List() const;

 private:
  template <typename Factory>
  struct Entry {
    std::string description;
    Factory factory;
  };
  std::map<std::string, Entry<QueueOrderingFactory>> queue_orderings_;
  std::map<std::string, Entry<PreemptionFactory>> preemptions_;
  std::map<std::string, Entry<DispatcherFactory>> dispatchers_;
};

// Registers the built-in policies into `registry`.
void RegisterBuiltinPolicies(PolicyRegistry* registry);

}  // namespace kueuesim::policy

#endif  // KUEUESIM_POLICY_REGISTRY_H_
