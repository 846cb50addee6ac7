// Streaming workload sources: traces and generators that produce workloads
// in arrival order, one at a time, so that memory is bounded by what is in
// flight rather than by the length of the trace.
#ifndef KUEUESIM_TRACE_WORKLOAD_SOURCE_H_
#define KUEUESIM_TRACE_WORKLOAD_SOURCE_H_

#include <cstdint>
#include <map>
#include <memory>
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
  // As Next, the workload on the heap, where a cluster keeps it (null at
  // the end). The default moves Next()'s workload there.
  virtual absl::StatusOr<std::shared_ptr<model::Workload>> NextShared();
  // The cluster the workloads go to ("" for the default cluster).
  virtual std::string cluster() const { return ""; }
  virtual const ImportReport& report() const = 0;
  // Whether the source may be read on another thread (ReadAhead): Next()
  // touches nothing but the source itself, and report() no longer changes
  // once the source is open except for `workloads` (the workloads handed
  // out so far).
  virtual bool CanReadAhead() const { return false; }
};

// Reads `source` (CanReadAhead) ahead on a thread of its own, a bounded
// number of workloads ahead of the caller (memory stays flat in the trace's
// length), so that parsing the trace overlaps the simulation. The workloads,
// their order, the errors and the report are those of `source` read
// directly: report().workloads counts the workloads handed out, not those
// read ahead. The thread stops when the source ends, when report() is
// called, or when the returned source is destroyed.
std::unique_ptr<WorkloadSource> ReadAhead(std::unique_ptr<WorkloadSource> source);

}  // namespace kueuesim::trace

#endif  // KUEUESIM_TRACE_WORKLOAD_SOURCE_H_
