// DRA end to end: DeviceClasses, ResourceSlices, ResourceClaimTemplates and
// the Configuration's deviceClassMappings loaded from YAML, Jobs whose pods
// claim devices, a simulation run. Checks what Kueue's workload controller
// does before queueing (handleDRA): claims of mapped classes are charged as
// the logical resource and admitted against the ClusterQueue's quota,
// unmapped classes and claims by name are refused (Inadmissible, with
// Kueue's condition message), counters of partitionable devices are charged
// from the ResourceSlices of complete pools.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kueuesim/cluster/events.h"
#include "kueuesim/metrics/summary.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/sim/simulation.h"
#include "testing/scenario_fixtures.h"
#include "testing/simulation_fixtures.h"

namespace kueuesim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr Amount kGi = int64_t{1} << 30;

// Records workload events as "time type workload" lines, and the reason of
// Inadmissible events.
class Recorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    if (event.workload == cluster::kNone) return;
    const std::string key = event.cluster->workload(event.workload).key;
    lines.push_back(fmt::format("{} {} {}", FormatSeconds(event.time), cluster::EventTypeName(event.type), key));
    if (event.type == cluster::EventType::kInadmissible) reasons[key] = std::string(event.reason);
  }
  std::vector<std::string> Of(std::string_view type) const {
    std::vector<std::string> out;
    for (const auto& l : lines) {
      if (l.find(fmt::format(" {} ", type)) != std::string::npos) out.push_back(l);
    }
    return out;
  }
  std::vector<std::string> lines;
  std::map<std::string, std::string> reasons;
};

// The Configuration: whole GPUs of gpu.example.com as "whole-gpus", MIG
// partitions of gpu.nvidia.com charged by their "memory" counter as
// "gpu.memory". `resources_extra` goes under resources (2-space indent),
// `gates` under featureGates.
std::string ConfigurationYaml(const std::string& resources_extra = "", const std::string& gates = "") {
  std::string out = R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
)" + resources_extra + R"(  deviceClassMappings:
  - name: whole-gpus
    deviceClassNames: [gpu.example.com]
  - name: gpu.memory
    deviceClassNames: [mig.nvidia.com]
    sources:
    - counter:
        name: memory
        driver: gpu.nvidia.com
        deviceSelector:
          cel:
            expression: device.driver == "gpu.nvidia.com"
)";
  if (!gates.empty()) out += "featureGates:\n" + gates;
  return out + "---\n";
}

// A MIG partition consuming `memory` from its GPU's counter set.
std::string Mig(const std::string& name, const std::string& profile, const std::string& memory) {
  return fmt::format(R"(  - name: {}
    attributes:
      type: {{string: mig}}
      profile: {{string: {}}}
    consumesCounters:
    - counterSet: gpu-0
      counters:
        memory: {{value: {}}}
)",
                     name, profile, memory);
}

std::string MigSlice(const std::string& name, const std::string& node, int generation, int slice_count,
                     const std::string& devices) {
  return fmt::format(R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: {}
spec:
  driver: gpu.nvidia.com
  pool: {{name: {}, generation: {}, resourceSliceCount: {}}}
  nodeName: {}
  devices:
{}---
)",
                     name, node, generation, slice_count, node, devices);
}

std::string ClaimTemplate(const std::string& name, const std::string& device_class, int count = 1,
                          const std::string& selector = "") {
  std::string out = fmt::format(R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: {}
  namespace: ml
spec:
  spec:
    devices:
      requests:
      - name: dev
        exactly:
          deviceClassName: {}
          count: {}
)",
                                name, device_class, count);
  if (!selector.empty()) out += "          selectors:\n          - cel:\n              expression: '" + selector + "'\n";
  return out + "---\n";
}

// The cluster: the DRA objects, one ClusterQueue "gpu" with quota on cpu,
// whole-gpus and gpu.memory, LocalQueue ml/lq.
std::string ClusterYaml(const std::string& configuration) {
  std::string out = R"(apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata:
  name: dra
spec:
  startTime: "2025-06-02T09:00:00Z"
---
)" + configuration;
  out += R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: fpga.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "fpga.example.com"
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: mig.nvidia.com
spec:
  selectors:
  - cel:
      expression: device.attributes["gpu.nvidia.com"].type == "mig"
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpus
spec:
  driver: gpu.example.com
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  nodeName: node-1
  devices:
  - name: gpu-0
  - name: gpu-1
  - name: gpu-2
  - name: gpu-3
---
)";
  // MIG: node-1 and node-2 complete; node-3 announces 2 slices and has
  // published 1, so the counter stage ignores its 80Gi partition.
  out += MigSlice("node-1-mig", "node-1", 1, 1, Mig("mig-1g-0", "1g.10gb", "10Gi") + Mig("mig-3g-0", "3g.40gb", "40Gi"));
  out += MigSlice("node-2-mig", "node-2", 4, 1, Mig("mig-2g-0", "2g.20gb", "20Gi"));
  out += MigSlice("node-3-mig-a", "node-3", 1, 2, Mig("mig-7g-0", "7g.80gb", "80Gi"));
  out += ClaimTemplate("one-gpu", "gpu.example.com");
  out += ClaimTemplate("two-gpus", "gpu.example.com", 2);
  out += ClaimTemplate("fpga", "fpga.example.com");
  out += ClaimTemplate("mig-any", "mig.nvidia.com");
  out += ClaimTemplate("mig-small", "mig.nvidia.com", 1, R"(device.attributes["gpu.nvidia.com"].profile == "1g.10gb")");
  out += ClaimTemplate("mig-7g", "mig.nvidia.com", 1, R"(device.attributes["gpu.nvidia.com"].profile == "7g.80gb")");
  out += testing::ResourceFlavorYaml("default");
  out += testing::ClusterQueueYaml("gpu", {"cpu", "whole-gpus", "gpu.memory"}, {{"default", {"100", "4", "60Gi"}, {}}});
  out += testing::LocalQueueYaml("ml", "lq", "gpu");
  return out;
}

// A Job of `pods` pods, each with one claim from `claim_template` (or, with
// `by_name`, a ResourceClaim by name) and `extra_requests` container requests.
std::string JobYaml(const std::string& name, const std::string& claim_template, int pods, const std::string& duration,
                    const std::string& arrival = "", bool by_name = false,
                    const std::string& extra_requests = "") {
  std::string out = fmt::format(R"(apiVersion: batch/v1
kind: Job
metadata:
  name: {}
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: lq
  annotations:
    kueuesim.io/duration: {}
)",
                                name, duration);
  if (!arrival.empty()) out += "    kueuesim.io/arrival: " + arrival + "\n";
  out += fmt::format(R"(spec:
  parallelism: {}
  template:
    spec:
      restartPolicy: Never
)",
                     pods);
  if (!claim_template.empty()) {
    out += fmt::format("      resourceClaims:\n      - name: dev\n        {}: {}\n",
                       by_name ? "resourceClaimName" : "resourceClaimTemplateName", claim_template);
  }
  out += R"(      containers:
      - name: main
        resources:
          requests:
            cpu: "1"
)" + extra_requests;
  if (!claim_template.empty()) out += "          claims:\n          - name: dev\n";
  return out + "---\n";
}

struct Run {
  Recorder recorder;
  metrics::SummaryCollector summary;
  std::unique_ptr<sim::Simulation> simulation;

  const runtime::ClusterRuntime& cluster() const { return *simulation->clusters().at(0); }
  // The per-pod request of `resource` of a workload's first pod set (0 when
  // absent).
  Amount PerPod(const std::string& key, const std::string& resource) const {
    const cluster::ClusterState& state = cluster().state();
    for (cluster::WorkloadId id = 0; id < state.num_workloads(); ++id) {
      const cluster::WorkloadRecord& wl = state.workload(id);
      if (wl.key != key) continue;
      for (const auto& r : wl.pod_sets.at(0).per_pod) {
        if (state.resource_name(r.resource) == resource) return r.amount;
      }
      return 0;
    }
    ADD_FAILURE() << "no workload " << key;
    return -1;
  }
  bool HasRequest(const std::string& key, const std::string& resource) const {
    const cluster::ClusterState& state = cluster().state();
    for (cluster::WorkloadId id = 0; id < state.num_workloads(); ++id) {
      const cluster::WorkloadRecord& wl = state.workload(id);
      if (wl.key != key) continue;
      for (const auto& r : wl.pod_sets.at(0).per_pod) {
        if (state.resource_name(r.resource) == resource) return true;
      }
    }
    return false;
  }
};

std::unique_ptr<Run> RunYaml(const std::string& yaml) {
  auto run = std::make_unique<Run>();
  auto simulation = testing::SimulationFromYaml(yaml, {&run->recorder, &run->summary}, "dra.yaml");
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  if (!simulation.ok()) return nullptr;
  run->simulation = *std::move(simulation);
  absl::Status status = run->simulation->Run(sim::RunOptions{});
  EXPECT_TRUE(status.ok()) << status;
  return run;
}

// Setup: whole-gpus quota 4. train-a: 2 pods claiming "two-gpus" (2 devices
// of the mapped class gpu.example.com), 1h; train-b: 1 pod claiming
// "one-gpu", arriving at the same time.
// Expected: each train-a pod is charged whole-gpus 2 (4 for the job), so
// train-a takes the whole quota at 0 and train-b, charged 1, waits for it:
// train-a finishes at 1h and the parked train-b is requeued 1 s later
// (design/decisions.md, Time). The scenario's loader counts no unknown kinds.
TEST(DraSimulationTest, MappedClassIsChargedAndQueuedAgainstQuota) {
  auto run = RunYaml(ClusterYaml(ConfigurationYaml()) + JobYaml("train-a", "two-gpus", 2, "1h") +
                     JobYaml("train-b", "one-gpu", 1, "30m"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->simulation->scenario().report.unknown_kinds, IsEmpty());
  EXPECT_EQ(run->PerPod("ml/job-train-a", "whole-gpus"), 2);
  EXPECT_EQ(run->PerPod("ml/job-train-a", "cpu"), 1000);
  EXPECT_EQ(run->PerPod("ml/job-train-b", "whole-gpus"), 1);
  EXPECT_THAT(run->recorder.Of("QuotaReserved"),
              ElementsAre("0.0 QuotaReserved ml/job-train-a", "3601.0 QuotaReserved ml/job-train-b"));
  EXPECT_THAT(run->recorder.Of("Inadmissible"), IsEmpty());
  EXPECT_EQ(run->cluster().counters().inadmissible, 0);
}

// Setup: fpga.example.com exists as a DeviceClass but no mapping names it;
// job "fpga-job" claims it. Job "shared" references a ResourceClaim by name.
// Job "train" claims a mapped GPU.
// Expected: both refused before queueing, never reserved, with Kueue's
// condition messages (the field error for the unmapped class, with the pod
// set's index); train runs. Counted in the runtime and the summary
// (text and JSON "inadmissible": 2).
TEST(DraSimulationTest, UnmappedClassAndClaimByNameAreInadmissible) {
  auto run = RunYaml(ClusterYaml(ConfigurationYaml()) + JobYaml("fpga-job", "fpga", 1, "1h") +
                     JobYaml("shared", "some-claim", 1, "1h", "", /*by_name=*/true) +
                     JobYaml("train", "one-gpu", 1, "1h"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("Inadmissible"),
              ElementsAre("0.0 Inadmissible ml/job-fpga-job", "0.0 Inadmissible ml/job-shared"));
  EXPECT_EQ(run->recorder.reasons["ml/job-fpga-job"],
            "spec.podSets[0].template.spec.resourceClaims[0].resourceClaimTemplateName: Not found: "
            "\"DeviceClass fpga.example.com is not mapped in DRA configuration for podset main\"");
  EXPECT_EQ(run->recorder.reasons["ml/job-shared"],
            "KueueDRAIntegration feature does not support use of resource claims");
  EXPECT_THAT(run->recorder.Of("QuotaReserved"), ElementsAre("0.0 QuotaReserved ml/job-train"));
  EXPECT_EQ(run->cluster().counters().inadmissible, 2);
  EXPECT_EQ(run->cluster().PendingCount(0), 0);  // not in any queue

  metrics::Summary summary =
      run->summary.Finish(run->simulation->end_time(), run->simulation->cluster_pointers());
  ASSERT_EQ(summary.clusters.size(), 1u);
  EXPECT_EQ(summary.clusters[0].inadmissible, 2);
  EXPECT_THAT(metrics::FormatSummary(summary), HasSubstr("2 workloads are inadmissible"));
  EXPECT_THAT(metrics::SummaryToJson(summary), HasSubstr("\"inadmissible\": 2"));
}

// Setup: partitionable devices. Complete pools: node-1 (1g.10gb 10Gi,
// 3g.40gb 40Gi) and node-2 (2g.20gb 20Gi); node-3's pool is incomplete
// (1 of 2 slices) with a 7g.80gb 80Gi partition. gpu.memory quota 60Gi.
// any: 1 pod, any MIG partition; small: 2 pods, 1g.10gb; late: 1 pod,
// 1g.10gb at 10m; big: 1 pod, 7g.80gb.
// Expected (Kueue's counter charging): any is charged the largest counter
// of the matching devices of complete pools, 40Gi (not node-3's 80Gi);
// small 10Gi per pod (20Gi); both fit 60Gi at 0; late (10Gi) waits until
// small finishes at 1h and is requeued 1 s later. big passes the CEL pre-check (which sees every
// slice) but no device of a complete pool matches: refused with Kueue's
// internal error.
TEST(DraSimulationTest, CountersOfPartitionableDevicesAreCharged) {
  auto run = RunYaml(ClusterYaml(ConfigurationYaml()) + JobYaml("any", "mig-any", 1, "2h") +
                     JobYaml("small", "mig-small", 2, "1h") + JobYaml("late", "mig-small", 1, "1h", "10m") +
                     JobYaml("big", "mig-7g", 1, "1h"));
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->PerPod("ml/job-any", "gpu.memory"), 40 * kGi);
  EXPECT_EQ(run->PerPod("ml/job-small", "gpu.memory"), 10 * kGi);
  EXPECT_THAT(run->recorder.Of("QuotaReserved"),
              ElementsAre("0.0 QuotaReserved ml/job-any", "0.0 QuotaReserved ml/job-small",
                          "3601.0 QuotaReserved ml/job-late"));
  EXPECT_THAT(run->recorder.Of("Inadmissible"), ElementsAre("0.0 Inadmissible ml/job-big"));
  EXPECT_EQ(run->recorder.reasons["ml/job-big"],
            "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0]: Internal error: "
            "insufficient matching devices for counter driver: 0 device(s) match but 1 requested");
}

// Setup: excludeResourcePrefixes [whole-] and a transformation of each cpu
// into 2 whole-gpus (Replace). A job of 1 pod claiming "one-gpu", cpu 1.
// Expected: Kueue's totalRequestsFromPodSets drops excluded prefixes, then
// transforms, then adds the DRA resources: cpu becomes whole-gpus 2 (the
// exclusion ran before, on the pod's own requests) and the DRA charge adds
// 1 although its name has an excluded prefix: whole-gpus 3, no cpu.
TEST(DraSimulationTest, ChargedAfterExcludedPrefixesAndTransformations) {
  auto run = RunYaml(ClusterYaml(ConfigurationYaml(R"(  excludeResourcePrefixes: [whole-]
  transformations:
  - input: cpu
    strategy: Replace
    outputs:
      whole-gpus: "2"
)")) + JobYaml("train", "one-gpu", 1, "1h"));
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->PerPod("ml/job-train", "whole-gpus"), 3);
  EXPECT_FALSE(run->HasRequest("ml/job-train", "cpu"));
}

// The cluster with a DeviceClass gpu-ext.example.com that backs the
// extended resource example.com/gpu with gpu.example.com devices, mapped to
// whole-gpus next to gpu.example.com.
std::string ExtendedGpuClusterYaml() {
  std::string config = ConfigurationYaml();
  const std::string mapped = "    deviceClassNames: [gpu.example.com]\n";
  config.replace(config.find(mapped), mapped.size(), "    deviceClassNames: [gpu.example.com, gpu-ext.example.com]\n");
  return ClusterYaml(config) + R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu-ext.example.com
spec:
  extendedResourceName: example.com/gpu
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
)";
}

// Setup: a DeviceClass with extendedResourceName example.com/gpu and
// selector on gpu.example.com is mapped to whole-gpus; a job's pod requests
// example.com/gpu: 2 in its container (no claims).
// Expected (KueueDRAIntegrationExtendedResource, on by default): the
// extended resource is replaced by whole-gpus 2.
TEST(DraSimulationTest, ExtendedResourceBackedByDraIsChargedAsTheMapping) {
  auto run = RunYaml(ExtendedGpuClusterYaml() + JobYaml("ext", "", 1, "1h", "", false, "            example.com/gpu: \"2\"\n"));
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->PerPod("ml/job-ext", "whole-gpus"), 2);
  EXPECT_FALSE(run->HasRequest("ml/job-ext", "example.com/gpu"));
  EXPECT_THAT(run->recorder.Of("QuotaReserved"), ElementsAre("0.0 QuotaReserved ml/job-ext"));
}

// Setup: as above, with the extended resource example.com/gpu: 1 requested
// by a sidecar (restartable init container) and by the main container of
// one job, and by two regular containers of another.
// Expected: Kueue's DRA path aggregates per original name as max(max over
// init containers, sum over regular containers), so the sidecar job is
// charged whole-gpus 1 per pod (not the pod's effective request of 2), the
// two-container job 2.
TEST(DraSimulationTest, ExtendedResourceOfASidecarIsChargedAsKueueAggregatesIt) {
  const std::string gpu = "            example.com/gpu: \"1\"\n";
  std::string sidecar_job = JobYaml("side", "", 1, "1h", "", false, gpu);
  sidecar_job.replace(sidecar_job.find("      containers:"), 0,
                      "      initContainers:\n      - name: proxy\n        restartPolicy: Always\n"
                      "        resources:\n          requests:\n" + gpu);
  std::string two_containers = JobYaml("two", "", 1, "1h", "", false, gpu);
  two_containers.replace(two_containers.find("---\n"), 0,
                         "      - name: helper\n        resources:\n          requests:\n" + gpu);
  auto run = RunYaml(ExtendedGpuClusterYaml() + sidecar_job + two_containers);
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->PerPod("ml/job-side", "whole-gpus"), 1);
  EXPECT_FALSE(run->HasRequest("ml/job-side", "example.com/gpu"));
  EXPECT_EQ(run->PerPod("ml/job-two", "whole-gpus"), 2);
}

// Setup: KueueDRAIntegration off (KueueDRARejectWorkloadsWhenDRADisabled on
// by default); a job claims a GPU, another has no claims.
// Expected: the first is refused with Kueue's message, the second runs.
TEST(DraSimulationTest, RefusedWhenTheIntegrationGateIsOff) {
  const std::string config = R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates:
  KueueDRAIntegration: false
---
)";
  auto run = RunYaml(ClusterYaml(config) + JobYaml("train", "one-gpu", 1, "1h") + JobYaml("plain", "", 1, "1h"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("Inadmissible"), ElementsAre("0.0 Inadmissible ml/job-train"));
  EXPECT_EQ(run->recorder.reasons["ml/job-train"],
            "Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled");
  EXPECT_THAT(run->recorder.Of("QuotaReserved"), ElementsAre("0.0 QuotaReserved ml/job-plain"));
}

// Setup: three templates of the mapped class gpu.example.com with CEL
// selectors: "bad-cel" does not compile (an undeclared function), "eval-err"
// compiles but fails on every device (they publish no "model"), "any-of"
// uses a macro over a list (outside what kueuesim accepted before). A Job
// claims each.
// Expected (Kueue compiles and evaluates claim selectors per workload, in
// GetResourceRequestsForResourceClaimTemplates): the scenario loads and
// runs; bad-cel and eval-err are inadmissible with Kueue's messages; the
// any-of job is admitted.
TEST(DraSimulationTest, SelectorErrorsRefuseOnlyTheirWorkloads) {
  std::string yaml = ClusterYaml(ConfigurationYaml());
  yaml += ClaimTemplate("bad-cel", "gpu.example.com", 1, "device.driver.matchez(device.driver)");
  yaml += ClaimTemplate("eval-err", "gpu.example.com", 1, R"(device.attributes["gpu.example.com"].model == "H100")");
  yaml += ClaimTemplate("any-of", "gpu.example.com", 2,
                        R"(["a.example.com", "gpu.example.com"].exists(x, x == device.driver) && )"
                        R"(device.attributes["gpu.example.com"].?model.orValue("none") == "none")");
  auto run = RunYaml(yaml + JobYaml("bad", "bad-cel", 1, "1h") + JobYaml("err", "eval-err", 1, "1h") +
                     JobYaml("good", "any-of", 1, "1h"));
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->recorder.Of("Inadmissible"),
              ElementsAre("0.0 Inadmissible ml/job-bad", "0.0 Inadmissible ml/job-err"));
  EXPECT_EQ(run->recorder.reasons["ml/job-bad"],
            "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0].exactly.selectors: Invalid "
            "value: null: ResourceClaimTemplate bad-cel: devices.requests[0].exactly.selectors[0].cel.expression: "
            "Invalid value: \"device.driver.matchez(device.driver)\": CEL compilation failed: compilation failed: "
            "ERROR: <input>:1:15: undeclared reference to 'matchez' (in container '')");
  EXPECT_EQ(run->recorder.reasons["ml/job-err"],
            "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0].exactly.selectors: Invalid "
            "value: null: ResourceClaimTemplate eval-err: CEL evaluation failed for DeviceClass "
            "gpu.example.com: no such key: model");
  EXPECT_THAT(run->recorder.Of("QuotaReserved"), ElementsAre("0.0 QuotaReserved ml/job-good"));
  EXPECT_EQ(run->PerPod("ml/job-good", "whole-gpus"), 2);
}

// Setup: a mapping whose counter source has an invalid CEL device selector.
// Expected: building the cluster fails, naming the file, the Configuration
// and the field.
TEST(DraSimulationTest, InvalidMappingFailsTheBuild) {
  std::string config = ConfigurationYaml();
  const std::string expr = "expression: device.driver == \"gpu.nvidia.com\"";
  config.replace(config.find(expr), expr.size(), "expression: device.driver.matchez(\"x\")");
  auto scenario = testing::LoadYaml(ClusterYaml(config), "dra.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  static const policy::PolicyRegistry builtins = policy::PolicyRegistry::WithBuiltins();
  auto simulation = sim::Simulation::Create(*scenario, builtins);
  ASSERT_FALSE(simulation.ok());
  EXPECT_THAT(std::string(simulation.status().message()),
              HasSubstr("dra.yaml:8: Configuration: resources.deviceClassMappings[1].sources[0].counter"
                        ".deviceSelector.cel.expression"));
}

}  // namespace
}  // namespace kueuesim
