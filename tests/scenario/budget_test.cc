// Tests for the loader's budget (kueuesim/scenario/limits.h,
// src/scenario/budget.h): every input class of issue 24 is refused before
// it is built, with the file, the object, the field and the figures, or
// loads within the budget. Budgets are lowered where the sizes would
// make the test slow; the refusals under the defaults need no allocation.
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/time.h"
#include "kueuesim/scenario/limits.h"
#include "kueuesim/scenario/scenario.h"
#include "testing/status_matchers.h"
#include "trace/trace_test_util.h"

namespace kueuesim::scenario {
namespace {

using ::kueuesim::testing::IsOk;
using ::kueuesim::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kFile[] = "budget.yaml";

absl::StatusOr<Scenario> Load(const std::string& yaml, const std::string& limits = "") {
  LoadOptions options;
  if (!limits.empty()) {
    auto parsed = ParseLimits(limits);
    if (!parsed.ok()) return parsed.status();
    options.limits = *parsed;
  }
  return LoadScenarioStrings({{kFile, yaml}}, options);
}

std::string Pool(const std::string& name, int64_t count) {
  return "apiVersion: kueuesim.io/v1alpha1\nkind: NodePool\nmetadata:\n  name: " + name + "\nspec:\n  count: " +
         std::to_string(count) + "\n  allocatable: {cpu: 8}\n---\n";
}

std::string Deployment(const std::string& name, int64_t replicas, bool managed = true) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
         "\n  namespace: ns\nspec:\n  replicas: " + std::to_string(replicas) +
         "\n  template:\n    metadata:\n      labels: {" +
         (managed ? "kueue.x-k8s.io/queue-name: lq" : "app: x") +
         "}\n    spec:\n      containers:\n      - name: c\n        resources: {requests: {cpu: 1}}\n---\n";
}

std::string Job(const std::string& name, const std::string& annotations = "") {
  return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name +
         "\n  namespace: ns\n  labels: {kueue.x-k8s.io/queue-name: lq}\n" +
         (annotations.empty() ? "" : "  annotations: {" + annotations + "}\n") +
         "spec:\n  template:\n    spec:\n      containers:\n      - name: c\n"
         "        resources: {requests: {cpu: 1}}\n---\n";
}

std::string Simulation(const std::string& spec) {
  return "apiVersion: kueuesim.io/v1alpha1\nkind: Simulation\nmetadata:\n  name: s\nspec:\n" + spec + "---\n";
}

// Setup: the defaults. Expectation: they fit a 24 GiB machine as documented.
TEST(BudgetTest, Defaults) {
  const Limits limits;
  EXPECT_EQ(limits.nodes, 1'000'000);
  EXPECT_EQ(limits.workloads, 500'000);
  EXPECT_EQ(limits.queues, 100'000);
  EXPECT_EQ(limits.time, 3650 * 24 * kHour);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario scenario, Load(Pool("p", 3)));
  EXPECT_EQ(scenario.limits.nodes, 1'000'000);
}

// Setup: --limits strings, good and bad. Expectation: the named limits
// set, the others untouched; errors name the item.
TEST(BudgetTest, ParsesLimits) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(LimitOverrides all, ParseLimits("nodes=2000000,workloads=7,queues=9,time=7300d"));
  EXPECT_EQ(all.nodes, 2'000'000);
  EXPECT_EQ(all.workloads, 7);
  EXPECT_EQ(all.queues, 9);
  EXPECT_EQ(all.time, 7300 * 24 * kHour);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(LimitOverrides some, ParseLimits("workloads=3"));
  EXPECT_EQ(some.ApplyTo(Limits()).workloads, 3);
  EXPECT_EQ(some.ApplyTo(Limits()).nodes, Limits().nodes);
  EXPECT_EQ(FormatLimits(Limits()), "nodes=1000000,workloads=500000,queues=100000,time=3650d0h0m0s");
  EXPECT_THAT(ParseLimits("pods=3"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown limit \"pods\"")));
  EXPECT_THAT(ParseLimits("nodes=0"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nodes: \"0\"")));
  EXPECT_THAT(ParseLimits("nodes=99999999999999999999"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an integer between 1 and")));
  EXPECT_THAT(ParseLimits("nodes"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("want NAME=VALUE")));
  EXPECT_THAT(ParseLimits("time=-1h"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("time: \"-1h\"")));
}

// Setup: issue 24's four NodePools of a million nodes each, under the
// defaults. Expectation: the second pool is refused before any node exists
// (pools are counted as they are read and made when loading ends). Under a
// lowered budget the same shape is refused at the same place.
TEST(BudgetTest, NodePoolsBeyondTheNodeBudget) {
  EXPECT_THAT(Load(Pool("p0", 1'000'000) + Pool("p1", 1'000'000) + Pool("p2", 1'000'000) + Pool("p3", 1'000'000)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("budget.yaml:14: NodePool \"p1\": spec.count: 1000000 nodes would bring the scenario "
                                 "to 2000000 nodes, over the limit of 1000000")));
  EXPECT_THAT(Load(Pool("a", 6) + Pool("b", 6), "nodes=10"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("budget.yaml:14: NodePool \"b\": spec.count: 6 nodes would bring the scenario "
                                       "to 12 nodes, over the limit of 10"),
                             HasSubstr("--limits nodes=N"), HasSubstr("spec.limits.nodes"))));
  // A pool alone beyond the default budget: refused without generating.
  EXPECT_THAT(Load(Pool("huge", 4'000'000)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("NodePool \"huge\": spec.count: 4000000 nodes would bring the scenario to 4000000 "
                                 "nodes, over the limit of 1000000")));
  // Written Nodes count too.
  const std::string node = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\nstatus:\n  allocatable: {cpu: 1}\n";
  EXPECT_THAT(Load(Pool("a", 10) + node, "nodes=10"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Node \"n\": 1 nodes would bring")));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario within, Load(Pool("a", 6) + Pool("b", 4), "nodes=10"));
  EXPECT_EQ(within.clusters[0].nodes.size(), 10u);
}

// Setup: issue 24's Deployments of many replicas managed through the pod
// integration, with the budget lowered to 50 workloads. Expectation: the
// Deployment that crosses it is refused at spec.replicas with the figures;
// an unmanaged Deployment counts nothing; a StatefulSet managed as one group
// counts one Workload.
TEST(BudgetTest, DeploymentReplicasBeyondTheWorkloadBudget) {
  EXPECT_THAT(Load(Deployment("d0", 20) + Deployment("d1", 20) + Deployment("d2", 20), "workloads=50"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Deployment \"d2\": spec.replicas: 20 workloads would bring the scenario to 60 "
                                 "workloads, over the limit of 50")));
  const std::string group_statefulset =
      "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: ss\n  namespace: ns\n"
      "  labels: {kueue.x-k8s.io/queue-name: lq}\nspec:\n  replicas: 40\n  template:\n    spec:\n"
      "      containers:\n      - name: c\n        resources: {requests: {cpu: 1}}\n---\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(
      Scenario within,
      Load(Deployment("d0", 20) + Deployment("unmanaged", 100, false) + group_statefulset + Deployment("d1", 29),
           "workloads=50"));
  EXPECT_EQ(within.clusters[0].workloads.size(), 50u);
  // The 20 x 100,000 under the defaults: the sixth crosses 500,000
  // and is refused before any replica Workload is made (they are made when
  // loading ends), so the refusal is immediate.
  std::string twenty;
  for (int i = 0; i < 20; ++i) twenty += Deployment("web" + std::to_string(i), 100'000);
  EXPECT_THAT(Load(twenty),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Deployment \"web5\": spec.replicas: 100000 workloads would bring the scenario to "
                                 "600000 workloads, over the limit of 500000")));
}

// Setup: replicas made after other objects were read. Expectation: they keep
// their place among the cluster's Workloads (input order), named by index.
TEST(BudgetTest, DeferredReplicasKeepTheirPlace) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario scenario, Load(Job("first") + Deployment("web", 3) + Job("last")));
  std::vector<std::string> names;
  for (const auto& wl : scenario.clusters[0].workloads) names.push_back(wl.meta.name);
  EXPECT_THAT(names, ::testing::ElementsAre("job-first", "pod-web-0", "pod-web-1", "pod-web-2", "job-last"));
}

// Setup: Workload-making objects one by one past a budget of 2, and
// ClusterQueues past a queue budget of 2. Expectation: the third is refused.
TEST(BudgetTest, ObjectsCountOneByOne) {
  EXPECT_THAT(Load(Job("a") + Job("b") + Job("c"), "workloads=2"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Workload \"job-c\": 1 workloads would bring the scenario to 3 workloads")));
  std::string queues;
  for (const char* name : {"a", "b", "c"}) {
    queues += std::string("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: ") + name +
              "\nspec: {}\n---\n";
  }
  EXPECT_THAT(Load(queues, "queues=2"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ClusterQueue \"c\": 1 queues would bring the scenario to 3 queues")));
}

// Setup: a LeaderWorkerSet of 30 groups, and a Change scaling it to 40.
// Expectation: the groups count as Workloads; the largest scale counts.
TEST(BudgetTest, LeaderWorkerSetGroupsAndScaling) {
  const std::string lws =
      "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: srv\n  namespace: ns\n"
      "  labels: {kueue.x-k8s.io/queue-name: lq}\nspec:\n  replicas: 30\n  leaderWorkerTemplate:\n    size: 2\n"
      "    workerTemplate:\n      spec:\n        containers:\n        - name: c\n"
      "          resources: {requests: {cpu: 1}}\n---\n";
  const std::string scale =
      "apiVersion: kueuesim.io/v1alpha1\nkind: Change\nmetadata:\n  name: up\nspec:\n  at: 1h\n  target:\n"
      "    kind: LeaderWorkerSet\n    namespace: ns\n    name: srv\n  replicas: 40\n---\n";
  EXPECT_THAT(Load(lws, "workloads=20"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("LeaderWorkerSet \"srv\": spec.replicas: 30 workloads would bring")));
  EXPECT_THAT(Load(lws + scale, "workloads=35"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Change \"up\": spec.replicas: 10 workloads would bring the scenario to 40")));
  EXPECT_THAT(Load(lws + scale, "workloads=40"), IsOk());
}

// Setup: times beyond the simulated time range (default ten years; lowered
// to a day), and a duration longer than Kubernetes allows. Expectation:
// each refused naming the object and the field.
TEST(BudgetTest, TimesBeyondTheRange) {
  EXPECT_THAT(Load(Job("late", "kueuesim.io/arrival: 20000d")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("budget.yaml:"), HasSubstr("arrival: 20000d0h0m0s is beyond the simulated time "
                                                                  "range of 3650d0h0m0s"),
                             HasSubstr("--limits time=N"))));
  EXPECT_THAT(Load(Job("long", "kueuesim.io/duration: 2d"), "time=1d"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("duration: 2d0h0m0s is beyond")));
  EXPECT_THAT(Load(Simulation("  until: 30d\n"), "time=1d"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Simulation \"s\": spec.until: 30d0h0m0s is beyond")));
  EXPECT_THAT(Load(Job("forever", "kueuesim.io/duration: 300000d")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("longer than a Kubernetes duration can be")));
}

// Setup: limits in the Simulation, with and without --limits. Expectation:
// the Simulation raises the defaults for the objects after it; the command
// line wins over it; a Simulation read after the objects that lowers a
// limit still holds (checked when loading ends, naming the Simulation).
TEST(BudgetTest, SimulationLimitsAndPrecedence) {
  const std::string raise = Simulation("  limits: {nodes: 20, workloads: 1000, queues: 5, time: 100d}\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario raised, Load(raise + Pool("a", 6) + Pool("b", 6) + Pool("c", 6)));
  EXPECT_EQ(raised.limits.nodes, 20);
  EXPECT_EQ(raised.limits.time, 100 * 24 * kHour);
  EXPECT_THAT(Load(raise + Pool("a", 6) + Pool("b", 6), "nodes=10"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("over the limit of 10")));
  EXPECT_THAT(Load(Pool("a", 6) + Simulation("  limits: {nodes: 4}\n")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("budget.yaml:9: Simulation: spec.limits.nodes: the scenario has 6 nodes, over this "
                                 "limit of 4")));
  EXPECT_THAT(Load(Simulation("  limits: {pods: 4}\n")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.limits.pods: unknown limit")));
  EXPECT_THAT(Load(Simulation("  limits: {nodes: 0}\n")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.limits.nodes: must be a positive integer")));
}

std::string Trace(const std::string& path) {
  return "apiVersion: kueuesim.io/v1alpha1\nkind: Trace\nmetadata:\n  name: gen\nspec:\n  format: "
         "kueue-perf-generator\n  path: " +
         path + "\n---\n";
}

// Setup: issue 24's generator configs: a cohort count of 10^8 (103 bytes),
// a queues-set count of 10^8, a generator whose workloads or last arrival
// cross a lowered budget. Expectation: refused before anything is
// generated, naming the Trace and the figures.
TEST(BudgetTest, GeneratorBeyondTheBudget) {
  using trace::testing::WriteTemp;
  const std::string cohorts = WriteTemp("cohorts.yaml", "cohorts:\n- className: c\n  count: 100000000\n");
  EXPECT_THAT(Load(Trace(cohorts)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Trace \"gen\""), HasSubstr(cohorts),
                             HasSubstr("100000000 queues would bring the scenario to 100000000 queues, over the limit "
                                       "of 100000"))));
  const std::string queues = WriteTemp(
      "queues.yaml",
      "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n    count: 100000000\n"
      "    nominalQuota: 1\n");
  EXPECT_THAT(Load(Trace(queues)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("200000001 queues would bring")));
  const std::string workloads = WriteTemp(
      "workloads.yaml",
      "cohorts:\n- className: c\n  count: 2\n  queuesSets:\n  - className: q\n    count: 2\n    nominalQuota: 1\n"
      "    workloadsSets:\n    - count: 100\n      creationIntervalMs: 60000\n      workloads:\n"
      "      - {className: a, runtimeMs: 1000, request: 1}\n");
  EXPECT_THAT(Load(Trace(workloads), "workloads=399"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("400 workloads would bring")));
  EXPECT_THAT(Load(Trace(workloads), "time=1h"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the last arrival: 1h40m0s is beyond the simulated time range of 1h0m0s")));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario within, Load(Trace(workloads), "workloads=400,queues=10"));
  EXPECT_EQ(within.clusters[0].cluster_queues.size(), 4u);
}

// Setup: the compact node. Expectation: tens of bytes per generated node
// (the name, two shared pointers, three flags) whatever its template holds.
TEST(BudgetTest, GeneratedNodesAreCompact) {
  EXPECT_LE(sizeof(model::Node), 80u);
}

}  // namespace
}  // namespace kueuesim::scenario
