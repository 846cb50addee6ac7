// Helper for tests that run a whole simulation from YAML manifests: load
// the scenario, build the Simulation with the built-in policies (or a given
// registry) and attach the event sinks. Running it is left to the test, with
// the options it needs. Header-only; needs kueuesim::sim.
#ifndef KUEUESIM_TESTING_SIMULATION_FIXTURES_H_
#define KUEUESIM_TESTING_SIMULATION_FIXTURES_H_

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "kueuesim/cluster/events.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/sim/simulation.h"
#include "testing/scenario_fixtures.h"

namespace kueuesim::testing {

// The simulation of `yaml` (one in-memory file named `name`, which error
// messages quote) with `sinks` attached, not yet run. `registry` null: the
// built-in policies.
inline absl::StatusOr<std::unique_ptr<sim::Simulation>> SimulationFromYaml(
    std::string_view yaml, std::initializer_list<cluster::EventSink*> sinks, const std::string& name = "test.yaml",
    const policy::PolicyRegistry* registry = nullptr) {
  auto scenario = LoadYaml(yaml, name);
  if (!scenario.ok()) return scenario.status();
  static const policy::PolicyRegistry builtins = policy::PolicyRegistry::WithBuiltins();
  auto simulation = sim::Simulation::Create(*scenario, registry != nullptr ? *registry : builtins);
  if (!simulation.ok()) return simulation.status();
  for (cluster::EventSink* sink : sinks) (*simulation)->AddEventSink(sink);
  return simulation;
}

}  // namespace kueuesim::testing

#endif  // KUEUESIM_TESTING_SIMULATION_FIXTURES_H_
