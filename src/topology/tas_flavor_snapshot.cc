// TasFlavorSnapshot: capacities and usage of a TAS flavor's leaves, node
// filtering and the driver of Kueue's placement algorithm (kueue
// pkg/cache/scheduler/tas_flavor_snapshot.go: FindTopologyAssignmentsForFlavor,
// findLeaderAndWorkers, findTopologyAssignment, fillInCounts, fillLeafCounts,
// buildSliceSizeAtLevel, HasLevel, levelKey*, Fits, add/removeTASUsage).
#include "kueuesim/topology/tas_flavor_snapshot.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "kueuesim/model/selectors.h"
#include "topology/tas_internal.h"

namespace kueuesim::topology {

namespace {

using internal::kMaxInt32;

// Adds `b` to the sorted requests `a`.
void AddRequests(Requests& a, const Requests& b, Amount factor = 1) {
  for (const ResourceAmount& rb : b) {
    auto it =
        std::lower_bound(a.begin(), a.end(), rb.resource,
                         [](const ResourceAmount& ra, ResourceId id) { return ra.resource < id; });
    const Amount amount = rb.amount * factor;
    if (it != a.end() && it->resource == rb.resource) {
      it->amount += amount;
    } else {
      a.insert(it, ResourceAmount{rb.resource, amount});
    }
  }
}

// How many times `amount` fits in `capacity` (one resource of Kueue's
// CountIn): max(0, min(capacity / amount, MaxInt32)), MaxInt32 for 0.
int32_t CountOne(Amount capacity, Amount amount) {
  if (amount == 0) return kMaxInt32;
  if (amount == -1 && capacity == std::numeric_limits<Amount>::min()) return kMaxInt32;
  const Amount q = capacity / amount;
  return static_cast<int32_t>(std::max<Amount>(0, std::min<Amount>(q, kMaxInt32)));
}

// The slice layers the algorithm reads (PodSetSliceRequiredTopologyConstraints).
std::vector<model::SliceLayer> SliceConstraints(const model::TopologyRequest* tr,
                                                const TasOptions& options) {
  if (tr == nullptr || tr->slice_layers.empty()) return {};
  if (!options.multi_layer_topology) return {tr->slice_layers.front()};
  return tr->slice_layers;
}

bool IsSliceTopologyOnlyRequest(const model::TopologyRequest* tr, const TasOptions& options) {
  if (tr == nullptr || tr->required.has_value() || tr->preferred.has_value()) return false;
  return !SliceConstraints(tr, options).empty();
}

}  // namespace

struct TasFlavorSnapshot::Impl {
  // The static tree, shared by clones (as Kueue shares a topologyTree
  // between the snapshots of a flavor).
  std::shared_ptr<const internal::Tree> tree_ptr;
  std::vector<model::Toleration> flavor_tolerations;
  ResourceId pods_resource = -1;
  TasOptions options;
  std::string topology_name;
  std::vector<std::string> resource_names;
  // Per leaf and resource (tree().num_resources wide): allocatable minus the
  // non-TAS usage, and the usage of TAS workloads.
  std::vector<Amount> free;
  std::vector<Amount> tas_usage;

  const internal::Tree& tree() const { return *tree_ptr; }
  int32_t R() const { return tree().num_resources; }
  Amount* Row(std::vector<Amount>& v, int32_t leaf) {
    return v.data() + static_cast<ptrdiff_t>(leaf) * R();
  }
  const Amount* Row(const std::vector<Amount>& v, int32_t leaf) const {
    return v.data() + static_cast<ptrdiff_t>(leaf) * R();
  }
  std::string ResourceName(ResourceId id) const {
    if (id >= 0 && static_cast<size_t>(id) < resource_names.size() &&
        !resource_names[static_cast<size_t>(id)].empty()) {
      return resource_names[static_cast<size_t>(id)];
    }
    return std::to_string(id);
  }
  int32_t LeafOf(const std::vector<std::string>& values) const {
    const auto it = tree().leaf_by_id.find(internal::JoinDomainId(values));
    return it == tree().leaf_by_id.end() ? -1 : it->second;
  }

  // levelKey: the level a request asks for (nullopt: none).
  std::optional<std::string> LevelKey(const model::TopologyRequest* tr) const {
    if (tr == nullptr) return std::nullopt;
    if (tr->required.has_value()) return *tr->required;
    if (tr->preferred.has_value()) return *tr->preferred;
    if (IsSliceTopologyOnlyRequest(tr, options)) return tree().levels.front();
    if (tr->unconstrained.value_or(false)) return tree().levels.back();
    return std::nullopt;
  }

  void UpdateTasUsage(const DomainUsage& usage, Amount sign);
  internal::RunResult FindTopologyAssignment(const PodSetPlacementRequest& workers,
                                             const PodSetPlacementRequest* leader,
                                             const std::map<std::string, Requests>& assumed,
                                             bool simulate_empty,
                                             const std::string& required_domain = {}) const;
  // requiredReplacementDomain and findIncompleteSliceDomain.
  std::string RequiredReplacementDomain(const PodSetPlacementRequest& request, int32_t count,
                                        const model::TopologyAssignment& ta) const;
  std::string FindIncompleteSliceDomain(const model::TopologyAssignment& ta, int32_t missing,
                                        int32_t slice_size, const std::string& level_key) const;
  // The domain at `level` above the leaf, or -1.
  int32_t AncestorAt(int32_t leaf, int32_t level) const {
    int32_t d = tree().leaf_domain[static_cast<size_t>(leaf)];
    while (d >= 0 && tree().domains[static_cast<size_t>(d)].level > level) {
      d = tree().domains[static_cast<size_t>(d)].parent;
    }
    return d;
  }
};

TasFlavorSnapshot::TasFlavorSnapshot(std::vector<std::string> levels, std::vector<NodeSpec> nodes,
                                     std::vector<model::Toleration> flavor_tolerations,
                                     ResourceId pods_resource, TasOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->tree_ptr = std::make_shared<const internal::Tree>(
      internal::Tree::Build(std::move(levels), std::move(nodes), pods_resource));
  impl_->flavor_tolerations = std::move(flavor_tolerations);
  impl_->pods_resource = pods_resource;
  impl_->options = options;
  impl_->free = impl_->tree().capacity;
  impl_->tas_usage.assign(impl_->free.size(), 0);
}

TasFlavorSnapshot::TasFlavorSnapshot(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TasFlavorSnapshot::~TasFlavorSnapshot() = default;
TasFlavorSnapshot::TasFlavorSnapshot(TasFlavorSnapshot&&) noexcept = default;
TasFlavorSnapshot& TasFlavorSnapshot::operator=(TasFlavorSnapshot&&) noexcept = default;

TasFlavorSnapshot TasFlavorSnapshot::Clone() const {
  return TasFlavorSnapshot(std::make_unique<Impl>(*impl_));
}

void TasFlavorSnapshot::SetTopologyName(std::string name) {
  impl_->topology_name = std::move(name);
}

void TasFlavorSnapshot::SetResourceNames(std::vector<std::string> names_by_id) {
  impl_->resource_names = std::move(names_by_id);
}

const std::vector<std::string>& TasFlavorSnapshot::levels() const { return impl_->tree().levels; }

bool TasFlavorSnapshot::IsLowestLevelHostname() const { return impl_->tree().lowest_is_hostname; }

bool TasFlavorSnapshot::HasLevel(const model::TopologyRequest& request) const {
  const internal::Tree& tree = impl_->tree();
  if (tree.levels.empty()) return false;
  const std::optional<std::string> main_key = impl_->LevelKey(&request);
  if (!main_key.has_value()) return false;
  const std::vector<model::SliceLayer> constraints = SliceConstraints(&request, impl_->options);
  const std::string slice_key = constraints.empty() ? tree.levels.back() : constraints[0].topology;
  if (tree.LevelIndex(*main_key) < 0 || tree.LevelIndex(slice_key) < 0) return false;
  for (const model::SliceLayer& layer : constraints) {
    if (tree.LevelIndex(layer.topology) < 0) return false;
  }
  return true;
}

void TasFlavorSnapshot::AddNonTasUsage(const std::string& node_name, const Requests& usage) {
  const auto it = impl_->tree().leaf_by_node_name.find(node_name);
  if (it == impl_->tree().leaf_by_node_name.end()) return;
  Amount* row = impl_->Row(impl_->free, it->second);
  for (const ResourceAmount& ra : usage) {
    // A resource no node has stays at "no capacity" whatever is used.
    if (ra.resource >= 0 && ra.resource < impl_->R()) row[ra.resource] = SubAmounts(row[ra.resource], ra.amount);
  }
}

void TasFlavorSnapshot::Impl::UpdateTasUsage(const DomainUsage& usage, Amount sign) {
  const int32_t leaf = LeafOf(usage.values);
  // Kueue skips a domain without a leaf (node deleted or not Ready).
  if (leaf < 0) return;
  Amount* row = Row(tas_usage, leaf);
  for (const ResourceAmount& ra : usage.single_pod_requests) {
    if (ra.resource >= 0 && ra.resource < R()) row[ra.resource] += sign * ra.amount * usage.count;
  }
  if (pods_resource >= 0 && pods_resource < R()) row[pods_resource] += sign * usage.count;
}

void TasFlavorSnapshot::AddUsage(const DomainUsage& usage) { impl_->UpdateTasUsage(usage, 1); }

void TasFlavorSnapshot::RemoveUsage(const DomainUsage& usage) { impl_->UpdateTasUsage(usage, -1); }

bool TasFlavorSnapshot::Fits(const std::vector<DomainUsage>& usages) const {
  const int32_t r = impl_->R();
  for (const DomainUsage& usage : usages) {
    const int32_t leaf = impl_->LeafOf(usage.values);
    if (leaf < 0) return false;
    const Amount* free = impl_->Row(impl_->free, leaf);
    const Amount* used = impl_->Row(impl_->tas_usage, leaf);
    // CountIn of the single pod requests (no "pods" added, as in Kueue);
    // empty requests count 0.
    int32_t count = 0;
    bool first = true;
    for (const ResourceAmount& ra : usage.single_pod_requests) {
      const Amount capacity =
          ra.resource >= 0 && ra.resource < r ? free[ra.resource] - used[ra.resource] : 0;
      const int32_t c = CountOne(capacity, ra.amount);
      if (first || c < count) count = c;
      first = false;
    }
    if (count < usage.count) return false;
  }
  return true;
}

internal::RunResult TasFlavorSnapshot::Impl::FindTopologyAssignment(
    const PodSetPlacementRequest& workers, const PodSetPlacementRequest* leader,
    const std::map<std::string, Requests>& assumed, bool simulate_empty,
    const std::string& required_domain) const {
  const internal::Tree& tree = this->tree();
  auto fail = [](std::string reason) {
    return internal::RunResult{std::nullopt, std::nullopt, std::move(reason)};
  };
  if (tree.levels.empty()) return fail("topology level not specified");

  internal::PlacementParams params;
  params.count = workers.count;
  // Each pod also takes one "pods" (resources.OnePodRequest).
  Requests requests = workers.single_pod_requests;
  AddRequests(requests, Requests{{pods_resource, 1}});
  Requests leader_requests;
  if (leader != nullptr) {
    leader_requests = leader->single_pod_requests;
    AddRequests(leader_requests, Requests{{pods_resource, 1}});
    // Pod set groups are validated to have a leader with one replica.
    params.leader_count = 1;
  }

  const model::TopologyRequest* tr =
      workers.topology_request.has_value() ? &*workers.topology_request : nullptr;
  const bool implied = tr == nullptr || !tr->IsExplicit();
  const std::vector<model::SliceLayer> constraints = SliceConstraints(tr, options);
  // Without slices, a slice is a single pod.
  if (!constraints.empty()) {
    if (constraints[0].size <= 0)
      return fail("slice topology requested, but slice size not provided");
    params.slice_size = constraints[0].size;
  }
  params.required = tr != nullptr && tr->required.has_value();
  params.unconstrained = (tr != nullptr && tr->unconstrained.value_or(false)) || implied ||
                         IsSliceTopologyOnlyRequest(tr, options);

  std::optional<std::string> key = LevelKey(tr);
  if (!key.has_value() && implied) key = tree.levels.back();
  if (!key.has_value()) return fail("topology level not specified");
  params.requested_level = tree.LevelIndex(*key);
  if (params.requested_level < 0) return fail(fmt::format("no requested topology level: {}", *key));
  const std::string slice_key = constraints.empty() ? tree.levels.back() : constraints[0].topology;
  params.slice_level = tree.LevelIndex(slice_key);
  if (params.slice_level < 0) {
    return fail(fmt::format("no requested topology level for slices: {}", slice_key));
  }
  if (params.requested_level > params.slice_level) {
    return fail(
        fmt::format("podset slice topology {} is above the podset topology {}", slice_key, *key));
  }

  // buildSliceSizeAtLevel: the inner slice layers (past the first), each
  // strictly below the previous one and dividing its size, fill the levels
  // from below the previous layer down to their own.
  params.slice_size_at_level.assign(tree.levels.size(), 0);
  if (constraints.size() > 1) {
    int32_t prev_size = params.slice_size;
    int32_t prev_level = params.slice_level;
    for (size_t i = 1; i < constraints.size(); ++i) {
      const model::SliceLayer& layer = constraints[i];
      const int32_t inner = tree.LevelIndex(layer.topology);
      if (inner < 0) {
        return fail(fmt::format("no requested topology level for additional slice layer: {}",
                                layer.topology));
      }
      if (inner <= prev_level) {
        return fail(
            fmt::format("additional slice layer topology {} must be at a lower level than {}",
                        layer.topology, tree.levels[static_cast<size_t>(prev_level)]));
      }
      if (layer.size <= 0 || prev_size % layer.size != 0) {
        return fail(
            fmt::format("additional slice layer size {} must evenly divide parent layer size {}",
                        layer.size, prev_size));
      }
      for (int32_t lvl = prev_level + 1; lvl <= inner; ++lvl) {
        params.slice_size_at_level[static_cast<size_t>(lvl)] = layer.size;
      }
      prev_size = layer.size;
      prev_level = inner;
    }
    params.multi_layer_constraints = constraints;
  }

  // Phase 1 at the leaves (fillInCounts / fillLeafCounts).
  std::vector<model::Toleration> tolerations = workers.tolerations;
  tolerations.insert(tolerations.end(), flavor_tolerations.begin(), flavor_tolerations.end());

  // The resources the counts read: slots shared by the workers' and the
  // leader's requests. Worker entries are kept in resource-name order so
  // that the first minimum is Kueue's limiting resource (ties broken by name).
  struct Entry {
    int32_t slot;
    Amount amount;
    ResourceId resource;
  };
  std::vector<ResourceId> slot_ids;
  auto slot_of = [&](ResourceId id) {
    const auto it = std::find(slot_ids.begin(), slot_ids.end(), id);
    if (it != slot_ids.end()) return static_cast<int32_t>(it - slot_ids.begin());
    slot_ids.push_back(id);
    return static_cast<int32_t>(slot_ids.size()) - 1;
  };
  std::vector<Entry> worker_entries;
  for (const ResourceAmount& ra : requests)
    worker_entries.push_back({slot_of(ra.resource), ra.amount, ra.resource});
  std::vector<std::string> entry_names;
  for (const Entry& e : worker_entries) entry_names.push_back(ResourceName(e.resource));
  {
    std::vector<size_t> order(worker_entries.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return entry_names[a] < entry_names[b]; });
    std::vector<Entry> sorted_entries;
    std::vector<std::string> sorted_names;
    for (const size_t i : order) {
      sorted_entries.push_back(worker_entries[i]);
      sorted_names.push_back(entry_names[i]);
    }
    worker_entries = std::move(sorted_entries);
    entry_names = std::move(sorted_names);
  }
  std::vector<Entry> leader_entries;
  for (const ResourceAmount& ra : leader_requests)
    leader_entries.push_back({slot_of(ra.resource), ra.amount, ra.resource});
  const size_t num_slots = slot_ids.size();

  // Usage assumed earlier in this computation, per leaf and slot (rows only
  // for the leaves it mentions).
  const int32_t num_leaves = tree.num_leaves();
  std::vector<int32_t> assumed_row;
  std::vector<Amount> assumed_values;
  if (!assumed.empty()) {
    assumed_row.assign(static_cast<size_t>(num_leaves), -1);
    for (const auto& [id, usage] : assumed) {
      const auto it = tree.leaf_by_id.find(id);
      if (it == tree.leaf_by_id.end()) continue;
      int32_t& row = assumed_row[static_cast<size_t>(it->second)];
      if (row < 0) {
        row = static_cast<int32_t>(assumed_values.size() / num_slots);
        assumed_values.resize(assumed_values.size() + num_slots, 0);
      }
      for (const ResourceAmount& ra : usage) {
        for (size_t slot = 0; slot < num_slots; ++slot) {
          if (slot_ids[slot] == ra.resource) {
            assumed_values[static_cast<size_t>(row) * num_slots + slot] += ra.amount;
          }
        }
      }
    }
  }

  auto count_in = [](const std::vector<Entry>& entries, const std::vector<Amount>& remaining,
                     int32_t* limiting) {
    int32_t result = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      const int32_t c =
          CountOne(remaining[static_cast<size_t>(entries[i].slot)], entries[i].amount);
      if (i == 0 || c < result) {
        result = c;
        if (limiting != nullptr) *limiting = static_cast<int32_t>(i);
      }
    }
    return result;
  };

  internal::Placement placement(tree, options, topology_name);
  internal::ExclusionStats stats;
  const bool respect_preferred =
      options.respect_node_affinity_preferred && !workers.preferred_affinity.empty();
  std::vector<Amount> remaining(num_slots);
  for (int32_t leaf = 0; leaf < num_leaves; ++leaf) {
    ++stats.total_nodes;
    int64_t affinity_score = 0;
    if (tree.lowest_is_hostname) {
      // The default simulator's FindFeasibleNodes: taints (NoSchedule and
      // NoExecute), then nodeSelector, then required node affinity.
      const NodeSpec& node =
          tree.nodes[static_cast<size_t>(tree.leaf_node[static_cast<size_t>(leaf)])];
      if (const std::optional<model::Taint> taint =
              model::FindUntoleratedTaint(node.taints, tolerations)) {
        ++stats.taints[model::TaintToString(*taint)];
        continue;
      }
      if (!model::MatchesNodeSelection(workers.node_selector, {}, node.labels, node.name)) {
        ++stats.node_selector;
        continue;
      }
      if (!workers.required_affinity.empty() &&
          !model::MatchesNodeAffinity(workers.required_affinity, node.labels, node.name)) {
        ++stats.affinity;
        continue;
      }
      if (respect_preferred) {
        for (const PreferredSchedulingTerm& term : workers.preferred_affinity) {
          if (term.weight == 0) continue;
          if (model::MatchesNodeAffinity({term.preference}, node.labels, node.name)) {
            affinity_score += term.weight;
          }
        }
      }
    }
    if (!required_domain.empty()) {
      // DomainID(leaf.levelValues).BelongsTo(requiredReplacementDomain).
      const std::string id = internal::JoinDomainId(
          tree.domains[static_cast<size_t>(tree.leaf_domain[static_cast<size_t>(leaf)])].values);
      if (id != required_domain && id.rfind(required_domain + ",", 0) != 0) {
        ++stats.topology_domain;
        continue;
      }
    }
    const Amount* free_row = Row(free, leaf);
    const Amount* tas_row = Row(tas_usage, leaf);
    const int32_t arow = assumed_row.empty() ? -1 : assumed_row[static_cast<size_t>(leaf)];
    for (size_t s = 0; s < num_slots; ++s) {
      const ResourceId id = slot_ids[s];
      Amount value = 0;
      if (id >= 0 && id < R()) {
        value = free_row[id];
        if (!simulate_empty) value -= tas_row[id];
      }
      if (arow >= 0) value -= assumed_values[static_cast<size_t>(arow) * num_slots + s];
      remaining[s] = value;
    }
    int32_t limiting = -1;
    const int32_t pod_count = count_in(worker_entries, remaining, &limiting);
    if (pod_count == 0 && limiting >= 0)
      ++stats.resources[entry_names[static_cast<size_t>(limiting)]];
    int32_t leader_count = 0;
    if (leader != nullptr && count_in(leader_entries, remaining, nullptr) > 0) {
      leader_count = 1;
      for (const Entry& e : leader_entries) remaining[static_cast<size_t>(e.slot)] -= e.amount;
    }
    const int32_t pod_count_with_leader = count_in(worker_entries, remaining, nullptr);
    placement.SetLeaf(leaf, pod_count, leader_count, pod_count_with_leader, affinity_score);
  }
  return placement.Run(params, stats);
}

std::vector<PlacementOutcome> TasFlavorSnapshot::FindAssignments(
    const std::vector<PodSetPlacementRequest>& requests, bool simulate_empty,
    std::map<std::string, Requests>* assumed_usage) const {
  std::vector<PlacementOutcome> outcomes(requests.size());
  std::map<std::string, Requests> local_assumed;
  std::map<std::string, Requests>& assumed =
      assumed_usage != nullptr ? *assumed_usage : local_assumed;

  // Groups in the order of their first pod set; a pod set without a group
  // name is its own group, keyed by its position.
  std::vector<std::string> order;
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < requests.size(); ++i) {
    std::string key = requests[i].group_name.value_or(std::to_string(i));
    auto [it, inserted] = groups.try_emplace(key);
    if (inserted) order.push_back(key);
    it->second.push_back(i);
  }

  for (const std::string& key : order) {
    const std::vector<size_t>& members = groups.at(key);
    // findLeaderAndWorkers.
    size_t workers = members[0];
    std::optional<size_t> leader;
    if (members.size() > 1) {
      leader = members[1];
      if (requests[*leader].count > requests[workers].count) std::swap(*leader, workers);
    }
    internal::RunResult run = impl_->FindTopologyAssignment(
        requests[workers], leader.has_value() ? &requests[*leader] : nullptr, assumed,
        simulate_empty);
    for (const size_t i : members) {
      outcomes[i].failure_reason = run.reason;
      if (!run.reason.empty()) continue;
      if (i == workers) {
        outcomes[i].assignment = run.workers;
      } else if (leader.has_value() && i == *leader) {
        outcomes[i].assignment = run.leader;
      }
    }
    if (!run.reason.empty()) return outcomes;
    // addAssumedUsage: one "pods" per pod on top of the requests.
    for (const size_t i : members) {
      if (!outcomes[i].assignment.has_value()) continue;
      for (const model::TopologyDomainAssignment& d : outcomes[i].assignment->domains) {
        Requests& usage = assumed[internal::JoinDomainId(d.values)];
        AddRequests(usage, requests[i].single_pod_requests, d.count);
        AddRequests(usage, Requests{{impl_->pods_resource, 1}}, d.count);
      }
    }
  }
  return outcomes;
}

std::string TasFlavorSnapshot::Impl::FindIncompleteSliceDomain(const model::TopologyAssignment& ta,
                                                              int32_t missing, int32_t slice_size,
                                                              const std::string& level_key) const {
  const int32_t slice_level = tree().LevelIndex(level_key);
  if (slice_level < 0 || slice_size <= 0) return "";
  // Pods per domain of the slice level, in order of first appearance.
  std::vector<std::pair<int32_t, int32_t>> usage;
  for (const model::TopologyDomainAssignment& d : ta.domains) {
    const int32_t leaf = LeafOf(d.values);
    if (leaf < 0) continue;
    const int32_t domain = AncestorAt(leaf, slice_level);
    auto it = std::find_if(usage.begin(), usage.end(), [&](const auto& u) { return u.first == domain; });
    if (it == usage.end()) {
      usage.emplace_back(domain, d.count);
    } else {
      it->second += d.count;
    }
  }
  for (const auto& [domain, count] : usage) {
    if ((count + missing) % slice_size == 0) return tree().domains[static_cast<size_t>(domain)].id;
  }
  return "";
}

std::string TasFlavorSnapshot::Impl::RequiredReplacementDomain(const PodSetPlacementRequest& request,
                                                              int32_t count,
                                                              const model::TopologyAssignment& ta) const {
  const model::TopologyRequest* tr = request.topology_request.has_value() ? &*request.topology_request : nullptr;
  const bool implied = tr == nullptr || !tr->IsExplicit();
  std::optional<std::string> key = LevelKey(tr);
  if (!key.has_value() && implied && !tree().levels.empty()) key = tree().levels.back();
  if (!key.has_value()) return "";
  const int32_t level = tree().LevelIndex(*key);
  if (level < 0) return "";
  // The failed node was the only one: nothing to comply with.
  if (ta.domains.empty()) return "";
  const std::vector<model::SliceLayer> constraints = SliceConstraints(tr, options);
  const int32_t slice_size = constraints.empty() ? 1 : constraints[0].size;
  if (slice_size <= 0) return "";
  if (!constraints.empty() && count % slice_size != 0) {
    // The innermost broken layer's domain.
    if (constraints.size() > 1) {
      for (auto it = constraints.rbegin(); it != constraints.rend(); ++it) {
        if (it->size > 0 && count % it->size != 0) {
          return FindIncompleteSliceDomain(ta, count, it->size, it->topology);
        }
      }
    }
    return FindIncompleteSliceDomain(ta, count, slice_size, constraints[0].topology);
  }
  if (tr == nullptr || !tr->required.has_value()) return "";
  if (ta.domains[0].values.empty()) return "";
  const int32_t leaf = LeafOf(ta.domains[0].values);
  if (leaf < 0) return "";
  const int32_t domain = AncestorAt(leaf, level);
  return domain < 0 ? "" : tree().domains[static_cast<size_t>(domain)].id;
}

ReplacementOutcome TasFlavorSnapshot::FindReplacement(const PodSetPlacementRequest& request,
                                                      const model::TopologyAssignment& existing,
                                                      const std::string& failed_node,
                                                      std::map<std::string, Requests>* assumed_usage) const {
  ReplacementOutcome out;
  const internal::Tree& tree = impl_->tree();
  // deleteDomain: drop the failed node's domain; its pods are to be placed.
  model::TopologyAssignment kept;
  kept.levels = existing.levels;
  int32_t count = 0;
  for (const model::TopologyDomainAssignment& d : existing.domains) {
    if (!d.values.empty() && d.values.back() == failed_node) {
      count = d.count;
    } else {
      kept.domains.push_back(d);
    }
  }
  // IsTopologyAssignmentStale.
  for (const model::TopologyDomainAssignment& d : kept.domains) {
    if (impl_->LeafOf(d.values) < 0) {
      out.failure_reason = fmt::format(
          "Cannot replace the node, because the existing topologyAssignment is invalid, as it contains the "
          "stale domain {}",
          d.values.empty() ? std::string() : d.values.front());
      return out;
    }
  }
  const std::string required_domain = impl_->RequiredReplacementDomain(request, count, kept);
  PodSetPlacementRequest placed = request;
  placed.count = count;
  const model::TopologyRequest* tr = request.topology_request.has_value() ? &*request.topology_request : nullptr;
  const std::vector<model::SliceLayer> constraints = SliceConstraints(tr, impl_->options);
  if (!constraints.empty() && constraints[0].size <= 0) {
    out.failure_reason = "slice topology requested, but slice size not provided";
    return out;
  }
  if (!constraints.empty() && !required_domain.empty() && count % constraints[0].size != 0) {
    // The innermost layer whose size divides the missing pods keeps the
    // leaf-level grouping; none: single pods.
    std::vector<model::SliceLayer> layers;
    for (auto it = constraints.rbegin(); it != constraints.rend(); ++it) {
      if (it->size > 0 && count % it->size == 0) {
        layers.push_back(*it);
        break;
      }
    }
    placed.topology_request->slice_layers = std::move(layers);
  }
  std::map<std::string, Requests> local_assumed;
  std::map<std::string, Requests>& assumed = assumed_usage != nullptr ? *assumed_usage : local_assumed;
  internal::RunResult run = impl_->FindTopologyAssignment(placed, nullptr, assumed, false, required_domain);
  if (!run.reason.empty()) {
    out.failure_reason = std::move(run.reason);
    return out;
  }
  if (!run.workers.has_value() || run.workers->domains.empty()) {
    out.failure_reason = fmt::format("cannot find replacement assignment for unhealthy node: {}", failed_node);
    return out;
  }
  // mergeTopologyAssignments: by the leaves' full level values, equal
  // domains merged.
  std::vector<model::TopologyDomainAssignment> all = run.workers->domains;
  all.insert(all.end(), kept.domains.begin(), kept.domains.end());
  auto full_id = [&](const model::TopologyDomainAssignment& d) {
    const int32_t leaf = impl_->LeafOf(d.values);
    return leaf < 0 ? internal::JoinDomainId(d.values)
                    : internal::JoinDomainId(
                          tree.domains[static_cast<size_t>(tree.leaf_domain[static_cast<size_t>(leaf)])].values);
  };
  std::stable_sort(all.begin(), all.end(), [&](const auto& a, const auto& b) { return full_id(a) < full_id(b); });
  model::TopologyAssignment merged;
  merged.levels = run.workers->levels;
  for (const model::TopologyDomainAssignment& d : all) {
    if (!merged.domains.empty() &&
        internal::JoinDomainId(merged.domains.back().values) == internal::JoinDomainId(d.values)) {
      merged.domains.back().count += d.count;
    } else {
      merged.domains.push_back(d);
    }
  }
  for (const model::TopologyDomainAssignment& d : run.workers->domains) {
    Requests& usage = assumed[internal::JoinDomainId(d.values)];
    AddRequests(usage, request.single_pod_requests, d.count);
    AddRequests(usage, Requests{{impl_->pods_resource, 1}}, d.count);
  }
  out.assignment = std::move(merged);
  out.replacement = std::move(run.workers);
  return out;
}

}  // namespace kueuesim::topology
