// Timed Node changes during a run (kueuesim.io/v1alpha1 Change with
// target.kind Node): nodes added, removed, NotReady or Ready again,
// cordoned or uncordoned. What Kueue (reference: v0.20 dev, default gates)
// does about them:
//
// - The TAS cache follows every change at once (TASCache.SyncNode /
//   DeleteNodeByName): the snapshots of the flavors the node belongs to
//   are rebuilt; NotReady and unschedulable nodes are left out of them.
// - The parked workloads of the ClusterQueues using those flavors are
//   requeued after the usual batching delay.
// - TASFailedNodeReplacement (pkg/controller/tas/node_controller.go): a
//   deleted node fails at once; a NotReady node fails once the pods placed
//   there have terminated (TASReplaceNodeOnPodTermination) — Kubernetes
//   evicts them after the not-ready toleration, the settings'
//   nodeFailureDelay (300 s). A failed node is recorded on each admitted
//   workload whose topology assignment uses it (status.unhealthyNodes); a
//   workload that already has a different unhealthy node is evicted with
//   reason NodeFailures. A node Ready again before that is forgotten.
// - The scheduler's second pass (findReplacementAssignment) then looks for
//   a replacement for the failed node's pods only; when none is found on
//   the first try (TASFailedNodeReplacementFailFast) the workload is
//   evicted with reason NodeFailures.
//
// kueuesim runs the second pass as its own step right after the node
// change events of that instant (Kueue runs it in the next scheduling
// cycle, normally within the same second). Pods keep running through a
// replacement (only the replaced pods move; PodsReady is not withdrawn).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/cluster/tas_cache.h"
#include "kueuesim/runtime/cluster_runtime.h"
#include "queue/queue_manager.h"

namespace kueuesim::runtime {

using cluster::WorkloadPhase;
using cluster::WorkloadRecord;

namespace {

absl::Status NodeChangeError(const model::Change& change, std::string_view field, const std::string& message) {
  return InvalidArgument(fmt::format("{}: Change \"{}\": {}: {}", change.source.ToString(), change.name, field, message));
}

bool AssignmentUsesNode(const model::TopologyAssignment& ta, const std::string& node) {
  return std::any_of(ta.domains.begin(), ta.domains.end(),
                     [&](const model::TopologyDomainAssignment& d) { return !d.values.empty() && d.values.back() == node; });
}

}  // namespace

absl::Status ClusterRuntime::ResolveNodeChanges(const scenario::ClusterSpec& spec) {
  // Replay the changes in time order (input order at equal times) to check
  // that each one names a node that exists (or, for Add, does not yet).
  std::vector<size_t> order;
  for (size_t i = 0; i < spec.changes.size(); ++i) {
    if (spec.changes[i].target_kind == "Node") order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return spec.changes[a].at < spec.changes[b].at; });
  std::set<std::string> nodes;
  if (!order.empty()) {
    for (const model::Node& node : spec.nodes) nodes.insert(node.name);
  }
  for (size_t i : order) {
    const model::Change& change = spec.changes[i];
    const bool exists = nodes.count(change.target_name) > 0;
    if (change.node_action == model::Change::NodeAction::kAdd) {
      if (exists) {
        return NodeChangeError(change, "spec.target.name",
                               fmt::format("node \"{}\" already exists at {}s", change.target_name,
                                           change.at / kSecond));
      }
      nodes.insert(change.target_name);
      continue;
    }
    if (!exists) {
      return NodeChangeError(change, "spec.target.name",
                             fmt::format("no node \"{}\" at {}s (not in the scenario, or removed earlier)",
                                         change.target_name, change.at / kSecond));
    }
    if (change.node_action == model::Change::NodeAction::kRemove) nodes.erase(change.target_name);
  }
  for (size_t i = 0; i < spec.changes.size(); ++i) {
    if (spec.changes[i].target_kind == "Node") node_changes_.push_back(spec.changes[i]);
  }
  return absl::OkStatus();
}

void ClusterRuntime::ApplyNodeChange(const model::Change& change) {
  {
    const std::string object = "Node/" + change.target_name;
    cluster::SimEvent event;
    event.type = EventType::kChanged;
    event.time = engine_->now();
    event.cycle = cycle();
    event.cluster = state_.get();
    event.object = object;
    event.reason = change.name;
    EmitEvent(event);
  }
  cluster::TasCache* tas = state_->tas();
  if (tas == nullptr) return;  // no TAS flavor: nothing reads nodes
  const std::string& name = change.target_name;
  bool failed = false;
  if (change.node_action == model::Change::NodeAction::kAdd) {
    tas->AddNode(*state_, *change.node);
    if (!change.node->ready) not_ready_since_[name] = engine_->now();
  } else if (change.node_action == model::Change::NodeAction::kRemove) {
    tas->RemoveNode(*state_, name);
    not_ready_since_.erase(name);
    failed = true;  // a deleted node fails at once
  } else {
    const model::Node* node = tas->FindNode(name);
    KUEUESIM_CHECK(node != nullptr);
    const bool was_ready = node->ready;
    tas->UpdateNode(*state_, name, change.node_ready, change.node_unschedulable);
    if (change.node_ready.has_value() && *change.node_ready != was_ready) {
      if (*change.node_ready) {
        // Ready again: the pods did not terminate, nothing failed
        // (handleHealthyNode; replacements are never pending here).
        not_ready_since_.erase(name);
      } else {
        not_ready_since_[name] = engine_->now();
        engine_->ScheduleAfter(node_failure_delay_, this, kNodeFailureTimer,
                               static_cast<int64_t>(&change - node_changes_.data()));
      }
    }
  }
  // Requeue the parked workloads of the ClusterQueues using the node's
  // flavors (after the batching delay, as for other triggers).
  const model::Node* node = change.node_action == model::Change::NodeAction::kAdd ? &*change.node : tas->FindNode(name);
  std::vector<cluster::FlavorId> flavors;
  if (node != nullptr) {
    flavors = tas->FlavorsOfNode(*node);
  } else {
    // Removed: every TAS flavor may have had it.
    for (cluster::FlavorId f = 0; f < state_->num_flavors(); ++f) {
      if (tas->IsTasFlavor(f)) flavors.push_back(f);
    }
  }
  for (CqId cq = 0; cq < state_->num_cluster_queues(); ++cq) {
    bool uses = false;
    for (const auto& group : state_->cq(cq).groups) {
      for (cluster::FlavorId f : group.flavors) {
        uses = uses || std::find(flavors.begin(), flavors.end(), f) != flavors.end();
      }
    }
    if (uses) NotifyRequeue(cq);
  }
  if (failed && state_->gates().tas_failed_node_replacement) HandleFailedNode(name);
}

void ClusterRuntime::OnNodeFailureTimer(int64_t change_index) {
  const model::Change& change = node_changes_[static_cast<size_t>(change_index)];
  auto it = not_ready_since_.find(change.target_name);
  // Still NotReady since that change: the pods have terminated.
  if (it == not_ready_since_.end() || it->second != change.at) return;
  if (state_->gates().tas_failed_node_replacement) HandleFailedNode(change.target_name);
}

void ClusterRuntime::HandleFailedNode(const std::string& node) {
  for (WorkloadId id = 0; id < state_->num_workloads(); ++id) {
    WorkloadRecord& wl = state_->workload(id);
    if (wl.spec == nullptr || wl.phase != WorkloadPhase::kAdmitted || wl.evicted || !wl.admission.has_value()) continue;
    bool on_node = false;
    for (const cluster::PodSetAdmission& ps : wl.admission->pod_sets) {
      on_node = on_node || (ps.topology_assignment.has_value() && AssignmentUsesNode(*ps.topology_assignment, node));
    }
    if (!on_node) continue;
    const std::vector<std::string>& unhealthy = wl.rare->unhealthy_nodes;
    if (std::find(unhealthy.begin(), unhealthy.end(), node) != unhealthy.end()) continue;
    if (!wl.rare->unhealthy_nodes.empty()) {
      // A second node failed before the first was replaced
      // (evictWorkloadIfNeeded).
      Evict(id, EvictionReason::kNodeFailures);
      continue;
    }
    wl.rare.Mutable().unhealthy_nodes.push_back(node);
    engine_->ScheduleAfter(0, this, kNodeReplacement, id, wl.run_generation);
  }
}

void ClusterRuntime::OnNodeReplacement(WorkloadId id, uint32_t generation) {
  WorkloadRecord& wl = state_->workload(id);
  if (generation != wl.run_generation || wl.evicted || !wl.admission.has_value() || wl.rare->unhealthy_nodes.empty()) {
    return;
  }
  cluster::TasCache* tas = state_->tas();
  const std::string failed = wl.rare->unhealthy_nodes.front();
  // The pod sets placed on the failed node, per TAS flavor in name order;
  // one assumed usage per flavor (shared by the hostname-level flavors).
  std::vector<std::pair<size_t, cluster::FlavorId>> targets;
  for (size_t i = 0; i < wl.admission->pod_sets.size() && i < wl.pod_sets.size(); ++i) {
    const cluster::PodSetAdmission& ps = wl.admission->pod_sets[i];
    if (!ps.topology_assignment.has_value() || !AssignmentUsesNode(*ps.topology_assignment, failed)) continue;
    cluster::FlavorId flavor = kNone;
    for (const auto& entry : ps.entries) {
      if (tas->IsTasFlavor(entry.flavor)) flavor = entry.flavor;
    }
    if (flavor != kNone) targets.emplace_back(i, flavor);
  }
  std::stable_sort(targets.begin(), targets.end(), [&](const auto& a, const auto& b) {
    return state_->flavor(a.second).name < state_->flavor(b.second).name;
  });
  std::map<cluster::FlavorId, std::map<std::string, topology::Requests>> assumed;
  std::map<std::string, topology::Requests> shared_hostname;
  std::vector<std::pair<size_t, model::TopologyAssignment>> results;
  std::string reason;
  for (const auto& [i, flavor] : targets) {
    const cluster::PodSetInfo& info = wl.pod_sets[i];
    const model::PodSet& spec = *info.spec;
    topology::PodSetPlacementRequest p;
    p.name = spec.name;
    p.count = wl.admission->pod_sets[i].count;
    p.single_pod_requests = info.tas_per_pod;
    if (spec.topology_request.has_value() && spec.topology_request->IsExplicit()) p.topology_request = spec.topology_request.ToOptional();
    p.node_selector = spec.rare->node_selector;
    p.required_affinity = spec.rare->required_affinity;
    for (const auto& term : spec.rare->preferred_affinity) {
      p.preferred_affinity.push_back({term.weight, term.preference});
    }
    p.tolerations = spec.rare->tolerations;
    const topology::TasFlavorSnapshot& snapshot = tas->Snapshot(flavor);
    const bool shared = state_->gates().tas_handle_overlapping_flavors && snapshot.IsLowestLevelHostname();
    topology::ReplacementOutcome outcome = snapshot.FindReplacement(
        p, *wl.admission->pod_sets[i].topology_assignment, failed, shared ? &shared_hostname : &assumed[flavor]);
    if (!outcome.failure_reason.empty()) {
      reason = std::move(outcome.failure_reason);
      break;
    }
    results.emplace_back(i, std::move(*outcome.assignment));
  }
  if (!reason.empty() || results.empty()) {
    if (state_->gates().tas_failed_node_replacement_fail_fast) Evict(id, EvictionReason::kNodeFailures);
    // Without FailFast Kueue keeps retrying in its second-pass queue;
    // kueuesim does not retry: the unhealthy node stays recorded (a later
    // failure of another of its nodes evicts it).
    return;
  }
  for (auto& [i, assignment] : results) wl.admission->pod_sets[i].topology_assignment = std::move(assignment);
  if (wl.rare.allocated()) wl.rare.Mutable().unhealthy_nodes.clear();
  tas->Reaccount(*state_, id);
  const std::string object = "Node/" + failed;
  cluster::SimEvent event;
  event.type = EventType::kChanged;
  event.time = engine_->now();
  event.cycle = cycle();
  event.cluster = state_.get();
  event.workload = id;
  event.cq = wl.admission->cq;
  event.object = object;
  event.reason = "NodeReplaced";
  EmitEvent(event);
}

}  // namespace kueuesim::runtime
