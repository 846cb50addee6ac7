// Pod, pod group, Deployment and StatefulSet decoders. Semantics follow
// kueue pkg/controller/jobs/pod (pod_controller.go, pod_webhook.go),
// pkg/controller/jobs/deployment (deployment_webhook.go) and
// pkg/controller/jobs/statefulset (statefulset_reconciler.go,
// statefulset_pod_reconciler.go, statefulset_webhook.go).
#include "scenario/decode_pods.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <numeric>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "scenario/decode.h"
#include "scenario/kinds/common.h"

namespace kueuesim::scenario {
namespace {

constexpr char kQueueNameLabel[] = "kueue.x-k8s.io/queue-name";
constexpr char kPriorityClassLabel[] = "kueue.x-k8s.io/priority-class";
constexpr char kMaxExecTimeLabel[] = "kueue.x-k8s.io/max-exec-time-seconds";
// Pod groups (kueue pkg/controller/jobs/pod/constants). The group name is an
// annotation or a label of the same key; the annotation wins (gate
// WorkloadIdentifierAnnotations, beta-on since 0.18).
constexpr char kGroupName[] = "kueue.x-k8s.io/pod-group-name";
constexpr char kGroupTotalCount[] = "kueue.x-k8s.io/pod-group-total-count";
constexpr char kGroupFastAdmission[] = "kueue.x-k8s.io/pod-group-fast-admission";
constexpr char kRoleHash[] = "kueue.x-k8s.io/role-hash";
constexpr char kIsGroupWorkload[] = "kueue.x-k8s.io/is-group-workload";
constexpr char kSuspendingParent[] = "kueue.x-k8s.io/pod-suspending-parent";
// Owner annotations Kueue puts on StatefulSet Workloads; reused to record
// the Deployment or StatefulSet a per-replica Workload comes from.
constexpr char kJobOwnerGvk[] = "kueue.x-k8s.io/job-owner-gvk";
constexpr char kJobOwnerName[] = "kueue.x-k8s.io/job-owner-name";
// TAS pod index labels (kueue.PodGroupPodIndexLabel, appsv1.PodIndexLabel).
constexpr char kPodGroupPodIndexLabel[] = "kueue.x-k8s.io/pod-group-pod-index";
constexpr char kStatefulSetPodIndexLabel[] = "apps.kubernetes.io/pod-index";
constexpr char kArrivalAnnotation[] = "kueuesim.io/arrival";
constexpr char kDurationAnnotation[] = "kueuesim.io/duration";
constexpr char kStartupDelayAnnotation[] = "kueuesim.io/startup-delay";
constexpr char kWorkloadPriorityClassSource[] = "kueue.x-k8s.io/workloadpriorityclass";
// The annotations that make a pod a TAS pod (utiltas.IsTAS).
constexpr char kTasPreferredTopology[] = "kueue.x-k8s.io/podset-preferred-topology";
constexpr char kTasRequiredTopology[] = "kueue.x-k8s.io/podset-required-topology";
constexpr char kTasSliceRequiredTopology[] = "kueue.x-k8s.io/podset-slice-required-topology";
constexpr char kTasSliceRequiredTopologyConstraints[] = "kueue.x-k8s.io/podset-slice-required-topology-constraints";
constexpr char kTasUnconstrainedTopology[] = "kueue.x-k8s.io/podset-unconstrained-topology";
// jobframework.MaxPodSets.
constexpr size_t kMaxPodSets = 18;
// Each replica of a Deployment is a Workload of its own; bound the count so
// that a typo cannot exhaust memory.
constexpr int32_t kMaxReplicas = 100000;

std::string Lookup(const model::Labels& map, const char* key) {
  auto it = map.find(key);
  return it == map.end() ? "" : it->second;
}

void SetWhy(std::string* why, std::string text) {
  if (why != nullptr) *why = std::move(text);
}

// A label value for messages: "x" or (none).
std::string Shown(const std::string& value) {
  return value.empty() ? "(none)" : fmt::format("\"{}\"", value);
}

// The "<file>:<line>: <object>: <path>: " prefix FieldReader::Error gives
// `field`, for errors raised after the document is gone.
std::string ErrorPrefix(const FieldReader& field) { return StatusMessage(field.Error("")); }

// The field naming the pod's group: the annotation when set, else the label.
FieldReader GroupNameField(const FieldReader& pod) {
  FieldReader metadata = pod.Field("metadata");
  FieldReader annotation = metadata.Field("annotations").Field(kGroupName);
  if (annotation.node().IsScalar() && annotation.present() && !annotation.node().scalar().empty()) {
    return annotation;
  }
  return metadata.Field("labels").Field(kGroupName);
}

// A DNS-1123 subdomain (the group name becomes the Workload's name).
bool IsDnsSubdomain(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(name.front()) || !alnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return alnum(c) || c == '-' || c == '.'; });
}

// Kueue reads kueue.x-k8s.io/max-exec-time-seconds and ignores a value that
// is not a positive int32.
std::optional<int32_t> MaxExecSeconds(const model::Labels& labels) {
  auto it = labels.find(kMaxExecTimeLabel);
  if (it == labels.end()) return std::nullopt;
  int32_t value = 0;
  const std::string& text = it->second;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

// jobframework.ExtractPriority: the WorkloadPriorityClass label names the
// class; otherwise the pod PriorityClass of the first pod set, the global
// default, or (gate WorkloadPriorityClassDefaulting) the "default"
// WorkloadPriorityClass apply, which ClusterState::ResolvePriority works out
// for every integration kind, as for a Job.
void ApplyPriority(const std::string& workload_priority_class, model::Workload* wl) {
  if (workload_priority_class.empty()) return;
  wl->priority_class_name = workload_priority_class;
  wl->rare.Mutable().priority_class_source = kWorkloadPriorityClassSource;
}

// A pod set of `count` pods from a pod (template) `source`, whose
// metadata.annotations may carry a topology request.
absl::StatusOr<model::PodSet> BuildPodSet(const FieldReader& source, const std::string& name,
                                          int32_t count, const char* pod_index_label) {
  model::PodSet pod_set;
  pod_set.name = name;
  pod_set.count = count;
  KUEUESIM_RETURN_IF_ERROR(DecodePodTemplate(source, &pod_set, /*api_server_validated=*/true));
  // As Kueue's pod integration builds it (jobframework's request builder,
  // after the webhook's ValidateTASPodSetRequest); multi-layer slice
  // constraints included.
  kinds::TopologyIndex index;
  if (pod_index_label != nullptr) index.pod_index_label = pod_index_label;
  KUEUESIM_ASSIGN_OR_RETURN(pod_set.topology_request,
                            kinds::TopologyRequestFromAnnotations(source.Field("metadata").Field("annotations"), count, index));
  return pod_set;
}

absl::StatusOr<int32_t> ReadReplicas(const FieldReader& spec) {
  FieldReader field = spec.Field("replicas");
  KUEUESIM_ASSIGN_OR_RETURN(auto replicas, field.OptInt32());
  if (!replicas.has_value()) return 1;
  if (*replicas < 0) return field.Error(fmt::format("{} must not be negative", *replicas));
  if (*replicas > kMaxReplicas) {
    return field.Error(fmt::format("{} is more than the {} replicas kueuesim accepts", *replicas, kMaxReplicas));
  }
  return *replicas;
}

// --- Role shape (kueue pkg/util/pod GenerateRoleHash / SpecShape) ---

void AppendCanonical(const doc::Node& node, std::string* out) {
  if (!node.valid() || node.IsNull()) {
    out->push_back('~');
    return;
  }
  if (node.IsScalar()) {
    std::string_view text = node.scalar();
    fmt::format_to(std::back_inserter(*out), "{}:{}", text.size(), text);
    return;
  }
  if (node.IsSequence()) {
    out->push_back('[');
    for (size_t i = 0; i < node.size(); ++i) {
      AppendCanonical(node.at(i), out);
      out->push_back(',');
    }
    out->push_back(']');
    return;
  }
  std::vector<size_t> order(node.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return node.key(a) < node.key(b); });
  out->push_back('{');
  for (size_t i : order) {
    std::string_view key = node.key(i);
    fmt::format_to(std::back_inserter(*out), "{}:{}=", key.size(), key);
    AppendCanonical(node.value(i), out);
    out->push_back(',');
  }
  out->push_back('}');
}

absl::StatusOr<std::map<std::string, Amount>> ResourceMap(const FieldReader& map) {
  std::map<std::string, Amount> out;
  KUEUESIM_RETURN_IF_ERROR(map.ExpectMapping());
  if (!map.present()) return out;
  for (size_t i = 0; i < map.node().size(); ++i) {
    std::string name(map.node().key(i));
    KUEUESIM_ASSIGN_OR_RETURN(out[name], map.Field(name).AmountOf(name, false, true));
  }
  return out;
}

void AppendAmounts(const std::map<std::string, Amount>& amounts, std::string* out) {
  out->push_back('{');
  for (const auto& [name, amount] : amounts) fmt::format_to(std::back_inserter(*out), "{}={},", name, amount);
  out->push_back('}');
}

// Containers: their requests (a limit stands in for a missing request, as the
// API server defaults it) and ports.
absl::Status AppendContainersShape(const FieldReader& containers, std::string* out) {
  KUEUESIM_RETURN_IF_ERROR(containers.ExpectSequence());
  out->push_back('[');
  for (size_t i = 0; i < containers.size(); ++i) {
    FieldReader container = containers.Index(i);
    FieldReader resources = container.Field("resources");
    KUEUESIM_ASSIGN_OR_RETURN(auto requests, ResourceMap(resources.Field("requests")));
    KUEUESIM_ASSIGN_OR_RETURN(auto limits, ResourceMap(resources.Field("limits")));
    for (const auto& [name, amount] : limits) requests.emplace(name, amount);
    out->append("{r");
    AppendAmounts(requests, out);
    out->append("p");
    AppendCanonical(container.Field("ports").node(), out);
    out->append("},");
  }
  out->push_back(']');
  return absl::OkStatus();
}

// The scheduling-relevant spec of a pod, canonically spelled: pods of equal
// shape form one role. priorityClassName stands in for the priority the
// API server derives from it.
absl::StatusOr<std::string> RoleShape(const FieldReader& pod) {
  FieldReader spec = pod.Field("spec");
  std::string out;
  out.append("c");
  KUEUESIM_RETURN_IF_ERROR(AppendContainersShape(spec.Field("containers"), &out));
  out.append("i");
  KUEUESIM_RETURN_IF_ERROR(AppendContainersShape(spec.Field("initContainers"), &out));
  for (const char* key : {"nodeSelector", "affinity", "tolerations", "runtimeClassName", "priority",
                          "priorityClassName", "topologySpreadConstraints", "resourceClaims"}) {
    out.append(key);
    AppendCanonical(spec.Field(key).node(), &out);
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto overhead, ResourceMap(spec.Field("overhead")));
  out.append("overhead");
  AppendAmounts(overhead, &out);
  if (spec.Field("resources").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(auto pod_requests, ResourceMap(spec.Field("resources").Field("requests")));
    out.append("resources");
    AppendAmounts(pod_requests, &out);
  }
  return out;
}

// 8 hex digits, like Kueue's role hashes (FNV-1a here, not Kueue's sha256
// of its JSON shape, so the values differ).
std::string HashRole(const std::string& shape) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : shape) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:08x}", static_cast<uint32_t>(h ^ (h >> 32)));
}

// Pods that cannot run any more (isPodRunnableOrSucceeded): Failed, or
// deleted before being bound to a node.
absl::StatusOr<bool> IsRunnable(const FieldReader& pod) {
  KUEUESIM_ASSIGN_OR_RETURN(auto phase, pod.Field("status").Field("phase").OptString());
  if (phase.value_or("") == "Failed") return false;
  KUEUESIM_ASSIGN_OR_RETURN(auto node_name, pod.Field("spec").Field("nodeName").OptString());
  if (pod.Field("metadata").Field("deletionTimestamp").present() && node_name.value_or("").empty()) {
    return false;
  }
  return true;
}

// Replica Workloads of a Deployment or StatefulSet whose pods Kueue's pod
// integration admits one by one.
absl::StatusOr<std::vector<model::Workload>> SinglePodReplicas(
    const FieldReader& object, const model::ObjectMeta& owner, const std::string& owner_gvk,
    const FieldReader& pod_template, const model::Labels& pod_labels, int32_t replicas,
    model::WorkloadSourceKind kind, PendingReplicas* deferred) {
  model::Workload base;
  base.source_kind = kind;
  base.queue_name = Lookup(pod_labels, kQueueNameLabel);
  KUEUESIM_ASSIGN_OR_RETURN(model::PodSet pod_set, BuildPodSet(pod_template, "main", 1, kPodGroupPodIndexLabel));
  ApplyPriority(Lookup(pod_labels, kPriorityClassLabel), &base);
  base.pod_sets.push_back(std::move(pod_set));
  if (auto seconds = MaxExecSeconds(pod_labels)) base.rare.Mutable().maximum_execution_time_seconds = seconds;
  // The pods carry the template's annotations; the owner's take precedence.
  KUEUESIM_RETURN_IF_ERROR(DecodeTimingAnnotations(pod_template.Field("metadata"), &base));
  KUEUESIM_RETURN_IF_ERROR(DecodeTimingAnnotations(object.Field("metadata"), &base));
  base.meta.namespace_ = owner.namespace_;
  base.meta.labels = pod_labels;
  KUEUESIM_ASSIGN_OR_RETURN(base.meta.annotations,
                            pod_template.Field("metadata").Field("annotations").StringMap());
  base.meta.annotations[kJobOwnerGvk] = owner_gvk;
  base.meta.annotations[kJobOwnerName] = owner.name;
  base.meta.creation_timestamp = owner.creation_timestamp;
  base.meta.source = owner.source;
  base.meta.set_cluster(owner.cluster());
  PendingReplicas pending{std::move(base), fmt::format("pod-{}-", owner.name), replicas};
  std::vector<model::Workload> out;
  if (deferred != nullptr) {
    *deferred = std::move(pending);
  } else {
    MakeReplicas(pending, &out);
  }
  return out;
}

struct OwnerTemplate {
  model::ObjectMeta meta;
  FieldReader spec;
  FieldReader pod_template;
  model::Labels template_labels;
  int32_t replicas = 1;
};

// The owner's metadata and its template's labels: enough to tell whether
// Kueue manages it (an unmanaged object is not checked further).
absl::StatusOr<OwnerTemplate> ReadOwner(const FieldReader& object) {
  KUEUESIM_ASSIGN_OR_RETURN(model::ObjectMeta meta, DecodeMeta(object, true));
  OwnerTemplate owner{std::move(meta), object.Field("spec"), object.Field("spec").Field("template"), {}, 1};
  KUEUESIM_RETURN_IF_ERROR(owner.spec.ExpectMapping());
  KUEUESIM_RETURN_IF_ERROR(owner.pod_template.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(owner.template_labels,
                            owner.pod_template.Field("metadata").Field("labels").StringMap());
  return owner;
}

// For a managed owner: the template is required; the replica count is read.
absl::Status ReadManagedOwner(OwnerTemplate* owner) {
  if (!owner->pod_template.present()) return owner->pod_template.Error("is required");
  KUEUESIM_ASSIGN_OR_RETURN(owner->replicas, ReadReplicas(owner->spec));
  return absl::OkStatus();
}

}  // namespace

bool IsPodGroupMember(const FieldReader& pod) {
  FieldReader field = GroupNameField(pod);
  return field.present() && field.node().IsScalar() && !field.node().scalar().empty();
}

absl::StatusOr<std::optional<model::BoundPod>> DecodeBoundPod(const FieldReader& object) {
  KUEUESIM_ASSIGN_OR_RETURN(auto node_name, object.Field("spec").Field("nodeName").OptString());
  if (node_name.value_or("").empty()) return std::optional<model::BoundPod>();
  KUEUESIM_ASSIGN_OR_RETURN(auto phase, object.Field("status").Field("phase").OptString());
  if (phase == "Succeeded" || phase == "Failed") return std::optional<model::BoundPod>();
  KUEUESIM_ASSIGN_OR_RETURN(model::Labels annotations, object.Field("metadata").Field("annotations").StringMap());
  for (const char* key : {kTasPreferredTopology, kTasRequiredTopology, kTasSliceRequiredTopology,
                          kTasSliceRequiredTopologyConstraints, kTasUnconstrainedTopology}) {
    if (annotations.count(key) != 0) return std::optional<model::BoundPod>();
  }
  model::PodSet pod_set;
  KUEUESIM_RETURN_IF_ERROR(DecodePodTemplate(object, &pod_set, /*api_server_validated=*/true));
  model::BoundPod pod;
  pod.node_name = std::move(*node_name);
  pod.requests = std::move(pod_set.requests);
  return std::optional<model::BoundPod>(std::move(pod));
}

absl::StatusOr<std::optional<model::Workload>> DecodePod(const FieldReader& object, std::string* why_unmanaged) {
  KUEUESIM_ASSIGN_OR_RETURN(model::ObjectMeta meta, DecodeMeta(object, true));
  if (IsPodGroupMember(object)) {
    SetWhy(why_unmanaged, "is a pod group member; its group's Workload comes from PodGroupCollector");
    return std::optional<model::Workload>();
  }
  // Kueue's pod webhook: the total count needs a group name.
  if (object.Field("metadata").Field("annotations").Field(kGroupTotalCount).present()) {
    return GroupNameField(object).Error(
        fmt::format("is required when the {} annotation is set", kGroupTotalCount));
  }
  const std::string queue = Lookup(meta.labels, kQueueNameLabel);
  if (queue.empty()) {
    SetWhy(why_unmanaged, fmt::format("has no {} label; Kueue does not manage it", kQueueNameLabel));
    return std::optional<model::Workload>();
  }
  model::Workload wl;
  wl.meta = meta;
  wl.meta.name = "pod-" + meta.name;
  wl.source_kind = model::WorkloadSourceKind::kPod;
  wl.queue_name = queue;
  KUEUESIM_RETURN_IF_ERROR(DecodeTimingAnnotations(object.Field("metadata"), &wl));
  KUEUESIM_ASSIGN_OR_RETURN(model::PodSet pod_set, BuildPodSet(object, "main", 1, kPodGroupPodIndexLabel));
  ApplyPriority(Lookup(meta.labels, kPriorityClassLabel), &wl);
  wl.pod_sets.push_back(std::move(pod_set));
  if (auto seconds = MaxExecSeconds(meta.labels)) wl.rare.Mutable().maximum_execution_time_seconds = seconds;
  return std::optional<model::Workload>(std::move(wl));
}

absl::StatusOr<std::optional<std::vector<model::Workload>>> DecodeDeployment(const FieldReader& object,
                                                                           std::string* why_unmanaged,
                                                                           PendingReplicas* deferred) {
  KUEUESIM_ASSIGN_OR_RETURN(OwnerTemplate owner, ReadOwner(object));
  // The webhook copies the Deployment's queue name and priority class onto
  // the pod template when the Deployment has a queue name; otherwise the pods
  // keep the template's labels.
  model::Labels pod_labels = owner.template_labels;
  const std::string queue = Lookup(owner.meta.labels, kQueueNameLabel);
  if (!queue.empty()) {
    pod_labels[kQueueNameLabel] = queue;
    const std::string priority_class = Lookup(owner.meta.labels, kPriorityClassLabel);
    if (!priority_class.empty()) pod_labels[kPriorityClassLabel] = priority_class;
  }
  if (Lookup(pod_labels, kQueueNameLabel).empty()) {
    SetWhy(why_unmanaged, fmt::format("has no {} label (on the Deployment or its pod template); Kueue does "
                                      "not manage it",
                                      kQueueNameLabel));
    return std::optional<std::vector<model::Workload>>();
  }
  KUEUESIM_RETURN_IF_ERROR(ReadManagedOwner(&owner));
  KUEUESIM_ASSIGN_OR_RETURN(auto workloads,
                            SinglePodReplicas(object, owner.meta, "apps/v1, Kind=Deployment", owner.pod_template,
                                              pod_labels, owner.replicas, model::WorkloadSourceKind::kDeployment,
                                              deferred));
  return std::optional<std::vector<model::Workload>>(std::move(workloads));
}

absl::StatusOr<std::optional<std::vector<model::Workload>>> DecodeStatefulSet(const FieldReader& object,
                                                                            std::string* why_unmanaged,
                                                                            PendingReplicas* deferred) {
  KUEUESIM_ASSIGN_OR_RETURN(OwnerTemplate owner, ReadOwner(object));
  constexpr char kGvk[] = "apps/v1, Kind=StatefulSet";
  KUEUESIM_ASSIGN_OR_RETURN(
      model::Labels template_annotations,
      owner.pod_template.Field("metadata").Field("annotations").StringMap());
  // A StatefulSet created by another integration (e.g. LeaderWorkerSet)
  // is left to it.
  const std::string parent = Lookup(template_annotations, kSuspendingParent);
  if (!parent.empty() && parent != "statefulset") {
    SetWhy(why_unmanaged, fmt::format("is managed through its owner ({} annotation \"{}\" on the pod "
                                      "template); Kueue's StatefulSet integration skips it",
                                      kSuspendingParent, parent));
    return std::optional<std::vector<model::Workload>>();
  }
  const std::string queue = Lookup(owner.meta.labels, kQueueNameLabel);
  if (queue.empty()) {
    if (Lookup(owner.template_labels, kQueueNameLabel).empty()) {
      SetWhy(why_unmanaged, fmt::format("has no {} label (on the StatefulSet or its pod template); Kueue "
                                        "does not manage it",
                                        kQueueNameLabel));
      return std::optional<std::vector<model::Workload>>();
    }
    // Only the pods are labelled: the pod integration admits each one.
    KUEUESIM_RETURN_IF_ERROR(ReadManagedOwner(&owner));
    KUEUESIM_ASSIGN_OR_RETURN(auto workloads,
                              SinglePodReplicas(object, owner.meta, kGvk, owner.pod_template, owner.template_labels,
                                                owner.replicas, model::WorkloadSourceKind::kPod, deferred));
    return std::optional<std::vector<model::Workload>>(std::move(workloads));
  }
  KUEUESIM_RETURN_IF_ERROR(ReadManagedOwner(&owner));
  std::vector<model::Workload> out;
  model::Workload wl;
  wl.meta = owner.meta;
  wl.meta.name = "statefulset-" + owner.meta.name;
  wl.meta.annotations[kIsGroupWorkload] = "true";
  wl.meta.annotations[kJobOwnerGvk] = kGvk;
  wl.meta.annotations[kJobOwnerName] = owner.meta.name;
  wl.source_kind = model::WorkloadSourceKind::kStatefulSet;
  wl.queue_name = queue;
  KUEUESIM_RETURN_IF_ERROR(DecodeTimingAnnotations(owner.pod_template.Field("metadata"), &wl));
  KUEUESIM_RETURN_IF_ERROR(DecodeTimingAnnotations(object.Field("metadata"), &wl));
  KUEUESIM_ASSIGN_OR_RETURN(model::PodSet pod_set,
                            BuildPodSet(owner.pod_template, "main", owner.replicas, kStatefulSetPodIndexLabel));
  ApplyPriority(Lookup(owner.meta.labels, kPriorityClassLabel), &wl);
  wl.pod_sets.push_back(std::move(pod_set));
  if (auto seconds = MaxExecSeconds(owner.meta.labels)) wl.rare.Mutable().maximum_execution_time_seconds = seconds;
  // Kueue creates no Workload for a StatefulSet scaled to zero.
  if (owner.replicas > 0) out.push_back(std::move(wl));
  return std::optional<std::vector<model::Workload>>(std::move(out));
}

void MakeReplicas(const PendingReplicas& pending, std::vector<model::Workload>* out) {
  out->reserve(out->size() + static_cast<size_t>(std::max(pending.replicas, 0)));
  for (int32_t i = 0; i < pending.replicas; ++i) {
    model::Workload& wl = out->emplace_back(pending.prototype);
    wl.meta.name = pending.name_prefix + std::to_string(i);
  }
}

// --- Pod groups ---

absl::Status PodGroupCollector::Add(const FieldReader& pod, int64_t input_sequence) {
  KUEUESIM_ASSIGN_OR_RETURN(model::ObjectMeta meta, DecodeMeta(pod, true));
  FieldReader name_field = GroupNameField(pod);
  if (!IsPodGroupMember(pod)) return name_field.Error("is required for a pod group member");
  KUEUESIM_ASSIGN_OR_RETURN(std::string group_name, name_field.String());
  if (!IsDnsSubdomain(group_name)) {
    return name_field.Error(fmt::format("\"{}\" is not a valid Workload name (lowercase letters, digits, "
                                        "'-' and '.', at most 253 characters)",
                                        group_name));
  }
  FieldReader metadata = pod.Field("metadata");
  FieldReader annotations = metadata.Field("annotations");
  FieldReader total_field = annotations.Field(kGroupTotalCount);
  if (!total_field.present()) {
    return total_field.Error(fmt::format("is required on a pod group member (the pod has {})", kGroupName));
  }
  KUEUESIM_ASSIGN_OR_RETURN(int32_t total, total_field.Int32());
  if (total < 1) return total_field.Error(fmt::format("{} must be at least 1", total));
  KUEUESIM_ASSIGN_OR_RETURN(bool runnable, IsRunnable(pod));

  auto [it, inserted] = groups_.try_emplace({meta.namespace_, group_name});
  Group& g = it->second;
  if (inserted) {
    g.namespace_ = meta.namespace_;
    g.name = group_name;
    g.first_pod = meta.name;
    g.total_count = total;
    g.count_error_prefix = ErrorPrefix(total_field);
    g.where = meta.source.ToString();
  }
  g.input_sequence = std::max(g.input_sequence, input_sequence);
  if (!runnable) {
    ++g.failed;
    return absl::OkStatus();
  }

  auto differs = [&](const FieldReader& field, const std::string& value, const std::string& expected,
                     const std::string& what) {
    return field.Error(fmt::format("{} differs from {} on pod \"{}\": every pod of pod group \"{}\" must have "
                                   "the same {}",
                                   value, expected, g.first_runnable, g.name, what));
  };
  FieldReader labels = metadata.Field("labels");
  const std::string queue = Lookup(meta.labels, kQueueNameLabel);
  const std::string workload_priority_class = Lookup(meta.labels, kPriorityClassLabel);
  KUEUESIM_ASSIGN_OR_RETURN(auto pod_priority_class, pod.Field("spec").Field("priorityClassName").OptString());
  const bool fast_admission = Lookup(meta.annotations, kGroupFastAdmission) == "true";
  if (!g.has_runnable) {
    g.has_runnable = true;
    g.first_runnable = meta.name;
    g.meta = meta;
    g.queue = queue;
    g.workload_priority_class = workload_priority_class;
    g.pod_priority_class = pod_priority_class.value_or("");
    g.fast_admission = fast_admission;
    g.max_exec_seconds = MaxExecSeconds(meta.labels);
    // The group's reference values come from its first runnable pod.
    g.total_count = total;
    g.count_error_prefix = ErrorPrefix(total_field);
  } else {
    if (total != g.total_count) {
      return differs(total_field, std::to_string(total), std::to_string(g.total_count), kGroupTotalCount);
    }
    if (queue != g.queue) {
      return differs(labels.Field(kQueueNameLabel), Shown(queue), Shown(g.queue), "queue name");
    }
    if (workload_priority_class != g.workload_priority_class) {
      return differs(labels.Field(kPriorityClassLabel), Shown(workload_priority_class),
                     Shown(g.workload_priority_class), "workload priority class");
    }
    if (pod_priority_class.value_or("") != g.pod_priority_class) {
      return differs(pod.Field("spec").Field("priorityClassName"), Shown(pod_priority_class.value_or("")),
                     Shown(g.pod_priority_class),
                     "priorityClassName (Kueue would take the first role's, in role-hash order)");
    }
    if (fast_admission != g.fast_admission) {
      return differs(annotations.Field(kGroupFastAdmission), fast_admission ? "\"true\"" : "(not \"true\")",
                     g.fast_admission ? "\"true\"" : "(not \"true\")", std::string(kGroupFastAdmission) + " setting");
    }
  }
  // Timing annotations: the values members set must agree.
  struct TimingField {
    const char* key;
    Timing* timing;
  };
  for (const TimingField& t : {TimingField{kArrivalAnnotation, &g.arrival},
                               TimingField{kDurationAnnotation, &g.duration},
                               TimingField{kStartupDelayAnnotation, &g.startup_delay}}) {
    FieldReader field = annotations.Field(t.key);
    if (!field.present()) continue;
    KUEUESIM_ASSIGN_OR_RETURN(SimDuration value, field.Duration());
    if (!t.timing->value.has_value()) {
      t.timing->value = value;
      t.timing->pod = meta.name;
    } else if (*t.timing->value != value) {
      return field.Error(fmt::format("{} differs from {} on pod \"{}\": the pods of pod group \"{}\" must agree",
                                     FormatDuration(value), FormatDuration(*t.timing->value), t.timing->pod,
                                     g.name));
    }
  }
  // The role: the role-hash annotation the webhook sets, else our hash of the
  // pod's shape. Every member's spec is decoded, for its errors; a role's pod
  // set comes from its first pod.
  std::string role = Lookup(meta.annotations, kRoleHash);
  if (role.empty()) {
    KUEUESIM_ASSIGN_OR_RETURN(std::string shape, RoleShape(pod));
    role = HashRole(shape);
  }
  KUEUESIM_ASSIGN_OR_RETURN(model::PodSet pod_set, BuildPodSet(pod, role, 0, kPodGroupPodIndexLabel));
  auto [role_it, new_role] = g.roles.try_emplace(role);
  if (new_role) role_it->second.pod_set = std::move(pod_set);
  ++role_it->second.pod_set.count;
  if (g.pods == 0) g.first_role = role;
  ++g.pods;
  if (meta.creation_timestamp.has_value()) {
    g.creation = g.creation.has_value() ? std::max(*g.creation, *meta.creation_timestamp) : *meta.creation_timestamp;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<model::Workload>> PodGroupCollector::Finish(std::vector<std::string>* warnings) {
  std::map<std::pair<std::string, std::string>, Group> groups;
  groups.swap(groups_);
  std::vector<model::Workload> out;
  for (auto& [key, g] : groups) {
    const std::string group = fmt::format("\"{}\" in namespace \"{}\"", g.name, g.namespace_);
    const std::string ignored =
        g.failed > 0 ? fmt::format(" ({} Failed pod{} ignored)", g.failed, g.failed == 1 ? "" : "s") : "";
    if (g.has_runnable && g.queue.empty()) {
      if (warnings != nullptr) {
        warnings->push_back(fmt::format("{}: pod group {} has no {} label; Kueue does not manage it", g.where,
                                        group, kQueueNameLabel));
      }
      continue;
    }
    if (g.pods < g.total_count && !g.fast_admission) {
      return InvalidArgument(fmt::format(
          "{}pod group {} has {} runnable pod{}{} but its total count is {}: Kueue creates the group's "
          "Workload only once all {} pods exist, and a simulation cannot wait for pods that never come; add "
          "the missing pods, lower {}, or set {}: \"true\"",
          g.count_error_prefix, group, g.pods, g.pods == 1 ? "" : "s", ignored, g.total_count, g.total_count,
          kGroupTotalCount, kGroupFastAdmission));
    }
    if (g.pods == 0) {
      return InvalidArgument(fmt::format("{}pod group {} has no runnable pod{}: Kueue cannot build its Workload",
                                         g.count_error_prefix, group, ignored));
    }
    if (g.pods > g.total_count) {
      return InvalidArgument(fmt::format(
          "{}pod group {} has {} runnable pods but its total count is {}: Kueue would delete the {} excess "
          "pod{}; give exactly {} pods or raise {}",
          g.count_error_prefix, group, g.pods, g.total_count, g.pods - g.total_count,
          g.pods - g.total_count == 1 ? "" : "s", g.total_count, kGroupTotalCount));
    }
    model::Workload wl;
    wl.meta = g.meta;
    wl.meta.name = g.name;
    wl.meta.set_uid("");
    wl.meta.creation_timestamp = g.creation;
    wl.meta.annotations[kIsGroupWorkload] = "true";
    wl.source_kind = model::WorkloadSourceKind::kPodGroup;
    wl.queue_name = g.queue;
    if (g.fast_admission) {
      // constructGroupPodSetsFast: the first runnable pod's role, total count.
      model::PodSet pod_set = g.roles.at(g.first_role).pod_set;
      pod_set.count = g.total_count;
      wl.pod_sets.push_back(std::move(pod_set));
    } else {
      if (g.roles.size() > kMaxPodSets) {
        return InvalidArgument(fmt::format("{}pod group {} has {} roles (pods of distinct shapes); Kueue accepts at "
                                           "most {}",
                                           g.count_error_prefix, group, g.roles.size(), kMaxPodSets));
      }
      // The map is ordered by role name, as Kueue sorts the pod sets.
      for (auto& [role, r] : g.roles) wl.pod_sets.push_back(std::move(r.pod_set));
    }
    ApplyPriority(g.workload_priority_class, &wl);
    if (g.max_exec_seconds) wl.rare.Mutable().maximum_execution_time_seconds = g.max_exec_seconds;
    wl.arrival = g.arrival.value.value_or(0);
    wl.duration = g.duration.value;
    if (g.startup_delay.value) wl.rare.Mutable().startup_delay = g.startup_delay.value;
    wl.input_sequence = g.input_sequence;
    out.push_back(std::move(wl));
  }
  std::stable_sort(out.begin(), out.end(), [](const model::Workload& a, const model::Workload& b) {
    return a.input_sequence < b.input_sequence;
  });
  return out;
}

}  // namespace kueuesim::scenario
