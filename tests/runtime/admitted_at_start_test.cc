// Workloads admitted in their input status: the quota they hold from time 0.
// Kueue (workload.go, totalRequestsFromAdmission) charges the admission's
// resourceUsage, scaled down when the spec now has fewer pods than were
// admitted (usage / admitted count * remaining count, in integer units).
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

namespace kueuesim {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// "<seconds> <workload>" for each QuotaReserved event.
class ReservedRecorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    if (event.type != cluster::EventType::kQuotaReserved || event.workload == cluster::kNone) return;
    lines.push_back(
        fmt::format("{} {}", FormatSeconds(event.time), event.cluster->workload(event.workload).key));
  }
  std::vector<std::string> lines;
};

// ClusterQueue "cq" with 6 cpu; "running" holds an admission of
// `admitted_count` pods using `usage` cpu while its spec now has
// `spec_count` pods; "waiting" asks for 2 cpu (2 pods of 1 cpu).
std::string Scenario(int spec_count, int admitted_count, const std::string& usage) {
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
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: "6"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq, namespace: ns}}
spec: {{clusterQueue: cq}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: running, namespace: ns, creationTimestamp: '2025-01-01T00:00:00Z'}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: {0}
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {{cpu: '1'}}}}
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: main
      flavors: {{cpu: default}}
      resourceUsage: {{cpu: '{2}'}}
      count: {1}
  conditions:
  - {{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: reserved}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: waiting, namespace: ns, creationTimestamp: '2025-01-01T00:00:00Z'}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 2
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {{cpu: '1'}}}}
)",
                     spec_count, admitted_count, usage);
}

std::vector<std::string> Reserved(const std::string& yaml) {
  auto scenario = testing::LoadYaml(yaml, "admitted.yaml");
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  if (!scenario.ok()) return {};
  static const policy::PolicyRegistry builtins = policy::PolicyRegistry::WithBuiltins();
  auto simulation = sim::Simulation::Create(*scenario, builtins);
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  if (!simulation.ok()) return {};
  ReservedRecorder recorder;
  (*simulation)->AddEventSink(&recorder);
  absl::Status status = (*simulation)->Run(sim::RunOptions{});
  EXPECT_TRUE(status.ok()) << status;
  return recorder.lines;
}

// Admitted with 5 pods (5 cpu), the spec now has 4: it holds 5 / 5 * 4 = 4
// cpu, so the 2 cpu of "waiting" fit in the 6 cpu quota.
TEST(AdmittedAtStartTest, FewerPodsThanAdmittedHoldProportionallyLessQuota) {
  EXPECT_THAT(Reserved(Scenario(4, 5, "5")), ElementsAre("0.0 ns/waiting"));
}

// The same admission with the spec still at 5 pods holds all 5 cpu: no room.
TEST(AdmittedAtStartTest, UnchangedPodCountHoldsTheAdmittedUsage) {
  EXPECT_THAT(Reserved(Scenario(5, 5, "5")), IsEmpty());
}

// Integer division first, as Kueue: 5 cpu (5000m) admitted for 3 pods, 2
// left: 5000 / 3 * 2 = 3332m held. With "waiting" (2 cpu) and "exact"
// (668m) that is exactly 6000m; multiplying first (5000 * 2 / 3 = 3333m)
// would leave "exact" 1m short.
TEST(AdmittedAtStartTest, ScalingDividesBeforeMultiplying) {
  std::string yaml = Scenario(2, 3, "5") + R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: exact, namespace: ns, creationTimestamp: '2025-01-01T00:00:01Z'}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: '668m'}}
)";
  EXPECT_THAT(Reserved(yaml), ElementsAre("0.0 ns/waiting", "0.0 ns/exact"));
}

}  // namespace
}  // namespace kueuesim
