// MultiKueue dispatch policies: which worker clusters get a copy of a
// workload that holds quota on the manager (Kueue's Dispatcher API, KEP-693;
// status.nominatedClusterNames).
//
// The MultiKueue controller asks the policy for the nominated set whenever
// it reconciles a workload whose MultiKueue check is Pending and that has
// no cluster yet. The policy returns the whole new set (Kueue keeps copies
// only on nominated clusters, creating and deleting to match) and, if it
// wants to be asked again later without any other trigger, when.
//
// Kueue's dispatchers are built in ("kueue.x-k8s.io/multikueue-dispatcher-
// all-at-once", "...-incremental"); a user-written one is registered in the
// PolicyRegistry under its own name and chosen by the Configuration's
// multiKueue.dispatcherName or the Simulation's spec.policies.dispatcher.
#ifndef KUEUESIM_POLICY_DISPATCH_H_
#define KUEUESIM_POLICY_DISPATCH_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kueuesim/base/quantity.h"
#include "kueuesim/base/time.h"

namespace kueuesim::policy {

// One worker cluster of the MultiKueueConfig, as the manager sees it.
struct DispatchCandidate {
  std::string_view name;  // the MultiKueueCluster name
  bool connected = true;
  // The worker has a LocalQueue of the workload's name pointing to an
  // existing ClusterQueue.
  bool has_queue = false;
  // Free quota for the workload in that worker's ClusterQueue, per
  // resource the workload requests: what it could still use, borrowing
  // included, summed over the flavors that cover the resource.
  std::vector<std::pair<std::string_view, Amount>> free;
  // Workloads pending in that ClusterQueue.
  int64_t pending = 0;
};

struct DispatchRequest {
  std::string_view workload;  // "namespace/name" on the manager
  int32_t priority = 0;
  // Total requests of the workload per resource (all pod sets).
  std::vector<std::pair<std::string_view, Amount>> requests;
  SimTime now = 0;
  SimTime reserved_at = 0;  // manager quota reservation
  // The clusters of the MultiKueueConfig, in its order.
  std::vector<DispatchCandidate> clusters;
  // Currently nominated clusters (indexes into `clusters`).
  std::vector<int32_t> nominated;
  // When the policy last changed the nomination for this workload (-1:
  // never since the manager reserved quota).
  SimTime last_nomination = -1;
};

struct DispatchDecision {
  // The new nominated set (indexes into the request's clusters); equal to
  // the request's `nominated` to keep it.
  std::vector<int32_t> nominated;
  // Ask again at this time even if nothing else happens.
  std::optional<SimTime> recheck_at;
};

class DispatchPolicy {
 public:
  virtual ~DispatchPolicy() = default;
  virtual DispatchDecision Nominate(const DispatchRequest& request) = 0;
};

inline constexpr std::string_view kAllAtOnceDispatcher = "kueue.x-k8s.io/multikueue-dispatcher-all-at-once";
inline constexpr std::string_view kIncrementalDispatcher = "kueue.x-k8s.io/multikueue-dispatcher-incremental";

// AllAtOnce: every connected cluster of the config.
std::unique_ptr<DispatchPolicy> NewAllAtOnceDispatcher();
// Incremental: `step` more clusters every round of `round` (Kueue: 5 min),
// in config order (or by name when `config_order` is false), appended to
// the earlier nominations.
std::unique_ptr<DispatchPolicy> NewIncrementalDispatcher(int32_t step, SimDuration round, bool config_order);

}  // namespace kueuesim::policy

#endif  // KUEUESIM_POLICY_DISPATCH_H_
