// A trace to replay, as a scenario declares it (kueuesim.io/v1alpha1
// Trace): the file, its format, how its fields map to Kueue objects, and
// scale and window knobs. See docs/traces.md.
//
//   apiVersion: kueuesim.io/v1alpha1
//   kind: Trace
//   metadata: {name: alibaba}
//   spec:
//     format: alibaba-gpu-2023          # see FormatNames()
//     path: ../shared/traces/alibaba-gpu-v2023/openb_pod_list_default.csv
//     cluster: ""                       # optional, the default cluster
//     mapping:                          # optional; each format has defaults
//       namespace: {field: user, default: default}
//       queue: {value: main}
//       priority: {field: qos, values: {LS: "1000", Burstable: "500", BE: "100"}}
//       flavorLabel: {field: gpu_spec, label: gpu-model}
//     scale: {arrival: "2", duration: "0.5"}   # twice the arrival rate, half the run time
//     window: {start: 0s, end: 7d}     # in trace time, before scaling
//     limit: 10000                     # at most this many workloads
//     options: {gpuResource: nvidia.com/gpu}
#ifndef KUEUESIM_TRACE_TRACE_SPEC_H_
#define KUEUESIM_TRACE_TRACE_SPEC_H_

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kueuesim/base/time.h"
#include "kueuesim/model/objects.h"

namespace kueuesim::trace {

// How one Kueue-side value is derived from the trace: a constant `value`,
// or the trace column `field` (optionally translated through `values`, with
// `default` when the column is empty or not in `values`), with a `prefix`.
// `label` names a node label (flavorLabel: the pod set gets a nodeSelector
// <label>=<value>).
struct FieldMapping {
  std::string value;
  std::string field;
  std::map<std::string, std::string> values;
  std::string default_value;
  std::string prefix;
  std::string label;
};

struct TraceSpec {
  model::SourceRef source;
  std::string name;
  std::string format;
  std::string path;  // resolved against the scenario file's directory
  std::string cluster;
  // Keys: namespace, queue, priority, priorityClass, flavorLabel, name.
  std::map<std::string, FieldMapping> mapping;
  double arrival_scale = 1.0;   // arrival-rate multiplier (2 = twice as many per hour)
  double duration_scale = 1.0;  // run-time multiplier
  std::optional<SimDuration> window_start;
  std::optional<SimDuration> window_end;
  std::optional<int64_t> limit;
  std::map<std::string, std::string> options;
  // The simulated time range (the scenario's limits.time, set by the
  // loader): a row whose arrival, recorded start or duration, once scaled,
  // lies beyond it is an input error naming the file and the line.
  SimDuration time_limit = std::numeric_limits<int64_t>::max() / 1000;
};

}  // namespace kueuesim::trace

#endif  // KUEUESIM_TRACE_TRACE_SPEC_H_
