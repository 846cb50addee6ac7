// MultiKueue: the dispatchers' nomination sequences over time and each step
// of the dispatch flow (copies, winner, completion, worker eviction, lost
// worker, orchestrated preemption), on small manager + worker scenarios.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kueuesim/cluster/events.h"
#include "kueuesim/engine/event_queue.h"
#include "kueuesim/metrics/summary.h"
#include "kueuesim/runtime/cluster_runtime.h"
#include "kueuesim/policy/dispatch.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/sim/simulation.h"
#include "testing/scenario_fixtures.h"
#include "testing/simulation_fixtures.h"

namespace kueuesim {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

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
  // The lines of one event type, in order.
  std::vector<std::string> Of(std::string_view type) const {
    std::vector<std::string> out;
    for (const auto& l : lines) {
      if (l.find(fmt::format(" {} ", type)) != std::string::npos) out.push_back(l);
    }
    return out;
  }
  std::vector<std::string> lines;
};

struct Worker {
  std::string name;
  std::string gpus;        // ClusterQueue quota
  std::string background;  // GPUs of a low-priority job already running ("" for none)
  std::string preemption;
  std::string cq_extra = {};  // more ClusterQueue spec lines (2-space indented)
  std::string docs = {};      // more documents of the worker (local jobs, checks)
};

Worker W(std::string name, std::string gpus, std::string background = "", std::string preemption = "LowerPriority") {
  return Worker{std::move(name), std::move(gpus), std::move(background), std::move(preemption)};
}

struct MkSetup {
  std::vector<Worker> workers;
  std::vector<std::string> config_order;  // defaults to the workers' order
  std::string dispatcher;                 // Configuration multiKueue.dispatcherName ("" default)
  std::string step_size;                  // incrementalDispatcherConfig.stepSize
  std::string gates;                      // manager featureGates lines (2-space indented)
  std::string worker_gates;               // workers' featureGates lines
  std::string simulation_extra;           // Simulation spec lines (2-space indented)
  std::string manager_gpus = "100";
  std::string extra;                      // more documents (manager jobs, changes)
};

std::string JobYaml(const std::string& name, const std::string& gpus, const std::string& duration,
                    const std::string& arrival = "", const std::string& priority_class = "") {
  std::string out = fmt::format(
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {}\n  namespace: ml\n  labels:\n"
      "    kueue.x-k8s.io/queue-name: lq\n",
      name);
  if (!priority_class.empty()) out += "    kueue.x-k8s.io/priority-class: " + priority_class + "\n";
  out += "  annotations:\n    kueuesim.io/duration: " + duration + "\n";
  if (!arrival.empty()) out += "    kueuesim.io/arrival: " + arrival + "\n";
  out += fmt::format(
      "spec:\n  template:\n    spec:\n      containers:\n      - name: c\n        resources:\n"
      "          requests:\n            nvidia.com/gpu: \"{}\"\n---\n",
      gpus);
  return out;
}

std::string ScenarioYaml(const MkSetup& s) {
  std::string out =
      "apiVersion: kueuesim.io/v1alpha1\nkind: Simulation\nmetadata:\n  name: t\nspec:\n"
      "  startTime: \"2025-06-02T09:00:00Z\"\n" +
      s.simulation_extra + "---\n";
  out += "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: manager\n---\n";
  out += "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n";
  if (!s.dispatcher.empty() || !s.step_size.empty()) {
    out += "multiKueue:\n";
    if (!s.dispatcher.empty()) out += "  dispatcherName: " + s.dispatcher + "\n";
    if (!s.step_size.empty()) out += "  incrementalDispatcherConfig:\n    stepSize: " + s.step_size + "\n";
  }
  if (!s.gates.empty()) out += "featureGates:\n" + s.gates;
  out += "---\n";
  out += testing::ResourceFlavorYaml("default");
  out += "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata:\n  name: mk\nspec:\n"
         "  controllerName: kueue.x-k8s.io/multikueue\n  parameters:\n    apiGroup: kueue.x-k8s.io\n"
         "    kind: MultiKueueConfig\n    name: workers\n---\n";
  std::vector<std::string> order = s.config_order;
  if (order.empty()) {
    for (const auto& w : s.workers) order.push_back(w.name);
  }
  out += "apiVersion: kueue.x-k8s.io/v1beta2\nkind: MultiKueueConfig\nmetadata:\n  name: workers\nspec:\n"
         "  clusters: [";
  for (size_t i = 0; i < order.size(); ++i) out += (i ? ", " : "") + order[i];
  out += "]\n---\n";
  for (const auto& w : s.workers) {
    out += fmt::format(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: MultiKueueCluster\nmetadata:\n  name: {}\nspec:\n"
        "  clusterSource:\n    kubeConfig:\n      location: {}-secret\n---\n",
        w.name, w.name);
  }
  out += testing::ClusterQueueYaml("gpu", {"nvidia.com/gpu"}, {{"default", {s.manager_gpus}, {}}},
                                   "  admissionChecksStrategy:\n    admissionChecks:\n    - name: mk\n");
  out += testing::LocalQueueYaml("ml", "lq", "gpu");
  out += "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata:\n  name: high\nvalue: 1000\n---\n";
  out += s.extra;
  for (const auto& w : s.workers) {
    out += "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: " + w.name + "\n---\n";
    if (!s.worker_gates.empty()) {
      out += "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates:\n" + s.worker_gates + "---\n";
    }
    out += testing::ResourceFlavorYaml("default");
    out += testing::ClusterQueueYaml("gpu", {"nvidia.com/gpu"}, {{"default", {w.gpus}, {}}},
                                     "  preemption:\n    withinClusterQueue: " + w.preemption + "\n" + w.cq_extra);
    out += testing::LocalQueueYaml("ml", "lq", "gpu");
    out += "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata:\n  name: high\nvalue: 1000\n---\n";
    if (!w.background.empty()) out += JobYaml("background", w.background, "10h");
    out += w.docs;
  }
  return out;
}

struct Run {
  Recorder recorder;
  std::unique_ptr<sim::Simulation> simulation;
};

std::unique_ptr<Run> RunScenario(const MkSetup& setup, std::optional<SimTime> until = std::nullopt,
                                 const policy::PolicyRegistry* registry = nullptr) {
  auto run = std::make_unique<Run>();
  auto simulation = testing::SimulationFromYaml(ScenarioYaml(setup), {&run->recorder}, "test.yaml", registry);
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  if (!simulation.ok()) return nullptr;
  run->simulation = *std::move(simulation);
  sim::RunOptions options;
  options.until = until;
  absl::Status status = run->simulation->Run(options);
  EXPECT_TRUE(status.ok()) << status;
  return run;
}

const multikueue::MultiKueueReport& Report(const Run& run) { return *run.simulation->multikueue_reports().at(0); }

// --- Dispatchers as policies ---

policy::DispatchRequest Request(const std::vector<std::string_view>& names, SimTime now,
                                std::vector<int32_t> nominated, SimTime last) {
  policy::DispatchRequest request;
  request.now = now;
  request.nominated = std::move(nominated);
  request.last_nomination = last;
  for (auto name : names) {
    policy::DispatchCandidate c;
    c.name = name;
    request.clusters.push_back(c);
  }
  return request;
}

TEST(DispatchPolicyTest, AllAtOnceNominatesConnectedClustersByName) {
  auto dispatcher = policy::NewAllAtOnceDispatcher();
  auto request = Request({"onprem", "aws", "gcp"}, 0, {}, -1);
  request.clusters[2].connected = false;
  EXPECT_THAT(dispatcher->Nominate(request).nominated, ElementsAre(1, 0));  // aws, onprem
}

TEST(DispatchPolicyTest, IncrementalStepOneOverThreeClustersInConfigOrder) {
  auto dispatcher = policy::NewIncrementalDispatcher(1, 5 * kMinute, /*config_order=*/true);
  auto first = dispatcher->Nominate(Request({"onprem", "aws", "gcp"}, 0, {}, -1));
  EXPECT_THAT(first.nominated, ElementsAre(0));
  EXPECT_EQ(first.recheck_at, 5 * kMinute);
  // Within the round nothing changes.
  auto early = dispatcher->Nominate(Request({"onprem", "aws", "gcp"}, 4 * kMinute, {0}, 0));
  EXPECT_THAT(early.nominated, ElementsAre(0));
  EXPECT_EQ(early.recheck_at, 5 * kMinute);
  auto second = dispatcher->Nominate(Request({"onprem", "aws", "gcp"}, 5 * kMinute, {0}, 0));
  EXPECT_THAT(second.nominated, ElementsAre(0, 1));
  auto third = dispatcher->Nominate(Request({"onprem", "aws", "gcp"}, 10 * kMinute, {0, 1}, 5 * kMinute));
  EXPECT_THAT(third.nominated, ElementsAre(0, 1, 2));
  EXPECT_FALSE(third.recheck_at.has_value());
  // None left: the nomination stays.
  auto done = dispatcher->Nominate(Request({"onprem", "aws", "gcp"}, 20 * kMinute, {0, 1, 2}, 10 * kMinute));
  EXPECT_THAT(done.nominated, ElementsAre(0, 1, 2));
}

TEST(DispatchPolicyTest, IncrementalByNameWhenConfigOrderIsOff) {
  auto dispatcher = policy::NewIncrementalDispatcher(2, 5 * kMinute, /*config_order=*/false);
  EXPECT_THAT(dispatcher->Nominate(Request({"onprem", "aws", "gcp"}, 0, {}, -1)).nominated, ElementsAre(1, 2));
}

TEST(DispatchPolicyTest, RegistryValidatesIncrementalParameters) {
  auto registry = policy::PolicyRegistry::WithBuiltins();
  EXPECT_TRUE(registry.MakeDispatcher(std::string(policy::kIncrementalDispatcher), {{"stepSize", "2"}}).ok());
  auto bad = registry.MakeDispatcher(std::string(policy::kIncrementalDispatcher), {{"stepSize", "0"}});
  EXPECT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("stepSize \"0\""));
  auto unknown = registry.MakeDispatcher("example.com/mine", {});
  EXPECT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()), ::testing::HasSubstr("example.com/mine"));
}

// --- The flow ---

// Three workers that cannot admit anything (quota 0): only the nominations
// move.
MkSetup FullWorkers() {
  MkSetup s;
  s.workers = {W("onprem", "0"), W("aws", "0"), W("gcp", "0")};
  s.extra = JobYaml("train", "8", "1h");
  return s;
}

TEST(MultiKueueFlowTest, IncrementalStepOneNominatesOneMoreClusterEveryFiveMinutes) {
  MkSetup s = FullWorkers();
  s.dispatcher = "kueue.x-k8s.io/multikueue-dispatcher-incremental";
  s.step_size = "1";
  auto run = RunScenario(s, 30 * kMinute);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("Nominated"),
              ElementsAre("0.0 Nominated manager ml/job-train (1)", "300.0 Nominated manager ml/job-train (2)",
                          "600.0 Nominated manager ml/job-train (3)"));
  EXPECT_THAT(run->recorder.Of("Dispatched"),
              ElementsAre("0.0 Dispatched manager/onprem ml/job-train", "300.0 Dispatched manager/aws ml/job-train",
                          "600.0 Dispatched manager/gcp ml/job-train"));
  EXPECT_EQ(Report(*run).workloads.at(0).copies, 3);
}

TEST(MultiKueueFlowTest, IncrementalDefaultStepIsThree) {
  MkSetup s = FullWorkers();
  s.workers.push_back(W("azure", "0"));
  s.dispatcher = "kueue.x-k8s.io/multikueue-dispatcher-incremental";
  auto run = RunScenario(s, 30 * kMinute);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("Nominated"),
              ElementsAre("0.0 Nominated manager ml/job-train (3)", "300.0 Nominated manager ml/job-train (4)"));
}

TEST(MultiKueueFlowTest, IncrementalStepSizeNeedsItsFeatureGate) {
  MkSetup s = FullWorkers();
  s.dispatcher = "kueue.x-k8s.io/multikueue-dispatcher-incremental";
  s.step_size = "1";
  s.gates = "  MultiKueueIncrementalDispatcherConfig: false\n";
  auto run = RunScenario(s, 30 * kMinute);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("Nominated"), ElementsAre("0.0 Nominated manager ml/job-train (3)"));
}

TEST(MultiKueueFlowTest, IncrementalFollowsConfigOrderOrNames) {
  MkSetup s = FullWorkers();
  s.dispatcher = "kueue.x-k8s.io/multikueue-dispatcher-incremental";
  s.step_size = "1";
  auto run = RunScenario(s, 1 * kMinute);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("Dispatched"), ElementsAre("0.0 Dispatched manager/onprem ml/job-train"));
  s.gates = "  MultiKueueIncrementalDispatcherRespectConfigOrder: false\n";
  auto by_name = RunScenario(s, 1 * kMinute);
  ASSERT_NE(by_name, nullptr);
  EXPECT_THAT(by_name->recorder.Of("Dispatched"), ElementsAre("0.0 Dispatched manager/aws ml/job-train"));
}

TEST(MultiKueueFlowTest, AllAtOnceCopiesToEveryWorkerAndTheFirstAdmissionWins) {
  MkSetup s;
  // onprem is full; aws and gcp both admit at once: the tie goes to the
  // earlier cluster of the config (aws).
  s.workers = {W("onprem", "8", "8", "Never"), W("aws", "8"), W("gcp", "8")};
  s.extra = JobYaml("train", "8", "1h", "1m");
  auto run = RunScenario(s);
  ASSERT_NE(run, nullptr);
  // Kueue nominates the names sorted; copies go out in the config's order.
  EXPECT_THAT(run->recorder.Of("Nominated"), ElementsAre("60.0 Nominated manager ml/job-train (3)"));
  EXPECT_THAT(run->recorder.Of("Dispatched"),
              ElementsAre("60.0 Dispatched manager/onprem ml/job-train", "60.0 Dispatched manager/aws ml/job-train",
                          "60.0 Dispatched manager/gcp ml/job-train"));
  EXPECT_THAT(run->recorder.Of("WorkerSelected"), ElementsAre("60.0 WorkerSelected manager/aws ml/job-train"));
  EXPECT_THAT(run->recorder.Of("CopyDeleted"),
              ElementsAre("60.0 CopyDeleted manager/onprem ml/job-train", "60.0 CopyDeleted manager/gcp ml/job-train",
                          "3660.0 CopyDeleted manager/aws ml/job-train"));
  // The job runs on aws only; the manager finishes with it.
  EXPECT_THAT(run->recorder.Of("Finished"),
              ElementsAre("3660.0 Finished aws ml/job-train", "3660.0 Finished manager ml/job-train",
                          "36000.0 Finished onprem ml/job-background"));
  const auto& wl = Report(*run).workloads.at(0);
  EXPECT_EQ(wl.worker, "aws");
  EXPECT_EQ(wl.copies, 3);
  EXPECT_EQ(wl.reserving_workers, 2);    // aws and gcp reserved quota
  EXPECT_EQ(wl.losing_reservations, 1);  // gcp's was a duplicate
}

TEST(MultiKueueFlowTest, LatenciesDelayCopiesSelectionAndCompletion) {
  MkSetup s;
  s.workers = {W("aws", "8")};
  s.simulation_extra = "  multiKueue:\n    dispatchLatency: 2s\n    statusSyncLatency: 3s\n";
  s.extra = JobYaml("train", "8", "1h");
  auto run = RunScenario(s);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("Dispatched"), ElementsAre("2.0 Dispatched manager/aws ml/job-train"));
  // Admitted on aws at 2 s, seen by the manager at 5 s.
  EXPECT_THAT(run->recorder.Of("WorkerSelected"), ElementsAre("5.0 WorkerSelected manager/aws ml/job-train"));
  EXPECT_THAT(run->recorder.Of("Admitted"),
              ElementsAre("2.0 Admitted aws ml/job-train", "5.0 Admitted manager ml/job-train"));
  // The job object reaches aws at 7 s; its pods run for an hour there.
  EXPECT_THAT(run->recorder.Of("PodsReady"),
              ElementsAre("7.0 PodsReady aws ml/job-train", "10.0 PodsReady manager ml/job-train"));
  EXPECT_THAT(run->recorder.Of("Finished"),
              ElementsAre("3607.0 Finished aws ml/job-train", "3610.0 Finished manager ml/job-train"));
  EXPECT_EQ(Report(*run).workloads.at(0).time_to_admission.at(0), 2 * kSecond);
}

// A copy that finishes within statusSyncLatency of its pods becoming ready
// (Philly has many jobs of a second or less): the reconcile that syncs the
// PodsReady status comes before the manager can see the finish. A finished
// remote workload keeps its Admitted condition (Kueue's Finish only adds
// Finished), so the manager still sees its worker admitted and waits for
// the Finished status; it must not take the copy for gone, send the check
// to Retry and run the job again (each re-run ending the same way, for
// ever).
TEST(MultiKueueFlowTest, JobShorterThanTheStatusSyncFinishesOnce) {
  for (const char* duration : {"1s", "500ms"}) {
    SCOPED_TRACE(duration);
    MkSetup s;
    s.workers = {W("aws", "8"), W("gcp", "8")};
    s.simulation_extra = "  multiKueue:\n    dispatchLatency: 1s\n    statusSyncLatency: 1s\n";
    s.extra = JobYaml("blip", "1", duration);
    auto run = RunScenario(s, 1 * kHour);
    ASSERT_NE(run, nullptr);
    // Admitted on aws at 1 s, seen at 2 s; the job reaches aws at 3 s.
    EXPECT_THAT(run->recorder.Of("WorkerSelected"), ElementsAre("2.0 WorkerSelected manager/aws ml/job-blip"));
    // The manager syncs PodsReady at 4 s, when (1s) or after (500ms) the
    // copy has finished, and the finish one latency after it.
    EXPECT_THAT(run->recorder.Of("PodsReady"),
                ElementsAre("3.0 PodsReady aws ml/job-blip", "4.0 PodsReady manager ml/job-blip"));
    EXPECT_THAT(run->recorder.Of("Evicted"), IsEmpty());
    const std::string end = std::string(duration) == "1s" ? "4.0" : "3.5";
    const std::string seen = std::string(duration) == "1s" ? "5.0" : "4.5";
    EXPECT_THAT(run->recorder.Of("Finished"),
                ElementsAre(end + " Finished aws ml/job-blip", seen + " Finished manager ml/job-blip"));
    const auto& wl = Report(*run).workloads.at(0);
    EXPECT_EQ(wl.dispatches, 1);
    EXPECT_EQ(wl.copies, 2);
  }
}

TEST(MultiKueueFlowTest, WorkerEvictionRetriesAndRedispatches) {
  MkSetup s;
  // The job lands on aws (config order); a high-priority job submitted to
  // aws directly preempts it there at 10 min. The check goes to Retry, the
  // manager requeues it, and the next dispatch lands on gcp.
  s.workers = {W("aws", "8"), W("gcp", "8")};
  s.config_order = {"aws", "gcp"};
  s.extra = JobYaml("train", "8", "1h");
  std::string yaml = ScenarioYaml(s);
  yaml += "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: aws\n---\n" +
          JobYaml("urgent", "8", "2h", "10m", "high");
  Recorder recorder;
  auto simulation = testing::SimulationFromYaml(yaml, {&recorder});
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  ASSERT_TRUE((*simulation)->Run({}).ok());
  EXPECT_THAT(recorder.Of("WorkerSelected"),
              ElementsAre("0.0 WorkerSelected manager/aws ml/job-train", "600.0 WorkerSelected manager/gcp ml/job-train"));
  EXPECT_THAT(recorder.Of("Evicted"),
              ElementsAre("600.0 Evicted aws ml/job-train", "600.0 Evicted manager ml/job-train"));
  EXPECT_THAT(recorder.Of("Finished"),
              ElementsAre("4200.0 Finished gcp ml/job-train", "4200.0 Finished manager ml/job-train",
                          "7800.0 Finished aws ml/job-urgent"));
  const auto& wl = (*simulation)->multikueue_reports().at(0)->workloads.at(0);
  EXPECT_EQ(wl.dispatches, 2);
  EXPECT_EQ(wl.worker, "gcp");
}

TEST(MultiKueueFlowTest, LostWorkerIsGivenUpAfterWorkerLostTimeout) {
  MkSetup s;
  s.workers = {W("aws", "8"), W("gcp", "8")};
  s.config_order = {"aws", "gcp"};
  s.extra = JobYaml("train", "8", "2h") +
            "apiVersion: kueuesim.io/v1alpha1\nkind: Change\nmetadata:\n  name: aws-down\nspec:\n  at: 10m\n"
            "  target:\n    kind: MultiKueueCluster\n    name: aws\n  connected: false\n---\n";
  auto run = RunScenario(s);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("WorkerDisconnected"), ElementsAre("600.0 WorkerDisconnected manager/aws"));
  // 15 minutes (workerLostTimeout) after the loss the check goes to Retry;
  // the job is dispatched again, now only to gcp (AllAtOnce skips aws).
  EXPECT_THAT(run->recorder.Of("Evicted"), ElementsAre("1500.0 Evicted manager ml/job-train"));
  EXPECT_THAT(run->recorder.Of("WorkerSelected"),
              ElementsAre("0.0 WorkerSelected manager/aws ml/job-train", "1500.0 WorkerSelected manager/gcp ml/job-train"));
  EXPECT_THAT(run->recorder.Of("Finished"),
              ElementsAre("7200.0 Finished aws ml/job-train", "8700.0 Finished gcp ml/job-train",
                          "8700.0 Finished manager ml/job-train"));
}

TEST(MultiKueueFlowTest, AllAtOncePreemptsInEveryWorkerWithoutOrchestration) {
  MkSetup s;
  s.workers = {W("aws", "8", "8"), W("gcp", "8", "8")};
  s.simulation_extra = "  evictionDelay: 30s\n";
  s.extra = JobYaml("train", "8", "1h", "1m", "high");
  auto run = RunScenario(s);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("Preempted"),
              ElementsAre("60.0 Preempted aws ml/job-background", "60.0 Preempted gcp ml/job-background"));
  const auto& wl = Report(*run).workloads.at(0);
  EXPECT_EQ(wl.losing_preemptions, 1);
  EXPECT_EQ(wl.winning_preemptions, 1);
}

TEST(MultiKueueFlowTest, OrchestratedPreemptionOpensOneGateAtATime) {
  MkSetup s;
  s.workers = {W("aws", "8", "8"), W("gcp", "8", "8")};
  s.gates = "  MultiKueueOrchestratedPreemption: true\n";
  s.worker_gates = s.gates;
  s.simulation_extra = "  evictionDelay: 30s\n";
  s.extra = JobYaml("train", "8", "1h", "1m", "high");
  auto run = RunScenario(s);
  ASSERT_NE(run, nullptr);
  // Both copies need preemption; both are gated at once, aws (config order)
  // gets its gate opened, preempts, and wins; gcp never preempts.
  EXPECT_THAT(run->recorder.Of("PreemptionGateOpened"),
              ElementsAre("60.0 PreemptionGateOpened manager/aws ml/job-train"));
  EXPECT_THAT(run->recorder.Of("Preempted"), ElementsAre("60.0 Preempted aws ml/job-background"));
  EXPECT_THAT(run->recorder.Of("WorkerSelected"), ElementsAre("90.0 WorkerSelected manager/aws ml/job-train"));
  EXPECT_EQ(Report(*run).workloads.at(0).losing_preemptions, 0);
}

// A dispatcher written by a user: the connected worker with the most free
// GPUs, alone.
class MostFreeDispatcher : public policy::DispatchPolicy {
 public:
  policy::DispatchDecision Nominate(const policy::DispatchRequest& request) override {
    policy::DispatchDecision decision;
    int32_t best = -1;
    Amount best_free = -1;
    for (size_t i = 0; i < request.clusters.size(); ++i) {
      const auto& c = request.clusters[i];
      if (!c.connected || !c.has_queue) continue;
      Amount free = c.free.empty() ? 0 : c.free[0].second;
      if (free > best_free) {
        best = static_cast<int32_t>(i);
        best_free = free;
      }
    }
    if (best >= 0) decision.nominated = {best};
    return decision;
  }
};

TEST(MultiKueueFlowTest, UserDispatcherFromTheRegistry) {
  auto registry = policy::PolicyRegistry::WithBuiltins();
  ASSERT_TRUE(registry
                  .RegisterDispatcher("example.com/most-free", "the worker with the most free quota",
                                      [](const policy::PolicyParameters&)
                                          -> absl::StatusOr<std::unique_ptr<policy::DispatchPolicy>> {
                                        return std::make_unique<MostFreeDispatcher>();
                                      })
                  .ok());
  MkSetup s;
  s.workers = {W("aws", "8", "6"), W("gcp", "8", "2"), W("onprem", "8", "4")};
  s.simulation_extra = "  policies:\n    dispatcher: example.com/most-free\n";
  s.extra = JobYaml("train", "2", "1h", "1m");
  auto run = RunScenario(s, std::nullopt, &registry);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("Dispatched"), ElementsAre("60.0 Dispatched manager/gcp ml/job-train"));
  EXPECT_EQ(Report(*run).dispatcher, "example.com/most-free");
}

TEST(MultiKueueFlowTest, UnknownDispatcherIsAnErrorNamingTheField) {
  MkSetup s = FullWorkers();
  s.dispatcher = "example.com/missing";
  auto scenario = testing::LoadYaml(ScenarioYaml(s));
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  auto simulation = sim::Simulation::Create(*scenario, policy::PolicyRegistry::WithBuiltins());
  ASSERT_FALSE(simulation.ok());
  EXPECT_THAT(std::string(simulation.status().message()),
              ::testing::AllOf(::testing::HasSubstr("multiKueue.dispatcherName"),
                               ::testing::HasSubstr("example.com/missing")));
}

TEST(MultiKueueFlowTest, MultiKueueClusterMustReachAScenarioCluster) {
  MkSetup s = FullWorkers();
  std::string yaml = ScenarioYaml(s);
  yaml += "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: manager\n---\n"
          "apiVersion: kueue.x-k8s.io/v1beta2\nkind: MultiKueueCluster\nmetadata:\n  name: azure\nspec:\n"
          "  clusterSource:\n    kubeConfig:\n      location: azure-secret\n---\n";
  auto scenario = testing::LoadYaml(yaml);
  ASSERT_FALSE(scenario.ok());
  EXPECT_THAT(std::string(scenario.status().message()),
              ::testing::AllOf(::testing::HasSubstr("MultiKueueCluster \"azure\""),
                               ::testing::HasSubstr("no cluster named \"azure\"")));
}

TEST(MultiKueueFlowTest, TwoMultiKueueChecksMakeTheClusterQueueInactive) {
  MkSetup s = FullWorkers();
  std::string yaml = ScenarioYaml(s);
  // A second MultiKueue check on the same ClusterQueue.
  const std::string needle = "    - name: mk\n";
  yaml.replace(yaml.find(needle), needle.size(), "    - name: mk\n    - name: mk2\n");
  yaml += "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: manager\n---\n"
          "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata:\n  name: mk2\nspec:\n"
          "  controllerName: kueue.x-k8s.io/multikueue\n  parameters:\n    apiGroup: kueue.x-k8s.io\n"
          "    kind: MultiKueueConfig\n    name: workers\n---\n";
  Recorder recorder;
  auto simulation = testing::SimulationFromYaml(yaml, {&recorder});
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  ASSERT_TRUE((*simulation)->Run({}).ok());
  EXPECT_THAT(recorder.Of("QuotaReserved"), IsEmpty());
}


// --- Edge paths (issue 19) ---

std::string ConnectivityYaml(const std::string& worker, const std::string& at, bool connected) {
  return fmt::format(
      "apiVersion: kueuesim.io/v1alpha1\nkind: Change\nmetadata:\n  name: {}-{}-{}\nspec:\n  at: {}\n"
      "  target:\n    kind: MultiKueueCluster\n    name: {}\n  connected: {}\n---\n",
      worker, connected ? "up" : "down", at, at, worker, connected ? "true" : "false");
}

// An AdmissionCheck nobody answers in the simulation, used by the manager's
// ClusterQueue next to MultiKueue.
std::string WithOtherManagerCheck(std::string yaml) {
  const std::string needle = "    - name: mk\n";
  yaml.replace(yaml.find(needle), needle.size(), "    - name: mk\n    - name: other\n");
  yaml += "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: manager\n---\n"
          "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata:\n  name: other\nspec:\n"
          "  controllerName: example.com/other\n---\n";
  return yaml;
}

// Answers the "other" check Ready a fixed time after it turns Pending.
class DelayedReadyController : public runtime::AdmissionCheckController, public engine::EventHandler {
 public:
  DelayedReadyController(runtime::ClusterRuntime* runtime, SimDuration delay) : runtime_(runtime), delay_(delay) {}
  void OnCheckPending(cluster::WorkloadId id, int32_t check) override {
    runtime_->engine()->ScheduleAfter(delay_, this, check, id);
  }
  void OnQuotaReleased(cluster::WorkloadId /*id*/) override {}
  void HandleEvent(int32_t check, int64_t id, int64_t /*b*/) override {
    runtime_->SetAdmissionCheckState(static_cast<cluster::WorkloadId>(id), check, cluster::CheckState::kReady);
  }

 private:
  runtime::ClusterRuntime* runtime_;
  SimDuration delay_;
};

TEST(MultiKueueEdgeTest, NothingIsDispatchedWhileAnotherCheckIsNotReady) {
  MkSetup s;
  s.workers = {W("aws", "8")};
  s.extra = JobYaml("train", "8", "1h");
  Recorder recorder;
  auto simulation = testing::SimulationFromYaml(WithOtherManagerCheck(ScenarioYaml(s)), {&recorder});
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  sim::RunOptions options;
  options.until = 3 * kHour;
  ASSERT_TRUE((*simulation)->Run(options).ok());
  // Kueue's allNonMKAdmissionChecksReady: the check "other" stays Pending,
  // so no copy is made and nothing runs anywhere.
  EXPECT_THAT(recorder.Of("QuotaReserved"), ElementsAre("0.0 QuotaReserved manager ml/job-train"));
  EXPECT_THAT(recorder.Of("Dispatched"), IsEmpty());
  EXPECT_THAT(recorder.Of("Finished"), IsEmpty());
}

TEST(MultiKueueEdgeTest, DispatchStartsWhenTheOtherCheckIsReady) {
  MkSetup s;
  s.workers = {W("aws", "8")};
  s.extra = JobYaml("train", "8", "1h");
  Recorder recorder;
  auto simulation = testing::SimulationFromYaml(WithOtherManagerCheck(ScenarioYaml(s)), {&recorder});
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  runtime::ClusterRuntime* manager = (*simulation)->clusters().at(0).get();
  DelayedReadyController other(manager, 5 * kMinute);
  manager->RegisterAdmissionCheckController("example.com/other", &other);
  ASSERT_TRUE((*simulation)->Run({}).ok());
  EXPECT_THAT(recorder.Of("Dispatched"), ElementsAre("300.0 Dispatched manager/aws ml/job-train"));
  EXPECT_THAT(recorder.Of("Admitted"),
              ElementsAre("300.0 Admitted aws ml/job-train", "300.0 Admitted manager ml/job-train"));
  EXPECT_THAT(recorder.Of("Finished"),
              ElementsAre("3900.0 Finished aws ml/job-train", "3900.0 Finished manager ml/job-train"));
}

TEST(MultiKueueEdgeTest, LosingCopyLeftOnAnUnreachableWorkerIsDeletedOnReconnect) {
  MkSetup s;
  // Both workers are busy with local jobs (aws until 10m, gcp until 20m);
  // gcp is unreachable from 5m to 30m. aws admits at 10m (+1 s requeue
  // delay) and wins; gcp's copy cannot be deleted then, and gcp admits it
  // at 20m.
  s.workers = {W("aws", "8"), W("gcp", "8")};
  s.workers[0].docs = JobYaml("local", "8", "10m");
  s.workers[1].docs = JobYaml("local", "8", "20m");
  s.extra = JobYaml("train", "8", "1h", "1m") + ConnectivityYaml("gcp", "5m", false) +
            ConnectivityYaml("gcp", "30m", true);
  auto run = RunScenario(s);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("WorkerSelected"), ElementsAre("601.0 WorkerSelected manager/aws ml/job-train"));
  EXPECT_THAT(run->recorder.Of("QuotaReserved"),
              ::testing::Contains("1201.0 QuotaReserved gcp ml/job-train"));
  // gcp is reachable again at 30m; the cluster controller, retrying since
  // 5m (5 s, 10 s, ... up to 5m20s apart), reconnects at 31m35s, and the
  // first reconcile then deletes the stale copy.
  EXPECT_THAT(run->recorder.Of("WorkerConnected"), ElementsAre("1895.0 WorkerConnected manager/gcp"));
  EXPECT_THAT(run->recorder.Of("CopyDeleted"),
              ElementsAre("1895.0 CopyDeleted manager/gcp ml/job-train", "4201.0 CopyDeleted manager/aws ml/job-train"));
  const auto& wl = Report(*run).workloads.at(0);
  EXPECT_EQ(wl.reserving_workers, 2);
  EXPECT_EQ(wl.losing_reservations, 1);
  // 8 GPUs held on gcp for nothing from 20m01s (its parked copy is
  // requeued 1 s after the local job ends) to 31m35s.
  EXPECT_DOUBLE_EQ(wl.losing_quota_seconds.at("nvidia.com/gpu"), 8.0 * 694);
  EXPECT_EQ(Report(*run).workers.at(1).losing_reservations, 1);
}

// aws runs the job from 0 and is unreachable from 10m; after
// workerLostTimeout (15m) the job is re-run on gcp from 25m.
MkSetup LostWinnerSetup(const std::string& reconnect_at) {
  MkSetup s;
  s.workers = {W("aws", "8"), W("gcp", "8")};
  s.config_order = {"aws", "gcp"};
  s.extra = JobYaml("train", "8", "1h") + ConnectivityYaml("aws", "10m", false) +
            ConnectivityYaml("aws", reconnect_at, true);
  return s;
}

TEST(MultiKueueEdgeTest, CopyThatFinishedOnAReconnectedWorkerFinishesTheWorkload) {
  // aws finished its run at 60m while unreachable; it is reachable again at
  // 70m and reconnected at the next attempt, 73m55s (retries since 10m).
  auto run = RunScenario(LostWinnerSetup("70m"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("WorkerSelected"),
              ElementsAre("0.0 WorkerSelected manager/aws ml/job-train", "1500.0 WorkerSelected manager/gcp ml/job-train"));
  // The manager finishes with aws's copy at once; the re-run on gcp goes.
  EXPECT_THAT(run->recorder.Of("Finished"),
              ElementsAre("3600.0 Finished aws ml/job-train", "4435.0 Finished manager ml/job-train"));
  EXPECT_THAT(run->recorder.Of("CopyDeleted"),
              ElementsAre("0.0 CopyDeleted manager/gcp ml/job-train", "4435.0 CopyDeleted manager/aws ml/job-train",
                          "4435.0 CopyDeleted manager/gcp ml/job-train"));
  const auto& wl = Report(*run).workloads.at(0);
  EXPECT_EQ(wl.worker, "aws");
  // The job ran on both workers from 25m to 60m; gcp's 8 GPUs from 25m to
  // 73m55s were for nothing.
  EXPECT_EQ(wl.duplicate_run_time, 35 * kMinute);
  EXPECT_EQ(wl.losing_reservations, 2);  // gcp lost the tie at 0, then its re-run lost
  EXPECT_DOUBLE_EQ(wl.losing_quota_seconds.at("nvidia.com/gpu"), 8.0 * (4435 - 1500));
}

TEST(MultiKueueEdgeTest, CopyAdmittedEarlierTakesOverFromTheReRun) {
  // aws is reachable again at 30m (reconnected at 31m15s), its copy
  // (admitted at 0) still running.
  auto run = RunScenario(LostWinnerSetup("30m"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("WorkerSelected"),
              ElementsAre("0.0 WorkerSelected manager/aws ml/job-train", "1500.0 WorkerSelected manager/gcp ml/job-train",
                          "1875.0 WorkerSelected manager/aws ml/job-train"));
  EXPECT_THAT(run->recorder.Of("CopyDeleted"),
              ElementsAre("0.0 CopyDeleted manager/gcp ml/job-train", "1875.0 CopyDeleted manager/gcp ml/job-train",
                          "3600.0 CopyDeleted manager/aws ml/job-train"));
  EXPECT_THAT(run->recorder.Of("Finished"),
              ElementsAre("3600.0 Finished aws ml/job-train", "3600.0 Finished manager ml/job-train"));
  const auto& wl = Report(*run).workloads.at(0);
  EXPECT_EQ(wl.worker, "aws");
  EXPECT_EQ(wl.duplicate_run_time, 375 * kSecond);
}

TEST(MultiKueueEdgeTest, GarbageCollectorDeletesOnlyCopiesOfWorkloadsThatAreGone) {
  // The manager's workload finished on gcp (25m-85m) while aws was away;
  // aws is back at 100m (reconnected at 100m35s): its finished copy goes on
  // the first reconcile (the workload is finished), not at the garbage
  // collector's tick.
  auto run = RunScenario(LostWinnerSetup("100m"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("Finished"),
              ElementsAre("3600.0 Finished aws ml/job-train", "5100.0 Finished gcp ml/job-train",
                          "5100.0 Finished manager ml/job-train"));
  EXPECT_THAT(run->recorder.Of("CopyDeleted"),
              ElementsAre("0.0 CopyDeleted manager/gcp ml/job-train", "5100.0 CopyDeleted manager/gcp ml/job-train",
                          "6035.0 CopyDeleted manager/aws ml/job-train"));
}

TEST(MultiKueueEdgeTest, NoManagerQuotaIsReservedWhileEveryWorkerIsUnreachable) {
  MkSetup s;
  s.workers = {W("aws", "8"), W("gcp", "8")};
  s.extra = JobYaml("first", "8", "1h") + JobYaml("second", "8", "1h", "6m") + ConnectivityYaml("aws", "5m", false) +
            ConnectivityYaml("gcp", "5m", false) + ConnectivityYaml("aws", "12m", true) +
            ConnectivityYaml("gcp", "12m", true);
  auto run = RunScenario(s);
  ASSERT_NE(run, nullptr);
  // From 5m the MultiKueue check is inactive (no usable cluster) and so is
  // the ClusterQueue: "second" waits until the workers, reachable again at
  // 12m, are reconnected (15m35s: attempts since 5m). "first" keeps its
  // quota.
  EXPECT_THAT(run->recorder.Of("QuotaReserved"),
              ::testing::IsSupersetOf({"0.0 QuotaReserved manager ml/job-first", "935.0 QuotaReserved manager ml/job-second"}));
  for (const auto& line : run->recorder.Of("QuotaReserved")) {
    EXPECT_THAT(line, ::testing::Not(::testing::HasSubstr("360.0 QuotaReserved manager")));
  }
  EXPECT_THAT(run->recorder.Of("Evicted"), IsEmpty());
  EXPECT_THAT(run->recorder.Of("Finished"),
              ::testing::IsSupersetOf({"3600.0 Finished manager ml/job-first", "4535.0 Finished manager ml/job-second"}));
}

TEST(MultiKueueEdgeTest, AClusterQueueWithProvisioningRequestAndMultiKueueIsInactive) {
  MkSetup s = FullWorkers();
  std::string yaml = ScenarioYaml(s);
  const std::string needle = "    - name: mk\n";
  yaml.replace(yaml.find(needle), needle.size(), "    - name: mk\n    - name: prov\n");
  yaml += "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: manager\n---\n"
          "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata:\n  name: prov\nspec:\n"
          "  controllerName: kueue.x-k8s.io/provisioning-request\n---\n";
  Recorder recorder;
  auto simulation = testing::SimulationFromYaml(yaml, {&recorder});
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  ASSERT_TRUE((*simulation)->Run({}).ok());
  EXPECT_THAT(recorder.Of("QuotaReserved"), IsEmpty());
  EXPECT_EQ((*simulation)->clusters().at(0)->state().cq(0).inactive_reason, "MultiKueueWithProvisioningRequest");
}

// Setup: the MultiKueue check names MultiKueueConfig "nothing", which does
// not exist. Invariant (Kueue's ACReconciler: BadConfig): the scenario loads
// with a warning; the check is inactive, so is the ClusterQueue (Kueue's
// message), and no quota is reserved.
TEST(MultiKueueEdgeTest, ACheckWithAMissingConfigIsInactive) {
  MkSetup s = FullWorkers();
  std::string yaml = ScenarioYaml(s);
  const std::string needle = "    kind: MultiKueueConfig\n    name: workers\n";
  yaml.replace(yaml.find(needle), needle.size(), "    kind: MultiKueueConfig\n    name: nothing\n");
  auto scenario = testing::LoadYaml(yaml);
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  std::string warnings;
  for (const auto& warning : scenario->report.warnings) warnings += warning + "\n";
  EXPECT_THAT(warnings, ::testing::HasSubstr("AdmissionCheck \"mk\": spec.parameters.name: MultiKueueConfig "
                                             "\"nothing\" does not exist"));
  Recorder recorder;
  auto simulation = testing::SimulationFromYaml(yaml, {&recorder});
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  ASSERT_TRUE((*simulation)->Run({}).ok());
  EXPECT_THAT(recorder.Of("QuotaReserved"), IsEmpty());
  EXPECT_EQ((*simulation)->clusters().at(0)->state().cq(0).inactive_reason,
            "references inactive AdmissionCheck(s): mk");
}

// Setup: the MultiKueueConfig lists "ghost" (no such MultiKueueCluster)
// before the real workers. Invariant: Kueue skips the missing cluster: the
// scenario loads with a warning naming it, the check stays active
// (SomeActiveClusters) and the run is event for event the one without it.
TEST(MultiKueueEdgeTest, AMissingClusterInTheConfigIsSkipped) {
  MkSetup s = FullWorkers();
  for (const auto& w : s.workers) s.config_order.push_back(w.name);
  s.config_order.insert(s.config_order.begin(), "ghost");
  auto scenario = testing::LoadYaml(ScenarioYaml(s));
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  std::string warnings;
  for (const auto& warning : scenario->report.warnings) warnings += warning + "\n";
  EXPECT_THAT(warnings, ::testing::HasSubstr("spec.clusters[0]: MultiKueueCluster \"ghost\" does not exist"));
  MkSetup plain = FullWorkers();
  auto with_ghost = RunScenario(s);
  auto without = RunScenario(plain);
  ASSERT_NE(with_ghost, nullptr);
  ASSERT_NE(without, nullptr);
  EXPECT_FALSE(with_ghost->recorder.Of("QuotaReserved").empty());
  EXPECT_EQ(with_ghost->recorder.lines, without->recorder.lines);
}

TEST(MultiKueueEdgeTest, AnEvictedCopysClosedGateDoesNotHoldOffTheOthers) {
  MkSetup s;
  // Both copies must preempt. aws's gate opens first; its copy reserves
  // quota there (aws's own check "hold" keeps it from being admitted) and
  // is then preempted by aws's urgent job at 3m: its gate closes, so gcp's
  // opens at once instead of 5 minutes after aws's opened.
  s.workers = {W("aws", "8", "8"), W("gcp", "8", "8")};
  s.workers[0].cq_extra = "  admissionChecksStrategy:\n    admissionChecks:\n    - name: hold\n";
  s.workers[0].docs =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata:\n  name: hold\nspec:\n"
      "  controllerName: example.com/hold\n---\n"
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata:\n  name: top\nvalue: 2000\n---\n" +
      JobYaml("urgent", "8", "2h", "3m", "top");
  s.gates = "  MultiKueueOrchestratedPreemption: true\n";
  s.worker_gates = s.gates;
  s.simulation_extra = "  evictionDelay: 30s\n";
  s.extra = JobYaml("train", "8", "1h", "1m", "high");
  auto run = RunScenario(s);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("QuotaReserved"), ::testing::Contains("90.0 QuotaReserved aws ml/job-train"));
  EXPECT_THAT(run->recorder.Of("Evicted"), ::testing::Contains("180.0 Evicted aws ml/job-train"));
  EXPECT_THAT(run->recorder.Of("PreemptionGateOpened"),
              ElementsAre("60.0 PreemptionGateOpened manager/aws ml/job-train",
                          "180.0 PreemptionGateOpened manager/gcp ml/job-train"));
  EXPECT_THAT(run->recorder.Of("WorkerSelected"), ElementsAre("210.0 WorkerSelected manager/gcp ml/job-train"));
}

TEST(MultiKueueEdgeTest, CostOfLosingCopiesAndApiOperations) {
  MkSetup s;
  // Both workers preempt their background job (running since 0) for the
  // copy at 1m; aws wins, so gcp's victim lost 60 s of 8 GPUs for nothing.
  s.workers = {W("aws", "8", "8"), W("gcp", "8", "8")};
  s.simulation_extra = "  evictionDelay: 30s\n";
  s.extra = JobYaml("train", "8", "1h", "1m", "high");
  auto run = RunScenario(s);
  ASSERT_NE(run, nullptr);
  const auto& report = Report(*run);
  const auto& wl = report.workloads.at(0);
  EXPECT_EQ(wl.losing_preemptions, 1);
  EXPECT_DOUBLE_EQ(wl.losing_victim_work.at("nvidia.com/gpu"), 8.0 * 60);
  EXPECT_EQ(report.workers.at(1).losing_victim_work.at("nvidia.com/gpu"), 8.0 * 60);
  EXPECT_EQ(wl.nomination_patches, 1);
  EXPECT_EQ(report.workers.at(0).copies, 1);
  EXPECT_EQ(report.workers.at(1).deleted, 1);
  EXPECT_EQ(report.workers.at(0).peak_live_copies, 1);
  // aws: reserved, admitted, pods ready, finished; gcp: reserved, admitted.
  EXPECT_EQ(report.workers.at(0).status_syncs, 4);
  EXPECT_EQ(report.workers.at(1).status_syncs, 2);
  // gcp held 8 GPUs from 90 s until the manager saw aws win at 90 s: no
  // time passed.
  EXPECT_DOUBLE_EQ(wl.losing_quota_seconds.at("nvidia.com/gpu"), 0.0);
}

// A worker releases the record of each copy the manager deletes, and a
// later copy reuses it: the summary still counts every workload the worker
// had, copies included (the Philly study's idle workers showed "5
// workloads" for 11,386 copies).
TEST(MultiKueueEdgeTest, SummaryCountsEveryCopyAWorkerReceived) {
  MkSetup s;
  s.workers = {W("onprem", "8", "4"), W("aws", "8"), W("gcp", "8")};
  for (int i = 0; i < 4; ++i) s.extra += JobYaml(fmt::format("train-{}", i), "4", "5m", fmt::format("{}m", 10 * i));
  Recorder recorder;
  metrics::SummaryCollector collector;
  auto simulation = testing::SimulationFromYaml(ScenarioYaml(s), {&recorder, &collector});
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  ASSERT_TRUE((*simulation)->Run({}).ok());
  const metrics::Summary summary =
      collector.Finish((*simulation)->end_time(), (*simulation)->cluster_pointers(),
                       (*simulation)->multikueue_reports());
  const auto& report = *(*simulation)->multikueue_reports().at(0);
  ASSERT_EQ(summary.clusters.size(), 4u);
  EXPECT_EQ(summary.clusters[0].workloads, 4);  // the manager's jobs
  // onprem: its background job and four copies; aws and gcp: four copies.
  for (size_t w = 0; w < 3; ++w) {
    EXPECT_EQ(report.workers.at(w).copies, 4);
    EXPECT_EQ(summary.clusters[w + 1].workloads, 4 + (w == 0 ? 1 : 0)) << summary.clusters[w + 1].name;
  }
}

// --- The invariant (docs/invariants.md) ---

// A manager dispatching to two 8-cpu workers, aws and gcp, with the given
// `multiKueue:` settings lines and jobs.
absl::StatusOr<std::unique_ptr<sim::Simulation>> TwoWorkerSimulation(const std::string& multikueue_settings,
                                                                     const std::string& jobs) {
  MkSetup s;
  s.workers = {W("aws", "8"), W("gcp", "8")};
  s.simulation_extra = "  multiKueue:\n" + multikueue_settings;
  s.extra = jobs;
  return testing::SimulationFromYaml(ScenarioYaml(s), {}, "test.yaml");
}

// Setup: two workers admit copies of one job at once; the manager selects
// aws at 10 s and deletes gcp's copy, whose delete takes the 10 s dispatch
// latency; another job arrives at 12 s (a check point in between).
// Expect: a run checking invariants passes through it; with every copy
// made a selected one on purpose at 11 s (gcp's copy is still there, being
// deleted), the check point at 12 s fails naming the workload and both
// workers, and the run stops there.
TEST(MultiKueueInvariantTest, TwoSelectedCopiesOfOneWorkloadAreCaught) {
  auto simulation = TwoWorkerSimulation("    dispatchLatency: 10s\n",
                                        JobYaml("train", "4", "1h") + JobYaml("eval", "2", "1h", "12s"));
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  sim::RunOptions options;
  options.check_invariants = true;
  options.until = 11 * kSecond;
  ASSERT_TRUE((*simulation)->Run(options).ok());
  ASSERT_GT((*simulation)->invariant_checker()->checks(), 0);
  ASSERT_EQ((*simulation)->multikueue_controllers().size(), 1u);
  (*simulation)->multikueue_controllers()[0]->SelectEveryCopyForTesting();
  options.until.reset();
  const absl::Status status = (*simulation)->Run(options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()),
              ::testing::AllOf(::testing::HasSubstr("a MultiKueue workload has at most one selected copy"),
                               ::testing::HasSubstr("workload ml/job-train"), ::testing::HasSubstr("worker aws"),
                               ::testing::HasSubstr("worker gcp")));
  EXPECT_EQ((*simulation)->now(), 12 * kSecond);
}

// Setup: the same run without the breakage, to the end, checked.
// Expect: no violation (a copy being deleted is not a second selection).
TEST(MultiKueueInvariantTest, LosingCopiesBeingDeletedPass) {
  auto simulation = TwoWorkerSimulation("    dispatchLatency: 10s\n    statusSyncLatency: 5s\n",
                                        JobYaml("train", "4", "1h") + JobYaml("eval", "4", "30m", "1m"));
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  sim::RunOptions options;
  options.check_invariants = true;
  EXPECT_TRUE((*simulation)->Run(options).ok());
}

// Setup: worker w1 runs a Job "a" of its own in namespace ml; the manager
// dispatches its own Job "a" of ml to w1 (the copy's name clashes there),
// then the manager's job is evicted (PodsReady timeout) and dispatched
// again. Invariant: no crash and no invariant broken: the copy takes a
// suffix on w1 (Kueue's Workload names carry a hash of the job's UID and
// never collide), the manager's deletion reaches the renamed copy, and the
// worker's own Job is never touched.
TEST(MultiKueueFlowTest, CopyWhoseNameClashesOnTheWorkerIsRenamed) {
  const std::string yaml = R"(apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: s19}
spec:
  startTime: "2025-06-02T09:00:00Z"
  until: 6h
  multiKueue: {dispatchLatency: 1s, statusSyncLatency: 1s}
---
apiVersion: kueuesim.io/v1alpha1
kind: Cluster
metadata: {name: manager}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: multikueue}
spec:
  controllerName: kueue.x-k8s.io/multikueue
  parameters: {apiGroup: kueue.x-k8s.io, kind: MultiKueueConfig, name: fleet}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueConfig
metadata: {name: fleet}
spec:
  clusters: [w1]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: w1}
spec:
  clusterSource: {kubeConfig: {location: w1-kubeconfig}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpu}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: default
      resources:
      - {name: nvidia.com/gpu, nominalQuota: "32"}
  admissionChecksStrategy:
    admissionChecks:
    - name: multikueue
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ml}
spec: {clusterQueue: gpu}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: a
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: lq
  annotations:
    kueuesim.io/duration: 1h
    kueuesim.io/arrival: 1m
spec:
  template:
    spec:
      containers:
      - name: c
        resources:
          requests:
            nvidia.com/gpu: "4"
---
apiVersion: kueuesim.io/v1alpha1
kind: Cluster
metadata: {name: w1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpu}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: default
      resources:
      - {name: nvidia.com/gpu, nominalQuota: "8"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ml}
spec: {clusterQueue: gpu}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: a
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: lq
  annotations:
    kueuesim.io/duration: 2h
spec:
  template:
    spec:
      containers:
      - name: c
        resources:
          requests:
            nvidia.com/gpu: "4"
)";
  auto scenario = testing::LoadYaml(yaml, "clash.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  static const policy::PolicyRegistry builtins = policy::PolicyRegistry::WithBuiltins();
  auto simulation = sim::Simulation::Create(*scenario, builtins);
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  // "<cluster> <workload>" of each quota reservation.
  struct Reservations : cluster::EventSink {
    void OnEvent(const cluster::SimEvent& event) override {
      if (event.type != cluster::EventType::kQuotaReserved || event.workload == cluster::kNone) return;
      lines.push_back(event.cluster->name() + " " + event.cluster->workload(event.workload).key);
    }
    std::vector<std::string> lines;
  } reservations;
  (*simulation)->AddEventSink(&reservations);
  sim::RunOptions options;
  options.check_invariants = true;
  const absl::Status status = (*simulation)->Run(options);
  EXPECT_TRUE(status.ok()) << status;
  ASSERT_GE(reservations.lines.size(), 3u);
  EXPECT_EQ(reservations.lines[0], "w1 ml/job-a");       // the worker's own Job
  EXPECT_EQ(reservations.lines[1], "manager ml/job-a");  // the manager's
  EXPECT_THAT(reservations.lines[2], ::testing::StartsWith("w1 ml/job-a-"));  // its copy, renamed
}

// Setup: the manager's ClusterQueue has the MultiKueue check and a check of
// another controller that turns Ready after 12 minutes; Incremental
// dispatcher with stepSize 1 over three workers. Invariant: the Incremental
// rounds do not wait for the other check (its reconciler nominates at 0,
// 5m and 10m); the copies do (nominateAndSynchronizeWorkers): all three are
// created once the check is Ready, at 12m (plus the dispatch latency).
TEST(MultiKueueFlowTest, IncrementalRoundsGoOnWhileOtherChecksArePending) {
  const std::string yaml = R"(apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: s21}
spec:
  startTime: "2025-06-02T09:00:00Z"
  until: 6h
  multiKueue: {dispatchLatency: 1s, statusSyncLatency: 1s}
---
apiVersion: kueuesim.io/v1alpha1
kind: Cluster
metadata: {name: manager}
---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
multiKueue:
  dispatcherName: kueue.x-k8s.io/multikueue-dispatcher-incremental
  incrementalDispatcherConfig: {stepSize: 1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: multikueue}
spec:
  controllerName: kueue.x-k8s.io/multikueue
  parameters: {apiGroup: kueue.x-k8s.io, kind: MultiKueueConfig, name: fleet}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueConfig
metadata: {name: fleet}
spec:
  clusters: [w1, w2, w3]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: w1}
spec:
  clusterSource: {kubeConfig: {location: w1-kubeconfig}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: w2}
spec:
  clusterSource: {kubeConfig: {location: w2-kubeconfig}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: w3}
spec:
  clusterSource: {kubeConfig: {location: w3-kubeconfig}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpu}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: default
      resources:
      - {name: nvidia.com/gpu, nominalQuota: "32"}
  admissionChecksStrategy:
    admissionChecks:
    - name: multikueue
    - name: slow
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ml}
spec: {clusterQueue: gpu}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: slow
  annotations:
    kueuesim.io/check-delay: 12m
spec:
  controllerName: example.com/slow
---
apiVersion: batch/v1
kind: Job
metadata:
  name: a
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: lq
  annotations:
    kueuesim.io/duration: 1h
spec:
  template:
    spec:
      containers:
      - name: c
        resources:
          requests:
            nvidia.com/gpu: "4"
---
apiVersion: kueuesim.io/v1alpha1
kind: Cluster
metadata: {name: w1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpu}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: default
      resources:
      - {name: nvidia.com/gpu, nominalQuota: "0"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ml}
spec: {clusterQueue: gpu}
---
apiVersion: kueuesim.io/v1alpha1
kind: Cluster
metadata: {name: w2}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpu}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: default
      resources:
      - {name: nvidia.com/gpu, nominalQuota: "0"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ml}
spec: {clusterQueue: gpu}
---
apiVersion: kueuesim.io/v1alpha1
kind: Cluster
metadata: {name: w3}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpu}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: default
      resources:
      - {name: nvidia.com/gpu, nominalQuota: "8"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ml}
spec: {clusterQueue: gpu}
)";
  auto scenario = testing::LoadYaml(yaml, "incremental.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  static const policy::PolicyRegistry builtins = policy::PolicyRegistry::WithBuiltins();
  auto simulation = sim::Simulation::Create(*scenario, builtins);
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  // "<seconds> <type>" of the manager's nominations and dispatches.
  struct NominationLog : cluster::EventSink {
    void OnEvent(const cluster::SimEvent& event) override {
      if (event.type == cluster::EventType::kNominated || event.type == cluster::EventType::kDispatched) {
        lines.push_back(fmt::format("{} {}", FormatSeconds(event.time),
                                    event.type == cluster::EventType::kNominated ? "Nominated" : "Dispatched"));
      }
    }
    std::vector<std::string> lines;
  } log;
  (*simulation)->AddEventSink(&log);
  sim::RunOptions options;
  options.check_invariants = true;
  ASSERT_TRUE((*simulation)->Run(options).ok());
  EXPECT_THAT(log.lines, ElementsAre("0.0 Nominated", "300.0 Nominated", "600.0 Nominated", "721.0 Dispatched",
                                          "721.0 Dispatched", "721.0 Dispatched"));
}

}  // namespace
}  // namespace kueuesim
