// Flavor assignment: for each pod set of a workload, the flavor each of its
// resources gets in the ClusterQueue, honoring flavor order, taints and
// tolerations, node selectors and affinity against flavor labels, quota
// along the cohort tree, and flavor fungibility.
//
// Mirrors kueue pkg/scheduler/flavorassigner/flavorassigner.go
// (FlavorAssigner.Assign, findFlavorForPodSets, fitsResourceQuota,
// isPreferred, shouldTryNextFlavor) and podset_reducer.go (partial
// admission).
#ifndef KUEUESIM_FLAVOR_FLAVOR_ASSIGNER_H_
#define KUEUESIM_FLAVOR_FLAVOR_ASSIGNER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "kueuesim/cluster/cluster_state.h"
#include "kueuesim/cluster/tas_cache.h"
#include "kueuesim/flavor/assignment.h"

namespace kueuesim::flavor {

enum class PreemptionPossibility { kNoCandidates, kPreempt, kReclaim };

// Asks whether preemption could free `quantity` of one FR for a workload
// (kueue preemption.PreemptionOracle). Returns the possibility and the
// borrowing level after the preemptions.
class PreemptionOracle {
 public:
  virtual ~PreemptionOracle() = default;
  virtual std::pair<PreemptionPossibility, int> SimulatePreemption(cluster::CqId cq,
                                                                   cluster::WorkloadId workload,
                                                                   FrId fr, Amount quantity) = 0;
};

// One pod set's topology request (schdcache.TASPodSetRequests).
struct TasPodSetRequest {
  size_t pod_set = 0;  // index in Assignment::pod_sets
  FlavorId flavor = cluster::kNone;
  bool implied = false;  // TAS implied by a TAS-only ClusterQueue
};

// The outcome of a topology placement (schdcache.TASAssignmentsResult): the
// pod sets it reached, with their assignment or why none was found.
struct TasPlacementResult {
  struct PodSet {
    size_t pod_set = 0;  // index in Assignment::pod_sets
    FlavorId flavor = cluster::kNone;
    std::optional<model::TopologyAssignment> assignment;
    std::string failure_reason;  // empty on success
  };
  std::vector<PodSet> pod_sets;

  // The first pod set that failed (Kueue: any of them), as an index in
  // `pod_sets`, or nullopt when all were placed.
  std::optional<size_t> Failure() const {
    for (size_t i = 0; i < pod_sets.size(); ++i) {
      if (!pod_sets[i].failure_reason.empty()) return i;
    }
    return std::nullopt;
  }
};

// Topology-aware scheduling for the flavor assigner and the scheduler,
// implemented over the cluster's TAS snapshots (admission/tas_placer.h).
class TopologyPlacer {
 public:
  virtual ~TopologyPlacer() = default;
  // Assignment.WorkloadsTopologyRequests: the TAS requests of the pod sets
  // of `assignment` that need a placement (in pod set order). Pod sets whose
  // request cannot be built get the error; those whose topology is delayed
  // (ProvisioningRequest, MultiKueue) are marked and get no request.
  virtual std::vector<TasPodSetRequest> Requests(cluster::CqId cq, cluster::WorkloadId workload,
                                                 Assignment* assignment) = 0;
  // ClusterQueueSnapshot.FindTopologyAssignmentsForWorkload: places the
  // requests on the current snapshot, or on an empty cluster (only the usage
  // of TAS workloads ignored) when `simulate_empty`.
  virtual TasPlacementResult Place(cluster::CqId cq, cluster::WorkloadId workload,
                                   const Assignment& assignment,
                                   const std::vector<TasPodSetRequest>& requests,
                                   bool simulate_empty) = 0;
};

// Assignment.UpdateForTASResult: the topology assignments of the pod sets
// the placement reached (none for those that failed).
void UpdateForTasResult(Assignment* assignment, const TasPlacementResult& result);

// Assignment.ComputeTASNetUsage: the TAS usage of the pod sets with a
// topology assignment, net of what the workload's current admission already
// accounts on each domain.
cluster::TasUsage ComputeTasNetUsage(const cluster::ClusterState& state,
                                     const cluster::WorkloadRecord& workload,
                                     const Assignment& assignment);

struct FlavorAssignerOptions {
  bool fair_sharing = false;
  int64_t scheduling_cycle = 0;
  // resource -> flavor per pod set, to restrict a recomputation to the
  // flavors nominated earlier in the cycle (NominationMapping).
  const std::vector<std::vector<std::pair<ResourceId, FlavorId>>>* nomination_mapping = nullptr;
};

class FlavorAssigner {
 public:
  FlavorAssigner(const cluster::ClusterState& state, cluster::CqId cq,
                 const cluster::WorkloadRecord& workload, cluster::WorkloadId workload_id,
                 PreemptionOracle* oracle, TopologyPlacer* placer, FlavorAssignerOptions options);

  // Assigns flavors for the pod sets at their full counts, or at `counts`
  // when given (partial admission).
  Assignment Assign(const std::vector<int32_t>* counts = nullptr);

 private:
  // The pod sets assigned together (a pod set group), by index.
  using PodSetGroup = absl::InlinedVector<size_t, 2>;
  using FlavorList = absl::InlinedVector<ResourceFlavorAssignment, 4>;
  struct FlavorSearchResult;
  FlavorSearchResult FindFlavorForPodSets(const PodSetGroup& pod_sets,
                                          absl::Span<const cluster::ResourceAmount> requests,
                                          ResourceId resource, std::span<const FrAmount> usage);
  std::vector<std::string> CheckFlavorForPodSets(FlavorId flavor, const PodSetGroup& pod_sets,
                                                 const cluster::ResourceGroupInfo& group) const;

  const cluster::ClusterState& state_;
  cluster::CqId cq_;
  const cluster::ClusterQueueInfo& cq_info_;
  const cluster::WorkloadRecord& workload_;
  cluster::WorkloadId workload_id_;
  PreemptionOracle* oracle_;
  TopologyPlacer* placer_;
  FlavorAssignerOptions options_;
};

// Partial admission search (PodSetReducer.Search): the largest pod counts,
// between each pod set's count and minCount, for which `fits` accepts;
// nullopt when none does. `fits` is called in binary-search order.
std::optional<std::vector<int32_t>> SearchPartialAdmissionCounts(
    const std::vector<int32_t>& full_counts, const std::vector<int32_t>& min_counts,
    const std::function<bool(const std::vector<int32_t>&)>& fits);

// Whether a pod set uses topology-aware scheduling in this ClusterQueue,
// explicitly or because every flavor of the queue is a TAS flavor.
bool IsTasRequested(const cluster::ClusterState& state, const cluster::ClusterQueueInfo& cq,
                    const model::PodSet& pod_set);
bool IsTasOnly(const cluster::ClusterState& state, const cluster::ClusterQueueInfo& cq);

}  // namespace kueuesim::flavor

#endif  // KUEUESIM_FLAVOR_FLAVOR_ASSIGNER_H_
