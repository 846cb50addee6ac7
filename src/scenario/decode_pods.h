// Decoders for Kueue's pod-based integrations: plain v1 Pods (single pods and
// pod groups), apps/v1 Deployments and apps/v1 StatefulSets, as a user pastes
// them from `kubectl get -o yaml`. Each becomes the Workload(s) Kueue's
// integrations create for it (kueue pkg/controller/jobs/pod, .../deployment,
// .../statefulset).
//
// Kueue only manages these kinds when the Configuration enables the "pod",
// "deployment" and "statefulset" frameworks (its shipped manifests do; the
// built-in default is batch/job only). The decoders assume they are enabled.
#ifndef KUEUESIM_SCENARIO_DECODE_PODS_H_
#define KUEUESIM_SCENARIO_DECODE_PODS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kueuesim/base/time.h"
#include "kueuesim/model/objects.h"
#include "scenario/field.h"

namespace kueuesim::scenario {

// True when the v1 Pod names a pod group (annotation or label
// kueue.x-k8s.io/pod-group-name): such pods go to a PodGroupCollector.
bool IsPodGroupMember(const FieldReader& pod);

// A v1 Pod Kueue does not manage, as Kueue's pod usage controller sees it:
// its node and effective request when it is bound (spec.nodeName), not
// terminated (status.phase neither Succeeded nor Failed) and carries no
// topology annotation (belongsToNonTASCache); nullopt otherwise.
absl::StatusOr<std::optional<model::BoundPod>> DecodeBoundPod(const FieldReader& object);

// A v1 Pod outside any pod group, labelled kueue.x-k8s.io/queue-name: one
// Workload "pod-<name>" (source kPod) with one pod set "main" of count 1.
// Returns nullopt when Kueue does not manage the pod (no queue-name label) or
// when the pod is a pod-group member; `why_unmanaged`, when given, then says
// why (for a loader warning).
absl::StatusOr<std::optional<model::Workload>> DecodePod(const FieldReader& object,
                                                         std::string* why_unmanaged = nullptr);

// An apps/v1 Deployment whose pods carry the queue-name label (set on the
// Deployment, which Kueue's webhook propagates to the pod template, or on the
// template itself). Kueue's pod integration admits each replica pod on its
// own: spec.replicas (default 1) Workloads "pod-<deployment>-<i>" (source
// kDeployment), each with a pod set "main" of count 1. nullopt when Kueue does
// not manage the Deployment (see `why_unmanaged`); an empty vector for
// replicas: 0.
//
// With `deferred` given, the replica Workloads are not made: the vector is
// empty and `deferred` describes them (MakeReplicas makes them), so that a
// loader can count them against its budget first.
struct PendingReplicas;
absl::StatusOr<std::optional<std::vector<model::Workload>>> DecodeDeployment(
    const FieldReader& object, std::string* why_unmanaged = nullptr, PendingReplicas* deferred = nullptr);

// An apps/v1 StatefulSet. Labelled with the queue name on the StatefulSet: one
// pod-group Workload "statefulset-<name>" (source kStatefulSet) with one pod
// set "main" of count spec.replicas (default 1); none at replicas: 0. With
// the label only on the pod template, the StatefulSet integration ignores it
// and the pod integration admits each replica on its own, as for a
// Deployment: Workloads "pod-<name>-<i>" (source kPod). nullopt when Kueue
// does not manage it (see `why_unmanaged`).
// `deferred` as for DecodeDeployment (the pod-group Workload is always made).
absl::StatusOr<std::optional<std::vector<model::Workload>>> DecodeStatefulSet(
    const FieldReader& object, std::string* why_unmanaged = nullptr, PendingReplicas* deferred = nullptr);

// Replica Workloads of the pod integration not made yet: replica i is
// `prototype` named `name_prefix` + i.
struct PendingReplicas {
  model::Workload prototype;
  std::string name_prefix;
  int32_t replicas = 0;
};
// Appends the replicas, in order, to `out`.
void MakeReplicas(const PendingReplicas& pending, std::vector<model::Workload>* out);

// All decoders: the Workload's priority class is set from the
// kueue.x-k8s.io/priority-class label (of the pod, of the Deployment or its
// template, of the StatefulSet); otherwise the pod sets carry the template's
// priorityClassName, which ClusterState::ResolvePriority resolves as for a
// Job. The kueuesim.io/arrival, duration and startup-delay annotations of
// the object (for a Deployment or StatefulSet: the object's, else its pod
// template's) apply to every Workload it yields.

// Pod groups: pods sharing kueue.x-k8s.io/pod-group-name in one namespace,
// each annotated kueue.x-k8s.io/pod-group-total-count. Add every member as it
// is met (documents need not outlive Add: everything is decoded at once),
// then Finish builds one Workload per managed group, named after the group
// (source kPodGroup). Pod sets group pods of the same role: the pod's
// kueue.x-k8s.io/role-hash annotation when set (as on pods read back from a
// cluster), else a hash of the scheduling-relevant spec (Kueue's role shape;
// the names differ from Kueue's own hashes). Pod sets are sorted by name, as
// in Kueue. Use one collector per simulated cluster.
class PodGroupCollector {
 public:
  // Adds one member. Errors name the pod and the field: a malformed group
  // name or total count, or a member disagreeing with the group's first
  // member on the queue name, total count, priority class, fast admission or
  // a kueuesim.io timing annotation. Pods in phase Failed are ignored, as
  // Kueue ignores them. `input_sequence` orders the result: a group takes
  // the sequence of its last member (Kueue creates the Workload once the
  // group is complete).
  absl::Status Add(const FieldReader& pod, int64_t input_sequence = 0);

  // The Workloads of the managed groups, in input_sequence order. Errors when
  // a group's pod count disagrees with its total count (Kueue would wait
  // forever for missing pods, or delete the excess). Appends a warning per
  // group Kueue does not manage (no queue-name label). Resets the collector.
  absl::StatusOr<std::vector<model::Workload>> Finish(std::vector<std::string>* warnings);

  bool empty() const { return groups_.empty(); }

 private:
  struct Role {
    model::PodSet pod_set;  // from the role's first pod; count = pods of the role
  };
  struct Timing {
    std::optional<SimDuration> value;
    std::string pod;  // the member that set it
  };
  struct Group {
    std::string namespace_;
    std::string name;
    int32_t total_count = 0;
    std::string first_pod;             // first member added
    std::string count_error_prefix;    // "<file>:<line>: Pod \"x\": <field>: "
    std::string where;                 // "<file>:<line>" of the first member
    int32_t failed = 0;                // members ignored (Failed)
    // From the first runnable member.
    bool has_runnable = false;
    std::string first_runnable;
    model::ObjectMeta meta;
    std::string queue;
    std::string workload_priority_class;
    std::string pod_priority_class;
    bool fast_admission = false;
    std::optional<int32_t> max_exec_seconds;
    Timing arrival, duration, startup_delay;
    std::map<std::string, Role> roles;  // by role name
    std::string first_role;             // the first runnable member's
    int32_t pods = 0;                   // runnable members
    int64_t input_sequence = 0;
    std::optional<UnixMicros> creation;
  };

  std::map<std::pair<std::string, std::string>, Group> groups_;  // (namespace, name)
};

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_DECODE_PODS_H_
