// The run summary: per ClusterQueue admitted, finished and pending counts,
// wait-time percentiles, utilization per flavor and resource and the share
// of it that was borrowed; collected from the event stream.
#ifndef KUEUESIM_METRICS_SUMMARY_H_
#define KUEUESIM_METRICS_SUMMARY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kueuesim/multikueue/multikueue_controller.h"
#include "kueuesim/runtime/cluster_runtime.h"
#include "kueuesim/runtime/lws_controller.h"
#include "kueuesim/cluster/events.h"
#include "kueuesim/scenario/scenario.h"

namespace kueuesim::metrics {

struct WaitStats {
  int64_t count = 0;
  SimDuration p50 = 0;
  SimDuration p90 = 0;
  SimDuration p99 = 0;
  SimDuration max = 0;
  SimDuration mean = 0;
};

struct ResourceUsageSummary {
  std::string flavor;
  std::string resource;
  Amount nominal_quota = 0;
  Amount peak_usage = 0;
  // Time-averaged usage over the run divided by the nominal quota; nullopt
  // when the nominal quota is 0.
  std::optional<double> utilization;
  // Share of the usage (integrated over time) that was above the nominal
  // quota, i.e. borrowed; 0 when nothing was used.
  double borrowed_share = 0;
  // Usage integrated over time, in amount-seconds (e.g. CPU-seconds).
  double used_amount_seconds = 0;
};

struct ClusterQueueSummary {
  std::string name;
  std::string cohort;
  int64_t admitted = 0;   // quota reservations
  int64_t admitted_at_start = 0;  // admitted in the input status
  int64_t finished = 0;
  int64_t pending = 0;    // at the end of the run
  int64_t running = 0;    // holding quota at the end of the run
  int64_t preempted = 0;  // times a workload of this queue was preempted
  int64_t evicted = 0;
  WaitStats wait;  // arrival to first quota reservation, admitted workloads
  std::vector<ResourceUsageSummary> resources;
  // Preemptions of this queue's workloads, by Kueue's reason.
  std::map<std::string, int64_t> preempted_by_reason;
  // Preemptions this queue's workloads caused, by reason.
  std::map<std::string, int64_t> preemptions_issued_by_reason;
  // Evictions by cause (Preempted, PodsReadyTimeout, ...).
  std::map<std::string, int64_t> evictions_by_reason;
  // Work thrown away by evictions: resource -> amount-seconds (cpu in
  // core-seconds, GPUs in GPU-seconds, memory in byte-seconds).
  std::map<std::string, double> work_lost;
  int64_t deactivated = 0;
  // Workloads without quota at the end of the run (queued, held or refused;
  // not finished or deactivated), by the reason of their QuotaReserved=False
  // condition ("PendingEvaluation" for those without one, as Kueue's
  // kueue_unadmitted_workloads metric counts them).
  std::map<std::string, int64_t> pending_by_reason;
};

// What one AdmissionCheck did: who answered it, how, and how long
// workloads held quota waiting for it.
struct AdmissionCheckSummary {
  std::string name;
  std::string controller;   // spec.controllerName
  std::string answered_by;  // "ProvisioningRequest (<class>)", "declared: ...", "never (declared)", "nobody"
  int64_t workloads = 0;    // quota reservations that needed it
  int64_t ready = 0;
  int64_t retry = 0;
  int64_t rejected = 0;
  int64_t pending_at_end = 0;
  // ProvisioningRequest checks: requests created and how they ended.
  int64_t requests = 0;
  int64_t failed = 0;
  int64_t booking_expired = 0;
  int64_t capacity_revoked = 0;
  WaitStats time_to_ready;  // quota reservation to Ready
  SimDuration held_time = 0;  // quota held while it was not Ready (workload-time)
  std::map<std::string, double> held_quota;  // resource -> amount-seconds
};

// What one LeaderWorkerSet rollout cost (the question maxSurge exists
// for): how long it took, how long and how far serving capacity stayed
// below the desired groups, the quota surge groups held (admitted but not
// serving included), and the workloads its groups preempted meanwhile.
struct RolloutFigures {
  std::string leader_worker_set;  // namespace/name
  SimTime start = 0;
  SimTime end = -1;               // -1: not finished
  SimDuration duration = 0;       // to the end, or to the end of the run
  SimDuration below_desired = 0;  // time with fewer ready groups than replicas
  double deficit_group_seconds = 0;
  std::map<std::string, double> surge_quota_seconds;       // resource -> amount-seconds
  std::map<std::string, double> idle_surge_quota_seconds;  // ... before the group's pods were ready
  int64_t preemptions = 0;  // workloads its groups preempted during the rollout
};

// Serving availability of one LeaderWorkerSet over the whole run: the
// desired groups (spec.replicas, as scale changes move it) against the
// ready ones, and the scale-ups whose new groups waited for quota.
struct ServingFigures {
  std::string leader_worker_set;  // namespace/name
  int32_t peak_desired = 0;
  double desired_group_seconds = 0;  // spec.replicas integrated over the run
  double ready_group_seconds = 0;    // min(ready, desired) integrated
  SimDuration below_desired = 0;     // time with fewer ready groups than desired
  int64_t scale_ups = 0;
  // Scale-ups with a new group whose Workload did not reserve quota at the
  // scale's instant (it waited for quota, or was removed or the run ended
  // first).
  int64_t scale_ups_waiting = 0;
  // Per new group of a scale-up: from the scale to its quota reservation
  // (or its removal by a scale-down, or the end of the run).
  double group_wait_seconds = 0;
  SimDuration max_group_wait = 0;
  int64_t preemptions = 0;  // workloads its groups preempted
};

// A value over time: (simulated seconds, value) points, one per change.
using TimeSeries = std::vector<std::pair<SimTime, double>>;

struct ClusterSummary {
  std::string name;
  int64_t workloads = 0;
  int64_t cycles = 0;
  int64_t workloads_without_queue = 0;
  // Refused by the workload controller before queueing (DRA), never queued.
  int64_t inadmissible = 0;
  std::vector<ClusterQueueSummary> cluster_queues;
  // With fair sharing on: each ClusterQueue's and cohort's weighted share
  // (Kueue's status.fairSharing.weightedShare) over time.
  bool fair_sharing = false;
  std::map<std::string, TimeSeries> cluster_queue_shares;
  std::map<std::string, TimeSeries> cohort_shares;
  // LeaderWorkerSets: rollouts, scaling, groups ready over time.
  std::vector<runtime::LwsReport> leader_worker_sets;
  // As ClusterQueueSummary::pending_by_reason over the whole cluster
  // (workloads without a ClusterQueue included), with, per reason, the
  // first such workload and its message ("ns/name: message").
  std::map<std::string, int64_t> pending_by_reason;
  std::map<std::string, std::string> pending_example;
  // Admission checks of the cluster, and the simulated autoscaler's pools.
  std::vector<AdmissionCheckSummary> admission_checks;
  std::optional<runtime::AutoscalerReport> autoscaler;
  // LeaderWorkerSet rollouts, one entry per rollout of any of them.
  std::vector<RolloutFigures> rollouts;
  // LeaderWorkerSets' serving availability, one entry per LeaderWorkerSet.
  std::vector<ServingFigures> serving;
};

// Collects what RolloutFigures needs from the event stream (quota held by
// LeaderWorkerSet groups, their readiness, the preemptions they issue).
class RolloutFiguresCollector {
 public:
  void OnEvent(const cluster::SimEvent& event);
  // Fills cs->rollouts and cs->serving for the runtime's LeaderWorkerSets.
  void Finish(SimTime end_time, const runtime::ClusterRuntime& runtime, ClusterSummary* cs) const;

 private:
  struct Hold {
    std::string key;  // namespace/leaderworkerset-<name>-<index>
    int32_t index = 0;
    SimTime start = 0;
    SimTime ready = -1;
    SimTime end = -1;
    std::map<std::string, double> usage;  // resource -> amount (display units)
  };
  struct ClusterData {
    std::map<cluster::WorkloadId, size_t> open;  // hold index by workload
    std::vector<Hold> holds;
    std::vector<std::pair<std::string, SimTime>> preemptions;  // preemptor key, time
  };
  template <typename Owns>
  static ServingFigures Serving(SimTime end_time, const runtime::LwsReport& report, const ClusterData& data,
                                const Owns& owns);
  std::map<const cluster::ClusterState*, ClusterData> clusters_;
};

// One MultiKueue manager: what its dispatcher cost and bought.
struct MultiKueueSummary {
  std::string manager;
  std::string dispatcher;
  int64_t workloads = 0;         // manager workloads that were dispatched
  int64_t dispatches = 0;        // manager reservations that dispatched (requeues count again)
  int64_t admitted = 0;          // admitted on a worker at least once
  int64_t finished = 0;
  int64_t copies = 0;            // copies created on workers
  int64_t reservations = 0;      // copies that reserved worker quota
  int64_t losing_reservations = 0;  // ... on workers that did not win (duplicates)
  int64_t losing_preemptions = 0;   // preemptions issued by copies that did not win
  int64_t winning_preemptions = 0;
  WaitStats time_to_admission;   // manager reservation to admission on a worker
  // The cost side (multikueue::WorkloadDispatchReport), summed: worker
  // quota held by losing copies and work lost by their preemption victims
  // (resource-seconds by resource), time jobs ran on two workers at once,
  // and the API operations: copies deleted, nominatedClusterNames patches,
  // status syncs, preemption gates opened.
  std::map<std::string, double> losing_quota_seconds;
  std::map<std::string, double> losing_victim_work;
  SimDuration duplicate_run_time = 0;
  int64_t copies_deleted = 0;
  int64_t nomination_patches = 0;
  int64_t status_syncs = 0;
  int64_t gate_opens = 0;
  std::vector<multikueue::WorkerReport> workers;
  std::vector<multikueue::WorkloadDispatchReport> per_workload;
};

// What one trace import did with its rows (trace::ImportReport, copied by
// the caller: metrics does not depend on the trace module).
struct TraceImportSummary {
  std::string source;
  int64_t rows_read = 0;
  int64_t workloads = 0;
  std::map<std::string, int64_t> skipped;   // reason -> rows
  std::map<std::string, int64_t> repaired;  // reason -> rows
  std::vector<std::string> examples;        // "line 17: negative duration"
  int64_t changes = 0;                      // timed object changes (replica timelines)
  std::map<std::string, int64_t> replicas;  // rows that became replicas of serving objects, by what
  std::map<std::string, int64_t> ignored;   // fields ignored on imported rows -> rows
  std::vector<std::string> notes;           // format figures (recorded waits)
};

// What one CronJob did (sim::CronJobReport, copied by the caller).
struct CronJobSummary {
  std::string cluster;
  std::string name;  // "namespace/name"
  int64_t created = 0;
  int64_t already_active = 0;  // due times held back by Forbid
  int64_t missed = 0;          // due times past startingDeadlineSeconds
  int64_t replaced = 0;        // active Jobs deleted by Replace
};

struct Summary {
  SimTime end_time = 0;
  int64_t events = 0;
  std::vector<ClusterSummary> clusters;
  std::vector<MultiKueueSummary> multikueue;
  std::map<std::string, int64_t> unknown_kinds;
  std::vector<std::string> warnings;
  // Objects of kinds that carry workloads kueuesim does not simulate
  // (AddLoadReport; written only when there are some).
  std::map<std::string, int64_t> unsimulated_workload_kinds;
  // Default run times used: rule description and workloads (written only
  // when some were used), and workloads left without a run time.
  std::vector<std::pair<std::string, int64_t>> default_duration_uses;
  int64_t workloads_without_duration = 0;
  // The scenario's CronJobs (written only when there are some).
  std::vector<CronJobSummary> cron_jobs;
  // The scenario's traces (written only when there are some).
  std::vector<TraceImportSummary> traces;
};

// Collects the summary from events. Register it with the simulation before
// it runs; call Finish once at the end.
class SummaryCollector : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override;
  // Closes the time integrals at `end_time` and builds the summary.
  Summary Finish(SimTime end_time, const std::vector<const runtime::ClusterRuntime*>& runtimes,
                 const std::vector<const multikueue::MultiKueueReport*>& multikueue = {});

 private:
  struct CqAccumulator {
    std::vector<Amount> usage;       // by FR
    std::vector<Amount> peak;        // by FR
    std::vector<double> integral;    // amount-microseconds, by FR
    std::vector<double> borrowed;    // amount-microseconds above nominal, by FR
    SimTime last_update = 0;
    std::vector<SimDuration> waits;
    int64_t admitted = 0;
    int64_t admitted_at_start = 0;
    int64_t finished = 0;
    int64_t preempted = 0;
    int64_t evicted = 0;
    int64_t deactivated = 0;
    std::map<std::string, int64_t> preempted_by_reason;
    std::map<std::string, int64_t> preemptions_issued_by_reason;
    std::map<std::string, int64_t> evictions_by_reason;
    std::map<std::string, double> work_lost;
  };
  struct ClusterAccumulator {
    const cluster::ClusterState* state = nullptr;
    std::vector<CqAccumulator> cqs;
    std::vector<bool> reserved_once;  // by workload
    int64_t arrivals = 0;  // kArrived and kAdmittedAtStart events
    // Fair-sharing shares: last recorded value and series, by quota node.
    std::vector<TimeSeries> shares;
    std::vector<quota::NodeId> dirty_nodes;
    SimTime dirty_time = 0;
  };

  ClusterAccumulator& For(const cluster::ClusterState* state);
  void Advance(const cluster::ClusterState& state, CqAccumulator* acc, cluster::CqId cq, SimTime now);
  // Records the shares of the ClusterQueue `cq` and its ancestors, once the
  // pending usage change has been applied.
  void MarkShareChange(ClusterAccumulator* cluster, cluster::CqId cq, SimTime now);
  void FlushShares(ClusterAccumulator* cluster);

  std::vector<ClusterAccumulator> clusters_;
  int64_t events_ = 0;
  RolloutFiguresCollector rollouts_;
};

// Copies what the loader noticed into the summary: unknown kinds, warnings,
// unsimulated workload kinds, default durations used (`settings` names the
// rules) and workloads without a run time.
void AddLoadReport(const scenario::LoadReport& report, const scenario::SimulationSettings& settings,
                   Summary* summary);

// The human-readable summary printed at the end of a run. Columns are as
// wide as their widest cell; a figure without data (the waits of a queue
// that admitted nothing) is "-"; quantities are humanised by
// FormatQuantityForText (the JSON keeps them exact).
std::string FormatSummary(const Summary& summary);

// An amount of `resource` for people (docs/cli.md, "Quantities in the text
// summary"): cpu in cores, byte resources (memory, ephemeral-storage,
// hugepages-*, *storage) in the largest binary unit (Ki..Ei) of which the
// amount is at least 1, other resources as whole numbers. A value that is
// not whole in its unit is rounded to 4 significant digits (never fewer
// than its integer digits, at most 3 decimals), trailing zeros dropped;
// *rounded (when given) is set to true when that changed the value.
// kUnlimited is "unlimited".
std::string FormatQuantityForText(Amount amount, std::string_view resource, bool* rounded = nullptr);

// A wait percentile for the text summary: "-" when there is no wait
// (stats.count == 0), else the duration.
std::string FormatWaitForText(const WaitStats& stats, SimDuration value);
// The JSON object {"count", "p50", "p90", "p99", "max", "mean"} in seconds,
// with null for every figure but the count when count == 0.
std::string WaitStatsJson(const WaitStats& stats);
// The summary as a JSON document (stable key order).
std::string SummaryToJson(const Summary& summary);

}  // namespace kueuesim::metrics

#endif  // KUEUESIM_METRICS_SUMMARY_H_
