// The quota tree: ClusterQueues as leaves, Cohorts as inner nodes, each
// carrying nominal quota, borrowing and lending limits per (flavor,
// resource), and the usage that flows up the tree.
//
// Mirrors kueue pkg/cache/scheduler/resource_node.go (quota arithmetic),
// fair_sharing.go (dominant resource share) and
// pkg/scheduler/preemption/classical/hierarchical_preemption.go
// (FindHeightOfLowestSubtreeThatFits). Amounts follow Kueue's saturating
// rules (kUnlimited is INT64_MAX). Storage is dense: one array of
// `num_flavor_resources` amounts per node, so every query is an index
// computation and a short walk to the root (cohort depth).
#ifndef KUEUESIM_QUOTA_QUOTA_TREE_H_
#define KUEUESIM_QUOTA_QUOTA_TREE_H_

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "kueuesim/base/quantity.h"

namespace kueuesim::quota {

using NodeId = int32_t;     // a ClusterQueue or a Cohort in the tree
using FrId = int32_t;       // an interned (flavor, resource) pair
using ResourceId = int32_t;
inline constexpr NodeId kNoNode = -1;
// Sentinel for an unset borrowing or lending limit.
inline constexpr Amount kNoLimit = std::numeric_limits<int64_t>::min();

struct FrQuota {
  Amount nominal = 0;
  Amount borrowing_limit = kNoLimit;
  Amount lending_limit = kNoLimit;
};

struct FrAmount {
  FrId fr = 0;
  Amount amount = 0;
  bool operator==(const FrAmount& other) const = default;
};

// Quota amounts by FR, as the admission path passes them around: a workload
// takes few (one per requested resource), so they are kept inline.
using FrAmountList = absl::InlinedVector<FrAmount, 4>;

// Dominant resource share (kueue DRS). Lower is preferred for admission,
// higher as a preemption target. Floating point, as in Kueue.
struct Drs {
  double fair_weight = 1.0;
  double unweighted_ratio = 0;
  ResourceId dominant_resource = -1;
  bool borrowing = false;
  std::vector<FrId> borrowed_frs;

  bool IsZero() const { return unweighted_ratio == 0; }
  bool ZeroWeightBorrows() const { return fair_weight == 0 && !IsZero(); }
  // unweighted / weight; 0 when zero; +inf for a zero weight.
  double PreciseWeightedShare() const;
  // Whether any FR with a positive request in `requests` is borrowed.
  bool IsBorrowingOn(std::span<const FrAmount> requests) const;
};

// CompareDRS: negative when a < b.
int CompareDrs(const Drs& a, const Drs& b);

class QuotaTree {
 public:
  // `fr_resource[fr]` is the resource of each FR; `resource_rank[r]` orders
  // resources by name (ties of the dominant resource go to the smaller name).
  QuotaTree(std::vector<ResourceId> fr_resource, std::vector<int32_t> resource_rank);

  // --- Building (before Finalize) ---
  NodeId AddNode(std::string name, bool is_cluster_queue);
  void SetParent(NodeId child, NodeId parent);
  void SetQuota(NodeId node, FrId fr, const FrQuota& quota);
  void SetFairWeight(NodeId node, double weight) {
    nodes_[static_cast<size_t>(node)].fair_weight = weight;
    ++quota_generation_;
  }
  // Computes subtree quotas, heights and child lists. REQUIRES: no cycles.
  void Finalize();

  // --- Structure ---
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  int num_frs() const { return num_frs_; }
  const std::string& name(NodeId n) const { return node(n).name; }
  bool is_cluster_queue(NodeId n) const { return node(n).is_cluster_queue; }
  NodeId parent(NodeId n) const { return node(n).parent; }
  bool has_parent(NodeId n) const { return node(n).parent != kNoNode; }
  NodeId Root(NodeId n) const;
  const std::vector<NodeId>& child_cluster_queues(NodeId n) const { return node(n).child_cqs; }
  const std::vector<NodeId>& child_cohorts(NodeId n) const { return node(n).child_cohorts; }
  // Height as Kueue's getNodeHeight: max(min(#children, 1), max child
  // cohort height + 1); 0 for a ClusterQueue.
  int height(NodeId n) const { return node(n).height; }
  double fair_weight(NodeId n) const { return node(n).fair_weight; }
  // FRs present in the node's SubtreeQuota map (own quotas and, for a
  // cohort, every FR of its subtree), sorted.
  const std::vector<FrId>& defined_frs(NodeId n) const { return node(n).defined_frs; }
  ResourceId fr_resource(FrId fr) const { return fr_resource_[static_cast<size_t>(fr)]; }

  // Changes with every change of structure, quota, limit or weight (not of
  // usage): what a reader derived from them holds while it is unchanged.
  uint64_t quota_generation() const { return quota_generation_; }

  // --- Quotas and usage ---
  const FrQuota& quota(NodeId n, FrId fr) const { return quotas_[Index(n, fr)]; }
  Amount subtree_quota(NodeId n, FrId fr) const { return subtree_quota_[Index(n, fr)]; }
  Amount usage(NodeId n, FrId fr) const { return usage_[Index(n, fr)]; }

  // Capacity kept private to the subtree: max(0, SubtreeQuota - lendingLimit)
  // when a lending limit is set, else 0.
  Amount LocalQuota(NodeId n, FrId fr) const;
  Amount LocalAvailable(NodeId n, FrId fr) const;
  // kueue available(): may be negative when over-admitted.
  Amount AvailableRaw(NodeId n, FrId fr) const;
  // ClusterQueueSnapshot.Available: max(0, available()).
  Amount Available(NodeId n, FrId fr) const;
  Amount PotentialAvailable(NodeId n, FrId fr) const;

  // Adds/removes usage at a node, propagating what overflows its local
  // quota to the parent (addUsage / removeUsage).
  void AddUsage(NodeId n, FrId fr, Amount value);
  void RemoveUsage(NodeId n, FrId fr, Amount value);
  void AddUsage(NodeId n, std::span<const FrAmount> usage);
  void RemoveUsage(NodeId n, std::span<const FrAmount> usage);

  // Nominal < Usage + value (a ClusterQueue); SubtreeQuota < Usage + value (a
  // cohort).
  bool BorrowingWith(NodeId n, FrId fr, Amount value) const;
  bool Borrowing(NodeId n, FrId fr) const { return BorrowingWith(n, fr, 0); }
  // SubtreeQuota >= Usage for every FR in `frs`.
  bool IsWithinNominal(NodeId n, std::span<const FrId> frs) const;
  // QuantitiesFitInQuota: whether SubtreeQuota >= Usage + request for every
  // FR, and the remaining requests max(0, request - LocalAvailable).
  bool QuantitiesFitInQuota(NodeId n, std::span<const FrAmount> requests,
                            FrAmountList* remaining) const;
  // FindHeightOfLowestSubtreeThatFits for a ClusterQueue: the borrowing
  // level and whether reclaim in the hierarchy may be possible.
  std::pair<int, bool> FindHeightOfLowestSubtreeThatFits(NodeId cq, FrId fr, Amount value) const;

  // Dominant resource share of `n` (0 for a root), with `extra` usage
  // counted on `n` itself (dominantResourceShare's wlReq).
  Drs DominantResourceShare(NodeId n, std::span<const FrAmount> extra = {}) const;

  // Replaces a quota after Finalize (a change over time): subtree quotas
  // and the cohorts' usage are recomputed for the new limits.
  void UpdateQuota(NodeId n, FrId fr, const FrQuota& quota);

  // Recomputes every cohort's usage from the ClusterQueues' usage (used
  // after bulk changes; the incremental Add/RemoveUsage keep it equal).
  void RecomputeCohortUsage();

 private:
  struct NodeData {
    std::string name;
    bool is_cluster_queue = false;
    NodeId parent = kNoNode;
    std::vector<NodeId> child_cqs;
    std::vector<NodeId> child_cohorts;
    int height = 0;
    double fair_weight = 1.0;
    std::vector<FrId> own_frs;
    std::vector<FrId> defined_frs;
  };

  const NodeData& node(NodeId n) const { return nodes_[static_cast<size_t>(n)]; }
  size_t Index(NodeId n, FrId fr) const {
    return static_cast<size_t>(n) * static_cast<size_t>(num_frs_) + static_cast<size_t>(fr);
  }
  void GrowStorage();
  void ComputeSubtree(NodeId n);

  int num_frs_ = 0;
  std::vector<ResourceId> fr_resource_;
  std::vector<int32_t> resource_rank_;
  std::vector<NodeData> nodes_;
  std::vector<FrQuota> quotas_;
  std::vector<Amount> subtree_quota_;
  std::vector<Amount> usage_;
  uint64_t quota_generation_ = 1;
};

}  // namespace kueuesim::quota

#endif  // KUEUESIM_QUOTA_QUOTA_TREE_H_
