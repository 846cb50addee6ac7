// Thresholds: checks on a run's figures, for gating a change to a Kueue
// configuration in CI (`kueuesim run SCENARIO --check THRESHOLDS.yaml`).
//
// A thresholds file is a YAML (or JSON) list of checks, or a mapping with
// such a list under `checks:`:
//
//   - {clusterQueue: team-a, metric: waitP90, max: 10m}
//   - {metric: preemptedShare, max: 0.05}
//   - {clusterQueue: team-b, flavor: a100, resource: nvidia.com/gpu,
//      metric: utilization, min: 0.6}
//
// Fields of a check: `metric` (required), `min` and/or `max` (at least one;
// both inclusive), `clusterQueue` (a name, "*" for every ClusterQueue, or
// absent for all ClusterQueues taken together), `flavor` and `resource`
// (required by the resource metrics), `cluster` (restricts the check to one
// cluster of a multi-cluster scenario), or, for the admission-check,
// rollout and autoscaler metrics, `admissionCheck`, `leaderWorkerSet`
// (namespace/name) or `autoscalerPool`. Metrics and the units of their
// bounds are listed in docs/ci-gate.md and by MetricNames().
//
// Errors (InvalidArgument) name the file and the entry: an unknown metric or
// field, a malformed bound, and (at evaluation) a ClusterQueue, cluster,
// flavor or resource the run does not have.
#ifndef KUEUESIM_METRICS_THRESHOLDS_H_
#define KUEUESIM_METRICS_THRESHOLDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/metrics/summary.h"

namespace kueuesim::metrics {

// How a metric's value and bounds are read, compared and printed.
enum class MetricUnit : uint8_t {
  kDuration,  // SimDuration; bounds like "10m", "90s" or a bare number of seconds
  kCount,     // an integer count
  kRatio,     // a fraction; bounds like 0.05 or "5%"
  kQuantity,  // a canonical resource amount; bounds like "16" or "680Gi"
};

// A metric value or bound: `exact` for durations, counts and quantities,
// `ratio` for ratios.
struct MetricValue {
  int64_t exact = 0;
  double ratio = 0;
};

struct ThresholdCheck {
  int entry = 0;  // 1-based position in the file
  int line = 0;   // line of the entry in the file
  std::string metric;
  MetricUnit unit = MetricUnit::kCount;
  std::optional<std::string> cluster;       // absent: every cluster
  std::optional<std::string> cluster_queue;  // absent: all together; "*": each
  std::string flavor;
  std::string resource;
  // Metrics of an object other than a ClusterQueue: "admissionCheck",
  // "leaderWorkerSet" (namespace/name) or "autoscalerPool", and its name.
  std::string object_kind;
  std::string object_name;
  std::optional<MetricValue> min;
  std::optional<MetricValue> max;
  std::string min_text;  // the bounds as written, for messages
  std::string max_text;
};

struct Thresholds {
  std::string file;  // the name used in messages
  std::vector<ThresholdCheck> checks;
};

// The metric names a check may use, in documentation order.
std::vector<std::string> MetricNames();

absl::StatusOr<Thresholds> LoadThresholdsFile(const std::string& path);
absl::StatusOr<Thresholds> ParseThresholds(std::string_view text, const std::string& display_name);

// One evaluated check on one subject (a ClusterQueue, or all of them).
struct ThresholdOutcome {
  int entry = 0;
  int line = 0;
  std::string subject;  // e.g. `ClusterQueue "team-a"` or `all ClusterQueues`
  std::string metric;
  std::string value_text;
  bool passed = false;
  std::string message;  // one line saying what was checked and how it went
};

struct ThresholdReport {
  std::vector<ThresholdOutcome> outcomes;  // in file order, then subject order
  int64_t failed = 0;
  bool ok() const { return failed == 0; }
};

// Evaluates every check on `summary`. Errors name the file and the entry.
absl::StatusOr<ThresholdReport> EvaluateThresholds(const Thresholds& thresholds, const Summary& summary);

// Each failed check on a line, then a closing count line, e.g.
// "thresholds: 1 of 3 checks failed (gpu-teams.thresholds.yaml)".
std::string FormatThresholdReport(const ThresholdReport& report, const std::string& file);

}  // namespace kueuesim::metrics

#endif  // KUEUESIM_METRICS_THRESHOLDS_H_
