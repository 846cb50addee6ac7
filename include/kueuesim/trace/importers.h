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
};

// The objects `spec` defines (empty for formats that define none).
absl::StatusOr<GeneratedObjects> GeneratedObjectsFor(const TraceSpec& spec);

}  // namespace kueuesim::trace

#endif  // KUEUESIM_TRACE_IMPORTERS_H_
