// Topology-aware scheduling state of one cluster: a TasFlavorSnapshot per
// TAS flavor, built once from the Node and Topology objects, holding the
// usage of admitted TAS workloads, and the changes a scheduling cycle makes
// on top of it.
//
// Mirrors kueue pkg/cache/scheduler/tas_cache.go, tas_flavor.go (the
// per-flavor cache: nodes, usage of admitted workloads keyed by workload),
// and the TAS part of snapshot.go / clusterqueue_snapshot.go (the cycle's
// TASFlavorSnapshots, AddUsage / RemoveUsage / Fits on them).
//
// Cycle semantics are Kueue's: a cycle works on a copy of the cache taken
// when it starts. kueuesim does not copy; it changes the cached snapshots in
// place during the cycle (usage of workloads admitted or reserved in the
// cycle, simulated removals), logs the additions, reverts them when the
// cycle ends, and only then accounts the cycle's admissions in the cache.
// The result is the same: during a cycle nothing but the cycle's own
// changes is visible, and the next cycle sees the admissions.
//
// With TASHandleOverlappingFlavors, the cache of a flavor whose lowest level
// is kubernetes.io/hostname holds the usage of every such flavor on its
// nodes (Kueue aggregates the flavor caches by domain id when it takes the
// snapshot); changes made during a cycle stay on the flavor they name, as in
// Kueue.
//
// Releases need no hook: the runtime bumps the ClusterQueue's
// allocatable_generation whenever a workload gives its quota back, and the
// next BeginCycle drops the usage of the accounted workloads of such a queue
// that no longer hold an admission there.
#ifndef KUEUESIM_CLUSTER_TAS_CACHE_H_
#define KUEUESIM_CLUSTER_TAS_CACHE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kueuesim/cluster/cluster_state.h"
#include "kueuesim/topology/tas_flavor_snapshot.h"

namespace kueuesim::cluster {

// Pods Kubernetes lets a node run when its status does not say (kubelet's
// default maxPods).
inline constexpr Amount kDefaultNodePods = 110;

// Usage of one domain of a TAS flavor (workload.TopologyDomainRequests,
// keyed by flavor as workload.TASUsage is).
struct TasDomainUsage {
  FlavorId flavor = kNone;
  topology::DomainUsage usage;
};
using TasUsage = std::vector<TasDomainUsage>;

class TasCache {
 public:
  // Builds the snapshots of the TAS flavors of `spec`: each ResourceFlavor
  // with a topologyName whose Topology exists, over the Nodes that carry the
  // flavor's nodeLabels and every level label, Ready and schedulable.
  TasCache(const ClusterState& state, const scenario::ClusterSpec& spec);
  ~TasCache();
  TasCache(const TasCache&) = delete;
  TasCache& operator=(const TasCache&) = delete;

  // Whether `flavor` is a TAS flavor with a snapshot (an entry of Kueue's
  // TAS cache: the ResourceFlavor and its Topology exist).
  bool IsTasFlavor(FlavorId flavor) const {
    return flavor >= 0 && static_cast<size_t>(flavor) < flavors_.size() &&
           flavors_[static_cast<size_t>(flavor)].snapshot != nullptr;
  }
  // The flavor's snapshot in its current state (the cycle's, during a cycle).
  // REQUIRES: IsTasFlavor(flavor).
  const topology::TasFlavorSnapshot& Snapshot(FlavorId flavor) const {
    return *flavors_[static_cast<size_t>(flavor)].snapshot;
  }
  bool IsLowestLevelHostname(FlavorId flavor) const {
    return flavors_[static_cast<size_t>(flavor)].lowest_hostname;
  }
  bool empty() const { return num_tas_flavors_ == 0; }

  // TAS resource ids (their own id space: node allocatable first, "pods"
  // is id 0). Interning a new name keeps the snapshots' names current.
  topology::ResourceId InternResource(std::string_view name);
  topology::ResourceId pods_resource() const { return 0; }
  // A pod's requests (model::PodSet::requests) in TAS resource ids, sorted.
  topology::Requests ToRequests(const std::vector<model::ResourceAmount>& requests);

  // The TAS usage of a workload's admission (workload.Info.TASUsage): for
  // each pod set with a topology assignment, each of its TAS flavors gets
  // the assignment's domains with the pod template's requests.
  TasUsage AdmittedUsage(const ClusterState& state, const WorkloadRecord& wl) const;
  // The usage accounted for an admitted workload, or null.
  const TasUsage* AccountedUsage(WorkloadId id) const {
    return id >= 0 && static_cast<size_t>(id) < accounts_.size() &&
                   accounts_[static_cast<size_t>(id)].cq != kNone
               ? &accounts_[static_cast<size_t>(id)].usage
               : nullptr;
  }

  // Changes of the running cycle, on the flavors the usage names only.
  // AddCycleUsage is undone when the cycle ends; RemoveUsage / AddUsage
  // pairs (simulated removals) must balance within the cycle.
  void AddCycleUsage(const TasUsage& usage);
  void AddUsage(const TasUsage& usage) { Apply(usage, +1); }
  void RemoveUsage(const TasUsage& usage) { Apply(usage, -1); }
  // ClusterQueueSnapshot.Fits for TAS: every domain still has room.
  bool Fits(const TasUsage& usage) const;

  // Cycle boundaries. BeginCycle drops the usage of workloads that gave
  // their quota back since the last cycle (and, the first time, accounts
  // the workloads admitted when the simulation started). AccountAfterCycle
  // queues a workload admitted in the cycle; EndCycle reverts the cycle's
  // additions and accounts the queued workloads in the cache.
  void BeginCycle(const ClusterState& state);
  void AccountAfterCycle(WorkloadId id) { pending_accounts_.push_back(id); }
  void EndCycle(const ClusterState& state);

  // Workloads whose TAS usage is in the cache (for tests and stats).
  int64_t accounted_workloads() const { return num_accounted_; }

  // --- Node changes (Kueue's TASCache.SyncNode / DeleteNodeByName) ---
  // Call between scheduling cycles. Each rebuilds the snapshots of the TAS
  // flavors whose nodeLabels the node carries and puts back the usage of
  // the admitted workloads accounted on them (usage on a node that is gone
  // or not Ready stays in the workload's account but counts nowhere).
  // The node named `name`, or null.
  const model::Node* FindNode(std::string_view name) const;
  // REQUIRES: no node of that name.
  void AddNode(const ClusterState& state, model::Node node);
  // REQUIRES: FindNode(name) != null.
  void RemoveNode(const ClusterState& state, std::string_view name);
  void UpdateNode(const ClusterState& state, std::string_view name, std::optional<bool> ready,
                  std::optional<bool> unschedulable);
  // The cluster's nodes now (for the invariant checker).
  const std::vector<model::Node>& nodes() const { return nodes_; }
  // The name of a TAS resource id.
  const std::string& resource_name(topology::ResourceId id) const {
    return resource_names_[static_cast<size_t>(id)];
  }
  // The TAS flavors (in id order) whose nodes the node belongs to.
  std::vector<FlavorId> FlavorsOfNode(const model::Node& node) const;
  // Accounts the workload's admission again after its topology assignment
  // changed (node replacement).
  void Reaccount(const ClusterState& state, WorkloadId id) { AccountWorkload(state, id); }

 private:
  struct FlavorEntry {
    std::unique_ptr<topology::TasFlavorSnapshot> snapshot;
    bool lowest_hostname = false;
    const model::Topology* topology = nullptr;  // in topologies_
  };
  struct Account {
    CqId cq = kNone;
    int32_t index = -1;  // position in accounted_by_cq_[cq]
    TasUsage usage;
  };

  // (Re)builds the snapshot of TAS flavor `f` from nodes_.
  void BuildFlavor(const ClusterState& state, FlavorId f);
  // Rebuilds the flavors the node belongs to and re-adds their usage.
  void RebuildForNode(const ClusterState& state, const model::Node& node);
  void Apply(const TasUsage& usage, int sign);
  // Cache-level update: with TASHandleOverlappingFlavors, usage of a
  // hostname-level flavor goes to every hostname-level flavor.
  void ApplyToCache(const TasUsage& usage, int sign);
  void AccountWorkload(const ClusterState& state, WorkloadId id);
  void UnaccountWorkload(WorkloadId id);

  std::vector<model::Node> nodes_;          // the cluster's nodes now
  // Pods outside Kueue bound to nodes (model::BoundPod): node name and
  // request in TAS resource ids, one "pods" included; every flavor snapshot
  // built takes them off its nodes' free capacity.
  std::vector<std::pair<std::string, topology::Requests>> bound_pod_usage_;
  std::vector<model::Topology> topologies_;
  std::vector<model::Labels> flavor_node_labels_;  // by FlavorId
  topology::TasOptions options_;
  bool aggregate_hostname_flavors_ = false;
  std::vector<FlavorEntry> flavors_;  // by FlavorId
  std::vector<FlavorId> hostname_flavors_;
  int num_tas_flavors_ = 0;
  std::vector<std::string> resource_names_;
  std::unordered_map<std::string, topology::ResourceId> resource_index_;

  std::vector<Account> accounts_;                        // by WorkloadId
  std::vector<std::vector<WorkloadId>> accounted_by_cq_;  // by CqId
  std::vector<int64_t> seen_generation_;                  // by CqId
  int64_t num_accounted_ = 0;
  bool initial_scan_done_ = false;
  std::vector<TasUsage> cycle_log_;
  std::vector<WorkloadId> pending_accounts_;
};

}  // namespace kueuesim::cluster

#endif  // KUEUESIM_CLUSTER_TAS_CACHE_H_
