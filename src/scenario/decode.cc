// Decoders for each supported kind. Field names follow the Kubernetes and
// Kueue APIs; v1beta1 spellings are translated to the v1beta2 model.
#include "scenario/decode.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/model/pod_resources.h"
#include "scenario/decode_dra.h"
#include "scenario/decode_durations.h"
#include "scenario/generate_name.h"
#include "scenario/kinds/common.h"
#include "scenario/decode_provisioning.h"

namespace kueuesim::scenario {
namespace {

using model::Labels;

constexpr char kQueueNameLabel[] = "kueue.x-k8s.io/queue-name";
constexpr char kPriorityClassLabel[] = "kueue.x-k8s.io/priority-class";
constexpr char kJobMinParallelismAnnotation[] = "kueue.x-k8s.io/job-min-parallelism";
constexpr char kMaxExecTimeLabel[] = "kueue.x-k8s.io/max-exec-time-seconds";
constexpr char kJobCompletionIndexAnnotation[] = "batch.kubernetes.io/job-completion-index";
constexpr char kArrivalAnnotation[] = "kueuesim.io/arrival";
constexpr char kDurationAnnotation[] = "kueuesim.io/duration";
constexpr char kStartupDelayAnnotation[] = "kueuesim.io/startup-delay";

// TAS annotations on pod templates (kueue pkg/controller/constants).
constexpr char kPodSetRequiredTopology[] = "kueue.x-k8s.io/podset-required-topology";
constexpr char kPodSetPreferredTopology[] = "kueue.x-k8s.io/podset-preferred-topology";
constexpr char kPodSetUnconstrainedTopology[] = "kueue.x-k8s.io/podset-unconstrained-topology";
constexpr char kPodSetSliceRequiredTopology[] = "kueue.x-k8s.io/podset-slice-required-topology";
constexpr char kPodSetSliceSize[] = "kueue.x-k8s.io/podset-slice-size";
constexpr char kPodSetGroupName[] = "kueue.x-k8s.io/podset-group-name";

template <typename Enum>
absl::StatusOr<Enum> ParseEnum(const FieldReader& field,
                               std::initializer_list<std::pair<const char*, Enum>> values,
                               Enum default_value) {
  if (!field.present()) return default_value;
  KUEUESIM_ASSIGN_OR_RETURN(std::string text, field.String());
  if (text.empty()) return default_value;
  std::string valid;
  for (const auto& [name, value] : values) {
    if (text == name) return value;
    valid += valid.empty() ? name : std::string(", ") + name;
  }
  return field.Error(fmt::format("unknown value \"{}\" (valid: {})", text, valid));
}

absl::StatusOr<model::SelectorOperator> ParseSelectorOperator(const FieldReader& field,
                                                              bool allow_numeric) {
  KUEUESIM_ASSIGN_OR_RETURN(std::string text, field.String());
  if (text == "In") return model::SelectorOperator::kIn;
  if (text == "NotIn") return model::SelectorOperator::kNotIn;
  if (text == "Exists") return model::SelectorOperator::kExists;
  if (text == "DoesNotExist") return model::SelectorOperator::kDoesNotExist;
  if (allow_numeric && text == "Gt") return model::SelectorOperator::kGt;
  if (allow_numeric && text == "Lt") return model::SelectorOperator::kLt;
  return field.Error(fmt::format("unknown operator \"{}\"", text));
}

absl::StatusOr<std::vector<model::SelectorRequirement>> DecodeRequirements(const FieldReader& list,
                                                                           bool allow_numeric) {
  std::vector<model::SelectorRequirement> out;
  KUEUESIM_RETURN_IF_ERROR(list.ExpectSequence());
  for (size_t i = 0; i < list.size(); ++i) {
    FieldReader item = list.Index(i);
    KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
    model::SelectorRequirement requirement;
    KUEUESIM_ASSIGN_OR_RETURN(requirement.key, item.Field("key").String());
    KUEUESIM_ASSIGN_OR_RETURN(requirement.op,
                              ParseSelectorOperator(item.Field("operator"), allow_numeric));
    KUEUESIM_ASSIGN_OR_RETURN(requirement.values, item.Field("values").StringList());
    bool needs_values = requirement.op == model::SelectorOperator::kIn ||
                        requirement.op == model::SelectorOperator::kNotIn;
    bool needs_one = requirement.op == model::SelectorOperator::kGt ||
                     requirement.op == model::SelectorOperator::kLt;
    if (needs_values && requirement.values.empty()) {
      return item.Field("values").Error("must not be empty for operator In or NotIn");
    }
    if (needs_one && requirement.values.size() != 1) {
      return item.Field("values").Error("must have exactly one value for operator Gt or Lt");
    }
    if (!needs_values && !needs_one && !requirement.values.empty()) {
      return item.Field("values").Error("must be empty for operator Exists or DoesNotExist");
    }
    out.push_back(std::move(requirement));
  }
  return out;
}

absl::StatusOr<model::LabelSelector> DecodeLabelSelector(const FieldReader& field) {
  model::LabelSelector selector;
  if (!field.present()) return selector;
  KUEUESIM_RETURN_IF_ERROR(field.ExpectMapping());
  selector.present = true;
  KUEUESIM_ASSIGN_OR_RETURN(selector.match_labels, field.Field("matchLabels").StringMap());
  KUEUESIM_ASSIGN_OR_RETURN(selector.match_expressions,
                            DecodeRequirements(field.Field("matchExpressions"), false));
  return selector;
}

absl::StatusOr<model::TaintEffect> ParseTaintEffect(const FieldReader& field) {
  return ParseEnum<model::TaintEffect>(field,
                                       {{"NoSchedule", model::TaintEffect::kNoSchedule},
                                        {"PreferNoSchedule", model::TaintEffect::kPreferNoSchedule},
                                        {"NoExecute", model::TaintEffect::kNoExecute}},
                                       model::TaintEffect::kNoSchedule);
}

absl::StatusOr<std::vector<model::Taint>> DecodeTaints(const FieldReader& list) {
  std::vector<model::Taint> out;
  KUEUESIM_RETURN_IF_ERROR(list.ExpectSequence());
  for (size_t i = 0; i < list.size(); ++i) {
    FieldReader item = list.Index(i);
    KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
    model::Taint taint;
    KUEUESIM_ASSIGN_OR_RETURN(taint.key, item.Field("key").String());
    KUEUESIM_ASSIGN_OR_RETURN(auto value, item.Field("value").OptString());
    taint.value = value.value_or("");
    if (!item.Field("effect").present()) return item.Field("effect").Error("is required");
    KUEUESIM_ASSIGN_OR_RETURN(taint.effect, ParseTaintEffect(item.Field("effect")));
    out.push_back(std::move(taint));
  }
  return out;
}

absl::StatusOr<std::vector<model::Toleration>> DecodeTolerations(const FieldReader& list) {
  std::vector<model::Toleration> out;
  KUEUESIM_RETURN_IF_ERROR(list.ExpectSequence());
  for (size_t i = 0; i < list.size(); ++i) {
    FieldReader item = list.Index(i);
    KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
    model::Toleration toleration;
    KUEUESIM_ASSIGN_OR_RETURN(auto key, item.Field("key").OptString());
    toleration.key = key.value_or("");
    KUEUESIM_ASSIGN_OR_RETURN(toleration.op,
                              ParseEnum<model::TolerationOperator>(
                                  item.Field("operator"),
                                  {{"Equal", model::TolerationOperator::kEqual},
                                   {"Exists", model::TolerationOperator::kExists}},
                                  model::TolerationOperator::kEqual));
    KUEUESIM_ASSIGN_OR_RETURN(auto value, item.Field("value").OptString());
    toleration.value = value.value_or("");
    if (item.Field("effect").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(std::string effect, item.Field("effect").String());
      if (!effect.empty()) {
        KUEUESIM_ASSIGN_OR_RETURN(toleration.effect, ParseTaintEffect(item.Field("effect")));
      }
    }
    out.push_back(std::move(toleration));
  }
  return out;
}

absl::StatusOr<std::vector<model::ResourceGroup>> DecodeResourceGroups(const FieldReader& list) {
  std::vector<model::ResourceGroup> groups;
  KUEUESIM_RETURN_IF_ERROR(list.ExpectSequence());
  for (size_t g = 0; g < list.size(); ++g) {
    FieldReader group_field = list.Index(g);
    KUEUESIM_RETURN_IF_ERROR(group_field.ExpectMapping());
    model::ResourceGroup group;
    KUEUESIM_ASSIGN_OR_RETURN(group.covered_resources,
                              group_field.Field("coveredResources").StringList());
    FieldReader flavors = group_field.Field("flavors");
    KUEUESIM_RETURN_IF_ERROR(flavors.ExpectSequence());
    for (size_t f = 0; f < flavors.size(); ++f) {
      FieldReader flavor_field = flavors.Index(f);
      KUEUESIM_RETURN_IF_ERROR(flavor_field.ExpectMapping());
      model::FlavorQuotas flavor;
      KUEUESIM_ASSIGN_OR_RETURN(flavor.name, flavor_field.Field("name").String());
      FieldReader resources = flavor_field.Field("resources");
      KUEUESIM_RETURN_IF_ERROR(resources.ExpectSequence());
      for (size_t r = 0; r < resources.size(); ++r) {
        FieldReader resource_field = resources.Index(r);
        KUEUESIM_RETURN_IF_ERROR(resource_field.ExpectMapping());
        model::ResourceQuota quota;
        KUEUESIM_ASSIGN_OR_RETURN(quota.name, resource_field.Field("name").String());
        KUEUESIM_ASSIGN_OR_RETURN(quota.nominal_quota,
                                  resource_field.Field("nominalQuota").AmountOf(quota.name, true));
        if (resource_field.Field("borrowingLimit").present()) {
          KUEUESIM_ASSIGN_OR_RETURN(
              quota.borrowing_limit, resource_field.Field("borrowingLimit").AmountOf(quota.name, true));
        }
        if (resource_field.Field("lendingLimit").present()) {
          KUEUESIM_ASSIGN_OR_RETURN(quota.lending_limit,
                                    resource_field.Field("lendingLimit").AmountOf(quota.name, true));
        }
        flavor.resources.push_back(std::move(quota));
      }
      group.flavors.push_back(std::move(flavor));
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

absl::StatusOr<double> DecodeFairWeight(const FieldReader& fair_sharing) {
  FieldReader weight = fair_sharing.Field("weight");
  if (!weight.present()) return 1.0;
  KUEUESIM_ASSIGN_OR_RETURN(Quantity quantity, weight.QuantityValue());
  if (quantity.negative && !quantity.IsZero()) return weight.Error("must not be negative");
  // Kueue reads the weight with Quantity.AsFloat64Slow; milli-precision
  // covers every weight the API accepts (> 1e-9 or 0) to well within a ulp
  // for ordinary values, so go through an exact scaled integer.
  auto nano = ScaledValue(quantity, 9);
  if (!nano.ok()) return weight.Error("is too large");
  return static_cast<double>(*nano) / 1e9;
}

absl::StatusOr<model::StopPolicy> DecodeStopPolicy(const FieldReader& field) {
  return ParseEnum<model::StopPolicy>(field,
                                      {{"None", model::StopPolicy::kNone},
                                       {"Hold", model::StopPolicy::kHold},
                                       {"HoldAndDrain", model::StopPolicy::kHoldAndDrain}},
                                      model::StopPolicy::kNone);
}

absl::StatusOr<model::PreemptionPolicy> DecodePreemptionPolicy(const FieldReader& field,
                                                               bool allow_newer_equal) {
  if (allow_newer_equal) {
    return ParseEnum<model::PreemptionPolicy>(
        field,
        {{"Never", model::PreemptionPolicy::kNever},
         {"LowerPriority", model::PreemptionPolicy::kLowerPriority},
         {"LowerOrNewerEqualPriority", model::PreemptionPolicy::kLowerOrNewerEqualPriority}},
        model::PreemptionPolicy::kNever);
  }
  return ParseEnum<model::PreemptionPolicy>(
      field,
      {{"Never", model::PreemptionPolicy::kNever},
       {"LowerPriority", model::PreemptionPolicy::kLowerPriority},
       {"Any", model::PreemptionPolicy::kAny}},
      model::PreemptionPolicy::kNever);
}

absl::StatusOr<model::FungibilityPolicy> DecodeFungibility(const FieldReader& field,
                                                           model::FungibilityPolicy default_value,
                                                           const char* v1beta1_stop_value) {
  if (!field.present()) return default_value;
  KUEUESIM_ASSIGN_OR_RETURN(std::string text, field.String());
  if (text.empty()) return default_value;
  if (text == "MayStopSearch" || text == v1beta1_stop_value) {
    return model::FungibilityPolicy::kMayStopSearch;
  }
  if (text == "TryNextFlavor") return model::FungibilityPolicy::kTryNextFlavor;
  return field.Error(fmt::format("unknown value \"{}\" (valid: MayStopSearch, TryNextFlavor)", text));
}

// The requests and limits of one container (or of the pod-level
// `resources`) as written, canonical amounts sorted by name; `request_floor`
// (an operator's merge into the first container) raises the requests it
// names. With `reject`, a request above its limit or a negative amount is an
// error, as the API server's pod validation refuses it (built-in kinds);
// otherwise Kueue's ValidateResources finds it (model::ComputePodRequests).
absl::Status DecodeContainerResources(const FieldReader& container, const std::map<std::string, Amount>* request_floor,
                                      bool reject, model::ContainerResources* out) {
  std::map<std::string, Amount> requests;
  std::map<std::string, Amount> limits;
  FieldReader resources = container.Field("resources");
  KUEUESIM_RETURN_IF_ERROR(resources.ExpectMapping());
  for (const bool is_limits : {false, true}) {
    FieldReader list = resources.Field(is_limits ? "limits" : "requests");
    KUEUESIM_RETURN_IF_ERROR(list.ExpectMapping());
    if (!list.present()) continue;
    for (size_t i = 0; i < list.node().size(); ++i) {
      std::string name(list.node().key(i));
      // Above int64 (in milli-units for cpu) the amount saturates, as
      // Kueue's ResourceValue does (utilmath.SafeMilliValue).
      KUEUESIM_ASSIGN_OR_RETURN(Amount amount, list.Field(name).RequestAmountOf(name));
      if (reject && amount < 0) {
        return list.Field(name).Error("must be greater than or equal to 0 (the API server rejects the object)");
      }
      if (is_limits) {
        if (auto it = requests.find(name); reject && it != requests.end() && it->second > amount) {
          auto limit_text = list.Field(name).String();
          return resources.Field("requests").Field(name).Error(
              fmt::format("must be less than or equal to {} limit of {} (the API server rejects the object)",
                          name, limit_text.ok() ? *limit_text : std::to_string(amount)));
        }
        limits.emplace(name, amount);
      } else {
        requests.emplace(name, amount);
      }
    }
  }
  if (request_floor != nullptr) {
    for (const auto& [name, amount] : *request_floor) {
      auto [it, inserted] = requests.emplace(name, amount);
      if (!inserted) it->second = std::max(it->second, amount);
    }
  }
  out->requests.clear();
  out->limits.clear();
  for (const auto& [name, amount] : requests) out->requests.push_back({name, amount});
  for (const auto& [name, amount] : limits) out->limits.push_back({name, amount});
  return absl::OkStatus();
}

absl::StatusOr<std::optional<model::TopologyRequest>> DecodeTopologyRequest(const FieldReader& field) {
  if (!field.present()) return std::optional<model::TopologyRequest>();
  KUEUESIM_RETURN_IF_ERROR(field.ExpectMapping());
  model::TopologyRequest request;
  KUEUESIM_ASSIGN_OR_RETURN(request.required, field.Field("required").OptString());
  KUEUESIM_ASSIGN_OR_RETURN(request.preferred, field.Field("preferred").OptString());
  if (field.Field("unconstrained").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(bool unconstrained, field.Field("unconstrained").Bool());
    request.unconstrained = unconstrained;
  }
  KUEUESIM_ASSIGN_OR_RETURN(request.pod_index_label, field.Field("podIndexLabel").OptString());
  KUEUESIM_ASSIGN_OR_RETURN(request.sub_group_index_label,
                            field.Field("subGroupIndexLabel").OptString());
  KUEUESIM_ASSIGN_OR_RETURN(request.sub_group_count, field.Field("subGroupCount").OptInt32());
  KUEUESIM_ASSIGN_OR_RETURN(request.pod_set_group_name, field.Field("podSetGroupName").OptString());
  KUEUESIM_ASSIGN_OR_RETURN(auto slice_topology,
                            field.Field("podSetSliceRequiredTopology").OptString());
  KUEUESIM_ASSIGN_OR_RETURN(auto slice_size, field.Field("podSetSliceSize").OptInt32());
  FieldReader constraints = field.Field("podsetSliceRequiredTopologyConstraints");
  if (constraints.present()) {
    KUEUESIM_RETURN_IF_ERROR(constraints.ExpectSequence());
    for (size_t i = 0; i < constraints.size(); ++i) {
      model::SliceLayer layer;
      KUEUESIM_ASSIGN_OR_RETURN(layer.topology, constraints.Index(i).Field("topology").String());
      KUEUESIM_ASSIGN_OR_RETURN(layer.size, constraints.Index(i).Field("size").Int32());
      if (layer.size < 1) return constraints.Index(i).Field("size").Error("must be at least 1");
      request.slice_layers.push_back(layer);
    }
  } else if (slice_topology.has_value()) {
    model::SliceLayer layer;
    layer.topology = *slice_topology;
    layer.size = slice_size.value_or(1);
    if (layer.size < 1) return field.Field("podSetSliceSize").Error("must be at least 1");
    request.slice_layers.push_back(layer);
  }
  return std::optional<model::TopologyRequest>(std::move(request));
}

absl::StatusOr<model::TopologyAssignment> DecodeTopologyAssignment(const FieldReader& field) {
  KUEUESIM_RETURN_IF_ERROR(field.ExpectMapping());
  model::TopologyAssignment assignment;
  KUEUESIM_ASSIGN_OR_RETURN(assignment.levels, field.Field("levels").StringList());
  const size_t levels = assignment.levels.size();
  FieldReader domains = field.Field("domains");  // v1beta1
  if (domains.present()) {
    KUEUESIM_RETURN_IF_ERROR(domains.ExpectSequence());
    for (size_t i = 0; i < domains.size(); ++i) {
      model::TopologyDomainAssignment domain;
      KUEUESIM_ASSIGN_OR_RETURN(domain.values, domains.Index(i).Field("values").StringList());
      KUEUESIM_ASSIGN_OR_RETURN(domain.count, domains.Index(i).Field("count").Int32());
      if (domain.values.size() != levels) {
        return domains.Index(i).Field("values").Error("must have one value per level");
      }
      assignment.domains.push_back(std::move(domain));
    }
  }
  FieldReader slices = field.Field("slices");  // v1beta2 compact form
  KUEUESIM_RETURN_IF_ERROR(slices.ExpectSequence());
  for (size_t s = 0; s < slices.size(); ++s) {
    FieldReader slice = slices.Index(s);
    KUEUESIM_ASSIGN_OR_RETURN(int32_t domain_count, slice.Field("domainCount").Int32());
    if (domain_count < 1) return slice.Field("domainCount").Error("must be at least 1");
    if (domain_count > 100000) return slice.Field("domainCount").Error("is too large");
    std::vector<std::vector<std::string>> values(static_cast<size_t>(domain_count),
                                                 std::vector<std::string>(levels));
    FieldReader per_level = slice.Field("valuesPerLevel");
    if (per_level.size() != levels) {
      return per_level.Error("must have one entry per level");
    }
    for (size_t l = 0; l < levels; ++l) {
      FieldReader level = per_level.Index(l);
      KUEUESIM_ASSIGN_OR_RETURN(auto universal, level.Field("universal").OptString());
      if (universal.has_value()) {
        for (auto& domain : values) domain[l] = *universal;
        continue;
      }
      FieldReader individual = level.Field("individual");
      KUEUESIM_ASSIGN_OR_RETURN(auto prefix, individual.Field("prefix").OptString());
      KUEUESIM_ASSIGN_OR_RETURN(auto suffix, individual.Field("suffix").OptString());
      KUEUESIM_ASSIGN_OR_RETURN(auto roots, individual.Field("roots").StringList());
      if (roots.size() != values.size()) {
        return individual.Field("roots").Error("must have domainCount entries");
      }
      for (size_t d = 0; d < values.size(); ++d) {
        values[d][l] = prefix.value_or("") + roots[d] + suffix.value_or("");
      }
    }
    FieldReader pod_counts = slice.Field("podCounts");
    KUEUESIM_ASSIGN_OR_RETURN(auto universal_count, pod_counts.Field("universal").OptInt32());
    std::vector<int32_t> counts;
    if (universal_count.has_value()) {
      counts.assign(values.size(), *universal_count);
    } else {
      FieldReader individual = pod_counts.Field("individual");
      KUEUESIM_RETURN_IF_ERROR(individual.ExpectSequence());
      if (individual.size() != values.size()) {
        return individual.Error("must have domainCount entries");
      }
      for (size_t d = 0; d < values.size(); ++d) {
        KUEUESIM_ASSIGN_OR_RETURN(int32_t count, individual.Index(d).Int32());
        counts.push_back(count);
      }
    }
    for (size_t d = 0; d < values.size(); ++d) {
      assignment.domains.push_back({std::move(values[d]), counts[d]});
    }
  }
  return assignment;
}

absl::StatusOr<model::Admission> DecodeAdmission(const FieldReader& field) {
  KUEUESIM_RETURN_IF_ERROR(field.ExpectMapping());
  model::Admission admission;
  KUEUESIM_ASSIGN_OR_RETURN(admission.cluster_queue, field.Field("clusterQueue").String());
  FieldReader assignments = field.Field("podSetAssignments");
  KUEUESIM_RETURN_IF_ERROR(assignments.ExpectSequence());
  for (size_t i = 0; i < assignments.size(); ++i) {
    FieldReader item = assignments.Index(i);
    model::PodSetAssignment assignment;
    KUEUESIM_ASSIGN_OR_RETURN(auto name, item.Field("name").OptString());
    assignment.name = name.value_or("main");
    KUEUESIM_ASSIGN_OR_RETURN(auto flavors, item.Field("flavors").StringMap());
    assignment.flavors.insert(flavors.begin(), flavors.end());
    FieldReader usage = item.Field("resourceUsage");
    KUEUESIM_RETURN_IF_ERROR(usage.ExpectMapping());
    if (usage.present()) {
      for (size_t r = 0; r < usage.node().size(); ++r) {
        std::string resource(usage.node().key(r));
        KUEUESIM_ASSIGN_OR_RETURN(assignment.resource_usage[resource],
                                  usage.Field(resource).AmountOf(resource, false));
      }
    }
    KUEUESIM_ASSIGN_OR_RETURN(assignment.count, item.Field("count").OptInt32());
    if (item.Field("topologyAssignment").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(assignment.topology_assignment,
                                DecodeTopologyAssignment(item.Field("topologyAssignment")));
    }
    KUEUESIM_ASSIGN_OR_RETURN(auto delayed, item.Field("delayedTopologyRequest").OptString());
    if (delayed.has_value() && *delayed != "Pending" && *delayed != "Ready") {
      return item.Field("delayedTopologyRequest").Error(
          fmt::format("unknown value \"{}\" (valid: Pending, Ready)", *delayed));
    }
    // Pending until the second pass gives the pod set its topology.
    assignment.delayed_topology_pending = delayed == "Pending" && !assignment.topology_assignment.has_value();
    admission.pod_set_assignments.push_back(std::move(assignment));
  }
  return admission;
}

// The lastTransitionTime of condition `type` when its status is "True".
absl::StatusOr<std::optional<UnixMicros>> TrueConditionTime(const FieldReader& conditions,
                                                            const std::string& type) {
  KUEUESIM_RETURN_IF_ERROR(conditions.ExpectSequence());
  for (size_t i = 0; i < conditions.size(); ++i) {
    FieldReader condition = conditions.Index(i);
    KUEUESIM_ASSIGN_OR_RETURN(auto condition_type, condition.Field("type").OptString());
    if (condition_type.value_or("") != type) continue;
    KUEUESIM_ASSIGN_OR_RETURN(auto status, condition.Field("status").OptString());
    if (status.value_or("") != "True") return std::optional<UnixMicros>();
    if (!condition.Field("lastTransitionTime").present()) return std::optional<UnixMicros>(0);
    KUEUESIM_ASSIGN_OR_RETURN(UnixMicros t, condition.Field("lastTransitionTime").Timestamp());
    return std::optional<UnixMicros>(t);
  }
  return std::optional<UnixMicros>();
}

// status.requeueState and the conditions that keep a pending Workload out
// of its queue (Requeued=False, QuotaReserved=False OnHold,
// WaitingForReplacementPods=True).
absl::Status DecodeRequeueState(const FieldReader& status, model::Workload* wl) {
  FieldReader requeue_state = status.Field("requeueState");
  if (requeue_state.present()) {
    KUEUESIM_RETURN_IF_ERROR(requeue_state.ExpectMapping());
    KUEUESIM_ASSIGN_OR_RETURN(auto count, requeue_state.Field("count").OptInt32());
    if (count.value_or(0) < 0) return requeue_state.Field("count").Error("must be greater than or equal to 0");
    if (count.value_or(0) != 0) wl->rare.Mutable().requeue_count = *count;
    if (requeue_state.Field("requeueAt").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(wl->rare.Mutable().requeue_at, requeue_state.Field("requeueAt").Timestamp());
    }
  }
  FieldReader conditions = status.Field("conditions");
  KUEUESIM_RETURN_IF_ERROR(conditions.ExpectSequence());
  for (size_t i = 0; i < conditions.size(); ++i) {
    FieldReader condition = conditions.Index(i);
    KUEUESIM_ASSIGN_OR_RETURN(auto type, condition.Field("type").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(auto condition_status, condition.Field("status").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(auto reason, condition.Field("reason").OptString());
    if (type == "Requeued" && condition_status == "False") {
      wl->rare.Mutable().requeued_false_reason = reason.value_or("");
    } else if (type == "QuotaReserved" && condition_status == "False" && reason == "OnHold") {
      KUEUESIM_ASSIGN_OR_RETURN(auto message, condition.Field("message").OptString());
      wl->rare.Mutable().on_hold_message = message.value_or("");
    } else if (type == "WaitingForReplacementPods" && condition_status == "True") {
      wl->rare.Mutable().waiting_for_replacement_pods = true;
    } else if (type == "Evicted" && condition_status == "True") {
      model::EvictedCondition evicted;
      evicted.reason = reason.value_or("");
      KUEUESIM_ASSIGN_OR_RETURN(auto message, condition.Field("message").OptString());
      evicted.message = message.value_or("");
      if (condition.Field("lastTransitionTime").present()) {
        KUEUESIM_ASSIGN_OR_RETURN(evicted.last_transition_time, condition.Field("lastTransitionTime").Timestamp());
      }
      wl->rare.Mutable().evicted_condition = std::move(evicted);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::optional<model::TopologyRequest>> DecodeTopologyAnnotations(
    const FieldReader& annotations_field) {
  KUEUESIM_ASSIGN_OR_RETURN(Labels annotations, annotations_field.StringMap());
  model::TopologyRequest request;
  bool any = false;
  auto get = [&](const char* key) -> const std::string* {
    auto it = annotations.find(key);
    return it == annotations.end() ? nullptr : &it->second;
  };
  if (auto* v = get(kPodSetRequiredTopology)) request.required = *v, any = true;
  if (auto* v = get(kPodSetPreferredTopology)) request.preferred = *v, any = true;
  if (auto* v = get(kPodSetUnconstrainedTopology)) {
    request.unconstrained = *v == "true";
    any = true;
  }
  if (auto* v = get(kPodSetGroupName)) request.pod_set_group_name = *v, any = true;
  if (auto* v = get(kPodSetSliceRequiredTopology)) {
    model::SliceLayer layer;
    layer.topology = *v;
    if (auto* size = get(kPodSetSliceSize)) {
      int32_t parsed = 0;
      auto [ptr, ec] = std::from_chars(size->data(), size->data() + size->size(), parsed);
      if (ec != std::errc() || ptr != size->data() + size->size() || parsed < 1) {
        return annotations_field.Field(kPodSetSliceSize)
            .Error(fmt::format("\"{}\" is not a positive integer", *size));
      }
      layer.size = parsed;
    }
    request.slice_layers.push_back(layer);
    any = true;
  }
  if (!any) return std::optional<model::TopologyRequest>();
  return std::optional<model::TopologyRequest>(std::move(request));
}

// Decodes a pod template into a PodSet's scheduling-relevant parts.
absl::Status DecodePodTemplate(const FieldReader& template_field, model::PodSet* pod_set,
                               bool api_server_validated) {
  KUEUESIM_RETURN_IF_ERROR(template_field.ExpectMapping());
  PodSpecExtras extras;
  extras.api_server_validated = api_server_validated;
  return DecodePodSpec(template_field.Field("spec"), extras, pod_set);
}

absl::Status DecodePodSpec(const FieldReader& spec, const PodSpecExtras& extras, model::PodSet* pod_set) {
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());

  // The containers' and the pod's resources as written; the effective
  // request and the checks of requests against limits are derived from them
  // (model::ComputePodRequests), now and again once the namespace's
  // LimitRanges and the RuntimeClasses are known (the loader's Finish).
  auto written = std::make_shared<model::PodResources>();
  written->containers_field = extras.containers_field;
  const auto to_list = [](const std::map<std::string, Amount>& from) {
    std::vector<model::ResourceAmount> out;
    out.reserve(from.size());
    for (const auto& [name, amount] : from) out.push_back({name, amount});
    return out;
  };
  FieldReader containers = spec.Field(extras.containers_field);
  KUEUESIM_RETURN_IF_ERROR(containers.ExpectSequence());
  for (size_t i = 0; i < containers.size(); ++i) {
    const bool floored = i == 0 && !extras.first_container_request_floor.empty();
    model::ContainerResources container;
    container.index = static_cast<int32_t>(i);
    KUEUESIM_RETURN_IF_ERROR(DecodeContainerResources(containers.Index(i),
                                                      floored ? &extras.first_container_request_floor : nullptr,
                                                      extras.api_server_validated, &container));
    written->containers.push_back(std::move(container));
  }
  for (const auto& extra : extras.extra_containers) {
    model::ContainerResources container;
    container.index = static_cast<int32_t>(written->containers.size());
    container.requests = to_list(extra.requests);
    container.limits = to_list(extra.limits);
    written->containers.push_back(std::move(container));
  }
  FieldReader init_containers = spec.Field("initContainers");
  KUEUESIM_RETURN_IF_ERROR(init_containers.ExpectSequence());
  for (size_t i = 0; i < init_containers.size(); ++i) {
    FieldReader field = init_containers.Index(i);
    model::ContainerResources container;
    container.index = static_cast<int32_t>(i);
    KUEUESIM_RETURN_IF_ERROR(DecodeContainerResources(field, nullptr, extras.api_server_validated, &container));
    KUEUESIM_ASSIGN_OR_RETURN(auto restart_policy, field.Field("restartPolicy").OptString());
    container.role = restart_policy.value_or("") == "Always" ? model::ContainerResources::Role::kSidecar
                                                               : model::ContainerResources::Role::kInit;
    written->containers.push_back(std::move(container));
  }
  // Pod-level resources (KEP-2837).
  if (spec.Field("resources").present()) {
    model::ContainerResources pod_level;
    KUEUESIM_RETURN_IF_ERROR(DecodeContainerResources(spec, nullptr, extras.api_server_validated, &pod_level));
    written->pod_level = model::PodResources::PodLevel{std::move(pod_level.requests), std::move(pod_level.limits)};
  }
  FieldReader overhead = spec.Field("overhead");
  if (overhead.present()) {
    KUEUESIM_RETURN_IF_ERROR(overhead.ExpectMapping());
    written->overhead.emplace();
    for (size_t i = 0; i < overhead.node().size(); ++i) {
      std::string name(overhead.node().key(i));
      KUEUESIM_ASSIGN_OR_RETURN(Amount amount, overhead.Field(name).RequestAmountOf(name));
      written->overhead->push_back({name, amount});
    }
    std::sort(written->overhead->begin(), written->overhead->end(),
              [](const model::ResourceAmount& a, const model::ResourceAmount& b) { return a.name < b.name; });
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto runtime_class_name, spec.Field("runtimeClassName").OptString());
  written->runtime_class_name = runtime_class_name.value_or("");
  model::PodRequestTotals totals = model::ComputePodRequests(*written);
  pod_set->requests = std::move(totals.requests);
  pod_set->container_extended_requests = std::move(totals.container_extended_requests);
  if (!totals.requests_above_limits.empty()) {
    pod_set->rare.Mutable().requests_above_limits = std::move(totals.requests_above_limits);
  }
  pod_set->written_resources = std::move(written);

  // (The rare members are written only when set: see model::PodSet::RareFields.)
  KUEUESIM_ASSIGN_OR_RETURN(auto node_selector, spec.Field("nodeSelector").StringMap());
  if (!node_selector.empty()) pod_set->rare.Mutable().node_selector = std::move(node_selector);
  FieldReader terms = spec.Field("affinity")
                          .Field("nodeAffinity")
                          .Field("requiredDuringSchedulingIgnoredDuringExecution")
                          .Field("nodeSelectorTerms");
  KUEUESIM_RETURN_IF_ERROR(terms.ExpectSequence());
  for (size_t i = 0; i < terms.size(); ++i) {
    model::NodeSelectorTerm term;
    KUEUESIM_ASSIGN_OR_RETURN(term.match_expressions,
                              DecodeRequirements(terms.Index(i).Field("matchExpressions"), true));
    KUEUESIM_ASSIGN_OR_RETURN(term.match_fields,
                              DecodeRequirements(terms.Index(i).Field("matchFields"), true));
    pod_set->rare.Mutable().required_affinity.push_back(std::move(term));
  }
  FieldReader preferred =
      spec.Field("affinity").Field("nodeAffinity").Field("preferredDuringSchedulingIgnoredDuringExecution");
  KUEUESIM_RETURN_IF_ERROR(preferred.ExpectSequence());
  for (size_t i = 0; i < preferred.size(); ++i) {
    model::PreferredSchedulingTerm term;
    KUEUESIM_ASSIGN_OR_RETURN(int64_t weight, preferred.Index(i).Field("weight").Int64());
    if (weight < 1 || weight > 100) {
      return preferred.Index(i).Field("weight").Error("must be in the range 1-100");
    }
    term.weight = static_cast<int32_t>(weight);
    FieldReader preference = preferred.Index(i).Field("preference");
    KUEUESIM_ASSIGN_OR_RETURN(term.preference.match_expressions,
                              DecodeRequirements(preference.Field("matchExpressions"), true));
    KUEUESIM_ASSIGN_OR_RETURN(term.preference.match_fields,
                              DecodeRequirements(preference.Field("matchFields"), true));
    pod_set->rare.Mutable().preferred_affinity.push_back(std::move(term));
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto tolerations, DecodeTolerations(spec.Field("tolerations")));
  if (!tolerations.empty()) pod_set->rare.Mutable().tolerations = std::move(tolerations);
  KUEUESIM_ASSIGN_OR_RETURN(auto priority_class, spec.Field("priorityClassName").OptString());
  if (!priority_class.value_or("").empty()) pod_set->rare.Mutable().priority_class_name = *priority_class;
  KUEUESIM_ASSIGN_OR_RETURN(auto resource_claims, DecodePodResourceClaims(spec));
  if (!resource_claims.empty()) pod_set->rare.Mutable().resource_claims = std::move(resource_claims);
  return absl::OkStatus();
}

absl::StatusOr<model::ObjectMeta> DecodeMeta(const FieldReader& object, bool namespaced) {
  model::ObjectMeta meta;
  FieldReader metadata = object.Field("metadata");
  KUEUESIM_RETURN_IF_ERROR(metadata.ExpectMapping());
  FieldReader generate_name = metadata.Field("generateName");
  if (!metadata.Field("name").present() && generate_name.present()) {
    // metadata.generateName: the name the API server would give it
    // (scenario/generate_name.h).
    KUEUESIM_ASSIGN_OR_RETURN(std::string prefix, generate_name.String());
    if (prefix.empty()) return generate_name.Error("must not be empty");
    meta.name = *ObjectName(object.node());
  } else {
    KUEUESIM_ASSIGN_OR_RETURN(meta.name, metadata.Field("name").String());
  }
  if (meta.name.empty()) return metadata.Field("name").Error("must not be empty");
  if (namespaced) {
    KUEUESIM_ASSIGN_OR_RETURN(auto ns, metadata.Field("namespace").OptString());
    meta.namespace_ = ns.value_or("default");
    if (meta.namespace_.empty()) meta.namespace_ = "default";
  }
  KUEUESIM_ASSIGN_OR_RETURN(meta.labels, metadata.Field("labels").StringMap());
  KUEUESIM_ASSIGN_OR_RETURN(meta.annotations, metadata.Field("annotations").StringMap());
  KUEUESIM_ASSIGN_OR_RETURN(auto uid, metadata.Field("uid").OptString());
  meta.set_uid(uid.value_or(""));
  if (metadata.Field("creationTimestamp").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(meta.creation_timestamp,
                              metadata.Field("creationTimestamp").Timestamp());
  }
  meta.source.file = object.node().shared_file();
  meta.source.line = object.node().position().line;
  return meta;
}

absl::StatusOr<model::ResourceFlavor> DecodeResourceFlavor(const FieldReader& object) {
  model::ResourceFlavor flavor;
  KUEUESIM_ASSIGN_OR_RETURN(flavor.meta, DecodeMeta(object, false));
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(flavor.node_labels, spec.Field("nodeLabels").StringMap());
  KUEUESIM_ASSIGN_OR_RETURN(flavor.node_taints, DecodeTaints(spec.Field("nodeTaints")));
  KUEUESIM_ASSIGN_OR_RETURN(flavor.tolerations, DecodeTolerations(spec.Field("tolerations")));
  KUEUESIM_ASSIGN_OR_RETURN(auto topology, spec.Field("topologyName").OptString());
  flavor.topology_name = topology.value_or("");
  if (flavor.node_labels.size() > 8) return spec.Field("nodeLabels").Error("must have at most 8 labels");
  if (flavor.node_taints.size() > 8) return spec.Field("nodeTaints").Error("must have at most 8 taints");
  if (!flavor.topology_name.empty() && flavor.node_labels.empty()) {
    return spec.Field("nodeLabels").Error("must not be empty when topologyName is set");
  }
  return flavor;
}

absl::StatusOr<model::ClusterQueue> DecodeClusterQueue(const FieldReader& object,
                                                       KueueApiVersion version) {
  model::ClusterQueue cq;
  KUEUESIM_ASSIGN_OR_RETURN(cq.meta, DecodeMeta(object, false));
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(cq.resource_groups, DecodeResourceGroups(spec.Field("resourceGroups")));
  const char* cohort_key = version == KueueApiVersion::kV1beta1 ? "cohort" : "cohortName";
  KUEUESIM_ASSIGN_OR_RETURN(auto cohort, spec.Field(cohort_key).OptString());
  cq.cohort = cohort.value_or("");
  if (version == KueueApiVersion::kV1beta2 && spec.Field("cohort").present()) {
    return spec.Field("cohort").Error("is the v1beta1 spelling; kueue.x-k8s.io/v1beta2 uses cohortName");
  }
  KUEUESIM_ASSIGN_OR_RETURN(
      cq.queueing_strategy,
      ParseEnum<model::QueueingStrategy>(spec.Field("queueingStrategy"),
                                         {{"BestEffortFIFO", model::QueueingStrategy::kBestEffortFIFO},
                                          {"StrictFIFO", model::QueueingStrategy::kStrictFIFO}},
                                         model::QueueingStrategy::kBestEffortFIFO));
  KUEUESIM_ASSIGN_OR_RETURN(cq.namespace_selector, DecodeLabelSelector(spec.Field("namespaceSelector")));
  FieldReader fungibility = spec.Field("flavorFungibility");
  KUEUESIM_RETURN_IF_ERROR(fungibility.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(cq.flavor_fungibility.when_can_borrow,
                            DecodeFungibility(fungibility.Field("whenCanBorrow"),
                                              model::FungibilityPolicy::kMayStopSearch, "Borrow"));
  KUEUESIM_ASSIGN_OR_RETURN(cq.flavor_fungibility.when_can_preempt,
                            DecodeFungibility(fungibility.Field("whenCanPreempt"),
                                              model::FungibilityPolicy::kTryNextFlavor, "Preempt"));
  KUEUESIM_ASSIGN_OR_RETURN(
      cq.flavor_fungibility.preference,
      ParseEnum<model::FungibilityPreference>(
          fungibility.Field("preference"),
          {{"BorrowingOverPreemption", model::FungibilityPreference::kBorrowingOverPreemption},
           {"PreemptionOverBorrowing", model::FungibilityPreference::kPreemptionOverBorrowing}},
          model::FungibilityPreference::kNone));
  FieldReader preemption = spec.Field("preemption");
  KUEUESIM_RETURN_IF_ERROR(preemption.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(cq.preemption.within_cluster_queue,
                            DecodePreemptionPolicy(preemption.Field("withinClusterQueue"), true));
  KUEUESIM_ASSIGN_OR_RETURN(cq.preemption.reclaim_within_cohort,
                            DecodePreemptionPolicy(preemption.Field("reclaimWithinCohort"), false));
  FieldReader borrow = preemption.Field("borrowWithinCohort");
  if (borrow.present()) {
    KUEUESIM_RETURN_IF_ERROR(borrow.ExpectMapping());
    model::BorrowWithinCohort bwc;
    KUEUESIM_ASSIGN_OR_RETURN(
        bwc.policy, ParseEnum<model::BorrowWithinCohortPolicy>(
                        borrow.Field("policy"),
                        {{"Never", model::BorrowWithinCohortPolicy::kNever},
                         {"LowerPriority", model::BorrowWithinCohortPolicy::kLowerPriority}},
                        model::BorrowWithinCohortPolicy::kNever));
    KUEUESIM_ASSIGN_OR_RETURN(bwc.max_priority_threshold,
                              borrow.Field("maxPriorityThreshold").OptInt32());
    cq.preemption.borrow_within_cohort = bwc;
  }
  KUEUESIM_ASSIGN_OR_RETURN(cq.fair_weight, DecodeFairWeight(spec.Field("fairSharing")));
  // Admission checks: v1beta1 `admissionChecks` (names) and
  // `admissionChecksStrategy.admissionChecks` (name, onFlavors).
  KUEUESIM_ASSIGN_OR_RETURN(auto plain_checks, spec.Field("admissionChecks").StringList());
  for (auto& name : plain_checks) cq.admission_checks.push_back({std::move(name), {}});
  FieldReader strategy_checks = spec.Field("admissionChecksStrategy").Field("admissionChecks");
  KUEUESIM_RETURN_IF_ERROR(strategy_checks.ExpectSequence());
  for (size_t i = 0; i < strategy_checks.size(); ++i) {
    model::AdmissionCheckRef ref;
    KUEUESIM_ASSIGN_OR_RETURN(ref.name, strategy_checks.Index(i).Field("name").String());
    KUEUESIM_ASSIGN_OR_RETURN(ref.on_flavors, strategy_checks.Index(i).Field("onFlavors").StringList());
    cq.admission_checks.push_back(std::move(ref));
  }
  KUEUESIM_ASSIGN_OR_RETURN(cq.stop_policy, DecodeStopPolicy(spec.Field("stopPolicy")));
  KUEUESIM_ASSIGN_OR_RETURN(
      cq.admission_mode,
      ParseEnum<model::AdmissionMode>(
          spec.Field("admissionScope").Field("admissionMode"),
          {{"UsageBasedAdmissionFairSharing", model::AdmissionMode::kUsageBasedAdmissionFairSharing},
           {"NoAdmissionFairSharing", model::AdmissionMode::kNoAdmissionFairSharing}},
          model::AdmissionMode::kNone));
  return cq;
}

absl::StatusOr<model::Cohort> DecodeCohort(const FieldReader& object, KueueApiVersion) {
  model::Cohort cohort;
  KUEUESIM_ASSIGN_OR_RETURN(cohort.meta, DecodeMeta(object, false));
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(auto parent, spec.Field("parentName").OptString());
  if (!parent.has_value()) {
    KUEUESIM_ASSIGN_OR_RETURN(parent, spec.Field("parent").OptString());
  }
  cohort.parent = parent.value_or("");
  KUEUESIM_ASSIGN_OR_RETURN(cohort.resource_groups, DecodeResourceGroups(spec.Field("resourceGroups")));
  KUEUESIM_ASSIGN_OR_RETURN(cohort.fair_weight, DecodeFairWeight(spec.Field("fairSharing")));
  return cohort;
}

absl::StatusOr<model::LocalQueue> DecodeLocalQueue(const FieldReader& object) {
  model::LocalQueue lq;
  KUEUESIM_ASSIGN_OR_RETURN(lq.meta, DecodeMeta(object, true));
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  // Optional in the API: without it the LocalQueue's workloads stay pending
  // (the ClusterQueue "" does not exist).
  KUEUESIM_ASSIGN_OR_RETURN(auto cluster_queue, spec.Field("clusterQueue").OptString());
  lq.cluster_queue = cluster_queue.value_or("");
  KUEUESIM_ASSIGN_OR_RETURN(lq.stop_policy, DecodeStopPolicy(spec.Field("stopPolicy")));
  KUEUESIM_ASSIGN_OR_RETURN(lq.fair_weight, DecodeFairWeight(spec.Field("fairSharing")));
  FieldReader afs = object.Field("status").Field("fairSharing").Field("admissionFairSharingStatus");
  if (afs.present()) {
    FieldReader consumed = afs.Field("consumedResources");
    KUEUESIM_RETURN_IF_ERROR(consumed.ExpectMapping());
    if (consumed.present()) {
      for (size_t i = 0; i < consumed.node().size(); ++i) {
        std::string name(consumed.node().key(i));
        KUEUESIM_ASSIGN_OR_RETURN(lq.afs_consumed[name], consumed.Field(name).AmountOf(name, false));
      }
    }
    if (afs.Field("lastUpdate").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(lq.afs_last_update, afs.Field("lastUpdate").Timestamp());
    }
  }
  return lq;
}

absl::StatusOr<model::WorkloadPriorityClass> DecodeWorkloadPriorityClass(const FieldReader& object) {
  model::WorkloadPriorityClass wpc;
  KUEUESIM_ASSIGN_OR_RETURN(wpc.meta, DecodeMeta(object, false));
  KUEUESIM_ASSIGN_OR_RETURN(wpc.value, object.Field("value").Int32());
  return wpc;
}

absl::StatusOr<model::PriorityClass> DecodePriorityClass(const FieldReader& object) {
  model::PriorityClass pc;
  KUEUESIM_ASSIGN_OR_RETURN(pc.meta, DecodeMeta(object, false));
  KUEUESIM_ASSIGN_OR_RETURN(pc.value, object.Field("value").Int32());
  if (object.Field("globalDefault").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(pc.global_default, object.Field("globalDefault").Bool());
  }
  return pc;
}

absl::StatusOr<model::Namespace> DecodeNamespace(const FieldReader& object) {
  model::Namespace ns;
  KUEUESIM_ASSIGN_OR_RETURN(ns.meta, DecodeMeta(object, false));
  // Kubernetes adds this label to every namespace.
  ns.meta.labels.emplace("kubernetes.io/metadata.name", ns.meta.name);
  return ns;
}

namespace {

// A ResourceList (name -> quantity) as canonical amounts sorted by name.
absl::StatusOr<std::vector<model::ResourceAmount>> DecodeResourceAmounts(const FieldReader& list) {
  std::vector<model::ResourceAmount> out;
  if (!list.present()) return out;
  KUEUESIM_RETURN_IF_ERROR(list.ExpectMapping());
  for (size_t i = 0; i < list.node().size(); ++i) {
    std::string name(list.node().key(i));
    KUEUESIM_ASSIGN_OR_RETURN(Amount amount, list.Field(name).AmountOf(name, false));
    out.push_back({std::move(name), amount});
  }
  std::sort(out.begin(), out.end(),
            [](const model::ResourceAmount& a, const model::ResourceAmount& b) { return a.name < b.name; });
  return out;
}

// Adds to `into` the entries of `from` it does not name.
void AddMissing(std::vector<model::ResourceAmount>* into, const std::vector<model::ResourceAmount>& from) {
  for (const model::ResourceAmount& entry : from) {
    const bool named = std::any_of(into->begin(), into->end(),
                                   [&entry](const model::ResourceAmount& e) { return e.name == entry.name; });
    if (!named) into->push_back(entry);
  }
  std::sort(into->begin(), into->end(),
            [](const model::ResourceAmount& a, const model::ResourceAmount& b) { return a.name < b.name; });
}

}  // namespace

absl::StatusOr<model::LimitRange> DecodeLimitRange(const FieldReader& object) {
  model::LimitRange range;
  KUEUESIM_ASSIGN_OR_RETURN(range.meta, DecodeMeta(object, true));
  FieldReader limits = object.Field("spec").Field("limits");
  if (!limits.present()) return limits.Error("is required");
  KUEUESIM_RETURN_IF_ERROR(limits.ExpectSequence());
  for (size_t i = 0; i < limits.size(); ++i) {
    FieldReader item_field = limits.Index(i);
    KUEUESIM_RETURN_IF_ERROR(item_field.ExpectMapping());
    model::LimitRangeItem item;
    KUEUESIM_ASSIGN_OR_RETURN(item.type, item_field.Field("type").String());
    KUEUESIM_ASSIGN_OR_RETURN(item.max, DecodeResourceAmounts(item_field.Field("max")));
    KUEUESIM_ASSIGN_OR_RETURN(item.min, DecodeResourceAmounts(item_field.Field("min")));
    KUEUESIM_ASSIGN_OR_RETURN(item.default_limits, DecodeResourceAmounts(item_field.Field("default")));
    KUEUESIM_ASSIGN_OR_RETURN(item.default_requests, DecodeResourceAmounts(item_field.Field("defaultRequest")));
    if (item.type == "Container") {
      // The API server's defaulting (SetDefaults_LimitRangeItem): a missing
      // default limit is the max, a missing default request the default
      // limit, else the min. An exported LimitRange already holds them.
      AddMissing(&item.default_limits, item.max);
      AddMissing(&item.default_requests, item.default_limits);
      AddMissing(&item.default_requests, item.min);
    }
    range.limits.push_back(std::move(item));
  }
  return range;
}

absl::StatusOr<model::RuntimeClass> DecodeRuntimeClass(const FieldReader& object) {
  model::RuntimeClass runtime_class;
  KUEUESIM_ASSIGN_OR_RETURN(runtime_class.meta, DecodeMeta(object, false));
  FieldReader pod_fixed = object.Field("overhead").Field("podFixed");
  if (pod_fixed.present()) {
    KUEUESIM_ASSIGN_OR_RETURN(runtime_class.pod_fixed_overhead, DecodeResourceAmounts(pod_fixed));
  }
  return runtime_class;
}

absl::StatusOr<model::AdmissionCheck> DecodeAdmissionCheck(const FieldReader& object) {
  model::AdmissionCheck check;
  KUEUESIM_ASSIGN_OR_RETURN(check.meta, DecodeMeta(object, false));
  KUEUESIM_ASSIGN_OR_RETURN(check.controller_name, object.Field("spec").Field("controllerName").String());
  FieldReader parameters = object.Field("spec").Field("parameters");
  if (parameters.present()) {
    KUEUESIM_RETURN_IF_ERROR(parameters.ExpectMapping());
    KUEUESIM_ASSIGN_OR_RETURN(auto group, parameters.Field("apiGroup").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(check.parameters_kind, parameters.Field("kind").String());
    KUEUESIM_ASSIGN_OR_RETURN(check.parameters_name, parameters.Field("name").String());
    check.parameters_api_group = group.value_or("");
  }
  KUEUESIM_ASSIGN_OR_RETURN(check.simulated,
                            DecodeCheckBehavior(object.Field("metadata").Field("annotations")));
  FieldReader conditions = object.Field("status").Field("conditions");
  if (conditions.present()) {
    KUEUESIM_RETURN_IF_ERROR(conditions.ExpectSequence());
    for (size_t i = 0; i < conditions.size(); ++i) {
      KUEUESIM_ASSIGN_OR_RETURN(auto type, conditions.Index(i).Field("type").OptString());
      if (type.value_or("") != "Active") continue;
      KUEUESIM_ASSIGN_OR_RETURN(auto status, conditions.Index(i).Field("status").OptString());
      check.active = status.value_or("True") == "True";
    }
  }
  return check;
}

absl::StatusOr<model::MultiKueueConfig> DecodeMultiKueueConfig(const FieldReader& object) {
  model::MultiKueueConfig config;
  KUEUESIM_ASSIGN_OR_RETURN(config.meta, DecodeMeta(object, false));
  FieldReader spec = object.Field("spec");
  KUEUESIM_ASSIGN_OR_RETURN(config.clusters, spec.Field("clusters").StringList());
  if (config.clusters.empty() || config.clusters.size() > 20) {
    return spec.Field("clusters").Error("must list 1 to 20 MultiKueueClusters");
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < config.clusters.size(); ++i) {
    if (!seen.insert(config.clusters[i]).second) {
      return spec.Field("clusters").Index(i).Error(fmt::format("duplicate cluster \"{}\"", config.clusters[i]));
    }
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto management, spec.Field("quotaManagement").OptString());
  if (management.has_value()) {
    if (*management != "Manual" && *management != "Automated") {
      return spec.Field("quotaManagement")
          .Error(fmt::format("unknown value \"{}\" (valid: Manual, Automated)", *management));
    }
    config.quota_management = *management;
  }
  return config;
}

absl::StatusOr<model::MultiKueueCluster> DecodeMultiKueueCluster(const FieldReader& object) {
  model::MultiKueueCluster cluster;
  KUEUESIM_ASSIGN_OR_RETURN(cluster.meta, DecodeMeta(object, false));
  FieldReader source = object.Field("spec").Field("clusterSource");
  FieldReader kubeconfig = object.Field("spec").Field("kubeConfig");  // v1beta1
  if (source.present()) {
    KUEUESIM_RETURN_IF_ERROR(source.ExpectMapping());
    const bool has_kubeconfig = source.Field("kubeConfig").present();
    const bool has_profile = source.Field("clusterProfileRef").present();
    if (has_kubeconfig == has_profile) {
      return source.Error("must set exactly one of kubeConfig and clusterProfileRef");
    }
    if (has_kubeconfig) kubeconfig = source.Field("kubeConfig");
    if (has_profile) {
      KUEUESIM_ASSIGN_OR_RETURN(cluster.kubeconfig_location,
                                source.Field("clusterProfileRef").Field("name").String());
    }
  }
  if (kubeconfig.present()) {
    KUEUESIM_ASSIGN_OR_RETURN(cluster.kubeconfig_location, kubeconfig.Field("location").String());
  }
  cluster.target_cluster = cluster.meta.name;
  if (auto it = cluster.meta.annotations.find("kueuesim.io/cluster-ref"); it != cluster.meta.annotations.end()) {
    cluster.target_cluster = it->second;
  }
  FieldReader conditions = object.Field("status").Field("conditions");
  KUEUESIM_RETURN_IF_ERROR(conditions.ExpectSequence());
  for (size_t i = 0; i < conditions.size(); ++i) {
    KUEUESIM_ASSIGN_OR_RETURN(auto type, conditions.Index(i).Field("type").OptString());
    if (type.value_or("") != "Active") continue;
    KUEUESIM_ASSIGN_OR_RETURN(auto status, conditions.Index(i).Field("status").OptString());
    cluster.active = status.value_or("True") == "True";
  }
  return cluster;
}

absl::StatusOr<model::Topology> DecodeTopology(const FieldReader& object) {
  model::Topology topology;
  KUEUESIM_ASSIGN_OR_RETURN(topology.meta, DecodeMeta(object, false));
  FieldReader levels = object.Field("spec").Field("levels");
  KUEUESIM_RETURN_IF_ERROR(levels.ExpectSequence());
  if (levels.size() == 0 || levels.size() > 16) return levels.Error("must have 1 to 16 levels");
  std::set<std::string> seen;
  for (size_t i = 0; i < levels.size(); ++i) {
    KUEUESIM_ASSIGN_OR_RETURN(std::string label, levels.Index(i).Field("nodeLabel").String());
    if (!seen.insert(label).second) {
      return levels.Index(i).Field("nodeLabel").Error(fmt::format("level \"{}\" is listed twice", label));
    }
    topology.levels.push_back(std::move(label));
  }
  return topology;
}

absl::StatusOr<std::vector<model::Taint>> DecodeTaintList(const FieldReader& list) {
  return DecodeTaints(list);
}

absl::StatusOr<model::Node> DecodeNode(const FieldReader& object, bool* has_ready_condition) {
  KUEUESIM_ASSIGN_OR_RETURN(model::ObjectMeta meta, DecodeMeta(object, false));
  model::NodeTemplate own;
  own.labels = std::move(meta.labels);
  own.source = meta.source;
  own.cluster = meta.cluster();
  FieldReader spec = object.Field("spec");
  KUEUESIM_ASSIGN_OR_RETURN(own.taints, DecodeTaints(spec.Field("taints")));
  FieldReader allocatable = object.Field("status").Field("allocatable");
  KUEUESIM_RETURN_IF_ERROR(allocatable.ExpectMapping());
  if (allocatable.present()) {
    for (size_t i = 0; i < allocatable.node().size(); ++i) {
      std::string name(allocatable.node().key(i));
      KUEUESIM_ASSIGN_OR_RETURN(own.allocatable[name], allocatable.Field(name).AmountOf(name, true));
    }
  }
  model::Node node(std::move(meta.name), std::move(own));
  if (spec.Field("unschedulable").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(node.unschedulable, spec.Field("unschedulable").Bool());
  }
  // Ready as Kueue's TAS node cache reads it (utiltas.IsNodeStatusConditionTrue):
  // only a Ready condition with status True; a Node without one is not ready.
  FieldReader conditions = object.Field("status").Field("conditions");
  KUEUESIM_RETURN_IF_ERROR(conditions.ExpectSequence());
  node.ready = false;
  bool found_ready = false;
  for (size_t i = 0; i < conditions.size(); ++i) {
    KUEUESIM_ASSIGN_OR_RETURN(auto type, conditions.Index(i).Field("type").OptString());
    if (type.value_or("") != "Ready") continue;
    KUEUESIM_ASSIGN_OR_RETURN(auto status, conditions.Index(i).Field("status").OptString());
    found_ready = true;
    node.ready = status.value_or("") == "True";
    break;
  }
  if (has_ready_condition != nullptr) *has_ready_condition = found_ready;
  return node;
}

absl::Status DecodeTimingAnnotations(const FieldReader& metadata, model::Workload* workload) {
  FieldReader annotations = metadata.Field("annotations");
  if (annotations.Field(kArrivalAnnotation).present()) {
    KUEUESIM_ASSIGN_OR_RETURN(workload->arrival, annotations.Field(kArrivalAnnotation).Duration());
  }
  if (annotations.Field(kDurationAnnotation).present()) {
    KUEUESIM_ASSIGN_OR_RETURN(workload->duration, annotations.Field(kDurationAnnotation).Duration());
  }
  if (annotations.Field(kStartupDelayAnnotation).present()) {
    KUEUESIM_ASSIGN_OR_RETURN(workload->rare.Mutable().startup_delay,
                              annotations.Field(kStartupDelayAnnotation).Duration());
  }
  return absl::OkStatus();
}

// Kueue's Workload webhook (validatePodSet, validateResourceList, with the
// WorkloadValidateResourcesAreNonNegative gate on by default at the
// reference): the `pods` key is reserved, and no request or limit of a
// container, init container or the pod-level resources may be negative.
absl::Status ValidateWorkloadPodSetResources(const FieldReader& pod_spec) {
  const auto check_list = [](const FieldReader& list) -> absl::Status {
    if (!list.present() || !list.node().IsMapping()) return absl::OkStatus();
    for (size_t i = 0; i < list.node().size(); ++i) {
      std::string name(list.node().key(i));
      if (name == "pods") {
        return list.Field(name).Error("Kueue's webhook rejects it: the key is reserved for internal kueue use");
      }
      auto quantity = list.Field(name).QuantityValue();
      if (quantity.ok() && quantity->negative && !quantity->IsZero()) {
        return list.Field(name).Error("Kueue's webhook rejects it: must be greater than or equal to 0");
      }
    }
    return absl::OkStatus();
  };
  for (const char* containers : {"initContainers", "containers"}) {
    FieldReader list = pod_spec.Field(containers);
    if (!list.present() || !list.node().IsSequence()) continue;
    for (size_t c = 0; c < list.size(); ++c) {
      for (const char* kind : {"requests", "limits"}) {
        KUEUESIM_RETURN_IF_ERROR(check_list(list.Index(c).Field("resources").Field(kind)));
      }
    }
  }
  for (const char* kind : {"requests", "limits"}) {
    KUEUESIM_RETURN_IF_ERROR(check_list(pod_spec.Field("resources").Field(kind)));
  }
  return absl::OkStatus();
}

absl::StatusOr<model::Workload> DecodeWorkload(const FieldReader& object, KueueApiVersion version) {
  model::Workload wl;
  KUEUESIM_ASSIGN_OR_RETURN(wl.meta, DecodeMeta(object, true));
  KUEUESIM_RETURN_IF_ERROR(DecodeTimingAnnotations(object.Field("metadata"), &wl));
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(auto queue_name, spec.Field("queueName").OptString());
  wl.queue_name = queue_name.value_or("");
  if (wl.queue_name.empty()) {
    auto it = wl.meta.labels.find(kQueueNameLabel);
    if (it != wl.meta.labels.end()) wl.queue_name = it->second;
  }
  FieldReader pod_sets = spec.Field("podSets");
  KUEUESIM_RETURN_IF_ERROR(pod_sets.ExpectSequence());
  if (pod_sets.size() < 1 || pod_sets.size() > 18) return pod_sets.Error("must have 1 to 18 pod sets");
  std::set<std::string> names;
  for (size_t i = 0; i < pod_sets.size(); ++i) {
    FieldReader item = pod_sets.Index(i);
    KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
    model::PodSet pod_set;
    KUEUESIM_ASSIGN_OR_RETURN(auto name, item.Field("name").OptString());
    pod_set.name = name.value_or("main");
    if (!names.insert(pod_set.name).second) {
      return item.Field("name").Error(fmt::format("pod set name \"{}\" is used twice", pod_set.name));
    }
    if (item.Field("count").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(pod_set.count, item.Field("count").Int32());
    }
    if (pod_set.count < 0) return item.Field("count").Error("must not be negative");
    KUEUESIM_ASSIGN_OR_RETURN(pod_set.min_count, item.Field("minCount").OptInt32());
    if (pod_set.min_count.has_value() &&
        (*pod_set.min_count < 1 || *pod_set.min_count > pod_set.count)) {
      return item.Field("minCount").Error(
          fmt::format("must be between 1 and count ({})", pod_set.count));
    }
    KUEUESIM_RETURN_IF_ERROR(ValidateWorkloadPodSetResources(item.Field("template").Field("spec")));
    KUEUESIM_RETURN_IF_ERROR(DecodePodTemplate(item.Field("template"), &pod_set));
    KUEUESIM_ASSIGN_OR_RETURN(pod_set.topology_request, DecodeTopologyRequest(item.Field("topologyRequest")));
    if (!pod_set.topology_request.has_value()) {
      KUEUESIM_ASSIGN_OR_RETURN(
          pod_set.topology_request,
          DecodeTopologyAnnotations(item.Field("template").Field("metadata").Field("annotations")));
    }
    wl.pod_sets.push_back(std::move(pod_set));
  }
  // Kueue's webhook allows minCount on one pod set only, once its defaulting
  // has dropped every minCount when PartialAdmission is off: the loader
  // checks it when the cluster's feature gates are known
  // (ApplyPartialAdmissionGate).
  KUEUESIM_ASSIGN_OR_RETURN(wl.priority, spec.Field("priority").OptInt32());
  if (version == KueueApiVersion::kV1beta1) {
    KUEUESIM_ASSIGN_OR_RETURN(auto pc, spec.Field("priorityClassName").OptString());
    wl.priority_class_name = pc.value_or("");
    KUEUESIM_ASSIGN_OR_RETURN(auto source, spec.Field("priorityClassSource").OptString());
    if (!source.value_or("").empty()) wl.rare.Mutable().priority_class_source = *source;
  } else {
    FieldReader ref = spec.Field("priorityClassRef");
    if (ref.present()) {
      KUEUESIM_ASSIGN_OR_RETURN(wl.priority_class_name, ref.Field("name").String());
      KUEUESIM_ASSIGN_OR_RETURN(auto group, ref.Field("group").OptString());
      wl.rare.Mutable().priority_class_source = group.value_or("") == "scheduling.k8s.io"
                                                    ? "scheduling.k8s.io/priorityclass"
                                                    : "kueue.x-k8s.io/workloadpriorityclass";
    }
  }
  if (spec.Field("active").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(wl.active, spec.Field("active").Bool());
  }
  FieldReader gates = spec.Field("preemptionGates");
  KUEUESIM_RETURN_IF_ERROR(gates.ExpectSequence());
  for (size_t i = 0; i < gates.size(); ++i) {
    KUEUESIM_ASSIGN_OR_RETURN(std::string gate, gates.Index(i).Field("name").String());
    wl.rare.Mutable().preemption_gates.push_back(std::move(gate));
  }
  if (spec.Field("maximumExecutionTimeSeconds").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(wl.rare.Mutable().maximum_execution_time_seconds,
                              spec.Field("maximumExecutionTimeSeconds").OptInt32());
  }

  FieldReader status = object.Field("status");
  KUEUESIM_RETURN_IF_ERROR(status.ExpectMapping());
  FieldReader conditions = status.Field("conditions");
  KUEUESIM_ASSIGN_OR_RETURN(auto quota_reserved, TrueConditionTime(conditions, "QuotaReserved"));
  KUEUESIM_ASSIGN_OR_RETURN(auto admitted, TrueConditionTime(conditions, "Admitted"));
  KUEUESIM_ASSIGN_OR_RETURN(auto finished, TrueConditionTime(conditions, "Finished"));
  wl.finished = finished.has_value();
  if (status.Field("accumulatedPastExecutionTimeSeconds").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(wl.rare.Mutable().accumulated_past_execution_seconds,
                              status.Field("accumulatedPastExecutionTimeSeconds").Int64());
  }
  if (status.Field("admission").present() && quota_reserved.has_value() && !finished.has_value()) {
    KUEUESIM_ASSIGN_OR_RETURN(wl.admission, DecodeAdmission(status.Field("admission")));
    wl.rare.Mutable().quota_reserved_time = quota_reserved;
    wl.rare.Mutable().admitted_time = admitted;
    for (const auto& assignment : wl.admission->pod_set_assignments) {
      if (!names.count(assignment.name)) {
        return status.Field("admission").Field("podSetAssignments")
            .Error(fmt::format("pod set \"{}\" is not in spec.podSets", assignment.name));
      }
    }
  }
  KUEUESIM_RETURN_IF_ERROR(DecodeRequeueState(status, &wl));
  // status.reclaimablePods: as Kueue's webhook, each names a pod set; a count
  // above the pod set's (left by an elastic scale-down) is charged as all of
  // it, as podSetsCountsAfterReclaim does.
  FieldReader reclaimable = status.Field("reclaimablePods");
  KUEUESIM_RETURN_IF_ERROR(reclaimable.ExpectSequence());
  for (size_t i = 0; i < reclaimable.size(); ++i) {
    FieldReader item = reclaimable.Index(i);
    KUEUESIM_ASSIGN_OR_RETURN(std::string name, item.Field("name").String());
    KUEUESIM_ASSIGN_OR_RETURN(int32_t count, item.Field("count").Int32());
    if (count < 0) return item.Field("count").Error("must be greater than or equal to 0");
    auto pod_set = std::find_if(wl.pod_sets.begin(), wl.pod_sets.end(),
                                [&](const model::PodSet& ps) { return ps.name == name; });
    if (pod_set == wl.pod_sets.end()) {
      return item.Field("name").Error(fmt::format("pod set \"{}\" is not in spec.podSets", name));
    }
    pod_set->reclaimable = count;
  }
  FieldReader checks = status.Field("admissionChecks");
  KUEUESIM_RETURN_IF_ERROR(checks.ExpectSequence());
  for (size_t i = 0; i < checks.size(); ++i) {
    KUEUESIM_ASSIGN_OR_RETURN(std::string name, checks.Index(i).Field("name").String());
    KUEUESIM_ASSIGN_OR_RETURN(auto state, checks.Index(i).Field("state").OptString());
    wl.rare.Mutable().admission_check_states.emplace_back(std::move(name), state.value_or("Pending"));
  }
  return wl;
}

absl::StatusOr<std::optional<model::Workload>> DecodeJob(const FieldReader& object) {
  KUEUESIM_ASSIGN_OR_RETURN(model::ObjectMeta meta, DecodeMeta(object, true));
  return DecodeJobWithMeta(object, std::move(meta));
}

absl::StatusOr<std::optional<model::Workload>> DecodeJobWithMeta(const FieldReader& object,
                                                                 model::ObjectMeta meta) {
  std::string queue;
  if (auto it = meta.labels.find(kQueueNameLabel); it != meta.labels.end()) {
    queue = it->second;
  }
  if (queue.empty()) return std::optional<model::Workload>();
  model::Workload wl;
  wl.meta = meta;
  wl.meta.name = "job-" + meta.name;
  wl.source_kind = model::WorkloadSourceKind::kJob;
  wl.queue_name = queue;
  KUEUESIM_RETURN_IF_ERROR(DecodeTimingAnnotations(object.Field("metadata"), &wl));
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  int32_t parallelism = 1;
  if (spec.Field("parallelism").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(parallelism, spec.Field("parallelism").Int32());
  }
  if (parallelism < 0) return spec.Field("parallelism").Error("must not be negative");
  KUEUESIM_ASSIGN_OR_RETURN(auto completions, spec.Field("completions").OptInt32());
  model::PodSet pod_set;
  pod_set.name = "main";
  // Kueue's Job integration: pods = parallelism, capped by completions.
  pod_set.count = completions.has_value() ? std::min(parallelism, *completions) : parallelism;
  if (auto it = meta.annotations.find(kJobMinParallelismAnnotation); it != meta.annotations.end()) {
    int32_t min_parallelism = 0;
    const std::string& text = it->second;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), min_parallelism);
    // Kueue's Job webhook (validatePartialAdmissionCreate): 0 < value <
    // the pod count.
    if (ec != std::errc() || ptr != text.data() + text.size() || min_parallelism < 1 ||
        min_parallelism >= pod_set.count) {
      return object.Field("metadata").Field("annotations").Field(kJobMinParallelismAnnotation)
          .Error(fmt::format("\"{}\": Kueue's Job webhook refuses it: should be between 0 and {}",
                             text, pod_set.count - 1));
    }
    pod_set.min_count = min_parallelism;
  }
  // kueue.x-k8s.io/max-exec-time-seconds (jobframework.NewWorkload); the
  // webhook refuses a value that is not a positive integer.
  if (auto it = meta.labels.find(kMaxExecTimeLabel); it != meta.labels.end()) {
    int32_t seconds = 0;
    const std::string& text = it->second;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (ec != std::errc() || ptr != text.data() + text.size() || seconds <= 0) {
      return object.Field("metadata").Field("labels").Field(kMaxExecTimeLabel)
          .Error(fmt::format("\"{}\" must be an integer greater than 0", text));
    }
    wl.rare.Mutable().maximum_execution_time_seconds = seconds;
  }
  KUEUESIM_RETURN_IF_ERROR(DecodePodTemplate(spec.Field("template"), &pod_set, /*api_server_validated=*/true));
  // The TAS annotations as Kueue's Job integration reads them (its webhook's
  // ValidateTASPodSetRequest, then the request builder with the completion
  // index as the pod index label); multi-layer slice constraints included.
  kinds::TopologyIndex index;
  index.pod_index_label = kJobCompletionIndexAnnotation;
  KUEUESIM_ASSIGN_OR_RETURN(pod_set.topology_request,
                            kinds::TopologyRequestFromAnnotations(spec.Field("template").Field("metadata").Field("annotations"),
                                                           pod_set.count, index));
  wl.pod_sets.push_back(std::move(pod_set));
  if (auto it = meta.labels.find(kPriorityClassLabel); it != meta.labels.end()) {
    wl.priority_class_name = it->second;
    wl.rare.Mutable().priority_class_source = "kueue.x-k8s.io/workloadpriorityclass";
  }
  if (spec.Field("suspend").present()) {
    // A Job created unsuspended is suspended by Kueue's webhook; nothing to do.
  }
  if (spec.Field("activeDeadlineSeconds").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(int64_t deadline, spec.Field("activeDeadlineSeconds").Int64());
    if (deadline <= 0) return spec.Field("activeDeadlineSeconds").Error("must be positive");
    if (deadline > kInfiniteFuture / kSecond / 4) {
      return spec.Field("activeDeadlineSeconds").Error("is too large");
    }
    wl.rare.Mutable().active_deadline = deadline * kSecond;
  }
  return std::optional<model::Workload>(std::move(wl));
}

absl::StatusOr<model::Configuration> DecodeConfiguration(const FieldReader& object,
                                                         KueueApiVersion version) {
  model::Configuration config;
  config.source.file = object.node().shared_file();
  config.source.line = object.node().position().line;
  // Fair sharing: v1beta2 turns it on by the block's presence; v1beta1 uses
  // fairSharing.enable.
  FieldReader fair_sharing = object.Field("fairSharing");
  bool fs_enabled = fair_sharing.present();
  if (version == KueueApiVersion::kV1beta1 && fs_enabled) {
    fs_enabled = false;
    if (fair_sharing.Field("enable").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(fs_enabled, fair_sharing.Field("enable").Bool());
    }
  }
  if (fs_enabled) {
    model::FairSharingConfig fs;
    FieldReader strategies = fair_sharing.Field("preemptionStrategies");
    KUEUESIM_ASSIGN_OR_RETURN(auto names, strategies.StringList());
    for (const auto& name : names) {
      if (name == "LessThanOrEqualToFinalShare") {
        fs.preemption_strategies.push_back(model::FairSharingStrategy::kLessThanOrEqualToFinalShare);
      } else if (name == "LessThanInitialShare") {
        fs.preemption_strategies.push_back(model::FairSharingStrategy::kLessThanInitialShare);
      } else {
        return strategies.Error(fmt::format(
            "unknown strategy \"{}\" (valid: LessThanOrEqualToFinalShare, LessThanInitialShare)", name));
      }
    }
    if (fs.preemption_strategies.empty()) {
      fs.preemption_strategies = {model::FairSharingStrategy::kLessThanOrEqualToFinalShare,
                                  model::FairSharingStrategy::kLessThanInitialShare};
    } else if (fs.preemption_strategies.size() == 2 &&
               fs.preemption_strategies[0] != model::FairSharingStrategy::kLessThanOrEqualToFinalShare) {
      return strategies.Error(
          "with two strategies the order must be LessThanOrEqualToFinalShare, LessThanInitialShare");
    } else if (fs.preemption_strategies.size() > 2 ||
               (fs.preemption_strategies.size() == 2 &&
                fs.preemption_strategies[0] == fs.preemption_strategies[1])) {
      return strategies.Error("lists a strategy twice");
    }
    config.fair_sharing = fs;
  }
  FieldReader afs = object.Field("admissionFairSharing");
  if (afs.present()) {
    model::AdmissionFairSharingConfig afs_config;
    KUEUESIM_ASSIGN_OR_RETURN(afs_config.usage_half_life_time, afs.Field("usageHalfLifeTime").Duration());
    if (afs.Field("usageSamplingInterval").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(afs_config.usage_sampling_interval,
                                afs.Field("usageSamplingInterval").Duration());
    }
    FieldReader weights = afs.Field("resourceWeights");
    if (weights.present()) {
      KUEUESIM_RETURN_IF_ERROR(weights.ExpectMapping());
      for (size_t i = 0; i < weights.node().size(); ++i) {
        std::string name(weights.node().key(i));
        KUEUESIM_ASSIGN_OR_RETURN(afs_config.resource_weights[name], weights.Field(name).Double());
      }
    }
    config.admission_fair_sharing = afs_config;
  }
  FieldReader wfpr = object.Field("waitForPodsReady");
  model::WaitForPodsReadyConfig& w = config.wait_for_pods_ready;
  if (version == KueueApiVersion::kV1beta1) {
    // v1beta1: off unless enable is true; timeout 5 min; blockAdmission
    // defaults to enable.
    w.enable = false;
    w.timeout = 5 * kMinute;
    if (wfpr.Field("enable").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(w.enable, wfpr.Field("enable").Bool());
    }
    w.block_admission = w.enable;
  } else {
    // v1beta2: the struct is always defaulted, so the feature is on.
    w.enable = true;
  }
  if (wfpr.present()) {
    if (wfpr.Field("timeout").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(w.timeout, wfpr.Field("timeout").Duration());
    }
    if (wfpr.Field("blockAdmission").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(w.block_admission, wfpr.Field("blockAdmission").Bool());
    }
    if (wfpr.Field("recoveryTimeout").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(w.recovery_timeout, wfpr.Field("recoveryTimeout").Duration());
    }
    FieldReader requeuing = wfpr.Field("requeuingStrategy");
    KUEUESIM_ASSIGN_OR_RETURN(
        w.requeuing_timestamp,
        ParseEnum<model::RequeuingTimestamp>(requeuing.Field("timestamp"),
                                             {{"Eviction", model::RequeuingTimestamp::kEviction},
                                              {"Creation", model::RequeuingTimestamp::kCreation}},
                                             model::RequeuingTimestamp::kEviction));
    KUEUESIM_ASSIGN_OR_RETURN(w.backoff_limit_count, requeuing.Field("backoffLimitCount").OptInt32());
    KUEUESIM_ASSIGN_OR_RETURN(auto base, requeuing.Field("backoffBaseSeconds").OptInt32());
    KUEUESIM_ASSIGN_OR_RETURN(auto max, requeuing.Field("backoffMaxSeconds").OptInt32());
    if (base.has_value()) w.backoff_base_seconds = *base;
    if (max.has_value()) w.backoff_max_seconds = *max;
  }
  FieldReader multikueue = object.Field("multiKueue");
  KUEUESIM_RETURN_IF_ERROR(multikueue.ExpectMapping());
  if (multikueue.present()) {
    model::MultiKueueSettings& mk = config.multi_kueue;
    if (multikueue.Field("gcInterval").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(mk.gc_interval, multikueue.Field("gcInterval").Duration());
    }
    if (multikueue.Field("workerLostTimeout").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(mk.worker_lost_timeout, multikueue.Field("workerLostTimeout").Duration());
    }
    KUEUESIM_ASSIGN_OR_RETURN(auto origin, multikueue.Field("origin").OptString());
    if (origin.has_value()) mk.origin = *origin;
    KUEUESIM_ASSIGN_OR_RETURN(auto dispatcher, multikueue.Field("dispatcherName").OptString());
    if (dispatcher.has_value()) {
      if (dispatcher->find('/') == std::string::npos) {
        return multikueue.Field("dispatcherName")
            .Error(fmt::format("\"{}\" must be a domain-prefixed path (e.g. "
                               "kueue.x-k8s.io/multikueue-dispatcher-incremental)",
                               *dispatcher));
      }
      mk.dispatcher_name = *dispatcher;
    }
    FieldReader incremental = multikueue.Field("incrementalDispatcherConfig");
    KUEUESIM_RETURN_IF_ERROR(incremental.ExpectMapping());
    KUEUESIM_ASSIGN_OR_RETURN(mk.incremental_step_size, incremental.Field("stepSize").OptInt32());
    if (mk.incremental_step_size.has_value() && *mk.incremental_step_size < 1) {
      return incremental.Field("stepSize").Error("must be at least 1");
    }
  }
  FieldReader resources = object.Field("resources");
  KUEUESIM_ASSIGN_OR_RETURN(config.exclude_resource_prefixes,
                            resources.Field("excludeResourcePrefixes").StringList());
  FieldReader transformations = resources.Field("transformations");
  KUEUESIM_RETURN_IF_ERROR(transformations.ExpectSequence());
  for (size_t i = 0; i < transformations.size(); ++i) {
    FieldReader item = transformations.Index(i);
    model::ResourceTransformation t;
    KUEUESIM_ASSIGN_OR_RETURN(t.input, item.Field("input").String());
    KUEUESIM_ASSIGN_OR_RETURN(
        t.strategy, ParseEnum<model::TransformationStrategy>(
                        item.Field("strategy"),
                        {{"Retain", model::TransformationStrategy::kRetain},
                         {"Replace", model::TransformationStrategy::kReplace}},
                        model::TransformationStrategy::kRetain));
    FieldReader outputs = item.Field("outputs");
    KUEUESIM_RETURN_IF_ERROR(outputs.ExpectMapping());
    if (outputs.present()) {
      for (size_t o = 0; o < outputs.node().size(); ++o) {
        std::string name(outputs.node().key(o));
        KUEUESIM_ASSIGN_OR_RETURN(Quantity q, outputs.Field(name).QuantityValue());
        t.outputs.emplace_back(name, q);
      }
    }
    config.transformations.push_back(std::move(t));
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto qcs, resources.Field("quotaCheckStrategy").OptString());
  config.quota_check_ignore_undeclared = qcs.value_or("") == "IgnoreUndeclared";
  // DRA: validated (with the feature gates) by dra::Charger::Create.
  KUEUESIM_ASSIGN_OR_RETURN(config.device_class_mappings, DecodeDeviceClassMappings(resources));
  FieldReader gates = object.Field("featureGates");
  KUEUESIM_RETURN_IF_ERROR(gates.ExpectMapping());
  if (gates.present()) {
    for (size_t i = 0; i < gates.node().size(); ++i) {
      std::string name(gates.node().key(i));
      KUEUESIM_ASSIGN_OR_RETURN(config.feature_gates[name], gates.Field(name).Bool());
    }
  }
  return config;
}

absl::Status DecodeSimulation(const FieldReader& object, SimulationSettings* settings) {
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_RETURN_IF_ERROR(CheckKnownFields(
      spec, {"startTime", "evictionDelay", "nodeFailureDelay", "defaultStartupDelay", "cycleDuration",
             "inadmissibleRequeueDelay", "cronJobHorizon", "until", "seed", "leaderWorkerSet", "defaultDurations",
             "multiKueue", "autoscaler", "admissionChecks", "policies", "limits"}));
  settings->source.file = object.node().shared_file();
  settings->source.line = object.node().position().line;
  if (spec.Field("startTime").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(settings->start_time, spec.Field("startTime").Timestamp());
  }
  struct DurationField {
    const char* name;
    SimDuration* target;
  };
  for (const DurationField& f :
       {DurationField{"evictionDelay", &settings->eviction_delay},
        DurationField{"nodeFailureDelay", &settings->node_failure_delay},
        DurationField{"defaultStartupDelay", &settings->default_startup_delay},
        DurationField{"cycleDuration", &settings->cycle_duration},
        DurationField{"inadmissibleRequeueDelay", &settings->inadmissible_requeue_delay},
        DurationField{"cronJobHorizon", &settings->cron_job_horizon}}) {
    if (spec.Field(f.name).present()) {
      KUEUESIM_ASSIGN_OR_RETURN(*f.target, spec.Field(f.name).Duration());
    }
  }
  if (spec.Field("until").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(settings->until, spec.Field("until").Duration());
  }
  if (spec.Field("seed").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(int64_t seed, spec.Field("seed").Int64());
    settings->seed = static_cast<uint64_t>(seed);
  }
  struct ChoiceField {
    const char* name;
    std::string* target;
    std::initializer_list<const char*> valid;
  };
  FieldReader lws = spec.Field("leaderWorkerSet");
  KUEUESIM_RETURN_IF_ERROR(lws.ExpectMapping());
  KUEUESIM_RETURN_IF_ERROR(
      CheckKnownFields(lws, {"version", "statefulSetReplacement", "kueuePercentageMaxSurge", "kueueSurgeWorkloads"}));
  for (const ChoiceField& f :
       {ChoiceField{"version", &settings->lws_version, {"v0.10", "v0.8"}},
        ChoiceField{"statefulSetReplacement", &settings->statefulset_replacement, {"concurrent", "serial"}},
        ChoiceField{"kueuePercentageMaxSurge", &settings->kueue_percentage_max_surge, {"upstream", "fixed"}},
        ChoiceField{"kueueSurgeWorkloads", &settings->kueue_surge_workloads, {"upstream", "fixed"}}}) {
    if (!lws.Field(f.name).present()) continue;
    KUEUESIM_ASSIGN_OR_RETURN(std::string value, lws.Field(f.name).String());
    bool ok = false;
    std::string valid;
    for (const char* v : f.valid) {
      ok = ok || value == v;
      valid += valid.empty() ? v : std::string(", ") + v;
    }
    if (!ok) return lws.Field(f.name).Error(fmt::format("unknown value \"{}\" (valid: {})", value, valid));
    *f.target = value;
  }
  KUEUESIM_RETURN_IF_ERROR(DecodeDefaultDurations(spec.Field("defaultDurations"), &settings->default_durations));
  FieldReader multikueue = spec.Field("multiKueue");
  KUEUESIM_RETURN_IF_ERROR(multikueue.ExpectMapping());
  KUEUESIM_RETURN_IF_ERROR(CheckKnownFields(multikueue, {"dispatchLatency", "statusSyncLatency"}));
  for (const DurationField& f :
       {DurationField{"dispatchLatency", &settings->multikueue_dispatch_latency},
        DurationField{"statusSyncLatency", &settings->multikueue_status_sync_latency}}) {
    if (multikueue.Field(f.name).present()) {
      KUEUESIM_ASSIGN_OR_RETURN(*f.target, multikueue.Field(f.name).Duration());
    }
  }
  KUEUESIM_RETURN_IF_ERROR(DecodeProvisioningSettings(spec, settings));
  FieldReader policies = spec.Field("policies");
  KUEUESIM_RETURN_IF_ERROR(policies.ExpectMapping());
  KUEUESIM_RETURN_IF_ERROR(CheckKnownFields(policies, {"queueOrdering", "preemption", "dispatcher"}));
  struct PolicyField {
    const char* name;
    PolicyChoice* target;
  };
  for (const PolicyField& f : {PolicyField{"queueOrdering", &settings->queue_ordering},
                               PolicyField{"preemption", &settings->preemption},
                               PolicyField{"dispatcher", &settings->dispatcher}}) {
    FieldReader policy = policies.Field(f.name);
    if (!policy.present()) continue;
    f.target->source.file = policy.node().shared_file();
    f.target->source.line = policy.node().position().line;
    if (policy.node().IsScalar()) {
      KUEUESIM_ASSIGN_OR_RETURN(f.target->name, policy.String());
      continue;
    }
    KUEUESIM_RETURN_IF_ERROR(policy.ExpectMapping());
    KUEUESIM_ASSIGN_OR_RETURN(f.target->name, policy.Field("name").String());
    KUEUESIM_ASSIGN_OR_RETURN(auto params, policy.Field("parameters").StringMap());
    f.target->parameters.insert(params.begin(), params.end());
  }
  return DecodeSimulationLimits(spec.Field("limits"), &settings->limits);
}

absl::Status DecodeSimulationLimits(const FieldReader& limits, LimitOverrides* out) {
  KUEUESIM_RETURN_IF_ERROR(limits.ExpectMapping());
  if (!limits.present()) return absl::OkStatus();
  for (size_t i = 0; i < limits.node().size(); ++i) {
    const std::string key(limits.node().key(i));
    FieldReader field = limits.Field(key);
    if (key == "time") {
      KUEUESIM_ASSIGN_OR_RETURN(SimDuration time, field.Duration());
      if (time <= 0) return field.Error("must be a positive duration");
      out->time = time;
      continue;
    }
    std::optional<int64_t>* target = key == "nodes"       ? &out->nodes
                                     : key == "workloads" ? &out->workloads
                                     : key == "queues"    ? &out->queues
                                                          : nullptr;
    if (target == nullptr) return field.Error("unknown limit (valid: nodes, workloads, queues, time)");
    KUEUESIM_ASSIGN_OR_RETURN(int64_t n, field.Int64());
    if (n < 1) return field.Error("must be a positive integer");
    *target = n;
  }
  return absl::OkStatus();
}

}  // namespace kueuesim::scenario
