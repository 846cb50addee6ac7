// ray.io/v1 RayCluster, RayJob and RayService, as kueue
// pkg/controller/jobs/raycluster (common.go, raycluster_webhook.go),
// .../rayjob and .../rayservice turn them into Workloads: a pod set "head"
// (1 pod), then one per worker group in list order, named after the group
// (lowercased), of replicas x numOfHosts pods; a RayJob in K8sJobMode adds a
// "submitter" pod set. No partial admission. A RayCluster and a RayService
// never finish by themselves (Finished() is always false in Kueue): without a
// kueuesim.io/duration they hold their quota to the end of the run.
#include <limits>
#include <map>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "scenario/kinds/common.h"
#include "scenario/kinds/kinds.h"

namespace kueuesim::scenario::kinds {
namespace {

constexpr char kHead[] = "head";
constexpr char kSubmitter[] = "submitter";
constexpr char kFtEnabledAnnotation[] = "ray.io/ft-enabled";

std::map<std::string, Amount> Resources(std::initializer_list<std::pair<const char*, const char*>> quantities) {
  std::map<std::string, Amount> out;
  for (const auto& [resource, quantity] : quantities) out[resource] = ConstantAmount(quantity, resource);
  return out;
}

// KubeRay's ray-job-submitter container (rayjob_controller.go
// defaultSubmitterResources).
PodSpecExtras::Container SubmitterContainer() {
  return {Resources({{"cpu", "500m"}, {"memory", "200Mi"}}), Resources({{"cpu", "1"}, {"memory", "1Gi"}})};
}

absl::StatusOr<std::map<std::string, Amount>> ResourceList(const FieldReader& list) {
  KUEUESIM_RETURN_IF_ERROR(list.ExpectMapping());
  std::map<std::string, Amount> out;
  for (size_t i = 0; i < list.node().size(); ++i) {
    std::string name(list.node().key(i));
    KUEUESIM_ASSIGN_OR_RETURN(out[name], list.Field(name).AmountOf(name, false));
  }
  return out;
}

// What Kueue accounts for in a Ray cluster spec.
struct RayClusterRules {
  const char* kind;
  bool elastic = false;
  // The RayCluster webhook's wording for autoscaling without elasticity
  // (RayJob and RayService share raycluster.ValidateCreate's).
  bool own_cluster = false;
};

// raycluster.BuildPodSets plus the checks of raycluster.ValidateCreate /
// the RayCluster webhook and the TAS validation of the Ray webhooks.
// `extra_head`: containers the caller adds to the head (the RayJob
// submitter sidecar).
absl::StatusOr<std::vector<model::PodSet>> RayPodSets(const FieldReader& cluster_spec, const JobObject& job,
                                                      const RayClusterRules& rules,
                                                      const std::vector<PodSpecExtras::Container>& extra_head,
                                                      std::vector<FieldReader>* annotations) {
  KUEUESIM_RETURN_IF_ERROR(cluster_spec.ExpectMapping());
  bool in_tree_autoscaling = false;
  if (cluster_spec.Field("enableInTreeAutoscaling").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(in_tree_autoscaling, cluster_spec.Field("enableInTreeAutoscaling").Bool());
  }
  if (in_tree_autoscaling && !rules.elastic) {
    return cluster_spec.Field("enableInTreeAutoscaling")
        .Error(rules.own_cluster
                   ? "a kueue-managed RayCluster can use autoscaling only as an elastic job: enable the "
                     "ElasticJobsViaWorkloadSlices feature gate and set the \"kueue.x-k8s.io/elastic-job\": \"true\" "
                     "annotation"
                   : "a kueue managed job should only use autoscaling when workload slicing is enabled (the "
                     "\"kueue.x-k8s.io/elastic-job\": \"true\" annotation)");
  }
  FieldReader workers = cluster_spec.Field("workerGroupSpecs");
  KUEUESIM_RETURN_IF_ERROR(workers.ExpectSequence());
  if (workers.size() + 1 > kMaxPodSets) {
    return workers.Error(fmt::format("{} worker groups and the head make {} pod sets; a Workload has at most {}",
                                     workers.size(), workers.size() + 1, kMaxPodSets));
  }

  // Head: the head template, plus KubeRay's Redis cleanup Job when GCS fault
  // tolerance is on (max-merged into the Ray container's requests) and the
  // autoscaler sidecar with in-tree autoscaling.
  FieldReader head_template = cluster_spec.Field("headGroupSpec").Field("template");
  if (!head_template.present()) return head_template.Error("is required");
  PodSpecExtras head_extras;
  const auto ft = job.meta.annotations.find(kFtEnabledAnnotation);
  const bool gcs_ft = cluster_spec.Field("gcsFaultToleranceOptions").present() ||
                      (ft != job.meta.annotations.end() && Lower(ft->second) == "true");
  if (gcs_ft) {
    if (head_template.Field("spec").Field("containers").size() == 0) {
      return head_template.Field("spec").Field("containers").Error(
          "cannot account for Redis cleanup resources: the head pod template must include the Ray container");
    }
    head_extras.first_container_request_floor = Resources({{"cpu", "200m"}, {"memory", "256Mi"}});
  }
  if (in_tree_autoscaling) {
    FieldReader resources = cluster_spec.Field("autoscalerOptions").Field("resources");
    if (resources.present()) {
      PodSpecExtras::Container autoscaler;
      KUEUESIM_ASSIGN_OR_RETURN(autoscaler.requests, ResourceList(resources.Field("requests")));
      KUEUESIM_ASSIGN_OR_RETURN(autoscaler.limits, ResourceList(resources.Field("limits")));
      head_extras.extra_containers.push_back(std::move(autoscaler));
    } else {
      const auto defaults = Resources({{"cpu", "500m"}, {"memory", "512Mi"}});
      head_extras.extra_containers.push_back({defaults, defaults});
    }
  }
  for (const auto& extra : extra_head) head_extras.extra_containers.push_back(extra);
  std::vector<model::PodSet> pod_sets;
  KUEUESIM_ASSIGN_OR_RETURN(model::PodSet head, PodSetFromTemplate(head_template, kHead, 1, {}, &head_extras));
  pod_sets.push_back(std::move(head));
  annotations->push_back(head_template.Field("metadata").Field("annotations"));

  for (size_t i = 0; i < workers.size(); ++i) {
    FieldReader group = workers.Index(i);
    KUEUESIM_RETURN_IF_ERROR(group.ExpectMapping());
    KUEUESIM_ASSIGN_OR_RETURN(std::string group_name, group.Field("groupName").String());
    if (group_name == kHead) {
      return group.Field("groupName").Error("\"head\" is reserved for the head group");
    }
    // KubeRay's CRD defaults replicas to 0 and numOfHosts to 1
    // (Kueue's effectiveWorkerCount falls back to 1 replica only for an
    // object that skipped that defaulting).
    KUEUESIM_ASSIGN_OR_RETURN(int32_t replicas, CountField(group.Field("replicas"), 0));
    KUEUESIM_ASSIGN_OR_RETURN(int32_t hosts, CountField(group.Field("numOfHosts"), 1));
    const int64_t count = static_cast<int64_t>(replicas) * (hosts > 1 ? hosts : 1);
    if (count > std::numeric_limits<int32_t>::max()) {
      return group.Field("replicas").Error(fmt::format("{} replicas of {} hosts overflow a pod count", replicas, hosts));
    }
    FieldReader pod_template = group.Field("template");
    KUEUESIM_ASSIGN_OR_RETURN(model::PodSet pod_set,
                              PodSetFromTemplate(pod_template, Lower(group_name), static_cast<int32_t>(count), {}));
    pod_sets.push_back(std::move(pod_set));
    annotations->push_back(pod_template.Field("metadata").Field("annotations"));
  }
  return pod_sets;
}

// The common start of the three kinds: metadata, queue, webhook checks.
absl::StatusOr<std::optional<JobObject>> ManagedRayObject(const FieldReader& object, const char* kind,
                                                          Decoded* out) {
  KUEUESIM_ASSIGN_OR_RETURN(JobObject job, ReadJobObject(object, kind));
  if (job.queue_name.empty()) {
    out->ignored = NoQueueNameReason();
    return std::optional<JobObject>();
  }
  KUEUESIM_RETURN_IF_ERROR(ValidateJobOnCreate(object, job, /*elastic_supported=*/true));
  return std::optional<JobObject>(std::move(job));
}

}  // namespace

absl::StatusOr<Decoded> DecodeRayCluster(const FieldReader& object) {
  Decoded out;
  KUEUESIM_ASSIGN_OR_RETURN(auto job, ManagedRayObject(object, "RayCluster", &out));
  if (!job.has_value()) return out;
  KUEUESIM_ASSIGN_OR_RETURN(model::Workload wl, NewWorkload(object, *job, model::WorkloadSourceKind::kRayCluster));
  std::vector<FieldReader> annotations;
  RayClusterRules rules{"RayCluster", IsElastic(*job), /*own_cluster=*/true};
  KUEUESIM_ASSIGN_OR_RETURN(wl.pod_sets, RayPodSets(object.Field("spec"), *job, rules, {}, &annotations));
  KUEUESIM_RETURN_IF_ERROR(ValidatePodSetList(wl.pod_sets, object.Field("spec").Field("workerGroupSpecs")));
  KUEUESIM_RETURN_IF_ERROR(ValidatePodSetGroups(wl.pod_sets, annotations));
  out.workload = std::move(wl);
  return out;
}

absl::StatusOr<Decoded> DecodeRayService(const FieldReader& object) {
  Decoded out;
  KUEUESIM_ASSIGN_OR_RETURN(auto job, ManagedRayObject(object, "RayService", &out));
  if (!job.has_value()) return out;
  KUEUESIM_ASSIGN_OR_RETURN(model::Workload wl, NewWorkload(object, *job, model::WorkloadSourceKind::kRayService));
  FieldReader cluster_spec = object.Field("spec").Field("rayClusterConfig");
  if (!cluster_spec.present()) return cluster_spec.Error("is required");
  std::vector<FieldReader> annotations;
  RayClusterRules rules{"RayService", IsElastic(*job), /*own_cluster=*/false};
  KUEUESIM_ASSIGN_OR_RETURN(wl.pod_sets, RayPodSets(cluster_spec, *job, rules, {}, &annotations));
  KUEUESIM_RETURN_IF_ERROR(ValidatePodSetList(wl.pod_sets, cluster_spec.Field("workerGroupSpecs")));
  KUEUESIM_RETURN_IF_ERROR(ValidatePodSetGroups(wl.pod_sets, annotations));
  out.workload = std::move(wl);
  return out;
}

absl::StatusOr<Decoded> DecodeRayJob(const FieldReader& object) {
  Decoded out;
  KUEUESIM_ASSIGN_OR_RETURN(JobObject job, ReadJobObject(object, "RayJob"));
  if (job.queue_name.empty()) {
    out.ignored = NoQueueNameReason();
    return out;
  }
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  FieldReader cluster_selector = spec.Field("clusterSelector");
  const bool has_selector = cluster_selector.present() && cluster_selector.size() > 0;
  FieldReader cluster_spec = spec.Field("rayClusterSpec");
  if (has_selector) {
    if (cluster_spec.present()) return cluster_selector.Error("a kueue managed job should not use an existing cluster");
    out.ignored =
        "runs on an existing RayCluster (spec.clusterSelector); Kueue's RayJob integration skips it";
    return out;
  }
  if (!cluster_spec.present()) {
    return cluster_spec.Error("rayClusterSpec is required for Kueue-managed jobs that don't use clusterSelector");
  }
  bool shutdown = false;
  if (spec.Field("shutdownAfterJobFinishes").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(shutdown, spec.Field("shutdownAfterJobFinishes").Bool());
  }
  if (!shutdown) {
    return spec.Field("shutdownAfterJobFinishes").Error("a kueue managed job should delete the cluster after finishing");
  }
  KUEUESIM_RETURN_IF_ERROR(ValidateJobOnCreate(object, job, /*elastic_supported=*/true));
  KUEUESIM_ASSIGN_OR_RETURN(auto mode_field, spec.Field("submissionMode").OptString());
  const std::string mode = mode_field.value_or("K8sJobMode");  // the CRD default
  if (mode != "K8sJobMode" && mode != "HTTPMode" && mode != "InteractiveMode" && mode != "SidecarMode") {
    return spec.Field("submissionMode").Error(
        fmt::format("\"{}\" is not a submission mode (valid: K8sJobMode, HTTPMode, InteractiveMode, SidecarMode)",
                    mode));
  }
  KUEUESIM_ASSIGN_OR_RETURN(model::Workload wl, NewWorkload(object, job, model::WorkloadSourceKind::kRayJob));
  std::vector<FieldReader> annotations;
  std::vector<PodSpecExtras::Container> extra_head;
  // SidecarMode: the submitter runs as a container of the head pod.
  if (mode == "SidecarMode") extra_head.push_back(SubmitterContainer());
  RayClusterRules rules{"RayJob", IsElastic(job), /*own_cluster=*/false};
  KUEUESIM_ASSIGN_OR_RETURN(wl.pod_sets, RayPodSets(cluster_spec, job, rules, extra_head, &annotations));
  if (mode == "K8sJobMode") {
    // The submitter Job's pod: spec.submitterPodTemplate, else KubeRay's
    // default (one ray-job-submitter container).
    FieldReader submitter_template = spec.Field("submitterPodTemplate");
    if (submitter_template.present()) {
      KUEUESIM_ASSIGN_OR_RETURN(model::PodSet submitter, PodSetFromTemplate(submitter_template, kSubmitter, 1, {}));
      wl.pod_sets.push_back(std::move(submitter));
      annotations.push_back(submitter_template.Field("metadata").Field("annotations"));
    } else {
      model::PodSet submitter;
      submitter.name = kSubmitter;
      submitter.count = 1;
      for (const auto& [name, amount] : SubmitterContainer().requests) submitter.requests.push_back({name, amount});
      wl.pod_sets.push_back(std::move(submitter));
      annotations.push_back(spec.Field("submitterPodTemplate"));
    }
  }
  KUEUESIM_RETURN_IF_ERROR(ValidatePodSetList(wl.pod_sets, cluster_spec.Field("workerGroupSpecs")));
  KUEUESIM_RETURN_IF_ERROR(ValidatePodSetGroups(wl.pod_sets, annotations));
  out.workload = std::move(wl);
  return out;
}

}  // namespace kueuesim::scenario::kinds
