// Changes to a running cluster's objects (kueuesim.io/v1alpha1 Change):
// quotas, stop policies and WorkloadPriorityClass values; see
// cluster_state.h.
#include <algorithm>

#include "kueuesim/cluster/cluster_state.h"

namespace kueuesim::cluster {

namespace {
constexpr const char* kStoppedReason = "is stopped";
constexpr const char* kWorkloadPriorityClassSource = "kueue.x-k8s.io/workloadpriorityclass";
constexpr const char* kPriorityClassLabel = "kueue.x-k8s.io/priority-class";
}  // namespace

NodeId ClusterState::FindCohortNode(std::string_view name) const {
  const quota::QuotaTree& tree = *tree_;
  for (NodeId n = 0; n < tree.num_nodes(); ++n) {
    if (!tree.is_cluster_queue(n) && tree.name(n) == name) return n;
  }
  return quota::kNoNode;
}

void ClusterState::UpdateQuota(NodeId node, FrId fr, const quota::FrQuota& quota) {
  tree_->UpdateQuota(node, fr, quota);
  // Every ClusterQueue of the tree may now fit more (or less).
  const NodeId root = tree_->Root(node);
  for (auto& cq : cqs_) {
    if (tree_->Root(cq.node) == root) ++cq.allocatable_generation;
  }
}

void ClusterState::SetClusterQueueStopped(CqId id, bool stopped) {
  ClusterQueueInfo& cq = cqs_[static_cast<size_t>(id)];
  if (cq.stopped == stopped) return;
  cq.stopped = stopped;
  // The inactive reason lists "is stopped" first when it applies.
  std::string other = cq.inactive_reason;
  if (other.rfind(kStoppedReason, 0) == 0) {
    other.erase(0, std::string_view(kStoppedReason).size());
    if (other.rfind(", ", 0) == 0) other.erase(0, 2);
  }
  cq.inactive_reason = stopped ? (other.empty() ? std::string(kStoppedReason) : kStoppedReason + (", " + other))
                               : other;
  cq.active = cq.inactive_reason.empty();
}

void ClusterState::SetWorkloadPriorityClassValue(const std::string& name, int32_t value) {
  workload_priority_classes_[name] = value;
}

bool ClusterState::UsesWorkloadPriorityClass(const WorkloadRecord& wl, const std::string& name) const {
  const model::Workload& spec = *wl.spec;
  // A job integration's own PriorityClass (Kubeflow's run policy) ranks
  // after the WorkloadPriorityClass label and its default, as below.
  const bool job_priority_class = spec.source_kind != model::WorkloadSourceKind::kWorkload &&
                                  spec.rare->priority_class_source != kWorkloadPriorityClassSource;
  if (!spec.priority_class_name.empty() && !job_priority_class) {
    return spec.rare->priority_class_source == kWorkloadPriorityClassSource && spec.priority_class_name == name;
  }
  if (spec.source_kind == model::WorkloadSourceKind::kWorkload) return false;
  auto it = spec.meta.labels.find(kPriorityClassLabel);
  if (it != spec.meta.labels.end()) return it->second == name;
  // The webhook labelled it with the default class when one existed.
  return name == "default" && gates_.workload_priority_class_defaulting &&
         workload_priority_classes_.count("default") > 0;
}

void ClusterState::UpdatePriority(WorkloadId id, int32_t priority) {
  WorkloadRecord& wl = workloads_[static_cast<size_t>(id)];
  if (wl.priority == priority) return;
  wl.priority = priority;
  // The equivalence hash starts from the priority; mixing the new one in
  // keeps it from matching workloads of the old priority. (It will not
  // match fresh workloads of the new priority either: a missed bulk move,
  // never a wrong one.)
  uint64_t x = wl.scheduling_hash ^ (0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(static_cast<uint32_t>(priority)));
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 29;
  wl.scheduling_hash = x == 0 ? 1 : x;
}

}  // namespace kueuesim::cluster
