// Why a workload waits: the QuotaReserved=False conditions the workload
// controller and the job integrations write (the scheduler's are set in
// admission/scheduler.cc), and Kueue's eviction messages. See
// cluster/pending_condition.h.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "runtime/pending_conditions.h"

#include "kueuesim/runtime/cluster_runtime.h"
#include "queue/queue_manager.h"

namespace kueuesim::runtime {

using cluster::PendingCondition;
using cluster::PendingMessage;
using cluster::QuotaReservedReason;
using cluster::WorkloadPhase;
using cluster::WorkloadRecord;

void ClusterRuntime::SetPending(WorkloadId id, PendingCondition next) {
  WorkloadRecord& wl = state_->workload(id);
  if (cluster::UpdatePendingCondition(*state_, &wl, std::move(next), engine_->now())) {
    Emit(EventType::kPending, id, state_->ClusterQueueOf(wl), kNone,
         cluster::QuotaReservedReasonName(wl.pending->reason));
  }
}

void ClusterRuntime::SetPendingCondition(WorkloadId id, QuotaReservedReason reason, std::string message) {
  const WorkloadRecord& wl = state_->workload(id);
  if (wl.admission.has_value() || wl.phase == WorkloadPhase::kFinished ||
      wl.phase == WorkloadPhase::kNotArrived) {
    return;
  }
  PendingCondition next;
  next.reason = reason;
  next.message = PendingMessage::kText;
  next.text = std::move(message);
  SetPending(id, std::move(next));
}

bool ClusterRuntime::IsAdmissionGated(const WorkloadRecord& wl) const {
  return state_->gates().admission_gated_by && !cluster::AdmissionGateOf(*wl.spec).empty();
}

void ClusterRuntime::SyncControllerCondition(WorkloadId id) {
  const WorkloadRecord& wl = state_->workload(id);
  if (wl.admission.has_value()) return;
  if (wl.spec->rare->on_hold_message.has_value() && wl.spec->active && wl.phase != WorkloadPhase::kDeactivated) {
    // IsOnHold: the condition the job integration wrote stays.
    SetPendingCondition(id, QuotaReservedReason::kOnHold, *wl.spec->rare->on_hold_message);
    return;
  }
  const bool granular = state_->gates().unadmitted_workloads_observability;
  PendingCondition next;
  auto set = [&next](QuotaReservedReason reason, PendingMessage message) {
    next.reason = reason;
    next.message = message;
  };
  // getQueueBlocker
  const cluster::CqId cq = state_->ClusterQueueOf(wl);
  if (wl.lq == kNone) {
    set(QuotaReservedReason::kMisconfigured, PendingMessage::kLocalQueueMissing);
  } else if (state_->lq(wl.lq).stop_policy != model::StopPolicy::kNone) {
    set(QuotaReservedReason::kSuspended, PendingMessage::kLocalQueueInactive);
  } else if (cq == kNone) {
    set(QuotaReservedReason::kMisconfigured, PendingMessage::kClusterQueueMissing);
  } else if (!state_->cq(cq).active) {
    set(QuotaReservedReason::kSuspended, PendingMessage::kClusterQueueInactive);
  }
  if (!granular) {
    // resolveLegacyUnadmittedQuotaReservedCondition: only the blockers, as
    // Inadmissible.
    if (!next.has_condition()) return;
    next.reason = QuotaReservedReason::kInadmissible;
    SetPending(id, std::move(next));
    return;
  }
  if (!wl.spec->active || wl.phase == WorkloadPhase::kDeactivated) {
    set(QuotaReservedReason::kDeactivated, PendingMessage::kDeactivated);
  } else if (!next.has_condition() && !queues_->NamespaceMatches(cq, wl)) {
    // ValidateAdmissibility
    set(QuotaReservedReason::kMisconfigured, state_->namespace_info(wl.ns).exists
                                                 ? PendingMessage::kNamespaceMismatch
                                                 : PendingMessage::kNamespaceMissing);
  } else if (!next.has_condition() && cq != kNone && cluster::HasRequestsAboveLimits(*wl.spec)) {
    // ValidateAdmissibility: ValidateResources
    set(QuotaReservedReason::kMisconfigured, PendingMessage::kInvalidResources);
  } else if (!next.has_condition() && cq != kNone && cluster::HasLimitRangeViolations(*wl.spec)) {
    // ValidateAdmissibility: ValidateLimitRange
    set(QuotaReservedReason::kMisconfigured, PendingMessage::kLimitRangeViolated);
  } else if (!next.has_condition() && IsAdmissionGated(wl)) {
    set(QuotaReservedReason::kAdmissionGated, PendingMessage::kAdmissionGatedBy);
  }
  if (!next.has_condition()) {
    switch (wl.pending->reason) {
      // schedulerSetReasons: kept until the scheduler's next cycle.
      case QuotaReservedReason::kWaitingForQuota:
      case QuotaReservedReason::kNoMatchingFlavor:
      case QuotaReservedReason::kExceedsMaxQuota:
      case QuotaReservedReason::kTopologyPlacementFailed:
      case QuotaReservedReason::kWaitingForPreemptedWorkloads:
      case QuotaReservedReason::kWaitingForPodsReady:
      case QuotaReservedReason::kPendingEvaluation:
        return;
      case QuotaReservedReason::kNone:
        // A new workload gets no condition unless
        // UnadmittedWorkloadsExplicitStatus stamps one.
        if (!state_->gates().unadmitted_workloads_explicit_status) return;
        break;
      default:
        break;
    }
    set(QuotaReservedReason::kPendingEvaluation, PendingMessage::kPendingEvaluation);
  }
  SetPending(id, std::move(next));
}

void ClusterRuntime::SyncControllerConditions(CqId cq, cluster::LqId lq) {
  for (WorkloadId id = 0; id < state_->num_workloads(); ++id) {
    const WorkloadRecord& wl = state_->workload(id);
    if (wl.phase != WorkloadPhase::kPending || wl.admission.has_value()) continue;
    if ((cq != kNone && state_->ClusterQueueOf(wl) == cq) || (lq != kNone && wl.lq == lq)) {
      SyncControllerCondition(id);
    }
  }
}

std::string ClusterRuntime::EvictionMessage(const WorkloadRecord& wl, EvictionReason reason) const {
  switch (reason) {
    case EvictionReason::kPodsReadyTimeout:
      return fmt::format("Exceeded the PodsReady timeout {}", wl.key);
    case EvictionReason::kAdmissionCheck: {
      // buildAdmissionChecksMessage over the checks in Retry, by name.
      std::vector<std::pair<std::string, std::string>> retry;
      for (const auto& status : wl.rare->checks) {
        if (status.state != CheckState::kRetry || status.check == kNone) continue;
        retry.emplace_back(admission_checks_[static_cast<size_t>(status.check)].meta.name, status.message);
      }
      std::sort(retry.begin(), retry.end());
      std::string parts;
      for (const auto& [name, message] : retry) {
        if (!parts.empty()) parts += "; ";
        parts += message.empty() ? fmt::format("\"{}\"", name) : fmt::format("\"{}\" ({})", name, message);
      }
      return fmt::format("Evicted due to {} in Retry state: {}", retry.size() > 1 ? "AdmissionChecks" : "AdmissionCheck",
                         parts);
    }
    case EvictionReason::kClusterQueueStopped:
      return "The ClusterQueue is stopped";
    case EvictionReason::kLocalQueueStopped:
      return "The LocalQueue is stopped";
    case EvictionReason::kDeactivated:
      if (wl.rare->deactivation_reason == "RequeuingLimitExceeded") {
        return "The workload is deactivated due to exceeding the maximum number of re-queuing retries";
      }
      if (wl.rare->deactivation_reason == "MaximumExecutionTimeExceeded") {
        return "The workload is deactivated due to exceeding the maximum execution time";
      }
      return "The workload is deactivated";
    case EvictionReason::kNodeFailures: {
      std::vector<std::string> nodes = wl.rare->unhealthy_nodes;
      std::sort(nodes.begin(), nodes.end());
      std::string csv;
      for (const auto& n : nodes) csv += (csv.empty() ? "" : ",") + n;
      return fmt::format("Workload was evicted as there was no replacement for unhealthy node(s): {}", csv);
    }
    case EvictionReason::kPreempted:
    case EvictionReason::kNotEvicted:
      break;
  }
  return "";
}

std::string PreemptionMessage(const cluster::ClusterState& state, const WorkloadRecord& preemptor,
                              cluster::CqId preemptor_cq, cluster::CqId victim_cq, std::string_view reason) {
  // preemption.go preemptionMessage and buildCQPath ("/root/cohort/cq").
  auto path = [&state](cluster::CqId cq) {
    if (cq == kNone) return std::string("UNKNOWN");
    const quota::QuotaTree& tree = state.tree();
    std::vector<std::string> parts{state.cq(cq).name};
    for (quota::NodeId n = tree.parent(state.cq(cq).node); n != quota::kNoNode; n = tree.parent(n)) {
      parts.push_back(std::string(tree.name(n)));
    }
    std::string out;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) out += "/" + *it;
    return out;
  };
  std::string_view human = "UNKNOWN";
  if (reason == "InClusterQueue") human = "prioritization in the ClusterQueue";
  if (reason == "InCohortReclamation") human = "reclamation within the cohort";
  if (reason == "InCohortFairSharing") human = "Fair Sharing within the cohort";
  if (reason == "InCohortReclaimWhileBorrowing") human = "reclamation within the cohort while borrowing";
  const std::string& uid = preemptor.spec->meta.uid();
  std::string job_uid;
  if (auto it = preemptor.spec->meta.labels.find("kueue.x-k8s.io/job-uid"); it != preemptor.spec->meta.labels.end()) {
    job_uid = it->second;
  }
  return fmt::format(
      "Preempted to accommodate a workload (UID: {}, JobUID: {}) due to {}; preemptor path: {}; preemptee path: {}",
      uid.empty() ? "UNKNOWN" : uid, job_uid.empty() ? "UNKNOWN" : job_uid, human, path(preemptor_cq),
      path(victim_cq));
}

}  // namespace kueuesim::runtime
