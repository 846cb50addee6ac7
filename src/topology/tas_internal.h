// Internals of topology-aware scheduling (TAS): the static tree of topology
// domains (kueue tas_topology_tree.go) and one run of Kueue's placement
// algorithm over it (tas_flavor_snapshot.go findTopologyAssignment and
// tas_balanced_placement.go). Private to src/topology and its tests.
//
// A domain is addressed by a handle: handles below the tree's domain count
// are the tree's domains; larger handles are copies made during one run
// (Kueue's shallowCloneWithState / cloneDomain), each with its own state.
#ifndef KUEUESIM_SRC_TOPOLOGY_TAS_INTERNAL_H_
#define KUEUESIM_SRC_TOPOLOGY_TAS_INTERNAL_H_

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kueuesim/base/quantity.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/topology/tas_flavor_snapshot.h"

namespace kueuesim::topology::internal {

inline constexpr int32_t kMaxInt32 = std::numeric_limits<int32_t>::max();
inline constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";

// Go's int32 arithmetic wraps around; so does this (without C++'s UB).
inline int32_t WrapAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t WrapSub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
inline int32_t WrapMul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// Kueue's utiltas.DomainID: the values joined with ",".
std::string JoinDomainId(std::span<const std::string> values);

// slices.CompareFunc(a, b, strings.Compare): lexicographic, bytewise.
int CompareLevelValues(std::span<const std::string> a, std::span<const std::string> b);

// Go's %q for the plain strings used in messages.
std::string GoQuote(std::string_view s);

// --- The static tree (tas_topology_tree.go) ---

struct TreeDomain {
  int32_t parent = -1;
  // Children sorted by level values (Go appends them in map order; every use
  // is order-insensitive or sorts them first, so any fixed order will do).
  std::vector<int32_t> children;
  int32_t level = 0;
  int32_t leaf = -1;                // leaf index, or -1 above the lowest level
  int32_t lex_rank = 0;             // rank of `values` among all domains, lexicographic
  std::vector<std::string> values;  // level values from the top down
  std::string id;                   // DomainID(values); only the hostname for hostname leaves
};

struct Tree {
  std::vector<std::string> levels;
  bool lowest_is_hostname = false;
  std::vector<TreeDomain> domains;
  std::vector<int32_t> lex_ranks;  // = domains[i].lex_rank, flat for the sorts
  // Domain indices per level, sorted by level values.
  std::vector<std::vector<int32_t>> per_level;
  std::vector<int32_t> roots;        // = per_level[0] (empty without levels)
  std::vector<int32_t> leaf_domain;  // leaf -> domain
  // leaf -> the node it stands for (hostname-lowest trees; the first node
  // with that hostname), else -1: other trees do not filter nodes.
  std::vector<int32_t> leaf_node;
  std::vector<NodeSpec> nodes;  // the nodes kept
  std::unordered_map<std::string, int32_t> leaf_by_id;
  std::unordered_map<std::string, int32_t> leaf_by_node_name;
  // Resource ids below num_resources are stored densely; an id at or above
  // it is absent from every node's allocatable.
  int32_t num_resources = 0;
  std::vector<Amount> capacity;  // [leaf * num_resources + resource]

  // Builds the tree from the schedulable nodes that carry every level label
  // (newTopologyTree).
  static Tree Build(std::vector<std::string> levels, std::vector<NodeSpec> nodes,
                    ResourceId pods_resource);
  // Derives lex_rank, per_level, roots and the children's order from
  // `levels` and each domain's parent, level and values (Build calls it;
  // tests building synthetic trees do too).
  void Finalize();

  int32_t LevelIndex(std::string_view key) const;  // -1 when not a level
  int32_t num_leaves() const { return static_cast<int32_t>(leaf_domain.size()); }
  int32_t num_domains() const { return static_cast<int32_t>(domains.size()); }
};

// --- One run of the algorithm ---

// Kueue's domainState.
struct DomainState {
  int32_t pod_count = 0;
  int32_t slice_count = 0;
  int32_t pod_count_with_leader = 0;
  int32_t slice_count_with_leader = 0;
  int32_t leader_count = 0;
  int64_t affinity_score = 0;
};

// The sort orders (sortedDomains / sortedDomainsWithLeader), as three-way
// comparisons; `rank_*` are the domains' lexicographic ranks.
int CompareSortedDomains(const DomainState& a, int32_t rank_a, const DomainState& b, int32_t rank_b,
                         bool least_free_capacity, bool respect_affinity);
int CompareSortedDomainsWithLeader(const DomainState& a, int32_t rank_a, const DomainState& b,
                                   int32_t rank_b, bool least_free_capacity, bool respect_affinity);

// Kueue's tasExclusionStats (why nodes could not take a pod).
struct ExclusionStats {
  int32_t total_nodes = 0;
  int32_t node_selector = 0;
  int32_t affinity = 0;
  int32_t topology_domain = 0;
  std::map<std::string, int32_t> taints;     // by Taint.ToString()
  std::map<std::string, int32_t> resources;  // by resource name

  bool HasExclusions() const;
  // "nodeSelector: 2, resource \"cpu\": 1, ..." (sorted).
  std::string FormatReasons() const;
};

// Kueue's topologyAssignmentParameters.
struct PlacementParams {
  // Slice size per level for the inner slice layers (0: none).
  std::vector<int32_t> slice_size_at_level;
  int32_t slice_size = 1;
  int32_t count = 0;
  int32_t leader_count = 0;
  int32_t requested_level = 0;
  int32_t slice_level = 0;
  bool required = false;
  bool unconstrained = false;
  // All slice layers when there are inner ones (for the failure message).
  std::vector<model::SliceLayer> multi_layer_constraints;
};

struct RunResult {
  std::optional<model::TopologyAssignment> workers;
  std::optional<model::TopologyAssignment> leader;
  std::string reason;  // non-empty: failed
};

class Placement {
 public:
  Placement(const Tree& tree, const TasOptions& options, std::string_view topology_name);

  // Phase 1 input: the counts of a leaf (fillLeafCounts) and its affinity
  // score. Leaves not set keep zero counts.
  void SetLeaf(int32_t leaf, int32_t pod_count, int32_t leader_count, int32_t pod_count_with_leader,
               int64_t affinity_score);
  // Phases 1 (roll-up) and 2: the assignment of the workers, and of the
  // leader when params.leader_count > 0.
  RunResult Run(const PlacementParams& params, const ExclusionStats& stats);

  // --- building blocks, public for tests ---
  DomainState& St(int32_t h) { return states_[static_cast<size_t>(h)]; }
  const DomainState& St(int32_t h) const { return states_[static_cast<size_t>(h)]; }
  int32_t Base(int32_t h) const;
  int32_t ParentOf(int32_t h) const;
  const std::vector<int32_t>& ChildrenOf(int32_t h) const;
  int32_t LexRank(int32_t h) const { return ranks_[static_cast<size_t>(h)]; }
  bool UseLeastFreeCapacity(bool unconstrained) const;
  bool UseBestFit(bool unconstrained) const { return !UseLeastFreeCapacity(unconstrained); }

  std::vector<int32_t> SortedDomains(std::span<const int32_t> domains, bool unconstrained) const;
  std::vector<int32_t> SortedDomainsWithLeader(std::span<const int32_t> domains,
                                               bool unconstrained) const;
  int32_t FindBestFitDomain(std::span<const int32_t> domains, int32_t count,
                            int32_t leader_count) const;
  int32_t FindBestFitDomainForSlices(std::span<const int32_t> domains, int32_t slice_count,
                                     int32_t leader_count) const;
  void FillInCountsHelper(int32_t h, int32_t slice_size, int32_t slice_level, int32_t level,
                          const std::vector<int32_t>* slice_size_at_level, bool leader_required);
  std::vector<int32_t> UpdateCountsToMinimum(std::vector<int32_t> domains, int32_t count,
                                             int32_t leader_count, int32_t slice_size,
                                             bool unconstrained, bool slices);
  model::TopologyAssignment BuildAssignment(std::vector<int32_t> domains) const;

  // --- internals (public for tests) ---
  struct Clone {
    int32_t base = -1;
    int32_t parent = -1;
    std::vector<int32_t> children;
  };
  struct LevelFit {
    int32_t level = 0;
    std::vector<int32_t> domains;
    std::string reason;
  };

  int32_t ShallowCloneWithState(int32_t h);
  int32_t CloneDomain(int32_t h, int32_t parent);
  std::vector<int32_t> CloneDomains(std::span<const int32_t> domains);
  std::vector<int32_t> LowerLevelDomains(std::span<const int32_t> domains) const;
  std::span<const int32_t> TopAffinityTierDomains(std::span<const int32_t> candidates) const;
  template <typename CountFn>
  int32_t FindBestFitDomainBy(std::span<const int32_t> domains, int32_t needed, CountFn count_for,
                              int32_t leader_count) const;
  std::vector<int32_t> PrioritizeLeaderDomain(std::vector<int32_t> domains, int32_t count,
                                              int32_t leader_count, int32_t slice_size,
                                              bool slices_enabled) const;
  std::pair<int32_t, bool> ConsumeWithLeaders(int32_t h, std::span<const int32_t> remaining,
                                              int32_t& remaining_primary,
                                              int32_t& remaining_leaders, bool unconstrained,
                                              int32_t slice_size, bool slices);
  LevelFit FindLevelWithFitDomains(int32_t level, const PlacementParams& params,
                                   const ExclusionStats& stats) const;
  std::string NotFitMessage(int32_t fit, int32_t total, int32_t slice_size,
                            const ExclusionStats& stats) const;
  std::string MultiLayerNotFitMessage(int32_t level, int32_t count,
                                      const std::vector<model::SliceLayer>& constraints,
                                      const ExclusionStats& stats) const;
  int32_t CountSlicesInSubtree(int32_t h, int32_t current, int32_t target,
                               int32_t slice_size) const;

  // Balanced placement (balanced_placement.cc).
  struct GreedyEval {
    bool fits = false;
    int32_t selected = 0;
    int32_t last_with_leader = -1;
    int32_t last = -1;
  };
  GreedyEval EvaluateGreedyAssignment(std::span<const int32_t> domains, int32_t slice_count,
                                      int32_t leader_count) const;
  int32_t BalanceThresholdValue(int32_t slice_count, const GreedyEval& eval) const;
  std::optional<std::vector<int32_t>> SelectOptimalDomainSetToFit(std::span<const int32_t> domains,
                                                                  int32_t slice_count,
                                                                  int32_t leader_count,
                                                                  int32_t slice_size,
                                                                  bool prioritize_by_entropy) const;
  std::optional<std::vector<int32_t>> PlaceSlicesOnDomainsBalanced(
      std::span<const int32_t> domains, int32_t slice_count, int32_t leader_count,
      int32_t slice_size, int32_t threshold, std::string& reason);
  double DomainsEntropy(const std::vector<int32_t>& domains) const;
  int CompareCapacityAndEntropy(int32_t a, int32_t b) const;
  std::pair<std::vector<int32_t>, int32_t> FindBestDomainsForBalancedPlacement(
      const PlacementParams& params);
  std::vector<int32_t> ApplyBalancedPlacement(const PlacementParams& params, int32_t best_threshold,
                                              std::vector<int32_t> fit_domains, int32_t& fit_level,
                                              std::string& reason);
  void ClearState(int32_t h);
  void ClearLeaderCapacity(int32_t h);
  void PruneDomainNodeBelowThreshold(int32_t h, int32_t threshold, bool leader_required);
  void PruneDomainsBelowThreshold(std::span<const int32_t> domains, int32_t threshold,
                                  int32_t slice_size, int32_t slice_level, int32_t level,
                                  bool leader_required);

 private:
  const Tree& tree_;
  TasOptions options_;
  std::string topology_name_;
  std::vector<DomainState> states_;
  std::vector<int32_t> ranks_;  // lexicographic rank per handle
  std::vector<Clone> clones_;
};

}  // namespace kueuesim::topology::internal

#endif  // KUEUESIM_SRC_TOPOLOGY_TAS_INTERNAL_H_
