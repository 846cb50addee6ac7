// jobset.x-k8s.io/v1alpha2 JobSet, as kueue pkg/controller/jobs/jobset
// (jobset_controller.go, jobset_webhook.go) turns it into a Workload: one pod
// set per replicated job, in list order, named after it (lowercased), of
// replicas x min(parallelism, completions) pods; no partial admission.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "scenario/kinds/common.h"
#include "scenario/kinds/kinds.h"

namespace kueuesim::scenario::kinds {
namespace {

constexpr char kJobCompletionIndex[] = "batch.kubernetes.io/job-completion-index";
constexpr char kJobSetJobIndex[] = "jobset.sigs.k8s.io/job-index";

}  // namespace

absl::StatusOr<std::vector<model::PodSet>> JobSetPodSets(const FieldReader& spec) {
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  FieldReader jobs = spec.Field("replicatedJobs");
  KUEUESIM_RETURN_IF_ERROR(jobs.ExpectSequence());
  std::vector<model::PodSet> pod_sets;
  std::vector<FieldReader> annotations;
  for (size_t i = 0; i < jobs.size(); ++i) {
    FieldReader job = jobs.Index(i);
    KUEUESIM_RETURN_IF_ERROR(job.ExpectMapping());
    KUEUESIM_ASSIGN_OR_RETURN(std::string name, job.Field("name").String());
    // The JobSet API defaults replicas to 1; a Job's parallelism defaults to
    // 1 and its completions to the parallelism (PodsCountPerReplica).
    KUEUESIM_ASSIGN_OR_RETURN(int32_t replicas, CountField(job.Field("replicas"), 1));
    FieldReader job_spec = job.Field("template").Field("spec");
    KUEUESIM_RETURN_IF_ERROR(job_spec.ExpectMapping());
    KUEUESIM_ASSIGN_OR_RETURN(int32_t parallelism, CountField(job_spec.Field("parallelism"), 1));
    KUEUESIM_ASSIGN_OR_RETURN(int32_t completions, CountField(job_spec.Field("completions"), parallelism));
    const int64_t count = static_cast<int64_t>(replicas) * std::min(parallelism, completions);
    if (count > std::numeric_limits<int32_t>::max()) {
      return job.Field("replicas").Error(fmt::format("{} replicas of {} pods overflow a pod count", replicas,
                                                     std::min(parallelism, completions)));
    }
    TopologyIndex index{kJobCompletionIndex, kJobSetJobIndex, replicas};
    FieldReader pod_template = job_spec.Field("template");
    KUEUESIM_ASSIGN_OR_RETURN(model::PodSet pod_set,
                              PodSetFromTemplate(pod_template, Lower(name), static_cast<int32_t>(count), index));
    pod_sets.push_back(std::move(pod_set));
    annotations.push_back(pod_template.Field("metadata").Field("annotations"));
  }
  KUEUESIM_RETURN_IF_ERROR(ValidatePodSetList(pod_sets, jobs));
  KUEUESIM_RETURN_IF_ERROR(ValidatePodSetGroups(pod_sets, annotations));
  return pod_sets;
}

absl::StatusOr<Decoded> DecodeJobSet(const FieldReader& object) {
  KUEUESIM_ASSIGN_OR_RETURN(JobObject job, ReadJobObject(object, "JobSet"));
  Decoded out;
  if (job.queue_name.empty()) {
    out.ignored = NoQueueNameReason();
    return out;
  }
  KUEUESIM_RETURN_IF_ERROR(ValidateJobOnCreate(object, job, /*elastic_supported=*/false));
  KUEUESIM_ASSIGN_OR_RETURN(model::Workload wl, NewWorkload(object, job, model::WorkloadSourceKind::kJobSet));
  KUEUESIM_ASSIGN_OR_RETURN(wl.pod_sets, JobSetPodSets(object.Field("spec")));
  out.workload = std::move(wl);
  return out;
}

}  // namespace kueuesim::scenario::kinds
