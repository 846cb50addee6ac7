// Thresholds on a run's figures; see thresholds.h.
#include "kueuesim/metrics/thresholds.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "absl/strings/numbers.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "kueuesim/doc/reader.h"

namespace kueuesim::metrics {
namespace {

// What a metric is measured on and whether it can be taken over all
// ClusterQueues together (a check without `clusterQueue`).
struct MetricDef {
  std::string_view name;
  MetricUnit unit;
  bool per_resource;  // needs flavor and resource
  bool aggregatable;
};

constexpr MetricDef kMetrics[] = {
    {"waitP50", MetricUnit::kDuration, false, false},
    {"waitP90", MetricUnit::kDuration, false, false},
    {"waitP99", MetricUnit::kDuration, false, false},
    {"waitMax", MetricUnit::kDuration, false, true},
    {"waitMean", MetricUnit::kDuration, false, false},
    {"admitted", MetricUnit::kCount, false, true},
    {"finished", MetricUnit::kCount, false, true},
    {"pending", MetricUnit::kCount, false, true},
    {"running", MetricUnit::kCount, false, true},
    {"preempted", MetricUnit::kCount, false, true},
    {"evicted", MetricUnit::kCount, false, true},
    {"deactivated", MetricUnit::kCount, false, true},
    {"preemptedShare", MetricUnit::kRatio, false, true},
    {"utilization", MetricUnit::kRatio, true, true},
    {"borrowedShare", MetricUnit::kRatio, true, true},
    {"peakUsage", MetricUnit::kQuantity, true, false},
};

std::string EntryName(const std::string& file, int entry, int line);

// Metrics of one named object (not a ClusterQueue): the key naming it.
struct ObjectMetricDef {
  std::string_view name;
  MetricUnit unit;
  std::string_view object_key;
};

constexpr ObjectMetricDef kObjectMetrics[] = {
    {"admissionCheckReadyP90", MetricUnit::kDuration, "admissionCheck"},
    {"admissionCheckReadyMax", MetricUnit::kDuration, "admissionCheck"},
    {"admissionCheckHeld", MetricUnit::kDuration, "admissionCheck"},
    {"admissionCheckRetries", MetricUnit::kCount, "admissionCheck"},
    {"admissionCheckRejected", MetricUnit::kCount, "admissionCheck"},
    {"rolloutTime", MetricUnit::kDuration, "leaderWorkerSet"},
    {"rolloutBelowDesired", MetricUnit::kDuration, "leaderWorkerSet"},
    {"rolloutPreemptions", MetricUnit::kCount, "leaderWorkerSet"},
    {"poolNodesAdded", MetricUnit::kCount, "autoscalerPool"},
    {"poolStockout", MetricUnit::kDuration, "autoscalerPool"},
};

const ObjectMetricDef* FindObjectMetric(std::string_view name) {
  for (const ObjectMetricDef& def : kObjectMetrics) {
    if (def.name == name) return &def;
  }
  return nullptr;
}

// The value of an object metric over the clusters the check selects: the
// worst (largest) over clusters that have the object; an unfinished
// rollout counts up to the end of the run.
absl::StatusOr<MetricValue> MeasureObject(const std::string& file, const ThresholdCheck& check,
                                          const Summary& summary, std::string* label) {
  MetricValue value;
  bool found = false;
  const std::string_view metric = check.metric;
  for (const ClusterSummary& cluster : summary.clusters) {
    if (check.cluster.has_value() && cluster.name != *check.cluster) continue;
    if (check.object_kind == "admissionCheck") {
      for (const AdmissionCheckSummary& c : cluster.admission_checks) {
        if (c.name != check.object_name) continue;
        found = true;
        int64_t v = metric == "admissionCheckReadyP90"   ? c.time_to_ready.p90
                    : metric == "admissionCheckReadyMax" ? c.time_to_ready.max
                    : metric == "admissionCheckHeld"     ? c.held_time
                    : metric == "admissionCheckRetries"  ? c.retry
                                                         : c.rejected;
        value.exact = std::max(value.exact, v);
      }
    } else if (check.object_kind == "leaderWorkerSet") {
      for (const RolloutFigures& r : cluster.rollouts) {
        if (r.leader_worker_set != check.object_name) continue;
        found = true;
        int64_t v = metric == "rolloutTime"           ? r.duration
                    : metric == "rolloutBelowDesired" ? r.below_desired
                                                      : r.preemptions;
        value.exact = std::max(value.exact, v);
      }
    } else if (cluster.autoscaler.has_value()) {
      for (const auto& pool : cluster.autoscaler->pools) {
        if (pool.name != check.object_name) continue;
        found = true;
        value.exact = std::max<int64_t>(value.exact, metric == "poolNodesAdded" ? pool.nodes_added : pool.stockout_time);
      }
    }
  }
  if (!found) {
    return InvalidArgument(fmt::format("{}: {}: no {} \"{}\" in the run{}", EntryName(file, check.entry, check.line),
                                       check.object_kind, check.object_kind, check.object_name,
                                       check.object_kind == "leaderWorkerSet" ? " with a rollout" : ""));
  }
  *label = fmt::format("{} \"{}\"", check.object_kind, check.object_name);
  return value;
}

const MetricDef* FindMetric(std::string_view name) {
  for (const MetricDef& def : kMetrics) {
    if (def.name == name) return &def;
  }
  return nullptr;
}

std::string EntryName(const std::string& file, int entry, int line) {
  return fmt::format("{}:{}: threshold entry {}", file, line, entry);
}

absl::Status EntryError(const std::string& file, const ThresholdCheck& check, const std::string& message) {
  return InvalidArgument(EntryName(file, check.entry, check.line) + ": " + message);
}

absl::StatusOr<MetricValue> ParseBound(const doc::Node& node, const ThresholdCheck& check) {
  if (!node.IsScalar() || node.IsNull()) return InvalidArgument("expected a value");
  std::string text(node.scalar());
  MetricValue value;
  switch (check.unit) {
    case MetricUnit::kDuration: {
      KUEUESIM_ASSIGN_OR_RETURN(value.exact, ParseDuration(text));
      return value;
    }
    case MetricUnit::kCount:
      if (!absl::SimpleAtoi(text, &value.exact) || value.exact < 0) {
        return InvalidArgument(fmt::format("\"{}\" is not a non-negative integer", text));
      }
      return value;
    case MetricUnit::kRatio: {
      bool percent = !text.empty() && text.back() == '%';
      std::string number = percent ? text.substr(0, text.size() - 1) : text;
      if (!absl::SimpleAtod(number, &value.ratio) || !std::isfinite(value.ratio) || value.ratio < 0) {
        return InvalidArgument(fmt::format("\"{}\" is not a non-negative number or percentage", text));
      }
      if (percent) value.ratio /= 100;
      return value;
    }
    case MetricUnit::kQuantity: {
      KUEUESIM_ASSIGN_OR_RETURN(value.exact, ParseCanonicalValue(text, check.resource));
      return value;
    }
  }
  return Internal("unknown metric unit");
}

absl::StatusOr<std::string> ScalarField(const doc::Node& value, std::string_view key) {
  if (!value.IsScalar() || value.IsNull()) return InvalidArgument(fmt::format("{}: expected a string", key));
  return std::string(value.scalar());
}

absl::StatusOr<ThresholdCheck> ParseCheck(const doc::Node& node, int entry, const std::string& file) {
  ThresholdCheck check;
  check.entry = entry;
  check.line = node.position().line;
  auto error = [&](const std::string& message) { return EntryError(file, check, message); };
  if (!node.IsMapping()) return error("expected a mapping like {clusterQueue: q, metric: waitP90, max: 10m}");
  doc::Node min_node, max_node;
  for (size_t i = 0; i < node.size(); ++i) {
    std::string_view key = node.key(i);
    doc::Node value = node.value(i);
    if (key == "min") {
      min_node = value;
      continue;
    }
    if (key == "max") {
      max_node = value;
      continue;
    }
    absl::StatusOr<std::string> text = ScalarField(value, key);
    if (!text.ok()) return error(StatusMessage(text.status()));
    if (key == "metric") {
      check.metric = *text;
    } else if (key == "clusterQueue") {
      check.cluster_queue = *text;
    } else if (key == "cluster") {
      check.cluster = *text;
    } else if (key == "flavor") {
      check.flavor = *text;
    } else if (key == "resource") {
      check.resource = *text;
    } else if (key == "admissionCheck" || key == "leaderWorkerSet" || key == "autoscalerPool") {
      check.object_kind = std::string(key);
      check.object_name = *text;
    } else {
      return error(fmt::format("unknown field \"{}\" (known: metric, min, max, clusterQueue, flavor, resource, cluster, "
                               "admissionCheck, leaderWorkerSet, autoscalerPool)",
                               key));
    }
  }
  if (check.metric.empty()) return error("metric: required");
  if (const ObjectMetricDef* object = FindObjectMetric(check.metric); object != nullptr) {
    check.unit = object->unit;
    if (check.object_kind != object->object_key) {
      return error(fmt::format("metric {} needs {} (a name)", check.metric, object->object_key));
    }
    if (check.cluster_queue.has_value() || !check.flavor.empty() || !check.resource.empty()) {
      return error(fmt::format("metric {} is per {}: clusterQueue, flavor and resource do not apply", check.metric,
                               object->object_key));
    }
  } else if (!check.object_kind.empty()) {
    return error(fmt::format("{} applies to the metrics of that object only", check.object_kind));
  }
  const MetricDef* def = check.object_kind.empty() ? FindMetric(check.metric) : nullptr;
  if (!check.object_kind.empty()) {
    // An object metric: its bounds are read below.
  } else if (def == nullptr) {
    std::string known;
    for (const MetricDef& d : kMetrics) known += (known.empty() ? "" : ", ") + std::string(d.name);
    for (const ObjectMetricDef& d : kObjectMetrics) known += ", " + std::string(d.name);
    return error(fmt::format("metric: unknown metric \"{}\" (known: {})", check.metric, known));
  } else {
    check.unit = def->unit;
    if (def->per_resource && (check.flavor.empty() || check.resource.empty())) {
      return error(fmt::format("metric {} needs flavor and resource", check.metric));
    }
    if (!def->per_resource && (!check.flavor.empty() || !check.resource.empty())) {
      return error(fmt::format("metric {} is per ClusterQueue: flavor and resource do not apply", check.metric));
    }
    if (!def->aggregatable && !check.cluster_queue.has_value()) {
      return error(fmt::format("metric {} needs a clusterQueue (a name, or \"*\" for every ClusterQueue)",
                               check.metric));
    }
  }
  if (!min_node.valid() && !max_node.valid()) return error("needs min or max");
  if (min_node.valid()) {
    absl::StatusOr<MetricValue> bound = ParseBound(min_node, check);
    if (!bound.ok()) return error("min: " + StatusMessage(bound.status()));
    check.min = *bound;
    check.min_text = std::string(min_node.scalar());
  }
  if (max_node.valid()) {
    absl::StatusOr<MetricValue> bound = ParseBound(max_node, check);
    if (!bound.ok()) return error("max: " + StatusMessage(bound.status()));
    check.max = *bound;
    check.max_text = std::string(max_node.scalar());
  }
  return check;
}

absl::StatusOr<Thresholds> ParseDocuments(const std::vector<doc::Document>& documents, const std::string& file) {
  Thresholds thresholds;
  thresholds.file = file;
  if (documents.size() != 1) {
    return InvalidArgument(fmt::format("{}: expected one YAML document with a list of checks, found {}", file,
                                       documents.size()));
  }
  doc::Node root = documents[0].root();
  if (root.IsMapping()) {
    for (size_t i = 0; i < root.size(); ++i) {
      if (root.key(i) != "checks") {
        return InvalidArgument(fmt::format("{}:{}: unknown field \"{}\" (expected \"checks\")", file,
                                           root.value(i).position().line, root.key(i)));
      }
    }
    root = root.Get("checks");
  }
  if (!root.IsSequence()) {
    return InvalidArgument(fmt::format("{}: expected a list of checks (or a mapping with \"checks:\")", file));
  }
  for (size_t i = 0; i < root.size(); ++i) {
    KUEUESIM_ASSIGN_OR_RETURN(ThresholdCheck check, ParseCheck(root.at(i), static_cast<int>(i) + 1, file));
    thresholds.checks.push_back(std::move(check));
  }
  if (thresholds.checks.empty()) return InvalidArgument(fmt::format("{}: no checks", file));
  return thresholds;
}

// --- Evaluation -------------------------------------------------------------

struct Subject {
  std::string label;
  std::vector<std::pair<const ClusterSummary*, const ClusterQueueSummary*>> queues;
};

std::string QueueLabel(const ClusterSummary& cluster, const ClusterQueueSummary& cq) {
  if (cluster.name.empty()) return fmt::format("ClusterQueue \"{}\"", cq.name);
  return fmt::format("cluster \"{}\" ClusterQueue \"{}\"", cluster.name, cq.name);
}

absl::StatusOr<std::vector<Subject>> Subjects(const Thresholds& thresholds, const ThresholdCheck& check,
                                             const Summary& summary) {
  std::vector<const ClusterSummary*> clusters;
  for (const ClusterSummary& cluster : summary.clusters) {
    if (!check.cluster.has_value() || cluster.name == *check.cluster) clusters.push_back(&cluster);
  }
  if (check.cluster.has_value() && clusters.empty()) {
    return EntryError(thresholds.file, check, fmt::format("cluster: no cluster \"{}\" in the run", *check.cluster));
  }
  std::vector<Subject> subjects;
  if (!check.cluster_queue.has_value()) {
    Subject all;
    all.label = check.cluster.has_value() && !check.cluster->empty()
                    ? fmt::format("all ClusterQueues of cluster \"{}\"", *check.cluster)
                    : "all ClusterQueues";
    for (const ClusterSummary* cluster : clusters) {
      for (const ClusterQueueSummary& cq : cluster->cluster_queues) all.queues.emplace_back(cluster, &cq);
    }
    subjects.push_back(std::move(all));
    return subjects;
  }
  bool every = *check.cluster_queue == "*";
  for (const ClusterSummary* cluster : clusters) {
    for (const ClusterQueueSummary& cq : cluster->cluster_queues) {
      if (every || cq.name == *check.cluster_queue) {
        subjects.push_back(Subject{QueueLabel(*cluster, cq), {{cluster, &cq}}});
      }
    }
  }
  if (subjects.empty()) {
    if (every) return EntryError(thresholds.file, check, "clusterQueue: the run has no ClusterQueue");
    return EntryError(thresholds.file, check,
                      fmt::format("clusterQueue: no ClusterQueue \"{}\" in the run", *check.cluster_queue));
  }
  return subjects;
}

const ResourceUsageSummary* FindResource(const ClusterQueueSummary& cq, const ThresholdCheck& check) {
  for (const ResourceUsageSummary& usage : cq.resources) {
    if (usage.flavor == check.flavor && usage.resource == check.resource) return &usage;
  }
  return nullptr;
}

int64_t CountOf(const ClusterQueueSummary& cq, std::string_view metric) {
  if (metric == "admitted") return cq.admitted;
  if (metric == "finished") return cq.finished;
  if (metric == "pending") return cq.pending;
  if (metric == "running") return cq.running;
  if (metric == "preempted") return cq.preempted;
  if (metric == "evicted") return cq.evicted;
  return cq.deactivated;  // the only other count metric
}

absl::StatusOr<MetricValue> Measure(const Thresholds& thresholds, const ThresholdCheck& check,
                                    const Subject& subject, SimTime end_time) {
  MetricValue value;
  const std::string_view metric = check.metric;
  auto error = [&](const std::string& message) { return EntryError(thresholds.file, check, message); };
  if (metric.substr(0, 4) == "wait") {
    const WaitStats& wait = subject.queues.size() == 1 ? subject.queues[0].second->wait : WaitStats{};
    if (metric == "waitP50") value.exact = wait.p50;
    if (metric == "waitP90") value.exact = wait.p90;
    if (metric == "waitP99") value.exact = wait.p99;
    if (metric == "waitMean") value.exact = wait.mean;
    if (metric == "waitMax") {
      for (const auto& [cluster, cq] : subject.queues) value.exact = std::max(value.exact, cq->wait.max);
    }
    return value;
  }
  if (metric == "preemptedShare") {
    int64_t preempted = 0, admitted = 0;
    for (const auto& [cluster, cq] : subject.queues) {
      preempted += cq->preempted;
      admitted += cq->admitted;
    }
    value.ratio = admitted == 0 ? 0.0 : static_cast<double>(preempted) / static_cast<double>(admitted);
    return value;
  }
  if (check.unit == MetricUnit::kCount) {
    for (const auto& [cluster, cq] : subject.queues) value.exact += CountOf(*cq, metric);
    return value;
  }
  // Resource metrics.
  std::vector<const ResourceUsageSummary*> usages;
  for (const auto& [cluster, cq] : subject.queues) {
    const ResourceUsageSummary* usage = FindResource(*cq, check);
    if (usage != nullptr) {
      usages.push_back(usage);
    } else if (subject.queues.size() == 1) {
      return error(fmt::format("{} has no quota for flavor \"{}\" resource \"{}\"", subject.label, check.flavor,
                               check.resource));
    }
  }
  if (usages.empty()) {
    return error(fmt::format("no ClusterQueue has quota for flavor \"{}\" resource \"{}\"", check.flavor,
                             check.resource));
  }
  if (metric == "peakUsage") {
    value.exact = usages[0]->peak_usage;
    return value;
  }
  // used_amount_seconds is in whole units (cores for cpu); back to the
  // canonical units of the quotas so that the shares can be added up.
  const double scale = IsMilliResource(check.resource) ? 1000.0 : 1.0;
  double used = 0, borrowed = 0, nominal = 0;
  for (const ResourceUsageSummary* usage : usages) {
    used += usage->used_amount_seconds * scale;
    borrowed += usage->borrowed_share * usage->used_amount_seconds * scale;
    nominal += static_cast<double>(usage->nominal_quota);
  }
  if (metric == "utilization") {
    if (usages.size() == 1) {
      if (!usages[0]->utilization.has_value()) {
        return error(fmt::format("utilization of {} is undefined: its nominal quota is 0", subject.label));
      }
      value.ratio = *usages[0]->utilization;
      return value;
    }
    if (nominal <= 0 || end_time <= 0) {
      return error("utilization is undefined: the nominal quotas add up to 0 (or the run took no time)");
    }
    value.ratio = used / (nominal * (static_cast<double>(end_time) / static_cast<double>(kSecond)));
    return value;
  }
  // borrowedShare
  value.ratio = used > 0 ? borrowed / used : 0.0;
  return value;
}

std::string FormatValue(const MetricValue& value, const ThresholdCheck& check) {
  switch (check.unit) {
    case MetricUnit::kDuration:
      return FormatDuration(value.exact);
    case MetricUnit::kCount:
      return fmt::format("{}", value.exact);
    case MetricUnit::kRatio:
      return fmt::format("{:.4f}", value.ratio);
    case MetricUnit::kQuantity:
      return FormatAmount(value.exact, check.resource);
  }
  return "";
}

// -1, 0, 1 as a is below, equal to or above b.
int Compare(const MetricValue& a, const MetricValue& b, MetricUnit unit) {
  if (unit == MetricUnit::kRatio) return a.ratio < b.ratio ? -1 : (a.ratio > b.ratio ? 1 : 0);
  return a.exact < b.exact ? -1 : (a.exact > b.exact ? 1 : 0);
}

}  // namespace

std::vector<std::string> MetricNames() {
  std::vector<std::string> names;
  for (const MetricDef& def : kMetrics) names.emplace_back(def.name);
  for (const ObjectMetricDef& def : kObjectMetrics) names.emplace_back(def.name);
  return names;
}

absl::StatusOr<Thresholds> LoadThresholdsFile(const std::string& path) {
  KUEUESIM_ASSIGN_OR_RETURN(std::vector<doc::Document> documents, doc::ReadAllFromFile(path));
  return ParseDocuments(documents, path);
}

absl::StatusOr<Thresholds> ParseThresholds(std::string_view text, const std::string& display_name) {
  KUEUESIM_ASSIGN_OR_RETURN(std::vector<doc::Document> documents, doc::ReadAllFromString(text, display_name));
  return ParseDocuments(documents, display_name);
}

absl::StatusOr<ThresholdReport> EvaluateThresholds(const Thresholds& thresholds, const Summary& summary) {
  ThresholdReport report;
  for (const ThresholdCheck& check : thresholds.checks) {
    std::vector<Subject> subjects;
    std::optional<MetricValue> object_value;
    if (!check.object_kind.empty()) {
      std::string label;
      KUEUESIM_ASSIGN_OR_RETURN(object_value, MeasureObject(thresholds.file, check, summary, &label));
      subjects.push_back(Subject{label, {}});
    } else {
      KUEUESIM_ASSIGN_OR_RETURN(subjects, Subjects(thresholds, check, summary));
    }
    for (const Subject& subject : subjects) {
      MetricValue value;
      if (object_value.has_value()) {
        value = *object_value;
      } else {
        KUEUESIM_ASSIGN_OR_RETURN(value, Measure(thresholds, check, subject, summary.end_time));
      }
      ThresholdOutcome outcome;
      outcome.entry = check.entry;
      outcome.line = check.line;
      outcome.subject = subject.label;
      outcome.metric = check.metric;
      outcome.value_text = FormatValue(value, check);
      outcome.passed = true;
      std::string verdict;
      if (check.min.has_value() && Compare(value, *check.min, check.unit) < 0) {
        outcome.passed = false;
        verdict = fmt::format("below min {}", check.min_text);
      } else if (check.max.has_value() && Compare(value, *check.max, check.unit) > 0) {
        outcome.passed = false;
        verdict = fmt::format("above max {}", check.max_text);
      } else {
        verdict = "ok";
      }
      outcome.message = fmt::format("{}: {} {} = {}, {}", EntryName(thresholds.file, check.entry, check.line),
                                    subject.label, check.metric, outcome.value_text, verdict);
      if (!outcome.passed) ++report.failed;
      report.outcomes.push_back(std::move(outcome));
    }
  }
  return report;
}

std::string FormatThresholdReport(const ThresholdReport& report, const std::string& file) {
  std::string out;
  for (const ThresholdOutcome& outcome : report.outcomes) {
    if (!outcome.passed) out += "threshold failed: " + outcome.message + "\n";
  }
  out += fmt::format("thresholds: {} of {} checks failed ({})\n", report.failed, report.outcomes.size(), file);
  return out;
}

}  // namespace kueuesim::metrics
