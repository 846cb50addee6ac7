// Simulation: the facade that turns a scenario into a run. It owns the event
// engine, one ClusterRuntime per cluster and the chosen policies, and
// advances time: at each instant it processes the due events, then runs the
// scheduling cycles of every cluster until none can progress, then moves to
// the next event. Two Simulation objects never share anything.
#ifndef KUEUESIM_SIM_SIMULATION_H_
#define KUEUESIM_SIM_SIMULATION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/runtime/cluster_runtime.h"
#include "kueuesim/cluster/events.h"
#include "kueuesim/engine/event_queue.h"
#include "kueuesim/multikueue/multikueue_controller.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/sim/invariants.h"
#include "kueuesim/trace/workload_source.h"

namespace kueuesim::sim {

// What one CronJob's controller did during the run.
struct CronJobReport {
  std::string cluster;
  std::string name;            // "namespace/name"
  int64_t created = 0;         // Jobs created
  int64_t already_active = 0;  // due times held back by Forbid (event JobAlreadyActive)
  int64_t missed = 0;          // due times past startingDeadlineSeconds (event MissSchedule)
  int64_t replaced = 0;        // active Jobs deleted by Replace
};

class CronJobController;

struct RunOptions {
  // Stop at this simulated time (default: the scenario's `until`, else when
  // nothing is left to do).
  std::optional<SimTime> until;
  // Stop after this many scheduling cycles in total.
  std::optional<int64_t> max_cycles;
  // Verify Kueue's invariants after every event and every scheduling cycle
  // (sim/invariants.h); the first violation ends the run with an error.
  // Once on, it stays on for later Run calls.
  bool check_invariants = false;
  // Read the trace sources ahead on a thread each (trace::ReadAhead), so
  // that parsing overlaps the simulation, when the machine has more than
  // one core. Read at the first Run; the output is the same either way.
  // Off where simulations already run side by side (sweep --jobs N).
  bool read_ahead = true;
};

class Simulation {
 public:
  // Builds the clusters and policies of `scenario`. Errors: unknown policy
  // names (listing the valid ones), invalid workloads.
  static absl::StatusOr<std::unique_ptr<Simulation>> Create(const scenario::Scenario& scenario,
                                                            const policy::PolicyRegistry& registry);
  // As above, taking the scenario: its workloads move into the clusters'
  // runtimes rather than being copied (scenario().clusters[i].workloads is
  // then empty), so a large input is held once.
  static absl::StatusOr<std::unique_ptr<Simulation>> Create(scenario::Scenario&& scenario,
                                                            const policy::PolicyRegistry& registry);
  ~Simulation();

  // Adds an observer of every event. REQUIRES: before Run; `sink` outlives
  // the simulation.
  void AddEventSink(cluster::EventSink* sink) { sinks_.push_back(sink); }

  // Adds a streaming source of workloads for the cluster it names. Its
  // workloads are read one at a time as simulated time reaches them, and the
  // records of finished workloads are recycled. REQUIRES: before Run.
  absl::Status AddWorkloadSource(std::unique_ptr<trace::WorkloadSource> source);
  const std::vector<std::unique_ptr<trace::WorkloadSource>>& sources() const { return sources_; }
  // Streamed workloads that arrived before the previous one and were moved
  // to the current time.
  int64_t late_arrivals() const { return late_arrivals_; }

  // Runs until the end condition. May be called again with a later `until`
  // to continue.
  absl::Status Run(const RunOptions& options);

  SimTime now() const { return engine_.now(); }
  // The end of the run for reports: the `until` time when the run stopped
  // there, else the time of the last workload event.
  SimTime end_time() const { return stopped_at_until_ ? engine_.now() : fan_out_.last_event_time(); }
  int64_t cycles() const { return cycles_; }
  const std::vector<std::unique_ptr<runtime::ClusterRuntime>>& clusters() const { return runtimes_; }
  std::vector<const runtime::ClusterRuntime*> cluster_pointers() const;
  const scenario::Scenario& scenario() const { return scenario_; }
  // The MultiKueue managers of the scenario and what they dispatched.
  std::vector<const multikueue::MultiKueueReport*> multikueue_reports() const;
  // The MultiKueue controllers of the manager clusters (tests).
  std::vector<multikueue::MultiKueueController*> multikueue_controllers() const;
  // The scenario's CronJobs and the Jobs they created (CronJob Jobs that
  // took a default duration are counted in scenario().report).
  std::vector<CronJobReport> cron_job_reports() const;
  // The invariant checker, when a Run turned it on (else null).
  const InvariantChecker* invariant_checker() const { return checker_.get(); }

 private:
  class FanOut : public cluster::EventSink {
   public:
    explicit FanOut(std::vector<cluster::EventSink*>* sinks) : sinks_(sinks) {}
    void OnEvent(const cluster::SimEvent& event) override {
      // A Pending event records why a workload still waits, not a change of
      // the cluster: the run ends at its last change (a cycle that only
      // re-evaluates a workload that cannot fit does not extend it).
      if (event.type != cluster::EventType::kPending) last_event_time_ = event.time;
      for (cluster::EventSink* sink : *sinks_) sink->OnEvent(event);
    }
    SimTime last_event_time() const { return last_event_time_; }

   private:
    std::vector<cluster::EventSink*>* sinks_;
    SimTime last_event_time_ = 0;
  };

  // Feeds one source into its cluster: holds the next workload and an event
  // at its arrival time.
  class Ingester : public engine::EventHandler {
   public:
    Ingester(Simulation* sim, size_t source_index, runtime::ClusterRuntime* runtime)
        : sim_(sim), source_index_(source_index), source_(sim->sources_[source_index].get()), runtime_(runtime) {}
    // Replaces the source by one that reads it ahead on a thread of its
    // own, when it allows that (before Prime).
    void ReadAhead();
    // Reads the first workload and schedules its ingestion.
    absl::Status Prime();
    void HandleEvent(int32_t kind, int64_t a, int64_t b) override;
    const absl::Status& status() const { return status_; }

   private:
    absl::Status Fetch();
    Simulation* sim_;
    size_t source_index_;  // in sim_->sources_
    trace::WorkloadSource* source_;
    runtime::ClusterRuntime* runtime_;
    // The next workload, already on the heap where the cluster keeps it
    // (a Workload is large: moving it costs more than the pointer).
    std::shared_ptr<model::Workload> next_;
    absl::Status status_;
  };

  // Runs the invariant checks after each engine event.
  class CheckHook : public engine::EventObserver {
   public:
    explicit CheckHook(Simulation* sim) : sim_(sim) {}
    bool AfterEvent() override;

   private:
    Simulation* sim_;
  };

  // Turns the checker on (first Run with check_invariants).
  void EnableInvariantChecks();

  Simulation();  // out of line: CronJobController is incomplete here
  absl::Status CreateMultiKueue(const policy::PolicyRegistry& registry);

  scenario::Scenario scenario_;
  engine::Engine engine_;
  std::vector<cluster::EventSink*> sinks_;
  FanOut fan_out_;
  std::vector<std::unique_ptr<policy::QueueOrderingPolicy>> orderings_;
  std::vector<std::unique_ptr<policy::PreemptionPolicy>> preemptions_;
  std::vector<std::unique_ptr<runtime::ClusterRuntime>> runtimes_;
  std::vector<std::unique_ptr<multikueue::MultiKueueController>> multikueue_;
  std::vector<SimTime> next_cycle_time_;
  std::vector<SimDuration> idle_backoff_;
  std::vector<std::unique_ptr<trace::WorkloadSource>> sources_;
  std::vector<std::unique_ptr<Ingester>> ingesters_;
  std::vector<std::unique_ptr<CronJobController>> cron_jobs_;
  int64_t late_arrivals_ = 0;
  // The input sequence of the next streamed workload (ties in queue order).
  int64_t next_input_sequence_ = 0;
  bool started_ = false;
  bool stopped_at_until_ = false;
  int64_t cycles_ = 0;
  std::unique_ptr<InvariantChecker> checker_;
  std::unique_ptr<CheckHook> check_hook_;
};

}  // namespace kueuesim::sim

#endif  // KUEUESIM_SIM_SIMULATION_H_
