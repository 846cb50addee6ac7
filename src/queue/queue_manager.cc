// Pending queues; see queue_manager.h.
#include "queue/queue_manager.h"

#include <algorithm>
#include <numeric>

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
  namespace_matches_.resize(queues_.size());
}

void QueueManager::NoteHeapSize(CqId cq) {
  const auto rank = static_cast<size_t>(name_rank_[static_cast<size_t>(cq)]);
  const uint64_t bit = uint64_t{1} << (rank % 64);
  if (queues_[static_cast<size_t>(cq)].heap.empty()) {
    non_empty_[rank / 64] &= ~bit;
  } else {
    non_empty_[rank / 64] |= bit;
  }
}

int32_t& QueueManager::PositionOf(WorkloadId id) {
  const auto index = static_cast<size_t>(id);
  if (index >= positions_.size()) positions_.resize(std::max(index + 1, positions_.size() * 2), kNone);
  return positions_[index];
}

QueueManager::HeapEntry QueueManager::EntryFor(WorkloadId id) const {
  const cluster::WorkloadRecord& wl = state_->workload(id);
  HeapEntry entry;
  entry.id = id;
  entry.scheduling_hash = wl.scheduling_hash;
  // A policy without a key leaves it zero: every key ties and Compare decides.
  ordering_->Key(wl, &entry.key);
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

void QueueManager::Swap(CqQueue& q, size_t i, size_t j) {
  std::swap(q.heap[i], q.heap[j]);
  positions_[static_cast<size_t>(q.heap[i].id)] = static_cast<int32_t>(i);
  positions_[static_cast<size_t>(q.heap[j].id)] = static_cast<int32_t>(j);
}

// Go container/heap up().
void QueueManager::Up(CqQueue& q, CqId cq, size_t j) {
  const bool by_usage = OrdersByUsage(cq);
  while (j > 0) {
    size_t i = (j - 1) / 2;
    if (!Less(q, by_usage, q.heap[j], q.heap[i])) break;
    Swap(q, i, j);
    j = i;
  }
}

// Go container/heap down().
bool QueueManager::Down(CqQueue& q, CqId cq, size_t i0, size_t n) {
  const bool by_usage = OrdersByUsage(cq);
  size_t i = i0;
  while (true) {
    size_t j1 = 2 * i + 1;
    if (j1 >= n) break;
    size_t j = j1;
    size_t j2 = j1 + 1;
    if (j2 < n && Less(q, by_usage, q.heap[j2], q.heap[j1])) j = j2;
    if (!Less(q, by_usage, q.heap[j], q.heap[i])) break;
    Swap(q, i, j);
    i = j;
  }
  return i > i0;
}

void QueueManager::HeapPush(CqQueue& q, CqId cq, WorkloadId id) {
  cluster::WorkloadRecord& wl = state_->workload(id);
  wl.queue_state = QueueState::kActive;
  wl.queued_cq = cq;
  PositionOf(id) = static_cast<int32_t>(q.heap.size());
  q.heap.push_back(EntryFor(id));
  Up(q, cq, q.heap.size() - 1);
  NoteHeapSize(cq);
}

WorkloadId QueueManager::HeapPop(CqQueue& q, CqId cq) {
  size_t n = q.heap.size() - 1;
  Swap(q, 0, n);
  Down(q, cq, 0, n);
  WorkloadId id = q.heap.back().id;
  q.heap.pop_back();
  NoteHeapSize(cq);
  state_->workload(id).queue_state = QueueState::kNotQueued;
  positions_[static_cast<size_t>(id)] = kNone;
  return id;
}

void QueueManager::HeapRemove(CqQueue& q, CqId cq, size_t index) {
  size_t n = q.heap.size() - 1;
  if (n != index) {
    Swap(q, index, n);
    if (!Down(q, cq, index, n)) Up(q, cq, index);
  }
  WorkloadId id = q.heap.back().id;
  q.heap.pop_back();
  NoteHeapSize(cq);
  state_->workload(id).queue_state = QueueState::kNotQueued;
  positions_[static_cast<size_t>(id)] = kNone;
}

void QueueManager::HeapFix(CqQueue& q, CqId cq, size_t index) {
  if (!Down(q, cq, index, q.heap.size())) Up(q, cq, index);
}

void QueueManager::ParkedInsert(CqQueue& q, WorkloadId id) {
  cluster::WorkloadRecord& wl = state_->workload(id);
  wl.queue_state = QueueState::kInadmissible;
  PositionOf(id) = static_cast<int32_t>(q.parked.size());
  q.parked.push_back(id);
}

void QueueManager::ParkedRemove(CqQueue& q, WorkloadId id) {
  const auto index = static_cast<size_t>(positions_[static_cast<size_t>(id)]);
  WorkloadId last = q.parked.back();
  q.parked[index] = last;
  positions_[static_cast<size_t>(last)] = static_cast<int32_t>(index);
  q.parked.pop_back();
  state_->workload(id).queue_state = QueueState::kNotQueued;
  positions_[static_cast<size_t>(id)] = kNone;
}

bool QueueManager::MoveToActive(CqQueue& q, CqId cq, WorkloadId id) {
  ParkedRemove(q, id);
  HeapPush(q, cq, id);
  return true;
}

bool QueueManager::PushActiveIfNotPresent(CqQueue& q, CqId cq, WorkloadId id) {
  const cluster::WorkloadRecord& wl = state_->workload(id);
  if (q.inflight == id && wl.queue_state == QueueState::kInflight) return false;
  if (wl.queue_state == QueueState::kInadmissible || wl.queue_state == QueueState::kActive) return false;
  HeapPush(q, cq, id);
  return true;
}

bool QueueManager::BackoffExpired(const cluster::WorkloadRecord& wl, UnixMicros now) const {
  if (wl.requeued_condition_false) return false;
  if (!wl.requeue_at.has_value()) return true;
  return now >= *wl.requeue_at;
}

bool QueueManager::NamespaceMatches(CqId cq, const cluster::WorkloadRecord& wl) const {
  // Namespaces and their labels are fixed once the cluster is built (a
  // namespace first named by a workload later never exists), so the answer
  // per ClusterQueue and namespace is computed once.
  std::vector<int8_t>& known = namespace_matches_[static_cast<size_t>(cq)];
  const auto index = static_cast<size_t>(wl.ns);
  if (index >= known.size()) known.resize(index + 1, -1);
  if (known[index] < 0) {
    const auto& ns = state_->namespace_info(wl.ns);
    known[index] = ns.exists && model::MatchesLabelSelector(state_->cq(cq).spec->namespace_selector, ns.labels);
  }
  return known[index] != 0;
}

bool QueueManager::AddOrUpdate(WorkloadId id, UnixMicros now, bool reevaluate) {
  cluster::WorkloadRecord& wl = state_->workload(id);
  CqId cq = state_->ClusterQueueOf(wl);
  if (cq == kNone) return false;
  // Refused by the workload controller (DRA): never queued, whatever path
  // (e.g. an opened preemption gate) asks.
  if (!wl.inadmissible_reason.empty()) return false;
  // A workload filed in another ClusterQueue (its LocalQueue changed) moves.
  if (wl.queued_cq != kNone && wl.queued_cq != cq) Delete(id);
  CqQueue& q = queues_[static_cast<size_t>(cq)];
  if (wl.queue_state == QueueState::kInflight) return true;
  if (wl.queue_state == QueueState::kInadmissible) {
    if (!reevaluate) return true;
    ParkedRemove(q, id);
  }
  const bool in_active = wl.queue_state == QueueState::kActive;
  if (!in_active && !BackoffExpired(wl, now)) {
    ParkedInsert(q, id);
    wl.queued_cq = cq;
    return true;
  }
  if (state_->cq(cq).spec->queueing_strategy == model::QueueingStrategy::kBestEffortFIFO &&
      !in_active && q.bulk_moved_hashes.count(wl.scheduling_hash) > 0) {
    ParkedInsert(q, id);
    wl.queued_cq = cq;
    return true;
  }
  if (in_active) {
    // Its priority, timestamp or hash may have changed: a fresh entry.
    const auto index = static_cast<size_t>(positions_[static_cast<size_t>(id)]);
    q.heap[index] = EntryFor(id);
    HeapFix(q, cq, index);
  } else {
    HeapPush(q, cq, id);
  }
  return true;
}

void QueueManager::Delete(WorkloadId id) {
  cluster::WorkloadRecord& wl = state_->workload(id);
  CqId cq = wl.queued_cq;
  if (cq == kNone) return;
  CqQueue& q = queues_[static_cast<size_t>(cq)];
  switch (wl.queue_state) {
    case QueueState::kActive:
      HeapRemove(q, cq, static_cast<size_t>(positions_[static_cast<size_t>(id)]));
      break;
    case QueueState::kInadmissible:
      ParkedRemove(q, id);
      break;
    case QueueState::kInflight:
      q.inflight = kNone;
      wl.queue_state = QueueState::kNotQueued;
      break;
    case QueueState::kNotQueued:
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
    if (q.heap.empty() && state_->cq(cq).active) q.inflight = kNone;
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
      WorkloadId id = HeapPop(q, cq);
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
    q.preemptor = id;
    q.preemptor_sticky = !strict;
  }
  if (q.inflight == id) {
    q.inflight = kNone;
    if (wl.queue_state == QueueState::kInflight) wl.queue_state = QueueState::kNotQueued;
  }
  const bool parked = wl.queue_state == QueueState::kInadmissible;
  const bool pending_flavors = wl.last_assignment.has_value() && wl.last_assignment->PendingFlavors();
  if (BackoffExpired(wl, now) &&
      (immediate || q.queue_inadmissible_cycle >= heads_calls_ || pending_flavors)) {
    if (parked) return MoveToActive(q, cq, id);
    return PushActiveIfNotPresent(q, cq, id);
  }
  if (parked) return false;
  if (wl.queue_state == QueueState::kActive) return false;
  ParkedInsert(q, id);
  if (state_->gates().scheduling_equivalence_hashing && !strict &&
      (reason == RequeueReason::kNoFit || reason == RequeueReason::kPreemptionNoCandidates)) {
    q.bulk_moved_hashes.insert(wl.scheduling_hash);
    // Every queued workload with the same hash is parked too: one pass that
    // keeps the others, then one heapify (O(n), not a removal per workload).
    size_t kept = 0;
    for (const HeapEntry& other : q.heap) {
      if (other.scheduling_hash == wl.scheduling_hash) {
        ParkedInsert(q, other.id);
      } else {
        q.heap[kept++] = other;
      }
    }
    if (kept != q.heap.size()) {
      q.heap.resize(kept);
      Heapify(q, cq);
      NoteHeapSize(cq);
    }
  }
  return true;
}

void QueueManager::Heapify(CqQueue& q, CqId cq) {
  for (size_t i = 0; i < q.heap.size(); ++i) positions_[static_cast<size_t>(q.heap[i].id)] = static_cast<int32_t>(i);
  const size_t n = q.heap.size();
  for (size_t i = n / 2; i-- > 0;) Down(q, cq, i, n);
}

int QueueManager::QueueInadmissible(CqId cq, UnixMicros now) {
  CqQueue& q = queues_[static_cast<size_t>(cq)];
  q.queue_inadmissible_cycle = heads_calls_;
  q.bulk_moved_hashes.clear();
  if (q.parked.empty()) return 0;
  // The heap's order is total (ties end on the input sequence), so the
  // order in which parked workloads join it does not change what pops
  // first. Many joining at once are heapified together.
  const size_t old_size = q.heap.size();
  size_t still_parked = 0;
  for (WorkloadId id : q.parked) {
    cluster::WorkloadRecord& wl = state_->workload(id);
    if (!NamespaceMatches(cq, wl) || !BackoffExpired(wl, now)) {
      positions_[static_cast<size_t>(id)] = static_cast<int32_t>(still_parked);
      q.parked[still_parked++] = id;
      continue;
    }
    wl.queue_state = QueueState::kActive;
    wl.queued_cq = cq;
    q.heap.push_back(EntryFor(id));
  }
  q.parked.resize(still_parked);
  const size_t moved = q.heap.size() - old_size;
  NoteHeapSize(cq);
  if (moved > old_size / 4) {
    Heapify(q, cq);
  } else {
    for (size_t i = old_size; i < q.heap.size(); ++i) {
      positions_[static_cast<size_t>(q.heap[i].id)] = static_cast<int32_t>(i);
      Up(q, cq, i);
    }
  }
  return static_cast<int>(moved);
}

void QueueManager::RebuildHeap(CqId cq) { Heapify(queues_[static_cast<size_t>(cq)], cq); }

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
  out.reserve(q.heap.size() + q.parked.size() + 1);
  for (const HeapEntry& entry : q.heap) out.push_back(entry.id);
  out.insert(out.end(), q.parked.begin(), q.parked.end());
  if (q.inflight != kNone) out.push_back(q.inflight);
  return out;
}

bool QueueManager::IsPreemptor(CqId cq, WorkloadId id) const {
  return queues_[static_cast<size_t>(cq)].preemptor == id;
}

}  // namespace kueuesim::queue
