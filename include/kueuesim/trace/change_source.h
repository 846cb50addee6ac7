// Traces whose rows are timed changes to serving objects rather than
// workloads (docs/traces.md "Replica timelines"):
//
//   replica-timeline-csv    header + one change per row
//   replica-timeline-jsonl  one JSON object per line, the same keys
//
// Keys: time (required; Go duration or seconds since trace start), name
// (required), namespace (default "default"), kind (LeaderWorkerSet, the
// default; Deployment; StatefulSet), replicas, partition, rollout
// (true/false), revision or image (a template change: a value different
// from the previous row's for the same object starts a rollout; the first
// value seen is the object's current template), maxSurge, maxUnavailable.
//
// Each row becomes the model::Change a hand-written Change document with
// the same fields makes (source: the file and the line). Rows are counted
// in the ImportReport like a workload trace's (`changes` instead of
// `workloads`); skipped rows by reason: missing or bad time, time before
// the previous row, missing name, unknown kind, bad number, nothing
// changed, maxSurge/maxUnavailable edits (not simulated), outside the
// window, beyond the limit. spec.scale.arrival divides the times;
// spec.window selects by trace time, as for workload traces.
#ifndef KUEUESIM_TRACE_CHANGE_SOURCE_H_
#define KUEUESIM_TRACE_CHANGE_SOURCE_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/trace/trace_spec.h"
#include "kueuesim/trace/workload_source.h"

namespace kueuesim::trace {

// True for the formats whose rows are changes (OpenChangeTrace), not
// workloads (OpenTrace).
bool IsChangeFormat(const std::string& format);
// True for the traces read with OpenChangeTrace: the change formats, and
// alibaba-dlrm with its (default) leaderworkerset mapping, which defines
// LeaderWorkerSets (GeneratedObjectsFor) and scales them.
bool IsChangeTrace(const TraceSpec& spec);

class ChangeSource {
 public:
  virtual ~ChangeSource() = default;
  // The next change, at a time not earlier than the previous one's;
  // nullopt at the end. Errors (a read error) stop the run.
  virtual absl::StatusOr<std::optional<model::Change>> Next() = 0;
  // The report; the caller may count more skips (a target the scenario
  // does not have) through mutable_report().
  virtual const ImportReport& report() const = 0;
  virtual ImportReport* mutable_report() = 0;
};

// Opens a change trace. Errors (unreadable file, a header without time and
// name, an unknown column, an unknown option) name the file and the Trace.
absl::StatusOr<std::unique_ptr<ChangeSource>> OpenChangeTrace(const TraceSpec& spec);

}  // namespace kueuesim::trace

#endif  // KUEUESIM_TRACE_CHANGE_SOURCE_H_
