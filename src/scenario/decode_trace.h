// Decoder for kueuesim.io/v1alpha1 Trace (kueuesim/trace/trace_spec.h):
//
//   apiVersion: kueuesim.io/v1alpha1
//   kind: Trace
//   metadata: {name: alibaba}
//   spec:
//     format: alibaba-gpu-2023     # required; one of trace::FormatNames()
//     path: traces/pods.csv        # required; relative to the scenario file
//     cluster: ""                  # optional (else the kueuesim.io/cluster annotation)
//     mapping:                     # optional; keys namespace, queue, name, priority,
//       <key>: {value, field, values: {}, default, prefix, label}   # priorityClass, flavorLabel
//     scale: {arrival: 2, duration: 0.5}   # positive numbers
//     window: {start: 0s, end: 7d}         # Go durations, trace time; end > start
//     limit: 10000                         # non-negative integer
//     options: {gpuResource: nvidia.com/gpu}  # strings; options.nodes is a path
//                                              # resolved like spec.path
// Errors name the file, the line, the object and the field path.
#ifndef KUEUESIM_SCENARIO_DECODE_TRACE_H_
#define KUEUESIM_SCENARIO_DECODE_TRACE_H_

#include <string>

#include "absl/status/statusor.h"
#include "kueuesim/trace/trace_spec.h"
#include "scenario/field.h"

namespace kueuesim::scenario {

// Decodes a Trace object; relative paths (spec.path, spec.options.nodes) are
// resolved against `base_dir` (the scenario file's directory; "" keeps them
// as written).
absl::StatusOr<trace::TraceSpec> DecodeTrace(const FieldReader& object, const std::string& base_dir);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_DECODE_TRACE_H_
