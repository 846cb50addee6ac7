// kueue-perf-generator: the generator configuration of Kueue's scheduler
// performance test (test/performance/scheduler/runner/generator/generator.go
// and configs/*/generator.yaml), replayed without a cluster.
//
// Objects (generator.go generateCohortSet / generateQueue):
//   ResourceFlavor  resourceFlavor.name (default "rf")
//   per cohort set, `count` cohorts "<className>-<i>" (Cohort objects without
//   quota, as the implicit cohorts of the ClusterQueues are);
//   per queues set, `count` ClusterQueues "<className>-<setIdx>-<i>-<cohort>":
//     cohortName, one resource group covering cpu with one flavor (nominalQuota,
//     borrowingLimit when set), preemption reclaimWithinCohort and
//     withinClusterQueue, BestEffortFIFO, namespaceSelector {}, labels
//     kueue.x-k8s.io/performance-scheduler-class and -cleanup;
//   a Namespace and a LocalQueue named after each ClusterQueue.
// Workloads (generateWlSet): per ClusterQueue, each workloads set runs
// concurrently: `count` times, for each template in turn, wait
// creationIntervalMs, then create "<className>-<setIdx>-<si>-<i>" (one pod
// set "main", count 1, the cpu `request`, spec.priority `priority`, labels
// ...-running-ms and ...-class). The k-th workload of a set (k from 0,
// across repetitions and templates) arrives at (k+1) * creationIntervalMs;
// its duration is runtimeMs (the runner finishes a workload runtimeMs after
// its admission).
// Order of simultaneous arrivals: by ClusterQueue (in generation order:
// cohort set, cohort, queues set, queue), then workloads set, then k.
//
// TAS configurations (`topology`, or templates with tasLevel) are refused:
// GeneratedObjects has no Topology. podCount applies only with tasLevel in
// the Go code, so it is ignored here too.
#include <algorithm>
#include <charconv>
#include <memory>
#include <queue>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/checked.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/base/status.h"
#include "kueuesim/doc/reader.h"
#include "trace/formats.h"

namespace kueuesim::trace::internal {
namespace {

// Appends "-<value>" in decimal.
void AppendNumber(std::string* out, int64_t value) {
  char digits[24];
  const auto result = std::to_chars(digits, digits + sizeof(digits), value);
  out->push_back('-');
  out->append(digits, result.ptr);
}

constexpr char kRunningTimeLabel[] = "kueue.x-k8s.io/performance-scheduler-running-ms";
constexpr char kClassLabel[] = "kueue.x-k8s.io/performance-scheduler-class";
constexpr char kCleanupLabel[] = "kueue.x-k8s.io/performance-scheduler-cleanup";

struct WorkloadTemplate {
  std::string class_name;
  int64_t runtime_ms = 0;
  SimDuration runtime = 0;  // runtime_ms in microseconds (checked)
  int32_t priority = 0;
  std::string request;
  Amount cpu = 0;
  int32_t line = 0;
  // Text forms, made once for the records' fields and labels.
  std::string priority_text;
  std::string runtime_ms_text;
};

struct WorkloadsSet {
  int64_t count = 0;
  int64_t interval_ms = 0;
  std::vector<WorkloadTemplate> workloads;
  // Derived with checked arithmetic when the config is read, so that
  // generating never overflows: the interval in microseconds, the number of
  // workloads (count x templates) and the last one's arrival (total x
  // interval).
  SimDuration interval = 0;
  int64_t total = 0;
  SimDuration last_arrival = 0;
};

struct QueuesSet {
  std::string class_name;
  int64_t count = 0;
  std::string nominal_quota;
  std::string borrowing_limit;
  model::PreemptionPolicy reclaim = model::PreemptionPolicy::kNever;
  model::PreemptionPolicy within = model::PreemptionPolicy::kNever;
  std::vector<WorkloadsSet> workloads_sets;
};

struct CohortSet {
  std::string class_name;
  int64_t count = 0;
  std::vector<QueuesSet> queues_sets;
};

struct PerfConfig {
  std::string flavor = "rf";
  std::vector<CohortSet> cohorts;
  // What it generates, counted with checked arithmetic before anything is.
  GeneratedExtent extent;
};

// One generated ClusterQueue.
struct Queue {
  std::string name;
  std::string cohort;
  const QueuesSet* set = nullptr;
};

// Reads the config; errors name file:line and the field.
class ConfigReader {
 public:
  explicit ConfigReader(std::string path) : path_(std::move(path)) {}

  absl::StatusOr<PerfConfig> Read() {
    KUEUESIM_ASSIGN_OR_RETURN(std::vector<doc::Document> docs, doc::ReadAllFromFile(path_));
    if (docs.size() != 1) return InvalidArgument(fmt::format("{}: expected one YAML document", path_));
    const doc::Node root = docs[0].root();
    if (!root.IsMapping()) return Error(root, "", "must be a mapping");
    KUEUESIM_RETURN_IF_ERROR(CheckKeys(root, "", {"topology", "resourceFlavor", "cohorts"}));
    PerfConfig config;
    if (root.Get("topology").valid() && !root.Get("topology").IsNull()) {
      return Error(root.Get("topology"), "topology",
                   "TAS configurations are not supported (a trace cannot define a Topology); declare "
                   "the topology, flavor and nodes in the scenario instead");
    }
    if (doc::Node rf = root.Get("resourceFlavor"); rf.valid() && !rf.IsNull()) {
      KUEUESIM_RETURN_IF_ERROR(CheckKeys(rf, "resourceFlavor", {"name", "nodeLabel", "topologyName"}));
      KUEUESIM_ASSIGN_OR_RETURN(config.flavor, String(rf, "name", "resourceFlavor", "rf"));
      KUEUESIM_ASSIGN_OR_RETURN(std::string topology, String(rf, "topologyName", "resourceFlavor", ""));
      if (!topology.empty()) {
        return Error(rf.Get("topologyName"), "resourceFlavor.topologyName", "TAS configurations are not supported");
      }
    }
    const doc::Node cohorts = root.Get("cohorts");
    if (!cohorts.IsSequence() || cohorts.size() == 0) {
      return Error(cohorts.valid() ? cohorts : root, "cohorts", "must be a non-empty list (config must contain "
                                                               "at least one cohort)");
    }
    for (size_t c = 0; c < cohorts.size(); ++c) {
      const std::string cpath = fmt::format("cohorts[{}]", c);
      const doc::Node cohort = cohorts.at(c);
      KUEUESIM_RETURN_IF_ERROR(CheckKeys(cohort, cpath, {"className", "count", "queuesSets"}));
      CohortSet set;
      KUEUESIM_ASSIGN_OR_RETURN(set.class_name, String(cohort, "className", cpath, ""));
      KUEUESIM_ASSIGN_OR_RETURN(set.count, Int(cohort, "count", cpath));
      const doc::Node queues = cohort.Get("queuesSets");
      for (size_t q = 0; q < queues.size() && queues.IsSequence(); ++q) {
        const std::string qpath = fmt::format("{}.queuesSets[{}]", cpath, q);
        const doc::Node queue = queues.at(q);
        KUEUESIM_RETURN_IF_ERROR(CheckKeys(queue, qpath,
                                           {"className", "count", "nominalQuota", "borrowingLimit",
                                            "reclaimWithinCohort", "withinClusterQueue", "workloadsSets"}));
        QueuesSet qs;
        KUEUESIM_ASSIGN_OR_RETURN(qs.class_name, String(queue, "className", qpath, ""));
        KUEUESIM_ASSIGN_OR_RETURN(qs.count, Int(queue, "count", qpath));
        KUEUESIM_ASSIGN_OR_RETURN(qs.nominal_quota, String(queue, "nominalQuota", qpath, ""));
        KUEUESIM_ASSIGN_OR_RETURN(qs.borrowing_limit, String(queue, "borrowingLimit", qpath, ""));
        if (qs.nominal_quota.empty()) return Error(queue, qpath + ".nominalQuota", "is required");
        for (const std::string& text : {qs.nominal_quota, qs.borrowing_limit}) {
          if (text.empty()) continue;
          if (!ParseCanonicalValue(text, "cpu").ok()) {
            return Error(queue, qpath, fmt::format("malformed quantity \"{}\"", text));
          }
        }
        KUEUESIM_ASSIGN_OR_RETURN(qs.reclaim, Policy(queue, "reclaimWithinCohort", qpath, false));
        KUEUESIM_ASSIGN_OR_RETURN(qs.within, Policy(queue, "withinClusterQueue", qpath, true));
        const doc::Node sets = queue.Get("workloadsSets");
        for (size_t w = 0; w < sets.size() && sets.IsSequence(); ++w) {
          const std::string wpath = fmt::format("{}.workloadsSets[{}]", qpath, w);
          const doc::Node wset = sets.at(w);
          KUEUESIM_RETURN_IF_ERROR(CheckKeys(wset, wpath, {"count", "creationIntervalMs", "workloads"}));
          WorkloadsSet ws;
          KUEUESIM_ASSIGN_OR_RETURN(ws.count, Int(wset, "count", wpath));
          KUEUESIM_ASSIGN_OR_RETURN(ws.interval_ms, Int(wset, "creationIntervalMs", wpath));
          const doc::Node templates = wset.Get("workloads");
          for (size_t t = 0; t < templates.size() && templates.IsSequence(); ++t) {
            const std::string tpath = fmt::format("{}.workloads[{}]", wpath, t);
            const doc::Node tmpl = templates.at(t);
            KUEUESIM_RETURN_IF_ERROR(CheckKeys(tmpl, tpath,
                                               {"className", "runtimeMs", "priority", "request", "podCount",
                                                "tasConstraint", "tasLevel", "sliceSize"}));
            WorkloadTemplate wt;
            wt.line = tmpl.position().line;
            KUEUESIM_ASSIGN_OR_RETURN(wt.class_name, String(tmpl, "className", tpath, ""));
            KUEUESIM_ASSIGN_OR_RETURN(wt.runtime_ms, Int(tmpl, "runtimeMs", tpath));
            KUEUESIM_ASSIGN_OR_RETURN(int64_t priority, Int(tmpl, "priority", tpath, true));
            if (priority < INT32_MIN || priority > INT32_MAX) {
              return Error(tmpl.Get("priority"), tpath + ".priority", "out of the 32-bit range");
            }
            wt.priority = static_cast<int32_t>(priority);
            KUEUESIM_ASSIGN_OR_RETURN(wt.request, String(tmpl, "request", tpath, ""));
            auto cpu = ParseCanonicalValue(wt.request, "cpu");
            if (!cpu.ok() || *cpu < 0) {
              return Error(tmpl.Get("request").valid() ? tmpl.Get("request") : tmpl, tpath + ".request",
                           fmt::format("malformed quantity \"{}\"", wt.request));
            }
            wt.cpu = *cpu;
            const std::optional<int64_t> runtime = CheckedMul(wt.runtime_ms, kMillisecond);
            if (!runtime.has_value()) {
              return Error(tmpl.Get("runtimeMs"), tpath + ".runtimeMs",
                           fmt::format("{} ms overflows int64 microseconds", wt.runtime_ms));
            }
            wt.runtime = *runtime;
            wt.priority_text = std::to_string(wt.priority);
            wt.runtime_ms_text = std::to_string(wt.runtime_ms);
            KUEUESIM_ASSIGN_OR_RETURN(std::string tas_level, String(tmpl, "tasLevel", tpath, ""));
            if (!tas_level.empty()) {
              return Error(tmpl.Get("tasLevel"), tpath + ".tasLevel", "TAS configurations are not supported");
            }
            ws.workloads.push_back(std::move(wt));
          }
          KUEUESIM_RETURN_IF_ERROR(Derive(wset, wpath, &ws));
          qs.workloads_sets.push_back(std::move(ws));
        }
        set.queues_sets.push_back(std::move(qs));
      }
      config.cohorts.push_back(std::move(set));
    }
    KUEUESIM_RETURN_IF_ERROR(Measure(cohorts, &config));
    return config;
  }

 private:
  absl::Status Error(const doc::Node& node, const std::string& field, const std::string& message) const {
    const int line = node.valid() ? node.position().line : 0;
    return InvalidArgument(fmt::format("{}:{}: {}{}", path_, line, field.empty() ? "" : field + ": ", message));
  }

  // A workloads set's derived figures, or an error at the field whose value
  // makes them overflow.
  absl::Status Derive(const doc::Node& wset, const std::string& wpath, WorkloadsSet* ws) const {
    const std::optional<int64_t> interval = CheckedMul(ws->interval_ms, kMillisecond);
    if (!interval.has_value()) {
      return Error(wset.Get("creationIntervalMs"), wpath + ".creationIntervalMs",
                   fmt::format("{} ms overflows int64 microseconds", ws->interval_ms));
    }
    ws->interval = *interval;
    const std::optional<int64_t> total = CheckedMul(ws->count, static_cast<int64_t>(ws->workloads.size()));
    if (!total.has_value()) {
      return Error(wset.Get("count"), wpath + ".count",
                   fmt::format("{} rounds of {} workloads overflow int64", ws->count, ws->workloads.size()));
    }
    ws->total = *total;
    const std::optional<int64_t> last = CheckedMul(ws->total, ws->interval);
    if (!last.has_value()) {
      return Error(wset.Get("count").valid() ? wset.Get("count") : wset, wpath + ".count",
                   fmt::format("{} workloads every {} ms: the last arrival overflows int64 microseconds", ws->total,
                               ws->interval_ms));
    }
    ws->last_arrival = *last;
    return absl::OkStatus();
  }

  // The config's extent: cohorts, queues (per cohort, every queues set's
  // count), workloads (per queue, every workloads set's total), the last
  // arrival and the longest runtime; each product and sum checked.
  absl::Status Measure(const doc::Node& cohorts, PerfConfig* config) const {
    GeneratedExtent& extent = config->extent;
    for (size_t c = 0; c < config->cohorts.size(); ++c) {
      const CohortSet& set = config->cohorts[c];
      const doc::Node count_node = cohorts.at(c).Get("count");
      const std::string count_path = fmt::format("cohorts[{}].count", c);
      auto overflow = [&](const char* what) {
        return Error(count_node.valid() ? count_node : cohorts.at(c), count_path,
                     fmt::format("{} cohorts make more {} than int64 counts", set.count, what));
      };
      int64_t queues_per_cohort = 0;
      int64_t workloads_per_cohort = 0;
      for (const QueuesSet& qs : set.queues_sets) {
        int64_t workloads_per_queue = 0;
        for (const WorkloadsSet& ws : qs.workloads_sets) {
          if (ws.workloads.empty()) continue;
          const auto sum = CheckedAdd(workloads_per_queue, ws.total);
          if (!sum.has_value()) return overflow("workloads");
          workloads_per_queue = *sum;
          extent.last_arrival = std::max(extent.last_arrival, ws.last_arrival);
          for (const WorkloadTemplate& wt : ws.workloads) {
            extent.longest_duration = std::max(extent.longest_duration, wt.runtime);
          }
        }
        const auto queues = CheckedAdd(queues_per_cohort, qs.count);
        const auto workloads = CheckedAdd(CheckedMul(workloads_per_queue, qs.count), workloads_per_cohort);
        if (!queues.has_value()) return overflow("queues");
        if (!workloads.has_value()) return overflow("workloads");
        queues_per_cohort = *queues;
        workloads_per_cohort = *workloads;
      }
      const auto cohort_total = CheckedAdd(extent.cohorts, set.count);
      const auto queue_total = CheckedAdd(CheckedMul(queues_per_cohort, set.count), extent.cluster_queues);
      const auto workload_total = CheckedAdd(CheckedMul(workloads_per_cohort, set.count), extent.workloads);
      if (!cohort_total.has_value()) return overflow("cohorts");
      if (!queue_total.has_value()) return overflow("queues");
      if (!workload_total.has_value()) return overflow("workloads");
      extent.cohorts = *cohort_total;
      extent.cluster_queues = *queue_total;
      extent.workloads = *workload_total;
    }
    return absl::OkStatus();
  }

  absl::Status CheckKeys(const doc::Node& node, const std::string& path,
                         std::initializer_list<const char*> known) const {
    if (!node.IsMapping()) return Error(node, path, "must be a mapping");
    for (size_t i = 0; i < node.size(); ++i) {
      bool ok = false;
      for (const char* k : known) ok = ok || node.key(i) == k;
      if (!ok) {
        std::string valid;
        for (const char* k : known) valid += (valid.empty() ? "" : ", ") + std::string(k);
        return Error(node.key_node(i), path.empty() ? std::string(node.key(i)) : path + "." + std::string(node.key(i)),
                     fmt::format("unknown field (valid: {})", valid));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> String(const doc::Node& parent, const char* key, const std::string& path,
                                     const std::string& default_value) const {
    const doc::Node node = parent.Get(key);
    if (!node.valid() || node.IsNull()) return default_value;
    if (!node.IsScalar()) return Error(node, path + "." + key, "must be a scalar");
    return std::string(node.scalar());
  }

  absl::StatusOr<int64_t> Int(const doc::Node& parent, const char* key, const std::string& path,
                              bool allow_negative = false) const {
    const doc::Node node = parent.Get(key);
    if (!node.valid() || node.IsNull()) return 0;
    auto value = node.IsScalar() ? ParseInt(node.scalar()) : std::nullopt;
    if (!value.has_value() || (*value < 0 && !allow_negative)) {
      return Error(node, path + "." + key, allow_negative ? "must be an integer" : "must be a non-negative integer");
    }
    return *value;
  }

  absl::StatusOr<model::PreemptionPolicy> Policy(const doc::Node& parent, const char* key, const std::string& path,
                                                 bool within) const {
    KUEUESIM_ASSIGN_OR_RETURN(std::string text, String(parent, key, path, "Never"));
    if (text == "Never" || text.empty()) return model::PreemptionPolicy::kNever;
    if (text == "LowerPriority") return model::PreemptionPolicy::kLowerPriority;
    if (within && text == "LowerOrNewerEqualPriority") return model::PreemptionPolicy::kLowerOrNewerEqualPriority;
    if (!within && text == "Any") return model::PreemptionPolicy::kAny;
    return Error(parent.Get(key), path + "." + key,
                 fmt::format("unknown policy \"{}\" (valid: Never, LowerPriority, {})", text,
                             within ? "LowerOrNewerEqualPriority" : "Any"));
  }

  std::string path_;
};

std::vector<Queue> QueuesOf(const PerfConfig& config) {
  std::vector<Queue> out;
  for (const CohortSet& cohort_set : config.cohorts) {
    for (int64_t c = 0; c < cohort_set.count; ++c) {
      const std::string cohort = fmt::format("{}-{}", cohort_set.class_name, c);
      for (size_t q = 0; q < cohort_set.queues_sets.size(); ++q) {
        const QueuesSet& qs = cohort_set.queues_sets[q];
        for (int64_t i = 0; i < qs.count; ++i) {
          out.push_back({fmt::format("{}-{}-{}-{}", qs.class_name, q, i, cohort), cohort, &qs});
        }
      }
    }
  }
  return out;
}

// The fields a mapping can read for one generated workload: a fixed set,
// looked up by a scan (no map per record). The views point into the
// generator's queues and templates, which outlive the record.
class PerfFields : public RecordFields {
 public:
  std::string name;
  std::string_view cluster_queue;
  std::string_view cohort;
  std::string_view class_name;
  std::string_view priority;
  std::string_view runtime_ms;

  std::optional<std::string_view> Get(std::string_view field) const override {
    if (field == "name") return std::string_view(name);
    if (field == "clusterQueue") return cluster_queue;
    if (field == "cohort") return cohort;
    if (field == "className") return class_name;
    if (field == "priority") return priority;
    if (field == "runtimeMs") return runtime_ms;
    return std::nullopt;
  }
};

class PerfGenerator : public RecordFormat {
 public:
  absl::Status Open(const TraceSpec& spec) {
    KUEUESIM_RETURN_IF_ERROR(CheckOptions(spec, {}));
    spec_ = spec;
    source_file_ = spec.path;
    KUEUESIM_ASSIGN_OR_RETURN(config_, ConfigReader(spec.path).Read());
    queues_ = QueuesOf(config_);
    std::map<std::string, FieldMapping> defaults = {{"name", FieldOf("name")},
                                                    {"namespace", FieldOf("clusterQueue")},
                                                    {"queue", FieldOf("clusterQueue")},
                                                    {"priority", FieldOf("priority")}};
    KUEUESIM_ASSIGN_OR_RETURN(mapper_, Mapper::Create(spec, std::move(defaults), nullptr));
    return Rewind();
  }

  absl::Status Rewind() override {
    heap_ = {};
    for (size_t q = 0; q < queues_.size(); ++q) {
      const QueuesSet& qs = *queues_[q].set;
      for (size_t w = 0; w < qs.workloads_sets.size(); ++w) {
        const WorkloadsSet& ws = qs.workloads_sets[w];
        if (ws.total > 0) heap_.push({ws.interval, q, w, 0});
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<bool> Next(ImportReport* report, RecordPos* pos, std::optional<ParsedRecord>* out) override {
    out->reset();
    if (heap_.empty()) return false;
    Cursor cursor = heap_.top();
    heap_.pop();
    const Queue& queue = queues_[cursor.queue];
    const WorkloadsSet& ws = queue.set->workloads_sets[cursor.set];
    const int64_t per_round = static_cast<int64_t>(ws.workloads.size());
    const int64_t si = cursor.k / per_round;
    const size_t i = static_cast<size_t>(cursor.k % per_round);
    const WorkloadTemplate& wt = ws.workloads[i];
    // Built where it is returned (a Workload is large to move).
    ParsedRecord& record = out->emplace();
    record.time = cursor.time;
    model::Workload& wl = record.workload;
    wl.meta.source.file = source_file_;
    wl.meta.source.line = wt.line;
    // (emplace: the key is built once, in the map's node)
    wl.meta.labels.emplace(kRunningTimeLabel, wt.runtime_ms_text);
    wl.meta.labels.emplace(kClassLabel, wt.class_name);
    wl.duration = wt.runtime;
    model::PodSet pod_set;
    pod_set.name = "main";
    pod_set.count = 1;
    if (wt.cpu != 0) pod_set.requests.push_back({"cpu", wt.cpu});
    wl.pod_sets.push_back(std::move(pod_set));
    PerfFields fields;
    // "<class>-<set>-<round>-<index>", as Kueue's generator names them
    // (built by hand: formatting was a fifth of the generator's cost).
    fields.name.append(wt.class_name);
    AppendNumber(&fields.name, static_cast<int64_t>(cursor.set));
    AppendNumber(&fields.name, si);
    AppendNumber(&fields.name, static_cast<int64_t>(i));
    fields.cluster_queue = queue.name;
    fields.cohort = queue.cohort;
    fields.class_name = wt.class_name;
    fields.priority = wt.priority_text;
    fields.runtime_ms = wt.runtime_ms_text;
    const std::string reason = mapper_.Apply(fields, fields.name, &wl);
    pos->offset = cursor.time;
    pos->line = wt.line;
    if (!reason.empty()) {
      // Only a user mapping can make a generated workload invalid.
      out->reset();
      Skip(report, wt.line, reason);
    }
    // (k + 2) x interval <= last_arrival: checked when the config was read.
    if (cursor.k + 1 < ws.total) heap_.push({cursor.time + ws.interval, cursor.queue, cursor.set, cursor.k + 1});
    return true;
  }

  // Cursors are merged by time: records come in arrival order.
  bool sorted_by_construction() const override { return true; }

  absl::StatusOr<std::optional<ParsedRecord>> ReadAt(const RecordPos&) override {
    return Internal("kueue-perf-generator workloads are generated in order; no random access");
  }

  const PerfConfig& config() const { return config_; }
  const std::vector<Queue>& queues() const { return queues_; }

 private:
  struct Cursor {
    int64_t time;
    size_t queue;
    size_t set;
    int64_t k;
    // Earliest first; ties by queue, then set.
    bool operator<(const Cursor& other) const {
      if (time != other.time) return time > other.time;
      if (queue != other.queue) return queue > other.queue;
      return set > other.set;
    }
  };

  TraceSpec spec_;
  model::SourceFile source_file_;  // spec_.path, shared by every workload
  PerfConfig config_;
  std::vector<Queue> queues_;
  Mapper mapper_;
  std::priority_queue<Cursor> heap_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RecordFormat>> OpenPerfGenerator(const TraceSpec& spec) {
  auto format = std::make_unique<PerfGenerator>();
  KUEUESIM_RETURN_IF_ERROR(format->Open(spec));
  return std::unique_ptr<RecordFormat>(std::move(format));
}

absl::StatusOr<GeneratedExtent> PerfGeneratorExtent(const TraceSpec& spec) {
  KUEUESIM_ASSIGN_OR_RETURN(PerfConfig config, ConfigReader(spec.path).Read());
  return config.extent;
}

absl::StatusOr<GeneratedObjects> PerfGeneratorObjects(const TraceSpec& spec) {
  KUEUESIM_ASSIGN_OR_RETURN(PerfConfig config, ConfigReader(spec.path).Read());
  GeneratedObjects out;
  model::SourceRef source{spec.path, 1};
  model::ResourceFlavor flavor;
  flavor.meta.name = config.flavor;
  flavor.meta.labels[kCleanupLabel] = "true";
  flavor.meta.source = source;
  flavor.meta.set_cluster(spec.cluster);
  out.resource_flavors.push_back(std::move(flavor));
  for (const CohortSet& cohort_set : config.cohorts) {
    for (int64_t c = 0; c < cohort_set.count; ++c) {
      model::Cohort cohort;
      cohort.meta.name = fmt::format("{}-{}", cohort_set.class_name, c);
      cohort.meta.source = source;
      cohort.meta.set_cluster(spec.cluster);
      out.cohorts.push_back(std::move(cohort));
    }
  }
  for (const Queue& queue : QueuesOf(config)) {
    const QueuesSet& qs = *queue.set;
    model::ClusterQueue cq;
    cq.meta.name = queue.name;
    cq.meta.labels[kClassLabel] = qs.class_name;
    cq.meta.labels[kCleanupLabel] = "true";
    cq.meta.source = source;
    cq.meta.set_cluster(spec.cluster);
    cq.cohort = queue.cohort;
    cq.queueing_strategy = model::QueueingStrategy::kBestEffortFIFO;
    cq.namespace_selector.present = true;
    cq.preemption.reclaim_within_cohort = qs.reclaim;
    cq.preemption.within_cluster_queue = qs.within;
    model::ResourceQuota quota;
    quota.name = "cpu";
    if (!qs.nominal_quota.empty()) {
      quota.nominal_quota = CanonicalAmountSaturating(*ParseQuantity(qs.nominal_quota), "cpu");
    }
    if (!qs.borrowing_limit.empty()) {
      quota.borrowing_limit = CanonicalAmountSaturating(*ParseQuantity(qs.borrowing_limit), "cpu");
    }
    model::ResourceGroup group;
    group.covered_resources = {"cpu"};
    group.flavors.push_back({config.flavor, {quota}});
    cq.resource_groups.push_back(std::move(group));
    out.cluster_queues.push_back(std::move(cq));

    model::Namespace ns;
    ns.meta.name = queue.name;
    ns.meta.labels[kCleanupLabel] = "true";
    ns.meta.source = source;
    ns.meta.set_cluster(spec.cluster);
    out.namespaces.push_back(std::move(ns));

    model::LocalQueue lq;
    lq.meta.name = queue.name;
    lq.meta.namespace_ = queue.name;
    lq.meta.source = source;
    lq.meta.set_cluster(spec.cluster);
    lq.cluster_queue = queue.name;
    out.local_queues.push_back(std::move(lq));
  }
  return out;
}

}  // namespace kueuesim::trace::internal
