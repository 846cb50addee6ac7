// Tests for kueuesim/metrics/workload_table.h: the per-workload table on
// tiny runs with rows worked out by hand (finished rows in finish order,
// then the unfinished at the end of the run), evictions and preemptions
// with the run time over both attempts, the JSON Lines form, byte-identical
// output, and memory bounded by the workloads in flight.
#include "kueuesim/metrics/workload_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

// Records the writer's in-flight count after every event.
class InFlightProbe : public cluster::EventSink {
 public:
  explicit InFlightProbe(const WorkloadTableWriter* writer) : writer_(writer) {}
  void OnEvent(const cluster::SimEvent& /*event*/) override {
    max_in_flight_ = std::max(max_in_flight_, writer_->in_flight());
  }
  size_t max_in_flight() const { return max_in_flight_; }

 private:
  const WorkloadTableWriter* writer_;
  size_t max_in_flight_ = 0;
};

struct Table {
  std::string text;
  int64_t rows = 0;
  size_t max_in_flight = 0;
  size_t in_flight_after = 0;
};

absl::StatusOr<Table> Write(const std::string& yaml, TimeSeriesFormat format,
                            std::optional<SimTime> until = std::nullopt) {
  KUEUESIM_ASSIGN_OR_RETURN(scenario::Scenario loaded, LoadYaml(yaml));
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  KUEUESIM_ASSIGN_OR_RETURN(auto sim, sim::Simulation::Create(loaded, registry));
  char* data = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&data, &size);
  WorkloadTableWriter writer(out, format);
  InFlightProbe probe(&writer);
  sim->AddEventSink(&writer);
  sim->AddEventSink(&probe);
  sim::RunOptions options;
  options.until = until;
  absl::Status status = sim->Run(options);
  writer.Finish(sim->end_time());
  Table table;
  table.in_flight_after = writer.in_flight();
  std::fclose(out);
  table.text.assign(data, size);
  std::free(data);
  KUEUESIM_RETURN_IF_ERROR(status);
  table.rows = writer.rows();
  table.max_in_flight = probe.max_in_flight();
  return table;
}

std::string Job(const std::string& name, const std::string& cpu, const std::string& arrival,
                const std::string& duration, int priority = 0) {
  WorkloadOptions o;
  o.ns = "ns";
  o.requests = {{"cpu", cpu}};
  o.arrival = arrival;
  o.duration = duration;
  o.priority = priority;
  o.set_priority = priority != 0;
  return WorkloadYaml(name, o);
}

const char kHeader[] =
    "cluster,workload,clusterQueue,status,arrival,quotaReserved,admitted,started,finished,wait,runTime,"
    "evictions,preemptions,flavors,pendingReason,pendingMessage\n";

// Setup: cq (flavor f, cpu 4); w1 (2 cpu, 0 s, 10 s), w2 (2 cpu, 0 s, 20 s),
// w3 (4 cpu, arrives 5 s, 10 s) parks until w2 finishes and returns to its
// queue after Kueue's 1 s requeue batching: admitted at 21 s, done at 31 s.
// Invariant: one row per workload, written as each finishes (w1, w2, w3),
// wait = reservation - arrival, run time = time with pods ready.
TEST(WorkloadTableTest, OneRowPerWorkloadInFinishOrder) {
  const std::string yaml = ResourceFlavorYaml("f") + ClusterQueueYaml("cq", {"cpu"}, {{"f", {"4"}, {}}}) +
                           LocalQueueYaml("ns", "q", "cq") + Job("w1", "2", "0s", "10s") +
                           Job("w2", "2", "0s", "20s") + Job("w3", "4", "5s", "10s");
  auto table = Write(yaml, TimeSeriesFormat::kCsv);
  ASSERT_THAT(table, IsOk());
  EXPECT_EQ(table->text, std::string(kHeader) +
                             ",ns/w1,cq,finished,0.0,0.0,0.0,0.0,10.0,0.0,10.0,0,0,cpu=f,,\n"
                             ",ns/w2,cq,finished,0.0,0.0,0.0,0.0,20.0,0.0,20.0,0,0,cpu=f,,\n"
                             // w3 waited; the last reason (at its requeue, 11 s) stays on its row.
                             ",ns/w3,cq,finished,5.0,21.0,21.0,21.0,31.0,16.0,10.0,0,0,cpu=f,WaitingForQuota,"
                             "\"couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor f, "
                             "2 more needed\"\n");
  EXPECT_EQ(table->rows, 3);
  EXPECT_EQ(table->in_flight_after, 0u);
}

// Setup: as above, stopped at 25 s, plus w4 (8 cpu) that never fits.
// Invariant: w1 and w2 finished before the end (their rows first); then the
// unfinished by arrival: w4 (arrived 0 s, pending, no times) and w3
// (arrived 5 s, running since 21 s: run time 4 s up to the end).
TEST(WorkloadTableTest, UnfinishedRowsAtTheEnd) {
  const std::string yaml = ResourceFlavorYaml("f") + ClusterQueueYaml("cq", {"cpu"}, {{"f", {"4"}, {}}}) +
                           LocalQueueYaml("ns", "q", "cq") + Job("w1", "2", "0s", "10s") +
                           Job("w2", "2", "0s", "20s") + Job("w3", "4", "5s", "10s") +
                           Job("w4", "8", "0s", "10s");
  auto table = Write(yaml, TimeSeriesFormat::kCsv, 25 * kSecond);
  ASSERT_THAT(table, IsOk());
  EXPECT_EQ(table->text, std::string(kHeader) +
                             ",ns/w1,cq,finished,0.0,0.0,0.0,0.0,10.0,0.0,10.0,0,0,cpu=f,,\n"
                             ",ns/w2,cq,finished,0.0,0.0,0.0,0.0,20.0,0.0,20.0,0,0,cpu=f,,\n"
                             // w4 can never fit: why it waits, in Kueue's words.
                             ",ns/w4,cq,pending,0.0,,,,,,0.0,0,0,,ExceedsMaxQuota,\"couldn't assign flavors to pod set "
                             "main: insufficient quota for cpu in flavor f, previously considered podsets requests (0) "
                             "+ current podset request (8) > maximum capacity (4)\"\n"
                             ",ns/w3,cq,running,5.0,21.0,21.0,21.0,,16.0,4.0,0,0,cpu=f,WaitingForQuota,\"couldn't assign "
                             "flavors to pod set main: insufficient unused quota for cpu in flavor f, 2 more needed\"\n");
}

// Setup: cq (cpu 4, withinClusterQueue LowerPriority); low (4 cpu, 0 s,
// 30 s, priority 0); high (4 cpu, arrives 10 s, 5 s, priority 100).
// Invariant: high preempts low at 10 s (low: 1 preemption, 1 eviction,
// 10 s of run time lost but counted); high runs 10-15 s; low, parked
// while high ran, returns after Kueue's 1 s requeue batching, is admitted
// again at 16 s and runs its 30 s again: finished at 46 s, run time 40 s,
// first reservation and start at 0 s. JSON Lines has the same fields.
TEST(WorkloadTableTest, EvictionsPreemptionsAndJsonLines) {
  const std::string yaml =
      ResourceFlavorYaml("f") +
      ClusterQueueYaml("cq", {"cpu"}, {{"f", {"4"}, {}}}, "  preemption:\n    withinClusterQueue: LowerPriority\n") +
      LocalQueueYaml("ns", "q", "cq") + Job("low", "4", "0s", "30s") + Job("high", "4", "10s", "5s", 100);
  auto table = Write(yaml, TimeSeriesFormat::kJsonLines);
  ASSERT_THAT(table, IsOk());
  std::vector<nlohmann::json> rows;
  std::istringstream lines(table->text);
  for (std::string line; std::getline(lines, line);) rows.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["workload"], "ns/high");
  EXPECT_EQ(rows[0]["finished"], 15.0);
  EXPECT_EQ(rows[0]["wait"], 0.0);
  EXPECT_EQ(rows[0]["preemptions"], 0);
  const nlohmann::json& low = rows[1];
  EXPECT_EQ(low["workload"], "ns/low");
  EXPECT_EQ(low["cluster"], "");
  EXPECT_EQ(low["clusterQueue"], "cq");
  EXPECT_EQ(low["status"], "finished");
  EXPECT_EQ(low["arrival"], 0.0);
  EXPECT_EQ(low["quotaReserved"], 0.0);
  EXPECT_EQ(low["started"], 0.0);
  EXPECT_EQ(low["finished"], 46.0);
  EXPECT_EQ(low["wait"], 0.0);
  EXPECT_EQ(low["runTime"], 40.0);
  EXPECT_EQ(low["evictions"], 1);
  EXPECT_EQ(low["preemptions"], 1);
  EXPECT_EQ(low["flavors"], "cpu=f");
  // Why it waited before its second reservation: the preemption (Kueue's
  // message), then quota.
  EXPECT_EQ(low["pendingReason"], "WaitingForQuota");
}

// Setup: 200 one-second jobs arriving every 2 s in one ClusterQueue.
// Invariant: at most one workload is ever in flight, so the writer never
// tracks more than one row; every workload gets its row; two runs write
// the same bytes.
TEST(WorkloadTableTest, MemoryBoundedByInFlightAndDeterministic) {
  std::string yaml = ResourceFlavorYaml("f") + ClusterQueueYaml("cq", {"cpu"}, {{"f", {"4"}, {}}}) +
                     LocalQueueYaml("ns", "q", "cq");
  for (int i = 0; i < 200; ++i) yaml += Job("j" + std::to_string(i), "1", std::to_string(2 * i) + "s", "1s");
  auto first = Write(yaml, TimeSeriesFormat::kCsv);
  auto second = Write(yaml, TimeSeriesFormat::kCsv);
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(first->rows, 200);
  EXPECT_EQ(first->max_in_flight, 1u);
  EXPECT_EQ(first->text, second->text);
}

}  // namespace
}  // namespace kueuesim::metrics
