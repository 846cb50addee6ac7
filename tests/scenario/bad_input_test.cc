// Tests for kueuesim/scenario/scenario.h on invalid and hostile input: every
// case must fail with InvalidArgument (NotFound for a missing file) whose
// message names the file and the object and field, in bounded time.
#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/scenario/scenario.h"
#include "testing/scenario_fixtures.h"
#include "testing/status_matchers.h"

namespace kueuesim::scenario {
namespace {

using ::kueuesim::testing::ClusterQueueYaml;
using ::kueuesim::testing::LoadYaml;
using ::kueuesim::testing::ResourceFlavorYaml;
using ::kueuesim::testing::IsOk;
using ::kueuesim::testing::StatusIs;
using ::kueuesim::testing::WorkloadOptions;
using ::kueuesim::testing::WorkloadYaml;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr auto kTimeLimit = std::chrono::seconds(10);

// Loads `text` as "bad.yaml", checking the time it takes.
absl::StatusOr<Scenario> LoadBad(const std::string& text) {
  const auto start = std::chrono::steady_clock::now();
  auto result = LoadYaml(text, "bad.yaml");
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, kTimeLimit) << "loading took "
                                 << std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()
                                 << " ms";
  return result;
}

std::string Cq(const std::string& name, const std::string& quota) {
  return ClusterQueueYaml(name, {"cpu"}, {{"default", {quota}, {}}});
}

const std::string kHead = ResourceFlavorYaml("default");

// Setup: nominalQuota "12x". Invariant: InvalidArgument naming bad.yaml with
// a line number, ClusterQueue "a", the field path and the text.
TEST(ScenarioBadInputTest, MalformedQuantity) {
  EXPECT_THAT(LoadBad(kHead + Cq("a", "12x")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("bad.yaml:"), HasSubstr("ClusterQueue \"a\""),
                             HasSubstr("spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"),
                             HasSubstr("12x"))));
}

// Setup: a Simulation with a LeaderWorkerSet setting written directly under
// spec (it belongs under spec.leaderWorkerSet), and one with a misspelt key
// under spec.leaderWorkerSet. Invariant: InvalidArgument naming the field and
// the valid keys; a misplaced setting is never ignored.
TEST(ScenarioBadInputTest, UnknownSimulationFieldsAreErrors) {
  const std::string simulation = "apiVersion: kueuesim.io/v1alpha1\nkind: Simulation\nmetadata:\n  name: s\nspec:\n";
  EXPECT_THAT(LoadBad(kHead + "---\n" + simulation + "  kueueSurgeWorkloads: fixed\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("bad.yaml:"), HasSubstr("Simulation \"s\""),
                             HasSubstr("spec.kueueSurgeWorkloads"), HasSubstr("unknown field"),
                             HasSubstr("leaderWorkerSet"))));
  EXPECT_THAT(LoadBad(kHead + "---\n" + simulation + "  leaderWorkerSet:\n    kueueSurgeWorkload: fixed\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("spec.leaderWorkerSet.kueueSurgeWorkload"), HasSubstr("unknown field"),
                             HasSubstr("kueueSurgeWorkloads"))));
  EXPECT_THAT(LoadBad(kHead + "---\n" + simulation + "  leaderWorkerSet:\n    kueueSurgeWorkloads: fixed\n"),
              IsOk());
}

// Setup: nominalQuota "-1". Invariant: InvalidArgument, field nominalQuota,
// "negative".
TEST(ScenarioBadInputTest, NegativeNominalQuota) {
  EXPECT_THAT(LoadBad(kHead + Cq("a", "-1")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("bad.yaml:"), HasSubstr("ClusterQueue \"a\""),
                             HasSubstr("nominalQuota"), HasSubstr("negative"))));
}

// Setup: a workload pod set with count -2. Invariant: InvalidArgument naming
// Workload "w" and spec.podSets[0].count.
TEST(ScenarioBadInputTest, NegativePodSetCount) {
  WorkloadOptions o;
  o.count = -2;
  EXPECT_THAT(LoadBad(kHead + WorkloadYaml("w", o)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("bad.yaml:"), HasSubstr("Workload \"w\""),
                             HasSubstr("spec.podSets[0].count"), HasSubstr("negative"))));
}

// Cohorts whose parents form a cycle are not bad input: Kueue accepts them
// (no webhook checks it) and admits nothing from the ClusterQueues of that
// tree (conformance queue/*-cohort-cycle). Setup: Cohorts a (parent b) and b
// (parent a). Invariant: the scenario loads with a warning naming a Cohort,
// spec.parentName and the cycle path.
TEST(ScenarioBadInputTest, CohortCycleLoadsWithAWarning) {
  const std::string yaml = kHead + R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: a}
spec: {parentName: b}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: b}
spec: {parentName: a}
)";
  auto scenario = LoadBad(yaml);
  ASSERT_THAT(scenario, IsOk());
  EXPECT_THAT(scenario->report.warnings,
              ::testing::Contains(AllOf(HasSubstr("bad.yaml:"), HasSubstr("Cohort \""), HasSubstr("spec.parentName"),
                                        HasSubstr("cycle"), HasSubstr("a -> b -> a"))));
}

// Setup: a cohort that is its own parent; and a 3-cycle x -> y -> z -> x
// hanging below a valid root. Invariant: both load, each with a warning
// about the cycle.
TEST(ScenarioBadInputTest, SelfParentAndLongerCycleLoadWithAWarning) {
  auto self = LoadBad("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: s}\nspec: {parentName: s}\n");
  ASSERT_THAT(self, IsOk());
  EXPECT_THAT(self->report.warnings,
              ::testing::Contains(AllOf(HasSubstr("Cohort \"s\""), HasSubstr("spec.parentName"), HasSubstr("s -> s"))));
  std::string yaml;
  for (const auto& [child, parent] : std::vector<std::pair<std::string, std::string>>{
           {"x", "y"}, {"y", "z"}, {"z", "x"}, {"leaf", "x"}}) {
    yaml += "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: " + child +
            "}\nspec: {parentName: " + parent + "}\n---\n";
  }
  auto longer = LoadBad(yaml);
  ASSERT_THAT(longer, IsOk());
  EXPECT_THAT(longer->report.warnings, ::testing::Contains(AllOf(HasSubstr("bad.yaml:"), HasSubstr("cycle"))));
}

// Setup: flavor "default" listed twice in one resource group, and a flavor
// listed in two groups. Invariant: InvalidArgument, "listed twice", naming
// the second occurrence's path.
TEST(ScenarioBadInputTest, FlavorListedTwice) {
  const std::string same_group = kHead + R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - {name: default, resources: [{name: cpu, nominalQuota: "1"}]}
    - {name: default, resources: [{name: cpu, nominalQuota: "1"}]}
)";
  EXPECT_THAT(LoadBad(same_group),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("bad.yaml:"), HasSubstr("ClusterQueue \"a\""),
                             HasSubstr("spec.resourceGroups[0].flavors[1].name"), HasSubstr("listed twice"))));
  const std::string two_groups = kHead + R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "1"}]}]
  - coveredResources: [memory]
    flavors: [{name: default, resources: [{name: memory, nominalQuota: "1"}]}]
)";
  EXPECT_THAT(LoadBad(two_groups),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("ClusterQueue \"a\""), HasSubstr("spec.resourceGroups[1].flavors[0].name"),
                             HasSubstr("listed twice"))));
}

// Setup: cpu covered by resource groups 0 and 1. Invariant: InvalidArgument
// naming spec.resourceGroups[1].coveredResources[0] and group 0.
TEST(ScenarioBadInputTest, ResourceInTwoResourceGroups) {
  const std::string yaml = kHead + ResourceFlavorYaml("other") + R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "1"}]}]
  - coveredResources: [cpu]
    flavors: [{name: other, resources: [{name: cpu, nominalQuota: "1"}]}]
)";
  EXPECT_THAT(LoadBad(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                      AllOf(HasSubstr("bad.yaml:"), HasSubstr("ClusterQueue \"a\""),
                                            HasSubstr("spec.resourceGroups[1].coveredResources[0]"),
                                            HasSubstr("resourceGroups[0]"))));
}

// Setup: two ClusterQueues named "a". Invariant: InvalidArgument naming the
// second one's line, "duplicate" and the first one's position.
TEST(ScenarioBadInputTest, DuplicateObject) {
  auto result = LoadBad(kHead + Cq("a", "1") + Cq("a", "2"));
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kInvalidArgument,
                               AllOf(HasSubstr("bad.yaml:"), HasSubstr("ClusterQueue \"a\""),
                                     HasSubstr("metadata.name"), HasSubstr("duplicate"),
                                     HasSubstr("already defined at bad.yaml:"))));
  // The same name in two clusters is fine.
  const std::string two_clusters =
      kHead + Cq("a", "1") +
      "apiVersion: kueuesim.io/v1alpha1\nkind: Cluster\nmetadata: {name: other}\n---\n" + kHead + Cq("a", "1");
  EXPECT_THAT(LoadBad(two_clusters), ::kueuesim::testing::IsOk());
}

// Setup: a ClusterQueue without cohort setting borrowingLimit (and one
// setting lendingLimit). Invariant: InvalidArgument naming the field path
// ".borrowingLimit" ("must be nil when cohortName is empty").
TEST(ScenarioBadInputTest, LimitsWithoutCohort) {
  const std::string borrowing =
      kHead + ClusterQueueYaml("a", {"cpu"}, {{"default", {"4"}, {"2"}}});
  EXPECT_THAT(LoadBad(borrowing),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("bad.yaml:"), HasSubstr("ClusterQueue \"a\""),
                             HasSubstr("spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit"),
                             HasSubstr("cohortName"))));
  const std::string lending = kHead + R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "4", lendingLimit: "1"}]}]
)";
  EXPECT_THAT(LoadBad(lending), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("lendingLimit")));
}

// Setup: the manifest cut in the middle of a flow mapping. Invariant:
// InvalidArgument with "bad.yaml:<line>:<column>:".
TEST(ScenarioBadInputTest, TruncatedFile) {
  const std::string full = kHead + "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a, labels: {x: y}}\n";
  const std::string truncated = full.substr(0, full.size() - 8);  // inside the flow mapping
  EXPECT_THAT(LoadBad(truncated),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::ContainsRegex("bad\\.yaml:[0-9]+:[0-9]+:")));
}

// Setup: a flow sequence nested 100,000 levels deep. Invariant:
// InvalidArgument mentioning the nesting, quickly, without a stack
// overflow.
TEST(ScenarioBadInputTest, DeepNesting) {
  const std::string yaml = "a: " + std::string(100000, '[');
  EXPECT_THAT(LoadBad(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                      AllOf(HasSubstr("bad.yaml:"), HasSubstr("nesting"))));
}

// Setup: 9 levels of 9 aliases each ("billion laughs", 9^9 nodes when
// expanded). Invariant: InvalidArgument mentioning the aliases, quickly.
TEST(ScenarioBadInputTest, AliasBomb) {
  std::string yaml = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  char prev = 'a';
  for (char name = 'b'; name <= 'i'; ++name) {
    yaml += std::string(1, name) + ": &" + name + " [";
    for (int i = 0; i < 9; ++i) yaml += std::string(i ? "," : "") + "*" + prev;
    yaml += "]\n";
    prev = name;
  }
  EXPECT_THAT(LoadBad(yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                      AllOf(HasSubstr("bad.yaml:"), HasSubstr("alias"))));
}

// Setup: 10 MB of pseudo-random bytes from a fixed seed. Invariant:
// InvalidArgument naming the file, in bounded time.
TEST(ScenarioBadInputTest, RandomBytes) {
  std::mt19937 rng(42);
  std::string bytes(10 * 1024 * 1024, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  EXPECT_THAT(LoadBad(bytes), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bad.yaml:")));
}

// Requests beyond int64 are not bad input: Kueue reads them saturated at the
// int64 bounds (resources.ResourceValue through utilmath.SafeMilliValue) and
// its quota arithmetic saturates; the API server accepts such quantities.
// Setup: a container requesting 99999999999999999999 cpu (1e23 milli-cpu).
// Invariant: the scenario loads and the pod's cpu request is INT64_MAX.
TEST(ScenarioBadInputTest, RequestAboveInt64Saturates) {
  WorkloadOptions o;
  o.requests = {{"cpu", "99999999999999999999"}};
  auto scenario = LoadBad(kHead + WorkloadYaml("w", o));
  ASSERT_THAT(scenario, IsOk());
  const model::Workload& wl = scenario->clusters[0].workloads.back();
  ASSERT_EQ(wl.pod_sets[0].requests.size(), 1u);
  EXPECT_EQ(wl.pod_sets[0].requests[0].name, "cpu");
  EXPECT_EQ(wl.pod_sets[0].requests[0].amount, std::numeric_limits<Amount>::max());
}

// Setup: two containers requesting memory 5E each (5e18 bytes: each fits in
// int64, the pod total 1e19 does not), and a pod set of count 10 whose pod
// requests memory 1E. Invariant: both load; the pod's sum saturates at
// INT64_MAX (the pod set's total saturates in the quota arithmetic).
TEST(ScenarioBadInputTest, SummedRequestsAboveInt64Saturate) {
  const std::string yaml = kHead + R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  queueName: q
  podSets:
  - template:
      spec:
        containers:
        - {name: a, resources: {requests: {memory: 5E}}}
        - {name: b, resources: {requests: {memory: 5E}}}
)";
  auto scenario = LoadBad(yaml);
  ASSERT_THAT(scenario, IsOk());
  const model::Workload& wl = scenario->clusters[0].workloads.back();
  ASSERT_EQ(wl.pod_sets[0].requests.size(), 1u);
  EXPECT_EQ(wl.pod_sets[0].requests[0].amount, std::numeric_limits<Amount>::max());

  WorkloadOptions o;
  o.count = 10;
  o.requests = {{"memory", "1E"}};
  EXPECT_THAT(LoadBad(kHead + WorkloadYaml("w", o)), IsOk());
}

// Setup: a Workload admitted in its status (QuotaReserved) on ClusterQueue
// "nope", which does not exist. Invariant: loading (and so `kueuesim
// validate`, not only `run`) refuses it, naming the Workload and the field.
TEST(ScenarioBadInputTest, AdmittedOnMissingClusterQueue) {
  const std::string workload = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: default}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: 1}}
status:
  conditions:
  - {type: QuotaReserved, status: "True", lastTransitionTime: "2025-01-01T00:00:00Z"}
  admission:
    clusterQueue: nope
    podSetAssignments:
    - {name: main, flavors: {cpu: default}, resourceUsage: {cpu: 1}, count: 1}
)";
  EXPECT_THAT(LoadBad(kHead + Cq("a", "4") + workload),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("bad.yaml:"), HasSubstr("Workload \"default/w\""),
                             HasSubstr("status.admission.clusterQueue: ClusterQueue \"nope\" does not exist"))));
}

// Setup: other malformed fields: an unknown enum value, a non-integer count,
// a mapping where a list is expected, a missing apiVersion, a List inside a
// List. Invariant: each is InvalidArgument naming bad.yaml and the field.
TEST(ScenarioBadInputTest, MalformedFields) {
  const std::string strategy = kHead + ClusterQueueYaml("a", {"cpu"}, {{"default", {"1"}, {}}},
                                                        "  queueingStrategy: Fastest\n");
  EXPECT_THAT(LoadBad(strategy), StatusIs(absl::StatusCode::kInvalidArgument,
                                          AllOf(HasSubstr("bad.yaml:"), HasSubstr("spec.queueingStrategy"),
                                                HasSubstr("Fastest"), HasSubstr("StrictFIFO"))));
  WorkloadOptions o;
  o.pod_set_extra = "    minCount: many\n";
  EXPECT_THAT(LoadBad(WorkloadYaml("w", o)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Workload \"w\""), HasSubstr("spec.podSets[0].minCount"))));
  EXPECT_THAT(LoadBad("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\n"
                      "spec: {resourceGroups: {cpu: 1}}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("ClusterQueue \"a\""), HasSubstr("spec.resourceGroups"),
                             HasSubstr("must be a list"))));
  EXPECT_THAT(LoadBad("kind: ResourceFlavor\nmetadata: {name: a}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, AllOf(HasSubstr("bad.yaml:"), HasSubstr("apiVersion"))));
  EXPECT_THAT(LoadBad("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, AllOf(HasSubstr("bad.yaml:"), HasSubstr("List"))));
  // minCount above count.
  WorkloadOptions m;
  m.count = 2;
  m.min_count = 3;
  EXPECT_THAT(LoadBad(WorkloadYaml("w", m)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.podSets[0].minCount")));
}

// Setup: lendingLimit above nominalQuota in a cohort member; a fungibility
// preference without both TryNextFlavor; borrowWithinCohort without
// reclaimWithinCohort. Invariant: the webhook rules reject each with the
// field named.
TEST(ScenarioBadInputTest, ClusterQueueWebhookRules) {
  const std::string lending = kHead + R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  cohortName: c
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "4", lendingLimit: "5"}]}]
)";
  EXPECT_THAT(LoadBad(lending), StatusIs(absl::StatusCode::kInvalidArgument,
                                         AllOf(HasSubstr("ClusterQueue \"a\""), HasSubstr("lendingLimit"),
                                               HasSubstr("nominalQuota"))));
  const std::string preference = kHead + Cq("a", "1");
  std::string with_pref = preference;
  with_pref.insert(with_pref.find("  resourceGroups"),
                   "  flavorFungibility: {whenCanBorrow: MayStopSearch, whenCanPreempt: TryNextFlavor,\n"
                   "                      preference: PreemptionOverBorrowing}\n");
  EXPECT_THAT(LoadBad(with_pref),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.flavorFungibility.preference")));
  std::string bwc = preference;
  bwc.insert(bwc.find("  resourceGroups"), "  preemption: {borrowWithinCohort: {policy: LowerPriority}}\n");
  EXPECT_THAT(LoadBad(bwc), StatusIs(absl::StatusCode::kInvalidArgument,
                                     HasSubstr("spec.preemption.borrowWithinCohort.policy")));
}

// Setup: a Job (and a Pod) whose container requests more cpu than its limit.
// Invariant: the API server's pod validation rejects it at creation, so the
// load fails naming the object and the container's requests; a Workload
// object with the same template loads (Kueue's scheduler leaves it pending:
// tests/runtime/pending_conditions_test.cc).
TEST(ScenarioBadInputTest, RequestsAboveLimitsRejectedForJobsNotWorkloads) {
  const std::string resources =
      "          resources:\n            requests: {cpu: 200m}\n            limits: {cpu: 100m}\n";
  const std::string job = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n"
                          "  labels: {kueue.x-k8s.io/queue-name: q}\nspec:\n  template:\n    spec:\n"
                          "      containers:\n      - name: c\n" +
                          resources.substr(2);
  EXPECT_THAT(LoadBad(job), StatusIs(absl::StatusCode::kInvalidArgument,
                                     AllOf(HasSubstr("bad.yaml:"), HasSubstr("\"j\""),
                                           HasSubstr("spec.template.spec.containers[0].resources.requests.cpu"),
                                           HasSubstr("must be less than or equal to cpu limit of 100m"))));
  const std::string pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
                          "  labels: {kueue.x-k8s.io/queue-name: q}\nspec:\n"
                          "  initContainers:\n  - name: c\n" +
                          resources.substr(6) + "  containers:\n  - name: m\n";
  EXPECT_THAT(LoadBad(pod), StatusIs(absl::StatusCode::kInvalidArgument,
                                     AllOf(HasSubstr("\"p\""),
                                           HasSubstr("spec.initContainers[0].resources.requests.cpu"),
                                           HasSubstr("must be less than or equal to cpu limit of 100m"))));
  const std::string workload = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: w\n"
                               "spec:\n  queueName: q\n  podSets:\n  - name: main\n    count: 1\n"
                               "    template:\n      spec:\n        containers:\n        - name: c\n" +
                               resources;
  EXPECT_THAT(LoadBad(workload), Not(StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("limit"))));
}

// Setup: Workloads and a Job whose kueue.x-k8s.io/admission-gated-by
// annotation Kueue's webhook refuses at creation (ValidateAdmissionGatedBy-
// AnnotationOnCreate): an empty gate, a duplicate, a gate without a domain
// prefix, one over 63 characters. Invariant: InvalidArgument naming the
// object, the annotation and the rule; a valid list loads.
TEST(ScenarioBadInputTest, AdmissionGatedByFormat) {
  const auto workload = [](const std::string& value) {
    return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: w\n"
           "  annotations: {kueue.x-k8s.io/admission-gated-by: \"" + value + "\"}\n"
           "spec:\n  queueName: q\n  podSets:\n  - name: main\n    count: 1\n"
           "    template:\n      spec:\n        containers:\n        - name: c\n";
  };
  const auto rejects = [&](const std::string& value, const std::string& rule) {
    EXPECT_THAT(LoadBad(workload(value)),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("bad.yaml:"), HasSubstr("Workload \"default/w\""),
                               HasSubstr("metadata.annotations[kueue.x-k8s.io/admission-gated-by]"),
                               HasSubstr(rule))))
        << value;
  };
  rejects("example.com/a,,example.com/b", "cannot contain empty gate names");
  rejects("example.com/a,example.com/a", "duplicate gate name: example.com/a");
  rejects("gate", "must be a domain-prefixed path");
  rejects("Example.com/a", "lowercase RFC 1123 subdomain");
  rejects("example.com/" + std::string(60, 'x'), "may not be more than 63");
  EXPECT_THAT(LoadBad(workload("example.com/a,other.io/b")),
              Not(StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("admission-gated-by"))));
  const std::string job = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n"
                          "  labels: {kueue.x-k8s.io/queue-name: q}\n"
                          "  annotations: {kueue.x-k8s.io/admission-gated-by: gate}\n"
                          "spec:\n  template:\n    spec:\n      containers:\n      - name: c\n";
  EXPECT_THAT(LoadBad(job), StatusIs(absl::StatusCode::kInvalidArgument,
                                     AllOf(HasSubstr("Job"), HasSubstr("j\""),
                                           HasSubstr("must be a domain-prefixed path"))));
}

// Setup: Workloads that Kueue's Workload webhook refuses at creation: two pod
// sets with minCount, a container request of the reserved `pods` resource, a
// negative limit (WorkloadValidateResourcesAreNonNegative, on by default); and
// a Job with a negative request, which the API server refuses. Invariant:
// InvalidArgument naming the object, the field and the rule.
TEST(ScenarioBadInputTest, WorkloadWebhookPodSetRules) {
  const auto workload = [](const std::string& pod_sets) {
    return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: w\n"
           "spec:\n  queueName: q\n  podSets:\n" + pod_sets;
  };
  const auto pod_set = [](const std::string& name, const std::string& extra, const std::string& resources) {
    return "  - name: " + name + "\n    count: 4\n" + extra +
           "    template:\n      spec:\n        containers:\n        - name: c\n"
           "          resources: " + resources + "\n";
  };
  EXPECT_THAT(LoadBad(workload(pod_set("a", "    minCount: 2\n", "{}") + pod_set("b", "    minCount: 1\n", "{}"))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("bad.yaml:"), HasSubstr("\"w\""), HasSubstr("spec.podSets"),
                             HasSubstr("at most one podSet can use minCount"))));
  EXPECT_THAT(LoadBad(workload(pod_set("a", "    minCount: 2\n", "{}") + pod_set("b", "", "{}"))), IsOk());
  // With PartialAdmission off the webhook's defaulting drops every minCount
  // first: the Workload is accepted, without partial admission.
  auto gate_off = LoadBad("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates:\n"
                          "  PartialAdmission: false\n---\n" +
                          workload(pod_set("a", "    minCount: 2\n", "{}") + pod_set("b", "    minCount: 1\n", "{}")));
  ASSERT_THAT(gate_off, IsOk());
  for (const auto& ps : gate_off->clusters[0].workloads.back().pod_sets) EXPECT_FALSE(ps.min_count.has_value());
  EXPECT_THAT(LoadBad(workload(pod_set("a", "", "{requests: {pods: \"1\"}}"))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("spec.podSets[0].template.spec.containers[0].resources.requests.pods"),
                             HasSubstr("the key is reserved for internal kueue use"))));
  EXPECT_THAT(LoadBad(workload(pod_set("a", "", "{requests: {cpu: \"1\"}, limits: {memory: -1Gi}}"))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("spec.podSets[0].template.spec.containers[0].resources.limits.memory"),
                             HasSubstr("must be greater than or equal to 0"))));
  const std::string job = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n"
                          "  labels: {kueue.x-k8s.io/queue-name: q}\nspec:\n  template:\n    spec:\n"
                          "      containers:\n      - name: c\n        resources: {requests: {cpu: -100m}}\n";
  EXPECT_THAT(LoadBad(job), StatusIs(absl::StatusCode::kInvalidArgument,
                                     AllOf(HasSubstr("spec.template.spec.containers[0].resources.requests.cpu"),
                                           HasSubstr("must be greater than or equal to 0"))));
}

// Setup: a path that does not exist. Invariant: NotFound naming the path.
TEST(ScenarioBadInputTest, MissingFileIsNotFound) {
  const std::string path = ::testing::TempDir() + "/definitely-missing-kueuesim.yaml";
  EXPECT_THAT(LoadScenarioFiles({path}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("definitely-missing-kueuesim.yaml")));
}

// Invariant: a valid scenario is not rejected by the checks above (guards
// against a loader that rejects everything).
TEST(ScenarioBadInputTest, ValidBaselineLoads) {
  EXPECT_THAT(LoadBad(kHead + Cq("a", "12")), ::kueuesim::testing::IsOk());
  EXPECT_THAT(LoadBad(kHead + WorkloadYaml("w")), Not(StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(""))));
}

}  // namespace
}  // namespace kueuesim::scenario
