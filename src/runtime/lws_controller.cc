// LeaderWorkerSet under Kueue; see lws_controller.h.
#include "kueuesim/runtime/lws_controller.h"

#include <algorithm>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/cluster/pending_condition.h"

namespace kueuesim::runtime {

using cluster::EventType;
using cluster::WorkloadPhase;
using cluster::WorkloadRecord;

LwsController::LwsController(ClusterRuntime* runtime, model::LeaderWorkerSet spec,
                             std::vector<model::Change> changes, LwsOptions options)
    : runtime_(runtime), spec_(std::move(spec)), changes_(std::move(changes)), options_(options) {
  key_ = spec_.meta.namespace_ + "/" + spec_.meta.name;
  report_.name = key_;
  report_.replicas = spec_.replicas;
  report_.size = spec_.size;
}

LwsController::Group& LwsController::group(int32_t index) {
  if (static_cast<size_t>(index) >= groups_.size()) groups_.resize(static_cast<size_t>(index) + 1);
  return groups_[static_cast<size_t>(index)];
}

void LwsController::Start() {
  owner_id_ = runtime_->RegisterOwner(this);
  for (size_t i = 0; i < changes_.size(); ++i) {
    runtime_->engine()->Schedule(changes_[i].at, this, kChange, static_cast<int64_t>(i));
  }
  report_.ready_groups.emplace_back(runtime_->engine()->now(), 0);
  Reconcile();
}

bool LwsController::Admitted(int32_t index) const {
  if (static_cast<size_t>(index) >= groups_.size()) return false;
  const Group& g = groups_[static_cast<size_t>(index)];
  if (g.workload == kNone) return false;
  const WorkloadRecord& wl = runtime_->state().workload(g.workload);
  return wl.phase == WorkloadPhase::kAdmitted && !wl.evicted;
}

bool LwsController::Updated(const Group& g) const {
  return g.leader_exists && !g.terminating && g.revision == update_revision_;
}

std::string LwsController::GroupWorkloadName(int32_t index) const {
  return fmt::format("leaderworkerset-{}-{}", spec_.meta.name, index);
}

model::Workload LwsController::GroupWorkload(int32_t index) const {
  // One Workload per group, as Kueue's LWS integration builds it: pod sets
  // leader (1) + worker (size-1), or main (size); no duration: serving.
  model::Workload wl;
  wl.meta.name = GroupWorkloadName(index);
  wl.meta.namespace_ = spec_.meta.namespace_;
  wl.meta.source = spec_.meta.source;
  wl.queue_name = spec_.queue_name;
  // Kueue's LWS reconciler copies the admission gate to every group's
  // Workload (PropagateAdmissionGatedByAnnotation, AdmissionGatedBy gate).
  if (auto gate = spec_.meta.annotations.find(cluster::kAdmissionGatedByAnnotation);
      gate != spec_.meta.annotations.end()) {
    wl.meta.annotations[gate->first] = gate->second;
  }
  // Priority is resolved as for any job integration (the LWS webhook applies
  // the default WorkloadPriorityClass; pods' priorityClassName next).
  wl.source_kind = model::WorkloadSourceKind::kJob;
  if (!spec_.priority_class_name.empty()) {
    wl.priority_class_name = spec_.priority_class_name;
    wl.rare.Mutable().priority_class_source = "kueue.x-k8s.io/workloadpriorityclass";
  }
  // podSets(): the worker pod set is always there, of size - 1 pods next to
  // a leader (none when size is 1).
  if (spec_.leader_template.has_value()) wl.pod_sets.push_back(*spec_.leader_template);
  wl.pod_sets.push_back(spec_.worker_template);
  // Groups created together queue in index order (decisions.md: input
  // order), as they have the same priority and creation time.
  wl.input_sequence = spec_.input_sequence;
  wl.input_subsequence = index;
  return wl;
}

int32_t LwsController::KueueMaxSurge() const {
  auto surge = workloads::IntOrPercent::Parse(spec_.max_surge);
  if (!surge.ok()) return 0;
  if (!surge->percent) return surge->value;
  return options_.kueue_percentage_surge_fixed ? surge->Scaled(spec_.replicas, true) : 0;
}

int32_t LwsController::StatusReplicas() const {
  int32_t count = 0;
  for (const Group& g : groups_) count += g.leader_exists ? 1 : 0;
  return count;
}

int32_t LwsController::StatusUpdatedReplicas() const {
  // LWS's updateConditions: every leader pod listed (a terminating one
  // too) whose worker StatefulSet exists, both on the latest revision.
  // Under LeaderReady the worker StatefulSet is created only once the
  // leader is ready, so a group counts from then on.
  int32_t count = 0;
  for (const Group& g : groups_) {
    if (g.leader_exists && (spec_.size == 1 || g.workers_exist) && g.revision == update_revision_) ++count;
  }
  return count;
}

int32_t LwsController::DesiredWorkloads() const {
  // Kueue's filterWorkloads: Workloads for the indices [0, spec.replicas),
  // and for [0, status.replicas) while a rolling update with surge is in
  // progress: maxSurge (IntValue) > 0 and status.updatedReplicas <
  // spec.replicas.
  int32_t desired = spec_.replicas;
  const int32_t kueue_surge = KueueMaxSurge();
  const int32_t status_replicas = StatusReplicas();
  if (kueue_surge > 0 && status_replicas > desired && StatusUpdatedReplicas() < spec_.replicas) {
    desired = status_replicas;
  }
  if (options_.surge_workloads == KueueSurgeWorkloads::kFixed && kueue_surge > 0) {
    // Fixed: a surge group keeps its Workload until its leader is gone.
    for (int32_t i = static_cast<int32_t>(groups_.size()) - 1; i >= desired; --i) {
      const Group& g = groups_[static_cast<size_t>(i)];
      if (g.surge && g.leader_exists) {
        desired = i + 1;
        break;
      }
    }
  }
  return desired;
}

void LwsController::EnsureWorkloads() {
  const SimTime now = runtime_->engine()->now();
  const int32_t desired = DesiredWorkloads();
  for (int32_t i = 0; i < desired; ++i) {
    Group& g = group(i);
    if (g.workload != kNone) continue;
    if (i >= spec_.replicas && g.stops >= kMaxStopsPerRollout) continue;  // churn no longer followed
    if (g.workload_deleted_at == now) {
      // Deleted in this instant: the reconcile that creates it again is the
      // one the deletion requeues, UpdatesBatchPeriod later (kueue#9631).
      if (!kueue_reconcile_pending_) {
        kueue_reconcile_pending_ = true;
        runtime_->engine()->ScheduleAfter(kSecond, this, kKueueReconcile, 0);
      }
      continue;
    }
    if (g.deleted_workload != kNone) {
      runtime_->DeleteWorkload(g.deleted_workload, /*release_record=*/true);  // frees its name
      g.deleted_workload = kNone;
    }
    auto id = runtime_->AddOwnedWorkload(GroupWorkload(i), owner_id_, i);
    KUEUESIM_CHECK_MSG(id.ok(), StatusMessage(id.status()));
    g.workload = *id;
    if (i >= spec_.replicas) runtime_->EmitOwnerEvent(EventType::kSurgeCreated, key_, i, g.workload);
  }
  for (int32_t i = desired; i < static_cast<int32_t>(groups_.size()); ++i) {
    Group& g = groups_[static_cast<size_t>(i)];
    if (g.workload == kNone) continue;
    // Kueue deletes the Workload (and so releases its quota) as soon as
    // the index is out of its range. If the group's pods run, the
    // pod-group reconciler stops them (StopGroupsWithoutWorkload).
    runtime_->DeleteWorkload(g.workload);
    // Its record stays (for the outputs) until the name is taken again,
    // unless the runtime recycles finished records (a streamed trace): then
    // it is released now, and its id may soon hold another Workload.
    const bool record_kept = runtime_->state().workload(g.workload).phase == WorkloadPhase::kFinished;
    g.deleted_workload = record_kept ? g.workload : kNone;
    g.workload = kNone;
    g.workload_deleted_at = now;
  }
}

bool LwsController::StopGroupsWithoutWorkload() {
  bool stopped = false;
  // Kueue's pod-group reconciler finds the prebuilt Workload gone and stops
  // the group ("missing workload"): it deletes every pod that is not gated
  // and not already terminating. The StatefulSet recreates the leader (if
  // it keeps the index), gated.
  for (int32_t i = 0; i < static_cast<int32_t>(groups_.size()); ++i) {
    Group& g = groups_[static_cast<size_t>(i)];
    if (g.workload != kNone || !g.leader_exists || g.terminating) continue;
    if (!g.leader_started && !g.workers_started) continue;  // gated: nothing to stop
    runtime_->EmitOwnerEvent(EventType::kGroupStopped, key_, i, kNone,
                             "Kueue deleted the group's Workload; its pods are deleted");
    if (rolling_ && !report_.rollouts.empty()) ++report_.rollouts.back().groups_stopped;
    ++g.stops;
    Terminate(i, /*remove=*/false);
    stopped = true;
  }
  return stopped;
}

bool LwsController::GroupInFlight() const {
  for (int32_t i = 0; i < static_cast<int32_t>(groups_.size()); ++i) {
    const Group& g = groups_[static_cast<size_t>(i)];
    if (!g.leader_exists || g.ready) continue;
    if (g.terminating && !g.removing) return true;  // comes back on its own
    if (!g.terminating && (g.leader_started || g.workers_started)) return true;  // starting
  }
  return false;
}

void LwsController::CreateLeader(int32_t index, int32_t revision) {
  Group& g = group(index);
  g.leader_exists = true;
  g.terminating = false;
  g.removing = false;
  g.surge = index >= spec_.replicas;
  g.revision = revision;
  g.leader_started = g.leader_ready = false;
  g.workers_exist = !spec_.startup_leader_ready && spec_.size > 1;
  g.workers_started = g.workers_ready = false;
  ++g.generation;
  runtime_->EmitOwnerEvent(EventType::kGroupCreated, key_, index, g.workload);
  StartPods(index);
}

void LwsController::StartPods(int32_t index) {
  Group& g = group(index);
  if (!Admitted(index) || !g.leader_exists || g.terminating) return;
  engine::Engine* engine = runtime_->engine();
  if (!g.leader_started) {
    g.leader_started = true;
    engine->ScheduleAfter(spec_.leader_startup_delay, this, kLeaderReady, index, g.generation);
  }
  if (g.workers_exist && !g.workers_started) {
    g.workers_started = true;
    engine->ScheduleAfter(spec_.worker_startup_delay, this, kWorkersReady, index, g.generation);
  }
}

void LwsController::Terminate(int32_t index, bool remove) {
  Group& g = group(index);
  if (!g.leader_exists || g.terminating) return;
  g.terminating = true;
  g.removing = remove;
  g.leader_ready = g.workers_ready = false;
  ++g.generation;
  UpdateReadiness(index);
  runtime_->engine()->ScheduleAfter(options_.termination_delay, this, kTerminated, index, g.generation);
}

void LwsController::UpdateReadiness(int32_t index) {
  Group& g = group(index);
  const bool ready = g.leader_exists && !g.terminating && g.leader_ready &&
                     (spec_.size == 1 || (g.workers_exist && g.workers_ready));
  if (g.workload != kNone) runtime_->SetPodsReady(g.workload, ready && Admitted(index));
  if (ready == g.ready) return;
  g.ready = ready;
  const int32_t ready_groups = ReadyGroups();
  runtime_->EmitOwnerEvent(ready ? EventType::kGroupReady : EventType::kGroupNotReady, key_, index, g.workload,
                           {}, ready_groups);
  report_.ready_groups.emplace_back(runtime_->engine()->now(), ready_groups);
  if (rolling_ && !report_.rollouts.empty()) {
    auto& rollout = report_.rollouts.back();
    rollout.min_ready_groups = std::min(rollout.min_ready_groups, ready_groups);
  }
}

int32_t LwsController::ReadyGroups() const {
  int32_t count = 0;
  for (const Group& g : groups_) count += g.ready ? 1 : 0;
  return count;
}

void LwsController::OnAdmitted(WorkloadId /*id*/, int32_t index) {
  StartPods(index);
  UpdateReadiness(index);
  Reconcile();
}

void LwsController::OnEvicted(WorkloadId /*id*/, int32_t index) {
  // Kueue stops the group's pods; the StatefulSets recreate them gated.
  Group& g = group(index);
  g.leader_started = g.leader_ready = false;
  g.workers_started = g.workers_ready = false;
  if (spec_.startup_leader_ready) g.workers_exist = false;
  // Cancels pending readiness; a leader already terminating keeps its
  // termination (its pods go away whatever Kueue does), and the group is
  // recreated when it completes.
  if (!g.terminating) ++g.generation;
  UpdateReadiness(index);
  Reconcile();
}

void LwsController::OnRequeued(WorkloadId /*id*/, int32_t /*index*/) { CheckStall(); }

void LwsController::HandleEvent(int32_t kind, int64_t a, int64_t b) {
  const int32_t index = static_cast<int32_t>(a);
  if (kind == kChange) {
    ApplyChange(changes_[static_cast<size_t>(a)]);
    return;
  }
  if (kind == kStallCheck) {
    ConfirmStall();
    return;
  }
  if (kind == kKueueReconcile) {
    kueue_reconcile_pending_ = false;
    Reconcile();
    return;
  }
  if (static_cast<size_t>(index) >= groups_.size()) return;
  Group& g = groups_[static_cast<size_t>(index)];
  if (static_cast<uint32_t>(b) != g.generation) return;  // stale
  switch (kind) {
    case kLeaderReady:
      g.leader_ready = true;
      if (spec_.startup_leader_ready && spec_.size > 1 && !g.workers_exist) {
        // LeaderReady: the worker StatefulSet is created now.
        g.workers_exist = true;
        StartPods(index);
      }
      break;
    case kWorkersReady:
      g.workers_ready = true;
      break;
    case kTerminated: {
      const bool removed = g.removing;
      g.leader_exists = g.terminating = g.removing = false;
      g.workers_exist = g.leader_started = g.workers_started = false;
      if (removed && g.surge) {
        runtime_->EmitOwnerEvent(EventType::kSurgeReleased, key_, index, g.workload);
      }
      break;
    }
    default:
      break;
  }
  UpdateReadiness(index);
  Reconcile();
}

void LwsController::ApplyChange(const model::Change& change) {
  if (change.replicas.has_value() && *change.replicas != spec_.replicas) {
    report_.scales.push_back({runtime_->engine()->now(), spec_.replicas, *change.replicas, -1});
    spec_.replicas = *change.replicas;
    report_.replicas = spec_.replicas;
    replicas_changed_ = true;
    scaling_ = true;
    runtime_->EmitOwnerEvent(EventType::kScaled, key_, -1, kNone, {}, spec_.replicas);
  }
  if (change.partition.has_value()) spec_.partition = *change.partition;
  if (change.rollout) {
    if (stalled_) {
      // The stall belongs to the rollout this one supersedes.
      report_.rollouts.back().stalls.back().end = runtime_->engine()->now();
      stalled_ = false;
      blocked_since_ = -1;
    }
    for (Group& g : groups_) g.stops = 0;
    ++update_revision_;
    new_revision_ = true;
    rolling_ = true;
    LwsReport::Rollout rollout;
    rollout.start = runtime_->engine()->now();
    rollout.min_ready_groups = ReadyGroups();
    report_.rollouts.push_back(rollout);
    runtime_->EmitOwnerEvent(EventType::kRolloutStarted, key_, -1, kNone);
  }
  if (change.fail_group.has_value()) {
    const int32_t index = *change.fail_group;
    if (static_cast<size_t>(index) < groups_.size() && groups_[static_cast<size_t>(index)].leader_exists) {
      Group& g = groups_[static_cast<size_t>(index)];
      const bool incomplete = !g.ready;
      if (spec_.restart_policy == "RecreateGroupOnPodRestart" ||
          (spec_.restart_policy == "RecreateGroupAfterStart" && !incomplete)) {
        // The whole group is recreated: its leader is deleted and comes back
        // with the same revision; the Workload keeps its quota.
        Terminate(index, /*remove=*/false);
      } else if (g.workers_started || g.leader_started) {
        // Only the failed pod restarts (a worker, or the leader of size 1).
        if (spec_.size > 1) {
          g.workers_ready = false;
          g.workers_started = false;
        } else {
          g.leader_ready = false;
          g.leader_started = false;
        }
        ++g.generation;
        UpdateReadiness(index);
        StartPods(index);
      }
    }
  }
  Reconcile();
}

void LwsController::Reconcile() {
  // Each pass is one LWS reconcile followed by the StatefulSet controller's
  // step; LWS reconciles again whenever it changed the StatefulSet
  // (partition or replicas) or the StatefulSet changed its pods.
  for (int iteration = 0; iteration < 64; ++iteration) {
    const int32_t previous_partition = sts_partition_;
    const int32_t previous_replicas = sts_replicas_;
    const bool previously_existed = sts_exists_;
    workloads::RolloutInput in;
    in.replicas = spec_.replicas;
    in.partition = spec_.partition;
    in.max_unavailable = *workloads::IntOrPercent::Parse(spec_.max_unavailable);
    in.max_surge = *workloads::IntOrPercent::Parse(spec_.max_surge);
    in.sts_exists = sts_exists_;
    in.sts_replicas = sts_replicas_;
    in.sts_partition = sts_partition_;
    in.new_revision = new_revision_;
    in.replicas_changed = replicas_changed_;
    in.version = options_.version;
    for (int32_t i = 0; i < sts_replicas_; ++i) {
      const Group& g = group(i);
      in.groups.push_back({g.leader_exists && !g.terminating, g.ready, Updated(g)});
    }
    const workloads::RolloutDecision d = workloads::ComputeRollout(in);
    new_revision_ = false;
    replicas_changed_ = false;
    sts_exists_ = true;
    sts_partition_ = d.partition;
    sts_replicas_ = d.replicas;

    std::vector<workloads::LeaderView> leaders;
    for (size_t i = 0; i < groups_.size(); ++i) {
      const Group& g = groups_[i];
      leaders.push_back({g.leader_exists, g.revision == update_revision_, g.leader_ready, g.terminating});
    }
    workloads::StatefulSetAction action =
        workloads::StatefulSetStep(leaders, d.replicas, d.partition, d.sts_max_unavailable, options_.replacement);
    for (int32_t i : action.remove) Terminate(i, /*remove=*/true);
    for (int32_t i : action.replace) {
      runtime_->EmitOwnerEvent(EventType::kGroupReplaced, key_, i, group(i).workload);
      Terminate(i, /*remove=*/false);
    }
    for (int32_t i : action.create) {
      if (group(i).terminating) continue;  // comes back once terminated
      const int32_t revision = i >= d.partition ? update_revision_ : current_revision_;
      CreateLeader(i, revision);
    }
    // Kueue reads the LWS status once the StatefulSet has synced (its
    // status.replicas counts the pods it has just created), creates and
    // deletes the group Workloads, and its pod-group reconciler stops the
    // groups whose Workload is gone.
    EnsureWorkloads();
    const bool stopped = StopGroupsWithoutWorkload();
    // Drop groups the StatefulSet no longer has.
    while (!groups_.empty() && static_cast<int32_t>(groups_.size()) > sts_replicas_ &&
           !groups_.back().leader_exists && groups_.back().workload == kNone) {
      // Its deleted Workload's record goes too, so that the name is free
      // for a later surge at this index.
      if (groups_.back().deleted_workload != kNone) {
        runtime_->DeleteWorkload(groups_.back().deleted_workload, /*release_record=*/true);
      }
      groups_.pop_back();
    }
    const bool acted = stopped || !action.remove.empty() || !action.replace.empty() ||
                       std::any_of(action.create.begin(), action.create.end(),
                                   [&](int32_t i) { return !group(i).terminating; });
    const bool sts_changed =
        !previously_existed || d.partition != previous_partition || d.replicas != previous_replicas;
    if (!acted && !sts_changed) break;
  }
  TrackProgress();
  CheckStall();
}

void LwsController::TrackProgress() {
  const engine::Engine* engine = runtime_->engine();
  bool all_desired_ready_updated = true;
  for (int32_t i = 0; i < spec_.replicas; ++i) {
    const Group& g = group(i);
    if (!g.ready || !Updated(g)) all_desired_ready_updated = false;
  }
  if (rolling_ && sts_partition_ == 0 && sts_replicas_ == spec_.replicas && all_desired_ready_updated) {
    rolling_ = false;
    current_revision_ = update_revision_;
    if (!report_.rollouts.empty()) report_.rollouts.back().end = engine->now();
    runtime_->EmitOwnerEvent(EventType::kRolloutCompleted, key_, -1, kNone);
  }
  if (scaling_ && all_desired_ready_updated && sts_replicas_ == spec_.replicas) {
    scaling_ = false;
    if (!report_.scales.empty()) report_.scales.back().all_ready_at = engine->now();
  }
  if (rolling_ && !report_.rollouts.empty()) {
    // Extra quota taken by surge groups (indices beyond spec.replicas).
    auto& rollout = report_.rollouts.back();
    int32_t surge_groups = 0;
    std::map<std::string, Amount> quota;
    const cluster::ClusterState& state = runtime_->state();
    for (int32_t i = spec_.replicas; i < static_cast<int32_t>(groups_.size()); ++i) {
      const Group& g = groups_[static_cast<size_t>(i)];
      if (g.workload == kNone || !state.workload(g.workload).admission.has_value()) continue;
      ++surge_groups;
      for (const auto& ps : state.workload(g.workload).admission->pod_sets) {
        for (const auto& e : ps.entries) {
          quota[state.resource_name(e.resource)] = AddAmounts(quota[state.resource_name(e.resource)], e.usage);
        }
      }
    }
    if (surge_groups > rollout.peak_surge_groups) {
      rollout.peak_surge_groups = surge_groups;
      rollout.peak_surge_quota = quota;
    }
  }
}

int32_t LwsController::BlockedGroup(std::string* reason) const {
  // A rollout stalls when nothing is on its way (no group terminating to
  // be recreated, none starting) and a group it waits for cannot start: its
  // Workload is pending (no quota) or, for a surge group, does not exist.
  if (!rolling_ || GroupInFlight()) return -1;
  for (int32_t i = 0; i < static_cast<int32_t>(groups_.size()); ++i) {
    const Group& g = groups_[static_cast<size_t>(i)];
    if (!g.leader_exists || g.terminating || g.ready) continue;
    if (g.workload == kNone) {
      // A Workload being created again (UpdatesBatchPeriod) is on its way.
      if (i < spec_.replicas || kueue_reconcile_pending_) continue;
      *reason = g.stops >= kMaxStopsPerRollout
                    ? fmt::format("no Workload for the surge group (Kueue stopped it {} times, each time its "
                                  "leader was ready; kueuesim follows no further)",
                                  g.stops)
                : KueueMaxSurge() == 0
                    ? "no Workload for the surge group (Kueue reads a percentage maxSurge as 0)"
                    : "no Workload for the surge group (Kueue keeps surge Workloads only while fewer than "
                      "spec.replicas groups are updated)";
      return i;
    }
    // Pending, or evicted (preempted): from the preemption on, the group's
    // pods are stopped and it waits for quota again.
    const WorkloadRecord& wl = runtime_->state().workload(g.workload);
    if (wl.phase == WorkloadPhase::kPending || wl.evicted) {
      *reason = "the group's Workload waits for quota";
      return i;
    }
  }
  return -1;
}

void LwsController::CheckStall() {
  const SimTime now = runtime_->engine()->now();
  std::string reason;
  const int32_t blocked = BlockedGroup(&reason);
  if (stalled_) {
    LwsReport::Stall& current = report_.rollouts.back().stalls.back();
    if (blocked < 0) {
      stalled_ = false;
      blocked_since_ = -1;
      current.end = now;
      runtime_->EmitOwnerEvent(EventType::kRolloutResumed, key_, -1, kNone);
      return;
    }
    if (blocked != current.group || reason != current.reason) {
      // Still stalled, but on another group or for another reason: a new
      // stall record from now on.
      const WorkloadId workload = groups_[static_cast<size_t>(blocked)].workload;
      if (current.start == now) {
        current.group = blocked;
        current.reason = reason;
      } else {
        current.end = now;
        report_.rollouts.back().stalls.push_back({now, -1, blocked, reason});
      }
      runtime_->EmitOwnerEvent(EventType::kRolloutStalled, key_, blocked, workload, reason);
    }
    return;
  }
  if (blocked < 0) {
    blocked_since_ = -1;
    return;
  }
  // Declared only if it lasts beyond this instant (the scheduler may admit
  // the group in a cycle at the same time).
  if (blocked_since_ < 0) blocked_since_ = now;
  if (!stall_check_pending_) {
    stall_check_pending_ = true;
    runtime_->engine()->ScheduleAfter(kMicrosecond, this, kStallCheck, 0);
  }
}

void LwsController::ConfirmStall() {
  stall_check_pending_ = false;
  std::string reason;
  const int32_t blocked = BlockedGroup(&reason);
  if (blocked < 0 || stalled_ || report_.rollouts.empty()) {
    if (blocked < 0) blocked_since_ = -1;
    return;
  }
  stalled_ = true;
  report_.rollouts.back().stalls.push_back({blocked_since_, -1, blocked, reason});
  runtime_->EmitOwnerEvent(EventType::kRolloutStalled, key_, blocked, groups_[static_cast<size_t>(blocked)].workload,
                           reason);
}

// --- Invariants ---

absl::Status LwsController::CheckGroupTable(const std::string& where) const {
  const cluster::ClusterState& state = runtime_->state();
  const auto violation = [&](std::string_view invariant, int32_t index, const std::string& detail) {
    return absl::InternalError(fmt::format("invariant violated: {} ({}): LeaderWorkerSet {} group {}: {}", invariant,
                                           where, key_, index, detail));
  };
  const auto workload_text = [&](WorkloadId id) {
    const WorkloadRecord& wl = state.workload(id);
    return fmt::format("\"{}\" ({}{})", wl.key, cluster::WorkloadPhaseName(wl.phase), wl.evicted ? ", evicted" : "");
  };
  const auto kept = [](const WorkloadRecord& wl) {
    return wl.spec != nullptr && (wl.phase == WorkloadPhase::kPending || wl.phase == WorkloadPhase::kQuotaReserved ||
                                  wl.phase == WorkloadPhase::kAdmitted || wl.phase == WorkloadPhase::kDeactivated);
  };

  // The group's Workload is this LeaderWorkerSet's, of that group.
  for (int32_t i = 0; i < static_cast<int32_t>(groups_.size()); ++i) {
    const WorkloadId id = groups_[static_cast<size_t>(i)].workload;
    if (id == kNone) continue;
    constexpr std::string_view kOwn = "a LeaderWorkerSet group's Workload is its own";
    if (id < 0 || id >= state.num_workloads()) {
      return violation(kOwn, i, fmt::format("its Workload id {} is not a Workload of the cluster", id));
    }
    const WorkloadRecord& wl = state.workload(id);
    if (!kept(wl)) return violation(kOwn, i, fmt::format("its Workload {} is gone", workload_text(id)));
    const std::string expected = fmt::format("{}/{}", spec_.meta.namespace_, GroupWorkloadName(i));
    if (wl.owner != owner_id_ || wl.owner_index != i || wl.key != expected) {
      return violation(kOwn, i,
                       fmt::format("its Workload {} belongs to owner #{} group {}; expected \"{}\" of owner #{}",
                                   workload_text(id), wl.owner, wl.owner_index, expected, owner_id_));
    }
  }

  // The record of a group's deleted Workload, kept until the name is taken
  // again, is still that Workload's (not a record released and reused).
  for (int32_t i = 0; i < static_cast<int32_t>(groups_.size()); ++i) {
    const WorkloadId id = groups_[static_cast<size_t>(i)].deleted_workload;
    if (id == kNone) continue;
    const bool own = id >= 0 && id < state.num_workloads() && state.workload(id).phase == WorkloadPhase::kFinished &&
                     state.workload(id).owner == owner_id_ && state.workload(id).owner_index == i;
    if (!own) {
      return violation("a LeaderWorkerSet group's deleted Workload is its own", i,
                       id >= 0 && id < state.num_workloads()
                           ? fmt::format("the record kept for its deleted Workload is now {}", workload_text(id))
                           : fmt::format("the record kept for its deleted Workload has id {}", id));
    }
  }

  // Every Workload of this LeaderWorkerSet is its group's.
  for (WorkloadId id = 0; id < state.num_workloads(); ++id) {
    const WorkloadRecord& wl = state.workload(id);
    if (wl.owner != owner_id_ || !kept(wl)) continue;
    const bool listed = wl.owner_index >= 0 && static_cast<size_t>(wl.owner_index) < groups_.size() &&
                        groups_[static_cast<size_t>(wl.owner_index)].workload == id;
    if (!listed) {
      return violation("every Workload of a LeaderWorkerSet is its group's", wl.owner_index,
                       fmt::format("Workload {} is not the group's Workload", workload_text(id)));
    }
  }

  // Pods run only while the group's Workload is admitted.
  for (int32_t i = 0; i < static_cast<int32_t>(groups_.size()); ++i) {
    const Group& g = groups_[static_cast<size_t>(i)];
    if (!g.leader_exists || g.terminating || !(g.leader_started || g.workers_started)) continue;
    if (Admitted(i)) continue;
    return violation("a LeaderWorkerSet group's pods run only while its Workload is admitted", i,
                     g.workload == kNone
                         ? std::string("its pods were started and it has no Workload")
                         : fmt::format("its pods were started and its Workload is {}", workload_text(g.workload)));
  }

  // Exactly the groups Kueue keeps Workloads for have one.
  const int32_t desired = DesiredWorkloads();
  const SimTime now = runtime_->engine()->now();
  const auto kueue_range = [&] {
    return fmt::format(
        "Kueue keeps Workloads for groups [0, {}) (spec.replicas {}, status.replicas {}, status.updatedReplicas {}, "
        "maxSurge as Kueue reads it {})",
        desired, spec_.replicas, StatusReplicas(), StatusUpdatedReplicas(), KueueMaxSurge());
  };
  const int32_t end = std::max(desired, static_cast<int32_t>(groups_.size()));
  for (int32_t i = 0; i < end; ++i) {
    const Group* g = static_cast<size_t>(i) < groups_.size() ? &groups_[static_cast<size_t>(i)] : nullptr;
    const bool has_workload = g != nullptr && g->workload != kNone;
    if (i < desired && !has_workload) {
      const bool recreating = g != nullptr && kueue_reconcile_pending_ && g->workload_deleted_at >= 0 &&
                              now - g->workload_deleted_at <= kSecond;
      const bool churn_not_followed = g != nullptr && i >= spec_.replicas && g->stops >= kMaxStopsPerRollout;
      if (recreating || churn_not_followed) continue;
      return violation("a LeaderWorkerSet group has a Workload when Kueue keeps one for it", i,
                       fmt::format("it has none, and {}", kueue_range()));
    }
    if (i >= desired && has_workload) {
      return violation("a LeaderWorkerSet group has a Workload only when Kueue keeps one for it", i,
                       fmt::format("it has {}, and {}", workload_text(g->workload), kueue_range()));
    }
  }
  return absl::OkStatus();
}

void LwsController::BreakForTesting(Breakage breakage, int32_t index) {
  if (breakage == Breakage::kSwapWithNextGroup) group(index + 1);  // before taking a reference
  Group& g = group(index);
  switch (breakage) {
    case Breakage::kForgetWorkload:
      g.workload = kNone;
      break;
    case Breakage::kSwapWithNextGroup:
      std::swap(g.workload, groups_[static_cast<size_t>(index) + 1].workload);
      break;
    case Breakage::kStartPodsWithoutAdmission:
      g.leader_exists = true;
      g.terminating = false;
      g.leader_started = true;
      break;
    case Breakage::kDeleteWorkloadSilently:
      runtime_->DeleteWorkload(g.workload);
      break;
    case Breakage::kLowerReplicasWithoutReconcile:
      --spec_.replicas;
      break;
  }
}

}  // namespace kueuesim::runtime
