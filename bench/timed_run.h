// The loop every simulation benchmark runs: per iteration a fresh simulation
// is built and prepared untimed, one Run is timed, and what the run did is
// added up for the benchmark's counters.
#ifndef KUEUESIM_BENCH_TIMED_RUN_H_
#define KUEUESIM_BENCH_TIMED_RUN_H_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>

#include "kueuesim/kueuesim.h"
#include "scenario_builder.h"

namespace kueuesim::bench {

// Summed over the iterations.
struct RunTotals {
  int64_t reservations = 0;
  int64_t preemptions = 0;
  int64_t cycles = 0;
  int64_t source_workloads = 0;  // read from the workload sources

  double PerRun(int64_t total, const benchmark::State& state) const {
    return static_cast<double>(total) / static_cast<double>(state.iterations() > 0 ? state.iterations() : 1);
  }
};

inline absl::Status NoPreparation(sim::Simulation& /*simulation*/) { return absl::OkStatus(); }

// Runs `timed` once per iteration on a simulation of `scenario`, after
// `prepare(simulation)` (untimed: adding workload sources, running the
// steps that are not measured). Returns false, the benchmark marked as
// failed with the message, when anything fails.
template <typename Prepare>
bool TimedRuns(benchmark::State& state, const scenario::Scenario& scenario, const policy::PolicyRegistry& registry,
               const sim::RunOptions& timed, Prepare prepare, RunTotals* totals) {
  for (auto _ : state) {
    state.PauseTiming();
    auto simulation = sim::Simulation::Create(scenario, registry);
    if (!simulation.ok()) {
      state.SkipWithError(StatusMessage(simulation.status()).c_str());
      return false;
    }
    CountingSink sink;
    (*simulation)->AddEventSink(&sink);
    absl::Status prepared = prepare(**simulation);
    if (!prepared.ok()) {
      state.SkipWithError(StatusMessage(prepared).c_str());
      return false;
    }
    state.ResumeTiming();
    absl::Status status = (*simulation)->Run(timed);
    benchmark::DoNotOptimize(status);
    state.PauseTiming();
    if (!status.ok()) {
      state.SkipWithError(StatusMessage(status).c_str());
      return false;
    }
    totals->reservations += sink.reservations;
    totals->preemptions += sink.preemptions;
    totals->cycles += (*simulation)->cycles();
    for (const auto& source : (*simulation)->sources()) totals->source_workloads += source->report().workloads;
    simulation->reset();
    state.ResumeTiming();
  }
  return true;
}

// A whole run of the scenario as it is.
inline bool TimedRuns(benchmark::State& state, const scenario::Scenario& scenario,
                      const policy::PolicyRegistry& registry, RunTotals* totals) {
  return TimedRuns(state, scenario, registry, sim::RunOptions{}, NoPreparation, totals);
}

}  // namespace kueuesim::bench

#endif  // KUEUESIM_BENCH_TIMED_RUN_H_
