// Tests for kueuesim/metrics/timeseries.h: the TimeSeriesRecorder on tiny
// runs with rows worked out by hand (one row per change, changes of one
// instant coalesced), borrowing in a cohort, fair-sharing shares, the JSON
// Lines form, and the pending series against the runtime's own pending
// counts on the checked scenarios.
#include "kueuesim/metrics/timeseries.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/status.h"
#include "kueuesim/metrics/summary.h"
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
using ::testing::HasSubstr;
using ::testing::Not;

struct Recorded {
  std::string text;
  int64_t rows = 0;
  int64_t samples = 0;
  Summary summary;
};

absl::StatusOr<Recorded> Record(const scenario::Scenario& loaded, TimeSeriesFormat format) {
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  KUEUESIM_ASSIGN_OR_RETURN(auto sim, sim::Simulation::Create(loaded, registry));
  char* data = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&data, &size);
  TimeSeriesRecorder recorder(out, format);
  SummaryCollector collector;
  sim->AddEventSink(&recorder);
  sim->AddEventSink(&collector);
  absl::Status status = sim->Run(sim::RunOptions{});
  recorder.Finish();
  std::fclose(out);
  Recorded recorded;
  recorded.text.assign(data, size);
  std::free(data);
  KUEUESIM_RETURN_IF_ERROR(status);
  recorded.rows = recorder.rows();
  recorded.samples = recorder.samples();
  recorded.summary = collector.Finish(sim->end_time(), sim->cluster_pointers(), sim->multikueue_reports());
  return recorded;
}

absl::StatusOr<Recorded> RecordYaml(const std::string& yaml, TimeSeriesFormat format = TimeSeriesFormat::kCsv) {
  KUEUESIM_ASSIGN_OR_RETURN(scenario::Scenario loaded, LoadYaml(yaml));
  return Record(loaded, format);
}

std::string Job(const std::string& name, const std::string& cpu, const std::string& arrival,
                const std::string& duration, const std::string& queue = "q") {
  WorkloadOptions o;
  o.ns = "ns";
  o.queue = queue;
  o.requests = {{"cpu", cpu}};
  o.arrival = arrival;
  o.duration = duration;
  return WorkloadYaml(name, o);
}

// Setup (as the summary test): cq (flavor f, cpu 4), idle (cpu 8); w1 (2
// cpu, 0 s, 10 s), w2 (2 cpu, 0 s, 20 s), w3 (4 cpu, arrives 5 s, 10 s)
// parks until w2 finishes, is admitted at 21 s and finishes at 31 s.
// Invariant: at 0 s the quotas and cq's usage 4 (w1 and w2 arrive, wait
// and are admitted in the same instant: pending stays 0, no row); 5 s
// pending 1; 10 s usage 2; 20 s usage 0; 21 s usage 4 and pending 0; 31 s
// usage 0. Nothing borrows (no cohort).
TEST(TimeSeriesRecorderTest, OneRowPerChangeCoalescedPerInstant) {
  const std::string yaml = ResourceFlavorYaml("f") + ClusterQueueYaml("cq", {"cpu"}, {{"f", {"4"}, {}}}) +
                           ClusterQueueYaml("idle", {"cpu"}, {{"f", {"8"}, {}}}) + LocalQueueYaml("ns", "q", "cq") +
                           Job("w1", "2", "0s", "10s") + Job("w2", "2", "0s", "20s") + Job("w3", "4", "5s", "10s");
  auto recorded = RecordYaml(yaml);
  ASSERT_THAT(recorded, IsOk());
  EXPECT_EQ(recorded->text,
            "time,cluster,scope,name,metric,flavor,resource,value\n"
            "0.0,,ClusterQueue,cq,quota,f,cpu,4\n"
            "0.0,,ClusterQueue,cq,usage,f,cpu,4\n"
            "0.0,,ClusterQueue,idle,quota,f,cpu,8\n"
            "5.0,,ClusterQueue,cq,pending,,,1\n"
            "10.0,,ClusterQueue,cq,usage,f,cpu,2\n"
            "20.0,,ClusterQueue,cq,usage,f,cpu,0\n"
            "21.0,,ClusterQueue,cq,usage,f,cpu,4\n"
            "21.0,,ClusterQueue,cq,pending,,,0\n"
            "31.0,,ClusterQueue,cq,usage,f,cpu,0\n");
  EXPECT_EQ(recorded->rows, 9);
  EXPECT_EQ(recorded->samples, 6);
}

// Setup: cohort c with cq-a (cpu 2, LocalQueue ns/qa) and cq-b (cpu 2,
// ns/qb, idle); a (3 cpu, 0 s, 10 s) and b (0.5 cpu, 0 s, 10 s) in cq-a.
// Invariant: cq-a borrows 1.5 cpu from cq-b while both run (usage 3.5 of
// a nominal 2); the cohort's usage is 3.5 of its subtree quota 4, so it
// borrows nothing; at 10 s all of it returns to 0. cpu is written in cores
// with three decimals at most.
TEST(TimeSeriesRecorderTest, BorrowingInACohort) {
  const std::string yaml = ResourceFlavorYaml("f") +
                           ClusterQueueYaml("cq-a", {"cpu"}, {{"f", {"2"}, {}}}, "  cohortName: c\n") +
                           ClusterQueueYaml("cq-b", {"cpu"}, {{"f", {"2"}, {}}}, "  cohortName: c\n") +
                           LocalQueueYaml("ns", "qa", "cq-a") + LocalQueueYaml("ns", "qb", "cq-b") +
                           Job("a", "3", "0s", "10s", "qa") + Job("b", "500m", "0s", "10s", "qa");
  auto recorded = RecordYaml(yaml);
  ASSERT_THAT(recorded, IsOk());
  const std::string& t = recorded->text;
  EXPECT_THAT(t, HasSubstr("0.0,,ClusterQueue,cq-a,usage,f,cpu,3.5\n"));
  EXPECT_THAT(t, HasSubstr("0.0,,ClusterQueue,cq-a,borrowing,f,cpu,1.5\n"));
  EXPECT_THAT(t, HasSubstr("0.0,,Cohort,c,quota,f,cpu,4\n"));
  EXPECT_THAT(t, HasSubstr("0.0,,Cohort,c,usage,f,cpu,3.5\n"));
  EXPECT_THAT(t, Not(HasSubstr("Cohort,c,borrowing")));
  EXPECT_THAT(t, Not(HasSubstr("cq-b,usage")));
  EXPECT_THAT(t, HasSubstr("10.0,,ClusterQueue,cq-a,usage,f,cpu,0\n"));
  EXPECT_THAT(t, HasSubstr("10.0,,ClusterQueue,cq-a,borrowing,f,cpu,0\n"));
  EXPECT_THAT(t, HasSubstr("10.0,,Cohort,c,usage,f,cpu,0\n"));
  // No share rows without fair sharing.
  EXPECT_THAT(t, Not(HasSubstr(",share,")));
}

// Reads JSON Lines rows into (name/metric/flavor/resource -> last value).
std::map<std::string, nlohmann::json> LastValues(const std::string& text, std::vector<nlohmann::json>* rows) {
  std::map<std::string, nlohmann::json> last;
  std::istringstream in(text);
  std::string line;
  double previous_time = -1;
  while (std::getline(in, line)) {
    nlohmann::json row = nlohmann::json::parse(line);
    EXPECT_GE(row["time"].get<double>(), previous_time) << line;
    previous_time = row["time"].get<double>();
    last[row["cluster"].get<std::string>() + "|" + row["name"].get<std::string>() + "|" +
         row["metric"].get<std::string>() + "|" + row["flavor"].get<std::string>() + "|" +
         row["resource"].get<std::string>()] = row["value"];
    if (rows != nullptr) rows->push_back(std::move(row));
  }
  return last;
}

// Setup: the fair-sharing documentation scenario, in JSON Lines.
// Invariant: every line parses, times never go back, share rows appear
// (fair sharing is on) and the last share of each ClusterQueue equals the
// last point of the summary's weighted-share series; the last usage is 0
// for every ClusterQueue whose workloads all finished.
TEST(TimeSeriesRecorderTest, FairSharingSharesMatchTheSummary) {
  const char* root = std::getenv("KUEUESIM_SOURCE_DIR");
  ASSERT_NE(root, nullptr);
  auto loaded = scenario::LoadScenarioFiles({std::string(root) + "/scenarios/docs/fair-sharing.yaml"});
  ASSERT_THAT(loaded, IsOk());
  auto recorded = Record(*loaded, TimeSeriesFormat::kJsonLines);
  ASSERT_THAT(recorded, IsOk());
  std::vector<nlohmann::json> rows;
  auto last = LastValues(recorded->text, &rows);
  ASSERT_FALSE(rows.empty());
  int shares = 0;
  for (const auto& row : rows) shares += row["metric"] == "share" ? 1 : 0;
  EXPECT_GT(shares, 0);
  ASSERT_EQ(recorded->summary.clusters.size(), 1u);
  const ClusterSummary& cs = recorded->summary.clusters[0];
  ASSERT_FALSE(cs.cluster_queue_shares.empty());
  for (const auto& [name, series] : cs.cluster_queue_shares) {
    const std::string key = "|" + name + "|share||";
    const int64_t expected = static_cast<int64_t>(series.back().second);
    if (expected == 0 && last.count(key) == 0) continue;  // never non-zero
    ASSERT_EQ(last.count(key), 1u) << name;
    EXPECT_EQ(last[key].get<int64_t>(), expected) << name;
  }
  for (const auto& cq : cs.cluster_queues) {
    if (cq.running != 0) continue;
    for (const auto& r : cq.resources) {
      const std::string key = "|" + cq.name + "|usage|" + r.flavor + "|" + r.resource;
      if (last.count(key) == 0) continue;
      EXPECT_EQ(last[key].dump(), "0") << key;
    }
  }
}

// Setup: every checked single-cluster scenario of scenarios/docs and
// scenarios/quickstart, in JSON Lines.
// Invariant: the last pending value of each ClusterQueue equals the
// runtime's pending count at the end of the run (the summary's pending)
// and the same input gives byte-identical output.
TEST(TimeSeriesRecorderTest, PendingEndsAtTheRuntimesPendingCount) {
  const char* root = std::getenv("KUEUESIM_SOURCE_DIR");
  ASSERT_NE(root, nullptr);
  const std::vector<std::string> files = {"scenarios/docs/cli-preemption.yaml", "scenarios/docs/fair-sharing.yaml",
                                          "scenarios/docs/format-tour.yaml", "scenarios/docs/lending-limit.yaml"};
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    auto loaded = scenario::LoadScenarioFiles({std::string(root) + "/" + file});
    ASSERT_THAT(loaded, IsOk());
    auto recorded = Record(*loaded, TimeSeriesFormat::kJsonLines);
    ASSERT_THAT(recorded, IsOk());
    auto again = Record(*loaded, TimeSeriesFormat::kJsonLines);
    ASSERT_THAT(again, IsOk());
    EXPECT_EQ(recorded->text, again->text);
    auto last = LastValues(recorded->text, nullptr);
    for (const auto& cs : recorded->summary.clusters) {
      for (const auto& cq : cs.cluster_queues) {
        const std::string key = cs.name + "|" + cq.name + "|pending||";
        const int64_t value = last.count(key) ? last[key].get<int64_t>() : 0;
        EXPECT_EQ(value, cq.pending) << cq.name;
      }
    }
  }
}

// Setup: the MultiKueue worker-loss scenario (a manager, two workers lost
// and back), in JSON Lines.
// Invariant: per worker, the live copies series goes up and down with the
// creates and deletes, its cumulative copiesCreated and copiesDeleted end
// at the summary's copies and deleted, and the manager's
// nominationPatches at the summary's patches; live copies never go below 0.
TEST(TimeSeriesRecorderTest, MultiKueueCopiesPerWorker) {
  const char* root = std::getenv("KUEUESIM_SOURCE_DIR");
  ASSERT_NE(root, nullptr);
  auto loaded = scenario::LoadScenarioFiles({std::string(root) + "/scenarios/multikueue/worker-loss.yaml"});
  ASSERT_THAT(loaded, IsOk());
  auto recorded = Record(*loaded, TimeSeriesFormat::kJsonLines);
  ASSERT_THAT(recorded, IsOk());
  std::vector<nlohmann::json> rows;
  auto last = LastValues(recorded->text, &rows);
  ASSERT_EQ(recorded->summary.multikueue.size(), 1u);
  const MultiKueueSummary& mk = recorded->summary.multikueue[0];
  int64_t copy_rows = 0;
  for (const auto& row : rows) {
    if (row["scope"] != "MultiKueueCluster" || row["metric"] != "copies") continue;
    ++copy_rows;
    EXPECT_GE(row["value"].get<int64_t>(), 0) << row.dump();
  }
  EXPECT_GT(copy_rows, 0);
  for (const auto& worker : mk.workers) {
    SCOPED_TRACE(worker.name);
    EXPECT_EQ(last.at("manager|" + worker.name + "|copiesCreated||").get<int64_t>(), worker.copies);
    EXPECT_EQ(last.at("manager|" + worker.name + "|copiesDeleted||").get<int64_t>(), worker.deleted);
    EXPECT_EQ(last.at("manager|" + worker.name + "|copies||").get<int64_t>(), worker.copies - worker.deleted);
  }
  EXPECT_EQ(last.at("manager|manager|nominationPatches||").get<int64_t>(), mk.nomination_patches);
}

TEST(TimeSeriesRecorderTest, FormatFromPath) {
  EXPECT_EQ(TimeSeriesFormatForPath("out/ts.csv"), TimeSeriesFormat::kCsv);
  EXPECT_EQ(TimeSeriesFormatForPath("out/ts.jsonl"), TimeSeriesFormat::kJsonLines);
  EXPECT_EQ(TimeSeriesFormatForPath("ts.json"), TimeSeriesFormat::kJsonLines);
}

}  // namespace
}  // namespace kueuesim::metrics
