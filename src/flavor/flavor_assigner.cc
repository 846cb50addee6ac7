// Flavor assignment; a close translation of kueue
// pkg/scheduler/flavorassigner/flavorassigner.go (see the header).
#include "kueuesim/flavor/flavor_assigner.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "absl/container/inlined_vector.h"

#include "kueuesim/model/selectors.h"

namespace kueuesim::flavor {
namespace {

using cluster::ClusterQueueInfo;
using cluster::kNone;
using cluster::ResourceAmount;
using model::FungibilityPolicy;
using model::FungibilityPreference;

// kueue.x-k8s.io/workload-allowed-resource-flavors: with the
// ConcurrentAdmission gate, the flavors a workload may be assigned, comma
// separated (concurrentadmission.IsFlavorAllowedForVariant).
constexpr char kAllowedFlavorsAnnotation[] = "kueue.x-k8s.io/workload-allowed-resource-flavors";

// The flavors `annotation` allows (csv.Parse: split at commas, spaces
// trimmed; blank: none).
std::vector<std::string_view> ParseAllowedFlavors(std::string_view annotation) {
  const auto trim = [](std::string_view text) {
    const size_t first = text.find_first_not_of(" \t\n\r\f\v");
    if (first == std::string_view::npos) return std::string_view();
    return text.substr(first, text.find_last_not_of(" \t\n\r\f\v") - first + 1);
  };
  std::vector<std::string_view> flavors;
  if (trim(annotation).empty()) return flavors;
  size_t start = 0;
  while (true) {
    const size_t comma = annotation.find(',', start);
    flavors.push_back(trim(annotation.substr(start, comma == std::string_view::npos ? comma : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return flavors;
}

// preemptionMode, best last.
enum class PreemptionMode : int8_t { kNoFit = 0, kNoPreemptionCandidates, kPreempt, kReclaim, kFit };

struct GranularMode {
  PreemptionMode preemption_mode = PreemptionMode::kNoFit;
  int32_t borrowing_level = INT_MAX;

  bool IsPreemptMode() const {
    return preemption_mode == PreemptionMode::kPreempt || preemption_mode == PreemptionMode::kReclaim;
  }
};

GranularMode WorstMode() { return {PreemptionMode::kNoFit, INT_MAX}; }
GranularMode BestMode() { return {PreemptionMode::kFit, 0}; }

AssignmentMode ToAssignmentMode(PreemptionMode mode) {
  switch (mode) {
    case PreemptionMode::kNoFit:
      return AssignmentMode::kNoFit;
    case PreemptionMode::kNoPreemptionCandidates:
    case PreemptionMode::kPreempt:
    case PreemptionMode::kReclaim:
      return AssignmentMode::kPreempt;
    case PreemptionMode::kFit:
      return AssignmentMode::kFit;
  }
  return AssignmentMode::kNoFit;
}

PreemptionMode FromPossibility(PreemptionPossibility possibility) {
  switch (possibility) {
    case PreemptionPossibility::kNoCandidates:
      return PreemptionMode::kNoPreemptionCandidates;
    case PreemptionPossibility::kPreempt:
      return PreemptionMode::kPreempt;
    case PreemptionPossibility::kReclaim:
      return PreemptionMode::kReclaim;
  }
  return PreemptionMode::kNoFit;
}

// isPreferred: whether `a` is a better mode than `b`.
bool IsPreferred(const GranularMode& a, const GranularMode& b, const model::FlavorFungibility& f) {
  if (a.preemption_mode == PreemptionMode::kNoFit) return false;
  if (b.preemption_mode == PreemptionMode::kNoFit) return true;
  const bool a_no_candidates = a.preemption_mode == PreemptionMode::kNoPreemptionCandidates;
  const bool b_no_candidates = b.preemption_mode == PreemptionMode::kNoPreemptionCandidates;
  if (a_no_candidates != b_no_candidates) return !a_no_candidates;
  if (f.preference == FungibilityPreference::kPreemptionOverBorrowing) {
    if (a.borrowing_level != b.borrowing_level) return a.borrowing_level < b.borrowing_level;
    return a.preemption_mode > b.preemption_mode;
  }
  // BorrowingOverPreemption and the unset default compare the preemption
  // mode first (the API comment says otherwise; the code is followed).
  if (a.preemption_mode != b.preemption_mode) return a.preemption_mode > b.preemption_mode;
  return a.borrowing_level < b.borrowing_level;
}

bool ShouldTryNextFlavor(const GranularMode& mode, const model::FlavorFungibility& f) {
  if (mode.preemption_mode == PreemptionMode::kNoFit ||
      mode.preemption_mode == PreemptionMode::kNoPreemptionCandidates) {
    return true;
  }
  if (mode.IsPreemptMode() && f.when_can_preempt == FungibilityPolicy::kTryNextFlavor) return true;
  if (mode.borrowing_level != 0 && f.when_can_borrow == FungibilityPolicy::kTryNextFlavor) return true;
  return false;
}

Amount FindAmount(std::span<const FrAmount> usage, FrId fr) {
  for (const FrAmount& u : usage) {
    if (u.fr == fr) return u.amount;
  }
  return 0;
}

void AddToUsage(cluster::FrAmountList* usage, FrId fr, Amount amount) {
  for (FrAmount& u : *usage) {
    if (u.fr == fr) {
      u.amount = AddAmounts(u.amount, amount);
      return;
    }
  }
  usage->push_back({fr, amount});
}

// Inserts or overwrites `resource` in a rank-sorted request list.
template <typename Requests>
void SetRequest(const cluster::ClusterState& state, Requests* requests, ResourceId resource, Amount amount) {
  auto it = std::find_if(requests->begin(), requests->end(),
                         [&](const ResourceAmount& r) { return r.resource == resource; });
  if (it != requests->end()) {
    it->amount = amount;
    return;
  }
  auto pos = std::find_if(requests->begin(), requests->end(), [&](const ResourceAmount& r) {
    return state.resource_rank(r.resource) > state.resource_rank(resource);
  });
  requests->insert(pos, {resource, amount});
}

// A taint as Kueue's message prints it: Go's %s of a corev1.Taint value,
// "{key value NoSchedule <nil>}" (TimeAdded is never set on a flavor's taint).
std::string KueueTaintString(const model::Taint& taint) {
  const char* effect = "";
  switch (taint.effect) {
    case model::TaintEffect::kNoSchedule:
      effect = "NoSchedule";
      break;
    case model::TaintEffect::kPreferNoSchedule:
      effect = "PreferNoSchedule";
      break;
    case model::TaintEffect::kNoExecute:
      effect = "NoExecute";
      break;
  }
  return fmt::format("{{{} {} {} <nil>}}", taint.key, taint.value, effect);
}

}  // namespace

const char* AssignmentModeName(AssignmentMode mode) {
  switch (mode) {
    case AssignmentMode::kNoFit:
      return "NoFit";
    case AssignmentMode::kPreempt:
      return "Preempt";
    case AssignmentMode::kDeferredFit:
      return "DeferredFit";
    case AssignmentMode::kFit:
      return "Fit";
  }
  return "Unknown";
}

AssignmentMode PodSetAssignmentResult::RepresentativeMode() const {
  if (!error && reasons.empty()) return AssignmentMode::kFit;
  if (error || flavors.empty()) return AssignmentMode::kNoFit;
  AssignmentMode mode = AssignmentMode::kFit;
  for (const auto& f : flavors) mode = std::min(mode, f.mode);
  return mode;
}

const ResourceFlavorAssignment* PodSetAssignmentResult::FlavorFor(ResourceId resource) const {
  for (const auto& f : flavors) {
    if (f.resource == resource) return &f;
  }
  return nullptr;
}

AssignmentMode Assignment::RepresentativeMode() const {
  if (pod_sets.empty()) return AssignmentMode::kNoFit;
  if (mode_override.has_value()) return *mode_override;
  AssignmentMode mode = AssignmentMode::kFit;
  for (const auto& ps : pod_sets) mode = std::min(mode, ps.RepresentativeMode());
  return mode;
}

void Assignment::SetRepresentativeMode(AssignmentMode mode) {
  mode_override = mode;
  for (auto& ps : pod_sets) {
    for (auto& f : ps.flavors) f.mode = mode;
  }
}

void Assignment::UpdateMode(size_t pod_set, AssignmentMode mode) {
  if (pod_set >= pod_sets.size()) return;
  for (auto& f : pod_sets[pod_set].flavors) f.mode = mode;
  mode_override = mode;
}

void UpdateForTasResult(Assignment* assignment, const TasPlacementResult& result) {
  for (const auto& ps : result.pod_sets) {
    PodSetAssignmentResult& out = assignment->pod_sets[ps.pod_set];
    out.topology_assignment = ps.assignment;
    // A delayed request that got its topology is Ready.
    if (ps.assignment.has_value()) out.delayed_topology_pending = false;
  }
}

cluster::TasUsage ComputeTasNetUsage(const cluster::ClusterState& state,
                                     const cluster::WorkloadRecord& workload,
                                     const Assignment& assignment) {
  cluster::TasUsage usage;
  const cluster::TasCache* tas = state.tas();
  if (tas == nullptr) return usage;
  for (const auto& ps : assignment.pod_sets) {
    if (!ps.topology_assignment.has_value()) continue;
    // onlyTASFlavor
    FlavorId flavor = kNone;
    bool several = false;
    for (const auto& f : ps.flavors) {
      if (!tas->IsTasFlavor(f.flavor)) continue;
      if (flavor != kNone && flavor != f.flavor) several = true;
      flavor = f.flavor;
    }
    if (flavor == kNone || several) continue;
    const size_t index = static_cast<size_t>(ps.pod_set_index);
    // Pods the current admission already places on a domain are accounted.
    const model::TopologyAssignment* previous = nullptr;
    if (workload.admission.has_value() && index < workload.admission->pod_sets.size() &&
        workload.admission->pod_sets[index].topology_assignment.has_value()) {
      previous = &*workload.admission->pod_sets[index].topology_assignment;
    }
    for (const auto& domain : ps.topology_assignment->domains) {
      int32_t count = domain.count;
      if (previous != nullptr) {
        for (const auto& d : previous->domains) {
          if (d.values == domain.values) count -= d.count;
        }
      }
      if (count <= 0) continue;
      cluster::TasDomainUsage d;
      d.flavor = flavor;
      d.usage.values = domain.values;
      d.usage.single_pod_requests = workload.pod_sets[index].tas_per_pod;
      d.usage.count = count;
      usage.push_back(std::move(d));
    }
  }
  return usage;
}

absl::InlinedVector<FrId, 4> Assignment::FrsNeedingPreemption(const cluster::ClusterState& state) const {
  absl::InlinedVector<FrId, 4> frs;
  for (const auto& ps : pod_sets) {
    for (const auto& f : ps.flavors) {
      if (f.mode != AssignmentMode::kPreempt) continue;
      FrId fr = state.FindFr(f.flavor, f.resource);
      if (fr != kNone && std::find(frs.begin(), frs.end(), fr) == frs.end()) frs.push_back(fr);
    }
  }
  std::sort(frs.begin(), frs.end());
  return frs;
}

std::string Assignment::Message(const cluster::ClusterState& state, const cluster::WorkloadRecord& wl) const {
  absl::InlinedVector<cluster::PodSetFlavorReasons, 1> failed;
  for (const auto& ps : pod_sets) {
    if (!ps.error && ps.reasons.empty()) continue;
    failed.push_back({ps.pod_set_index, ps.error, ps.reasons});
  }
  return cluster::AssignmentMessageText(state, wl, failed);
}

absl::InlinedVector<cluster::PodSetFlavorReasons, 1> Assignment::TakeReasons() {
  absl::InlinedVector<cluster::PodSetFlavorReasons, 1> failed;
  for (auto& ps : pod_sets) {
    if (!ps.error && ps.reasons.empty()) continue;
    failed.push_back({ps.pod_set_index, ps.error, std::move(ps.reasons)});
    ps.reasons.clear();
  }
  return failed;
}

void Assignment::ResolveNoFitReason(const cluster::ClusterQueueInfo& cq) {
  // resolveNoFitReason: per pod set that does not fit, the least severe
  // reason among the flavors of each resource group (alternatives), the
  // most severe across groups (all are needed) and across pod sets.
  if (RepresentativeMode() != AssignmentMode::kNoFit) return;
  QuotaReservedReason overall = QuotaReservedReason::kNone;
  for (const auto& ps : pod_sets) {
    if (ps.RepresentativeMode() != AssignmentMode::kNoFit) continue;
    if (ps.attempts.empty()) {
      overall = cluster::MostSevereReason(overall, QuotaReservedReason::kNoMatchingFlavor);
      continue;
    }
    // Per resource group (by index; a flavor in no group is a group of its
    // own), the least severe reason.
    absl::InlinedVector<std::pair<int32_t, QuotaReservedReason>, 4> group_min;
    for (size_t a = 0; a < ps.attempts.size(); ++a) {
      const FlavorAttempt& attempt = ps.attempts[a];
      if (!attempt.no_fit) continue;
      absl::InlinedVector<int32_t, 2> groups;
      for (size_t g = 0; g < cq.groups.size(); ++g) {
        const auto& flavors = cq.groups[g].flavors;
        if (std::find(flavors.begin(), flavors.end(), attempt.flavor) != flavors.end()) {
          groups.push_back(static_cast<int32_t>(g));
        }
      }
      if (groups.empty()) groups.push_back(-1 - static_cast<int32_t>(a));
      for (int32_t g : groups) {
        auto it = std::find_if(group_min.begin(), group_min.end(), [&](const auto& e) { return e.first == g; });
        if (it == group_min.end()) {
          group_min.emplace_back(g, attempt.reason);
        } else if (cluster::QuotaReservedReasonSeverity(attempt.reason) <
                   cluster::QuotaReservedReasonSeverity(it->second)) {
          it->second = attempt.reason;
        }
      }
    }
    QuotaReservedReason pod_set_reason = QuotaReservedReason::kNone;
    for (const auto& entry : group_min) pod_set_reason = cluster::MostSevereReason(pod_set_reason, entry.second);
    overall = cluster::MostSevereReason(overall, pod_set_reason);
  }
  no_fit_reason = overall;
}

bool IsTasOnly(const cluster::ClusterState& state, const ClusterQueueInfo& cq) {
  for (const auto& group : cq.groups) {
    for (FlavorId f : group.flavors) {
      const auto& flavor = state.flavor(f);
      if (!flavor.exists || flavor.spec->topology_name.empty()) return false;
    }
  }
  return true;
}

bool IsTasRequested(const cluster::ClusterState& state, const ClusterQueueInfo& cq,
                    const model::PodSet& pod_set) {
  if (pod_set.topology_request.has_value() && pod_set.topology_request->IsExplicit()) return true;
  return IsTasOnly(state, cq);
}

struct FlavorAssigner::FlavorSearchResult {
  FlavorList flavors;
  std::vector<FlavorReason> reasons;
  absl::InlinedVector<FlavorAttempt, 2> attempts;  // the flavors tried
  bool error = false;
  bool fit = false;  // status nil in Kueue: the best mode was a plain fit
};

FlavorAssigner::FlavorAssigner(const cluster::ClusterState& state, cluster::CqId cq,
                               const cluster::WorkloadRecord& workload,
                               cluster::WorkloadId workload_id, PreemptionOracle* oracle,
                               TopologyPlacer* placer, FlavorAssignerOptions options)
    : state_(state),
      cq_(cq),
      cq_info_(state.cq(cq)),
      workload_(workload),
      workload_id_(workload_id),
      oracle_(oracle),
      placer_(placer),
      options_(options) {}

Assignment FlavorAssigner::Assign(const std::vector<int32_t>* counts) {
  Assignment assignment;
  assignment.last_state.cluster_queue_generation = cq_info_.allocatable_generation;
  assignment.last_state.scheduling_cycle = options_.scheduling_cycle;
  assignment.last_state.scheduling_hash = workload_.scheduling_hash;
  const bool ignore_undeclared =
      state_.gates().quota_check_strategy && state_.configuration().quota_check_ignore_undeclared;
  const bool observability = state_.gates().unadmitted_workloads_observability;

  // Per pod set totals, and the pod set groups in order of first appearance.
  // (Small inline containers: a workload has few pod sets and resources, and
  // this runs for every head of every cycle.)
  const size_t n = workload_.pod_sets.size();
  absl::InlinedVector<absl::InlinedVector<ResourceAmount, 4>, 2> totals(n);
  absl::InlinedVector<int32_t, 4> pod_counts(n);
  absl::InlinedVector<std::string, 2> group_keys;
  absl::InlinedVector<PodSetGroup, 2> groups;
  for (size_t i = 0; i < n; ++i) {
    const cluster::PodSetInfo& ps = workload_.pod_sets[i];
    pod_counts[i] = counts != nullptr ? (*counts)[i] : ps.count;
    for (const ResourceAmount& r : ps.per_pod) {
      totals[i].push_back({r.resource, MulAmount(r.amount, pod_counts[i])});
    }
    if (cq_info_.covers_pods) SetRequest(state_, &totals[i], state_.pods_resource(), pod_counts[i]);
    std::string key = std::to_string(i);
    if (ps.spec->topology_request.has_value() && ps.spec->topology_request->pod_set_group_name) {
      key = *ps.spec->topology_request->pod_set_group_name;
    }
    auto it = std::find(group_keys.begin(), group_keys.end(), key);
    if (it == group_keys.end()) {
      group_keys.push_back(std::move(key));
      groups.emplace_back().push_back(i);
    } else {
      groups[static_cast<size_t>(it - group_keys.begin())].push_back(i);
    }
  }

  for (const PodSetGroup& group : groups) {
    absl::InlinedVector<ResourceAmount, 4> requests;
    for (size_t i : group) {
      for (const ResourceAmount& r : totals[i]) {
        auto it = std::find_if(requests.begin(), requests.end(),
                               [&](const ResourceAmount& x) { return x.resource == r.resource; });
        if (it == requests.end()) {
          SetRequest(state_, &requests, r.resource, r.amount);
        } else {
          it->amount = AddAmounts(it->amount, r.amount);
        }
      }
    }
    absl::InlinedVector<ResourceFlavorAssignment, 4> group_flavors;
    bool group_error = false;
    std::vector<FlavorReason> group_reasons;
    // The flavors tried for the group, merged across its resources
    // (mergeFlavorAttempts: the worse outcome, the more severe reason).
    absl::InlinedVector<FlavorAttempt, 2> group_attempts;
    auto merge_attempts = [&group_attempts](const absl::InlinedVector<FlavorAttempt, 2>& attempts) {
      for (const FlavorAttempt& attempt : attempts) {
        auto it = std::find_if(group_attempts.begin(), group_attempts.end(),
                               [&](const FlavorAttempt& a) { return a.flavor == attempt.flavor; });
        if (it == group_attempts.end()) {
          group_attempts.push_back(attempt);
        } else {
          it->no_fit = it->no_fit || attempt.no_fit;
          it->reason = cluster::MostSevereReason(it->reason, attempt.reason);
        }
      }
    };
    for (const ResourceAmount& request : requests) {
      if (cq_info_.GroupOf(request.resource) == kNone) {
        if (request.amount == 0) continue;
        if (ignore_undeclared) continue;
      }
      auto found = std::find_if(group_flavors.begin(), group_flavors.end(),
                                [&](const auto& f) { return f.resource == request.resource; });
      if (found != group_flavors.end()) continue;
      FlavorSearchResult result =
          FindFlavorForPodSets(group, requests, request.resource, assignment.usage);
      merge_attempts(result.attempts);
      if (result.error || (result.flavors.empty() && !requests.empty())) {
        group_flavors.clear();
        group_error = result.error;
        group_reasons = std::move(result.reasons);
        break;
      }
      group_flavors.insert(group_flavors.end(), result.flavors.begin(), result.flavors.end());
      if (!result.fit) {
        group_reasons.insert(group_reasons.end(), std::make_move_iterator(result.reasons.begin()),
                             std::make_move_iterator(result.reasons.end()));
      }
    }

    bool failed = false;
    for (size_t member = 0; member < group.size(); ++member) {
      const size_t i = group[member];
      const bool last_member = member + 1 == group.size();
      PodSetAssignmentResult ps;
      ps.pod_set_index = static_cast<int32_t>(i);
      ps.count = pod_counts[i];
      ps.requests = std::move(totals[i]);
      // resolvePodSetFlavors: the group's flavors of the resources this pod
      // set requests; a pod set requesting nothing inherits the group's TAS
      // flavors.
      if (!ps.requests.empty()) {
        for (const auto& f : group_flavors) {
          bool requested = std::any_of(ps.requests.begin(), ps.requests.end(),
                                       [&](const ResourceAmount& r) { return r.resource == f.resource; });
          if (requested) ps.flavors.push_back(f);
        }
      } else if (workload_.pod_sets[i].spec->topology_request.has_value() &&
                 workload_.pod_sets[i].spec->topology_request->pod_set_group_name) {
        for (const auto& f : group_flavors) {
          const auto& flavor = state_.flavor(f.flavor);
          if (flavor.exists && !flavor.spec->topology_name.empty()) ps.flavors.push_back(f);
        }
      }
      if (last_member) {
        ps.reasons = std::move(group_reasons);
        ps.attempts = std::move(group_attempts);
      } else {
        ps.reasons = group_reasons;
        ps.attempts = group_attempts;
      }
      ps.error = group_error;
      // assignment.append
      cluster::LastAssignmentState::TriedFlavors tried;
      for (const auto& f : ps.flavors) {
        assignment.borrowing = std::max(assignment.borrowing, f.borrow);
        Amount amount = 0;
        for (const ResourceAmount& r : ps.requests) {
          if (r.resource == f.resource) amount = r.amount;
        }
        AddToUsage(&assignment.usage, state_.FindFr(f.flavor, f.resource), amount);
        tried.emplace_back(f.resource, f.tried_flavor_idx);
      }
      assignment.last_state.last_tried_flavor_idx.push_back(std::move(tried));
      if (ps.error || (!ps.requests.empty() && ps.flavors.empty())) failed = true;
      assignment.pod_sets.push_back(std::move(ps));
    }
    if (failed) {
      if (observability) assignment.ResolveNoFitReason(cq_info_);
      return assignment;
    }
  }
  if (assignment.RepresentativeMode() == AssignmentMode::kNoFit) {
    if (observability) assignment.ResolveNoFitReason(cq_info_);
    return assignment;
  }

  // Topology-aware scheduling (the TAS pass of Assign).
  if (placer_ != nullptr && state_.gates().topology_aware_scheduling) {
    const std::vector<TasPodSetRequest> requests = placer_->Requests(cq_, workload_id_, &assignment);
    if (assignment.RepresentativeMode() == AssignmentMode::kFit) {
      TasPlacementResult result = placer_->Place(cq_, workload_id_, assignment, requests,
                                                 /*simulate_empty=*/false);
      if (auto failure = result.Failure()) {
        // At least one pod set does not fit: it may after preemptions.
        const auto& failed = result.pod_sets[*failure];
        assignment.pod_sets[failed.pod_set].reasons.push_back(FlavorReason::Text(failed.failure_reason));
        assignment.UpdateMode(failed.pod_set, AssignmentMode::kPreempt);
      } else {
        UpdateForTasResult(&assignment, result);
      }
    }
    if (assignment.RepresentativeMode() == AssignmentMode::kPreempt) {
      TasPlacementResult result = placer_->Place(cq_, workload_id_, assignment, requests,
                                                 /*simulate_empty=*/true);
      if (auto failure = result.Failure()) {
        // It does not fit even if every TAS workload were preempted.
        const auto& failed = result.pod_sets[*failure];
        if (observability) {
          for (FlavorAttempt& attempt : assignment.pod_sets[failed.pod_set].attempts) {
            if (attempt.flavor != failed.flavor) continue;
            attempt.no_fit = true;
            attempt.reason = QuotaReservedReason::kTopologyPlacementFailed;
            break;
          }
        }
        assignment.UpdateMode(failed.pod_set, AssignmentMode::kNoFit);
      } else {
        // Preemption may be needed even where the quota fits (Fit): the
        // capacity may be fragmented.
        for (const auto& request : requests) {
          assignment.UpdateMode(request.pod_set, AssignmentMode::kPreempt);
        }
      }
    }
  }
  if (observability) assignment.ResolveNoFitReason(cq_info_);
  return assignment;
}

FlavorAssigner::FlavorSearchResult FlavorAssigner::FindFlavorForPodSets(
    const PodSetGroup& pod_sets, absl::Span<const ResourceAmount> requests, ResourceId resource,
    std::span<const FrAmount> usage) {
  FlavorSearchResult result;
  const int32_t group_index = cq_info_.GroupOf(resource);
  if (group_index == kNone) {
    result.reasons.push_back(FlavorReason::Text(
        fmt::format("resource {} unavailable in ClusterQueue", state_.resource_name(resource))));
    return result;
  }
  const cluster::ResourceGroupInfo& group = cq_info_.groups[static_cast<size_t>(group_index)];
  // The requests covered by this resource group, with their index in the
  // group's covered list.
  absl::InlinedVector<std::pair<size_t, Amount>, 4> covered;
  for (const ResourceAmount& r : requests) {
    for (size_t c = 0; c < group.covered.size(); ++c) {
      if (group.covered[c] == r.resource) covered.emplace_back(c, r.amount);
    }
  }
  const model::FlavorFungibility& fungibility = cq_info_.spec->flavor_fungibility;
  const bool fungibility_gate = state_.gates().flavor_fungibility;
  const bool respect_nomination =
      options_.nomination_mapping != nullptr && !options_.nomination_mapping->empty() &&
      (state_.gates().recompute_assignment_upon_preemption_targets_overlap ||
       (state_.gates().topology_aware_scheduling &&
        state_.gates().tas_recompute_assignment_within_scheduling_cycle));
  const quota::QuotaTree& tree = state_.tree();

  FlavorList best;
  GranularMode best_mode = WorstMode();
  int32_t attempted = -1;
  int32_t start = 0;
  if (fungibility_gate && workload_.last_assignment.has_value()) {
    start = workload_.last_assignment->NextFlavorToTry(pod_sets[0], resource);
  }
  // The flavors the annotation allows (ConcurrentAdmission); nullopt: all.
  std::optional<std::vector<std::string_view>> allowed_flavors;
  if (state_.gates().concurrent_admission) {
    const auto& annotations = workload_.spec->meta.annotations;
    if (auto it = annotations.find(kAllowedFlavorsAnnotation); it != annotations.end()) {
      allowed_flavors = ParseAllowedFlavors(it->second);
    }
  }
  const int32_t num_flavors = static_cast<int32_t>(group.flavors.size());
  for (int32_t idx = start; idx < num_flavors; ++idx) {
    attempted = idx;
    const FlavorId flavor = group.flavors[static_cast<size_t>(idx)];
    const std::string& flavor_name = state_.flavor(flavor).name;
    if (respect_nomination) {
      bool in_mapping = false;
      for (size_t i : pod_sets) {
        if (i >= options_.nomination_mapping->size()) continue;
        for (const auto& [r, f] : (*options_.nomination_mapping)[i]) {
          if (r == resource && f == flavor) in_mapping = true;
        }
      }
      if (!in_mapping) {
        result.reasons.push_back(FlavorReason::Text(fmt::format(
            "skipping flavor {} as it is not found in the nomination mapping for resource {}",
            flavor_name, state_.resource_name(resource))));
        continue;
      }
    }
    if (allowed_flavors.has_value() &&
        std::find(allowed_flavors->begin(), allowed_flavors->end(), flavor_name) == allowed_flavors->end()) {
      result.reasons.push_back(FlavorReason::Text(fmt::format(
          "skipping flavor {} due to WorkloadAllowedResourceFlavorAnnotation annotation", flavor_name)));
      continue;
    }
    std::vector<std::string> flavor_reasons = CheckFlavorForPodSets(flavor, pod_sets, group);
    if (!flavor_reasons.empty()) {
      for (std::string& reason : flavor_reasons) result.reasons.push_back(FlavorReason::Text(std::move(reason)));
      result.attempts.push_back({flavor, /*no_fit=*/true, QuotaReservedReason::kNoMatchingFlavor});
      continue;
    }

    FlavorList assignments;
    GranularMode representative = BestMode();
    // The most severe reason among the resources (flavorNoFitReason).
    QuotaReservedReason flavor_no_fit_reason = QuotaReservedReason::kNone;
    for (const auto& [c, value] : covered) {
      const ResourceId r = group.covered[c];
      const FrId fr = group.Fr(static_cast<size_t>(idx), c);
      // fitsResourceQuota
      const Amount available = tree.Available(cq_info_.node, fr);
      const Amount max_capacity = tree.PotentialAvailable(cq_info_.node, fr);
      const Amount assumed = FindAmount(usage, fr);
      const Amount val = AddAmounts(assumed, value);
      PreemptionMode mode;
      int32_t borrow = 0;
      if (val > max_capacity) {
        mode = PreemptionMode::kNoFit;
        FlavorReason reason;
        reason.kind = FlavorReason::Kind::kOverMaximumCapacity;
        reason.resource = r;
        reason.flavor = flavor;
        reason.assumed = assumed;
        reason.request = value;
        reason.limit = max_capacity;
        result.reasons.push_back(std::move(reason));
        flavor_no_fit_reason = cluster::MostSevereReason(flavor_no_fit_reason, QuotaReservedReason::kExceedsMaxQuota);
      } else {
        auto [level, may_reclaim] = tree.FindHeightOfLowestSubtreeThatFits(cq_info_.node, fr, val);
        borrow = level;
        if (val <= available) {
          mode = PreemptionMode::kFit;
        } else {
          FlavorReason reason;
          reason.kind = FlavorReason::Kind::kInsufficientUnusedQuota;
          reason.resource = r;
          reason.flavor = flavor;
          reason.request = SubAmounts(val, available);
          result.reasons.push_back(std::move(reason));
          const auto& preemption = cq_info_.spec->preemption;
          const bool can_preempt_while_borrowing =
              (preemption.borrow_within_cohort.has_value() &&
               preemption.borrow_within_cohort->policy != model::BorrowWithinCohortPolicy::kNever) ||
              (options_.fair_sharing &&
               preemption.reclaim_within_cohort != model::PreemptionPolicy::kNever);
          if (tree.quota(cq_info_.node, fr).nominal >= val || may_reclaim ||
              can_preempt_while_borrowing) {
            if (oracle_ != nullptr) {
              auto [possibility, borrow_after] =
                  oracle_->SimulatePreemption(cq_, workload_id_, fr, val);
              mode = FromPossibility(possibility);
              borrow = borrow_after;
            } else {
              mode = PreemptionMode::kNoPreemptionCandidates;
            }
          } else {
            mode = PreemptionMode::kNoFit;
            // Waiting helps; preemption cannot.
            flavor_no_fit_reason =
                cluster::MostSevereReason(flavor_no_fit_reason, QuotaReservedReason::kWaitingForQuota);
          }
        }
      }
      GranularMode granular{mode, borrow};
      if (IsPreferred(representative, granular, fungibility)) representative = granular;
      if (representative.preemption_mode == PreemptionMode::kNoFit) continue;
      ResourceFlavorAssignment a;
      a.resource = r;
      a.flavor = flavor;
      a.mode = ToAssignmentMode(mode);
      a.borrow = borrow;
      assignments.push_back(a);
    }
    result.attempts.push_back(
        {flavor, representative.preemption_mode == PreemptionMode::kNoFit, flavor_no_fit_reason});

    if (fungibility_gate) {
      if (!ShouldTryNextFlavor(representative, fungibility)) {
        best.assign(assignments.begin(), assignments.end());
        best_mode = representative;
        break;
      }
      if (IsPreferred(representative, best_mode, fungibility)) {
        best.assign(assignments.begin(), assignments.end());
        best_mode = representative;
      }
    } else if (representative.preemption_mode > best_mode.preemption_mode) {
      best.assign(assignments.begin(), assignments.end());
      best_mode = representative;
      if (best_mode.preemption_mode == PreemptionMode::kFit) {
        result.flavors.assign(best.begin(), best.end());
        result.fit = true;
        result.reasons.clear();
        return result;
      }
    }
  }

  if (fungibility_gate) {
    for (auto& a : best) a.tried_flavor_idx = attempted == num_flavors - 1 ? -1 : attempted;
    if (best_mode.preemption_mode == PreemptionMode::kFit) {
      result.flavors.assign(best.begin(), best.end());
      result.fit = true;
      result.reasons.clear();
      return result;
    }
  }
  result.flavors.assign(best.begin(), best.end());
  return result;
}

std::vector<std::string> FlavorAssigner::CheckFlavorForPodSets(
    FlavorId flavor_id, const PodSetGroup& pod_sets,
    const cluster::ResourceGroupInfo& group) const {
  const cluster::FlavorInfo& flavor = state_.flavor(flavor_id);
  if (!flavor.exists) return {fmt::format("flavor {} not found", flavor.name)};
  const model::ResourceFlavor& spec = *flavor.spec;
  for (size_t i : pod_sets) {
    const model::PodSet& ps = *workload_.pod_sets[i].spec;
    if (state_.gates().topology_aware_scheduling) {
      // checkPodSetAndFlavorMatchForTAS
      if (IsTasRequested(state_, cq_info_, ps)) {
        // Not explicit: implied by a TAS-only ClusterQueue, every flavor matches.
        const bool implied = !(ps.topology_request.has_value() && ps.topology_request->IsExplicit());
        if (!implied) {
          if (spec.topology_name.empty()) {
            // Accepted only when it provides none of the pod's resources
            // (resources.NewRequestsFromPodSpec: the template's requests).
            bool overlaps = false;
            for (const auto& r : ps.requests) {
              for (ResourceId covered : group.covered) {
                overlaps = overlaps || state_.resource_name(covered) == r.name;
              }
            }
            if (overlaps) {
              return {fmt::format("Flavor \"{}\" does not support TopologyAwareScheduling", flavor.name)};
            }
          } else if (state_.tas() == nullptr || !state_.tas()->IsTasFlavor(flavor_id)) {
            return {fmt::format("Flavor \"{}\" information missing in TAS cache", flavor.name)};
          } else if (!state_.tas()->Snapshot(flavor_id).HasLevel(*ps.topology_request)) {
            return {fmt::format("Flavor \"{}\" does not contain the requested level", flavor.name)};
          }
        }
      } else if (!spec.topology_name.empty()) {
        return {fmt::format("Flavor \"{}\" supports only TopologyAwareScheduling", flavor.name)};
      }
    }
    std::vector<model::Toleration> tolerations = ps.rare->tolerations;
    tolerations.insert(tolerations.end(), spec.tolerations.begin(), spec.tolerations.end());
    if (auto taint = model::FindUntoleratedTaint(spec.node_taints, tolerations)) {
      return {fmt::format("untolerated taint {} in flavor {}", KueueTaintString(*taint), flavor.name)};
    }
    if (!model::MatchesFlavorLabels(ps.rare->node_selector, ps.rare->required_affinity, spec.node_labels)) {
      return {fmt::format("flavor {} doesn't match node affinity", flavor.name)};
    }
  }
  return {};
}

std::optional<std::vector<int32_t>> SearchPartialAdmissionCounts(
    const std::vector<int32_t>& full_counts, const std::vector<int32_t>& min_counts,
    const std::function<bool(const std::vector<int32_t>&)>& fits) {
  std::vector<int32_t> deltas(full_counts.size());
  int64_t total_delta = 0;
  for (size_t i = 0; i < full_counts.size(); ++i) {
    deltas[i] = full_counts[i] - min_counts[i];
    total_delta += deltas[i];
  }
  if (total_delta == 0) return std::nullopt;
  std::vector<int32_t> current(full_counts.size());
  auto fill = [&](int64_t index) {
    for (size_t i = 0; i < deltas.size(); ++i) {
      current[i] = full_counts[i] - static_cast<int32_t>(static_cast<int64_t>(deltas[i]) * index / total_delta);
    }
  };
  // sort.Search(total_delta + 1, f), tracking the last index that fit.
  int64_t last_good = 0;
  std::vector<int32_t> last_counts;
  int64_t lo = 0;
  int64_t hi = total_delta + 1;
  while (lo < hi) {
    int64_t mid = static_cast<int64_t>(static_cast<uint64_t>(lo + hi) >> 1);
    fill(mid);
    bool ok = fits(current);
    if (ok) {
      last_good = mid;
      last_counts = current;
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  if (lo != last_good || last_counts.empty()) return std::nullopt;
  return last_counts;
}

}  // namespace kueuesim::flavor
