// The LeaderWorkerSet controller through the whole simulation: rollouts
// that need no surge, and groups evicted while their leader terminates.
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

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// "<seconds> <type> <group>" for LWS events, "<seconds> <type> <workload>"
// for workload events.
class Recorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    const std::string type(cluster::EventTypeName(event.type));
    if (event.group >= 0 || event.type == cluster::EventType::kRolloutStarted ||
        event.type == cluster::EventType::kRolloutCompleted || event.type == cluster::EventType::kRolloutStalled) {
      lines.push_back(fmt::format("{} {} {}", FormatSeconds(event.time), type, event.group));
    } else if (event.workload != cluster::kNone) {
      lines.push_back(fmt::format("{} {} {}", FormatSeconds(event.time), type,
                                  event.cluster->workload(event.workload).key));
    }
  }
  std::vector<std::string> Of(std::string_view type) const {
    std::vector<std::string> out;
    for (const auto& l : lines) {
      if (l.find(fmt::format(" {} ", type)) != std::string::npos) out.push_back(l);
    }
    return out;
  }
  std::vector<std::string> lines;
};

std::unique_ptr<Recorder> RunYaml(const std::string& yaml) {
  auto recorder = std::make_unique<Recorder>();
  auto simulation = testing::SimulationFromYaml(yaml, {recorder.get()}, "lws.yaml");
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  if (!simulation.ok()) return nullptr;
  absl::Status status = (*simulation)->Run(sim::RunOptions{});
  EXPECT_TRUE(status.ok()) << status;
  return recorder;
}

// 8 GPUs of quota; an LWS "llm" of `replicas` groups of size 2 (1 GPU per
// pod), ready 1 minute after admission; `rolling` is its
// rollingUpdateConfiguration; `changes` are extra documents.
std::string Scenario(int replicas, const std::string& rolling, const std::string& changes,
                     const std::string& simulation_spec = "") {
  return fmt::format(R"(apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {{name: lws}}
spec:
  until: 4h
{3}---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: gpu}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: serving}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: gpu
      resources:
      - {{name: nvidia.com/gpu, nominalQuota: "8"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: serving, namespace: inference}}
spec: {{clusterQueue: serving}}
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: llm
  namespace: inference
  labels: {{kueue.x-k8s.io/queue-name: serving}}
  annotations:
    kueuesim.io/leader-startup-delay: 1m
    kueuesim.io/worker-startup-delay: 1m
spec:
  replicas: {0}
  rolloutStrategy:
    rollingUpdateConfiguration: {1}
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers:
        - name: main
          resources: {{requests: {{nvidia.com/gpu: "1"}}}}
---
{2})",
                     replicas, rolling, changes, simulation_spec);
}

std::string Rollout(const std::string& at, const std::string& extra = "") {
  return fmt::format(R"(apiVersion: kueuesim.io/v1alpha1
kind: Change
metadata: {{name: new-version-{0}}}
spec:
  at: {0}
  target: {{kind: LeaderWorkerSet, namespace: inference, name: llm}}
  rollout: true
{1}---
)",
                     at, extra);
}

// Setup: 4 groups, maxUnavailable 1, maxSurge 0 (the LWS default); a new
// revision at 1h. Expected (design/lws-multikueue-dra.md A.7, variant
// MU=1, MS=0: the partition goes 4 -> 3 -> 2 -> 1 -> 0): the rollout starts
// at once, replaces the groups from the highest index down, one at a time:
// each new group is re-admitted at once (its own quota came back) and ready
// a minute later (leader and worker start together under LeaderCreated),
// which lets the next one go; it completes at 3840 s and no surge group is
// ever created.
TEST(LwsControllerTest, RolloutWithoutSurgeProgressesOnItsOwn) {
  auto run = RunYaml(Scenario(4, "{maxUnavailable: 1, maxSurge: 0}", Rollout("1h")));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("RolloutStarted"), ElementsAre("3600.0 RolloutStarted -1"));
  EXPECT_THAT(run->Of("GroupReplaced"),
              ElementsAre("3600.0 GroupReplaced 3", "3660.0 GroupReplaced 2", "3720.0 GroupReplaced 1",
                          "3780.0 GroupReplaced 0"));
  EXPECT_THAT(run->Of("SurgeCreated"), IsEmpty());
  EXPECT_THAT(run->Of("RolloutCompleted"), ElementsAre("3840.0 RolloutCompleted -1"));
}

// Setup: the same with partition 3 (a canary of one group).
// Expected: only group 3 is replaced; the rollout waits at the partition.
TEST(LwsControllerTest, CanaryPartitionReplacesOnlyTheGroupsAboveIt) {
  auto run = RunYaml(Scenario(4, "{maxUnavailable: 1, maxSurge: 0, partition: 3}", Rollout("1h")));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("GroupReplaced"), ElementsAre("3600.0 GroupReplaced 3"));
}

std::string Configuration(const std::string& wait_for_pods_ready) {
  return "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nwaitForPodsReady: " + wait_for_pods_ready +
         "\n---\n";
}

std::string FailGroup(const std::string& at, int group) {
  return fmt::format(R"(apiVersion: kueuesim.io/v1alpha1
kind: Change
metadata: {{name: crash-{0}}}
spec:
  at: {0}
  target: {{kind: LeaderWorkerSet, namespace: inference, name: llm}}
  failGroup: {1}
---
)",
                     at, group);
}

// Setup: waitForPodsReady with its 30m timeout; 2 groups, ready at 1m;
// group 1's pods fail at exactly 30m (RecreateGroupOnPodRestart recreates
// the group, ready again a minute later).
// Expected: no eviction: once a workload's pods were ready, Kueue's PodsReady
// timeout no longer applies (only recoveryTimeout, unset here).
TEST(LwsControllerTest, ReadyGroupIsNotEvictedByTheAdmissionTimeout) {
  auto run = RunYaml(Configuration("{timeout: 30m}") +
                     Scenario(2, "{maxUnavailable: 1}", FailGroup("30m", 1)));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("Evicted"), IsEmpty());
  EXPECT_THAT(run->Of("GroupReady"), ElementsAre("60.0 GroupReady 0", "60.0 GroupReady 1", "1860.0 GroupReady 1"));
}

// Setup: the same with recoveryTimeout 30s: the recreated group needs a
// minute to be ready again.
// Expected: group 1's Workload is evicted 30 s after its pods failed, with
// Kueue's PodsReadyTimeout reason (seen as an Evicted event at 1830 s).
TEST(LwsControllerTest, RecoveryTimeoutEvictsAGroupThatStaysNotReady) {
  auto run = RunYaml(Configuration("{timeout: 30m, recoveryTimeout: 30s}") +
                     Scenario(2, "{maxUnavailable: 1}", FailGroup("30m", 1)));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("Evicted"), ElementsAre("1830.0 Evicted inference/leaderworkerset-llm-1"));
}

// Setup: pods take 2m to terminate (evictionDelay); one low-priority group
// of 2 GPUs fills the 2-GPU quota and is ready at 1m. At 10m a pod of the
// group fails, so its leader is deleted (terminating until 12m). At 11m a
// high-priority job of 2 GPUs (20m) arrives and preempts the group's
// Workload while the leader is still terminating.
// Expected: the termination completes at 12m and the group is recreated
// (gated); its Workload is admitted again after the job finishes (33m, then
// the 1 s requeue) and the group is ready a minute later.
TEST(LwsControllerTest, GroupEvictedWhileTerminatingIsRecreated) {
  const std::string yaml = R"(apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: lws}
spec:
  evictionDelay: 2m
  until: 2h
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: low}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: gpu}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: serving}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: gpu
      resources:
      - {name: nvidia.com/gpu, nominalQuota: "2"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: serving, namespace: inference}
spec: {clusterQueue: serving}
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: llm
  namespace: inference
  labels: {kueue.x-k8s.io/queue-name: serving, kueue.x-k8s.io/priority-class: low}
  annotations:
    kueuesim.io/leader-startup-delay: 1m
    kueuesim.io/worker-startup-delay: 1m
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers:
        - name: main
          resources: {requests: {nvidia.com/gpu: "1"}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: urgent
  namespace: inference
  labels: {kueue.x-k8s.io/queue-name: serving, kueue.x-k8s.io/priority-class: high}
  annotations: {kueuesim.io/arrival: 11m, kueuesim.io/duration: 20m}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      containers:
      - name: main
        resources: {requests: {nvidia.com/gpu: "1"}}
---
)" + FailGroup("10m", 0);
  auto run = RunYaml(yaml);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("Evicted"), ElementsAre("660.0 Evicted inference/leaderworkerset-llm-0"));
  EXPECT_THAT(run->Of("QuotaReserved"),
              ElementsAre("0.0 QuotaReserved inference/leaderworkerset-llm-0", "780.0 QuotaReserved inference/job-urgent",
                          "1981.0 QuotaReserved inference/leaderworkerset-llm-0"));
  EXPECT_THAT(run->Of("GroupReady"), ElementsAre("60.0 GroupReady 0", "2041.0 GroupReady 0"));
}

// Setup: 4 groups scaled down to 2 at 1h.
// Expected: groups 3 then 2 go (the StatefulSet removes the highest
// ordinal first; not ready at 1h, their Workloads deleted);
// no SurgeReleased event, since neither was a surge group.
TEST(LwsControllerTest, ScaleDownRemovesGroupsWithoutSurgeEvents) {
  const std::string scale = R"(apiVersion: kueuesim.io/v1alpha1
kind: Change
metadata: {name: scale-down}
spec:
  at: 1h
  target: {kind: LeaderWorkerSet, namespace: inference, name: llm}
  replicas: 2
---
)";
  auto run = RunYaml(Scenario(4, "{maxUnavailable: 1, maxSurge: 1}", scale));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("GroupNotReady"), ElementsAre("3600.0 GroupNotReady 3", "3600.0 GroupNotReady 2"));
  EXPECT_THAT(run->Of("SurgeReleased"), IsEmpty());
}

}  // namespace
}  // namespace kueuesim
