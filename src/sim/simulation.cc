// The simulation loop; see simulation.h.
#include "kueuesim/sim/simulation.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/runtime/lws_controller.h"
#include "kueuesim/scenario/default_durations.h"
#include "kueuesim/trace/change_source.h"
#include "kueuesim/trace/importers.h"
#include "sim/cronjob_controller.h"

namespace kueuesim::sim {
namespace {
std::string mk_source(const scenario::ClusterSpec& spec) {
  return spec.configuration.source.file.empty() ? std::string("<defaults>") : spec.configuration.source.ToString();
}

// A safety net against a scheduling loop that never settles at one
// instant; no real scenario comes near it.
constexpr int64_t kMaxCyclesPerInstant = 10'000'000;
constexpr SimDuration kInitialIdleBackoff = kMillisecond;
constexpr SimDuration kMaxIdleBackoff = 10 * kMillisecond;

// The report of a change trace among the workload sources (the summary
// lists every trace's import); it delivers no workloads.
class ChangeTraceReport : public trace::WorkloadSource {
 public:
  ChangeTraceReport(trace::ImportReport report, std::string cluster)
      : report_(std::move(report)), cluster_(std::move(cluster)) {}
  absl::StatusOr<std::optional<model::Workload>> Next() override { return std::optional<model::Workload>(); }
  std::string cluster() const override { return cluster_; }
  const trace::ImportReport& report() const override { return report_; }

 private:
  trace::ImportReport report_;
  std::string cluster_;
};

// Reads a change trace (replica timelines) into its cluster's changes, as
// if each row were a Change document: the controllers receive them when
// the runtime is built. Rows naming an object the cluster does not
// simulate are counted as skipped.
absl::StatusOr<std::unique_ptr<trace::WorkloadSource>> ReadChangeTrace(const trace::TraceSpec& spec,
                                                                        scenario::Scenario* scenario) {
  scenario::ClusterSpec* cluster = nullptr;
  for (scenario::ClusterSpec& c : scenario->clusters) {
    if (c.name == spec.cluster) cluster = &c;
  }
  if (cluster == nullptr) {
    return InvalidArgument(fmt::format("{}: Trace \"{}\": no cluster named \"{}\" in the scenario",
                                       spec.source.ToString(), spec.name, spec.cluster));
  }
  KUEUESIM_ASSIGN_OR_RETURN(std::unique_ptr<trace::ChangeSource> source, trace::OpenChangeTrace(spec));
  std::set<std::pair<std::string, std::string>> lws;
  for (const model::LeaderWorkerSet& l : cluster->leader_worker_sets) lws.emplace(l.meta.namespace_, l.meta.name);
  while (true) {
    KUEUESIM_ASSIGN_OR_RETURN(std::optional<model::Change> change, source->Next());
    if (!change.has_value()) break;
    trace::ImportReport* report = source->mutable_report();
    if (change->target_kind != "LeaderWorkerSet") {
      // Kueue's Deployment and StatefulSet integrations are read as fixed
      // sets of Workloads; their scaling is not simulated yet.
      --report->changes;
      report->Skip(change->source.line, fmt::format("{} scaling is not simulated", change->target_kind));
      continue;
    }
    if (!lws.contains({change->target_namespace, change->target_name})) {
      --report->changes;
      report->Skip(change->source.line, "unknown object (no such LeaderWorkerSet managed by Kueue)");
      continue;
    }
    cluster->changes.push_back(*std::move(change));
  }
  return std::unique_ptr<trace::WorkloadSource>(new ChangeTraceReport(source->report(), spec.cluster));
}
}  // namespace

absl::StatusOr<std::unique_ptr<Simulation>> Simulation::Create(const scenario::Scenario& scenario,
                                                               const policy::PolicyRegistry& registry) {
  return Create(scenario::Scenario(scenario), registry);
}

absl::StatusOr<std::unique_ptr<Simulation>> Simulation::Create(scenario::Scenario&& scenario,
                                                               const policy::PolicyRegistry& registry) {
  std::unique_ptr<Simulation> sim(new Simulation());
  sim->scenario_ = std::move(scenario);
  const scenario::SimulationSettings& settings = sim->scenario_.settings;
  // Run times for the workloads without one, drawn with the run's seed
  // (the loader counted which rule each takes).
  for (scenario::ClusterSpec& spec : sim->scenario_.clusters) {
    for (model::Workload& wl : spec.workloads) {
      if (!wl.duration.has_value() && !wl.finished) scenario::ApplyDefaultDuration(settings, &wl);
    }
  }
  // Change traces join their clusters' changes before the runtimes exist.
  std::vector<std::unique_ptr<trace::WorkloadSource>> change_reports(sim->scenario_.traces.size());
  for (size_t i = 0; i < sim->scenario_.traces.size(); ++i) {
    if (!trace::IsChangeTrace(sim->scenario_.traces[i])) continue;
    KUEUESIM_ASSIGN_OR_RETURN(change_reports[i], ReadChangeTrace(sim->scenario_.traces[i], &sim->scenario_));
  }
  // Streamed workloads come after every object of the scenario files in the
  // input order (decisions.md: equal priority and timestamp go by input order).
  for (const scenario::ClusterSpec& spec : sim->scenario_.clusters) {
    for (const model::Workload& wl : spec.workloads) {
      sim->next_input_sequence_ = std::max(sim->next_input_sequence_, wl.input_sequence + 1);
    }
    for (const model::LeaderWorkerSet& lws : spec.leader_worker_sets) {
      sim->next_input_sequence_ = std::max(sim->next_input_sequence_, lws.input_sequence + 1);
    }
  }
  for (scenario::ClusterSpec& spec : sim->scenario_.clusters) {
    auto ordering = registry.MakeQueueOrdering(settings.queue_ordering.name, settings.queue_ordering.parameters);
    if (!ordering.ok()) {
      return Annotate(ordering.status(), settings.queue_ordering.source.ToString() +
                                             ": Simulation: spec.policies.queueOrdering");
    }
    auto preemption = registry.MakePreemption(settings.preemption.name, settings.preemption.parameters);
    if (!preemption.ok()) {
      return Annotate(preemption.status(),
                      settings.preemption.source.ToString() + ": Simulation: spec.policies.preemption");
    }
    sim->orderings_.push_back(*std::move(ordering));
    sim->preemptions_.push_back(*std::move(preemption));
    KUEUESIM_ASSIGN_OR_RETURN(
        auto runtime,
        runtime::ClusterRuntime::Create(spec, std::move(spec.workloads), settings, &sim->engine_,
                                        &sim->fan_out_, sim->orderings_.back().get(),
                                        sim->preemptions_.back().get()));
    spec.workloads = {};  // moved into the runtime
    sim->runtimes_.push_back(std::move(runtime));
  }
  KUEUESIM_RETURN_IF_ERROR(sim->CreateMultiKueue(registry));
  for (size_t i = 0; i < sim->scenario_.clusters.size(); ++i) {
    for (const model::CronJob& cron_job : sim->scenario_.clusters[i].cron_jobs) {
      KUEUESIM_ASSIGN_OR_RETURN(auto controller,
                                CronJobController::Create(cron_job, sim->runtimes_[i].get(), &sim->scenario_.settings,
                                                          &sim->scenario_.report));
      sim->cron_jobs_.push_back(std::move(controller));
    }
  }
  // The scenario's traces, each a streaming source for its cluster.
  for (size_t i = 0; i < sim->scenario_.traces.size(); ++i) {
    const trace::TraceSpec& spec = sim->scenario_.traces[i];
    if (change_reports[i] != nullptr) {
      sim->sources_.push_back(std::move(change_reports[i]));
      continue;
    }
    KUEUESIM_ASSIGN_OR_RETURN(std::unique_ptr<trace::WorkloadSource> source, trace::OpenTrace(spec));
    KUEUESIM_RETURN_IF_ERROR(sim->AddWorkloadSource(std::move(source)));
  }
  sim->next_cycle_time_.assign(sim->runtimes_.size(), 0);
  sim->idle_backoff_.assign(sim->runtimes_.size(), kInitialIdleBackoff);
  return sim;
}

Simulation::Simulation() : fan_out_(&sinks_) {}

Simulation::~Simulation() = default;

absl::Status Simulation::CreateMultiKueue(const policy::PolicyRegistry& registry) {
  const scenario::SimulationSettings& settings = scenario_.settings;
  std::vector<std::pair<std::string, runtime::ClusterRuntime*>> clusters;
  for (size_t i = 0; i < runtimes_.size(); ++i) clusters.emplace_back(scenario_.clusters[i].name, runtimes_[i].get());
  for (size_t i = 0; i < scenario_.clusters.size(); ++i) {
    const scenario::ClusterSpec& spec = scenario_.clusters[i];
    bool has_check = false;
    for (const auto& check : spec.admission_checks) {
      has_check = has_check || check.controller_name == model::kMultiKueueControllerName;
    }
    if (!has_check || !spec.feature_gates.multikueue) continue;
    const model::MultiKueueSettings& mk = spec.configuration.multi_kueue;
    std::string name = settings.dispatcher.name.empty() ? mk.dispatcher_name : settings.dispatcher.name;
    policy::PolicyParameters parameters = settings.dispatcher.parameters;
    if (name == policy::kIncrementalDispatcher) {
      // The Configuration's stepSize counts only with its feature gate on.
      if (!parameters.count("stepSize") && mk.incremental_step_size.has_value() &&
          spec.feature_gates.multikueue_incremental_dispatcher_config) {
        parameters["stepSize"] = std::to_string(*mk.incremental_step_size);
      }
      if (!parameters.count("configOrder")) {
        parameters["configOrder"] =
            spec.feature_gates.multikueue_incremental_dispatcher_respect_config_order ? "true" : "false";
      }
    }
    auto dispatcher = registry.MakeDispatcher(name, parameters);
    if (!dispatcher.ok()) {
      const std::string where = settings.dispatcher.name.empty()
                                    ? mk_source(spec) + ": Configuration: multiKueue.dispatcherName"
                                    : settings.dispatcher.source.ToString() + ": Simulation: spec.policies.dispatcher";
      return Annotate(dispatcher.status(), where);
    }
    multikueue::MultiKueueOptions options;
    options.dispatch_latency = settings.multikueue_dispatch_latency;
    options.status_sync_latency = settings.multikueue_status_sync_latency;
    KUEUESIM_ASSIGN_OR_RETURN(auto controller,
                              multikueue::MultiKueueController::Create(spec, runtimes_[i].get(), clusters,
                                                                       *std::move(dispatcher), name, options));
    multikueue_.push_back(std::move(controller));
  }
  return absl::OkStatus();
}

std::vector<CronJobReport> Simulation::cron_job_reports() const {
  std::vector<CronJobReport> out;
  for (const auto& controller : cron_jobs_) out.push_back(controller->report());
  return out;
}

std::vector<multikueue::MultiKueueController*> Simulation::multikueue_controllers() const {
  std::vector<multikueue::MultiKueueController*> out;
  for (const auto& controller : multikueue_) out.push_back(controller.get());
  return out;
}

std::vector<const multikueue::MultiKueueReport*> Simulation::multikueue_reports() const {
  std::vector<const multikueue::MultiKueueReport*> out;
  for (const auto& controller : multikueue_) out.push_back(&controller->report());
  return out;
}

absl::Status Simulation::AddWorkloadSource(std::unique_ptr<trace::WorkloadSource> source) {
  KUEUESIM_CHECK(!started_);
  runtime::ClusterRuntime* target = nullptr;
  for (size_t i = 0; i < runtimes_.size(); ++i) {
    if (scenario_.clusters[i].name == source->cluster()) target = runtimes_[i].get();
  }
  if (target == nullptr) {
    return InvalidArgument(fmt::format("{}: no cluster named \"{}\" in the scenario", source->report().source,
                                       source->cluster()));
  }
  target->set_recycle_finished(true);
  sources_.push_back(std::move(source));
  ingesters_.push_back(std::make_unique<Ingester>(this, sources_.size() - 1, target));
  return absl::OkStatus();
}

absl::Status Simulation::Ingester::Fetch() {
  auto next = source_->NextShared();
  if (!next.ok()) return next.status();
  next_ = *std::move(next);
  return absl::OkStatus();
}

void Simulation::Ingester::ReadAhead() {
  std::unique_ptr<trace::WorkloadSource>& owned = sim_->sources_[source_index_];
  if (!owned->CanReadAhead()) return;
  owned = trace::ReadAhead(std::move(owned));
  source_ = owned.get();
}

absl::Status Simulation::Ingester::Prime() {
  KUEUESIM_RETURN_IF_ERROR(Fetch());
  if (next_ != nullptr) sim_->engine_.Schedule(std::max<SimTime>(next_->arrival, 0), this, 0);
  return absl::OkStatus();
}

void Simulation::Ingester::HandleEvent(int32_t /*kind*/, int64_t /*a*/, int64_t /*b*/) {
  // Add every workload due now, then wait for the next one.
  const SimTime now = sim_->engine_.now();
  while (next_ != nullptr && status_.ok()) {
    if (next_->arrival > now) {
      sim_->engine_.Schedule(next_->arrival, this, 0);
      return;
    }
    if (next_->arrival < now) {
      ++sim_->late_arrivals_;
      next_->arrival = now;
    }
    // Its place in the input: after everything streamed before it.
    next_->input_sequence = sim_->next_input_sequence_++;
    next_->input_subsequence = 0;
    status_ = runtime_->AddWorkload(std::move(next_));
    next_.reset();
    if (status_.ok()) status_ = Fetch();
  }
}

std::vector<const runtime::ClusterRuntime*> Simulation::cluster_pointers() const {
  std::vector<const runtime::ClusterRuntime*> out;
  for (const auto& r : runtimes_) out.push_back(r.get());
  return out;
}

void Simulation::EnableInvariantChecks() {
  std::vector<const cluster::ClusterState*> states;
  for (const auto& runtime : runtimes_) states.push_back(&runtime->state());
  checker_ = std::make_unique<InvariantChecker>(std::move(states));
  for (const auto& runtime : runtimes_) {
    const std::string cluster_name = runtime->state().name();
    runtime->set_verify_nomination_reuse(true);
    const runtime::ClusterRuntime* checked = runtime.get();
    checker_->AddCheck([checked, cluster_name](const std::string& where) {
      absl::Status status = checked->NominationReuseCheck();
      if (status.ok()) return status;
      status = absl::InternalError(fmt::format("invariant violated: a reused nomination is what a fresh one "
                                               "finds ({}): {}",
                                               where, StatusMessage(status)));
      return cluster_name.empty() ? status : Annotate(status, fmt::format("cluster \"{}\"", cluster_name));
    });
    for (const auto& lws : runtime->lws_controllers()) {
      const runtime::LwsController* controller = lws.get();
      checker_->AddCheck([controller, cluster_name](const std::string& where) {
        absl::Status status = controller->CheckGroupTable(where);
        if (status.ok() || cluster_name.empty()) return status;
        return Annotate(status, fmt::format("cluster \"{}\"", cluster_name));
      });
    }
  }
  for (const auto& controller : multikueue_) {
    const multikueue::MultiKueueController* mk = controller.get();
    checker_->AddCheck([mk](const std::string& where) { return mk->CheckOneSelectedCopy(where); });
  }
  sinks_.push_back(checker_.get());
  check_hook_ = std::make_unique<CheckHook>(this);
  engine_.set_observer(check_hook_.get());
}

bool Simulation::CheckHook::AfterEvent() {
  const engine::Engine& engine = sim_->engine_;
  return sim_->checker_
      ->Check(engine.now(), fmt::format("after engine event #{} at {} s", engine.events_processed(),
                                        FormatSeconds(engine.now())))
      .ok();
}

absl::Status Simulation::Run(const RunOptions& options) {
  if (options.check_invariants && checker_ == nullptr) EnableInvariantChecks();
  if (!started_) {
    started_ = true;
    for (auto& runtime : runtimes_) KUEUESIM_RETURN_IF_ERROR(runtime->Start());
    for (auto& controller : multikueue_) controller->Start();
    if (options.read_ahead && std::thread::hardware_concurrency() > 1) {
      for (auto& ingester : ingesters_) ingester->ReadAhead();
    }
    for (auto& ingester : ingesters_) KUEUESIM_RETURN_IF_ERROR(ingester->Prime());
    if (checker_ != nullptr) KUEUESIM_RETURN_IF_ERROR(checker_->Check(engine_.now(), "at the start"));
  }
  const std::optional<SimTime> until = options.until.has_value() ? options.until : scenario_.settings.until;
  // CronJobs create Jobs up to the end of the run, or the horizon.
  const SimTime cron_job_horizon = until.value_or(scenario_.settings.cron_job_horizon);
  for (auto& controller : cron_jobs_) {
    if (!controller->started()) {
      controller->Start(cron_job_horizon);
    } else {
      controller->ExtendHorizon(cron_job_horizon);
    }
  }
  const SimDuration cycle_duration = scenario_.settings.cycle_duration;
  stopped_at_until_ = false;
  int64_t cycles_this_instant = 0;
  SimTime instant = engine_.now();
  while (true) {
    engine_.RunDueNow();
    if (checker_ != nullptr) KUEUESIM_RETURN_IF_ERROR(checker_->status());
    for (const auto& ingester : ingesters_) KUEUESIM_RETURN_IF_ERROR(ingester->status());
    if (engine_.now() != instant) {
      instant = engine_.now();
      cycles_this_instant = 0;
    }
    // Clusters run concurrently: every cluster that can progress runs one
    // cycle, then the events those cycles caused (in any cluster) are
    // processed before the next round.
    bool ran_cycle = false;
    for (size_t i = 0; i < runtimes_.size(); ++i) {
      runtime::ClusterRuntime& runtime = *runtimes_[i];
      if (!runtime.NeedsCycle() || next_cycle_time_[i] > engine_.now()) continue;
      if (options.max_cycles.has_value() && cycles_ >= *options.max_cycles) return absl::OkStatus();
      bool progressed = runtime.RunCycle();
      ++cycles_;
      if (runtime.thrashing().has_value()) {
        return FailedPrecondition(scenario_.clusters[i].name.empty()
                                      ? *runtime.thrashing()
                                      : fmt::format("cluster \"{}\": {}", scenario_.clusters[i].name,
                                                    *runtime.thrashing()));
      }
      if (checker_ != nullptr) {
        KUEUESIM_RETURN_IF_ERROR(checker_->Check(
            engine_.now(), fmt::format("after cycle {} (cluster \"{}\") at {} s", cycles_,
                                       scenario_.clusters[i].name, FormatSeconds(engine_.now()))));
      }
      ran_cycle = true;
      if (++cycles_this_instant > kMaxCyclesPerInstant) {
        return Internal(fmt::format("scheduling did not settle at time {} s after {} cycles",
                                    FormatSeconds(engine_.now()), kMaxCyclesPerInstant));
      }
      if (cycle_duration > 0) {
        // A cycle takes time; after an idle cycle Kueue backs off 1 ms,
        // doubling up to 10 ms.
        next_cycle_time_[i] = engine_.now() + cycle_duration;
        if (progressed) {
          idle_backoff_[i] = kInitialIdleBackoff;
        } else {
          next_cycle_time_[i] += idle_backoff_[i];
          idle_backoff_[i] = std::min(idle_backoff_[i] * 2, kMaxIdleBackoff);
        }
      }
    }
    if (ran_cycle) continue;
    // The next instant something can happen: an event, or a cycle that is
    // waiting for its cycle time.
    std::optional<SimTime> next;
    if (engine_.HasEvents()) next = engine_.NextEventTime();
    for (size_t i = 0; i < runtimes_.size(); ++i) {
      if (runtimes_[i]->NeedsCycle() && next_cycle_time_[i] > engine_.now()) {
        next = next.has_value() ? std::min(*next, next_cycle_time_[i]) : next_cycle_time_[i];
      }
    }
    if (!next.has_value()) {
      // Nothing left to happen: with an end time, the run still covers it.
      if (until.has_value() && *until > engine_.now()) {
        engine_.AdvanceTo(*until);
        stopped_at_until_ = true;
      }
      break;
    }
    if (until.has_value() && *next > *until) {
      engine_.AdvanceTo(*until);
      stopped_at_until_ = true;
      break;
    }
    engine_.AdvanceTo(*next);
  }
  if (checker_ != nullptr) {
    KUEUESIM_RETURN_IF_ERROR(
        checker_->Check(engine_.now(), fmt::format("at the end of the run ({} s)", FormatSeconds(engine_.now()))));
  }
  return absl::OkStatus();
}

}  // namespace kueuesim::sim
