// Balanced placement (TASBalancedPlacement, alpha), for `preferred` requests
// (kueue pkg/cache/scheduler/tas_balanced_placement.go). It works on copies of
// the candidate subtrees so that a failed attempt leaves the state of the
// tree intact for the BestFit fallback.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "topology/tas_internal.h"

namespace kueuesim::topology::internal {

Placement::GreedyEval Placement::EvaluateGreedyAssignment(std::span<const int32_t> domains,
                                                          int32_t slice_count,
                                                          int32_t leader_count) const {
  // Simulates the greedy BestFit placement of (leader_count, slice_count):
  // whether it fits, how many domains it uses and the last domain used with
  // and without a leader.
  GreedyEval eval;
  int32_t remaining_slices = slice_count;
  int32_t remaining_leaders = leader_count;
  std::vector<int32_t> without_leader;
  if (leader_count > 0) {
    const std::vector<int32_t> with_leader = SortedDomainsWithLeader(domains, false);
    size_t idx = 0;
    for (;
         remaining_leaders > 0 && idx < with_leader.size() && St(with_leader[idx]).leader_count > 0;
         ++idx) {
      ++eval.selected;
      eval.last_with_leader = with_leader[idx];
      remaining_leaders -= St(with_leader[idx]).leader_count;
      remaining_slices -= St(with_leader[idx]).slice_count_with_leader;
    }
    without_leader = SortedDomains(std::span(with_leader).subspan(idx), false);
  } else {
    without_leader = SortedDomains(domains, false);
  }
  if (remaining_leaders > 0) return GreedyEval{};
  for (size_t idx = 0; remaining_slices > 0 && idx < without_leader.size() &&
                       St(without_leader[idx]).slice_count > 0;
       ++idx) {
    ++eval.selected;
    eval.last = without_leader[idx];
    remaining_slices -= St(without_leader[idx]).slice_count;
  }
  if (remaining_slices > 0) return GreedyEval{};
  eval.fits = true;
  return eval;
}

int32_t Placement::BalanceThresholdValue(int32_t slice_count, const GreedyEval& eval) const {
  // The largest achievable minimum number of slices per domain. (Kueue
  // divides by zero, and panics, when nothing is selected: only possible for
  // zero slices and no leader; treated here as "no balanced placement".)
  if (eval.selected == 0) return 0;
  int32_t threshold = slice_count / eval.selected;
  if (eval.last_with_leader >= 0) {
    threshold = std::min(threshold, St(eval.last_with_leader).slice_count_with_leader);
  }
  if (eval.last >= 0) threshold = std::min(threshold, St(eval.last).slice_count);
  return threshold;
}

double Placement::DomainsEntropy(const std::vector<int32_t>& domains) const {
  if (domains.empty()) return 0.0;
  // Summed over the pod counts in ascending order, so that equal multisets of
  // counts give bit-identical entropies (Go sums in the children's map order).
  std::vector<int32_t> counts;
  counts.reserve(domains.size());
  int32_t total = 0;
  for (const int32_t d : domains) {
    counts.push_back(St(d).pod_count);
    total = WrapAdd(total, St(d).pod_count);
  }
  if (total == 0) return 0.0;
  std::sort(counts.begin(), counts.end());
  double entropy = 0.0;
  const auto total_f = static_cast<double>(total);
  for (const int32_t c : counts) {
    if (c > 0) {
      const double p = static_cast<double>(c) / total_f;
      entropy += -p * std::log2(p);
    }
  }
  return entropy;
}

int Placement::CompareCapacityAndEntropy(int32_t a, int32_t b) const {
  if (St(a).leader_count != St(b).leader_count) {
    return St(b).leader_count > St(a).leader_count ? 1 : -1;
  }
  if (St(a).slice_count_with_leader != St(b).slice_count_with_leader) {
    return St(b).slice_count_with_leader > St(a).slice_count_with_leader ? 1 : -1;
  }
  const double a_entropy = DomainsEntropy(ChildrenOf(a));
  const double b_entropy = DomainsEntropy(ChildrenOf(b));
  if (b_entropy > a_entropy) return 1;
  if (b_entropy < a_entropy) return -1;
  const int32_t ra = LexRank(a);
  const int32_t rb = LexRank(b);
  return ra < rb ? -1 : (ra > rb ? 1 : 0);
}

std::optional<std::vector<int32_t>> Placement::SelectOptimalDomainSetToFit(
    std::span<const int32_t> domains, int32_t slice_count, int32_t leader_count, int32_t slice_size,
    bool prioritize_by_entropy) const {
  // The subset with as many domains as the greedy assignment uses that fits
  // the leaders and pods with the least overshoot (a 0/1 knapsack over
  // (leaders left, pods left), first combination found kept).
  const GreedyEval eval = EvaluateGreedyAssignment(domains, slice_count, leader_count);
  if (!eval.fits) return std::nullopt;
  const auto optimal = static_cast<size_t>(eval.selected);

  std::vector<int32_t> ordered(domains.begin(), domains.end());
  if (prioritize_by_entropy) {
    std::sort(ordered.begin(), ordered.end(),
              [&](int32_t a, int32_t b) { return CompareCapacityAndEntropy(a, b) < 0; });
  } else {
    std::sort(ordered.begin(), ordered.end(),
              [&](int32_t a, int32_t b) { return LexRank(a) < LexRank(b); });
  }

  // placements[i][leaders left][pods left]: a set of i domains. std::map
  // iterates in key order, as Kueue's slices.Sorted(maps.Keys(...)).
  using ByPods = std::map<int32_t, std::vector<int32_t>>;
  std::vector<std::map<int32_t, ByPods>> placements(optimal + 1);
  placements[0][leader_count][WrapMul(slice_count, slice_size)] = {};

  for (const int32_t d : ordered) {
    const DomainState& ds = St(d);
    for (size_t i = optimal; i > 0; --i) {
      for (const auto& [before_leader, by_pods] : placements[i - 1]) {
        for (const auto& [before_pods, before] : by_pods) {
          if (before_leader <= 0 && before_pods <= 0) continue;
          std::vector<int32_t> next = before;
          next.push_back(d);
          // With the leader in this domain.
          if (before_leader > 0 && ds.leader_count > 0) {
            const int32_t after_leader = before_leader - ds.leader_count;
            const int32_t after_pods = WrapSub(before_pods, ds.pod_count_with_leader);
            placements[i][after_leader].try_emplace(after_pods, next);
          }
          // Without the leader.
          if (ds.slice_count > 0) {
            const int32_t after_pods = WrapSub(before_pods, ds.pod_count);
            placements[i][before_leader].try_emplace(after_pods, next);
          }
        }
      }
    }
  }

  std::optional<std::vector<int32_t>> best;
  const auto it = placements[optimal].find(0);
  if (it == placements[optimal].end()) return best;
  int32_t best_left = std::numeric_limits<int32_t>::min();
  for (const auto& [left, placement] : it->second) {
    if (left > best_left && left <= 0) {
      best_left = left;
      best = placement;
    }
  }
  return best;
}

std::optional<std::vector<int32_t>> Placement::PlaceSlicesOnDomainsBalanced(
    std::span<const int32_t> domains, int32_t slice_count, int32_t leader_count, int32_t slice_size,
    int32_t threshold, std::string& reason) {
  std::optional<std::vector<int32_t>> selected =
      SelectOptimalDomainSetToFit(domains, slice_count, leader_count, slice_size, false);
  if (!selected.has_value()) {
    reason = "TAS Balanced Placement: Cannot find optimal domain set to fit the request";
    return std::nullopt;
  }
  const auto n = static_cast<int32_t>(selected->size());
  if (slice_count < WrapMul(n, threshold)) {
    reason = "TAS Balanced Placement: Not enough slices to meet the threshold";
    return std::nullopt;
  }
  std::vector<int32_t> result = SortedDomainsWithLeader(*selected, false);
  int32_t extra_left = slice_count - n * threshold;
  int32_t leaders_left = leader_count;
  for (const int32_t d : result) {
    DomainState& st = St(d);
    int32_t take = 0;
    if (leaders_left > 0) {
      take = std::min(st.slice_count_with_leader - threshold, extra_left);
      st.leader_count = 1;
      --leaders_left;
    } else if (extra_left > 0) {
      take = std::min(st.slice_count - threshold, extra_left);
      st.leader_count = 0;
    } else {
      st.leader_count = 0;
      take = 0;
    }
    st.pod_count = WrapMul(threshold + take, slice_size);
    st.slice_count = threshold + take;
    st.slice_count_with_leader = st.slice_count;
    st.pod_count_with_leader = st.pod_count - st.leader_count;
    extra_left -= take;
  }
  if (extra_left > 0 || leaders_left > 0) {
    reason = "TAS Balanced Placement: Not all slices or leaders could be placed";
    return std::nullopt;
  }
  return result;
}

void Placement::ClearState(int32_t h) {
  DomainState& st = St(h);
  const int64_t affinity_score = st.affinity_score;
  st = DomainState{};
  st.affinity_score = affinity_score;
  const std::vector<int32_t> children = ChildrenOf(h);
  for (const int32_t c : children) ClearState(c);
}

void Placement::ClearLeaderCapacity(int32_t h) {
  DomainState& st = St(h);
  st.pod_count_with_leader = 0;
  st.slice_count_with_leader = 0;
  st.leader_count = 0;
  const std::vector<int32_t> children = ChildrenOf(h);
  for (const int32_t c : children) ClearLeaderCapacity(c);
}

void Placement::PruneDomainNodeBelowThreshold(int32_t h, int32_t threshold, bool leader_required) {
  const DomainState& st = St(h);
  if (st.slice_count < threshold) {
    ClearState(h);
    return;
  }
  // Still usable for workers, but not as the leader's host at this threshold.
  if (leader_required && st.leader_count > 0 && st.slice_count_with_leader < threshold) {
    ClearLeaderCapacity(h);
  }
}

void Placement::PruneDomainsBelowThreshold(std::span<const int32_t> domains, int32_t threshold,
                                           int32_t slice_size, int32_t slice_level, int32_t level,
                                           bool leader_required) {
  for (const int32_t d : domains) {
    const std::vector<int32_t> children = ChildrenOf(d);
    for (const int32_t c : children) PruneDomainNodeBelowThreshold(c, threshold, leader_required);
  }
  for (const int32_t d : domains) {
    // Kueue recomputes without the inner slice layers here.
    FillInCountsHelper(d, slice_size, slice_level, level, nullptr, leader_required);
    PruneDomainNodeBelowThreshold(d, threshold, leader_required);
  }
}

std::pair<std::vector<int32_t>, int32_t> Placement::FindBestDomainsForBalancedPlacement(
    const PlacementParams& params) {
  // Balanced placement is possible when one domain a level above the
  // requested level fits the request: for each such domain compute the
  // balance threshold of its children, and keep the best.
  const int32_t slice_count = params.count / params.slice_size;
  std::vector<std::vector<int32_t>> groups;
  if (params.requested_level == 0) {
    groups.push_back(tree_.per_level[0]);
  } else {
    for (const int32_t higher : tree_.per_level[static_cast<size_t>(params.requested_level) - 1]) {
      groups.push_back(ChildrenOf(higher));
    }
  }

  int32_t best_threshold = 0;
  int32_t best_domain_count = 0;
  std::vector<int32_t> best_domains;
  const bool leader_required = params.leader_count > 0;
  for (const std::vector<int32_t>& siblings : groups) {
    std::vector<int32_t> candidates = CloneDomains(siblings);
    const std::vector<int32_t> lower =
        params.requested_level < params.slice_level ? LowerLevelDomains(candidates) : candidates;
    const GreedyEval eval = EvaluateGreedyAssignment(lower, slice_count, params.leader_count);
    if (!eval.fits) continue;
    int32_t threshold = BalanceThresholdValue(slice_count, eval);
    int32_t threshold_with_leader_reservation = threshold;
    if (params.leader_count > 0 && eval.last >= 0) {
      threshold_with_leader_reservation =
          std::min(threshold, St(eval.last).slice_count_with_leader);
    }
    if (threshold < best_threshold) continue;
    PruneDomainsBelowThreshold(candidates, threshold, params.slice_size, params.slice_level,
                               params.requested_level, leader_required);
    GreedyEval after = EvaluateGreedyAssignment(candidates, slice_count, params.leader_count);
    if (!after.fits && threshold_with_leader_reservation < threshold) {
      // Retry with a lower threshold that keeps room for the leader.
      if (threshold_with_leader_reservation <= 0 ||
          threshold_with_leader_reservation < best_threshold) {
        continue;
      }
      threshold = threshold_with_leader_reservation;
      candidates = CloneDomains(siblings);
      PruneDomainsBelowThreshold(candidates, threshold, params.slice_size, params.slice_level,
                                 params.requested_level, leader_required);
      after = EvaluateGreedyAssignment(candidates, slice_count, params.leader_count);
    }
    if (!after.fits) continue;
    if (threshold > best_threshold ||
        (threshold == best_threshold && after.selected < best_domain_count)) {
      best_threshold = threshold;
      best_domain_count = after.selected;
      best_domains = candidates;
    }
  }
  return {std::move(best_domains), best_threshold};
}

std::vector<int32_t> Placement::ApplyBalancedPlacement(const PlacementParams& params,
                                                       int32_t best_threshold,
                                                       std::vector<int32_t> fit_domains,
                                                       int32_t& fit_level, std::string& reason) {
  const int32_t slice_count = params.count / params.slice_size;
  if (params.requested_level < params.slice_level) {
    const std::optional<std::vector<int32_t>> chosen = SelectOptimalDomainSetToFit(
        fit_domains, slice_count, params.leader_count, params.slice_size, true);
    if (!chosen.has_value()) {
      reason = "TAS Balanced Placement: Cannot find optimal domain set to fit the request";
      return {};
    }
    fit_domains = LowerLevelDomains(*chosen);
    fit_level = params.requested_level + 1;
  } else {
    fit_level = params.requested_level;
  }
  std::optional<std::vector<int32_t>> placed = PlaceSlicesOnDomainsBalanced(
      fit_domains, slice_count, params.leader_count, params.slice_size, best_threshold, reason);
  if (!placed.has_value()) return {};
  return std::move(*placed);
}

}  // namespace kueuesim::topology::internal
