// Speed and scale targets (single core, release build). Each benchmark
// replays a whole simulation and reports its figure next to the target:
//
//   BM_KueueBaseline     Kueue's baseline performance configuration
//                        (scenarios/kueue-perf/generator-baseline.yaml:
//                        5 cohorts x 6 ClusterQueues, 15,000 workloads, with
//                        preemption). Target: under 50 ms.
//   BM_KueueLargeScale   Kueue's large-scale configuration (10 cohorts x 100
//                        ClusterQueues, 50,000 workloads). Target: under 1 s.
//   BM_Synthetic         a synthetic stream of workloads over ClusterQueues in
//                        cohorts of a given depth: (workloads, ClusterQueues,
//                        cohort depth, offered load %). 1,000,000 over 1,000
//                        ClusterQueues in 50 cohorts at 80 % load is the
//                        target case (under 10 s, peak memory under 1 GiB);
//                        the other points make the scaling table of
//                        docs/performance.md, and two saturated points (100 %)
//                        show the cost of constant preemption.
//   BM_CycleOver1000Heads one admission cycle over 1,000 ClusterQueue heads:
//                        nanoseconds per head.
//
// Peak memory is the process's maximum resident set (getrusage), reported as
// the counter peak_rss_mib; run one benchmark per process
// (--benchmark_filter) to attribute it.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "kueuesim/trace/importers.h"
#include "scenario_builder.h"
#include "timed_run.h"

#ifndef KUEUESIM_SOURCE_DIR
#error "KUEUESIM_SOURCE_DIR must name the source tree (for scenarios/kueue-perf)"
#endif

namespace kueuesim::bench {
namespace {

double PeakRssMib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// The default cluster with nothing in it; the objects come from a trace.
scenario::Scenario EmptyScenario() {
  return MustLoad("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: default\n---\n");
}

template <typename T>
void Append(std::vector<T>* into, std::vector<T> from) {
  for (auto& item : from) into->push_back(std::move(item));
}

// Runs Kueue's generator configuration `file` once per iteration: the
// objects it defines plus its workloads streamed by the importer.
void RunGeneratorConfig(benchmark::State& state, const std::string& file) {
  trace::TraceSpec spec;
  spec.name = "perf";
  spec.format = "kueue-perf-generator";
  spec.path = std::string(KUEUESIM_SOURCE_DIR) + "/scenarios/kueue-perf/" + file;
  auto objects = trace::GeneratedObjectsFor(spec);
  if (!objects.ok()) {
    state.SkipWithError(StatusMessage(objects.status()).c_str());
    return;
  }
  scenario::Scenario scenario = EmptyScenario();
  scenario::ClusterSpec& cluster = scenario.clusters.at(0);
  Append(&cluster.resource_flavors, objects->resource_flavors);
  Append(&cluster.cohorts, objects->cohorts);
  Append(&cluster.cluster_queues, objects->cluster_queues);
  Append(&cluster.local_queues, objects->local_queues);
  Append(&cluster.namespaces, objects->namespaces);
  Append(&cluster.workload_priority_classes, objects->workload_priority_classes);
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  RunTotals totals;
  auto add_trace = [&](sim::Simulation& simulation) -> absl::Status {
    auto source = trace::OpenTrace(spec);
    if (!source.ok()) return source.status();
    return simulation.AddWorkloadSource(*std::move(source));
  };
  if (!TimedRuns(state, scenario, registry, sim::RunOptions{}, add_trace, &totals)) return;
  state.SetItemsProcessed(totals.source_workloads);
  state.counters["workloads_per_run"] = totals.PerRun(totals.source_workloads, state);
  state.counters["reservations_per_run"] = totals.PerRun(totals.reservations, state);
  state.counters["preemptions_per_run"] = totals.PerRun(totals.preemptions, state);
  state.counters["peak_rss_mib"] = PeakRssMib();
}

void BM_KueueBaseline(benchmark::State& state) { RunGeneratorConfig(state, "generator-baseline.yaml"); }
BENCHMARK(BM_KueueBaseline)->Unit(benchmark::kMillisecond);

void BM_KueueLargeScale(benchmark::State& state) { RunGeneratorConfig(state, "generator-large-scale.yaml"); }
BENCHMARK(BM_KueueLargeScale)->Unit(benchmark::kMillisecond);

// A synthetic stream: `total` workloads spread round-robin over the
// ClusterQueues cq-<c>-<q> (8 cpu each), one arrival every `interval`, 1 to
// 4 cpu (2.5 on average), three priorities, run times spread from half to
// one and a half times their mean, which is chosen so that the offered load
// is `load_percent` of the capacity: below 100 queues rarely back up; at 100
// they fill, borrow and preempt all the time, as in a saturated cluster.
class SyntheticSource : public trace::WorkloadSource {
 public:
  SyntheticSource(int64_t total, int cohorts, int queues_per_cohort, SimDuration interval, int64_t load_percent)
      : total_(total),
        cohorts_(cohorts),
        queues_per_cohort_(queues_per_cohort),
        interval_(interval),
        load_percent_(load_percent) {
    report_.source = "synthetic";
  }
  absl::StatusOr<std::optional<model::Workload>> Next() override {
    if (next_ >= total_) return std::optional<model::Workload>();
    const int64_t i = next_++;
    const int64_t queues = static_cast<int64_t>(cohorts_) * queues_per_cohort_;
    const int64_t queue = i % queues;
    model::Workload wl;
    wl.meta.name = fmt::format("wl-{}", i);
    wl.meta.namespace_ = fmt::format("ns-{}-{}", queue / queues_per_cohort_, queue % queues_per_cohort_);
    wl.queue_name = "lq";
    wl.priority = static_cast<int32_t>((i * 7) % 3) * 100;
    model::PodSet pod_set;
    pod_set.requests.push_back({"cpu", 1000 * (1 + (i * 13) % 4)});
    wl.pod_sets.push_back(std::move(pod_set));
    wl.arrival = interval_ * i;
    // Mean run time: load x capacity / (mean request x arrival rate per
    // queue) = load/100 x 8 / 2.5 x queues x interval.
    wl.duration = interval_ * queues * load_percent_ * 32 * (50 + (i * 31) % 101) / 100'000;
    wl.input_sequence = i;
    ++report_.rows_read;
    ++report_.workloads;
    return std::optional<model::Workload>(std::move(wl));
  }
  const trace::ImportReport& report() const override { return report_; }

 private:
  int64_t total_;
  int cohorts_;
  int queues_per_cohort_;
  SimDuration interval_;
  int64_t load_percent_;
  int64_t next_ = 0;
  trace::ImportReport report_;
};

// Cohorts of depth `depth` (1: every ClusterQueue directly in cohort-<c>;
// more: a chain of Cohort objects above it).
std::string HierarchicalCohorts(int cohorts, int depth) {
  std::string out;
  for (int c = 0; c < cohorts; ++c) {
    for (int level = 1; level < depth; ++level) {
      const std::string child = level == 1 ? fmt::format("cohort-{}", c) : fmt::format("cohort-{}-up{}", c, level - 1);
      out += fmt::format(
          "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata:\n  name: {}\nspec:\n  parentName: "
          "cohort-{}-up{}\n---\n",
          child, c, level);
    }
  }
  return out;
}

// Args: workloads, ClusterQueues, cohort depth, offered load (percent of
// the capacity). 20 ClusterQueues per cohort (at least one cohort).
void BM_Synthetic(benchmark::State& state) {
  const int64_t total = state.range(0);
  const auto queues = static_cast<int>(state.range(1));
  const auto depth = static_cast<int>(state.range(2));
  const int64_t load_percent = state.range(3);
  CohortLayout layout;
  layout.queues_per_cohort = std::min(queues, 20);
  layout.cohorts = queues / layout.queues_per_cohort;
  layout.nominal_cpu = "8";
  layout.reclaim_within_cohort = "Any";
  layout.within_cluster_queue = "LowerPriority";
  const scenario::Scenario scenario = MustLoad(ClusterManifests(layout) + HierarchicalCohorts(layout.cohorts, depth));
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  RunTotals totals;
  auto add_stream = [&](sim::Simulation& simulation) {
    return simulation.AddWorkloadSource(
        std::make_unique<SyntheticSource>(total, layout.cohorts, layout.queues_per_cohort, kSecond, load_percent));
  };
  if (!TimedRuns(state, scenario, registry, sim::RunOptions{}, add_stream, &totals)) return;
  state.SetItemsProcessed(total * static_cast<int64_t>(state.iterations()));
  state.counters["reservations_per_run"] = totals.PerRun(totals.reservations, state);
  state.counters["preemptions_per_run"] = totals.PerRun(totals.preemptions, state);
  state.counters["peak_rss_mib"] = PeakRssMib();
}
BENCHMARK(BM_Synthetic)
    ->Unit(benchmark::kMillisecond)
    ->Args({1'000'000, 1000, 1, 80})  // the target case
    // Scaling: workloads, ClusterQueues, cohort depth (80 % load).
    ->Args({10'000, 100, 1, 80})
    ->Args({100'000, 100, 1, 80})
    ->Args({1'000'000, 100, 1, 80})
    ->Args({100'000, 10, 1, 80})
    ->Args({100'000, 1000, 1, 80})
    ->Args({100'000, 10'000, 1, 80})
    ->Args({100'000, 100, 3, 80})
    ->Args({100'000, 100, 5, 80})
    // Saturated: every cycle searches for preemption targets.
    ->Args({10'000, 100, 1, 100})
    ->Args({30'000, 100, 1, 100});

// One admission cycle over 1,000 ClusterQueue heads (50 cohorts of 20), each
// head fitting its queue: the cost per head of popping, assigning flavors,
// checking quota and admitting.
void BM_CycleOver1000Heads(benchmark::State& state) {
  CohortLayout layout;
  layout.cohorts = 50;
  layout.queues_per_cohort = 20;
  layout.nominal_cpu = "4";
  std::string text = ClusterManifests(layout);
  for (int c = 0; c < layout.cohorts; ++c) {
    for (int q = 0; q < layout.queues_per_cohort; ++q) {
      for (int i = 0; i < 2; ++i) text += WorkloadManifest(c, q, i, "1", 0, "", "");
    }
  }
  const scenario::Scenario scenario = MustLoad(text);
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  RunTotals totals;
  // Arrivals are queued untimed, no cycle yet; the one cycle is timed.
  auto queue_arrivals = [](sim::Simulation& simulation) {
    return simulation.Run({.until = std::nullopt, .max_cycles = 0});
  };
  if (!TimedRuns(state, scenario, registry, {.until = std::nullopt, .max_cycles = 1}, queue_arrivals, &totals)) {
    return;
  }
  state.SetItemsProcessed(totals.reservations);
  state.counters["heads_per_cycle"] = totals.PerRun(totals.reservations, state);
  state.counters["ns_per_head"] = benchmark::Counter(static_cast<double>(totals.reservations),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert,
                                                     benchmark::Counter::kIs1000);
}
BENCHMARK(BM_CycleOver1000Heads)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace kueuesim::bench

BENCHMARK_MAIN();
