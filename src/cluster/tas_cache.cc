// The TAS flavor snapshots of a cluster and the usage of admitted TAS
// workloads; see tas_cache.h.
#include "kueuesim/cluster/tas_cache.h"

#include <algorithm>
#include <map>
#include <set>

#include "kueuesim/base/status.h"

namespace kueuesim::cluster {
namespace {

constexpr char kPodsResource[] = "pods";

}  // namespace

TasCache::TasCache(const ClusterState& state, const scenario::ClusterSpec& spec)
    : aggregate_hostname_flavors_(state.gates().tas_handle_overlapping_flavors) {
  InternResource(kPodsResource);
  // Node allocatable first, so that the snapshots store them densely.
  std::set<std::string> names;
  const model::NodeTemplate* last_template = nullptr;
  for (const auto& node : spec.nodes) {
    if (node.shared.get() == last_template) continue;  // the nodes of a pool share theirs
    last_template = node.shared.get();
    for (const auto& [name, amount] : node.allocatable()) names.insert(name);
  }
  for (const auto& name : names) InternResource(name);
  nodes_ = spec.nodes;
  topologies_ = spec.topologies;
  for (const model::BoundPod& pod : spec.bound_pods) {
    topology::Requests usage = ToRequests(pod.requests);
    // addNodeUsage adds OnePodRequest to the pod's own request.
    auto pods = std::find_if(usage.begin(), usage.end(),
                             [this](const topology::ResourceAmount& r) { return r.resource == pods_resource(); });
    if (pods == usage.end()) {
      usage.insert(usage.begin(), {pods_resource(), 1});
    } else {
      pods->amount = AddAmounts(pods->amount, 1);
    }
    bound_pod_usage_.emplace_back(pod.node_name, std::move(usage));
  }

  options_.profile_mixed = state.gates().tas_profile_mixed;
  options_.balanced_placement = state.gates().tas_balanced_placement;
  options_.multi_layer_topology = state.gates().tas_multi_layer_topology;
  options_.respect_node_affinity_preferred = state.gates().tas_respect_node_affinity_preferred;

  flavors_.resize(static_cast<size_t>(state.num_flavors()));
  flavor_node_labels_.resize(static_cast<size_t>(state.num_flavors()));
  std::vector<std::pair<std::string, FlavorId>> hostname_by_name;
  for (FlavorId f = 0; f < state.num_flavors(); ++f) {
    const FlavorInfo& info = state.flavor(f);
    if (!info.exists || info.spec->topology_name.empty()) continue;
    const model::Topology* topology = nullptr;
    for (const auto& t : topologies_) {
      if (t.meta.name == info.spec->topology_name) topology = &t;
    }
    if (topology == nullptr) continue;  // no TAS cache entry: queues using it are inactive
    FlavorEntry& entry = flavors_[static_cast<size_t>(f)];
    entry.topology = topology;
    flavor_node_labels_[static_cast<size_t>(f)] = info.spec->node_labels;
    BuildFlavor(state, f);
    if (entry.lowest_hostname) hostname_by_name.emplace_back(info.name, f);
    ++num_tas_flavors_;
  }
  std::sort(hostname_by_name.begin(), hostname_by_name.end());
  for (const auto& [name, f] : hostname_by_name) hostname_flavors_.push_back(f);
  accounted_by_cq_.resize(static_cast<size_t>(state.num_cluster_queues()));
  seen_generation_.assign(static_cast<size_t>(state.num_cluster_queues()), -1);
}

void TasCache::BuildFlavor(const ClusterState& state, FlavorId f) {
  const FlavorInfo& info = state.flavor(f);
  FlavorEntry& entry = flavors_[static_cast<size_t>(f)];
  // nodesCache.find: the nodes carrying the flavor's nodeLabels (the
  // level labels are checked when the tree is built); only Ready and
  // schedulable nodes are kept (SchedulerLibraryIntegration is off).
  std::vector<topology::NodeSpec> nodes;
  for (const auto& node : nodes_) {
    if (!node.HasLabels(info.spec->node_labels)) continue;
    topology::NodeSpec n;
    n.name = node.name;
    n.labels = node.AllLabels();
    n.taints = node.taints();
    n.schedulable = node.ready && !node.unschedulable;
    bool has_pods = false;
    for (const auto& [name, amount] : node.allocatable()) {
      n.allocatable.push_back({InternResource(name), amount});
      has_pods = has_pods || name == kPodsResource;
    }
    // A kubelet always reports "pods"; a node written without it gets the
    // default maxPods.
    if (!has_pods) n.allocatable.push_back({pods_resource(), kDefaultNodePods});
    std::sort(n.allocatable.begin(), n.allocatable.end(),
              [](const auto& a, const auto& b) { return a.resource < b.resource; });
    nodes.push_back(std::move(n));
  }
  entry.snapshot = std::make_unique<topology::TasFlavorSnapshot>(
      entry.topology->levels, std::move(nodes), info.spec->tolerations, pods_resource(), options_);
  entry.snapshot->SetTopologyName(entry.topology->meta.name);
  entry.snapshot->SetResourceNames(resource_names_);
  for (const auto& [node_name, usage] : bound_pod_usage_) entry.snapshot->AddNonTasUsage(node_name, usage);
  entry.lowest_hostname = entry.snapshot->IsLowestLevelHostname();
}

const model::Node* TasCache::FindNode(std::string_view name) const {
  for (const model::Node& node : nodes_) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

std::vector<FlavorId> TasCache::FlavorsOfNode(const model::Node& node) const {
  std::vector<FlavorId> out;
  for (FlavorId f = 0; f < static_cast<FlavorId>(flavors_.size()); ++f) {
    if (!IsTasFlavor(f)) continue;
    if (node.HasLabels(flavor_node_labels_[static_cast<size_t>(f)])) out.push_back(f);
  }
  return out;
}

void TasCache::AddNode(const ClusterState& state, model::Node node) {
  KUEUESIM_CHECK(FindNode(node.name) == nullptr);
  nodes_.push_back(std::move(node));
  RebuildForNode(state, nodes_.back());
}

void TasCache::RemoveNode(const ClusterState& state, std::string_view name) {
  auto it = std::find_if(nodes_.begin(), nodes_.end(), [&](const model::Node& n) { return n.name == name; });
  KUEUESIM_CHECK(it != nodes_.end());
  model::Node removed = std::move(*it);
  nodes_.erase(it);
  RebuildForNode(state, removed);
}

void TasCache::UpdateNode(const ClusterState& state, std::string_view name, std::optional<bool> ready,
                          std::optional<bool> unschedulable) {
  auto it = std::find_if(nodes_.begin(), nodes_.end(), [&](const model::Node& n) { return n.name == name; });
  KUEUESIM_CHECK(it != nodes_.end());
  if (ready.has_value()) it->ready = *ready;
  if (unschedulable.has_value()) it->unschedulable = *unschedulable;
  RebuildForNode(state, *it);
}

void TasCache::RebuildForNode(const ClusterState& state, const model::Node& node) {
  KUEUESIM_CHECK(cycle_log_.empty());
  const std::vector<FlavorId> rebuilt = FlavorsOfNode(node);
  if (rebuilt.empty()) return;
  for (FlavorId f : rebuilt) BuildFlavor(state, f);
  // Put back the accounted usage that lands on a rebuilt flavor (with
  // TASHandleOverlappingFlavors, a hostname-level flavor also holds the
  // usage of the other hostname-level flavors).
  auto lands_on = [&](FlavorId usage_flavor, FlavorId f) {
    if (usage_flavor == f) return true;
    return aggregate_hostname_flavors_ && flavors_[static_cast<size_t>(usage_flavor)].lowest_hostname &&
           flavors_[static_cast<size_t>(f)].lowest_hostname;
  };
  for (const Account& account : accounts_) {
    if (account.cq == kNone) continue;
    for (const TasDomainUsage& d : account.usage) {
      if (!IsTasFlavor(d.flavor)) continue;
      for (FlavorId f : rebuilt) {
        if (lands_on(d.flavor, f)) flavors_[static_cast<size_t>(f)].snapshot->AddUsage(d.usage);
      }
    }
  }
}

TasCache::~TasCache() = default;

topology::ResourceId TasCache::InternResource(std::string_view name) {
  auto it = resource_index_.find(std::string(name));
  if (it != resource_index_.end()) return it->second;
  const auto id = static_cast<topology::ResourceId>(resource_names_.size());
  resource_names_.emplace_back(name);
  resource_index_.emplace(std::string(name), id);
  // Keep failure messages naming the resource (rare: a resource no node
  // and no earlier workload had).
  for (FlavorEntry& entry : flavors_) {
    if (entry.snapshot != nullptr) entry.snapshot->SetResourceNames(resource_names_);
  }
  return id;
}

topology::Requests TasCache::ToRequests(const std::vector<model::ResourceAmount>& requests) {
  topology::Requests out;
  out.reserve(requests.size());
  for (const auto& r : requests) out.push_back({InternResource(r.name), r.amount});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.resource < b.resource; });
  return out;
}

TasUsage TasCache::AdmittedUsage(const ClusterState& state, const WorkloadRecord& wl) const {
  TasUsage usage;
  if (!wl.admission.has_value()) return usage;
  for (size_t i = 0; i < wl.admission->pod_sets.size() && i < wl.pod_sets.size(); ++i) {
    const PodSetAdmission& ps = wl.admission->pod_sets[i];
    if (!ps.topology_assignment.has_value()) continue;
    std::vector<FlavorId> flavors;
    for (const auto& entry : ps.entries) {
      if (std::find(flavors.begin(), flavors.end(), entry.flavor) == flavors.end()) {
        flavors.push_back(entry.flavor);
      }
    }
    std::sort(flavors.begin(), flavors.end(), [&](FlavorId a, FlavorId b) {
      return state.flavor(a).name < state.flavor(b).name;
    });
    for (FlavorId f : flavors) {
      if (!IsTasFlavor(f)) continue;
      for (const auto& domain : ps.topology_assignment->domains) {
        TasDomainUsage d;
        d.flavor = f;
        d.usage.values = domain.values;
        d.usage.single_pod_requests = wl.pod_sets[i].tas_per_pod;
        d.usage.count = domain.count;
        usage.push_back(std::move(d));
      }
    }
  }
  return usage;
}

void TasCache::Apply(const TasUsage& usage, int sign) {
  for (const TasDomainUsage& d : usage) {
    if (!IsTasFlavor(d.flavor)) continue;
    topology::TasFlavorSnapshot& s = *flavors_[static_cast<size_t>(d.flavor)].snapshot;
    if (sign > 0) {
      s.AddUsage(d.usage);
    } else {
      s.RemoveUsage(d.usage);
    }
  }
}

void TasCache::ApplyToCache(const TasUsage& usage, int sign) {
  for (const TasDomainUsage& d : usage) {
    if (!IsTasFlavor(d.flavor)) continue;
    auto apply = [&](FlavorId f) {
      topology::TasFlavorSnapshot& s = *flavors_[static_cast<size_t>(f)].snapshot;
      if (sign > 0) {
        s.AddUsage(d.usage);
      } else {
        s.RemoveUsage(d.usage);
      }
    };
    if (aggregate_hostname_flavors_ && flavors_[static_cast<size_t>(d.flavor)].lowest_hostname) {
      // snapshotTopologyDomainUsages: the hostname-level flavors see each
      // other's usage on the nodes they share.
      for (FlavorId f : hostname_flavors_) apply(f);
    } else {
      apply(d.flavor);
    }
  }
}

void TasCache::AddCycleUsage(const TasUsage& usage) {
  if (usage.empty()) return;
  Apply(usage, +1);
  cycle_log_.push_back(usage);
}

bool TasCache::Fits(const TasUsage& usage) const {
  // Grouped by flavor, in order of appearance.
  std::vector<FlavorId> flavors;
  for (const TasDomainUsage& d : usage) {
    if (std::find(flavors.begin(), flavors.end(), d.flavor) == flavors.end()) flavors.push_back(d.flavor);
  }
  std::vector<topology::DomainUsage> per_flavor;
  for (FlavorId f : flavors) {
    if (!IsTasFlavor(f)) continue;
    per_flavor.clear();
    for (const TasDomainUsage& d : usage) {
      if (d.flavor == f) per_flavor.push_back(d.usage);
    }
    if (!Snapshot(f).Fits(per_flavor)) return false;
  }
  return true;
}

void TasCache::AccountWorkload(const ClusterState& state, WorkloadId id) {
  UnaccountWorkload(id);  // self-healing, as TASFlavorCache.addUsage
  const WorkloadRecord& wl = state.workload(id);
  if (!wl.admission.has_value()) return;
  TasUsage usage = AdmittedUsage(state, wl);
  if (usage.empty()) return;
  ApplyToCache(usage, +1);
  if (static_cast<size_t>(id) >= accounts_.size()) accounts_.resize(static_cast<size_t>(id) + 1);
  Account& account = accounts_[static_cast<size_t>(id)];
  account.cq = wl.admission->cq;
  std::vector<WorkloadId>& list = accounted_by_cq_[static_cast<size_t>(account.cq)];
  account.index = static_cast<int32_t>(list.size());
  list.push_back(id);
  account.usage = std::move(usage);
  ++num_accounted_;
}

void TasCache::UnaccountWorkload(WorkloadId id) {
  if (id < 0 || static_cast<size_t>(id) >= accounts_.size()) return;
  Account& account = accounts_[static_cast<size_t>(id)];
  if (account.cq == kNone) return;
  ApplyToCache(account.usage, -1);
  std::vector<WorkloadId>& list = accounted_by_cq_[static_cast<size_t>(account.cq)];
  const WorkloadId last = list.back();
  list[static_cast<size_t>(account.index)] = last;
  accounts_[static_cast<size_t>(last)].index = account.index;
  list.pop_back();
  account = Account();
  --num_accounted_;
}

void TasCache::BeginCycle(const ClusterState& state) {
  KUEUESIM_CHECK(cycle_log_.empty() && pending_accounts_.empty());
  if (!initial_scan_done_) {
    // Workloads admitted when the simulation starts (ensureTASIsSynced).
    initial_scan_done_ = true;
    for (CqId cq = 0; cq < state.num_cluster_queues(); ++cq) {
      for (WorkloadId id : state.cq(cq).holding) AccountWorkload(state, id);
      seen_generation_[static_cast<size_t>(cq)] = state.cq(cq).allocatable_generation;
    }
    return;
  }
  // Releases bump the queue's generation; drop the usage of the workloads
  // that no longer hold their admission there.
  for (CqId cq = 0; cq < state.num_cluster_queues(); ++cq) {
    const int64_t generation = state.cq(cq).allocatable_generation;
    if (seen_generation_[static_cast<size_t>(cq)] == generation) continue;
    seen_generation_[static_cast<size_t>(cq)] = generation;
    std::vector<WorkloadId>& list = accounted_by_cq_[static_cast<size_t>(cq)];
    for (size_t i = list.size(); i-- > 0;) {
      const WorkloadId id = list[i];
      const WorkloadRecord& wl = state.workload(id);
      if (!wl.admission.has_value() || wl.admission->cq != cq) UnaccountWorkload(id);
    }
  }
}

void TasCache::EndCycle(const ClusterState& state) {
  for (auto it = cycle_log_.rbegin(); it != cycle_log_.rend(); ++it) Apply(*it, -1);
  cycle_log_.clear();
  for (WorkloadId id : pending_accounts_) AccountWorkload(state, id);
  pending_accounts_.clear();
}

}  // namespace kueuesim::cluster
