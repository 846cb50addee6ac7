// Trace replay through the whole simulation: the loader's Trace objects
// (cluster, paths, generated objects), Simulation::Create opening them as
// streaming sources, and option replayRecordedStart (workloads created at
// their arrival, queued at their recorded start).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/status.h"
#include "kueuesim/metrics/summary.h"
#include "kueuesim/metrics/workload_table.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/sim/simulation.h"
#include "testing/status_matchers.h"
#include "trace/trace_test_util.h"

namespace kueuesim::trace {
namespace {

using ::kueuesim::testing::IsOk;
using ::testing::HasSubstr;

constexpr char kAlibabaHeader[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

std::string Queues(const std::string& gpus) {
  return "apiVersion: v1\nkind: Namespace\nmetadata: {name: alibaba}\n---\n"
         "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n---\n"
         "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: main}\n"
         "spec:\n  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu, memory, nvidia.com/gpu]\n"
         "    flavors:\n    - name: default\n      resources:\n"
         "      - {name: cpu, nominalQuota: \"100\"}\n      - {name: memory, nominalQuota: 100Gi}\n"
         "      - {name: nvidia.com/gpu, nominalQuota: \"" + gpus + "\"}\n---\n"
         "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: main, namespace: alibaba}\n"
         "spec: {clusterQueue: main}\n---\n";
}

std::string TraceYaml(const std::string& format, const std::string& path, const std::string& options) {
  return "apiVersion: kueuesim.io/v1alpha1\nkind: Trace\nmetadata: {name: t}\nspec:\n  format: " + format +
         "\n  path: " + path + "\n" + (options.empty() ? "" : "  options: {" + options + "}\n") + "---\n";
}

// The workload table of a run of `yaml`, CSV.
absl::StatusOr<std::string> RunTable(const std::string& yaml, bool read_ahead = true) {
  KUEUESIM_ASSIGN_OR_RETURN(scenario::Scenario loaded, scenario::LoadScenarioStrings({{"replay.yaml", yaml}}));
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  KUEUESIM_ASSIGN_OR_RETURN(auto sim, sim::Simulation::Create(loaded, registry));
  char* data = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&data, &size);
  metrics::WorkloadTableWriter table(out, metrics::TimeSeriesFormat::kCsv);
  sim->AddEventSink(&table);
  sim::RunOptions options;
  options.read_ahead = read_ahead;
  absl::Status status = sim->Run(options);
  table.Finish(sim->end_time());
  std::fclose(out);
  std::string text(data, size);
  std::free(data);
  KUEUESIM_RETURN_IF_ERROR(status);
  return text.substr(text.find('\n') + 1);  // without the header
}

// Setup: three pods (creation, scheduled, deletion): p1 (0, 10, 110; 1
// GPU), p2 (5, 5, 35; no GPU), p3 (20, 50, 70; 1 GPU), replayed with their
// recorded starts into a ClusterQueue of 1 GPU.
// Invariant: each pod is created at its creation time and queued at its
// recorded start: p1 waits 10 s, p2 0 s; p3 is queued at 50 s but p1 holds
// the only GPU until 110 s, so Kueue admits it after the requeue (1 s
// batching) at 111 s: the recorded start is a lower bound, quota still
// decides. Run times are the recorded ones (deletion - scheduled).
TEST(TraceReplayTest, RecordedStartsHoldUntilThenQuotaDecides) {
  const std::string path = testing::WriteTemp("replay_pods.csv", std::string(kAlibabaHeader) +
                                                                   "p1,1000,1024,1,1000,,LS,Succeeded,0,110,10\n"
                                                                   "p2,1000,1024,0,0,,BE,Succeeded,5,35,5\n"
                                                                   "p3,2000,1024,1,1000,,LS,Succeeded,20,70,50\n");
  auto table = RunTable(TraceYaml("alibaba-gpu-2023", path, "replayRecordedStart: \"true\"") + Queues("1"));
  ASSERT_THAT(table, IsOk());
  EXPECT_EQ(*table,
            ",alibaba/p2,main,finished,5.0,5.0,5.0,5.0,35.0,0.0,30.0,0,0,cpu=default;memory=default,,\n"
            ",alibaba/p1,main,finished,0.0,10.0,10.0,10.0,110.0,10.0,100.0,0,0,"
            "cpu=default;memory=default;nvidia.com/gpu=default,,\n"
            ",alibaba/p3,main,finished,20.0,111.0,111.0,111.0,131.0,91.0,20.0,0,0,"
            "cpu=default;memory=default;nvidia.com/gpu=default,WaitingForQuota,"
            "\"couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor "
            "default, 1 more needed\"\n");
  // Without the option the recorded waits play no part: everyone is queued
  // at creation (p3 then waits for p1's GPU from 20 s).
  auto plain = RunTable(TraceYaml("alibaba-gpu-2023", path, "") + Queues("1"));
  ASSERT_THAT(plain, IsOk());
  EXPECT_THAT(*plain, HasSubstr(",alibaba/p1,main,finished,0.0,0.0,0.0,0.0,100.0,0.0,100.0,"));
}

// Setup: a Cluster document "east", then a kueue-perf-generator Trace with
// no spec.cluster, in a file whose directory holds the generator config.
// Invariant: the trace goes to cluster east, its path is resolved against
// the scenario file's directory, and its cohorts and ClusterQueues join
// east (validated with the rest); the simulation streams its first 3,000
// workloads (spec.limit) there.
TEST(TraceReplayTest, LoaderPlacesTracesAndGeneratedObjects) {
  // The scenario and a copy of the generator config in a directory of their own.
  const std::string dir = ::testing::TempDir() + "/kueuesim_replay_east_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(testing::SourceDir() + "/scenarios/kueue-perf/generator-baseline.yaml",
                             dir + "/generator-baseline.yaml", std::filesystem::copy_options::overwrite_existing);
  const std::string scenario_path = dir + "/east.yaml";
  {
    std::ofstream out(scenario_path, std::ios::trunc);
    out << "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata: {name: east}\n---\n"
           "apiVersion: kueuesim.io/v1alpha1\nkind: Trace\nmetadata: {name: perf}\n"
           "spec: {format: kueue-perf-generator, path: generator-baseline.yaml, limit: 3000}\n";
  }
  auto loaded = scenario::LoadScenarioFiles({scenario_path});
  ASSERT_THAT(loaded, IsOk());
  ASSERT_EQ(loaded->traces.size(), 1u);
  EXPECT_EQ(loaded->traces[0].cluster, "east");
  EXPECT_EQ(std::filesystem::path(loaded->traces[0].path).lexically_normal(),
            std::filesystem::path(dir + "/generator-baseline.yaml").lexically_normal());
  const scenario::ClusterSpec* east = loaded->FindCluster("east");
  ASSERT_NE(east, nullptr);
  EXPECT_EQ(east->cluster_queues.size(), 30u);
  EXPECT_EQ(east->cohorts.size(), 5u);
  EXPECT_TRUE(east->workloads.empty());  // streamed, never held in the scenario

  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  auto sim = sim::Simulation::Create(*loaded, registry);
  ASSERT_THAT(sim, IsOk());
  ASSERT_EQ((*sim)->sources().size(), 1u);
  EXPECT_EQ((*sim)->sources()[0]->cluster(), "east");
  ASSERT_THAT((*sim)->Run(sim::RunOptions{}), IsOk());
  EXPECT_EQ((*sim)->sources()[0]->report().workloads, 3000);
}

// Setup: five pods created at the same instant with the same priority and
// shape and no UID, listed p-c, p-a, p-e, p-b, p-d, each holding the only
// GPU for 10 s. Invariant: Kueue's order ties (priority, timestamp, UID), so
// decisions.md's input order decides: they run one after the other in the
// order of the trace, not of their names or of the heap's layout.
TEST(TraceReplayTest, EqualWorkloadsRunInTraceOrder) {
  std::string rows = kAlibabaHeader;
  for (const char* name : {"p-c", "p-a", "p-e", "p-b", "p-d"}) {
    rows += std::string(name) + ",1000,1024,1,1000,,LS,Succeeded,0,10,0\n";
  }
  const std::string path = testing::WriteTemp("replay_ties.csv", rows);
  auto table = RunTable(TraceYaml("alibaba-gpu-2023", path, "") + Queues("1"));
  ASSERT_THAT(table, IsOk());
  std::vector<std::string> order;
  std::istringstream lines(*table);
  for (std::string line; std::getline(lines, line);) {
    const size_t start = line.find("alibaba/") + 8;
    order.push_back(line.substr(start, line.find(',', start) - start));
  }
  EXPECT_THAT(order, ::testing::ElementsAre("p-c", "p-a", "p-e", "p-b", "p-d"));
}

// Invariant: bad Trace input fails the load or the build of the simulation
// with a message naming the object and the field.
TEST(TraceReplayTest, BadTracesAreClearErrors) {
  const std::string path = testing::WriteTemp("replay_bad.csv", std::string(kAlibabaHeader));
  auto bad_option = scenario::LoadScenarioStrings(
      {{"replay.yaml", TraceYaml("alibaba-gpu-2023", path, "replayRecordedStart: \"maybe\"") + Queues("1")}});
  if (bad_option.ok()) {
    const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
    auto sim = sim::Simulation::Create(*bad_option, registry);
    ASSERT_FALSE(sim.ok());
    EXPECT_THAT(std::string(sim.status().message()), HasSubstr("replayRecordedStart"));
  } else {
    EXPECT_THAT(std::string(bad_option.status().message()), HasSubstr("replayRecordedStart"));
  }
  auto bad_format =
      scenario::LoadScenarioStrings({{"replay.yaml", TraceYaml("no-such-format", path, "") + Queues("1")}});
  ASSERT_FALSE(bad_format.ok());
  EXPECT_THAT(std::string(bad_format.status().message()), HasSubstr("Trace \"t\""));
}

}  // namespace
}  // namespace kueuesim::trace

namespace kueuesim::trace {
namespace {

// Setup: an LWS of 1 group (1 GPU) in a queue of 3 GPUs, and a replica
// timeline that scales it to 3 at 60 s and to 5 at 120 s, names an LWS the
// scenario does not have, and a Deployment. Invariant: each timeline row
// is the Change a Change document would make: groups 1 and 2 are created
// (and admitted) at 60 s, groups 3 and 4 at 120 s wait for quota; the rows
// for the unknown LWS and the Deployment are counted as skipped, so that
// rows_read = changes + skipped.
TEST(TraceReplayTest, ReplicaTimelineScalesLeaderWorkerSet) {
  const std::string path = testing::WriteTemp("replay_timeline.csv",
                                              "time,namespace,name,kind,replicas\n"
                                              "60,alibaba,llm,,3\n"
                                              "90,alibaba,other,,2\n"
                                              "100,alibaba,web,Deployment,2\n"
                                              "120,alibaba,llm,,5\n");
  const std::string lws =
      "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\n"
      "metadata: {name: llm, namespace: alibaba, labels: {kueue.x-k8s.io/queue-name: main}}\n"
      "spec:\n  replicas: 1\n  leaderWorkerTemplate:\n    size: 1\n    workerTemplate:\n      spec:\n"
      "        containers:\n        - name: w\n          resources: {requests: {nvidia.com/gpu: \"1\"}}\n---\n";
  const std::string yaml = "apiVersion: kueuesim.io/v1alpha1\nkind: Simulation\nmetadata: {name: s}\nspec: {until: 10m}\n---\n" +
                           Queues("3") + lws + TraceYaml("replica-timeline-csv", path, "");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(scenario::Scenario loaded, scenario::LoadScenarioStrings({{"replay.yaml", yaml}}));
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto sim, sim::Simulation::Create(loaded, registry));
  char* data = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&data, &size);
  metrics::WorkloadTableWriter table(out, metrics::TimeSeriesFormat::kCsv);
  sim->AddEventSink(&table);
  ASSERT_THAT(sim->Run(sim::RunOptions{}), IsOk());
  table.Finish(sim->end_time());
  std::fclose(out);
  std::string text(data, size);
  std::free(data);
  ASSERT_EQ(sim->sources().size(), 1u);
  const ImportReport& report = sim->sources()[0]->report();
  EXPECT_EQ(report.rows_read, 4);
  EXPECT_EQ(report.changes, 2);
  EXPECT_EQ(report.workloads, 0);
  EXPECT_THAT(report.Format(), HasSubstr("skipped 1: Deployment scaling is not simulated"));
  EXPECT_THAT(report.Format(), HasSubstr("skipped 1: unknown object (no such LeaderWorkerSet managed by Kueue)"));
  // Five group workloads: 0 from the start, 1-2 at 60 s, 3-4 at 120 s.
  int rows = 0;
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) rows += line.find("llm") != std::string::npos ? 1 : 0;
  EXPECT_EQ(rows, 5) << text;
}

// Setup: an alibaba-dlrm trace (leaderworkerset mapping) of one application:
// HN h1 alive from the start, h2 and h3 created at 60 s (h2 deleted at
// 300 s), two CN instances; 1 GPU per HN instance, a ClusterQueue of 2
// GPUs; the run lasts 10 minutes.
// Invariant: the loader adds the LWS the trace defines to the cluster (1
// group of 2 pods: round(2 CN / 3 HN) = 1 worker), and the simulation scales
// it with the trace's Changes: 1 -> 3 at 60 s (group 1 admitted, group 2
// waits for the GPUs), 3 -> 2 at 300 s (group 2 removed, never admitted).
// Serving figures: desired 1*60 + 3*240 + 2*300 = 1380 group-s, ready
// 1*60 + 2*240 + 2*300 = 1140, below desired 240 s, one scale-up, which
// waited (240 s, ended by the scale-down). Every row is accounted for.
TEST(TraceReplayTest, AlibabaDlrmDefinesAndScalesLeaderWorkerSets) {
  const std::string path = testing::WriteTemp(
      "replay_dlrm.csv",
      "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_limit,"
      "memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,"
      "deletion_time\n"
      "h1,HN,a,1,1,1,1,0,0,1.0,1.0,1,1,-1,,,\n"
      "h2,HN,a,1,1,1,1,0,0,1.0,1.0,1,1,-1,60,61,300\n"
      "h3,HN,a,1,1,1,1,0,0,1.0,1.0,1,1,-1,60,60,\n"
      "c1,CN,a,1,1,0,0,0,0,1.0,1.0,1,1,-1,,,\n"
      "c2,CN,a,1,1,0,0,0,0,1.0,1.0,1,1,-1,,,\n");
  const std::string yaml =
      "apiVersion: kueuesim.io/v1alpha1\nkind: Simulation\nmetadata: {name: s}\nspec: {until: 10m}\n---\n" +
      Queues("2") +
      "apiVersion: kueuesim.io/v1alpha1\nkind: Trace\nmetadata: {name: t}\nspec:\n  format: alibaba-dlrm\n"
      "  path: " + path + "\n  mapping: {namespace: {value: alibaba}, queue: {value: main}}\n---\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(scenario::Scenario loaded, scenario::LoadScenarioStrings({{"replay.yaml", yaml}}));
  ASSERT_EQ(loaded.clusters.size(), 1u);
  ASSERT_EQ(loaded.clusters[0].leader_worker_sets.size(), 1u);
  const model::LeaderWorkerSet& lws = loaded.clusters[0].leader_worker_sets[0];
  EXPECT_EQ(lws.meta.namespace_, "alibaba");
  EXPECT_EQ(lws.meta.name, "a");
  EXPECT_EQ(lws.replicas, 1);
  EXPECT_EQ(lws.size, 2);
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto sim, sim::Simulation::Create(loaded, registry));
  metrics::SummaryCollector collector;
  sim->AddEventSink(&collector);
  ASSERT_THAT(sim->Run(sim::RunOptions{}), IsOk());
  const metrics::Summary summary = collector.Finish(sim->end_time(), sim->cluster_pointers());
  ASSERT_EQ(sim->sources().size(), 1u);
  const ImportReport& report = sim->sources()[0]->report();
  EXPECT_EQ(report.rows_read, 5);
  EXPECT_EQ(report.changes, 2);
  int64_t replica_rows = 0;
  for (const auto& [what, count] : report.replicas) replica_rows += count;
  EXPECT_EQ(replica_rows, 5);
  ASSERT_EQ(summary.clusters.size(), 1u);
  ASSERT_EQ(summary.clusters[0].leader_worker_sets.size(), 1u);
  const runtime::LwsReport& lws_report = summary.clusters[0].leader_worker_sets[0];
  ASSERT_EQ(lws_report.scales.size(), 2u);
  EXPECT_EQ(lws_report.scales[0].at, 60 * kSecond);
  EXPECT_EQ(lws_report.scales[0].to, 3);
  EXPECT_EQ(lws_report.scales[1].at, 300 * kSecond);
  EXPECT_EQ(lws_report.scales[1].to, 2);
  ASSERT_EQ(summary.clusters[0].serving.size(), 1u);
  const metrics::ServingFigures& serving = summary.clusters[0].serving[0];
  EXPECT_DOUBLE_EQ(serving.desired_group_seconds, 1380.0);
  EXPECT_DOUBLE_EQ(serving.ready_group_seconds, 1140.0);
  EXPECT_EQ(serving.below_desired, 240 * kSecond);
  EXPECT_EQ(serving.scale_ups, 1);
  EXPECT_EQ(serving.scale_ups_waiting, 1);
  EXPECT_DOUBLE_EQ(serving.group_wait_seconds, 240.0);
}

// Setup: 2,000 pods of an Alibaba trace, out of order, some needing more
// GPUs than the queue has left, replayed with the trace read ahead on a
// thread of its own and read directly.
// Expectation: the same workload table, row for row (the thread only moves
// the parsing; what arrives when is the trace's).
TEST(TraceReplayTest, ReadAheadGivesTheSameRun) {
  std::string rows = kAlibabaHeader;
  for (int i = 0; i < 2000; ++i) {
    const int created = (i * 7919) % 4001;
    rows += "p" + std::to_string(i) + ",1000,1024," + std::to_string(i % 3) + (i % 3 == 0 ? ",0" : ",1000") +
            ",,LS,Succeeded," + std::to_string(created) + "," + std::to_string(created + 30 + i % 50) + "," +
            std::to_string(created) + "\n";
  }
  const std::string path = testing::WriteTemp("read_ahead_pods.csv", rows);
  const std::string yaml = Queues("8") + TraceYaml("alibaba-gpu-2023", path, "");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::string ahead, RunTable(yaml, true));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::string direct, RunTable(yaml, false));
  EXPECT_EQ(std::count(direct.begin(), direct.end(), '\n'), 2000);
  EXPECT_EQ(ahead, direct);
}

}  // namespace
}  // namespace kueuesim::trace
