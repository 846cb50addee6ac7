// The admission cycle; a translation of kueue pkg/scheduler/scheduler.go
// and fair_sharing_iterator.go (see scheduler.h).
#include "admission/scheduler.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "kueuesim/base/status.h"

namespace kueuesim::admission {
namespace {

using cluster::FrAmount;
using cluster::kNone;
using cluster::PendingMessage;
using cluster::QuotaReservedReason;
using flavor::AssignmentMode;
using queue::RequeueReason;

bool ContainsWorkload(const std::vector<WorkloadId>& list, WorkloadId id) {
  return std::find(list.begin(), list.end(), id) != list.end();
}

}  // namespace

Scheduler::Scheduler(cluster::ClusterState* state, queue::QueueManager* queues,
                     policy::PreemptionPolicy* preemption, flavor::TopologyPlacer* placer,
                     cluster::AdmissionFairSharing* afs)
    : state_(state), queues_(queues), preemption_(preemption), placer_(placer), afs_(afs) {}

Scheduler::Scheduler(cluster::ClusterState* state, queue::QueueManager* queues,
                     policy::PreemptionPolicy* preemption, std::unique_ptr<flavor::TopologyPlacer> placer,
                     cluster::AdmissionFairSharing* afs)
    : Scheduler(state, queues, preemption, placer.get(), afs) {
  owned_placer_ = std::move(placer);
}

std::pair<flavor::PreemptionPossibility, int> Scheduler::SimulatePreemption(CqId cq, WorkloadId workload,
                                                                           cluster::FrId fr,
                                                                           Amount quantity) {
  // preemption_oracle.go
  FrAmount request{fr, quantity};
  policy::PreemptionRequest req;
  req.preemptor = workload;
  req.cq = cq;
  req.usage = std::span<const FrAmount>(&request, 1);
  req.frs_needing_preemption = std::span<const cluster::FrId>(&fr, 1);
  std::vector<policy::PreemptionTarget> targets = preemption_->GetTargets(req, *snapshot_);
  const quota::QuotaTree& tree = state_->tree();
  const cluster::NodeId node = state_->cq(cq).node;
  if (targets.empty()) {
    return {flavor::PreemptionPossibility::kNoCandidates,
            tree.FindHeightOfLowestSubtreeThatFits(node, fr, quantity).first};
  }
  for (const auto& t : targets) snapshot_->RemoveWorkloadUsage(t.workload);
  int borrow = tree.FindHeightOfLowestSubtreeThatFits(node, fr, quantity).first;
  for (const auto& t : targets) snapshot_->AddWorkloadUsage(t.workload);
  for (const auto& t : targets) {
    if (snapshot_->HoldingCq(t.workload) == cq) return {flavor::PreemptionPossibility::kPreempt, borrow};
  }
  return {flavor::PreemptionPossibility::kReclaim, borrow};
}

std::vector<policy::PreemptionTarget> Scheduler::GetTargets(WorkloadId workload, CqId cq,
                                                            const flavor::Assignment& assignment) {
  cluster::FrAmountList usage;
  for (const FrAmount& u : assignment.usage) {
    if (u.amount != 0) usage.push_back(u);
  }
  const auto frs = assignment.FrsNeedingPreemption(*state_);
  policy::PreemptionRequest req;
  req.preemptor = workload;
  req.cq = cq;
  req.usage = usage;
  req.frs_needing_preemption = frs;
  // workloadFits also places the TAS pod sets on the snapshot with the
  // candidates removed.
  std::function<bool()> topology_fits;
  bool requests_topology = false;
  if (placer_ != nullptr && state_->gates().topology_aware_scheduling) {
    const cluster::ClusterQueueInfo& info = state_->cq(cq);
    for (const auto& ps : state_->workload(workload).pod_sets) {
      requests_topology = requests_topology || flavor::IsTasRequested(*state_, info, *ps.spec);
    }
  }
  // (Without a pod set that asks for a topology there is nothing to place:
  // the assignment is not copied.)
  if (requests_topology) {
    auto tas_assignment = std::make_shared<flavor::Assignment>(assignment);
    auto tas_requests = std::make_shared<std::vector<flavor::TasPodSetRequest>>(
        placer_->Requests(cq, workload, tas_assignment.get()));
    if (!tas_requests->empty()) {
      topology_fits = [this, cq, workload, tas_assignment, tas_requests]() {
        return !placer_->Place(cq, workload, *tas_assignment, *tas_requests, /*simulate_empty=*/false)
                    .Failure()
                    .has_value();
      };
      req.topology_fits = &topology_fits;
    }
  }
  return preemption_->GetTargets(req, *snapshot_);
}

void Scheduler::UpdateAssignmentForTas(Entry* e) {
  // updateAssignmentForTAS: a preemptor's placement with its targets
  // removed, or on an empty cluster when it has none, so that it reserves
  // the capacity it waits for.
  if (placer_ == nullptr || !state_->gates().topology_aware_scheduling) return;
  if (e->assignment.RepresentativeMode() != AssignmentMode::kPreempt) return;
  const cluster::WorkloadRecord& wl = state_->workload(e->workload);
  bool explicit_tas = false;
  for (const auto& ps : wl.pod_sets) {
    explicit_tas = explicit_tas || (ps.spec->topology_request.has_value() && ps.spec->topology_request->IsExplicit());
  }
  if (!explicit_tas && !flavor::IsTasOnly(*state_, state_->cq(e->cq))) return;
  std::vector<flavor::TasPodSetRequest> requests = placer_->Requests(e->cq, e->workload, &e->assignment);
  flavor::TasPlacementResult result;
  if (!e->targets.empty()) {
    for (const auto& t : e->targets) snapshot_->RemoveWorkloadUsage(t.workload);
    result = placer_->Place(e->cq, e->workload, e->assignment, requests, /*simulate_empty=*/false);
    for (const auto& t : e->targets) snapshot_->AddWorkloadUsage(t.workload);
  } else {
    result = placer_->Place(e->cq, e->workload, e->assignment, requests, /*simulate_empty=*/true);
  }
  flavor::UpdateForTasResult(&e->assignment, result);
}

void Scheduler::GetAssignments(
    Entry* e, const std::vector<std::vector<std::pair<cluster::ResourceId, cluster::FlavorId>>>*
                  nomination_mapping) {
  cluster::WorkloadRecord& wl = state_->workload(e->workload);
  const cluster::ClusterQueueInfo& cq = state_->cq(e->cq);
  // lastAssignmentOutdated
  if (wl.last_assignment.has_value()) {
    const cluster::LastAssignmentState& last = *wl.last_assignment;
    bool outdated;
    if (state_->gates().flavor_fungibility_preserve_scan_progress &&
        last.scheduling_hash != wl.scheduling_hash) {
      outdated = true;
    } else if (state_->gates().flavor_fungibility_preserve_scan_progress &&
               cycle_ - last.scheduling_cycle <= 1) {
      outdated = false;
    } else {
      outdated = cq.allocatable_generation > last.cluster_queue_generation;
    }
    if (outdated) wl.last_assignment.reset();
  }
  flavor::FlavorAssignerOptions options;
  options.fair_sharing = state_->fair_sharing_enabled();
  options.scheduling_cycle = cycle_;
  options.nomination_mapping = nomination_mapping;
  flavor::FlavorAssigner assigner(*state_, e->cq, wl, e->workload, this, placer_, options);
  flavor::Assignment full = assigner.Assign();
  e->targets.clear();
  const AssignmentMode mode = full.RepresentativeMode();
  if (mode == AssignmentMode::kFit) {
    e->assignment = std::move(full);
  } else {
    std::vector<policy::PreemptionTarget> targets;
    if (mode == AssignmentMode::kPreempt) targets = GetTargets(e->workload, e->cq, full);
    if (!targets.empty()) {
      e->assignment = std::move(full);
      e->targets = std::move(targets);
    } else if (state_->gates().partial_admission && wl.partially_admissible) {
      std::vector<int32_t> full_counts;
      std::vector<int32_t> min_counts;
      for (const auto& ps : wl.pod_sets) {
        full_counts.push_back(ps.count);
        min_counts.push_back(ps.min_count);
      }
      std::optional<flavor::Assignment> partial;
      std::vector<policy::PreemptionTarget> partial_targets;
      auto fits = [&](const std::vector<int32_t>& counts) {
        flavor::Assignment a = assigner.Assign(&counts);
        AssignmentMode m = a.RepresentativeMode();
        if (m == AssignmentMode::kFit) {
          partial = std::move(a);
          partial_targets.clear();
          return true;
        }
        if (m == AssignmentMode::kPreempt) {
          auto t = GetTargets(e->workload, e->cq, a);
          if (!t.empty()) {
            partial = std::move(a);
            partial_targets = std::move(t);
            return true;
          }
        }
        return false;
      };
      if (flavor::SearchPartialAdmissionCounts(full_counts, min_counts, fits).has_value()) {
        e->assignment = std::move(*partial);
        e->targets = std::move(partial_targets);
      } else {
        e->assignment = std::move(full);
      }
    } else {
      e->assignment = std::move(full);
    }
  }
  UpdateAssignmentForTas(e);
  // recordAssignment (last_state is read nowhere else)
  e->last_assignment = std::move(e->assignment.last_state);
}

void Scheduler::Nominate(std::vector<Entry>* entries, std::vector<Entry>* inadmissible) {
  const std::vector<queue::Head> heads = queues_->Heads();
  // Entries are large: reserved once, never relocated.
  entries->reserve(heads.size());
  for (const queue::Head& head : heads) {
    // Built in place (an entry is large); moved out if it is not nominated.
    Entry& e = entries->emplace_back();
    e.workload = head.workload;
    e.cq = head.cq;
    e.is_preemptor = head.is_preemptor;
    cluster::WorkloadRecord& wl = state_->workload(head.workload);
    const cluster::ClusterQueueInfo& cq = state_->cq(head.cq);
    // The input's check states, until the workload first holds quota in the
    // run (the runtime's own check states take over from there).
    bool failed_checks = false;
    for (const auto& [name, check_state] : wl.spec->rare->admission_check_states) {
      if (wl.first_reserved_at < 0 && (check_state == "Retry" || check_state == "Rejected")) failed_checks = true;
    }
    if (failed_checks) {
      // Not nominated: "The workload has failed admission checks".
      e.SetPending(Reason(QuotaReservedReason::kPendingEvaluation), PendingMessage::kFailedChecks);
    } else if (!cq.active) {
      // Not nominated: "ClusterQueue <name> is inactive".
      e.SetPending(Reason(QuotaReservedReason::kSuspended), PendingMessage::kClusterQueueInactive);
    } else if (!queues_->NamespaceMatches(head.cq, wl)) {
      // Not nominated (ValidateAdmissibility): "workload namespace doesn't
      // match ClusterQueue selector", or the namespace does not exist.
      e.SetPending(Reason(QuotaReservedReason::kMisconfigured),
                   state_->namespace_info(wl.ns).exists ? PendingMessage::kNamespaceMismatch
                                                        : PendingMessage::kNamespaceMissing);
      e.requeue_reason = RequeueReason::kNamespaceMismatch;
    } else if (cluster::HasRequestsAboveLimits(*wl.spec)) {
      // Not nominated (ValidateAdmissibility, ValidateResources): "resources
      // validation failed: ...".
      e.SetPending(Reason(QuotaReservedReason::kMisconfigured), PendingMessage::kInvalidResources);
    } else if (cluster::HasLimitRangeViolations(*wl.spec)) {
      // ValidateLimitRange: "resources didn't satisfy LimitRange constraints: ...".
      e.SetPending(Reason(QuotaReservedReason::kMisconfigured), PendingMessage::kLimitRangeViolated);
    } else {
      // GetAssignments records the entry's last assignment afresh;
      // recordAssignment sets the message to Assignment.Message().
      if (!ReuseNomination(&e, wl, cq)) {
        const bool scan_from_start = !wl.last_assignment.has_value() || !wl.last_assignment->PendingFlavors();
        GetAssignments(&e, nullptr);
        ++nominations_assigned_;
        NoteMemoizable(&e, wl, cq, scan_from_start);
      }
      e.message = PendingMessage::kAssignment;
      e.nominated = true;
      continue;
    }
    e.last_assignment = wl.last_assignment.ToOptional();
    inadmissible->push_back(std::move(e));
    entries->pop_back();
  }
}

// --- Reusing an unchanged head's nomination (cluster::NominationMemo) ---
//
// Kueue assigns flavors to every head in every cycle; a StrictFIFO head that
// cannot be admitted is assigned again in every cycle that follows, though
// nothing it depends on may have changed. The simulation reuses the last
// result when it provably would come out the same:
//  - the result was NoFit, or Preempt with no workload to preempt, from a
//    scan of the flavors from the first one, leaving none to try;
//  - the ClusterQueue cannot preempt (withinClusterQueue and
//    reclaimWithinCohort Never, borrowWithinCohort unset or Never), with a
//    preemption policy that then finds no targets, fair sharing off, no
//    topology flavor and the ConcurrentAdmission gate off: the assignment
//    then reads only the workload, the ClusterQueue's flavors and the quota
//    tree along the ClusterQueue's path to its root;
//  - the workload (its scheduling hash), the tree's quotas (its quota
//    generation) and the usage of the ClusterQueue's FRs along that path
//    are as they were, and the workload's pending condition is the one that
//    nomination left (UpdatePendingCondition drops the memo otherwise).
// The entry then carries the memo's mode, borrowing, usage and NoFit
// reason: ordering, the capacity a Preempt entry reserves for the cycle and
// the requeue are computed from them as for a fresh entry; the pending
// condition, which would be written the same, is left as it is.

bool Scheduler::MemoizableClusterQueue(CqId id) {
  // What it depends on is fixed for the run (gates, configuration, policy,
  // the ClusterQueue's preemption and flavors): computed once per queue.
  const size_t index = static_cast<size_t>(id);
  if (index >= memoizable_cq_.size()) memoizable_cq_.resize(index + 1, -1);
  if (memoizable_cq_[index] < 0) memoizable_cq_[index] = ComputeMemoizable(state_->cq(id)) ? 1 : 0;
  return memoizable_cq_[index] == 1;
}

bool Scheduler::ComputeMemoizable(const cluster::ClusterQueueInfo& cq) const {
  if (state_->fair_sharing_enabled() || state_->gates().concurrent_admission) return false;
  if (preemption_ == nullptr || !preemption_->FindsNoTargetsUnderNeverPolicies()) return false;
  const model::ClusterQueuePreemption& preemption = cq.spec->preemption;
  if (preemption.within_cluster_queue != model::PreemptionPolicy::kNever ||
      preemption.reclaim_within_cohort != model::PreemptionPolicy::kNever) {
    return false;
  }
  if (preemption.borrow_within_cohort.has_value() &&
      preemption.borrow_within_cohort->policy != model::BorrowWithinCohortPolicy::kNever) {
    return false;
  }
  for (const auto& group : cq.groups) {
    for (cluster::FlavorId f : group.flavors) {
      const cluster::FlavorInfo& flavor = state_->flavor(f);
      if (flavor.exists && !flavor.spec->topology_name.empty()) return false;
    }
  }
  return true;
}

absl::InlinedVector<Amount, 4> Scheduler::PathUsage(const cluster::ClusterQueueInfo& cq) const {
  const quota::QuotaTree& tree = state_->tree();
  const std::vector<cluster::FrId>& frs = tree.defined_frs(cq.node);
  absl::InlinedVector<Amount, 4> usage;
  for (cluster::NodeId n = cq.node; n != quota::kNoNode; n = tree.parent(n)) {
    for (cluster::FrId fr : frs) usage.push_back(tree.usage(n, fr));
  }
  return usage;
}

bool Scheduler::ReuseNomination(Entry* e, cluster::WorkloadRecord& wl, const cluster::ClusterQueueInfo& cq) {
  if (!reuse_nominations_ || !wl.nomination_memo.allocated()) return false;
  const cluster::NominationMemo& memo = *wl.nomination_memo;
  if (!memo.valid || memo.cq != e->cq || memo.scheduling_hash != wl.scheduling_hash ||
      memo.quota_generation != state_->tree().quota_generation() || wl.HoldsQuota() ||
      (state_->gates().partial_admission && wl.partially_admissible) ||
      (wl.last_assignment.has_value() && wl.last_assignment->PendingFlavors()) ||
      !MemoizableClusterQueue(e->cq) || PathUsage(cq) != memo.path_usage) {
    return false;
  }
  e->assignment = flavor::Assignment();
  // (One pod-set result, without flavors, stands for the assignment's:
  // RepresentativeMode is NoFit for an assignment without pod sets.)
  e->assignment.pod_sets.emplace_back();
  e->assignment.SetRepresentativeMode(memo.preempt ? AssignmentMode::kPreempt : AssignmentMode::kNoFit);
  e->assignment.borrowing = memo.borrowing;
  e->assignment.usage = memo.usage;
  e->assignment.no_fit_reason = memo.no_fit_reason;
  e->targets.clear();
  // What a fresh assignment would record (FlavorAssigner::Assign).
  cluster::LastAssignmentState last = memo.last_state;
  last.cluster_queue_generation = cq.allocatable_generation;
  last.scheduling_cycle = cycle_;
  last.scheduling_hash = wl.scheduling_hash;
  e->last_assignment = std::move(last);
  e->reused = true;
  ++nominations_reused_;
  if (verify_reuse_) VerifyReuse(*e, wl);
  return true;
}

void Scheduler::NoteMemoizable(Entry* e, const cluster::WorkloadRecord& wl, const cluster::ClusterQueueInfo& cq,
                               bool scan_from_start) {
  e->memoizable = false;
  if (!reuse_nominations_ || !scan_from_start || wl.HoldsQuota() || !MemoizableClusterQueue(e->cq)) return;
  if (state_->gates().partial_admission && wl.partially_admissible) return;
  const AssignmentMode mode = e->assignment.RepresentativeMode();
  if (mode != AssignmentMode::kNoFit && !(mode == AssignmentMode::kPreempt && e->targets.empty())) return;
  if (e->last_assignment.has_value() && e->last_assignment->PendingFlavors()) return;
  e->memoizable = true;
  e->memo_preempt = mode == AssignmentMode::kPreempt;
  e->memo_quota_generation = state_->tree().quota_generation();
  e->memo_path_usage = PathUsage(cq);
}

void Scheduler::StoreNominationMemo(const Entry& e, cluster::WorkloadRecord& wl) {
  cluster::NominationMemo& memo = wl.nomination_memo.Mutable();
  memo.valid = true;
  memo.preempt = e.memo_preempt;  // (the requeue took the pod sets' reasons)
  memo.cq = e.cq;
  memo.borrowing = e.assignment.borrowing;
  memo.no_fit_reason = e.assignment.no_fit_reason;
  memo.scheduling_hash = wl.scheduling_hash;
  memo.quota_generation = e.memo_quota_generation;
  memo.path_usage = e.memo_path_usage;
  memo.usage = e.assignment.usage;
  memo.last_state = *wl.last_assignment;
}

void Scheduler::VerifyReuse(const Entry& reused, const cluster::WorkloadRecord& wl) {
  Entry fresh;
  fresh.workload = reused.workload;
  fresh.cq = reused.cq;
  fresh.is_preemptor = reused.is_preemptor;
  // GetAssignments may drop the recorded last assignment: kept as it was.
  std::optional<cluster::LastAssignmentState> saved = wl.last_assignment.ToOptional();
  GetAssignments(&fresh, nullptr);
  state_->workload(reused.workload).last_assignment = std::move(saved);
  const flavor::Assignment& a = fresh.assignment;
  const AssignmentMode mode = a.RepresentativeMode();
  std::string difference;
  if (mode != reused.assignment.RepresentativeMode() || !fresh.targets.empty()) {
    difference = fmt::format("mode {} with {} target(s), reused {}", flavor::AssignmentModeName(mode),
                             fresh.targets.size(),
                             flavor::AssignmentModeName(reused.assignment.RepresentativeMode()));
  } else if (a.borrowing != reused.assignment.borrowing) {
    difference = fmt::format("borrowing {}, reused {}", a.borrowing, reused.assignment.borrowing);
  } else if (a.usage != reused.assignment.usage) {
    difference = "the quota usage";
  } else if (a.no_fit_reason != reused.assignment.no_fit_reason) {
    difference = "the NoFit reason";
  } else if (!fresh.last_assignment.has_value() ||
             fresh.last_assignment->last_tried_flavor_idx != reused.last_assignment->last_tried_flavor_idx) {
    difference = "the flavors tried";
  } else {
    // The condition a fresh entry would write (ProcessEntry, Requeue).
    cluster::PendingCondition next;
    next.reason = mode == AssignmentMode::kNoFit ? Reason(a.no_fit_reason) : Reason(QuotaReservedReason::kWaitingForQuota);
    next.message = PendingMessage::kAssignment;
    next.pod_sets = fresh.assignment.TakeReasons();
    // (UpdatePendingCondition writes no condition without a reason.)
    if (next.has_condition() && !wl.pending->SameAs(next)) {
      const cluster::PendingCondition& current = *wl.pending;
      difference = fmt::format("the pending condition (reason {} message {} count {} pod sets {}, fresh {} {} {} {})",
                               static_cast<int>(current.reason), static_cast<int>(current.message), current.count,
                               current.pod_sets.size(), static_cast<int>(next.reason),
                               static_cast<int>(next.message), next.count, next.pod_sets.size());
    }
  }
  if (!difference.empty() && reuse_mismatch_.empty()) {
    reuse_mismatch_ = fmt::format("cycle {}: Workload \"{}\": the reused nomination differs from a fresh one in {}",
                                  cycle_, wl.key, difference);
  }
}

Scheduler::Usage Scheduler::EntryUsage(const Entry& e, cluster::FrAmountList net_quota) const {
  // netUsage: the topology usage of the assignment, and the quota to add,
  // none for a workload that already holds it.
  Usage usage;
  const cluster::WorkloadRecord& wl = state_->workload(e.workload);
  if (state_->gates().topology_aware_scheduling) {
    usage.tas = flavor::ComputeTasNetUsage(*state_, wl, e.assignment);
  }
  if (!wl.HoldsQuota()) usage.quota = std::move(net_quota);
  return usage;
}

Scheduler::Usage Scheduler::EntryUsage(const Entry& e) const { return EntryUsage(e, e.assignment.usage); }

Scheduler::FitsCheck Scheduler::Fits(const Entry& e, const Usage& usage,
                                     const std::vector<policy::PreemptionTarget>& targets) const {
  std::vector<WorkloadId> victims = preempted_in_cycle_;
  for (const auto& t : targets) {
    if (!ContainsWorkload(victims, t.workload)) victims.push_back(t.workload);
  }
  for (WorkloadId v : victims) snapshot_->RemoveWorkloadUsage(v);
  FitsCheck check = FitsCheck::kOk;
  if (!snapshot_->FitsQuota(e.cq, usage.quota)) {
    check = FitsCheck::kNoQuota;
  } else if (!snapshot_->FitsTas(usage.tas)) {
    check = FitsCheck::kNoTas;
  }
  for (WorkloadId v : victims) snapshot_->AddWorkloadUsage(v);
  return check;
}

void Scheduler::AddTemporaryUsage(CqId cq, Usage usage) {
  snapshot_->AddUsage(cq, usage.quota);
  snapshot_->AddTasUsage(usage.tas);
  temporary_usage_.emplace_back(cq, std::move(usage.quota));
}

void Scheduler::ProcessEntry(Entry* e, CycleResult* result) {
  cluster::ClusterQueueInfo& cq = state_->cq(e->cq);
  const cluster::WorkloadRecord& wl = state_->workload(e->workload);

  // updateAssignmentIfNeeded: recompute when the targets overlap with
  // targets claimed earlier in the cycle, or when the topology placement
  // made at nomination no longer fits (workloads of other queues took the
  // domains earlier in the cycle).
  Usage usage = EntryUsage(*e);
  FitsCheck check = Fits(*e, usage, e->targets);
  bool overlap = false;
  for (const auto& t : e->targets) overlap = overlap || ContainsWorkload(preempted_in_cycle_, t.workload);
  const bool needs_tas_recompute =
      check == FitsCheck::kNoTas && state_->gates().tas_recompute_assignment_within_scheduling_cycle;
  const bool needs_overlap_recompute =
      overlap && state_->gates().recompute_assignment_upon_preemption_targets_overlap;
  if (needs_overlap_recompute || needs_tas_recompute) {
    // To see the cluster after the other preemptions of the cycle complete,
    // their victims are removed.
    std::vector<WorkloadId> removed;
    if (needs_overlap_recompute) removed = preempted_in_cycle_;
    for (WorkloadId v : removed) snapshot_->RemoveWorkload(v);
    // The flavors of the nomination stay (NominationMapping).
    std::vector<std::vector<std::pair<cluster::ResourceId, cluster::FlavorId>>> mapping(wl.pod_sets.size());
    for (const auto& ps : e->assignment.pod_sets) {
      for (const auto& f : ps.flavors) {
        mapping[static_cast<size_t>(ps.pod_set_index)].emplace_back(f.resource, f.flavor);
      }
    }
    state_->workload(e->workload).last_assignment.reset();
    e->memoizable = false;
    GetAssignments(e, &mapping);
    for (WorkloadId v : removed) snapshot_->AddWorkload(v);
    if (needs_overlap_recompute && e->assignment.RepresentativeMode() == AssignmentMode::kFit) {
      e->assignment.SetRepresentativeMode(AssignmentMode::kDeferredFit);
    }
    usage = EntryUsage(*e);
    check = Fits(*e, usage, e->targets);
  }
  const bool fits = check == FitsCheck::kOk;
  const AssignmentMode mode = e->assignment.RepresentativeMode();

  if (mode == AssignmentMode::kNoFit) {
    e->requeue_reason = RequeueReason::kNoFit;
    e->qr_reason = Reason(e->assignment.no_fit_reason);
    return;
  }
  if (mode == AssignmentMode::kPreempt) {
    if (e->targets.empty()) {
      e->requeue_reason = RequeueReason::kPreemptionNoCandidates;
      e->qr_reason = Reason(QuotaReservedReason::kWaitingForQuota);
      // reserveCapacityForUnreclaimablePreempt
      const bool can_always_reclaim =
          cq.spec->preemption.reclaim_within_cohort == model::PreemptionPolicy::kAny;
      if (!can_always_reclaim ||
          (state_->gates().prioritize_preemptor_workloads && e->is_preemptor)) {
        cluster::FrAmountList reserve;
        if (!wl.HoldsQuota()) {
          const quota::QuotaTree& tree = state_->tree();
          for (const FrAmount& u : e->assignment.usage) {
            const quota::FrQuota& q = tree.quota(cq.node, u.fr);
            Amount amount;
            if (e->assignment.borrowing > 0) {
              amount = q.borrowing_limit == quota::kNoLimit
                           ? u.amount
                           : std::min(u.amount, SubAmounts(AddAmounts(q.nominal, q.borrowing_limit),
                                                           tree.usage(cq.node, u.fr)));
            } else {
              amount = std::max<Amount>(
                  0, std::min(u.amount, SubAmounts(q.nominal, tree.usage(cq.node, u.fr))));
            }
            reserve.push_back({u.fr, amount});
          }
        }
        // resourcesToReserve: netUsage with the quota to reserve.
        AddTemporaryUsage(e->cq, EntryUsage(*e, std::move(reserve)));
      }
      return;
    }
    if ((state_->gates().concurrent_admission || state_->gates().multikueue_orchestrated_preemption) &&
        wl.has_closed_preemption_gate) {
      e->status = EntryStatus::kPreemptionGated;
      e->requeue_reason = RequeueReason::kPreemptionGated;
      e->SetPending(Reason(QuotaReservedReason::kAdmissionGated), PendingMessage::kPreemptionGated);
      e->last_assignment.reset();
      return;
    }
  }
  if (mode == AssignmentMode::kDeferredFit) {
    e->requeue_reason = RequeueReason::kPendingPreemption;
    e->SetPending(Reason(QuotaReservedReason::kWaitingForPreemptedWorkloads), PendingMessage::kDeferredFit);
    e->last_assignment.reset();
    AddTemporaryUsage(e->cq, usage);
    return;
  }
  bool targets_claimed = false;
  for (const auto& t : e->targets) {
    targets_claimed = targets_claimed || ContainsWorkload(preempted_in_cycle_, t.workload);
  }
  if (targets_claimed) {
    e->status = EntryStatus::kSkipped;
    e->SetPending(Reason(QuotaReservedReason::kWaitingForQuota), PendingMessage::kOverlappingTargets);
    if (!state_->gates().flavor_fungibility_preserve_scan_progress) e->last_assignment.reset();
    return;
  }
  if (!fits) {
    e->status = EntryStatus::kSkipped;
    e->SetPending(Reason(QuotaReservedReason::kWaitingForQuota), PendingMessage::kNoLongerFits);
    if (!state_->gates().flavor_fungibility_preserve_scan_progress) e->last_assignment.reset();
    return;
  }
  for (const auto& t : e->targets) preempted_in_cycle_.push_back(t.workload);
  if (mode == AssignmentMode::kPreempt) {
    AddTemporaryUsage(e->cq, usage);
    // issuePreemptions: targets already being evicted need no new call.
    int preempted = 0;
    for (const auto& t : e->targets) {
      ++preempted;
      if (state_->workload(t.workload).evicted) continue;
      bool already = false;
      for (const auto& p : result->preemptions) already = already || p.victim == t.workload;
      if (!already) result->preemptions.push_back({t.workload, e->workload, t.reason});
    }
    e->last_assignment.reset();
    e->qr_reason = Reason(QuotaReservedReason::kWaitingForPreemptedWorkloads);
    if (preempted != 0) {
      e->requeue_reason = RequeueReason::kPendingPreemption;
      // markPreemptionOutcome: ". Pending the preemption of N workload(s)".
      e->message = PendingMessage::kAssignmentPendingPreemption;
      e->preempted = preempted;
    }
    return;
  }
  // waitForPodsReady blockAdmission: Kueue blocks the scheduler until every
  // admitted workload's pods are ready. A cycle starts only when none is
  // waiting; after an admission in this cycle, later entries wait for the
  // next cycle (the runtime runs it once the pods are ready).
  const model::WaitForPodsReadyConfig& wfpr = state_->configuration().wait_for_pods_ready;
  if (wfpr.enable && wfpr.block_admission && !state_->gates().disable_wait_for_pods_ready &&
      !admitted_in_cycle_.empty() && !wl.HoldsQuota()) {
    e->status = EntryStatus::kSkipped;
    e->SetPending(Reason(QuotaReservedReason::kWaitingForPodsReady, QuotaReservedReason::kWaiting),
                  PendingMessage::kWaitingForPodsReady);
    preempted_in_cycle_.resize(preempted_in_cycle_.size() - e->targets.size());
    return;
  }
  // Admission: the quota usage stays in the tree; the topology usage stays
  // for the rest of the cycle and enters the TAS cache when it ends.
  snapshot_->AddUsage(e->cq, usage.quota);
  snapshot_->AddTasUsage(usage.tas);
  snapshot_->AccountAdmission(e->workload);
  Admit(e, usage.quota, result);
}

void Scheduler::Admit(Entry* e, const cluster::FrAmountList& usage, CycleResult* result) {
  cluster::WorkloadRecord& wl = state_->workload(e->workload);
  cluster::ClusterQueueInfo& cq = state_->cq(e->cq);
  // The admission-fair-sharing entry penalty, once per reservation.
  if (afs_ != nullptr && afs_->OrdersClusterQueue(e->cq) && !wl.HoldsQuota()) {
    afs_->PushPenalty(e->workload, wl);
  }
  e->status = EntryStatus::kAssumed;
  cluster::AdmissionState admission;
  admission.cq = e->cq;
  admission.usage = usage;
  admission.pod_sets.resize(wl.pod_sets.size());
  for (const auto& ps : e->assignment.pod_sets) {
    cluster::PodSetAdmission& out = admission.pod_sets[static_cast<size_t>(ps.pod_set_index)];
    out.count = ps.count;
    for (const auto& f : ps.flavors) {
      Amount amount = 0;
      for (const auto& r : ps.requests) {
        if (r.resource == f.resource) amount = r.amount;
      }
      out.entries.push_back({f.resource, f.flavor, amount});
    }
    out.topology_assignment = ps.topology_assignment;
    out.delayed_topology_pending = ps.delayed_topology_pending;
  }
  wl.admission = std::move(admission);
  wl.admitted_in_cycle = true;
  wl.holding_index = static_cast<int32_t>(cq.holding.size());
  cq.holding.push_back(e->workload);
  admitted_in_cycle_.push_back(e->workload);
  // The cursor is gone once the workload leaves the queue.
  wl.last_assignment.reset();
  e->last_assignment.reset();
  queues_->Delete(e->workload);
  // The entry is done with: its assignment moves to the result.
  result->reservations.push_back({e->workload, e->cq, std::move(e->assignment)});
}

std::vector<size_t> Scheduler::ClassicalOrder(const std::vector<Entry>& entries) const {
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto& gates = state_->gates();
  std::sort(order.begin(), order.end(), [&](size_t ia, size_t ib) {
    const Entry& a = entries[ia];
    const Entry& b = entries[ib];
    const auto& wa = state_->workload(a.workload);
    const auto& wb = state_->workload(b.workload);
    if (wa.HoldsQuota() != wb.HoldsQuota()) return wa.HoldsQuota();
    if (gates.prioritize_preemptor_workloads && a.is_preemptor != b.is_preemptor) return a.is_preemptor;
    if (a.assignment.borrowing != b.assignment.borrowing) {
      return a.assignment.borrowing < b.assignment.borrowing;
    }
    if (gates.priority_sorting_within_cohort && wa.priority != wb.priority) {
      return wa.priority > wb.priority;
    }
    if (wa.queue_order_timestamp != wb.queue_order_timestamp) {
      return wa.queue_order_timestamp < wb.queue_order_timestamp;
    }
    return state_->cq(a.cq).name < state_->cq(b.cq).name;
  });
  return order;
}

size_t Scheduler::NextFairSharingEntry(const std::vector<Entry>& entries, const std::vector<bool>& done) {
  // Pick the remaining entry of the smallest ClusterQueue name (Kueue:
  // any), then run the tournament over its root cohort.
  const quota::QuotaTree& tree = state_->tree();
  size_t pick = entries.size();
  for (size_t i = 0; i < entries.size(); ++i) {
    if (done[i]) continue;
    if (pick == entries.size() || state_->cq(entries[i].cq).name < state_->cq(entries[pick].cq).name) {
      pick = i;
    }
  }
  const cluster::NodeId node = state_->cq(entries[pick].cq).node;
  if (!tree.has_parent(node)) return pick;
  const cluster::NodeId root = tree.Root(node);

  // computeDRS: per entry, the DRS of each subtree it lives in, after
  // adding its usage, keyed by the parent cohort.
  std::vector<size_t> in_tree;
  std::map<cluster::NodeId, size_t> entry_of_cq_node;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (done[i]) continue;
    cluster::NodeId n = state_->cq(entries[i].cq).node;
    if (!tree.has_parent(n) || tree.Root(n) != root) continue;
    in_tree.push_back(i);
    entry_of_cq_node[n] = i;
  }
  std::map<std::pair<cluster::NodeId, size_t>, quota::Drs> drs;
  std::map<size_t, cluster::FrAmountList> requested;
  for (size_t i : in_tree) {
    const Entry& e = entries[i];
    cluster::FrAmountList usage = EntryUsage(e).quota;
    snapshot_->AddUsage(e.cq, usage);
    cluster::NodeId n = state_->cq(e.cq).node;
    quota::Drs share = tree.DominantResourceShare(n);
    for (cluster::NodeId a = tree.parent(n); a != quota::kNoNode; a = tree.parent(a)) {
      drs[{a, i}] = share;
      share = tree.DominantResourceShare(a);
    }
    snapshot_->RemoveUsage(e.cq, usage);
    requested[i] = std::move(usage);
  }
  const auto& gates = state_->gates();
  auto less = [&](size_t a, size_t b, cluster::NodeId parent) {
    const Entry& ea = entries[a];
    const Entry& eb = entries[b];
    if (gates.prioritize_preemptor_workloads && ea.is_preemptor != eb.is_preemptor) return ea.is_preemptor;
    const quota::Drs& da = drs[{parent, a}];
    const quota::Drs& db = drs[{parent, b}];
    if (gates.fair_sharing_prioritize_non_borrowing) {
      bool ba = da.IsBorrowingOn(requested[a]);
      bool bb = db.IsBorrowingOn(requested[b]);
      if (ba != bb) return !ba;
    }
    int c = quota::CompareDrs(da, db);
    if (c != 0) return c < 0;
    const auto& wa = state_->workload(ea.workload);
    const auto& wb = state_->workload(eb.workload);
    if (gates.priority_sorting_within_cohort && wa.priority != wb.priority) return wa.priority > wb.priority;
    return wa.queue_order_timestamp < wb.queue_order_timestamp;
  };
  auto by_name = [&](std::vector<cluster::NodeId> nodes) {
    std::sort(nodes.begin(), nodes.end(),
              [&](cluster::NodeId x, cluster::NodeId y) { return tree.name(x) < tree.name(y); });
    return nodes;
  };
  std::function<std::optional<size_t>(cluster::NodeId)> tournament =
      [&](cluster::NodeId cohort) -> std::optional<size_t> {
    std::vector<size_t> candidates;
    for (cluster::NodeId child : by_name(tree.child_cohorts(cohort))) {
      if (auto winner = tournament(child)) candidates.push_back(*winner);
    }
    for (cluster::NodeId child : by_name(tree.child_cluster_queues(cohort))) {
      auto it = entry_of_cq_node.find(child);
      if (it != entry_of_cq_node.end()) candidates.push_back(it->second);
    }
    if (candidates.empty()) return std::nullopt;
    size_t best = candidates[0];
    for (size_t k = 1; k < candidates.size(); ++k) {
      if (less(candidates[k], best, cohort)) best = candidates[k];
    }
    return best;
  };
  return *tournament(root);
}

void Scheduler::Requeue(Entry* e, CycleResult* result) {
  if (e->status != EntryStatus::kNotNominated && e->requeue_reason == RequeueReason::kGeneric) {
    e->requeue_reason = RequeueReason::kFailedAfterNomination;
  }
  cluster::WorkloadRecord& wl = state_->workload(e->workload);
  if (wl.last_assignment.has_value() && e->last_assignment.has_value()) {
    *wl.last_assignment = std::move(*e->last_assignment);  // (no new box per cycle)
  } else {
    wl.last_assignment = std::move(e->last_assignment);
  }
  // requeueAndUpdate: the QuotaReserved=False condition (not for a second
  // pass: the workload holds its quota). A reused nomination would write
  // the condition it has (see NominationMemo).
  if (!wl.HoldsQuota() && !e->reused) {
    cluster::PendingCondition next;
    next.reason = e->qr_reason;
    next.message = e->message;
    next.count = e->preempted;
    if (e->message == PendingMessage::kAssignment || e->message == PendingMessage::kAssignmentPendingPreemption) {
      next.pod_sets = e->assignment.TakeReasons();
    }
    if (cluster::UpdatePendingCondition(*state_, &wl, std::move(next), now_)) {
      result->pending_changed.push_back(e->workload);
    }
    if (e->memoizable && wl.last_assignment.has_value() && (e->requeue_reason == RequeueReason::kNoFit ||
                          e->requeue_reason == RequeueReason::kPreemptionNoCandidates)) {
      StoreNominationMemo(*e, wl);
    }
  }
  const bool pending_flavors = wl.last_assignment.has_value() && wl.last_assignment->PendingFlavors();
  queues_->Requeue(e->workload, e->requeue_reason, state_->WallTime(now_));
  if (queues_->PlacementOf(e->workload) == queue::Placement::kParked) {
    ++result->parked;
  } else if (pending_flavors && state_->gates().flavor_fungibility) {
    // The next cycle resumes the flavor scan where this one stopped.
    // Without FlavorFungibility the scan restarts at the first flavor
    // (NextFlavorToTryForPodSetResource is 0) while the recorded index is
    // the zero value, not -1: Kueue requeues the workload at once and
    // repeats the same evaluation, cycle after cycle, until something
    // changes. The simulation runs that next cycle when something changes
    // instead of spinning at one instant.
    result->requeued_with_pending_flavors.push_back(e->workload);
  }
}

CycleResult Scheduler::RunCycle(SimTime now) {
  ++cycle_;
  now_ = now;
  snapshot_ = std::make_unique<cluster::SchedulingSnapshot>(state_, now, afs_);
  preempted_in_cycle_.clear();
  temporary_usage_.clear();
  admitted_in_cycle_.clear();
  CycleResult result;
  result.cycle = cycle_;

  // The entry vectors keep their capacity from cycle to cycle (entries are
  // large; a fresh vector per cycle costs an allocation and a release of
  // many kilobytes).
  std::vector<Entry>& entries = cycle_entries_;
  std::vector<Entry>& inadmissible = cycle_inadmissible_;
  entries.clear();
  inadmissible.clear();
  Nominate(&entries, &inadmissible);
  result.heads = static_cast<int>(entries.size() + inadmissible.size());
  // (Reservations hold whole assignments: no moves as the vector grows.)
  result.reservations.reserve(entries.size());

  if (state_->fair_sharing_enabled()) {
    std::vector<bool> done(entries.size(), false);
    for (size_t k = 0; k < entries.size(); ++k) {
      size_t next = NextFairSharingEntry(entries, done);
      done[next] = true;
      ProcessEntry(&entries[next], &result);
    }
  } else {
    for (size_t index : ClassicalOrder(entries)) ProcessEntry(&entries[index], &result);
  }

  // Undo what was reserved for the cycle only.
  bool negative_reservation = false;
  for (auto it = temporary_usage_.rbegin(); it != temporary_usage_.rend(); ++it) {
    snapshot_->RemoveUsage(it->first, it->second);
    for (const FrAmount& u : it->second) negative_reservation = negative_reservation || u.amount < 0;
  }
  temporary_usage_.clear();
  if (negative_reservation) {
    // resourcesToReserve can be negative (a ClusterQueue above nominal +
    // borrowingLimit after its quota was lowered). Kueue adds it to the
    // cycle's snapshot, where addUsage does not carry a negative amount up
    // to the cohort, and throws the snapshot away; the simulation keeps its
    // one tree, so the cohorts' usage is rebuilt from the ClusterQueues'
    // (whose own usage the undo restored exactly).
    state_->tree().RecomputeCohortUsage();
  }
  snapshot_->FinishCycle();
  for (WorkloadId id : admitted_in_cycle_) state_->workload(id).admitted_in_cycle = false;

  for (Entry& e : entries) {
    if (e.status == EntryStatus::kPreemptionGated) result.preemption_gated.push_back(e.workload);
    if (e.status != EntryStatus::kAssumed && e.status != EntryStatus::kEvicted) Requeue(&e, &result);
  }
  for (Entry& e : inadmissible) Requeue(&e, &result);
  entries.clear();
  inadmissible.clear();
  snapshot_.reset();
  return result;
}

}  // namespace kueuesim::admission
