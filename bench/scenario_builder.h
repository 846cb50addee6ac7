// Builders of synthetic scenarios for benchmarks: cohorts of identical
// ClusterQueues and workloads, written as manifests and loaded through the
// normal scenario path.
#ifndef KUEUESIM_BENCH_SCENARIO_BUILDER_H_
#define KUEUESIM_BENCH_SCENARIO_BUILDER_H_

#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "kueuesim/kueuesim.h"

namespace kueuesim::bench {

struct CohortLayout {
  int cohorts = 10;
  int queues_per_cohort = 10;
  std::string nominal_cpu = "100";
  std::string borrowing_limit;  // empty: no limit
  std::string reclaim_within_cohort = "Never";
  std::string within_cluster_queue = "Never";
};

// ResourceFlavor, Cohort-member ClusterQueues named cq-<c>-<q> and a
// LocalQueue "lq" in namespace ns-<c>-<q> for each.
inline std::string ClusterManifests(const CohortLayout& layout) {
  std::string out =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: default\n---\n";
  for (int c = 0; c < layout.cohorts; ++c) {
    for (int q = 0; q < layout.queues_per_cohort; ++q) {
      out += fmt::format(
          "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: cq-{0}-{1}\n"
          "spec:\n  cohortName: cohort-{0}\n  namespaceSelector: {{}}\n"
          "  preemption:\n    reclaimWithinCohort: {3}\n    withinClusterQueue: {4}\n"
          "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n"
          "      resources:\n      - name: cpu\n        nominalQuota: \"{2}\"\n{5}---\n"
          "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: lq\n  namespace: ns-{0}-{1}\n"
          "spec:\n  clusterQueue: cq-{0}-{1}\n---\n",
          c, q, layout.nominal_cpu, layout.reclaim_within_cohort, layout.within_cluster_queue,
          layout.borrowing_limit.empty()
              ? ""
              : fmt::format("        borrowingLimit: \"{}\"\n", layout.borrowing_limit));
    }
  }
  return out;
}

// One workload of `cpu` CPUs in namespace ns-<c>-<q>.
inline std::string WorkloadManifest(int c, int q, int index, const std::string& cpu, int priority,
                                    const std::string& arrival, const std::string& duration) {
  std::string annotations;
  if (!arrival.empty() || !duration.empty()) {
    annotations = "  annotations:\n";
    if (!arrival.empty()) annotations += fmt::format("    kueuesim.io/arrival: {}\n", arrival);
    if (!duration.empty()) annotations += fmt::format("    kueuesim.io/duration: {}\n", duration);
  }
  return fmt::format(
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: wl-{2}\n  namespace: ns-{0}-{1}\n"
      "{5}spec:\n  queueName: lq\n  priority: {4}\n  podSets:\n  - name: main\n    count: 1\n    template:\n"
      "      spec:\n        containers:\n        - name: c\n          resources:\n            requests:\n"
      "              cpu: \"{3}\"\n---\n",
      c, q, index, cpu, priority, annotations);
}

inline scenario::Scenario MustLoad(const std::string& text) {
  auto scenario = scenario::LoadScenarioStrings({{"benchmark.yaml", text}});
  if (!scenario.ok()) {
    std::fprintf(stderr, "benchmark scenario: %s\n", StatusMessage(scenario.status()).c_str());
    std::abort();
  }
  return *std::move(scenario);
}

// Counts quota reservations and preemptions.
class CountingSink : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    if (event.type == cluster::EventType::kQuotaReserved) ++reservations;
    if (event.type == cluster::EventType::kPreempted) ++preemptions;
  }
  int64_t reservations = 0;
  int64_t preemptions = 0;
};

}  // namespace kueuesim::bench

#endif  // KUEUESIM_BENCH_SCENARIO_BUILDER_H_
