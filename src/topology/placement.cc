// One run of Kueue's TAS placement algorithm (kueue
// pkg/cache/scheduler/tas_flavor_snapshot.go: fillInCountsHelper,
// findLevelWithFitDomains, findBestFitDomain*, consumeWithLeadersGeneric,
// prioritizeLeaderDomain, updateCountsToMinimumGeneric, sortedDomains*,
// buildAssignment and the descent of findTopologyAssignment).
//
// Every sort here is by a total order (the level values break all ties), so
// Go's unstable sorts and map iteration orders do not change the result; the
// tree keeps domains and children in level-value order.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "topology/tas_internal.h"

namespace kueuesim::topology::internal {

namespace {

int Cmp(int64_t a, int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

}  // namespace

int CompareSortedDomains(const DomainState& a, int32_t rank_a, const DomainState& b, int32_t rank_b,
                         bool least_free_capacity, bool respect_affinity) {
  if (respect_affinity && a.affinity_score != b.affinity_score) {
    return Cmp(b.affinity_score, a.affinity_score);
  }
  if (a.slice_count != b.slice_count) {
    // LeastFreeCapacity starts from the domain with the least free room.
    return least_free_capacity ? Cmp(a.slice_count, b.slice_count)
                               : Cmp(b.slice_count, a.slice_count);
  }
  if (a.pod_count != b.pod_count) return Cmp(a.pod_count, b.pod_count);
  return Cmp(rank_a, rank_b);
}

int CompareSortedDomainsWithLeader(const DomainState& a, int32_t rank_a, const DomainState& b,
                                   int32_t rank_b, bool least_free_capacity,
                                   bool respect_affinity) {
  if (a.leader_count != b.leader_count) return Cmp(b.leader_count, a.leader_count);
  if (respect_affinity && a.affinity_score != b.affinity_score) {
    return Cmp(b.affinity_score, a.affinity_score);
  }
  if (a.slice_count_with_leader != b.slice_count_with_leader) {
    return least_free_capacity ? Cmp(a.slice_count_with_leader, b.slice_count_with_leader)
                               : Cmp(b.slice_count_with_leader, a.slice_count_with_leader);
  }
  if (a.pod_count_with_leader != b.pod_count_with_leader) {
    return Cmp(a.pod_count_with_leader, b.pod_count_with_leader);
  }
  return Cmp(rank_a, rank_b);
}

bool ExclusionStats::HasExclusions() const {
  return node_selector > 0 || affinity > 0 || !taints.empty() || topology_domain > 0 ||
         !resources.empty();
}

std::string ExclusionStats::FormatReasons() const {
  std::vector<std::string> reasons;
  if (node_selector > 0) reasons.push_back(fmt::format("nodeSelector: {}", node_selector));
  if (affinity > 0) reasons.push_back(fmt::format("affinity: {}", affinity));
  if (topology_domain > 0) reasons.push_back(fmt::format("topologyDomain: {}", topology_domain));
  for (const auto& [taint, n] : taints) {
    reasons.push_back(fmt::format("taint {}: {}", GoQuote(taint), n));
  }
  for (const auto& [resource, n] : resources) {
    reasons.push_back(fmt::format("resource {}: {}", GoQuote(resource), n));
  }
  std::sort(reasons.begin(), reasons.end());
  std::string out;
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i > 0) out += ", ";
    out += reasons[i];
  }
  return out;
}

Placement::Placement(const Tree& tree, const TasOptions& options, std::string_view topology_name)
    : tree_(tree),
      options_(options),
      topology_name_(topology_name),
      states_(static_cast<size_t>(tree.num_domains())),
      ranks_(tree.lex_ranks) {}

void Placement::SetLeaf(int32_t leaf, int32_t pod_count, int32_t leader_count,
                        int32_t pod_count_with_leader, int64_t affinity_score) {
  DomainState& st = St(tree_.leaf_domain[static_cast<size_t>(leaf)]);
  st.pod_count = pod_count;
  st.leader_count = leader_count;
  st.pod_count_with_leader = pod_count_with_leader;
  st.affinity_score += affinity_score;
}

int32_t Placement::Base(int32_t h) const {
  return h < tree_.num_domains() ? h : clones_[static_cast<size_t>(h - tree_.num_domains())].base;
}

int32_t Placement::ParentOf(int32_t h) const {
  return h < tree_.num_domains() ? tree_.domains[static_cast<size_t>(h)].parent
                                 : clones_[static_cast<size_t>(h - tree_.num_domains())].parent;
}

const std::vector<int32_t>& Placement::ChildrenOf(int32_t h) const {
  return h < tree_.num_domains() ? tree_.domains[static_cast<size_t>(h)].children
                                 : clones_[static_cast<size_t>(h - tree_.num_domains())].children;
}

bool Placement::UseLeastFreeCapacity(bool unconstrained) const {
  // The matrix of KEP-2724.
  return unconstrained && options_.profile_mixed;
}

int32_t Placement::ShallowCloneWithState(int32_t h) {
  const auto clone = static_cast<int32_t>(states_.size());
  const DomainState copy = St(h);
  states_.push_back(copy);
  ranks_.push_back(LexRank(h));
  clones_.push_back(Clone{Base(h), ParentOf(h), ChildrenOf(h)});
  return clone;
}

int32_t Placement::CloneDomain(int32_t h, int32_t parent) {
  const int32_t clone = ShallowCloneWithState(h);
  const std::vector<int32_t> children = ChildrenOf(h);  // copy: clones_ grows
  std::vector<int32_t> cloned_children;
  cloned_children.reserve(children.size());
  for (const int32_t child : children) cloned_children.push_back(CloneDomain(child, clone));
  Clone& c = clones_[static_cast<size_t>(clone - tree_.num_domains())];
  c.parent = parent;
  c.children = std::move(cloned_children);
  return clone;
}

std::vector<int32_t> Placement::CloneDomains(std::span<const int32_t> domains) {
  std::vector<int32_t> result;
  result.reserve(domains.size());
  for (const int32_t d : domains) result.push_back(CloneDomain(d, -1));
  return result;
}

std::vector<int32_t> Placement::LowerLevelDomains(std::span<const int32_t> domains) const {
  std::vector<int32_t> result;
  result.reserve(domains.size());
  for (const int32_t d : domains) {
    const std::vector<int32_t>& children = ChildrenOf(d);
    result.insert(result.end(), children.begin(), children.end());
  }
  return result;
}

std::vector<int32_t> Placement::SortedDomains(std::span<const int32_t> domains,
                                              bool unconstrained) const {
  const bool lfc = UseLeastFreeCapacity(unconstrained);
  const bool affinity = options_.respect_node_affinity_preferred;
  std::vector<int32_t> result(domains.begin(), domains.end());
  std::sort(result.begin(), result.end(), [&](int32_t a, int32_t b) {
    return CompareSortedDomains(St(a), LexRank(a), St(b), LexRank(b), lfc, affinity) < 0;
  });
  return result;
}

std::vector<int32_t> Placement::SortedDomainsWithLeader(std::span<const int32_t> domains,
                                                        bool unconstrained) const {
  const bool lfc = UseLeastFreeCapacity(unconstrained);
  const bool affinity = options_.respect_node_affinity_preferred;
  std::vector<int32_t> result(domains.begin(), domains.end());
  std::sort(result.begin(), result.end(), [&](int32_t a, int32_t b) {
    return CompareSortedDomainsWithLeader(St(a), LexRank(a), St(b), LexRank(b), lfc, affinity) < 0;
  });
  return result;
}

std::span<const int32_t> Placement::TopAffinityTierDomains(
    std::span<const int32_t> candidates) const {
  // The candidates are sorted by affinity score first: keep the leading run
  // with the top score, so that BestFit never trades affinity for capacity.
  if (!options_.respect_node_affinity_preferred || candidates.empty()) return candidates;
  const int64_t score = St(candidates[0]).affinity_score;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (St(candidates[i]).affinity_score != score) return candidates.first(i);
  }
  return candidates;
}

template <typename CountFn>
int32_t Placement::FindBestFitDomainBy(std::span<const int32_t> domains, int32_t needed,
                                       CountFn count_for, int32_t leader_count) const {
  // The first domain with the smallest count >= needed (first occurrence, to
  // keep it next to the pod set's other domains); the first domain when
  // none fits.
  const std::span<const int32_t> candidates = TopAffinityTierDomains(domains);
  int32_t best = candidates[0];
  int32_t best_count = kMaxInt32;
  bool found = false;
  for (const int32_t d : candidates) {
    if (St(d).leader_count < leader_count) continue;
    const int32_t c = count_for(St(d));
    if (c >= needed && c < best_count) {
      best = d;
      best_count = c;
      found = true;
    }
  }
  return found ? best : candidates[0];
}

int32_t Placement::FindBestFitDomain(std::span<const int32_t> domains, int32_t count,
                                     int32_t leader_count) const {
  if (leader_count > 0) {
    return FindBestFitDomainBy(
        domains, count, [](const DomainState& s) { return s.pod_count_with_leader; }, leader_count);
  }
  return FindBestFitDomainBy(
      domains, count, [](const DomainState& s) { return s.pod_count; }, leader_count);
}

int32_t Placement::FindBestFitDomainForSlices(std::span<const int32_t> domains, int32_t slice_count,
                                              int32_t leader_count) const {
  if (leader_count > 0) {
    return FindBestFitDomainBy(
        domains, slice_count, [](const DomainState& s) { return s.slice_count_with_leader; },
        leader_count);
  }
  return FindBestFitDomainBy(
      domains, slice_count, [](const DomainState& s) { return s.slice_count; }, leader_count);
}

void Placement::FillInCountsHelper(int32_t h, int32_t slice_size, int32_t slice_level,
                                   int32_t level, const std::vector<int32_t>* slice_size_at_level,
                                   bool leader_required) {
  const std::vector<int32_t>& children = ChildrenOf(h);
  if (children.empty()) {
    if (level == slice_level) {
      DomainState& st = St(h);
      st.slice_count = st.pod_count / slice_size;
      st.slice_count_with_leader = st.pod_count_with_leader / slice_size;
    }
    return;
  }
  int32_t children_capacity = 0;
  int32_t slice_capacity = 0;
  bool has_with_leader_contributor = false;
  int32_t min_pod_difference = kMaxInt32;
  int32_t min_slice_difference = kMaxInt32;
  int32_t leader_count = 0;
  int64_t affinity_score = 0;

  // With multi-layer slices, a child at a constrained level contributes only
  // whole inner slices.
  const int32_t child_level = level + 1;
  int32_t inner_size = 0;
  if (slice_size_at_level != nullptr &&
      static_cast<size_t>(child_level) < slice_size_at_level->size()) {
    inner_size = (*slice_size_at_level)[static_cast<size_t>(child_level)];
  }
  for (const int32_t child : children) {
    FillInCountsHelper(child, slice_size, slice_level, child_level, slice_size_at_level,
                       leader_required);
    const DomainState& cs = St(child);
    int32_t child_pods = cs.pod_count;
    int32_t child_pods_with_leader = cs.pod_count_with_leader;
    if (inner_size > 0) {
      child_pods = (cs.pod_count / inner_size) * inner_size;
      child_pods_with_leader = (cs.pod_count_with_leader / inner_size) * inner_size;
    }
    children_capacity = WrapAdd(children_capacity, child_pods);
    slice_capacity = WrapAdd(slice_capacity, cs.slice_count);
    if (!leader_required || cs.leader_count > 0) {
      has_with_leader_contributor = true;
      min_pod_difference =
          std::min(WrapSub(child_pods, child_pods_with_leader), min_pod_difference);
      min_slice_difference =
          std::min(WrapSub(cs.slice_count, cs.slice_count_with_leader), min_slice_difference);
    }
    leader_count = std::max(cs.leader_count, leader_count);
    affinity_score += cs.affinity_score;
  }
  DomainState& st = St(h);
  st.pod_count = children_capacity;
  int32_t slice_count_with_leader = 0;
  if (has_with_leader_contributor) {
    st.pod_count_with_leader = WrapSub(children_capacity, min_pod_difference);
    slice_count_with_leader = WrapSub(slice_capacity, min_slice_difference);
  } else {
    st.pod_count_with_leader = 0;
  }
  st.leader_count = leader_count;
  st.affinity_score = affinity_score;
  if (level == slice_level) {
    slice_capacity = st.pod_count / slice_size;
    slice_count_with_leader = st.pod_count_with_leader / slice_size;
  }
  st.slice_count = slice_capacity;
  st.slice_count_with_leader = slice_count_with_leader;
}

std::vector<int32_t> Placement::PrioritizeLeaderDomain(std::vector<int32_t> domains, int32_t count,
                                                       int32_t leader_count, int32_t slice_size,
                                                       bool slices_enabled) const {
  // The roll-up subtracted the smallest leader penalty among the children;
  // put first a leader-capable domain whose penalty the others can absorb.
  if (leader_count == 0 || domains.size() < 2) return domains;
  int32_t required = count;
  int32_t available = 0;
  if (slices_enabled) {
    required /= slice_size;
    for (const int32_t d : domains) available = WrapAdd(available, St(d).slice_count);
  } else {
    for (const int32_t d : domains) available = WrapAdd(available, St(d).pod_count);
  }
  for (size_t i = 0; i < domains.size(); ++i) {
    const DomainState& st = St(domains[i]);
    if (st.leader_count < leader_count) continue;
    const int32_t penalty = slices_enabled ? WrapSub(st.slice_count, st.slice_count_with_leader)
                                           : WrapSub(st.pod_count, st.pod_count_with_leader);
    if (WrapSub(available, penalty) < required) continue;
    if (i == 0) return domains;
    const int32_t d = domains[i];
    std::copy_backward(domains.begin(), domains.begin() + static_cast<ptrdiff_t>(i),
                       domains.begin() + static_cast<ptrdiff_t>(i) + 1);
    domains[0] = d;
    return domains;
  }
  return domains;
}

std::pair<int32_t, bool> Placement::ConsumeWithLeaders(
    int32_t h, std::span<const int32_t> remaining, int32_t& remaining_primary,
    int32_t& remaining_leaders, bool unconstrained, int32_t slice_size, bool slices) {
  // `with_leader` and `primary` are the slice or pod fields of the domain in
  // hand (consumeWithLeadersGeneric's pointers).
  auto with_leader = [&](int32_t d) -> int32_t& {
    return slices ? St(d).slice_count_with_leader : St(d).pod_count_with_leader;
  };
  auto primary = [&](int32_t d) -> int32_t& {
    return slices ? St(d).slice_count : St(d).pod_count;
  };
  if (UseBestFit(unconstrained) && with_leader(h) >= remaining_primary &&
      St(h).leader_count >= remaining_leaders) {
    // Optimize the last domain.
    h = slices ? FindBestFitDomainForSlices(remaining, remaining_primary, remaining_leaders)
               : FindBestFitDomain(remaining, remaining_primary, remaining_leaders);
  }
  DomainState& st = St(h);
  if (with_leader(h) >= remaining_primary && st.leader_count >= remaining_leaders) {
    primary(h) = remaining_primary;
    st.leader_count = remaining_leaders;
    st.pod_count = WrapMul(remaining_primary, slice_size);
    return {h, true};
  }
  if (with_leader(h) > remaining_primary) with_leader(h) = remaining_primary;
  if (st.leader_count > remaining_leaders) st.leader_count = remaining_leaders;
  primary(h) = with_leader(h);
  st.pod_count = WrapMul(with_leader(h), slice_size);
  remaining_leaders -= st.leader_count;
  remaining_primary -= with_leader(h);
  return {h, false};
}

std::vector<int32_t> Placement::UpdateCountsToMinimum(std::vector<int32_t> domains, int32_t count,
                                                      int32_t leader_count, int32_t slice_size,
                                                      bool unconstrained, bool slices) {
  domains = PrioritizeLeaderDomain(std::move(domains), count, leader_count, slice_size, slices);
  std::vector<int32_t> result;
  int32_t remaining = slices ? count / slice_size : count;
  int32_t remaining_leaders = leader_count;
  const std::span<const int32_t> all(domains);
  for (size_t i = 0; i < domains.size(); ++i) {
    int32_t dom = domains[i];
    if (remaining_leaders > 0) {
      const auto [d, completed] =
          ConsumeWithLeaders(dom, all.subspan(i), remaining, remaining_leaders, unconstrained,
                             slices ? slice_size : 1, slices);
      result.push_back(d);
      if (completed) return result;
      continue;
    }
    // No leaders left.
    if (slices) {
      if (UseBestFit(unconstrained) && St(dom).slice_count >= remaining) {
        dom = FindBestFitDomainForSlices(all.subspan(i), remaining, 0);
      }
      DomainState& st = St(dom);
      st.leader_count = 0;
      if (st.slice_count >= remaining) {
        st.pod_count = WrapMul(remaining, slice_size);
        st.slice_count = remaining;
        result.push_back(dom);
        return result;
      }
      st.pod_count = WrapMul(st.slice_count, slice_size);
      remaining -= st.slice_count;
      result.push_back(dom);
      continue;
    }
    if (UseBestFit(unconstrained) && St(dom).pod_count >= remaining) {
      dom = FindBestFitDomain(all.subspan(i), remaining, 0);
    }
    DomainState& st = St(dom);
    st.leader_count = 0;
    if (st.pod_count >= remaining) {
      st.pod_count = remaining;
      result.push_back(dom);
      return result;
    }
    remaining -= st.pod_count;
    result.push_back(dom);
  }
  // Kueue logs "code assumptions violated" and goes on with no domains.
  return {};
}

model::TopologyAssignment Placement::BuildAssignment(std::vector<int32_t> domains) const {
  std::sort(domains.begin(), domains.end(),
            [&](int32_t a, int32_t b) { return LexRank(a) < LexRank(b); });
  const size_t num_levels = tree_.levels.size();
  // Only the hostname when the lowest level is the hostname.
  const size_t first = tree_.lowest_is_hostname ? num_levels - 1 : 0;
  model::TopologyAssignment assignment;
  assignment.levels.assign(tree_.levels.begin() + static_cast<ptrdiff_t>(first),
                           tree_.levels.end());
  for (const int32_t d : domains) {
    const int32_t pods = St(d).pod_count;
    // Zero when the pod set's count is 0 or under LeastFreeCapacity.
    if (pods == 0) continue;
    const std::vector<std::string>& values = tree_.domains[static_cast<size_t>(Base(d))].values;
    model::TopologyDomainAssignment da;
    da.values.assign(values.begin() + static_cast<ptrdiff_t>(first), values.end());
    da.count = pods;
    assignment.domains.push_back(std::move(da));
  }
  return assignment;
}

std::string Placement::NotFitMessage(int32_t fit, int32_t total, int32_t slice_size,
                                     const ExclusionStats& stats) const {
  const char* unit = slice_size == 1 ? "pod" : "slice";
  std::string out;
  if (fit == 0) {
    out = fmt::format("topology {} doesn't allow to fit any of {} {}(s)", GoQuote(topology_name_),
                      total, unit);
  } else {
    out = fmt::format("topology {} allows to fit only {} out of {} {}(s)", GoQuote(topology_name_),
                      fit, total, unit);
  }
  if (stats.HasExclusions()) {
    out += fmt::format(". Total nodes: {}; excluded: {}", stats.total_nodes, stats.FormatReasons());
  }
  return out;
}

int32_t Placement::CountSlicesInSubtree(int32_t h, int32_t current, int32_t target,
                                        int32_t slice_size) const {
  if (current == target) return St(h).pod_count / slice_size;
  int32_t total = 0;
  for (const int32_t child : ChildrenOf(h)) {
    total = WrapAdd(total, CountSlicesInSubtree(child, current + 1, target, slice_size));
  }
  return total;
}

std::string Placement::MultiLayerNotFitMessage(int32_t level, int32_t count,
                                               const std::vector<model::SliceLayer>& constraints,
                                               const ExclusionStats& stats) const {
  std::string out = fmt::format("topology {} doesn't allow to fit", GoQuote(topology_name_));
  // The domain with the most slices, ties broken by the smaller domain id.
  int32_t best = -1;
  for (const int32_t d : tree_.per_level[static_cast<size_t>(level)]) {
    if (best < 0 || St(d).slice_count > St(best).slice_count ||
        (St(d).slice_count == St(best).slice_count &&
         tree_.domains[static_cast<size_t>(d)].id < tree_.domains[static_cast<size_t>(best)].id)) {
      best = d;
    }
  }
  if (best < 0) return out;
  for (const model::SliceLayer& c : constraints) {
    const int32_t target = tree_.LevelIndex(c.topology);
    if (target < 0) continue;
    const int32_t needed = count / c.size;
    const int32_t fit = CountSlicesInSubtree(best, level, target, c.size);
    out += fmt::format("; {}/{} slice(s) fit on level {}", fit, needed, c.topology);
  }
  if (stats.HasExclusions()) {
    out += fmt::format(". Total nodes: {}; excluded: {}", stats.total_nodes, stats.FormatReasons());
  }
  return out;
}

Placement::LevelFit Placement::FindLevelWithFitDomains(int32_t level, const PlacementParams& params,
                                                       const ExclusionStats& stats) const {
  const std::vector<int32_t>& level_domains = tree_.per_level[static_cast<size_t>(level)];
  if (level_domains.empty()) {
    return {
        0,
        {},
        fmt::format("no topology domains at level: {}", tree_.levels[static_cast<size_t>(level)])};
  }
  std::vector<int32_t> sorted = SortedDomainsWithLeader(level_domains, params.unconstrained);
  int32_t top = sorted[0];
  const int32_t slice_count = params.count / params.slice_size;
  const bool best_fit = UseBestFit(params.unconstrained);
  if (best_fit && St(top).slice_count_with_leader >= slice_count &&
      St(top).leader_count >= params.leader_count) {
    // Optimize the potentially last domain.
    top = FindBestFitDomainForSlices(sorted, slice_count, params.leader_count);
  }
  auto not_fit = [&](int32_t fit, int32_t total) -> LevelFit {
    if (!params.multi_layer_constraints.empty()) {
      return {0,
              {},
              MultiLayerNotFitMessage(level, params.count, params.multi_layer_constraints, stats)};
    }
    return {0, {}, NotFitMessage(fit, total, params.slice_size, stats)};
  };

  if (UseLeastFreeCapacity(params.unconstrained)) {
    for (const int32_t candidate : sorted) {
      const DomainState& cs = St(candidate);
      int32_t capacity = cs.slice_count;
      if (params.leader_count > 0) {
        if (cs.leader_count < params.leader_count) continue;
        capacity = cs.slice_count_with_leader;
      }
      if (capacity >= slice_count) return {level, {candidate}, ""};
    }
    if (params.required) return not_fit(St(sorted.back()).pod_count, slice_count);
  }
  if (St(top).slice_count_with_leader < slice_count || St(top).leader_count < params.leader_count) {
    if (params.required) {
      // Before failing, look past the top affinity tier.
      if (options_.respect_node_affinity_preferred) {
        for (size_t i = 1; i < sorted.size(); ++i) {
          const DomainState& ds = St(sorted[i]);
          if (ds.slice_count_with_leader >= slice_count && ds.leader_count >= params.leader_count) {
            return {level,
                    {FindBestFitDomainForSlices(std::span(sorted).subspan(i), slice_count,
                                                params.leader_count)},
                    ""};
          }
        }
      }
      return not_fit(St(top).slice_count, slice_count);
    }
    if (level > 0 && !params.unconstrained) {
      return FindLevelWithFitDomains(level - 1, params, stats);
    }
    // Several domains of this level: leaders first, from a domain that keeps
    // the workers' capacity, then the workers in sort order.
    std::vector<int32_t> results;
    int32_t remaining_slices = slice_count;
    int32_t remaining_leaders = params.leader_count;
    sorted = PrioritizeLeaderDomain(std::move(sorted), params.count, params.leader_count,
                                    params.slice_size, true);
    size_t idx = 0;
    for (; remaining_leaders > 0 && idx < sorted.size() && St(sorted[idx]).leader_count > 0;
         ++idx) {
      int32_t d = sorted[idx];
      if (best_fit && St(sorted[idx]).slice_count_with_leader >= remaining_slices) {
        d = FindBestFitDomainForSlices(std::span(sorted).subspan(idx), remaining_slices,
                                       remaining_leaders);
      }
      results.push_back(d);
      remaining_leaders -= St(d).leader_count;
      remaining_slices -= St(d).slice_count_with_leader;
    }
    if (remaining_leaders > 0) {
      return not_fit(params.leader_count - remaining_leaders, slice_count);
    }
    const std::vector<int32_t> workers =
        SortedDomains(std::span(sorted).subspan(idx), params.unconstrained);
    for (size_t i = 0; remaining_slices > 0 && i < workers.size(); ++i) {
      int32_t d = workers[i];
      if (best_fit && St(d).slice_count >= remaining_slices) {
        d = FindBestFitDomainForSlices(std::span(workers).subspan(i), remaining_slices, 0);
      }
      results.push_back(d);
      remaining_slices -= St(d).slice_count;
    }
    if (remaining_slices > 0) return not_fit(slice_count - remaining_slices, slice_count);
    return {level, std::move(results), ""};
  }
  return {level, {top}, ""};
}

RunResult Placement::Run(const PlacementParams& params, const ExclusionStats& stats) {
  // Phase 1: roll the leaves' counts up the tree.
  const bool leader_required = params.leader_count > 0;
  for (const int32_t root : tree_.roots) {
    FillInCountsHelper(root, params.slice_size, params.slice_level, 0, &params.slice_size_at_level,
                       leader_required);
  }

  // Phase 2a: the level, and the domains on it, that fit the pod set.
  std::vector<int32_t> fit_domains;
  int32_t fit_level = 0;
  bool balanced = false;
  if (options_.balanced_placement && !params.required && !params.unconstrained) {
    auto [candidates, best_threshold] = FindBestDomainsForBalancedPlacement(params);
    balanced = best_threshold > 0;
    if (balanced) {
      std::string reason;
      fit_domains =
          ApplyBalancedPlacement(params, best_threshold, std::move(candidates), fit_level, reason);
      // On failure Kueue falls back to BestFit.
      if (!reason.empty()) balanced = false;
    }
  }
  if (!balanced) {
    LevelFit fit = FindLevelWithFitDomains(params.requested_level, params, stats);
    if (!fit.reason.empty()) return RunResult{std::nullopt, std::nullopt, std::move(fit.reason)};
    fit_level = fit.level;
    fit_domains = std::move(fit.domains);
  }

  // Phase 2b: descend level by level.
  fit_domains = UpdateCountsToMinimum(std::move(fit_domains), params.count, params.leader_count,
                                      params.slice_size, params.unconstrained, true);
  const auto last_level = static_cast<int32_t>(tree_.levels.size()) - 1;
  int32_t level = fit_level;
  // Above the slice level (not with balanced placement): greedily over all
  // the children of the chosen domains.
  for (; level < std::min(last_level, params.slice_level) && !balanced; ++level) {
    const std::vector<int32_t> sorted_lower =
        SortedDomains(LowerLevelDomains(fit_domains), params.unconstrained);
    fit_domains = UpdateCountsToMinimum(sorted_lower, params.count, params.leader_count,
                                        params.slice_size, params.unconstrained, true);
  }
  // At and below the slice level: each domain's count among its children.
  for (; level < last_level; ++level) {
    int32_t slice_size_on_level = params.slice_size;
    if (level >= params.slice_level) {
      // One pod at a time below the outermost slice level, unless an inner
      // slice layer sets a size for the next level.
      slice_size_on_level = 1;
      const auto next = static_cast<size_t>(level) + 1;
      if (next < params.slice_size_at_level.size() && params.slice_size_at_level[next] > 0) {
        slice_size_on_level = params.slice_size_at_level[next];
      }
    }
    std::vector<int32_t> next_domains;
    for (const int32_t d : fit_domains) {
      const std::vector<int32_t> sorted_lower = SortedDomains(ChildrenOf(d), params.unconstrained);
      if (slice_size_on_level > 1) {
        // The slice counts were computed for the outermost slice level.
        for (const int32_t c : sorted_lower) {
          DomainState& cs = St(c);
          cs.slice_count = cs.pod_count / slice_size_on_level;
          cs.slice_count_with_leader = cs.pod_count_with_leader / slice_size_on_level;
        }
      }
      const std::vector<int32_t> add =
          UpdateCountsToMinimum(sorted_lower, St(d).pod_count, St(d).leader_count,
                                slice_size_on_level, params.unconstrained, slice_size_on_level > 1);
      next_domains.insert(next_domains.end(), add.begin(), add.end());
    }
    fit_domains = std::move(next_domains);
  }

  RunResult result;
  if (params.leader_count > 0) {
    std::vector<int32_t> leader_domains;
    std::vector<int32_t> worker_domains;
    for (const int32_t d : fit_domains) {
      const int32_t leaders = St(d).leader_count;
      if (leaders > 0) {
        const int32_t copy = ShallowCloneWithState(d);
        St(copy).pod_count = leaders;
        leader_domains.push_back(copy);
      }
      if (St(d).pod_count > 0) worker_domains.push_back(d);
    }
    result.leader = BuildAssignment(std::move(leader_domains));
    fit_domains = std::move(worker_domains);
  }
  result.workers = BuildAssignment(std::move(fit_domains));
  return result;
}

}  // namespace kueuesim::topology::internal
