// The CronJob controller of one simulated cluster: creates each CronJob's
// Jobs on its schedule during simulated time, as Kubernetes'
// pkg/controller/cronjob does (workloads/cron_schedule.h), and runs their
// pods. Kueue has no CronJob integration: every Job is a plain Job with its
// own Workload, made from spec.jobTemplate (scenario DecodeCronJob).
//
// The controller owns the Workloads of its Jobs (runtime::WorkloadOwner):
// after admission their pods are ready after the startup delay and finish
// after the run time, or fail at the Job's activeDeadlineSeconds (which the
// runtime applies). A Job is
// active from its creation until it finishes or is deleted, whether its
// Workload is pending, admitted, evicted or deactivated (a Job Kueue keeps
// suspended is active for the CronJob controller). The controller syncs a
// CronJob at its schedule times (plus 100 ms, as Kubernetes) and whenever
// one of its Jobs finishes. Replace deletes the active Jobs, and their
// Workloads with them; history limits only delete finished Jobs, so they
// do not change admission and are not modelled.
//
// Jobs are created up to a horizon (the run's `until`, else the
// Simulation's cronJobHorizon) so that a run ends.
#ifndef KUEUESIM_SIM_CRONJOB_CONTROLLER_H_
#define KUEUESIM_SIM_CRONJOB_CONTROLLER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kueuesim/engine/event_queue.h"
#include "kueuesim/runtime/cluster_runtime.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/sim/simulation.h"
#include "kueuesim/workloads/cron_schedule.h"

namespace kueuesim::sim {

class CronJobController : public runtime::WorkloadOwner, public engine::EventHandler {
 public:
  // `report` (the simulation's load report) counts the default durations
  // its Jobs use. REQUIRES: `runtime`, `settings` and `report` outlive it.
  static absl::StatusOr<std::unique_ptr<CronJobController>> Create(const model::CronJob& spec,
                                                                   runtime::ClusterRuntime* runtime,
                                                                   const scenario::SimulationSettings* settings,
                                                                   scenario::LoadReport* report);

  // Schedules the first sync at the CronJob's arrival; Jobs are created up
  // to `horizon`. Call once, before the run.
  void Start(SimTime horizon);
  // A later horizon (a run continued with a later `until`).
  void ExtendHorizon(SimTime horizon);
  bool started() const { return started_; }

  const CronJobReport& report() const { return report_; }

  // runtime::WorkloadOwner
  void OnAdmitted(cluster::WorkloadId id, int32_t index) override;
  void OnEvicted(cluster::WorkloadId id, int32_t index) override;
  void OnRequeued(cluster::WorkloadId /*id*/, int32_t /*index*/) override {}

  // engine::EventHandler
  void HandleEvent(int32_t kind, int64_t a, int64_t b) override;

 private:
  enum EventKind : int32_t { kSync = 1, kPodsReady, kFinish, kDeadlinePassed };

  struct Job {
    cluster::WorkloadId id = cluster::kNone;
    std::string key;  // "namespace/name" (the record may be recycled once finished)
    bool active = true;
    uint32_t generation = 0;  // timers of an earlier admission are stale
  };

  CronJobController(const model::CronJob& spec, workloads::CronSchedule schedule, runtime::ClusterRuntime* runtime,
                    const scenario::SimulationSettings* settings, scenario::LoadReport* report);
  absl::Time WallTime(SimTime t) const;
  SimTime SimTimeOf(absl::Time t) const;
  void Sync();
  void ScheduleSync(absl::Time at);
  void CreateJob(absl::Time scheduled);
  void FinishJob(int32_t index);

  const model::CronJob& spec_;
  workloads::CronSchedule schedule_;
  runtime::ClusterRuntime* runtime_;
  const scenario::SimulationSettings* settings_;
  scenario::LoadReport* load_report_;
  int32_t owner_ = -1;
  SimTime horizon_ = 0;
  bool started_ = false;
  std::optional<absl::Time> last_schedule_time_;
  // The next sync asked for; one stays beyond the horizon when the horizon
  // stopped it (ExtendHorizon resumes it).
  absl::Time pending_sync_ = absl::InfiniteFuture();
  uint64_t sync_generation_ = 0;
  std::vector<Job> jobs_;
  CronJobReport report_;
};

}  // namespace kueuesim::sim

#endif  // KUEUESIM_SIM_CRONJOB_CONTROLLER_H_
