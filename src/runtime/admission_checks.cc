// Admission checks in the workload life cycle beyond Ready / Retry /
// Rejected: Retry with requeueAfterSeconds, pods that wait for provisioned
// nodes, the TAS second pass after a ProvisioningRequest, nodes added and
// removed by the autoscaler, and the per-check statistics. See
// cluster_runtime.h and kueuesim/runtime/provisioning.h.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/cluster/tas_cache.h"
#include "kueuesim/runtime/cluster_runtime.h"
#include "kueuesim/runtime/provisioning.h"

namespace kueuesim::runtime {

using cluster::WorkloadPhase;
using cluster::WorkloadRecord;

namespace {
constexpr SimDuration kSecondPassInitialBackoff = kSecond;
constexpr SimDuration kSecondPassMaxBackoff = 30 * kSecond;
}  // namespace

void ClusterRuntime::SetAdmissionCheckRetry(WorkloadId id, int32_t check, SimDuration requeue_after) {
  WorkloadRecord& wl = state_->workload(id);
  if (!wl.admission.has_value() || wl.evicted) return;
  if (requeue_after <= 0) {
    // No requeueAt in the future: reconcileCheckBasedEviction evicts now.
    SetAdmissionCheckState(id, check, CheckState::kRetry);
    return;
  }
  bool found = false;
  for (auto& status : wl.rare.Mutable().checks) {
    if (status.check != check) continue;
    status.state = CheckState::kRetry;
    found = true;
  }
  if (!found) return;
  if (check >= 0 && static_cast<size_t>(check) < check_stats_.size()) ++check_stats_[static_cast<size_t>(check)].retry;
  // The workload controller sets requeueState.requeueAt to the latest
  // lastTransitionTime + requeueAfterSeconds of the Retry checks
  // (NeedsRequeueAtUpdate, GetMaxRetryTime).
  const UnixMicros retry_at = WallNow() + requeue_after;
  wl.requeue_at = wl.requeue_at.has_value() && *wl.requeue_at > WallNow() ? std::max(*wl.requeue_at, retry_at) : retry_at;
  if (retry_eviction_immediate_) {
    // KEP-3258: evicted at once, requeued once the backoff has passed.
    wl.requeued_condition_false = true;
    Evict(id, EvictionReason::kAdmissionCheck);
    engine_->Schedule(*wl.requeue_at - state_->start_time(), this, kRequeueBackoffFinished, id, wl.run_generation);
    return;
  }
  // The code at the reference commit: an active workload whose requeueAt is
  // in the future waits ("Waiting for backoff to finish") before
  // reconcileCheckBasedEviction runs, so it keeps its quota until then.
  engine_->ScheduleAfter(requeue_after, this, kCheckRetryEviction, id, wl.run_generation);
}

void ClusterRuntime::OnCheckRetryEviction(WorkloadId id, uint32_t generation) {
  WorkloadRecord& wl = state_->workload(id);
  if (generation != wl.run_generation || !wl.admission.has_value() || wl.evicted) return;
  // A later Retry pushed requeueAt further: its own eviction comes then.
  if (wl.requeue_at.has_value() && *wl.requeue_at > WallNow()) return;
  EvictForChecks(id);
}

CheckState ClusterRuntime::AdmissionCheckStateOf(WorkloadId id, int32_t check) const {
  const WorkloadRecord& wl = state_->workload(id);
  for (const auto& status : wl.rare->checks) {
    if (status.check == check) return status.state;
  }
  return CheckState::kPending;
}

void ClusterRuntime::SetPodStartNotBefore(WorkloadId id, SimTime at) { pod_start_not_before_[id] = at; }

void ClusterRuntime::AddNode(const model::Node& node, std::string_view reason) {
  model::Change change;
  change.name = std::string(reason);
  change.at = engine_->now();
  change.target_kind = "Node";
  change.target_name = node.name;
  change.node_action = model::Change::NodeAction::kAdd;
  change.node = node;
  ApplyNodeChange(change);
}

void ClusterRuntime::RemoveNode(const std::string& name, std::string_view reason) {
  model::Change change;
  change.name = std::string(reason);
  change.at = engine_->now();
  change.target_kind = "Node";
  change.target_name = name;
  change.node_action = model::Change::NodeAction::kRemove;
  if (state_->tas() != nullptr && state_->tas()->FindNode(name) == nullptr) return;
  ApplyNodeChange(change);
}

std::optional<AutoscalerReport> ClusterRuntime::AutoscalerReportNow() const {
  if (provisioning_ == nullptr) return std::nullopt;
  return provisioning_->autoscaler().ReportNow();
}

void ClusterRuntime::AdmitOrSecondPass(WorkloadId id) {
  const WorkloadRecord& wl = state_->workload(id);
  bool delayed = false;
  for (const auto& ps : wl.admission->pod_sets) delayed = delayed || ps.delayed_topology_pending;
  if (!delayed || wl.runs_remotely || state_->tas() == nullptr) {
    Admit(id);
    return;
  }
  second_pass_backoff_[id] = kSecondPassInitialBackoff;
  OnSecondPass(id, wl.run_generation);
}

void ClusterRuntime::OnSecondPass(WorkloadId id, uint32_t generation) {
  WorkloadRecord& wl = state_->workload(id);
  if (generation != wl.run_generation || !wl.admission.has_value() || wl.evicted ||
      wl.phase != WorkloadPhase::kQuotaReserved) {
    second_pass_backoff_.erase(id);
    return;
  }
  for (const auto& status : wl.rare->checks) {
    if (status.state != CheckState::kReady) return;  // a check went back (Retry); the workload is evicted
  }
  cluster::TasCache* tas = state_->tas();
  // The pod sets whose topology was delayed, per TAS flavor in name order
  // (scheduler second pass: flavorassigner with the Ready checks'
  // podSetUpdates; kueuesim's ProvisioningRequests carry no node selector).
  std::map<std::string, std::vector<size_t>> by_flavor;
  std::map<std::string, cluster::FlavorId> flavor_ids;
  for (size_t i = 0; i < wl.admission->pod_sets.size() && i < wl.pod_sets.size(); ++i) {
    const cluster::PodSetAdmission& ps = wl.admission->pod_sets[i];
    if (!ps.delayed_topology_pending) continue;
    cluster::FlavorId flavor = kNone;
    for (const auto& entry : ps.entries) {
      if (tas->IsTasFlavor(entry.flavor)) flavor = entry.flavor;
    }
    if (flavor == kNone) continue;
    by_flavor[state_->flavor(flavor).name].push_back(i);
    flavor_ids[state_->flavor(flavor).name] = flavor;
  }
  std::map<std::string, topology::Requests> aggregated;
  std::vector<std::pair<size_t, model::TopologyAssignment>> results;
  bool failed = false;
  for (const auto& [name, members] : by_flavor) {
    const topology::TasFlavorSnapshot& snapshot = tas->Snapshot(flavor_ids[name]);
    std::vector<topology::PodSetPlacementRequest> placement;
    for (size_t i : members) {
      const cluster::PodSetInfo& info = wl.pod_sets[i];
      const model::PodSet& spec = *info.spec;
      topology::PodSetPlacementRequest p;
      p.name = spec.name;
      p.count = wl.admission->pod_sets[i].count;
      p.single_pod_requests = info.tas_per_pod;
      if (spec.topology_request.has_value() && spec.topology_request->IsExplicit()) {
        p.topology_request = spec.topology_request.ToOptional();
      }
      if (spec.topology_request.has_value()) p.group_name = spec.topology_request->pod_set_group_name;
      p.node_selector = spec.rare->node_selector;
      p.required_affinity = spec.rare->required_affinity;
      for (const auto& term : spec.rare->preferred_affinity) {
        p.preferred_affinity.push_back({term.weight, term.preference});
      }
      p.tolerations = spec.rare->tolerations;
      placement.push_back(std::move(p));
    }
    const bool shared = state_->gates().tas_handle_overlapping_flavors && snapshot.IsLowestLevelHostname();
    std::vector<topology::PlacementOutcome> outcomes =
        snapshot.FindAssignments(placement, /*simulate_empty=*/false, shared ? &aggregated : nullptr);
    for (size_t k = 0; k < outcomes.size(); ++k) {
      if (!outcomes[k].assignment.has_value()) {
        failed = true;
        break;
      }
      results.emplace_back(members[k], std::move(*outcomes[k].assignment));
    }
    if (failed) break;
  }
  if (failed) {
    // Event SecondPassFailed: retried from the second-pass queue, quota kept.
    SimDuration& backoff = second_pass_backoff_[id];
    if (backoff <= 0) backoff = kSecondPassInitialBackoff;
    engine_->ScheduleAfter(backoff, this, kSecondPass, id, wl.run_generation);
    backoff = std::min(backoff * 2, kSecondPassMaxBackoff);
    return;
  }
  second_pass_backoff_.erase(id);
  for (auto& [i, assignment] : results) {
    wl.admission->pod_sets[i].topology_assignment = std::move(assignment);
    wl.admission->pod_sets[i].delayed_topology_pending = false;
  }
  tas->Reaccount(*state_, id);
  Admit(id);
}

void ClusterRuntime::OpenCheckWaits(WorkloadId id) {
  const WorkloadRecord& wl = state_->workload(id);
  CheckWait wait;
  wait.reserved_at = engine_->now();
  for (const auto& status : wl.rare->checks) {
    if (status.check == kNone) continue;
    ++check_stats_[static_cast<size_t>(status.check)].workloads;
    wait.checks.emplace_back(status.check, true);
  }
  check_waits_[id] = std::move(wait);
}

void ClusterRuntime::CloseCheckWait(WorkloadId id, int32_t check, bool ready) {
  auto it = check_waits_.find(id);
  if (it == check_waits_.end()) return;
  const WorkloadRecord& wl = state_->workload(id);
  const SimDuration held = engine_->now() - it->second.reserved_at;
  for (auto& [c, waiting] : it->second.checks) {
    if (c != check || !waiting) continue;
    waiting = false;
    AdmissionCheckStats& stats = check_stats_[static_cast<size_t>(c)];
    if (ready) stats.time_to_ready.push_back(held);
    stats.held_time += held;
    if (wl.admission.has_value()) {
      const double seconds = static_cast<double>(held) / static_cast<double>(kSecond);
      for (const auto& usage : wl.admission->usage) {
        const std::string& resource = state_->resource_name(state_->fr_resource(usage.fr));
        double amount = static_cast<double>(usage.amount);
        if (IsMilliResource(resource)) amount /= 1000.0;
        stats.held_quota[resource] += amount * seconds;
      }
    }
  }
}

void ClusterRuntime::CloseCheckWaits(WorkloadId id) {
  auto it = check_waits_.find(id);
  if (it == check_waits_.end()) return;
  const std::vector<std::pair<int32_t, bool>> checks = it->second.checks;
  for (const auto& [check, waiting] : checks) {
    if (waiting) CloseCheckWait(id, check, /*ready=*/false);
  }
  check_waits_.erase(id);
}

std::vector<AdmissionCheckStats> ClusterRuntime::AdmissionCheckStatsNow() const {
  std::vector<AdmissionCheckStats> out = check_stats_;
  for (const auto& [id, wait] : check_waits_) {
    const WorkloadRecord& wl = state_->workload(id);
    const SimDuration held = engine_->now() - wait.reserved_at;
    const double seconds = static_cast<double>(held) / static_cast<double>(kSecond);
    for (const auto& [check, waiting] : wait.checks) {
      if (!waiting) continue;
      AdmissionCheckStats& stats = out[static_cast<size_t>(check)];
      ++stats.pending_at_end;
      stats.held_time += held;
      if (!wl.admission.has_value()) continue;
      for (const auto& usage : wl.admission->usage) {
        const std::string& resource = state_->resource_name(state_->fr_resource(usage.fr));
        double amount = static_cast<double>(usage.amount);
        if (IsMilliResource(resource)) amount /= 1000.0;
        stats.held_quota[resource] += amount * seconds;
      }
    }
  }
  return out;
}

}  // namespace kueuesim::runtime
