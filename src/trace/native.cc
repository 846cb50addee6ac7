// kueuesim's own trace formats, native-csv and native-jsonl (docs/traces.md).
//
// native-csv: a header line, then one workload (one pod set "main") per row.
// Columns (case-sensitive, any order; only `arrival` is required, and
// `queue` unless spec.mapping.queue is set):
//   name           workload name (default "<trace name>-<line>")
//   namespace      default "default"
//   queue          LocalQueue name
//   arrival        Go duration or seconds ("90s", "1.5h", "45") since trace start
//   duration       run time, same syntax; empty: runs until the end
//   priority       integer (spec.priority)
//   priorityClass  WorkloadPriorityClass name
//   count          pods (default 1); minCount: partial admission minimum
//   cpu, memory    per-pod Kubernetes quantities ("500m", "2Gi")
//   gpu            per-pod GPUs, as resource options.gpuResource (nvidia.com/gpu)
//   requests       more per-pod requests: "name=qty;name=qty"
//   kind           Workload (default) or Job (how the workload is labelled in reports)
//
// native-jsonl: one JSON object per line:
//   {"name","namespace","queue","arrival","duration","priority","priorityClass",
//    "kind","labels":{},"annotations":{},
//    "podSets":[{"name","count","minCount","requests":{"cpu":"1"},"nodeSelector":{}}]}
// arrival and duration are strings (as in the CSV) or numbers (seconds).
#include <algorithm>
#include <memory>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "trace/csv_format.h"
#include "trace/csv_reader.h"
#include "trace/formats.h"
#include "trace/json_util.h"

namespace kueuesim::trace::internal {
namespace {


const std::string kCpuResource = "cpu";
const std::string kMemoryResource = "memory";

std::map<std::string, FieldMapping> NativeDefaults() {
  return {{"name", FieldOf("name")},
          {"namespace", FieldOf("namespace")},
          {"queue", FieldOf("queue")},
          {"priority", FieldOf("priority")},
          {"priorityClass", FieldOf("priorityClass")}};
}

// A non-negative duration: Go syntax or seconds. Sets *reason on failure.
std::optional<SimDuration> ParseTraceDuration(std::string_view text, const char* what, std::string* reason) {
  // Fast path: whole seconds.
  if (!text.empty() && text.size() <= 12 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return *ParseInt(text) * kSecond;
  }
  auto parsed = ParseDuration(text);
  if (parsed.ok()) return *parsed;
  *reason = fmt::format("{} {}", !text.empty() && text[0] == '-' ? "negative" : "bad", what);
  return std::nullopt;
}

std::optional<model::WorkloadSourceKind> ParseKind(std::string_view kind) {
  if (kind.empty() || kind == "Workload") return model::WorkloadSourceKind::kWorkload;
  if (kind == "Job") return model::WorkloadSourceKind::kJob;
  return std::nullopt;
}

class NativeCsv : public CsvFormat {
 public:
  enum BoundColumn : size_t { kArrival, kDuration, kCount, kMinCount, kRequests, kKind, kCpu, kMemory, kGpu };

  absl::Status Open(const TraceSpec& spec) {
    KUEUESIM_RETURN_IF_ERROR(CheckOptions(spec, {"gpuResource"}));
    gpu_resource_ = Option(spec, "gpuResource", kDefaultGpuResource);
    KUEUESIM_RETURN_IF_ERROR(OpenCsv(spec, {"arrival"},
                                     {"name", "namespace", "queue", "duration", "priority", "priorityClass",
                                      "count", "minCount", "cpu", "memory", "gpu", "requests", "kind"},
                                     false, NativeDefaults()));
    Bind({"arrival", "duration", "count", "minCount", "requests", "kind", "cpu", "memory", "gpu"});
    if (!HasColumn("queue") && spec.mapping.count("queue") == 0) {
      return InvalidArgument(fmt::format(
          "{}:1: no queue column and no spec.mapping.queue: every workload needs a LocalQueue", spec.path));
    }
    return absl::OkStatus();
  }

 protected:
  bool ParseRow(ImportReport* report, ParsedRecord* out) override {
    const int64_t ln = line();
    ParsedRecord& record = *out;
    model::Workload& wl = record.workload;
    SetSource(&wl);
    std::string reason;
    const std::string_view arrival = Field(kArrival);
    if (arrival.empty()) return SkipRow(report, ln, "missing arrival");
    auto time = ParseTraceDuration(arrival, "arrival", &reason);
    if (!time.has_value()) return SkipRow(report, ln, reason);
    record.time = *time;
    const std::string_view duration = Field(kDuration);
    if (!duration.empty()) {
      wl.duration = ParseTraceDuration(duration, "duration", &reason);
      if (!wl.duration.has_value()) return SkipRow(report, ln, reason);
    }
    model::PodSet pod_set;
    pod_set.name = "main";
    if (const std::string_view count = Field(kCount); !count.empty()) {
      auto value = ParseInt(count);
      if (!value.has_value() || *value < 0 || *value > INT32_MAX) return SkipRow(report, ln, "bad count");
      pod_set.count = static_cast<int32_t>(*value);
    }
    if (const std::string_view min_count = Field(kMinCount); !min_count.empty()) {
      auto value = ParseInt(min_count);
      if (!value.has_value() || *value < 1 || *value > pod_set.count) return SkipRow(report, ln, "bad minCount");
      pod_set.min_count = static_cast<int32_t>(*value);
    }
    std::map<std::string, Amount> requests;
    for (const auto& [column, name, resource] :
         {std::tuple<BoundColumn, const char*, const std::string*>{kCpu, "cpu", &kCpuResource},
          std::tuple<BoundColumn, const char*, const std::string*>{kMemory, "memory", &kMemoryResource},
          std::tuple<BoundColumn, const char*, const std::string*>{kGpu, "gpu", &gpu_resource_}}) {
      const std::string_view text = Field(column);
      if (text.empty()) continue;
      auto amount = ParseRequestAmount(text, *resource);
      if (!amount.has_value()) return SkipRow(report, ln, fmt::format("bad {}", name));
      requests[*resource] = *amount;
    }
    for (const std::string& item : SplitList(Field(kRequests), ';')) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0) return SkipRow(report, ln, "bad requests");
      std::string resource = item.substr(0, eq);
      while (!resource.empty() && resource.back() == ' ') resource.pop_back();
      std::string quantity = item.substr(eq + 1);
      quantity.erase(0, quantity.find_first_not_of(' '));
      auto amount = ParseRequestAmount(quantity, resource);
      if (!amount.has_value()) return SkipRow(report, ln, "bad requests");
      if (!requests.emplace(resource, *amount).second) return SkipRow(report, ln, "resource given twice");
    }
    SetRequests(&pod_set, requests);
    wl.pod_sets.push_back(std::move(pod_set));
    auto kind = ParseKind(Field(kKind));
    if (!kind.has_value()) return SkipRow(report, ln, "unknown kind");
    wl.source_kind = *kind;
    reason = ApplyMapping(FallbackName(spec_, ln), &wl);
    if (!reason.empty()) return SkipRow(report, ln, reason);
    return true;
  }

 private:
  std::string gpu_resource_;
};

class NativeJsonl : public RecordFormat {
 public:
  absl::Status Open(const TraceSpec& spec) {
    KUEUESIM_RETURN_IF_ERROR(CheckOptions(spec, {}));
    spec_ = spec;
    source_file_ = spec.path;
    KUEUESIM_ASSIGN_OR_RETURN(reader_, LineReader::Open(spec.path));
    KUEUESIM_ASSIGN_OR_RETURN(mapper_, Mapper::Create(spec, NativeDefaults(), nullptr));
    for (const auto& field : mapper_.FieldsRead()) extra_fields_.insert(field);
    return absl::OkStatus();
  }

  absl::Status Rewind() override { return reader_->Rewind(); }

  absl::StatusOr<bool> Next(ImportReport* report, RecordPos* pos, std::optional<ParsedRecord>* out) override {
    out->reset();
    KUEUESIM_ASSIGN_OR_RETURN(bool more, reader_->Next());
    if (!more) return false;
    pos->offset = reader_->offset();
    pos->line = reader_->line();
    *out = ParseLine(report);
    return true;
  }

  absl::StatusOr<std::optional<ParsedRecord>> ReadAt(const RecordPos& pos) override {
    KUEUESIM_RETURN_IF_ERROR(reader_->Seek(pos.offset, pos.line));
    RecordPos read_pos;
    std::optional<ParsedRecord> out;
    KUEUESIM_ASSIGN_OR_RETURN(bool more, Next(nullptr, &read_pos, &out));
    if (!more) return std::optional<ParsedRecord>();
    return out;
  }

 private:
  // A string map from a JSON object of strings; false when malformed.
  static bool StringMap(const doc::Node& value, model::Labels* out) {
    if (IsJsonNull(value)) return true;
    if (!value.IsMapping()) return false;
    for (size_t i = 0; i < value.size(); ++i) {
      const doc::Node item = value.value(i);
      if (!IsJsonString(item)) return false;
      (*out)[std::string(value.key(i))] = std::string(item.scalar());
    }
    return true;
  }

  std::optional<ParsedRecord> ParseLine(ImportReport* report) {
    static const std::set<std::string, std::less<>> kKnown = {
        "name",        "namespace", "queue",  "arrival",     "duration", "priority",
        "priorityClass", "kind",    "labels", "annotations", "podSets"};
    static const std::set<std::string, std::less<>> kKnownPodSet = {"name", "count", "minCount", "requests",
                                                                    "nodeSelector"};
    const int64_t ln = reader_->line();
    const JsonRow row = ReadJsonRow(reader_->text(), spec_.path);
    if (!row.document.has_value()) return Skip(report, ln, row.skip_reason);
    const doc::Node object = row.document->root();
    if (auto unknown = FirstUnknownKey(object, kKnown, &extra_fields_)) {
      return Skip(report, ln, fmt::format("unknown field \"{}\"", *unknown));
    }
    ParsedRecord record;
    model::Workload& wl = record.workload;
    wl.meta.source.file = source_file_;
    wl.meta.source.line = static_cast<int32_t>(ln);
    std::string reason;
    const doc::Node arrival = object.Get("arrival");
    if (IsJsonNull(arrival)) return Skip(report, ln, "missing arrival");
    auto arrival_text = JsonScalarText(arrival);
    if (!arrival_text.has_value() || IsJsonBoolean(arrival)) return Skip(report, ln, "bad arrival");
    auto time = ParseTraceDuration(*arrival_text, "arrival", &reason);
    if (!time.has_value()) return Skip(report, ln, reason);
    record.time = *time;
    if (const doc::Node duration = object.Get("duration"); !IsJsonNull(duration)) {
      auto duration_text = JsonScalarText(duration);
      if (!duration_text.has_value() || IsJsonBoolean(duration)) return Skip(report, ln, "bad duration");
      wl.duration = ParseTraceDuration(*duration_text, "duration", &reason);
      if (!wl.duration.has_value()) return Skip(report, ln, reason);
    }
    if (const doc::Node kind_value = object.Get("kind"); !IsJsonNull(kind_value)) {
      if (!IsJsonString(kind_value)) return Skip(report, ln, "unknown kind");
      auto kind = ParseKind(kind_value.scalar());
      if (!kind.has_value()) return Skip(report, ln, "unknown kind");
      wl.source_kind = *kind;
    }
    if (!StringMap(object.Get("labels"), &wl.meta.labels)) return Skip(report, ln, "bad labels");
    if (!StringMap(object.Get("annotations"), &wl.meta.annotations)) return Skip(report, ln, "bad annotations");
    const doc::Node pod_sets = object.Get("podSets");
    if (!pod_sets.IsSequence() || pod_sets.size() == 0 || pod_sets.size() > 18) {
      return Skip(report, ln, "podSets must be a list of 1 to 18 pod sets");
    }
    std::set<std::string> names;
    for (size_t p = 0; p < pod_sets.size(); ++p) {
      const doc::Node item = pod_sets.at(p);
      if (!item.IsMapping()) return Skip(report, ln, "bad podSets");
      if (auto unknown = FirstUnknownKey(item, kKnownPodSet)) {
        return Skip(report, ln, fmt::format("unknown field \"podSets[].{}\"", *unknown));
      }
      model::PodSet pod_set;
      if (const doc::Node name = item.Get("name"); !IsJsonNull(name)) {
        if (!IsJsonString(name) || name.scalar().empty()) return Skip(report, ln, "bad pod set name");
        pod_set.name = std::string(name.scalar());
      }
      if (!names.insert(pod_set.name).second) return Skip(report, ln, "duplicate pod set name");
      if (const doc::Node count = item.Get("count"); !IsJsonNull(count)) {
        const std::optional<int64_t> value = JsonInteger(count);
        if (!value.has_value() || *value < 0 || *value > INT32_MAX) return Skip(report, ln, "bad count");
        pod_set.count = static_cast<int32_t>(*value);
      }
      if (const doc::Node min_count = item.Get("minCount"); !IsJsonNull(min_count)) {
        const std::optional<int64_t> value = JsonInteger(min_count);
        if (!value.has_value() || *value < 1 || *value > pod_set.count) return Skip(report, ln, "bad minCount");
        pod_set.min_count = static_cast<int32_t>(*value);
      }
      std::map<std::string, Amount> requests;
      if (const doc::Node reqs = item.Get("requests"); !IsJsonNull(reqs)) {
        if (!reqs.IsMapping()) return Skip(report, ln, "bad requests");
        for (size_t r = 0; r < reqs.size(); ++r) {
          const doc::Node quantity = reqs.value(r);
          auto quantity_text = JsonScalarText(quantity);
          if (!quantity_text.has_value() || IsJsonBoolean(quantity)) return Skip(report, ln, "bad requests");
          const std::string resource(reqs.key(r));
          auto amount = ParseRequestAmount(*quantity_text, resource);
          if (!amount.has_value()) return Skip(report, ln, "bad requests");
          requests[resource] = *amount;
        }
      }
      SetRequests(&pod_set, requests);
      model::Labels node_selector;
      if (!StringMap(item.Get("nodeSelector"), &node_selector)) return Skip(report, ln, "bad nodeSelector");
      if (!node_selector.empty()) pod_set.rare.Mutable().node_selector = std::move(node_selector);
      wl.pod_sets.push_back(std::move(pod_set));
    }
    NodeFields fields(object);
    reason = mapper_.Apply(fields, FallbackName(spec_, ln), &wl);
    if (!reason.empty()) return Skip(report, ln, reason);
    return record;
  }

  TraceSpec spec_;
  model::SourceFile source_file_;  // spec_.path, shared by every workload
  std::unique_ptr<LineReader> reader_;
  Mapper mapper_;
  std::set<std::string, std::less<>> extra_fields_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RecordFormat>> OpenNativeCsv(const TraceSpec& spec) {
  auto format = std::make_unique<NativeCsv>();
  KUEUESIM_RETURN_IF_ERROR(format->Open(spec));
  return std::unique_ptr<RecordFormat>(std::move(format));
}

absl::StatusOr<std::unique_ptr<RecordFormat>> OpenNativeJsonl(const TraceSpec& spec) {
  auto format = std::make_unique<NativeJsonl>();
  KUEUESIM_RETURN_IF_ERROR(format->Open(spec));
  return std::unique_ptr<RecordFormat>(std::move(format));
}

}  // namespace kueuesim::trace::internal
