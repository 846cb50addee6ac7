// The QuotaReserved=False condition: names, severities and Kueue's wording;
// see pending_condition.h.
#include "kueuesim/cluster/pending_condition.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/cluster/cluster_state.h"

namespace kueuesim::cluster {
namespace {

// An amount of `resource` as Kueue's resource formatter prints it. Besides
// memory-like resources, Kueue registers the DRA resources mapped from
// device counters or capacity (deviceClassMappings with sources) as
// byte-valued (cmd/kueue/main.go RegisterBinaryFormattedResource): those
// are printed as memory is.
std::string QuantityText(const ClusterState& state, Amount amount, const std::string& resource) {
  if (state.gates().kueue_dra_integration) {
    for (const auto& mapping : state.configuration().device_class_mappings) {
      if (mapping.name == resource && !mapping.sources.empty()) return KueueQuantityString(amount, "memory");
    }
  }
  return KueueQuantityString(amount, resource);
}

}  // namespace

FlavorReason FlavorReason::Text(std::string text) {
  FlavorReason reason;
  reason.text = std::move(text);
  return reason;
}

std::string FlavorReason::Text(const ClusterState& state) const {
  switch (kind) {
    case Kind::kText:
      return text;
    case Kind::kOverMaximumCapacity: {
      const std::string& name = state.resource_name(resource);
      return fmt::format(
          "insufficient quota for {} in flavor {}, previously considered podsets requests ({}) + "
          "current podset request ({}) > maximum capacity ({})",
          name, state.flavor(flavor).name, QuantityText(state, assumed, name), QuantityText(state, request, name),
          QuantityText(state, limit, name));
    }
    case Kind::kInsufficientUnusedQuota: {
      const std::string& name = state.resource_name(resource);
      return fmt::format("insufficient unused quota for {} in flavor {}, {} more needed", name,
                         state.flavor(flavor).name, QuantityText(state, request, name));
    }
  }
  return text;
}

std::string_view QuotaReservedReasonName(QuotaReservedReason reason) {
  switch (reason) {
    case QuotaReservedReason::kNone:
      return "";
    case QuotaReservedReason::kNoMatchingFlavor:
      return "NoMatchingFlavor";
    case QuotaReservedReason::kWaitingForQuota:
      return "WaitingForQuota";
    case QuotaReservedReason::kExceedsMaxQuota:
      return "ExceedsMaxQuota";
    case QuotaReservedReason::kTopologyPlacementFailed:
      return "TopologyPlacementFailed";
    case QuotaReservedReason::kWaitingForPreemptedWorkloads:
      return "WaitingForPreemptedWorkloads";
    case QuotaReservedReason::kMisconfigured:
      return "Misconfigured";
    case QuotaReservedReason::kSuspended:
      return "Suspended";
    case QuotaReservedReason::kPendingEvaluation:
      return "PendingEvaluation";
    case QuotaReservedReason::kWaitingForPodsReady:
      return "WaitingForPodsReady";
    case QuotaReservedReason::kAdmissionGated:
      return "AdmissionGated";
    case QuotaReservedReason::kDeactivated:
      return "Deactivated";
    case QuotaReservedReason::kOnHold:
      return "OnHold";
    case QuotaReservedReason::kPending:
      return "Pending";
    case QuotaReservedReason::kInadmissible:
      return "Inadmissible";
    case QuotaReservedReason::kWaiting:
      return "Waiting";
  }
  return "";
}

int QuotaReservedReasonSeverity(QuotaReservedReason reason) {
  switch (reason) {
    case QuotaReservedReason::kNoMatchingFlavor:
      return 4;
    case QuotaReservedReason::kExceedsMaxQuota:
      return 3;
    case QuotaReservedReason::kWaitingForQuota:
      return 2;
    case QuotaReservedReason::kTopologyPlacementFailed:
      return 1;
    default:
      return 0;
  }
}

QuotaReservedReason MostSevereReason(QuotaReservedReason a, QuotaReservedReason b) {
  return QuotaReservedReasonSeverity(a) >= QuotaReservedReasonSeverity(b) ? a : b;
}

std::string AssignmentMessageText(const ClusterState& state, const WorkloadRecord& wl,
                                  const absl::InlinedVector<PodSetFlavorReasons, 1>& pod_sets) {
  // Assignment.Message: the pod sets that did not fit, each with its
  // reasons sorted and joined by ", "; an error ends the message.
  std::string out;
  for (const PodSetFlavorReasons& ps : pod_sets) {
    const size_t index = static_cast<size_t>(ps.pod_set);
    const std::string& name = index < wl.pod_sets.size() ? wl.pod_sets[index].spec->name : std::string();
    std::vector<std::string> reasons;
    reasons.reserve(ps.reasons.size());
    for (const FlavorReason& reason : ps.reasons) reasons.push_back(reason.Text(state));
    std::sort(reasons.begin(), reasons.end());
    std::string joined;
    for (const auto& r : reasons) {
      if (!joined.empty()) joined += ", ";
      joined += r;
    }
    if (ps.error) return fmt::format("failed to assign flavors to pod set {}: {}", name, joined);
    if (!out.empty()) out += "; ";
    out += fmt::format("couldn't assign flavors to pod set {}: {}", name, joined);
  }
  return out;
}

std::string_view AdmissionGateOf(const model::Workload& workload) {
  auto it = workload.meta.annotations.find(kAdmissionGatedByAnnotation);
  return it == workload.meta.annotations.end() ? std::string_view() : std::string_view(it->second);
}

namespace {

// field.Invalid(path, names, message).Error() for a path under pod set i's
// template spec ("" for the spec itself): the names as a JSON list.
std::string FieldInvalid(size_t pod_set, const std::string& path, const std::vector<std::string>& names,
                         std::string_view message) {
  std::string list;
  for (const std::string& name : names) list += fmt::format("{}\"{}\"", list.empty() ? "" : ",", name);
  return fmt::format("spec.podSets[{}].template.spec{}{}: Invalid value: [{}]: {}", pod_set, path.empty() ? "" : ".",
                     path, list, message);
}

// "<prefix>: " and ErrorList.ToAggregate(): one error alone, several
// bracketed and comma-separated.
std::string Aggregate(std::string_view prefix, const std::vector<std::string>& errors) {
  std::string joined;
  for (const std::string& e : errors) joined += (joined.empty() ? "" : ", ") + e;
  return fmt::format("{}: {}", prefix, errors.size() == 1 ? joined : "[" + joined + "]");
}

// Whether a pod set of `workload` has an entry in the list `member`.
template <typename List>
bool AnyPodSetLists(const model::Workload& workload, List model::PodSet::RareFields::*member) {
  return std::any_of(workload.pod_sets.begin(), workload.pod_sets.end(),
                     [member](const model::PodSet& pod_set) { return !((*pod_set.rare).*member).empty(); });
}

}  // namespace

bool HasRequestsAboveLimits(const model::Workload& workload) {
  return AnyPodSetLists(workload, &model::PodSet::RareFields::requests_above_limits);
}

std::string InvalidResourcesMessage(const model::Workload& workload) {
  // ValidateResources: one field.Invalid per container (or the pod level).
  std::vector<std::string> errors;
  for (size_t i = 0; i < workload.pod_sets.size(); ++i) {
    for (const auto& entry : workload.pod_sets[i].rare->requests_above_limits) {
      errors.push_back(FieldInvalid(i, entry.path, entry.resources, "requests must not exceed its limits"));
    }
  }
  return Aggregate("resources validation failed", errors);
}

bool HasLimitRangeViolations(const model::Workload& workload) {
  return AnyPodSetLists(workload, &model::PodSet::RareFields::limit_range_violations);
}

std::string LimitRangeViolationMessage(const model::Workload& workload) {
  // limitrange.Summary.ValidatePodSpec: per container (init containers
  // first) and for the pod.
  std::vector<std::string> errors;
  for (size_t i = 0; i < workload.pod_sets.size(); ++i) {
    for (const auto& entry : workload.pod_sets[i].rare->limit_range_violations) {
      errors.push_back(FieldInvalid(i, entry.path, entry.resources,
                                    entry.above_max ? "requests must not be above the limitRange max"
                                                    : "requests must not be below the limitRange min"));
    }
  }
  return Aggregate("resources didn't satisfy LimitRange constraints", errors);
}

std::string PendingMessageText(const ClusterState& state, const WorkloadRecord& wl,
                               const PendingCondition& condition) {
  const CqId cq = state.ClusterQueueOf(wl);
  const std::string_view cq_name =
      cq != kNone ? std::string_view(state.cq(cq).name)
                  : (wl.lq != kNone ? std::string_view(state.lq(wl.lq).spec->cluster_queue) : std::string_view());
  const std::string& ns = wl.spec->meta.namespace_;
  switch (condition.message) {
    case PendingMessage::kNone:
      return "";
    case PendingMessage::kAssignment:
      return AssignmentMessageText(state, wl, condition.pod_sets);
    case PendingMessage::kAssignmentPendingPreemption:
      return AssignmentMessageText(state, wl, condition.pod_sets) +
             fmt::format(". Pending the preemption of {} workload(s)", condition.count);
    case PendingMessage::kFailedChecks:
      return "The workload has failed admission checks";
    case PendingMessage::kClusterQueueInactive:
      return fmt::format("ClusterQueue {} is inactive", cq_name);
    case PendingMessage::kNamespaceMismatch:
      return "workload namespace doesn't match ClusterQueue selector";
    case PendingMessage::kNamespaceMissing:
      return fmt::format("workload namespace \"{}\" does not exist: namespaces \"{}\" not found", ns, ns);
    case PendingMessage::kInvalidResources:
      return InvalidResourcesMessage(*wl.spec);
    case PendingMessage::kLimitRangeViolated:
      return LimitRangeViolationMessage(*wl.spec);
    case PendingMessage::kAdmissionGatedBy:
      return fmt::format("Admission is gated by: {}", AdmissionGateOf(*wl.spec));
    case PendingMessage::kPreemptionGated:
      return "Workload requires preemption, but it's gated";
    case PendingMessage::kDeferredFit:
      return "Workload has overlapping preemption targets with another workload, but will fit after these "
             "preemptions complete";
    case PendingMessage::kOverlappingTargets:
      return "Workload has overlapping preemption targets with another workload";
    case PendingMessage::kNoLongerFits:
      return "Workload no longer fits after processing another workload";
    case PendingMessage::kWaitingForPodsReady:
      return "waiting for all admitted workloads to be in PodsReady condition";
    case PendingMessage::kLocalQueueMissing:
      return fmt::format("LocalQueue {} doesn't exist", wl.spec->queue_name);
    case PendingMessage::kLocalQueueInactive:
      return fmt::format("LocalQueue {} is inactive", wl.spec->queue_name);
    case PendingMessage::kClusterQueueMissing:
      return fmt::format("ClusterQueue {} doesn't exist", cq_name);
    case PendingMessage::kLocalQueueStopped:
      return fmt::format("LocalQueue {} is stopped", wl.spec->queue_name);
    case PendingMessage::kClusterQueueStopped:
      return fmt::format("ClusterQueue {} is stopped", cq_name);
    case PendingMessage::kDeactivated:
      return "The workload is deactivated";
    case PendingMessage::kPendingEvaluation:
      return "Workload is pending evaluation in the scheduling queue";
    case PendingMessage::kText:
      return condition.text;
  }
  return "";
}

bool UpdatePendingCondition(const ClusterState& /*state*/, WorkloadRecord* wl, PendingCondition next,
                            SimTime now) {
  if (!next.has_condition()) return false;
  if (wl->pending->SameAs(next)) return false;
  // Another condition: a reused nomination would no longer leave it as a
  // fresh one does.
  if (wl->nomination_memo.allocated()) wl->nomination_memo.Mutable().valid = false;
  PendingCondition& current = wl->pending.Mutable();
  // The same reasons in another order word the same message (Kueue sorts
  // them): Kueue's condition, a string, would not change then. (Compared
  // as figures: wording on the admission path would cost more.)
  bool same_text = current.reason == next.reason && current.message == next.message &&
                   current.count == next.count && current.text == next.text &&
                   current.pod_sets.size() == next.pod_sets.size();
  for (size_t i = 0; same_text && i < current.pod_sets.size(); ++i) {
    const PodSetFlavorReasons& a = current.pod_sets[i];
    const PodSetFlavorReasons& b = next.pod_sets[i];
    same_text = a.pod_set == b.pod_set && a.error == b.error && a.reasons.size() == b.reasons.size() &&
                std::is_permutation(a.reasons.begin(), a.reasons.end(), b.reasons.begin());
  }
  if (same_text) {
    next.since = current.since;
    current = std::move(next);
    return false;
  }
  next.since = now;
  current = std::move(next);
  return true;
}

}  // namespace kueuesim::cluster
