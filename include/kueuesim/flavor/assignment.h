// The result of flavor assignment for one workload: which flavor each
// requested resource of each pod set gets, the mode (fits, needs
// preemption, does not fit) and how far up the cohort tree it borrows.
//
// Mirrors kueue pkg/scheduler/flavorassigner (Assignment,
// PodSetAssignment, FlavorAssignmentMode).
#ifndef KUEUESIM_FLAVOR_ASSIGNMENT_H_
#define KUEUESIM_FLAVOR_ASSIGNMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "kueuesim/cluster/cluster_state.h"

namespace kueuesim::flavor {

using cluster::FlavorId;
using cluster::FrAmount;
using cluster::FrId;
using cluster::ResourceId;

// Ordered from worst to best, as in Kueue.
enum class AssignmentMode : int8_t { kNoFit = 0, kPreempt = 1, kDeferredFit = 2, kFit = 3 };

const char* AssignmentModeName(AssignmentMode mode);

struct ResourceFlavorAssignment {
  ResourceId resource = cluster::kNone;
  FlavorId flavor = cluster::kNone;
  AssignmentMode mode = AssignmentMode::kNoFit;
  int32_t tried_flavor_idx = 0;
  int32_t borrow = 0;
};

// Why a pod set does not fit in a flavor (worded lazily; kept by the
// workload's pending condition).
using cluster::FlavorReason;
using cluster::QuotaReservedReason;

// A flavor tried for a pod set group (Kueue's FlavorAssignmentAttempt, the
// parts that decide Assignment.NoFitReason): whether it did not fit and the
// most severe reason why.
struct FlavorAttempt {
  FlavorId flavor = cluster::kNone;
  bool no_fit = false;
  QuotaReservedReason reason = QuotaReservedReason::kNone;
};

struct PodSetAssignmentResult {
  int32_t pod_set_index = 0;  // index in the workload's pod sets
  int32_t count = 0;
  // Total requests of the pod set (pods included when the ClusterQueue
  // covers them), by resource.
  absl::InlinedVector<cluster::ResourceAmount, 4> requests;
  // Flavors of the requested resources that got one.
  absl::InlinedVector<ResourceFlavorAssignment, 2> flavors;
  // Why the pod set does not fit (empty when it fits).
  std::vector<FlavorReason> reasons;
  bool error = false;
  // The flavors tried for the pod set's group (FlavorAssignmentAttempts).
  absl::InlinedVector<FlavorAttempt, 2> attempts;
  std::optional<model::TopologyAssignment> topology_assignment;
  // delayedTopologyRequest Pending: the topology is assigned later (after a
  // ProvisioningRequest, or on the worker cluster with MultiKueue).
  bool delayed_topology_pending = false;

  AssignmentMode RepresentativeMode() const;
  const ResourceFlavorAssignment* FlavorFor(ResourceId resource) const;
};

// Computed for every head of every cycle: its containers are inline for the
// common workload (one pod set, a few resources).
struct Assignment {
  absl::InlinedVector<PodSetAssignmentResult, 1> pod_sets;  // in assignment (group) order
  int32_t borrowing = 0;
  cluster::LastAssignmentState last_state;
  cluster::FrAmountList usage;  // quota the workload would take, by FR
  std::optional<AssignmentMode> mode_override;
  // Assignment.NoFitReason (UnadmittedWorkloadsObservability): why a NoFit
  // assignment does not fit; kNone otherwise.
  QuotaReservedReason no_fit_reason = QuotaReservedReason::kNone;

  AssignmentMode RepresentativeMode() const;
  void SetRepresentativeMode(AssignmentMode mode);
  // Assignment.updateMode: the pod set's flavors get `mode`, and so does the
  // representative mode.
  void UpdateMode(size_t pod_set, AssignmentMode mode);
  // FRs whose flavor assignment is in Preempt mode (frsNeedPreemption).
  absl::InlinedVector<FrId, 4> FrsNeedingPreemption(const cluster::ClusterState& state) const;
  // "couldn't assign flavors to pod set main: ..." (Assignment.Message).
  std::string Message(const cluster::ClusterState& state, const cluster::WorkloadRecord& wl) const;
  // Moves the reasons of the pod sets that did not fit out (for the
  // workload's pending condition, which words them when asked).
  absl::InlinedVector<cluster::PodSetFlavorReasons, 1> TakeReasons();
  // Assignment.resolveNoFitReason: sets no_fit_reason from the attempts
  // when the assignment is NoFit.
  void ResolveNoFitReason(const cluster::ClusterQueueInfo& cq);
};

}  // namespace kueuesim::flavor

#endif  // KUEUESIM_FLAVOR_ASSIGNMENT_H_
