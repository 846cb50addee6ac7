// Kueue's queue ordering (pkg/cache/queue/cluster_queue.go baseCompareFunc,
// after the sticky preemptor and admission fair sharing, which the queue
// manager applies).
#include "kueuesim/policy/queue_ordering.h"

namespace kueuesim::policy {
namespace {

class KueueQueueOrdering : public QueueOrderingPolicy {
 public:
  std::string_view Name() const override { return "kueue"; }
  int Compare(const cluster::ClusterState& /*state*/, const cluster::WorkloadRecord& a,
              const cluster::WorkloadRecord& b) const override {
    if (a.priority != b.priority) return a.priority > b.priority ? -1 : 1;
    if (a.queue_order_timestamp != b.queue_order_timestamp) {
      return a.queue_order_timestamp < b.queue_order_timestamp ? -1 : 1;
    }
    const std::string& ua = a.spec->meta.uid();
    const std::string& ub = b.spec->meta.uid();
    if (ua != ub) return ua < ub ? -1 : 1;
    return 0;
  }
  // Higher priority first, then the earlier timestamp; the UID decides
  // between equal keys.
  bool Key(const cluster::WorkloadRecord& workload, OrderKey* key) const override {
    key->primary = -static_cast<int64_t>(workload.priority);
    key->secondary = workload.queue_order_timestamp;
    return true;
  }
};

}  // namespace

std::unique_ptr<QueueOrderingPolicy> NewKueueQueueOrdering() { return std::make_unique<KueueQueueOrdering>(); }

}  // namespace kueuesim::policy
