// The workload life cycle of one simulated Kueue; see cluster_runtime.h.
#include "kueuesim/runtime/cluster_runtime.h"

#include <algorithm>

#include <fmt/format.h>

#include "admission/scheduler.h"
#include "admission/tas_placer.h"
#include "kueuesim/base/status.h"
#include "kueuesim/runtime/lws_controller.h"
#include "kueuesim/runtime/provisioning.h"
#include "queue/queue_manager.h"
#include "runtime/pending_conditions.h"

namespace kueuesim::runtime {

using cluster::AdmissionState;
using cluster::ClusterQueueInfo;
using cluster::FlavorId;
using cluster::FrAmount;
using cluster::FrId;
using cluster::PodSetAdmission;
using cluster::ResourceId;
using cluster::SimEvent;
using cluster::WorkloadPhase;
using cluster::WorkloadRecord;

namespace {

// Whether one of the workload's admission checks is in `state`.
bool HasCheckInState(const WorkloadRecord& wl, cluster::CheckState state) {
  return std::any_of(wl.rare->checks.begin(), wl.rare->checks.end(),
                     [state](const cluster::AdmissionCheckStatus& s) { return s.state == state; });
}

}  // namespace

absl::StatusOr<std::unique_ptr<ClusterRuntime>> ClusterRuntime::Create(
    const scenario::ClusterSpec& spec, const scenario::SimulationSettings& settings,
    engine::Engine* engine, EventSink* sink, const policy::QueueOrderingPolicy* ordering,
    policy::PreemptionPolicy* preemption) {
  return Create(spec, spec.workloads, settings, engine, sink, ordering, preemption);
}

absl::StatusOr<std::unique_ptr<ClusterRuntime>> ClusterRuntime::Create(
    const scenario::ClusterSpec& spec, std::vector<model::Workload> workloads,
    const scenario::SimulationSettings& settings, engine::Engine* engine, EventSink* sink,
    const policy::QueueOrderingPolicy* ordering, policy::PreemptionPolicy* preemption) {
  std::unique_ptr<ClusterRuntime> runtime(new ClusterRuntime());
  KUEUESIM_ASSIGN_OR_RETURN(runtime->state_,
                            ClusterState::Build(spec, settings.start_time.value_or(0),
                                                settings.default_startup_delay));
  runtime->engine_ = engine;
  runtime->sink_ = sink;
  runtime->ordering_ = ordering;
  runtime->preemption_ = preemption;
  runtime->options_.eviction_delay = settings.eviction_delay;
  runtime->options_.inadmissible_requeue_delay = settings.inadmissible_requeue_delay;
  runtime->options_.cycle_duration = settings.cycle_duration;
  runtime->seed_ = settings.seed;
  runtime->afs_ = std::make_unique<cluster::AdmissionFairSharing>(runtime->state_.get());
  runtime->queues_ = std::make_unique<queue::QueueManager>(runtime->state_.get(), ordering);
  runtime->queues_->set_admission_fair_sharing(runtime->afs_.get());
  runtime->scheduler_ = std::make_unique<admission::Scheduler>(
      runtime->state_.get(), runtime->queues_.get(), preemption,
      admission::NewTasPlacer(runtime->state_.get()), runtime->afs_.get());
  runtime->admission_checks_ = spec.admission_checks;
  runtime->check_controllers_.assign(spec.admission_checks.size(), nullptr);
  runtime->check_stats_.assign(spec.admission_checks.size(), AdmissionCheckStats());
  runtime->retry_eviction_immediate_ = settings.admission_check_retry_eviction == "Immediate";
  runtime->requeue_pending_.assign(static_cast<size_t>(runtime->state_->tree().num_nodes()), false);
  // The loaded workloads stay where the loader put them: the records point
  // into one shared block (an aliasing shared_ptr each), instead of a copy
  // of each workload made next to the vector it came from, which was the
  // peak of loading a large export (docs/performance.md). The block goes
  // when the last of its workloads is released.
  auto loaded = std::make_shared<const std::vector<model::Workload>>(std::move(workloads));
  runtime->state_->ReserveWorkloads(loaded->size());
  for (const model::Workload& wl : *loaded) {
    KUEUESIM_RETURN_IF_ERROR(
        runtime->state_->AddWorkload(std::shared_ptr<const model::Workload>(loaded, &wl)).status());
  }
  LwsOptions lws_options;
  lws_options.version =
      settings.lws_version == "v0.8" ? workloads::LwsVersion::kV0_8 : workloads::LwsVersion::kV0_10;
  lws_options.replacement = settings.statefulset_replacement == "serial"
                                ? workloads::StatefulSetReplacement::kSerial
                                : workloads::StatefulSetReplacement::kConcurrent;
  lws_options.kueue_percentage_surge_fixed = settings.kueue_percentage_max_surge == "fixed";
  lws_options.surge_workloads =
      settings.kueue_surge_workloads == "fixed" ? KueueSurgeWorkloads::kFixed : KueueSurgeWorkloads::kUpstream;
  lws_options.termination_delay = settings.eviction_delay;
  std::vector<bool> change_used(spec.changes.size(), false);
  for (const auto& lws : spec.leader_worker_sets) {
    std::vector<model::Change> changes;
    for (size_t i = 0; i < spec.changes.size(); ++i) {
      const model::Change& c = spec.changes[i];
      if (c.target_kind == "LeaderWorkerSet" && c.target_namespace == lws.meta.namespace_ &&
          c.target_name == lws.meta.name) {
        changes.push_back(c);
        change_used[i] = true;
      }
    }
    runtime->lws_.push_back(
        std::make_unique<LwsController>(runtime.get(), lws, std::move(changes), lws_options));
  }
  // Kueue's ProvisioningRequest check with the simulated autoscaler, and
  // the declared answers of other controllers' checks.
  bool provisioning = !spec.autoscaler_pools.empty();
  for (const auto& check : spec.admission_checks) {
    provisioning = provisioning || check.controller_name == model::kProvisioningRequestControllerName;
  }
  if (provisioning) {
    runtime->provisioning_ = std::make_unique<ProvisioningController>(runtime.get(), spec, settings);
    runtime->RegisterAdmissionCheckController(model::kProvisioningRequestControllerName, runtime->provisioning_.get());
  }
  for (const auto& check : spec.admission_checks) {
    if (!check.simulated.has_value()) continue;
    if (runtime->simulated_checks_ == nullptr) {
      runtime->simulated_checks_ = std::make_unique<SimulatedCheckController>(runtime.get());
    }
    runtime->RegisterAdmissionCheckController(check.controller_name, runtime->simulated_checks_.get());
  }
  KUEUESIM_RETURN_IF_ERROR(runtime->ResolveObjectChanges(spec));
  runtime->node_failure_delay_ = settings.node_failure_delay;
  KUEUESIM_RETURN_IF_ERROR(runtime->ResolveNodeChanges(spec));
  for (size_t i = 0; i < spec.changes.size(); ++i) {
    // MultiKueueCluster changes belong to the MultiKueue controller; Kueue
    // objects' to ResolveObjectChanges.
    if (change_used[i] || spec.changes[i].target_kind != "LeaderWorkerSet") continue;
    const model::Change& c = spec.changes[i];
    return InvalidArgument(fmt::format("{}: Change \"{}\": spec.target: no {} \"{}/{}\" in the scenario",
                                       c.source.ToString(), c.name, c.target_kind, c.target_namespace,
                                       c.target_name));
  }
  return runtime;
}

ClusterRuntime::~ClusterRuntime() = default;

int64_t ClusterRuntime::cycle() const { return scheduler_->cycles_run(); }

void ClusterRuntime::set_reuse_nominations(bool on) { scheduler_->set_reuse_nominations(on); }
void ClusterRuntime::set_verify_nomination_reuse(bool on) { scheduler_->set_verify_reuse(on); }
int64_t ClusterRuntime::nominations_reused() const { return scheduler_->nominations_reused(); }
int64_t ClusterRuntime::nominations_assigned() const { return scheduler_->nominations_assigned(); }

absl::Status ClusterRuntime::NominationReuseCheck() const {
  if (scheduler_->reuse_mismatch().empty()) return absl::OkStatus();
  return Internal(scheduler_->reuse_mismatch());
}

UnixMicros ClusterRuntime::WallNow() const { return state_->WallTime(engine_->now()); }

void ClusterRuntime::Emit(EventType type, WorkloadId id, CqId cq, WorkloadId preemptor,
                          std::string_view reason) {
  if (sink_ == nullptr) return;
  SimEvent event;
  event.type = type;
  event.time = engine_->now();
  event.cycle = scheduler_->cycles_run();
  event.cluster = state_.get();
  event.workload = id;
  event.cq = cq;
  event.preemptor = preemptor;
  event.reason = reason;
  sink_->OnEvent(event);
}

absl::Status ClusterRuntime::Start() {
  // Workloads admitted in their status hold their quota from time 0, on the
  // flavors their status names; the usage comes from resourceUsage.
  for (WorkloadId id = 0; id < state_->num_workloads(); ++id) {
    WorkloadRecord& wl = state_->workload(id);
    if (!wl.spec->admission.has_value()) continue;
    const model::Admission& admission = *wl.spec->admission;
    CqId cq = state_->FindClusterQueue(admission.cluster_queue);
    if (cq == kNone) {
      return InvalidArgument(fmt::format(
          "{}: Workload \"{}\": status.admission.clusterQueue: ClusterQueue \"{}\" does not exist",
          wl.spec->meta.source.ToString(), wl.key, admission.cluster_queue));
    }
    AdmissionState state;
    state.cq = cq;
    state.pod_sets.resize(wl.pod_sets.size());
    for (const auto& psa : admission.pod_set_assignments) {
      size_t index = 0;
      while (index < wl.pod_sets.size() && wl.pod_sets[index].spec->name != psa.name) ++index;
      PodSetAdmission& out = state.pod_sets[index];
      const int32_t count_after_reclaim = wl.pod_sets[index].count;
      const int32_t admitted_count = psa.count.value_or(count_after_reclaim);
      // Fewer pods in the spec than in the admission (pods marked
      // reclaimable, or a pod set shrunk after admission): the quota held
      // shrinks in proportion, usage / admitted * remaining in integer
      // units, as Kueue's totalRequestsFromAdmission does. The topology
      // assignment keeps the admitted pods.
      const bool scale_down = count_after_reclaim < admitted_count && admitted_count > 0;
      out.count = scale_down ? count_after_reclaim : admitted_count;
      out.topology_assignment = psa.topology_assignment;
      out.delayed_topology_pending = psa.delayed_topology_pending;
      for (const auto& [resource_name, flavor_name] : psa.flavors) {
        ResourceId resource = state_->FindResource(resource_name);
        FlavorId flavor = state_->FindFlavor(flavor_name);
        Amount usage = 0;
        if (auto it = psa.resource_usage.find(resource_name); it != psa.resource_usage.end()) {
          usage = it->second;
        }
        if (scale_down && usage != kUnlimited) usage = usage / admitted_count * count_after_reclaim;
        if (resource == kNone || flavor == kNone) continue;
        out.entries.push_back({resource, flavor, usage});
        FrId fr = state_->FindFr(flavor, resource);
        if (fr == kNone) continue;
        auto existing = std::find_if(state.usage.begin(), state.usage.end(),
                                     [fr](const FrAmount& u) { return u.fr == fr; });
        if (existing == state.usage.end()) {
          state.usage.push_back({fr, usage});
        } else {
          existing->amount = AddAmounts(existing->amount, usage);
        }
      }
    }
    state_->tree().AddUsage(state_->cq(cq).node, state.usage);
    ClusterQueueInfo& info = state_->cq(cq);
    wl.holding_index = static_cast<int32_t>(info.holding.size());
    info.holding.push_back(id);
    wl.admission = std::move(state);
    wl.quota_reserved_at = wl.spec->rare->quota_reserved_time.value_or(state_->start_time());
    wl.first_reserved_at = 0;
    if (InputAwaitsAdmission(wl)) {
      // QuotaReserved in the input, its admission checks (or its topology)
      // not done: its pods wait for the admission (OnInputChecks, once every
      // cluster has started).
      wl.phase = WorkloadPhase::kQuotaReserved;
      engine_->Schedule(0, this, kInputChecks, id, wl.run_generation);
      Emit(EventType::kAdmittedAtStart, id, cq, kNone, cluster::kAwaitingAdmissionReason);
      continue;
    }
    // Admitted in the input (or only QuotaReserved with nothing left to wait
    // for, as in the instant before the workload controller admits it).
    wl.phase = wl.spec->rare->admitted_time.has_value() ? WorkloadPhase::kAdmitted
                                                  : WorkloadPhase::kQuotaReserved;
    wl.admitted_at = 0;
    wl.running_since = 0;
    wl.pods_ready = true;
    if (wl.duration.has_value()) {
      engine_->Schedule(*wl.duration, this, kFinish, id, wl.run_generation);
    }
    Emit(EventType::kAdmittedAtStart, id, cq);
    if (wl.spec->rare->admitted_time.has_value()) {
      wl.rare.Mutable().accumulated_execution =
          std::max<SimDuration>(0, state_->start_time() - *wl.spec->rare->admitted_time);
    }
    ScheduleMaximumExecutionTime(id);
  }
  for (WorkloadId id = 0; id < state_->num_workloads(); ++id) {
    WorkloadRecord& wl = state_->workload(id);
    if (wl.admission.has_value()) {
      afs_->AddAdmittedUsage(wl, +1);
      continue;
    }
    if (wl.spec->finished) {
      // Finished before the simulation starts: nothing left to do.
      wl.phase = WorkloadPhase::kFinished;
      continue;
    }
    engine_->Schedule(wl.arrival, this, kArrival, id);
  }
  // What the input status says must stop does (workload controller): an
  // inactive workload, or one in a ClusterQueue or LocalQueue stopped with
  // HoldAndDrain, is evicted.
  for (WorkloadId id = 0; id < state_->num_workloads(); ++id) {
    WorkloadRecord& wl = state_->workload(id);
    if (!wl.admission.has_value()) continue;
    const model::StopPolicy cq_stop = state_->cq(wl.admission->cq).spec->stop_policy;
    const model::StopPolicy lq_stop =
        wl.lq == kNone ? model::StopPolicy::kNone : state_->lq(wl.lq).spec->stop_policy;
    if (wl.spec->rare->evicted_condition.has_value()) {
      EvictFromInput(id);
    } else if (!wl.spec->active) {
      wl.rare.Mutable().deactivation_reason = "WorkloadInactive";
      Evict(id, EvictionReason::kDeactivated);
    } else if (cq_stop == model::StopPolicy::kHoldAndDrain) {
      Evict(id, EvictionReason::kClusterQueueStopped);
    } else if (lq_stop == model::StopPolicy::kHoldAndDrain) {
      Evict(id, EvictionReason::kLocalQueueStopped);
    }
  }
  if (afs_->Enabled() && afs_->sampling_interval() > 0) {
    engine_->Schedule(afs_->sampling_interval(), this, kAdmissionFairSharingTick);
  }
  for (auto& lws : lws_) lws->Start();
  if (provisioning_ != nullptr) provisioning_->Start();
  for (size_t i = 0; i < object_changes_.size(); ++i) {
    engine_->Schedule(object_changes_[i].change.at, this, kObjectChange, static_cast<int64_t>(i));
  }
  for (size_t i = 0; i < node_changes_.size(); ++i) {
    engine_->Schedule(node_changes_[i].at, this, kNodeChange, static_cast<int64_t>(i));
  }
  return absl::OkStatus();
}

absl::Status ClusterRuntime::AddWorkload(std::shared_ptr<const model::Workload> workload) {
  KUEUESIM_CHECK(workload->arrival >= engine_->now());
  KUEUESIM_ASSIGN_OR_RETURN(WorkloadId id, state_->AddWorkload(std::move(workload)));
  engine_->Schedule(state_->workload(id).arrival, this, kArrival, id);
  return absl::OkStatus();
}

int32_t ClusterRuntime::RegisterOwner(WorkloadOwner* owner) {
  owners_.push_back(owner);
  return static_cast<int32_t>(owners_.size() - 1);
}

absl::StatusOr<WorkloadId> ClusterRuntime::AddOwnedWorkload(model::Workload workload, int32_t owner,
                                                            int32_t index) {
  workload.arrival = engine_->now();
  KUEUESIM_ASSIGN_OR_RETURN(WorkloadId id,
                            state_->AddWorkload(std::make_shared<const model::Workload>(std::move(workload))));
  WorkloadRecord& wl = state_->workload(id);
  wl.owner = owner;
  wl.owner_index = index;
  OnArrival(id);
  return id;
}

void ClusterRuntime::DeleteWorkload(WorkloadId id, bool release_record) {
  WorkloadRecord& wl = state_->workload(id);
  if (wl.phase == WorkloadPhase::kNotArrived) return;  // not arrived, or its record released
  if (wl.phase == WorkloadPhase::kFinished) {
    if (release_record) state_->ReleaseWorkload(id);
    return;
  }
  queues_->Delete(id);
  CqId cq = state_->ClusterQueueOf(wl);
  if (wl.admission.has_value()) {
    cq = wl.admission->cq;
    if (wl.phase == WorkloadPhase::kAdmitted && !wl.pods_ready && !wl.evicted) --admitted_not_ready_;
    ReleaseQuota(id);
    NotifyRequeue(cq);
  }
  wl.evicted = false;
  wl.pods_ready = false;
  ++wl.run_generation;
  wl.phase = WorkloadPhase::kFinished;
  wl.finished_at = engine_->now();
  afs_->DropPenalty(id, wl);
  Emit(EventType::kDeleted, id, cq);
  if (recycle_finished_ || release_record) state_->ReleaseWorkload(id);
}

void ClusterRuntime::SetPodsReady(WorkloadId id, bool ready) {
  WorkloadRecord& wl = state_->workload(id);
  if (wl.phase != WorkloadPhase::kAdmitted || wl.evicted || wl.pods_ready == ready) return;
  if (ready && !pod_start_not_before_.empty()) {
    auto it = pod_start_not_before_.find(id);
    if (it != pod_start_not_before_.end() && it->second > engine_->now()) {
      engine_->Schedule(it->second, this, kDelayedPodStart, id, wl.run_generation);
      return;
    }
  }
  wl.pods_ready = ready;
  if (ready) {
    --admitted_not_ready_;
    wl.pods_ready_once = true;
    if (wl.rare.allocated()) wl.rare.Mutable().recovery_deadline.reset();
    wl.running_since = engine_->now();
    if (admitted_not_ready_ == 0) needs_cycle_ = true;
    Emit(EventType::kPodsReady, id, wl.admission->cq);
  } else {
    ++admitted_not_ready_;
    const model::WaitForPodsReadyConfig& wfpr = state_->configuration().wait_for_pods_ready;
    if (wl.pods_ready_once && wfpr.enable && !state_->gates().disable_wait_for_pods_ready &&
        wfpr.recovery_timeout.has_value()) {
      wl.rare.Mutable().recovery_deadline = engine_->now() + *wfpr.recovery_timeout;
      engine_->ScheduleAfter(*wfpr.recovery_timeout, this, kPodsReadyTimeout, id, wl.run_generation);
    }
  }
}

void ClusterRuntime::EmitOwnerEvent(EventType type, std::string_view object, int32_t group,
                                    WorkloadId workload, std::string_view reason, int64_t value) {
  if (sink_ == nullptr) return;
  SimEvent event;
  event.type = type;
  event.time = engine_->now();
  event.cycle = scheduler_->cycles_run();
  event.cluster = state_.get();
  event.workload = workload;
  event.cq = workload == kNone || !state_->workload(workload).admission.has_value()
                 ? (workload == kNone ? kNone : state_->ClusterQueueOf(state_->workload(workload)))
                 : state_->workload(workload).admission->cq;
  event.object = object;
  event.group = group;
  event.reason = reason;
  event.value = value;
  sink_->OnEvent(event);
}

void ClusterRuntime::HandleEvent(int32_t kind, int64_t a, int64_t b) {
  const WorkloadId id = static_cast<WorkloadId>(a);
  const uint32_t generation = static_cast<uint32_t>(b);
  switch (kind) {
    case kArrival:
      OnArrival(id);
      break;
    case kPodsReady:
      OnPodsReady(id, generation);
      break;
    case kFinish:
      OnFinish(id, generation);
      break;
    case kEvictionRelease:
      OnEvictionRelease(id, generation);
      break;
    case kRequeueInadmissible:
      OnRequeueInadmissible(static_cast<quota::NodeId>(a));
      break;
    case kAdmissionFairSharingTick:
      OnAdmissionFairSharingTick();
      break;
    case kPodsReadyTimeout:
      OnPodsReadyTimeout(id, generation);
      break;
    case kRequeueBackoffFinished:
      OnRequeueBackoffFinished(id, generation);
      break;
    case kMaximumExecutionTime:
      OnMaximumExecutionTime(id, generation);
      break;
    case kObjectChange:
      ApplyObjectChange(object_changes_[static_cast<size_t>(a)]);
      break;
    case kNodeChange:
      ApplyNodeChange(node_changes_[static_cast<size_t>(a)]);
      break;
    case kNodeFailureTimer:
      OnNodeFailureTimer(a);
      break;
    case kNodeReplacement:
      OnNodeReplacement(id, generation);
      break;
    case kHoldRelease:
      OnHoldRelease(id, generation);
      break;
    case kActiveDeadline:
      OnActiveDeadline(id, generation);
      break;
    case kCheckRetryEviction:
      OnCheckRetryEviction(id, generation);
      break;
    case kInputChecks:
      OnInputChecks(id, generation);
      break;
    case kDelayedPodStart: {
      WorkloadRecord& wl = state_->workload(id);
      if (generation != wl.run_generation || wl.phase != WorkloadPhase::kAdmitted || wl.evicted) break;
      if (wl.owner == kNone) break;
      if (dynamic_cast<LwsController*>(owners_[static_cast<size_t>(wl.owner)]) != nullptr) {
        // The group's pods start now that their nodes are ready.
        owners_[static_cast<size_t>(wl.owner)]->OnAdmitted(id, wl.owner_index);
      } else {
        // Readiness its owner reported before the nodes were ready.
        pod_start_not_before_.erase(id);
        SetPodsReady(id, true);
      }
      break;
    }
    case kSecondPass:
      OnSecondPass(id, generation);
      break;
    case kInputBackoffFinished:
      OnInputBackoffFinished(id, generation);
      break;
    default:
      KUEUESIM_CHECK_MSG(false, fmt::format("unknown runtime event {}", kind));
  }
}

void ClusterRuntime::OnArrival(WorkloadId id) {
  WorkloadRecord& wl = state_->workload(id);
  wl.phase = WorkloadPhase::kPending;
  Emit(EventType::kArrived, id, state_->ClusterQueueOf(wl));
  if (wl.spec->rare->hold_until.has_value() && *wl.spec->rare->hold_until > engine_->now()) {
    // Replaying a recorded start: created now, queued at its recorded start.
    engine_->Schedule(*wl.spec->rare->hold_until, this, kHoldRelease, id, wl.run_generation);
    return;
  }
  QueueArrived(id);
}

void ClusterRuntime::OnHoldRelease(WorkloadId id, uint32_t generation) {
  const WorkloadRecord& wl = state_->workload(id);
  if (wl.run_generation != generation || wl.phase != WorkloadPhase::kPending ||
      wl.queue_state != cluster::QueueState::kNotQueued || wl.admission.has_value()) {
    return;  // deleted (or its record reused) while held
  }
  QueueArrived(id);
}

void ClusterRuntime::QueueArrived(WorkloadId id) {
  WorkloadRecord& wl = state_->workload(id);
  if (!wl.spec->active) {
    // spec.active: false — Kueue does not queue it.
    wl.phase = WorkloadPhase::kDeactivated;
    ++counters_.deactivated;
    Emit(EventType::kDeactivated, id, state_->ClusterQueueOf(wl), kNone, "WorkloadInactive");
    SyncControllerCondition(id);
    return;
  }
  if (IsAdmissionGated(wl)) {
    // kueue.x-k8s.io/admission-gated-by (workload.IsAdmissible): not queued;
    // the workload controller writes QuotaReserved=False, AdmissionGated.
    // Nothing in a simulation removes the gate.
    cluster::PendingCondition next;
    next.reason = cluster::QuotaReservedReason::kAdmissionGated;
    next.message = cluster::PendingMessage::kAdmissionGatedBy;
    SetPending(id, std::move(next));
    return;
  }
  if (!wl.rare->inadmissible_reason.empty()) {
    // Refused by the workload controller before queueing (DRA charging:
    // QuotaReserved=False reason Misconfigured, Requeued=False reason
    // Inadmissible, both with this message); it stays pending, unqueued.
    ++counters_.inadmissible;
    Emit(EventType::kInadmissible, id, state_->ClusterQueueOf(wl), kNone, wl.rare->inadmissible_reason);
    SetPendingCondition(id,
                        state_->gates().unadmitted_workloads_observability ? cluster::QuotaReservedReason::kMisconfigured
                                                                           : cluster::QuotaReservedReason::kInadmissible,
                        wl.rare->inadmissible_reason);
    return;
  }
  if (wl.spec->rare->on_hold_message.has_value() || wl.spec->rare->waiting_for_replacement_pods) {
    // workload.IsAdmissible: QuotaReserved=False OnHold (a job integration
    // released the quota on purpose) or WaitingForReplacementPods=True (the
    // job's controller has not replaced its failed pods): not queued, and
    // nothing in the simulation changes either condition.
    ++counters_.held;
    const bool on_hold = wl.spec->rare->on_hold_message.has_value();
    Emit(EventType::kHeld, id, state_->ClusterQueueOf(wl), kNone, on_hold ? "OnHold" : "WaitingForReplacementPods");
    SyncControllerCondition(id);
    return;
  }
  if (HeldByInputRequeueState(id)) {
    ++counters_.held;
    Emit(EventType::kHeld, id, state_->ClusterQueueOf(wl), kNone, "Requeued=False");
    SyncControllerCondition(id);
    return;
  }
  if (HeldByLocalQueue(wl)) {
    // A stopped LocalQueue holds its workloads out of the ClusterQueue.
    ++counters_.held;
    Emit(EventType::kHeld, id, state_->ClusterQueueOf(wl), kNone, "LocalQueueStopped");
    SyncControllerCondition(id);
    return;
  }
  if (queues_->AddOrUpdate(id, WallNow(), /*reevaluate=*/false)) {
    needs_cycle_ = true;
  } else {
    ++counters_.workloads_without_queue;
  }
  // The workload controller's first reconcile.
  SyncControllerCondition(id);
}

bool ClusterRuntime::RunCycle() {
  admission::CycleResult result = scheduler_->RunCycle(engine_->now());
  ++counters_.cycles;
  // Evictions under way in the input: the first cycle has seen their quota
  // held (Kueue's cache keeps it until the pods are gone); the release
  // counts from now.
  for (const auto& [id, generation] : input_eviction_releases_) {
    engine_->ScheduleAfter(options_.eviction_delay, this, kEvictionRelease, id, generation);
  }
  input_eviction_releases_.clear();
  for (const admission::Reservation& r : result.reservations) OnReserved(r.workload);
  for (const admission::Preemption& p : result.preemptions) {
    const WorkloadRecord& preemptor = state_->workload(p.preemptor);
    if (preemptor.owner != kNone) {
      owners_[static_cast<size_t>(preemptor.owner)]->OnPreemptionIssued(p.preemptor, preemptor.owner_index, 1);
      owners_[static_cast<size_t>(preemptor.owner)]->OnPreemptionVictim(p.preemptor, preemptor.owner_index, p.victim);
    }
  }
  for (WorkloadId id : result.preemption_gated) {
    const WorkloadRecord& wl = state_->workload(id);
    if (wl.owner != kNone) owners_[static_cast<size_t>(wl.owner)]->OnPreemptionGated(id, wl.owner_index);
  }
  for (const admission::Preemption& p : result.preemptions) {
    ++counters_.preemptions;
    WorkloadRecord& victim = state_->workload(p.victim);
    ++victim.rare.Mutable().times_preempted;
    NoteThrashing(p);
    Emit(EventType::kPreempted, p.victim, victim.admission->cq, p.preemptor,
         policy::PreemptionReasonName(p.reason));
    victim.rare.Mutable().eviction_message =
        PreemptionMessage(*state_, state_->workload(p.preemptor), state_->ClusterQueueOf(state_->workload(p.preemptor)),
                          victim.admission->cq, policy::PreemptionReasonName(p.reason));
    Evict(p.victim, EvictionReason::kPreempted);
  }
  // requeueAndUpdate wrote the QuotaReserved=False conditions of the heads
  // it did not admit: a Pending event for each that changed.
  for (WorkloadId id : result.pending_changed) {
    const WorkloadRecord& wl = state_->workload(id);
    if (wl.admission.has_value()) continue;
    Emit(EventType::kPending, id, state_->ClusterQueueOf(wl), kNone,
         cluster::QuotaReservedReasonName(wl.pending->reason));
  }
  bool progressed = result.progressed();
  if (!result.success() && result.parked == 0 && !result.requeued_with_pending_flavors.empty()) {
    // Heads re-queued at once to resume their flavor scan, and nothing else
    // changed. Kueue keeps popping them every cycle; when neither the
    // cluster nor any event changed meanwhile and their recorded scans are
    // back to a state seen before, the cycles that follow repeat the ones
    // since then for ever (e.g. two pod sets taking turns: one fits only
    // where the other's last flavor left room). The evaluation is then
    // settled until something changes, as in Kueue, where the repeats
    // change nothing; the heads stay first in their queues.
    if (engine_->events_processed() != flavor_scan_events_) {
      flavor_scan_states_.clear();
      flavor_scan_events_ = engine_->events_processed();
    }
    std::vector<int64_t> scan_state;
    for (WorkloadId id : result.requeued_with_pending_flavors) {
      scan_state.push_back(static_cast<int64_t>(id));
      const Boxed<cluster::LastAssignmentState>& last = state_->workload(id).last_assignment;
      if (!last.has_value()) continue;
      for (const auto& tried : last->last_tried_flavor_idx) {
        scan_state.push_back(-2 - static_cast<int64_t>(tried.size()));
        for (const auto& [resource, index] : tried) {
          scan_state.push_back(static_cast<int64_t>(resource));
          scan_state.push_back(index);
        }
      }
    }
    if (!flavor_scan_states_.insert(std::move(scan_state)).second) progressed = false;
  } else {
    flavor_scan_states_.clear();
  }
  needs_cycle_ = result.heads > 0 && progressed;
  return progressed;
}

void ClusterRuntime::NoteThrashing(const admission::Preemption& p) {
  if (engine_->now() != preemptions_instant_) {
    preemptions_instant_ = engine_->now();
    preemptions_this_instant_.clear();
  }
  if (++preemptions_this_instant_[p.victim] != kThrashLimit || thrashing_.has_value()) return;
  const WorkloadRecord& victim = state_->workload(p.victim);
  const WorkloadRecord& preemptor = state_->workload(p.preemptor);
  thrashing_ = fmt::format(
      "preemption does not settle at time {} s: workload \"{}\" (ClusterQueue \"{}\") was preempted {} times at "
      "this instant, the last time by \"{}\" (ClusterQueue \"{}\", {}); each time it was admitted again before "
      "its preemptor. Kueue with these feature gates repeats this (thrashing) until something else changes, and "
      "meanwhile no simulated time passes. Enable the PrioritizePreemptorWorkloads feature gate (preemptors first), "
      "or give evictions or cycles time (Simulation spec.evictionDelay, spec.cycleDuration)",
      FormatSeconds(engine_->now()), victim.key, state_->cq(victim.admission->cq).name, kThrashLimit, preemptor.key,
      state_->cq(state_->ClusterQueueOf(preemptor)).name, policy::PreemptionReasonName(p.reason));
}

void ClusterRuntime::OnReserved(WorkloadId id) {
  WorkloadRecord& wl = state_->workload(id);
  ++counters_.reservations;
  wl.quota_reserved_at = WallNow();
  if (wl.first_reserved_at < 0) wl.first_reserved_at = engine_->now();
  wl.phase = WorkloadPhase::kQuotaReserved;
  wl.evicted = false;
  wl.eviction_reason = EvictionReason::kNotEvicted;
  Emit(EventType::kQuotaReserved, id, wl.admission->cq);
  afs_->AddAdmittedUsage(wl, +1);
  if (wl.owner != kNone) owners_[static_cast<size_t>(wl.owner)]->OnQuotaReserved(id, wl.owner_index);
  // Admission checks: the ClusterQueue's checks that apply to the assigned
  // flavors (workload.AdmissionChecksForWorkload) start Pending; without a
  // controller in the simulation to answer, such a workload stays at
  // QuotaReserved.
  if (wl.rare.allocated()) wl.rare.Mutable().checks.clear();
  for (int32_t check : ApplicableChecks(wl)) wl.rare.Mutable().checks.push_back({check, CheckState::kPending});
  if (wl.rare->checks.empty()) {
    Admit(id);
    return;
  }
  OpenCheckWaits(id);
  wl.runs_remotely = RemoteController(wl) != nullptr;
  AskCheckControllers(id);
}

std::vector<int32_t> ClusterRuntime::ApplicableChecks(const WorkloadRecord& wl) const {
  std::vector<int32_t> checks;
  const ClusterQueueInfo& cq = state_->cq(wl.admission->cq);
  for (const auto& ref : cq.spec->admission_checks) {
    bool applies = ref.on_flavors.empty();
    for (const auto& ps : wl.admission->pod_sets) {
      for (const auto& entry : ps.entries) {
        applies = applies || std::find(ref.on_flavors.begin(), ref.on_flavors.end(),
                                       state_->flavor(entry.flavor).name) != ref.on_flavors.end();
      }
    }
    if (applies) checks.push_back(FindAdmissionCheck(ref.name));
  }
  return checks;
}

CheckState ClusterRuntime::InputCheckState(const WorkloadRecord& wl, int32_t check) const {
  if (check == kNone) return CheckState::kPending;
  const std::string& name = admission_checks_[static_cast<size_t>(check)].meta.name;
  for (const auto& [listed, state] : wl.spec->rare->admission_check_states) {
    if (listed != name) continue;
    if (state == "Ready") return CheckState::kReady;
    if (state == "Retry") return CheckState::kRetry;
    if (state == "Rejected") return CheckState::kRejected;
    return CheckState::kPending;
  }
  return CheckState::kPending;
}

bool ClusterRuntime::InputAwaitsAdmission(const WorkloadRecord& wl) const {
  if (wl.spec->rare->admitted_time.has_value()) return false;
  for (const auto& ps : wl.admission->pod_sets) {
    if (ps.delayed_topology_pending && state_->tas() != nullptr) return true;
  }
  for (int32_t check : ApplicableChecks(wl)) {
    if (InputCheckState(wl, check) != CheckState::kReady) return true;
  }
  return false;
}

void ClusterRuntime::OnInputChecks(WorkloadId id, uint32_t generation) {
  WorkloadRecord& wl = state_->workload(id);
  if (generation != wl.run_generation || !wl.admission.has_value() || wl.evicted ||
      wl.phase != WorkloadPhase::kQuotaReserved) {
    return;
  }
  // As the workload controller finds it: the checks with their states.
  if (wl.rare.allocated()) wl.rare.Mutable().checks.clear();
  for (int32_t check : ApplicableChecks(wl)) {
    wl.rare.Mutable().checks.push_back({check, InputCheckState(wl, check)});
  }
  const auto any = [&](CheckState state) { return HasCheckInState(wl, state); };
  if (!any(CheckState::kPending) && !any(CheckState::kRetry) && !any(CheckState::kRejected)) {
    // Every check Ready: the topology's second pass, then the admission.
    AdmitOrSecondPass(id);
    return;
  }
  OpenCheckWaits(id);
  wl.runs_remotely = RemoteController(wl) != nullptr;
  if (any(CheckState::kRetry) || any(CheckState::kRejected)) {
    // reconcileCheckBasedEviction.
    EvictForChecks(id);
    return;
  }
  AskCheckControllers(id);
}

void ClusterRuntime::AskCheckControllers(WorkloadId id) {
  const WorkloadRecord& wl = state_->workload(id);
  const uint32_t generation = wl.run_generation;
  // Copy: a controller may answer at once and change the list.
  const std::vector<cluster::AdmissionCheckStatus> checks = wl.rare->checks;
  for (const auto& status : checks) {
    if (status.check == kNone || status.state != CheckState::kPending) continue;
    AdmissionCheckController* controller = check_controllers_[static_cast<size_t>(status.check)];
    if (controller == nullptr) continue;
    controller->OnCheckPending(id, status.check);
    if (state_->workload(id).run_generation != generation || !state_->workload(id).admission.has_value()) break;
  }
}

AdmissionCheckController* ClusterRuntime::RemoteController(const WorkloadRecord& wl) const {
  for (const auto& status : wl.rare->checks) {
    if (status.check == kNone) continue;
    AdmissionCheckController* controller = check_controllers_[static_cast<size_t>(status.check)];
    if (controller != nullptr && controller->RunsRemotely()) return controller;
  }
  return nullptr;
}

void ClusterRuntime::RegisterAdmissionCheckController(std::string_view controller_name,
                                                      AdmissionCheckController* controller) {
  for (size_t i = 0; i < admission_checks_.size(); ++i) {
    if (admission_checks_[i].controller_name == controller_name) check_controllers_[i] = controller;
  }
}

int32_t ClusterRuntime::FindAdmissionCheck(std::string_view name) const {
  for (size_t i = 0; i < admission_checks_.size(); ++i) {
    if (admission_checks_[i].meta.name == name) return static_cast<int32_t>(i);
  }
  return kNone;
}

void ClusterRuntime::SetAdmissionCheckState(WorkloadId id, int32_t check, CheckState state,
                                            std::string_view message) {
  WorkloadRecord& wl = state_->workload(id);
  if (!wl.admission.has_value() || wl.evicted) return;
  for (auto& status : wl.rare.Mutable().checks) {
    if (status.check == check) status.message = std::string(message);
  }
  SetAdmissionCheckState(id, check, state);
}

void ClusterRuntime::SetAdmissionCheckState(WorkloadId id, int32_t check, CheckState state) {
  WorkloadRecord& wl = state_->workload(id);
  if (!wl.admission.has_value() || wl.evicted) return;
  bool all_ready = true;
  bool found = false;
  for (auto& status : wl.rare.Mutable().checks) {
    if (status.check == check) {
      status.state = state;
      found = true;
    }
    all_ready = all_ready && status.state == CheckState::kReady;
  }
  if (!found) return;
  // The controllers of the workload's other checks hear of it once the
  // change took effect.
  std::vector<AdmissionCheckController*> others = ControllersOf(wl);
  others.erase(std::remove(others.begin(), others.end(), check_controllers_[static_cast<size_t>(check)]),
               others.end());
  if (check >= 0 && static_cast<size_t>(check) < check_stats_.size()) {
    AdmissionCheckStats& stats = check_stats_[static_cast<size_t>(check)];
    if (state == CheckState::kReady) ++stats.ready;
    if (state == CheckState::kRetry) ++stats.retry;
    if (state == CheckState::kRejected) ++stats.rejected;
    if (state == CheckState::kReady) CloseCheckWait(id, check, /*ready=*/true);
  }
  switch (state) {
    case CheckState::kReady:
      if (all_ready && wl.phase == WorkloadPhase::kQuotaReserved) AdmitOrSecondPass(id);
      break;
    case CheckState::kRetry:
    case CheckState::kRejected:
      // The workload controller returns early while requeueAt (another
      // check's Retry delay) is in the future, before
      // reconcileCheckBasedEviction: the eviction scheduled for requeueAt
      // acts then.
      if (!retry_eviction_immediate_ && wl.requeue_at.has_value() && *wl.requeue_at > WallNow()) break;
      EvictForChecks(id);
      break;
    case CheckState::kPending:
      break;
  }
  for (AdmissionCheckController* controller : others) controller->OnCheckStateChanged(id, check, state);
}

void ClusterRuntime::EvictForChecks(WorkloadId id) {
  WorkloadRecord& wl = state_->workload(id);
  // reconcileCheckBasedEviction: a Rejected check deactivates the workload
  // (HasRejectedChecks comes first); a Retry one evicts it (reason
  // AdmissionCheck), to be requeued once its quota is released.
  if (HasCheckInState(wl, CheckState::kRejected)) {
    wl.rare.Mutable().deactivation_reason = "AdmissionCheck";
    Evict(id, EvictionReason::kDeactivated);
  } else if (HasCheckInState(wl, CheckState::kRetry)) {
    Evict(id, EvictionReason::kAdmissionCheck);
  }
}

void ClusterRuntime::SetAdmissionCheckActive(int32_t check, bool active) {
  model::AdmissionCheck& ac = admission_checks_[static_cast<size_t>(check)];
  ac.active = active;
  // Kueue's message part (clusterQueue.inactiveReason): "references
  // inactive AdmissionCheck(s): <name>".
  const std::string part = fmt::format("references inactive AdmissionCheck(s): {}", ac.meta.name);
  for (CqId id = 0; id < state_->num_cluster_queues(); ++id) {
    ClusterQueueInfo& cq = state_->cq(id);
    const bool uses = std::any_of(cq.spec->admission_checks.begin(), cq.spec->admission_checks.end(),
                                  [&](const model::AdmissionCheckRef& ref) { return ref.name == ac.meta.name; });
    if (!uses) continue;
    std::string& reason = cq.inactive_reason;
    const size_t at = reason.find(part);
    if (!active && at == std::string::npos) {
      reason += (reason.empty() ? "" : ", ") + part;
    } else if (active && at != std::string::npos) {
      size_t begin = at;
      size_t end = at + part.size();
      if (begin >= 2 && reason.compare(begin - 2, 2, ", ") == 0) {
        begin -= 2;
      } else if (reason.compare(end, 2, ", ") == 0) {
        end += 2;
      }
      reason.erase(begin, end - begin);
    }
    const bool was_active = cq.active;
    cq.active = reason.empty();
    if (cq.active && !was_active) {
      // Its heap is scheduled at once; its parked workloads are requeued.
      needs_cycle_ = true;
      NotifyRequeueScope(state_->tree().Root(cq.node));
    }
  }
}

void ClusterRuntime::EmitEvent(const SimEvent& event) {
  if (sink_ != nullptr) sink_->OnEvent(event);
}

void ClusterRuntime::Admit(WorkloadId id) {
  WorkloadRecord& wl = state_->workload(id);
  wl.phase = WorkloadPhase::kAdmitted;
  wl.admitted_at = engine_->now();
  Emit(EventType::kAdmitted, id, wl.admission->cq);
  if (afs_->OrdersClusterQueue(wl.admission->cq)) {
    // The penalty settles into the LocalQueue's consumed usage; the
    // LocalQueue reconciler then re-sorts the ClusterQueue.
    afs_->Settle(id, wl, engine_->now());
    queues_->RebuildHeap(wl.admission->cq);
  }
  ++wl.run_generation;
  ++admitted_not_ready_;
  wl.pods_ready = false;
  wl.pods_ready_once = false;
  if (wl.rare.allocated()) wl.rare.Mutable().recovery_deadline.reset();
  ScheduleMaximumExecutionTime(id);
  const model::WaitForPodsReadyConfig& wfpr = state_->configuration().wait_for_pods_ready;
  const bool wfpr_on = wfpr.enable && !state_->gates().disable_wait_for_pods_ready;
  {
    // The controllers of its other checks hear of the admission (a
    // ProvisioningRequest's booking is consumed).
    const uint32_t generation = wl.run_generation;
    for (AdmissionCheckController* controller : ControllersOf(wl)) {
      if (!controller->RunsRemotely()) controller->OnAdmitted(id);
    }
    if (state_->workload(id).run_generation != generation) return;
  }
  // Pods that wait for nodes still booting start when the nodes are ready.
  SimTime start_at = engine_->now();
  if (auto it = pod_start_not_before_.find(id); it != pod_start_not_before_.end()) {
    start_at = std::max(start_at, it->second);
    pod_start_not_before_.erase(it);
  }
  if (wl.runs_remotely) {
    // The job runs on a worker cluster; the controller reports back.
    if (wfpr_on) engine_->ScheduleAfter(wfpr.timeout, this, kPodsReadyTimeout, id, wl.run_generation);
    const uint32_t generation = wl.run_generation;
    if (AdmissionCheckController* controller = RemoteController(wl)) controller->OnAdmitted(id);
    if (state_->workload(id).run_generation != generation) return;
    if (wl.owner != kNone) owners_[static_cast<size_t>(wl.owner)]->OnAdmitted(id, wl.owner_index);
    return;
  }
  if (wl.spec->rare->active_deadline.has_value()) {
    // Job activeDeadlineSeconds (before the owner hears of the admission,
    // so that this event comes first at the deadline).
    engine_->ScheduleAfter(*wl.spec->rare->active_deadline, this, kActiveDeadline, id, wl.run_generation);
  }
  if (wl.owner != kNone) {
    // The owner starts the pods and reports their readiness.
    if (wfpr_on) engine_->ScheduleAfter(wfpr.timeout, this, kPodsReadyTimeout, id, wl.run_generation);
    if (start_at > engine_->now()) {
      if (dynamic_cast<LwsController*>(owners_[static_cast<size_t>(wl.owner)]) != nullptr) {
        // A LeaderWorkerSet group's pods start when their nodes are ready.
        engine_->Schedule(start_at, this, kDelayedPodStart, id, wl.run_generation);
        return;
      }
      // Other owners (a MultiKueue worker's copy) hear of the admission now;
      // the pods they report ready are not ready before the nodes are.
      pod_start_not_before_[id] = start_at;
    }
    owners_[static_cast<size_t>(wl.owner)]->OnAdmitted(id, wl.owner_index);
    return;
  }
  const SimDuration until_ready = (start_at - engine_->now()) + wl.startup_delay;
  engine_->ScheduleAfter(until_ready, this, kPodsReady, id, wl.run_generation);
  if (wfpr_on && until_ready >= wfpr.timeout) {
    // The workload controller evicts at the timeout. Pods ready exactly at
    // the deadline are in time: that event was scheduled first.
    engine_->ScheduleAfter(wfpr.timeout, this, kPodsReadyTimeout, id, wl.run_generation);
  }
}

void ClusterRuntime::OnPodsReady(WorkloadId id, uint32_t generation) {
  WorkloadRecord& wl = state_->workload(id);
  if (generation != wl.run_generation || wl.phase != WorkloadPhase::kAdmitted || wl.evicted) return;
  wl.pods_ready = true;
  wl.pods_ready_once = true;
  --admitted_not_ready_;
  if (admitted_not_ready_ == 0) needs_cycle_ = true;  // unblocks blockAdmission
  wl.running_since = engine_->now();
  Emit(EventType::kPodsReady, id, wl.admission->cq);
  if (wl.duration.has_value()) engine_->ScheduleAfter(*wl.duration, this, kFinish, id, wl.run_generation);
}

void ClusterRuntime::OnFinish(WorkloadId id, uint32_t generation, std::string_view reason) {
  WorkloadRecord& wl = state_->workload(id);
  if (generation != wl.run_generation || !wl.admission.has_value() || wl.evicted) return;
  const CqId cq = wl.admission->cq;
  if (wl.phase == WorkloadPhase::kAdmitted && !wl.pods_ready) --admitted_not_ready_;
  ReleaseQuota(id);
  wl.phase = WorkloadPhase::kFinished;
  wl.finished_at = engine_->now();
  afs_->DropPenalty(id, wl);
  ++counters_.finished;
  Emit(EventType::kFinished, id, cq, kNone, reason);
  NotifyRequeue(cq);
  if (recycle_finished_) state_->ReleaseWorkload(id);
}

void ClusterRuntime::OnActiveDeadline(WorkloadId id, uint32_t generation) {
  const WorkloadRecord& wl = state_->workload(id);
  if (generation != wl.run_generation || wl.phase != WorkloadPhase::kAdmitted || wl.evicted) return;
  // The Job controller marks the Job Failed (DeadlineExceeded) and deletes
  // its pods; Kueue finishes the Workload and releases its quota.
  OnFinish(id, generation, "DeadlineExceeded");
}

void ClusterRuntime::Evict(WorkloadId id, EvictionReason reason) {
  WorkloadRecord& wl = state_->workload(id);
  if (wl.evicted || !wl.admission.has_value()) return;
  CloseCheckWaits(id);
  if (wl.phase == WorkloadPhase::kAdmitted && !wl.pods_ready) --admitted_not_ready_;
  if (wl.phase == WorkloadPhase::kAdmitted) wl.rare.Mutable().accumulated_execution += engine_->now() - wl.admitted_at;
  // The work done since the pods started is lost.
  wl.rare.Mutable().lost_run_time = wl.pods_ready ? engine_->now() - wl.running_since : 0;
  wl.pods_ready = false;
  wl.evicted = true;
  wl.eviction_reason = reason;
  wl.rare.Mutable().evicted_at = WallNow();
  // A preemption's message is set by the caller, who knows the preemptor.
  if (reason != EvictionReason::kPreempted) wl.rare.Mutable().eviction_message = EvictionMessage(wl, reason);
  // Evicted by an admission check: the eviction time is the queue order
  // timestamp (workload.Ordering.GetQueueOrderTimestamp).
  if (reason == EvictionReason::kAdmissionCheck) wl.queue_order_timestamp = wl.rare->evicted_at;
  if (wl.rare.allocated()) wl.rare.Mutable().unhealthy_nodes.clear();
  // Eviction closes every preemption gate again (prepareForEviction).
  if (!wl.spec->rare->preemption_gates.empty()) wl.has_closed_preemption_gate = true;
  ++wl.rare.Mutable().times_evicted;
  ++counters_.evictions;
  ++wl.run_generation;
  Emit(EventType::kEvicted, id, wl.admission->cq, kNone, EvictionReasonName(reason));
  if (wl.owner != kNone) owners_[static_cast<size_t>(wl.owner)]->OnEvicted(id, wl.owner_index);
  for (AdmissionCheckController* controller : ControllersOf(wl)) controller->OnEvicted(id);
  if (defer_eviction_release_) {
    input_eviction_releases_.emplace_back(id, wl.run_generation);
    needs_cycle_ = true;
    return;
  }
  engine_->ScheduleAfter(options_.eviction_delay, this, kEvictionRelease, id, wl.run_generation);
}

void ClusterRuntime::EvictFromInput(WorkloadId id) {
  WorkloadRecord& wl = state_->workload(id);
  const model::EvictedCondition& condition = *wl.spec->rare->evicted_condition;
  // An eviction under way in the input (Evicted=True while the quota is
  // still reserved): the job's pods are stopping and the quota is released
  // when they are gone, as for an eviction the run issues, the eviction
  // delay after the first scheduling cycle (which sees the quota held: a
  // preemptor counts the eviction as its own, ongoing). The condition's
  // reason decides what follows the release.
  EvictionReason reason = EvictionReason::kPreempted;
  if (condition.reason == "PodsReadyTimeout") {
    reason = EvictionReason::kPodsReadyTimeout;
  } else if (condition.reason == "AdmissionCheck") {
    reason = EvictionReason::kAdmissionCheck;
  } else if (condition.reason == "ClusterQueueStopped") {
    reason = EvictionReason::kClusterQueueStopped;
  } else if (condition.reason == "LocalQueueStopped") {
    reason = EvictionReason::kLocalQueueStopped;
  } else if (condition.reason == "NodeFailures") {
    reason = EvictionReason::kNodeFailures;
  } else if (condition.reason == "Deactivated" || !wl.spec->active) {
    reason = EvictionReason::kDeactivated;
    if (wl.rare->deactivation_reason.empty()) wl.rare.Mutable().deactivation_reason = "WorkloadInactive";
  }
  // After a PodsReady timeout the input's requeueState holds the workload
  // until requeueAt once its quota is released (Requeued=False).
  if (reason == EvictionReason::kPodsReadyTimeout && wl.spec->rare->requeue_at.has_value()) {
    wl.requeue_at = wl.spec->rare->requeue_at;
    wl.requeued_condition_false = true;
  }
  defer_eviction_release_ = true;
  Evict(id, reason);
  defer_eviction_release_ = false;
  if (!condition.message.empty()) wl.rare.Mutable().eviction_message = condition.message;
  if (condition.last_transition_time.has_value()) {
    wl.rare.Mutable().evicted_at = *condition.last_transition_time;
    if (reason == EvictionReason::kAdmissionCheck ||
        (reason == EvictionReason::kPodsReadyTimeout &&
         state_->configuration().wait_for_pods_ready.requeuing_timestamp == model::RequeuingTimestamp::kEviction)) {
      wl.queue_order_timestamp = wl.rare->evicted_at;
    }
  }
  if (wl.requeued_condition_false) {
    engine_->Schedule(std::max<SimTime>(0, *wl.requeue_at - state_->start_time()), this, kRequeueBackoffFinished,
                      id, wl.run_generation);
  }
}

void ClusterRuntime::OnEvictionRelease(WorkloadId id, uint32_t generation) {
  WorkloadRecord& wl = state_->workload(id);
  if (generation != wl.run_generation || !wl.admission.has_value()) return;
  const CqId cq = wl.admission->cq;
  ReleaseQuota(id);
  wl.pods_ready = false;
  wl.evicted = false;
  NotifyRequeue(cq);
  if (wl.eviction_reason == EvictionReason::kDeactivated) {
    wl.phase = WorkloadPhase::kDeactivated;
    ++counters_.deactivated;
    const std::string_view reason = wl.rare->deactivation_reason;
    Emit(EventType::kDeactivated, id, cq, kNone, reason.empty() ? std::string_view("RequeuingLimitExceeded") : reason);
    SyncControllerCondition(id);
    return;
  }
  wl.phase = WorkloadPhase::kPending;
  // A preempted workload keeps its creation timestamp as queue order and is
  // requeued at once (Requeued=True for Preempted); after a PodsReady
  // timeout it waits for its backoff (Requeued=False until requeueAt).
  Emit(EventType::kRequeued, id, cq, kNone, EvictionReasonName(wl.eviction_reason));
  {
    // The job integration clears the reservation: QuotaReserved=False,
    // PendingEvaluation, with the eviction's message; the workload
    // controller then keeps it unless a queue blocks the workload.
    cluster::PendingCondition next;
    next.reason = state_->gates().unadmitted_workloads_observability ? cluster::QuotaReservedReason::kPendingEvaluation
                                                                     : cluster::QuotaReservedReason::kPending;
    next.message = cluster::PendingMessage::kText;
    next.text = wl.rare->eviction_message;
    SetPending(id, std::move(next));
    SyncControllerCondition(id);
  }
  if (HeldByLocalQueue(wl)) {
    Emit(EventType::kHeld, id, cq, kNone, "LocalQueueStopped");
  } else if (queues_->AddOrUpdate(id, WallNow(), /*reevaluate=*/true)) {
    needs_cycle_ = true;
  }
  if (wl.owner != kNone) owners_[static_cast<size_t>(wl.owner)]->OnRequeued(id, wl.owner_index);
}

void ClusterRuntime::ReleaseQuota(WorkloadId id) {
  CloseCheckWaits(id);
  if (!pod_start_not_before_.empty()) pod_start_not_before_.erase(id);
  WorkloadRecord& wl = state_->workload(id);
  Emit(EventType::kQuotaReleased, id, wl.admission->cq);
  afs_->AddAdmittedUsage(wl, -1);
  ClusterQueueInfo& cq = state_->cq(wl.admission->cq);
  state_->tree().RemoveUsage(cq.node, wl.admission->usage);
  size_t index = static_cast<size_t>(wl.holding_index);
  WorkloadId last = cq.holding.back();
  cq.holding[index] = last;
  state_->workload(last).holding_index = static_cast<int32_t>(index);
  cq.holding.pop_back();
  wl.holding_index = kNone;
  wl.admission.reset();
  ++cq.allocatable_generation;
  needs_cycle_ = true;
  if (!wl.rare->checks.empty()) {
    const std::vector<AdmissionCheckController*> controllers = ControllersOf(wl);
    if (wl.rare.allocated()) wl.rare.Mutable().checks.clear();
    wl.runs_remotely = false;
    for (AdmissionCheckController* controller : controllers) controller->OnQuotaReleased(id);
  }
  const WorkloadRecord& released = state_->workload(id);  // the controllers above may add workloads
  if (released.owner != kNone) owners_[static_cast<size_t>(released.owner)]->OnQuotaReleased(id, released.owner_index);
}

std::vector<AdmissionCheckController*> ClusterRuntime::ControllersOf(const WorkloadRecord& wl) const {
  std::vector<AdmissionCheckController*> out;
  for (const auto& status : wl.rare->checks) {
    if (status.check == kNone) continue;
    AdmissionCheckController* controller = check_controllers_[static_cast<size_t>(status.check)];
    if (controller != nullptr && std::find(out.begin(), out.end(), controller) == out.end()) {
      out.push_back(controller);
    }
  }
  return out;
}

void ClusterRuntime::FinishWorkload(WorkloadId id) {
  WorkloadRecord& wl = state_->workload(id);
  if (!wl.admission.has_value()) return;
  const CqId cq = wl.admission->cq;
  if (wl.phase == WorkloadPhase::kAdmitted && !wl.pods_ready && !wl.evicted) --admitted_not_ready_;
  ++wl.run_generation;  // cancels a pending eviction release or timeout
  wl.evicted = false;
  wl.pods_ready = false;
  ReleaseQuota(id);
  wl.phase = WorkloadPhase::kFinished;
  wl.finished_at = engine_->now();
  afs_->DropPenalty(id, wl);
  ++counters_.finished;
  Emit(EventType::kFinished, id, cq);
  NotifyRequeue(cq);
  if (recycle_finished_) state_->ReleaseWorkload(id);
}

void ClusterRuntime::OpenPreemptionGate(WorkloadId id) {
  WorkloadRecord& wl = state_->workload(id);
  if (!wl.has_closed_preemption_gate) return;
  wl.has_closed_preemption_gate = false;
  if (wl.phase == WorkloadPhase::kPending && queues_->AddOrUpdate(id, WallNow(), /*reevaluate=*/true)) {
    needs_cycle_ = true;
  }
}

void ClusterRuntime::NotifyRequeue(CqId cq) {
  const quota::QuotaTree& tree = state_->tree();
  const quota::NodeId node = state_->cq(cq).node;
  NotifyRequeueScope(tree.has_parent(node) ? tree.Root(node) : node);
}

void ClusterRuntime::NotifyRequeueScope(quota::NodeId scope) {
  if (requeue_pending_[static_cast<size_t>(scope)]) return;
  requeue_pending_[static_cast<size_t>(scope)] = true;
  engine_->ScheduleAfter(options_.inadmissible_requeue_delay, this, kRequeueInadmissible, scope);
}

void ClusterRuntime::OnRequeueInadmissible(quota::NodeId scope) {
  requeue_pending_[static_cast<size_t>(scope)] = false;
  RequeueTree(scope);
}

void ClusterRuntime::RequeueTree(quota::NodeId scope) {
  const quota::QuotaTree& tree = state_->tree();
  std::vector<quota::NodeId> stack{scope};
  int moved = 0;
  while (!stack.empty()) {
    quota::NodeId node = stack.back();
    stack.pop_back();
    CqId cq = state_->CqOfNode(node);
    if (cq != kNone) {
      moved += queues_->QueueInadmissible(cq, WallNow());
      continue;
    }
    for (quota::NodeId child : tree.child_cluster_queues(node)) stack.push_back(child);
    for (quota::NodeId child : tree.child_cohorts(node)) stack.push_back(child);
  }
  if (moved > 0) needs_cycle_ = true;
}

void ClusterRuntime::OnAdmissionFairSharingTick() {
  // The LocalQueue reconciler: decay each LocalQueue's consumed usage
  // towards its admitted usage, then re-sort the queues that use it.
  afs_->ReconcileAll(engine_->now());
  for (CqId cq = 0; cq < state_->num_cluster_queues(); ++cq) {
    if (afs_->OrdersClusterQueue(cq)) queues_->RebuildHeap(cq);
  }
  // Keep ticking only while there is something left to order or decay.
  if (engine_->HasEvents() || queues_->AnyActive()) {
    engine_->ScheduleAfter(afs_->sampling_interval(), this, kAdmissionFairSharingTick);
  }
}

bool ClusterRuntime::HasHeads() const { return queues_->AnyActive(); }

bool ClusterRuntime::AdmissionBlocked() const {
  const model::WaitForPodsReadyConfig& wfpr = state_->configuration().wait_for_pods_ready;
  return wfpr.enable && wfpr.block_admission && !state_->gates().disable_wait_for_pods_ready &&
         admitted_not_ready_ > 0;
}

SimDuration ClusterRuntime::RequeueBackoff(int32_t requeue_count, WorkloadId id) const {
  // k8s wait.Backoff{base, factor 2, jitter 1e-4, cap max}.WaitTime(n):
  // base * 2^(n-1), capped at max, plus up to 1e-4 of it at random. The
  // jitter comes from a generator seeded by the run seed and the workload,
  // so runs are reproducible.
  const model::WaitForPodsReadyConfig& wfpr = state_->configuration().wait_for_pods_ready;
  const SimDuration base = static_cast<SimDuration>(wfpr.backoff_base_seconds) * kSecond;
  const SimDuration cap = static_cast<SimDuration>(wfpr.backoff_max_seconds) * kSecond;
  SimDuration d = base;
  for (int32_t i = 1; i < requeue_count && d < cap; ++i) d = std::min(d * 2, cap);
  d = std::min(d, cap);
  uint64_t x = seed_ ^ (0x9e3779b97f4a7c15ULL * (static_cast<uint64_t>(id) + 1)) ^
               (static_cast<uint64_t>(requeue_count) << 32);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  const double unit = static_cast<double>(x >> 11) / static_cast<double>(1ULL << 53);
  return d + static_cast<SimDuration>(unit * 1e-4 * static_cast<double>(d));
}

void ClusterRuntime::OnPodsReadyTimeout(WorkloadId id, uint32_t generation) {
  WorkloadRecord& wl = state_->workload(id);
  if (generation != wl.run_generation || wl.phase != WorkloadPhase::kAdmitted || wl.evicted ||
      wl.pods_ready) {
    return;
  }
  // Pods that were ready once are judged by recoveryTimeout only (none by
  // default): the timer of the admission no longer counts.
  if (wl.pods_ready_once && wl.rare->recovery_deadline != engine_->now()) return;
  const model::WaitForPodsReadyConfig& wfpr = state_->configuration().wait_for_pods_ready;
  if (wfpr.backoff_limit_count.has_value() && wl.requeue_count + 1 > *wfpr.backoff_limit_count) {
    // Requeuing limit exceeded: deactivated (and evicted).
    Evict(id, EvictionReason::kDeactivated);
    return;
  }
  ++wl.requeue_count;
  wl.requeue_at = WallNow() + RequeueBackoff(wl.requeue_count, id);
  wl.requeued_condition_false = true;
  Evict(id, EvictionReason::kPodsReadyTimeout);
  if (wfpr.requeuing_timestamp == model::RequeuingTimestamp::kEviction) {
    wl.queue_order_timestamp = wl.rare->evicted_at;
  }
  engine_->Schedule(*wl.requeue_at - state_->start_time(), this, kRequeueBackoffFinished, id,
                    wl.run_generation);
}

void ClusterRuntime::OnRequeueBackoffFinished(WorkloadId id, uint32_t generation) {
  WorkloadRecord& wl = state_->workload(id);
  if (generation != wl.run_generation || !wl.requeued_condition_false) return;
  // Requeued=True (BackoffFinished): the workload goes back into its queue.
  wl.requeued_condition_false = false;
  if (wl.phase == WorkloadPhase::kPending && !HeldByLocalQueue(wl) &&
      queues_->AddOrUpdate(id, WallNow(), /*reevaluate=*/true)) {
    needs_cycle_ = true;
  }
}

bool ClusterRuntime::HeldByInputRequeueState(WorkloadId id) {
  WorkloadRecord& wl = state_->workload(id);
  const Boxed<std::string>& reason = wl.spec->rare->requeued_false_reason;
  if (wl.input_backoff_seen) return false;  // arrived before: the input's state is spent
  wl.input_backoff_seen = true;
  const bool backoff_reason = !reason.has_value() || *reason == "PodsReadyTimeout" || *reason == "AdmissionCheck";
  if (wl.requeued_condition_false && !backoff_reason) return true;
  const bool in_backoff = wl.requeued_condition_false || (wl.requeue_at.has_value() && *wl.requeue_at > WallNow());
  if (in_backoff) {
    // The queue keeps it aside (BackoffExpired) until the workload
    // controller's reconcile at requeueAt sets Requeued=True and requeues it.
    const SimTime at = std::max<SimTime>(engine_->now(), wl.requeue_at.value_or(0) - state_->start_time());
    engine_->Schedule(at, this, kInputBackoffFinished, id, wl.run_generation);
  }
  return false;
}

void ClusterRuntime::OnInputBackoffFinished(WorkloadId id, uint32_t generation) {
  WorkloadRecord& wl = state_->workload(id);
  if (generation != wl.run_generation) return;
  // Requeued=True (BackoffFinished) and requeueAt cleared.
  wl.requeued_condition_false = false;
  wl.requeue_at.reset();
  if (wl.phase == WorkloadPhase::kPending && !wl.admission.has_value() && !HeldByLocalQueue(wl) &&
      queues_->AddOrUpdate(id, WallNow(), /*reevaluate=*/true)) {
    needs_cycle_ = true;
  }
}

void ClusterRuntime::ScheduleMaximumExecutionTime(WorkloadId id) {
  const WorkloadRecord& wl = state_->workload(id);
  if (!wl.spec->rare->maximum_execution_time_seconds.has_value()) return;
  const SimDuration limit = static_cast<SimDuration>(*wl.spec->rare->maximum_execution_time_seconds) * kSecond;
  const SimDuration used =
      wl.spec->rare->accumulated_past_execution_seconds * kSecond + wl.rare->accumulated_execution;
  engine_->ScheduleAfter(std::max<SimDuration>(0, limit - used), this, kMaximumExecutionTime, id,
                         wl.run_generation);
}

void ClusterRuntime::OnMaximumExecutionTime(WorkloadId id, uint32_t generation) {
  WorkloadRecord& wl = state_->workload(id);
  if (generation != wl.run_generation || wl.phase != WorkloadPhase::kAdmitted || wl.evicted) return;
  // Deactivated with reason MaximumExecutionTimeExceeded
  // (workload_controller, maximumExecutionTimeSeconds).
  wl.rare.Mutable().deactivation_reason = "MaximumExecutionTimeExceeded";
  Evict(id, EvictionReason::kDeactivated);
}

std::vector<const LwsReport*> ClusterRuntime::LwsReports() const {
  std::vector<const LwsReport*> out;
  for (const auto& lws : lws_) out.push_back(&lws->report());
  return out;
}

int64_t ClusterRuntime::PendingCount(CqId cq) const {
  return static_cast<int64_t>(queues_->Pending(cq).size());
}

}  // namespace kueuesim::runtime
