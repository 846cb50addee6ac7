// The shared trace machinery; see source.h.
#include "trace/source.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/checked.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"

namespace kueuesim::trace::internal {
namespace {

constexpr char kOutsideWindow[] = "outside the window";
constexpr char kBeyondLimit[] = "beyond the limit";
constexpr char kOutOfOrder[] = "arrival earlier than the previous row's (moved to it; option sorted)";

std::string Trim(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && (text[begin] == ' ' || text[begin] == '\t')) ++begin;
  while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  return std::string(text.substr(begin, end - begin));
}

// The engine: window, limit, scales and ordering around a RecordFormat.
class TraceSource : public WorkloadSource {
 public:
  TraceSource(const TraceSpec& spec, std::unique_ptr<RecordFormat> format)
      : spec_(spec), format_(std::move(format)) {
    report_.source =
        fmt::format("{} ({})", std::filesystem::path(spec.path).filename().string(), spec.format);
    limit_ = spec.limit.value_or(std::numeric_limits<int64_t>::max());
    first_origin_ = Option(spec, "arrivalOrigin", "trace") == "first";
    replay_recorded_start_ = Option(spec, "replayRecordedStart", "false") == "true";
  }

  absl::Status Init() {
    KUEUESIM_RETURN_IF_ERROR(format_->Rewind());
    if (Option(spec_, "sorted", "auto") == "true") {
      mode_ = Mode::kLazy;
      return absl::OkStatus();
    }
    if (format_->sorted_by_construction()) {
      // Read once; the rows beyond the limit are counted when it is reached.
      mode_ = Mode::kLazy;
      count_beyond_limit_ = true;
      return absl::OkStatus();
    }
    // Counting pass. Once a row comes out of order, it also collects the
    // index of the sorted pass (time, position of every valid row; the rows
    // before it are read again, once, for theirs), so that an unsorted trace
    // is not read a second time for it; a sorted one keeps no index.
    bool sorted = true;
    bool any = false;
    int64_t previous = 0;
    int64_t min_time = 0;
    int64_t valid = 0;
    int64_t in_window = 0;
    std::optional<int64_t> first_in_window;
    RecordPos pos;
    std::optional<int64_t> time;
    while (true) {
      KUEUESIM_ASSIGN_OR_RETURN(bool more, format_->NextTime(&report_, &pos, &time));
      if (!more) break;
      ++report_.rows_read;
      if (!time.has_value()) continue;
      ++valid;
      const int64_t t = *time;
      if (!any) {
        any = true;
        min_time = t;
        origin_ = format_->absolute_time() ? t : 0;
      } else {
        if (t < previous && sorted) {
          sorted = false;
          KUEUESIM_RETURN_IF_ERROR(IndexRowsBefore(pos));
        }
        min_time = std::min(min_time, t);
      }
      if (!sorted) index_.push_back({t, pos.offset, pos.line});
      previous = t;
      // Valid while the input is sorted (the origin is then the first time).
      if (sorted && InWindow(t)) {
        ++in_window;
        if (!first_in_window.has_value()) first_in_window = t;
      }
    }
    if (sorted) {
      mode_ = Mode::kStream;
      base_ = BaseFor(first_in_window);
      KUEUESIM_RETURN_IF_ERROR(format_->Rewind());
    } else {
      mode_ = Mode::kIndex;
      origin_ = format_->absolute_time() ? min_time : 0;
      index_.erase(std::remove_if(index_.begin(), index_.end(),
                                  [&](const IndexEntry& entry) { return !InWindow(entry.time); }),
                   index_.end());
      std::stable_sort(index_.begin(), index_.end(),
                       [](const IndexEntry& a, const IndexEntry& b) { return a.time < b.time; });
      in_window = static_cast<int64_t>(index_.size());
      if (static_cast<int64_t>(index_.size()) > limit_) {
        index_.resize(static_cast<size_t>(limit_));
        index_.shrink_to_fit();
      }
      base_ = BaseFor(index_.empty() ? std::nullopt : std::optional<int64_t>(index_.front().time));
    }
    if (valid > in_window) report_.skipped[kOutsideWindow] += valid - in_window;
    if (in_window > limit_) report_.skipped[kBeyondLimit] += in_window - limit_;
    return absl::OkStatus();
  }

  absl::StatusOr<std::optional<model::Workload>> Next() override {
    if (done_) return std::optional<model::Workload>();
    if (report_.workloads >= limit_) {
      if (count_beyond_limit_) KUEUESIM_RETURN_IF_ERROR(CountBeyondLimit());
      return Finish();
    }
    RecordPos pos;
    std::optional<ParsedRecord> record;
    switch (mode_) {
      case Mode::kIndex: {
        if (cursor_ >= index_.size()) return Finish();
        const IndexEntry& entry = index_[cursor_++];
        auto read = format_->ReadAt({entry.offset, entry.line});
        if (!read.ok()) return TraceError(spec_, read.status());
        if (!read->has_value() || (*read)->time != entry.time) {
          return TraceError(spec_, Internal(fmt::format("line {} reads differently the second time "
                                                        "(did the file change?)",
                                                        entry.line)));
        }
        return Emit(**read);
      }
      case Mode::kStream:
        while (true) {
          auto more = format_->Next(nullptr, &pos, &record);
          if (!more.ok()) return TraceError(spec_, more.status());
          if (!*more) return Finish();
          if (!record.has_value()) continue;
          if (!InWindow(record->time)) {
            // Sorted: nothing after the end of the window is in it.
            if (spec_.window_end.has_value() && record->time - origin_ >= *spec_.window_end) return Finish();
            continue;
          }
          return Emit(*record);
        }
      case Mode::kLazy:
        while (true) {
          auto more = format_->Next(&report_, &pos, &record);
          if (!more.ok()) return TraceError(spec_, more.status());
          if (!*more) return Finish();
          ++report_.rows_read;
          if (!record.has_value()) continue;
          if (!lazy_started_) {
            lazy_started_ = true;
            origin_ = format_->absolute_time() ? record->time : 0;
            previous_ = record->time;
          }
          if (record->time < previous_) {
            Repair(&report_, pos.line, kOutOfOrder);
            record->time = previous_;
          }
          previous_ = record->time;
          if (!InWindow(record->time)) {
            ++report_.skipped[kOutsideWindow];
            continue;
          }
          if (!base_set_) {
            base_ = BaseFor(record->time);
            base_set_ = true;
          }
          return Emit(*record);
        }
    }
    return Finish();
  }

  std::string cluster() const override { return spec_.cluster; }
  const ImportReport& report() const override { return report_; }
  // After the counting pass, reading changes the report only in
  // `workloads`; not so when every row is counted as it is read (lazy
  // reading), nor when a missing recorded start is counted as repaired.
  bool CanReadAhead() const override { return mode_ != Mode::kLazy && !replay_recorded_start_; }

 private:
  enum class Mode { kStream, kIndex, kLazy };
  struct IndexEntry {
    int64_t time;
    int64_t offset;
    int64_t line;
  };

  // The counting pass's first row out of order is at `current`: reads the
  // valid rows from the first one up to it again (reporting nothing) into
  // index_; the reader is then where it was, after that row.
  absl::Status IndexRowsBefore(const RecordPos& current) {
    KUEUESIM_RETURN_IF_ERROR(format_->Rewind());
    RecordPos pos;
    std::optional<int64_t> time;
    while (true) {
      KUEUESIM_ASSIGN_OR_RETURN(bool more, format_->NextTime(nullptr, &pos, &time));
      if (!more || pos.offset > current.offset) {
        return Internal(fmt::format("line {} reads differently the second time (did the file change?)",
                                    current.line));
      }
      if (pos.offset == current.offset) return absl::OkStatus();
      if (time.has_value()) index_.push_back({*time, pos.offset, pos.line});
    }
  }

  bool InWindow(int64_t t) const {
    const int64_t relative = t - origin_;
    if (spec_.window_start.has_value() && relative < *spec_.window_start) return false;
    if (spec_.window_end.has_value() && relative >= *spec_.window_end) return false;
    return true;
  }

  // Trace time of simulated time 0.
  int64_t BaseFor(std::optional<int64_t> first_in_window) const {
    if (first_origin_ && first_in_window.has_value()) return *first_in_window;
    return origin_ + spec_.window_start.value_or(0);
  }

  // Lazy reading of a format sorted by construction, once the limit is
  // reached: the valid rows left are counted as skipped (beyond the limit,
  // or outside the window), as the counting pass would have.
  absl::Status CountBeyondLimit() {
    RecordPos pos;
    std::optional<ParsedRecord> record;
    while (true) {
      auto more = format_->Next(&report_, &pos, &record);
      if (!more.ok()) return TraceError(spec_, more.status());
      if (!*more) return absl::OkStatus();
      ++report_.rows_read;
      if (!record.has_value()) continue;
      ++report_.skipped[InWindow(record->time) ? kBeyondLimit : kOutsideWindow];
    }
  }

  absl::StatusOr<std::optional<model::Workload>> Finish() {
    done_ = true;
    return std::optional<model::Workload>();
  }

  absl::StatusOr<std::optional<model::Workload>> Emit(ParsedRecord& record) {
    model::Workload& wl = record.workload;
    if (!spec_.cluster.empty()) wl.meta.set_cluster(spec_.cluster);
    // Scaled times, checked: within int64 and the simulated time range.
    auto out_of_range = [&](const char* what, std::optional<int64_t> value) {
      return TraceError(spec_, InvalidArgument(fmt::format(
                                   "{}:{}: {} {} the simulated time range of {} (limits.time)", spec_.path,
                                   wl.meta.source.line, what,
                                   value.has_value() ? "is beyond (" + FormatDuration(*value) + ")" : "overflows",
                                   FormatDuration(spec_.time_limit))));
    };
    auto within = [&](std::optional<int64_t> value) {
      return value.has_value() && *value <= spec_.time_limit;
    };
    const std::optional<int64_t> offset = CheckedSub(record.time, base_);
    const std::optional<int64_t> arrival =
        offset.has_value() ? CheckedRound(static_cast<double>(*offset) / spec_.arrival_scale) : std::nullopt;
    if (!within(arrival)) return out_of_range("arrival", arrival);
    wl.arrival = *arrival;
    if (wl.arrival < last_arrival_) wl.arrival = last_arrival_;  // rounding guard
    last_arrival_ = wl.arrival;
    if (replay_recorded_start_) {
      // Held until its recorded start (arrival + recorded wait, in trace
      // time, scaled like an arrival), then queued.
      auto it = wl.meta.annotations.find(kRecordedWaitAnnotation);
      std::optional<SimDuration> wait;
      if (it != wl.meta.annotations.end()) {
        auto parsed = ParseDuration(it->second);
        if (parsed.ok() && *parsed >= 0) wait = *parsed;
      }
      if (!wait.has_value()) {
        report_.Repair(wl.meta.source.line, "no recorded start (queued at arrival; option replayRecordedStart)");
      } else {
        const std::optional<int64_t> start_offset = CheckedSub(CheckedAdd(record.time, *wait), base_);
        const std::optional<int64_t> start =
            start_offset.has_value() ? CheckedRound(static_cast<double>(*start_offset) / spec_.arrival_scale)
                                     : std::nullopt;
        if (!within(start)) return out_of_range("recorded start", start);
        wl.rare.Mutable().hold_until = std::max<SimTime>(wl.arrival, *start);
      }
    }
    if (wl.duration.has_value() && spec_.duration_scale != 1.0) {
      const std::optional<int64_t> duration =
          CheckedRound(static_cast<double>(*wl.duration) * spec_.duration_scale);
      if (!within(duration)) return out_of_range("duration", duration);
      wl.duration = *duration;
    } else if (wl.duration.has_value() && *wl.duration > spec_.time_limit) {
      return out_of_range("duration", wl.duration);
    }
    ++report_.workloads;
    return absl::StatusOr<std::optional<model::Workload>>(absl::in_place, std::move(wl));
  }

  TraceSpec spec_;
  std::unique_ptr<RecordFormat> format_;
  ImportReport report_;
  Mode mode_ = Mode::kStream;
  int64_t limit_;
  bool first_origin_ = false;
  bool replay_recorded_start_ = false;
  int64_t origin_ = 0;
  int64_t base_ = 0;
  bool base_set_ = false;
  bool lazy_started_ = false;
  bool count_beyond_limit_ = false;  // sorted by construction: count the rows left at the limit
  int64_t previous_ = 0;
  SimDuration last_arrival_ = 0;
  bool done_ = false;
  std::vector<IndexEntry> index_;
  size_t cursor_ = 0;
};

}  // namespace

std::nullopt_t Skip(ImportReport* report, int64_t line, const std::string& reason) {
  if (report != nullptr) report->Skip(line, reason);
  return std::nullopt;
}

void Repair(ImportReport* report, int64_t line, const std::string& reason) {
  if (report != nullptr) report->Repair(line, reason);
}

absl::StatusOr<bool> RecordFormat::NextTime(ImportReport* report, RecordPos* pos, std::optional<int64_t>* time) {
  time->reset();
  std::optional<ParsedRecord> record;
  KUEUESIM_ASSIGN_OR_RETURN(bool more, Next(report, pos, &record));
  if (record.has_value()) *time = record->time;
  return more;
}

// --- Mapper ---

absl::StatusOr<Mapper> Mapper::Create(const TraceSpec& spec, std::map<std::string, FieldMapping> defaults,
                                      const std::vector<std::string>* columns) {
  auto key_index = [](const std::string& key) -> int {
    for (int k = 0; k < kKeyCount; ++k) {
      if (key == kKeys[k]) return k;
    }
    return -1;
  };
  Mapper mapper;
  for (auto& [key, mapping] : defaults) {
    const int k = key_index(key);
    if (k < 0) return Internal(fmt::format("format default mapping \"{}\"", key));
    mapper.slots_[k] = std::move(mapping);
  }
  for (const auto& [key, mapping] : spec.mapping) {
    const std::string where = fmt::format("spec.mapping.{}", key);
    const int k = key_index(key);
    if (k < 0) {
      return InvalidArgument(fmt::format(
          "{}: unknown mapping (valid: namespace, queue, name, priority, priorityClass, flavorLabel)",
          where));
    }
    if (!mapping.value.empty() && !mapping.field.empty()) {
      return InvalidArgument(fmt::format("{}: set either value or field, not both", where));
    }
    if (mapping.value.empty() && mapping.field.empty() && mapping.default_value.empty()) {
      return InvalidArgument(fmt::format("{}: needs a value or a field", where));
    }
    if (!mapping.values.empty() && mapping.field.empty()) {
      return InvalidArgument(fmt::format("{}: values needs a field", where));
    }
    if (k == kFlavorLabel && mapping.label.empty()) {
      return InvalidArgument(fmt::format("{}: needs a label (the node label to select on)", where));
    }
    if (k != kFlavorLabel && !mapping.label.empty()) {
      return InvalidArgument(fmt::format("{}: label applies only to flavorLabel", where));
    }
    if (k == kPriority && !mapping.value.empty()) {
      auto value = ParseInt(mapping.value);
      if (!value.has_value() || *value < INT32_MIN || *value > INT32_MAX) {
        return InvalidArgument(fmt::format("{}: value \"{}\" is not a 32-bit integer", where, mapping.value));
      }
    }
    if (columns != nullptr && !mapping.field.empty() &&
        std::find(columns->begin(), columns->end(), mapping.field) == columns->end()) {
      std::string valid;
      for (const auto& c : *columns) valid += (valid.empty() ? "" : ", ") + c;
      return InvalidArgument(fmt::format("{}: field \"{}\" is not a column of {} (columns: {})", where,
                                         mapping.field, spec.path, valid));
    }
    mapper.slots_[k] = mapping;
  }
  if (columns != nullptr) {
    for (int k = 0; k < kKeyCount; ++k) {
      if (!mapper.slots_[k] || mapper.slots_[k]->field.empty()) continue;
      auto it = std::find(columns->begin(), columns->end(), mapper.slots_[k]->field);
      mapper.columns_[k] = it != columns->end() ? static_cast<size_t>(it - columns->begin()) : kAbsentColumn;
    }
  }
  return mapper;
}

std::set<std::string> Mapper::FieldsRead() const {
  std::set<std::string> out;
  for (const auto& slot : slots_) {
    if (slot && !slot->field.empty() && slot->value.empty()) out.insert(slot->field);
  }
  return out;
}

std::string Mapper::Resolve(Key key, const RecordFields& fields) const {
  const FieldMapping* mapping = Find(key);
  if (mapping == nullptr) return "";
  if (!mapping->value.empty()) return mapping->value;
  if (mapping->field.empty()) return mapping->default_value;
  if (columns_[key] == kAbsentColumn) return mapping->default_value;
  std::optional<std::string_view> raw =
      columns_[key] != kNoColumn ? fields.GetColumn(columns_[key]) : fields.Get(mapping->field);
  if (!raw.has_value() || raw->empty()) return mapping->default_value;
  if (!mapping->values.empty()) {
    auto it = mapping->values.find(std::string(*raw));
    if (it == mapping->values.end()) return mapping->default_value;
    return mapping->prefix + it->second;
  }
  std::string out;
  out.reserve(mapping->prefix.size() + raw->size());
  out += mapping->prefix;
  out += *raw;
  return out;
}

namespace {

constexpr char kNoQueueName[] = "no queue name";
constexpr char kBadPriority[] = "bad priority";

// A mapped priority: an int32, else nullopt.
std::optional<int32_t> MappedPriority(const std::string& text) {
  auto value = ParseInt(text);
  if (!value.has_value() || *value < INT32_MIN || *value > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(*value);
}

}  // namespace

// Apply's only skip reasons are the queue's and the priority's; SkipReason
// checks the same two the same way.
std::string Mapper::SkipReason(const RecordFields& fields) const {
  if (Resolve(kQueue, fields).empty()) return kNoQueueName;
  const std::string priority = Resolve(kPriority, fields);
  if (!priority.empty() && !MappedPriority(priority).has_value()) return kBadPriority;
  return "";
}

std::string Mapper::Apply(const RecordFields& fields, const std::string& fallback_name,
                          model::Workload* wl) const {
  wl->meta.name = Resolve(kName, fields);
  if (wl->meta.name.empty()) wl->meta.name = fallback_name;
  wl->meta.namespace_ = Resolve(kNamespace, fields);
  if (wl->meta.namespace_.empty()) wl->meta.namespace_ = "default";
  wl->queue_name = Resolve(kQueue, fields);
  if (wl->queue_name.empty()) return kNoQueueName;
  const std::string priority = Resolve(kPriority, fields);
  if (!priority.empty()) {
    const std::optional<int32_t> value = MappedPriority(priority);
    if (!value.has_value()) return kBadPriority;
    wl->priority = *value;
  }
  const std::string priority_class = Resolve(kPriorityClass, fields);
  if (!priority_class.empty()) {
    wl->priority_class_name = priority_class;
    wl->rare.Mutable().priority_class_source = kWorkloadPriorityClassSource;
  }
  const FieldMapping* flavor = Find(kFlavorLabel);
  if (flavor != nullptr && !flavor->label.empty()) {
    const std::string text = Resolve(kFlavorLabel, fields);
    if (text.empty()) return "";
    std::vector<std::string> values = SplitList(text, '|');
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    for (model::PodSet& pod_set : wl->pod_sets) {
      if (values.size() == 1) {
        pod_set.rare.Mutable().node_selector[flavor->label] = values[0];
      } else if (values.size() > 1) {
        model::SelectorRequirement requirement{flavor->label, model::SelectorOperator::kIn, values};
        if (pod_set.rare.Mutable().required_affinity.empty()) pod_set.rare.Mutable().required_affinity.emplace_back();
        for (auto& term : pod_set.rare.Mutable().required_affinity) term.match_expressions.push_back(requirement);
      }
    }
  }
  return "";
}

// --- Options and messages ---

absl::Status CheckOptions(const TraceSpec& spec, const std::vector<std::string>& known,
                          const std::vector<std::string>& prefixes) {
  std::vector<std::string> all = {"sorted", "arrivalOrigin", "replayRecordedStart"};
  all.insert(all.end(), known.begin(), known.end());
  for (const auto& [key, value] : spec.options) {
    if (std::find(all.begin(), all.end(), key) != all.end()) continue;
    bool prefixed = false;
    for (const auto& prefix : prefixes) prefixed = prefixed || (key.rfind(prefix, 0) == 0 && key.size() > prefix.size());
    if (prefixed) continue;
    std::string valid;
    for (const auto& k : all) valid += (valid.empty() ? "" : ", ") + k;
    for (const auto& p : prefixes) valid += ", " + p + "<name>";
    return InvalidArgument(fmt::format("spec.options.{}: unknown option for format {} (valid: {})", key, spec.format, valid));
  }
  for (const auto& [key, valid] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"sorted", {"auto", "true"}},
           {"arrivalOrigin", {"trace", "first"}},
           {"replayRecordedStart", {"false", "true"}}}) {
    auto it = spec.options.find(key);
    if (it == spec.options.end()) continue;
    if (std::find(valid.begin(), valid.end(), it->second) == valid.end()) {
      return InvalidArgument(fmt::format("spec.options.{}: unknown value \"{}\" (valid: {}, {})", key, it->second, valid[0], valid[1]));
    }
  }
  return absl::OkStatus();
}

std::string Option(const TraceSpec& spec, const std::string& key, const std::string& default_value) {
  auto it = spec.options.find(key);
  return it == spec.options.end() || it->second.empty() ? default_value : it->second;
}

std::string TraceContext(const TraceSpec& spec) {
  std::string name = spec.name.empty() ? "Trace" : fmt::format("Trace \"{}\"", spec.name);
  if (spec.source.file.empty()) return name;
  return fmt::format("{}: {}", spec.source.ToString(), name);
}

absl::Status TraceError(const TraceSpec& spec, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), fmt::format("{}: {}", TraceContext(spec), StatusMessage(status)));
}

absl::StatusOr<std::unique_ptr<WorkloadSource>> MakeSource(const TraceSpec& spec,
                                                           std::unique_ptr<RecordFormat> format) {
  auto source = std::make_unique<TraceSource>(spec, std::move(format));
  absl::Status status = source->Init();
  if (!status.ok()) return TraceError(spec, status);
  return std::unique_ptr<WorkloadSource>(std::move(source));
}

// --- Parsing helpers ---

std::string FallbackName(const TraceSpec& spec, int64_t line) {
  return (spec.name.empty() ? std::string("trace") : spec.name) + "-" + std::to_string(line);
}

FieldMapping FieldOf(std::string field, std::string prefix) {
  FieldMapping mapping;
  mapping.field = std::move(field);
  mapping.prefix = std::move(prefix);
  return mapping;
}

FieldMapping ValueOf(std::string value) {
  FieldMapping mapping;
  mapping.value = std::move(value);
  return mapping;
}

std::optional<int64_t> ParseInt(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (*begin == '+') ++begin;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> ParseNumber(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  char buffer[65];
  text.copy(buffer, text.size());
  buffer[text.size()] = '\0';
  // strtod accepts leading spaces, hex and "inf"/"nan"; refuse them.
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) {
      return std::nullopt;
    }
  }
  // std::from_chars reads the same numbers as strtod, rounded the same
  // (correctly), without the locale; what it refuses (a leading '+', an
  // underflow) goes to strtod.
  double fast = 0;
  const auto [fast_end, fast_error] = std::from_chars(text.data(), text.data() + text.size(), fast);
  if (fast_error == std::errc() && fast_end == text.data() + text.size() && std::isfinite(fast)) return fast;
  char* end = nullptr;
  const double value = std::strtod(buffer, &end);
  if (end != buffer + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<int64_t> SecondsToMicros(double seconds) {
  if (!std::isfinite(seconds) || std::fabs(seconds) >= 1e11) return std::nullopt;
  return static_cast<int64_t>(std::llround(seconds * 1e6));
}

std::optional<int64_t> ParseDateTime(std::string_view text) {
  // "YYYY-MM-DD HH:MM:SS[.f]" -> RFC 3339 with a Z.
  if (text.size() >= 19 && text[10] == ' ') {
    // Rewritten on the stack (no allocation) when short, as almost all are.
    char stack[64];
    std::string heap;
    char* rfc = stack;
    if (text.size() + 1 > sizeof(stack)) {
      heap.resize(text.size() + 1);
      rfc = heap.data();
    }
    text.copy(rfc, text.size());
    size_t size = text.size();
    rfc[10] = 'T';
    const std::string_view rest = text.substr(19);
    const char last = text.back();
    if (last != 'Z' && last != 'z' && rest.find('+') == std::string_view::npos &&
        rest.find('-') == std::string_view::npos) {
      rfc[size++] = 'Z';
    }
    auto parsed = ParseRfc3339(std::string_view(rfc, size));
    if (!parsed.ok()) return std::nullopt;
    return *parsed;
  }
  auto parsed = ParseRfc3339(text);
  if (!parsed.ok()) return std::nullopt;
  return *parsed;
}

std::vector<std::string> SplitList(std::string_view text, char separator) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    std::string part = Trim(text.substr(start, end - start));
    if (!part.empty()) out.push_back(std::move(part));
    start = end + 1;
  }
  return out;
}

std::optional<Amount> ParseRequestAmount(std::string_view text, std::string_view resource) {
  // Fast path: a plain integer (most trace values).
  if (!text.empty() && text.size() <= 15 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const int64_t value = *ParseInt(text);
    return IsMilliResource(resource) ? value * 1000 : value;
  }
  auto quantity = ParseQuantity(text);
  if (!quantity.ok() || (quantity->negative && !quantity->IsZero())) return std::nullopt;
  auto value = CanonicalValue(*quantity, resource);
  if (!value.ok()) return std::nullopt;
  return *value;
}

void SetRequests(model::PodSet* pod_set, const std::map<std::string, Amount>& requests) {
  pod_set->requests.clear();
  for (const auto& [name, amount] : requests) {
    if (amount != 0) pod_set->requests.push_back({name, amount});
  }
}

}  // namespace kueuesim::trace::internal
