// Timed changes of Kueue objects (kueuesim.io/v1alpha1 Change targeting a
// ClusterQueue, Cohort, LocalQueue or WorkloadPriorityClass), run through the
// whole simulation: what the admission decisions are before and after each
// change, and the load-time errors for changes that cannot apply.
#include <map>
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

// "<seconds> <type> <workload>" for workload events, "<seconds> Changed
// <object>" for object changes.
class Recorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    if (event.type == cluster::EventType::kChanged) {
      lines.push_back(fmt::format("{} Changed {}", FormatSeconds(event.time), event.object));
      return;
    }
    if (event.workload == cluster::kNone) return;
    lines.push_back(fmt::format("{} {} {}", FormatSeconds(event.time), cluster::EventTypeName(event.type),
                                event.cluster->workload(event.workload).key));
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

struct Run {
  Recorder recorder;
  std::unique_ptr<sim::Simulation> simulation;
};

absl::StatusOr<std::unique_ptr<Run>> RunYaml(const std::string& yaml) {
  auto run = std::make_unique<Run>();
  auto simulation = testing::SimulationFromYaml(yaml, {&run->recorder}, "changes.yaml");
  if (!simulation.ok()) return simulation.status();
  run->simulation = *std::move(simulation);
  absl::Status status = run->simulation->Run(sim::RunOptions{});
  if (!status.ok()) return status;
  return run;
}

// Two ClusterQueues "a" and "b" in cohort "all", each 4 cpu of flavor
// "default"; `a_extra` goes under a's first resource (e.g. a lending limit,
// 8 spaces of indent). LocalQueues "a" and "b" in namespace "ns".
std::string Cluster(const std::string& a_extra = "", const std::string& a_spec = "") {
  std::string out = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
)";
  for (const std::string name : {"a", "b"}) {
    out += fmt::format(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {0}}}
spec:
  cohortName: all
  namespaceSelector: {{}}
{2}  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: "4"
{1}---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: {0}, namespace: ns}}
spec: {{clusterQueue: {0}}}
---
)",
                       name, name == "a" ? a_extra : "", name == "a" ? a_spec : "");
  }
  return out;
}

// A Job of `cpu` cpus (one pod) in LocalQueue `queue`, arriving at `at`,
// running `duration`; `labels` are extra metadata labels (one per line, 4
// spaces of indent).
std::string Job(const std::string& name, const std::string& queue, int cpu, const std::string& at,
                const std::string& duration, const std::string& labels = "") {
  return fmt::format(R"(apiVersion: batch/v1
kind: Job
metadata:
  name: {0}
  namespace: ns
  labels:
    kueue.x-k8s.io/queue-name: {1}
{5}  annotations:
    kueuesim.io/arrival: {3}
    kueuesim.io/duration: {4}
spec:
  template:
    spec:
      containers:
      - name: main
        resources:
          requests:
            cpu: "{2}"
---
)",
                     name, queue, cpu, at, duration, labels);
}

std::string Change(const std::string& name, const std::string& at, const std::string& target,
                   const std::string& body) {
  return fmt::format(R"(apiVersion: kueuesim.io/v1alpha1
kind: Change
metadata: {{name: {0}}}
spec:
  at: {1}
  target: {2}
{3}---
)",
                     name, at, target, body);
}

// Setup: a and b each nominal 4 cpu; a takes 4 (big, 1h) and b takes 4
// (b-job, 1h); "second" (4 cpu) waits in a. At 10m a's nominal quota is
// raised to 8 (the cohort then has 12).
// Expected: the change is an event at 600 s; "second" is requeued by it (1 s
// later, as parked workloads are) and admitted at 601 s.
TEST(ObjectChangesTest, RaisedNominalQuotaAdmitsTheWaitingWorkload) {
  auto run = RunYaml(Cluster() + Job("big", "a", 4, "0s", "1h") + Job("b-job", "b", 4, "0s", "1h") +
                     Job("second", "a", 4, "1s", "1h") +
                     Change("more-cpu", "10m", "{kind: ClusterQueue, name: a}",
                            "  resources:\n  - {flavor: default, name: cpu, nominalQuota: \"8\"}\n"));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT((*run)->recorder.Of("Changed"), ElementsAre("600.0 Changed ClusterQueue/a"));
  EXPECT_THAT((*run)->recorder.Of("QuotaReserved"),
              ElementsAre("0.0 QuotaReserved ns/job-big", "0.0 QuotaReserved ns/job-b-job",
                          "601.0 QuotaReserved ns/job-second"));
}

// Setup: b lends nothing (lendingLimit 0), b idle; a full with "big" (4 cpu);
// "second" (2 cpu) waits. At 5m b's lendingLimit is removed (null).
// Expected: second borrows from b once the limit is gone: admitted at 301 s,
// not before.
TEST(ObjectChangesTest, RemovedLendingLimitLetsTheCohortBorrow) {
  std::string cluster = Cluster();
  // b's quota gets a lending limit of 0.
  const std::string b_quota = "metadata: {name: b}";
  ASSERT_NE(cluster.find(b_quota), std::string::npos);
  const size_t b_pos = cluster.find(b_quota);
  const size_t nominal = cluster.find("nominalQuota: \"4\"\n", b_pos);
  cluster.insert(nominal + std::string("nominalQuota: \"4\"\n").size(), "        lendingLimit: \"0\"\n");
  auto run = RunYaml(cluster + Job("big", "a", 4, "0s", "1h") + Job("second", "a", 2, "1s", "1h") +
                     Change("lend", "5m", "{kind: ClusterQueue, name: b}",
                            "  resources:\n  - {flavor: default, name: cpu, lendingLimit: null}\n"));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT((*run)->recorder.Of("QuotaReserved"),
              ElementsAre("0.0 QuotaReserved ns/job-big", "301.0 QuotaReserved ns/job-second"));
}

// Setup: a's stopPolicy becomes Hold at 1m and None again at 30m; "early"
// (0 s) runs; "held" arrives at 2m.
// Expected: held is not admitted while a is stopped, and is admitted when a
// restarts at 30m; early keeps running (Hold does not evict).
TEST(ObjectChangesTest, HeldClusterQueueAdmitsNothingUntilRestarted) {
  auto run = RunYaml(Cluster() + Job("early", "a", 1, "0s", "1h") + Job("held", "a", 1, "2m", "1h") +
                     Change("stop", "1m", "{kind: ClusterQueue, name: a}", "  stopPolicy: Hold\n") +
                     Change("restart", "30m", "{kind: ClusterQueue, name: a}", "  stopPolicy: None\n"));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT((*run)->recorder.Of("QuotaReserved"),
              ElementsAre("0.0 QuotaReserved ns/job-early", "1800.0 QuotaReserved ns/job-held"));
  EXPECT_THAT((*run)->recorder.Of("Evicted"), IsEmpty());
  EXPECT_THAT((*run)->recorder.Of("Finished"),
              ElementsAre("3600.0 Finished ns/job-early", "5400.0 Finished ns/job-held"));
}

// Setup: a running job in a; a's stopPolicy becomes HoldAndDrain at 10m.
// Expected: the running job is evicted at 10m and not admitted again.
TEST(ObjectChangesTest, HoldAndDrainEvictsTheAdmittedWorkloads) {
  auto run = RunYaml(Cluster() + Job("running", "a", 1, "0s", "1h") +
                     Change("drain", "10m", "{kind: ClusterQueue, name: a}", "  stopPolicy: HoldAndDrain\n"));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT((*run)->recorder.Of("Evicted"), ElementsAre("600.0 Evicted ns/job-running"));
  EXPECT_THAT((*run)->recorder.Of("QuotaReserved"), ElementsAre("0.0 QuotaReserved ns/job-running"));
  EXPECT_THAT((*run)->recorder.Of("Finished"), IsEmpty());
}

// Setup: LocalQueue ns/a is held from 1m to 20m; "queued" arrives at 2m.
// Expected: a Held event when it arrives at 2m; it waits and is admitted when
// the LocalQueue is released at 20m.
TEST(ObjectChangesTest, HeldLocalQueueKeepsItsWorkloadsOutOfTheQueue) {
  auto run = RunYaml(Cluster() + Job("queued", "a", 1, "2m", "1h") +
                     Change("hold-lq", "1m", "{kind: LocalQueue, namespace: ns, name: a}", "  stopPolicy: Hold\n") +
                     Change("release-lq", "20m", "{kind: LocalQueue, namespace: ns, name: a}",
                            "  stopPolicy: None\n"));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT((*run)->recorder.Of("Held"), ElementsAre("120.0 Held ns/job-queued"));
  EXPECT_THAT((*run)->recorder.Of("QuotaReserved"), ElementsAre("1200.0 QuotaReserved ns/job-queued"));
}

// Setup: a full with "big" (4 cpu, 1h); "low" (class batch, value 10) and
// "high" (class urgent, value 20) both wait for 4 cpu, low created first. At
// 10m batch's value becomes 100.
// Expected: when big finishes, low is admitted first (priority 100 beats 20)
// and high an hour later; without the change the order is reversed.
TEST(ObjectChangesTest, WorkloadPriorityClassValueReordersTheQueue) {
  const std::string classes = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: batch}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: urgent}
value: 20
---
)";
  const std::string base = Cluster() + classes + Job("big", "a", 4, "0s", "1h") + Job("b-job", "b", 4, "0s", "2h") +
                           Job("low", "a", 4, "1s", "1h", "    kueue.x-k8s.io/priority-class: batch\n") +
                           Job("high", "a", 4, "2s", "1h", "    kueue.x-k8s.io/priority-class: urgent\n");
  auto without = RunYaml(base);
  ASSERT_TRUE(without.ok()) << without.status();
  EXPECT_THAT((*without)->recorder.Of("QuotaReserved"),
              ElementsAre("0.0 QuotaReserved ns/job-big", "0.0 QuotaReserved ns/job-b-job",
                          "3601.0 QuotaReserved ns/job-high", "7201.0 QuotaReserved ns/job-low"));
  auto with = RunYaml(base + Change("boost", "10m", "{kind: WorkloadPriorityClass, name: batch}", "  value: 100\n"));
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_THAT((*with)->recorder.Of("QuotaReserved"),
              ElementsAre("0.0 QuotaReserved ns/job-big", "0.0 QuotaReserved ns/job-b-job",
                          "3601.0 QuotaReserved ns/job-low", "7201.0 QuotaReserved ns/job-high"));
}

// Changes that cannot apply are load errors naming the file, the Change and
// the field.
TEST(ObjectChangesTest, ChangesThatCannotApplyAreErrors) {
  auto missing_cq = RunYaml(Cluster() + Change("x", "1m", "{kind: ClusterQueue, name: nope}", "  stopPolicy: Hold\n"));
  ASSERT_FALSE(missing_cq.ok());
  EXPECT_THAT(missing_cq.status().message(),
              AllOf(HasSubstr("changes.yaml:"), HasSubstr("Change \"x\""), HasSubstr("spec.target.name"),
                    HasSubstr("no ClusterQueue \"nope\"")));
  auto undeclared = RunYaml(
      Cluster() + Change("y", "1m", "{kind: ClusterQueue, name: a}",
                         "  resources:\n  - {flavor: default, name: nvidia.com/gpu, nominalQuota: \"8\"}\n"));
  ASSERT_FALSE(undeclared.ok());
  EXPECT_THAT(undeclared.status().message(),
              AllOf(HasSubstr("Change \"y\""), HasSubstr("spec.resources[0]"), HasSubstr("it has: default/cpu")));
  auto wrong_field = RunYaml(Cluster() + Change("z", "1m", "{kind: LocalQueue, namespace: ns, name: a}",
                                                "  resources:\n  - {flavor: default, name: cpu, nominalQuota: \"1\"}\n"));
  ASSERT_FALSE(wrong_field.ok());
  EXPECT_THAT(wrong_field.status().message(), HasSubstr("only a ClusterQueue or Cohort has quotas"));
  auto bad_policy = RunYaml(Cluster() + Change("w", "1m", "{kind: ClusterQueue, name: a}", "  stopPolicy: Pause\n"));
  ASSERT_FALSE(bad_policy.ok());
  EXPECT_THAT(bad_policy.status().message(), HasSubstr("valid: None, Hold, HoldAndDrain"));
}

}  // namespace
}  // namespace kueuesim
