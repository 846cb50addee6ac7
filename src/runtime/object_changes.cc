// Timed changes of Kueue objects during a run (kueuesim.io/v1alpha1
// Change): quota edits and fair-sharing weights of ClusterQueues and
// cohorts, ClusterQueue and LocalQueue stop policies, WorkloadPriorityClass
// values. What Kueue's controllers do when such an object is updated:
// parked workloads are requeued, HoldAndDrain evicts, a new priority
// reaches every workload of the class.
#include <algorithm>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/runtime/cluster_runtime.h"
#include "queue/queue_manager.h"

namespace kueuesim::runtime {

using cluster::ClusterQueueInfo;
using cluster::WorkloadPhase;
using cluster::WorkloadRecord;

namespace {

absl::Status ChangeError(const model::Change& change, std::string_view field, const std::string& message) {
  return InvalidArgument(fmt::format("{}: Change \"{}\": {}: {}", change.source.ToString(), change.name, field, message));
}

std::string QuotaNames(const cluster::ClusterState& state, quota::NodeId node) {
  std::string names;
  for (quota::FrId fr : state.tree().defined_frs(node)) {
    names += fmt::format("{}{}/{}", names.empty() ? "" : ", ", state.flavor(state.fr_flavor(fr)).name,
                         state.resource_name(state.fr_resource(fr)));
  }
  return names.empty() ? "none" : names;
}

}  // namespace

absl::Status ClusterRuntime::ResolveObjectChanges(const scenario::ClusterSpec& spec) {
  for (const model::Change& change : spec.changes) {
    const std::string& kind = change.target_kind;
    if (kind != "ClusterQueue" && kind != "Cohort" && kind != "LocalQueue" && kind != "WorkloadPriorityClass") {
      continue;
    }
    ObjectChange resolved;
    resolved.change = change;
    if (kind == "ClusterQueue") {
      resolved.cq = state_->FindClusterQueue(change.target_name);
      if (resolved.cq == kNone) {
        return ChangeError(change, "spec.target.name", fmt::format("no ClusterQueue \"{}\"", change.target_name));
      }
      resolved.node = state_->cq(resolved.cq).node;
    } else if (kind == "Cohort") {
      resolved.node = state_->FindCohortNode(change.target_name);
      if (resolved.node == quota::kNoNode) {
        return ChangeError(change, "spec.target.name", fmt::format("no Cohort \"{}\"", change.target_name));
      }
    } else if (kind == "LocalQueue") {
      resolved.lq = state_->FindLocalQueue(change.target_namespace, change.target_name);
      if (resolved.lq == kNone) {
        return ChangeError(change, "spec.target",
                           fmt::format("no LocalQueue \"{}/{}\"", change.target_namespace, change.target_name));
      }
    } else if (std::none_of(spec.workload_priority_classes.begin(), spec.workload_priority_classes.end(),
                            [&](const model::WorkloadPriorityClass& wpc) { return wpc.meta.name == change.target_name; })) {
      return ChangeError(change, "spec.target.name",
                         fmt::format("no WorkloadPriorityClass \"{}\"", change.target_name));
    }
    for (size_t i = 0; i < change.quota_edits.size(); ++i) {
      const model::Change::QuotaEdit& edit = change.quota_edits[i];
      const cluster::FlavorId flavor = state_->FindFlavor(edit.flavor);
      const cluster::ResourceId resource = state_->FindResource(edit.resource);
      const quota::FrId fr = flavor == kNone || resource == kNone ? kNone : state_->FindFr(flavor, resource);
      const std::vector<quota::FrId>& defined = state_->tree().defined_frs(resolved.node);
      if (fr == kNone || std::find(defined.begin(), defined.end(), fr) == defined.end()) {
        return ChangeError(
            change, fmt::format("spec.resources[{}]", i),
            fmt::format("{} \"{}\" has no quota for flavor \"{}\" and resource \"{}\" (it has: {}); declare it "
                        "with nominalQuota \"0\" to change it later",
                        kind, change.target_name, edit.flavor, edit.resource, QuotaNames(*state_, resolved.node)));
      }
      resolved.edits.emplace_back(fr, edit);
    }
    object_changes_.push_back(std::move(resolved));
  }
  return absl::OkStatus();
}

bool ClusterRuntime::HeldByLocalQueue(const WorkloadRecord& wl) const {
  return wl.lq != kNone && state_->lq(wl.lq).stop_policy != model::StopPolicy::kNone;
}

void ClusterRuntime::ApplyObjectChange(const ObjectChange& resolved) {
  const model::Change& change = resolved.change;
  quota::QuotaTree& tree = state_->tree();
  const std::string object = change.target_kind + "/" +
                             (change.target_kind == "LocalQueue" ? change.target_namespace + "/" : "") +
                             change.target_name;
  {
    cluster::SimEvent event;
    event.type = EventType::kChanged;
    event.time = engine_->now();
    event.cycle = cycle();
    event.cluster = state_.get();
    event.cq = resolved.cq;
    event.object = object;
    event.reason = change.name;
    EmitEvent(event);
  }
  bool requeue = false;
  for (const auto& [fr, edit] : resolved.edits) {
    quota::FrQuota q = tree.quota(resolved.node, fr);
    if (edit.nominal.has_value()) q.nominal = *edit.nominal;
    if (edit.set_borrowing_limit) q.borrowing_limit = edit.borrowing_limit.value_or(quota::kNoLimit);
    if (edit.set_lending_limit) q.lending_limit = edit.lending_limit.value_or(quota::kNoLimit);
    state_->UpdateQuota(resolved.node, fr, q);
    requeue = true;
  }
  if (change.fair_weight.has_value()) {
    tree.SetFairWeight(resolved.node, *change.fair_weight);
    requeue = true;
  }
  if (change.stop_policy.has_value() && resolved.cq != kNone) {
    const model::StopPolicy policy = *change.stop_policy;
    state_->SetClusterQueueStopped(resolved.cq, policy != model::StopPolicy::kNone);
    if (policy == model::StopPolicy::kHoldAndDrain) {
      // Copy: evictions edit the holding list once their quota is released.
      const std::vector<WorkloadId> holding = state_->cq(resolved.cq).holding;
      for (WorkloadId id : holding) Evict(id, EvictionReason::kClusterQueueStopped);
    }
    // A restarted (active again) ClusterQueue wakes the scheduler at once
    // for the workloads in its heap, and its parked ones are requeued.
    requeue = requeue || policy == model::StopPolicy::kNone;
    needs_cycle_ = true;
    // The workload controller reconciles the ClusterQueue's workloads.
    SyncControllerConditions(resolved.cq, kNone);
  }
  if (change.stop_policy.has_value() && resolved.lq != kNone) {
    const model::StopPolicy policy = *change.stop_policy;
    const bool was_stopped = state_->lq(resolved.lq).stop_policy != model::StopPolicy::kNone;
    state_->SetLocalQueueStopPolicy(resolved.lq, policy);
    for (WorkloadId id = 0; id < state_->num_workloads(); ++id) {
      WorkloadRecord& wl = state_->workload(id);
      if (wl.lq != resolved.lq) continue;
      if (policy == model::StopPolicy::kNone) {
        // Restarted: its held workloads go to their queue.
        if (was_stopped && wl.phase == WorkloadPhase::kPending && wl.queue_state == cluster::QueueState::kNotQueued &&
            !wl.requeued_condition_false && queues_->AddOrUpdate(id, WallNow(), /*reevaluate=*/true)) {
          needs_cycle_ = true;
        }
        continue;
      }
      if (wl.phase == WorkloadPhase::kPending && wl.queue_state != cluster::QueueState::kNotQueued) {
        queues_->Delete(id);
        Emit(EventType::kHeld, id, state_->ClusterQueueOf(wl), kNone, "LocalQueueStopped");
      } else if (policy == model::StopPolicy::kHoldAndDrain && wl.admission.has_value()) {
        Evict(id, EvictionReason::kLocalQueueStopped);
      }
    }
    SyncControllerConditions(kNone, resolved.lq);
  }
  if (change.priority_value.has_value()) {
    state_->SetWorkloadPriorityClassValue(change.target_name, *change.priority_value);
    // The WorkloadPriorityClass controller updates every workload of the
    // class; pending ones are re-sorted in their queue.
    for (WorkloadId id = 0; id < state_->num_workloads(); ++id) {
      WorkloadRecord& wl = state_->workload(id);
      if (wl.phase == WorkloadPhase::kNotArrived && wl.spec == nullptr) continue;  // released record
      if (wl.phase == WorkloadPhase::kFinished || !state_->UsesWorkloadPriorityClass(wl, change.target_name)) continue;
      if (wl.priority == *change.priority_value) continue;
      state_->UpdatePriority(id, *change.priority_value);
      if (wl.queue_state != cluster::QueueState::kNotQueued) queues_->AddOrUpdate(id, WallNow(), /*reevaluate=*/true);
    }
    needs_cycle_ = true;
  }
  if (requeue && resolved.node != quota::kNoNode) {
    // A ClusterQueue or cohort update notifies the inadmissible-workload
    // requeuer for its whole tree: its parked workloads go back to their
    // queues after the usual 1 s batching delay.
    NotifyRequeueScope(tree.Root(resolved.node));
  }
}

}  // namespace kueuesim::runtime
