// Tests for kueuesim/metrics/thresholds.h: parsing thresholds files (bounds in
// each unit, errors naming the file and entry) and evaluating them on
// hand-built summaries whose figures are known.
#include "kueuesim/metrics/thresholds.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/time.h"
#include "testing/status_matchers.h"

namespace kueuesim::metrics {
namespace {

using ::kueuesim::testing::IsOk;
using ::kueuesim::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::SizeIs;

ResourceUsageSummary Usage(const std::string& flavor, const std::string& resource, Amount nominal, Amount peak,
                           double utilization, double borrowed_share, double used_amount_seconds) {
  ResourceUsageSummary usage;
  usage.flavor = flavor;
  usage.resource = resource;
  usage.nominal_quota = nominal;
  usage.peak_usage = peak;
  usage.utilization = utilization;
  usage.borrowed_share = borrowed_share;
  usage.used_amount_seconds = used_amount_seconds;
  return usage;
}

// Two ClusterQueues over a 100 s run: team-a waited up to 30 s, was
// preempted once in 4 admissions and used 8 GPUs of its 8 for the whole
// run, half of it borrowed; team-b waited 20 min at p90, nothing preempted,
// 2 of its 8 GPUs for the whole run.
Summary TwoTeams() {
  Summary summary;
  summary.end_time = 100 * kSecond;
  ClusterSummary cluster;
  ClusterQueueSummary a;
  a.name = "team-a";
  a.admitted = 4;
  a.preempted = 1;
  a.finished = 3;
  a.wait = WaitStats{4, 10 * kSecond, 30 * kSecond, 30 * kSecond, 30 * kSecond, 15 * kSecond};
  a.resources.push_back(Usage("a100", "nvidia.com/gpu", 8, 16, 1.0, 0.5, 800));
  a.resources.push_back(Usage("a100", "cpu", 96000, 48000, 0.25, 0.0, 2400));
  ClusterQueueSummary b;
  b.name = "team-b";
  b.admitted = 6;
  b.finished = 6;
  b.wait = WaitStats{6, 5 * kMinute, 20 * kMinute, 20 * kMinute, 25 * kMinute, 10 * kMinute};
  b.resources.push_back(Usage("a100", "nvidia.com/gpu", 8, 2, 0.25, 0.0, 200));
  cluster.cluster_queues = {a, b};
  summary.clusters.push_back(cluster);
  return summary;
}

ThresholdReport Evaluate(const std::string& yaml) {
  absl::StatusOr<Thresholds> thresholds = ParseThresholds(yaml, "t.yaml");
  EXPECT_THAT(thresholds, IsOk());
  if (!thresholds.ok()) return {};
  absl::StatusOr<ThresholdReport> report = EvaluateThresholds(*thresholds, TwoTeams());
  EXPECT_THAT(report, IsOk());
  return report.ok() ? *report : ThresholdReport{};
}

absl::Status EvaluateError(const std::string& yaml) {
  absl::StatusOr<Thresholds> thresholds = ParseThresholds(yaml, "t.yaml");
  if (!thresholds.ok()) return thresholds.status();
  return EvaluateThresholds(*thresholds, TwoTeams()).status();
}

TEST(ThresholdsTest, WaitPercentilePassesAndFailsOnDurationBounds) {
  ThresholdReport report = Evaluate(
      "- {clusterQueue: team-a, metric: waitP90, max: 30s}\n"
      "- {clusterQueue: team-b, metric: waitP90, max: 10m}\n");
  ASSERT_THAT(report.outcomes, SizeIs(2));
  EXPECT_TRUE(report.outcomes[0].passed);  // 30 s <= 30 s: bounds are inclusive
  EXPECT_FALSE(report.outcomes[1].passed);
  EXPECT_EQ(report.failed, 1);
  EXPECT_EQ(report.outcomes[1].value_text, "20m0s");
  EXPECT_EQ(report.outcomes[1].message,
            "t.yaml:2: threshold entry 2: ClusterQueue \"team-b\" waitP90 = 20m0s, above max 10m");
}

TEST(ThresholdsTest, BareNumberDurationIsSeconds) {
  ThresholdReport report = Evaluate("- {clusterQueue: team-a, metric: waitP90, max: 29}\n");
  ASSERT_THAT(report.outcomes, SizeIs(1));
  EXPECT_FALSE(report.outcomes[0].passed);
}

TEST(ThresholdsTest, PreemptedShareOverAllQueuesIsPreemptionsPerAdmission) {
  // 1 preemption in 10 admissions = 0.1.
  ThresholdReport report = Evaluate(
      "- {metric: preemptedShare, max: 0.1}\n"
      "- {metric: preemptedShare, max: 9%}\n"
      "- {clusterQueue: team-a, metric: preemptedShare, max: 0.2}\n");
  ASSERT_THAT(report.outcomes, SizeIs(3));
  EXPECT_TRUE(report.outcomes[0].passed);
  EXPECT_FALSE(report.outcomes[1].passed);
  EXPECT_EQ(report.outcomes[1].value_text, "0.1000");
  EXPECT_EQ(report.outcomes[1].subject, "all ClusterQueues");
  EXPECT_FALSE(report.outcomes[2].passed);  // 1 in 4
}

TEST(ThresholdsTest, StarChecksEveryQueue) {
  ThresholdReport report = Evaluate("- {clusterQueue: '*', metric: waitMax, max: 1m}\n");
  ASSERT_THAT(report.outcomes, SizeIs(2));
  EXPECT_TRUE(report.outcomes[0].passed);
  EXPECT_FALSE(report.outcomes[1].passed);
  EXPECT_EQ(report.outcomes[1].subject, "ClusterQueue \"team-b\"");
}

TEST(ThresholdsTest, UtilizationPerQueueAndPooled) {
  // Pooled: (800 + 200) GPU-seconds / (16 GPUs * 100 s) = 0.625.
  ThresholdReport report = Evaluate(
      "checks:\n"
      "- {clusterQueue: team-b, flavor: a100, resource: nvidia.com/gpu, metric: utilization, min: 0.6}\n"
      "- {flavor: a100, resource: nvidia.com/gpu, metric: utilization, min: 0.6, max: 0.7}\n"
      "- {flavor: a100, resource: nvidia.com/gpu, metric: borrowedShare, max: 0.3}\n");
  ASSERT_THAT(report.outcomes, SizeIs(3));
  EXPECT_FALSE(report.outcomes[0].passed);
  EXPECT_EQ(report.outcomes[0].message,
            "t.yaml:2: threshold entry 1: ClusterQueue \"team-b\" utilization = 0.2500, below min 0.6");
  EXPECT_TRUE(report.outcomes[1].passed);
  EXPECT_EQ(report.outcomes[1].value_text, "0.6250");
  // Borrowed: 400 of 1000 GPU-seconds.
  EXPECT_FALSE(report.outcomes[2].passed);
  EXPECT_EQ(report.outcomes[2].value_text, "0.4000");
}

TEST(ThresholdsTest, PeakUsageComparesExactQuantities) {
  ThresholdReport report = Evaluate(
      "- {clusterQueue: team-a, flavor: a100, resource: cpu, metric: peakUsage, max: \"48\"}\n"
      "- {clusterQueue: team-a, flavor: a100, resource: cpu, metric: peakUsage, max: 47999m}\n");
  ASSERT_THAT(report.outcomes, SizeIs(2));
  EXPECT_TRUE(report.outcomes[0].passed);
  EXPECT_FALSE(report.outcomes[1].passed);
  EXPECT_EQ(report.outcomes[1].value_text, "48");
}

TEST(ThresholdsTest, CountsAddUpOverQueues) {
  ThresholdReport report = Evaluate(
      "- {metric: finished, min: 9}\n"
      "- {metric: finished, min: 10}\n");
  ASSERT_THAT(report.outcomes, SizeIs(2));
  EXPECT_TRUE(report.outcomes[0].passed);
  EXPECT_FALSE(report.outcomes[1].passed);
}

TEST(ThresholdsTest, FormatListsFailuresAndCount) {
  ThresholdReport report = Evaluate(
      "- {clusterQueue: team-a, metric: admitted, min: 4}\n"
      "- {clusterQueue: team-a, metric: evicted, max: 0}\n"
      "- {clusterQueue: team-a, metric: preempted, max: 0}\n");
  EXPECT_EQ(FormatThresholdReport(report, "t.yaml"),
            "threshold failed: t.yaml:3: threshold entry 3: ClusterQueue \"team-a\" preempted = 1, above max 0\n"
            "thresholds: 1 of 3 checks failed (t.yaml)\n");
}

TEST(ThresholdsTest, UnknownMetricIsAnErrorNamingFileAndEntry) {
  EXPECT_THAT(EvaluateError("- {metric: preemptedShare, max: 0.1}\n- {metric: waitP95, max: 1m}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.yaml:2: threshold entry 2: metric: unknown metric \"waitP95\"")));
}

TEST(ThresholdsTest, UnknownClusterQueueIsAnError) {
  EXPECT_THAT(EvaluateError("- {clusterQueue: team-c, metric: waitP90, max: 1m}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "t.yaml:1: threshold entry 1: clusterQueue: no ClusterQueue \"team-c\" in the run"));
}

TEST(ThresholdsTest, UnknownFlavorOrResourceIsAnError) {
  EXPECT_THAT(EvaluateError("- {clusterQueue: team-b, flavor: a100, resource: cpu, metric: utilization, min: 0.5}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ClusterQueue \"team-b\" has no quota for flavor \"a100\" resource \"cpu\"")));
  EXPECT_THAT(EvaluateError("- {flavor: h100, resource: cpu, metric: utilization, min: 0.5}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no ClusterQueue has quota for flavor")));
}

TEST(ThresholdsTest, MalformedEntriesAreErrors) {
  EXPECT_THAT(EvaluateError("- {clusterQueue: team-a, metric: waitP90, max: 10x}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("threshold entry 1: max: ")));
  EXPECT_THAT(EvaluateError("- {clusterQueue: team-a, metric: waitP90}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs min or max")));
  EXPECT_THAT(EvaluateError("- {metric: waitP90, max: 1m}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs a clusterQueue")));
  EXPECT_THAT(EvaluateError("- {metric: utilization, min: 0.5}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs flavor and resource")));
  EXPECT_THAT(EvaluateError("- {metric: admitted, min: 1, clusterqueue: a}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown field \"clusterqueue\"")));
  EXPECT_THAT(EvaluateError("- {metric: admitted, min: -1}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a non-negative integer")));
  EXPECT_THAT(EvaluateError("metric: admitted\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown field \"metric\"")));
  EXPECT_THAT(EvaluateError("[]\n"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no checks")));
}

TEST(ThresholdsTest, UnknownClusterIsAnError) {
  EXPECT_THAT(EvaluateError("- {cluster: worker-1, metric: admitted, min: 1}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no cluster \"worker-1\" in the run")));
}

TEST(ThresholdsTest, MissingFileIsNotFound) {
  EXPECT_THAT(LoadThresholdsFile("/nonexistent/thresholds.yaml").status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent/thresholds.yaml")));
}

// A run with a ProvisioningRequest check, a LeaderWorkerSet rollout and an
// autoscaler pool.
Summary ProvisioningRun() {
  Summary summary = TwoTeams();
  ClusterSummary& cluster = summary.clusters[0];
  AdmissionCheckSummary check;
  check.name = "prov";
  check.time_to_ready = WaitStats{3, 10 * kSecond, 5 * kMinute, 5 * kMinute, 5 * kMinute, 2 * kMinute};
  check.held_time = 20 * kMinute;
  check.retry = 2;
  cluster.admission_checks.push_back(check);
  RolloutFigures rollout;
  rollout.leader_worker_set = "inference/llm";
  rollout.duration = 40 * kMinute;
  rollout.below_desired = 12 * kMinute;
  rollout.preemptions = 1;
  cluster.rollouts.push_back(rollout);
  runtime::AutoscalerReport autoscaler;
  runtime::AutoscalerPoolReport pool;
  pool.name = "h100";
  pool.nodes_added = 3;
  pool.stockout_time = kHour;
  autoscaler.pools.push_back(pool);
  cluster.autoscaler = autoscaler;
  return summary;
}

TEST(ThresholdsTest, AdmissionCheckRolloutAndPoolMetrics) {
  absl::StatusOr<Thresholds> thresholds = ParseThresholds(
      "- {admissionCheck: prov, metric: admissionCheckReadyP90, max: 10m}\n"
      "- {admissionCheck: prov, metric: admissionCheckRetries, max: 1}\n"
      "- {leaderWorkerSet: inference/llm, metric: rolloutBelowDesired, max: 10m}\n"
      "- {autoscalerPool: h100, metric: poolStockout, max: 0s}\n"
      "- {autoscalerPool: h100, metric: poolNodesAdded, min: 3}\n",
      "t.yaml");
  ASSERT_THAT(thresholds, IsOk());
  absl::StatusOr<ThresholdReport> report = EvaluateThresholds(*thresholds, ProvisioningRun());
  ASSERT_THAT(report, IsOk());
  ASSERT_THAT(report->outcomes, SizeIs(5));
  EXPECT_TRUE(report->outcomes[0].passed);
  EXPECT_FALSE(report->outcomes[1].passed);
  EXPECT_FALSE(report->outcomes[2].passed);
  EXPECT_EQ(report->outcomes[2].message,
            "t.yaml:3: threshold entry 3: leaderWorkerSet \"inference/llm\" rolloutBelowDesired = 12m0s, above max 10m");
  EXPECT_FALSE(report->outcomes[3].passed);
  EXPECT_TRUE(report->outcomes[4].passed);
  EXPECT_THAT(EvaluateThresholds(*ParseThresholds("- {admissionCheck: nope, metric: admissionCheckHeld, max: 1m}\n", "t.yaml"),
                                 ProvisioningRun())
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no admissionCheck \"nope\"")));
  EXPECT_THAT(EvaluateError("- {metric: rolloutTime, max: 1h}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs leaderWorkerSet")));
  EXPECT_THAT(EvaluateError("- {admissionCheck: prov, metric: waitP90, max: 1h}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("applies to the metrics of that object only")));
}

}  // namespace
}  // namespace kueuesim::metrics
