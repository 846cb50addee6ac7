// alibaba-dlrm: Alibaba's GPU-disaggregated DLRM serving trace (NSDI'25,
// alibaba/clusterdata cluster-trace-gpu-v2025, disaggregated_DLRM_trace.csv):
//   instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,
//   rdma_request,rdma_limit,memory_request,memory_limit,disk_request,
//   disk_limit,max_instance_per_node,creation_time,scheduled_time,deletion_time
// One row per serving instance: role HN (a GPU-node instance) or CN (a
// CPU-node instance) of an application; cpu in vCPU, gpu a count, rdma in
// percent of one RNIC, memory and disk in GiB; times in seconds since the
// trace start, empty outside the trace's window (docs/traces.md
// "alibaba-dlrm").
//
// options.mapping chooses what an application becomes:
//
//   leaderworkerset (default)  one LeaderWorkerSet per application (a
//       GeneratedObject): a group per live HN instance (the leader, with the
//       HN requests) with W = round(CN rows / HN rows) workers (the CN
//       requests); replicas at time 0 = the HN instances alive then, and a
//       `replicas` Change whenever the application's live HN count changes
//       (instances created and deleted). A change trace (OpenChangeTrace).
//   deployment  one single-pod Workload per instance, as Kueue's pod
//       integration manages a Deployment's pods (kind Deployment, labels
//       app and role: the HN and CN instances of an application are two
//       Deployments), created at creation_time and running until
//       deletion_time. A workload trace (OpenTrace).
//
// Every row is accounted for: a replica (a group or the workers of its
// application's groups; a Workload in the deployment mapping) or a skip by
// reason; ignored fields (max_instance_per_node) are counted.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "kueuesim/trace/change_source.h"
#include "trace/csv_format.h"
#include "trace/csv_reader.h"
#include "trace/formats.h"

namespace kueuesim::trace::internal {
namespace {

constexpr char kFormat[] = "alibaba-dlrm";
constexpr char kDefaultRdmaResource[] = "rdma/hca";
constexpr char kRoleLabel[] = "kueuesim.io/dlrm-role";
constexpr char kAppLabel[] = "app";
constexpr char kSpreadIgnored[] =
    "max_instance_per_node (a per-node spread limit; kueuesim models no spread constraint for it)";

const std::vector<std::string>& Columns() {
  static const std::vector<std::string> columns = {
      "instance_sn",    "role",           "app_name",      "cpu_request",     "cpu_limit",
      "gpu_request",    "gpu_limit",      "rdma_request",  "rdma_limit",      "memory_request",
      "memory_limit",   "disk_request",   "disk_limit",    "max_instance_per_node",
      "creation_time",  "scheduled_time", "deletion_time"};
  return columns;
}

std::string Mapping(const TraceSpec& spec) { return Option(spec, "mapping", "leaderworkerset"); }

// One instance's requests, canonical amounts (cpu milli-cores, memory
// bytes, GPUs, RDMA percent).
struct Shape {
  Amount cpu = 0;
  Amount memory = 0;
  Amount gpu = 0;
  Amount rdma = 0;
  auto operator<=>(const Shape&) const = default;
};

// A parsed row (times in microseconds; nullopt when empty).
struct Row {
  std::string instance;
  bool hn = false;
  std::string app;
  Shape shape;
  bool spread_limit = false;  // max_instance_per_node > 0
  std::optional<int64_t> creation;
  std::optional<int64_t> scheduled;
  std::optional<int64_t> deletion;
};

// Column indices of the fields read.
struct Bound {
  size_t instance, role, app, cpu, gpu, rdma, memory, spread, creation, scheduled, deletion;
};

absl::StatusOr<Bound> BindColumns(const TraceSpec& spec, const CsvReader& reader) {
  std::string missing;
  for (const std::string& column : Columns()) {
    if (!reader.Column(column).has_value()) missing += (missing.empty() ? "" : ", ") + column;
  }
  if (!missing.empty()) {
    std::string all;
    for (const std::string& column : Columns()) all += (all.empty() ? "" : ",") + column;
    return InvalidArgument(fmt::format("{}:1: the header lacks column(s) {} of format {} (columns: {})", spec.path,
                                       missing, kFormat, all));
  }
  auto c = [&](const char* name) { return *reader.Column(name); };
  return Bound{c("instance_sn"),  c("role"),           c("app_name"),     c("cpu_request"),
               c("gpu_request"),  c("rdma_request"),   c("memory_request"), c("max_instance_per_node"),
               c("creation_time"), c("scheduled_time"), c("deletion_time")};
}

// Parses the current row; returns the skip reason ("" when valid). Bad
// fields name their column; the caller adds the line.
std::string ParseDlrmRow(const CsvReader& reader, const Bound& b, Row* row) {
  if (!reader.malformed().empty()) return "malformed CSV: " + reader.malformed();
  if (reader.size() != reader.header().size()) {
    return reader.size() < reader.header().size() ? "too few fields" : "too many fields";
  }
  row->instance = std::string(reader.Get(b.instance));
  const std::string_view role = reader.Get(b.role);
  if (role != "HN" && role != "CN") return "unknown role (not HN or CN)";
  row->hn = role == "HN";
  row->app = std::string(reader.Get(b.app));
  if (row->app.empty()) return "missing app_name";
  auto cpu = ParseRequestAmount(reader.Get(b.cpu), "cpu");
  if (!cpu.has_value()) return "bad cpu_request";
  row->shape.cpu = *cpu;
  auto gpu = ParseInt(reader.Get(b.gpu));
  if (!gpu.has_value() || *gpu < 0 || *gpu > 1'000'000) return "bad gpu_request";
  row->shape.gpu = *gpu;
  auto rdma = ParseInt(reader.Get(b.rdma));
  if (!rdma.has_value() || *rdma < 0 || *rdma > 100) return "bad rdma_request";
  row->shape.rdma = *rdma;
  // GiB, possibly with decimals ("120.0"): an exact quantity.
  const std::string_view memory_text = reader.Get(b.memory);
  std::optional<Amount> memory;
  if (!memory_text.empty() && memory_text.front() != '-' && memory_text.front() != '+') {
    memory = ParseRequestAmount(std::string(memory_text) + "Gi", "memory");
  }
  if (!memory.has_value()) return "bad memory_request";
  row->shape.memory = *memory;
  auto spread = ParseInt(reader.Get(b.spread));
  if (!spread.has_value() || *spread < -1) return "bad max_instance_per_node";
  row->spread_limit = *spread > 0;
  const std::pair<size_t, std::optional<int64_t>*> times[] = {
      {b.creation, &row->creation}, {b.scheduled, &row->scheduled}, {b.deletion, &row->deletion}};
  for (const auto& [column, out] : times) {
    const std::string_view text = reader.Get(column);
    if (text.empty()) continue;
    auto seconds = ParseNumber(text);
    const std::string& name = reader.header()[column];
    if (!seconds.has_value()) return "bad " + name;
    if (*seconds < 0) return "negative " + name;
    auto micros = SecondsToMicros(*seconds);
    if (!micros.has_value()) return "bad " + name;
    *out = *micros;
  }
  if (row->creation.has_value() && row->deletion.has_value() && *row->deletion < *row->creation) {
    return "deletion_time before creation_time";
  }
  if (row->scheduled.has_value() && row->deletion.has_value() && *row->deletion < *row->scheduled) {
    return "deletion_time before scheduled_time";
  }
  return "";
}

// A Kubernetes object name for an application ("app_12" -> "app-12").
std::string ObjectName(std::string_view text) {
  std::string out;
  for (char ch : text) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '-';
  }
  return out;
}

// --- deployment mapping: one Workload per instance ---

std::map<std::string, FieldMapping> DeploymentDefaults() {
  return {{"name", FieldOf("instance_sn")}, {"namespace", ValueOf("dlrm")}, {"queue", ValueOf("serving")}};
}

class DlrmDeployment : public CsvFormat {
 public:
  absl::Status Open(const TraceSpec& spec) {
    gpu_resource_ = Option(spec, "gpuResource", kDefaultGpuResource);
    rdma_resource_ = Option(spec, "rdmaResource", kDefaultRdmaResource);
    KUEUESIM_RETURN_IF_ERROR(OpenCsv(spec, Columns(), {}, false, DeploymentDefaults()));
    KUEUESIM_ASSIGN_OR_RETURN(bound_, BindColumns(spec, reader()));
    return absl::OkStatus();
  }

 protected:
  bool ParseRow(ImportReport* report, ParsedRecord* out) override {
    const int64_t ln = line();
    Row row;
    const std::string reason = ParseDlrmRow(reader(), bound_, &row);
    if (!reason.empty()) return SkipRow(report, ln, reason);
    model::Workload& wl = out->workload;
    SetSource(&wl);
    wl.rare.Mutable().object_kind = "Deployment";
    if (row.creation.has_value()) {
      out->time = *row.creation;
      if (row.scheduled.has_value()) {
        const int64_t wait = std::max<int64_t>(0, *row.scheduled - *row.creation);
        if (*row.scheduled < *row.creation) Repair(report, ln, "scheduled before creation (recorded wait 0)");
        wl.meta.annotations[kRecordedWaitAnnotation] = FormatDuration(wait);
      } else {
        Repair(report, ln, "never scheduled (no recorded wait)");
      }
    } else {
      // Alive when the trace starts: present from time 0.
      out->time = 0;
      Repair(report, ln, "alive at the trace start (no creation_time): created at time 0");
    }
    const int64_t start = std::max(out->time, row.scheduled.value_or(out->time));
    if (row.deletion.has_value()) {
      wl.duration = *row.deletion - start;
    } else {
      Repair(report, ln, "no deletion_time (runs until the end)");
    }
    if (row.spread_limit && report != nullptr) ++report->ignored[kSpreadIgnored];
    wl.meta.labels[kAppLabel] = row.app;
    wl.meta.labels[kRoleLabel] = row.hn ? "HN" : "CN";
    model::PodSet pod_set;
    pod_set.name = "main";
    SetRequests(&pod_set, {{"cpu", row.shape.cpu},
                           {"memory", row.shape.memory},
                           {gpu_resource_, row.shape.gpu},
                           {rdma_resource_, row.shape.rdma}});
    wl.pod_sets.push_back(std::move(pod_set));
    const std::string mapped = ApplyMapping(FallbackName(spec_, ln), &wl);
    if (!mapped.empty()) return SkipRow(report, ln, mapped);
    return true;
  }

 private:
  Bound bound_{};
  std::string gpu_resource_;
  std::string rdma_resource_;
};

// --- leaderworkerset mapping: LeaderWorkerSets and their scale Changes ---

// The row accounting of the leaderworkerset mapping.
constexpr char kHnThrough[] =
    "HN instance alive through the trace (no creation_time, no deletion_time): a group from time 0";
constexpr char kHnAtStart[] =
    "HN instance alive at the trace start (no creation_time), deleted in it: a group from time 0";
constexpr char kHnBeforeWindow[] = "HN instance created at or before the window start: a group from time 0";
constexpr char kHnCreated[] = "HN instance created in the window: a group from its creation_time";
constexpr char kCnWorkers[] = "CN instance: worker pods of its application's groups (the group size)";
constexpr char kNoGroup[] = "CN instance of an application without an HN instance in the window (no group to join)";
constexpr char kOutsideWindow[] = "outside the window";
constexpr char kOtherShape[] = "requests differ from the application's template (its most common shape is charged)";

struct App {
  std::string name;
  int64_t first_line = 0;
  int64_t hn = 0;  // rows that are groups
  int64_t cn = 0;  // rows that are workers
  int32_t initial = 0;
  int32_t peak = 0;
  // Shapes by role with their counts and first lines (the template: the
  // most common, ties to the first seen).
  std::map<Shape, std::pair<int64_t, int64_t>> hn_shapes, cn_shapes;
  std::vector<std::pair<int64_t, Shape>> hn_rows, cn_rows;  // line, shape (for the repairs)
  std::vector<int64_t> cn_lines_pending;                   // CN rows, accounted once the app is known
  std::vector<int64_t> recorded_waits;                     // HN rows created and scheduled in the window
};

struct Event {
  int64_t time = 0;  // trace time, microseconds
  size_t app = 0;
  int32_t delta = 0;
  int64_t line = 0;
};

struct LwsTrace {
  std::vector<App> apps;  // in order of first appearance
  std::vector<model::LeaderWorkerSet> objects;  // one per application with a group
  std::vector<model::Change> changes;           // in time order
  ImportReport report;
};

Shape Template(const std::map<Shape, std::pair<int64_t, int64_t>>& shapes) {
  const std::pair<const Shape, std::pair<int64_t, int64_t>>* best = nullptr;
  for (const auto& entry : shapes) {
    if (best == nullptr || entry.second.first > best->second.first ||
        (entry.second.first == best->second.first && entry.second.second < best->second.second)) {
      best = &entry;
    }
  }
  return best == nullptr ? Shape() : best->first;
}

// The app's recorded scheduling delays as "n N, mean M, p50 P, max X".
std::string WaitFigures(std::vector<int64_t> waits) {
  if (waits.empty()) return "none";
  std::sort(waits.begin(), waits.end());
  int64_t sum = 0;
  for (int64_t w : waits) sum += w;
  const int64_t mean = sum / static_cast<int64_t>(waits.size());
  return fmt::format("n {}, mean {}, p50 {}, max {}", waits.size(), FormatDuration(mean),
                     FormatDuration(waits[(waits.size() - 1) / 2]), FormatDuration(waits.back()));
}

// Minimal fields for the mapping of an application's object: app_name.
class AppFields : public RecordFields {
 public:
  explicit AppFields(std::string_view app) : app_(app) {}
  std::optional<std::string_view> Get(std::string_view field) const override {
    if (field == "app_name") return app_;
    return std::nullopt;
  }

 private:
  std::string_view app_;
};

absl::Status CheckLwsSpec(const TraceSpec& spec) {
  if (spec.limit.has_value()) {
    return InvalidArgument(
        "spec.limit: the leaderworkerset mapping keeps every instance of the window (select with spec.window)");
  }
  if (Option(spec, "arrivalOrigin", "trace") != "trace") {
    return InvalidArgument("options.arrivalOrigin: the leaderworkerset mapping counts from the window start");
  }
  if (Option(spec, "replayRecordedStart", "false") != "false") {
    return InvalidArgument(
        "options.replayRecordedStart: groups are created by the LeaderWorkerSet controller, not held; "
        "the recorded waits are kept as annotations of each LeaderWorkerSet");
  }
  for (const auto& [key, mapping] : spec.mapping) {
    if (key != "namespace" && key != "queue" && key != "priorityClass" && key != "name") {
      return InvalidArgument(fmt::format(
          "spec.mapping.{}: not used by the leaderworkerset mapping (valid: name, namespace, queue, priorityClass)",
          key));
    }
    if (!mapping.field.empty() && mapping.field != "app_name") {
      return InvalidArgument(fmt::format("spec.mapping.{}: an application's object can only read field app_name", key));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<SimDuration> DurationOption(const TraceSpec& spec, const std::string& key) {
  const std::string text = Option(spec, key, "0s");
  auto value = ParseDuration(text);
  if (!value.ok() || *value < 0) {
    return InvalidArgument(fmt::format("options.{}: \"{}\" is not a non-negative duration", key, text));
  }
  return *value;
}

absl::StatusOr<LwsTrace> ReadLws(const TraceSpec& spec) {
  KUEUESIM_RETURN_IF_ERROR(CheckLwsSpec(spec));
  const std::string gpu_resource = Option(spec, "gpuResource", kDefaultGpuResource);
  const std::string rdma_resource = Option(spec, "rdmaResource", kDefaultRdmaResource);
  KUEUESIM_ASSIGN_OR_RETURN(const SimDuration leader_delay, DurationOption(spec, "leaderStartupDelay"));
  KUEUESIM_ASSIGN_OR_RETURN(const SimDuration worker_delay, DurationOption(spec, "workerStartupDelay"));
  std::map<std::string, FieldMapping> defaults = {
      {"name", FieldOf("app_name")}, {"namespace", ValueOf("dlrm")}, {"queue", ValueOf("serving")}};
  KUEUESIM_ASSIGN_OR_RETURN(Mapper mapper, Mapper::Create(spec, std::move(defaults), nullptr));
  const int64_t start = spec.window_start.value_or(0);
  const std::optional<int64_t> end = spec.window_end;

  LwsTrace out;
  out.report.source = fmt::format("{} ({}, {})", std::filesystem::path(spec.path).filename().string(), kFormat,
                                  "leaderworkerset");
  KUEUESIM_ASSIGN_OR_RETURN(auto reader, CsvReader::Open(spec.path));
  KUEUESIM_RETURN_IF_ERROR(reader->ReadHeader());
  KUEUESIM_ASSIGN_OR_RETURN(const Bound bound, BindColumns(spec, *reader));
  std::map<std::string, size_t> app_index;
  std::vector<Event> events;
  ImportReport& report = out.report;
  while (true) {
    KUEUESIM_ASSIGN_OR_RETURN(bool more, reader->Next());
    if (!more) break;
    ++report.rows_read;
    const int64_t line = reader->line();
    Row row;
    const std::string reason = ParseDlrmRow(*reader, bound, &row);
    if (!reason.empty()) {
      report.Skip(line, reason);
      continue;
    }
    // Alive in [creation, deletion); no creation_time: since before the
    // trace; no deletion_time: beyond its end.
    if ((row.deletion.has_value() && *row.deletion <= start) ||
        (end.has_value() && row.creation.has_value() && *row.creation >= *end)) {
      report.Skip(line, kOutsideWindow);
      continue;
    }
    auto [it, inserted] = app_index.try_emplace(row.app, out.apps.size());
    if (inserted) {
      out.apps.emplace_back();
      out.apps.back().name = row.app;
      out.apps.back().first_line = line;
    }
    App& app = out.apps[it->second];
    if (row.spread_limit) ++report.ignored[kSpreadIgnored];
    if (!row.hn) {
      ++app.cn;
      auto& shape = app.cn_shapes.try_emplace(row.shape, std::pair<int64_t, int64_t>{0, line}).first->second;
      ++shape.first;
      app.cn_rows.emplace_back(line, row.shape);
      app.cn_lines_pending.push_back(line);
      continue;
    }
    ++app.hn;
    auto& shape = app.hn_shapes.try_emplace(row.shape, std::pair<int64_t, int64_t>{0, line}).first->second;
    ++shape.first;
    app.hn_rows.emplace_back(line, row.shape);
    if (!row.creation.has_value()) {
      ++app.initial;
      ++report.replicas[row.deletion.has_value() ? kHnAtStart : kHnThrough];
    } else if (*row.creation <= start) {
      ++app.initial;
      ++report.replicas[kHnBeforeWindow];
    } else {
      events.push_back({*row.creation, it->second, +1, line});
      ++report.replicas[kHnCreated];
      if (row.scheduled.has_value()) app.recorded_waits.push_back(std::max<int64_t>(0, *row.scheduled - *row.creation));
    }
    if (row.deletion.has_value() && (!end.has_value() || *row.deletion < *end)) {
      events.push_back({*row.deletion, it->second, -1, line});
    }
  }

  // Per application: its template, its size, the CN rows' accounting.
  std::vector<int32_t> live(out.apps.size());
  for (size_t a = 0; a < out.apps.size(); ++a) {
    App& app = out.apps[a];
    for (int64_t line : app.cn_lines_pending) {
      if (app.hn == 0) {
        report.Skip(line, kNoGroup);
      } else {
        ++report.replicas[kCnWorkers];
      }
    }
    app.cn_lines_pending.clear();
    live[a] = app.initial;
    app.peak = app.initial;
  }

  // Scale Changes: the live HN count of each application at each instant
  // it changes (creations and deletions at one instant net out).
  std::stable_sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
    return std::tie(x.time, x.app) < std::tie(y.time, y.app);
  });
  std::vector<int32_t> emitted = live;
  std::vector<size_t> change_app;  // the application of each change
  const std::string trace_name = spec.name.empty() ? "trace" : spec.name;
  for (size_t i = 0; i < events.size();) {
    size_t j = i;
    const size_t a = events[i].app;
    while (j < events.size() && events[j].time == events[i].time && events[j].app == a) {
      live[a] += events[j].delta;
      ++j;
    }
    App& app = out.apps[a];
    app.peak = std::max(app.peak, live[a]);
    if (live[a] != emitted[a]) {
      emitted[a] = live[a];
      SimDuration at = events[i].time - start;
      if (spec.arrival_scale != 1.0) {
        at = static_cast<SimDuration>(std::llround(static_cast<double>(at) / spec.arrival_scale));
      }
      if (at > spec.time_limit) {
        return InvalidArgument(fmt::format("{}:{}: a scale of {} at {} is beyond the simulated time range of {} "
                                           "(limits.time)",
                                           spec.path, events[j - 1].line, app.name, FormatDuration(at),
                                           FormatDuration(spec.time_limit)));
      }
      model::Change change;
      change.source.file = spec.path;
      change.source.line = static_cast<int32_t>(events[j - 1].line);
      change.name = fmt::format("{}-{}", trace_name, out.changes.size() + 1);
      change.at = at;
      change.target_kind = "LeaderWorkerSet";
      change.replicas = live[a];
      out.changes.push_back(std::move(change));
      change_app.push_back(a);  // the object's name and namespace are set below
    }
    i = j;
  }

  // The objects.
  std::vector<std::string> names(out.apps.size()), namespaces(out.apps.size());
  for (size_t a = 0; a < out.apps.size(); ++a) {
    App& app = out.apps[a];
    if (app.hn == 0) continue;
    const AppFields fields(app.name);
    model::LeaderWorkerSet lws;
    lws.meta.source = {spec.path, static_cast<int32_t>(app.first_line)};
    lws.meta.name = ObjectName(mapper.Resolve(Mapper::kName, fields));
    if (lws.meta.name.empty()) lws.meta.name = ObjectName(app.name);
    lws.meta.namespace_ = mapper.Resolve(Mapper::kNamespace, fields);
    if (lws.meta.namespace_.empty()) lws.meta.namespace_ = "default";
    lws.queue_name = mapper.Resolve(Mapper::kQueue, fields);
    if (lws.queue_name.empty()) return InvalidArgument("spec.mapping.queue: an application has no queue name");
    lws.priority_class_name = mapper.Resolve(Mapper::kPriorityClass, fields);
    lws.meta.labels[kAppLabel] = app.name;
    lws.meta.labels["kueue.x-k8s.io/queue-name"] = lws.queue_name;
    if (!lws.priority_class_name.empty()) lws.meta.labels["kueue.x-k8s.io/priority-class"] = lws.priority_class_name;
    lws.meta.annotations["kueuesim.io/recorded-wait"] = WaitFigures(app.recorded_waits);
    if (app.peak > 1'000'000) {
      return InvalidArgument(fmt::format("{}:{}: application {} has {} live HN instances (more than 1,000,000)",
                                         spec.path, app.first_line, app.name, app.peak));
    }
    lws.replicas = app.initial;
    const int64_t workers = (2 * app.cn + app.hn) / (2 * app.hn);  // round(CN / HN), halves up
    if (workers + 1 > 1'000'000) {
      return InvalidArgument(fmt::format("{}:{}: application {}: group size beyond 1,000,000", spec.path,
                                         app.first_line, app.name));
    }
    lws.size = static_cast<int32_t>(workers + 1);
    const Shape hn = Template(app.hn_shapes);
    const Shape cn = Template(app.cn_shapes);
    for (const auto& [line, shape] : app.hn_rows) {
      if (shape != hn) report.Repair(line, kOtherShape);
    }
    for (const auto& [line, shape] : app.cn_rows) {
      if (shape != cn) report.Repair(line, kOtherShape);
    }
    model::PodSet leader;
    leader.name = "leader";
    leader.count = 1;
    SetRequests(&leader, {{"cpu", hn.cpu}, {"memory", hn.memory}, {gpu_resource, hn.gpu}, {rdma_resource, hn.rdma}});
    lws.leader_template = std::move(leader);
    lws.worker_template.name = "worker";
    lws.worker_template.count = lws.size - 1;
    SetRequests(&lws.worker_template,
                {{"cpu", cn.cpu}, {"memory", cn.memory}, {gpu_resource, cn.gpu}, {rdma_resource, cn.rdma}});
    lws.leader_startup_delay = leader_delay;
    lws.worker_startup_delay = worker_delay;
    names[a] = lws.meta.name;
    namespaces[a] = lws.meta.namespace_;
    out.objects.push_back(std::move(lws));
  }
  for (size_t c = 0; c < out.changes.size(); ++c) {
    out.changes[c].target_name = names[change_app[c]];
    out.changes[c].target_namespace = namespaces[change_app[c]];
  }
  report.changes = static_cast<int64_t>(out.changes.size());
  int64_t initial = 0;
  for (const App& app : out.apps) initial += app.initial;
  std::vector<int64_t> waits;
  for (const App& app : out.apps) waits.insert(waits.end(), app.recorded_waits.begin(), app.recorded_waits.end());
  report.notes.push_back(fmt::format("{} LeaderWorkerSets, {} groups at time 0, recorded scheduling delay of the "
                                     "HN instances created in the window: {}",
                                     out.objects.size(), initial, WaitFigures(std::move(waits))));
  return out;
}

class DlrmChangeSource : public ChangeSource {
 public:
  explicit DlrmChangeSource(LwsTrace trace) : trace_(std::move(trace)) {}
  absl::StatusOr<std::optional<model::Change>> Next() override {
    if (next_ >= trace_.changes.size()) return std::optional<model::Change>();
    return std::optional<model::Change>(std::move(trace_.changes[next_++]));
  }
  const ImportReport& report() const override { return trace_.report; }
  ImportReport* mutable_report() override { return &trace_.report; }

 private:
  LwsTrace trace_;
  size_t next_ = 0;
};

absl::Status CheckDlrmOptions(const TraceSpec& spec) {
  KUEUESIM_RETURN_IF_ERROR(CheckOptions(
      spec, {"mapping", "gpuResource", "rdmaResource", "leaderStartupDelay", "workerStartupDelay"}));
  const std::string mapping = Mapping(spec);
  if (mapping != "leaderworkerset" && mapping != "deployment") {
    return InvalidArgument(
        fmt::format("options.mapping: unknown value \"{}\" (valid: leaderworkerset, deployment)", mapping));
  }
  if (mapping == "deployment" && (spec.options.count("leaderStartupDelay") || spec.options.count("workerStartupDelay"))) {
    return InvalidArgument("options.leaderStartupDelay, workerStartupDelay: only with mapping leaderworkerset");
  }
  return absl::OkStatus();
}

}  // namespace

bool IsAlibabaDlrmChangeTrace(const TraceSpec& spec) {
  return spec.format == kFormat && Mapping(spec) != "deployment";
}

absl::StatusOr<std::unique_ptr<RecordFormat>> OpenAlibabaDlrm(const TraceSpec& spec) {
  KUEUESIM_RETURN_IF_ERROR(CheckDlrmOptions(spec));
  if (Mapping(spec) != "deployment") {
    return InvalidArgument(
        fmt::format("spec.format: {} with mapping {} holds changes, not workloads (OpenChangeTrace)", kFormat,
                    Mapping(spec)));
  }
  auto format = std::make_unique<DlrmDeployment>();
  KUEUESIM_RETURN_IF_ERROR(format->Open(spec));
  return std::unique_ptr<RecordFormat>(std::move(format));
}

absl::StatusOr<GeneratedObjects> AlibabaDlrmObjects(const TraceSpec& spec) {
  KUEUESIM_RETURN_IF_ERROR(CheckDlrmOptions(spec));
  GeneratedObjects out;
  if (Mapping(spec) == "deployment") return out;
  KUEUESIM_ASSIGN_OR_RETURN(LwsTrace trace, ReadLws(spec));
  out.leader_worker_sets = std::move(trace.objects);
  return out;
}

absl::StatusOr<std::unique_ptr<ChangeSource>> OpenAlibabaDlrmChanges(const TraceSpec& spec) {
  KUEUESIM_RETURN_IF_ERROR(CheckDlrmOptions(spec));
  KUEUESIM_ASSIGN_OR_RETURN(LwsTrace trace, ReadLws(spec));
  return std::unique_ptr<ChangeSource>(new DlrmChangeSource(std::move(trace)));
}

}  // namespace kueuesim::trace::internal
