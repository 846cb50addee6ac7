// Tests for kueuesim/metrics/summary.h: the SummaryCollector on tiny runs
// of sim::Simulation built from YAML (admitted/finished counts, wait-time
// percentiles by nearest rank, utilization and borrowed share), checked
// against numbers worked out by hand.
#include "kueuesim/metrics/summary.h"

#include <memory>
#include <tuple>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/status.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/sim/simulation.h"
#include "testing/scenario_fixtures.h"
#include "testing/status_matchers.h"

namespace kueuesim::metrics {
namespace {

using ::kueuesim::testing::ClusterQueueYaml;
using ::kueuesim::testing::IsOk;
using ::kueuesim::testing::LoadYaml;
using ::kueuesim::testing::LocalQueueYaml;
using ::kueuesim::testing::ResourceFlavorYaml;
using ::kueuesim::testing::WorkloadOptions;
using ::kueuesim::testing::WorkloadYaml;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Records (time, type, workload name) of every event.
class Recorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    events.emplace_back(event.time, std::string(cluster::EventTypeName(event.type)),
                        event.cluster->workload(event.workload).spec->meta.name);
  }
  std::vector<std::tuple<SimTime, std::string, std::string>> events;
};

struct Run {
  std::unique_ptr<sim::Simulation> sim;
  Summary summary;
};

// Loads `yaml`, runs the simulation to the end with a SummaryCollector and
// a Recorder attached, and returns the summary.
absl::StatusOr<Run> RunScenario(const std::string& yaml, Recorder* recorder = nullptr) {
  KUEUESIM_ASSIGN_OR_RETURN(scenario::Scenario loaded, LoadYaml(yaml));
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  Run run;
  KUEUESIM_ASSIGN_OR_RETURN(run.sim, sim::Simulation::Create(loaded, registry));
  SummaryCollector collector;
  run.sim->AddEventSink(&collector);
  if (recorder != nullptr) run.sim->AddEventSink(recorder);
  KUEUESIM_RETURN_IF_ERROR(run.sim->Run(sim::RunOptions{}));
  run.summary = collector.Finish(run.sim->end_time(), run.sim->cluster_pointers());
  return run;
}

std::string Job(const std::string& name, const std::string& cpu, const std::string& arrival,
                const std::string& duration, const std::string& ns = "ns") {
  WorkloadOptions o;
  o.ns = ns;
  o.requests = {{"cpu", cpu}};
  o.arrival = arrival;
  o.duration = duration;
  return WorkloadYaml(name, o);
}

const ClusterQueueSummary* FindCq(const Summary& s, const std::string& name) {
  for (const auto& c : s.clusters) {
    for (const auto& cq : c.cluster_queues) {
      if (cq.name == name) return &cq;
    }
  }
  return nullptr;
}

// Setup: cq (flavor f, cpu 4) with LocalQueue ns/q, and an idle ClusterQueue
// "idle" (cpu 8); w1 (2 cpu, 0 s, runs 10 s), w2 (2 cpu, 0 s, runs 20 s), w3
// (4 cpu, arrives 5 s, runs 10 s). w3 parks (NoFit) until w2 finishes at
// 20 s, returns to its queue 1 s later (the inadmissible requeue delay) and
// is admitted at 21 s, finishing at 31 s.
// Invariant: admitted 3, finished 3, pending 0, running 0; waits {0, 0, 16 s}
// -> p50 0 (rank 2 of 3), p90 = p99 = max 16 s, mean 5.333333 s; cpu usage
// integral 2*10 + 2*20 + 4*10 = 100 cpu-s over 31 s of 4 cpu -> utilization
// 100/124 = 0.806452, peak 4 cpu, nothing borrowed; the idle queue has
// utilization 0.
TEST(SummaryCollectorTest, WaitPercentilesAndUtilization) {
  const std::string yaml = ResourceFlavorYaml("f") + ClusterQueueYaml("cq", {"cpu"}, {{"f", {"4"}, {}}}) +
                           ClusterQueueYaml("idle", {"cpu"}, {{"f", {"8"}, {}}}) + LocalQueueYaml("ns", "q", "cq") +
                           Job("w1", "2", "0s", "10s") + Job("w2", "2", "0s", "20s") + Job("w3", "4", "5s", "10s");
  Recorder recorder;
  auto run = RunScenario(yaml, &recorder);
  ASSERT_THAT(run, IsOk());
  const Summary& s = run->summary;
  EXPECT_EQ(s.end_time, 31 * kSecond);
  ASSERT_EQ(s.clusters.size(), 1u);
  EXPECT_EQ(s.clusters[0].workloads, 3);
  EXPECT_EQ(s.clusters[0].workloads_without_queue, 0);
  ASSERT_EQ(s.clusters[0].cluster_queues.size(), 2u);
  EXPECT_EQ(s.clusters[0].cluster_queues[0].name, "cq");  // sorted by name
  const ClusterQueueSummary* cq = FindCq(s, "cq");
  ASSERT_NE(cq, nullptr);
  EXPECT_EQ(cq->admitted, 3);
  EXPECT_EQ(cq->finished, 3);
  EXPECT_EQ(cq->pending, 0);
  EXPECT_EQ(cq->running, 0);
  EXPECT_EQ(cq->preempted, 0);
  EXPECT_EQ(cq->evicted, 0);
  EXPECT_EQ(cq->wait.count, 3);
  EXPECT_EQ(cq->wait.p50, 0);
  EXPECT_EQ(cq->wait.p90, 16 * kSecond);
  EXPECT_EQ(cq->wait.p99, 16 * kSecond);
  EXPECT_EQ(cq->wait.max, 16 * kSecond);
  EXPECT_EQ(cq->wait.mean, 5'333'333);
  ASSERT_EQ(cq->resources.size(), 1u);
  const ResourceUsageSummary& cpu = cq->resources[0];
  EXPECT_EQ(cpu.flavor, "f");
  EXPECT_EQ(cpu.resource, "cpu");
  EXPECT_EQ(cpu.nominal_quota, 4000);
  EXPECT_EQ(cpu.peak_usage, 4000);
  ASSERT_TRUE(cpu.utilization.has_value());
  EXPECT_NEAR(*cpu.utilization, 100.0 / 124.0, 1e-9);
  EXPECT_DOUBLE_EQ(cpu.used_amount_seconds, 100.0);
  EXPECT_DOUBLE_EQ(cpu.borrowed_share, 0.0);
  const ClusterQueueSummary* idle = FindCq(s, "idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->admitted, 0);
  EXPECT_EQ(idle->wait.count, 0);
  ASSERT_TRUE(idle->resources[0].utilization.has_value());
  EXPECT_DOUBLE_EQ(*idle->resources[0].utilization, 0.0);
  EXPECT_EQ(idle->resources[0].peak_usage, 0);

  // The life of w3, as events: it waits at 5 s (4 CPUs more needed) and
  // again, with other figures, when it is requeued at 11 s (2 more needed).
  std::vector<std::pair<SimTime, std::string>> w3;
  for (const auto& [time, type, name] : recorder.events) {
    if (name == "w3") w3.emplace_back(time, type);
  }
  EXPECT_THAT(w3, ElementsAre(std::make_pair(5 * kSecond, std::string("Arrived")),
                              std::make_pair(5 * kSecond, std::string("Pending")),
                              std::make_pair(11 * kSecond, std::string("Pending")),
                              std::make_pair(21 * kSecond, std::string("QuotaReserved")),
                              std::make_pair(21 * kSecond, std::string("Admitted")),
                              std::make_pair(21 * kSecond, std::string("PodsReady")),
                              std::make_pair(31 * kSecond, std::string("QuotaReleased")),
                              std::make_pair(31 * kSecond, std::string("Finished"))));
  // The formatted summary names the queues; the JSON carries the numbers.
  const std::string text = FormatSummary(s);
  EXPECT_THAT(text, HasSubstr("cq"));
  EXPECT_THAT(text, HasSubstr("80.6%"));
  const std::string json = SummaryToJson(s);
  EXPECT_THAT(json, HasSubstr("\"admitted\": 3"));
  EXPECT_THAT(json, HasSubstr("\"p90\": 16.0"));
  EXPECT_THAT(json, HasSubstr("\"utilization\": 0.806452"));
  // The idle queue admitted nothing: its waits are no data, not 0.
  EXPECT_THAT(json, HasSubstr("\"name\": \"idle\", \"cohort\": \"\", \"admitted\": 0, \"finished\": 0, \"running\": 0, "
                              "\"pending\": 0, \"preempted\": 0, \"evicted\": 0,\n        \"waitSeconds\": {\"count\": 0, "
                              "\"p50\": null, \"p90\": null, \"p99\": null, \"max\": null, \"mean\": null}"));
  EXPECT_THAT(text, HasSubstr("\n  idle                 0         0        0        0          0         -         -"
                              "         -         -\n"));
  EXPECT_THAT(text, HasSubstr("\n  cq                   3         3        0        0          0        0s       16s"
                              "       16s       16s\n"));
}

TEST(FormatQuantityForTextTest, CpuInCores) {
  EXPECT_EQ(FormatQuantityForText(665924, "cpu"), "665.9");
  EXPECT_EQ(FormatQuantityForText(4000, "cpu"), "4");
  EXPECT_EQ(FormatQuantityForText(250, "cpu"), "0.25");
  EXPECT_EQ(FormatQuantityForText(1, "cpu"), "0.001");
  EXPECT_EQ(FormatQuantityForText(1500, "cpu"), "1.5");
  EXPECT_EQ(FormatQuantityForText(12345678, "cpu"), "12346");
  EXPECT_EQ(FormatQuantityForText(999999, "cpu"), "1000");  // 999.999 rounds up to the next whole
  EXPECT_EQ(FormatQuantityForText(kUnlimited, "cpu"), "unlimited");
  EXPECT_EQ(FormatQuantityForText(-2500, "cpu"), "-2.5");
}

TEST(FormatQuantityForTextTest, BytesInTheLargestBinaryUnit) {
  constexpr Amount kMi = Amount{1} << 20;
  EXPECT_EQ(FormatQuantityForText(2114320 * kMi, "memory"), "2.016Ti");
  EXPECT_EQ(FormatQuantityForText(680 * 1024 * kMi, "memory"), "680Gi");
  EXPECT_EQ(FormatQuantityForText(1536 * kMi, "memory"), "1.5Gi");
  EXPECT_EQ(FormatQuantityForText(1000 * kMi, "memory"), "1000Mi");
  EXPECT_EQ(FormatQuantityForText(100'000'000, "memory"), "95.37Mi");
  EXPECT_EQ(FormatQuantityForText(512, "memory"), "512");
  EXPECT_EQ(FormatQuantityForText(0, "memory"), "0");
  EXPECT_EQ(FormatQuantityForText(3 * (Amount{1} << 60), "ephemeral-storage"), "3Ei");
  EXPECT_EQ(FormatQuantityForText(2 * kMi, "hugepages-2Mi"), "2Mi");
}

TEST(FormatQuantityForTextTest, OtherResourcesAreWholeNumbers) {
  EXPECT_EQ(FormatQuantityForText(1024, "nvidia.com/gpu"), "1024");
  EXPECT_EQ(FormatQuantityForText(110, "pods"), "110");
}

TEST(FormatQuantityForTextTest, RoundedIsSetOnlyWhenTheValueChanged) {
  constexpr Amount kMi = Amount{1} << 20;
  bool rounded = false;
  EXPECT_EQ(FormatQuantityForText(1536 * kMi, "memory", &rounded), "1.5Gi");
  EXPECT_EQ(FormatQuantityForText(1250, "cpu", &rounded), "1.25");
  EXPECT_FALSE(rounded);
  EXPECT_EQ(FormatQuantityForText(1234567, "cpu", &rounded), "1235");
  EXPECT_TRUE(rounded);
  rounded = false;
  EXPECT_EQ(FormatQuantityForText(2114320 * kMi, "memory", &rounded), "2.016Ti");
  EXPECT_TRUE(rounded);
}

TEST(FormatSummaryTest, ColumnsAreAsWideAsTheirCells) {
  Summary summary;
  ClusterSummary cluster;
  ClusterQueueSummary cq;
  cq.name = "a-cluster-queue-with-a-name-longer-than-24";
  cq.admitted = 3;
  cq.wait.count = 3;
  cq.wait.p50 = 5832 * kSecond;                       // 1h37m12s
  cq.wait.p90 = (86400 + 5363) * kSecond;             // 1d1h29m23s
  cq.wait.p99 = (86400 + 6 * 3600 + 2119) * kSecond;  // 1d6h35m19s
  cq.wait.max = (86400 + 7 * 3600 + 3143) * kSecond;  // 1d7h52m23s
  cq.resources.push_back({"flavor", "cpu", 1'000'000, 665'924, 0.5, 0.0, 0.0});
  cq.resources.push_back({"flavor", "memory", Amount{4} << 40, 2114320 * (Amount{1} << 20), 0.5, 0.0, 0.0});
  cluster.cluster_queues.push_back(cq);
  summary.clusters.push_back(cluster);
  const std::string text = FormatSummary(summary);
  // Every cell is two spaces from the previous one, however long.
  EXPECT_THAT(text, HasSubstr("a-cluster-queue-with-a-name-longer-than-24         3         0        0        0"
                              "          0  1h37m12s  1d1h29m23s  1d6h35m19s  1d7h52m23s\n"));
  EXPECT_THAT(text, HasSubstr("  flavor  cpu          1000    665.9        50.0%      0.0%\n"));
  EXPECT_THAT(text, HasSubstr("  flavor  memory        4Ti  2.016Ti        50.0%      0.0%\n"));
  EXPECT_THAT(text, HasSubstr("rounded to 4 significant digits"));
  const std::string json = SummaryToJson(summary);
  EXPECT_THAT(json, HasSubstr("\"peakUsage\": \"665924m\""));  // the JSON stays exact
  EXPECT_THAT(json, HasSubstr("\"peakUsage\": \"2114320Mi\""));
}

// Setup: cohort "c" with cq-a (cpu 2, LocalQueue ns/qa) and cq-b (cpu 2,
// idle); one 4-cpu workload in cq-a for 10 s from time 0. Invariant: it
// borrows 2 cpu from cq-b: cq-a utilization = 4*10 / (2*10) = 2.0, borrowed
// share = (4-2)*10 / (4*10) = 0.5, peak 4 cpu; wait 0 (p50 = max = 0).
TEST(SummaryCollectorTest, BorrowedShareInCohort) {
  const std::string yaml = ResourceFlavorYaml("f") +
                           ClusterQueueYaml("cq-a", {"cpu"}, {{"f", {"2"}, {}}}, "  cohortName: c\n") +
                           ClusterQueueYaml("cq-b", {"cpu"}, {{"f", {"2"}, {}}}, "  cohortName: c\n") +
                           LocalQueueYaml("ns", "q", "cq-a") + Job("big", "4", "0s", "10s");
  auto run = RunScenario(yaml);
  ASSERT_THAT(run, IsOk());
  const Summary& s = run->summary;
  EXPECT_EQ(s.end_time, 10 * kSecond);
  const ClusterQueueSummary* a = FindCq(s, "cq-a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->cohort, "c");
  EXPECT_EQ(a->admitted, 1);
  EXPECT_EQ(a->finished, 1);
  EXPECT_EQ(a->wait.p50, 0);
  EXPECT_EQ(a->wait.max, 0);
  const ResourceUsageSummary& cpu = a->resources[0];
  EXPECT_EQ(cpu.peak_usage, 4000);
  ASSERT_TRUE(cpu.utilization.has_value());
  EXPECT_DOUBLE_EQ(*cpu.utilization, 2.0);
  EXPECT_DOUBLE_EQ(cpu.borrowed_share, 0.5);
  EXPECT_DOUBLE_EQ(cpu.used_amount_seconds, 40.0);
  const ClusterQueueSummary* b = FindCq(s, "cq-b");
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(*b->resources[0].utilization, 0.0);
}

// Setup: ten identical 1-cpu workloads arriving at 0 s in a 1-cpu
// BestEffortFIFO queue, each running 10 s. The first is admitted at 0; each
// later one waits parked until the previous finishes plus the 1 s
// inadmissible requeue delay, so the k-th is admitted at 11k s: waits 0, 11,
// 22, ..., 99 s, the last finishing at 109 s. Invariant (nearest rank on n = 10): p50 = 5th value =
// 44 s, p90 = 9th = 88 s, p99 = 10th = 99 s = max; mean 49.5 s.
TEST(SummaryCollectorTest, NearestRankPercentilesOverTen) {
  std::string yaml = ResourceFlavorYaml("f") + ClusterQueueYaml("cq", {"cpu"}, {{"f", {"1"}, {}}}) +
                     LocalQueueYaml("ns", "q", "cq");
  for (int i = 0; i < 10; ++i) yaml += Job("w" + std::to_string(i), "1", "0s", "10s");
  auto run = RunScenario(yaml);
  ASSERT_THAT(run, IsOk());
  const ClusterQueueSummary* cq = FindCq(run->summary, "cq");
  ASSERT_NE(cq, nullptr);
  EXPECT_EQ(cq->admitted, 10);
  EXPECT_EQ(cq->finished, 10);
  EXPECT_EQ(cq->wait.count, 10);
  EXPECT_EQ(cq->wait.p50, 44 * kSecond);
  EXPECT_EQ(cq->wait.p90, 88 * kSecond);
  EXPECT_EQ(cq->wait.p99, 99 * kSecond);
  EXPECT_EQ(cq->wait.max, 99 * kSecond);
  EXPECT_EQ(cq->wait.mean, 49'500'000);
  EXPECT_EQ(run->summary.end_time, 109 * kSecond);
}

std::string UntilScenario(const std::string& duration) {
  WorkloadOptions o;
  o.ns = "ns";
  o.requests = {{"cpu", "2"}};
  o.duration = duration;
  return "apiVersion: kueuesim.io/v1alpha1\nkind: Simulation\nmetadata: {name: s}\n"
         "spec: {until: 1m}\n---\n" +
         ResourceFlavorYaml("f") + ClusterQueueYaml("cq", {"cpu"}, {{"f", {"4"}, {}}}) +
         LocalQueueYaml("ns", "q", "cq") + WorkloadYaml("w", o);
}

// Setup: Simulation until 1m; one 2-cpu workload (of a 4-cpu queue)
// admitted at 0 that runs 10 min. Invariant: the run stops at 60 s with the
// workload still running (running 1, finished 0); utilization covers the
// 60 s: 2/4 = 0.5.
TEST(SummaryCollectorTest, RunUntilStopsWithRunningWorkload) {
  auto run = RunScenario(UntilScenario("10m"));
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->sim->now(), kMinute);
  EXPECT_EQ(run->summary.end_time, kMinute);
  const ClusterQueueSummary* cq = FindCq(run->summary, "cq");
  ASSERT_NE(cq, nullptr);
  EXPECT_EQ(cq->running, 1);
  EXPECT_EQ(cq->finished, 0);
  ASSERT_TRUE(cq->resources[0].utilization.has_value());
  EXPECT_DOUBLE_EQ(*cq->resources[0].utilization, 0.5);
  EXPECT_DOUBLE_EQ(cq->resources[0].used_amount_seconds, 120.0);
}

// Setup: the same, but the workload has no duration annotation (it runs
// until the end of the simulation), so no event is pending after time 0.
// Invariant: `until: 1m` still means the run covers 60 s: now() and the
// summary's end time are 60 s and utilization is 0.5 (a report of a 0 s run
// with no utilization is wrong for a scenario that asked for a minute).
TEST(SummaryCollectorTest, RunUntilWithNothingPendingStillReachesUntil) {
  auto run = RunScenario(UntilScenario(""));
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->sim->now(), kMinute);
  EXPECT_EQ(run->summary.end_time, kMinute);
  const ClusterQueueSummary* cq = FindCq(run->summary, "cq");
  ASSERT_NE(cq, nullptr);
  EXPECT_EQ(cq->running, 1);
  ASSERT_TRUE(cq->resources[0].utilization.has_value());
  EXPECT_DOUBLE_EQ(*cq->resources[0].utilization, 0.5);
}

// Setup: cq (cpu 4); a Job of 1 cpu from 0 s to 30 m; an LWS "chat" of 2
// groups of one 1-cpu pod (ready at admission), scaled to 4 at 10 m and to
// 1 at 1 h; the run lasts 2 h.
// Invariant (ServingFigures): at 10 m group 2 is admitted at once and group
// 3 waits for the Job's cpu: the Job finishes at 30 m and group 3 is
// admitted 1 s later (the inadmissible requeue delay), a wait of 1201 s.
// Desired group-seconds 2*600 + 4*3000 + 1*3600 = 16800; ready (at most
// desired) 2*600 + 3*1201 + 4*1799 + 1*3600 = 15599; below desired 1201 s;
// one scale-up, which waited for quota; no preemption.
TEST(SummaryCollectorTest, ServingAvailabilityOfAScaledLeaderWorkerSet) {
  const std::string yaml = ResourceFlavorYaml("f") + ClusterQueueYaml("cq", {"cpu"}, {{"f", {"4"}, {}}}) +
                           LocalQueueYaml("ns", "q", "cq") + Job("w1", "1", "0s", "30m") + R"(---
apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: s}
spec:
  until: 2h
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: chat
  namespace: ns
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 1
    workerTemplate:
      spec:
        containers:
        - name: main
          resources: {requests: {cpu: "1"}}
---
apiVersion: kueuesim.io/v1alpha1
kind: Change
metadata: {name: up}
spec:
  at: 10m
  target: {kind: LeaderWorkerSet, namespace: ns, name: chat}
  replicas: 4
---
apiVersion: kueuesim.io/v1alpha1
kind: Change
metadata: {name: down}
spec:
  at: 1h
  target: {kind: LeaderWorkerSet, namespace: ns, name: chat}
  replicas: 1
)";
  auto run = RunScenario(yaml);
  ASSERT_THAT(run, IsOk());
  ASSERT_EQ(run->summary.clusters.size(), 1u);
  const ClusterSummary& cluster = run->summary.clusters[0];
  ASSERT_EQ(cluster.serving.size(), 1u);
  const ServingFigures& s = cluster.serving[0];
  EXPECT_EQ(s.leader_worker_set, "ns/chat");
  EXPECT_EQ(s.peak_desired, 4);
  EXPECT_DOUBLE_EQ(s.desired_group_seconds, 16800.0);
  EXPECT_DOUBLE_EQ(s.ready_group_seconds, 15599.0);
  EXPECT_EQ(s.below_desired, 1201 * kSecond);
  EXPECT_EQ(s.scale_ups, 1);
  EXPECT_EQ(s.scale_ups_waiting, 1);
  EXPECT_DOUBLE_EQ(s.group_wait_seconds, 1201.0);
  EXPECT_EQ(s.max_group_wait, 1201 * kSecond);
  EXPECT_EQ(s.preemptions, 0);
  const std::string text = FormatSummary(run->summary);
  EXPECT_THAT(text, HasSubstr("Serving availability"));
  EXPECT_THAT(text, HasSubstr("92.85%"));  // 15599 / 16800
  EXPECT_THAT(SummaryToJson(run->summary),
              HasSubstr("{\"leaderWorkerSet\": \"ns/chat\", \"peakDesiredGroups\": 4, \"desiredGroupSeconds\": "
                        "16800.000000, \"readyGroupSeconds\": 15599.000000, \"belowDesiredSeconds\": 1201.0, "
                        "\"scaleUps\": 1, \"scaleUpsWaitingForQuota\": 1"));
}

}  // namespace
}  // namespace kueuesim::metrics
