// The topology placer; see tas_placer.h.
#include "admission/tas_placer.h"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "kueuesim/cluster/tas_cache.h"

namespace kueuesim::admission {
namespace {

using cluster::FlavorId;
using cluster::kNone;

bool IsExplicit(const model::PodSet& ps) {
  return ps.topology_request.has_value() && ps.topology_request->IsExplicit();
}

// Assignment.psError: the pod set cannot get a topology.
void PodSetError(flavor::Assignment* assignment, size_t index, std::string message) {
  flavor::PodSetAssignmentResult& ps = assignment->pod_sets[index];
  ps.error = true;
  ps.reasons = {flavor::FlavorReason::Text(std::move(message))};
  assignment->mode_override.reset();
}

}  // namespace

std::vector<flavor::TasPodSetRequest> TasPlacer::Requests(cluster::CqId cq, cluster::WorkloadId workload,
                                                          flavor::Assignment* assignment) {
  std::vector<flavor::TasPodSetRequest> requests;
  const cluster::WorkloadRecord& wl = state_->workload(workload);
  const cluster::ClusterQueueInfo& info = state_->cq(cq);
  const cluster::TasCache* tas = state_->tas();
  // cq.TASFlavors: the queue's flavors with a TAS cache entry.
  bool has_tas_flavors = false;
  if (tas != nullptr) {
    for (const auto& group : info.groups) {
      for (FlavorId f : group.flavors) has_tas_flavors = has_tas_flavors || tas->IsTasFlavor(f);
    }
  }
  const bool tas_only = flavor::IsTasOnly(*state_, info);
  for (size_t i = 0; i < wl.pod_sets.size(); ++i) {
    const model::PodSet& spec = *wl.pod_sets[i].spec;
    if (!flavor::IsTasRequested(*state_, info, spec)) continue;
    size_t index = assignment->pod_sets.size();
    for (size_t a = 0; a < assignment->pod_sets.size(); ++a) {
      if (static_cast<size_t>(assignment->pod_sets[a].pod_set_index) == i) index = a;
    }
    if (index == assignment->pod_sets.size()) continue;
    flavor::PodSetAssignmentResult& ps = assignment->pod_sets[index];
    // No quota assignment: nothing to place.
    if (ps.error) continue;
    if (ps.count == 0) continue;
    // Already placed (kueuesim does not model unhealthy nodes).
    if (ps.topology_assignment.has_value()) continue;
    const bool implied = !IsExplicit(spec) && tas_only;
    if (!has_tas_flavors) {
      PodSetError(assignment, index, "workload requires Topology, but there is no TAS cache information");
      continue;
    }
    // onlyTASFlavor
    std::vector<std::string> names;
    FlavorId tas_flavor = kNone;
    for (const auto& f : ps.flavors) {
      if (!tas->IsTasFlavor(f.flavor)) continue;
      const std::string& name = state_->flavor(f.flavor).name;
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      tas_flavor = f.flavor;
    }
    if (names.empty()) {
      PodSetError(assignment, index, "no TAS flavor assigned");
      continue;
    }
    if (names.size() > 1) {
      std::sort(names.begin(), names.end());
      std::string joined;
      for (const auto& n : names) joined += (joined.empty() ? "" : ", ") + n;
      PodSetError(assignment, index, fmt::format("more than one TAS flavor assigned: {}", joined));
      continue;
    }
    // Delayed topology: always with MultiKueue (assigned on the worker); on
    // the first pass with a ProvisioningRequest check on the flavor.
    if (state_->HasAdmissionCheckController(cq, model::kMultiKueueControllerName, kNone) ||
        (!wl.HoldsQuota() &&
         state_->HasAdmissionCheckController(cq, kProvisioningRequestControllerName, tas_flavor))) {
      ps.delayed_topology_pending = true;
      continue;
    }
    requests.push_back({index, tas_flavor, implied});
  }
  return requests;
}

flavor::TasPlacementResult TasPlacer::Place(cluster::CqId /*cq*/, cluster::WorkloadId workload,
                                            const flavor::Assignment& assignment,
                                            const std::vector<flavor::TasPodSetRequest>& requests,
                                            bool simulate_empty) {
  flavor::TasPlacementResult result;
  const cluster::TasCache* tas = state_->tas();
  if (requests.empty() || tas == nullptr) return result;
  const cluster::WorkloadRecord& wl = state_->workload(workload);
  // Flavors in name order.
  std::vector<FlavorId> flavors;
  for (const auto& r : requests) {
    if (std::find(flavors.begin(), flavors.end(), r.flavor) == flavors.end()) flavors.push_back(r.flavor);
  }
  std::sort(flavors.begin(), flavors.end(),
            [&](FlavorId a, FlavorId b) { return state_->flavor(a).name < state_->flavor(b).name; });
  // One assumed usage shared by the hostname-level flavors
  // (WithAggregatedDomainUsages).
  std::map<std::string, topology::Requests> aggregated;
  std::vector<topology::PodSetPlacementRequest> placement;
  std::vector<size_t> members;
  for (FlavorId f : flavors) {
    const topology::TasFlavorSnapshot& snapshot = tas->Snapshot(f);
    placement.clear();
    members.clear();
    for (const auto& r : requests) {
      if (r.flavor != f) continue;
      const flavor::PodSetAssignmentResult& ps = assignment.pod_sets[r.pod_set];
      const cluster::PodSetInfo& info = wl.pod_sets[static_cast<size_t>(ps.pod_set_index)];
      const model::PodSet& spec = *info.spec;
      topology::PodSetPlacementRequest p;
      p.name = spec.name;
      p.count = ps.count;
      p.single_pod_requests = info.tas_per_pod;
      if (IsExplicit(spec)) p.topology_request = spec.topology_request.ToOptional();
      if (spec.topology_request.has_value()) p.group_name = spec.topology_request->pod_set_group_name;
      p.node_selector = spec.rare->node_selector;
      p.required_affinity = spec.rare->required_affinity;
      for (const auto& term : spec.rare->preferred_affinity) {
        p.preferred_affinity.push_back({term.weight, term.preference});
      }
      p.tolerations = spec.rare->tolerations;
      placement.push_back(std::move(p));
      members.push_back(r.pod_set);
    }
    const bool shared = state_->gates().tas_handle_overlapping_flavors && snapshot.IsLowestLevelHostname();
    std::vector<topology::PlacementOutcome> outcomes =
        snapshot.FindAssignments(placement, simulate_empty, shared ? &aggregated : nullptr);
    for (size_t k = 0; k < outcomes.size(); ++k) {
      flavor::TasPlacementResult::PodSet out;
      out.pod_set = members[k];
      out.flavor = f;
      out.assignment = std::move(outcomes[k].assignment);
      out.failure_reason = std::move(outcomes[k].failure_reason);
      result.pod_sets.push_back(std::move(out));
    }
  }
  return result;
}

std::unique_ptr<flavor::TopologyPlacer> NewTasPlacer(cluster::ClusterState* state) {
  return std::make_unique<TasPlacer>(state);
}

}  // namespace kueuesim::admission
