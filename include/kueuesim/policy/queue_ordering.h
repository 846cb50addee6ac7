// Queue ordering policies: the order of the pending workloads of one
// ClusterQueue, i.e. which workload is the queue's head in the next cycle.
//
// Kueue's own order (the registered default "kueue") is: higher priority
// first, then the earlier queue-order timestamp, then the smaller UID
// (pkg/cache/queue/cluster_queue.go, queueOrderingFunc). Whatever the
// policy, the engine keeps Kueue's two outer rules: a BestEffortFIFO
// queue's sticky preemptor comes first, and admission fair sharing (when
// the queue uses it) orders by LocalQueue usage before the policy; ties the
// policy leaves are broken by input order.
#ifndef KUEUESIM_POLICY_QUEUE_ORDERING_H_
#define KUEUESIM_POLICY_QUEUE_ORDERING_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "kueuesim/cluster/cluster_state.h"

namespace kueuesim::policy {

// A prefix of a policy's order that fits in two integers, compared
// lexicographically (smaller first). The queue keeps it next to each queued
// workload, so most comparisons read neither workload record nor call the
// policy.
struct OrderKey {
  int64_t primary = 0;
  int64_t secondary = 0;
  friend bool operator==(const OrderKey&, const OrderKey&) = default;
  friend auto operator<=>(const OrderKey&, const OrderKey&) = default;
};

class QueueOrderingPolicy {
 public:
  virtual ~QueueOrderingPolicy() = default;
  virtual std::string_view Name() const = 0;
  // Negative when `a` goes before `b`, positive when after, 0 for a tie.
  // Must be a strict weak order and must not depend on anything that
  // changes while both workloads wait (the queue is a heap).
  virtual int Compare(const cluster::ClusterState& state, const cluster::WorkloadRecord& a,
                      const cluster::WorkloadRecord& b) const = 0;
  // Optional: a key such that Compare(a, b) < 0 whenever Key(a) < Key(b)
  // (and > 0 whenever greater); Compare decides only between equal keys.
  // A policy without such a key returns false and every comparison calls
  // Compare. The key is taken when a workload joins the queue and again
  // whenever its queue entry is updated.
  virtual bool Key(const cluster::WorkloadRecord& /*workload*/, OrderKey* /*key*/) const { return false; }
};

// Kueue's order: priority, queue-order timestamp, UID.
std::unique_ptr<QueueOrderingPolicy> NewKueueQueueOrdering();

}  // namespace kueuesim::policy

#endif  // KUEUESIM_POLICY_QUEUE_ORDERING_H_
