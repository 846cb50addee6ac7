// Embedding kueuesim in another C++ tool: load a scenario, run it, read the
// summary. Built against the installed library as an outside project would
// (see CMakeLists.txt next to this file):
//
//   cmake --install build --prefix /tmp/kueuesim-install
//   cmake -S examples/embed -B /tmp/embed -DCMAKE_PREFIX_PATH=/tmp/kueuesim-install
//   cmake --build /tmp/embed && /tmp/embed/embed scenarios/quickstart/gpu-teams.yaml
#include <cstdio>
#include <string>

#include "kueuesim/kueuesim.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: embed SCENARIO.yaml\n");
    return 2;
  }
  auto scenario = kueuesim::scenario::LoadScenarioFiles({argv[1]});
  if (!scenario.ok()) {
    std::fprintf(stderr, "%s\n", kueuesim::StatusMessage(scenario.status()).c_str());
    return 1;
  }
  kueuesim::policy::PolicyRegistry registry = kueuesim::policy::PolicyRegistry::WithBuiltins();
  auto simulation = kueuesim::sim::Simulation::Create(*scenario, registry);
  if (!simulation.ok()) {
    std::fprintf(stderr, "%s\n", kueuesim::StatusMessage(simulation.status()).c_str());
    return 1;
  }
  kueuesim::metrics::SummaryCollector collector;
  (*simulation)->AddEventSink(&collector);
  if (absl::Status status = (*simulation)->Run({}); !status.ok()) {
    std::fprintf(stderr, "%s\n", kueuesim::StatusMessage(status).c_str());
    return 1;
  }
  kueuesim::metrics::Summary summary =
      collector.Finish((*simulation)->end_time(), (*simulation)->cluster_pointers());
  for (const auto& cluster : summary.clusters) {
    for (const auto& cq : cluster.cluster_queues) {
      std::printf("%s: admitted %lld, finished %lld, p90 wait %s\n", cq.name.c_str(),
                  static_cast<long long>(cq.admitted), static_cast<long long>(cq.finished),
                  kueuesim::FormatDuration(cq.wait.p90).c_str());
    }
  }
  return 0;
}
