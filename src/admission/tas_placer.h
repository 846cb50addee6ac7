// The topology placer: builds the TAS requests of an assignment and places
// them on the cluster's TAS flavor snapshots.
//
// Mirrors kueue pkg/scheduler/flavorassigner/tas_flavorassigner.go
// (WorkloadsTopologyRequests, podSetTopologyRequest, onlyTASFlavor) and
// pkg/cache/scheduler/clusterqueue_snapshot.go
// (FindTopologyAssignmentsForWorkload): flavors in name order, with one
// assumed-usage map shared by the flavors whose lowest level is the
// hostname (TASHandleOverlappingFlavors).
#ifndef KUEUESIM_SRC_ADMISSION_TAS_PLACER_H_
#define KUEUESIM_SRC_ADMISSION_TAS_PLACER_H_

#include <memory>
#include <vector>

#include "kueuesim/cluster/cluster_state.h"
#include "kueuesim/flavor/flavor_assigner.h"

namespace kueuesim::admission {

// The ProvisioningRequest admission check controller (its checks delay the
// topology assignment to a second pass).
inline constexpr char kProvisioningRequestControllerName[] = "kueue.x-k8s.io/provisioning-request";

class TasPlacer : public flavor::TopologyPlacer {
 public:
  explicit TasPlacer(cluster::ClusterState* state) : state_(state) {}

  std::vector<flavor::TasPodSetRequest> Requests(cluster::CqId cq, cluster::WorkloadId workload,
                                                 flavor::Assignment* assignment) override;
  flavor::TasPlacementResult Place(cluster::CqId cq, cluster::WorkloadId workload,
                                   const flavor::Assignment& assignment,
                                   const std::vector<flavor::TasPodSetRequest>& requests,
                                   bool simulate_empty) override;

 private:
  cluster::ClusterState* state_;
};

// The placer for a cluster's scheduler.
std::unique_ptr<flavor::TopologyPlacer> NewTasPlacer(cluster::ClusterState* state);

}  // namespace kueuesim::admission

#endif  // KUEUESIM_SRC_ADMISSION_TAS_PLACER_H_
