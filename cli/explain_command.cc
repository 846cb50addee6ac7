// kueuesim explain; see explain_command.h.
#include "explain_command.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "kueuesim/cluster/events.h"
#include "kueuesim/cluster/pending_condition.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/sim/simulation.h"
#include "output.h"

namespace kueuesim::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitInvalidInput = 1;
constexpr int kExitUsage = 2;
constexpr int kExitRunFailed = 3;

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "kueuesim: error: %s\n", StatusMessage(status).c_str());
  return status.code() == absl::StatusCode::kInvalidArgument || status.code() == absl::StatusCode::kNotFound ||
                 status.code() == absl::StatusCode::kPermissionDenied
             ? kExitInvalidInput
             : kExitRunFailed;
}

// One line of the workload's history.
struct HistoryLine {
  SimTime time = 0;
  std::string cluster;
  std::string type;
  std::string reason;
  std::string message;
};

// Records the events of one workload (by key, in every cluster), worded
// when they happen: the record's condition changes afterwards.
class WorkloadHistory : public cluster::EventSink {
 public:
  explicit WorkloadHistory(std::string key) : key_(std::move(key)) {}

  void OnEvent(const cluster::SimEvent& event) override {
    if (event.cluster == nullptr || event.workload == cluster::kNone) return;
    if (event.type == cluster::EventType::kQuotaReleased) return;
    const cluster::ClusterState& state = *event.cluster;
    const cluster::WorkloadRecord& wl = state.workload(event.workload);
    if (wl.spec == nullptr || wl.key != key_) return;
    HistoryLine line;
    line.time = event.time;
    line.cluster = state.name();
    line.type = std::string(cluster::EventTypeName(event.type));
    line.reason = std::string(event.reason);
    const std::string cq = event.cq != cluster::kNone ? state.cq(event.cq).name : std::string();
    switch (event.type) {
      case cluster::EventType::kArrived:
        line.message = cq.empty() ? fmt::format("Created in LocalQueue {}", wl.spec->queue_name)
                                  : fmt::format("Created in LocalQueue {} (ClusterQueue {})", wl.spec->queue_name, cq);
        break;
      case cluster::EventType::kPending:
        line.message = cluster::PendingMessageText(state, wl, *wl.pending);
        break;
      case cluster::EventType::kQuotaReserved:
      case cluster::EventType::kAdmittedAtStart:
        reserved_at_[state.name()] = event.time;
        line.message = fmt::format("Quota reserved in ClusterQueue {}", cq) + FlavorsOf(state, wl);
        break;
      case cluster::EventType::kAdmitted: {
        auto it = reserved_at_.find(state.name());
        const SimDuration wait = it == reserved_at_.end() ? 0 : event.time - it->second;
        line.message = fmt::format("Admitted by ClusterQueue {}, wait time since reservation was {}", cq,
                                   FormatDuration(wait));
        break;
      }
      case cluster::EventType::kPreempted:
        line.message = fmt::format("Preempted by {} ({})",
                                   event.preemptor != cluster::kNone ? state.workload(event.preemptor).key : "?",
                                   event.reason);
        break;
      case cluster::EventType::kEvicted:
        line.message = wl.rare->eviction_message;
        break;
      case cluster::EventType::kRequeued:
        line.message = wl.requeue_at.has_value()
                           ? fmt::format("Back in its queue after backoff until {}",
                                         FormatDuration(*wl.requeue_at - state.start_time()))
                           : "Back in its queue";
        break;
      case cluster::EventType::kInadmissible:
        line.reason = "Misconfigured";
        line.message = std::string(event.reason);
        break;
      default:
        break;
    }
    lines_.push_back(std::move(line));
  }

  const std::vector<HistoryLine>& lines() const { return lines_; }

 private:
  static std::string FlavorsOf(const cluster::ClusterState& state, const cluster::WorkloadRecord& wl) {
    if (!wl.admission.has_value()) return "";
    std::string out;
    for (size_t i = 0; i < wl.admission->pod_sets.size() && i < wl.pod_sets.size(); ++i) {
      const cluster::PodSetAdmission& ps = wl.admission->pod_sets[i];
      std::vector<std::string> pairs;
      for (const auto& entry : ps.entries) {
        pairs.push_back(state.resource_name(entry.resource) + "=" + state.flavor(entry.flavor).name);
      }
      std::sort(pairs.begin(), pairs.end());
      std::string joined;
      for (const auto& p : pairs) joined += (joined.empty() ? "" : ", ") + p;
      out += fmt::format("{}{} x{}: {}", out.empty() ? "; " : "; ", wl.pod_sets[i].spec->name, ps.count, joined);
    }
    return out;
  }

  std::string key_;
  std::vector<HistoryLine> lines_;
  std::map<std::string, SimTime> reserved_at_;
};

// A condition line of `kubectl describe`.
struct Condition {
  std::string type;
  std::string status;
  std::string reason;
  SimTime since = -1;
  std::string message;
};

std::vector<Condition> ConditionsOf(const cluster::ClusterState& state, const cluster::WorkloadRecord& wl,
                                    SimTime now) {
  std::vector<Condition> out;
  const bool granular = state.gates().unadmitted_workloads_observability;
  // A finished workload keeps its last admission and QuotaReserved=True.
  const bool finished = wl.phase == cluster::WorkloadPhase::kFinished && wl.first_reserved_at >= 0;
  const bool reserved = wl.admission.has_value() || finished;
  const SimTime reserved_since = wl.quota_reserved_at - state.start_time();
  const cluster::CqId reserved_cq = wl.admission.has_value() ? wl.admission->cq : state.ClusterQueueOf(wl);
  // QuotaReserved
  if (reserved) {
    out.push_back({"QuotaReserved", "True", "QuotaReserved", reserved_since,
                   fmt::format("Quota reserved in ClusterQueue {}",
                               reserved_cq == cluster::kNone ? std::string("?") : state.cq(reserved_cq).name)});
  } else if (wl.pending->has_condition()) {
    out.push_back({"QuotaReserved", "False", std::string(cluster::QuotaReservedReasonName(wl.pending->reason)),
                   wl.pending->since, cluster::PendingMessageText(state, wl, *wl.pending)});
  }
  // Admitted
  if (wl.phase == cluster::WorkloadPhase::kAdmitted || finished) {
    out.push_back({"Admitted", "True", "Admitted", wl.admitted_at, "The workload is admitted"});
  } else if (reserved) {
    out.push_back({"Admitted", "False", granular ? "UnsatisfiedAdmissionChecks" : "UnsatisfiedChecks", reserved_since,
                   "The workload has not all checks ready"});
  } else if (wl.pending->has_condition() || wl.rare->times_evicted > 0) {
    out.push_back({"Admitted", "False", "NoReservation", -1, "The workload has no reservation"});
  }
  // Evicted: true from the eviction until the next reservation.
  if (wl.rare->times_evicted > 0) {
    const SimTime evicted_since = wl.rare->evicted_at - state.start_time();
    const std::string reason(cluster::EvictionReasonName(wl.eviction_reason));
    if (wl.evicted || !reserved) {
      out.push_back({"Evicted", "True", reason.empty() ? "Evicted" : reason, evicted_since, wl.rare->eviction_message});
    } else {
      out.push_back({"Evicted", "False", "QuotaReserved", reserved_since, "Previously: " + wl.rare->eviction_message});
    }
  }
  // Requeued=False while the requeuing backoff runs.
  if (wl.requeued_condition_false && wl.requeue_at.has_value()) {
    out.push_back({"Requeued", "False", std::string(cluster::EvictionReasonName(wl.eviction_reason)), -1,
                   fmt::format("Waiting for the requeuing backoff until {} (requeueState.count {})",
                               FormatDuration(*wl.requeue_at - state.start_time()), wl.requeue_count)});
  }
  if (wl.phase == cluster::WorkloadPhase::kFinished && wl.finished_at >= 0 && wl.finished_at <= now) {
    out.push_back({"Finished", "True", "Succeeded", wl.finished_at, "The workload finished (simulated run time elapsed)"});
  }
  if (wl.phase == cluster::WorkloadPhase::kDeactivated) {
    out.push_back({"Active", "False", "Deactivated", -1,
                   wl.rare->deactivation_reason.empty() ? std::string("spec.active is false")
                                                  : std::string(wl.rare->deactivation_reason)});
  }
  return out;
}

std::string_view PhaseName(cluster::WorkloadPhase phase) {
  switch (phase) {
    case cluster::WorkloadPhase::kNotArrived:
      return "NotArrived";
    case cluster::WorkloadPhase::kPending:
      return "Pending";
    case cluster::WorkloadPhase::kQuotaReserved:
      return "QuotaReserved";
    case cluster::WorkloadPhase::kAdmitted:
      return "Admitted";
    case cluster::WorkloadPhase::kFinished:
      return "Finished";
    case cluster::WorkloadPhase::kDeactivated:
      return "Deactivated";
  }
  return "";
}

std::string CheckStateName(cluster::CheckState state) {
  switch (state) {
    case cluster::CheckState::kPending:
      return "Pending";
    case cluster::CheckState::kReady:
      return "Ready";
    case cluster::CheckState::kRetry:
      return "Retry";
    case cluster::CheckState::kRejected:
      return "Rejected";
  }
  return "";
}

std::string Describe(const runtime::ClusterRuntime& runtime, const cluster::WorkloadRecord& wl, SimTime now) {
  const cluster::ClusterState& state = runtime.state();
  std::string out;
  out += fmt::format("Name:           {}\n", wl.spec->meta.name);
  out += fmt::format("Namespace:      {}\n", wl.spec->meta.namespace_);
  if (!state.name().empty()) out += fmt::format("Cluster:        {}\n", state.name());
  out += fmt::format("Queue Name:     {}\n", wl.spec->queue_name);
  const cluster::CqId cq = state.ClusterQueueOf(wl);
  out += fmt::format("Cluster Queue:  {}\n", cq != cluster::kNone ? state.cq(cq).name : std::string("<none>"));
  out += fmt::format("Priority:       {}\n", wl.priority);
  out += fmt::format("Arrival:        {}\n", FormatDuration(wl.arrival));
  out += "Pod Sets:\n";
  for (const auto& ps : wl.pod_sets) {
    std::string requests;
    for (const auto& r : ps.spec->requests) {
      requests += fmt::format("{}{}={}", requests.empty() ? "" : ", ", r.name, KueueQuantityString(r.amount, r.name));
    }
    out += fmt::format("  {}: {} pod(s){}{}\n", ps.spec->name, ps.count,
                       ps.min_count != ps.count ? fmt::format(" (minCount {})", ps.min_count) : std::string(),
                       requests.empty() ? std::string() : ", requests per pod " + requests);
  }
  out += fmt::format("Status:         {} at {}\n", PhaseName(wl.phase), FormatDuration(now));
  out += "  Conditions:\n";
  const std::vector<Condition> conditions = ConditionsOf(state, wl, now);
  if (conditions.empty()) {
    out += "    (none: not considered by a scheduling cycle yet)\n";
  }
  for (const auto& c : conditions) {
    out += fmt::format("    {:<14} {:<6} {:<29} {:<10} {}\n", c.type, c.status, c.reason,
                       c.since < 0 ? std::string("-") : FormatDuration(c.since), c.message);
  }
  if (wl.admission.has_value()) {
    out += fmt::format("  Admission:      ClusterQueue {}\n", state.cq(wl.admission->cq).name);
    for (size_t i = 0; i < wl.admission->pod_sets.size() && i < wl.pod_sets.size(); ++i) {
      const cluster::PodSetAdmission& ps = wl.admission->pod_sets[i];
      std::vector<std::string> pairs;
      for (const auto& entry : ps.entries) {
        pairs.push_back(fmt::format("{}={} ({})", state.resource_name(entry.resource), state.flavor(entry.flavor).name,
                                    KueueQuantityString(entry.usage, state.resource_name(entry.resource))));
      }
      std::sort(pairs.begin(), pairs.end());
      std::string joined;
      for (const auto& p : pairs) joined += (joined.empty() ? "" : ", ") + p;
      out += fmt::format("    {}: {} pod(s), {}\n", wl.pod_sets[i].spec->name, ps.count, joined);
    }
  }
  if (!wl.rare->checks.empty()) {
    out += "  Admission Checks:\n";
    for (const auto& check : wl.rare->checks) {
      const std::string name =
          check.check == cluster::kNone ? std::string("?") : runtime.admission_check(check.check).meta.name;
      out += fmt::format("    {:<24} {:<8} {}\n", name, CheckStateName(check.state), check.message);
    }
  }
  if (wl.requeue_count > 0) {
    out += fmt::format("  Requeue State:  count {}{}\n", wl.requeue_count,
                       wl.requeue_at.has_value()
                           ? ", requeueAt " + FormatDuration(*wl.requeue_at - state.start_time())
                           : std::string());
  }
  return out;
}

}  // namespace

ExplainCommand::ExplainCommand(CLI::App* app) {
  explain_ = app->add_subcommand(
      "explain", "Run a scenario and describe one workload: why it waits (Kueue's condition) and its history");
  explain_->add_option("files", files_, "Scenario files (YAML or JSON manifests)")->required();
  explain_->add_option("--workload", workload_, "The workload, NAMESPACE/NAME (NAME alone: namespace default)")
      ->required();
  explain_->add_option("--at", at_, "Stop the simulation at this simulated time (e.g. 90s, 2h30m)");
  explain_->footer("Example:\n  kueuesim explain scenarios/docs/pending-reasons.yaml --workload research/small --at 10m");
}

std::optional<int> ExplainCommand::Run() const {
  if (explain_ != nullptr && explain_->parsed()) return Explain();
  return std::nullopt;
}

int ExplainCommand::Explain() const {
  const std::string key = workload_.find('/') == std::string::npos ? "default/" + workload_ : workload_;
  sim::RunOptions options;
  if (!at_.empty()) {
    auto at = ParseDuration(at_);
    if (!at.ok()) {
      std::fprintf(stderr, "kueuesim: error: --at: %s\n", StatusMessage(at.status()).c_str());
      return kExitUsage;
    }
    options.until = *at;
  }
  auto scenario = scenario::LoadScenarioFiles(files_);
  if (!scenario.ok()) return Fail(scenario.status());
  if (absl::Status empty = CheckInputNotEmpty(files_, *scenario); !empty.ok()) return Fail(empty);
  for (const auto& warning : scenario->report.warnings) {
    std::fprintf(stderr, "kueuesim: warning: %s\n", warning.c_str());
  }
  policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  auto simulation = sim::Simulation::Create(*std::move(scenario), registry);
  if (!simulation.ok()) return Fail(simulation.status());
  WorkloadHistory history(key);
  (*simulation)->AddEventSink(&history);
  absl::Status status = (*simulation)->Run(options);
  if (!status.ok()) return Fail(status);
  // The end of the run: --at when it stopped there, else the last event.
  const SimTime now = (*simulation)->end_time();

  std::string out;
  int found = 0;
  for (const auto& runtime : (*simulation)->clusters()) {
    const cluster::ClusterState& state = runtime->state();
    for (cluster::WorkloadId id = 0; id < state.num_workloads(); ++id) {
      const cluster::WorkloadRecord& wl = state.workload(id);
      if (wl.spec == nullptr || wl.key != key) continue;
      if (found++ > 0) out += "\n";
      out += Describe(*runtime, wl, now);
    }
  }
  if (found == 0 && history.lines().empty()) {
    std::fprintf(stderr, "kueuesim: error: no workload %s in the scenario\n", key.c_str());
    return kExitInvalidInput;
  }
  out += "History:\n";
  out += fmt::format("  {:<10} {:<14} {:<29} {}\n", "Time", "Event", "Reason", "Message");
  for (const HistoryLine& line : history.lines()) {
    const std::string type = line.cluster.empty() ? line.type : line.cluster + ": " + line.type;
    out += fmt::format("  {:<10} {:<14} {:<29} {}\n", FormatDuration(line.time), type,
                       line.reason.empty() ? "-" : line.reason, line.message);
  }
  if (history.lines().empty()) out += "  (nothing happened to it yet)\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace kueuesim::cli
