// Quota arithmetic over the cohort tree; see quota_tree.h and kueue
// pkg/cache/scheduler/resource_node.go, fair_sharing.go.
#include "kueuesim/quota/quota_tree.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kueuesim/base/status.h"

namespace kueuesim::quota {

double Drs::PreciseWeightedShare() const {
  if (IsZero()) return 0.0;
  if (fair_weight == 0) return std::numeric_limits<double>::infinity();
  return unweighted_ratio / fair_weight;
}

bool Drs::IsBorrowingOn(std::span<const FrAmount> requests) const {
  for (FrId fr : borrowed_frs) {
    for (const FrAmount& request : requests) {
      if (request.fr == fr && request.amount > 0) return true;
    }
  }
  return false;
}

int CompareDrs(const Drs& a, const Drs& b) {
  auto compare = [](double x, double y) { return x < y ? -1 : (x > y ? 1 : 0); };
  const bool a_zero = a.ZeroWeightBorrows();
  const bool b_zero = b.ZeroWeightBorrows();
  if (a_zero && b_zero) return compare(a.unweighted_ratio, b.unweighted_ratio);
  if (a_zero) return 1;
  if (b_zero) return -1;
  return compare(a.PreciseWeightedShare(), b.PreciseWeightedShare());
}

QuotaTree::QuotaTree(std::vector<ResourceId> fr_resource, std::vector<int32_t> resource_rank)
    : num_frs_(static_cast<int>(fr_resource.size())),
      fr_resource_(std::move(fr_resource)),
      resource_rank_(std::move(resource_rank)) {}

NodeId QuotaTree::AddNode(std::string name, bool is_cluster_queue) {
  NodeData data;
  data.name = std::move(name);
  data.is_cluster_queue = is_cluster_queue;
  nodes_.push_back(std::move(data));
  GrowStorage();
  ++quota_generation_;
  return static_cast<NodeId>(nodes_.size() - 1);
}

void QuotaTree::GrowStorage() {
  const size_t size = nodes_.size() * static_cast<size_t>(num_frs_);
  quotas_.resize(size);
  subtree_quota_.resize(size, 0);
  usage_.resize(size, 0);
}

void QuotaTree::SetParent(NodeId child, NodeId parent) {
  nodes_[static_cast<size_t>(child)].parent = parent;
  ++quota_generation_;
}

void QuotaTree::SetQuota(NodeId n, FrId fr, const FrQuota& quota) {
  quotas_[Index(n, fr)] = quota;
  ++quota_generation_;
  auto& own = nodes_[static_cast<size_t>(n)].own_frs;
  if (std::find(own.begin(), own.end(), fr) == own.end()) own.push_back(fr);
}

void QuotaTree::UpdateQuota(NodeId n, FrId fr, const FrQuota& quota) {
  SetQuota(n, fr, quota);
  ComputeSubtree(Root(n));
  RecomputeCohortUsage();
}

void QuotaTree::Finalize() {
  ++quota_generation_;
  for (auto& data : nodes_) {
    data.child_cqs.clear();
    data.child_cohorts.clear();
  }
  for (NodeId n = 0; n < num_nodes(); ++n) {
    NodeId p = parent(n);
    if (p == kNoNode) continue;
    auto& parent_data = nodes_[static_cast<size_t>(p)];
    (is_cluster_queue(n) ? parent_data.child_cqs : parent_data.child_cohorts).push_back(n);
  }
  for (NodeId n = 0; n < num_nodes(); ++n) {
    if (!has_parent(n)) ComputeSubtree(n);
  }
  RecomputeCohortUsage();
}

void QuotaTree::ComputeSubtree(NodeId n) {
  NodeData& data = nodes_[static_cast<size_t>(n)];
  std::vector<FrId> defined = data.own_frs;
  for (FrId fr = 0; fr < num_frs_; ++fr) subtree_quota_[Index(n, fr)] = quotas_[Index(n, fr)].nominal;
  int height = std::min<int>(static_cast<int>(data.child_cqs.size() + data.child_cohorts.size()), 1);
  if (data.is_cluster_queue) height = 0;
  // Copy the child lists: recursion may not reallocate nodes_, but keep the
  // reference use simple.
  std::vector<NodeId> children = data.child_cohorts;
  children.insert(children.end(), data.child_cqs.begin(), data.child_cqs.end());
  for (NodeId child : children) {
    ComputeSubtree(child);
    if (!is_cluster_queue(child)) height = std::max(height, nodes_[static_cast<size_t>(child)].height + 1);
    for (FrId fr : nodes_[static_cast<size_t>(child)].defined_frs) {
      Amount delta = SubAmounts(subtree_quota(child, fr), LocalQuota(child, fr));
      subtree_quota_[Index(n, fr)] = AddAmounts(subtree_quota_[Index(n, fr)], delta);
      defined.push_back(fr);
    }
  }
  std::sort(defined.begin(), defined.end());
  defined.erase(std::unique(defined.begin(), defined.end()), defined.end());
  NodeData& again = nodes_[static_cast<size_t>(n)];
  again.defined_frs = std::move(defined);
  again.height = height;
}

void QuotaTree::RecomputeCohortUsage() {
  for (NodeId n = 0; n < num_nodes(); ++n) {
    if (is_cluster_queue(n)) continue;
    for (FrId fr = 0; fr < num_frs_; ++fr) usage_[Index(n, fr)] = 0;
  }
  // Process children before parents: repeatedly push from leaves by depth.
  std::vector<std::pair<int, NodeId>> by_depth;
  for (NodeId n = 0; n < num_nodes(); ++n) {
    int depth = 0;
    for (NodeId p = parent(n); p != kNoNode; p = parent(p)) ++depth;
    by_depth.emplace_back(-depth, n);
  }
  std::sort(by_depth.begin(), by_depth.end());
  for (const auto& [neg_depth, n] : by_depth) {
    NodeId p = parent(n);
    if (p == kNoNode) continue;
    for (FrId fr = 0; fr < num_frs_; ++fr) {
      Amount over = std::max<Amount>(0, SubAmounts(usage(n, fr), LocalQuota(n, fr)));
      usage_[Index(p, fr)] = AddAmounts(usage_[Index(p, fr)], over);
    }
  }
}

NodeId QuotaTree::Root(NodeId n) const {
  while (has_parent(n)) n = parent(n);
  return n;
}

Amount QuotaTree::LocalQuota(NodeId n, FrId fr) const {
  Amount lending_limit = quota(n, fr).lending_limit;
  if (lending_limit == kNoLimit) return 0;
  return std::max<Amount>(0, SubAmounts(subtree_quota(n, fr), lending_limit));
}

Amount QuotaTree::LocalAvailable(NodeId n, FrId fr) const {
  return std::max<Amount>(0, SubAmounts(LocalQuota(n, fr), usage(n, fr)));
}

Amount QuotaTree::AvailableRaw(NodeId n, FrId fr) const {
  if (!has_parent(n)) return SubAmounts(subtree_quota(n, fr), usage(n, fr));
  Amount parent_available = AvailableRaw(parent(n), fr);
  Amount borrowing_limit = quota(n, fr).borrowing_limit;
  if (borrowing_limit != kNoLimit) {
    Amount local_quota = LocalQuota(n, fr);
    Amount stored_in_parent = SubAmounts(subtree_quota(n, fr), local_quota);
    Amount used_in_parent = std::max<Amount>(0, SubAmounts(usage(n, fr), local_quota));
    Amount with_max = AddAmounts(SubAmounts(stored_in_parent, used_in_parent), borrowing_limit);
    parent_available = std::min(with_max, parent_available);
  }
  return AddAmounts(LocalAvailable(n, fr), parent_available);
}

Amount QuotaTree::Available(NodeId n, FrId fr) const { return std::max<Amount>(0, AvailableRaw(n, fr)); }

Amount QuotaTree::PotentialAvailable(NodeId n, FrId fr) const {
  if (!has_parent(n)) return subtree_quota(n, fr);
  Amount available = AddAmounts(LocalQuota(n, fr), PotentialAvailable(parent(n), fr));
  Amount borrowing_limit = quota(n, fr).borrowing_limit;
  if (borrowing_limit != kNoLimit) {
    available = std::min(AddAmounts(subtree_quota(n, fr), borrowing_limit), available);
  }
  return available;
}

void QuotaTree::AddUsage(NodeId n, FrId fr, Amount value) {
  while (true) {
    Amount local_available = LocalAvailable(n, fr);
    Amount& slot = usage_[Index(n, fr)];
    slot = AddAmounts(slot, value);
    if (!has_parent(n) || value <= local_available) return;
    value = SubAmounts(value, local_available);
    n = parent(n);
  }
}

void QuotaTree::RemoveUsage(NodeId n, FrId fr, Amount value) {
  while (true) {
    Amount stored_in_parent = SubAmounts(usage(n, fr), LocalQuota(n, fr));
    Amount& slot = usage_[Index(n, fr)];
    slot = SubAmounts(slot, value);
    if (stored_in_parent <= 0 || !has_parent(n)) return;
    value = std::min(value, stored_in_parent);
    n = parent(n);
  }
}

void QuotaTree::AddUsage(NodeId n, std::span<const FrAmount> usage) {
  for (const FrAmount& u : usage) AddUsage(n, u.fr, u.amount);
}

void QuotaTree::RemoveUsage(NodeId n, std::span<const FrAmount> usage) {
  for (const FrAmount& u : usage) RemoveUsage(n, u.fr, u.amount);
}

bool QuotaTree::BorrowingWith(NodeId n, FrId fr, Amount value) const {
  Amount total = AddAmounts(usage(n, fr), value);
  Amount limit = is_cluster_queue(n) ? quota(n, fr).nominal : subtree_quota(n, fr);
  return limit < total;
}

bool QuotaTree::IsWithinNominal(NodeId n, std::span<const FrId> frs) const {
  for (FrId fr : frs) {
    if (subtree_quota(n, fr) < usage(n, fr)) return false;
  }
  return true;
}

bool QuotaTree::QuantitiesFitInQuota(NodeId n, std::span<const FrAmount> requests,
                                     FrAmountList* remaining) const {
  bool fits = true;
  FrAmountList out;
  out.reserve(requests.size());
  for (const FrAmount& request : requests) {
    if (subtree_quota(n, request.fr) < AddAmounts(usage(n, request.fr), request.amount)) fits = false;
    out.push_back({request.fr,
                   std::max<Amount>(0, SubAmounts(request.amount, LocalAvailable(n, request.fr)))});
  }
  if (remaining != nullptr) *remaining = std::move(out);
  return fits;
}

std::pair<int, bool> QuotaTree::FindHeightOfLowestSubtreeThatFits(NodeId cq, FrId fr,
                                                                  Amount value) const {
  if (!BorrowingWith(cq, fr, value) || !has_parent(cq)) return {0, has_parent(cq)};
  Amount remaining = SubAmounts(value, LocalAvailable(cq, fr));
  for (NodeId node = parent(cq); node != kNoNode; node = parent(node)) {
    if (!BorrowingWith(node, fr, remaining)) return {height(node), has_parent(node)};
    remaining = SubAmounts(remaining, LocalAvailable(node, fr));
  }
  return {height(Root(cq)), false};
}

Drs QuotaTree::DominantResourceShare(NodeId n, std::span<const FrAmount> extra) const {
  Drs drs;
  drs.fair_weight = fair_weight(n);
  if (!has_parent(n)) return drs;
  // Borrowed amount per resource, summed over flavors, over the node's
  // defined FRs.
  std::vector<std::pair<ResourceId, Amount>> borrowed;
  for (FrId fr : defined_frs(n)) {
    Amount request = 0;
    for (const FrAmount& e : extra) {
      if (e.fr == fr) request = AddAmounts(request, e.amount);
    }
    Amount amount = SubAmounts(AddAmounts(request, usage(n, fr)), subtree_quota(n, fr));
    if (amount <= 0) continue;
    ResourceId r = fr_resource(fr);
    auto it = std::find_if(borrowed.begin(), borrowed.end(), [r](const auto& b) { return b.first == r; });
    if (it == borrowed.end()) {
      borrowed.emplace_back(r, amount);
    } else {
      it->second = AddAmounts(it->second, amount);
    }
    drs.borrowed_frs.push_back(fr);
  }
  if (borrowed.empty()) return drs;
  drs.borrowing = true;
  // Lendable per resource: PotentialAvailable(parent) summed over the FRs
  // of the root.
  const NodeId p = parent(n);
  const NodeId root = Root(p);
  std::vector<std::pair<ResourceId, Amount>> lendable;
  for (FrId fr : defined_frs(root)) {
    ResourceId r = fr_resource(fr);
    Amount amount = PotentialAvailable(p, fr);
    auto it = std::find_if(lendable.begin(), lendable.end(), [r](const auto& l) { return l.first == r; });
    if (it == lendable.end()) {
      lendable.emplace_back(r, amount);
    } else {
      it->second = AddAmounts(it->second, amount);
    }
  }
  for (const auto& [resource, amount] : borrowed) {
    auto it = std::find_if(lendable.begin(), lendable.end(),
                           [r = resource](const auto& l) { return l.first == r; });
    if (it == lendable.end() || it->second <= 0) continue;
    double ratio = static_cast<double>(amount) * 1000.0 / static_cast<double>(it->second);
    if (ratio > drs.unweighted_ratio ||
        (ratio == drs.unweighted_ratio && drs.dominant_resource >= 0 &&
         resource_rank_[static_cast<size_t>(resource)] <
             resource_rank_[static_cast<size_t>(drs.dominant_resource)])) {
      drs.unweighted_ratio = ratio;
      drs.dominant_resource = resource;
    }
  }
  return drs;
}

}  // namespace kueuesim::quota
