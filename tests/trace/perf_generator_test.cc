// Tests for kueue-perf-generator (src/trace/perf_generator.cc) on Kueue's
// generator configurations as written in scenarios/kueue-perf/ (baseline:
// 5 cohorts x 6 ClusterQueues x 500 workloads; large-scale: 10 x 100 x 50)
// and on invalid configurations.
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/time.h"
#include "testing/status_matchers.h"
#include "trace/trace_test_util.h"

namespace kueuesim::trace {
namespace {

using ::kueuesim::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using namespace ::kueuesim::trace::testing;  // NOLINT

std::string Config(const std::string& name) { return SourceDir() + "/scenarios/kueue-perf/" + name; }

struct ClassStats {
  int64_t count = 0;
  SimDuration first = -1;
  SimDuration last = -1;
};

// Reads a config's workloads, by class label.
std::map<std::string, ClassStats> ByClass(const std::vector<model::Workload>& workloads) {
  std::map<std::string, ClassStats> out;
  for (const auto& wl : workloads) {
    ClassStats& s = out[wl.meta.labels.at("kueue.x-k8s.io/performance-scheduler-class")];
    if (s.count++ == 0) s.first = wl.arrival;
    s.last = wl.arrival;
  }
  return out;
}

// Setup: the baseline configuration. Expectation: 1 ResourceFlavor "rf",
// 5 cohorts, 30 ClusterQueues "cq-0-<i>-cohort-<c>" (cpu 20 nominal, 100
// borrowing limit, reclaimWithinCohort Any, withinClusterQueue
// LowerPriority, BestEffortFIFO, namespaceSelector {}), 30 Namespaces and
// 30 LocalQueues named after their ClusterQueue.
TEST(PerfGeneratorTest, BaselineObjects) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(GeneratedObjects objects,
                                GeneratedObjectsFor(Spec("kueue-perf-generator", Config("generator-baseline.yaml"))));
  ASSERT_EQ(objects.resource_flavors.size(), 1u);
  EXPECT_EQ(objects.resource_flavors[0].meta.name, "rf");
  ASSERT_EQ(objects.cohorts.size(), 5u);
  EXPECT_EQ(objects.cohorts[4].meta.name, "cohort-4");
  ASSERT_EQ(objects.cluster_queues.size(), 30u);
  EXPECT_EQ(objects.namespaces.size(), 30u);
  ASSERT_EQ(objects.local_queues.size(), 30u);
  EXPECT_TRUE(objects.nodes.empty());
  const model::ClusterQueue& cq = objects.cluster_queues[7];
  EXPECT_EQ(cq.meta.name, "cq-0-1-cohort-1");
  EXPECT_EQ(cq.cohort, "cohort-1");
  EXPECT_TRUE(cq.namespace_selector.present);
  EXPECT_TRUE(cq.namespace_selector.match_labels.empty());
  EXPECT_EQ(cq.queueing_strategy, model::QueueingStrategy::kBestEffortFIFO);
  EXPECT_EQ(cq.preemption.reclaim_within_cohort, model::PreemptionPolicy::kAny);
  EXPECT_EQ(cq.preemption.within_cluster_queue, model::PreemptionPolicy::kLowerPriority);
  EXPECT_FALSE(cq.preemption.borrow_within_cohort.has_value());
  ASSERT_EQ(cq.resource_groups.size(), 1u);
  EXPECT_THAT(cq.resource_groups[0].covered_resources, ElementsAre("cpu"));
  ASSERT_EQ(cq.resource_groups[0].flavors.size(), 1u);
  EXPECT_EQ(cq.resource_groups[0].flavors[0].name, "rf");
  const model::ResourceQuota& quota = cq.resource_groups[0].flavors[0].resources.at(0);
  EXPECT_EQ(quota.name, "cpu");
  EXPECT_EQ(quota.nominal_quota, 20000);
  EXPECT_EQ(quota.borrowing_limit, 100000);
  EXPECT_FALSE(quota.lending_limit.has_value());
  EXPECT_EQ(objects.namespaces[7].meta.name, "cq-0-1-cohort-1");
  EXPECT_EQ(objects.local_queues[7].meta.name, "cq-0-1-cohort-1");
  EXPECT_EQ(objects.local_queues[7].meta.namespace_, "cq-0-1-cohort-1");
  EXPECT_EQ(objects.local_queues[7].cluster_queue, "cq-0-1-cohort-1");
}

// Setup: the baseline workloads. Expectation: 15,000 in arrival order;
// per class: small 10,500 (350 per CQ, every 100 ms from 100 ms to 35 s),
// medium 3,000 (every 500 ms from 500 ms to 50 s), large 1,500 (every
// 1.2 s from 1.2 s to 60 s); each one pod of 1/5/20 cpu, priority
// 50/100/200, duration = runtime 200/500/1000 ms, in its ClusterQueue's
// namespace and LocalQueue; the first arrival the small workload of the
// first ClusterQueue (ties by ClusterQueue, then set).
TEST(PerfGeneratorTest, BaselineWorkloads) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("kueue-perf-generator", Config("generator-baseline.yaml"))));
  ASSERT_EQ(r.workloads.size(), 15000u);
  EXPECT_EQ(r.report.rows_read, 15000);
  EXPECT_THAT(r.report.skipped, IsEmpty());
  EXPECT_TRUE(ArrivalsSorted(r.workloads));
  auto stats = ByClass(r.workloads);
  ASSERT_EQ(stats.size(), 3u);
  EXPECT_EQ(stats["small"].count, 10500);
  EXPECT_EQ(stats["small"].first, 100 * kMillisecond);
  EXPECT_EQ(stats["small"].last, 35 * kSecond);
  EXPECT_EQ(stats["medium"].count, 3000);
  EXPECT_EQ(stats["medium"].first, 500 * kMillisecond);
  EXPECT_EQ(stats["medium"].last, 50 * kSecond);
  EXPECT_EQ(stats["large"].count, 1500);
  EXPECT_EQ(stats["large"].first, 1200 * kMillisecond);
  EXPECT_EQ(stats["large"].last, 60 * kSecond);
  const model::Workload& first = r.workloads[0];
  EXPECT_EQ(first.meta.name, "small-0-0-0");
  EXPECT_EQ(first.meta.namespace_, "cq-0-0-cohort-0");
  EXPECT_EQ(first.queue_name, "cq-0-0-cohort-0");
  EXPECT_EQ(first.priority, 50);
  EXPECT_EQ(first.duration, 200 * kMillisecond);
  EXPECT_EQ(first.pod_sets.size(), 1u);
  EXPECT_EQ(first.pod_sets[0].name, "main");
  EXPECT_EQ(first.pod_sets[0].count, 1);
  EXPECT_EQ(Request(first, "cpu"), 1000);
  EXPECT_EQ(first.meta.labels.at("kueue.x-k8s.io/performance-scheduler-running-ms"), "200");
  EXPECT_EQ(r.workloads[1].meta.namespace_, "cq-0-1-cohort-0");
  EXPECT_EQ(r.workloads[29].meta.namespace_, "cq-0-5-cohort-4");  // the 30th ClusterQueue, also at 100 ms
  EXPECT_EQ(r.workloads[29].arrival, 100 * kMillisecond);
  const model::Workload* large = nullptr;
  for (const auto& wl : r.workloads) {
    if (wl.meta.name == "large-2-49-0" && wl.meta.namespace_ == "cq-0-5-cohort-4") large = &wl;
  }
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(large->arrival, 60 * kSecond);
  EXPECT_EQ(large->priority, 200);
  EXPECT_EQ(Request(*large, "cpu"), 20000);
  EXPECT_EQ(large->duration, kSecond);
  // At 1.5 s, the same instant for small (15th) and medium (3rd): small
  // first for each ClusterQueue, ClusterQueues in order.
  std::vector<std::string> at_1500;
  for (const auto& wl : r.workloads) {
    if (wl.arrival == 1500 * kMillisecond && wl.meta.namespace_ == "cq-0-0-cohort-0") at_1500.push_back(wl.meta.name);
  }
  EXPECT_THAT(at_1500, ElementsAre("small-0-14-0", "medium-1-2-0"));
}

// Setup: the large-scale configuration. Expectation: 1,000 ClusterQueues
// in 10 cohorts, 50,000 workloads sorted by arrival: small 35,000 (60 ms to
// 2.1 s), medium 11,000 (300 ms to 3.3 s), large 4,000 (700 ms to 2.8 s).
TEST(PerfGeneratorTest, LargeScaleTotals) {
  const TraceSpec spec = Spec("kueue-perf-generator", Config("generator-large-scale.yaml"));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(GeneratedObjects objects, GeneratedObjectsFor(spec));
  EXPECT_EQ(objects.cohorts.size(), 10u);
  EXPECT_EQ(objects.cluster_queues.size(), 1000u);
  EXPECT_EQ(objects.local_queues.size(), 1000u);
  EXPECT_EQ(objects.namespaces.size(), 1000u);
  EXPECT_EQ(objects.cluster_queues.back().meta.name, "cq-0-99-cohort-9");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  ASSERT_EQ(r.workloads.size(), 50000u);
  EXPECT_TRUE(ArrivalsSorted(r.workloads));
  auto stats = ByClass(r.workloads);
  EXPECT_EQ(stats["small"].count, 35000);
  EXPECT_EQ(stats["small"].first, 60 * kMillisecond);
  EXPECT_EQ(stats["small"].last, 2100 * kMillisecond);
  EXPECT_EQ(stats["medium"].count, 11000);
  EXPECT_EQ(stats["medium"].first, 300 * kMillisecond);
  EXPECT_EQ(stats["medium"].last, 3300 * kMillisecond);
  EXPECT_EQ(stats["large"].count, 4000);
  EXPECT_EQ(stats["large"].first, 700 * kMillisecond);
  EXPECT_EQ(stats["large"].last, 2800 * kMillisecond);
  EXPECT_EQ(r.workloads.back().arrival, 3300 * kMillisecond);
}

// Setup: the baseline with scale, window and limit, and a mapping that
// puts every workload in one namespace with a constant priority.
// Expectation: the shared knobs apply to generated workloads too.
TEST(PerfGeneratorTest, SharedKnobsApply) {
  TraceSpec spec = Spec("kueue-perf-generator", Config("generator-baseline.yaml"));
  spec.window_start = 10 * kSecond;
  spec.window_end = 20 * kSecond;
  spec.arrival_scale = 10;
  spec.duration_scale = 2;
  spec.mapping["namespace"].value = "perf";
  spec.mapping["priority"].value = "1";
  spec.limit = 100;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  ASSERT_EQ(r.workloads.size(), 100u);
  // 10 s: small #100 and medium #20 of each ClusterQueue, at simulated 0.
  EXPECT_EQ(r.workloads[0].arrival, 0);
  EXPECT_EQ(r.workloads[0].meta.name, "small-0-99-0");
  EXPECT_EQ(r.workloads[0].meta.namespace_, "perf");
  EXPECT_EQ(r.workloads[0].queue_name, "cq-0-0-cohort-0");
  EXPECT_EQ(r.workloads[0].priority, 1);
  EXPECT_EQ(r.workloads[0].duration, 400 * kMillisecond);
  // 60 at 10 s (small and medium), 30 at 10.1 s, the last 10 at 10.2 s:
  // 0.2 s after the window start, scaled by 10.
  EXPECT_EQ(r.workloads[59].meta.name, "medium-1-19-0");
  EXPECT_EQ(r.workloads.back().arrival, 20 * kMillisecond);
  // Generated in arrival order, the workloads are read once; the rows left
  // when the limit is reached are still counted: every one of the 15,000 is
  // a workload or a skipped row.
  EXPECT_EQ(r.report.rows_read, 15000);
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("beyond the limit", 3740), Pair("outside the window", 11160)));
}

// Setup: invalid configurations: a TAS config (topology), an unknown
// field, a bad quantity, a missing nominalQuota, an invalid preemption
// policy for withinClusterQueue. Expectation: errors naming the file, the
// line and the field.
TEST(PerfGeneratorTest, InvalidConfigs) {
  auto expect_error = [](const std::string& name, const std::string& yaml, const std::string& message) {
    const std::string path = WriteTemp(name, yaml);
    EXPECT_THAT(OpenTrace(Spec("kueue-perf-generator", path)),
                StatusIs(absl::StatusCode::kInvalidArgument, AllOf(HasSubstr(path), HasSubstr(message))));
  };
  const std::string queue_set =
      "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n    count: 1\n";
  expect_error("tas.yaml", "topology:\n  name: t\n" + queue_set + "    nominalQuota: 1\n",
               "topology: TAS configurations are not supported");
  expect_error("unknown.yaml", queue_set + "    nominalQuota: 1\n    cohortName: x\n",
               ":8: cohorts[0].queuesSets[0].cohortName: unknown field");
  expect_error("quantity.yaml",
               queue_set + "    nominalQuota: 1\n    workloadsSets:\n    - count: 1\n      workloads:\n"
                           "      - className: w\n        request: lots\n",
               "request: malformed quantity \"lots\"");
  expect_error("nominal.yaml", queue_set, "nominalQuota: is required");
  expect_error("policy.yaml", queue_set + "    nominalQuota: 1\n    withinClusterQueue: Any\n",
               "withinClusterQueue: unknown policy \"Any\"");
  expect_error("empty.yaml", "cohorts: []\n", "cohorts: must be a non-empty list");
}

// Setup: counts and intervals near the int64 range (issue 24: they used to
// overflow signed arithmetic: interval_ms * 1000, count * templates, the
// arrival sums). Expectation: each is an input error naming the file, the
// line and the field; nothing is generated.
TEST(PerfGeneratorTest, OverflowingCountsAndIntervalsAreInputErrors) {
  const std::string head = "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n    count: 1\n"
                           "    nominalQuota: 1\n    workloadsSets:\n";
  const std::string two_templates = "      workloads:\n      - {className: a, runtimeMs: 1, request: 1}\n"
                                    "      - {className: b, runtimeMs: 1, request: 1}\n";
  auto expect_error = [](const std::string& name, const std::string& yaml, const std::string& message) {
    const std::string path = WriteTemp(name, yaml);
    for (const TraceSpec& spec : {Spec("kueue-perf-generator", path)}) {
      EXPECT_THAT(OpenTrace(spec), StatusIs(absl::StatusCode::kInvalidArgument, AllOf(HasSubstr(path), HasSubstr(message))))
          << name;
      EXPECT_THAT(GeneratedObjectsFor(spec), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message))) << name;
      EXPECT_THAT(MeasureGenerated(spec), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message))) << name;
    }
  };
  expect_error("interval.yaml", head + "    - count: 1\n      creationIntervalMs: 9223372036854776\n" + two_templates,
               ":10: cohorts[0].queuesSets[0].workloadsSets[0].creationIntervalMs: 9223372036854776 ms overflows");
  expect_error("rounds.yaml", head + "    - count: 9223372036854775807\n      creationIntervalMs: 0\n" + two_templates,
               ":9: cohorts[0].queuesSets[0].workloadsSets[0].count: 9223372036854775807 rounds of 2 workloads overflow");
  expect_error("last.yaml", head + "    - count: 4611686018427387\n      creationIntervalMs: 1000\n" + two_templates,
               "workloadsSets[0].count: 9223372036854774 workloads every 1000 ms: the last arrival overflows");
  expect_error("runtime.yaml",
               head + "    - count: 1\n      workloads:\n      - {className: a, runtimeMs: 9223372036854775807, request: 1}\n",
               ":11: cohorts[0].queuesSets[0].workloadsSets[0].workloads[0].runtimeMs: 9223372036854775807 ms overflows");
  expect_error("cohorts.yaml",
               "cohorts:\n- className: c\n  count: 9223372036854775807\n  queuesSets:\n  - className: q\n"
               "    count: 9223372036854775807\n    nominalQuota: 1\n",
               ":3: cohorts[0].count: 9223372036854775807 cohorts make more queues than int64 counts");
}

// Setup: a generator whose cohort and queue counts are far beyond memory
// (10^8 cohorts). Expectation: MeasureGenerated counts them without making
// them (the loader refuses them against its budget; see budget_test.cc).
TEST(PerfGeneratorTest, MeasuresWithoutGenerating) {
  const std::string path = WriteTemp(
      "huge.yaml",
      "cohorts:\n- className: c\n  count: 100000000\n  queuesSets:\n  - className: q\n    count: 3\n"
      "    nominalQuota: 1\n    workloadsSets:\n    - count: 5\n      creationIntervalMs: 10\n      workloads:\n"
      "      - {className: a, runtimeMs: 7, request: 1}\n      - {className: b, runtimeMs: 9, request: 1}\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(GeneratedExtent extent, MeasureGenerated(Spec("kueue-perf-generator", path)));
  EXPECT_EQ(extent.cohorts, 100000000);
  EXPECT_EQ(extent.cluster_queues, 300000000);
  EXPECT_EQ(extent.workloads, 3000000000);  // 10 per queue
  EXPECT_EQ(extent.last_arrival, 100 * kMillisecond);
  EXPECT_EQ(extent.longest_duration, 9 * kMillisecond);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(GeneratedExtent none,
                                MeasureGenerated(Spec("native-csv", TestData("alibaba_nodes.csv"))));
  EXPECT_EQ(none.cohorts + none.cluster_queues + none.workloads, 0);
}

}  // namespace
}  // namespace kueuesim::trace
