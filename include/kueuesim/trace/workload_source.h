// Streaming workload sources: traces and generators that produce workloads
// in arrival order, one at a time, so that memory is bounded by what is in
// flight rather than by the length of the trace.
#ifndef KUEUESIM_TRACE_WORKLOAD_SOURCE_H_
#define KUEUESIM_TRACE_WORKLOAD_SOURCE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"

namespace kueuesim::trace {

// What an import did with its input: nothing is lost silently.
struct ImportReport {
  std::string source;           // e.g. "openb_pod_list_default.csv (alibaba-gpu-2023)"
  int64_t rows_read = 0;        // data rows (not headers)
  int64_t workloads = 0;        // workloads produced
  int64_t changes = 0;          // timed object changes produced (change traces)
  std::map<std::string, int64_t> skipped;   // reason -> rows skipped
  std::map<std::string, int64_t> repaired;  // reason -> rows repaired
  // Rows that became replicas of serving objects the trace defines (the
  // groups of a LeaderWorkerSet, or their workers), by what they became
  // (alibaba-dlrm): rows_read = workloads + replica rows + skipped.
  std::map<std::string, int64_t> replicas;
  // Fields the model cannot represent, ignored on rows that were otherwise
  // imported: what -> rows.
  std::map<std::string, int64_t> ignored;
  // Format-specific figures for comparison (e.g. recorded waits).
  std::vector<std::string> notes;
  // The first few skipped or repaired rows: "line 17: negative duration".
  std::vector<std::string> examples;
  static constexpr size_t kMaxExamples = 5;

  void Skip(int64_t line, const std::string& reason);
  void Repair(int64_t line, const std::string& reason);
  std::string Format() const;
};

class WorkloadSource {
 public:
  virtual ~WorkloadSource() = default;
  // The next workload, with arrival (kueuesim.io/arrival) not earlier than
  // the previous one's; nullopt at the end. An error stops the run.
  virtual absl::StatusOr<std::optional<model::Workload>> Next() = 0;
  // The cluster the workloads go to ("" for the default cluster).
  virtual std::string cluster() const { return ""; }
  virtual const ImportReport& report() const = 0;
};

}  // namespace kueuesim::trace

#endif  // KUEUESIM_TRACE_WORKLOAD_SOURCE_H_
