// Pending workload queues of one cluster: per ClusterQueue a heap of active
// workloads, a set of parked (inadmissible) ones and the in-flight head.
//
// Mirrors kueue pkg/cache/queue (manager.go, cluster_queue.go,
// pending_workloads.go, inadmissible_workloads.go). The heap performs the
// same sift operations as Go's container/heap, so that Kueue's sticky
// preemptor rule (which changes the order while workloads are queued)
// gives the same heads.
#ifndef KUEUESIM_QUEUE_QUEUE_MANAGER_H_
#define KUEUESIM_QUEUE_QUEUE_MANAGER_H_

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "kueuesim/cluster/admission_fair_sharing.h"
#include "kueuesim/cluster/cluster_state.h"
#include "kueuesim/policy/queue_ordering.h"

namespace kueuesim::queue {

using cluster::CqId;
using cluster::WorkloadId;

enum class RequeueReason {
  kGeneric,
  kFailedAfterNomination,
  kNamespaceMismatch,
  kPreemptionGated,
  kPendingPreemption,
  kPendingMigration,
  kPreemptionFailed,
  kNoFit,
  kPreemptionNoCandidates,
};

struct Head {
  WorkloadId workload = cluster::kNone;
  CqId cq = cluster::kNone;
  bool is_preemptor = false;
};

class QueueManager {
 public:
  QueueManager(cluster::ClusterState* state, const policy::QueueOrderingPolicy* ordering);

  // Admission fair sharing orders the queues that use it (may be null).
  void set_admission_fair_sharing(const cluster::AdmissionFairSharing* afs) { afs_ = afs; }

  // A new or changed pending workload (Manager.AddOrUpdateWorkload).
  // `reevaluate` is true when something the parked copy depends on changed
  // (eviction, requeue state, priority): a parked workload is then taken
  // out of the parked set and re-filed. Returns false when the workload has
  // no LocalQueue or ClusterQueue.
  bool AddOrUpdate(WorkloadId id, UnixMicros now, bool reevaluate);

  // Removes a workload from whichever queue holds it (admission, deletion).
  void Delete(WorkloadId id);

  // Pops one head from every active ClusterQueue, in ClusterQueue name
  // order (Manager.Heads).
  std::vector<Head> Heads();

  // Puts a head that was not admitted back (Manager.RequeueWorkload).
  // Returns whether it went back into the active heap or the parked set.
  bool Requeue(WorkloadId id, RequeueReason reason, UnixMicros now);

  // Moves the parked workloads of `cq` whose namespace still matches and
  // whose backoff expired back into the heap (queueInadmissibleWorkloads).
  int QueueInadmissible(CqId cq, UnixMicros now);

  // Rebuilds a ClusterQueue's heap after its ordering inputs changed (AFS).
  void RebuildHeap(CqId cq);

  bool HasActive(CqId cq) const { return !queues_[static_cast<size_t>(cq)].heap.empty(); }
  size_t ActiveCount(CqId cq) const { return queues_[static_cast<size_t>(cq)].heap.size(); }
  size_t ParkedCount(CqId cq) const { return queues_[static_cast<size_t>(cq)].parked.size(); }
  bool AnyActive() const;
  // Pending workloads of a ClusterQueue: active, parked and in flight.
  std::vector<WorkloadId> Pending(CqId cq) const;
  bool IsPreemptor(CqId cq, WorkloadId id) const;

 private:
  // A queued workload with what the heap compares most often, so that
  // sifting reads neither the workload record nor calls the policy.
  struct HeapEntry {
    policy::OrderKey key;
    uint64_t scheduling_hash = 0;
    WorkloadId id = cluster::kNone;
  };

  struct CqQueue {
    std::vector<HeapEntry> heap;
    std::vector<WorkloadId> parked;
    WorkloadId inflight = cluster::kNone;
    WorkloadId preemptor = cluster::kNone;
    bool preemptor_sticky = false;
    // The heads call (pop cycle) at the last queueInadmissibleWorkloads.
    // Kueue counts pops per ClusterQueue, one per Heads call even when the
    // heap is empty; comparing with the global count of Heads calls gives the
    // same answers without visiting every ClusterQueue each cycle.
    int64_t queue_inadmissible_cycle = -1;
    std::unordered_set<uint64_t> bulk_moved_hashes;
  };

  HeapEntry EntryFor(WorkloadId id) const;
  // Whether admission fair sharing orders the ClusterQueue by usage.
  bool OrdersByUsage(CqId cq) const;
  // The heap order; `by_usage` is OrdersByUsage of the queue's ClusterQueue.
  bool Less(const CqQueue& q, bool by_usage, const HeapEntry& a, const HeapEntry& b) const;
  // The position of a workload in its queue's heap or parked list.
  int32_t& PositionOf(WorkloadId id);
  void Swap(CqQueue& q, size_t i, size_t j);
  void Up(CqQueue& q, CqId cq, size_t j);
  bool Down(CqQueue& q, CqId cq, size_t i0, size_t n);
  void HeapPush(CqQueue& q, CqId cq, WorkloadId id);
  WorkloadId HeapPop(CqQueue& q, CqId cq);
  void HeapRemove(CqQueue& q, CqId cq, size_t index);
  void HeapFix(CqQueue& q, CqId cq, size_t index);
  // Keeps the set of ClusterQueues with a non-empty heap up to date.
  void NoteHeapSize(CqId cq);
  // Restores the heap property over the whole heap (and every queue_index).
  void Heapify(CqQueue& q, CqId cq);
  void ParkedInsert(CqQueue& q, WorkloadId id);
  void ParkedRemove(CqQueue& q, WorkloadId id);
  bool MoveToActive(CqQueue& q, CqId cq, WorkloadId id);
  bool PushActiveIfNotPresent(CqQueue& q, CqId cq, WorkloadId id);
  bool BackoffExpired(const cluster::WorkloadRecord& wl, UnixMicros now) const;
  bool NamespaceMatches(CqId cq, const cluster::WorkloadRecord& wl) const;

  cluster::ClusterState* state_;
  const policy::QueueOrderingPolicy* ordering_;
  const cluster::AdmissionFairSharing* afs_ = nullptr;
  std::vector<CqQueue> queues_;
  // By WorkloadId: the position in its queue's heap or parked list (a flat
  // array: sifting touches no workload record).
  std::vector<int32_t> positions_;
  std::vector<CqId> cqs_by_name_;
  std::vector<int32_t> name_rank_;  // by CqId: position in cqs_by_name_
  // Bit r set: the ClusterQueue of name rank r has a non-empty heap. Heads
  // visits only those (and the ones with a head in flight).
  std::vector<uint64_t> non_empty_;
  std::vector<CqId> inflight_cqs_;  // ClusterQueues given a head by the last Heads call
  int64_t heads_calls_ = 0;
  // By CqId, by NamespaceId: -1 not computed yet, else whether the
  // ClusterQueue's namespaceSelector matches the namespace.
  mutable std::vector<std::vector<int8_t>> namespace_matches_;
};

}  // namespace kueuesim::queue

#endif  // KUEUESIM_QUEUE_QUEUE_MANAGER_H_
