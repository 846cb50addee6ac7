// ClusterRuntime: one simulated Kueue instance driven by the event engine.
//
// It owns the cluster's compiled state, its queues and its scheduler, and
// runs the workload life cycle as Kueue's controllers and the job
// integrations do it: arrival, quota reservation, admission, pods ready,
// completion, eviction with quota release after the pod-termination delay,
// requeue, and the batched return of parked workloads to their queues
// (pkg/controller/core/workload_controller.go,
// pkg/cache/queue/inadmissible_workloads.go).
#ifndef KUEUESIM_RUNTIME_CLUSTER_RUNTIME_H_
#define KUEUESIM_RUNTIME_CLUSTER_RUNTIME_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/cluster/admission_fair_sharing.h"
#include "kueuesim/cluster/cluster_state.h"
#include "kueuesim/cluster/events.h"
#include "kueuesim/engine/event_queue.h"
#include "kueuesim/policy/preemption.h"
#include "kueuesim/policy/queue_ordering.h"
#include "kueuesim/runtime/autoscaler_report.h"
#include "kueuesim/scenario/scenario.h"

namespace kueuesim::admission {
class Scheduler;
struct Preemption;
}
namespace kueuesim::queue {
class QueueManager;
}

namespace kueuesim::runtime {

class LwsController;
struct LwsReport;
class ProvisioningController;
class SimulatedCheckController;

using cluster::CqId;
using cluster::EventSink;
using cluster::EventType;
using cluster::EvictionReason;
using cluster::ClusterState;
using cluster::WorkloadId;
using cluster::kNone;

// A controller that owns workloads (e.g. a LeaderWorkerSet's groups): it
// hears when they are admitted or evicted and drives their pods' readiness.
class WorkloadOwner {
 public:
  virtual ~WorkloadOwner() = default;
  // The workload is admitted: its pods are ungated.
  virtual void OnAdmitted(WorkloadId id, int32_t index) = 0;
  // An eviction was issued: its pods are being stopped.
  virtual void OnEvicted(WorkloadId id, int32_t index) = 0;
  // Its quota was released after an eviction and it is back in its queue.
  virtual void OnRequeued(WorkloadId id, int32_t index) = 0;
  // Quota was reserved (before admission checks).
  virtual void OnQuotaReserved(WorkloadId /*id*/, int32_t /*index*/) {}
  // The scheduler issued preemptions to make room for it.
  virtual void OnPreemptionIssued(WorkloadId /*id*/, int32_t /*index*/, int32_t /*victims*/) {}
  // It could be admitted only by preempting, but its preemption gate is
  // closed (condition BlockedOnPreemptionGates).
  virtual void OnPreemptionGated(WorkloadId /*id*/, int32_t /*index*/) {}
  // One victim of the preemptions it issued, before the victim's eviction
  // (its record still holds its admission and running time).
  virtual void OnPreemptionVictim(WorkloadId /*id*/, int32_t /*index*/, WorkloadId /*victim*/) {}
  // Its quota is released (finished, deleted, or an eviction completed).
  virtual void OnQuotaReleased(WorkloadId /*id*/, int32_t /*index*/) {}
};

using cluster::CheckState;

// A controller answering admission checks: the AdmissionChecks whose
// spec.controllerName it registers for (MultiKueue, or a user's own).
class AdmissionCheckController {
 public:
  virtual ~AdmissionCheckController() = default;
  // Quota was reserved: the workload's check `check` (an index into the
  // cluster's AdmissionChecks) is Pending. The controller answers with
  // ClusterRuntime::SetAdmissionCheckState, now or later.
  virtual void OnCheckPending(WorkloadId id, int32_t check) = 0;
  // Every check is Ready: the workload is admitted. (Called for every
  // controller of the workload's checks.)
  virtual void OnAdmitted(WorkloadId /*id*/) {}
  // An eviction was issued (preemption, PodsReady timeout, a check's Retry).
  virtual void OnEvicted(WorkloadId /*id*/) {}
  // The workload released its quota (eviction done, finished, deleted);
  // its checks are gone.
  virtual void OnQuotaReleased(WorkloadId id) = 0;
  // Workloads admitted through this check run elsewhere: the runtime does
  // not start their pods; the controller reports readiness (SetPodsReady)
  // and completion (FinishWorkload).
  virtual bool RunsRemotely() const { return false; }
  // The state of one of the workload's checks changed (any check, also one
  // answered by another controller), e.g. MultiKueue waits for the others.
  virtual void OnCheckStateChanged(WorkloadId /*id*/, int32_t /*check*/, CheckState /*state*/) {}
};

// What one AdmissionCheck did over the run (for the summary): how many
// quota reservations needed it, how it answered, how long workloads held
// quota waiting for it.
struct AdmissionCheckStats {
  int64_t workloads = 0;  // quota reservations whose checks included it
  int64_t ready = 0;      // answers, by state
  int64_t retry = 0;
  int64_t rejected = 0;
  int64_t pending_at_end = 0;  // still waiting when the run ended
  // Quota reservation to Ready (Kueue's admission_checks_wait_time counts
  // to Admitted), one entry per Ready.
  std::vector<SimDuration> time_to_ready;
  // Time workloads held quota while this check was not Ready, and that
  // quota integrated over it: resource -> amount-seconds (cpu in
  // core-seconds, GPUs in GPU-seconds).
  SimDuration held_time = 0;
  std::map<std::string, double> held_quota;
};

struct RuntimeOptions {
  SimDuration eviction_delay = 0;
  SimDuration inadmissible_requeue_delay = kSecond;
  SimDuration cycle_duration = 0;
};

// Counters the runtime keeps for the summary.
struct RuntimeCounters {
  int64_t cycles = 0;
  int64_t reservations = 0;
  int64_t preemptions = 0;
  int64_t evictions = 0;
  int64_t finished = 0;
  int64_t workloads_without_queue = 0;  // missing LocalQueue or ClusterQueue
  int64_t deactivated = 0;
  int64_t held = 0;  // waiting in a stopped LocalQueue
  int64_t inadmissible = 0;  // refused by the workload controller (DRA), never queued
};

class ClusterRuntime : public engine::EventHandler {
 public:
  // REQUIRES: `engine`, `sink`, `ordering` and `preemption` outlive the runtime.
  static absl::StatusOr<std::unique_ptr<ClusterRuntime>> Create(
      const scenario::ClusterSpec& spec, const scenario::SimulationSettings& settings,
      engine::Engine* engine, EventSink* sink, const policy::QueueOrderingPolicy* ordering,
      policy::PreemptionPolicy* preemption);
  // As above, with the cluster's workloads given apart from `spec` (whose
  // own `workloads` are then ignored) and moved into the runtime: no copy of
  // the input's workloads is kept (a large cluster export is loaded once).
  static absl::StatusOr<std::unique_ptr<ClusterRuntime>> Create(
      const scenario::ClusterSpec& spec, std::vector<model::Workload> workloads,
      const scenario::SimulationSettings& settings, engine::Engine* engine, EventSink* sink,
      const policy::QueueOrderingPolicy* ordering, policy::PreemptionPolicy* preemption);
  ~ClusterRuntime() override;

  const ClusterState& state() const { return *state_; }
  ClusterState& mutable_state() { return *state_; }
  const RuntimeCounters& counters() const { return counters_; }
  int64_t cycle() const;

  // The scheduler's reuse of an unchanged head's last nomination
  // (cluster::NominationMemo; on by default, the same decisions either way).
  // Off: every head is assigned flavors afresh in every cycle. Verify: each
  // reuse is also computed afresh and compared; the first difference is
  // returned by NominationReuseCheck (the invariant checks fail on it).
  void set_reuse_nominations(bool on);
  void set_verify_nomination_reuse(bool on);
  absl::Status NominationReuseCheck() const;
  // Heads whose nomination was reused, and assigned afresh.
  int64_t nominations_reused() const;
  int64_t nominations_assigned() const;

  // Schedules the arrival of every workload of the spec; admits the ones
  // already admitted in their status. Call once, at time 0.
  absl::Status Start();

  // Adds a workload during the run (streaming sources); it arrives at its
  // kueuesim.io/arrival time, which must not be in the past.
  absl::Status AddWorkload(std::shared_ptr<const model::Workload> workload);

  // --- Owners (workload controllers) ---
  int32_t RegisterOwner(WorkloadOwner* owner);
  // Adds a workload owned by `owner` (group `index`) that arrives now.
  absl::StatusOr<WorkloadId> AddOwnedWorkload(model::Workload workload, int32_t owner, int32_t index);
  // Deletes a workload: out of its queue, its quota released at once. With
  // `release_record`, its record is freed too (a workload of the same name
  // can then be added again).
  void DeleteWorkload(WorkloadId id, bool release_record = false);
  // The owner reports its pods ready (or not ready any more).
  void SetPodsReady(WorkloadId id, bool ready);
  // The workload completed (owner- or remotely-run workloads): its quota is
  // released.
  void FinishWorkload(WorkloadId id);
  // Opens the workload's preemption gate; a pending workload is re-queued.
  void OpenPreemptionGate(WorkloadId id);

  // --- Admission checks ---
  // Answers the checks of every AdmissionCheck with this controllerName.
  // REQUIRES: before Start; `controller` outlives the runtime.
  void RegisterAdmissionCheckController(std::string_view controller_name, AdmissionCheckController* controller);
  // Index of the AdmissionCheck named `name`, or kNone.
  int32_t FindAdmissionCheck(std::string_view name) const;
  const model::AdmissionCheck& admission_check(int32_t check) const {
    return admission_checks_[static_cast<size_t>(check)];
  }
  // Sets the state of a check of a workload that holds quota. Ready on
  // every check admits it; Retry evicts and requeues it; Rejected
  // deactivates it. Ignored for workloads without quota or being evicted.
  void SetAdmissionCheckState(WorkloadId id, int32_t check, CheckState state);
  // The AdmissionCheck's Active condition, as its controller maintains it
  // (e.g. MultiKueue: inactive while none of its workers is reachable). A
  // ClusterQueue that uses an inactive check is inactive (reason
  // AdmissionCheckInactive): it reserves no quota; workloads holding quota
  // keep it. A ClusterQueue active again is scheduled at once.
  void SetAdmissionCheckActive(int32_t check, bool active);
  // As above, with the check's message (status.admissionChecks[].message),
  // which `kueuesim explain` and the Python module show.
  void SetAdmissionCheckState(WorkloadId id, int32_t check, CheckState state, std::string_view message);

  // --- Why a workload waits (cluster/pending_condition.h) ---
  // Hook for controllers that keep a workload from being admitted (an
  // admission check controller, a validating webhook): sets the
  // QuotaReserved=False condition of a workload that holds no quota to
  // `reason` and `message` (Kueue's words), and emits a Pending event when
  // it changed. Ignored for a workload that holds quota or is finished. The
  // scheduler overwrites it when it next considers the workload.
  void SetPendingCondition(WorkloadId id, cluster::QuotaReservedReason reason, std::string message);
  // Whether `wl` carries a non-empty admission-gated-by annotation and the
  // AdmissionGatedBy gate is on (workload.HasAdmissionGate).
  bool IsAdmissionGated(const cluster::WorkloadRecord& wl) const;
  // Retry with requeueAfterSeconds (workload.UpdateAdmissionCheckRequeueState):
  // requeueAt = now + `requeue_after`. Under the AtRequeueAt policy (Kueue's
  // workload controller at the reference commit) the workload keeps its
  // quota until requeueAt and is evicted then; under Immediate (KEP-3258)
  // it is evicted now and requeued at requeueAt.
  void SetAdmissionCheckRetry(WorkloadId id, int32_t check, SimDuration requeue_after);
  // The state of a check of a workload holding quota (kPending if unknown).
  CheckState AdmissionCheckStateOf(WorkloadId id, int32_t check) const;
  // The pods of the workload's next admission cannot start before `at`
  // (their nodes are still booting); the PodsReady timeout still counts
  // from the admission.
  void SetPodStartNotBefore(WorkloadId id, SimTime at);
  // Nodes created and deleted during the run (the cluster autoscaler): the
  // TAS cache follows, as for Node Changes; `reason` names the cause in the
  // event log.
  void AddNode(const model::Node& node, std::string_view reason);
  void RemoveNode(const std::string& name, std::string_view reason);
  // Per AdmissionCheck (by index), what it did until now (the waits still
  // open count up to now and in pending_at_end).
  std::vector<AdmissionCheckStats> AdmissionCheckStatsNow() const;
  // The simulated cluster autoscaler's pools until now (nullopt without
  // ProvisioningRequest checks or AutoscalerPools).
  std::optional<AutoscalerReport> AutoscalerReportNow() const;
  const ProvisioningController* provisioning_controller() const { return provisioning_.get(); }
  uint64_t seed() const { return seed_; }
  // Delivers an event through the cluster's sink (used by controllers
  // attached to this cluster).
  void EmitEvent(const cluster::SimEvent& event);
  // Emits an owner-level event (LeaderWorkerSet groups, rollouts).
  void EmitOwnerEvent(EventType type, std::string_view object, int32_t group, WorkloadId workload,
                      std::string_view reason = {}, int64_t value = 0);
  engine::Engine* engine() { return engine_; }
  SimDuration eviction_delay() const { return options_.eviction_delay; }
  // Free the records of finished workloads once the observers have seen
  // their last event (streaming runs).
  void set_recycle_finished(bool recycle) { recycle_finished_ = recycle; }
  bool recycle_finished() const { return recycle_finished_; }

  // Whether a scheduling cycle could make progress now.
  // Kueue's scheduler waits for a head (queue Manager.Heads blocks while
  // every queue is empty): no cycle runs, or counts, without one.
  bool NeedsCycle() const {
    return needs_cycle_ && !AdmissionBlocked() && (HasHeads() || !input_eviction_releases_.empty());
  }
  // Runs one scheduling cycle at the engine's current time and applies
  // its decisions. Returns whether it progressed (see CycleResult).
  bool RunCycle();
  // Set when one workload has been preempted kThrashLimit times at one
  // instant: the cycles thrash (a victim admitted again before its
  // preemptor, cycle after cycle) and would never let time pass. Names the
  // workloads and what to change.
  const std::optional<std::string>& thrashing() const { return thrashing_; }
  static constexpr int kThrashLimit = 1000;

  // The LeaderWorkerSets of this cluster and what happened to them.
  std::vector<const LwsReport*> LwsReports() const;
  // The cluster's LeaderWorkerSet controllers, in input order (the
  // invariant checker and tests reach their group tables here).
  const std::vector<std::unique_ptr<LwsController>>& lws_controllers() const { return lws_; }

  // Pending workloads per ClusterQueue (active, parked and in flight).
  int64_t PendingCount(CqId cq) const;

  // engine::EventHandler
  void HandleEvent(int32_t kind, int64_t a, int64_t b) override;

 private:
  enum EventKind : int32_t {
    kArrival = 1,
    kPodsReady,
    kFinish,
    kEvictionRelease,
    kRequeueInadmissible,
    kAdmissionFairSharingTick,
    kPodsReadyTimeout,
    kRequeueBackoffFinished,
    kMaximumExecutionTime,
    kObjectChange,
    kNodeChange,
    kNodeFailureTimer,
    kNodeReplacement,
    kHoldRelease,
    kActiveDeadline,
    kCheckRetryEviction,
    kDelayedPodStart,
    kSecondPass,
    kInputBackoffFinished,
    kInputChecks,
  };

  // A timed change of a Kueue object, resolved to ids (object_changes.cc).
  struct ObjectChange {
    model::Change change;
    CqId cq = kNone;
    quota::NodeId node = quota::kNoNode;  // ClusterQueue or cohort
    cluster::LqId lq = kNone;
    std::vector<std::pair<quota::FrId, model::Change::QuotaEdit>> edits;
  };

  ClusterRuntime() = default;
  void Emit(EventType type, WorkloadId id, CqId cq, WorkloadId preemptor = kNone,
            std::string_view reason = {});
  void OnArrival(WorkloadId id);
  // After the arrival (or the end of its hold, Workload::hold_until): into
  // its queue, unless inactive, inadmissible or held by its LocalQueue.
  void QueueArrived(WorkloadId id);
  void OnHoldRelease(WorkloadId id, uint32_t generation);
  void OnReserved(WorkloadId id);
  // The ClusterQueue's admission checks that apply to the flavors of the
  // workload's admission (workload.AdmissionChecksForWorkload), as indices.
  std::vector<int32_t> ApplicableChecks(const cluster::WorkloadRecord& wl) const;
  // The state of `check` in the workload's input status.admissionChecks
  // (Pending when it is not listed).
  CheckState InputCheckState(const cluster::WorkloadRecord& wl, int32_t check) const;
  // Whether a workload holding quota in its input waits for admission: it
  // is not Admitted there and a check that applies is not Ready, or a pod
  // set's topology is delayed (delayedTopologyRequest: Pending).
  bool InputAwaitsAdmission(const cluster::WorkloadRecord& wl) const;
  // At time 0, for such a workload: its checks take their input states,
  // the controllers work on the Pending ones (OnReserved's part).
  void OnInputChecks(WorkloadId id, uint32_t generation);
  // The checks are set: asks the controllers of the Pending ones.
  void AskCheckControllers(WorkloadId id);
  void NoteThrashing(const admission::Preemption& p);
  // Every check is Ready: admits the workload and starts its pods.
  void Admit(WorkloadId id);
  // Every check Ready: a pod set on a TAS flavor whose topology was delayed
  // (ProvisioningRequest check) gets its placement in a second pass first
  // (Kueue's second-pass queue: retried after 1 s, doubling up to 30 s).
  void AdmitOrSecondPass(WorkloadId id);
  void OnSecondPass(WorkloadId id, uint32_t generation);
  // The pods of an admitted local workload start (after Admit, or when the
  // nodes they wait for are ready).
  void StartPods(WorkloadId id);
  void OnCheckRetryEviction(WorkloadId id, uint32_t generation);
  // Admission-check statistics: the waits of a workload's checks start at
  // quota reservation and end at Ready or when it stops holding quota.
  void OpenCheckWaits(WorkloadId id);
  void CloseCheckWait(WorkloadId id, int32_t check, bool ready);
  void CloseCheckWaits(WorkloadId id);
  AdmissionCheckController* RemoteController(const cluster::WorkloadRecord& wl) const;
  std::vector<AdmissionCheckController*> ControllersOf(const cluster::WorkloadRecord& wl) const;
  void OnPodsReady(WorkloadId id, uint32_t generation);
  void OnFinish(WorkloadId id, uint32_t generation, std::string_view reason = {});
  // A Job's activeDeadlineSeconds since its start (admission): the Job
  // fails and its workload finishes (reason DeadlineExceeded).
  void OnActiveDeadline(WorkloadId id, uint32_t generation);
  void Evict(WorkloadId id, EvictionReason reason);
  // reconcileCheckBasedEviction: deactivates a workload with a Rejected
  // check, else evicts one with a Retry check.
  void EvictForChecks(WorkloadId id);
  // A workload admitted in the input with Evicted=True: its eviction is
  // under way at time 0.
  void EvictFromInput(WorkloadId id);
  void OnEvictionRelease(WorkloadId id, uint32_t generation);
  void ReleaseQuota(WorkloadId id);
  void NotifyRequeue(CqId cq);
  void OnRequeueInadmissible(quota::NodeId scope);
  void OnAdmissionFairSharingTick();
  void OnPodsReadyTimeout(WorkloadId id, uint32_t generation);
  void OnRequeueBackoffFinished(WorkloadId id, uint32_t generation);
  // A backoff the input's status carries (requeueState.requeueAt,
  // Requeued=False): whether the workload is held for good (a Requeued=False
  // reason nothing in the simulation turns True); else, when the backoff
  // lasts beyond now, its end is scheduled.
  bool HeldByInputRequeueState(WorkloadId id);
  void OnInputBackoffFinished(WorkloadId id, uint32_t generation);
  // maximumExecutionTimeSeconds: deactivation once the admitted time
  // (this and earlier admissions) reaches the limit.
  void ScheduleMaximumExecutionTime(WorkloadId id);
  void OnMaximumExecutionTime(WorkloadId id, uint32_t generation);
  // Timed changes of ClusterQueues, cohorts, LocalQueues and
  // WorkloadPriorityClasses: resolved when the runtime is created, applied
  // at their time.
  absl::Status ResolveObjectChanges(const scenario::ClusterSpec& spec);
  void ApplyObjectChange(const ObjectChange& change);
  // Timed Node changes (node_changes.cc): nodes added, removed, NotReady
  // or Ready again, cordoned; the TAS cache follows, and the TAS workloads
  // on a failed node get a replacement node or are evicted (NodeFailures).
  absl::Status ResolveNodeChanges(const scenario::ClusterSpec& spec);
  void ApplyNodeChange(const model::Change& change);
  // The node has been NotReady since `since` for the node failure delay.
  void OnNodeFailureTimer(int64_t change_index);
  // Kueue's handleUnhealthyNode for the admitted TAS workloads on `node`.
  void HandleFailedNode(const std::string& node);
  // The scheduler's second pass for a workload with an unhealthy node.
  void OnNodeReplacement(WorkloadId id, uint32_t generation);
  // A stopped LocalQueue holds its workloads out of the queues.
  bool HeldByLocalQueue(const cluster::WorkloadRecord& wl) const;
  // Sets a workload's QuotaReserved=False condition; emits Pending when it
  // changed.
  void SetPending(WorkloadId id, cluster::PendingCondition next);
  // The workload controller's view of a pending workload
  // (resolveGranularUnadmittedQuotaReservedCondition): deactivated, a
  // missing or stopped LocalQueue or ClusterQueue, a namespace the
  // ClusterQueue does not select, else the scheduler's last reason kept, or
  // PendingEvaluation.
  void SyncControllerCondition(WorkloadId id);
  // SyncControllerCondition for the pending workloads of a ClusterQueue or
  // LocalQueue whose stop policy changed.
  void SyncControllerConditions(CqId cq, cluster::LqId lq);
  // Kueue's Evicted message for an eviction of `reason`.
  std::string EvictionMessage(const cluster::WorkloadRecord& wl, EvictionReason reason) const;
  // Moves the parked workloads of every ClusterQueue under `scope` back
  // into their queues now (after a quota or stop-policy change).
  // Requeues the parked workloads under `scope` after the batching delay
  // (notifications for one scope coalesce).
  void NotifyRequeueScope(quota::NodeId scope);
  void RequeueTree(quota::NodeId scope);
  // waitForPodsReady with blockAdmission: whether an admitted workload is
  // still waiting for its pods (the scheduler does not admit meanwhile).
  bool AdmissionBlocked() const;
  // Whether some active ClusterQueue's queue holds a workload to pop.
  bool HasHeads() const;
  // Kueue's requeuing backoff: min(base * 2^(n-1), max) plus jitter.
  SimDuration RequeueBackoff(int32_t requeue_count, WorkloadId id) const;
  UnixMicros WallNow() const;

  std::unique_ptr<ClusterState> state_;
  std::unique_ptr<cluster::AdmissionFairSharing> afs_;
  std::unique_ptr<queue::QueueManager> queues_;
  std::unique_ptr<admission::Scheduler> scheduler_;
  engine::Engine* engine_ = nullptr;
  EventSink* sink_ = nullptr;
  const policy::QueueOrderingPolicy* ordering_ = nullptr;
  policy::PreemptionPolicy* preemption_ = nullptr;
  RuntimeOptions options_;
  RuntimeCounters counters_;
  uint64_t seed_ = 1;
  bool recycle_finished_ = false;
  std::vector<WorkloadOwner*> owners_;
  std::vector<model::AdmissionCheck> admission_checks_;
  std::vector<ObjectChange> object_changes_;
  std::vector<model::Change> node_changes_;
  SimDuration node_failure_delay_ = 300 * kSecond;
  std::map<std::string, SimTime> not_ready_since_;  // by node name
  std::vector<AdmissionCheckController*> check_controllers_;  // by check; may be null
  std::vector<std::unique_ptr<LwsController>> lws_;
  std::unique_ptr<ProvisioningController> provisioning_;
  std::unique_ptr<SimulatedCheckController> simulated_checks_;
  bool retry_eviction_immediate_ = false;
  std::vector<AdmissionCheckStats> check_stats_;  // by check
  struct CheckWait {
    SimTime reserved_at = 0;
    std::vector<std::pair<int32_t, bool>> checks;  // (check, still waiting)
  };
  std::map<WorkloadId, CheckWait> check_waits_;
  std::map<WorkloadId, SimTime> pod_start_not_before_;
  std::map<WorkloadId, SimDuration> second_pass_backoff_;
  int64_t admitted_not_ready_ = 0;  // admitted workloads without PodsReady
  bool needs_cycle_ = false;
  // Evictions of the input (EvictFromInput) whose quota release is
  // scheduled after the first cycle: (workload, run generation).
  bool defer_eviction_release_ = false;
  std::vector<std::pair<WorkloadId, uint32_t>> input_eviction_releases_;
  // Cycles that only re-queued heads with flavors left to try (nothing
  // admitted, evicted or parked), since the last event: what each left in
  // those heads' last assignments. A repeat means the cycles have come round
  // to a state they were in before and would repeat for ever (see RunCycle).
  std::set<std::vector<int64_t>> flavor_scan_states_;
  // Preemptions of each victim at the current instant (thrashing()).
  SimTime preemptions_instant_ = -1;
  std::map<WorkloadId, int> preemptions_this_instant_;
  std::optional<std::string> thrashing_;
  uint64_t flavor_scan_events_ = 0;  // the engine's event count they were seen at
  std::vector<bool> requeue_pending_;  // by quota node (root cohort or ClusterQueue)
};

}  // namespace kueuesim::runtime

#endif  // KUEUESIM_RUNTIME_CLUSTER_RUNTIME_H_
