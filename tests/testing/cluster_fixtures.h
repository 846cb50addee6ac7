// Builds the compiled ClusterState of a scenario's cluster from YAML, with
// every workload of the spec added (as ClusterRuntime::Create does).
// Header-only; needs kueuesim::cluster.
#ifndef KUEUESIM_TESTING_CLUSTER_FIXTURES_H_
#define KUEUESIM_TESTING_CLUSTER_FIXTURES_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "kueuesim/base/status.h"
#include "kueuesim/cluster/cluster_state.h"
#include "testing/scenario_fixtures.h"

namespace kueuesim::testing {

inline absl::StatusOr<std::unique_ptr<cluster::ClusterState>> BuildClusterState(
    std::string_view yaml, const std::string& cluster_name = "") {
  KUEUESIM_ASSIGN_OR_RETURN(scenario::Scenario loaded, LoadYaml(yaml));
  const scenario::ClusterSpec* spec = loaded.FindCluster(cluster_name);
  if (spec == nullptr) return NotFound("no cluster \"" + cluster_name + "\"");
  KUEUESIM_ASSIGN_OR_RETURN(std::unique_ptr<cluster::ClusterState> state,
                            cluster::ClusterState::Build(*spec, loaded.settings.start_time.value_or(0),
                                                         loaded.settings.default_startup_delay));
  for (const auto& wl : spec->workloads) {
    KUEUESIM_RETURN_IF_ERROR(state->AddWorkload(std::make_shared<const model::Workload>(wl)).status());
  }
  return state;
}

}  // namespace kueuesim::testing

#endif  // KUEUESIM_TESTING_CLUSTER_FIXTURES_H_
