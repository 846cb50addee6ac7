// The machinery every trace format shares (internal to the trace module):
//
//  - RecordFormat: a format's reader. It reads records in file order and
//    turns each into a Workload with its arrival in trace time (unscaled),
//    or reports why it cannot (ImportReport::Skip, with the line).
//  - Mapper: TraceSpec::mapping (namespace, queue, name, priority,
//    priorityClass, flavorLabel) over a format's defaults, applied to each
//    record through the record's named fields.
//  - MakeSource: the WorkloadSource around a RecordFormat, which applies the
//    window, the limit and the scales and delivers the workloads in arrival
//    order, streaming when the file is sorted.
//
// Passes over the input (see docs/traces.md, "Memory"):
//   1. Counting pass: every record is read and parsed once; skipped and
//      repaired rows are counted in the report, and the pass notes whether
//      the valid records are in non-decreasing arrival order. While they
//      are, nothing is kept but a few counters; from the first record out
//      of order on, the pass also builds the index of unsorted input: for
//      each valid record its arrival, byte offset and line (24 bytes; the
//      records before that one are read again, once, for theirs).
//   2. Sorted input: the workloads are then read again, streaming, one at a
//      time. Unsorted input: the index keeps the records in the window, is
//      sorted (ties keep file order), and the workloads are read back by
//      seeking to each record in turn.
// Option `sorted: "true"` skips the counting pass: the file is streamed
// once, and a record earlier than its predecessor is moved to the
// predecessor's arrival (counted as repaired).
#ifndef KUEUESIM_TRACE_SOURCE_H_
#define KUEUESIM_TRACE_SOURCE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/trace/trace_spec.h"
#include "kueuesim/trace/workload_source.h"

namespace kueuesim::trace::internal {

inline constexpr char kDefaultGpuResource[] = "nvidia.com/gpu";
inline constexpr char kRecordedWaitAnnotation[] = "kueuesim.io/recorded-wait";
inline constexpr char kWorkloadPriorityClassSource[] = "kueue.x-k8s.io/workloadpriorityclass";

// Where a record is: a byte offset (or a format-defined ordinal) and the
// 1-based line it starts on.
struct RecordPos {
  int64_t offset = 0;
  int64_t line = 0;
};

// One importable record.
struct ParsedRecord {
  // arrival is unused; duration is unscaled (trace time).
  model::Workload workload;
  // The arrival in trace time, microseconds: since the Unix epoch for
  // formats with absolute timestamps, else as written in the file.
  int64_t time = 0;
};

class RecordFormat {
 public:
  virtual ~RecordFormat() = default;
  // Whether times are absolute (then trace time 0 is the earliest arrival).
  virtual bool absolute_time() const { return false; }
  // Whether records come in arrival order by construction (a generator):
  // then they are read once, without a counting pass.
  virtual bool sorted_by_construction() const { return false; }
  // Moves to the first record.
  virtual absl::Status Rewind() = 0;
  // Reads the next record in file order; false at the end. A record that
  // cannot be imported is counted in `report` (when not null) and leaves
  // *out empty; repairs are counted the same way.
  virtual absl::StatusOr<bool> Next(ImportReport* report, RecordPos* pos,
                                    std::optional<ParsedRecord>* out) = 0;
  // As Next, for the counting pass: only whether the record is valid (its
  // arrival in *time) or not (*time empty), with its skips and repairs
  // counted exactly as Next counts them. A format may check a record
  // without building its workload; the default builds it.
  virtual absl::StatusOr<bool> NextTime(ImportReport* report, RecordPos* pos, std::optional<int64_t>* time);
  // Parses the record at `pos` (from an earlier Next) again.
  virtual absl::StatusOr<std::optional<ParsedRecord>> ReadAt(const RecordPos& pos) = 0;
};

// Counts a skipped row when `report` is not null; returns nullopt for
// `return Skip(...)` in parsers.
std::nullopt_t Skip(ImportReport* report, int64_t line, const std::string& reason);
// As Skip, returning false (for parsers that fill a record in place).
inline bool SkipRow(ImportReport* report, int64_t line, const std::string& reason) {
  Skip(report, line, reason);
  return false;
}
void Repair(ImportReport* report, int64_t line, const std::string& reason);

// The named fields of one record, for the Mapper.
class RecordFields {
 public:
  virtual ~RecordFields() = default;
  // The value of `field`, or nullopt when the record has no such field.
  virtual std::optional<std::string_view> Get(std::string_view field) const = 0;
  // The value of column `index` (formats whose fields are columns; the
  // Mapper resolves column names once, see Mapper::Create).
  virtual std::optional<std::string_view> GetColumn(size_t /*index*/) const { return std::nullopt; }
};

class Mapper {
 public:
  enum Key { kNamespace, kQueue, kName, kPriority, kPriorityClass, kFlavorLabel, kKeyCount };
  static constexpr const char* kKeys[kKeyCount] = {"namespace", "queue", "name", "priority", "priorityClass",
                                                   "flavorLabel"};

  // `defaults` are the format's mappings; spec.mapping replaces them key by
  // key. When `columns` is given (CSV formats), a field that spec.mapping
  // names must be one of them, and fields are read by column index. Errors
  // name the mapping key.
  static absl::StatusOr<Mapper> Create(const TraceSpec& spec, std::map<std::string, FieldMapping> defaults,
                                       const std::vector<std::string>* columns);

  // The value `key` maps to for this record ("" when unmapped or empty):
  // `value` when set; else the field (translated through `values`, with
  // `prefix` prepended), or `default` when the field is absent, empty or not
  // in `values`.
  std::string Resolve(Key key, const RecordFields& fields) const;

  // Applies every mapping to `wl`: name (else `fallback_name`), namespace
  // (else "default"), queue (required), priority (an integer), priority
  // class, and flavorLabel (a node selector on every pod set; a value with
  // "|"-separated alternatives becomes a required node-affinity term
  // `<label> In [...]`). Returns a skip reason, or "" on success.
  std::string Apply(const RecordFields& fields, const std::string& fallback_name, model::Workload* wl) const;
  // The skip reason Apply would return for this record, or "", without
  // building anything (the counting pass).
  std::string SkipReason(const RecordFields& fields) const;

  // The fields the mapping reads (for formats that must keep them).
  std::set<std::string> FieldsRead() const;
  const FieldMapping* Find(Key key) const { return slots_[key] ? &*slots_[key] : nullptr; }

 private:
  static constexpr size_t kNoColumn = static_cast<size_t>(-1);      // read by name
  static constexpr size_t kAbsentColumn = static_cast<size_t>(-2);  // not in the file
  std::optional<FieldMapping> slots_[kKeyCount];
  size_t columns_[kKeyCount] = {kNoColumn, kNoColumn, kNoColumn, kNoColumn, kNoColumn, kNoColumn};
};

// Options every format accepts: sorted, arrivalOrigin.
// Checks that every key of spec.options is in `known` (or starts with one
// of `prefixes`, e.g. "duration."); errors list the valid keys.
absl::Status CheckOptions(const TraceSpec& spec, const std::vector<std::string>& known,
                          const std::vector<std::string>& prefixes = {});
std::string Option(const TraceSpec& spec, const std::string& key, const std::string& default_value);

// "<file>:<line>: Trace \"<name>\"" for messages.
std::string TraceContext(const TraceSpec& spec);
// Annotates `status` with the Trace and the file.
absl::Status TraceError(const TraceSpec& spec, const absl::Status& status);

// The WorkloadSource that delivers `format`'s workloads. Runs the counting
// pass (which indexes unsorted input) before returning.
absl::StatusOr<std::unique_ptr<WorkloadSource>> MakeSource(const TraceSpec& spec,
                                                           std::unique_ptr<RecordFormat> format);

// --- Parsing helpers shared by the formats ---

// The name of a workload whose trace gives none: "<trace name>-<line>"
// ("trace-<line>" for an unnamed Trace).
std::string FallbackName(const TraceSpec& spec, int64_t line);
// A FieldMapping reading `field` (with `prefix`), or the constant `value`.
FieldMapping FieldOf(std::string field, std::string prefix = "");
FieldMapping ValueOf(std::string value);

// A decimal integer (optional sign, no spaces).
std::optional<int64_t> ParseInt(std::string_view text);
// A finite decimal number ("12", "1.5", "1e3").
std::optional<double> ParseNumber(std::string_view text);
// Seconds (a finite number, |x| < 1e11) as microseconds, rounded to nearest.
std::optional<int64_t> SecondsToMicros(double seconds);
// "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC) or RFC 3339, as Unix microseconds.
std::optional<int64_t> ParseDateTime(std::string_view text);
// Splits `text` on `separator`; empty parts are dropped, spaces trimmed.
std::vector<std::string> SplitList(std::string_view text, char separator);
// A non-negative Kubernetes quantity ("500m", "2Gi", "1") as the canonical
// amount of `resource`; nullopt when malformed, negative or too large.
std::optional<Amount> ParseRequestAmount(std::string_view text, std::string_view resource);
// Sets pod_set.requests from a map (sorted by name, zero amounts dropped).
void SetRequests(model::PodSet* pod_set, const std::map<std::string, Amount>& requests);

}  // namespace kueuesim::trace::internal

#endif  // KUEUESIM_TRACE_SOURCE_H_
