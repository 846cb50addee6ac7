// Loading real clusters as they are: metadata.generateName, kubectl JSON,
// directories, kinds whose workloads are not simulated, default run times,
// Job activeDeadlineSeconds and CronJobs (src/scenario/generate_name.cc,
// workload_kinds.cc, decode_durations.cc, default_durations.cc,
// decode_cronjob.cc, loader.cc).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/time.h"
#include "kueuesim/doc/reader.h"
#include "kueuesim/scenario/default_durations.h"
#include "kueuesim/scenario/scenario.h"
#include "scenario/generate_name.h"
#include "testing/scenario_fixtures.h"
#include "testing/status_matchers.h"

namespace kueuesim::scenario {
namespace {

using ::kueuesim::testing::LoadYaml;
using ::kueuesim::testing::StatusIs;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::Pair;

// Kueue's canonical sample Job (site/static/examples/jobs/sample-job.yaml).
constexpr char kSampleJob[] = R"(apiVersion: batch/v1
kind: Job
metadata:
  generateName: sample-job-
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  parallelism: 3
  completions: 3
  template:
    spec:
      containers:
      - name: dummy-job
        image: registry.k8s.io/e2e-test-images/agnhost:2.53
        command: [ "/bin/sh" ]
        args: [ "-c", "sleep 60" ]
        resources:
          requests:
            cpu: "1"
            memory: "200Mi"
      restartPolicy: Never
)";

TEST(GenerateNameTest, KubernetesShape) {
  const std::string name = GenerateNameWithSeed("sample-job-", 42);
  EXPECT_THAT(name, MatchesRegex("sample-job-[bcdfghjklmnpqrstvwxz2456789]{5}"));
  EXPECT_EQ(name, GenerateNameWithSeed("sample-job-", 42));
  EXPECT_NE(name, GenerateNameWithSeed("sample-job-", 43));
  // A prefix longer than 58 characters is cut so that the name fits in 63.
  const std::string long_name = GenerateNameWithSeed(std::string(70, 'a'), 1);
  EXPECT_EQ(long_name.size(), 63u);
  EXPECT_EQ(long_name.substr(0, 58), std::string(58, 'a'));
}

TEST(GenerateNameTest, SampleJobLoadsWithAStableName) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(kSampleJob, "sample-job.yaml"));
  ASSERT_EQ(s.clusters[0].workloads.size(), 1u);
  const model::Workload& wl = s.clusters[0].workloads[0];
  EXPECT_THAT(wl.meta.name, MatchesRegex("job-sample-job-[bcdfghjklmnpqrstvwxz2456789]{5}"));
  EXPECT_EQ(wl.queue_name, "user-queue");
  EXPECT_EQ(wl.pod_sets[0].count, 3);
  // Same input, same name, whatever the file is called.
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario again, LoadYaml(kSampleJob, "elsewhere/renamed.yaml"));
  EXPECT_EQ(again.clusters[0].workloads[0].meta.name, wl.meta.name);
}

TEST(GenerateNameTest, EveryCopyGetsItsOwnName) {
  const std::string twice = std::string(kSampleJob) + "---\n" + kSampleJob;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(twice));
  ASSERT_EQ(s.clusters[0].workloads.size(), 2u);
  EXPECT_NE(s.clusters[0].workloads[0].meta.name, s.clusters[0].workloads[1].meta.name);
  // Different content at the same place differs too.
  std::string other = kSampleJob;
  other.replace(other.find("parallelism: 3"), 14, "parallelism: 2");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario a, LoadYaml(kSampleJob, "a.yaml"));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario b, LoadYaml(other, "b.yaml"));
  EXPECT_NE(a.clusters[0].workloads[0].meta.name, b.clusters[0].workloads[0].meta.name);
}

TEST(GenerateNameTest, EveryKindWithMetadata) {
  const std::string yaml = R"(apiVersion: v1
kind: Pod
metadata:
  generateName: worker-
  labels: {kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/managed: "true"}
spec:
  containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {generateName: wl-}
spec:
  queueName: q
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: i}]}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {generateName: flavor-}
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml));
  ASSERT_EQ(s.clusters[0].workloads.size(), 2u);
  EXPECT_THAT(s.clusters[0].workloads[0].meta.name, MatchesRegex("pod-worker-.{5}|worker-.{5}"));
  EXPECT_THAT(s.clusters[0].workloads[1].meta.name, MatchesRegex("wl-.{5}"));
  EXPECT_THAT(s.clusters[0].resource_flavors[0].meta.name, MatchesRegex("flavor-.{5}"));
}

TEST(GenerateNameTest, NameWinsAndEmptyPrefixIsAnError) {
  std::string named = kSampleJob;
  named.replace(named.find("generateName: sample-job-"), 25, "name: given\n  generateName: sample-job-");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(named));
  EXPECT_EQ(s.clusters[0].workloads[0].meta.name, "job-given");
  std::string empty = kSampleJob;
  empty.replace(empty.find("generateName: sample-job-"), 25, "generateName: \"\"");
  EXPECT_THAT(LoadYaml(empty, "e.yaml"), StatusIs(absl::StatusCode::kInvalidArgument,
                                                  AllOf(HasSubstr("e.yaml:"), HasSubstr("generateName"),
                                                        HasSubstr("must not be empty"))));
  std::string neither = kSampleJob;
  neither.replace(neither.find("generateName: sample-job-"), 25, "labels2: {}");
  EXPECT_THAT(LoadYaml(neither), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("metadata.name")));
}

// kubectl get jobs -o json: a List, as kubectl prints it.
constexpr char kKubectlJson[] = R"({
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": "from-json",
                "namespace": "team",
                "labels": {"kueue.x-k8s.io/queue-name": "q"},
                "annotations": {"kueuesim.io/duration": "90s"}
            },
            "spec": {
                "parallelism": 2,
                "template": {"spec": {"containers": [{"name": "c", "image": "i",
                    "resources": {"requests": {"cpu": "500m"}}}]}}
            }
        },
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": "bad",
                "labels": {"kueue.x-k8s.io/queue-name": "q"}
            },
            "spec": {
                "parallelism": "many"
            }
        }
    ],
    "kind": "List",
    "metadata": {"resourceVersion": ""}
}
)";

TEST(KubectlJsonTest, ListLoadsAndErrorsNameTheJsonLine) {
  std::string good = kKubectlJson;
  good.replace(good.find("\"parallelism\": \"many\""), 21, "\"parallelism\": 1");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(good, "jobs.json"));
  ASSERT_EQ(s.clusters[0].workloads.size(), 2u);
  EXPECT_EQ(s.clusters[0].workloads[0].meta.name, "job-from-json");
  EXPECT_EQ(s.clusters[0].workloads[0].pod_sets[0].count, 2);
  EXPECT_EQ(s.clusters[0].workloads[0].duration, 90 * kSecond);
  EXPECT_EQ(s.clusters[0].workloads[0].meta.source.line, 4);
  // "parallelism": "many" is on line 27 of the JSON text.
  EXPECT_THAT(LoadYaml(kKubectlJson, "jobs.json"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("jobs.json:27:"), HasSubstr("Job \"bad\""), HasSubstr("spec.parallelism"))));
}

TEST(KubectlJsonTest, OneObjectAndCompactJson) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(
      Scenario s,
      LoadYaml(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"one","labels":)"
               R"({"kueue.x-k8s.io/queue-name":"q"}},"spec":{"template":{"spec":{"containers":[{"name":"c",)"
               R"("image":"i\/j","resources":{"requests":{"cpu":"1"}}}]}}}})",
               "one.json"));
  ASSERT_EQ(s.clusters[0].workloads.size(), 1u);
  EXPECT_EQ(s.clusters[0].workloads[0].meta.name, "job-one");
  // Tab-indented JSON (jq --tab, Python's json.dumps(indent="\t")).
  KUEUESIM_ASSERT_OK_AND_ASSIGN(
      Scenario tabs, LoadYaml("{\n\t\"apiVersion\": \"kueue.x-k8s.io/v1beta2\",\n\t\"kind\": \"ResourceFlavor\",\n"
                              "\t\"metadata\": {\n\t\t\"name\": \"tabbed\"\n\t}\n}\n",
                              "tabs.json"));
  EXPECT_EQ(tabs.clusters[0].resource_flavors[0].meta.name, "tabbed");
}

class DirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kueuesim_loadpath_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "nested");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::filesystem::path dir_;
};

TEST_F(DirectoryTest, LoadsYamlYmlAndJsonInNameOrderNotSubdirectories) {
  Write("b.yml", ::kueuesim::testing::ResourceFlavorYaml("second"));
  Write("a.yaml", ::kueuesim::testing::ResourceFlavorYaml("first"));
  Write("c.json", R"({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "third"}})");
  Write("notes.txt", "not a manifest");
  Write("nested/d.yaml", ::kueuesim::testing::ResourceFlavorYaml("nested"));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadScenarioFiles({dir_.string()}));
  std::vector<std::string> names;
  for (const auto& flavor : s.clusters[0].resource_flavors) names.push_back(flavor.meta.name);
  EXPECT_THAT(names, ElementsAre("first", "second", "third"));
  EXPECT_EQ(s.clusters[0].resource_flavors[0].meta.source.file, (dir_ / "a.yaml").string());
}

// Setup: one file of three Workloads (two documents, then a List of one),
// one of a ResourceFlavor, and a JSON file of two Workloads.
// Invariant: every object names its file, and the objects of one file share
// one copy of the name (a large export holds tens of thousands of objects
// per file); objects of different files do not.
TEST_F(DirectoryTest, ObjectsOfOneFileShareTheirFileName) {
  auto document = [](const std::string& name) {
    const std::string yaml = ::kueuesim::testing::WorkloadYaml(name);  // ends with "---\n"
    return yaml.substr(0, yaml.size() - 4);
  };
  const std::string list =
      "apiVersion: v1\nkind: List\nitems:\n- " + absl::StrReplaceAll(document("w3"), {{"\n", "\n  "}}) + "\n";
  Write("a.yaml", document("w1") + "---\n" + document("w2") + "---\n" + list);
  Write("b.yaml", ::kueuesim::testing::ResourceFlavorYaml("f"));
  const std::string json_workload = R"({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
      "metadata": {"name": "NAME", "namespace": "default"},
      "spec": {"queueName": "q", "podSets": [{"name": "main", "count": 1,
        "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]}})";
  Write("c.json", R"({"apiVersion": "v1", "kind": "List", "items": [)" +
                      absl::StrReplaceAll(json_workload, {{"NAME", "j1"}}) + ", " +
                      absl::StrReplaceAll(json_workload, {{"NAME", "j2"}}) + "]}\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadScenarioFiles({dir_.string()}));
  const auto& workloads = s.clusters[0].workloads;
  ASSERT_EQ(workloads.size(), 5u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(workloads[i].meta.source.file, (dir_ / "a.yaml").string()) << i;
    EXPECT_EQ(&workloads[i].meta.source.file.str(), &workloads[0].meta.source.file.str()) << i;
  }
  EXPECT_EQ(s.clusters[0].resource_flavors[0].meta.source.file, (dir_ / "b.yaml").string());
  EXPECT_NE(&s.clusters[0].resource_flavors[0].meta.source.file.str(), &workloads[0].meta.source.file.str());
  EXPECT_EQ(workloads[3].meta.source.file, (dir_ / "c.json").string());
  EXPECT_EQ(&workloads[4].meta.source.file.str(), &workloads[3].meta.source.file.str());
}

TEST_F(DirectoryTest, EmptyDirectoryIsAnError) {
  std::filesystem::remove_all(dir_ / "nested");
  std::filesystem::create_directories(dir_ / "empty");
  EXPECT_THAT(LoadScenarioFiles({(dir_ / "empty").string()}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no .yaml, .yml or .json file")));
}

TEST(UnsimulatedKindsTest, WorkloadKindsWarnHarmlessKindsDoNot) {
  const std::string yaml = R"(apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {generateName: hello-}
spec:
  entrypoint: main
  templates: [{name: main, container: {image: busybox}}]
---
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata: {name: run-1}
spec: {pipelineRef: {name: p}}
---
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata: {name: run-2}
spec: {pipelineRef: {name: p}}
---
apiVersion: tekton.dev/v1
kind: Task
metadata: {name: t}
spec: {steps: [{name: s, image: busybox}]}
---
apiVersion: example.com/v1
kind: Trainer
metadata: {name: custom}
spec: {pods: {template: {spec: {containers: [{name: c, image: i}]}}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: owned
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: d, uid: u, controller: true}]
spec: {template: {spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data: {containers: "not a pod"}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec: {template: {spec: {containers: [{name: c, image: i}]}}}
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml, "mixed.yaml"));
  EXPECT_THAT(s.report.unsimulated_workload_kinds,
              ElementsAre(Pair("argoproj.io/v1alpha1/Workflow", 1), Pair("example.com/v1/Trainer", 1),
                          Pair("tekton.dev/v1/PipelineRun", 2)));
  EXPECT_EQ(s.report.unknown_kinds.size(), 7u);
  EXPECT_THAT(s.report.warnings, Contains(AllOf(HasSubstr("2 object(s) of kind tekton.dev/v1/PipelineRun"),
                                                HasSubstr("mixed.yaml:8 \"run-1\""),
                                                HasSubstr("not in this run"))));
  EXPECT_THAT(s.report.warnings, Contains(AllOf(HasSubstr("argoproj.io/v1alpha1/Workflow"), HasSubstr("\"hello-"))));
  EXPECT_THAT(s.report.warnings, Not(Contains(HasSubstr("ConfigMap"))));
  EXPECT_THAT(s.report.warnings, Not(Contains(HasSubstr("DaemonSet"))));
}

constexpr char kTwoJobs[] = R"(apiVersion: batch/v1
kind: Job
metadata:
  name: a
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq-a, tier: batch}
spec:
  template: {spec: {containers: [{name: c, image: i}]}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: b
  namespace: team-b
  labels: {kueue.x-k8s.io/queue-name: lq-b}
spec:
  activeDeadlineSeconds: 600
  template: {spec: {containers: [{name: c, image: i}]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: team-b}
spec:
  queueName: lq-b
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: i}]}}}]
)";

TEST(DefaultDurationsTest, WithoutRulesEveryWorkloadIsWarnedAbout) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(kTwoJobs));
  EXPECT_EQ(s.report.workloads_without_duration, 3);
  EXPECT_THAT(s.report.without_duration_examples, ElementsAre("team-a/job-a", "team-b/job-b", "team-b/w"));
  EXPECT_THAT(s.report.warnings, Contains(AllOf(HasSubstr("3 workload(s) have no run time"),
                                                HasSubstr("team-a/job-a, team-b/job-b, team-b/w"))));
  // activeDeadlineSeconds is kept for the runtime.
  EXPECT_EQ(s.clusters[0].workloads[1].rare->active_deadline, 600 * kSecond);
  EXPECT_FALSE(s.clusters[0].workloads[0].rare->active_deadline.has_value());
}

TEST(DefaultDurationsTest, FirstMatchingRuleWins) {
  const std::string yaml = std::string(kTwoJobs) + R"(---
apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: sim}
spec:
  seed: 7
  defaultDurations:
  - match: {labels: {tier: batch}}
    duration: 30m
  - match: {kind: Job, queue: lq-b}
    distribution: {type: exponential, mean: 20m}
  - distribution: {type: logNormal, median: 10m, sigma: 0.5}
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml));
  ASSERT_EQ(s.settings.default_durations.size(), 3u);
  EXPECT_EQ(s.settings.default_durations[0].description, "defaultDurations[0] (label tier=batch): fixed 30m0s");
  EXPECT_EQ(s.settings.default_durations[1].description,
            "defaultDurations[1] (kind Job, queue lq-b): exponential, mean 20m0s");
  EXPECT_EQ(s.settings.default_durations[2].description,
            "defaultDurations[2] (all): log-normal, median 10m0s, sigma 0.5");
  EXPECT_THAT(s.report.default_duration_uses, ElementsAre(1, 1, 1));
  EXPECT_EQ(s.report.workloads_without_duration, 0);
  EXPECT_THAT(s.report.warnings, Not(Contains(HasSubstr("no run time"))));
  // The values are drawn when the simulation is built; the loader leaves
  // the workloads as they are.
  EXPECT_FALSE(s.clusters[0].workloads[0].duration.has_value());
  model::Workload a = s.clusters[0].workloads[0];
  EXPECT_EQ(ApplyDefaultDuration(s.settings, &a), 0);
  EXPECT_EQ(a.duration, 30 * kMinute);
}

TEST(DefaultDurationsTest, DrawsDependOnSeedAndIdentityOnly) {
  DurationDistribution exponential;
  exponential.type = DurationDistribution::Type::kExponential;
  exponential.value = 20 * kMinute;
  EXPECT_EQ(DrawDuration(exponential, 7, "ns/a"), DrawDuration(exponential, 7, "ns/a"));
  EXPECT_NE(DrawDuration(exponential, 7, "ns/a"), DrawDuration(exponential, 8, "ns/a"));
  EXPECT_NE(DrawDuration(exponential, 7, "ns/a"), DrawDuration(exponential, 7, "ns/b"));
  // Whole milliseconds; the mean of many draws is near the mean.
  double sum = 0;
  constexpr int kDraws = 20000;
  for (int i = 0; i < kDraws; ++i) {
    const SimDuration d = DrawDuration(exponential, 1, "ns/w" + std::to_string(i));
    EXPECT_EQ(d % kMillisecond, 0);
    EXPECT_GE(d, 0);
    sum += static_cast<double>(d);
  }
  EXPECT_NEAR(sum / kDraws / kMinute, 20.0, 0.6);
  DurationDistribution log_normal;
  log_normal.type = DurationDistribution::Type::kLogNormal;
  log_normal.value = 10 * kMinute;
  log_normal.sigma = 0.5;
  std::vector<SimDuration> draws;
  for (int i = 0; i < kDraws; ++i) draws.push_back(DrawDuration(log_normal, 3, "ns/w" + std::to_string(i)));
  std::sort(draws.begin(), draws.end());
  EXPECT_NEAR(static_cast<double>(draws[kDraws / 2]) / kMinute, 10.0, 0.3);  // the median
  log_normal.sigma = 0;
  EXPECT_EQ(DrawDuration(log_normal, 3, "ns/x"), 10 * kMinute);
}

TEST(DefaultDurationsTest, ServingWorkloadsOnlyByNameAndEmpirical) {
  const std::string dir = ::testing::TempDir();
  {
    std::ofstream csv(dir + "/runtimes.csv");
    csv << "job,seconds\nx,60\ny,\nz,2m\n";
  }
  const std::string yaml = R"(apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  replicas: 2
  template: {spec: {containers: [{name: c, image: i}]}}
---
apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: sim}
spec:
  defaultDurations:
  - distribution: {type: empirical, file: runtimes.csv, column: seconds}
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml, dir + "/sim.yaml"));
  ASSERT_EQ(s.settings.default_durations.size(), 1u);
  EXPECT_THAT(s.settings.default_durations[0].distribution.samples, ElementsAre(60 * kSecond, 2 * kMinute));
  // A rule without `kind` does not apply to serving workloads, and they are
  // not "without a run time".
  EXPECT_THAT(s.report.default_duration_uses, ElementsAre(0));
  EXPECT_EQ(s.report.workloads_without_duration, 0);
  EXPECT_THAT(LoadYaml(R"(apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: sim}
spec:
  defaultDurations:
  - distribution: {type: empirical, file: runtimes.csv, column: minutes}
)",
                       dir + "/bad.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("bad.yaml:6"), HasSubstr("spec.defaultDurations[0].distribution.column"),
                             HasSubstr("no column \"minutes\""))));
}

TEST(DefaultDurationsTest, BadRulesAreErrors) {
  auto load = [](const std::string& rules) {
    return LoadYaml("apiVersion: kueuesim.io/v1alpha1\nkind: Simulation\nmetadata: {name: s}\nspec:\n"
                    "  defaultDurations:\n" +
                        rules,
                    "sim.yaml");
  };
  EXPECT_THAT(load("  - match: {queue: q}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("exactly one of duration and distribution")));
  EXPECT_THAT(load("  - {duration: 1m, distribution: {type: fixed, value: 1m}}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("exactly one of duration and distribution")));
  EXPECT_THAT(load("  - distribution: {type: gamma, mean: 1m}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("spec.defaultDurations[0].distribution.type"), HasSubstr("\"gamma\""))));
  EXPECT_THAT(load("  - distribution: {type: exponential, mean: 0s}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be positive")));
  EXPECT_THAT(load("  - match: {team: a}\n    duration: 1m\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("spec.defaultDurations[0].match.team"), HasSubstr("unknown field"))));
}

constexpr char kCronJob[] = R"(apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
  namespace: team
spec:
  schedule: "30 2 * * 1-5"
  timeZone: Europe/Berlin
  concurrencyPolicy: Forbid
  startingDeadlineSeconds: 600
  jobTemplate:
    metadata:
      labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/priority-class: batch-low}
      annotations: {kueuesim.io/duration: 45m}
    spec:
      parallelism: 3
      completions: 3
      activeDeadlineSeconds: 3600
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox, resources: {requests: {cpu: "1", memory: 200Mi}}}]
)";

TEST(CronJobTest, DecodesScheduleAndJobTemplate) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(kCronJob));
  ASSERT_EQ(s.clusters[0].cron_jobs.size(), 1u);
  const model::CronJob& cron = s.clusters[0].cron_jobs[0];
  EXPECT_EQ(cron.schedule, "30 2 * * 1-5");
  EXPECT_EQ(cron.time_zone, "Europe/Berlin");
  EXPECT_EQ(cron.concurrency_policy, model::ConcurrencyPolicy::kForbid);
  EXPECT_EQ(cron.starting_deadline_seconds, 600);
  EXPECT_EQ(cron.successful_jobs_history_limit, 3);
  EXPECT_EQ(cron.failed_jobs_history_limit, 1);
  ASSERT_TRUE(cron.job_workload.has_value());
  EXPECT_EQ(cron.job_workload->queue_name, "user-queue");
  EXPECT_EQ(cron.job_workload->priority_class_name, "batch-low");
  EXPECT_EQ(cron.job_workload->meta.namespace_, "team");
  EXPECT_EQ(cron.job_workload->pod_sets[0].count, 3);
  EXPECT_EQ(cron.job_workload->duration, 45 * kMinute);
  EXPECT_EQ(cron.job_workload->rare->active_deadline, kHour);
  EXPECT_TRUE(s.clusters[0].workloads.empty());  // Jobs come during the run
  EXPECT_THAT(s.report.warnings, Contains(HasSubstr("until spec.cronJobHorizon (1d0h0m0s)")));
  EXPECT_THAT(s.report.unknown_kinds, IsEmpty());
}

TEST(CronJobTest, QueueLabelMustBeOnTheJobTemplate) {
  std::string yaml = kCronJob;
  const std::string labels = "labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/priority-class: batch-low}";
  yaml.replace(yaml.find(labels), labels.size(), "labels: {app: x}");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario s, LoadYaml(yaml, "cron.yaml"));
  EXPECT_FALSE(s.clusters[0].cron_jobs[0].job_workload.has_value());
  EXPECT_THAT(s.report.warnings, Contains(AllOf(HasSubstr("cron.yaml:1"), HasSubstr("CronJob \"nightly\""),
                                                HasSubstr("spec.jobTemplate.metadata.labels"))));
}

TEST(CronJobTest, BadFieldsAreErrorsNamingTheField) {
  auto with = [](const std::string& from, const std::string& to) {
    std::string yaml = kCronJob;
    yaml.replace(yaml.find(from), from.size(), to);
    return LoadYaml(yaml, "cron.yaml");
  };
  EXPECT_THAT(with("\"30 2 * * 1-5\"", "\"61 2 * * *\""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("cron.yaml:7"), HasSubstr("CronJob \"nightly\""), HasSubstr("spec.schedule"),
                             HasSubstr("end of range (61) above maximum (59)"))));
  EXPECT_THAT(with("Europe/Berlin", "Europe/Atlantis"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("spec.timeZone"), HasSubstr("unknown time zone Europe/Atlantis"))));
  EXPECT_THAT(with("Forbid", "Sometimes"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("spec.concurrencyPolicy"), HasSubstr("valid: Allow, Forbid, Replace"))));
  EXPECT_THAT(with("startingDeadlineSeconds: 600", "startingDeadlineSeconds: -1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.startingDeadlineSeconds")));
  EXPECT_THAT(with("activeDeadlineSeconds: 3600", "activeDeadlineSeconds: 0"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("spec.jobTemplate.spec.activeDeadlineSeconds"), HasSubstr("must be positive"))));
}

}  // namespace
}  // namespace kueuesim::scenario
