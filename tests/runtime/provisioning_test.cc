// Kueue's ProvisioningRequest admission check (pkg/controller/admissionchecks/
// provisioning) and the simulated autoscaler, through the whole simulation:
// each state transition of the check and the backoff sequence, pinned
// against Kueue's controller tests (controller_test.go TestReconcile,
// pkg/util/wait/backoff_test.go) and the integration tests named below.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kueuesim/base/time.h"
#include "kueuesim/cluster/events.h"
#include "kueuesim/runtime/provisioning.h"
#include "kueuesim/sim/simulation.h"
#include "testing/simulation_fixtures.h"

namespace kueuesim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using runtime::ProvisioningBackoffSeconds;

// "<seconds> <Type> [<reason>]" for the life-cycle events of workloads.
class Recorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    using cluster::EventType;
    if (event.workload == cluster::kNone) return;
    const char* name = nullptr;
    switch (event.type) {
      case EventType::kQuotaReserved:
        name = "QuotaReserved";
        break;
      case EventType::kAdmitted:
        name = "Admitted";
        break;
      case EventType::kEvicted:
        name = "Evicted";
        break;
      case EventType::kDeactivated:
        name = "Deactivated";
        break;
      case EventType::kPodsReady:
        name = "PodsReady";
        break;
      case EventType::kFinished:
        name = "Finished";
        break;
      default:
        return;
    }
    std::string line = fmt::format("{} {}", event.time / kSecond, name);
    if (!event.reason.empty()) line += " " + std::string(event.reason);
    lines.push_back(line);
  }
  std::vector<std::string> lines;
};

// A ClusterQueue "cq" (16 GPUs) whose check "prov" is a ProvisioningRequest
// check with `prc_spec`, an AutoscalerPool "gpu" with `pool_spec`, and a
// Job "sample" of 2 pods x 1 GPU running `duration`.
std::string Scenario(const std::string& prc_spec, const std::string& pool_spec, const std::string& extra = "",
                     const std::string& duration = "300s", const std::string& checks = "[prov]",
                     const std::string& job_annotations = "") {
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
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors:
    - name: default
      resources:
      - {{name: cpu, nominalQuota: "64"}}
      - {{name: nvidia.com/gpu, nominalQuota: "16"}}
  admissionChecks: {3}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq, namespace: default}}
spec: {{clusterQueue: cq}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {{name: prov}}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {{apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: prc}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata: {{name: prc}}
spec:
{0}
---
apiVersion: kueuesim.io/v1alpha1
kind: AutoscalerPool
metadata: {{name: gpu}}
spec:
  allocatable: {{cpu: "32", nvidia.com/gpu: "8"}}
{1}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: sample
  namespace: default
  labels: {{kueue.x-k8s.io/queue-name: lq}}
  annotations: {{kueuesim.io/duration: {2}{5}}}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      containers:
      - name: c
        resources: {{requests: {{cpu: "1", nvidia.com/gpu: "1"}}}}
{4}
)",
                     prc_spec, pool_spec, duration, checks, extra, job_annotations);
}

struct Run {
  std::unique_ptr<sim::Simulation> simulation;
  Recorder recorder;
  const runtime::ProvisioningController* controller() const {
    return simulation->clusters()[0]->provisioning_controller();
  }
};

std::unique_ptr<Run> RunScenario(const std::string& yaml, SimTime until = 2 * kHour) {
  auto run = std::make_unique<Run>();
  auto simulation = testing::SimulationFromYaml(yaml, {&run->recorder});
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  if (!simulation.ok()) return nullptr;
  run->simulation = *std::move(simulation);
  sim::RunOptions options;
  options.until = until;
  EXPECT_TRUE(run->simulation->Run(options).ok());
  return run;
}

// --- Backoff (pkg/util/wait/backoff_test.go, workload.UpdateAdmissionCheckRequeueState) ---

TEST(ProvisioningBackoffTest, DefaultsDoubleFromBaseToMax) {
  std::vector<int32_t> got;
  for (int32_t n = 1; n <= 7; ++n) got.push_back(ProvisioningBackoffSeconds(60, 1800, n, 0.5));
  EXPECT_THAT(got, ElementsAre(60, 120, 240, 480, 960, 1800, 1800));
}

TEST(ProvisioningBackoffTest, CapsAtLimit) {
  // TestBackoff_WaitTime "caps at limit": 1, 2, 4, 8 -> 5.
  std::vector<int32_t> got;
  for (int32_t n = 1; n <= 4; ++n) got.push_back(ProvisioningBackoffSeconds(1, 5, n, 0.0));
  EXPECT_THAT(got, ElementsAre(1, 2, 4, 5));
}

TEST(ProvisioningBackoffTest, FirstStepIsNotCappedAndZeroMaxMeansNoCap) {
  EXPECT_EQ(ProvisioningBackoffSeconds(100, 30, 1, 0.0), 100);
  EXPECT_EQ(ProvisioningBackoffSeconds(100, 30, 2, 0.0), 30);
  EXPECT_EQ(ProvisioningBackoffSeconds(60, 0, 6, 0.0), 1920);
  EXPECT_EQ(ProvisioningBackoffSeconds(0, 1800, 3, 0.9), 0);  // base 0: immediate requeue
}

TEST(ProvisioningBackoffTest, JitterIsBelowASecondUnderTenThousandSeconds) {
  EXPECT_EQ(ProvisioningBackoffSeconds(1800, 1800, 1, 0.999), 1800);
  EXPECT_EQ(ProvisioningBackoffSeconds(20000, 0, 1, 0.999), 20001);
}

TEST(ProvisioningNamesTest, LimitObjectName) {
  EXPECT_EQ(runtime::LimitObjectName("wl-check1-1"), "wl-check1-1");
  const std::string long_name(300, 'w');
  EXPECT_EQ(runtime::LimitObjectName(long_name), std::string(247, 'w') + "-4ac99");
}

// --- The check's states ---

constexpr char kAtomic[] = "  provisioningClassName: best-effort-atomic-scale-up.autoscaling.x-k8s.io";
constexpr char kPool[] = "  maxNodes: 4\n  provisioningTime: 120s";

TEST(ProvisioningCheckTest, ProvisionedMakesTheCheckReadyAndPodsWaitForTheNodes) {
  // "when request is provisioned": Ready at the CA loop after creation (10 s);
  // best-effort-atomic reports Provisioned when it asks for the scale-up, the
  // pods start when the node is ready (120 s later).
  auto run = RunScenario(Scenario(kAtomic, kPool));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines, ElementsAre("0 QuotaReserved", "10 Admitted", "130 PodsReady", "430 Finished"));
  const auto report = run->simulation->clusters()[0]->AutoscalerReportNow();
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->provisioned, 1);
  EXPECT_EQ(report->pools[0].nodes_added, 1);
  // The node is unneeded from 430 and removed 10 minutes later.
  EXPECT_EQ(report->pools[0].nodes_removed, 1);
  EXPECT_THAT(report->pools[0].nodes_over_time, ElementsAre(std::pair<SimTime, int32_t>{10 * kSecond, 1},
                                                            std::pair<SimTime, int32_t>{1030 * kSecond, 0}));
}

TEST(ProvisioningCheckTest, FailedRetriesWithBackoffThenRejects) {
  // Design note timeline B: check-capacity with noRetry fails at every CA
  // loop; retryStrategy {3, 30, 100}: requeueAfterSeconds 30, 60, 100
  // (capped); the workload keeps its quota until requeueAt (the code at the
  // reference commit), attempt 4 > backoffLimitCount rejects it.
  auto run = RunScenario(Scenario(R"(  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  parameters: {noRetry: "true"}
  retryStrategy: {backoffLimitCount: 3, backoffBaseSeconds: 30, backoffMaxSeconds: 100})",
                                  kPool));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines,
              ElementsAre("0 QuotaReserved", "40 Evicted AdmissionCheck", "40 QuotaReserved",
                          "110 Evicted AdmissionCheck", "110 QuotaReserved", "220 Evicted AdmissionCheck",
                          "220 QuotaReserved", "230 Evicted Deactivated", "230 Deactivated AdmissionCheck"));
  const auto& counters = run->controller()->counters();
  EXPECT_EQ(counters[0].requests, 4);
  EXPECT_EQ(counters[0].failed, 4);
  const runtime::ProvisioningController::CheckInfo* info = run->controller()->Find(0, 0);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->request_name, "job-sample-prov-4");
  // The deactivation's eviction resets the Rejected check to Pending and
  // clears its retryCount (resetChecksOnEviction).
  EXPECT_EQ(info->retry_count, 0);
  EXPECT_EQ(info->state, cluster::CheckState::kPending);
}

TEST(ProvisioningCheckTest, ImmediateRetryEvictionReleasesQuotaAtOnce) {
  // KEP-3258 reading: evicted when the check goes to Retry, requeued at
  // requeueAt; the requests are still created at 40, 110 and 220.
  auto run = RunScenario(Scenario(R"(  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  parameters: {noRetry: "true"}
  retryStrategy: {backoffLimitCount: 3, backoffBaseSeconds: 30, backoffMaxSeconds: 100})",
                                  kPool, R"(---
apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: s}
spec:
  admissionChecks: {retryEviction: Immediate})"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines,
              ElementsAre("0 QuotaReserved", "10 Evicted AdmissionCheck", "40 QuotaReserved",
                          "50 Evicted AdmissionCheck", "110 QuotaReserved", "120 Evicted AdmissionCheck",
                          "220 QuotaReserved", "230 Evicted Deactivated", "230 Deactivated AdmissionCheck"));
}

TEST(ProvisioningCheckTest, NoRetryWhenBackoffLimitIsZero) {
  // "when request fails, and there is no retry".
  auto run = RunScenario(Scenario(R"(  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  parameters: {noRetry: "true"}
  retryStrategy: {backoffLimitCount: 0})",
                                  kPool));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines,
              ElementsAre("0 QuotaReserved", "10 Evicted Deactivated", "10 Deactivated AdmissionCheck"));
}

TEST(ProvisioningCheckTest, RetryThenSuccessWhenCapacityFrees) {
  // Two jobs of 8 GPUs share the pool's one node through check-capacity;
  // the second one's requests fail until the first finishes at 210.
  const std::string second = R"(---
apiVersion: batch/v1
kind: Job
metadata:
  name: second
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {kueuesim.io/duration: 100s}
spec:
  parallelism: 1
  template:
    spec:
      containers:
      - name: c
        resources: {requests: {cpu: "1", nvidia.com/gpu: "8"}})";
  std::string yaml = Scenario(R"(  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  parameters: {noRetry: "true"}
  retryStrategy: {backoffLimitCount: 3, backoffBaseSeconds: 30, backoffMaxSeconds: 100})",
                              "  minNodes: 1\n  maxNodes: 1", second, "200s");
  // The first job takes the whole node.
  yaml.replace(yaml.find("parallelism: 2"), 14, "parallelism: 8");
  yaml.replace(yaml.find("completions: 2"), 14, "completions: 8");
  auto run = RunScenario(yaml);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines,
              ElementsAre("0 QuotaReserved", "0 QuotaReserved", "10 Admitted", "10 PodsReady",
                          "50 Evicted AdmissionCheck", "50 QuotaReserved", "120 Evicted AdmissionCheck",
                          "120 QuotaReserved", "210 Finished", "230 Evicted AdmissionCheck", "230 QuotaReserved",
                          "240 Admitted", "240 PodsReady", "340 Finished"));
  // resident's request, and second's 4 attempts (3 failed); a finished
  // workload's check state is gone with its requests.
  EXPECT_EQ(run->controller()->counters()[0].requests, 5);
  EXPECT_EQ(run->controller()->counters()[0].failed, 3);
  EXPECT_EQ(run->controller()->Find(1, 0), nullptr);
}

TEST(ProvisioningCheckTest, BookingExpiredBeforeAdmissionRetriesThenRejects) {
  // "workload retries the admission check when is not admitted and receives
  // the provisioning request's BookingExpired condition" and "... rejects
  // ...": a second check answers after 700 s, the booking of 10 minutes
  // expires at the first CA loop past 610 s and 1290 s.
  const std::string approval = R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: approval
  annotations: {kueuesim.io/check-delay: 700s, kueuesim.io/check-outcome: Ready}
spec:
  controllerName: example.com/approval)";
  auto run = RunScenario(Scenario(R"(  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  retryStrategy: {backoffLimitCount: 1, backoffBaseSeconds: 60})",
                                  "  minNodes: 1\n  maxNodes: 1", approval, "300s", "[prov, approval]"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines,
              ElementsAre("0 QuotaReserved", "680 Evicted AdmissionCheck", "680 QuotaReserved",
                          "1300 Evicted Deactivated", "1300 Deactivated AdmissionCheck"));
  const auto report = run->simulation->clusters()[0]->AutoscalerReportNow();
  EXPECT_EQ(report->booking_expired, 2);
}

TEST(ProvisioningCheckTest, BookingIsConsumedOnceAdmitted) {
  // "workload does nothing when admitted and receives the provisioning
  // request's BookingExpired condition": admitted at 500 (the second check),
  // running past the 10-minute booking.
  const std::string approval = R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: approval
  annotations: {kueuesim.io/check-delay: 500s}
spec:
  controllerName: example.com/approval)";
  auto run = RunScenario(Scenario("  provisioningClassName: check-capacity.autoscaling.x-k8s.io",
                                  "  minNodes: 1\n  maxNodes: 1", approval, "2000s", "[prov, approval]"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines, ElementsAre("0 QuotaReserved", "500 Admitted", "500 PodsReady", "2500 Finished"));
}

TEST(ProvisioningCheckTest, NoRequestWithoutManagedResources) {
  // "when no request is needed": the pods use no nvidia.com/gpu... here the
  // config manages a resource the job does not ask for.
  auto run = RunScenario(Scenario(std::string(kAtomic) + "\n  managedResources: [example.com/fpga]", kPool));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines, ElementsAre("0 QuotaReserved", "0 Admitted", "0 PodsReady", "300 Finished"));
  EXPECT_EQ(run->controller()->counters()[0].requests, 0);
  EXPECT_EQ(run->controller()->counters()[0].not_needed, 1);
}

TEST(ProvisioningCheckTest, StockoutHoldsTheRequestUntilCapacityReturns) {
  // best-effort-atomic: Provisioned=False while the pool cannot grow, the CA
  // retries after 60 s, 120 s, 240 s... (injector backoff); the stockout
  // ends at 200 s, the retry at 210 + ... succeeds.
  auto run = RunScenario(Scenario(kAtomic, std::string(kPool) + "\n  stockouts: [{from: 0s, until: 200s}]"));
  ASSERT_NE(run, nullptr);
  // Loops: 10 fails (retry after 60 s: 80), 80 fails (120 s: 210), 210 succeeds.
  EXPECT_THAT(run->recorder.lines, ElementsAre("0 QuotaReserved", "210 Admitted", "330 PodsReady", "630 Finished"));
  const auto report = run->simulation->clusters()[0]->AutoscalerReportNow();
  EXPECT_EQ(report->pools[0].stockout_time, 200 * kSecond);
  EXPECT_EQ(report->pools[0].refused_scale_ups, 2);
}

TEST(ProvisioningCheckTest, QueuedProvisioningIsProvisionedWhenNodesAreUpAndRevokedAtLeaseEnd) {
  // queued-provisioning.gke.io: Provisioned once the VMs are up (130 s);
  // maxRunDurationSeconds (a provreq.kueue.x-k8s.io/ annotation passed as a
  // parameter) ends the lease: CapacityRevoked rejects the check and
  // deactivates the workload ("workload sets AdmissionCheck status to
  // Rejected when it is not finished and receives ... CapacityRevoked").
  auto run = RunScenario(Scenario("  provisioningClassName: queued-provisioning.gke.io", kPool, "", "3000s", "[prov]",
                                  ", provreq.kueue.x-k8s.io/maxRunDurationSeconds: \"600\""));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines, ElementsAre("0 QuotaReserved", "130 Admitted", "130 PodsReady",
                                               "730 Evicted Deactivated", "730 Deactivated AdmissionCheck"));
}

TEST(ProvisioningCheckTest, CheckOnAnotherFlavorDoesNotApply) {
  // admissionChecksStrategy: the check covers only flavor "spot"; the job
  // lands on "default" and is admitted on quota alone.
  std::string yaml = Scenario(kAtomic, kPool, "", "300s", "[]");
  yaml.replace(yaml.find("admissionChecks: []"), 19,
               "admissionChecksStrategy:\n    admissionChecks:\n    - {name: prov, onFlavors: [spot]}");
  auto run = RunScenario(yaml);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines, ElementsAre("0 QuotaReserved", "0 Admitted", "0 PodsReady", "300 Finished"));
}

// --- Declared answers of other controllers' checks ---

std::string DeclaredCheck(const std::string& annotations) {
  std::string yaml = Scenario(kAtomic, kPool, "", "300s", "[approval]");
  return yaml + fmt::format(R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: approval
  annotations: {{{}}}
spec:
  controllerName: example.com/approval
)",
                            annotations);
}

TEST(SimulatedCheckTest, ReadyAfterDelay) {
  auto run = RunScenario(DeclaredCheck("kueuesim.io/check-delay: 45s"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines, ElementsAre("0 QuotaReserved", "45 Admitted", "45 PodsReady", "345 Finished"));
  const auto stats = run->simulation->clusters()[0]->AdmissionCheckStatsNow();
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[1].ready, 1);
  EXPECT_THAT(stats[1].time_to_ready, ElementsAre(45 * kSecond));
  EXPECT_DOUBLE_EQ(stats[1].held_quota.at("nvidia.com/gpu"), 90.0);  // 2 GPUs x 45 s
}

TEST(SimulatedCheckTest, RejectedDeactivates) {
  auto run = RunScenario(DeclaredCheck("kueuesim.io/check-delay: 5s, kueuesim.io/check-outcome: Rejected"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines,
              ElementsAre("0 QuotaReserved", "5 Evicted Deactivated", "5 Deactivated AdmissionCheck"));
}

TEST(SimulatedCheckTest, RetryWithRequeueAfter) {
  // Retry with requeueAfterSeconds 30: evicted at 5 + 30, then the next
  // answer (5 s after the new reservation) is Retry again: evicted at 70.
  auto run = RunScenario(DeclaredCheck("kueuesim.io/check-delay: 5s, kueuesim.io/check-outcome: Retry, "
                                       "kueuesim.io/check-retry-after: 30s"),
                         100 * kSecond);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines, ElementsAre("0 QuotaReserved", "35 Evicted AdmissionCheck", "35 QuotaReserved",
                                               "70 Evicted AdmissionCheck", "70 QuotaReserved"));
}

TEST(SimulatedCheckTest, NeverHoldsAndUndeclaredWarns) {
  auto run = RunScenario(DeclaredCheck("kueuesim.io/check-behavior: never"), 1000 * kSecond);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines, ElementsAre("0 QuotaReserved"));
  const auto stats = run->simulation->clusters()[0]->AdmissionCheckStatsNow();
  EXPECT_EQ(stats[1].pending_at_end, 1);
  EXPECT_EQ(stats[1].held_time, 1000 * kSecond);

  std::string undeclared = Scenario(kAtomic, kPool, "", "300s", "[approval]") + R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: approval}
spec: {controllerName: example.com/approval}
)";
  auto scenario = testing::LoadYaml(undeclared, "test.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  bool warned = false;
  for (const auto& w : scenario->report.warnings) warned = warned || w.find("no controller answers") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(ProvisioningDecodeTest, ErrorsNameFileLineObjectAndField) {
  auto bad = testing::LoadYaml(Scenario(kAtomic, "  maxNodes: 4\n  provisioningTime: sometimes"), "bad.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("AutoscalerPool \"gpu\": spec.provisioningTime: malformed duration \"sometimes\""));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("bad.yaml:"));
  auto bad_prc = testing::LoadYaml(Scenario(std::string(kAtomic) + "\n  podSetMergePolicy: Sometimes", kPool), "bad.yaml");
  ASSERT_FALSE(bad_prc.ok());
  EXPECT_THAT(std::string(bad_prc.status().message()),
              HasSubstr("ProvisioningRequestConfig \"prc\": spec.podSetMergePolicy: unknown value \"Sometimes\""));
  auto bad_outcome = testing::LoadYaml(DeclaredCheck("kueuesim.io/check-outcome: Maybe"), "bad.yaml");
  ASSERT_FALSE(bad_outcome.ok());
  EXPECT_THAT(std::string(bad_outcome.status().message()), HasSubstr("unknown outcome \"Maybe\""));
}

TEST(ProvisioningCheckTest, TopologyIsAssignedInASecondPassOnTheProvisionedNodes) {
  // A TAS flavor covered by the check: the first pass reserves quota only
  // (delayedTopologyRequest Pending); once the check is Ready (10 s) the
  // second pass looks for a placement, retried after 1, 2, 4, 8, 16, 30,
  // 30 s while the node boots (ready at 130 s), and succeeds at 131 s on
  // the provisioned node.
  const std::string yaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: hosts}
spec:
  levels:
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas-gpu}
spec:
  nodeLabels: {tas-node: "true"}
  topologyName: hosts
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: tas-gpu
      resources:
      - {name: nvidia.com/gpu, nominalQuota: "16"}
  admissionChecks: [prov]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: prc}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata: {name: prc}
spec:
  provisioningClassName: best-effort-atomic-scale-up.autoscaling.x-k8s.io
---
apiVersion: kueuesim.io/v1alpha1
kind: AutoscalerPool
metadata: {name: gpu}
spec:
  labels: {tas-node: "true"}
  allocatable: {nvidia.com/gpu: "8"}
  maxNodes: 2
  provisioningTime: 120s
---
apiVersion: batch/v1
kind: Job
metadata:
  name: sample
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {kueuesim.io/duration: 100s}
spec:
  parallelism: 2
  completions: 2
  template:
    metadata:
      annotations: {kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname}
    spec:
      containers:
      - name: c
        resources: {requests: {nvidia.com/gpu: "4"}}
)";
  auto run = RunScenario(yaml);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.lines, ElementsAre("0 QuotaReserved", "131 Admitted", "131 PodsReady", "231 Finished"));
}

// Setup: two admission checks of other controllers answer Retry: check a at
// 30 s with retry-after 60 s, check b at 40 s with retry-after 120 s.
// Invariant: requeueAt is the latest lastTransitionTime + requeueAfter
// (GetMaxRetryTime: 160 s) and the workload controller waits for it before
// it evicts (reason AdmissionCheck): one eviction, at 160 s, not at 90 s.
TEST(AdmissionCheckRetryTest, SeveralRetriesWaitForTheLatestRequeueAt) {
  const std::string yaml = R"(apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: two-retry-longer}
spec:
  startTime: "2025-06-02T09:00:00Z"
  until: 200s
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: "4"}]}]
  admissionChecks: [a, b]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: ns}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: a
  annotations: {kueuesim.io/check-delay: 30s, kueuesim.io/check-outcome: Retry, kueuesim.io/check-retry-after: 60s}
spec: {controllerName: example.com/a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: b
  annotations: {kueuesim.io/check-delay: 40s, kueuesim.io/check-outcome: Retry, kueuesim.io/check-retry-after: 120s}
spec: {controllerName: example.com/b}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  namespace: ns
  labels: {kueue.x-k8s.io/queue-name: q}
  annotations: {kueuesim.io/duration: 10m}
spec:
  parallelism: 1
  template:
    spec:
      containers:
      - name: c
        resources: {requests: {cpu: "1"}}
)";
  struct Evictions : cluster::EventSink {
    void OnEvent(const cluster::SimEvent& event) override {
      if (event.type == cluster::EventType::kEvicted) {
        lines.push_back(fmt::format("{} {}", FormatSeconds(event.time), event.reason));
      }
    }
    std::vector<std::string> lines;
  } evictions;
  auto simulation = testing::SimulationFromYaml(yaml, {&evictions});
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  ASSERT_TRUE((*simulation)->Run(sim::RunOptions{}).ok());
  EXPECT_THAT(evictions.lines, ElementsAre("160.0 AdmissionCheck"));
}

}  // namespace
}  // namespace kueuesim
