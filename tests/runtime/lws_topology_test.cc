// LeaderWorkerSet groups under topology-aware scheduling: with the same
// kueue.x-k8s.io/podset-group-name on the leader and worker templates (and a
// required topology), Kueue places a group's leader and workers in one
// domain; each group (one Workload) independently.
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kueuesim/cluster/events.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/sim/simulation.h"
#include "kueuesim/topology/rank_order.h"
#include "testing/scenario_fixtures.h"

namespace kueuesim {
namespace {

using ::testing::ElementsAre;
using ::testing::SizeIs;

// For each QuotaReserved workload: per pod set, the racks its topology
// assignment uses.
class Placements : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    if (event.type != cluster::EventType::kQuotaReserved) return;
    const cluster::WorkloadRecord& wl = event.cluster->workload(event.workload);
    ASSERT_TRUE(wl.admission.has_value());
    std::map<std::string, std::set<std::string>>& racks = by_workload[wl.key];
    std::vector<const model::PodSet*> specs;
    std::vector<const model::TopologyAssignment*> assignments;
    for (size_t i = 0; i < wl.pod_sets.size(); ++i) {
      specs.push_back(wl.pod_sets[i].spec);
      const auto& ta = wl.admission->pod_sets[i].topology_assignment;
      assignments.push_back(ta.has_value() ? &*ta : nullptr);
    }
    const auto ranges = topology::PodIndexRanges(specs, assignments);
    for (size_t i = 0; i < ranges.size(); ++i) {
      if (!ranges[i].has_value()) continue;
      for (const auto& r : *ranges[i]) {
        pod_indices[wl.key][wl.pod_sets[i].spec->name].push_back(fmt::format("{}-{}", r.first, r.last));
      }
    }
    for (size_t i = 0; i < wl.admission->pod_sets.size(); ++i) {
      const auto& assignment = wl.admission->pod_sets[i].topology_assignment;
      ASSERT_TRUE(assignment.has_value()) << wl.key << " pod set " << i;
      // Kueue writes only the hostname level when the lowest level is the
      // hostname; the hosts are named <rack>-<host>.
      ASSERT_EQ(assignment->levels.back(), "kubernetes.io/hostname");
      for (const auto& domain : assignment->domains) {
        const std::string& host = domain.values.back();
        racks[wl.pod_sets[i].spec->name].insert(host.substr(0, host.find('-')));
      }
    }
  }
  // workload -> pod set -> racks
  std::map<std::string, std::map<std::string, std::set<std::string>>> by_workload;
  // workload -> pod set -> the pod index range of each domain of its
  // topology assignment, in order ("first-last"); pod sets without rank
  // order absent.
  std::map<std::string, std::map<std::string, std::vector<std::string>>> pod_indices;
};

// Two racks of two 4-cpu hosts; a TAS flavor over them; one ClusterQueue
// with ample quota. An LWS of 2 groups of size 3 (leader + 2 workers), 2 cpu
// per pod, whose templates carry `template_annotations` (8 spaces of indent).
std::string Scenario(const std::string& template_annotations) {
  std::string out = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: racks}
spec:
  levels:
  - nodeLabel: cloud.com/rack
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas}
spec:
  nodeLabels: {pool: serving}
  topologyName: racks
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: serving}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: tas
      resources:
      - {name: cpu, nominalQuota: "100"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: serving, namespace: inference}
spec: {clusterQueue: serving}
---
)";
  for (const std::string rack : {"r1", "r2"}) {
    for (const std::string host : {"a", "b"}) {
      out += fmt::format(R"(apiVersion: v1
kind: Node
metadata:
  name: {0}-{1}
  labels: {{pool: serving, cloud.com/rack: {0}, kubernetes.io/hostname: {0}-{1}}}
status:
  allocatable: {{cpu: "4", pods: "110"}}
  conditions: [{{type: Ready, status: "True"}}]
---
)",
                         rack, host);
    }
  }
  const std::string pod = fmt::format(R"(        metadata:
          annotations:
{}        spec:
          containers:
          - name: main
            resources: {{requests: {{cpu: "2"}}}}
)",
                                      template_annotations);
  out += R"(apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: llm
  namespace: inference
  labels: {kueue.x-k8s.io/queue-name: serving}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 3
    leaderTemplate:
)" + pod + "    workerTemplate:\n" +
         pod + "---\n";
  return out;
}

std::unique_ptr<Placements> RunScenario(const std::string& yaml) {
  auto placements = std::make_unique<Placements>();
  auto scenario = testing::LoadYaml(yaml, "lws-tas.yaml");
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  if (!scenario.ok()) return nullptr;
  static const policy::PolicyRegistry builtins = policy::PolicyRegistry::WithBuiltins();
  auto simulation = sim::Simulation::Create(*scenario, builtins);
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  if (!simulation.ok()) return nullptr;
  (*simulation)->AddEventSink(placements.get());
  absl::Status status = (*simulation)->Run(sim::RunOptions{});
  EXPECT_TRUE(status.ok()) << status;
  return placements;
}

// Setup: both templates require a rack and name the same pod-set group.
// Expected: each group (6 cpu) is admitted with its leader and both workers
// in a single rack (8 cpu); the second group cannot share the first's rack
// (2 cpu left there) and lands in the other one.
TEST(LwsTopologyTest, PodSetGroupPlacesLeaderAndWorkersInOneRack) {
  auto placements = RunScenario(Scenario("            kueue.x-k8s.io/podset-required-topology: cloud.com/rack\n"
                                 "            kueue.x-k8s.io/podset-group-name: group\n"));
  ASSERT_NE(placements, nullptr);
  ASSERT_THAT(placements->by_workload, SizeIs(2));
  std::set<std::string> racks_used;
  for (const auto& [workload, pod_sets] : placements->by_workload) {
    ASSERT_THAT(pod_sets, SizeIs(2)) << workload;
    const std::set<std::string>& leader = pod_sets.at("leader");
    const std::set<std::string>& worker = pod_sets.at("worker");
    ASSERT_THAT(leader, SizeIs(1)) << workload;
    EXPECT_EQ(leader, worker) << workload << ": leader and workers in different racks";
    racks_used.insert(*leader.begin());
  }
  EXPECT_THAT(racks_used, ElementsAre("r1", "r2"));
}

// Setup: the same, without the pod-set group (each pod set requires a rack
// on its own). Expected: still every pod set within one rack, and all 12 cpu
// placed (pod sets are placed independently, so a group's leader may sit in
// another rack than its workers; the quota and capacity still hold).
TEST(LwsTopologyTest, WithoutGroupEachPodSetIsPlacedOnItsOwn) {
  auto placements = RunScenario(Scenario("            kueue.x-k8s.io/podset-required-topology: cloud.com/rack\n"));
  ASSERT_NE(placements, nullptr);
  ASSERT_THAT(placements->by_workload, SizeIs(2));
  for (const auto& [workload, pod_sets] : placements->by_workload) {
    EXPECT_THAT(pod_sets.at("leader"), SizeIs(1)) << workload;
    EXPECT_THAT(pod_sets.at("worker"), SizeIs(1)) << workload;
  }
}

// Whether `ranges` ("first-last", in domain order) run from `first` to
// `last` without gaps.
bool CoversInOrder(const std::vector<std::string>& ranges, int first, int last) {
  int next = first;
  for (const std::string& r : ranges) {
    int a = 0;
    int b = 0;
    if (std::sscanf(r.c_str(), "%d-%d", &a, &b) != 2 || a != next || b < a) return false;
    next = b + 1;
  }
  return next == last + 1;
}

// Setup: the pod-set group variant (leader and worker pod sets ranked
// together) and the variant without a group (the LWS webhook's
// pod-index-offset 1 on the worker template).
// Expected, both: Kueue's TopologyUngater places the workers by their
// worker index, 1 and 2 (the leader is 0), in the order of the assignment's
// domains; the leader pod set has no rank order of its own.
TEST(LwsTopologyTest, WorkersArePlacedInWorkerIndexOrder) {
  for (const std::string group : {"            kueue.x-k8s.io/podset-group-name: group\n", ""}) {
    auto placements =
        RunScenario(Scenario("            kueue.x-k8s.io/podset-required-topology: cloud.com/rack\n" + group));
    ASSERT_NE(placements, nullptr);
    ASSERT_THAT(placements->pod_indices, SizeIs(2)) << group;
    for (const auto& [workload, pod_sets] : placements->pod_indices) {
      EXPECT_FALSE(pod_sets.contains("leader")) << workload;
      ASSERT_TRUE(pod_sets.contains("worker")) << workload;
      EXPECT_TRUE(CoversInOrder(pod_sets.at("worker"), 1, 2))
          << workload << ": " << fmt::format("{}", fmt::join(pod_sets.at("worker"), ", "));
    }
  }
}

}  // namespace
}  // namespace kueuesim
