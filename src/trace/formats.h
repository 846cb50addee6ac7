// The formats (internal to the trace module): one opener per format, and
// the objects the formats that define some return.
#ifndef KUEUESIM_TRACE_FORMATS_H_
#define KUEUESIM_TRACE_FORMATS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "kueuesim/trace/change_source.h"
#include "kueuesim/trace/importers.h"
#include "kueuesim/trace/trace_spec.h"
#include "trace/source.h"

namespace kueuesim::trace::internal {

absl::StatusOr<std::unique_ptr<RecordFormat>> OpenNativeCsv(const TraceSpec& spec);
absl::StatusOr<std::unique_ptr<RecordFormat>> OpenNativeJsonl(const TraceSpec& spec);
absl::StatusOr<std::unique_ptr<RecordFormat>> OpenKueueWorkloads(const TraceSpec& spec);
absl::StatusOr<std::unique_ptr<RecordFormat>> OpenPerfGenerator(const TraceSpec& spec);
absl::StatusOr<std::unique_ptr<RecordFormat>> OpenAlibabaGpu2023(const TraceSpec& spec);
absl::StatusOr<std::unique_ptr<RecordFormat>> OpenPhilly(const TraceSpec& spec);
absl::StatusOr<std::unique_ptr<RecordFormat>> OpenHelios(const TraceSpec& spec);
absl::StatusOr<std::unique_ptr<RecordFormat>> OpenPollux(const TraceSpec& spec);

absl::StatusOr<GeneratedObjects> PerfGeneratorObjects(const TraceSpec& spec);
absl::StatusOr<GeneratedExtent> PerfGeneratorExtent(const TraceSpec& spec);
absl::StatusOr<GeneratedObjects> AlibabaGpu2023Objects(const TraceSpec& spec);

// alibaba-dlrm (alibaba_dlrm.cc): the deployment mapping is a workload
// format; the leaderworkerset mapping defines LeaderWorkerSets and a change
// source scaling them.
absl::StatusOr<std::unique_ptr<RecordFormat>> OpenAlibabaDlrm(const TraceSpec& spec);
absl::StatusOr<GeneratedObjects> AlibabaDlrmObjects(const TraceSpec& spec);
bool IsAlibabaDlrmChangeTrace(const TraceSpec& spec);
absl::StatusOr<std::unique_ptr<ChangeSource>> OpenAlibabaDlrmChanges(const TraceSpec& spec);

}  // namespace kueuesim::trace::internal

#endif  // KUEUESIM_TRACE_FORMATS_H_
