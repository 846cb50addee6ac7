// Topology-aware scheduling (TAS) for one ResourceFlavor: the tree of
// topology domains built from the flavor's nodes, their free capacity, and
// Kueue's placement algorithm that assigns a pod set's pods to domains.
//
// Mirrors kueue pkg/cache/scheduler/tas_flavor_snapshot.go (the snapshot,
// FindTopologyAssignmentsForFlavor, findTopologyAssignment, fillInCounts,
// the BestFit and LeastFreeCapacity profiles, slices and multi-layer
// slices, leader/worker pod set groups, preferred-level fallback),
// tas_balanced_placement.go (TASBalancedPlacement, alpha), tas_flavor.go and
// tas_topology_tree.go (building the tree). See
// ../shared/design/kueue-semantics.md §5.
//
// Resources are identified by the caller's integer ids; amounts are
// canonical (milli-cpu, bytes, counts). The caller owns usage accounting:
// it adds the usage of admitted workloads and of pods outside Kueue, and
// removes it again, through this class.
//
// Domain ids: a leaf domain is identified as in Kueue (utiltas.DomainID):
// its level values joined with ","; when the lowest level is
// kubernetes.io/hostname, just the hostname. DomainUsage::values and the keys
// of `assumed_usage` use that form (the values of a TopologyAssignment).
//
// Node-failure replacement (findReplacementAssignment) is FindReplacement.
// Not supported (Kueue paths that kueuesim does not model): elastic workload slices, the
// scheduler-library (WAS) node filter, PodSetUpdates (merge them into the
// request before calling).
#ifndef KUEUESIM_TOPOLOGY_TAS_FLAVOR_SNAPSHOT_H_
#define KUEUESIM_TOPOLOGY_TAS_FLAVOR_SNAPSHOT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kueuesim/base/quantity.h"
#include "kueuesim/model/objects.h"

namespace kueuesim::topology {

using ResourceId = int32_t;

struct ResourceAmount {
  ResourceId resource = -1;
  Amount amount = 0;
  bool operator==(const ResourceAmount&) const = default;
};
// A set of resource amounts, sorted by resource id, one entry per resource.
using Requests = std::vector<ResourceAmount>;

// A node of the flavor: it carries the flavor's nodeLabels and every level
// label of the topology (the caller filters by nodeLabels; a node missing a
// level label is dropped here too). `allocatable` should include "pods":
// every pod also takes one "pods", so a node without it takes no pod (as in
// Kueue; Kubernetes nodes report 110 by default).
struct NodeSpec {
  std::string name;
  model::Labels labels;
  Requests allocatable;
  std::vector<model::Taint> taints;
  // Ready and not unschedulable; other nodes are never used (nor counted in
  // the "Total nodes" of failure messages).
  bool schedulable = true;
};

// Feature gates the algorithm reads (defaults of the reference Kueue).
struct TasOptions {
  bool profile_mixed = true;                     // TASProfileMixed
  bool balanced_placement = false;               // TASBalancedPlacement (alpha)
  bool multi_layer_topology = true;              // TASMultiLayerTopology
  bool respect_node_affinity_preferred = false;  // TASRespectNodeAffinityPreferred (alpha)
};

// One preferred node affinity term (v1.PreferredSchedulingTerm). Read only
// with TasOptions::respect_node_affinity_preferred.
struct PreferredSchedulingTerm {
  int32_t weight = 0;
  model::NodeSelectorTerm preference;
};

// One pod set to place.
struct PodSetPlacementRequest {
  std::string name;
  int32_t count = 0;
  // Requests of one pod (the algorithm adds one "pods" per pod itself).
  Requests single_pod_requests;
  // The explicit topology request, or nullopt when TAS is implied (a
  // TAS-only ClusterQueue: unconstrained at the lowest level). A request
  // that is not explicit (TopologyRequest::IsExplicit() false) is treated as
  // implied too, as Kueue does for a TAS-only ClusterQueue. With
  // TasOptions::multi_layer_topology off only the first slice layer is read.
  std::optional<model::TopologyRequest> topology_request;
  // Pod set group (leader and workers placed together), if any.
  std::optional<std::string> group_name;
  // Scheduling constraints of the pod template. As in Kueue they filter
  // nodes only when the lowest level is the hostname (otherwise a leaf
  // aggregates several nodes and none is filtered), in this order: taints
  // with effect NoSchedule/NoExecute not tolerated by `tolerations` plus the
  // flavor's, nodeSelector, required affinity. In a group only the workers'
  // constraints are read.
  model::Labels node_selector;
  std::vector<model::NodeSelectorTerm> required_affinity;
  std::vector<model::Toleration> tolerations;
  // Preferred node affinity (scored only with respect_node_affinity_preferred).
  std::vector<PreferredSchedulingTerm> preferred_affinity;
};

// The result for one pod set: an assignment, or the reason none was found.
// Failure reasons use Kueue's wording, e.g.
//   topology "default" allows to fit only 3 out of 4 pod(s)
//   topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1;
//   excluded: resource "cpu": 1
// Every pod set of the group that failed carries the reason.
struct PlacementOutcome {
  std::optional<model::TopologyAssignment> assignment;
  std::string failure_reason;  // empty on success
};

// Usage of one leaf domain by a placed pod set.
struct DomainUsage {
  std::vector<std::string> values;  // the assignment's values for the domain
  Requests single_pod_requests;
  int32_t count = 0;
};

// The result of replacing a failed node in a pod set's assignment.
struct ReplacementOutcome {
  // The pod set's new assignment: the old one without the failed node,
  // merged with `replacement`.
  std::optional<model::TopologyAssignment> assignment;
  // Where the failed node's pods go.
  std::optional<model::TopologyAssignment> replacement;
  std::string failure_reason;  // empty on success
};

class TasFlavorSnapshot {
 public:
  // `levels` from the top level down (Topology.spec.levels); `pods_resource`
  // is the id of the "pods" resource (one per pod is added to requests).
  TasFlavorSnapshot(std::vector<std::string> levels, std::vector<NodeSpec> nodes,
                    std::vector<model::Toleration> flavor_tolerations, ResourceId pods_resource,
                    TasOptions options = {});
  ~TasFlavorSnapshot();
  TasFlavorSnapshot(TasFlavorSnapshot&&) noexcept;
  TasFlavorSnapshot& operator=(TasFlavorSnapshot&&) noexcept;

  // An independent copy of the usage, names and options that shares the
  // immutable tree of domains (cheap next to building from nodes; Kueue
  // likewise shares the topology tree between a flavor's snapshots).
  TasFlavorSnapshot Clone() const;

  // Names used in failure messages (Kueue's "topology %q ..." and
  // "resource %q: n"): the Topology name, and the resource names indexed by
  // resource id (unnamed ids print as their number). Resource names also break
  // ties when choosing the limiting resource of a node, as Kueue does.
  void SetTopologyName(std::string name);
  void SetResourceNames(std::vector<std::string> names_by_id);

  const std::vector<std::string>& levels() const;
  // Whether the lowest level is kubernetes.io/hostname (assignments then
  // list only that level).
  bool IsLowestLevelHostname() const;
  // Whether the request's level(s) exist in this topology (HasLevel).
  bool HasLevel(const model::TopologyRequest& request) const;

  // Capacity used by pods outside TAS workloads on a node (by node name; a
  // node that is not in the tree is ignored). `usage` is the total of those
  // pods' requests INCLUDING the "pods" resource (one per pod), as Kueue's
  // non-TAS pod cache aggregates it. Several calls add up.
  void AddNonTasUsage(const std::string& node_name, const Requests& usage);
  // Usage of admitted TAS workloads, per leaf domain: `count` pods of
  // `single_pod_requests` (one "pods" per pod is added). A domain that is not
  // a leaf of this snapshot (node gone or filtered out) is ignored.
  void AddUsage(const DomainUsage& usage);
  void RemoveUsage(const DomainUsage& usage);
  // Whether every domain in `usages` still has room (TASFlavorSnapshot.Fits):
  // count <= how many times single_pod_requests fits in the leaf's remaining
  // capacity. As in Kueue, "pods" is NOT added here, an unknown domain does
  // not fit, and empty single_pod_requests never fit a count > 0.
  bool Fits(const std::vector<DomainUsage>& usages) const;

  // Places the pod sets of one workload that use this flavor
  // (FindTopologyAssignmentsForFlavor): pod sets sharing a group name are
  // placed together (the one with count 1 is the leader), groups in order,
  // each group seeing the usage the previous ones assumed. Stops at the
  // first failure; outcomes not reached are left empty. With
  // `simulate_empty`, the usage of TAS workloads is ignored (capacity minus
  // non-TAS usage only). `assumed_usage` (may be null) is usage to count on
  // top of the snapshot and is extended with this workload's placements
  // (TASHandleOverlappingFlavors across flavors sharing hostnames).
  //
  // Details as in Kueue: the group key is the group name, or the pod set's
  // position (as a decimal string) when it has none. In a group, the first
  // pod set is the workers and the second the leader, swapped when the
  // second's count is larger; further pod sets of a group get neither an
  // assignment nor a reason. `assumed_usage` is keyed by domain id (see the
  // top of this file) and its amounts include "pods"; Kueue shares one such
  // map across the TAS flavors of a workload whose lowest level is the
  // hostname, in flavor name order, and uses a fresh one otherwise.
  std::vector<PlacementOutcome> FindAssignments(
      const std::vector<PodSetPlacementRequest>& requests, bool simulate_empty,
      std::map<std::string, Requests>* assumed_usage = nullptr) const;

  // findReplacementAssignment: places the pods the pod set had on
  // `failed_node` (the count of the domain naming it in `existing`)
  // elsewhere. Fails when another domain of `existing` is no longer in the
  // snapshot ("stale"). When the request is required at a level (or its
  // slices would be broken), the new pods must go to the same domain of
  // that level as the rest (requiredReplacementDomain); with slices, a
  // domain whose pod count the missing pods complete. Leaves outside that
  // domain count as excluded by "topologyDomain". `request.count` is
  // ignored; `assumed_usage` as in FindAssignments (extended on success).
  // Where Kueue picks the slice domain from a Go map (random order when
  // several qualify), the first in `existing` order is taken.
  ReplacementOutcome FindReplacement(const PodSetPlacementRequest& request,
                                     const model::TopologyAssignment& existing,
                                     const std::string& failed_node,
                                     std::map<std::string, Requests>* assumed_usage = nullptr) const;

 private:
  struct Impl;
  explicit TasFlavorSnapshot(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kueuesim::topology

#endif  // KUEUESIM_TOPOLOGY_TAS_FLAVOR_SNAPSHOT_H_
