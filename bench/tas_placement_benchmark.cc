// Topology-aware scheduling benchmarks on a 10,000-node, 4-level topology:
// 4 zones x 10 blocks x 25 racks x 10 hosts (zone/block/rack/hostname),
// each host with 96 CPUs, 8 GPUs and 110 pods.
//
// BM_TasPlaceOnSnapshot: one FindAssignments call on a TasFlavorSnapshot
// in which a third of the hosts are half used, for pod sets of several
// shapes (8 pods requiring a rack, 64 pods preferring a block, 512 pods
// requiring a zone, 2,048 pods unconstrained). Reports placements per
// second (items/s) and pods placed per second.
//
// BM_TasAdmissionCycle: the whole simulation path with a TAS flavor: the
// nodes written as one kueuesim.io/v1alpha1 NodePool, 1,000 pending
// workloads of 8 pods x 8 GPUs requiring a rack; runs the scheduling cycles
// until every workload is admitted (1,000 x 8 hosts = 8,000 of the 10,000
// hosts). Reports workloads admitted per second (items/s).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kueuesim/topology/tas_flavor_snapshot.h"
#include "scenario_builder.h"
#include "timed_run.h"

namespace kueuesim::bench {
namespace {

constexpr int kZones = 4;
constexpr int kBlocksPerZone = 10;
constexpr int kRacksPerBlock = 25;
constexpr int kHostsPerRack = 10;
constexpr int kNodes = kZones * kBlocksPerZone * kRacksPerBlock * kHostsPerRack;
static_assert(kNodes == 10000);

constexpr char kZoneLabel[] = "topology.kubernetes.io/zone";
constexpr char kBlockLabel[] = "cloud.com/topology-block";
constexpr char kRackLabel[] = "cloud.com/topology-rack";
constexpr char kHostLabel[] = "kubernetes.io/hostname";

constexpr topology::ResourceId kCpu = 0;
constexpr topology::ResourceId kGpu = 1;
constexpr topology::ResourceId kPods = 2;

topology::TasFlavorSnapshot BuildSnapshot() {
  std::vector<topology::NodeSpec> nodes;
  nodes.reserve(kNodes);
  for (int z = 0; z < kZones; ++z) {
    for (int b = 0; b < kBlocksPerZone; ++b) {
      for (int r = 0; r < kRacksPerBlock; ++r) {
        for (int h = 0; h < kHostsPerRack; ++h) {
          topology::NodeSpec node;
          node.name = fmt::format("n-z{}-b{}-r{}-{}", z, b, r, h);
          node.labels = {{kZoneLabel, fmt::format("z{}", z)},
                         {kBlockLabel, fmt::format("b{}", b)},
                         {kRackLabel, fmt::format("r{}", r)},
                         {kHostLabel, node.name}};
          node.allocatable = {{kCpu, 96000}, {kGpu, 8}, {kPods, 110}};
          nodes.push_back(std::move(node));
        }
      }
    }
  }
  std::vector<std::string> levels = {kZoneLabel, kBlockLabel, kRackLabel, kHostLabel};
  topology::TasFlavorSnapshot snapshot(levels, nodes, {}, kPods);
  snapshot.SetTopologyName("gpu");
  snapshot.SetResourceNames({"cpu", "nvidia.com/gpu", "pods"});
  // A third of the hosts run half-host pods, so that free capacity differs
  // between domains.
  for (int n = 0; n < kNodes; n += 3) {
    topology::DomainUsage usage;
    usage.values = {nodes[static_cast<size_t>(n)].name};
    usage.single_pod_requests = {{kCpu, 48000}, {kGpu, 4}};
    usage.count = 1;
    snapshot.AddUsage(usage);
  }
  return snapshot;
}

enum class Shape { kRequiredRack, kPreferredBlock, kRequiredZone, kUnconstrained };

topology::PodSetPlacementRequest RequestFor(Shape shape, int32_t pods) {
  topology::PodSetPlacementRequest request;
  request.name = "main";
  request.count = pods;
  request.single_pod_requests = {{kCpu, 48000}, {kGpu, 4}};
  model::TopologyRequest topology;
  switch (shape) {
    case Shape::kRequiredRack:
      topology.required = kRackLabel;
      break;
    case Shape::kPreferredBlock:
      topology.preferred = kBlockLabel;
      break;
    case Shape::kRequiredZone:
      topology.required = kZoneLabel;
      break;
    case Shape::kUnconstrained:
      topology.unconstrained = true;
      break;
  }
  request.topology_request = topology;
  return request;
}

void BM_TasPlaceOnSnapshot(benchmark::State& state) {
  const auto shape = static_cast<Shape>(state.range(0));
  const auto pods = static_cast<int32_t>(state.range(1));
  const topology::TasFlavorSnapshot snapshot = BuildSnapshot();
  const std::vector<topology::PodSetPlacementRequest> requests = {RequestFor(shape, pods)};
  int64_t placed = 0;
  for (auto _ : state) {
    std::vector<topology::PlacementOutcome> outcomes = snapshot.FindAssignments(requests, false);
    if (!outcomes[0].assignment.has_value()) {
      state.SkipWithError(outcomes[0].failure_reason.c_str());
      break;
    }
    benchmark::DoNotOptimize(outcomes);
    ++placed;
  }
  state.SetItemsProcessed(placed);
  state.counters["pods_per_s"] =
      benchmark::Counter(static_cast<double>(placed) * pods, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TasPlaceOnSnapshot)
    ->ArgNames({"shape", "pods"})
    ->Args({static_cast<int>(Shape::kRequiredRack), 8})
    ->Args({static_cast<int>(Shape::kPreferredBlock), 64})
    ->Args({static_cast<int>(Shape::kRequiredZone), 512})
    ->Args({static_cast<int>(Shape::kUnconstrained), 2048})
    ->Unit(benchmark::kMicrosecond);

std::string TasAdmissionScenario(int workloads) {
  std::string text = fmt::format(
      R"(apiVersion: kueuesim.io/v1alpha1
kind: NodePool
metadata:
  name: gpu
spec:
  count: {}
  namePattern: "n-{{zone}}-{{block}}-{{rack}}-{{index}}"
  levels:
  - {{label: {}, count: {}, valuePattern: "z{{i}}"}}
  - {{label: {}, count: {}, valuePattern: "b{{i}}"}}
  - {{label: {}, count: {}, valuePattern: "r{{i}}"}}
  labels: {{cloud.com/gpu: h100}}
  allocatable: {{cpu: 96, nvidia.com/gpu: 8, pods: 110}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata:
  name: gpu
spec:
  levels:
  - nodeLabel: {}
  - nodeLabel: {}
  - nodeLabel: {}
  - nodeLabel: {}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: h100
spec:
  nodeLabels: {{cloud.com/gpu: h100}}
  topologyName: gpu
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: training
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors:
    - name: h100
      resources:
      - {{name: cpu, nominalQuota: "1000000"}}
      - {{name: nvidia.com/gpu, nominalQuota: "100000"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: lq
  namespace: ml
spec:
  clusterQueue: training
---
)",
      kNodes, kZoneLabel, kZones, kBlockLabel, kBlocksPerZone, kRackLabel, kRacksPerBlock, kZoneLabel, kBlockLabel,
      kRackLabel, kHostLabel);
  for (int i = 0; i < workloads; ++i) {
    text += fmt::format(
        R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: train-{}
  namespace: ml
spec:
  queueName: lq
  podSets:
  - name: main
    count: 8
    topologyRequest:
      required: {}
    template:
      spec:
        containers:
        - name: c
          resources:
            requests: {{cpu: "48", nvidia.com/gpu: "8"}}
---
)",
        i, kRackLabel);
  }
  return text;
}

void BM_TasAdmissionCycle(benchmark::State& state) {
  const int workloads = static_cast<int>(state.range(0));
  const scenario::Scenario scenario = MustLoad(TasAdmissionScenario(workloads));
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  RunTotals totals;
  if (!TimedRuns(state, scenario, registry, &totals)) return;
  if (totals.reservations != workloads * static_cast<int64_t>(state.iterations())) {
    state.SkipWithError(fmt::format("admitted {} of {} workloads per run", totals.PerRun(totals.reservations, state),
                                    workloads)
                            .c_str());
    return;
  }
  state.SetItemsProcessed(totals.reservations);
  state.counters["cycles_per_run"] = totals.PerRun(totals.cycles, state);
}
BENCHMARK(BM_TasAdmissionCycle)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kueuesim::bench
BENCHMARK_MAIN();
