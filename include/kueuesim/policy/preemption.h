// Preemption policies: which admitted workloads to evict so that a pending
// workload fits.
//
// The registered default "kueue" is Kueue's own preemptor
// (pkg/scheduler/preemption): classical preemption (withinClusterQueue,
// reclaimWithinCohort, borrowWithinCohort over hierarchical cohorts) or,
// when the Configuration enables fair sharing, the fair-sharing strategies.
// A policy reads the snapshot and returns targets; it may simulate on the
// snapshot (remove and re-add workloads) but must leave it as it was.
#ifndef KUEUESIM_POLICY_PREEMPTION_H_
#define KUEUESIM_POLICY_PREEMPTION_H_

#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "kueuesim/cluster/snapshot.h"

namespace kueuesim::policy {

enum class PreemptionReason {
  kInClusterQueue,
  kInCohortReclamation,
  kInCohortFairSharing,
  kInCohortReclaimWhileBorrowing,
};

std::string_view PreemptionReasonName(PreemptionReason reason);

struct PreemptionTarget {
  cluster::WorkloadId workload = cluster::kNone;
  PreemptionReason reason = PreemptionReason::kInClusterQueue;
};

struct PreemptionRequest {
  cluster::WorkloadId preemptor = cluster::kNone;
  cluster::CqId cq = cluster::kNone;
  // The quota the preemptor needs, by FR (the assignment's usage).
  std::span<const cluster::FrAmount> usage;
  // The FRs whose flavor assignment needs preemption.
  std::span<const cluster::FrId> frs_needing_preemption;
  // Topology check of the preemptor on the current snapshot, when it uses
  // topology-aware scheduling (nullptr: quota only).
  const std::function<bool()>* topology_fits = nullptr;
};

class PreemptionPolicy {
 public:
  virtual ~PreemptionPolicy() = default;
  virtual std::string_view Name() const = 0;
  // The workloads to preempt so that the request fits, or none when it
  // cannot fit by preemption.
  virtual std::vector<PreemptionTarget> GetTargets(const PreemptionRequest& request,
                                                   cluster::SchedulingSnapshot& snapshot) = 0;
  // Whether GetTargets finds no target, whatever the state, for a
  // ClusterQueue whose withinClusterQueue and reclaimWithinCohort are Never
  // and whose borrowWithinCohort is unset or Never, with fair sharing off
  // (Kueue's classical preemption does). The scheduler then reuses an
  // unchanged head's last nomination (NominationMemo); a policy that may
  // preempt there returns false, the default.
  virtual bool FindsNoTargetsUnderNeverPolicies() const { return false; }
};

// Kueue's preemptor: fair sharing (with the Configuration's strategies) when
// the Configuration enables it, classical preemption otherwise.
std::unique_ptr<PreemptionPolicy> NewKueuePreemptionPolicy();

}  // namespace kueuesim::policy

#endif  // KUEUESIM_POLICY_PREEMPTION_H_
