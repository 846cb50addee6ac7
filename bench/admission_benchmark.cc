// Admission-loop benchmarks: scheduling cycles over many ClusterQueue heads.
//
// BM_AdmitPending: 100 ClusterQueues in 10 cohorts with 10,000 pending
// workloads that all fit; runs cycles (one head per ClusterQueue each)
// until every workload holds quota. Reports workloads admitted per second.
//
// BM_PreemptionHeavyCycle: a full cohort of 10 ClusterQueues where 9
// borrow with many low-priority workloads and the tenth reclaims its
// nominal quota with high-priority workloads, so every cycle searches many
// candidates. Reports preemption decisions per second.
#include <benchmark/benchmark.h>

#include <memory>

#include "scenario_builder.h"
#include "timed_run.h"

namespace kueuesim::bench {
namespace {

std::string AdmitPendingScenario(int cohorts, int queues, int per_queue) {
  CohortLayout layout;
  layout.cohorts = cohorts;
  layout.queues_per_cohort = queues;
  layout.nominal_cpu = std::to_string(per_queue);
  std::string text = ClusterManifests(layout);
  for (int c = 0; c < cohorts; ++c) {
    for (int q = 0; q < queues; ++q) {
      for (int i = 0; i < per_queue; ++i) text += WorkloadManifest(c, q, i, "1", i % 3, "", "");
    }
  }
  return text;
}

void BM_AdmitPending(benchmark::State& state) {
  const scenario::Scenario scenario = MustLoad(AdmitPendingScenario(10, 10, 100));
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  RunTotals totals;
  if (!TimedRuns(state, scenario, registry, &totals)) return;
  state.SetItemsProcessed(totals.reservations);
  state.counters["admitted_per_run"] = totals.PerRun(totals.reservations, state);
  state.counters["cycles_per_run"] = totals.PerRun(totals.cycles, state);
  state.counters["admissions_per_s"] =
      benchmark::Counter(static_cast<double>(totals.reservations), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_AdmitPending)->Unit(benchmark::kMillisecond);

std::string PreemptionScenario(int queues, int victims_per_queue, int preemptors) {
  CohortLayout layout;
  layout.cohorts = 1;
  layout.queues_per_cohort = queues;
  layout.nominal_cpu = std::to_string(victims_per_queue);
  layout.reclaim_within_cohort = "Any";
  layout.within_cluster_queue = "LowerPriority";
  std::string text = ClusterManifests(layout);
  // Queues 1..n-1 fill the whole cohort (they borrow queue 0's quota).
  const int per_queue = victims_per_queue * queues / (queues - 1) + 1;
  for (int q = 1; q < queues; ++q) {
    for (int i = 0; i < per_queue; ++i) text += WorkloadManifest(0, q, i, "1", 0, "", "");
  }
  // Queue 0 reclaims its nominal quota one CPU at a time, a minute later.
  for (int i = 0; i < preemptors; ++i) text += WorkloadManifest(0, 0, i, "1", 100, "1m", "");
  return text;
}

void BM_PreemptionHeavyCycle(benchmark::State& state) {
  const scenario::Scenario scenario = MustLoad(PreemptionScenario(10, 100, 100));
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  RunTotals totals;
  if (!TimedRuns(state, scenario, registry, &totals)) return;
  state.SetItemsProcessed(totals.preemptions);
  state.counters["preemptions_per_run"] = totals.PerRun(totals.preemptions, state);
  state.counters["cycles_per_run"] = totals.PerRun(totals.cycles, state);
}
BENCHMARK(BM_PreemptionHeavyCycle)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kueuesim::bench

BENCHMARK_MAIN();
