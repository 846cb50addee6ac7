// Time series of a run: usage, borrowing and quota per ClusterQueue and
// cohort by flavor and resource, pending workloads per ClusterQueue and,
// under fair sharing, the weighted dominant resource shares. Sampled as
// events happen: a row is written only when a value changes, and all the
// changes of one simulated instant become one sample (the value at the end
// of the instant), so the output grows with the number of distinct
// instants that change something, never with the number of events.
//
// One row per (time, series):
//   time      simulated seconds ("12.5")
//   cluster   the cluster's name ("" for a single-cluster scenario)
//   scope     ClusterQueue | Cohort | MultiKueueCluster | MultiKueue
//   name      the ClusterQueue's or cohort's name; the MultiKueueCluster's
//             (a worker of the manager `cluster`); the manager's
//   metric    usage | borrowing | quota | pending | share; for a
//             MultiKueueCluster: copies (live copies the manager created
//             there and has not deleted), copiesCreated, copiesDeleted
//             (cumulative API operations); for MultiKueue:
//             nominationPatches (cumulative writes of
//             status.nominatedClusterNames)
//   flavor    ResourceFlavor (usage, borrowing, quota), else ""
//   resource  resource name (usage, borrowing, quota), else ""
//   value     usage/borrowing/quota in resource units (cpu in cores with up
//             to 3 decimals, memory in bytes, GPUs and pods as counts);
//             pending as a count; share as Kueue's
//             status.fairSharing.weightedShare (an integer)
//
// quota is the ClusterQueue's nominal quota, or a cohort's subtree quota
// (its own plus what its children lend it); borrowing is max(0, usage -
// quota). pending counts the workloads waiting for quota in the
// ClusterQueue: arrived and not holding quota, finished, deactivated,
// deleted or refused by the workload controller (held ones of a stopped
// LocalQueue count).
//
// Written as CSV (header: time,cluster,scope,name,metric,flavor,resource,value)
// or JSON Lines ({"time": 12.5, "cluster": "", "scope": "ClusterQueue", ...}).
// Byte-identical output for the same input.
#ifndef KUEUESIM_METRICS_TIMESERIES_H_
#define KUEUESIM_METRICS_TIMESERIES_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kueuesim/cluster/events.h"

namespace kueuesim::metrics {

enum class TimeSeriesFormat : uint8_t { kCsv, kJsonLines };

// .csv -> CSV; anything else (.jsonl, .json, ...) -> JSON Lines.
TimeSeriesFormat TimeSeriesFormatForPath(std::string_view path);

class TimeSeriesRecorder : public cluster::EventSink {
 public:
  // Writes to `out` (not owned; must outlive the recorder).
  TimeSeriesRecorder(std::FILE* out, TimeSeriesFormat format);
  void OnEvent(const cluster::SimEvent& event) override;
  // Writes the sample of the last instant. Call once after the run.
  void Finish();
  // Writes to `out` what Finish would write now (the rows held back and the
  // sample of the current instant), leaving the recorder unchanged: the
  // series of a run that goes on.
  void WritePending(std::FILE* out) const;
  int64_t rows() const { return rows_; }
  int64_t samples() const { return samples_; }  // instants that wrote rows

 private:
  struct ClusterSeries {
    const cluster::ClusterState* state = nullptr;
    int num_frs = 0;
    std::vector<Amount> usage;           // by node * frs + fr
    std::vector<Amount> emitted_usage;   // last written
    std::vector<Amount> emitted_borrowing;
    std::vector<Amount> emitted_quota;
    std::vector<bool> quota_written;
    std::vector<int64_t> pending;        // by ClusterQueue
    std::vector<int64_t> emitted_pending;
    std::vector<bool> counted_pending;   // by workload
    std::vector<double> emitted_share;   // by node
    std::vector<double> share;           // by node, value at the current instant
    std::vector<bool> dirty_node;        // usage/quota may have changed
    std::vector<quota::NodeId> dirty_nodes;
    std::vector<bool> dirty_cq;          // pending may have changed
    std::vector<cluster::CqId> dirty_cqs;
    std::vector<quota::NodeId> share_nodes;  // shares to read at the next event
    std::vector<bool> share_dirty;
    std::vector<quota::NodeId> changed_shares;  // read this instant, to write
    // MultiKueue managers: per worker (MultiKueueCluster name).
    struct WorkerCounts {
      int64_t copies = 0, created = 0, deleted = 0;
      int64_t emitted_copies = 0, emitted_created = 0, emitted_deleted = 0;
    };
    std::map<std::string, WorkerCounts> multikueue;
    int64_t nominations = 0;
    int64_t emitted_nominations = 0;
    bool multikueue_dirty = false;
  };

  ClusterSeries& For(const cluster::ClusterState* state);
  void MarkNode(ClusterSeries* c, quota::NodeId n);
  void MarkAllNodes(ClusterSeries* c);
  void MarkCq(ClusterSeries* c, cluster::CqId cq);
  void MarkShares(ClusterSeries* c, cluster::CqId cq);
  void ReadShares(ClusterSeries* c);
  void AddUsage(ClusterSeries* c, cluster::CqId cq, const cluster::WorkloadRecord& wl, int sign);
  void SetPending(ClusterSeries* c, cluster::CqId cq, cluster::WorkloadId id, bool pending);
  // Writes the rows of the instant `now_` and clears the marks.
  void Flush();
  void WriteRow(const ClusterSeries& c, quota::NodeId node, std::string_view metric, cluster::FrId fr,
                std::string_view value);
  void WriteRow(std::string_view cluster, std::string_view scope, std::string_view name, std::string_view metric,
                std::string_view flavor, std::string_view resource, std::string_view value);

  std::FILE* out_;
  TimeSeriesFormat format_;
  std::vector<ClusterSeries> clusters_;
  SimTime now_ = 0;
  bool any_event_ = false;
  bool instant_wrote_ = false;
  std::string buffer_;
  int64_t rows_ = 0;
  int64_t samples_ = 0;
};

}  // namespace kueuesim::metrics

#endif  // KUEUESIM_METRICS_TIMESERIES_H_
