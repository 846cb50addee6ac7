// Replica timelines: replica-timeline-csv and replica-timeline-jsonl, timed
// changes to serving objects (include/kueuesim/trace/change_source.h,
// docs/traces.md "Replica timelines").
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "kueuesim/trace/change_source.h"
#include "trace/csv_reader.h"
#include "trace/formats.h"
#include "trace/json_util.h"
#include "trace/source.h"

namespace kueuesim::trace {
namespace {

using internal::CsvReader;
using internal::LineReader;

constexpr const char* kCsvFormat = "replica-timeline-csv";
constexpr const char* kJsonlFormat = "replica-timeline-jsonl";

const std::vector<std::string>& KnownKeys() {
  static const std::vector<std::string> keys = {"time",     "namespace", "name",     "kind",
                                                "replicas", "partition", "rollout",  "revision",
                                                "image",    "maxSurge",  "maxUnavailable"};
  return keys;
}

// One row's fields by key ("" and absent are the same).
using RowFields = std::map<std::string, std::string, std::less<>>;

std::string_view Get(const RowFields& row, std::string_view key) {
  auto it = row.find(key);
  return it == row.end() ? std::string_view() : std::string_view(it->second);
}

// Rows to changes: validation, order, templates, window, scale and limit,
// common to both formats.
class ChangeBuilder {
 public:
  explicit ChangeBuilder(const TraceSpec& spec) : spec_(spec) {}

  // The change of one row, or nullopt with the skip counted in `report`.
  std::optional<model::Change> Build(const RowFields& row, int64_t line, ImportReport* report) {
    auto skip = [&](const std::string& reason) -> std::optional<model::Change> {
      report->Skip(line, reason);
      return std::nullopt;
    };
    const std::string_view time_text = Get(row, "time");
    if (time_text.empty()) return skip("missing time");
    auto time = ParseDuration(time_text);
    if (!time.ok()) return skip(!time_text.empty() && time_text[0] == '-' ? "negative time" : "bad time");
    if (*time < previous_time_) return skip("time before the previous row");
    previous_time_ = *time;
    model::Change change;
    change.source.file = spec_.path;
    change.source.line = static_cast<int32_t>(line);
    change.name = fmt::format("{}-{}", spec_.name.empty() ? "trace" : spec_.name, line);
    change.target_name = std::string(Get(row, "name"));
    if (change.target_name.empty()) return skip("missing name");
    change.target_namespace = std::string(Get(row, "namespace"));
    if (change.target_namespace.empty()) change.target_namespace = "default";
    change.target_kind = std::string(Get(row, "kind"));
    if (change.target_kind.empty()) change.target_kind = "LeaderWorkerSet";
    if (change.target_kind != "LeaderWorkerSet" && change.target_kind != "Deployment" &&
        change.target_kind != "StatefulSet") {
      return skip("unknown kind");
    }
    for (const auto& [key, target] : {std::pair{"replicas", &change.replicas}, std::pair{"partition", &change.partition}}) {
      const std::string_view text = Get(row, key);
      if (text.empty()) continue;
      auto value = internal::ParseInt(text);
      if (!value.has_value() || *value < 0 || *value > INT32_MAX) return skip(fmt::format("bad {}", key));
      *target = static_cast<int32_t>(*value);
    }
    if (const std::string_view rollout = Get(row, "rollout"); !rollout.empty()) {
      if (rollout != "true" && rollout != "false") return skip("bad rollout");
      change.rollout = rollout == "true";
    }
    if (!Get(row, "maxSurge").empty() || !Get(row, "maxUnavailable").empty()) {
      return skip("maxSurge/maxUnavailable edits are not simulated");
    }
    // A template change: a revision (or image) other than the object's last.
    const std::string key = change.target_kind + "/" + change.target_namespace + "/" + change.target_name;
    for (const char* field : {"revision", "image"}) {
      const std::string_view value = Get(row, field);
      if (value.empty()) continue;
      auto [it, inserted] = templates_.try_emplace(key + "#" + field, std::string(value));
      if (!inserted && it->second != value) {
        change.rollout = true;
        it->second = std::string(value);
      }
    }
    if (!change.replicas.has_value() && !change.partition.has_value() && !change.rollout) {
      return skip("nothing to change");
    }
    if ((spec_.window_start.has_value() && *time < *spec_.window_start) ||
        (spec_.window_end.has_value() && *time >= *spec_.window_end)) {
      return skip("outside the window");
    }
    SimDuration at = *time - spec_.window_start.value_or(0);
    if (spec_.arrival_scale != 1.0) {
      at = static_cast<SimDuration>(std::llround(static_cast<double>(at) / spec_.arrival_scale));
    }
    if (at > spec_.time_limit) return skip("beyond the simulated time range (limits.time)");
    if (spec_.limit.has_value() && report->changes >= *spec_.limit) return skip("beyond the limit");
    change.at = at;
    ++report->changes;
    return change;
  }

 private:
  TraceSpec spec_;
  SimDuration previous_time_ = 0;
  std::map<std::string, std::string> templates_;
};

class CsvChangeSource : public ChangeSource {
 public:
  explicit CsvChangeSource(const TraceSpec& spec) : builder_(spec) {}

  absl::Status Open(const TraceSpec& spec) {
    report_.source = fmt::format("{} ({})", std::filesystem::path(spec.path).filename().string(), spec.format);
    KUEUESIM_ASSIGN_OR_RETURN(reader_, CsvReader::Open(spec.path));
    KUEUESIM_RETURN_IF_ERROR(reader_->ReadHeader());
    for (const char* required : {"time", "name"}) {
      if (!reader_->Column(required).has_value()) {
        return InvalidArgument(fmt::format("{}:1: the header lacks column {} of format {}", spec.path, required,
                                           spec.format));
      }
    }
    const auto& known = KnownKeys();
    for (const std::string& column : reader_->header()) {
      if (std::find(known.begin(), known.end(), column) == known.end()) {
        std::string valid;
        for (const auto& k : known) valid += (valid.empty() ? "" : ", ") + k;
        return InvalidArgument(fmt::format("{}:1: unknown column \"{}\" for format {} (columns: {})", spec.path,
                                           column, spec.format, valid));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::optional<model::Change>> Next() override {
    while (true) {
      KUEUESIM_ASSIGN_OR_RETURN(bool more, reader_->Next());
      if (!more) return std::optional<model::Change>();
      ++report_.rows_read;
      const int64_t line = reader_->line();
      if (!reader_->malformed().empty()) {
        report_.Skip(line, "malformed CSV: " + reader_->malformed());
        continue;
      }
      if (reader_->size() != reader_->header().size()) {
        report_.Skip(line, reader_->size() < reader_->header().size() ? "too few fields" : "too many fields");
        continue;
      }
      RowFields row;
      for (size_t i = 0; i < reader_->header().size(); ++i) row[reader_->header()[i]] = reader_->field(i);
      auto change = builder_.Build(row, line, &report_);
      if (change.has_value()) return change;
    }
  }

  const ImportReport& report() const override { return report_; }
  ImportReport* mutable_report() override { return &report_; }

 private:
  ChangeBuilder builder_;
  std::unique_ptr<CsvReader> reader_;
  ImportReport report_;
};

class JsonlChangeSource : public ChangeSource {
 public:
  explicit JsonlChangeSource(const TraceSpec& spec) : builder_(spec) {}

  absl::Status Open(const TraceSpec& spec) {
    report_.source = fmt::format("{} ({})", std::filesystem::path(spec.path).filename().string(), spec.format);
    KUEUESIM_ASSIGN_OR_RETURN(reader_, LineReader::Open(spec.path));
    return absl::OkStatus();
  }

  absl::StatusOr<std::optional<model::Change>> Next() override {
    while (true) {
      KUEUESIM_ASSIGN_OR_RETURN(bool more, reader_->Next());
      if (!more) return std::optional<model::Change>();
      ++report_.rows_read;
      const int64_t line = reader_->line();
      auto row = ParseLine(line);
      if (!row.has_value()) continue;
      auto change = builder_.Build(*row, line, &report_);
      if (change.has_value()) return change;
    }
  }

  const ImportReport& report() const override { return report_; }
  ImportReport* mutable_report() override { return &report_; }

 private:
  std::optional<RowFields> ParseLine(int64_t line) {
    const internal::JsonRow json_row = internal::ReadJsonRow(reader_->text(), report_.source);
    if (!json_row.document.has_value()) {
      report_.Skip(line, json_row.skip_reason);
      return std::nullopt;
    }
    const doc::Node object = json_row.document->root();
    const auto& known = KnownKeys();
    // In byte order of the keys: the first unknown or bad field is reported.
    std::vector<size_t> order(object.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&object](size_t a, size_t b) { return object.key(a) < object.key(b); });
    RowFields row;
    for (const size_t i : order) {
      const std::string key(object.key(i));
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        report_.Skip(line, fmt::format("unknown field \"{}\"", key));
        return std::nullopt;
      }
      const doc::Node value = object.value(i);
      if (internal::IsJsonNull(value)) continue;
      auto value_text = internal::JsonScalarText(value);
      // Booleans only for rollout; numbers for everything but the names.
      const bool ok = value_text.has_value() &&
                      (internal::IsJsonBoolean(value) == (key == "rollout") || internal::IsJsonString(value));
      if (!ok) {
        report_.Skip(line, fmt::format("bad {}", key));
        return std::nullopt;
      }
      row[key] = *value_text;
    }
    return row;
  }

  ChangeBuilder builder_;
  std::unique_ptr<LineReader> reader_;
  ImportReport report_;
};

}  // namespace

bool IsChangeFormat(const std::string& format) { return format == kCsvFormat || format == kJsonlFormat; }

bool IsChangeTrace(const TraceSpec& spec) {
  return IsChangeFormat(spec.format) || internal::IsAlibabaDlrmChangeTrace(spec);
}

absl::StatusOr<std::unique_ptr<ChangeSource>> OpenChangeTrace(const TraceSpec& spec) {
  if (internal::IsAlibabaDlrmChangeTrace(spec)) {
    if (spec.path.empty()) return InvalidArgument(fmt::format("{}: spec.path is required", internal::TraceContext(spec)));
    if (!(spec.arrival_scale > 0)) {
      return InvalidArgument(fmt::format("{}: spec.scale: arrival must be positive", internal::TraceContext(spec)));
    }
    if (spec.window_start.has_value() && spec.window_end.has_value() && *spec.window_end <= *spec.window_start) {
      return InvalidArgument(fmt::format("{}: spec.window: end must be after start", internal::TraceContext(spec)));
    }
    auto source = internal::OpenAlibabaDlrmChanges(spec);
    if (!source.ok()) return internal::TraceError(spec, source.status());
    return source;
  }
  if (!IsChangeFormat(spec.format)) {
    return InvalidArgument(fmt::format("{}: spec.format: \"{}\" is not a change format ({}, {})",
                                       internal::TraceContext(spec), spec.format, kCsvFormat, kJsonlFormat));
  }
  if (spec.path.empty()) return InvalidArgument(fmt::format("{}: spec.path is required", internal::TraceContext(spec)));
  if (!spec.mapping.empty()) {
    return InvalidArgument(
        fmt::format("{}: spec.mapping: format {} has no mapping (its columns name the objects)",
                    internal::TraceContext(spec), spec.format));
  }
  absl::Status options = internal::CheckOptions(spec, {});
  if (!options.ok()) return internal::TraceError(spec, options);
  if (spec.format == kCsvFormat) {
    auto source = std::make_unique<CsvChangeSource>(spec);
    if (absl::Status s = source->Open(spec); !s.ok()) return internal::TraceError(spec, s);
    return std::unique_ptr<ChangeSource>(std::move(source));
  }
  auto source = std::make_unique<JsonlChangeSource>(spec);
  if (absl::Status s = source->Open(spec); !s.ok()) return internal::TraceError(spec, s);
  return std::unique_ptr<ChangeSource>(std::move(source));
}

}  // namespace kueuesim::trace
