// Which unknown kinds carry workloads. An object of a kind kueuesim does not
// decode is either harmless for admission (ConfigMap, Service, RBAC, a
// template that only describes pods) or creates pods of its own (an Argo
// Workflow, a Tekton PipelineRun, a KServe InferenceService, a Volcano
// Job, ...), whose workloads are then missing from the run. The loader warns
// about the second kind (see docs/scenario-format.md, "Kinds that are not
// simulated").
#ifndef KUEUESIM_SCENARIO_WORKLOAD_KINDS_H_
#define KUEUESIM_SCENARIO_WORKLOAD_KINDS_H_

#include <string>
#include <string_view>

#include "kueuesim/doc/document.h"

namespace kueuesim::scenario {

// Whether an object of `api_version`/`kind` that kueuesim does not decode
// would create pods in a cluster:
//   - an object with a controller owner (metadata.ownerReferences) does not
//     count: its owner carries the workload (a Deployment's ReplicaSet);
//   - kinds known to create pods (a list of the common ones, some of which
//     only reference a pod definition: Tekton PipelineRun and TaskRun, KServe
//     InferenceService, Argo Workflow, ...) do;
//   - kinds known to be templates or configuration (PodTemplate, Argo
//     WorkflowTemplate, Tekton Task and Pipeline, training and serving
//     runtimes) and DaemonSets (node agents Kueue does not manage) do not;
//   - any other kind does when the object embeds a pod definition: a
//     non-empty `containers` list, or a `container`, `script` or step with an
//     `image`, anywhere outside metadata and status.
bool CarriesWorkloads(std::string_view api_version, std::string_view kind, const doc::Node& object);

// Whether a job object of a kind Kueue integrates has finished as its
// integration's Finished() reads it from the object's status, and how (e.g.
// "condition Complete", "phase Succeeded"); empty when it has not. Kueue
// makes no Workload for a finished object that has none (an export holds
// finished Jobs and Pods): batch/v1 Job (Complete, Failed), JobSet
// (Completed, Failed), the Kubeflow jobs and MPIJob (Succeeded, Failed),
// TrainJob (Complete, Failed), RayJob (jobDeploymentStatus Complete or
// Failed), AppWrapper (phase Succeeded, or Failed once its resources are
// gone), SparkApplication (state COMPLETED, FAILED, SUBMISSION_FAILED) and
// v1 Pod (phase Succeeded or Failed). Malformed status fields count as not
// finished (the decoders report them).
std::string FinishedJobState(std::string_view api_version, std::string_view kind, const doc::Node& object);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_WORKLOAD_KINDS_H_
