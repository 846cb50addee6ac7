// Pending queues; see queue_manager.h.
#include "queue/queue_manager.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "base/heap_sift.h"
#include "kueuesim/base/status.h"
#include "kueuesim/model/selectors.h"

namespace kueuesim::queue {
namespace {
using cluster::kNone;
using cluster::QueueState;
}  // namespace

QueueManager::QueueManager(cluster::ClusterState* state, const policy::QueueOrderingPolicy* ordering)
    : state_(state), ordering_(ordering), queues_(static_cast<size_t>(state->num_cluster_queues())) {
  cqs_by_name_.resize(queues_.size());
  std::iota(cqs_by_name_.begin(), cqs_by_name_.end(), 0);
  std::sort(cqs_by_name_.begin(), cqs_by_name_.end(),
            [&](CqId a, CqId b) { return state_->cq(a).name < state_->cq(b).name; });
  name_rank_.resize(queues_.size());
  for (size_t r = 0; r < cqs_by_name_.size(); ++r) name_rank_[static_cast<size_t>(cqs_by_name_[r])] = static_cast<int32_t>(r);
  non_empty_.assign((queues_.size() + 63) / 64, 0);
}

void QueueManager::NoteHeapSize(CqId cq) {
  const auto rank = static_cast<size_t>(name_rank_[static_cast<size_t>(cq)]);
  const uint64_t bit = uint64_t{1} << (rank % 64);
  if (queues_[static_cast<size_t>(cq)].active_count == 0) {
    non_empty_[rank / 64] &= ~bit;
  } else {
    non_empty_[rank / 64] |= bit;
  }
}

QueueManager::Slot& QueueManager::SlotOf(WorkloadId id) {
  const auto index = static_cast<size_t>(id);
  if (index >= slots_.size()) slots_.resize(std::max(index + 1, slots_.size() * 2));
  return slots_[index];
}

QueueManager::HeapEntry QueueManager::EntryFor(CqId cq, WorkloadId id, UnixMicros now) const {
  const cluster::WorkloadRecord& wl = state_->workload(id);
  HeapEntry entry;
  entry.id = id;
  entry.scheduling_hash = wl.scheduling_hash;
  // A policy without a key leaves it zero: every key ties and Compare decides.
  ordering_->Key(wl, &entry.key);
  entry.needs_check = !NamespaceMatches(cq, wl) || !BackoffExpired(wl, now);
  return entry;
}

bool QueueManager::OrdersByUsage(CqId cq) const { return afs_ != nullptr && afs_->OrdersClusterQueue(cq); }

bool QueueManager::Less(const CqQueue& q, bool by_usage, const HeapEntry& a, const HeapEntry& b) const {
  const bool a_sticky = q.preemptor_sticky && q.preemptor == a.id;
  const bool b_sticky = q.preemptor_sticky && q.preemptor == b.id;
  if (a_sticky != b_sticky) return a_sticky;
  if (!by_usage && a.key != b.key) return a.key < b.key;
  const cluster::WorkloadRecord& wa = state_->workload(a.id);
  const cluster::WorkloadRecord& wb = state_->workload(b.id);
  if (by_usage) {
    const double ua = afs_->Usage(wa.lq);
    const double ub = afs_->Usage(wb.lq);
    if (ua != ub) return ua < ub;
    if (a.key != b.key) return a.key < b.key;
  }
  int c = ordering_->Compare(*state_, wa, wb);
  if (c != 0) return c < 0;
  if (wa.input_sequence != wb.input_sequence) return wa.input_sequence < wb.input_sequence;
  return wa.input_subsequence < wb.input_subsequence;
}

auto QueueManager::EntryOrder(const CqQueue& q, bool by_usage) const {
  return [this, &q, by_usage](const HeapEntry& a, const HeapEntry& b) { return Less(q, by_usage, a, b); };
}

auto QueueManager::EntryPlaced() {
  return [this](const HeapEntry& entry, size_t index) {
    slots_[static_cast<size_t>(entry.id)].position = static_cast<int32_t>(index);
  };
}

auto QueueManager::BucketOrder(const CqQueue& q, bool by_usage) const {
  return [this, &q, by_usage](int32_t a, int32_t b) { return BucketLess(q, by_usage, a, b); };
}

auto QueueManager::BucketPlaced(CqQueue& q) {
  return [&q](int32_t bucket, size_t rank) { q.buckets[static_cast<size_t>(bucket)].rank = static_cast<int32_t>(rank); };
}

// Go container/heap up() and down() on one side of a bucket; every entry
// moved records its position in its slot.
void QueueManager::EntryUp(CqQueue& q, bool by_usage, std::vector<HeapEntry>& heap, size_t j) {
  heap::SiftUp(heap, j, EntryOrder(q, by_usage), EntryPlaced());
}

void QueueManager::EntryDown(CqQueue& q, bool by_usage, std::vector<HeapEntry>& heap, size_t i0, size_t n) {
  heap::SiftDown(heap, i0, n, EntryOrder(q, by_usage), EntryPlaced());
}

// Go container/heap Fix(): heap[i] changed or was replaced.
void QueueManager::EntryFix(CqQueue& q, bool by_usage, std::vector<HeapEntry>& heap, size_t i, size_t n) {
  heap::Fix(heap, i, n, EntryOrder(q, by_usage), EntryPlaced());
}

// Go container/heap Init(): every position, then down from the middle.
void QueueManager::EntryHeapify(CqQueue& q, bool by_usage, std::vector<HeapEntry>& heap) {
  for (size_t i = 0; i < heap.size(); ++i) slots_[static_cast<size_t>(heap[i].id)].position = static_cast<int32_t>(i);
  const size_t n = heap.size();
  for (size_t i = n / 2; i-- > 0;) EntryDown(q, by_usage, heap, i, n);
}

bool QueueManager::BucketLess(const CqQueue& q, bool by_usage, int32_t a, int32_t b) const {
  return Less(q, by_usage, q.buckets[static_cast<size_t>(a)].active().front(),
              q.buckets[static_cast<size_t>(b)].active().front());
}

// The same on the heap of buckets, ordered by their heads; every bucket
// moved records its rank.
void QueueManager::OrderUp(CqQueue& q, bool by_usage, size_t j) {
  heap::SiftUp(q.order, j, BucketOrder(q, by_usage), BucketPlaced(q));
}

void QueueManager::OrderDown(CqQueue& q, bool by_usage, size_t i0, size_t n) {
  heap::SiftDown(q.order, i0, n, BucketOrder(q, by_usage), BucketPlaced(q));
}

void QueueManager::OrderFix(CqQueue& q, bool by_usage, size_t i, size_t n) {
  heap::Fix(q.order, i, n, BucketOrder(q, by_usage), BucketPlaced(q));
}

void QueueManager::OrderUpdate(CqQueue& q, CqId cq, int32_t bucket) {
  Bucket& b = q.buckets[static_cast<size_t>(bucket)];
  if (b.active().empty()) {
    if (b.rank >= 0) OrderRemove(q, cq, bucket);
    return;
  }
  const bool by_usage = OrdersByUsage(cq);
  if (b.rank < 0) {
    b.rank = static_cast<int32_t>(q.order.size());
    q.order.push_back(bucket);
    OrderUp(q, by_usage, q.order.size() - 1);
    return;
  }
  const auto rank = static_cast<size_t>(b.rank);
  OrderFix(q, by_usage, rank, q.order.size());
}

void QueueManager::OrderRemove(CqQueue& q, CqId cq, int32_t bucket) {
  Bucket& b = q.buckets[static_cast<size_t>(bucket)];
  const auto index = static_cast<size_t>(b.rank);
  const size_t n = q.order.size() - 1;
  if (index != n) {
    std::swap(q.order[index], q.order[n]);
    q.buckets[static_cast<size_t>(q.order[index])].rank = static_cast<int32_t>(index);
    const bool by_usage = OrdersByUsage(cq);
    OrderFix(q, by_usage, index, n);
  }
  q.order.pop_back();
  b.rank = -1;
}

int32_t QueueManager::BucketFor(CqQueue& q, uint64_t hash) {
  auto [it, inserted] = q.bucket_of_hash.try_emplace(hash, 0);
  if (!inserted) return it->second;
  int32_t index;
  if (!q.free_buckets.empty()) {
    index = q.free_buckets.back();
    q.free_buckets.pop_back();
  } else {
    index = static_cast<int32_t>(q.buckets.size());
    q.buckets.emplace_back();
  }
  it->second = index;
  Bucket& b = q.buckets[static_cast<size_t>(index)];
  b.hash = hash;
  b.active_side = 0;
  b.parked_is_heap = true;
  b.hash_parked = false;
  b.listed = false;
  b.rank = -1;
  b.needing_check = {0, 0};
  return index;
}

void QueueManager::MaybeFree(CqQueue& q, int32_t bucket) {
  Bucket& b = q.buckets[static_cast<size_t>(bucket)];
  if (!b.sides[0].empty() || !b.sides[1].empty() || b.hash_parked || b.listed || b.rank >= 0) return;
  q.bucket_of_hash.erase(b.hash);
  q.free_buckets.push_back(bucket);
}

void QueueManager::ListToUnpark(CqQueue& q, int32_t bucket) {
  Bucket& b = q.buckets[static_cast<size_t>(bucket)];
  if (b.listed) return;
  b.listed = true;
  q.to_unpark.push_back(bucket);
}

void QueueManager::ActivePush(CqQueue& q, CqId cq, const HeapEntry& entry) {
  SlotOf(entry.id);  // grows the slots before any reference into them
  const int32_t bucket = BucketFor(q, entry.scheduling_hash);
  Bucket& b = q.buckets[static_cast<size_t>(bucket)];
  std::vector<HeapEntry>& heap = b.active();
  slots_[static_cast<size_t>(entry.id)] = Slot{bucket, static_cast<int32_t>(heap.size()), b.active_side};
  heap.push_back(entry);
  b.needing_check[b.active_side] += entry.needs_check ? 1 : 0;
  EntryUp(q, OrdersByUsage(cq), heap, heap.size() - 1);
  if (b.rank < 0 || slots_[static_cast<size_t>(entry.id)].position == 0) OrderUpdate(q, cq, bucket);
  cluster::WorkloadRecord& wl = state_->workload(entry.id);
  wl.queue_state = QueueState::kQueued;
  wl.queued_cq = cq;
  ++q.active_count;
  NoteHeapSize(cq);
}

// Go container/heap Remove() on the workload's bucket.
void QueueManager::ActiveRemove(CqQueue& q, CqId cq, WorkloadId id) {
  const Slot slot = slots_[static_cast<size_t>(id)];
  Bucket& b = q.buckets[static_cast<size_t>(slot.bucket)];
  std::vector<HeapEntry>& heap = b.active();
  const auto index = static_cast<size_t>(slot.position);
  const size_t n = heap.size() - 1;
  if (n != index) {
    std::swap(heap[index], heap[n]);
    slots_[static_cast<size_t>(heap[index].id)].position = static_cast<int32_t>(index);
    const bool by_usage = OrdersByUsage(cq);
    EntryFix(q, by_usage, heap, index, n);
  }
  b.needing_check[b.active_side] -= heap.back().needs_check ? 1 : 0;
  heap.pop_back();
  slots_[static_cast<size_t>(id)] = Slot{};
  state_->workload(id).queue_state = QueueState::kNotQueued;
  --q.active_count;
  OrderUpdate(q, cq, slot.bucket);
  NoteHeapSize(cq);
  MaybeFree(q, slot.bucket);
}

WorkloadId QueueManager::ActivePop(CqQueue& q, CqId cq) {
  const WorkloadId id = q.buckets[static_cast<size_t>(q.order.front())].active().front().id;
  ActiveRemove(q, cq, id);
  return id;
}

void QueueManager::ParkedInsert(CqQueue& q, CqId cq, const HeapEntry& entry) {
  SlotOf(entry.id);
  const int32_t bucket = BucketFor(q, entry.scheduling_hash);
  Bucket& b = q.buckets[static_cast<size_t>(bucket)];
  const uint8_t side = b.active_side ^ 1;
  std::vector<HeapEntry>& parked = b.sides[side];
  if (parked.empty()) b.parked_is_heap = !OrdersByUsage(cq);
  slots_[static_cast<size_t>(entry.id)] = Slot{bucket, static_cast<int32_t>(parked.size()), side};
  parked.push_back(entry);
  b.needing_check[side] += entry.needs_check ? 1 : 0;
  if (b.parked_is_heap) EntryUp(q, /*by_usage=*/false, parked, parked.size() - 1);
  ListToUnpark(q, bucket);
  cluster::WorkloadRecord& wl = state_->workload(entry.id);
  wl.queue_state = QueueState::kQueued;
  wl.queued_cq = cq;
  ++q.parked_count;
}

void QueueManager::ParkedRemove(CqQueue& q, WorkloadId id) {
  const Slot slot = slots_[static_cast<size_t>(id)];
  Bucket& b = q.buckets[static_cast<size_t>(slot.bucket)];
  std::vector<HeapEntry>& parked = b.sides[slot.side];
  const auto index = static_cast<size_t>(slot.position);
  const size_t n = parked.size() - 1;
  if (n != index) {
    std::swap(parked[index], parked[n]);
    slots_[static_cast<size_t>(parked[index].id)].position = static_cast<int32_t>(index);
    if (b.parked_is_heap) EntryFix(q, false, parked, index, n);
  }
  b.needing_check[slot.side] -= parked.back().needs_check ? 1 : 0;
  parked.pop_back();
  slots_[static_cast<size_t>(id)] = Slot{};
  state_->workload(id).queue_state = QueueState::kNotQueued;
  --q.parked_count;
  MaybeFree(q, slot.bucket);
}

void QueueManager::ParkHash(CqQueue& q, CqId cq, int32_t bucket) {
  Bucket& b = q.buckets[static_cast<size_t>(bucket)];
  b.hash_parked = true;
  ListToUnpark(q, bucket);
  const size_t count = b.active().size();
  if (count == 0) return;
  OrderRemove(q, cq, bucket);
  const uint8_t parked_side = b.active_side ^ 1;
  std::vector<HeapEntry>& parked = b.sides[parked_side];
  if (parked.empty()) {
    // The active heap becomes the parked side as it is.
    b.active_side = parked_side;
    b.parked_is_heap = !OrdersByUsage(cq);
  } else {
    std::vector<HeapEntry>& active = b.active();
    for (const HeapEntry& entry : active) {
      slots_[static_cast<size_t>(entry.id)] = Slot{bucket, static_cast<int32_t>(parked.size()), parked_side};
      parked.push_back(entry);
    }
    b.needing_check[parked_side] += b.needing_check[b.active_side];
    b.needing_check[b.active_side] = 0;
    active.clear();
    b.parked_is_heap = false;
  }
  q.active_count -= count;
  q.parked_count += count;
  NoteHeapSize(cq);
}

size_t QueueManager::Unpark(CqQueue& q, CqId cq, int32_t bucket, UnixMicros now) {
  Bucket& b = q.buckets[static_cast<size_t>(bucket)];
  b.hash_parked = false;
  const uint8_t parked_side = b.active_side ^ 1;
  std::vector<HeapEntry>& parked = b.sides[parked_side];
  if (parked.empty()) return 0;
  const bool by_usage = OrdersByUsage(cq);
  std::vector<HeapEntry>& active = b.active();
  const size_t old_size = active.size();
  size_t moved;
  if (b.needing_check[parked_side] == 0 && active.empty()) {
    // Every parked workload goes back: the parked side becomes the heap.
    moved = parked.size();
    const bool was_heap = b.parked_is_heap;
    b.active_side = parked_side;
    b.parked_is_heap = true;
    if (!was_heap) EntryHeapify(q, by_usage, b.active());
  } else {
    size_t kept = 0;
    for (size_t i = 0; i < parked.size(); ++i) {
      HeapEntry entry = parked[i];
      if (entry.needs_check) {
        const cluster::WorkloadRecord& wl = state_->workload(entry.id);
        if (!NamespaceMatches(cq, wl) || !BackoffExpired(wl, now)) {
          slots_[static_cast<size_t>(entry.id)].position = static_cast<int32_t>(kept);
          parked[kept++] = entry;
          continue;
        }
        // Both only change back through AddOrUpdate, which makes a new entry.
        entry.needs_check = false;
        --b.needing_check[parked_side];
      }
      slots_[static_cast<size_t>(entry.id)] = Slot{bucket, static_cast<int32_t>(active.size()), b.active_side};
      active.push_back(entry);
    }
    parked.resize(kept);
    b.parked_is_heap = kept == 0 && !by_usage;
    moved = active.size() - old_size;
    // The order is total, so the order in which workloads join the heap
    // does not change what pops first: many joining at once are heapified.
    if (moved > old_size / 4) {
      EntryHeapify(q, by_usage, active);
    } else {
      for (size_t i = old_size; i < active.size(); ++i) EntryUp(q, by_usage, active, i);
    }
  }
  q.active_count += moved;
  q.parked_count -= moved;
  if (moved > 0) OrderUpdate(q, cq, bucket);
  return moved;
}

void QueueManager::ReorderAfterStickyChange(CqQueue& q, CqId cq, WorkloadId id) {
  const cluster::WorkloadRecord& wl = state_->workload(id);
  if (wl.queued_cq != cq || wl.queue_state != QueueState::kQueued) return;
  const Slot slot = slots_[static_cast<size_t>(id)];
  Bucket& b = q.buckets[static_cast<size_t>(slot.bucket)];
  if (slot.side != b.active_side) {
    b.parked_is_heap = false;
    return;
  }
  const bool by_usage = OrdersByUsage(cq);
  std::vector<HeapEntry>& heap = b.active();
  const auto index = static_cast<size_t>(slot.position);
  EntryFix(q, by_usage, heap, index, heap.size());
  OrderUpdate(q, cq, slot.bucket);
}

bool QueueManager::BackoffExpired(const cluster::WorkloadRecord& wl, UnixMicros now) const {
  if (wl.requeued_condition_false) return false;
  if (!wl.requeue_at.has_value()) return true;
  return now >= *wl.requeue_at;
}

bool QueueManager::NamespaceMatches(CqId cq, const cluster::WorkloadRecord& wl) const {
  // Namespaces and their labels are fixed once the cluster is built (a
  // namespace first named by a workload later never exists), and so are
  // the selectors: the answer per ClusterQueue and namespace is computed once.
  const uint64_t key = (uint64_t{static_cast<uint32_t>(cq)} << 32) | static_cast<uint32_t>(wl.ns);
  auto [it, inserted] = namespace_matches_.try_emplace(key, false);
  if (inserted) {
    const auto& ns = state_->namespace_info(wl.ns);
    it->second = ns.exists && model::MatchesLabelSelector(state_->cq(cq).spec->namespace_selector, ns.labels);
  }
  return it->second;
}

Placement QueueManager::PlacementOf(WorkloadId id) const {
  const cluster::WorkloadRecord& wl = state_->workload(id);
  switch (wl.queue_state) {
    case QueueState::kNotQueued:
      return Placement::kNotQueued;
    case QueueState::kInflight:
      return Placement::kInflight;
    case QueueState::kQueued:
      break;
  }
  const Slot& slot = slots_[static_cast<size_t>(id)];
  const Bucket& b = queues_[static_cast<size_t>(wl.queued_cq)].buckets[static_cast<size_t>(slot.bucket)];
  return slot.side == b.active_side ? Placement::kActive : Placement::kParked;
}

bool QueueManager::AddOrUpdate(WorkloadId id, UnixMicros now, bool reevaluate) {
  cluster::WorkloadRecord& wl = state_->workload(id);
  CqId cq = state_->ClusterQueueOf(wl);
  if (cq == kNone) return false;
  // Refused by the workload controller (DRA): never queued, whatever path
  // (e.g. an opened preemption gate) asks.
  if (!wl.rare->inadmissible_reason.empty()) return false;
  // A workload filed in another ClusterQueue (its LocalQueue changed) moves.
  if (wl.queued_cq != kNone && wl.queued_cq != cq) Delete(id);
  CqQueue& q = queues_[static_cast<size_t>(cq)];
  Placement placement = PlacementOf(id);
  if (placement == Placement::kInflight) return true;
  if (placement == Placement::kParked) {
    if (!reevaluate) {
      // Updated in place: it stays parked, with a fresh entry.
      const HeapEntry entry = EntryFor(cq, id, now);
      const Slot slot = slots_[static_cast<size_t>(id)];
      Bucket& b = q.buckets[static_cast<size_t>(slot.bucket)];
      HeapEntry& stored = b.sides[slot.side][static_cast<size_t>(slot.position)];
      if (stored.scheduling_hash == entry.scheduling_hash && stored.key == entry.key) {
        b.needing_check[slot.side] += (entry.needs_check ? 1 : 0) - (stored.needs_check ? 1 : 0);
        stored.needs_check = entry.needs_check;
      } else {
        ParkedRemove(q, id);
        ParkedInsert(q, cq, entry);
      }
      return true;
    }
    ParkedRemove(q, id);
    placement = Placement::kNotQueued;
  }
  const bool in_active = placement == Placement::kActive;
  if (!in_active && !BackoffExpired(wl, now)) {
    ParkedInsert(q, cq, EntryFor(cq, id, now));
    return true;
  }
  if (state_->cq(cq).spec->queueing_strategy == model::QueueingStrategy::kBestEffortFIFO && !in_active) {
    auto it = q.bucket_of_hash.find(wl.scheduling_hash);
    if (it != q.bucket_of_hash.end() && q.buckets[static_cast<size_t>(it->second)].hash_parked) {
      ParkedInsert(q, cq, EntryFor(cq, id, now));
      return true;
    }
  }
  const HeapEntry entry = EntryFor(cq, id, now);
  if (in_active) {
    // Its priority, timestamp or hash may have changed: a fresh entry.
    const Slot slot = slots_[static_cast<size_t>(id)];
    Bucket& b = q.buckets[static_cast<size_t>(slot.bucket)];
    if (b.hash == entry.scheduling_hash) {
      std::vector<HeapEntry>& heap = b.active();
      const auto index = static_cast<size_t>(slot.position);
      b.needing_check[b.active_side] += (entry.needs_check ? 1 : 0) - (heap[index].needs_check ? 1 : 0);
      heap[index] = entry;
      const bool by_usage = OrdersByUsage(cq);
      EntryFix(q, by_usage, heap, index, heap.size());
      OrderUpdate(q, cq, slot.bucket);
      return true;
    }
    ActiveRemove(q, cq, id);
  }
  ActivePush(q, cq, entry);
  return true;
}

void QueueManager::Delete(WorkloadId id) {
  cluster::WorkloadRecord& wl = state_->workload(id);
  CqId cq = wl.queued_cq;
  if (cq == kNone) return;
  CqQueue& q = queues_[static_cast<size_t>(cq)];
  switch (PlacementOf(id)) {
    case Placement::kActive:
      ActiveRemove(q, cq, id);
      break;
    case Placement::kParked:
      ParkedRemove(q, id);
      break;
    case Placement::kInflight:
      q.inflight = kNone;
      wl.queue_state = QueueState::kNotQueued;
      break;
    case Placement::kNotQueued:
      break;
  }
  if (q.preemptor == id) {
    q.preemptor = kNone;
    q.preemptor_sticky = false;
  }
  wl.queued_cq = kNone;
}

std::vector<Head> QueueManager::Heads() {
  ++heads_calls_;
  // Kueue pops every active ClusterQueue, clearing the in-flight head of
  // those with an empty heap; only the ones that had a head can have one.
  for (CqId cq : inflight_cqs_) {
    CqQueue& q = queues_[static_cast<size_t>(cq)];
    if (q.active_count == 0 && state_->cq(cq).active) q.inflight = kNone;
  }
  inflight_cqs_.clear();
  std::vector<Head> heads;
  for (size_t word = 0; word < non_empty_.size(); ++word) {
    uint64_t bits = non_empty_[word];
    while (bits != 0) {
      const size_t rank = word * 64 + static_cast<size_t>(__builtin_ctzll(bits));
      bits &= bits - 1;
      const CqId cq = cqs_by_name_[rank];
      if (!state_->cq(cq).active) continue;
      CqQueue& q = queues_[static_cast<size_t>(cq)];
      // Entry penalties change LocalQueue usage: re-sort before the pop.
      if (afs_ != nullptr && afs_->OrdersClusterQueue(cq) && afs_->HasPendingPenalty(cq)) RebuildHeap(cq);
      WorkloadId id = ActivePop(q, cq);
      cluster::WorkloadRecord& wl = state_->workload(id);
      wl.queue_state = QueueState::kInflight;
      q.inflight = id;
      inflight_cqs_.push_back(cq);
      heads.push_back({id, cq, q.preemptor == id});
    }
  }
  return heads;
}

bool QueueManager::Requeue(WorkloadId id, RequeueReason reason, UnixMicros now) {
  cluster::WorkloadRecord& wl = state_->workload(id);
  CqId cq = state_->ClusterQueueOf(wl);
  if (cq == kNone || wl.phase != cluster::WorkloadPhase::kPending) return false;
  if (wl.queued_cq != kNone && wl.queued_cq != cq) Delete(id);
  CqQueue& q = queues_[static_cast<size_t>(cq)];
  wl.queued_cq = cq;
  const bool strict = state_->cq(cq).spec->queueing_strategy == model::QueueingStrategy::kStrictFIFO;
  bool immediate;
  if (strict) {
    immediate = reason != RequeueReason::kNamespaceMismatch;
  } else {
    immediate = reason == RequeueReason::kFailedAfterNomination ||
                reason == RequeueReason::kPendingPreemption ||
                reason == RequeueReason::kPendingMigration ||
                reason == RequeueReason::kPreemptionFailed;
  }
  if (reason == RequeueReason::kPendingPreemption || reason == RequeueReason::kPendingMigration) {
    const WorkloadId previous = q.preemptor;
    q.preemptor = id;
    q.preemptor_sticky = !strict;
    // A queued former preemptor is no longer first: its place is fixed so
    // that the order stays one total order.
    if (previous != kNone && previous != id) ReorderAfterStickyChange(q, cq, previous);
    ReorderAfterStickyChange(q, cq, id);
  }
  if (q.inflight == id) {
    q.inflight = kNone;
    if (wl.queue_state == QueueState::kInflight) wl.queue_state = QueueState::kNotQueued;
  }
  const Placement placement = PlacementOf(id);
  const bool pending_flavors = wl.last_assignment.has_value() && wl.last_assignment->PendingFlavors();
  if (BackoffExpired(wl, now) &&
      (immediate || q.queue_inadmissible_cycle >= heads_calls_ || pending_flavors)) {
    if (placement == Placement::kParked) {
      ParkedRemove(q, id);
    } else if (placement == Placement::kActive) {
      return false;  // already in the heap
    }
    ActivePush(q, cq, EntryFor(cq, id, now));
    return true;
  }
  if (placement == Placement::kParked || placement == Placement::kActive) return false;
  const HeapEntry entry = EntryFor(cq, id, now);
  if (state_->gates().scheduling_equivalence_hashing && !strict &&
      (reason == RequeueReason::kNoFit || reason == RequeueReason::kPreemptionNoCandidates)) {
    // Every queued workload with the same hash is parked too (Kueue parks
    // the head, then moves the others: the same set either way).
    ParkHash(q, cq, BucketFor(q, entry.scheduling_hash));
  }
  ParkedInsert(q, cq, entry);
  return true;
}

int QueueManager::QueueInadmissible(CqId cq, UnixMicros now) {
  CqQueue& q = queues_[static_cast<size_t>(cq)];
  q.queue_inadmissible_cycle = heads_calls_;
  size_t moved = 0;
  size_t still_listed = 0;
  for (size_t i = 0; i < q.to_unpark.size(); ++i) {
    const int32_t bucket = q.to_unpark[i];
    moved += Unpark(q, cq, bucket, now);
    Bucket& b = q.buckets[static_cast<size_t>(bucket)];
    if (!b.parked().empty()) {
      q.to_unpark[still_listed++] = bucket;
    } else {
      b.listed = false;
      MaybeFree(q, bucket);
    }
  }
  q.to_unpark.resize(still_listed);
  NoteHeapSize(cq);
  return static_cast<int>(moved);
}

void QueueManager::RebuildHeap(CqId cq) {
  CqQueue& q = queues_[static_cast<size_t>(cq)];
  const bool by_usage = OrdersByUsage(cq);
  for (Bucket& b : q.buckets) {
    if (!b.active().empty()) EntryHeapify(q, by_usage, b.active());
    b.parked_is_heap = b.parked().empty() && !by_usage;
  }
  for (size_t k = 0; k < q.order.size(); ++k) q.buckets[static_cast<size_t>(q.order[k])].rank = static_cast<int32_t>(k);
  const size_t n = q.order.size();
  for (size_t i = n / 2; i-- > 0;) OrderDown(q, by_usage, i, n);
}

bool QueueManager::AnyActive() const {
  for (size_t word = 0; word < non_empty_.size(); ++word) {
    uint64_t bits = non_empty_[word];
    while (bits != 0) {
      const size_t rank = word * 64 + static_cast<size_t>(__builtin_ctzll(bits));
      bits &= bits - 1;
      if (state_->cq(cqs_by_name_[rank]).active) return true;
    }
  }
  return false;
}

std::vector<WorkloadId> QueueManager::Pending(CqId cq) const {
  const CqQueue& q = queues_[static_cast<size_t>(cq)];
  std::vector<WorkloadId> out;
  out.reserve(q.active_count + q.parked_count + 1);
  for (const Bucket& b : q.buckets) {
    for (const auto& side : b.sides) {
      for (const HeapEntry& entry : side) out.push_back(entry.id);
    }
  }
  if (q.inflight != kNone) out.push_back(q.inflight);
  return out;
}

bool QueueManager::IsPreemptor(CqId cq, WorkloadId id) const {
  return queues_[static_cast<size_t>(cq)].preemptor == id;
}

}  // namespace kueuesim::queue
