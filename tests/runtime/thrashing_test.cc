// Preemption thrashing: with Kueue's default gates a victim can be admitted
// again before its preemptor, cycle after cycle (PrioritizePreemptorWorkloads,
// alpha and off in v0.20, exists to stop that). With evictions and cycles
// taking no simulated time the repetition never lets time pass; the run
// stops with an error that names the workloads and the ways out.
// (random_clusters.py seed 461, shrunk and simplified.)
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kueuesim/base/time.h"
#include "kueuesim/cluster/cluster_state.h"
#include "kueuesim/sim/simulation.h"
#include "testing/simulation_fixtures.h"

namespace kueuesim {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// cq0 lends its spot quota to cq1 and reclaims it for w01; cq0 is far over
// its share on on-demand (w09), so fair sharing orders cq1's w08 first in
// the cycle after the preemption: w08 is admitted again and w01 "no longer
// fits", then preempts it again.
std::string Scenario(const std::string& configuration_extra) {
  return R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
fairSharing: {preemptionStrategies: [LessThanInitialShare]}
)" + configuration_extra + R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: spot}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: co0}
spec:
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: on-demand
      resources:
      - {name: cpu, nominalQuota: "12"}
      - {name: memory, nominalQuota: 128Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq0}
spec:
  cohortName: co0
  namespaceSelector: {}
  preemption: {reclaimWithinCohort: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: on-demand
      resources:
      - {name: cpu, nominalQuota: "32"}
      - {name: memory, nominalQuota: 16Gi}
    - name: spot
      resources:
      - {name: cpu, nominalQuota: "12"}
      - {name: memory, nominalQuota: 32Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq1}
spec:
  cohortName: co0
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: on-demand
      resources:
      - {name: cpu, nominalQuota: "24"}
      - {name: memory, nominalQuota: 4Gi, borrowingLimit: "0"}
    - name: spot
      resources:
      - {name: cpu, nominalQuota: "4"}
      - {name: memory, nominalQuota: 8Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q0, namespace: ns}
spec: {clusterQueue: cq0}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q1, namespace: ns}
spec: {clusterQueue: cq1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w01
  namespace: ns
  annotations: {kueuesim.io/duration: 10m}
spec:
  queueName: q0
  priority: 100
  podSets:
  - name: main
    count: 7
    minCount: 1
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: "4", memory: 8Gi}}}]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w08
  namespace: ns
  annotations: {kueuesim.io/duration: 1h}
spec:
  queueName: q1
  podSets:
  - name: main
    count: 5
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: "2", memory: 8Gi}}}], nodeSelector: {}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w09
  namespace: ns
  annotations: {kueuesim.io/duration: 1m}
spec:
  queueName: q0
  priority: 500
  podSets:
  - name: main
    count: 8
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: "8"}}}]}}
)";
}

struct Outcome {
  absl::Status status;
  SimTime w01_reserved_at = -1;  // when the preemptor first reserved quota
  int64_t w08_preempted = 0;
};

Outcome RunToEnd(const std::string& yaml) {
  Outcome out;
  auto simulation = testing::SimulationFromYaml(yaml, {}, "thrashing.yaml");
  if (!simulation.ok()) {
    out.status = simulation.status();
    return out;
  }
  sim::RunOptions options;
  options.until = 2 * kHour;
  options.check_invariants = true;
  out.status = (*simulation)->Run(options);
  const cluster::ClusterState& state = (*simulation)->clusters()[0]->state();
  for (cluster::WorkloadId id = 0; id < state.num_workloads(); ++id) {
    const cluster::WorkloadRecord& wl = state.workload(id);
    if (wl.key == "ns/w01") out.w01_reserved_at = wl.first_reserved_at;
    if (wl.key == "ns/w08") out.w08_preempted = wl.rare->times_preempted;
  }
  return out;
}

TEST(ThrashingTest, DefaultGatesStopWithAnErrorNamingTheWorkloads) {
  const Outcome out = RunToEnd(Scenario(""));
  EXPECT_EQ(out.status.code(), absl::StatusCode::kFailedPrecondition) << out.status;
  EXPECT_THAT(std::string(out.status.message()),
              AllOf(HasSubstr("preemption does not settle at time 0.0 s"),
                    HasSubstr("workload \"ns/w08\" (ClusterQueue \"cq1\") was preempted 1000 times"),
                    HasSubstr("by \"ns/w01\" (ClusterQueue \"cq0\""), HasSubstr("PrioritizePreemptorWorkloads"),
                    HasSubstr("spec.evictionDelay")));
  EXPECT_EQ(out.w08_preempted, 1000);
  EXPECT_EQ(out.w01_reserved_at, -1);
}

// With the gate the preemptor goes first in the cycle after its
// preemption: w08 is preempted once and w01 runs at once.
TEST(ThrashingTest, PreemptorsFirstSettle) {
  const Outcome out = RunToEnd(Scenario("featureGates: {PrioritizePreemptorWorkloads: true}\n"));
  EXPECT_TRUE(out.status.ok()) << out.status;
  EXPECT_EQ(out.w08_preempted, 1);
  EXPECT_EQ(out.w01_reserved_at, 0);
}

// Evictions that take 5 s: the rounds take time, and the run ends.
TEST(ThrashingTest, EvictionsThatTakeTimeSettle) {
  const Outcome out = RunToEnd(Scenario("") + R"(---
apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: sim}
spec: {evictionDelay: 5s}
)");
  EXPECT_TRUE(out.status.ok()) << out.status;
  EXPECT_GE(out.w08_preempted, 1);
  EXPECT_GE(out.w01_reserved_at, 0);
}

}  // namespace
}  // namespace kueuesim
