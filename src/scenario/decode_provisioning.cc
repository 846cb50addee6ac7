// ProvisioningRequestConfig, AutoscalerPool, check behaviours and the
// autoscaler settings; see decode_provisioning.h.
#include "scenario/decode_provisioning.h"

#include <cmath>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "scenario/decode.h"

namespace kueuesim::scenario {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "0.25" or "25%" as parts per million.
absl::StatusOr<int32_t> ParseProbability(std::string_view text) {
  text = Trim(text);
  bool percent = false;
  if (!text.empty() && text.back() == '%') {
    percent = true;
    text.remove_suffix(1);
  }
  std::string copy(text);
  char* end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value)) {
    return InvalidArgument(fmt::format("\"{}\" is not a probability (e.g. 0.25 or 25%)", text));
  }
  if (percent) value /= 100;
  if (value < 0 || value > 1) return InvalidArgument(fmt::format("probability {} is not between 0 and 1", value));
  return static_cast<int32_t>(std::llround(value * 1e6));
}

}  // namespace

absl::StatusOr<model::DurationDistribution> DecodeDurationDistribution(const FieldReader& field) {
  KUEUESIM_ASSIGN_OR_RETURN(std::string text, field.String());
  model::DurationDistribution out;
  out.text = text;
  std::string_view t = Trim(text);
  const size_t open = t.find('(');
  if (open == std::string_view::npos) {
    auto parsed = ParseDuration(t);
    if (!parsed.ok()) return field.Error(StatusMessage(parsed.status()));
    if (*parsed < 0) return field.Error("must not be negative");
    out.a = *parsed;
    return out;
  }
  if (t.back() != ')') return field.Error(fmt::format("\"{}\": missing ')'", text));
  const std::string_view name = Trim(t.substr(0, open));
  std::vector<SimDuration> args;
  std::string_view inner = t.substr(open + 1, t.size() - open - 2);
  while (true) {
    const size_t comma = inner.find(',');
    auto parsed = ParseDuration(Trim(inner.substr(0, comma)));
    if (!parsed.ok()) return field.Error(fmt::format("\"{}\": {}", text, StatusMessage(parsed.status())));
    if (*parsed < 0) return field.Error(fmt::format("\"{}\": durations must not be negative", text));
    args.push_back(*parsed);
    if (comma == std::string_view::npos) break;
    inner = inner.substr(comma + 1);
  }
  auto expect = [&](size_t n) -> absl::Status {
    if (args.size() == n) return absl::OkStatus();
    return field.Error(fmt::format("\"{}\": {} takes {} duration{}", text, name, n, n == 1 ? "" : "s"));
  };
  if (name == "uniform") {
    KUEUESIM_RETURN_IF_ERROR(expect(2));
    if (args[1] < args[0]) return field.Error(fmt::format("\"{}\": the high end is below the low end", text));
    out.kind = model::DurationDistribution::Kind::kUniform;
  } else if (name == "exponential") {
    KUEUESIM_RETURN_IF_ERROR(expect(1));
    out.kind = model::DurationDistribution::Kind::kExponential;
  } else if (name == "normal") {
    KUEUESIM_RETURN_IF_ERROR(expect(2));
    out.kind = model::DurationDistribution::Kind::kNormal;
  } else {
    return field.Error(fmt::format("\"{}\": unknown distribution \"{}\" (valid: a duration, uniform(low, high), "
                                   "exponential(mean), normal(mean, stddev))",
                                   text, name));
  }
  out.a = args[0];
  out.b = args.size() > 1 ? args[1] : 0;
  return out;
}

absl::StatusOr<model::ProvisioningRequestConfig> DecodeProvisioningRequestConfig(const FieldReader& object) {
  model::ProvisioningRequestConfig prc;
  KUEUESIM_ASSIGN_OR_RETURN(prc.meta, DecodeMeta(object, false));
  FieldReader spec = object.Field("spec");
  if (!spec.present()) return spec.Error("is required");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_RETURN_IF_ERROR(CheckKnownFields(spec, {"provisioningClassName", "parameters", "managedResources",
                                                   "retryStrategy", "podSetUpdates", "podSetMergePolicy"}));
  KUEUESIM_ASSIGN_OR_RETURN(prc.provisioning_class_name, spec.Field("provisioningClassName").String());
  if (prc.provisioning_class_name.empty()) return spec.Field("provisioningClassName").Error("must not be empty");
  KUEUESIM_ASSIGN_OR_RETURN(model::Labels parameters, spec.Field("parameters").StringMap());
  if (parameters.size() > 100) return spec.Field("parameters").Error("must have at most 100 entries");
  prc.parameters.insert(parameters.begin(), parameters.end());
  KUEUESIM_ASSIGN_OR_RETURN(prc.managed_resources, spec.Field("managedResources").StringList());
  if (prc.managed_resources.size() > 100) return spec.Field("managedResources").Error("must have at most 100 entries");
  FieldReader retry = spec.Field("retryStrategy");
  if (retry.present()) {
    KUEUESIM_RETURN_IF_ERROR(retry.ExpectMapping());
    KUEUESIM_RETURN_IF_ERROR(
        CheckKnownFields(retry, {"backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"}));
    struct IntField {
      const char* name;
      int32_t* target;
    };
    for (const IntField& f : {IntField{"backoffLimitCount", &prc.backoff_limit_count},
                              IntField{"backoffBaseSeconds", &prc.backoff_base_seconds},
                              IntField{"backoffMaxSeconds", &prc.backoff_max_seconds}}) {
      KUEUESIM_ASSIGN_OR_RETURN(auto value, retry.Field(f.name).OptInt32());
      if (!value.has_value()) continue;
      if (*value < 0) return retry.Field(f.name).Error("must not be negative");
      *f.target = *value;
    }
  }
  FieldReader updates = spec.Field("podSetUpdates");
  if (updates.present()) {
    KUEUESIM_RETURN_IF_ERROR(updates.ExpectMapping());
    KUEUESIM_RETURN_IF_ERROR(CheckKnownFields(updates, {"nodeSelector"}));
    FieldReader selectors = updates.Field("nodeSelector");
    if (selectors.present()) {
      KUEUESIM_RETURN_IF_ERROR(selectors.ExpectSequence());
      if (selectors.size() > 8) return selectors.Error("must have at most 8 entries");
      for (size_t i = 0; i < selectors.size(); ++i) {
        FieldReader item = selectors.Index(i);
        KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
        model::ProvisioningRequestConfig::NodeSelectorUpdate update;
        KUEUESIM_ASSIGN_OR_RETURN(update.key, item.Field("key").String());
        KUEUESIM_ASSIGN_OR_RETURN(update.value_from_provisioning_class_detail,
                                  item.Field("valueFromProvisioningClassDetail").String());
        prc.pod_set_update_node_selectors.push_back(std::move(update));
      }
    }
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto merge, spec.Field("podSetMergePolicy").OptString());
  if (merge.has_value()) {
    if (*merge == "IdenticalPodTemplates") {
      prc.pod_set_merge_policy = model::PodSetMergePolicy::kIdenticalPodTemplates;
    } else if (*merge == "IdenticalWorkloadSchedulingRequirements") {
      prc.pod_set_merge_policy = model::PodSetMergePolicy::kIdenticalWorkloadSchedulingRequirements;
    } else {
      return spec.Field("podSetMergePolicy")
          .Error(fmt::format("unknown value \"{}\" (valid: IdenticalPodTemplates, "
                             "IdenticalWorkloadSchedulingRequirements)",
                             *merge));
    }
  }
  return prc;
}

absl::StatusOr<model::AutoscalerPool> DecodeAutoscalerPool(const FieldReader& object) {
  model::AutoscalerPool pool;
  KUEUESIM_ASSIGN_OR_RETURN(pool.meta, DecodeMeta(object, false));
  FieldReader spec = object.Field("spec");
  if (!spec.present()) return spec.Error("is required");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_RETURN_IF_ERROR(CheckKnownFields(
      spec, {"provisioningClasses", "labels", "taints", "allocatable", "minNodes", "maxNodes", "initialNodes",
             "provisioningTime", "scaleDownDelay", "capacity", "stockouts"}));
  KUEUESIM_ASSIGN_OR_RETURN(pool.provisioning_classes, spec.Field("provisioningClasses").StringList());
  KUEUESIM_ASSIGN_OR_RETURN(pool.node_labels, spec.Field("labels").StringMap());
  if (pool.node_labels.contains("kubernetes.io/hostname")) {
    return spec.Field("labels").Field("kubernetes.io/hostname").Error("is set to each node's name; leave it out");
  }
  KUEUESIM_ASSIGN_OR_RETURN(pool.taints, DecodeTaintList(spec.Field("taints")));
  FieldReader allocatable = spec.Field("allocatable");
  if (!allocatable.present()) return allocatable.Error("is required");
  KUEUESIM_RETURN_IF_ERROR(allocatable.ExpectMapping());
  for (size_t i = 0; i < allocatable.node().size(); ++i) {
    std::string resource(allocatable.node().key(i));
    KUEUESIM_ASSIGN_OR_RETURN(pool.allocatable[resource], allocatable.Field(resource).AmountOf(resource, true));
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto min_nodes, spec.Field("minNodes").OptInt32());
  pool.min_nodes = min_nodes.value_or(0);
  if (pool.min_nodes < 0) return spec.Field("minNodes").Error("must not be negative");
  KUEUESIM_ASSIGN_OR_RETURN(pool.max_nodes, spec.Field("maxNodes").Int32());
  if (pool.max_nodes < pool.min_nodes) {
    return spec.Field("maxNodes").Error(fmt::format("must be at least minNodes ({})", pool.min_nodes));
  }
  if (pool.max_nodes > 100000) return spec.Field("maxNodes").Error("must be at most 100000");
  KUEUESIM_ASSIGN_OR_RETURN(pool.initial_nodes, spec.Field("initialNodes").OptInt32());
  if (pool.initial_nodes.has_value() && (*pool.initial_nodes < pool.min_nodes || *pool.initial_nodes > pool.max_nodes)) {
    return spec.Field("initialNodes").Error(fmt::format("must be between minNodes ({}) and maxNodes ({})",
                                                        pool.min_nodes, pool.max_nodes));
  }
  if (spec.Field("provisioningTime").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(pool.provisioning_time, DecodeDurationDistribution(spec.Field("provisioningTime")));
  } else {
    pool.provisioning_time.text = "0s";
  }
  if (spec.Field("scaleDownDelay").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(pool.scale_down_delay, spec.Field("scaleDownDelay").Duration());
    if (pool.scale_down_delay < 0) return spec.Field("scaleDownDelay").Error("must not be negative");
  }
  FieldReader capacity = spec.Field("capacity");
  if (capacity.present()) {
    KUEUESIM_RETURN_IF_ERROR(capacity.ExpectSequence());
    SimTime last = -1;
    for (size_t i = 0; i < capacity.size(); ++i) {
      FieldReader item = capacity.Index(i);
      KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
      KUEUESIM_RETURN_IF_ERROR(CheckKnownFields(item, {"from", "nodes"}));
      KUEUESIM_ASSIGN_OR_RETURN(SimTime from, item.Field("from").Duration());
      if (from <= last) return item.Field("from").Error("must be later than the previous entry's");
      last = from;
      KUEUESIM_ASSIGN_OR_RETURN(int32_t nodes, item.Field("nodes").Int32());
      if (nodes < 0) return item.Field("nodes").Error("must not be negative");
      pool.capacity.emplace_back(from, nodes);
    }
  }
  FieldReader stockouts = spec.Field("stockouts");
  if (stockouts.present()) {
    KUEUESIM_RETURN_IF_ERROR(stockouts.ExpectSequence());
    for (size_t i = 0; i < stockouts.size(); ++i) {
      FieldReader item = stockouts.Index(i);
      KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
      KUEUESIM_RETURN_IF_ERROR(CheckKnownFields(item, {"from", "until"}));
      KUEUESIM_ASSIGN_OR_RETURN(SimTime from, item.Field("from").Duration());
      KUEUESIM_ASSIGN_OR_RETURN(SimTime until, item.Field("until").Duration());
      if (until <= from) return item.Field("until").Error("must be later than from");
      pool.stockouts.emplace_back(from, until);
    }
  }
  return pool;
}

absl::StatusOr<std::optional<model::SimulatedCheckBehavior>> DecodeCheckBehavior(const FieldReader& annotations) {
  constexpr const char* kBehavior = "kueuesim.io/check-behavior";
  constexpr const char* kDelay = "kueuesim.io/check-delay";
  constexpr const char* kOutcome = "kueuesim.io/check-outcome";
  constexpr const char* kRetryAfter = "kueuesim.io/check-retry-after";
  if (!annotations.present()) return std::optional<model::SimulatedCheckBehavior>();
  bool any = false;
  for (size_t i = 0; i < annotations.node().size(); ++i) {
    std::string_view key = annotations.node().key(i);
    if (key.substr(0, std::string_view("kueuesim.io/check-").size()) != "kueuesim.io/check-") continue;
    if (key != kBehavior && key != kDelay && key != kOutcome && key != kRetryAfter) {
      return annotations.Field(key).Error(fmt::format("unknown annotation (valid: {}, {}, {}, {})", kBehavior, kDelay,
                                                      kOutcome, kRetryAfter));
    }
    any = true;
  }
  if (!any) return std::optional<model::SimulatedCheckBehavior>();
  model::SimulatedCheckBehavior behavior;
  behavior.delay.text = "0s";
  KUEUESIM_ASSIGN_OR_RETURN(auto mode, annotations.Field(kBehavior).OptString());
  if (mode.has_value()) {
    if (*mode == "never") {
      behavior.never = true;
    } else if (*mode != "answer") {
      return annotations.Field(kBehavior).Error(fmt::format("unknown value \"{}\" (valid: answer, never)", *mode));
    }
  }
  if (behavior.never) {
    for (const char* key : {kDelay, kOutcome, kRetryAfter}) {
      if (annotations.Field(key).present()) {
        return annotations.Field(key).Error(fmt::format("a check declared {}: never is never answered; leave it out", kBehavior));
      }
    }
    return std::optional<model::SimulatedCheckBehavior>(behavior);
  }
  if (annotations.Field(kDelay).present()) {
    KUEUESIM_ASSIGN_OR_RETURN(behavior.delay, DecodeDurationDistribution(annotations.Field(kDelay)));
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto outcome, annotations.Field(kOutcome).OptString());
  if (outcome.has_value()) {
    // "Ready", or "Ready=0.9, Retry=0.08, Rejected=0.02" (the rest Ready).
    behavior.ready_ppm = 0;
    std::string_view rest = *outcome;
    bool weighted = rest.find('=') != std::string_view::npos;
    int64_t total = 0;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      std::string_view item = Trim(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      const size_t eq = item.find('=');
      std::string_view name = Trim(item.substr(0, eq));
      int32_t ppm = 1000000;
      if (weighted) {
        if (eq == std::string_view::npos) {
          return annotations.Field(kOutcome).Error(
              fmt::format("\"{}\": give every outcome a probability (e.g. Ready=0.9, Retry=0.1)", *outcome));
        }
        auto p = ParseProbability(item.substr(eq + 1));
        if (!p.ok()) return annotations.Field(kOutcome).Error(StatusMessage(p.status()));
        ppm = *p;
      } else if (comma != std::string_view::npos || !rest.empty()) {
        return annotations.Field(kOutcome).Error(
            fmt::format("\"{}\": several outcomes need probabilities (e.g. Ready=0.9, Retry=0.1)", *outcome));
      }
      int32_t* target = name == "Ready"      ? &behavior.ready_ppm
                        : name == "Retry"    ? &behavior.retry_ppm
                        : name == "Rejected" ? &behavior.rejected_ppm
                                             : nullptr;
      if (target == nullptr) {
        return annotations.Field(kOutcome).Error(
            fmt::format("unknown outcome \"{}\" (valid: Ready, Retry, Rejected)", name));
      }
      *target += ppm;
      total += ppm;
    }
    if (total > 1000000) return annotations.Field(kOutcome).Error("the probabilities add up to more than 1");
    behavior.ready_ppm += static_cast<int32_t>(1000000 - total);
  }
  if (annotations.Field(kRetryAfter).present()) {
    KUEUESIM_ASSIGN_OR_RETURN(SimDuration after, annotations.Field(kRetryAfter).Duration());
    if (after < 0) return annotations.Field(kRetryAfter).Error("must not be negative");
    behavior.retry_after_seconds = static_cast<int32_t>(after / kSecond);
  }
  return std::optional<model::SimulatedCheckBehavior>(behavior);
}

absl::Status DecodeProvisioningSettings(const FieldReader& spec, SimulationSettings* settings) {
  FieldReader autoscaler = spec.Field("autoscaler");
  if (autoscaler.present()) {
    KUEUESIM_RETURN_IF_ERROR(autoscaler.ExpectMapping());
    KUEUESIM_RETURN_IF_ERROR(CheckKnownFields(autoscaler, {"scanInterval", "requestsPerLoop", "initialBackoff",
                                                           "maxBackoff", "bookingTime", "requestExpiry",
                                                           "queuedProvisioningLease"}));
    SimulationSettings::Autoscaler& a = settings->autoscaler;
    struct DurationField {
      const char* name;
      SimDuration* target;
      bool positive;
    };
    for (const DurationField& f :
         {DurationField{"scanInterval", &a.scan_interval, true}, DurationField{"initialBackoff", &a.initial_backoff, false},
          DurationField{"maxBackoff", &a.max_backoff, false}, DurationField{"bookingTime", &a.booking_time, false},
          DurationField{"requestExpiry", &a.request_expiry, true},
          DurationField{"queuedProvisioningLease", &a.queued_lease, true}}) {
      if (!autoscaler.Field(f.name).present()) continue;
      KUEUESIM_ASSIGN_OR_RETURN(*f.target, autoscaler.Field(f.name).Duration());
      if (*f.target < 0 || (f.positive && *f.target == 0)) {
        return autoscaler.Field(f.name).Error(f.positive ? "must be positive" : "must not be negative");
      }
    }
    KUEUESIM_ASSIGN_OR_RETURN(auto per_loop, autoscaler.Field("requestsPerLoop").OptInt32());
    if (per_loop.has_value()) {
      if (*per_loop < 1) return autoscaler.Field("requestsPerLoop").Error("must be at least 1");
      a.requests_per_loop = *per_loop;
    }
  }
  FieldReader checks = spec.Field("admissionChecks");
  if (checks.present()) {
    KUEUESIM_RETURN_IF_ERROR(checks.ExpectMapping());
    KUEUESIM_RETURN_IF_ERROR(CheckKnownFields(checks, {"retryEviction", "flavorScopedRetryCountLost"}));
    KUEUESIM_ASSIGN_OR_RETURN(auto eviction, checks.Field("retryEviction").OptString());
    if (eviction.has_value()) {
      if (*eviction != "AtRequeueAt" && *eviction != "Immediate") {
        return checks.Field("retryEviction")
            .Error(fmt::format("unknown value \"{}\" (valid: AtRequeueAt, Immediate)", *eviction));
      }
      settings->admission_check_retry_eviction = *eviction;
    }
    if (checks.Field("flavorScopedRetryCountLost").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(settings->flavor_scoped_retry_count_lost,
                                checks.Field("flavorScopedRetryCountLost").Bool());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<model::Change> DecodeAutoscalerPoolChange(const FieldReader& spec, model::Change change) {
  KUEUESIM_ASSIGN_OR_RETURN(change.pool_capacity, spec.Field("capacity").OptInt32());
  if (change.pool_capacity.has_value() && *change.pool_capacity < 0) {
    return spec.Field("capacity").Error("must not be negative");
  }
  if (spec.Field("stockout").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(bool stockout, spec.Field("stockout").Bool());
    change.pool_stockout = stockout;
  }
  if (!change.pool_capacity.has_value() && !change.pool_stockout.has_value()) {
    return spec.Error("an AutoscalerPool change must set capacity or stockout");
  }
  return change;
}

}  // namespace kueuesim::scenario

namespace kueuesim::scenario {
namespace {

std::string Where(const model::ObjectMeta& meta) { return fmt::format("{}:{}", meta.source.file.str(), meta.source.line); }

absl::Status ObjectError(const model::ObjectMeta& meta, std::string_view kind, std::string_view field,
                         const std::string& message) {
  return InvalidArgument(fmt::format("{}: {} \"{}\": {}: {}", Where(meta), kind, meta.name, field, message));
}

}  // namespace

absl::Status ValidateProvisioning(ClusterSpec* cluster, LoadReport* report) {
  std::set<std::string> configs;
  for (const auto& prc : cluster->provisioning_request_configs) {
    if (!configs.insert(prc.meta.name).second) {
      return ObjectError(prc.meta, "ProvisioningRequestConfig", "metadata.name", "duplicate object");
    }
  }
  std::set<std::string> pools;
  for (const auto& pool : cluster->autoscaler_pools) {
    if (!pools.insert(pool.meta.name).second) {
      return ObjectError(pool.meta, "AutoscalerPool", "metadata.name", "duplicate object");
    }
  }
  const std::string in_cluster = cluster->name.empty() ? "" : fmt::format(" (cluster \"{}\")", cluster->name);
  bool any_provisioning_check = false;
  for (auto& check : cluster->admission_checks) {
    const bool provisioning = check.controller_name == model::kProvisioningRequestControllerName;
    const bool modelled = provisioning || check.controller_name == model::kMultiKueueControllerName;
    if (modelled && check.simulated.has_value()) {
      return ObjectError(check.meta, "AdmissionCheck", "metadata.annotations",
                         fmt::format("kueuesim.io/check-* annotations apply to checks of controllers kueuesim does "
                                     "not model; {} is modelled{}",
                                     check.controller_name,
                                     provisioning ? " (its answers come from AutoscalerPools)" : ""));
    }
    if (provisioning) {
      any_provisioning_check = true;
      if (check.parameters_kind != "ProvisioningRequestConfig" || !configs.count(check.parameters_name)) {
        // Kueue's AdmissionCheck reconciler would set Active=False
        // (BadParametersRef); the input's status is kept as written, and the
        // controller leaves such a check Pending ("the check is not active").
        report->warnings.push_back(fmt::format(
            "{}: AdmissionCheck \"{}\"{}: spec.parameters: no ProvisioningRequestConfig \"{}\"; Kueue marks the check "
            "inactive (BadParametersRef) and never answers it: workloads that need it hold their quota",
            Where(check.meta), check.meta.name, in_cluster, check.parameters_name));
      }
      continue;
    }
    if (modelled) continue;
    if (!check.simulated.has_value()) {
      report->warnings.push_back(fmt::format(
          "{}: AdmissionCheck \"{}\"{}: no controller answers controllerName \"{}\" in the simulation: workloads that "
          "need it hold their quota at QuotaReserved and never run; declare an answer with the "
          "kueuesim.io/check-delay and kueuesim.io/check-outcome annotations, or kueuesim.io/check-behavior: never "
          "to keep this on purpose",
          Where(check.meta), check.meta.name, in_cluster, check.controller_name));
    }
  }
  if (any_provisioning_check && cluster->autoscaler_pools.empty()) {
    report->warnings.push_back(fmt::format(
        "cluster \"{}\": ProvisioningRequest admission checks but no kueuesim.io/v1alpha1 AutoscalerPool: no "
        "request is ever provisioned",
        cluster->name));
  }
  for (const auto& change : cluster->changes) {
    if (change.target_kind == "AutoscalerPool" && !pools.count(change.target_name)) {
      return InvalidArgument(fmt::format("{}: Change \"{}\": spec.target.name: no AutoscalerPool \"{}\"",
                                         change.source.ToString(), change.name, change.target_name));
    }
  }
  return absl::OkStatus();
}

}  // namespace kueuesim::scenario
