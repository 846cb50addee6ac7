// Workloads admitted in their input status: the quota they hold from time 0.
// Kueue (workload.go, totalRequestsFromAdmission) charges the admission's
// resourceUsage, scaled down when the spec now has fewer pods than were
// admitted (usage / admitted count * remaining count, in integer units).
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

namespace kueuesim {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// "<seconds> <workload>" for each QuotaReserved event.
class ReservedRecorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    if (event.type != cluster::EventType::kQuotaReserved || event.workload == cluster::kNone) return;
    lines.push_back(
        fmt::format("{} {}", FormatSeconds(event.time), event.cluster->workload(event.workload).key));
  }
  std::vector<std::string> lines;
};

// ClusterQueue "cq" with 6 cpu; "running" holds an admission of
// `admitted_count` pods using `usage` cpu while its spec now has
// `spec_count` pods; "waiting" asks for 2 cpu (2 pods of 1 cpu).
std::string Scenario(int spec_count, int admitted_count, const std::string& usage) {
  return fmt::format(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: default}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: "6"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq, namespace: ns}}
spec: {{clusterQueue: cq}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: running, namespace: ns, creationTimestamp: '2025-01-01T00:00:00Z'}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: {0}
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {{cpu: '1'}}}}
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: main
      flavors: {{cpu: default}}
      resourceUsage: {{cpu: '{2}'}}
      count: {1}
  conditions:
  - {{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: reserved}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: waiting, namespace: ns, creationTimestamp: '2025-01-01T00:00:00Z'}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 2
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {{cpu: '1'}}}}
)",
                     spec_count, admitted_count, usage);
}

// Runs `yaml` with `sink` observing its events (test failures for errors).
void RunObserved(const std::string& yaml, cluster::EventSink* sink, bool check_invariants = false) {
  auto scenario = testing::LoadYaml(yaml, "admitted.yaml");
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  if (!scenario.ok()) return;
  static const policy::PolicyRegistry builtins = policy::PolicyRegistry::WithBuiltins();
  auto simulation = sim::Simulation::Create(*scenario, builtins);
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  if (!simulation.ok()) return;
  (*simulation)->AddEventSink(sink);
  sim::RunOptions options;
  options.check_invariants = check_invariants;
  absl::Status status = (*simulation)->Run(options);
  EXPECT_TRUE(status.ok()) << status;
}

std::vector<std::string> Reserved(const std::string& yaml) {
  ReservedRecorder recorder;
  RunObserved(yaml, &recorder);
  return recorder.lines;
}

// Admitted with 5 pods (5 cpu), the spec now has 4: it holds 5 / 5 * 4 = 4
// cpu, so the 2 cpu of "waiting" fit in the 6 cpu quota.
TEST(AdmittedAtStartTest, FewerPodsThanAdmittedHoldProportionallyLessQuota) {
  EXPECT_THAT(Reserved(Scenario(4, 5, "5")), ElementsAre("0.0 ns/waiting"));
}

// The same admission with the spec still at 5 pods holds all 5 cpu: no room.
TEST(AdmittedAtStartTest, UnchangedPodCountHoldsTheAdmittedUsage) {
  EXPECT_THAT(Reserved(Scenario(5, 5, "5")), IsEmpty());
}

// Integer division first, as Kueue: 5 cpu (5000m) admitted for 3 pods, 2
// left: 5000 / 3 * 2 = 3332m held. With "waiting" (2 cpu) and "exact"
// (668m) that is exactly 6000m; multiplying first (5000 * 2 / 3 = 3333m)
// would leave "exact" 1m short.
TEST(AdmittedAtStartTest, ScalingDividesBeforeMultiplying) {
  std::string yaml = Scenario(2, 3, "5") + R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: exact, namespace: ns, creationTimestamp: '2025-01-01T00:00:01Z'}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: '668m'}}
)";
  EXPECT_THAT(Reserved(yaml), ElementsAre("0.0 ns/waiting", "0.0 ns/exact"));
}

// status.reclaimablePods (ReclaimablePods gate, on by default): one of the
// 5 admitted pods is reclaimable, so the workload holds 5 / 5 * 4 = 4 cpu
// (totalRequestsFromAdmission with podSetsCountsAfterReclaim) and the 2 cpu
// of "waiting" fit. With the gate off the pod still counts: no room.
TEST(AdmittedAtStartTest, ReclaimablePodsReleaseTheirShareOfTheAdmission) {
  std::string yaml = Scenario(5, 5, "5");
  const std::string status = "status:\n  admission:";
  yaml.replace(yaml.find(status), status.size(),
               "status:\n  reclaimablePods: [{name: main, count: 1}]\n  admission:");
  EXPECT_THAT(Reserved(yaml), ElementsAre("0.0 ns/waiting"));
  EXPECT_THAT(Reserved("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates:\n"
                       "  ReclaimablePods: false\n---\n" + yaml),
              IsEmpty());
}

// A pending workload's reclaimable pods are not charged either
// (totalRequestsFromPodSets): "waiting" asks for 4 pods of 1 cpu with 3
// reclaimable, so 1 cpu, and fits next to the 5 cpu "running" holds; it is
// admitted with count 1.
TEST(AdmittedAtStartTest, PendingWorkloadIsChargedWithoutItsReclaimablePods) {
  std::string yaml = Scenario(5, 5, "5");
  const std::string waiting = "    count: 2\n";
  yaml.replace(yaml.rfind(waiting), waiting.size(), "    count: 4\n");
  yaml += "status:\n  reclaimablePods: [{name: main, count: 3}]\n";
  auto scenario = testing::LoadYaml(yaml, "admitted.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  static const policy::PolicyRegistry builtins = policy::PolicyRegistry::WithBuiltins();
  auto simulation = sim::Simulation::Create(*scenario, builtins);
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  ReservedRecorder recorder;
  (*simulation)->AddEventSink(&recorder);
  ASSERT_TRUE((*simulation)->Run(sim::RunOptions{}).ok());
  EXPECT_THAT(recorder.lines, ElementsAre("0.0 ns/waiting"));
}

// Setup: "running" (5 of the 6 cpu) carries Evicted=True (Preempted) while
// it still holds its quota: its eviction is under way. Invariant: the quota
// is released at the eviction delay (10 s), not before; "running" is then
// requeued and, first in queue order (same creation time, earlier in the
// file), reserves its 5 cpu again, so "waiting" still waits.
TEST(AdmittedAtStartTest, EvictionUnderWayInTheInputReleasesTheQuotaAfterTheEvictionDelay) {
  std::string yaml = Scenario(5, 5, "5");
  const std::string condition = "  - {type: QuotaReserved, status: 'True', reason: QuotaReserved, message: reserved}\n";
  yaml.replace(yaml.find(condition), condition.size(),
               condition + "  - {type: Evicted, status: 'True', reason: Preempted, message: 'Preempted to "
                           "accommodate a higher priority Workload', lastTransitionTime: '2025-01-01T00:00:00Z'}\n");
  yaml = "apiVersion: kueuesim.io/v1alpha1\nkind: Simulation\nmetadata: {name: sim}\nspec:\n  evictionDelay: 10s\n"
         "---\n" + yaml;
  EXPECT_THAT(Reserved(yaml), ElementsAre("10.0 ns/running"));
}

// Setup: a pending workload with Evicted=True (AdmissionCheck) at 00:00:30
// and an older one created at 00:00:10, one cpu each, in a queue with room
// for one. Invariant: the evicted workload is ordered by its eviction time
// (GetQueueOrderTimestamp), so the older one is admitted first.
TEST(AdmittedAtStartTest, PendingWorkloadEvictedByACheckIsOrderedByItsEvictionTime) {
  const auto workload = [](const std::string& name, const std::string& created, const std::string& status) {
    return fmt::format(R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {}, namespace: ns, creationTimestamp: '{}'}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {{cpu: '1'}}}}
{})",
                       name, created, status);
  };
  std::string base = Scenario(5, 5, "5");
  base = base.substr(0, base.rfind("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: waiting"));
  const std::string evicted_status =
      "status:\n  conditions:\n  - {type: Evicted, status: 'True', reason: AdmissionCheck, message: 'At least "
      "one admission check is false', lastTransitionTime: '2025-01-01T00:00:30Z'}\n";
  const std::string yaml = base + workload("evicted", "2025-01-01T00:00:00Z", evicted_status) +
                           workload("older", "2025-01-01T00:00:10Z", "");
  EXPECT_THAT(Reserved(yaml), ElementsAre("0.0 ns/older"));
}

// "<seconds> <event> <workload>" for the events of every workload (for
// Admitted: "+topology" when its admission has a topology assignment).
class LifecycleRecorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    if (event.workload == cluster::kNone || !event.object.empty()) return;
    if (event.type == cluster::EventType::kPending) return;
    const cluster::WorkloadRecord& wl = event.cluster->workload(event.workload);
    std::string line = fmt::format("{} {} {}", FormatSeconds(event.time), cluster::EventTypeName(event.type), wl.key);
    if (!event.reason.empty()) line += fmt::format(" ({})", event.reason);
    if (event.type == cluster::EventType::kAdmitted && wl.admission.has_value()) {
      bool placed = true;
      for (const auto& ps : wl.admission->pod_sets) placed = placed && ps.topology_assignment.has_value();
      if (placed) line += " +topology";
    }
    lines.push_back(std::move(line));
  }
  std::vector<std::string> lines;
};

std::vector<std::string> Lifecycle(const std::string& yaml) {
  LifecycleRecorder recorder;
  RunObserved(yaml, &recorder, /*check_invariants=*/true);
  return recorder.lines;
}

// ClusterQueue "cq" (8 GPUs of flavor "gpu"), its AdmissionCheck
// "approval" answered Ready 10 minutes after each quota reservation
// (declared), no startup delay; Workload "held" (4 GPUs, 1 h) QuotaReserved
// in its input with `checks` as its status.admissionChecks.
std::string HeldByCheck(const std::string& checks) {
  return fmt::format(R"(apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {{name: sim}}
spec: {{defaultStartupDelay: 0s}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: gpu}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: approval
  annotations: {{kueuesim.io/check-delay: 10m}}
spec: {{controllerName: example.com/approval}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  namespaceSelector: {{}}
  admissionChecks: [approval]
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: gpu
      resources:
      - {{name: nvidia.com/gpu, nominalQuota: "8"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq, namespace: ns}}
spec: {{clusterQueue: cq}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: held
  namespace: ns
  creationTimestamp: '2025-01-01T00:00:00Z'
  annotations: {{kueuesim.io/duration: 1h}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {{nvidia.com/gpu: '4'}}}}
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: main
      flavors: {{nvidia.com/gpu: gpu}}
      resourceUsage: {{nvidia.com/gpu: '4'}}
      count: 1
  conditions:
  - {{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: reserved}}
{})",
                     checks);
}

// Setup: "held" is QuotaReserved in its input, its check Pending.
// Invariant: as in Kueue, its pods wait for the admission: it holds its
// quota from time 0, the check's controller answers 10 minutes later (the
// declared delay, from the start of the run), the workload is admitted
// then and runs its hour from there.
TEST(InputReservationTest, PendingCheckHoldsThePodsUntilItIsReady) {
  EXPECT_THAT(Lifecycle(HeldByCheck("  admissionChecks:\n  - {name: approval, state: Pending}\n")),
              ElementsAre("0.0 AdmittedAtStart ns/held (QuotaReserved)", "600.0 Admitted ns/held",
                          "600.0 PodsReady ns/held", "4200.0 QuotaReleased ns/held",
                          "4200.0 Finished ns/held"));
  // A check the status does not list yet is Pending.
  EXPECT_THAT(Lifecycle(HeldByCheck("")),
              ElementsAre("0.0 AdmittedAtStart ns/held (QuotaReserved)", "600.0 Admitted ns/held",
                          "600.0 PodsReady ns/held", "4200.0 QuotaReleased ns/held",
                          "4200.0 Finished ns/held"));
}

// Setup: "held" is QuotaReserved with its check already Ready (exported in
// the instant before Kueue admitted it).
// Invariant: nothing is left to wait for: it runs from time 0, as a
// workload admitted in its input does.
TEST(InputReservationTest, ReadyChecksRunFromTheStart) {
  EXPECT_THAT(Lifecycle(HeldByCheck("  admissionChecks:\n  - {name: approval, state: Ready}\n")),
              ElementsAre("0.0 AdmittedAtStart ns/held", "3600.0 QuotaReleased ns/held",
                          "3600.0 Finished ns/held"));
}

// Setup: "held" is QuotaReserved with its check in Retry.
// Invariant: the workload controller evicts it (reason AdmissionCheck) at
// once; it is requeued, reserves quota again at once (the queue is empty)
// and waits for the check's new answer, 10 minutes later.
TEST(InputReservationTest, RetryCheckEvictsAtTheStart) {
  const auto lines = Lifecycle(HeldByCheck("  admissionChecks:\n  - {name: approval, state: Retry}\n"));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0], "0.0 AdmittedAtStart ns/held (QuotaReserved)");
  EXPECT_EQ(lines[1], "0.0 Evicted ns/held (AdmissionCheck)");
  EXPECT_THAT(lines, ::testing::Contains("600.0 Admitted ns/held"));
}

// Setup: a TAS flavor over one node of 8 GPUs, the ClusterQueue's check
// "approval" Ready in the input of "held", whose admission delays its
// topology (delayedTopologyRequest: Pending, no topologyAssignment).
// Invariant: the scheduler's second pass places it on the node at time 0,
// then it is admitted and runs (it did not before: the field was ignored
// and the workload ran from the start without a placement).
TEST(InputReservationTest, DelayedTopologyIsAssignedByTheSecondPass) {
  std::string yaml = HeldByCheck("  admissionChecks:\n  - {name: approval, state: Ready}\n");
  const std::string flavor = "kind: ResourceFlavor\nmetadata: {name: gpu}\n";
  yaml.replace(yaml.find(flavor), flavor.size(),
               "kind: ResourceFlavor\nmetadata: {name: gpu}\nspec:\n  nodeLabels: {pool: tas}\n"
               "  topologyName: hosts\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\n"
               "metadata: {name: hosts}\nspec:\n  levels:\n  - nodeLabel: kubernetes.io/hostname\n---\n"
               "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {pool: tas, "
               "kubernetes.io/hostname: n1}\nstatus:\n  allocatable: {nvidia.com/gpu: '8', pods: '110'}\n"
               "  conditions:\n  - {type: Ready, status: 'True'}\n");
  const std::string count = "      count: 1\n  conditions:";
  yaml.replace(yaml.find(count), count.size(), "      count: 1\n      delayedTopologyRequest: Pending\n  conditions:");
  EXPECT_THAT(Lifecycle(yaml), ElementsAre("0.0 AdmittedAtStart ns/held (QuotaReserved)",
                                           "0.0 Admitted ns/held +topology", "0.0 PodsReady ns/held",
                                           "3600.0 QuotaReleased ns/held", "3600.0 Finished ns/held"));
}

// An unknown delayedTopologyRequest state is refused with its place.
TEST(InputReservationTest, UnknownDelayedTopologyStateIsRefused) {
  std::string yaml = HeldByCheck("");
  const std::string count = "      count: 1\n  conditions:";
  yaml.replace(yaml.find(count), count.size(), "      count: 1\n      delayedTopologyRequest: Later\n  conditions:");
  auto scenario = testing::LoadYaml(yaml, "checks.yaml");
  ASSERT_FALSE(scenario.ok());
  EXPECT_THAT(std::string(scenario.status().message()),
              ::testing::HasSubstr("delayedTopologyRequest: unknown value \"Later\" (valid: Pending, Ready)"));
}

}  // namespace
}  // namespace kueuesim
