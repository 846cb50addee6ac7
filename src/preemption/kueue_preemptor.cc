// Kueue's preemptor: classical and fair-sharing target selection.
// Translated from kueue pkg/scheduler/preemption/preemption.go,
// classical/{candidate_generator,hierarchical_preemption}.go,
// common/{ordering,preemption_policy}.go and fairsharing/*.go.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "absl/container/inlined_vector.h"
#include "kueuesim/base/status.h"
#include "kueuesim/policy/preemption.h"

namespace kueuesim::policy {
namespace {

using cluster::ClusterState;
using cluster::CqId;
using cluster::FrAmount;
using cluster::FrId;
using cluster::kNone;
using cluster::NodeId;
using cluster::SchedulingSnapshot;
using cluster::WorkloadId;
using QueuePolicy = model::PreemptionPolicy;
using quota::Drs;

// Candidate ordering (common.CandidatesOrdering), with namespace/name as
// the final tie-break so the order is total.
struct CandidateOrder {
  const SchedulingSnapshot* snapshot;
  CqId preemptor_cq;

  bool operator()(WorkloadId a, WorkloadId b) const {
    const auto& state = snapshot->state();
    const auto& wa = state.workload(a);
    const auto& wb = state.workload(b);
    if (wa.evicted != wb.evicted) return wa.evicted;
    const bool a_same = snapshot->HoldingCq(a) == preemptor_cq;
    const bool b_same = snapshot->HoldingCq(b) == preemptor_cq;
    if (a_same != b_same) return !a_same;
    // Admission fair sharing: within one ClusterQueue, the LocalQueue that
    // used more goes first.
    if (snapshot->admission_fair_sharing_enabled() && snapshot->HoldingCq(a) == snapshot->HoldingCq(b) &&
        wa.lq != wb.lq) {
      std::optional<double> ua = snapshot->LocalQueueFsUsage(a);
      std::optional<double> ub = snapshot->LocalQueueFsUsage(b);
      if (ua.has_value() && ub.has_value() && *ua != *ub) return *ua > *ub;
    }
    if (wa.priority != wb.priority) return wa.priority < wb.priority;
    UnixMicros ta = snapshot->QuotaReservationTime(a);
    UnixMicros tb = snapshot->QuotaReservationTime(b);
    if (ta != tb) return ta > tb;
    const std::string& ua = wa.spec->meta.uid();
    const std::string& ub = wb.spec->meta.uid();
    if (ua != ub) return ua < ub;
    return wa.key < wb.key;
  }
};

// common.SatisfiesPreemptionPolicy.
bool SatisfiesPolicy(const SchedulingSnapshot& snapshot, WorkloadId preemptor, WorkloadId candidate,
                     QueuePolicy policy) {
  const int32_t p = snapshot.Priority(preemptor);
  const int32_t c = snapshot.Priority(candidate);
  const bool lower = p > c;
  switch (policy) {
    case QueuePolicy::kLowerPriority:
      return lower;
    case QueuePolicy::kLowerOrNewerEqualPriority:
      return lower || (p == c && snapshot.QueueOrderTimestamp(preemptor) <
                                     snapshot.QueueOrderTimestamp(candidate));
    case QueuePolicy::kAny:
      return true;
    case QueuePolicy::kNever:
      return false;
  }
  return false;
}

enum class Variant { kNever, kWithinCq, kHierarchicalReclaim, kReclaimWithoutBorrowing, kReclaimWhileBorrowing };

PreemptionReason ReasonOf(Variant variant) {
  switch (variant) {
    case Variant::kWithinCq:
      return PreemptionReason::kInClusterQueue;
    case Variant::kReclaimWhileBorrowing:
      return PreemptionReason::kInCohortReclaimWhileBorrowing;
    default:
      return PreemptionReason::kInCohortReclamation;
  }
}

struct Candidate {
  WorkloadId workload = kNone;
  NodeId lca = quota::kNoNode;
  Variant variant = Variant::kNever;
};

// The preemption context (preemptionCtx).
struct Context {
  SchedulingSnapshot* snapshot;
  const ClusterState* state;
  WorkloadId preemptor;
  CqId cq;
  NodeId node;
  cluster::FrAmountList usage;
  absl::InlinedVector<FrId, 4> frs;
  const std::function<bool()>* topology_fits;
};

bool BorrowWithinCohortForbidden(const model::ClusterQueue& spec, std::optional<int32_t>* threshold) {
  const auto& bwc = spec.preemption.borrow_within_cohort;
  if (!bwc.has_value() || bwc->policy == model::BorrowWithinCohortPolicy::kNever) return true;
  *threshold = bwc->max_priority_threshold;
  return false;
}

// workloadFits.
bool WorkloadFits(const Context& ctx, bool allow_borrowing) {
  const quota::QuotaTree& tree = ctx.state->tree();
  for (const FrAmount& u : ctx.usage) {
    if (!allow_borrowing && tree.BorrowingWith(ctx.node, u.fr, u.amount)) return false;
    if (u.amount > tree.Available(ctx.node, u.fr)) return false;
  }
  if (ctx.topology_fits != nullptr && *ctx.topology_fits && !(*ctx.topology_fits)()) return false;
  return true;
}

// fillBackWorkloads: drops targets (from the second-to-last down) whose
// removal turns out not to be needed.
void FillBack(Context& ctx, std::vector<PreemptionTarget>* targets, bool allow_borrowing) {
  for (int64_t i = static_cast<int64_t>(targets->size()) - 2; i >= 0; --i) {
    const size_t index = static_cast<size_t>(i);
    ctx.snapshot->AddWorkload((*targets)[index].workload);
    if (WorkloadFits(ctx, allow_borrowing)) {
      (*targets)[index] = targets->back();
      targets->pop_back();
    } else {
      ctx.snapshot->RemoveWorkload((*targets)[index].workload);
    }
  }
}

void Restore(SchedulingSnapshot* snapshot, const std::vector<PreemptionTarget>& targets) {
  for (const auto& t : targets) snapshot->AddWorkload(t.workload);
}

class KueuePreemptor : public PreemptionPolicy {
 public:
  std::string_view Name() const override { return "kueue"; }
  // ClassicalPreemptions collects candidates only under a policy other than
  // Never.
  bool FindsNoTargetsUnderNeverPolicies() const override { return true; }

  std::vector<PreemptionTarget> GetTargets(const PreemptionRequest& request,
                                           SchedulingSnapshot& snapshot) override {
    Context ctx{&snapshot,
                &snapshot.state(),
                request.preemptor,
                request.cq,
                snapshot.state().cq(request.cq).node,
                cluster::FrAmountList(request.usage.begin(), request.usage.end()),
                absl::InlinedVector<FrId, 4>(request.frs_needing_preemption.begin(),
                                             request.frs_needing_preemption.end()),
                request.topology_fits};
    std::sort(ctx.frs.begin(), ctx.frs.end());
    if (snapshot.state().fair_sharing_enabled()) return FairPreemptions(ctx);
    return ClassicalPreemptions(ctx);
  }

 private:
  // --- Classical ---

  Variant Classify(const Context& ctx, WorkloadId candidate, CqId candidate_cq,
                   bool hierarchical_advantage) const {
    if (!ctx.snapshot->UsesResources(candidate, ctx.frs)) return Variant::kNever;
    const model::ClusterQueue& spec = *ctx.state->cq(ctx.cq).spec;
    QueuePolicy policy = candidate_cq == ctx.cq ? spec.preemption.within_cluster_queue
                                                     : spec.preemption.reclaim_within_cohort;
    if (!SatisfiesPolicy(*ctx.snapshot, ctx.preemptor, candidate, policy)) return Variant::kNever;
    if (candidate_cq == ctx.cq) return Variant::kWithinCq;
    if (hierarchical_advantage) return Variant::kHierarchicalReclaim;
    std::optional<int32_t> threshold;
    if (BorrowWithinCohortForbidden(spec, &threshold)) return Variant::kReclaimWithoutBorrowing;
    const int32_t cp = ctx.snapshot->Priority(candidate);
    const int32_t ip = ctx.snapshot->Priority(ctx.preemptor);
    if (cp >= ip || (threshold.has_value() && cp > *threshold)) {
      return Variant::kReclaimWithoutBorrowing;
    }
    return Variant::kReclaimWhileBorrowing;
  }

  void CandidatesFromCq(const Context& ctx, CqId cq, NodeId lca, bool advantage,
                        std::vector<Candidate>* out) const {
    ctx.snapshot->ForEachWorkload(cq, [&](WorkloadId id) {
      Variant v = Classify(ctx, id, cq, advantage);
      if (v != Variant::kNever) out->push_back({id, lca, v});
    });
  }

  void CollectInSubtree(const Context& ctx, NodeId cohort, NodeId subtree_root, NodeId skip,
                        bool advantage, std::vector<Candidate>* out) const {
    const quota::QuotaTree& tree = ctx.state->tree();
    for (NodeId child : tree.child_cohorts(cohort)) {
      if (child == skip) continue;
      if (tree.IsWithinNominal(child, ctx.frs)) continue;
      CollectInSubtree(ctx, child, subtree_root, skip, advantage, out);
    }
    for (NodeId child : tree.child_cluster_queues(cohort)) {
      CqId cq = ctx.state->CqOfNode(child);
      if (cq == ctx.cq || !ctx.state->cq(cq).active) continue;
      if (!tree.IsWithinNominal(child, ctx.frs)) CandidatesFromCq(ctx, cq, subtree_root, advantage, out);
    }
  }

  std::vector<PreemptionTarget> ClassicalPreemptions(Context& ctx) {
    const quota::QuotaTree& tree = ctx.state->tree();
    const model::ClusterQueue& spec = *ctx.state->cq(ctx.cq).spec;
    std::vector<Candidate> same_queue;
    std::vector<Candidate> hierarchy;
    std::vector<Candidate> priority;
    if (spec.preemption.within_cluster_queue != QueuePolicy::kNever) {
      CandidatesFromCq(ctx, ctx.cq, quota::kNoNode, false, &same_queue);
    }
    if (tree.has_parent(ctx.node) && spec.preemption.reclaim_within_cohort != QueuePolicy::kNever) {
      cluster::FrAmountList remaining;
      bool advantage = tree.QuantitiesFitInQuota(ctx.node, ctx.usage, &remaining);
      NodeId previous = quota::kNoNode;
      for (NodeId root = tree.parent(ctx.node); root != quota::kNoNode; root = tree.parent(root)) {
        CollectInSubtree(ctx, root, root, previous, advantage, advantage ? &hierarchy : &priority);
        cluster::FrAmountList next;
        bool fits = tree.QuantitiesFitInQuota(root, remaining, &next);
        remaining = std::move(next);
        advantage = advantage || fits;
        previous = root;
      }
    }
    CandidateOrder order{ctx.snapshot, ctx.cq};
    auto by_order = [&](const Candidate& a, const Candidate& b) { return order(a.workload, b.workload); };
    std::sort(same_queue.begin(), same_queue.end(), by_order);
    std::sort(priority.begin(), priority.end(), by_order);
    std::sort(hierarchy.begin(), hierarchy.end(), by_order);
    std::vector<Candidate> all;
    auto append_evicted = [&](const std::vector<Candidate>& list, bool evicted) {
      for (const auto& c : list) {
        if (ctx.snapshot->IsEvicted(c.workload) == evicted) all.push_back(c);
      }
    };
    append_evicted(hierarchy, true);
    append_evicted(priority, true);
    append_evicted(same_queue, true);
    append_evicted(hierarchy, false);
    append_evicted(priority, false);
    append_evicted(same_queue, false);
    const bool none_from_other_queues = hierarchy.empty() && priority.empty();
    std::optional<int32_t> threshold;
    const bool forbidden = BorrowWithinCohortForbidden(spec, &threshold);
    absl::InlinedVector<bool, 2> attempts;
    if (none_from_other_queues || (forbidden && !UnderNominal(ctx))) {
      attempts = {true};
    } else if (forbidden && hierarchy.empty()) {
      attempts = {false, true};
    } else {
      attempts = {true, false};
    }
    for (bool borrowing : attempts) {
      std::vector<PreemptionTarget> targets;
      for (const Candidate& candidate : all) {
        if (!CandidateIsValid(ctx, candidate, borrowing)) continue;
        ctx.snapshot->RemoveWorkload(candidate.workload);
        targets.push_back({candidate.workload, ReasonOf(candidate.variant)});
        if (WorkloadFits(ctx, borrowing)) {
          FillBack(ctx, &targets, borrowing);
          Restore(ctx.snapshot, targets);
          return targets;
        }
      }
      Restore(ctx.snapshot, targets);
    }
    return {};
  }

  bool UnderNominal(const Context& ctx) const {
    const quota::QuotaTree& tree = ctx.state->tree();
    for (FrId fr : ctx.frs) {
      if (tree.quota(ctx.node, fr).nominal <= tree.usage(ctx.node, fr)) return false;
    }
    return true;
  }

  bool CandidateIsValid(const Context& ctx, const Candidate& candidate, bool borrowing) const {
    CqId cq = ctx.snapshot->HoldingCq(candidate.workload);
    if (cq == ctx.cq) return true;
    if (borrowing && candidate.variant == Variant::kReclaimWithoutBorrowing) return false;
    const quota::QuotaTree& tree = ctx.state->tree();
    NodeId node = ctx.state->cq(cq).node;
    if (tree.IsWithinNominal(node, ctx.frs)) return false;
    for (NodeId n = tree.parent(node); n != quota::kNoNode; n = tree.parent(n)) {
      if (n == candidate.lca) break;
      if (tree.IsWithinNominal(n, ctx.frs)) return false;
    }
    return true;
  }

  // --- Fair sharing ---

  struct Ordering {
    const Context* ctx;
    std::set<NodeId> preemptor_ancestors;
    // Candidates per ClusterQueue, in candidate order.
    std::vector<std::vector<WorkloadId>> targets;  // by CqId
    std::vector<size_t> next;                      // pop position, by CqId
    std::set<NodeId> pruned_cqs;                   // quota nodes
    std::set<NodeId> pruned_cohorts;

    bool HasWorkload(CqId cq) const {
      return next[static_cast<size_t>(cq)] < targets[static_cast<size_t>(cq)].size();
    }
    WorkloadId Peek(CqId cq) const { return targets[static_cast<size_t>(cq)][next[static_cast<size_t>(cq)]]; }
    WorkloadId Pop(CqId cq) { return targets[static_cast<size_t>(cq)][next[static_cast<size_t>(cq)]++]; }
  };

  Ordering MakeOrdering(const Context& ctx, const std::vector<WorkloadId>& candidates) const {
    Ordering o;
    o.ctx = &ctx;
    const quota::QuotaTree& tree = ctx.state->tree();
    for (NodeId n = tree.parent(ctx.node); n != quota::kNoNode; n = tree.parent(n)) {
      o.preemptor_ancestors.insert(n);
    }
    o.targets.resize(static_cast<size_t>(ctx.state->num_cluster_queues()));
    o.next.assign(o.targets.size(), 0);
    for (WorkloadId id : candidates) {
      o.targets[static_cast<size_t>(ctx.snapshot->HoldingCq(id))].push_back(id);
    }
    return o;
  }

  // Children of a cohort, in name order (Kueue's order is unspecified).
  std::vector<NodeId> SortedByName(const std::vector<NodeId>& nodes) const {
    std::vector<NodeId> sorted = nodes;
    const quota::QuotaTree& tree = state_for_sort_->tree();
    std::sort(sorted.begin(), sorted.end(),
              [&](NodeId a, NodeId b) { return tree.name(a) < tree.name(b); });
    return sorted;
  }

  // TargetClusterQueueOrdering.nextTarget: a ClusterQueue, or kNone when
  // this cohort got pruned.
  CqId NextTarget(Ordering& o, NodeId cohort) const {
    const Context& ctx = *o.ctx;
    const quota::QuotaTree& tree = ctx.state->tree();
    CqId highest_cq = kNone;
    Drs highest_cq_drs;
    highest_cq_drs.unweighted_ratio = -1;
    CandidateOrder order{ctx.snapshot, ctx.cq};
    for (NodeId child : SortedByName(tree.child_cluster_queues(cohort))) {
      CqId cq = ctx.state->CqOfNode(child);
      if (!ctx.state->cq(cq).active) continue;
      if (o.pruned_cqs.count(child)) continue;
      Drs drs = tree.DominantResourceShare(child);
      if ((!drs.borrowing && cq != ctx.cq) || !o.HasWorkload(cq)) {
        o.pruned_cqs.insert(child);
      } else if (quota::CompareDrs(drs, highest_cq_drs) == 0) {
        if (order(o.Peek(cq), o.Peek(highest_cq))) highest_cq = cq;
      } else if (quota::CompareDrs(drs, highest_cq_drs) == 1) {
        highest_cq_drs = drs;
        highest_cq = cq;
      }
    }
    NodeId highest_cohort = quota::kNoNode;
    Drs highest_cohort_drs;
    highest_cohort_drs.unweighted_ratio = -1;
    for (NodeId child : SortedByName(tree.child_cohorts(cohort))) {
      if (o.pruned_cohorts.count(child)) continue;
      Drs drs = tree.DominantResourceShare(child);
      if (!drs.borrowing && !o.preemptor_ancestors.count(child)) {
        o.pruned_cohorts.insert(child);
      } else if (quota::CompareDrs(drs, highest_cohort_drs) >= 0) {
        highest_cohort_drs = drs;
        highest_cohort = child;
      }
    }
    if (highest_cohort == quota::kNoNode && highest_cq == kNone) {
      o.pruned_cohorts.insert(cohort);
      return kNone;
    }
    if (quota::CompareDrs(highest_cohort_drs, highest_cq_drs) >= 0) return NextTarget(o, highest_cohort);
    return highest_cq;
  }

  // Yields the next target ClusterQueue (TargetClusterQueueOrdering.Iter),
  // or kNone when the ordering is exhausted.
  CqId NextInOrdering(Ordering& o) const {
    const Context& ctx = *o.ctx;
    const quota::QuotaTree& tree = ctx.state->tree();
    if (!tree.has_parent(ctx.node)) {
      if (!o.pruned_cqs.count(ctx.node) && o.HasWorkload(ctx.cq)) return ctx.cq;
      return kNone;
    }
    NodeId root = tree.Root(ctx.node);
    while (!o.pruned_cohorts.count(root)) {
      CqId target = NextTarget(o, root);
      if (target != kNone) return target;
    }
    return kNone;
  }

  // The child of LCA(preemptor, target) on `cq`'s path (getAlmostLCA).
  NodeId AlmostLca(const Ordering& o, CqId target, CqId of) const {
    const quota::QuotaTree& tree = o.ctx->state->tree();
    NodeId lca = quota::kNoNode;
    for (NodeId n = tree.parent(o.ctx->state->cq(target).node); n != quota::kNoNode; n = tree.parent(n)) {
      if (o.preemptor_ancestors.count(n)) {
        lca = n;
        break;
      }
    }
    KUEUESIM_CHECK_MSG(lca != quota::kNoNode, "no least common ancestor");
    NodeId almost = o.ctx->state->cq(of).node;
    for (NodeId n = tree.parent(almost); n != quota::kNoNode; n = tree.parent(n)) {
      if (n == lca) return almost;
      almost = n;
    }
    KUEUESIM_CHECK_MSG(false, "no almost least common ancestor");
    return quota::kNoNode;
  }

  bool FitsForFairSharing(Context& ctx) const {
    ctx.snapshot->RemoveUsage(ctx.cq, ctx.usage);
    bool fits = WorkloadFits(ctx, true);
    ctx.snapshot->AddUsage(ctx.cq, ctx.usage);
    return fits;
  }

  std::vector<PreemptionTarget> FairPreemptions(Context& ctx) {
    state_for_sort_ = ctx.state;
    const quota::QuotaTree& tree = ctx.state->tree();
    const model::ClusterQueue& spec = *ctx.state->cq(ctx.cq).spec;
    // findCandidates
    std::vector<WorkloadId> candidates;
    auto add_from = [&](CqId cq, QueuePolicy policy) {
      ctx.snapshot->ForEachWorkload(cq, [&](WorkloadId id) {
        if (SatisfiesPolicy(*ctx.snapshot, ctx.preemptor, id, policy) &&
            ctx.snapshot->UsesResources(id, ctx.frs)) {
          candidates.push_back(id);
        }
      });
    };
    if (spec.preemption.within_cluster_queue != QueuePolicy::kNever) {
      add_from(ctx.cq, spec.preemption.within_cluster_queue);
    }
    if (tree.has_parent(ctx.node) && spec.preemption.reclaim_within_cohort != QueuePolicy::kNever) {
      for (CqId other = 0; other < ctx.state->num_cluster_queues(); ++other) {
        const auto& info = ctx.state->cq(other);
        if (other == ctx.cq || !info.active || !tree.has_parent(info.node)) continue;
        if (tree.Root(info.node) != tree.Root(ctx.node)) continue;
        bool borrowing = false;
        for (FrId fr : ctx.frs) borrowing = borrowing || tree.Borrowing(info.node, fr);
        if (!borrowing) continue;
        add_from(other, spec.preemption.reclaim_within_cohort);
      }
    }
    if (candidates.empty()) return {};
    std::sort(candidates.begin(), candidates.end(), CandidateOrder{ctx.snapshot, ctx.cq});

    const auto& strategies = ctx.state->configuration().fair_sharing->preemption_strategies;
    ctx.snapshot->AddUsage(ctx.cq, ctx.usage);
    std::vector<PreemptionTarget> targets;
    std::vector<WorkloadId> retry;
    bool fits = RunFirstStrategy(ctx, candidates, strategies[0], &targets, &retry);
    if (!fits && strategies.size() > 1) fits = RunSecondStrategy(ctx, retry, &targets);
    ctx.snapshot->RemoveUsage(ctx.cq, ctx.usage);
    if (!fits) {
      Restore(ctx.snapshot, targets);
      return {};
    }
    FillBack(ctx, &targets, true);
    Restore(ctx.snapshot, targets);
    return targets;
  }

  bool RunFirstStrategy(Context& ctx, const std::vector<WorkloadId>& candidates,
                        model::FairSharingStrategy strategy, std::vector<PreemptionTarget>* targets,
                        std::vector<WorkloadId>* retry) {
    Ordering o = MakeOrdering(ctx, candidates);
    const quota::QuotaTree& tree = ctx.state->tree();
    bool within_nominal = ctx.state->gates().fair_sharing_preempt_within_nominal;
    if (within_nominal) {
      for (FrId fr : ctx.frs) within_nominal = within_nominal && !tree.Borrowing(ctx.node, fr);
    }
    for (CqId target = NextInOrdering(o); target != kNone; target = NextInOrdering(o)) {
      if (target == ctx.cq) {
        WorkloadId victim = o.Pop(target);
        ctx.snapshot->RemoveWorkload(victim);
        targets->push_back({victim, PreemptionReason::kInClusterQueue});
        if (FitsForFairSharing(ctx)) return true;
        continue;
      }
      if (within_nominal) {
        WorkloadId victim = o.Pop(target);
        ctx.snapshot->RemoveWorkload(victim);
        targets->push_back({victim, PreemptionReason::kInCohortReclamation});
        if (FitsForFairSharing(ctx)) return true;
        continue;
      }
      const NodeId preemptor_almost = AlmostLca(o, target, ctx.cq);
      const NodeId target_almost = AlmostLca(o, target, target);
      const Drs preemptor_new = tree.DominantResourceShare(preemptor_almost);
      const Drs target_old = tree.DominantResourceShare(target_almost);
      if (std::isinf(preemptor_new.PreciseWeightedShare()) &&
          !std::isinf(target_old.PreciseWeightedShare())) {
        while (o.HasWorkload(target)) retry->push_back(o.Pop(target));
        continue;
      }
      while (o.HasWorkload(target)) {
        WorkloadId victim = o.Pop(target);
        ctx.snapshot->RemoveWorkloadUsage(victim);
        const Drs target_new = tree.DominantResourceShare(AlmostLca(o, target, target));
        ctx.snapshot->AddWorkloadUsage(victim);
        bool passed = strategy == model::FairSharingStrategy::kLessThanOrEqualToFinalShare
                          ? quota::CompareDrs(preemptor_new, target_new) <= 0
                          : quota::CompareDrs(preemptor_new, target_old) < 0;
        if (passed) {
          ctx.snapshot->RemoveWorkload(victim);
          targets->push_back({victim, PreemptionReason::kInCohortFairSharing});
          if (FitsForFairSharing(ctx)) return true;
          break;
        }
        retry->push_back(victim);
      }
    }
    return false;
  }

  bool RunSecondStrategy(Context& ctx, const std::vector<WorkloadId>& retry,
                         std::vector<PreemptionTarget>* targets) {
    Ordering o = MakeOrdering(ctx, retry);
    const quota::QuotaTree& tree = ctx.state->tree();
    for (CqId target = NextInOrdering(o); target != kNone; target = NextInOrdering(o)) {
      const Drs preemptor_new = tree.DominantResourceShare(AlmostLca(o, target, ctx.cq));
      const Drs target_old = tree.DominantResourceShare(AlmostLca(o, target, target));
      bool passed = quota::CompareDrs(preemptor_new, target_old) < 0;
      WorkloadId victim = o.Pop(target);
      if (passed) {
        ctx.snapshot->RemoveWorkload(victim);
        targets->push_back({victim, PreemptionReason::kInCohortFairSharing});
        if (FitsForFairSharing(ctx)) return true;
      }
      o.pruned_cqs.insert(ctx.state->cq(target).node);
    }
    return false;
  }

  const ClusterState* state_for_sort_ = nullptr;
};

}  // namespace

std::string_view PreemptionReasonName(PreemptionReason reason) {
  switch (reason) {
    case PreemptionReason::kInClusterQueue:
      return "InClusterQueue";
    case PreemptionReason::kInCohortReclamation:
      return "InCohortReclamation";
    case PreemptionReason::kInCohortFairSharing:
      return "InCohortFairSharing";
    case PreemptionReason::kInCohortReclaimWhileBorrowing:
      return "InCohortReclaimWhileBorrowing";
  }
  return "";
}

std::unique_ptr<PreemptionPolicy> NewKueuePreemptionPolicy() { return std::make_unique<KueuePreemptor>(); }

}  // namespace kueuesim::policy
