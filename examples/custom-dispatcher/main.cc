// A user-written MultiKueue dispatcher: each workload goes to the one
// connected worker with the most free quota for what it requests (its
// largest request decides), instead of Kueue's AllAtOnce (every worker) or
// Incremental (a few more every 5 minutes). Registered next to Kueue's
// dispatchers and selected by name from a scenario: the Configuration's
// multiKueue.dispatcherName, or spec.policies.dispatcher of the kueuesim.io
// Simulation object. Built against the installed library:
//
//   cmake -S examples/custom-dispatcher -B /tmp/most-free -DCMAKE_PREFIX_PATH=<install prefix>
//   cmake --build /tmp/most-free
//   /tmp/most-free/most-free examples/custom-dispatcher/scenario.yaml
//
// It prints the event log; the MultiKueue part of the summary goes to
// standard error.
#include <cstdio>
#include <memory>
#include <string>

#include "kueuesim/kueuesim.h"

namespace {

class MostFreeQuota : public kueuesim::policy::DispatchPolicy {
 public:
  kueuesim::policy::DispatchDecision Nominate(const kueuesim::policy::DispatchRequest& request) override {
    kueuesim::policy::DispatchDecision decision;
    // The resource the workload asks most of, relative to nothing else:
    // the first of its largest requests.
    size_t key = 0;
    for (size_t r = 1; r < request.requests.size(); ++r) {
      if (request.requests[r].second > request.requests[key].second) key = r;
    }
    int32_t best = -1;
    kueuesim::Amount best_free = -1;
    for (size_t i = 0; i < request.clusters.size(); ++i) {
      const auto& cluster = request.clusters[i];
      if (!cluster.connected || !cluster.has_queue || cluster.free.size() <= key) continue;
      const kueuesim::Amount free = cluster.free[key].second;
      if (free > best_free) {  // ties: the earlier cluster of the config
        best = static_cast<int32_t>(i);
        best_free = free;
      }
    }
    if (best >= 0) decision.nominated = {best};
    // Nothing fits anywhere now: look again in a minute, as quota frees up.
    if (best_free < (request.requests.empty() ? 0 : request.requests[key].second)) {
      decision.recheck_at = request.now + kueuesim::kMinute;
    }
    return decision;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: most-free SCENARIO.yaml\n");
    return 2;
  }
  kueuesim::policy::PolicyRegistry registry = kueuesim::policy::PolicyRegistry::WithBuiltins();
  absl::Status registered = registry.RegisterDispatcher(
      "example.com/most-free-quota", "the connected worker with the most free quota for the workload",
      [](const kueuesim::policy::PolicyParameters&)
          -> absl::StatusOr<std::unique_ptr<kueuesim::policy::DispatchPolicy>> {
        return std::make_unique<MostFreeQuota>();
      });
  if (!registered.ok()) return 1;

  auto scenario = kueuesim::scenario::LoadScenarioFiles({argv[1]});
  if (!scenario.ok()) {
    std::fprintf(stderr, "%s\n", kueuesim::StatusMessage(scenario.status()).c_str());
    return 1;
  }
  auto simulation = kueuesim::sim::Simulation::Create(*scenario, registry);
  if (!simulation.ok()) {
    std::fprintf(stderr, "%s\n", kueuesim::StatusMessage(simulation.status()).c_str());
    return 1;
  }
  kueuesim::metrics::EventLogWriter events(stdout);
  kueuesim::metrics::SummaryCollector summary;
  (*simulation)->AddEventSink(&events);
  (*simulation)->AddEventSink(&summary);
  if (absl::Status status = (*simulation)->Run({}); !status.ok()) {
    std::fprintf(stderr, "%s\n", kueuesim::StatusMessage(status).c_str());
    return 1;
  }
  const kueuesim::metrics::Summary result = summary.Finish(
      (*simulation)->end_time(), (*simulation)->cluster_pointers(), (*simulation)->multikueue_reports());
  std::fprintf(stderr, "%s", kueuesim::metrics::FormatSummary(result).c_str());
  return 0;
}
