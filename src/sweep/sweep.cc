// Parameter sweeps; see sweep.h.
#include "kueuesim/sweep/sweep.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>
#include <atomic>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/base/status.h"
#include "kueuesim/doc/reader.h"
#include "kueuesim/metrics/event_log.h"
#include "kueuesim/metrics/summary.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/sim/simulation.h"

namespace kueuesim::sweep {
namespace {

constexpr std::string_view kApiVersion = "kueuesim.io/v1alpha1";

std::string Where(const doc::Node& node) {
  return fmt::format("{}:{}", node.file(), node.position().line);
}

absl::Status Invalid(const doc::Node& node, const std::string& object, const std::string& message) {
  return absl::InvalidArgumentError(fmt::format("{}: Sweep {}: {}", Where(node), object, message));
}

// A scalar field's text, or an error naming it; `required` false gives "".
absl::StatusOr<std::string> ScalarField(const doc::Node& parent, std::string_view field, const std::string& object,
                                        const std::string& path, bool required) {
  doc::Node node = parent.Get(field);
  if (!node.valid() || node.IsNull()) {
    if (!required) return std::string();
    return Invalid(parent, object, fmt::format("{}.{} is required", path, field));
  }
  if (!node.IsScalar()) return Invalid(node, object, fmt::format("{}.{} must be a string", path, field));
  return std::string(node.scalar());
}

// The targets of kueuesim's own parameters: a LeaderWorkerSet's rollout
// settings, an AutoscalerPool's, a ProvisioningRequestConfig's (the values
// are checked when applied, against the field's syntax).
absl::Status DecodeObjectTarget(const doc::Node& node, const std::string& object, const std::string& at,
                                SweepParameter* p) {
  struct Target {
    const char* key;
    SweepParameter::Kind kind;
    std::initializer_list<const char*> fields;
  };
  for (const Target& t :
       {Target{"leaderWorkerSet", SweepParameter::Kind::kLeaderWorkerSet,
               {"maxSurge", "maxUnavailable", "rollingUpdate", "partition", "startupPolicy", "replicas"}},
        Target{"autoscalerPool", SweepParameter::Kind::kAutoscalerPool,
               {"provisioningTime", "maxNodes", "minNodes", "scaleDownDelay", "stockout", "capacity"}},
        Target{"provisioningRequestConfig", SweepParameter::Kind::kProvisioningRequestConfig,
               {"provisioningClassName", "backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"}}}) {
    doc::Node target = node.Get(t.key);
    if (!target.valid()) continue;
    const std::string path = at + "." + t.key;
    if (!target.IsMapping()) return Invalid(target, object, path + " must be a mapping");
    p->kind = t.kind;
    KUEUESIM_ASSIGN_OR_RETURN(p->cluster, ScalarField(target, "cluster", object, path, false));
    KUEUESIM_ASSIGN_OR_RETURN(p->object_name, ScalarField(target, "name", object, path, true));
    KUEUESIM_ASSIGN_OR_RETURN(p->object_namespace, ScalarField(target, "namespace", object, path, false));
    if (p->object_namespace.empty()) p->object_namespace = "default";
    KUEUESIM_ASSIGN_OR_RETURN(p->field, ScalarField(target, "field", object, path, true));
    std::string valid;
    bool ok = false;
    for (const char* f : t.fields) {
      ok = ok || p->field == f;
      valid += valid.empty() ? f : std::string(", ") + f;
    }
    if (!ok) {
      return Invalid(target.Get("field"), object,
                     fmt::format("{}.field: \"{}\" is not one of {}", path, p->field, valid));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<SweepParameter> DecodeParameter(const doc::Node& node, const std::string& object,
                                               const std::string& path) {
  if (!node.IsMapping()) return Invalid(node, object, path + " must be a mapping");
  SweepParameter p;
  p.where = Where(node);
  KUEUESIM_ASSIGN_OR_RETURN(p.name, ScalarField(node, "name", object, path, true));
  const std::string at = fmt::format("{} ({})", path, p.name);
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string_view key = node.key(i);
    if (key != "name" && key != "quota" && key != "policy" && key != "fairSharingWeight" && key != "values" &&
        key != "leaderWorkerSet" && key != "autoscalerPool" && key != "provisioningRequestConfig") {
      return Invalid(node.value(i), object,
                     fmt::format("{}: unknown field \"{}\" (expected name, quota, policy, fairSharingWeight, "
                                 "leaderWorkerSet, autoscalerPool, provisioningRequestConfig, values)",
                                 at, key));
    }
  }
  const int targets = (node.Get("quota").valid() ? 1 : 0) + (node.Get("policy").valid() ? 1 : 0) +
                      (node.Get("fairSharingWeight").valid() ? 1 : 0) + (node.Get("leaderWorkerSet").valid() ? 1 : 0) +
                      (node.Get("autoscalerPool").valid() ? 1 : 0) +
                      (node.Get("provisioningRequestConfig").valid() ? 1 : 0);
  if (targets != 1) {
    return Invalid(node, object,
                   at + ": set exactly one of quota, policy, fairSharingWeight, leaderWorkerSet, autoscalerPool, "
                        "provisioningRequestConfig");
  }
  KUEUESIM_RETURN_IF_ERROR(DecodeObjectTarget(node, object, at, &p));
  auto decode_target = [&](const doc::Node& target, const std::string& field) -> absl::Status {
    if (!target.IsMapping()) return Invalid(target, object, fmt::format("{}.{} must be a mapping", at, field));
    KUEUESIM_ASSIGN_OR_RETURN(p.cluster, ScalarField(target, "cluster", object, at + "." + field, false));
    KUEUESIM_ASSIGN_OR_RETURN(p.cluster_queue, ScalarField(target, "clusterQueue", object, at + "." + field, false));
    KUEUESIM_ASSIGN_OR_RETURN(p.cohort, ScalarField(target, "cohort", object, at + "." + field, false));
    if (p.cluster_queue.empty() == p.cohort.empty()) {
      return Invalid(target, object, fmt::format("{}.{}: set exactly one of clusterQueue, cohort", at, field));
    }
    return absl::OkStatus();
  };
  if (doc::Node quota = node.Get("quota"); quota.valid()) {
    p.kind = SweepParameter::Kind::kQuota;
    KUEUESIM_RETURN_IF_ERROR(decode_target(quota, "quota"));
    KUEUESIM_ASSIGN_OR_RETURN(p.flavor, ScalarField(quota, "flavor", object, at + ".quota", true));
    KUEUESIM_ASSIGN_OR_RETURN(p.resource, ScalarField(quota, "resource", object, at + ".quota", true));
    KUEUESIM_ASSIGN_OR_RETURN(p.field, ScalarField(quota, "field", object, at + ".quota", false));
    if (p.field.empty()) p.field = "nominalQuota";
    if (p.field != "nominalQuota" && p.field != "borrowingLimit" && p.field != "lendingLimit") {
      return Invalid(quota.Get("field"), object,
                     fmt::format("{}.quota.field: \"{}\" is not nominalQuota, borrowingLimit or lendingLimit", at,
                                 p.field));
    }
  } else if (doc::Node policy = node.Get("policy"); policy.valid()) {
    p.kind = SweepParameter::Kind::kPolicy;
    KUEUESIM_ASSIGN_OR_RETURN(p.policy, ScalarField(node, "policy", object, at, true));
    if (p.policy != "queueOrdering" && p.policy != "preemption" && p.policy != "dispatcher") {
      return Invalid(policy, object,
                     fmt::format("{}.policy: \"{}\" is not queueOrdering, preemption or dispatcher", at, p.policy));
    }
  } else if (node.Get("fairSharingWeight").valid()) {
    p.kind = SweepParameter::Kind::kFairSharingWeight;
    KUEUESIM_RETURN_IF_ERROR(decode_target(node.Get("fairSharingWeight"), "fairSharingWeight"));
  }
  doc::Node values = node.Get("values");
  if (!values.IsSequence() || values.size() == 0) {
    return Invalid(values.valid() ? values : node, object, at + ".values must be a non-empty list");
  }
  for (size_t i = 0; i < values.size(); ++i) {
    doc::Node value = values.at(i);
    if (!value.IsScalar()) return Invalid(value, object, fmt::format("{}.values[{}] must be a scalar", at, i));
    std::string text = value.IsNull() && value.style() == doc::ScalarStyle::kPlain ? "" : std::string(value.scalar());
    if (p.kind == SweepParameter::Kind::kQuota) {
      if (!ParseQuantity(text).ok()) {
        return Invalid(value, object, fmt::format("{}.values[{}]: \"{}\" is not a quantity", at, i, text));
      }
    } else if (p.kind == SweepParameter::Kind::kFairSharingWeight) {
      char* end = nullptr;
      errno = 0;
      const double weight = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || errno != 0 || weight < 0) {
        return Invalid(value, object, fmt::format("{}.values[{}]: \"{}\" is not a non-negative number", at, i, text));
      }
    }
    if (std::find(p.values.begin(), p.values.end(), text) != p.values.end()) {
      return Invalid(value, object, fmt::format("{}.values[{}]: \"{}\" is listed twice", at, i, text));
    }
    p.values.push_back(std::move(text));
  }
  return p;
}

absl::StatusOr<Sweep> DecodeSweep(const doc::Node& root) {
  Sweep sweep;
  sweep.where = Where(root);
  KUEUESIM_ASSIGN_OR_RETURN(sweep.name, ScalarField(root.Get("metadata"), "name", "(unnamed)", "metadata", true));
  doc::Node spec = root.Get("spec");
  if (!spec.IsMapping()) return Invalid(root, sweep.name, "spec is required");
  doc::Node parameters = spec.Get("parameters");
  if (!parameters.IsSequence() || parameters.size() == 0) {
    return Invalid(spec, sweep.name, "spec.parameters must be a non-empty list");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < parameters.size(); ++i) {
    KUEUESIM_ASSIGN_OR_RETURN(SweepParameter p,
                              DecodeParameter(parameters.at(i), sweep.name, fmt::format("spec.parameters[{}]", i)));
    if (!names.insert(p.name).second) {
      return Invalid(parameters.at(i), sweep.name,
                     fmt::format("spec.parameters[{}]: the name \"{}\" is used twice", i, p.name));
    }
    sweep.parameters.push_back(std::move(p));
  }
  if (sweep.num_points() > 1'000'000) {
    return Invalid(spec, sweep.name, fmt::format("the grid has {} points; at most 1000000", sweep.num_points()));
  }
  return sweep;
}

absl::Status ParameterError(const SweepParameter& p, const std::string& message) {
  return absl::InvalidArgumentError(fmt::format("{}: Sweep parameter {}: {}", p.where, p.name, message));
}

absl::Status ApplyQuota(const SweepParameter& p, const std::string& value, scenario::ClusterSpec* cluster) {
  std::vector<model::ResourceGroup>* groups = nullptr;
  if (!p.cluster_queue.empty()) {
    for (auto& cq : cluster->cluster_queues) {
      if (cq.meta.name == p.cluster_queue) groups = &cq.resource_groups;
    }
    if (groups == nullptr) return ParameterError(p, fmt::format("no ClusterQueue {}", p.cluster_queue));
  } else {
    for (auto& cohort : cluster->cohorts) {
      if (cohort.meta.name == p.cohort) groups = &cohort.resource_groups;
    }
    if (groups == nullptr) return ParameterError(p, fmt::format("no Cohort object {}", p.cohort));
  }
  KUEUESIM_ASSIGN_OR_RETURN(Quantity quantity, ParseQuantity(value));
  const Amount amount = CanonicalAmountSaturating(quantity, p.resource);
  for (auto& group : *groups) {
    for (auto& flavor : group.flavors) {
      if (flavor.name != p.flavor) continue;
      for (auto& resource : flavor.resources) {
        if (resource.name != p.resource) continue;
        if (p.field == "nominalQuota") {
          resource.nominal_quota = amount;
        } else if (p.field == "borrowingLimit") {
          resource.borrowing_limit = amount;
        } else {
          resource.lending_limit = amount;
        }
        return absl::OkStatus();
      }
    }
  }
  return ParameterError(p, fmt::format("{} {} has no quota for flavor {} and resource {}",
                                       p.cluster_queue.empty() ? "Cohort" : "ClusterQueue",
                                       p.cluster_queue.empty() ? p.cohort : p.cluster_queue, p.flavor, p.resource));
}

absl::Status ApplyWeight(const SweepParameter& p, const std::string& value, scenario::ClusterSpec* cluster) {
  const double weight = std::strtod(value.c_str(), nullptr);
  if (!p.cluster_queue.empty()) {
    for (auto& cq : cluster->cluster_queues) {
      if (cq.meta.name == p.cluster_queue) {
        cq.fair_weight = weight;
        return absl::OkStatus();
      }
    }
    return ParameterError(p, fmt::format("no ClusterQueue {}", p.cluster_queue));
  }
  for (auto& cohort : cluster->cohorts) {
    if (cohort.meta.name == p.cohort) {
      cohort.fair_weight = weight;
      return absl::OkStatus();
    }
  }
  return ParameterError(p, fmt::format("no Cohort object {}", p.cohort));
}

std::string JsonNumber(double value) { return fmt::format("{:.6f}", value); }

// Waits of first quota reservations, as the summary counts them, over all
// clusters and ClusterQueues.
class WaitRecorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    if (event.workload == cluster::kNone || !event.object.empty()) return;
    auto& seen = seen_[event.cluster];
    if (seen.size() <= static_cast<size_t>(event.workload)) seen.resize(static_cast<size_t>(event.workload) + 1);
    if (event.type == cluster::EventType::kQuotaReserved && !seen[static_cast<size_t>(event.workload)]) {
      seen[static_cast<size_t>(event.workload)] = true;
      waits.push_back(event.time - event.cluster->workload(event.workload).arrival);
    } else if (event.type == cluster::EventType::kAdmittedAtStart) {
      seen[static_cast<size_t>(event.workload)] = true;
    } else if (event.type == cluster::EventType::kFinished || event.type == cluster::EventType::kDeleted) {
      seen[static_cast<size_t>(event.workload)] = false;
    }
  }
  std::vector<SimDuration> waits;

 private:
  std::map<const cluster::ClusterState*, std::vector<bool>> seen_;
};

// Nearest-rank percentile, as the summary's, in seconds ("12.5").
std::string PercentileSeconds(const std::vector<SimDuration>& sorted, int percent) {
  if (sorted.empty()) return "null";  // no data: nothing was admitted
  size_t rank = static_cast<size_t>((static_cast<int64_t>(sorted.size()) * percent + 99) / 100);
  if (rank == 0) rank = 1;
  return FormatSeconds(sorted[rank - 1]);
}

// The headline figures of a point as a JSON object, keys in a fixed order.
std::string FiguresJson(const metrics::Summary& summary, std::vector<SimDuration> waits) {
  std::sort(waits.begin(), waits.end());
  int64_t admitted = 0, finished = 0, preempted = 0, pending = 0;
  std::vector<std::pair<std::string, std::string>> per_queue;
  std::map<std::string, std::pair<double, double>> usage;  // flavor/resource -> used, nominal
  for (const auto& cluster : summary.clusters) {
    for (const auto& cq : cluster.cluster_queues) {
      admitted += cq.admitted;
      finished += cq.finished;
      preempted += cq.preempted;
      pending += cq.pending;
      const std::string prefix = "cq:" + (cluster.name.empty() ? cq.name : cluster.name + "/" + cq.name) + ":";
      per_queue.emplace_back(prefix + "admitted", fmt::format("{}", cq.admitted));
      per_queue.emplace_back(prefix + "finished", fmt::format("{}", cq.finished));
      per_queue.emplace_back(prefix + "preempted", fmt::format("{}", cq.preempted));
      per_queue.emplace_back(prefix + "pending", fmt::format("{}", cq.pending));
      // No wait (nothing admitted): null, an empty cell in sweep-merge's CSV.
      per_queue.emplace_back(prefix + "wait_p50_s", cq.wait.count > 0 ? FormatSeconds(cq.wait.p50) : "null");
      per_queue.emplace_back(prefix + "wait_p90_s", cq.wait.count > 0 ? FormatSeconds(cq.wait.p90) : "null");
      for (const auto& r : cq.resources) {
        auto& [used, nominal] = usage[r.flavor + "/" + r.resource];
        used += r.used_amount_seconds;
        if (r.nominal_quota != kUnlimited) {
          nominal += static_cast<double>(r.nominal_quota) / (IsMilliResource(r.resource) ? 1000.0 : 1.0);
        }
      }
    }
  }
  std::string out = fmt::format(
      "{{\"admitted\": {}, \"finished\": {}, \"preempted\": {}, \"pending\": {}, \"wait_p50_s\": {}, "
      "\"wait_p90_s\": {}",
      admitted, finished, preempted, pending, PercentileSeconds(waits, 50), PercentileSeconds(waits, 90));
  for (const auto& [key, value] : per_queue) {
    out += ", ";
    metrics::AppendJsonString(&out, key);
    out += ": " + value;
  }
  const double seconds = static_cast<double>(summary.end_time) / static_cast<double>(kSecond);
  for (const auto& [key, amounts] : usage) {
    if (amounts.second <= 0 || seconds <= 0) continue;
    out += ", ";
    metrics::AppendJsonString(&out, "utilization:" + key);
    out += ": " + JsonNumber(amounts.first / (amounts.second * seconds));
  }
  // LeaderWorkerSet rollouts (the first of each), admission checks and
  // autoscaler pools, when the scenario has them.
  auto gpu_hours = [](const std::map<std::string, double>& amounts) {
    double total = 0;
    for (const auto& [resource, value] : amounts) {
      if (resource.find("gpu") != std::string::npos) total += value / 3600.0;
    }
    return total;
  };
  auto add = [&](const std::string& key, const std::string& value) {
    out += ", ";
    metrics::AppendJsonString(&out, key);
    out += ": " + value;
  };
  for (const auto& cluster : summary.clusters) {
    const std::string prefix = cluster.name.empty() ? "" : cluster.name + "/";
    std::set<std::string> seen;
    for (const auto& r : cluster.rollouts) {
      if (!seen.insert(r.leader_worker_set).second) continue;
      const std::string key = "lws:" + prefix + r.leader_worker_set + ":";
      add(key + "rollout_s", r.end < 0 ? std::string("null") : FormatSeconds(r.duration));
      add(key + "below_desired_s", FormatSeconds(r.below_desired));
      add(key + "deficit_group_h", JsonNumber(r.deficit_group_seconds / 3600.0));
      add(key + "surge_gpu_h", JsonNumber(gpu_hours(r.surge_quota_seconds)));
      add(key + "idle_surge_gpu_h", JsonNumber(gpu_hours(r.idle_surge_quota_seconds)));
      add(key + "preemptions", fmt::format("{}", r.preemptions));
    }
    for (const auto& c : cluster.admission_checks) {
      const std::string key = "check:" + prefix + c.name + ":";
      add(key + "ready_p90_s", c.time_to_ready.count > 0 ? FormatSeconds(c.time_to_ready.p90) : "null");
      add(key + "held_gpu_h", JsonNumber(gpu_hours(c.held_quota)));
      add(key + "retries", fmt::format("{}", c.retry));
      add(key + "rejected", fmt::format("{}", c.rejected));
    }
    if (cluster.autoscaler.has_value()) {
      for (const auto& pool : cluster.autoscaler->pools) {
        const std::string key = "pool:" + prefix + pool.name + ":";
        add(key + "nodes_added", fmt::format("{}", pool.nodes_added));
        add(key + "gpu_h", JsonNumber(gpu_hours(pool.provisioned_amount_seconds)));
        add(key + "idle_gpu_h", JsonNumber(gpu_hours(pool.idle_amount_seconds)));
      }
    }
  }
  // MultiKueue managers: what the dispatcher bought (manager reservation
  // to admission on a worker) and what it cost (copies, duplicate
  // reservations, preemptions for copies that lost, quota they held, jobs
  // running twice, API operations against the workers).
  for (const auto& mk : summary.multikueue) {
    const std::string key = "mk:" + mk.manager + ":";
    add(key + "copies", fmt::format("{}", mk.copies));
    add(key + "losing_reservations", fmt::format("{}", mk.losing_reservations));
    add(key + "losing_preemptions", fmt::format("{}", mk.losing_preemptions));
    const bool any_admitted = mk.time_to_admission.count > 0;
    add(key + "admission_p50_s", any_admitted ? FormatSeconds(mk.time_to_admission.p50) : "null");
    add(key + "admission_p90_s", any_admitted ? FormatSeconds(mk.time_to_admission.p90) : "null");
    add(key + "losing_gpu_h", JsonNumber(gpu_hours(mk.losing_quota_seconds)));
    add(key + "duplicate_run_s", FormatSeconds(mk.duplicate_run_time));
    add(key + "api_operations", fmt::format("{}", mk.copies + mk.copies_deleted + mk.nomination_patches +
                                                       mk.status_syncs + mk.gate_opens));
  }
  return out + "}";
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

}  // namespace

int64_t Sweep::num_points() const {
  int64_t points = 1;
  for (const auto& p : parameters) {
    points *= static_cast<int64_t>(p.values.size());
    if (points > 1'000'000'000) return points;
  }
  return points;
}

std::vector<size_t> Sweep::Coordinates(int64_t point) const {
  std::vector<size_t> out(parameters.size());
  for (size_t i = parameters.size(); i-- > 0;) {
    const int64_t n = static_cast<int64_t>(parameters[i].values.size());
    out[i] = static_cast<size_t>(point % n);
    point /= n;
  }
  return out;
}

namespace {

// A Sweep document, decoded, or the error of the first that is not one.
absl::Status CollectSweep(const doc::Node& root, std::vector<Sweep>* found) {
  KUEUESIM_ASSIGN_OR_RETURN(Sweep sweep, DecodeSweep(root));
  found->push_back(std::move(sweep));
  return absl::OkStatus();
}

// The one Sweep among those found in `files`.
absl::StatusOr<Sweep> OneSweep(std::vector<Sweep> found, const std::vector<std::string>& files) {
  if (found.empty()) {
    return absl::NotFoundError(fmt::format("no {} Sweep object in {}", kApiVersion, fmt::join(files, ", ")));
  }
  if (found.size() > 1) {
    return absl::InvalidArgumentError(fmt::format("{}: a second Sweep ({}); a scenario declares one (the first is at {})",
                                                  found[1].where, found[1].name, found[0].where));
  }
  return std::move(found[0]);
}

}  // namespace

namespace {

struct ScenarioWithSweep {
  scenario::Scenario scenario;
  Sweep sweep;
};

// The scenario and its one Sweep, in one pass over the files: the loader
// hands over each Sweep document it meets (LoadOptions::on_sweep).
absl::StatusOr<ScenarioWithSweep> LoadScenarioWithSweep(const std::vector<std::string>& files) {
  std::vector<Sweep> found;
  scenario::LoadOptions load_options;
  load_options.on_sweep = [&found](const doc::Node& root) { return CollectSweep(root, &found); };
  KUEUESIM_ASSIGN_OR_RETURN(scenario::Scenario loaded, scenario::LoadScenarioFiles(files, load_options));
  KUEUESIM_ASSIGN_OR_RETURN(Sweep sweep, OneSweep(std::move(found), files));
  return ScenarioWithSweep{std::move(loaded), std::move(sweep)};
}

}  // namespace

absl::StatusOr<Sweep> LoadSweep(const std::vector<std::string>& files) {
  KUEUESIM_ASSIGN_OR_RETURN(ScenarioWithSweep loaded, LoadScenarioWithSweep(files));
  return std::move(loaded.sweep);
}

absl::Status ApplyObjectField(const SweepParameter& p, const std::string& value, scenario::ClusterSpec* cluster) {
  auto bad = [&](const std::string& what) {
    return ParameterError(p, fmt::format("{} \"{}\": \"{}\" is not {}", p.field, p.object_name, value, what));
  };
  auto to_int = [&](int32_t* out) -> bool {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || end != value.c_str() + value.size() || errno != 0 || v < 0 || v > 1000000000) return false;
    *out = static_cast<int32_t>(v);
    return true;
  };
  auto to_duration = [&](SimDuration* out) -> bool {
    auto d = ParseDuration(value);
    if (!d.ok() || *d < 0) return false;
    *out = *d;
    return true;
  };
  if (p.kind == SweepParameter::Kind::kLeaderWorkerSet) {
    for (auto& lws : cluster->leader_worker_sets) {
      if (lws.meta.name != p.object_name || lws.meta.namespace_ != p.object_namespace) continue;
      auto int_or_percent = [](const std::string& text) {
        const std::string digits = !text.empty() && text.back() == '%' ? text.substr(0, text.size() - 1) : text;
        return !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos;
      };
      auto zero = [](const std::string& text) { return text.find_first_not_of("0%") == std::string::npos; };
      if (p.field == "maxSurge" || p.field == "maxUnavailable" || p.field == "rollingUpdate") {
        // An integer or a percentage, as LWS takes them; rollingUpdate sets
        // both as MAXSURGE/MAXUNAVAILABLE (e.g. 1/0).
        if (p.field == "rollingUpdate") {
          const size_t slash = value.find('/');
          if (slash == std::string::npos || !int_or_percent(value.substr(0, slash)) ||
              !int_or_percent(value.substr(slash + 1))) {
            return bad("MAXSURGE/MAXUNAVAILABLE (e.g. 1/0)");
          }
          lws.max_surge = value.substr(0, slash);
          lws.max_unavailable = value.substr(slash + 1);
        } else {
          if (!int_or_percent(value)) return bad("an integer or a percentage");
          (p.field == "maxSurge" ? lws.max_surge : lws.max_unavailable) = value;
        }
        if (zero(lws.max_surge) && zero(lws.max_unavailable)) {
          return bad("allowed with the other bound (LeaderWorkerSet: maxUnavailable and maxSurge must not both be 0)");
        }
      } else if (p.field == "partition" || p.field == "replicas") {
        int32_t v = 0;
        if (!to_int(&v)) return bad("a non-negative integer");
        (p.field == "partition" ? lws.partition : lws.replicas) = v;
      } else {  // startupPolicy
        if (value != "LeaderCreated" && value != "LeaderReady") return bad("LeaderCreated or LeaderReady");
        lws.startup_leader_ready = value == "LeaderReady";
      }
      return absl::OkStatus();
    }
    return ParameterError(p, fmt::format("no LeaderWorkerSet \"{}/{}\"", p.object_namespace, p.object_name));
  }
  if (p.kind == SweepParameter::Kind::kAutoscalerPool) {
    for (auto& pool : cluster->autoscaler_pools) {
      if (pool.meta.name != p.object_name) continue;
      if (p.field == "provisioningTime") {
        model::DurationDistribution d;
        d.text = value;
        if (!to_duration(&d.a)) return bad("a duration");
        pool.provisioning_time = d;
      } else if (p.field == "scaleDownDelay") {
        if (!to_duration(&pool.scale_down_delay)) return bad("a duration");
      } else if (p.field == "maxNodes" || p.field == "minNodes") {
        int32_t v = 0;
        if (!to_int(&v)) return bad("a non-negative integer");
        (p.field == "maxNodes" ? pool.max_nodes : pool.min_nodes) = v;
        if (pool.min_nodes > pool.max_nodes) return bad("compatible with the pool's other size bound");
      } else if (p.field == "capacity") {
        // "none" or the pool's capacity from the start: N.
        pool.capacity.clear();
        if (value != "none") {
          int32_t v = 0;
          if (!to_int(&v)) return bad("none or a non-negative integer");
          pool.capacity.emplace_back(0, v);
        }
      } else {  // stockout: "none" or "FROM-UNTIL" (e.g. 30m-2h)
        pool.stockouts.clear();
        if (value != "none") {
          const size_t dash = value.find('-');
          auto from = dash == std::string::npos ? absl::StatusOr<SimDuration>(absl::InvalidArgumentError(""))
                                                : ParseDuration(value.substr(0, dash));
          auto until = dash == std::string::npos ? absl::StatusOr<SimDuration>(absl::InvalidArgumentError(""))
                                                 : ParseDuration(value.substr(dash + 1));
          if (!from.ok() || !until.ok() || *from < 0 || *until <= *from) return bad("none or FROM-UNTIL (e.g. 30m-2h)");
          pool.stockouts.emplace_back(*from, *until);
        }
      }
      return absl::OkStatus();
    }
    return ParameterError(p, fmt::format("no AutoscalerPool \"{}\"", p.object_name));
  }
  for (auto& prc : cluster->provisioning_request_configs) {
    if (prc.meta.name != p.object_name) continue;
    if (p.field == "provisioningClassName") {
      if (value.empty()) return bad("a class name");
      prc.provisioning_class_name = value;
    } else {
      int32_t v = 0;
      if (!to_int(&v)) return bad("a non-negative integer");
      (p.field == "backoffLimitCount"    ? prc.backoff_limit_count
       : p.field == "backoffBaseSeconds" ? prc.backoff_base_seconds
                                         : prc.backoff_max_seconds) = v;
    }
    return absl::OkStatus();
  }
  return ParameterError(p, fmt::format("no ProvisioningRequestConfig \"{}\"", p.object_name));
}

absl::StatusOr<scenario::Scenario> ApplyPoint(const Sweep& sweep, int64_t point, scenario::Scenario scenario) {
  const std::vector<size_t> at = sweep.Coordinates(point);
  for (size_t i = 0; i < sweep.parameters.size(); ++i) {
    const SweepParameter& p = sweep.parameters[i];
    const std::string& value = p.values[at[i]];
    if (p.kind == SweepParameter::Kind::kPolicy) {
      scenario::PolicyChoice* choice = p.policy == "queueOrdering" ? &scenario.settings.queue_ordering
                                       : p.policy == "preemption"  ? &scenario.settings.preemption
                                                                   : &scenario.settings.dispatcher;
      choice->name = value;
      continue;
    }
    scenario::ClusterSpec* cluster = nullptr;
    for (auto& c : scenario.clusters) {
      if (c.name == p.cluster) cluster = &c;
    }
    if (cluster == nullptr) return ParameterError(p, fmt::format("no cluster \"{}\" in the scenario", p.cluster));
    if (p.kind == SweepParameter::Kind::kLeaderWorkerSet || p.kind == SweepParameter::Kind::kAutoscalerPool ||
        p.kind == SweepParameter::Kind::kProvisioningRequestConfig) {
      KUEUESIM_RETURN_IF_ERROR(ApplyObjectField(p, value, cluster));
      continue;
    }
    KUEUESIM_RETURN_IF_ERROR(p.kind == SweepParameter::Kind::kQuota ? ApplyQuota(p, value, cluster)
                                                                    : ApplyWeight(p, value, cluster));
  }
  return scenario;
}

absl::StatusOr<Shard> ParseShard(std::string_view text) {
  const size_t slash = text.find('/');
  Shard shard;
  auto parse = [](std::string_view digits, int64_t* out) {
    if (digits.empty() || digits.size() > 9) return false;
    int64_t value = 0;
    for (char ch : digits) {
      if (ch < '0' || ch > '9') return false;
      value = value * 10 + (ch - '0');
    }
    *out = value;
    return true;
  };
  if (slash == std::string_view::npos || !parse(text.substr(0, slash), &shard.index) ||
      !parse(text.substr(slash + 1), &shard.count) || shard.count < 1 || shard.index >= shard.count) {
    return absl::InvalidArgumentError(
        fmt::format("--shard \"{}\": expected i/n with 0 <= i < n (e.g. 0/4; i is the 0-based shard index)", text));
  }
  return shard;
}

namespace {

// Runs one grid point and returns the text of its point file.
absl::StatusOr<std::string> RunPoint(const Sweep& sweep, int64_t point, const scenario::Scenario& base,
                                     const policy::PolicyRegistry& registry, const SweepOptions& options) {
  KUEUESIM_ASSIGN_OR_RETURN(scenario::Scenario scenario, ApplyPoint(sweep, point, base));
  if (options.until.has_value()) scenario.settings.until = options.until;
  auto simulation = sim::Simulation::Create(scenario, registry);
  if (!simulation.ok()) {
    return absl::Status(simulation.status().code(),
                        fmt::format("Sweep {} point {}: {}", sweep.name, point, StatusMessage(simulation.status())));
  }
  metrics::SummaryCollector collector;
  WaitRecorder waits;
  (*simulation)->AddEventSink(&collector);
  (*simulation)->AddEventSink(&waits);
  sim::RunOptions run_options;
  run_options.until = options.until;
  // With points side by side, the cores are theirs.
  run_options.read_ahead = options.jobs <= 1;
  KUEUESIM_RETURN_IF_ERROR((*simulation)->Run(run_options));
  metrics::Summary summary = collector.Finish((*simulation)->end_time(), (*simulation)->cluster_pointers(),
                                              (*simulation)->multikueue_reports());
  summary.unknown_kinds = scenario.report.unknown_kinds;
  summary.warnings = scenario.report.warnings;
  metrics::AddLoadReport((*simulation)->scenario().report, scenario.settings, &summary);
  std::string text = "{\"sweep\": ";
  metrics::AppendJsonString(&text, sweep.name);
  text += fmt::format(", \"point\": {}, \"points\": {}, \"parameters\": {{", point, sweep.num_points());
  const std::vector<size_t> at = sweep.Coordinates(point);
  for (size_t i = 0; i < sweep.parameters.size(); ++i) {
    if (i > 0) text += ", ";
    metrics::AppendJsonString(&text, sweep.parameters[i].name);
    text += ": ";
    metrics::AppendJsonString(&text, sweep.parameters[i].values[at[i]]);
  }
  text += "},\n\"figures\": " + FiguresJson(summary, std::move(waits.waits)) + ",\n\"summary\": ";
  text += metrics::SummaryToJson(summary);
  text += "}\n";
  return text;
}

absl::Status WritePointFile(const std::string& out_dir, int64_t point, const std::string& text) {
  const std::string path = (std::filesystem::path(out_dir) / fmt::format("point-{:06d}.json", point)).string();
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) return absl::UnavailableError(fmt::format("cannot open {} for writing", path));
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  if (std::fclose(out) != 0 || !written) return absl::UnavailableError(fmt::format("writing {} failed", path));
  return absl::OkStatus();
}

}  // namespace

int DefaultSweepJobs() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

absl::StatusOr<int64_t> RunSweep(const std::vector<std::string>& files, const std::string& out_dir,
                                 const SweepOptions& options) {
  if (options.jobs < 1) return absl::InvalidArgumentError(fmt::format("--jobs {}: must be at least 1", options.jobs));
  KUEUESIM_ASSIGN_OR_RETURN(ScenarioWithSweep loaded, LoadScenarioWithSweep(files));
  const Sweep& sweep = loaded.sweep;
  const scenario::Scenario& base = loaded.scenario;
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (error || !std::filesystem::is_directory(out_dir)) {
    return absl::UnavailableError(fmt::format("--out {}: cannot create the directory", out_dir));
  }
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  std::vector<int64_t> owned;
  for (int64_t point = 0; point < sweep.num_points(); ++point) {
    if (options.shard.Owns(point)) owned.push_back(point);
  }
  // Each point is an independent simulation over its own copy of the
  // scenario; threads take the next point in order. Every point writes its
  // own file, so the output does not depend on the number of threads. On a
  // failure the remaining points are not started, and the failure of the
  // lowest-numbered failing point is returned (the one a single thread
  // would have met first among those that ran).
  std::vector<absl::Status> results(owned.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&]() {
    for (size_t i = next.fetch_add(1); i < owned.size(); i = next.fetch_add(1)) {
      if (failed.load()) return;
      absl::StatusOr<std::string> text = RunPoint(sweep, owned[i], base, registry, options);
      results[i] = text.ok() ? WritePointFile(out_dir, owned[i], *text) : text.status();
      if (!results[i].ok()) failed.store(true);
    }
  };
  const size_t threads = std::min(static_cast<size_t>(options.jobs), owned.size());
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(work);
    for (std::thread& thread : pool) thread.join();
  }
  for (const absl::Status& status : results) KUEUESIM_RETURN_IF_ERROR(status);
  return static_cast<int64_t>(owned.size());
}

absl::StatusOr<std::string> MergeSweep(const std::vector<std::string>& dirs) {
  struct PointRow {
    std::string file;
    nlohmann::ordered_json parameters;
    nlohmann::ordered_json figures;
  };
  std::map<int64_t, PointRow> rows;
  std::string sweep_name;
  int64_t points = -1;
  std::string first_file;
  for (const std::string& dir : dirs) {
    if (!std::filesystem::is_directory(dir)) {
      return absl::NotFoundError(fmt::format("{}: not a directory (write one with `kueuesim sweep ... --out {}`)",
                                             dir, dir));
    }
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("point-", 0) == 0 && entry.path().extension() == ".json") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      std::ifstream in(file);
      nlohmann::ordered_json doc = nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
      if (doc.is_discarded() || !doc.is_object() || !doc.contains("point") || !doc["point"].is_number_integer() ||
          !doc.contains("points") || !doc.contains("sweep") || !doc["parameters"].is_object() ||
          !doc["figures"].is_object()) {
        return absl::InvalidArgumentError(fmt::format("{}: not a sweep point file (fields sweep, point, points, "
                                                      "parameters, figures)",
                                                      file));
      }
      const std::string name = doc["sweep"].get<std::string>();
      const int64_t total = doc["points"].get<int64_t>();
      if (points < 0) {
        sweep_name = name;
        points = total;
        first_file = file;
      } else if (name != sweep_name || total != points) {
        return absl::InvalidArgumentError(fmt::format("{}: from sweep {} with {} points, but {} is from sweep {} "
                                                      "with {} points",
                                                      file, name, total, first_file, sweep_name, points));
      }
      const int64_t point = doc["point"].get<int64_t>();
      if (point < 0 || point >= total) {
        return absl::InvalidArgumentError(fmt::format("{}: point {} is outside 0..{}", file, point, total - 1));
      }
      auto [it, inserted] = rows.emplace(point, PointRow{file, doc["parameters"], doc["figures"]});
      if (!inserted) {
        return absl::InvalidArgumentError(
            fmt::format("point {} appears twice: {} and {} (overlapping shards?)", point, it->second.file, file));
      }
    }
  }
  if (points < 0) return absl::NotFoundError(fmt::format("no point-*.json files in {}", fmt::join(dirs, ", ")));
  std::vector<int64_t> missing;
  for (int64_t p = 0; p < points && missing.size() < 10; ++p) {
    if (rows.count(p) == 0) missing.push_back(p);
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(fmt::format("sweep {}: {} of {} points are present; missing point(s) {}{}",
                                                  sweep_name, rows.size(), points, fmt::join(missing, ", "),
                                                  missing.size() == 10 ? ", ..." : ""));
  }
  // Columns: point, the parameters, then every figure in order of first
  // appearance over the points in point order (so any sharding gives the
  // same table).
  std::vector<std::string> parameters;
  for (const auto& [key, value] : rows.begin()->second.parameters.items()) parameters.push_back(key);
  std::vector<std::string> figures;
  std::set<std::string> seen;
  for (const auto& [point, row] : rows) {
    for (const auto& [key, value] : row.figures.items()) {
      if (seen.insert(key).second) figures.push_back(key);
    }
  }
  std::string out = "point";
  for (const auto& p : parameters) out += "," + CsvField(p);
  for (const auto& f : figures) out += "," + CsvField(f);
  out += "\n";
  for (const auto& [point, row] : rows) {
    out += fmt::format("{}", point);
    for (const auto& p : parameters) {
      out += ",";
      if (row.parameters.contains(p) && row.parameters[p].is_string()) {
        out += CsvField(row.parameters[p].get<std::string>());
      }
    }
    for (const auto& f : figures) {
      out += ",";
      // A figure without data (null) is an empty cell, as pandas reads NaN.
      if (row.figures.contains(f) && !row.figures[f].is_null()) out += row.figures[f].dump();
    }
    out += "\n";
  }
  return out;
}

}  // namespace kueuesim::sweep
