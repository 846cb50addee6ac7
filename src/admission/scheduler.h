// The admission cycle of one cluster: heads, nomination (flavor
// assignment), ordering, per-entry processing, requeue.
//
// Mirrors kueue pkg/scheduler/scheduler.go (schedule, nominate,
// processEntry, requeueAndUpdate) and fair_sharing_iterator.go. The cycle
// decides; the cluster runtime applies what it decided (reservations,
// evictions) and emits the events.
#ifndef KUEUESIM_ADMISSION_SCHEDULER_H_
#define KUEUESIM_ADMISSION_SCHEDULER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kueuesim/cluster/cluster_state.h"
#include "kueuesim/cluster/snapshot.h"
#include "kueuesim/cluster/tas_cache.h"
#include "kueuesim/flavor/assignment.h"
#include "kueuesim/flavor/flavor_assigner.h"
#include "kueuesim/policy/preemption.h"
#include "queue/queue_manager.h"

namespace kueuesim::admission {

using cluster::CqId;
using cluster::WorkloadId;

// A quota reservation the cycle made.
struct Reservation {
  WorkloadId workload = cluster::kNone;
  CqId cq = cluster::kNone;
  flavor::Assignment assignment;
};

// A preemption the cycle issued.
struct Preemption {
  WorkloadId victim = cluster::kNone;
  WorkloadId preemptor = cluster::kNone;
  policy::PreemptionReason reason = policy::PreemptionReason::kInClusterQueue;
};

struct CycleResult {
  int64_t cycle = 0;
  int heads = 0;
  std::vector<Reservation> reservations;
  std::vector<Preemption> preemptions;
  // Heads that could be admitted only by preempting but hold a closed
  // preemption gate (condition BlockedOnPreemptionGates).
  std::vector<WorkloadId> preemption_gated;
  // Heads that went to the parked set, and heads re-queued with flavors
  // left to try: both change what the next cycle sees.
  int parked = 0;
  std::vector<WorkloadId> requeued_with_pending_flavors;
  // Workloads whose QuotaReserved=False condition (WorkloadRecord::pending)
  // the cycle changed, in the order it changed them.
  std::vector<WorkloadId> pending_changed;
  // Kueue's "success": something was admitted or evicted.
  bool success() const { return !reservations.empty() || !preemptions.empty(); }
  // Whether running another cycle at once could decide differently.
  bool progressed() const { return success() || parked > 0 || !requeued_with_pending_flavors.empty(); }
};

class Scheduler : public flavor::PreemptionOracle {
 public:
  // `afs` may be null (admission fair sharing off); `placer` may be null
  // (no topology-aware scheduling).
  Scheduler(cluster::ClusterState* state, queue::QueueManager* queues,
            policy::PreemptionPolicy* preemption, flavor::TopologyPlacer* placer,
            cluster::AdmissionFairSharing* afs);
  // As above, owning the placer.
  Scheduler(cluster::ClusterState* state, queue::QueueManager* queues,
            policy::PreemptionPolicy* preemption, std::unique_ptr<flavor::TopologyPlacer> placer,
            cluster::AdmissionFairSharing* afs);

  // Runs one cycle at simulated time `now`. The reservations are already
  // accounted in the quota tree and the workloads' admission state; the
  // caller emits events, schedules completions and carries out the
  // preemptions (which the cycle only decided).
  CycleResult RunCycle(SimTime now);

  int64_t cycles_run() const { return cycle_; }

  // Reuse of an unchanged head's last nomination (cluster::NominationMemo),
  // on by default: the decisions are the same either way (off, every head
  // is assigned flavors afresh in every cycle, as Kueue does).
  void set_reuse_nominations(bool on) { reuse_nominations_ = on; }
  // Check mode (--check-invariants): every reuse is also computed afresh
  // and compared; the first difference is kept for reuse_mismatch().
  void set_verify_reuse(bool on) { verify_reuse_ = on; }
  // "" while every reuse agreed with a fresh nomination.
  const std::string& reuse_mismatch() const { return reuse_mismatch_; }
  // Heads whose nomination was reused, and assigned afresh (for tests).
  int64_t nominations_reused() const { return nominations_reused_; }
  int64_t nominations_assigned() const { return nominations_assigned_; }

  // flavor::PreemptionOracle
  std::pair<flavor::PreemptionPossibility, int> SimulatePreemption(CqId cq, WorkloadId workload,
                                                                   cluster::FrId fr,
                                                                   Amount quantity) override;

 private:
  enum class EntryStatus { kNotNominated, kNominated, kSkipped, kPreemptionGated, kEvicted, kAssumed };
  // schdcache.FitsCheck
  enum class FitsCheck { kOk, kNoQuota, kNoTas };

  // workload.Usage: quota and topology usage.
  struct Usage {
    cluster::FrAmountList quota;
    cluster::TasUsage tas;
  };

  struct Entry {
    WorkloadId workload = cluster::kNone;
    CqId cq = cluster::kNone;
    bool is_preemptor = false;
    flavor::Assignment assignment;
    std::vector<policy::PreemptionTarget> targets;
    EntryStatus status = EntryStatus::kNotNominated;
    queue::RequeueReason requeue_reason = queue::RequeueReason::kGeneric;
    // The flavor-scan cursor the workload carries into its next cycle.
    std::optional<cluster::LastAssignmentState> last_assignment;
    bool nominated = false;
    // The QuotaReserved=False condition Kueue would write if the entry is
    // requeued (quotaReservedReason and inadmissibleMsg): the reason, which
    // message, and for "Pending the preemption of N workload(s)" N.
    cluster::QuotaReservedReason qr_reason = cluster::QuotaReservedReason::kNone;
    cluster::PendingMessage message = cluster::PendingMessage::kNone;
    int32_t preempted = 0;
    // Nominated from the workload's NominationMemo (no flavor assignment).
    bool reused = false;
    // A fresh nomination that may be memoized when the cycle requeues it
    // (ReusableNomination), with the quota state it saw.
    bool memoizable = false;
    bool memo_preempt = false;  // Preempt with no targets (else NoFit)
    uint64_t memo_quota_generation = 0;
    absl::InlinedVector<Amount, 4> memo_path_usage;
    void SetPending(cluster::QuotaReservedReason reason, cluster::PendingMessage m) {
      qr_reason = reason;
      message = m;
    }
  };

  void Nominate(std::vector<Entry>* entries, std::vector<Entry>* inadmissible);
  void GetAssignments(Entry* e,
                      const std::vector<std::vector<std::pair<cluster::ResourceId, cluster::FlavorId>>>*
                          nomination_mapping);
  std::vector<policy::PreemptionTarget> GetTargets(WorkloadId workload, CqId cq,
                                                   const flavor::Assignment& assignment);
  void UpdateAssignmentForTas(Entry* e);
  Usage EntryUsage(const Entry& e, cluster::FrAmountList net_quota) const;
  Usage EntryUsage(const Entry& e) const;
  FitsCheck Fits(const Entry& e, const Usage& usage,
                 const std::vector<policy::PreemptionTarget>& targets) const;
  void ProcessEntry(Entry* e, CycleResult* result);
  void Admit(Entry* e, const cluster::FrAmountList& usage, CycleResult* result);
  std::vector<size_t> ClassicalOrder(const std::vector<Entry>& entries) const;
  size_t NextFairSharingEntry(const std::vector<Entry>& entries, const std::vector<bool>& done);
  void Requeue(Entry* e, CycleResult* result);
  // UnadmittedWorkloadReasonWithFallback: `granular` with the
  // UnadmittedWorkloadsObservability gate on, else `fallback`.
  cluster::QuotaReservedReason Reason(cluster::QuotaReservedReason granular,
                                      cluster::QuotaReservedReason fallback = cluster::QuotaReservedReason::kPending) const {
    return state_->gates().unadmitted_workloads_observability ? granular : fallback;
  }
  void AddTemporaryUsage(CqId cq, Usage usage);
  // NominationMemo: whether a head of `cq` depends only on quotas and on
  // the usage on its path to the root; the usage it sees now; the reuse
  // and the memo.
  bool MemoizableClusterQueue(CqId cq);
  bool ComputeMemoizable(const cluster::ClusterQueueInfo& cq) const;
  absl::InlinedVector<Amount, 4> PathUsage(const cluster::ClusterQueueInfo& cq) const;
  bool ReuseNomination(Entry* e, cluster::WorkloadRecord& wl, const cluster::ClusterQueueInfo& cq);
  void NoteMemoizable(Entry* e, const cluster::WorkloadRecord& wl, const cluster::ClusterQueueInfo& cq,
                      bool scan_from_start);
  void StoreNominationMemo(const Entry& e, cluster::WorkloadRecord& wl);
  void VerifyReuse(const Entry& reused, const cluster::WorkloadRecord& wl);

  cluster::ClusterState* state_;
  queue::QueueManager* queues_;
  policy::PreemptionPolicy* preemption_;
  flavor::TopologyPlacer* placer_;
  std::unique_ptr<flavor::TopologyPlacer> owned_placer_;
  cluster::AdmissionFairSharing* afs_;
  std::unique_ptr<cluster::SchedulingSnapshot> snapshot_;
  int64_t cycle_ = 0;
  SimTime now_ = 0;
  // Workloads preempted earlier in the running cycle.
  std::vector<WorkloadId> preempted_in_cycle_;
  // RunCycle's nominated and not nominated entries (reused storage).
  std::vector<Entry> cycle_entries_;
  std::vector<Entry> cycle_inadmissible_;
  // Usage added to the snapshot for the cycle only.
  std::vector<std::pair<CqId, cluster::FrAmountList>> temporary_usage_;
  std::vector<WorkloadId> admitted_in_cycle_;
  bool reuse_nominations_ = true;
  std::vector<int8_t> memoizable_cq_;  // by CqId: -1 not computed yet, 0 no, 1 yes
  bool verify_reuse_ = false;
  std::string reuse_mismatch_;
  int64_t nominations_reused_ = 0;
  int64_t nominations_assigned_ = 0;
};

}  // namespace kueuesim::admission

#endif  // KUEUESIM_ADMISSION_SCHEDULER_H_
