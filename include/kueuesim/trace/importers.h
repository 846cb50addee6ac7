// Trace importers: streaming WorkloadSources for each supported format, and
// the Kueue objects some formats define (a generator configuration defines
// its cohorts and queues; a node list defines Nodes).
//
// Formats (TraceSpec::format):
//   native-csv, native-jsonl   kueuesim's own documented formats (docs/traces.md)
//   kueue-workloads            `kubectl get workloads -A -o json` (a List)
//   kueue-perf-generator       Kueue's test/performance/scheduler generator YAML
//   alibaba-gpu-2023           Alibaba PAI "openb" pod list (and node list)
//   philly                     the Philly job CSV (timestamp,duration,num_gpus,...)
//   helios                     Helios-style job logs (job_id,user,vc,gpu_num,...)
//   pollux                     Pollux/Sia workload CSV (name,time,application,num_replicas,...)
//   replica-timeline-csv/-jsonl  timed LeaderWorkerSet changes, not workloads:
//                              read with OpenChangeTrace (change_source.h)
//   alibaba-dlrm               Alibaba's disaggregated DLRM serving trace:
//                              LeaderWorkerSets and their scale changes
//                              (OpenChangeTrace), or with options.mapping
//                              "deployment", one Workload per instance
//
// Common to every format (src/trace/source.h has the details):
//   - Trace time: as written for formats with relative times (native,
//     alibaba, pollux, the generator); for absolute timestamps (philly,
//     helios, kueue-workloads) 0 is the earliest valid arrival in the file.
//   - window [start, end) selects by trace time; simulated time 0 is trace
//     time 0, or window.start when set (options.arrivalOrigin "first": the
//     first arrival in the window); arrivals are then divided by
//     scale.arrival and durations multiplied by scale.duration (rounded to
//     the microsecond); limit keeps the first workloads by arrival.
//   - Unsorted files are sorted with an index of 24 bytes per row (ties keep
//     file order); sorted files are streamed. Memory never holds the trace.
//   - Every row that is not imported is counted in the ImportReport by
//     reason (including "outside the window" and "beyond the limit"), so that
//     rows_read = workloads + skipped once the source is exhausted (with
//     options.sorted "true" the file is read once, lazily, and rows after the
//     limit are never read).
//   - spec.mapping replaces a format's default mapping key by key.
//   - options.replayRecordedStart "true": a workload with a recorded start
//     (annotation kueuesim.io/recorded-wait: alibaba, helios,
//     kueue-workloads) is created at its arrival and queued only at its
//     recorded start (Workload::hold_until); without one it is queued at
//     arrival and counted as repaired.
#ifndef KUEUESIM_TRACE_IMPORTERS_H_
#define KUEUESIM_TRACE_IMPORTERS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/trace/trace_spec.h"
#include "kueuesim/trace/workload_source.h"

namespace kueuesim::trace {

// The valid format names.
std::vector<std::string> FormatNames();

// Opens a streaming source for `spec`. Errors (unknown format, unreadable
// file, a header that does not match the format, an invalid mapping) name
// the file and the Trace object.
absl::StatusOr<std::unique_ptr<WorkloadSource>> OpenTrace(const TraceSpec& spec);

// Kueue objects a trace defines, to be added to its cluster before the run.
struct GeneratedObjects {
  std::vector<model::ResourceFlavor> resource_flavors;
  std::vector<model::Cohort> cohorts;
  std::vector<model::ClusterQueue> cluster_queues;
  std::vector<model::LocalQueue> local_queues;
  std::vector<model::Namespace> namespaces;
  std::vector<model::WorkloadPriorityClass> workload_priority_classes;
  std::vector<model::Node> nodes;
  // Serving objects (alibaba-dlrm: one per application); the trace's
  // Changes scale them (OpenChangeTrace).
  std::vector<model::LeaderWorkerSet> leader_worker_sets;
};

// The objects `spec` defines (empty for formats that define none).
absl::StatusOr<GeneratedObjects> GeneratedObjectsFor(const TraceSpec& spec);

// What a generator format (kueue-perf-generator) makes, counted with
// checked arithmetic before anything is generated, so that a loader can
// refuse a configuration beyond its budget (or whose counts and times
// overflow int64: an input error naming the file, line and field). Formats
// that read their objects and workloads from files report zeros: what they
// make is bounded by the file.
struct GeneratedExtent {
  int64_t cohorts = 0;
  int64_t cluster_queues = 0;  // each with a LocalQueue and a Namespace
  int64_t workloads = 0;       // streamed, before spec.limit
  SimDuration last_arrival = 0;      // generator time of the last arrival
  SimDuration longest_duration = 0;  // the longest run time
};
absl::StatusOr<GeneratedExtent> MeasureGenerated(const TraceSpec& spec);

}  // namespace kueuesim::trace

#endif  // KUEUESIM_TRACE_IMPORTERS_H_
