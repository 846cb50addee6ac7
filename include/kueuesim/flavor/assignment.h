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

// Why a pod set does not fit in a flavor. Quota shortfalls, which the
// admission loop produces for most heads of a busy cluster and rarely
// reports, keep their figures and are worded only when asked (Text).
struct FlavorReason {
  enum class Kind : uint8_t {
    kText,
    // "insufficient quota for R in flavor F, previously considered podsets
    // requests (assumed) + current podset request (request) > maximum
    // capacity (limit)"
    kOverMaximumCapacity,
    // "insufficient unused quota for R in flavor F, (request) more needed"
    kInsufficientUnusedQuota,
  };
  Kind kind = Kind::kText;
  std::string text;  // kText
  ResourceId resource = cluster::kNone;
  FlavorId flavor = cluster::kNone;
  Amount assumed = 0;
  Amount request = 0;
  Amount limit = 0;

  static FlavorReason Text(std::string text);
  // Kueue's message.
  std::string Text(const cluster::ClusterState& state) const;
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
  std::string no_fit_reason;

  AssignmentMode RepresentativeMode() const;
  void SetRepresentativeMode(AssignmentMode mode);
  // Assignment.updateMode: the pod set's flavors get `mode`, and so does the
  // representative mode.
  void UpdateMode(size_t pod_set, AssignmentMode mode);
  // FRs whose flavor assignment is in Preempt mode (frsNeedPreemption).
  absl::InlinedVector<FrId, 4> FrsNeedingPreemption(const cluster::ClusterState& state) const;
  // "couldn't assign flavors to pod set main: ..." (Assignment.Message).
  std::string Message(const cluster::ClusterState& state, const cluster::WorkloadRecord& wl) const;
};

}  // namespace kueuesim::flavor

#endif  // KUEUESIM_FLAVOR_ASSIGNMENT_H_
