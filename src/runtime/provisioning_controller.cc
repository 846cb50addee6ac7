// Kueue's ProvisioningRequest admission check controller and the declared
// answers of other checks; see kueuesim/runtime/provisioning.h.
#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/runtime/provisioning.h"

namespace kueuesim::runtime {

using cluster::WorkloadPhase;
using cluster::WorkloadRecord;

namespace {

constexpr std::string_view kProvReqParameterPrefix = "provreq.kueue.x-k8s.io/";

// SHA-1 (FIPS 180-4), for limitObjectName only.
std::string Sha1Hex(std::string_view text) {
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  std::string data(text);
  const uint64_t bits = static_cast<uint64_t>(text.size()) * 8;
  data.push_back(static_cast<char>(0x80));
  while (data.size() % 64 != 56) data.push_back('\0');
  for (int i = 7; i >= 0; --i) data.push_back(static_cast<char>((bits >> (i * 8)) & 0xff));
  auto rotl = [](uint32_t x, int n) { return (x << n) | (x >> (32 - n)); };
  for (size_t chunk = 0; chunk < data.size(); chunk += 64) {
    uint32_t w[80];
    for (int i = 0; i < 16; ++i) {
      w[i] = (static_cast<uint32_t>(static_cast<uint8_t>(data[chunk + 4 * i])) << 24) |
             (static_cast<uint32_t>(static_cast<uint8_t>(data[chunk + 4 * i + 1])) << 16) |
             (static_cast<uint32_t>(static_cast<uint8_t>(data[chunk + 4 * i + 2])) << 8) |
             static_cast<uint32_t>(static_cast<uint8_t>(data[chunk + 4 * i + 3]));
    }
    for (int i = 16; i < 80; ++i) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; ++i) {
      uint32_t f = 0, k = 0;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5A827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ED9EBA1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8F1BBCDC;
      } else {
        f = b ^ c ^ d;
        k = 0xCA62C1D6;
      }
      const uint32_t temp = rotl(a, 5) + f + e + k + w[i];
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = temp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
  }
  return fmt::format("{:08x}{:08x}{:08x}{:08x}{:08x}", h[0], h[1], h[2], h[3], h[4]);
}

// What IdenticalWorkloadSchedulingRequirements compares (per-pod requests,
// node selector, tolerations, affinity, resource claims), as text.
std::string SchedulingKey(const model::PodSet& ps) {
  std::string key;
  for (const auto& r : ps.requests) key += fmt::format("r:{}={};", r.name, r.amount);
  for (const auto& [k, v] : ps.rare->node_selector) key += fmt::format("s:{}={};", k, v);
  for (const auto& t : ps.rare->tolerations) {
    key += fmt::format("t:{}/{}/{}/{};", t.key, static_cast<int>(t.op), t.value,
                       t.effect.has_value() ? static_cast<int>(*t.effect) : -1);
  }
  for (const auto& term : ps.rare->required_affinity) {
    key += "a:";
    for (const auto& e : term.match_expressions) {
      key += fmt::format("{}/{}/", e.key, static_cast<int>(e.op));
      for (const auto& v : e.values) key += v + ",";
    }
    key += ";";
  }
  for (const auto& term : ps.rare->preferred_affinity) {
    key += fmt::format("p:{}:", term.weight);
    for (const auto& e : term.preference.match_expressions) {
      key += fmt::format("{}/{}/", e.key, static_cast<int>(e.op));
      for (const auto& v : e.values) key += v + ",";
    }
    key += ";";
  }
  for (const auto& c : ps.rare->resource_claims) {
    key += fmt::format("c:{}/{}/{};", c.name, c.resource_claim_template_name, c.resource_claim_name);
  }
  return key;
}

// IdenticalPodTemplates: everything kueuesim keeps of the template.
std::string TemplateKey(const model::PodSet& ps) {
  std::string key = SchedulingKey(ps);
  key += "pc:" + ps.rare->priority_class_name + ";";
  if (ps.topology_request.has_value()) {
    const auto& t = *ps.topology_request;
    key += fmt::format("tr:{}/{}/{};", t.required.value_or(""), t.preferred.value_or(""),
                       t.unconstrained.has_value() ? (*t.unconstrained ? 1 : 0) : -1);
  }
  return key;
}

}  // namespace

int32_t ProvisioningBackoffSeconds(int32_t base_seconds, int32_t max_seconds, int32_t n, double jitter_unit) {
  // apimachinery wait.Backoff{Duration: base, Factor: 2, Jitter: 1e-4,
  // Cap: max (0: none)}: Step() returns the current duration and then
  // doubles it, capping at Cap; WaitTime(n) is the n-th Step.
  const double cap = max_seconds > 0 ? static_cast<double>(max_seconds) : 9.2e18 / 2;
  double duration = static_cast<double>(base_seconds);
  double step = duration;
  for (int32_t i = 0; i < n; ++i) {
    step = duration;
    double next = duration * 2;
    if (next > cap) next = cap;
    duration = next;
    if (step == cap) break;
  }
  const double jittered = step + jitter_unit * 1e-4 * step;
  return static_cast<int32_t>(std::min(jittered, 2147483647.0));
}

std::string LimitObjectName(const std::string& name) {
  constexpr size_t kMaxPrefix = 252 - 5;
  if (name.size() <= kMaxPrefix) return name;
  return name.substr(0, kMaxPrefix) + "-" + Sha1Hex(name).substr(0, 5);
}

// --- ProvisioningController ---

ProvisioningController::ProvisioningController(ClusterRuntime* runtime, const scenario::ClusterSpec& spec,
                                               const scenario::SimulationSettings& settings)
    : runtime_(runtime), flavor_scoped_retry_count_lost_(settings.flavor_scoped_retry_count_lost),
      configs_(spec.provisioning_request_configs), autoscaler_(runtime, spec, settings) {
  config_of_check_.assign(spec.admission_checks.size(), nullptr);
  counters_.resize(spec.admission_checks.size());
  for (size_t i = 0; i < spec.admission_checks.size(); ++i) {
    const model::AdmissionCheck& check = spec.admission_checks[i];
    if (check.controller_name != model::kProvisioningRequestControllerName || !check.active) continue;
    if (check.parameters_kind != "ProvisioningRequestConfig") continue;
    for (const auto& prc : configs_) {
      if (prc.meta.name == check.parameters_name) config_of_check_[i] = &prc;
    }
  }
}

ProvisioningController::~ProvisioningController() = default;

const ProvisioningController::CheckInfo* ProvisioningController::Find(WorkloadId id, int32_t check) const {
  auto it = checks_.find({id, check});
  return it == checks_.end() ? nullptr : &it->second;
}

void ProvisioningController::OnCheckPending(WorkloadId id, int32_t check) {
  CheckInfo& info = checks_[{id, check}];
  info.state = CheckState::kPending;
  const model::ProvisioningRequestConfig* prc = config_of_check_[static_cast<size_t>(check)];
  if (prc == nullptr) {
    info.message = "the check is not active";  // CheckInactiveMessage
    return;
  }
  // reqIsNeeded: a pod set with a managed resource and an admitted count.
  const WorkloadRecord& wl = runtime_->state().workload(id);
  bool needed = false;
  for (size_t i = 0; i < wl.pod_sets.size(); ++i) {
    const model::PodSet& ps = *wl.pod_sets[i].spec;
    if (ps.count <= 0) continue;
    bool uses = prc->managed_resources.empty();
    for (const auto& r : ps.requests) {
      uses = uses || std::find(prc->managed_resources.begin(), prc->managed_resources.end(), r.name) !=
                         prc->managed_resources.end();
    }
    if (uses && wl.admission->pod_sets[i].count > 0) needed = true;
  }
  if (!needed) {
    info.state = CheckState::kReady;
    info.message = "the provisioning request is not needed";  // NoRequestNeeded
    ++counters_[static_cast<size_t>(check)].not_needed;
    runtime_->SetAdmissionCheckState(id, check, CheckState::kReady);
    return;
  }
  CreateRequest(id, check, info);
}

void ProvisioningController::CreateRequest(WorkloadId id, int32_t check, CheckInfo& info) {
  const model::ProvisioningRequestConfig& prc = *config_of_check_[static_cast<size_t>(check)];
  const cluster::ClusterState& state = runtime_->state();
  const WorkloadRecord& wl = state.workload(id);
  // With the cleanup gate on, the previous request was deleted with the
  // eviction: the next attempt is retryCount + 1.
  info.attempt = info.retry_count + 1;
  info.request_name = LimitObjectName(fmt::format("{}-{}-{}", wl.spec->meta.name,
                                                  runtime_->admission_check(check).meta.name, info.attempt));
  std::map<std::string, std::string> parameters = prc.parameters;
  for (const auto& [key, value] : wl.spec->meta.annotations) {
    if (key.size() > kProvReqParameterPrefix.size() && key.compare(0, kProvReqParameterPrefix.size(), kProvReqParameterPrefix) == 0) {
      parameters[key.substr(kProvReqParameterPrefix.size())] = value;
    }
  }
  // mergePodSets: relevant pod sets in order; with a merge policy, each
  // joins the first earlier group it can merge with.
  std::vector<ProvisioningRequestPodSet> pod_sets;
  std::vector<std::string> group_keys;
  for (size_t i = 0; i < wl.pod_sets.size(); ++i) {
    const model::PodSet& ps = *wl.pod_sets[i].spec;
    if (ps.count <= 0) continue;
    bool uses = prc.managed_resources.empty();
    for (const auto& r : ps.requests) {
      uses = uses || std::find(prc.managed_resources.begin(), prc.managed_resources.end(), r.name) !=
                         prc.managed_resources.end();
    }
    const int32_t count = wl.admission->pod_sets[i].count;
    if (!uses || count <= 0) continue;
    std::string key;
    if (prc.pod_set_merge_policy == model::PodSetMergePolicy::kIdenticalPodTemplates) key = TemplateKey(ps);
    if (prc.pod_set_merge_policy == model::PodSetMergePolicy::kIdenticalWorkloadSchedulingRequirements) {
      key = SchedulingKey(ps);
    }
    if (prc.pod_set_merge_policy != model::PodSetMergePolicy::kNone) {
      auto it = std::find(group_keys.begin(), group_keys.end(), key);
      if (it != group_keys.end()) {
        pod_sets[static_cast<size_t>(it - group_keys.begin())].count += count;
        continue;
      }
    }
    // The template: the pod set's, merged with its flavors' node labels and
    // tolerations (podset.FromAssignment + Merge).
    ProvisioningRequestPodSet out;
    out.template_name = LimitObjectName(fmt::format("ppt-{}-{}", info.request_name, ps.name));
    out.count = count;
    out.requests = ps.requests;
    out.node_selector = ps.rare->node_selector;
    out.tolerations = ps.rare->tolerations;
    std::vector<cluster::FlavorId> flavors;
    for (const auto& entry : wl.admission->pod_sets[i].entries) {
      if (std::find(flavors.begin(), flavors.end(), entry.flavor) == flavors.end()) flavors.push_back(entry.flavor);
    }
    for (cluster::FlavorId f : flavors) {
      const cluster::FlavorInfo& flavor = state.flavor(f);
      if (flavor.spec == nullptr) continue;
      for (const auto& [k, v] : flavor.spec->node_labels) out.node_selector[k] = v;
      for (const auto& t : flavor.spec->tolerations) out.tolerations.push_back(t);
    }
    pod_sets.push_back(std::move(out));
    group_keys.push_back(std::move(key));
  }
  info.request = autoscaler_.Create(info.request_name, prc.provisioning_class_name, std::move(parameters),
                                    std::move(pod_sets), this);
  request_owner_[info.request] = {id, check};
  info.message.clear();
  ++counters_[static_cast<size_t>(check)].requests;
}

void ProvisioningController::OnRequestChanged(int64_t request) {
  auto owner = request_owner_.find(request);
  if (owner == request_owner_.end()) return;
  // Plain variables, not structured bindings: the lambda below captures
  // them (clang before 16 refuses to capture a binding).
  const WorkloadId id = owner->second.first;
  const auto check = owner->second.second;
  auto it = checks_.find({id, check});
  if (it == checks_.end() || it->second.request != request) return;
  CheckInfo& info = it->second;
  const WorkloadRecord& wl = runtime_->state().workload(id);
  // The controller reconciles workloads that hold quota (evicted ones only
  // lose their requests).
  if (!wl.admission.has_value() || wl.evicted) return;
  const model::ProvisioningRequestConfig& prc = *config_of_check_[static_cast<size_t>(check)];
  const ProvisioningRequestConditions& c = autoscaler_.conditions(request);
  const bool admitted = wl.phase == WorkloadPhase::kAdmitted;
  CheckCounters& counters = counters_[static_cast<size_t>(check)];
  // syncCheckStates: the first condition that holds wins.
  auto retry_or_reject = [&](const std::string& retry_message, const std::string& reject_message) {
    if (info.attempt <= prc.backoff_limit_count) {
      info.message = retry_message;
      if (info.attempt > info.retry_count) {
        // Retry with requeueAfterSeconds for n = retryCount + 1.
        const int32_t n = info.retry_count + 1;
        const double jitter = HashUnit(runtime_->seed(), HashString(wl.key) ^ (static_cast<uint64_t>(check) << 40) ^
                                                             static_cast<uint64_t>(n));
        const int32_t ras = ProvisioningBackoffSeconds(prc.backoff_base_seconds, prc.backoff_max_seconds, n, jitter);
        info.requeue_after_seconds = ras;
        info.state = CheckState::kRetry;
        runtime_->SetAdmissionCheckRetry(id, check, static_cast<SimDuration>(ras) * kSecond);
      }
      return;
    }
    info.message = reject_message;
    info.state = CheckState::kRejected;
    runtime_->SetAdmissionCheckState(id, check, CheckState::kRejected);
  };
  if (c.failed) {
    ++counters.failed;
    retry_or_reject("Retrying after failure: " + c.failed_message, c.failed_message);
  } else if (c.capacity_revoked) {
    ++counters.capacity_revoked;
    if (wl.spec->active && wl.phase != WorkloadPhase::kFinished) {
      info.message = c.capacity_revoked_message;
      info.state = CheckState::kRejected;
      runtime_->SetAdmissionCheckState(id, check, CheckState::kRejected);
    }
  } else if (c.booking_expired) {
    if (!admitted) {
      ++counters.booking_expired;
      retry_or_reject("Retrying after booking expired: " + c.booking_expired_message, c.booking_expired_message);
    }
  } else if (c.provisioned.value_or(false)) {
    if (info.state != CheckState::kReady) {
      info.state = CheckState::kReady;
      info.message = c.provisioned_message;
      // Best-effort-atomic reports Provisioned when the scale-up is
      // requested: the pods wait for the nodes.
      const SimTime ready_at = autoscaler_.NodesReadyAt(request);
      if (ready_at > runtime_->engine()->now()) runtime_->SetPodStartNotBefore(id, ready_at);
      runtime_->SetAdmissionCheckState(id, check, CheckState::kReady);
    }
  } else if (c.accepted && c.provisioned.has_value()) {
    info.message = c.provisioned_message;
    info.state = CheckState::kPending;
  } else {
    info.message.clear();
  }
}

void ProvisioningController::OnAdmitted(WorkloadId id) {
  for (auto it = checks_.lower_bound({id, kNone}); it != checks_.end() && it->first.first == id; ++it) {
    if (it->second.request >= 0) autoscaler_.Consume(it->second.request);
  }
}

void ProvisioningController::DeleteRequests(WorkloadId id) {
  for (auto it = checks_.lower_bound({id, kNone}); it != checks_.end() && it->first.first == id; ++it) {
    if (it->second.request < 0) continue;
    autoscaler_.Delete(it->second.request);
    request_owner_.erase(it->second.request);
    it->second.request = -1;
  }
}

void ProvisioningController::OnEvicted(WorkloadId id) {
  // resetChecksOnEviction: Retry -> Pending with retryCount + 1; Ready and
  // Rejected -> Pending with retryCount cleared; Pending unchanged.
  const WorkloadRecord& wl = runtime_->state().workload(id);
  const cluster::ClusterQueueInfo* cq = wl.admission.has_value() ? &runtime_->state().cq(wl.admission->cq) : nullptr;
  for (const auto& status : wl.rare->checks) {
    auto it = checks_.find({id, status.check});
    if (it == checks_.end()) continue;
    CheckInfo& info = it->second;
    if (status.state == CheckState::kRetry) {
      ++info.retry_count;
    } else if (status.state != CheckState::kPending) {
      info.retry_count = 0;
    }
    if (flavor_scoped_retry_count_lost_ && cq != nullptr) {
      // While the workload has no admission, the workload controller keeps
      // only the checks that cover every flavor of the ClusterQueue
      // (workload.AdmissionChecksForWorkload): a flavor-scoped check is
      // dropped from the status, its retryCount with it.
      for (const auto& ref : cq->spec->admission_checks) {
        if (ref.name != runtime_->admission_check(status.check).meta.name || ref.on_flavors.empty()) continue;
        bool covers_all = true;
        for (const auto& group : cq->spec->resource_groups) {
          for (const auto& flavor : group.flavors) {
            covers_all = covers_all && std::find(ref.on_flavors.begin(), ref.on_flavors.end(), flavor.name) !=
                                           ref.on_flavors.end();
          }
        }
        if (!covers_all) info.retry_count = 0;
      }
    }
    info.state = CheckState::kPending;
    info.requeue_after_seconds.reset();
  }
  // CleanupProvisioningRequestsOnEviction (on by default).
  DeleteRequests(id);
}

void ProvisioningController::OnQuotaReleased(WorkloadId id) {
  const WorkloadRecord& wl = runtime_->state().workload(id);
  DeleteRequests(id);
  if (wl.evicted) return;  // evicted: the retry counts stay for the next reservation
  // Finished or deleted: nothing is left of its checks.
  checks_.erase(checks_.lower_bound({id, kNone}), checks_.lower_bound({id + 1, kNone}));
}

// --- SimulatedCheckController ---

void SimulatedCheckController::OnCheckPending(WorkloadId id, int32_t check) {
  const model::AdmissionCheck& spec = runtime_->admission_check(check);
  if (!spec.simulated.has_value() || spec.simulated->never) return;
  const model::SimulatedCheckBehavior& behavior = *spec.simulated;
  const int32_t attempt = ++attempts_[{id, check}];
  const WorkloadRecord& wl = runtime_->state().workload(id);
  const uint64_t key = HashString(wl.key) ^ (HashString(spec.meta.name) << 1) ^ (static_cast<uint64_t>(attempt) << 48);
  const SimDuration delay =
      SampleDuration(behavior.delay, HashUnit(runtime_->seed(), key), HashUnit(runtime_->seed(), key + 1));
  const int64_t token = next_token_++;
  pending_[token] = {id, check};
  runtime_->engine()->ScheduleAfter(delay, this, 0, token, attempt);
}

void SimulatedCheckController::OnQuotaReleased(WorkloadId id) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    it = it->second.workload == id ? pending_.erase(it) : std::next(it);
  }
  const WorkloadRecord& wl = runtime_->state().workload(id);
  if (!wl.evicted) attempts_.erase(attempts_.lower_bound({id, kNone}), attempts_.lower_bound({id + 1, kNone}));
}

void SimulatedCheckController::HandleEvent(int32_t /*kind*/, int64_t a, int64_t b) {
  auto it = pending_.find(a);
  if (it == pending_.end()) return;
  const Pending p = it->second;
  pending_.erase(it);
  const model::SimulatedCheckBehavior& behavior = *runtime_->admission_check(p.check).simulated;
  const WorkloadRecord& wl = runtime_->state().workload(p.workload);
  const uint64_t key = HashString(wl.key) ^ (HashString(runtime_->admission_check(p.check).meta.name) << 1) ^
                       (static_cast<uint64_t>(b) << 48);
  const int32_t draw = static_cast<int32_t>(HashUnit(runtime_->seed() + 7, key) * 1e6);
  if (draw < behavior.rejected_ppm) {
    runtime_->SetAdmissionCheckState(p.workload, p.check, CheckState::kRejected);
  } else if (draw < behavior.rejected_ppm + behavior.retry_ppm) {
    if (behavior.retry_after_seconds.has_value() && *behavior.retry_after_seconds > 0) {
      runtime_->SetAdmissionCheckRetry(p.workload, p.check,
                                       static_cast<SimDuration>(*behavior.retry_after_seconds) * kSecond);
    } else {
      runtime_->SetAdmissionCheckState(p.workload, p.check, CheckState::kRetry);
    }
  } else {
    runtime_->SetAdmissionCheckState(p.workload, p.check, CheckState::kReady);
  }
}

}  // namespace kueuesim::runtime
