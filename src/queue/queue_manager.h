// Pending workload queues of one cluster: per ClusterQueue the active
// workloads (a heap), the parked (inadmissible) ones and the in-flight head.
//
// Mirrors kueue pkg/cache/queue (manager.go, cluster_queue.go,
// pending_workloads.go, inadmissible_workloads.go). Kueue keeps one heap per
// ClusterQueue; here a ClusterQueue's workloads are grouped by scheduling-
// equivalence hash into buckets, each with an active heap and a parked side,
// and the buckets with active workloads form a heap ordered by their heads.
// The order is Kueue's (a strict total order: ties end on the input
// sequence), so the two levels pop exactly what Kueue's single heap pops,
// while parking a whole hash (Kueue's bulk move on NoFit) and bringing the
// parked workloads back (queueInadmissibleWorkloads) swap a bucket's two
// sides instead of moving every workload. See docs/performance.md.
#ifndef KUEUESIM_QUEUE_QUEUE_MANAGER_H_
#define KUEUESIM_QUEUE_QUEUE_MANAGER_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

// Where a workload is in the queues.
enum class Placement : uint8_t {
  kNotQueued,
  kActive,    // in the heap: can be popped
  kParked,    // inadmissible until the next queueInadmissibleWorkloads
  kInflight,  // popped by the current cycle
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

  Placement PlacementOf(WorkloadId id) const;
  bool HasActive(CqId cq) const { return queues_[static_cast<size_t>(cq)].active_count > 0; }
  size_t ActiveCount(CqId cq) const { return queues_[static_cast<size_t>(cq)].active_count; }
  size_t ParkedCount(CqId cq) const { return queues_[static_cast<size_t>(cq)].parked_count; }
  bool AnyActive() const;
  // Pending workloads of a ClusterQueue: active, parked and in flight.
  std::vector<WorkloadId> Pending(CqId cq) const;
  bool IsPreemptor(CqId cq, WorkloadId id) const;
  // Whether the workload's namespace exists and matches the ClusterQueue's
  // namespaceSelector (cached per ClusterQueue and namespace: neither
  // changes during a run).
  bool NamespaceMatches(CqId cq, const cluster::WorkloadRecord& wl) const;

 private:
  // A queued workload with what the heap compares most often, so that
  // sifting reads neither the workload record nor calls the policy.
  struct HeapEntry {
    policy::OrderKey key;
    uint64_t scheduling_hash = 0;
    WorkloadId id = cluster::kNone;
    // Whether queueInadmissibleWorkloads must look at the workload (its
    // namespace does not match or its backoff had not expired when the
    // entry was made). Neither can change back while it waits: namespaces
    // are fixed, and requeueAt is only set on an admitted workload.
    bool needs_check = false;
  };

  // The queued workloads of one ClusterQueue with one scheduling hash.
  struct Bucket {
    uint64_t hash = 0;
    // sides[active_side] is a heap of active workloads, the other side the
    // parked ones.
    std::array<std::vector<HeapEntry>, 2> sides;
    std::array<int32_t, 2> needing_check{0, 0};  // entries with needs_check, per side
    uint8_t active_side = 0;
    // The parked side is in heap order (it was the active heap, and
    // insertions and removals kept the order): it can become active as is.
    bool parked_is_heap = true;
    // Bulk-moved since the last queueInadmissibleWorkloads: new arrivals
    // with this hash are parked (hashToBulkMoveReason).
    bool hash_parked = false;
    bool listed = false;  // in CqQueue::to_unpark
    int32_t rank = -1;    // position in CqQueue::order; -1: no active workload
    std::vector<HeapEntry>& active() { return sides[active_side]; }
    std::vector<HeapEntry>& parked() { return sides[active_side ^ 1]; }
    const std::vector<HeapEntry>& active() const { return sides[active_side]; }
    const std::vector<HeapEntry>& parked() const { return sides[active_side ^ 1]; }
  };

  struct CqQueue {
    std::vector<Bucket> buckets;
    absl::flat_hash_map<uint64_t, int32_t> bucket_of_hash;
    std::vector<int32_t> free_buckets;
    // The buckets with active workloads, a heap ordered by their heads.
    std::vector<int32_t> order;
    // The buckets with parked workloads or a parked hash.
    std::vector<int32_t> to_unpark;
    size_t active_count = 0;
    size_t parked_count = 0;
    WorkloadId inflight = cluster::kNone;
    WorkloadId preemptor = cluster::kNone;
    bool preemptor_sticky = false;
    // The heads call (pop cycle) at the last queueInadmissibleWorkloads.
    // Kueue counts pops per ClusterQueue, one per Heads call even when the
    // heap is empty; comparing with the global count of Heads calls gives the
    // same answers without visiting every ClusterQueue each cycle.
    int64_t queue_inadmissible_cycle = -1;
  };

  // Where a queued workload's entry is.
  struct Slot {
    int32_t bucket = -1;
    int32_t position = -1;
    uint8_t side = 0;
  };

  HeapEntry EntryFor(CqId cq, WorkloadId id, UnixMicros now) const;
  // Whether admission fair sharing orders the ClusterQueue by usage.
  bool OrdersByUsage(CqId cq) const;
  // The heap order; `by_usage` is OrdersByUsage of the queue's ClusterQueue.
  bool Less(const CqQueue& q, bool by_usage, const HeapEntry& a, const HeapEntry& b) const;
  Slot& SlotOf(WorkloadId id);

  // Heap operations on one side of a bucket (Go container/heap up, down,
  // fix, init) and on the queue's order of buckets. The Order/Placed helpers are
  // the comparison and the position recording they sift with (defined, and
  // used only, in queue_manager.cc).
  auto EntryOrder(const CqQueue& q, bool by_usage) const;
  auto EntryPlaced();
  auto BucketOrder(const CqQueue& q, bool by_usage) const;
  static auto BucketPlaced(CqQueue& q);
  void EntryUp(CqQueue& q, bool by_usage, std::vector<HeapEntry>& heap, size_t j);
  void EntryDown(CqQueue& q, bool by_usage, std::vector<HeapEntry>& heap, size_t i0, size_t n);
  void EntryFix(CqQueue& q, bool by_usage, std::vector<HeapEntry>& heap, size_t i, size_t n);
  void EntryHeapify(CqQueue& q, bool by_usage, std::vector<HeapEntry>& heap);
  bool BucketLess(const CqQueue& q, bool by_usage, int32_t a, int32_t b) const;
  void OrderUp(CqQueue& q, bool by_usage, size_t j);
  void OrderDown(CqQueue& q, bool by_usage, size_t i0, size_t n);
  void OrderFix(CqQueue& q, bool by_usage, size_t i, size_t n);
  // Puts a bucket whose active heap changed at its place in the order.
  void OrderUpdate(CqQueue& q, CqId cq, int32_t bucket);
  void OrderRemove(CqQueue& q, CqId cq, int32_t bucket);

  int32_t BucketFor(CqQueue& q, uint64_t hash);
  // Frees a bucket that holds nothing and remembers nothing.
  void MaybeFree(CqQueue& q, int32_t bucket);
  void ListToUnpark(CqQueue& q, int32_t bucket);

  void ActivePush(CqQueue& q, CqId cq, const HeapEntry& entry);
  void ActiveRemove(CqQueue& q, CqId cq, WorkloadId id);
  WorkloadId ActivePop(CqQueue& q, CqId cq);
  void ParkedInsert(CqQueue& q, CqId cq, const HeapEntry& entry);
  void ParkedRemove(CqQueue& q, WorkloadId id);
  // Kueue's handleInadmissibleHash: parks the bucket's active workloads.
  void ParkHash(CqQueue& q, CqId cq, int32_t bucket);
  // Moves the parked workloads of a bucket that pass the checks to its
  // active heap; returns how many moved.
  size_t Unpark(CqQueue& q, CqId cq, int32_t bucket, UnixMicros now);
  // The sticky preemptor changed: the workload `id` compares differently.
  void ReorderAfterStickyChange(CqQueue& q, CqId cq, WorkloadId id);

  // Keeps the set of ClusterQueues with a non-empty heap up to date.
  void NoteHeapSize(CqId cq);
  bool BackoffExpired(const cluster::WorkloadRecord& wl, UnixMicros now) const;

  cluster::ClusterState* state_;
  const policy::QueueOrderingPolicy* ordering_;
  const cluster::AdmissionFairSharing* afs_ = nullptr;
  std::vector<CqQueue> queues_;
  // By WorkloadId (a flat array: sifting touches no workload record).
  std::vector<Slot> slots_;
  std::vector<CqId> cqs_by_name_;
  std::vector<int32_t> name_rank_;  // by CqId: position in cqs_by_name_
  // Bit r set: the ClusterQueue of name rank r has a non-empty heap. Heads
  // visits only those (and the ones with a head in flight).
  std::vector<uint64_t> non_empty_;
  std::vector<CqId> inflight_cqs_;  // ClusterQueues given a head by the last Heads call
  int64_t heads_calls_ = 0;
  // Whether a ClusterQueue's namespaceSelector matches a namespace, by
  // (CqId << 32 | NamespaceId), for the pairs asked about. (Not a table by
  // ClusterQueue and namespace: with a namespace per ClusterQueue that
  // would grow with the square of their number.)
  mutable absl::flat_hash_map<uint64_t, bool> namespace_matches_;
};

}  // namespace kueuesim::queue

#endif  // KUEUESIM_QUEUE_QUEUE_MANAGER_H_
