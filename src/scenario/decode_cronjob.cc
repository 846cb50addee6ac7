// batch/v1 CronJob; see decode_cronjob.h.
#include "scenario/decode_cronjob.h"

#include <string>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/workloads/cron_schedule.h"
#include "scenario/decode.h"

namespace kueuesim::scenario {
namespace {

constexpr char kArrivalAnnotation[] = "kueuesim.io/arrival";
constexpr char kDurationAnnotation[] = "kueuesim.io/duration";
constexpr char kStartupDelayAnnotation[] = "kueuesim.io/startup-delay";

absl::StatusOr<int32_t> HistoryLimit(const FieldReader& field, int32_t default_value) {
  if (!field.present()) return default_value;
  KUEUESIM_ASSIGN_OR_RETURN(int32_t limit, field.Int32());
  if (limit < 0) return field.Error("must not be negative");
  return limit;
}

}  // namespace

absl::StatusOr<model::CronJob> DecodeCronJob(const FieldReader& object) {
  model::CronJob cron;
  KUEUESIM_ASSIGN_OR_RETURN(cron.meta, DecodeMeta(object, true));
  FieldReader annotations = object.Field("metadata").Field("annotations");
  if (annotations.Field(kArrivalAnnotation).present()) {
    KUEUESIM_ASSIGN_OR_RETURN(cron.arrival, annotations.Field(kArrivalAnnotation).Duration());
  }
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(cron.schedule, spec.Field("schedule").String());
  KUEUESIM_ASSIGN_OR_RETURN(auto time_zone, spec.Field("timeZone").OptString());
  if (time_zone.has_value()) {
    if (time_zone->empty() || *time_zone == "Local") {
      return spec.Field("timeZone").Error(fmt::format("unknown time zone \"{}\"", *time_zone));
    }
    cron.time_zone = *time_zone;
  }
  auto schedule = workloads::CronSchedule::Parse(cron.schedule, cron.time_zone);
  if (!schedule.ok()) {
    const bool zone_error =
        StatusMessage(schedule.status()).find("time zone") != std::string::npos && time_zone.has_value();
    return spec.Field(zone_error ? "timeZone" : "schedule").Error(StatusMessage(schedule.status()));
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto policy, spec.Field("concurrencyPolicy").OptString());
  const std::string policy_name = policy.value_or("Allow");
  if (policy_name == "Allow") {
    cron.concurrency_policy = model::ConcurrencyPolicy::kAllow;
  } else if (policy_name == "Forbid") {
    cron.concurrency_policy = model::ConcurrencyPolicy::kForbid;
  } else if (policy_name == "Replace") {
    cron.concurrency_policy = model::ConcurrencyPolicy::kReplace;
  } else {
    return spec.Field("concurrencyPolicy")
        .Error(fmt::format("unknown value \"{}\" (valid: Allow, Forbid, Replace)", policy_name));
  }
  if (spec.Field("suspend").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(cron.suspend, spec.Field("suspend").Bool());
  }
  if (spec.Field("startingDeadlineSeconds").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(int64_t deadline, spec.Field("startingDeadlineSeconds").Int64());
    if (deadline < 0) return spec.Field("startingDeadlineSeconds").Error("must not be negative");
    cron.starting_deadline_seconds = deadline;
  }
  KUEUESIM_ASSIGN_OR_RETURN(cron.successful_jobs_history_limit,
                            HistoryLimit(spec.Field("successfulJobsHistoryLimit"), 3));
  KUEUESIM_ASSIGN_OR_RETURN(cron.failed_jobs_history_limit, HistoryLimit(spec.Field("failedJobsHistoryLimit"), 1));

  // Each Job: the template's labels and annotations (not the CronJob's),
  // the CronJob's namespace.
  FieldReader job_template = spec.Field("jobTemplate");
  if (!job_template.present()) return job_template.Error("is required");
  KUEUESIM_RETURN_IF_ERROR(job_template.ExpectMapping());
  FieldReader template_metadata = job_template.Field("metadata");
  KUEUESIM_RETURN_IF_ERROR(template_metadata.ExpectMapping());
  model::ObjectMeta job_meta;
  job_meta.name = cron.meta.name;
  job_meta.namespace_ = cron.meta.namespace_;
  job_meta.source = cron.meta.source;
  KUEUESIM_ASSIGN_OR_RETURN(job_meta.labels, template_metadata.Field("labels").StringMap());
  KUEUESIM_ASSIGN_OR_RETURN(job_meta.annotations, template_metadata.Field("annotations").StringMap());
  KUEUESIM_ASSIGN_OR_RETURN(cron.job_workload, DecodeJobWithMeta(job_template, std::move(job_meta)));
  if (cron.job_workload.has_value()) {
    // kueuesim's own timing annotations may also sit on the CronJob.
    model::Workload& job = *cron.job_workload;
    if (!job.duration.has_value() && annotations.Field(kDurationAnnotation).present()) {
      KUEUESIM_ASSIGN_OR_RETURN(job.duration, annotations.Field(kDurationAnnotation).Duration());
    }
    if (!job.rare->startup_delay.has_value() && annotations.Field(kStartupDelayAnnotation).present()) {
      KUEUESIM_ASSIGN_OR_RETURN(job.rare.Mutable().startup_delay,
                                annotations.Field(kStartupDelayAnnotation).Duration());
    }
    job.arrival = 0;
  }
  return cron;
}

}  // namespace kueuesim::scenario
