// The per-workload table of a run (kueuesim run --workloads FILE): one row
// per workload, written when the workload finishes (or is deleted), and for
// the workloads still unfinished when the run ends, at Finish. Memory is
// bounded by the workloads in flight, never by the length of the run.
//
// Columns (times in simulated seconds, "" / null when it did not happen):
//   cluster        the cluster's name ("" for a single-cluster scenario)
//   workload       "namespace/name"
//   clusterQueue   the ClusterQueue of its last quota reservation, else the
//                  one its LocalQueue points to ("" without one)
//   status         finished | deleted | running (holds quota at the end) |
//                  pending | deactivated | inadmissible
//   arrival        its creation (kueuesim.io/arrival)
//   quotaReserved  its first quota reservation
//   admitted       its first admission (quota and every admission check)
//   started        the first time its pods were all ready
//   finished       completion, or deletion
//   wait           quotaReserved - arrival (the summary's wait)
//   runTime        total time its pods were ready, over every attempt (up to
//                  the end of the run for a running workload)
//   evictions      evictions issued (any cause)
//   preemptions    times it was chosen as a preemption victim
//   flavors        "resource=flavor" pairs of its last reservation, sorted,
//                  joined by ";" ("cpu=default;memory=default")
//   pendingReason  the reason of its last QuotaReserved=False condition
//                  (Kueue's, e.g. WaitingForQuota; "" if it never had one):
//                  why it waits now, or why it waited before its last
//                  reservation
//   pendingMessage that condition's message, in Kueue's words
//
// CSV (with a header line) when the file name ends in .csv, else JSON Lines
// with the same keys. Finished rows come in the order the workloads
// finished; the unfinished follow, by cluster, arrival, then name. The
// same run gives byte-identical output.
#ifndef KUEUESIM_METRICS_WORKLOAD_TABLE_H_
#define KUEUESIM_METRICS_WORKLOAD_TABLE_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "kueuesim/cluster/events.h"
#include "kueuesim/metrics/timeseries.h"

namespace kueuesim::metrics {

class WorkloadTableWriter : public cluster::EventSink {
 public:
  // Writes to `out` (not owned; must outlive the writer). `format`: see
  // TimeSeriesFormatForPath (.csv -> CSV, else JSON Lines).
  WorkloadTableWriter(std::FILE* out, TimeSeriesFormat format);
  void OnEvent(const cluster::SimEvent& event) override;
  // Writes the rows of the workloads still in flight at `end_time`. Call
  // once after the run.
  void Finish(SimTime end_time);
  // Writes to `out` the rows Finish(end_time) would write now (the
  // workloads in flight), leaving the writer unchanged: a table of a run
  // that goes on.
  void WriteInFlight(std::FILE* out, SimTime end_time) const;
  int64_t rows() const { return rows_; }
  // Workloads tracked now (arrived, no row written yet).
  size_t in_flight() const { return in_flight_.size(); }

 private:
  struct Row {
    int32_t cluster = 0;  // index into cluster_names_
    std::string workload;
    std::string cluster_queue;
    std::string status = "pending";
    SimTime arrival = 0;
    SimTime quota_reserved = -1;
    SimTime admitted = -1;
    SimTime started = -1;
    SimTime finished = -1;
    SimTime ready_since = -1;  // pods ready now, since then
    SimDuration run_time = 0;
    int64_t evictions = 0;
    int64_t preemptions = 0;
    std::string flavors;
    std::string pending_reason;
    std::string pending_message;
  };

  int32_t ClusterIndex(const cluster::ClusterState* state);
  Row& RowFor(const cluster::SimEvent& event, int32_t cluster);
  void StopRunning(Row* row, SimTime now);
  void Write(const Row& row);

  std::FILE* out_;
  TimeSeriesFormat format_;
  std::vector<const cluster::ClusterState*> clusters_;
  std::vector<std::string> cluster_names_;
  // Key: cluster index << 32 | workload id (ids are reused only after the
  // workload's row is written).
  std::unordered_map<int64_t, Row> in_flight_;
  int64_t rows_ = 0;
};

}  // namespace kueuesim::metrics

#endif  // KUEUESIM_METRICS_WORKLOAD_TABLE_H_
