// A user-written policy: shortest-job-first ordering of each ClusterQueue's
// pending workloads, registered next to Kueue's policies and selected by
// name from a scenario (spec.policies.queueOrdering in a kueuesim.io
// Simulation object). Built against the installed library:
//
//   cmake -S examples/custom-policy -B /tmp/sjf -DCMAKE_PREFIX_PATH=<install prefix>
//   cmake --build /tmp/sjf && /tmp/sjf/sjf examples/custom-policy/sjf-scenario.yaml
//
// The policy only orders the queue: Kueue's sticky preemptor and admission
// fair sharing still come first, and quota, flavors and preemption are
// Kueue's own.
#include <cstdio>
#include <memory>
#include <string>

#include "kueuesim/kueuesim.h"

namespace {

// Workloads with a shorter expected run time (kueuesim.io/duration) go
// first; workloads without one go last; ties keep Kueue's order (priority,
// then creation time).
class ShortestJobFirst : public kueuesim::policy::QueueOrderingPolicy {
 public:
  std::string_view Name() const override { return "shortest-job-first"; }

  int Compare(const kueuesim::cluster::ClusterState& state, const kueuesim::cluster::WorkloadRecord& a,
              const kueuesim::cluster::WorkloadRecord& b) const override {
    const bool a_known = a.duration.has_value();
    const bool b_known = b.duration.has_value();
    if (a_known != b_known) return a_known ? -1 : 1;
    if (a_known && *a.duration != *b.duration) return *a.duration < *b.duration ? -1 : 1;
    return kueue_->Compare(state, a, b);
  }

 private:
  std::unique_ptr<kueuesim::policy::QueueOrderingPolicy> kueue_ = kueuesim::policy::NewKueueQueueOrdering();
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: sjf SCENARIO.yaml\n");
    return 2;
  }
  kueuesim::policy::PolicyRegistry registry = kueuesim::policy::PolicyRegistry::WithBuiltins();
  absl::Status registered = registry.RegisterQueueOrdering(
      "shortest-job-first", "shorter kueuesim.io/duration first, then Kueue's order",
      [](const kueuesim::policy::PolicyParameters&)
          -> absl::StatusOr<std::unique_ptr<kueuesim::policy::QueueOrderingPolicy>> {
        return std::make_unique<ShortestJobFirst>();
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
  (*simulation)->AddEventSink(&events);
  if (absl::Status status = (*simulation)->Run({}); !status.ok()) {
    std::fprintf(stderr, "%s\n", kueuesim::StatusMessage(status).c_str());
    return 1;
  }
  return 0;
}
