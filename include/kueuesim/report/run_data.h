// A run directory, as `kueuesim run ... --out DIR` writes it, read back for
// reports:
//   DIR/summary.json     the summary (required)
//   DIR/timeseries.jsonl the time series (metrics/timeseries.h; optional)
//   DIR/events.jsonl     the event log (optional): wait times and
//                        preemptions over time come from it
//   DIR/run.json         the scenario's startTime (optional; written by
//                        `kueuesim run --out` when the scenario sets one):
//                        the report's time axes then show wall-clock time
// Values read here only feed charts and tables: plain doubles are fine.
#ifndef KUEUESIM_REPORT_RUN_DATA_H_
#define KUEUESIM_REPORT_RUN_DATA_H_

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace kueuesim::report {

// (time in seconds, value) points of a step function, in time order.
using Points = std::vector<std::pair<double, double>>;

// Identifies one series of timeseries.jsonl.
struct SeriesKey {
  std::string cluster;
  std::string scope;  // ClusterQueue | Cohort
  std::string name;
  std::string metric;  // usage | borrowing | quota | pending | share
  std::string flavor;
  std::string resource;
  auto Tie() const { return std::tie(cluster, scope, name, metric, flavor, resource); }
  bool operator<(const SeriesKey& other) const { return Tie() < other.Tie(); }
  bool operator==(const SeriesKey& other) const { return Tie() == other.Tie(); }
};

// Headline figures of one ClusterQueue, from summary.json.
struct QueueFigures {
  std::string cluster;
  std::string name;
  std::string cohort;  // "" without one
  int64_t admitted = 0;
  int64_t finished = 0;
  int64_t pending = 0;
  int64_t preempted = 0;
  // Wait percentiles in seconds; nullopt when the ClusterQueue admitted
  // nothing (the summary's null: no data, not a wait of 0).
  std::optional<double> wait_p50;
  std::optional<double> wait_p90;
  struct Resource {
    std::string flavor;
    std::string resource;
    double utilization = -1;  // -1: no nominal quota
  };
  std::vector<Resource> resources;
  // Workloads without quota at the end of the run, by reason.
  std::map<std::string, int64_t> pending_by_reason;
};

// A LeaderWorkerSet of the summary: its ready groups over time.
struct LwsFigures {
  std::string cluster;
  std::string name;
  int64_t replicas = 0;
  Points ready_groups;
  // spec.replicas over time: the replicas at the start, then each scale's
  // new value at its time (the summary's "scales").
  Points desired_groups;
};

struct RunData {
  std::string label;  // the directory's name
  std::string directory;
  double end_time = 0;
  int64_t events = 0;
  // The scenario's startTime in seconds since 1970-01-01T00:00:00Z (from
  // run.json); nullopt: simulated time only.
  std::optional<double> start_time;
  std::string start_time_text;  // as written ("2024-01-01T00:00:00Z")
  bool multikueue = false;      // the summary has a multiKueue section
  std::vector<LwsFigures> leader_worker_sets;
  std::vector<QueueFigures> queues;
  bool has_timeseries = false;
  std::map<SeriesKey, Points> series;
  bool has_events = false;
  // Wait (arrival to first quota reservation) of each admitted workload, in
  // seconds, by "cluster/ClusterQueue" (just the ClusterQueue for the
  // default cluster); sorted.
  std::map<std::string, std::vector<double>> waits;
  // Time of each preemption, in order.
  std::vector<double> preemptions;
};

// Reads the run directory `dir`. Errors name the file, line and field.
absl::StatusOr<RunData> LoadRunDirectory(const std::string& dir);

}  // namespace kueuesim::report

#endif  // KUEUESIM_REPORT_RUN_DATA_H_
