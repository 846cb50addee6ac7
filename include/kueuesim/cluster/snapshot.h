// SchedulingSnapshot: the view of one cluster's quota and admitted
// workloads that a scheduling cycle and its policies work on.
//
// Kueue deep-copies its cache into a snapshot at the start of each cycle.
// kueuesim never copies: nothing else changes the state during a cycle, so
// the live state is the snapshot, and every temporary change a cycle makes
// (usage reserved for a preemptor, workloads removed to simulate a
// preemption) is undone through this class before the cycle ends.
// Policies may call the Simulate*/Remove*/Add* methods freely but must
// leave the snapshot as they found it.
#ifndef KUEUESIM_CLUSTER_SNAPSHOT_H_
#define KUEUESIM_CLUSTER_SNAPSHOT_H_

#include <optional>
#include <span>
#include <vector>

#include "kueuesim/cluster/admission_fair_sharing.h"
#include "kueuesim/cluster/cluster_state.h"
#include "kueuesim/cluster/tas_cache.h"

namespace kueuesim::cluster {

class SchedulingSnapshot {
 public:
  // `afs` (may be null) provides the LocalQueue usage of admission fair
  // sharing, read once here as Kueue's snapshot does.
  SchedulingSnapshot(ClusterState* state, SimTime now, const AdmissionFairSharing* afs = nullptr);
  // Ends the cycle (FinishCycle) if the owner did not.
  ~SchedulingSnapshot();
  SchedulingSnapshot(const SchedulingSnapshot&) = delete;
  SchedulingSnapshot& operator=(const SchedulingSnapshot&) = delete;

  const ClusterState& state() const { return *state_; }
  ClusterState& mutable_state() { return *state_; }
  const quota::QuotaTree& tree() const { return state_->tree(); }
  SimTime now() const { return now_; }
  UnixMicros wall_now() const { return state_->WallTime(now_); }

  // Workloads holding quota in `cq` and not removed from the snapshot
  // (ClusterQueueSnapshot.Workloads), in no particular order.
  template <typename Fn>
  void ForEachWorkload(CqId cq, Fn&& fn) const {
    for (WorkloadId id : state_->cq(cq).holding) {
      const WorkloadRecord& wl = state_->workload(id);
      if (!wl.snapshot_removed && !wl.admitted_in_cycle) fn(id);
    }
  }

  // Usage a workload holds (Info.Usage()).
  std::span<const FrAmount> UsageOf(WorkloadId id) const;

  // Snapshot.RemoveWorkload / AddWorkload: the quota usage and the TAS
  // usage of the workload's topology assignments (on the flavors they name).
  void RemoveWorkload(WorkloadId id);
  void AddWorkload(WorkloadId id);
  // Removes / re-adds only the usage (SimulateWorkloadUsageRemoval).
  void RemoveWorkloadUsage(WorkloadId id);
  void AddWorkloadUsage(WorkloadId id);
  void AddUsage(CqId cq, std::span<const FrAmount> usage);
  void RemoveUsage(CqId cq, std::span<const FrAmount> usage);

  // ClusterQueueSnapshot.Fits for quota: Available(fr) >= amount for all.
  bool FitsQuota(CqId cq, std::span<const FrAmount> usage) const;

  // Topology-aware scheduling. The TAS state (null when unused); its
  // snapshots are the cycle's.
  const TasCache* tas() const { return state_->tas(); }
  // ClusterQueueSnapshot.AddUsage for TAS usage: kept until the cycle ends.
  void AddTasUsage(const TasUsage& usage);
  // ClusterQueueSnapshot.Fits for TAS usage.
  bool FitsTas(const TasUsage& usage) const;
  // A workload admitted in this cycle: its TAS usage enters the cache when
  // the cycle ends (the cycle itself sees it through AddTasUsage).
  void AccountAdmission(WorkloadId id);
  // Ends the cycle: undoes the cycle's TAS usage and accounts its
  // admissions. The snapshot must not be used afterwards.
  void FinishCycle();

  // Effective priority and queue-order timestamp.
  int32_t Priority(WorkloadId id) const { return state_->workload(id).priority; }
  UnixMicros QueueOrderTimestamp(WorkloadId id) const {
    return state_->workload(id).queue_order_timestamp;
  }
  // QuotaReserved transition time, or now when not reserved.
  UnixMicros QuotaReservationTime(WorkloadId id) const;
  bool IsEvicted(WorkloadId id) const { return state_->workload(id).evicted; }
  // The ClusterQueue a workload holds quota in.
  CqId HoldingCq(WorkloadId id) const;

  // The admission-fair-sharing usage of the LocalQueue of a workload
  // holding quota in a ClusterQueue that uses it (Info.LocalQueueFSUsage),
  // as of the start of the cycle; nullopt otherwise.
  std::optional<double> LocalQueueFsUsage(WorkloadId id) const;
  bool admission_fair_sharing_enabled() const { return afs_ != nullptr && afs_->Enabled(); }

  // Whether `id` uses any of `frs` (classical.WorkloadUsesResources).
  bool UsesResources(WorkloadId id, std::span<const FrId> frs) const;

 private:
  ClusterState* state_;
  SimTime now_;
  const AdmissionFairSharing* afs_;
  std::vector<double> lq_usage_;  // by LqId, when AFS is enabled
  bool finished_ = false;

  void UpdateTasUsageOf(WorkloadId id, bool add);
};

}  // namespace kueuesim::cluster

#endif  // KUEUESIM_CLUSTER_SNAPSHOT_H_
