// Timed Node changes (kueuesim.io/v1alpha1 Change with target.kind Node)
// under topology-aware scheduling, through the whole simulation: capacity
// follows added/removed/NotReady nodes, and a failed node under an admitted
// workload is replaced or the workload is evicted with NodeFailures.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kueuesim/base/time.h"
#include "kueuesim/cluster/events.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/sim/simulation.h"
#include "testing/scenario_fixtures.h"
#include "testing/simulation_fixtures.h"

namespace kueuesim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// "<seconds> <type> <workload> [reason]" for workload events, "<seconds>
// Changed <object>" for node changes.
class Recorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    if (event.type == cluster::EventType::kPodsReady || event.type == cluster::EventType::kArrived ||
        event.type == cluster::EventType::kAdmitted || event.type == cluster::EventType::kQuotaReleased ||
        event.type == cluster::EventType::kFinished || event.type == cluster::EventType::kPending) {
      return;  // why a workload waits is tested in pending_conditions_test
    }
    std::string line = fmt::format("{} {}", event.time / kSecond, cluster::EventTypeName(event.type));
    if (event.workload != cluster::kNone) line += " " + event.cluster->workload(event.workload).key;
    if (event.type == cluster::EventType::kChanged) line += " " + std::string(event.object);
    if (event.type == cluster::EventType::kChanged || event.type == cluster::EventType::kEvicted) {
      line += " " + std::string(event.reason);
    }
    lines.push_back(line);
  }
  std::vector<std::string> lines;
};

struct Run {
  Recorder recorder;
  std::unique_ptr<sim::Simulation> simulation;
};

absl::StatusOr<std::unique_ptr<Run>> RunYaml(const std::string& yaml) {
  auto run = std::make_unique<Run>();
  auto simulation = testing::SimulationFromYaml(yaml, {&run->recorder}, "nodes.yaml");
  if (!simulation.ok()) return simulation.status();
  run->simulation = *std::move(simulation);
  absl::Status status = run->simulation->Run(sim::RunOptions{});
  if (!status.ok()) return status;
  return run;
}

// One rack of `hosts` nodes n-0.. with 8 GPUs each; ClusterQueue with
// plenty of quota; one LocalQueue "team" in namespace "ml".
std::string Cluster(int hosts) {
  return fmt::format(R"(apiVersion: kueuesim.io/v1alpha1
kind: NodePool
metadata: {{name: n}}
spec:
  count: {}
  namePattern: "n-{{n}}"
  levels: [{{label: rack, count: 1, valuePattern: "r{{i}}"}}]
  labels: {{gpu: "yes"}}
  allocatable: {{cpu: 96, nvidia.com/gpu: 8, pods: 110}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {{name: topo}}
spec:
  levels: [{{nodeLabel: rack}}, {{nodeLabel: kubernetes.io/hostname}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: gpu}}
spec: {{nodeLabels: {{gpu: "yes"}}, topologyName: topo}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: team}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: gpu
      resources: [{{name: nvidia.com/gpu, nominalQuota: "100"}}]
---
apiVersion: v1
kind: Namespace
metadata: {{name: ml}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: team, namespace: ml}}
spec: {{clusterQueue: team}}
)",
                     hosts);
}

// A job of `pods` pods of 8 GPUs each, required in one rack.
std::string Job(const std::string& name, int pods, const std::string& arrival) {
  return fmt::format(R"(---
apiVersion: batch/v1
kind: Job
metadata:
  name: {}
  namespace: ml
  labels: {{kueue.x-k8s.io/queue-name: team}}
  annotations: {{kueuesim.io/arrival: {}, kueuesim.io/duration: 10h}}
spec:
  parallelism: {}
  completions: {}
  template:
    metadata:
      annotations: {{kueue.x-k8s.io/podset-required-topology: rack}}
    spec:
      restartPolicy: Never
      containers:
      - name: c
        resources: {{requests: {{nvidia.com/gpu: "8"}}}}
)",
                     name, arrival, pods, pods);
}

std::string Change(const std::string& name, const std::string& at, const std::string& node,
                   const std::string& body) {
  return fmt::format(R"(---
apiVersion: kueuesim.io/v1alpha1
kind: Change
metadata: {{name: {}}}
spec:
  at: {}
  target: {{kind: Node, name: {}}}
{})",
                     name, at, node, body);
}

std::vector<std::string> Matching(const std::vector<std::string>& lines, const std::string& needle) {
  std::vector<std::string> out;
  for (const auto& l : lines) {
    if (l.find(needle) != std::string::npos) out.push_back(l);
  }
  return out;
}

TEST(NodeChangesTest, AddedNodeLetsWaitingWorkloadIn) {
  const std::string added = R"(  action: Add
  node:
    labels: {gpu: "yes", rack: r0}
    allocatable: {cpu: 96, nvidia.com/gpu: 8, pods: 110}
)";
  auto run = RunYaml(Cluster(2) + Job("big", 3, "0s") + Change("add", "10m", "n-2", added));
  ASSERT_TRUE(run.ok()) << run.status();
  // Waits for the node, then the 1 s requeue batching.
  EXPECT_THAT(Matching((*run)->recorder.lines, "QuotaReserved"), ElementsAre("601 QuotaReserved ml/job-big"));
  EXPECT_THAT(Matching((*run)->recorder.lines, "Changed"), ElementsAre("600 Changed Node/n-2 add"));
}

TEST(NodeChangesTest, RemovedIdleNodeShrinksCapacity) {
  auto run = RunYaml(Cluster(3) + Job("big", 3, "10m") +
                     Change("remove", "5m", "n-2", "  action: Remove\n"));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(Matching((*run)->recorder.lines, "QuotaReserved"), IsEmpty());
  // Without the removal it would fit.
  auto control = RunYaml(Cluster(3) + Job("big", 3, "10m"));
  ASSERT_TRUE(control.ok()) << control.status();
  EXPECT_THAT(Matching((*control)->recorder.lines, "QuotaReserved"), ElementsAre("600 QuotaReserved ml/job-big"));
}

TEST(NodeChangesTest, RemovedNodeUnderWorkloadIsReplacedBySpare) {
  auto run = RunYaml(Cluster(3) + Job("train", 2, "0s") + Change("remove", "5m", "n-0", "  action: Remove\n") +
                     Job("late", 2, "6m"));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(Matching((*run)->recorder.lines, "ml/job-train"),
              ElementsAre("0 QuotaReserved ml/job-train", "300 Changed ml/job-train Node/n-0 NodeReplaced"));
  // The spare is taken: the late job (2 hosts) waits until train ends.
  EXPECT_THAT(Matching((*run)->recorder.lines, "ml/job-late"), ElementsAre("36001 QuotaReserved ml/job-late"));
}

TEST(NodeChangesTest, RemovedNodeWithoutSpareEvictsWithNodeFailures) {
  auto run = RunYaml(Cluster(2) + Job("train", 2, "0s") + Change("remove", "5m", "n-1", "  action: Remove\n"));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(Matching((*run)->recorder.lines, "ml/job-train"),
              ElementsAre("0 QuotaReserved ml/job-train", "300 Evicted ml/job-train NodeFailures",
                          "300 Requeued ml/job-train"));
}

TEST(NodeChangesTest, TwoNodesFailingTogetherEvict) {
  auto run = RunYaml(Cluster(4) + Job("train", 2, "0s") + Change("a", "5m", "n-0", "  action: Remove\n") +
                     Change("b", "5m", "n-1", "  action: Remove\n"));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(Matching((*run)->recorder.lines, "Evicted"), ElementsAre("300 Evicted ml/job-train NodeFailures"));
  // Requeued, it fits the two nodes left.
  EXPECT_THAT(Matching((*run)->recorder.lines, "QuotaReserved"),
              ElementsAre("0 QuotaReserved ml/job-train", "300 QuotaReserved ml/job-train"));
}

TEST(NodeChangesTest, NotReadyNodeFailsAfterDelayUnlessRecovered) {
  // Fails after the default 300 s.
  auto failed = RunYaml(Cluster(3) + Job("train", 2, "0s") + Change("down", "5m", "n-0", "  ready: false\n"));
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_THAT(Matching((*failed)->recorder.lines, "NodeReplaced"),
              ElementsAre("600 Changed ml/job-train Node/n-0 NodeReplaced"));
  // Ready again within the delay: nothing happens to the workload.
  auto recovered = RunYaml(Cluster(3) + Job("train", 2, "0s") + Change("down", "5m", "n-0", "  ready: false\n") +
                           Change("up", "8m", "n-0", "  ready: true\n"));
  ASSERT_TRUE(recovered.ok()) << recovered.status();
  EXPECT_THAT(Matching((*recovered)->recorder.lines, "ml/job-train"), ElementsAre("0 QuotaReserved ml/job-train"));
  // nodeFailureDelay is a setting.
  auto quick = RunYaml(std::string(R"(apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: s}
spec: {nodeFailureDelay: 60s}
---
)") + Cluster(3) + Job("train", 2, "0s") + Change("down", "5m", "n-0", "  ready: false\n"));
  ASSERT_TRUE(quick.ok()) << quick.status();
  EXPECT_THAT(Matching((*quick)->recorder.lines, "NodeReplaced"),
              ElementsAre("360 Changed ml/job-train Node/n-0 NodeReplaced"));
}

TEST(NodeChangesTest, CordonedNodeTakesNoNewPodsButKeepsItsOwn) {
  auto run = RunYaml(Cluster(3) + Job("train", 2, "0s") + Change("cordon", "5m", "n-2", "  unschedulable: true\n") +
                     Job("one", 1, "6m"));
  ASSERT_TRUE(run.ok()) << run.status();
  // train keeps n-0 and n-1 (no failure); "one" waits until train ends.
  EXPECT_THAT(Matching((*run)->recorder.lines, "ml/job-train"), ElementsAre("0 QuotaReserved ml/job-train"));
  EXPECT_THAT(Matching((*run)->recorder.lines, "ml/job-one"), ElementsAre("36001 QuotaReserved ml/job-one"));
}

TEST(NodeChangesTest, BadChangesAreLoadErrors) {
  auto missing = RunYaml(Cluster(2) + Change("x", "5m", "nope", "  action: Remove\n"));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("no node \"nope\""));
  auto twice = RunYaml(Cluster(2) + Change("x", "5m", "n-0", "  action: Remove\n") +
                       Change("y", "6m", "n-0", "  ready: false\n"));
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().message(), HasSubstr("removed earlier"));
  auto no_node = RunYaml(Cluster(2) + Change("x", "5m", "n-9", "  action: Add\n"));
  ASSERT_FALSE(no_node.ok());
  EXPECT_THAT(no_node.status().message(), HasSubstr("must describe the node"));
  auto exists = RunYaml(Cluster(2) + Change("x", "5m", "n-0", "  action: Add\n  node: {allocatable: {cpu: 1}}\n"));
  ASSERT_FALSE(exists.ok());
  EXPECT_THAT(exists.status().message(), HasSubstr("already exists"));
}

}  // namespace
}  // namespace kueuesim
