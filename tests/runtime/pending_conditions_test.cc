// Why a workload waits, through the whole simulation: the QuotaReserved=False
// condition (reason and message) the scheduler and the workload controller
// write, with the wording of Kueue's pkg/scheduler/scheduler_test.go and
// pkg/controller/core/workload_controller.go at ff69552e, and the Pending
// event emitted when (and only when) it changes.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kueuesim/base/time.h"
#include "kueuesim/cluster/events.h"
#include "kueuesim/cluster/pending_condition.h"
#include "kueuesim/sim/simulation.h"
#include "testing/scenario_fixtures.h"
#include "testing/simulation_fixtures.h"

namespace kueuesim {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using ::kueuesim::testing::ClusterQueueYaml;
using ::kueuesim::testing::LocalQueueYaml;
using ::kueuesim::testing::ResourceFlavorYaml;
using ::kueuesim::testing::WorkloadOptions;
using ::kueuesim::testing::WorkloadYaml;

// "<seconds> <workload> <reason>: <message>" per Pending event, worded when
// it happens.
class PendingRecorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    if (event.type != cluster::EventType::kPending) return;
    const cluster::WorkloadRecord& wl = event.cluster->workload(event.workload);
    lines.push_back(fmt::format("{} {} {}: {}", FormatSeconds(event.time), wl.key, event.reason,
                                cluster::PendingMessageText(*event.cluster, wl, *wl.pending)));
  }
  std::vector<std::string> Of(const std::string& key) const {
    std::vector<std::string> out;
    for (const auto& l : lines) {
      if (l.find(" " + key + " ") != std::string::npos) out.push_back(l);
    }
    return out;
  }
  std::vector<std::string> lines;
};

struct Run {
  PendingRecorder recorder;
  std::unique_ptr<sim::Simulation> simulation;
  const cluster::WorkloadRecord* Find(const std::string& key) const {
    const cluster::ClusterState& state = simulation->clusters()[0]->state();
    for (cluster::WorkloadId id = 0; id < state.num_workloads(); ++id) {
      if (state.workload(id).key == key) return &state.workload(id);
    }
    return nullptr;
  }
};

std::unique_ptr<Run> RunYaml(const std::string& yaml, std::optional<SimTime> until = std::nullopt) {
  auto run = std::make_unique<Run>();
  auto simulation = testing::SimulationFromYaml(yaml, {&run->recorder}, "pending.yaml");
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  if (!simulation.ok()) return nullptr;
  run->simulation = *std::move(simulation);
  sim::RunOptions options;
  options.until = until;
  EXPECT_TRUE(run->simulation->Run(options).ok());
  return run;
}

WorkloadOptions Cpu(const std::string& cpu, const std::string& duration = "100s", int priority = 0,
                    const std::string& arrival = "") {
  WorkloadOptions o;
  o.requests = {{"cpu", cpu}};
  o.duration = duration;
  o.priority = priority;
  o.set_priority = priority != 0;
  o.arrival = arrival;
  return o;
}

const std::string kDefaultFlavor = ResourceFlavorYaml("default");

// scheduler_test.go "failed to match clusterQueue selector": Misconfigured,
// "workload namespace doesn't match ClusterQueue selector".
TEST(PendingConditionsTest, NamespaceSelectorMismatch) {
  auto run = RunYaml(kDefaultFlavor +
                     "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: eng\nspec:\n"
                     "  namespaceSelector:\n    matchLabels:\n      dep: eng\n  resourceGroups:\n"
                     "  - coveredResources: [cpu]\n    flavors:\n    - name: default\n      resources:\n"
                     "      - name: cpu\n        nominalQuota: \"4\"\n---\n" +
                     LocalQueueYaml("default", "q", "eng") + WorkloadYaml("new", Cpu("1")));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("default/new"),
              ElementsAre("0.0 default/new Misconfigured: workload namespace doesn't match ClusterQueue selector"));
}

// scheduler_test.go "container resource requests exceed limits": a Workload
// whose container asks for more than its limit is left pending, Misconfigured,
// with ValidateResources' message (the API server does not validate a
// Workload's pod templates; Kueue's scheduler does, before flavor assignment).
TEST(PendingConditionsTest, RequestsExceedLimits) {
  const std::string workload =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: new\n  namespace: default\n"
      "  annotations:\n    kueuesim.io/duration: 100s\nspec:\n  queueName: q\n  podSets:\n"
      "  - name: one\n    count: 1\n    template:\n      spec:\n        containers:\n        - name: c\n"
      "          resources:\n            requests:\n              cpu: 200m\n            limits:\n"
      "              cpu: 100m\n";
  auto run = RunYaml(kDefaultFlavor + ClusterQueueYaml("cq", {"cpu"}, {{"default", {"4"}, {}}}) +
                     LocalQueueYaml("default", "q", "cq") + workload);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("default/new"),
              ElementsAre("0.0 default/new Misconfigured: resources validation failed: "
                          "spec.podSets[0].template.spec.containers[0]: Invalid value: [\"cpu\"]: requests must "
                          "not exceed its limits"));
  const cluster::WorkloadRecord* wl = run->Find("default/new");
  ASSERT_NE(wl, nullptr);
  EXPECT_FALSE(wl->admission.has_value());
}

// Several violations: field.ErrorList.ToAggregate() brackets them, in pod set
// order, init containers before containers, then pod-level resources; the
// resource names of one container sorted; a resource without a limit, or a
// request equal to its limit, is fine.
TEST(PendingConditionsTest, RequestsExceedLimitsSeveral) {
  const std::string workload =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: new\n  namespace: default\n"
      "spec:\n  queueName: q\n  podSets:\n"
      "  - name: a\n    count: 1\n    template:\n      spec:\n        containers:\n        - name: c\n"
      "          resources:\n            requests: {cpu: \"1\", memory: 1Gi}\n            limits: {cpu: \"1\"}\n"
      "  - name: b\n    count: 2\n    template:\n      spec:\n        initContainers:\n        - name: i\n"
      "          resources:\n            requests: {cpu: 300m}\n            limits: {cpu: 200m}\n"
      "        containers:\n        - name: c\n"
      "          resources:\n            requests: {memory: 2Gi, cpu: \"2\"}\n"
      "            limits: {memory: 1Gi, cpu: \"1\"}\n";
  auto run = RunYaml(kDefaultFlavor + ClusterQueueYaml("cq", {"cpu", "memory"}, {{"default", {"10", "10Gi"}, {}}}) +
                     LocalQueueYaml("default", "q", "cq") + workload);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("default/new"),
              ElementsAre("0.0 default/new Misconfigured: resources validation failed: ["
                          "spec.podSets[1].template.spec.initContainers[0]: Invalid value: [\"cpu\"]: requests must "
                          "not exceed its limits, "
                          "spec.podSets[1].template.spec.containers[0]: Invalid value: [\"cpu\",\"memory\"]: "
                          "requests must not exceed its limits]"));
}

// AdjustResources and ValidateLimitRange (pkg/workload/resources.go): a
// Job without requests in a namespace with a LimitRange is charged the
// defaultRequest (the API server defaults it from `default`) and runs; a
// container whose limit is above the LimitRange max, or a pod above the Pod
// max, waits Misconfigured with Kueue's message; another namespace is free.
// A RuntimeClass's fixed overhead is charged to a pod that names it.
TEST(PendingConditionsTest, LimitRangesAndRuntimeClassOverhead) {
  const std::string limit_range =
      "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: limits\n  namespace: team\nspec:\n  limits:\n"
      "  - type: Container\n    max: {cpu: \"2\"}\n    default: {cpu: 500m}\n"
      "  - type: Pod\n    max: {cpu: \"3\"}\n---\n";
  const std::string runtime_class =
      "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: kata\nhandler: kata\n"
      "overhead:\n  podFixed: {cpu: 250m}\n---\n";
  const auto job = [](const std::string& name, const std::string& ns, const std::string& resources,
                      const std::string& extra_spec = "") {
    return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
           "\n  labels:\n    kueue.x-k8s.io/queue-name: q\n  annotations:\n    kueuesim.io/duration: 100s\n"
           "spec:\n  template:\n    spec:\n" + extra_spec +
           "      containers:\n      - name: c\n        image: x\n        resources: " + resources + "\n---\n";
  };
  auto run = RunYaml(kDefaultFlavor + ClusterQueueYaml("cq", {"cpu"}, {{"default", {"20"}, {}}}) +
                     LocalQueueYaml("team", "q", "cq") + LocalQueueYaml("other", "q", "cq") + limit_range +
                     runtime_class + job("defaulted", "team", "{}") +
                     job("too-big", "team", "{requests: {cpu: \"1\"}, limits: {cpu: \"4\"}}") +
                     job("free", "other", "{requests: {cpu: \"4\"}}") +
                     job("kata", "other", "{requests: {cpu: \"1\"}}", "      runtimeClassName: kata\n"));
  ASSERT_NE(run, nullptr);
  const cluster::WorkloadRecord* defaulted = run->Find("team/job-defaulted");
  ASSERT_NE(defaulted, nullptr);
  EXPECT_EQ(defaulted->first_reserved_at, 0);
  ASSERT_EQ(defaulted->spec->pod_sets[0].requests.size(), 1u);
  EXPECT_EQ(defaulted->spec->pod_sets[0].requests[0].amount, 500);  // defaultRequest = default
  EXPECT_THAT(run->recorder.Of("team/job-too-big"),
              ElementsAre("0.0 team/job-too-big Misconfigured: resources didn't satisfy LimitRange constraints: "
                          "spec.podSets[0].template.spec.containers[0]: Invalid value: [\"cpu\"]: requests must "
                          "not be above the limitRange max"));
  const cluster::WorkloadRecord* too_big = run->Find("team/job-too-big");
  ASSERT_NE(too_big, nullptr);
  EXPECT_EQ(too_big->first_reserved_at, -1);
  const cluster::WorkloadRecord* free = run->Find("other/job-free");
  ASSERT_NE(free, nullptr);
  EXPECT_EQ(free->first_reserved_at, 0);
  const cluster::WorkloadRecord* kata = run->Find("other/job-kata");
  ASSERT_NE(kata, nullptr);
  ASSERT_EQ(kata->spec->pod_sets[0].requests.size(), 1u);
  EXPECT_EQ(kata->spec->pod_sets[0].requests[0].amount, 1250);
}

// The requeue state an exported Workload carries (workload.IsAdmissible,
// ClusterQueue.backoffWaitingTimeExpired, the workload controller's
// reconcile at requeueAt): a backoff until requeueAt (Requeued=False
// PodsReadyTimeout, or requeueAt alone) holds it until then; a reactivated
// workload (Requeued=False Deactivated, active) is queued at once;
// QuotaReserved=False OnHold keeps the condition and is never queued, nor is
// WaitingForReplacementPods=True; the control without state runs at once.
TEST(PendingConditionsTest, RequeueStateFromTheInput) {
  const auto workload = [](const std::string& name, const std::string& status) {
    return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: " + name +
           "\n  namespace: default\n  creationTimestamp: \"2026-01-01T00:00:00Z\"\n"
           "  annotations:\n    kueuesim.io/duration: 10s\nspec:\n  queueName: q\n  podSets:\n"
           "  - name: main\n    count: 1\n    template:\n      spec:\n        containers:\n        - name: c\n"
           "          resources:\n            requests:\n              cpu: \"1\"\n" +
           (status.empty() ? "" : "status:\n" + status) + "---\n";
  };
  auto run = RunYaml(
      kDefaultFlavor + ClusterQueueYaml("cq", {"cpu"}, {{"default", {"10"}, {}}}) +
      LocalQueueYaml("default", "q", "cq") + workload("control", "") +
      workload("backoff", "  requeueState:\n    count: 1\n    requeueAt: \"2026-01-01T00:01:00Z\"\n"
                          "  conditions:\n  - type: Requeued\n    status: \"False\"\n    reason: PodsReadyTimeout\n") +
      workload("requeue-at-only", "  requeueState:\n    requeueAt: \"2026-01-01T00:00:30Z\"\n") +
      workload("reactivated", "  conditions:\n  - type: Requeued\n    status: \"False\"\n    reason: Deactivated\n") +
      workload("on-hold", "  conditions:\n  - type: QuotaReserved\n    status: \"False\"\n    reason: OnHold\n"
                          "    message: scaled to zero\n") +
      workload("replacing", "  conditions:\n  - type: WaitingForReplacementPods\n    status: \"True\"\n"
                            "    reason: PodsFailed\n"));
  ASSERT_NE(run, nullptr);
  const auto reserved_at = [&run](const std::string& key) -> SimTime {
    const cluster::WorkloadRecord* wl = run->Find(key);
    EXPECT_NE(wl, nullptr) << key;
    return wl == nullptr ? -2 : wl->first_reserved_at;
  };
  EXPECT_EQ(reserved_at("default/control"), 0);
  EXPECT_EQ(reserved_at("default/backoff"), 60 * kSecond);
  EXPECT_EQ(reserved_at("default/requeue-at-only"), 30 * kSecond);
  EXPECT_EQ(reserved_at("default/reactivated"), 0);
  EXPECT_EQ(reserved_at("default/on-hold"), -1);
  EXPECT_EQ(reserved_at("default/replacing"), -1);
  EXPECT_THAT(run->recorder.Of("default/on-hold"), ElementsAre("0.0 default/on-hold OnHold: scaled to zero"));
  const cluster::WorkloadRecord* backoff = run->Find("default/backoff");
  ASSERT_NE(backoff, nullptr);
  EXPECT_EQ(backoff->requeue_count, 1);
}

// workload_controller.go mayUpdateConditionForAdmissionGatedBy (gate
// AdmissionGatedBy, Beta, on): a Workload, or a Job whose annotation Kueue
// copies to its Workload, with a non-empty kueue.x-k8s.io/admission-gated-by
// is not queued (IsAdmissible) and waits with reason AdmissionGated; nothing
// in the simulation removes the gate, so it never runs. Its neighbour without
// the annotation runs.
TEST(PendingConditionsTest, AdmissionGatedBy) {
  const std::string job =
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: default\n"
      "  labels: {kueue.x-k8s.io/queue-name: q}\n"
      "  annotations: {kueue.x-k8s.io/admission-gated-by: \"example.com/a,example.com/b\", "
      "kueuesim.io/duration: 10s}\n"
      "spec:\n  template:\n    spec:\n      containers:\n      - name: c\n"
      "        resources: {requests: {cpu: \"1\"}}\n---\n";
  const std::string gated = [] {
    std::string w = WorkloadYaml("gated", Cpu("1", "10s"));
    const std::string at = "  annotations:\n";
    const size_t pos = w.find(at);
    EXPECT_NE(pos, std::string::npos);
    return w.insert(pos + at.size(), "    kueue.x-k8s.io/admission-gated-by: example.com/gate\n");
  }();
  const std::string objects = kDefaultFlavor + ClusterQueueYaml("cq", {"cpu"}, {{"default", {"4"}, {}}}) +
                              LocalQueueYaml("default", "q", "cq") + gated + job +
                              WorkloadYaml("free", Cpu("1", "10s"));
  auto run = RunYaml(objects, 60 * kSecond);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("default/gated"),
              ElementsAre("0.0 default/gated AdmissionGated: Admission is gated by: example.com/gate"));
  EXPECT_THAT(run->recorder.Of("default/job-j"),
              ElementsAre("0.0 default/job-j AdmissionGated: Admission is gated by: example.com/a,example.com/b"));
  for (const char* key : {"default/gated", "default/job-j"}) {
    const cluster::WorkloadRecord* wl = run->Find(key);
    ASSERT_NE(wl, nullptr);
    EXPECT_FALSE(wl->admission.has_value()) << key;
    EXPECT_EQ(wl->phase, cluster::WorkloadPhase::kPending) << key;
  }
  const cluster::WorkloadRecord* free = run->Find("default/free");
  ASSERT_NE(free, nullptr);
  EXPECT_EQ(free->phase, cluster::WorkloadPhase::kFinished);

  // With the gate off the annotation means nothing.
  auto off = RunYaml("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates:\n"
                     "  AdmissionGatedBy: false\n---\n" + objects,
                     60 * kSecond);
  ASSERT_NE(off, nullptr);
  for (const char* key : {"default/gated", "default/job-j", "default/free"}) {
    const cluster::WorkloadRecord* wl = off->Find(key);
    ASSERT_NE(wl, nullptr);
    EXPECT_EQ(wl->phase, cluster::WorkloadPhase::kFinished) << key;
  }
}

// scheduler_test.go: the preemptor's condition, "... 2 more needed. Pending
// the preemption of 1 workload(s)", reason WaitingForPreemptedWorkloads; the
// victim, once its quota is released, PendingEvaluation with Kueue's
// preemption message (no UIDs in the input: UNKNOWN, as Kueue prints an
// empty one).
TEST(PendingConditionsTest, PreemptionMessages) {
  auto run = RunYaml(kDefaultFlavor +
                     ClusterQueueYaml("cq", {"cpu"}, {{"default", {"4"}, {}}},
                                      "  preemption:\n    withinClusterQueue: LowerPriority\n") +
                     LocalQueueYaml("default", "q", "cq") + WorkloadYaml("low", Cpu("3", "1h", 0)) +
                     WorkloadYaml("high", Cpu("3", "100s", 100, "10s")),
                     60 * kSecond);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("default/high"),
              ElementsAre("10.0 default/high WaitingForPreemptedWorkloads: couldn't assign flavors to pod set main: "
                          "insufficient unused quota for cpu in flavor default, 2 more needed. Pending the "
                          "preemption of 1 workload(s)"));
  const std::vector<std::string> low = run->recorder.Of("default/low");
  ASSERT_FALSE(low.empty());
  EXPECT_EQ(low.front(),
            "10.0 default/low PendingEvaluation: Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) "
            "due to prioritization in the ClusterQueue; preemptor path: /cq; preemptee path: /cq");
  // Then the scheduler considers it again: it waits for quota.
  ASSERT_EQ(low.size(), 2u);
  EXPECT_EQ(low[1], "10.0 default/low WaitingForQuota: couldn't assign flavors to pod set main: insufficient unused "
                    "quota for cpu in flavor default, 2 more needed");
}

// scheduler_test.go "Workload no longer fits after processing another
// workload" (WaitingForQuota), then, in the next cycle, the flavor reasons:
// one event per change.
TEST(PendingConditionsTest, NoLongerFitsThenWaitsForQuota) {
  const std::string cohort = "  cohortName: all\n";
  auto run = RunYaml(kDefaultFlavor + ClusterQueueYaml("a", {"cpu"}, {{"default", {"0"}, {}}}, cohort) +
                     ClusterQueueYaml("b", {"cpu"}, {{"default", {"0"}, {}}}, cohort) +
                     ClusterQueueYaml("lender", {"cpu"}, {{"default", {"4"}, {}}}, cohort) +
                     LocalQueueYaml("default", "qa", "a") + LocalQueueYaml("default", "qb", "b") + [] {
                       WorkloadOptions o = Cpu("3");
                       o.queue = "qa";
                       return WorkloadYaml("wa", o);
                     }() + [] {
                       WorkloadOptions o = Cpu("3");
                       o.queue = "qb";
                       return WorkloadYaml("wb", o);
                     }(),
                     50 * kSecond);
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("default/wa"), IsEmpty());
  EXPECT_THAT(run->recorder.Of("default/wb"),
              ElementsAre("0.0 default/wb WaitingForQuota: Workload no longer fits after processing another workload",
                          "0.0 default/wb WaitingForQuota: couldn't assign flavors to pod set main: insufficient unused "
                          "quota for cpu in flavor default, 2 more needed"));
}

// A workload that waits several cycles for the same reason gets one Pending
// event; its condition stays until it reserves quota.
TEST(PendingConditionsTest, OneEventPerChange) {
  auto run = RunYaml(kDefaultFlavor + ClusterQueueYaml("cq", {"cpu"}, {{"default", {"4"}, {}}}) +
                     LocalQueueYaml("default", "q", "cq") + WorkloadYaml("first", Cpu("4", "100s")) +
                     WorkloadYaml("second", Cpu("2", "100s", 0, "1s")) + WorkloadYaml("third", Cpu("1", "10s", 0, "50s")));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("default/second"),
              ElementsAre("1.0 default/second WaitingForQuota: couldn't assign flavors to pod set main: insufficient "
                          "unused quota for cpu in flavor default, 2 more needed"));
  EXPECT_THAT(run->recorder.Of("default/third"),
              ElementsAre("50.0 default/third WaitingForQuota: couldn't assign flavors to pod set main: insufficient "
                          "unused quota for cpu in flavor default, 1 more needed"));
}

// Kueue re-queues a head at once while its flavor scan has flavors left
// (PendingFlavors) and pops it again next cycle. Here the two pod sets take
// turns: with main on "reserved", worker fits nowhere (spot is taken by
// w14, reserved's memory by main); resuming main past "reserved" puts it on
// spot, where it fits nowhere either; worker then resumes past "reserved"
// and the scan is back where the first evaluation left it. Kueue repeats
// that every cycle until something changes; the simulation stops the
// instant when the scan state comes round (three evaluations, one event
// each) instead of spinning, and evaluates again when w14 finishes, from
// where the scan stopped: main resumes past "reserved", on spot, and worker
// starts over, on reserved.
TEST(PendingConditionsTest, FlavorScanThatComesRoundSettlesTheInstant) {
  const std::string flavors = ResourceFlavorYaml("on-demand") + ResourceFlavorYaml("spot") +
                              ResourceFlavorYaml("reserved");
  const std::string yaml = flavors + R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: root}
spec:
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: reserved
      resources:
      - {name: cpu, nominalQuota: "1.5"}
      - {name: memory, nominalQuota: 8Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  cohortName: root
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: reserved
      resources:
      - {name: cpu, nominalQuota: "1.5"}
      - {name: memory, nominalQuota: 4Gi}
    - name: on-demand
      resources:
      - {name: cpu, nominalQuota: "0"}
      - {name: memory, nominalQuota: 128Gi}
    - name: spot
      resources:
      - {name: cpu, nominalQuota: "8"}
      - {name: memory, nominalQuota: 128Gi}
---
)" + LocalQueueYaml("default", "q", "cq") + R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w06
  namespace: default
  annotations: {kueuesim.io/duration: 5m}
spec:
  queueName: q
  podSets:
  - name: main
    count: 2
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: 250m, memory: 4Gi}}}]}}
  - name: worker
    count: 2
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1", memory: 4Gi}}}]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w14
  namespace: default
  annotations: {kueuesim.io/duration: 5m}
spec:
  queueName: q
  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: high}
  podSets:
  - name: main
    count: 1
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: "8", memory: 2Gi}}}]}}
)";
  auto run = RunYaml(yaml, 400 * kSecond);  // w06 runs from 300 s to 600 s
  ASSERT_NE(run, nullptr);
  const std::vector<std::string> pending = run->recorder.Of("default/w06");
  ASSERT_EQ(pending.size(), 3u) << ::testing::PrintToString(pending);
  EXPECT_THAT(pending[0], ::testing::StartsWith("0.0 default/w06 WaitingForQuota: couldn't assign flavors to pod set worker"));
  EXPECT_THAT(pending[1], ::testing::StartsWith("0.0 default/w06 WaitingForQuota: couldn't assign flavors to pod set main"));
  // The third evaluation resumes worker's scan past "reserved", where the
  // second one put it, and leaves the scan where the first one did.
  EXPECT_THAT(pending[2], ::testing::StartsWith("0.0 default/w06 WaitingForQuota: couldn't assign flavors to pod set worker"));
  EXPECT_THAT(pending[0], ::testing::HasSubstr("flavor reserved"));
  EXPECT_THAT(pending[2], ::testing::Not(::testing::HasSubstr("flavor reserved")));
  const cluster::WorkloadRecord* w06 = run->Find("default/w06");
  ASSERT_NE(w06, nullptr);
  EXPECT_EQ(w06->first_reserved_at, 300 * kSecond);
  ASSERT_TRUE(w06->admission.has_value());
  const cluster::ClusterState& state = run->simulation->clusters()[0]->state();
  ASSERT_EQ(w06->admission->pod_sets.size(), 2u);
  for (const auto& [pod_set, flavor] : {std::pair{0, "spot"}, std::pair{1, "reserved"}}) {
    for (const auto& entry : w06->admission->pod_sets[static_cast<size_t>(pod_set)].entries) {
      EXPECT_EQ(state.flavor(entry.flavor).name, flavor) << "pod set " << pod_set;
    }
  }
}

// workload_controller.go getQueueBlocker: a missing LocalQueue, a missing
// ClusterQueue, a stopped LocalQueue, a stopped ClusterQueue.
TEST(PendingConditionsTest, QueueBlockers) {
  auto run = RunYaml(
      kDefaultFlavor + ClusterQueueYaml("cq", {"cpu"}, {{"default", {"4"}, {}}}) +
      ClusterQueueYaml("held", {"cpu"}, {{"default", {"4"}, {}}}, "  stopPolicy: Hold\n") +
      LocalQueueYaml("default", "q", "cq") + LocalQueueYaml("default", "orphan", "gone") +
      LocalQueueYaml("default", "to-held", "held") +
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: stopped\n  namespace: default\n"
      "spec:\n  clusterQueue: cq\n  stopPolicy: Hold\n---\n" +
      [] {
        WorkloadOptions o = Cpu("1");
        o.queue = "nope";
        return WorkloadYaml("no-lq", o);
      }() + [] {
        WorkloadOptions o = Cpu("1");
        o.queue = "orphan";
        return WorkloadYaml("no-cq", o);
      }() + [] {
        WorkloadOptions o = Cpu("1");
        o.queue = "stopped";
        return WorkloadYaml("lq-stopped", o);
      }() + [] {
        WorkloadOptions o = Cpu("1");
        o.queue = "to-held";
        return WorkloadYaml("cq-stopped", o);
      }());
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("default/no-lq"), ElementsAre("0.0 default/no-lq Misconfigured: LocalQueue nope doesn't exist"));
  EXPECT_THAT(run->recorder.Of("default/no-cq"),
              ElementsAre("0.0 default/no-cq Misconfigured: ClusterQueue gone doesn't exist"));
  EXPECT_THAT(run->recorder.Of("default/lq-stopped"),
              ElementsAre("0.0 default/lq-stopped Suspended: LocalQueue stopped is inactive"));
  EXPECT_THAT(run->recorder.Of("default/cq-stopped"),
              ElementsAre("0.0 default/cq-stopped Suspended: ClusterQueue held is inactive"));
}

// With the UnadmittedWorkloadsObservability gate off, Kueue writes the
// legacy reasons: Pending from the scheduler, Inadmissible from the
// workload controller.
TEST(PendingConditionsTest, LegacyReasonsWithGateOff) {
  auto run = RunYaml(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates:\n"
      "  UnadmittedWorkloadsObservability: false\n---\n" +
      kDefaultFlavor + ClusterQueueYaml("cq", {"cpu"}, {{"default", {"4"}, {}}}) + LocalQueueYaml("default", "q", "cq") +
      WorkloadYaml("big", Cpu("8")) + [] {
        WorkloadOptions o = Cpu("1");
        o.queue = "nope";
        return WorkloadYaml("no-lq", o);
      }());
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("default/big"),
              ElementsAre("0.0 default/big Pending: couldn't assign flavors to pod set main: insufficient quota for cpu "
                          "in flavor default, previously considered podsets requests (0) + current podset request (8) "
                          "> maximum capacity (4)"));
  EXPECT_THAT(run->recorder.Of("default/no-lq"), ElementsAre("0.0 default/no-lq Inadmissible: LocalQueue nope doesn't exist"));
}

// The condition is kept on the record for the outputs: ExceedsMaxQuota for a
// workload that can never fit, with `since` at its first evaluation.
TEST(PendingConditionsTest, RecordKeepsCondition) {
  auto run = RunYaml(kDefaultFlavor + ClusterQueueYaml("cq", {"cpu"}, {{"default", {"4"}, {}}}) +
                     LocalQueueYaml("default", "q", "cq") + WorkloadYaml("big", Cpu("8", "10s", 0, "5s")));
  ASSERT_NE(run, nullptr);
  const cluster::WorkloadRecord* wl = run->Find("default/big");
  ASSERT_NE(wl, nullptr);
  EXPECT_EQ(wl->pending->reason, cluster::QuotaReservedReason::kExceedsMaxQuota);
  EXPECT_EQ(wl->pending->since, 5 * kSecond);
}

}  // namespace
}  // namespace kueuesim
