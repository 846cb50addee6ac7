// Admission fair sharing (AFS): the usage ledger of each LocalQueue that
// orders a UsageBasedAdmissionFairSharing ClusterQueue's pending workloads,
// lower usage first.
//
// Mirrors kueue pkg/cache/queue/afs (usage ledger, entry penalties),
// pkg/util/admissionfairsharing (decay, usage), the scheduler's entry
// penalty (scheduler.go updateEntryPenalty), its settlement when a workload
// becomes Admitted (workload_controller.go updateAfsConsumedUsage) and the
// LocalQueue reconciler's periodic decay (localqueue_controller.go
// reconcileConsumedUsage). Quantities are kept as Kueue's float view of them
// (cpu in cores, memory in bytes), as it computes the usage.
#ifndef KUEUESIM_CLUSTER_ADMISSION_FAIR_SHARING_H_
#define KUEUESIM_CLUSTER_ADMISSION_FAIR_SHARING_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kueuesim/base/time.h"
#include "kueuesim/cluster/cluster_state.h"

namespace kueuesim::cluster {

class AdmissionFairSharing {
 public:
  // Seeds the ledger from each LocalQueue's status. Does nothing (Enabled()
  // false) unless the Configuration has an admissionFairSharing block and
  // the AdmissionFairSharing gate is on.
  explicit AdmissionFairSharing(const ClusterState* state);

  bool Enabled() const { return enabled_; }
  // Whether `cq` orders its queue by LocalQueue usage.
  bool OrdersClusterQueue(CqId cq) const;
  // The fair-sharing usage of a LocalQueue (consumed + pending penalties,
  // weighted, divided by the LocalQueue weight; +inf for weight <= 0).
  double Usage(LqId lq) const;
  bool HasPendingPenalty(CqId cq) const;

  // The scheduler reserved quota for `wl` (updateEntryPenalty add).
  void PushPenalty(WorkloadId id, const WorkloadRecord& wl);
  // `wl` became Admitted at `now` (settlement).
  void Settle(WorkloadId id, const WorkloadRecord& wl, SimTime now);
  // `wl` finished or left without settling (SubPenalty).
  void DropPenalty(WorkloadId id, const WorkloadRecord& wl);
  // Admitted usage of a LocalQueue changes (reservation, release).
  void AddAdmittedUsage(const WorkloadRecord& wl, int sign);
  // The LocalQueue reconciler's periodic decay, for every AFS LocalQueue.
  void ReconcileAll(SimTime now);
  SimDuration sampling_interval() const { return sampling_interval_; }

 private:
  using Resources = std::map<ResourceId, double>;
  struct Entry {
    Resources consumed;
    std::map<WorkloadId, Resources> penalties;
    Resources pending_penalty;
    SimTime last_update = 0;
    Resources admitted_usage;
    double weight = 1.0;
  };

  Resources TotalRequests(const WorkloadRecord& wl) const;
  // The id of resource `name` for this class: the cluster's, or for a name
  // the cluster does not know (only in a LocalQueue's consumed usage or the
  // resource weights) an id of its own below kNone.
  ResourceId ResourceOf(const std::string& name);
  std::string_view ResourceName(ResourceId r) const;
  double Alpha(double elapsed_seconds) const;
  void Decay(Entry* entry, SimTime now);

  const ClusterState* state_;
  std::vector<std::string> unknown_resources_;  // ids kNone - 1, kNone - 2, ...
  bool enabled_ = false;
  SimDuration half_life_ = 0;
  SimDuration sampling_interval_ = 0;
  std::map<ResourceId, double> resource_weights_;
  std::vector<Entry> entries_;  // by LqId
};

}  // namespace kueuesim::cluster

#endif  // KUEUESIM_CLUSTER_ADMISSION_FAIR_SHARING_H_
