// MultiKueue: a manager cluster dispatching workloads to worker clusters,
// each with its own simulated Kueue, in one run.
//
// The controller plays Kueue's MultiKueue admission check controller and
// workload dispatcher on the manager (pkg/controller/admissionchecks/
// multikueue/workload.go, pkg/controller/workloaddispatcher/): once a
// workload holds manager quota its MultiKueue check is Pending; the
// dispatcher nominates workers; each nominated, connected worker gets a
// copy, which that worker's scheduler admits on its own; the copy admitted
// first wins, the others are deleted, the job runs on the winner and its
// readiness and completion come back to the manager. A worker eviction
// sends the check to Retry (the manager requeues and dispatches again); a
// lost worker is given up after workerLostTimeout. See
// ../shared/design/lws-multikueue-dra.md part C and docs/multikueue.md.
//
// Writes to a worker take `dispatch_latency`; the manager sees a worker's
// status change `status_sync_latency` after it happened.
//
// As Kueue: nothing is dispatched before the workload's other admission
// checks are Ready; while no worker of a MultiKueueConfig is reachable its
// AdmissionCheck is inactive and so are the ClusterQueues that use it;
// copies the manager could not delete while their worker was unreachable
// go back to the workload reconciler when it reconnects (a copy that
// finished there finishes the manager's workload, one admitted earlier than
// the current winner takes over), and the garbage collector deletes only
// copies whose manager workload is gone.
#ifndef KUEUESIM_MULTIKUEUE_MULTIKUEUE_CONTROLLER_H_
#define KUEUESIM_MULTIKUEUE_MULTIKUEUE_CONTROLLER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/engine/event_queue.h"
#include "kueuesim/policy/dispatch.h"
#include "kueuesim/runtime/cluster_runtime.h"
#include "kueuesim/scenario/scenario.h"

namespace kueuesim::multikueue {

using cluster::WorkloadId;
using cluster::kNone;

struct MultiKueueOptions {
  SimDuration dispatch_latency = 0;
  SimDuration status_sync_latency = 0;
};

// What happened to one manager workload across the workers.
struct WorkloadDispatchReport {
  std::string workload;       // namespace/name
  std::string cluster_queue;  // on the manager
  SimTime arrival = 0;
  SimTime first_reserved_at = -1;  // manager quota
  SimTime admitted_at = -1;        // on a worker (last dispatch)
  SimTime finished_at = -1;
  std::string worker;              // where it ran last
  int32_t dispatches = 0;          // manager reservations that dispatched
  int32_t copies = 0;              // copies created
  int32_t reserving_workers = 0;   // copies that reserved worker quota
  int32_t losing_reservations = 0; // ... on workers that did not win
  int32_t losing_preemptions = 0;  // preemptions issued by losing copies
  int32_t winning_preemptions = 0; // preemptions issued by the winning copy
  // Manager reservation to admission on a worker, per successful dispatch.
  std::vector<SimDuration> time_to_admission;
  // The cost side. Worker quota held by copies that were not (or not yet,
  // when it was released) the selected copy, in resource-seconds by
  // resource (cpu in cores); the work the victims of their preemptions lost
  // (their resources times the time their pods had been running), same
  // unit; the time two or more copies ran the job at once (after a worker
  // loss: the lost worker's run and the re-run elsewhere); and the
  // manager's writes of status.nominatedClusterNames.
  std::map<std::string, double> losing_quota_seconds;
  std::map<std::string, double> losing_victim_work;
  SimDuration duplicate_run_time = 0;
  int32_t nomination_patches = 0;
};

struct WorkerReport {
  std::string name;     // MultiKueueCluster
  std::string cluster;  // scenario cluster
  int64_t copies = 0;
  int64_t reservations = 0;  // copies that reserved quota here
  int64_t won = 0;
  int64_t deleted = 0;
  int64_t losing_preemptions = 0;
  std::vector<std::pair<SimTime, bool>> connectivity;  // changes over time
  // API operations against this worker besides creates (copies) and
  // deletes (deleted): status syncs are the copy status changes the manager
  // read (each a watch event and a reconcile in Kueue); gate opens are
  // orchestrated-preemption writes.
  int64_t status_syncs = 0;
  int64_t gate_opens = 0;
  int64_t losing_reservations = 0;
  int64_t peak_live_copies = 0;  // copies existing there at once
  std::map<std::string, double> losing_quota_seconds;
  std::map<std::string, double> losing_victim_work;
};

struct MultiKueueReport {
  std::string manager;
  std::string dispatcher;
  std::vector<WorkerReport> workers;
  std::vector<WorkloadDispatchReport> workloads;  // in order of first manager reservation
};

class MultiKueueController : public runtime::AdmissionCheckController, public engine::EventHandler {
 public:
  // `manager` is the runtime of `spec`; `workers` maps every scenario
  // cluster name to its runtime. `dispatcher` decides nominations.
  static absl::StatusOr<std::unique_ptr<MultiKueueController>> Create(
      const scenario::ClusterSpec& spec, runtime::ClusterRuntime* manager,
      const std::vector<std::pair<std::string, runtime::ClusterRuntime*>>& clusters,
      std::unique_ptr<policy::DispatchPolicy> dispatcher, std::string dispatcher_name,
      MultiKueueOptions options);
  ~MultiKueueController() override;

  // Schedules the connection changes. Call once at time 0.
  void Start();

  // What happened so far (copies still running together count up to now).
  const MultiKueueReport& report() const;

  // Invariant (RunOptions::check_invariants, docs/invariants.md): the
  // manager selects at most one copy of a workload: of the copies it has
  // not let go of (on a worker that was unreachable when it had to delete
  // them), at most one, over all workers, is the selected copy its job runs
  // on (Kueue's single status.clusterName). A violation is an Internal error
  // naming `where`, the workload and both workers.
  absl::Status CheckOneSelectedCopy(const std::string& where) const;
  // Breaks that invariant on purpose (tests of the checker): every live
  // copy becomes a selected one.
  void SelectEveryCopyForTesting();

  // runtime::AdmissionCheckController
  void OnCheckPending(WorkloadId id, int32_t check) override;
  void OnAdmitted(WorkloadId id) override;
  void OnEvicted(WorkloadId id) override;
  void OnQuotaReleased(WorkloadId id) override;
  bool RunsRemotely() const override { return true; }
  void OnCheckStateChanged(WorkloadId id, int32_t check, cluster::CheckState state) override;

  // engine::EventHandler
  void HandleEvent(int32_t kind, int64_t a, int64_t b) override;

 private:
  class WorkerLink;
  struct Config;
  struct Copy;
  struct LiveCopy;
  struct Group;
  struct Operation;
  struct RunState;
  enum EventKind : int32_t {
    kReconcile = 1,
    kOperation,
    kConnectivity,
    kGarbageCollection,
    kReconnected,
    kConnectAttempt,
  };

  MultiKueueController() = default;
  Group& GroupOf(WorkloadId id);
  void ScheduleReconcile(WorkloadId id, SimTime at);
  void Reconcile(WorkloadId id);
  void Nominate(WorkloadId id, Group& group);
  void SyncCopies(WorkloadId id, Group& group);
  void DeleteCopy(WorkloadId id, Group& group, int32_t link);
  void OpenPreemptionGateIfDue(WorkloadId id, Group& group);
  // Component workloads (LeaderWorkerSet groups): the cluster the first
  // one was admitted on, and whether `id` leads.
  int32_t ComponentCluster(WorkloadId id, const Group& group) const;
  bool IsPrimaryComponent(WorkloadId id) const;
  void ReconcileComponents(WorkloadId id);
  bool Visible(SimTime event_time) const;
  void Emit(cluster::EventType type, WorkloadId id, int32_t link, int64_t value = 0);
  int32_t AddOperation(Operation op);
  void RunOperation(int32_t index);
  void OnConnectivity(int32_t link, bool connected);
  // A Change made the worker reachable or not. Lost at once; found again at
  // the cluster controller's next connection attempt.
  void SetReachable(int32_t link, bool reachable);
  void OnConnectAttempt(int32_t link);
  // The watch of a reconnected worker delivered its copies: the ones the
  // manager had to leave behind go back to their workload's reconciler.
  void OnReconnected(int32_t link);
  void CollectGarbage();
  void ScheduleGarbageCollection();
  WorkloadDispatchReport& ReportOf(Group& group);
  // The manager reads a worker's status only once its watch delivered it.
  bool Readable(int32_t link) const;
  // The AdmissionCheck of every config is active while one of its workers
  // is reachable (Kueue's ACReconciler).
  void UpdateCheckActivity();
  // Whether the manager workload the copy stands for is still that one.
  bool ManagerAlive(const LiveCopy& copy) const;
  // Issues the deletion of a live copy (connected worker).
  void IssueDelete(int32_t link, WorkloadId copy_id);
  int32_t PositionOf(const Group& group, int32_t link) const;
  // The cost accounting of one copy instance.
  void ResolveLoser(int32_t link, LiveCopy& copy);
  void ResolveWinner(LiveCopy& copy);
  void SetRunning(LiveCopy& copy, bool running);
  void AddStatusSync(int32_t link);
  // Every other check of the workload is Ready.
  bool OtherChecksReady(WorkloadId id, const Group& group) const;

  // Copy events, from the worker links.
  // `manager_id` is the manager's workload the copy stands for.
  void OnCopyReserved(int32_t link, WorkloadId manager_id, WorkloadId copy);
  void OnCopyAdmitted(int32_t link, WorkloadId manager_id, WorkloadId copy);
  void OnCopyEvicted(int32_t link, WorkloadId manager_id, WorkloadId copy);
  void OnCopyPreempting(int32_t link, WorkloadId manager_id, WorkloadId copy, int32_t victims);
  void OnCopyGated(int32_t link, WorkloadId manager_id, WorkloadId copy);
  void OnCopyVictim(int32_t link, WorkloadId manager_id, WorkloadId copy, WorkloadId victim);
  void OnCopyQuotaReleased(int32_t link, WorkloadId manager_id, WorkloadId copy);

  runtime::ClusterRuntime* manager_ = nullptr;
  engine::Engine* engine_ = nullptr;
  std::unique_ptr<policy::DispatchPolicy> dispatcher_;
  MultiKueueOptions options_;
  model::MultiKueueSettings settings_;
  bool orchestrated_preemption_ = false;
  std::vector<std::unique_ptr<WorkerLink>> links_;
  std::vector<Config> configs_;
  std::vector<int32_t> config_of_check_;  // by manager admission check index
  std::vector<int8_t> check_active_;      // by manager admission check index (-1: unknown)
  mutable std::vector<RunState> runs_;    // by report index
  std::vector<Group> groups_;             // by manager workload id
  std::vector<Operation> operations_;
  std::vector<int32_t> free_operations_;
  std::vector<model::Change> changes_;
  bool gc_scheduled_ = false;
  mutable MultiKueueReport report_;
};

}  // namespace kueuesim::multikueue

#endif  // KUEUESIM_MULTIKUEUE_MULTIKUEUE_CONTROLLER_H_
