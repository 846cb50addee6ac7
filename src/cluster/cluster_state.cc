// Building the compiled cluster state from a ClusterSpec.
#include "kueuesim/cluster/cluster_state.h"

#include <algorithm>
#include <memory>
#include <functional>
#include <numeric>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "absl/cleanup/cleanup.h"
#include "kueuesim/base/status.h"
#include "kueuesim/cluster/tas_cache.h"

namespace kueuesim::cluster {

namespace {

// The index maps are absl::flat_hash_maps; this Abseil build has its own
// string_view type, which their heterogeneous lookup takes.
absl::string_view LookupKey(std::string_view text) { return absl::string_view(text.data(), text.size()); }

constexpr char kPriorityClassLabel[] = "kueue.x-k8s.io/priority-class";
constexpr char kPodPriorityClassSource[] = "scheduling.k8s.io/priorityclass";

// Multiplies a non-negative quantity by a non-negative integer, exactly.
Quantity MultiplyQuantity(const Quantity& q, int64_t factor) {
  Quantity out = q;
  if (factor == 0 || q.IsZero()) {
    out.mantissa.clear();
    return out;
  }
  // Schoolbook multiplication of the decimal digit string by `factor`.
  std::string factor_digits = std::to_string(factor);
  std::vector<int> result(q.mantissa.size() + factor_digits.size(), 0);
  for (size_t i = q.mantissa.size(); i-- > 0;) {
    for (size_t j = factor_digits.size(); j-- > 0;) {
      size_t pos = i + j + 1;
      int sum = (q.mantissa[i] - '0') * (factor_digits[j] - '0') + result[pos];
      result[pos] = sum % 10;
      result[pos - 1] += sum / 10;
    }
  }
  std::string digits;
  for (int d : result) {
    if (digits.empty() && d == 0) continue;
    digits.push_back(static_cast<char>('0' + d));
  }
  out.mantissa = digits;
  return out;
}

uint64_t HashCombine(uint64_t seed, uint64_t value) {
  // 64-bit mix (splitmix-style); deterministic across processes.
  value += 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  value ^= value >> 30;
  value *= 0xbf58476d1ce4e5b9ULL;
  value ^= value >> 27;
  value *= 0x94d049bb133111ebULL;
  value ^= value >> 31;
  return seed ^ value;
}

// The DRA charger of a cluster (Kueue's ResourceMapper plus what its
// workload controller reads: DeviceClasses, claim templates, slices).
absl::StatusOr<std::unique_ptr<dra::Charger>> NewDraCharger(const scenario::ClusterSpec& spec,
                                                           const model::FeatureGates& gates) {
  dra::ChargerInputs inputs;
  inputs.mappings = spec.configuration.device_class_mappings;
  inputs.mappings_source = spec.configuration.source;
  inputs.device_classes = &spec.device_classes;
  inputs.templates = &spec.resource_claim_templates;
  inputs.slices = &spec.resource_slices;
  inputs.gates = gates;
  return dra::Charger::Create(inputs);
}

uint64_t HashString(std::string_view text) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

std::string_view WorkloadPhaseName(WorkloadPhase phase) {
  switch (phase) {
    case WorkloadPhase::kNotArrived: return "NotArrived";
    case WorkloadPhase::kPending: return "Pending";
    case WorkloadPhase::kQuotaReserved: return "QuotaReserved";
    case WorkloadPhase::kAdmitted: return "Admitted";
    case WorkloadPhase::kFinished: return "Finished";
    case WorkloadPhase::kDeactivated: return "Deactivated";
  }
  return "?";
}

std::string_view EvictionReasonName(EvictionReason reason) {
  switch (reason) {
    case EvictionReason::kNotEvicted:
      return "";
    case EvictionReason::kPreempted:
      return "Preempted";
    case EvictionReason::kPodsReadyTimeout:
      return "PodsReadyTimeout";
    case EvictionReason::kAdmissionCheck:
      return "AdmissionCheck";
    case EvictionReason::kClusterQueueStopped:
      return "ClusterQueueStopped";
    case EvictionReason::kLocalQueueStopped:
      return "LocalQueueStopped";
    case EvictionReason::kDeactivated:
      return "Deactivated";
    case EvictionReason::kNodeFailures:
      return "NodeFailures";
  }
  return "";
}

bool LastAssignmentState::PendingFlavors() const {
  for (const auto& pod_set : last_tried_flavor_idx) {
    for (const auto& [resource, idx] : pod_set) {
      if (idx != -1) return true;
    }
  }
  return false;
}

int32_t LastAssignmentState::NextFlavorToTry(size_t pod_set, ResourceId resource) const {
  if (pod_set >= last_tried_flavor_idx.size()) return 0;
  for (const auto& [r, idx] : last_tried_flavor_idx[pod_set]) {
    if (r == resource) return idx + 1;
  }
  return 0;
}

ClusterState::~ClusterState() = default;

bool ClusterState::HasAdmissionCheckController(CqId cq, std::string_view controller,
                                               FlavorId flavor) const {
  for (const auto& ref : cqs_[static_cast<size_t>(cq)].spec->admission_checks) {
    const model::AdmissionCheck* check = nullptr;
    for (const auto& c : spec_.admission_checks) {
      if (c.meta.name == ref.name) check = &c;
    }
    if (check == nullptr || check->controller_name != controller) continue;
    if (flavor == kNone || ref.on_flavors.empty()) return true;
    if (std::find(ref.on_flavors.begin(), ref.on_flavors.end(), flavors_[static_cast<size_t>(flavor)].name) !=
        ref.on_flavors.end()) {
      return true;
    }
  }
  return false;
}

ResourceId ClusterState::InternResource(std::string_view name) {
  auto it = resource_index_.find(LookupKey(name));
  if (it != resource_index_.end()) return it->second;
  ResourceId id = static_cast<ResourceId>(resources_.size());
  resources_.emplace_back(name);
  resource_index_.emplace(std::string(name), id);
  if (name == "pods") pods_resource_ = id;
  ComputeResourceRanks();
  return id;
}

void ClusterState::ComputeResourceRanks() {
  std::vector<int32_t> order(resources_.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return resources_[static_cast<size_t>(a)] < resources_[static_cast<size_t>(b)];
  });
  resource_rank_.assign(resources_.size(), 0);
  for (size_t rank = 0; rank < order.size(); ++rank) {
    resource_rank_[static_cast<size_t>(order[rank])] = static_cast<int32_t>(rank);
  }
}

FlavorId ClusterState::InternFlavor(std::string_view name) {
  auto it = flavor_index_.find(LookupKey(name));
  if (it != flavor_index_.end()) return it->second;
  FlavorId id = static_cast<FlavorId>(flavors_.size());
  FlavorInfo info;
  info.name = std::string(name);
  flavors_.push_back(std::move(info));
  flavor_index_.emplace(std::string(name), id);
  return id;
}

FrId ClusterState::InternFr(FlavorId flavor, ResourceId resource) {
  auto [it, inserted] = fr_index_.emplace(std::make_pair(flavor, resource),
                                          static_cast<FrId>(fr_flavor_.size()));
  if (inserted) {
    fr_flavor_.push_back(flavor);
    fr_resource_.push_back(resource);
  }
  return it->second;
}

ResourceId ClusterState::FindResource(std::string_view name) const {
  auto it = resource_index_.find(LookupKey(name));
  return it == resource_index_.end() ? kNone : it->second;
}

FlavorId ClusterState::FindFlavor(std::string_view name) const {
  auto it = flavor_index_.find(LookupKey(name));
  return it == flavor_index_.end() ? kNone : it->second;
}

FrId ClusterState::FindFr(FlavorId flavor, ResourceId resource) const {
  auto it = fr_index_.find({flavor, resource});
  return it == fr_index_.end() ? kNone : it->second;
}

CqId ClusterState::FindClusterQueue(std::string_view name) const {
  auto it = cq_index_.find(LookupKey(name));
  return it == cq_index_.end() ? kNone : it->second;
}

LqId ClusterState::FindLocalQueue(std::string_view ns, std::string_view name) const {
  // The index key "ns/name", built on the stack when it fits (every
  // arriving workload looks its LocalQueue up).
  const size_t size = ns.size() + 1 + name.size();
  char buffer[256];
  std::string heap_key;
  char* key = buffer;
  if (size > sizeof(buffer)) {
    heap_key.resize(size);
    key = heap_key.data();
  }
  std::copy(ns.begin(), ns.end(), key);
  key[ns.size()] = '/';
  std::copy(name.begin(), name.end(), key + ns.size() + 1);
  auto it = lq_index_.find(absl::string_view(key, size));
  return it == lq_index_.end() ? kNone : it->second;
}

NamespaceId ClusterState::FindOrAddNamespace(std::string_view name) {
  auto it = namespace_index_.find(LookupKey(name));
  if (it != namespace_index_.end()) return it->second;
  NamespaceId id = static_cast<NamespaceId>(namespaces_.size());
  NamespaceInfo info;
  info.name = std::string(name);
  // A namespace referenced without a Namespace object is taken to exist,
  // with the label Kubernetes gives every namespace.
  info.labels["kubernetes.io/metadata.name"] = info.name;
  info.exists = true;
  namespaces_.push_back(std::move(info));
  namespace_index_.emplace(std::string(name), id);
  return id;
}

int32_t ClusterState::ResolvePriority(const model::Workload& spec) const {
  if (spec.priority.has_value()) return *spec.priority;
  auto find = [](const absl::flat_hash_map<std::string, int32_t>& map,
                 const std::string& name) -> std::optional<int32_t> {
    auto it = map.find(name);
    if (it == map.end()) return std::nullopt;
    return it->second;
  };
  // A job integration's own PriorityClass (Kubeflow's
  // runPolicy.schedulingPolicy.priorityClass) ranks after the
  // WorkloadPriorityClass label and its default (jobframework.ExtractPriority).
  const bool job_priority_class = spec.source_kind != model::WorkloadSourceKind::kWorkload &&
                                  spec.rare->priority_class_source == kPodPriorityClassSource &&
                                  !spec.priority_class_name.empty();
  if (!spec.priority_class_name.empty() && !job_priority_class) {
    auto value = spec.rare->priority_class_source == kPodPriorityClassSource
                     ? find(priority_classes_, spec.priority_class_name)
                     : find(workload_priority_classes_, spec.priority_class_name);
    if (value.has_value()) return *value;
  }
  if (spec.source_kind == model::WorkloadSourceKind::kWorkload) return 0;
  // Job integrations (jobframework): the WorkloadPriorityClass label — which
  // the webhook sets to "default" when there is none and a
  // WorkloadPriorityClass named "default" exists
  // (ApplyDefaultWorkloadPriorityClass, WorkloadPriorityClassDefaulting) —
  // then the pod PriorityClass, then the global default.
  if (auto it = spec.meta.labels.find(kPriorityClassLabel); it != spec.meta.labels.end()) {
    if (auto value = find(workload_priority_classes_, it->second)) return *value;
  } else if (gates_.workload_priority_class_defaulting) {
    if (auto value = find(workload_priority_classes_, "default")) return *value;
  }
  if (job_priority_class) {
    if (auto value = find(priority_classes_, spec.priority_class_name)) return *value;
    if (global_default_priority_.has_value()) return *global_default_priority_;
    return 0;
  }
  for (const auto& pod_set : spec.pod_sets) {
    if (pod_set.rare->priority_class_name.empty()) continue;
    if (auto value = find(priority_classes_, pod_set.rare->priority_class_name)) return *value;
    break;
  }
  if (global_default_priority_.has_value()) return *global_default_priority_;
  return 0;
}

absl::Status ClusterState::EffectiveRequests(const model::PodSet& pod_set, const std::string& key,
                                             ResourceAmountList* out) {
  out->clear();
  // Drop excluded prefixes, then apply transformations
  // (workload.dropExcludedResources / applyResourceTransformations).
  if (configuration_.transformations.empty()) {
    // Without transformations (the common case, and every arriving
    // workload comes here): the kept requests by name, the last of a
    // repeated name winning, as the map below would give.
    absl::InlinedVector<std::pair<const std::string*, Amount>, 4> kept;
    for (const auto& request : pod_set.requests) {
      bool excluded = false;
      for (const auto& prefix : configuration_.exclude_resource_prefixes) {
        if (request.name.compare(0, prefix.size(), prefix) == 0) excluded = true;
      }
      if (excluded) continue;
      auto same = std::find_if(kept.begin(), kept.end(), [&](const auto& k) { return *k.first == request.name; });
      if (same != kept.end()) {
        same->second = request.amount;
      } else {
        kept.emplace_back(&request.name, request.amount);
      }
    }
    std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
    for (const auto& [name, amount] : kept) out->push_back({InternResource(*name), amount});
    return absl::OkStatus();
  }
  std::map<std::string, Amount> requests;
  for (const auto& request : pod_set.requests) {
    bool excluded = false;
    for (const auto& prefix : configuration_.exclude_resource_prefixes) {
      if (request.name.compare(0, prefix.size(), prefix) == 0) excluded = true;
    }
    if (!excluded) requests[request.name] = request.amount;
  }
  if (!configuration_.transformations.empty()) {
    std::map<std::string, Amount> transformed;
    for (const auto& [name, amount] : requests) {
      const model::ResourceTransformation* transformation = nullptr;
      for (const auto& t : configuration_.transformations) {
        if (t.input == name) transformation = &t;
      }
      if (transformation == nullptr) {
        transformed[name] = AddAmounts(transformed[name], amount);
        continue;
      }
      if (transformation->strategy == model::TransformationStrategy::kRetain) {
        transformed[name] = AddAmounts(transformed[name], amount);
      }
      for (const auto& [output, per_unit] : transformation->outputs) {
        // amount is canonical for `name`; the exact input quantity is
        // amount * 10^-3 for cpu, amount otherwise.
        Quantity product = MultiplyQuantity(per_unit, amount);
        if (IsMilliResource(name)) product.exponent10 -= 3;
        auto value = CanonicalValue(product, output);
        if (!value.ok()) {
          return InvalidArgument(fmt::format(
              "Workload \"{}\": pod set \"{}\": transformation of \"{}\" into \"{}\" overflows", key,
              pod_set.name, name, output));
        }
        transformed[output] = AddAmounts(transformed[output], *value);
      }
    }
    requests = std::move(transformed);
  }
  for (const auto& [name, amount] : requests) out->push_back({InternResource(name), amount});
  // std::map iterates by name: the list is sorted by resource name.
  return absl::OkStatus();
}

WorkloadId ClusterState::TakeSlot() {
  if (free_slots_.empty()) {
    workloads_.emplace_back();
    return static_cast<WorkloadId>(workloads_.size() - 1);
  }
  const WorkloadId id = free_slots_.back();
  free_slots_.pop_back();
  // Stale timed events of the previous occupant must never match.
  ++workloads_[static_cast<size_t>(id)].run_generation;
  return id;
}

void ClusterState::ResetSlot(WorkloadId id) {
  WorkloadRecord& wl = workloads_[static_cast<size_t>(id)];
  const uint32_t generation = wl.run_generation;
  // Destroyed and made afresh in place (cheaper than assigning a
  // temporary: the record is large).
  std::destroy_at(&wl);
  std::construct_at(&wl);
  wl.run_generation = generation;
  free_slots_.push_back(id);
}

absl::StatusOr<WorkloadId> ClusterState::AddWorkload(std::shared_ptr<const model::Workload> spec) {
  std::string key;
  key.reserve(spec->meta.namespace_.size() + 1 + spec->meta.name.size());
  key.append(spec->meta.namespace_).append("/").append(spec->meta.name);
  if (workload_index_.contains(std::string_view(key))) {
    return InvalidArgument(fmt::format("{}: Workload \"{}\": duplicate workload", spec->meta.source.ToString(), key));
  }
  // The record is built in its slot (it is large); a workload refused on
  // the way gives the slot back.
  const WorkloadId id = TakeSlot();
  WorkloadRecord& record = workloads_[static_cast<size_t>(id)];
  bool built = false;
  absl::Cleanup give_back_slot = [&] {
    if (!built) ResetSlot(id);
  };
  record.key = std::move(key);
  record.ns = FindOrAddNamespace(spec->meta.namespace_);
  record.lq = FindLocalQueue(spec->meta.namespace_, spec->queue_name);
  record.priority = ResolvePriority(*spec);
  record.creation = spec->meta.creation_timestamp.value_or(start_time_ + spec->arrival);
  record.queue_order_timestamp = record.creation;
  // An input Workload evicted by an admission check, or by the PodsReady
  // timeout when requeuing counts from the eviction, is ordered by the
  // eviction's time (workload.Ordering.GetQueueOrderTimestamp); the Evicted
  // condition stays True until its next quota reservation.
  if (spec->rare->evicted_condition.has_value() && spec->rare->evicted_condition->last_transition_time.has_value()) {
    const std::string& reason = spec->rare->evicted_condition->reason;
    if (reason == "AdmissionCheck" ||
        (reason == "PodsReadyTimeout" &&
         configuration_.wait_for_pods_ready.requeuing_timestamp == model::RequeuingTimestamp::kEviction)) {
      record.queue_order_timestamp = *spec->rare->evicted_condition->last_transition_time;
    }
  }
  record.input_sequence = spec->input_sequence;
  record.input_subsequence = spec->input_subsequence;
  record.arrival = spec->arrival;
  record.duration = spec->duration;
  record.startup_delay = spec->rare->startup_delay.value_or(default_startup_delay_);
  record.has_closed_preemption_gate = !spec->rare->preemption_gates.empty();
  // status.requeueState and the Requeued condition of the input. The count
  // keeps counting toward waitForPodsReady's backoffLimitCount; a pending
  // workload's backoff holds it in its queue until requeueAt. Requeued=False
  // holds it until the workload controller sets it True: at requeueAt for
  // the backoff reasons (PodsReadyTimeout, AdmissionCheck); at its first
  // reconcile for a reactivated workload, a queue that is not stopped and
  // DRA's re-evaluation (Deactivated, ClusterQueueStopped,
  // LocalQueueStopped, Inadmissible); never for any other reason.
  record.requeue_count = spec->rare->requeue_count;
  if (!spec->admission.has_value()) {
    record.requeue_at = spec->rare->requeue_at;
    if (spec->rare->requeued_false_reason.has_value()) {
      const std::string& reason = *spec->rare->requeued_false_reason;
      record.requeued_condition_false = reason != "Deactivated" && reason != "ClusterQueueStopped" &&
                                        reason != "LocalQueueStopped" && reason != "Inadmissible";
    }
  }
  // DRA (Kueue's workload controller, handleDRA, before it queues a pending
  // workload): per pod set the logical resources its claims are charged and
  // the extended resources they replace, or why the workload is refused.
  // Workloads admitted in their input status keep their admission's usage.
  std::vector<dra::PodSetCharge> dra_charges;
  bool dra_refused = false;
  if (dra_charger_ == nullptr) {
    for (const auto& pod_set : spec->pod_sets) {
      if (pod_set.rare->resource_claims.empty()) continue;
      // Claims without any DRA object in the cluster: charged (and
      // refused) as Kueue would, against nothing.
      KUEUESIM_ASSIGN_OR_RETURN(dra_charger_, NewDraCharger(spec_, gates_));
      break;
    }
  }
  if (dra_charger_ != nullptr) {
    for (size_t i = 0; i < spec->pod_sets.size(); ++i) {
      const model::PodSet& pod_set = spec->pod_sets[i];
      // Extended resources reach the charger as Kueue's DRA path sums them
      // from the containers (max of init, sum of regular containers, per
      // original name), not as the pod's effective request.
      std::map<std::string, Amount> requests;
      for (const auto& request : pod_set.requests) {
        if (!dra::IsExtendedResourceName(request.name)) requests[request.name] = request.amount;
      }
      for (const auto& request : pod_set.container_extended_requests) {
        if (dra::IsExtendedResourceName(request.name)) requests[request.name] = request.amount;
      }
      if (!dra_charger_->Applies(pod_set, requests)) {
        dra_charges.emplace_back();
        continue;
      }
      dra_charges.push_back(
          dra_charger_->Charge(spec->meta.namespace_, pod_set, requests, static_cast<int>(i)));
    }
    std::string reason = dra::WorkloadInadmissibleReason(dra_charges);
    dra_refused = !reason.empty();
    if (!spec->admission.has_value() && (dra_refused || record.rare.allocated())) {
      record.rare.Mutable().inadmissible_reason = std::move(reason);
    }
  }
  uint64_t hash = HashCombine(0, static_cast<uint64_t>(static_cast<uint32_t>(record.priority)));
  record.pod_sets.reserve(spec->pod_sets.size());
  for (const auto& pod_set : spec->pod_sets) {
    PodSetInfo info;
    info.spec = &pod_set;
    // Pods marked reclaimable are not charged (ReclaimablePods gate,
    // workload.podSetsCountsAfterReclaim).
    info.count = gates_.reclaimable_pods ? pod_set.count - std::min(pod_set.reclaimable, pod_set.count)
                                         : pod_set.count;
    info.min_count = std::min(pod_set.min_count.value_or(info.count), info.count);
    if (info.min_count < info.count) record.partially_admissible = true;
    KUEUESIM_RETURN_IF_ERROR(EffectiveRequests(pod_set, record.key, &info.per_pod));
    if (tas_ != nullptr) info.tas_per_pod = tas_->ToRequests(pod_set.requests);
    // DRA applies after the excluded prefixes and transformations
    // (totalRequestsFromPodSets): the replaced extended resources go, the
    // logical resources are added, neither transformed.
    const size_t ps_index = static_cast<size_t>(&pod_set - spec->pod_sets.data());
    if (!dra_refused && ps_index < dra_charges.size() &&
        (!dra_charges[ps_index].dra_requests.empty() ||
         !dra_charges[ps_index].replaced_extended_resources.empty())) {
      const dra::PodSetCharge& charge = dra_charges[ps_index];
      std::map<std::string, Amount> merged;
      for (const auto& r : info.per_pod) merged[resources_[static_cast<size_t>(r.resource)]] = r.amount;
      for (const auto& name : charge.replaced_extended_resources) merged.erase(name);
      for (const auto& [name, amount] : charge.dra_requests) merged[name] = AddAmounts(merged[name], amount);
      info.per_pod.clear();
      for (const auto& [name, amount] : merged) info.per_pod.push_back({InternResource(name), amount});
    }
    // Scheduling-equivalence hash: priority and the shape of each pod set.
    hash = HashCombine(hash, HashString(pod_set.name));
    hash = HashCombine(hash, static_cast<uint64_t>(info.count));
    hash = HashCombine(hash, static_cast<uint64_t>(info.min_count));
    for (const auto& request : info.per_pod) {
      hash = HashCombine(hash, HashString(resources_[static_cast<size_t>(request.resource)]));
      hash = HashCombine(hash, static_cast<uint64_t>(request.amount));
    }
    for (const auto& [k, v] : pod_set.rare->node_selector) {
      hash = HashCombine(hash, HashString(k));
      hash = HashCombine(hash, HashString(v));
    }
    // Every list is hashed with its length, so that term and value
    // boundaries count ([{A},{B}] is A OR B, [{A,B}] is A AND B).
    const auto hash_requirements = [&](const std::vector<model::SelectorRequirement>& requirements) {
      hash = HashCombine(hash, requirements.size());
      for (const auto& requirement : requirements) {
        hash = HashCombine(hash, HashString(requirement.key));
        hash = HashCombine(hash, static_cast<uint64_t>(requirement.op));
        hash = HashCombine(hash, requirement.values.size());
        for (const auto& value : requirement.values) hash = HashCombine(hash, HashString(value));
      }
    };
    hash = HashCombine(hash, pod_set.rare->required_affinity.size());
    for (const auto& term : pod_set.rare->required_affinity) {
      hash_requirements(term.match_expressions);
      hash_requirements(term.match_fields);
    }
    hash = HashCombine(hash, pod_set.rare->preferred_affinity.size());
    for (const auto& term : pod_set.rare->preferred_affinity) {
      hash = HashCombine(hash, static_cast<uint64_t>(term.weight));
      hash_requirements(term.preference.match_expressions);
      hash_requirements(term.preference.match_fields);
    }
    hash = HashCombine(hash, pod_set.rare->tolerations.size());
    for (const auto& toleration : pod_set.rare->tolerations) {
      hash = HashCombine(hash, HashString(toleration.key));
      hash = HashCombine(hash, HashString(toleration.value));
      hash = HashCombine(hash, static_cast<uint64_t>(toleration.op));
      hash = HashCombine(hash, toleration.effect.has_value() ? static_cast<uint64_t>(*toleration.effect) + 1 : 0);
    }
    if (pod_set.topology_request.has_value()) {
      const auto& tr = *pod_set.topology_request;
      hash = HashCombine(hash, HashString(tr.required.value_or("") + "|" + tr.preferred.value_or("")));
      hash = HashCombine(hash, tr.unconstrained.has_value() ? (*tr.unconstrained ? 2 : 1) : 0);
      for (const auto& layer : tr.slice_layers) {
        hash = HashCombine(hash, HashString(layer.topology));
        hash = HashCombine(hash, static_cast<uint64_t>(layer.size));
      }
    }
    record.pod_sets.push_back(std::move(info));
  }
  // The hash must never be the "unknown" 0.
  record.scheduling_hash = hash == 0 ? 1 : hash;
  record.spec = std::move(spec);
  workload_index_.insert(id);
  built = true;
  return id;
}

void ClusterState::ReleaseWorkload(WorkloadId id) {
  WorkloadRecord& wl = workloads_[static_cast<size_t>(id)];
  KUEUESIM_CHECK(!wl.admission.has_value() && wl.queue_state == QueueState::kNotQueued);
  workload_index_.erase(id);
  ++wl.run_generation;
  ResetSlot(id);
}

absl::StatusOr<std::unique_ptr<ClusterState>> ClusterState::Build(const scenario::ClusterSpec& spec,
                                                                  UnixMicros start_time,
                                                                  SimDuration default_startup_delay) {
  std::unique_ptr<ClusterState> state(new ClusterState());
  state->name_ = spec.name;
  state->spec_ = spec;
  const scenario::ClusterSpec& own = state->spec_;
  state->gates_ = own.feature_gates;
  state->configuration_ = own.configuration;
  state->start_time_ = start_time;
  state->default_startup_delay_ = default_startup_delay;

  for (const auto& flavor : own.resource_flavors) {
    FlavorId id = state->InternFlavor(flavor.meta.name);
    state->flavors_[static_cast<size_t>(id)].exists = true;
    state->flavors_[static_cast<size_t>(id)].spec = &flavor;
  }
  // Intern every (flavor, resource) of every quota holder first, so that
  // the tree can be sized once.
  auto intern_groups = [&](const std::vector<model::ResourceGroup>& groups) {
    for (const auto& group : groups) {
      for (const auto& resource : group.covered_resources) state->InternResource(resource);
      for (const auto& flavor : group.flavors) {
        FlavorId f = state->InternFlavor(flavor.name);
        for (const auto& resource : group.covered_resources) {
          state->InternFr(f, state->InternResource(resource));
        }
      }
    }
  };
  for (const auto& cq : own.cluster_queues) intern_groups(cq.resource_groups);
  for (const auto& cohort : own.cohorts) intern_groups(cohort.resource_groups);
  state->InternResource("pods");

  state->tree_ = std::make_unique<quota::QuotaTree>(state->fr_resource_, state->resource_rank_);
  quota::QuotaTree& tree = *state->tree_;
  auto set_quotas = [&](NodeId node, const std::vector<model::ResourceGroup>& groups) {
    for (const auto& group : groups) {
      for (const auto& flavor : group.flavors) {
        FlavorId f = state->FindFlavor(flavor.name);
        for (const auto& q : flavor.resources) {
          quota::FrQuota fr_quota;
          fr_quota.nominal = q.nominal_quota;
          fr_quota.borrowing_limit = q.borrowing_limit.value_or(quota::kNoLimit);
          fr_quota.lending_limit = q.lending_limit.value_or(quota::kNoLimit);
          tree.SetQuota(node, state->FindFr(f, state->FindResource(q.name)), fr_quota);
        }
      }
    }
  };

  // ClusterQueues.
  std::set<std::string> checks_present;
  std::set<std::string> checks_active;
  for (const auto& check : own.admission_checks) {
    checks_present.insert(check.meta.name);
    if (check.active) checks_active.insert(check.meta.name);
  }
  for (const auto& cq : own.cluster_queues) {
    ClusterQueueInfo info;
    info.name = cq.meta.name;
    info.spec = &cq;
    info.node = tree.AddNode(cq.meta.name, /*is_cluster_queue=*/true);
    tree.SetFairWeight(info.node, cq.fair_weight);
    set_quotas(info.node, cq.resource_groups);
    std::vector<std::string> missing_flavors;
    for (const auto& group : cq.resource_groups) {
      ResourceGroupInfo rg;
      for (const auto& resource : group.covered_resources) {
        rg.covered.push_back(state->FindResource(resource));
      }
      for (const auto& flavor : group.flavors) {
        FlavorId f = state->FindFlavor(flavor.name);
        rg.flavors.push_back(f);
        if (!state->flavor(f).exists) missing_flavors.push_back(flavor.name);
        for (ResourceId r : rg.covered) rg.frs.push_back(state->FindFr(f, r));
      }
      info.groups.push_back(std::move(rg));
    }
    std::vector<std::string> reasons;
    info.stopped = cq.stop_policy != model::StopPolicy::kNone;
    if (info.stopped) reasons.push_back("is stopped");
    if (!missing_flavors.empty()) {
      std::string names;
      for (const auto& n : missing_flavors) names += (names.empty() ? "" : ",") + n;
      reasons.push_back(fmt::format("references missing ResourceFlavor(s): {}", names));
    }
    for (const auto& check : cq.admission_checks) {
      if (!checks_present.count(check.name)) {
        reasons.push_back(fmt::format("references missing AdmissionCheck(s): {}", check.name));
      } else if (!checks_active.count(check.name)) {
        reasons.push_back(fmt::format("references inactive AdmissionCheck(s): {}", check.name));
      }
    }
    info.active = reasons.empty();
    for (const auto& r : reasons) info.inactive_reason += (info.inactive_reason.empty() ? "" : ", ") + r;
    state->cq_index_.emplace(info.name, static_cast<CqId>(state->cqs_.size()));
    state->cqs_.push_back(std::move(info));
  }
  // Cohorts, explicit and implicit (named by a ClusterQueue or as a parent).
  std::unordered_map<std::string, NodeId> cohort_nodes;
  std::function<NodeId(const std::string&)> cohort_node = [&](const std::string& name) -> NodeId {
    auto it = cohort_nodes.find(name);
    if (it != cohort_nodes.end()) return it->second;
    NodeId node = tree.AddNode(name, /*is_cluster_queue=*/false);
    cohort_nodes.emplace(name, node);
    return node;
  };
  // Cohorts whose parents lead into a cycle (hierarchy.HasCycle): Kueue's
  // snapshot leaves them out and the ClusterQueues under them are inactive
  // (inactiveCQReasonHasCycle); they are not linked to their parents here.
  std::unordered_map<std::string, std::string> parent_of;
  for (const auto& cohort : own.cohorts) parent_of.emplace(cohort.meta.name, cohort.parent);
  const auto has_cycle = [&](const std::string& start) {
    std::unordered_set<std::string> seen;
    for (std::string name = start; !name.empty();) {
      if (!seen.insert(name).second) return true;
      auto it = parent_of.find(name);
      if (it == parent_of.end()) return false;
      name = it->second;
    }
    return false;
  };
  for (const auto& cohort : own.cohorts) {
    NodeId node = cohort_node(cohort.meta.name);
    tree.SetFairWeight(node, cohort.fair_weight);
    set_quotas(node, cohort.resource_groups);
    if (!cohort.parent.empty() && !has_cycle(cohort.meta.name)) tree.SetParent(node, cohort_node(cohort.parent));
  }
  for (auto& info : state->cqs_) {
    if (info.spec->cohort.empty()) continue;
    tree.SetParent(info.node, cohort_node(info.spec->cohort));
    if (has_cycle(info.spec->cohort)) {
      info.active = false;
      info.inactive_reason += (info.inactive_reason.empty() ? "" : ", ") + std::string("is in a cohort tree with a cycle");
    }
  }
  tree.Finalize();
  state->node_cq_.assign(static_cast<size_t>(tree.num_nodes()), kNone);
  for (CqId id = 0; id < state->num_cluster_queues(); ++id) {
    state->node_cq_[static_cast<size_t>(state->cq(id).node)] = id;
  }

  // Namespaces, LocalQueues, priority classes.
  for (const auto& ns : own.namespaces) {
    NamespaceId id = state->FindOrAddNamespace(ns.meta.name);
    state->namespaces_[static_cast<size_t>(id)].labels = ns.meta.labels;
  }
  for (const auto& lq : own.local_queues) {
    LocalQueueInfo info;
    info.namespace_ = lq.meta.namespace_;
    info.name = lq.meta.name;
    info.ns = state->FindOrAddNamespace(lq.meta.namespace_);
    info.cq = state->FindClusterQueue(lq.cluster_queue);
    info.spec = &lq;
    info.stop_policy = lq.stop_policy;
    state->lq_index_.emplace(info.namespace_ + "/" + info.name, static_cast<LqId>(state->lqs_.size()));
    state->lqs_.push_back(std::move(info));
  }
  for (const auto& wpc : own.workload_priority_classes) {
    state->workload_priority_classes_[wpc.meta.name] = wpc.value;
  }
  for (const auto& pc : own.priority_classes) {
    state->priority_classes_[pc.meta.name] = pc.value;
    if (pc.global_default && (!state->global_default_priority_.has_value() ||
                              pc.value < *state->global_default_priority_)) {
      state->global_default_priority_ = pc.value;
    }
  }
  // DRA: compiles the CEL of DeviceClasses, claim templates and mappings,
  // and validates the mappings as Kueue validates its Configuration.
  if (!own.configuration.device_class_mappings.empty() || !own.device_classes.empty() ||
      !own.resource_claim_templates.empty() || !own.resource_slices.empty()) {
    KUEUESIM_ASSIGN_OR_RETURN(state->dra_charger_, NewDraCharger(own, state->gates_));
  }
  // Group-of-resource tables, now that every resource is interned.
  for (auto& info : state->cqs_) {
    info.group_of_resource.assign(static_cast<size_t>(state->num_resources()), kNone);
    for (size_t g = 0; g < info.groups.size(); ++g) {
      for (ResourceId r : info.groups[g].covered) {
        info.group_of_resource[static_cast<size_t>(r)] = static_cast<int32_t>(g);
      }
    }
    info.covers_pods = info.GroupOf(state->pods_resource_) != kNone;
  }

  // Topology-aware scheduling: the TAS flavors' snapshots. A ClusterQueue
  // using a TAS flavor whose Topology does not exist is inactive
  // (clusterQueue.isTASViolated), unless it uses MultiKueue (topology is
  // assigned on the worker).
  bool any_tas_flavor = false;
  for (const auto& flavor : own.resource_flavors) any_tas_flavor |= !flavor.topology_name.empty();
  if (state->gates_.topology_aware_scheduling && any_tas_flavor) {
    state->tas_ = std::make_unique<TasCache>(*state, own);
    for (CqId id = 0; id < state->num_cluster_queues(); ++id) {
      ClusterQueueInfo& info = state->cqs_[static_cast<size_t>(id)];
      if (state->HasAdmissionCheckController(id, model::kMultiKueueControllerName, kNone)) continue;
      std::vector<std::string> reasons;
      for (const auto& group : info.groups) {
        for (FlavorId f : group.flavors) {
          const FlavorInfo& flavor = state->flavor(f);
          if (!flavor.exists || flavor.spec->topology_name.empty() || state->tas_->IsTasFlavor(f)) continue;
          reasons.push_back(fmt::format("there is no Topology \"{}\" for TAS flavor \"{}\"",
                                        flavor.spec->topology_name, flavor.name));
        }
      }
      for (const auto& r : reasons) info.inactive_reason += (info.inactive_reason.empty() ? "" : ", ") + r;
      if (!reasons.empty()) info.active = false;
    }
  }
  return state;
}

}  // namespace kueuesim::cluster
