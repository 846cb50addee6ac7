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
#include "kueuesim/runtime/lws_controller.h"
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
        event.type == cluster::EventType::kRolloutCompleted || event.type == cluster::EventType::kRolloutStalled ||
        event.type == cluster::EventType::kRolloutResumed) {
      lines.push_back(fmt::format("{} {} {}", FormatSeconds(event.time), type, event.group));
      if (event.type == cluster::EventType::kRolloutStalled) stall_reasons.emplace_back(event.reason);
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
  std::vector<std::string> stall_reasons;  // of the RolloutStalled events, in order
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
// rollingUpdateConfiguration; `changes` are extra documents;
// `simulation_spec` extra lines of the Simulation's spec (2 spaces of
// indent); `startup_policy` its startupPolicy.
std::string Scenario(int replicas, const std::string& rolling, const std::string& changes,
                     const std::string& simulation_spec = "", const std::string& startup_policy = "LeaderCreated") {
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
  startupPolicy: {4}
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
                     replicas, rolling, changes, simulation_spec, startup_policy);
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

// Setup: 2 groups; the LeaderWorkerSet carries Kueue's admission gate.
// Expected: Kueue's LWS reconciler copies kueue.x-k8s.io/admission-gated-by
// to each group's Workload, so neither reserves quota; without the
// annotation both are admitted at once (the control).
TEST(LwsControllerTest, AdmissionGateOnTheLeaderWorkerSetGatesEveryGroup) {
  const std::string plain = Scenario(2, "{maxUnavailable: 1, maxSurge: 0}", "");
  std::string gated = plain;
  const std::string annotations = "  annotations:\n";
  const auto at = gated.find(annotations);
  ASSERT_NE(at, std::string::npos);
  gated.insert(at + annotations.size(), "    kueue.x-k8s.io/admission-gated-by: example.com/approver\n");

  auto control = RunYaml(plain);
  ASSERT_NE(control, nullptr);
  EXPECT_EQ(control->Of("QuotaReserved").size(), 2u);

  auto run = RunYaml(gated);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("QuotaReserved"), IsEmpty());
  EXPECT_THAT(run->Of("Admitted"), IsEmpty());
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

std::string ScaleTo(const std::string& at, int replicas) {
  return fmt::format(R"(apiVersion: kueuesim.io/v1alpha1
kind: Change
metadata: {{name: scale-{0}}}
spec:
  at: {0}
  target: {{kind: LeaderWorkerSet, namespace: inference, name: llm}}
  replicas: {1}
---
)",
                     at, replicas);
}

const char kFixedSurgeWorkloads[] = "  leaderWorkerSet: {kueueSurgeWorkloads: fixed}\n";

// Setup: 3 groups of 2 GPUs (6 of the 8), maxUnavailable 0, maxSurge 1, a
// new revision at 1h; pods ready 1 minute after they start and gone at
// once when deleted (LeaderCreated: the worker StatefulSet comes with the
// leader, so a recreated group counts as updated at once).
// Expected, as Kueue ff69552e does it: the surge group 3 is admitted
// (the last 2 GPUs) and ready at 3660; groups 2 and 1 are replaced at 3660
// and 3720. Recreating group 1 makes 3 groups updated (3, 2, 1) =
// spec.replicas: Kueue deletes the surge Workload and its pod-group
// reconciler stops the surge pods (GroupStopped at 3720), although LWS
// still wants the surge group. The StatefulSet recreates leader 3, gated;
// updated stays 3, so no Workload comes back. Ready groups fall to 2
// (below replicas - maxUnavailable), and LWS never replaces group 0: its
// partition needs the top group ready. The rollout stalls from 3780 (when
// group 1 is ready and nothing moves), without a Workload for group 3.
TEST(LwsControllerTest, DeletedSurgeWorkloadStopsTheSurgePodsAndTheRolloutStalls) {
  auto run = RunYaml(Scenario(3, "{maxUnavailable: 0, maxSurge: 1}", Rollout("1h")));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("GroupReplaced"), ElementsAre("3660.0 GroupReplaced 2", "3720.0 GroupReplaced 1"));
  EXPECT_THAT(run->Of("Deleted"), ElementsAre("3720.0 Deleted inference/leaderworkerset-llm-3"));
  EXPECT_THAT(run->Of("GroupStopped"), ElementsAre("3720.0 GroupStopped 3"));
  EXPECT_THAT(run->Of("GroupNotReady"), Contains("3720.0 GroupNotReady 3"));
  EXPECT_THAT(run->Of("RolloutStalled"), ElementsAre("3780.000001 RolloutStalled 3"));
  EXPECT_THAT(run->Of("RolloutCompleted"), IsEmpty());
}

// Setup: the same with kueueSurgeWorkloads: fixed.
// Expected: the surge Workload is kept while group 3 exists: group 0 is
// replaced at 3780 once group 1 is ready, LWS drops the surge group when
// group 0 is ready (3840) and only then is its Workload deleted; the
// rollout completes at 3840 and nothing is stopped.
TEST(LwsControllerTest, FixedSurgeWorkloadsKeepTheSurgeUntilLwsDropsIt) {
  auto run = RunYaml(Scenario(3, "{maxUnavailable: 0, maxSurge: 1}", Rollout("1h"), kFixedSurgeWorkloads));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("GroupReplaced"),
              ElementsAre("3660.0 GroupReplaced 2", "3720.0 GroupReplaced 1", "3780.0 GroupReplaced 0"));
  EXPECT_THAT(run->Of("GroupStopped"), IsEmpty());
  EXPECT_THAT(run->Of("Deleted"), ElementsAre("3840.0 Deleted inference/leaderworkerset-llm-3"));
  EXPECT_THAT(run->Of("RolloutCompleted"), ElementsAre("3840.0 RolloutCompleted -1"));
}

// Setup: the same as the first, under LeaderReady (leader 1m, then the
// worker StatefulSet and its pods 1m).
// Expected: a group counts as updated only once its worker StatefulSet
// exists, after its leader is ready: recreating group 1 at 3840 does not
// reach 3 updated groups; its leader being ready at 3900 does, and only
// then is the surge Workload deleted (not at 3840). The recreated surge
// leader has no worker StatefulSet (it never gets ready while gated), so
// updated falls back to 2 and Kueue creates the Workload again a second
// later (3901); once that leader is ready (3961) the Workload is deleted
// again: the surge group churns and the rollout never completes.
TEST(LwsControllerTest, LeaderReadyCountsAGroupUpdatedOnceItsWorkersExist) {
  auto run = RunYaml(Scenario(3, "{maxUnavailable: 0, maxSurge: 1}", Rollout("1h"), "", "LeaderReady"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("GroupReplaced"), ElementsAre("3720.0 GroupReplaced 2", "3840.0 GroupReplaced 1"));
  const auto deleted = run->Of("Deleted");
  ASSERT_GE(deleted.size(), 2u);
  EXPECT_EQ(deleted[0], "3900.0 Deleted inference/leaderworkerset-llm-3");
  EXPECT_EQ(deleted[1], "3961.0 Deleted inference/leaderworkerset-llm-3");
  const auto created = run->Of("SurgeCreated");
  ASSERT_GE(created.size(), 2u);
  EXPECT_EQ(created[0], "3600.0 SurgeCreated 3");
  EXPECT_EQ(created[1], "3901.0 SurgeCreated 3");
  EXPECT_THAT(run->Of("RolloutCompleted"), IsEmpty());
}

// Setup: 3 groups, maxUnavailable 0, maxSurge 1, pods take 2m to
// terminate; a new revision at 1h creates the surge group 3 (ready at
// 3660); at 3630 the LWS is scaled down to 2 groups.
// Expected: LWS keeps a burst of replicas + maxSurge = 3 leaders, so the
// StatefulSet removes leader 3, which terminates until 3750. Kueue keeps
// the Workloads for the indices below status.replicas, and the
// terminating leader counts there: Workload 3 is deleted at 3750, when the
// pod is gone, not at 3630.
TEST(LwsControllerTest, SurgeWorkloadsFollowStatusReplicasOnAScaleDown) {
  auto run = RunYaml(Scenario(3, "{maxUnavailable: 0, maxSurge: 1}", Rollout("1h") + ScaleTo("3630s", 2),
                              "  evictionDelay: 2m\n"));
  ASSERT_NE(run, nullptr);
  const auto deleted = run->Of("Deleted");
  ASSERT_FALSE(deleted.empty());
  EXPECT_EQ(deleted[0], "3750.0 Deleted inference/leaderworkerset-llm-3");
}

// Setup: 2 groups, maxUnavailable 0 and an integer maxSurge of 2 (= replicas).
// Expected: LWS bursts to 4 groups; the two surge groups are updated at
// once (LeaderCreated), which makes status.updatedReplicas = spec.replicas,
// so Kueue never creates their Workloads: they stay gated and LWS waits for
// them. The stall says why, not that a percentage reads as 0.
TEST(LwsControllerTest, IntegerMaxSurgeOfReplicasStallsForTheRightReason) {
  auto run = RunYaml(Scenario(2, "{maxUnavailable: 0, maxSurge: 2}", Rollout("1h")));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("SurgeCreated"), IsEmpty());
  EXPECT_THAT(run->Of("RolloutStalled"), ElementsAre("3600.000001 RolloutStalled 2"));
  EXPECT_THAT(run->stall_reasons, ElementsAre("no Workload for the surge group (Kueue keeps surge Workloads only "
                                              "while fewer than spec.replicas groups are updated)"));
}

// Setup: 2 groups filling the 4 GPUs of quota, maxUnavailable 1, maxSurge 1.
// Expected: the surge Workload is created and pending at 3600; LWS
// replaces group 1 in place at once, which makes 2 groups updated, so
// Kueue deletes the pending surge Workload in the same instant. Group 1
// is ready at 3660, LWS drops the surge, replaces group 0, and the rollout
// completes at 3720. It never stalled: a group was on its way all along
// (the earlier report kept a "waits for quota" stall whose Workload was
// gone).
TEST(LwsControllerTest, RolloutThatProgressesInPlaceIsNotStalled) {
  std::string yaml = Scenario(2, "{maxUnavailable: 1, maxSurge: 1}", Rollout("1h"));
  const std::string quota = "nominalQuota: \"8\"";
  yaml.replace(yaml.find(quota), quota.size(), "nominalQuota: \"4\"");
  auto run = RunYaml(yaml);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("SurgeCreated"), ElementsAre("3600.0 SurgeCreated 2"));
  EXPECT_THAT(run->Of("Deleted"), ElementsAre("3600.0 Deleted inference/leaderworkerset-llm-2"));
  EXPECT_THAT(run->Of("RolloutStalled"), IsEmpty());
  EXPECT_THAT(run->Of("RolloutCompleted"), ElementsAre("3720.0 RolloutCompleted -1"));
}

// Setup: one low-priority group filling the 2-GPU quota; pods take 2m to
// terminate; a rollout (maxUnavailable 1) at 1h replaces the group (back
// at 3720, ready at 3780). At 3750 a high-priority job of 2 GPUs (20m)
// preempts the group's Workload.
// Expected: the rollout stalls from the preemption (3750): the group's
// pods are stopped then, although its Workload is requeued only when they
// have terminated (3870); it resumes when the group is admitted again
// after the job (5071).
TEST(LwsControllerTest, StallStartsAtThePreemption) {
  const std::string yaml = R"(apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: lws}
spec:
  evictionDelay: 2m
  until: 3h
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
  rolloutStrategy:
    rollingUpdateConfiguration: {maxUnavailable: 1}
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
  annotations: {kueuesim.io/arrival: 3750s, kueuesim.io/duration: 20m}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      containers:
      - name: main
        resources: {requests: {nvidia.com/gpu: "1"}}
---
)" + Rollout("1h");
  auto run = RunYaml(yaml);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("Evicted"), ElementsAre("3750.0 Evicted inference/leaderworkerset-llm-0"));
  EXPECT_THAT(run->Of("Requeued"), ElementsAre("3870.0 Requeued inference/leaderworkerset-llm-0"));
  EXPECT_THAT(run->Of("RolloutStalled"), ElementsAre("3750.000001 RolloutStalled 0"));
  EXPECT_THAT(run->Of("RolloutResumed"), ElementsAre("5071.0 RolloutResumed -1"));
}

// Setup: 3 groups, maxUnavailable 1, maxSurge 1; a new revision at 1h and
// another at 2h, each with a surge group (index 3) whose Workload is
// deleted when the rollout no longer needs it.
// Expected: the second rollout creates the surge Workload again under the
// same name (Kueue names it by index), and both rollouts complete.
TEST(LwsControllerTest, SecondRolloutCreatesTheSurgeWorkloadAgain) {
  auto run = RunYaml(Scenario(3, "{maxUnavailable: 1, maxSurge: 1}", Rollout("1h") + Rollout("2h")));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->Of("SurgeCreated"), ElementsAre("3600.0 SurgeCreated 3", "7200.0 SurgeCreated 3"));
  EXPECT_THAT(run->Of("RolloutCompleted"), ::testing::SizeIs(2));
}

// --- The group-table invariant (docs/invariants.md) ---

// A simulation of `yaml`, run with invariants checked until 30m, and its
// one LeaderWorkerSet controller.
struct CheckedRun {
  std::unique_ptr<sim::Simulation> simulation;
  runtime::LwsController* lws = nullptr;
};

CheckedRun RunCheckedTo30m(const std::string& yaml) {
  CheckedRun run;
  auto simulation = testing::SimulationFromYaml(yaml, {}, "lws.yaml");
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  if (!simulation.ok()) return run;
  run.simulation = std::move(*simulation);
  sim::RunOptions options;
  options.check_invariants = true;
  options.until = 30 * kMinute;
  const absl::Status status = run.simulation->Run(options);
  EXPECT_TRUE(status.ok()) << status;
  const auto& controllers = run.simulation->clusters().at(0)->lws_controllers();
  EXPECT_EQ(controllers.size(), 1u);
  if (controllers.size() == 1) run.lws = controllers[0].get();
  return run;
}

// The group table's check message after `breakage` of group `index`.
std::string MessageAfter(const std::string& yaml, runtime::LwsController::Breakage breakage, int32_t index) {
  CheckedRun run = RunCheckedTo30m(yaml);
  if (run.lws == nullptr) return "no run";
  EXPECT_TRUE(run.lws->CheckGroupTable("here").ok());
  run.lws->BreakForTesting(breakage, index);
  return std::string(run.lws->CheckGroupTable("here").message());
}

using Breakage = runtime::LwsController::Breakage;
using ::testing::HasSubstr;

// Setup: 3 groups of 2 GPUs, all admitted and ready by 30m (6 of the 8
// GPUs). Expect: each way of breaking the group table is caught, naming the
// invariant, the LeaderWorkerSet, the group and the Workload.
TEST(LwsGroupTableInvariantTest, EachBreakageOfAdmittedGroupsIsCaught) {
  const std::string yaml = Scenario(3, "{maxUnavailable: 1, maxSurge: 1}", "");
  EXPECT_THAT(MessageAfter(yaml, Breakage::kForgetWorkload, 1),
              HasSubstr("invariant violated: every Workload of a LeaderWorkerSet is its group's (here): "
                        "LeaderWorkerSet inference/llm group 1: Workload \"inference/leaderworkerset-llm-1\" "
                        "(Admitted) is not the group's Workload"));
  EXPECT_THAT(MessageAfter(yaml, Breakage::kSwapWithNextGroup, 0),
              HasSubstr("invariant violated: a LeaderWorkerSet group's Workload is its own (here): LeaderWorkerSet "
                        "inference/llm group 0: its Workload \"inference/leaderworkerset-llm-1\" (Admitted) belongs "
                        "to owner #0 group 1; expected \"inference/leaderworkerset-llm-0\" of owner #0"));
  EXPECT_THAT(MessageAfter(yaml, Breakage::kDeleteWorkloadSilently, 2),
              HasSubstr("a LeaderWorkerSet group's Workload is its own (here): LeaderWorkerSet inference/llm group "
                        "2: its Workload \"inference/leaderworkerset-llm-2\" (Finished) is gone"));
  EXPECT_THAT(MessageAfter(yaml, Breakage::kLowerReplicasWithoutReconcile, 0),
              HasSubstr("a LeaderWorkerSet group has a Workload only when Kueue keeps one for it (here): "
                        "LeaderWorkerSet inference/llm group 2: it has \"inference/leaderworkerset-llm-2\" "
                        "(Admitted), and Kueue keeps Workloads for groups [0, 2) (spec.replicas 2, status.replicas "
                        "3, status.updatedReplicas 3, maxSurge as Kueue reads it 1)"));
}

// Setup: 5 groups of 2 GPUs on 8 GPUs: groups 0-3 admitted, group 4
// pending (its leader exists, gated). Expect: its pods started without
// admission are caught; its Workload deleted and forgotten (a group Kueue
// keeps a Workload for, without one) is caught.
TEST(LwsGroupTableInvariantTest, PendingGroupBreakagesAreCaught) {
  const std::string yaml = Scenario(5, "{maxUnavailable: 1, maxSurge: 1}", "");
  EXPECT_THAT(MessageAfter(yaml, Breakage::kStartPodsWithoutAdmission, 4),
              HasSubstr("a LeaderWorkerSet group's pods run only while its Workload is admitted (here): "
                        "LeaderWorkerSet inference/llm group 4: its pods were started and its Workload is "
                        "\"inference/leaderworkerset-llm-4\" (Pending)"));
  CheckedRun run = RunCheckedTo30m(yaml);
  ASSERT_NE(run.lws, nullptr);
  run.lws->BreakForTesting(Breakage::kDeleteWorkloadSilently, 4);
  run.lws->BreakForTesting(Breakage::kForgetWorkload, 4);
  EXPECT_THAT(std::string(run.lws->CheckGroupTable("here").message()),
              HasSubstr("a LeaderWorkerSet group has a Workload when Kueue keeps one for it (here): LeaderWorkerSet "
                        "inference/llm group 4: it has none, and Kueue keeps Workloads for groups [0, 5)"));
}

// Setup: 3 groups; at 30m two groups' Workloads are swapped; a Workload of
// 1 GPU arrives at 40m. Expect: the run, checking invariants, stops at the
// check point after that arrival with the group table's violation.
TEST(LwsGroupTableInvariantTest, RunStopsAtTheViolation) {
  const std::string job = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: probe
  namespace: inference
  annotations: {kueuesim.io/arrival: 40m, kueuesim.io/duration: 1m}
spec:
  queueName: serving
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: main
          resources: {requests: {nvidia.com/gpu: "1"}}
---
)";
  CheckedRun run = RunCheckedTo30m(Scenario(3, "{maxUnavailable: 1, maxSurge: 1}", job));
  ASSERT_NE(run.lws, nullptr);
  run.lws->BreakForTesting(Breakage::kSwapWithNextGroup, 1);
  sim::RunOptions options;
  options.check_invariants = true;
  const absl::Status status = run.simulation->Run(options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("a LeaderWorkerSet group's Workload is its own (after engine event"));
  EXPECT_EQ(run.simulation->now(), 40 * kMinute);
}

// Setup: 3 groups whose pods take 30 s to terminate; at 30m a scale to 1,
// at 30m10s back to 3 (groups 1 and 2 still terminating, so LWS keeps
// them), with finished Workload records recycled as for a streamed trace.
// Expect: groups 1 and 2 get Workloads again, each its own, and the run
// passes its invariants. Before the fix, a deleted Workload's record was
// released at once yet remembered by its group; recreating group 1 took
// group 2's freed slot, and recreating group 2 then deleted group 1's new
// Workload as "the old one" (the group table invariant found it on
// scenarios/serving/dlrm-mixed-pool.yaml).
TEST(LwsGroupTableInvariantTest, RecycledRecordsOfDeletedWorkloadsAreNotDeletedAgain) {
  auto recorder = std::make_unique<Recorder>();
  auto simulation = testing::SimulationFromYaml(
      Scenario(3, "{maxUnavailable: 1, maxSurge: 0}", ScaleTo("30m", 1) + ScaleTo("30m10s", 3),
               "  evictionDelay: 30s\n"),
      {recorder.get()}, "lws.yaml");
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  (*simulation)->clusters().at(0)->set_recycle_finished(true);
  sim::RunOptions options;
  options.check_invariants = true;
  options.until = kHour;
  const absl::Status status = (*simulation)->Run(options);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_THAT(recorder->Of("Deleted"), ElementsAre("1800.0 Deleted inference/leaderworkerset-llm-1",
                                                   "1800.0 Deleted inference/leaderworkerset-llm-2"));
  EXPECT_THAT(recorder->Of("QuotaReserved"), ::testing::SizeIs(5));
}

}  // namespace
}  // namespace kueuesim
