// The CronJob controller; see cronjob_controller.h.
#include "sim/cronjob_controller.h"

#include <algorithm>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/scenario/default_durations.h"

namespace kueuesim::sim {

using cluster::WorkloadId;
using cluster::WorkloadPhase;

absl::StatusOr<std::unique_ptr<CronJobController>> CronJobController::Create(
    const model::CronJob& spec, runtime::ClusterRuntime* runtime, const scenario::SimulationSettings* settings,
    scenario::LoadReport* report) {
  auto schedule = workloads::CronSchedule::Parse(spec.schedule, spec.time_zone);
  if (!schedule.ok()) {
    return InvalidArgument(fmt::format("{}: CronJob \"{}\": spec.schedule: {}", spec.meta.source.ToString(),
                                       spec.meta.name, StatusMessage(schedule.status())));
  }
  std::unique_ptr<CronJobController> controller(
      new CronJobController(spec, *std::move(schedule), runtime, settings, report));
  controller->owner_ = runtime->RegisterOwner(controller.get());
  return controller;
}

CronJobController::CronJobController(const model::CronJob& spec, workloads::CronSchedule schedule,
                                     runtime::ClusterRuntime* runtime, const scenario::SimulationSettings* settings,
                                     scenario::LoadReport* report)
    : spec_(spec), schedule_(std::move(schedule)), runtime_(runtime), settings_(settings), load_report_(report) {
  report_.cluster = spec.meta.cluster();
  report_.name = spec.meta.namespace_ + "/" + spec.meta.name;
}

absl::Time CronJobController::WallTime(SimTime t) const {
  return absl::FromUnixMicros(runtime_->state().start_time() + t);
}

SimTime CronJobController::SimTimeOf(absl::Time t) const {
  return absl::ToUnixMicros(t) - runtime_->state().start_time();
}

void CronJobController::Start(SimTime horizon) {
  started_ = true;
  horizon_ = horizon;
  // The CronJob is created at its arrival: its schedule counts from then.
  const SimTime created = std::max<SimTime>(spec_.arrival, 0);
  last_schedule_time_.reset();
  if (spec_.suspend || !spec_.job_workload.has_value()) return;  // no Job is ever created
  ScheduleSync(WallTime(created));
}

void CronJobController::ExtendHorizon(SimTime horizon) {
  if (horizon <= horizon_) return;
  horizon_ = horizon;
  if (pending_sync_ != absl::InfiniteFuture()) ScheduleSync(pending_sync_);
}

void CronJobController::ScheduleSync(absl::Time at) {
  pending_sync_ = at;
  if (at == absl::InfiniteFuture()) return;
  const SimTime when = std::max(SimTimeOf(at), runtime_->engine()->now());
  if (when > horizon_) return;  // kept in pending_sync_ for ExtendHorizon
  ++sync_generation_;
  runtime_->engine()->Schedule(when, this, kSync, static_cast<int64_t>(sync_generation_));
}

void CronJobController::Sync() {
  workloads::CronSyncInput input;
  input.now = WallTime(runtime_->engine()->now());
  input.earliest = last_schedule_time_.value_or(WallTime(std::max<SimTime>(spec_.arrival, 0)));
  input.suspend = spec_.suspend;
  input.starting_deadline_seconds = spec_.starting_deadline_seconds;
  switch (spec_.concurrency_policy) {
    case model::ConcurrencyPolicy::kAllow:
      input.policy = workloads::CronSyncInput::Policy::kAllow;
      break;
    case model::ConcurrencyPolicy::kForbid:
      input.policy = workloads::CronSyncInput::Policy::kForbid;
      break;
    case model::ConcurrencyPolicy::kReplace:
      input.policy = workloads::CronSyncInput::Policy::kReplace;
      break;
  }
  input.active_jobs = static_cast<int>(std::count_if(jobs_.begin(), jobs_.end(), [](const Job& j) { return j.active; }));
  const workloads::CronSyncDecision decision = workloads::SyncCronJob(schedule_, input);
  switch (decision.action) {
    case workloads::CronSyncDecision::Action::kNone:
      break;
    case workloads::CronSyncDecision::Action::kMissed:
      ++report_.missed;
      break;
    case workloads::CronSyncDecision::Action::kAlreadyActive:
      ++report_.already_active;
      break;
    case workloads::CronSyncDecision::Action::kCreate:
      if (decision.replace) {
        for (Job& job : jobs_) {
          if (!job.active) continue;
          job.active = false;
          ++job.generation;
          ++report_.replaced;
          runtime_->DeleteWorkload(job.id);
        }
      }
      CreateJob(decision.scheduled);
      last_schedule_time_ = decision.scheduled;
      break;
  }
  ScheduleSync(decision.next_sync);
}

void CronJobController::CreateJob(absl::Time scheduled) {
  model::Workload workload = *spec_.job_workload;
  workload.meta.name = "job-" + workloads::CronJobName(spec_.meta.name, scheduled);
  workload.meta.creation_timestamp.reset();
  workload.rare.Mutable().object_kind = "Job";
  workload.input_sequence = spec_.input_sequence;
  workload.input_subsequence =
      static_cast<int32_t>(std::min<size_t>(jobs_.size(), static_cast<size_t>(std::numeric_limits<int32_t>::max())));
  if (!workload.duration.has_value()) {
    const int rule = scenario::ApplyDefaultDuration(*settings_, &workload);
    if (rule >= 0) {
      if (load_report_->default_duration_uses.size() <= static_cast<size_t>(rule)) {
        load_report_->default_duration_uses.resize(static_cast<size_t>(rule) + 1, 0);
      }
      ++load_report_->default_duration_uses[static_cast<size_t>(rule)];
    } else {
      ++load_report_->workloads_without_duration;
    }
  }
  const int32_t index = static_cast<int32_t>(jobs_.size());
  jobs_.push_back(Job{});
  auto id = runtime_->AddOwnedWorkload(std::move(workload), owner_, index);
  if (!id.ok()) {
    // A duplicate name (two runs in one minute cannot happen: the schedule
    // has minute resolution, @every at least a second apart): the Job
    // already exists, as the API server would answer.
    jobs_.back().active = false;
    return;
  }
  jobs_.back().id = *id;
  jobs_.back().key = runtime_->state().workload(*id).key;
  ++report_.created;
}

void CronJobController::OnAdmitted(WorkloadId id, int32_t index) {
  Job& job = jobs_[static_cast<size_t>(index)];
  const cluster::WorkloadRecord& wl = runtime_->state().workload(id);
  if (wl.runs_remotely) return;  // a MultiKueue worker runs it
  ++job.generation;
  runtime_->engine()->ScheduleAfter(wl.startup_delay, this, kPodsReady, index, job.generation);
  if (wl.spec->rare->active_deadline.has_value()) {
    // The runtime fails the Job at its activeDeadlineSeconds (an event
    // scheduled before this one, at the same time); then it is no longer
    // active.
    runtime_->engine()->ScheduleAfter(*wl.spec->rare->active_deadline, this, kDeadlinePassed, index, job.generation);
  }
}

void CronJobController::OnEvicted(WorkloadId /*id*/, int32_t index) {
  ++jobs_[static_cast<size_t>(index)].generation;  // its pods stop
}

void CronJobController::FinishJob(int32_t index) {
  Job& job = jobs_[static_cast<size_t>(index)];
  if (!job.active) return;
  job.active = false;
  ++job.generation;
  runtime_->FinishWorkload(job.id);
  // The CronJob controller sees the Job finish and syncs (a run that
  // Forbid held back may start now).
  if (runtime_->engine()->now() <= horizon_) Sync();
}

void CronJobController::HandleEvent(int32_t kind, int64_t a, int64_t b) {
  switch (kind) {
    case kSync:
      if (static_cast<uint64_t>(a) == sync_generation_) Sync();
      break;
    case kPodsReady: {
      Job& job = jobs_[static_cast<size_t>(a)];
      if (!job.active || job.generation != static_cast<uint32_t>(b)) return;
      const cluster::WorkloadRecord& wl = runtime_->state().workload(job.id);
      if (wl.phase != WorkloadPhase::kAdmitted || wl.evicted) return;
      runtime_->SetPodsReady(job.id, true);
      if (wl.duration.has_value()) runtime_->engine()->ScheduleAfter(*wl.duration, this, kFinish, a, b);
      break;
    }
    case kDeadlinePassed: {
      Job& job = jobs_[static_cast<size_t>(a)];
      if (!job.active || job.generation != static_cast<uint32_t>(b)) return;
      const cluster::WorkloadRecord& wl = runtime_->state().workload(job.id);
      if (wl.key == job.key && wl.phase != WorkloadPhase::kFinished) return;  // not failed after all
      job.active = false;
      ++job.generation;
      if (runtime_->engine()->now() <= horizon_) Sync();
      break;
    }
    case kFinish: {
      Job& job = jobs_[static_cast<size_t>(a)];
      if (!job.active || job.generation != static_cast<uint32_t>(b)) return;
      FinishJob(static_cast<int32_t>(a));
      break;
    }
    default:
      KUEUESIM_CHECK_MSG(false, fmt::format("unknown CronJob controller event {}", kind));
  }
}

}  // namespace kueuesim::sim
