// MultiKueue with serving workloads: a Deployment is one Workload per replica
// pod, each dispatched on its own; the groups of one LeaderWorkerSet all go
// to the worker its first group went to. Small manager + worker scenarios
// whose worker quotas force the outcome.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kueuesim/cluster/events.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/sim/simulation.h"
#include "testing/scenario_fixtures.h"
#include "testing/simulation_fixtures.h"

namespace kueuesim {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

// Records events as "time type cluster[/worker] workload" lines.
class Recorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    std::string line = fmt::format("{} {} {}", FormatSeconds(event.time), cluster::EventTypeName(event.type),
                                   event.cluster->name());
    if (!event.worker.empty()) line += fmt::format("/{}", event.worker);
    if (event.workload != cluster::kNone) line += " " + event.cluster->workload(event.workload).key;
    if (event.type == cluster::EventType::kNominated) line += fmt::format(" ({})", event.value);
    lines.push_back(std::move(line));
  }
  // The lines of one event type about workloads whose key contains `part`.
  std::vector<std::string> Of(std::string_view type, std::string_view part = "") const {
    std::vector<std::string> out;
    for (const auto& l : lines) {
      if (l.find(fmt::format(" {} ", type)) != std::string::npos && l.find(part) != std::string::npos) {
        out.push_back(l);
      }
    }
    return out;
  }
  std::vector<std::string> lines;
};

struct Worker {
  std::string name;
  std::string gpus;               // ClusterQueue quota
  std::string busy_gpus;          // a local job's GPUs, from time 0 ("" for none)
  std::string busy_for = "10h";   // how long that job runs
};

// A manager of ample GPU quota dispatching AllAtOnce to `workers` (in that
// MultiKueueConfig order), no preemption anywhere; `manager_objects` are
// added to the manager.
std::string ScenarioYaml(const std::vector<Worker>& workers, const std::string& manager_objects) {
  std::string out =
      "apiVersion: kueuesim.io/v1alpha1\nkind: Simulation\nmetadata:\n  name: t\nspec:\n"
      "  startTime: \"2025-06-02T09:00:00Z\"\n---\n"
      "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: manager\n---\n";
  out += testing::ResourceFlavorYaml("default");
  out += "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata:\n  name: mk\nspec:\n"
         "  controllerName: kueue.x-k8s.io/multikueue\n  parameters:\n    apiGroup: kueue.x-k8s.io\n"
         "    kind: MultiKueueConfig\n    name: workers\n---\n";
  out += "apiVersion: kueue.x-k8s.io/v1beta2\nkind: MultiKueueConfig\nmetadata:\n  name: workers\nspec:\n"
         "  clusters: [";
  for (size_t i = 0; i < workers.size(); ++i) out += (i ? ", " : "") + workers[i].name;
  out += "]\n---\n";
  for (const auto& w : workers) {
    out += fmt::format(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: MultiKueueCluster\nmetadata:\n  name: {}\nspec:\n"
        "  clusterSource:\n    kubeConfig:\n      location: {}-secret\n---\n",
        w.name, w.name);
  }
  out += testing::ClusterQueueYaml("gpu", {"nvidia.com/gpu"}, {{"default", {"100"}, {}}},
                                   "  admissionChecksStrategy:\n    admissionChecks:\n    - name: mk\n");
  out += testing::LocalQueueYaml("ml", "lq", "gpu");
  out += manager_objects;
  for (const auto& w : workers) {
    out += "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: " + w.name + "\n---\n";
    out += testing::ResourceFlavorYaml("default");
    out += testing::ClusterQueueYaml("gpu", {"nvidia.com/gpu"}, {{"default", {w.gpus}, {}}});
    out += testing::LocalQueueYaml("ml", "lq", "gpu");
    if (w.busy_gpus.empty()) continue;
    out += fmt::format(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: local\n  namespace: ml\n  labels:\n"
        "    kueue.x-k8s.io/queue-name: lq\n  annotations:\n    kueuesim.io/duration: {}\n"
        "spec:\n  template:\n    spec:\n      containers:\n      - name: c\n        resources:\n"
        "          requests:\n            nvidia.com/gpu: \"{}\"\n---\n",
        w.busy_for, w.busy_gpus);
  }
  return out;
}

// A Deployment of `replicas` pods of `gpus` GPUs, queued on the manager.
std::string DeploymentYaml(const std::string& name, int replicas, const std::string& gpus) {
  return fmt::format(
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {}\n  namespace: ml\n  labels:\n"
      "    kueue.x-k8s.io/queue-name: lq\nspec:\n  replicas: {}\n  template:\n    spec:\n      containers:\n"
      "      - name: c\n        resources:\n          requests:\n            nvidia.com/gpu: \"{}\"\n---\n",
      name, replicas, gpus);
}

// A StatefulSet of `replicas` pods of `gpus` GPUs, queued on the manager.
std::string StatefulSetYaml(const std::string& name, int replicas, const std::string& gpus) {
  return fmt::format(
      "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: {}\n  namespace: ml\n  labels:\n"
      "    kueue.x-k8s.io/queue-name: lq\nspec:\n  replicas: {}\n  template:\n    spec:\n      containers:\n"
      "      - name: c\n        resources:\n          requests:\n            nvidia.com/gpu: \"{}\"\n---\n",
      name, replicas, gpus);
}

// A LeaderWorkerSet of `groups` groups of 2 pods of 1 GPU each.
std::string LwsYaml(const std::string& name, int groups) {
  return fmt::format(
      "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: {}\n  namespace: ml\n"
      "  labels:\n    kueue.x-k8s.io/queue-name: lq\nspec:\n  replicas: {}\n  leaderWorkerTemplate:\n"
      "    size: 2\n    workerTemplate:\n      spec:\n        containers:\n        - name: c\n"
      "          resources:\n            requests:\n              nvidia.com/gpu: \"1\"\n---\n",
      name, groups);
}

struct Run {
  Recorder recorder;
  std::unique_ptr<sim::Simulation> simulation;
};

std::unique_ptr<Run> RunScenario(const std::string& yaml, SimTime until) {
  auto run = std::make_unique<Run>();
  auto simulation = testing::SimulationFromYaml(yaml, {&run->recorder});
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  if (!simulation.ok()) return nullptr;
  run->simulation = *std::move(simulation);
  sim::RunOptions options;
  options.until = until;
  absl::Status status = run->simulation->Run(options);
  EXPECT_TRUE(status.ok()) << status;
  return run;
}

// Manager workload key -> the worker it was admitted on ("" if none).
std::map<std::string, std::string> Placement(const Run& run) {
  std::map<std::string, std::string> out;
  for (const auto& wl : run.simulation->multikueue_reports().at(0)->workloads) out[wl.workload] = wl.worker;
  return out;
}

// Setup: three workers of 4 GPUs, "east" already running 2 GPUs of local
// work; a Deployment of 5 replicas of 2 GPUs (10 GPUs: exactly the room
// left). Invariant: 5 manager Workloads, each nominated and dispatched on
// its own to every worker; they spread as quota allows: one replica on east,
// two on each of the others, every one admitted.
TEST(MultiKueueServingTest, DeploymentReplicasAreDispatchedIndependently) {
  const std::vector<Worker> workers = {{"east", "4", "2"}, {"north", "4", ""}, {"west", "4", ""}};
  auto run = RunScenario(ScenarioYaml(workers, DeploymentYaml("web", 5, "2")), kHour);
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->recorder.Of("Nominated", "pod-web-").size(), 5u);
  for (int i = 0; i < 5; ++i) {
    const std::string key = fmt::format("ml/pod-web-{}", i);
    EXPECT_EQ(run->recorder.Of("Nominated", key), std::vector<std::string>{"0.0 Nominated manager " + key + " (3)"});
    EXPECT_EQ(run->recorder.Of("Dispatched", key).size(), 3u) << key;
  }
  std::map<std::string, int> per_worker;
  for (const auto& [workload, worker] : Placement(*run)) ++per_worker[worker];
  EXPECT_THAT(per_worker, UnorderedElementsAre(Pair("east", 1), Pair("north", 2), Pair("west", 2)));
  // Every replica was admitted on the manager once its copy was admitted
  // on the worker it went to.
  EXPECT_EQ(run->recorder.Of("Admitted manager", "pod-web-").size(), 5u);
  for (const auto& [workload, worker] : Placement(*run)) {
    EXPECT_EQ(run->recorder.Of("Admitted " + worker, workload).size(), 1u) << workload;
  }
}

// Setup: the same workers, a StatefulSet of 3 replicas of 2 GPUs. Invariant:
// one Workload for all replicas (a gang): east, with room for 2 of them,
// never admits it; all 3 run on north.
TEST(MultiKueueServingTest, StatefulSetReplicasGoTogether) {
  const std::vector<Worker> workers = {{"east", "4", ""}, {"north", "8", ""}};
  auto run = RunScenario(ScenarioYaml(workers, StatefulSetYaml("db", 3, "2")), kHour);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(Placement(*run), ElementsAre(Pair("ml/statefulset-db", "north")));
  EXPECT_THAT(run->recorder.Of("Admitted east"), IsEmpty());
}

// Setup: "east" (6 GPUs, 4 busy for 30 minutes) first in the config, "west"
// (8 GPUs) idle; a LeaderWorkerSet of 3 groups of 2 GPUs. Invariant: the
// first group is dispatched to both and wins on east (equal admission
// times: config order), which fills east; groups 1 and 2 are nominated to
// east alone, get no copy on west although west stays idle, and are
// admitted on east when its local job ends (30m, plus Kueue's 1 s requeue
// batching).
TEST(MultiKueueServingTest, LeaderWorkerSetGroupsFollowTheFirstGroupsWorker) {
  const std::vector<Worker> workers = {{"east", "6", "4", "30m"}, {"west", "8", ""}};
  auto run = RunScenario(ScenarioYaml(workers, LwsYaml("llm", 3)), kHour);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("Nominated", "leaderworkerset-llm-0"),
              ElementsAre("0.0 Nominated manager ml/leaderworkerset-llm-0 (2)"));
  EXPECT_THAT(run->recorder.Of("Nominated", "leaderworkerset-llm-"),
              UnorderedElementsAre("0.0 Nominated manager ml/leaderworkerset-llm-0 (2)",
                                   "0.0 Nominated manager/east ml/leaderworkerset-llm-1 (1)",
                                   "0.0 Nominated manager/east ml/leaderworkerset-llm-2 (1)"));
  EXPECT_THAT(run->recorder.Of("WorkerSelected", "leaderworkerset-llm-"),
              UnorderedElementsAre("0.0 WorkerSelected manager/east ml/leaderworkerset-llm-0",
                                   "1801.0 WorkerSelected manager/east ml/leaderworkerset-llm-1",
                                   "1801.0 WorkerSelected manager/east ml/leaderworkerset-llm-2"));
  // Only the first group ever had a copy on west.
  EXPECT_THAT(run->recorder.Of("Dispatched manager/west"),
              ElementsAre("0.0 Dispatched manager/west ml/leaderworkerset-llm-0"));
  EXPECT_THAT(Placement(*run), UnorderedElementsAre(Pair("ml/leaderworkerset-llm-0", "east"),
                                                    Pair("ml/leaderworkerset-llm-1", "east"),
                                                    Pair("ml/leaderworkerset-llm-2", "east")));
}

// Setup: as above, but east's local job never ends within the run.
// Invariant: the following groups wait on east (no worker admits them)
// rather than go to the idle west.
TEST(MultiKueueServingTest, FollowingGroupsWaitForTheFirstGroupsWorker) {
  const std::vector<Worker> workers = {{"east", "6", "4"}, {"west", "8", ""}};
  auto run = RunScenario(ScenarioYaml(workers, LwsYaml("llm", 3)), kHour);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(Placement(*run), UnorderedElementsAre(Pair("ml/leaderworkerset-llm-0", "east"),
                                                    Pair("ml/leaderworkerset-llm-1", ""),
                                                    Pair("ml/leaderworkerset-llm-2", "")));
  EXPECT_THAT(run->recorder.Of("Dispatched manager/west"),
              ElementsAre("0.0 Dispatched manager/west ml/leaderworkerset-llm-0"));
  EXPECT_THAT(run->recorder.Of("Admitted west", "leaderworkerset-llm-1"), IsEmpty());
  EXPECT_THAT(run->recorder.Of("Admitted west", "leaderworkerset-llm-2"), IsEmpty());
}

// Setup: two LeaderWorkerSets of one group each; east has room for one
// group only. Invariant: pinning is per LeaderWorkerSet: the second one's
// group is dispatched to both workers and lands on west.
TEST(MultiKueueServingTest, EachLeaderWorkerSetIsPlacedOnItsOwn) {
  const std::vector<Worker> workers = {{"east", "2", ""}, {"west", "8", ""}};
  auto run = RunScenario(ScenarioYaml(workers, LwsYaml("a", 1) + LwsYaml("b", 1)), kHour);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(Placement(*run), UnorderedElementsAre(Pair("ml/leaderworkerset-a-0", "east"),
                                                    Pair("ml/leaderworkerset-b-0", "west")));
  EXPECT_THAT(run->recorder.Of("Nominated", "leaderworkerset-b-0"),
              ElementsAre("0.0 Nominated manager ml/leaderworkerset-b-0 (2)"));
}

}  // namespace
}  // namespace kueuesim
