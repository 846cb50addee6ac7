// batch/v1 CronJob: the schedule, its policies and the Workload of each Job
// made from spec.jobTemplate (the runs themselves are created during the
// simulation, sim/cronjob_controller.h).
#ifndef KUEUESIM_SCENARIO_DECODE_CRONJOB_H_
#define KUEUESIM_SCENARIO_DECODE_CRONJOB_H_

#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"
#include "scenario/field.h"

namespace kueuesim::scenario {

// Errors name the field: a schedule robfig/cron refuses, an unknown time
// zone, an invalid policy, a bad job template. job_workload is nullopt when
// the template has no queue name (Kueue does not manage its Jobs).
absl::StatusOr<model::CronJob> DecodeCronJob(const FieldReader& object);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_DECODE_CRONJOB_H_
