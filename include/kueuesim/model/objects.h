// Plain specifications of the Kubernetes and Kueue objects kueuesim reads.
//
// These structs are what a scenario file says, decoded and validated, with
// names as strings; nothing here is interned or indexed. The cluster runtime
// (cluster/) compiles them into flat arrays of ids for the hot path. Field
// names follow the Kueue API (kueue.x-k8s.io/v1beta2; v1beta1 spellings are
// translated by the decoder), so each field can be traced back to
// apis/kueue/v1beta2/*_types.go.
#ifndef KUEUESIM_MODEL_OBJECTS_H_
#define KUEUESIM_MODEL_OBJECTS_H_

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "kueuesim/base/boxed.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/base/time.h"

namespace kueuesim::model {

// The name of the file an object was read from, for messages. Copies
// share one copy of the name: a large load holds tens of thousands of
// objects of one file, and the loaders hand every object of a file the
// same SourceFile (doc::Node::shared_file). A SourceFile made from a
// string holds its own copy.
class SourceFile {
 public:
  SourceFile() = default;
  SourceFile(std::shared_ptr<const std::string> name)  // NOLINT(google-explicit-constructor): reads as its name
      : name_(std::move(name)) {}
  SourceFile(std::string name)  // NOLINT(google-explicit-constructor)
      : name_(std::make_shared<const std::string>(std::move(name))) {}
  SourceFile(const char* name) : SourceFile(std::string(name)) {}  // NOLINT(google-explicit-constructor)

  const std::string& str() const { return name_ != nullptr ? *name_ : EmptyName(); }
  operator const std::string&() const { return str(); }  // NOLINT(google-explicit-constructor)
  bool empty() const { return str().empty(); }

  friend bool operator==(const SourceFile& a, const SourceFile& b) { return a.str() == b.str(); }
  friend bool operator==(const SourceFile& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const SourceFile& a, std::string_view b) { return a.str() == b; }
  friend bool operator==(const SourceFile& a, const char* b) { return a.str() == b; }
  friend std::ostream& operator<<(std::ostream& out, const SourceFile& file);

 private:
  static const std::string& EmptyName();
  std::shared_ptr<const std::string> name_;
};

// Where an object came from, for messages: "cluster.yaml:12".
struct SourceRef {
  SourceFile file;
  int32_t line = 0;
  std::string ToString() const;
};

using Labels = absl::btree_map<std::string, std::string>;

struct ObjectMeta {
  // Set by exports and MultiKueue scenarios, left empty by what people
  // write: kept out of line (read as "" until written through
  // rare.Mutable()), 56 bytes less on every object of a written cluster.
  struct RareFields {
    std::string uid;
    // The cluster the object belongs to (MultiKueue scenarios); empty for
    // the default (single) cluster.
    std::string cluster;
    bool operator==(const RareFields&) const = default;
  };

  std::string name;
  std::string namespace_;  // empty for cluster-scoped objects
  Labels labels;
  Labels annotations;
  std::optional<UnixMicros> creation_timestamp;
  SourceRef source;
  LazyBox<RareFields> rare;

  const std::string& uid() const { return rare->uid; }
  const std::string& cluster() const { return rare->cluster; }
  // Setters that leave the box unallocated for an empty value (or clear
  // it where it exists).
  void set_uid(std::string value) {
    if (!value.empty() || rare.allocated()) rare.Mutable().uid = std::move(value);
  }
  void set_cluster(std::string value) {
    if (!value.empty() || rare.allocated()) rare.Mutable().cluster = std::move(value);
  }
};

// --- Selectors, taints and tolerations (k8s.io/api/core/v1, meta/v1) ---

enum class SelectorOperator { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

struct SelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::kIn;
  std::vector<std::string> values;
};

// metav1.LabelSelector. `present` distinguishes a nil selector (matches
// nothing, for ClusterQueue.namespaceSelector) from {} (matches everything).
struct LabelSelector {
  bool present = false;
  Labels match_labels;
  std::vector<SelectorRequirement> match_expressions;
};

enum class TaintEffect { kNoSchedule, kPreferNoSchedule, kNoExecute };

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
};

enum class TolerationOperator { kEqual, kExists };

struct Toleration {
  std::string key;  // empty with kExists tolerates every taint
  TolerationOperator op = TolerationOperator::kEqual;
  std::string value;
  std::optional<TaintEffect> effect;  // nullopt tolerates every effect
};

// One term of required node affinity: its requirements are ANDed; terms are
// ORed. matchFields is kept for completeness (only metadata.name exists).
struct NodeSelectorTerm {
  std::vector<SelectorRequirement> match_expressions;
  std::vector<SelectorRequirement> match_fields;
};

// One term of preferred node affinity (v1.PreferredSchedulingTerm).
struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
};

// --- Kueue objects ---

// ResourceFlavor (spec).
struct ResourceFlavor {
  ObjectMeta meta;
  Labels node_labels;
  std::vector<Taint> node_taints;
  std::vector<Toleration> tolerations;
  std::string topology_name;  // non-empty: a TAS flavor
};

// One resource's quota within a flavor of a resource group. Amounts are
// canonical (milli-cpu, bytes, counts); a quota too large for int64 is
// kUnlimited, as in Kueue.
struct ResourceQuota {
  std::string name;  // resource name
  Amount nominal_quota = 0;
  std::optional<Amount> borrowing_limit;
  std::optional<Amount> lending_limit;
};

struct FlavorQuotas {
  std::string name;  // flavor name
  std::vector<ResourceQuota> resources;
};

struct ResourceGroup {
  std::vector<std::string> covered_resources;
  std::vector<FlavorQuotas> flavors;
};

enum class QueueingStrategy { kBestEffortFIFO, kStrictFIFO };

enum class PreemptionPolicy { kNever, kLowerPriority, kLowerOrNewerEqualPriority, kAny };

enum class BorrowWithinCohortPolicy { kNever, kLowerPriority };

struct BorrowWithinCohort {
  BorrowWithinCohortPolicy policy = BorrowWithinCohortPolicy::kNever;
  std::optional<int32_t> max_priority_threshold;
};

struct ClusterQueuePreemption {
  PreemptionPolicy within_cluster_queue = PreemptionPolicy::kNever;
  PreemptionPolicy reclaim_within_cohort = PreemptionPolicy::kNever;
  std::optional<BorrowWithinCohort> borrow_within_cohort;
};

enum class FungibilityPolicy { kMayStopSearch, kTryNextFlavor };
enum class FungibilityPreference { kNone, kBorrowingOverPreemption, kPreemptionOverBorrowing };

struct FlavorFungibility {
  FungibilityPolicy when_can_borrow = FungibilityPolicy::kMayStopSearch;
  FungibilityPolicy when_can_preempt = FungibilityPolicy::kTryNextFlavor;
  FungibilityPreference preference = FungibilityPreference::kNone;
};

enum class StopPolicy { kNone, kHold, kHoldAndDrain };

enum class AdmissionMode { kNone, kUsageBasedAdmissionFairSharing, kNoAdmissionFairSharing };

struct AdmissionCheckRef {
  std::string name;
  std::vector<std::string> on_flavors;  // empty: every flavor
};

// ClusterQueue (spec).
struct ClusterQueue {
  ObjectMeta meta;
  std::vector<ResourceGroup> resource_groups;
  std::string cohort;
  QueueingStrategy queueing_strategy = QueueingStrategy::kBestEffortFIFO;
  LabelSelector namespace_selector;  // nil (not present) matches no namespace
  FlavorFungibility flavor_fungibility;
  ClusterQueuePreemption preemption;
  double fair_weight = 1.0;  // fairSharing.weight as Kueue reads it (float)
  std::vector<AdmissionCheckRef> admission_checks;
  StopPolicy stop_policy = StopPolicy::kNone;
  AdmissionMode admission_mode = AdmissionMode::kNone;
};

// Cohort (spec).
struct Cohort {
  ObjectMeta meta;
  std::string parent;
  std::vector<ResourceGroup> resource_groups;
  double fair_weight = 1.0;
};

// LocalQueue (spec, plus the admission-fair-sharing status it starts with).
struct LocalQueue {
  ObjectMeta meta;
  std::string cluster_queue;
  StopPolicy stop_policy = StopPolicy::kNone;
  double fair_weight = 1.0;
  // status.fairSharing.admissionFairSharingStatus
  std::map<std::string, Amount> afs_consumed;  // canonical amounts
  std::optional<UnixMicros> afs_last_update;
};

struct WorkloadPriorityClass {
  ObjectMeta meta;
  int32_t value = 0;
};

// scheduling.k8s.io/v1 PriorityClass.
struct PriorityClass {
  ObjectMeta meta;
  int32_t value = 0;
  bool global_default = false;
};

// A resource and its canonical amount.
struct ResourceAmount {
  std::string name;
  Amount amount = 0;
  bool operator==(const ResourceAmount& other) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ResourceAmount& r) {
    return H::combine(std::move(h), r.name, r.amount);
  }
};

struct Namespace {
  ObjectMeta meta;
};

// v1 LimitRange: per-type bounds and defaults of a namespace's containers
// and pods (spec.limits[]). Kueue applies the Container and Pod items to the
// workloads it charges (pkg/util/limitrange, pkg/workload/resources.go).
struct LimitRangeItem {
  std::string type;  // "Container", "Pod", "PersistentVolumeClaim", ...
  std::vector<ResourceAmount> max;
  std::vector<ResourceAmount> min;
  std::vector<ResourceAmount> default_limits;    // default
  std::vector<ResourceAmount> default_requests;  // defaultRequest
};

struct LimitRange {
  ObjectMeta meta;
  std::vector<LimitRangeItem> limits;
};

// node.k8s.io/v1 RuntimeClass: its overhead.podFixed is added to the pods
// that name it and set no overhead of their own (Kueue's handlePodOverhead).
struct RuntimeClass {
  ObjectMeta meta;
  std::optional<std::vector<ResourceAmount>> pod_fixed_overhead;  // nullopt: no overhead
};

// A duration drawn at random (with the run's seed) or fixed: "90s",
// "uniform(1m, 5m)", "exponential(2m)" (mean), "normal(5m, 1m)" (mean,
// standard deviation; clamped at 0).
struct DurationDistribution {
  enum class Kind : uint8_t { kFixed, kUniform, kExponential, kNormal };
  Kind kind = Kind::kFixed;
  SimDuration a = 0;  // fixed value, uniform low, exponential / normal mean
  SimDuration b = 0;  // uniform high, normal standard deviation
  std::string text;   // as written, for reports
};

// kueuesim.io/check-* annotations of an AdmissionCheck whose controller the
// simulation does not model: after `delay`, the check turns Ready, Retry or
// Rejected with the given probabilities (parts per million); `never`: it
// is never answered (Kueue holds the workload at QuotaReserved).
struct SimulatedCheckBehavior {
  bool never = false;
  DurationDistribution delay;
  int32_t ready_ppm = 1000000;
  int32_t retry_ppm = 0;
  int32_t rejected_ppm = 0;
  // requeueAfterSeconds the controller sets with Retry; nullopt: none (the
  // workload is evicted at once).
  std::optional<int32_t> retry_after_seconds;
};

// AdmissionCheck (spec and the status conditions the simulation starts with).
struct AdmissionCheck {
  ObjectMeta meta;
  std::string controller_name;
  // spec.parameters: the object configuring the check (for MultiKueue, a
  // MultiKueueConfig).
  std::string parameters_api_group;
  std::string parameters_kind;
  std::string parameters_name;
  bool active = true;
  // kueuesim: how the simulation answers a check of a controller it does
  // not model (annotations kueuesim.io/check-*); nullopt: not declared.
  std::optional<SimulatedCheckBehavior> simulated;
};

// The AdmissionCheck controller name of Kueue's ProvisioningRequest check.
inline constexpr const char* kProvisioningRequestControllerName = "kueue.x-k8s.io/provisioning-request";

enum class PodSetMergePolicy : uint8_t { kNone, kIdenticalPodTemplates, kIdenticalWorkloadSchedulingRequirements };

// kueue.x-k8s.io ProvisioningRequestConfig (spec), with the CRD defaults.
struct ProvisioningRequestConfig {
  ObjectMeta meta;
  std::string provisioning_class_name;
  std::map<std::string, std::string> parameters;
  std::vector<std::string> managed_resources;  // empty: every resource
  int32_t backoff_limit_count = 3;
  int32_t backoff_base_seconds = 60;
  int32_t backoff_max_seconds = 1800;
  struct NodeSelectorUpdate {
    std::string key;
    std::string value_from_provisioning_class_detail;
  };
  std::vector<NodeSelectorUpdate> pod_set_update_node_selectors;
  PodSetMergePolicy pod_set_merge_policy = PodSetMergePolicy::kNone;
};

// kueuesim.io/v1alpha1 AutoscalerPool: a node group the simulated cluster
// autoscaler grows and shrinks to answer ProvisioningRequests.
struct AutoscalerPool {
  ObjectMeta meta;
  // ProvisioningRequest classes it serves; empty: every class.
  std::vector<std::string> provisioning_classes;
  // The node shape.
  Labels node_labels;
  std::vector<Taint> taints;
  std::map<std::string, Amount> allocatable;  // canonical amounts
  int32_t min_nodes = 0;
  int32_t max_nodes = 0;
  std::optional<int32_t> initial_nodes;  // default min_nodes
  DurationDistribution provisioning_time;  // scale-up request to node ready
  SimDuration scale_down_delay = 10 * kMinute;
  // How many nodes of the shape the cloud can supply over time (the pool's
  // size cannot grow above it); nullopt: max_nodes at all times.
  std::vector<std::pair<SimTime, int32_t>> capacity;  // (from, nodes), ascending
  // Windows in which no node can be obtained (from, until).
  std::vector<std::pair<SimTime, SimTime>> stockouts;
};

// The AdmissionCheck controller name of MultiKueue.
inline constexpr const char* kMultiKueueControllerName = "kueue.x-k8s.io/multikueue";

// MultiKueueConfig: the worker clusters of a MultiKueue admission check, in
// the order the Incremental dispatcher nominates them.
struct MultiKueueConfig {
  ObjectMeta meta;
  std::vector<std::string> clusters;  // MultiKueueCluster names
  std::string quota_management = "Manual";  // or "Automated"
};

// MultiKueueCluster: a connection to a worker cluster. The simulated cluster
// it reaches is the scenario cluster of the same name, or the one named by
// the kueuesim.io/cluster-ref annotation.
struct MultiKueueCluster {
  ObjectMeta meta;
  std::string target_cluster;
  std::string kubeconfig_location;  // as written, for messages
  bool active = true;  // status condition Active at the start
};

// Topology (levels from the top down).
struct Topology {
  ObjectMeta meta;
  std::vector<std::string> levels;
};

// What the nodes of one NodePool share (a Node written on its own, or
// added by a Change, has one of its own).
struct NodeTemplate {
  Labels labels;  // without the labels a node holds on its own (see Node)
  std::map<std::string, Amount> allocatable;  // canonical amounts
  std::vector<Taint> taints;
  SourceRef source;
  std::string cluster;
};

// v1 Node: what topology-aware scheduling reads. Compact, so that a million
// generated nodes cost tens of bytes each: the node holds its name and
// status; labels, allocatable and taints live in a template shared by the
// nodes of a pool, and the topology level labels in one shared list per
// innermost domain. A node's labels are the template's, then its domain's,
// then kubernetes.io/hostname = name when `hostname_label` is set (later
// ones win).
struct Node {
  std::string name;
  std::shared_ptr<const NodeTemplate> shared;  // never null (Node() makes an empty one)
  std::shared_ptr<const Labels> domain_labels;  // may be null
  bool hostname_label = false;
  bool unschedulable = false;
  bool ready = true;

  Node();
  // A node with a template of its own.
  Node(std::string name, NodeTemplate own);

  // The value of label `key`, or null.
  const std::string* FindLabel(const std::string& key) const;
  // Whether the node has every label of `wanted` with its value.
  bool HasLabels(const Labels& wanted) const;
  // Every label, merged (allocates: for cold paths).
  Labels AllLabels() const;
  const std::map<std::string, Amount>& allocatable() const { return shared->allocatable; }
  const std::vector<Taint>& taints() const { return shared->taints; }
  const SourceRef& source() const { return shared->source; }
  const std::string& cluster() const { return shared->cluster; }
};

// A pod Kueue does not manage (no queue name) that is bound to a node
// (spec.nodeName) and not terminated: topology-aware scheduling counts its
// request and one pod against the node (Kueue's non-TAS usage cache,
// pkg/cache/scheduler/tas_non_tas_pod_cache.go, fed by the pod usage
// controller). Pods with a topology annotation (utiltas.IsTAS) are not
// counted.
struct BoundPod {
  std::string node_name;
  std::vector<ResourceAmount> requests;  // the pod's effective request
};

// --- Workloads ---

// Pod-set topology request (kueue.x-k8s.io PodSetTopologyRequest).
struct SliceLayer {
  std::string topology;  // level label
  int32_t size = 1;
};

struct TopologyRequest {
  std::optional<std::string> required;
  std::optional<std::string> preferred;
  // Set (true or false) counts as an explicit request, as in Kueue.
  std::optional<bool> unconstrained;
  std::optional<std::string> pod_index_label;
  // The pods' kueue.x-k8s.io/pod-index-offset annotation: the TopologyUngater
  // subtracts it from the pod index to get the rank (set by Kueue's
  // LeaderWorkerSet webhook on a worker template next to a leader template).
  std::optional<int32_t> pod_index_offset;
  std::optional<std::string> sub_group_index_label;
  std::optional<int32_t> sub_group_count;
  std::optional<std::string> pod_set_group_name;
  std::vector<SliceLayer> slice_layers;  // coarse to fine

  // workload.IsExplicitlyRequestingTAS.
  bool IsExplicit() const {
    return unconstrained.has_value() || required.has_value() || preferred.has_value() ||
           !slice_layers.empty();
  }
};

// A pod's spec.resourceClaims[] entry: a claim template (a fresh claim per
// pod) or a claim referenced by name (shared; Kueue refuses those).
struct PodResourceClaim {
  std::string name;
  std::string resource_claim_template_name;
  std::string resource_claim_name;
};

// The containers' and the pod's resources as written (pod_resources.h).
struct PodResources;

struct PodSet {
  std::string name = "main";
  int32_t count = 1;
  std::optional<int32_t> min_count;
  // The Workload's status.reclaimablePods count for this pod set: pods whose
  // requests are no longer needed (finished pods of a Job). With the
  // ReclaimablePods gate Kueue charges count - min(reclaimable, count)
  // (workload.podSetsCountsAfterReclaim).
  int32_t reclaimable = 0;
  // The pod's effective request as Kubernetes computes it (containers, init
  // containers, sidecars and overhead), per pod, canonical amounts, sorted by
  // resource name.
  std::vector<ResourceAmount> requests;
  // The containers' requests of resources named with a domain prefix
  // ("<domain>/<name>"), aggregated as Kueue's DRA extended-resource quota
  // does (pkg/dra ResolveExtendedResourceQuota): max(max over the init
  // containers, sidecars included, sum over the regular containers), per
  // pod, sorted by name; pod-level resources and overhead are not in it.
  std::vector<ResourceAmount> container_extended_requests;
  // Containers (or the pod-level resources) whose requests exceed their
  // limits, as Kueue's ValidateResources finds them before flavor assignment
  // (the workload is left pending, Misconfigured): the path under the pod
  // template's spec ("initContainers[0]", "containers[1]", "resources") and
  // the resource names, sorted. Empty for a valid pod set.
  struct RequestsAboveLimits {
    std::string path;
    std::vector<std::string> resources;
    bool operator==(const RequestsAboveLimits& other) const = default;
  };
  // Containers (or the pod) whose requests break the namespace's LimitRanges
  // (Kueue's ValidateLimitRange after AdjustResources): the workload is left
  // pending, Misconfigured. `path` is under the pod template's spec
  // ("containers[0]"; empty for the pod as a whole), `above_max` tells the
  // max check from the min check; Kueue's order (init containers, then
  // containers, then the pod; max before min).
  struct LimitRangeViolation {
    std::string path;
    std::vector<std::string> resources;
    bool above_max = true;
    bool operator==(const LimitRangeViolation& other) const = default;
  };
  // What a plain pod template leaves empty: its scheduling constraints,
  // claims and validation findings. Kept in a LazyBox (`rare`, read as
  // empty until written through rare.Mutable()), so that a pod set without
  // them is 216 bytes smaller; a large load holds tens of thousands.
  struct RareFields {
    // Empty for a valid pod set (see RequestsAboveLimits).
    std::vector<RequestsAboveLimits> requests_above_limits;
    std::vector<LimitRangeViolation> limit_range_violations;
    Labels node_selector;
    std::vector<NodeSelectorTerm> required_affinity;  // empty: none
    std::vector<PreferredSchedulingTerm> preferred_affinity;
    std::vector<Toleration> tolerations;
    std::string priority_class_name;  // the pod template's priorityClassName
    std::vector<PodResourceClaim> resource_claims;  // spec.resourceClaims
    bool operator==(const RareFields& other) const = default;
  };
  LazyBox<RareFields> rare;
  // The pod template's containers and pod-level resources as written, kept
  // by the loader only until the namespace's LimitRanges and the cluster's
  // RuntimeClasses have been applied (scenario loading clears it); see
  // kueuesim/model/pod_resources.h.
  std::shared_ptr<const PodResources> written_resources;
  // On the heap (base/boxed.h): 256 bytes inline, and most pod sets have none.
  Boxed<TopologyRequest> topology_request;
};

// One pod set's part of an existing admission (status.admission).
struct TopologyDomainAssignment {
  std::vector<std::string> values;  // one value per assignment level
  int32_t count = 0;
};

struct TopologyAssignment {
  std::vector<std::string> levels;
  std::vector<TopologyDomainAssignment> domains;
};

struct PodSetAssignment {
  std::string name;
  std::map<std::string, std::string> flavors;  // resource -> flavor
  std::map<std::string, Amount> resource_usage;  // totals for the pod set
  std::optional<int32_t> count;
  std::optional<TopologyAssignment> topology_assignment;
  // delayedTopologyRequest: Pending (the topology is assigned by the
  // scheduler's second pass once the admission checks are Ready).
  bool delayed_topology_pending = false;
};

struct Admission {
  std::string cluster_queue;
  std::vector<PodSetAssignment> pod_set_assignments;
};

// A Workload's Evicted condition when its status is True (evict.IsEvicted):
// the eviction is under way while the workload still holds its quota, or it
// is done and the condition stays until the next quota reservation.
struct EvictedCondition {
  std::string reason;   // "Preempted", "PodsReadyTimeout", "AdmissionCheck", ...
  std::string message;
  std::optional<UnixMicros> last_transition_time;
};

// Where a workload came from.
enum class WorkloadSourceKind { kWorkload, kJob, kPod, kPodGroup, kDeployment, kStatefulSet,
                                // Kueue's other job integrations (src/scenario/kinds/).
                                // kRayCluster and kRayService are serving: they never
                                // finish by themselves (no duration: run to the end).
                                kJobSet, kPyTorchJob, kTFJob, kXGBoostJob, kPaddleJob, kJAXJob,
                                kMPIJob, kTrainJob, kRayJob, kRayCluster, kRayService,
                                kAppWrapper, kSparkApplication };

// Workload (spec and the status the simulation starts from), plus the
// kueuesim timing annotations.
struct Workload {
  // What most Workloads leave at its default: the less common parts of the
  // spec and the status read from the input (requeue state, conditions,
  // admission checks). Kept in a LazyBox (`rare`, read as defaults until
  // written through rare.Mutable()): a Workload without them is about 250
  // bytes smaller, and a large load holds tens of thousands.
  struct RareFields {
    std::string priority_class_source;  // "kueue.x-k8s.io/workloadpriorityclass" or
                                        // "scheduling.k8s.io/priorityclass"
    std::vector<std::string> preemption_gates;  // gate names (closed)
    std::optional<int32_t> maximum_execution_time_seconds;
    // batch/v1 Job spec.activeDeadlineSeconds: the Job fails (its Workload
    // finishes) this long after each start; Kueue clears status.startTime
    // when it stops a Job, so the deadline counts again from every admission.
    std::optional<SimDuration> active_deadline;
    // The kind of the object it was made from ("Job", "Pod", "Workload", ...;
    // empty: from source_kind), for default-duration rules and messages.
    std::string object_kind;

    // status
    std::optional<UnixMicros> quota_reserved_time;  // QuotaReserved lastTransitionTime
    std::optional<UnixMicros> admitted_time;        // Admitted lastTransitionTime
    // status.requeueState: the evictions counted toward waitForPodsReady's
    // backoffLimitCount, and the end of the current backoff (the queue holds
    // the workload until then).
    int32_t requeue_count = 0;
    std::optional<UnixMicros> requeue_at;
    // status.accumulatedPastExecutionTimeSeconds
    int64_t accumulated_past_execution_seconds = 0;
    std::vector<std::pair<std::string, std::string>> admission_check_states;  // name, state
    // The Requeued condition when False: its reason (nullopt when the
    // condition is absent or True).
    std::optional<std::string> requeued_false_reason;
    // QuotaReserved=False with reason OnHold (workload.IsOnHold): its message.
    std::optional<std::string> on_hold_message;
    // Evicted=True.
    std::optional<EvictedCondition> evicted_condition;
    // WaitingForReplacementPods=True: not admissible until the job's
    // controller replaces its failed pods (workload.IsAdmissible).
    bool waiting_for_replacement_pods = false;

    // kueuesim timing (annotation kueuesim.io/startup-delay).
    std::optional<SimDuration> startup_delay;
    // Trace replay of recorded starts (trace option replayRecordedStart): the
    // workload arrives (is created) at `arrival` but enters its queue only at
    // this simulated time, its recorded start; nullopt: at arrival.
    std::optional<SimTime> hold_until;
  };

  ObjectMeta meta;
  WorkloadSourceKind source_kind = WorkloadSourceKind::kWorkload;
  bool active = true;
  bool finished = false;  // condition Finished is True
  // Position of the object in the input, for ties ("first in the file first"),
  // then among the workloads made from one object (a LeaderWorkerSet's
  // group index; input_sequence below).
  int32_t input_subsequence = 0;
  std::string queue_name;
  std::vector<PodSet> pod_sets;
  std::optional<int32_t> priority;        // spec.priority
  std::string priority_class_name;        // spec.priorityClassRef.name
  // status.admission (on the heap, base/boxed.h: few loaded Workloads have one)
  Boxed<Admission> admission;
  LazyBox<RareFields> rare;

  // kueuesim timing (annotations kueuesim.io/arrival, kueuesim.io/duration).
  SimDuration arrival = 0;
  std::optional<SimDuration> duration;  // nullopt: runs until the end
  // Position of the object in the input (input_subsequence above).
  int64_t input_sequence = 0;
};

// --- Workload kinds ---

// leaderworkerset.x-k8s.io/v1 LeaderWorkerSet, as Kueue manages it: one
// Workload per group, `size` pods per group (the leader included).
struct LeaderWorkerSet {
  ObjectMeta meta;
  std::string queue_name;           // label kueue.x-k8s.io/queue-name
  std::string priority_class_name;  // label kueue.x-k8s.io/priority-class
  int32_t replicas = 1;
  int32_t size = 1;
  // leaderTemplate (pod set "leader", count 1) when set; the workers use
  // workerTemplate (pod set "worker", count size-1), or a single pod set
  // "main" of count `size` without a leader template.
  std::optional<PodSet> leader_template;
  PodSet worker_template;
  bool startup_leader_ready = false;  // startupPolicy LeaderReady (else LeaderCreated)
  std::string restart_policy = "RecreateGroupOnPodRestart";
  std::string max_unavailable = "1";  // int or percentage
  std::string max_surge = "0";
  int32_t partition = 0;
  // kueuesim.io/leader-startup-delay and kueuesim.io/worker-startup-delay:
  // from a pod's start to its readiness.
  SimDuration leader_startup_delay = 0;
  SimDuration worker_startup_delay = 0;
  int64_t input_sequence = 0;
};

// batch/v1 CronJob: Jobs created on a cron schedule during simulated time,
// each managed by Kueue as a plain Job (Kueue has no CronJob integration).
enum class ConcurrencyPolicy : uint8_t { kAllow, kForbid, kReplace };

struct CronJob {
  ObjectMeta meta;
  std::string schedule;   // spec.schedule (robfig/cron standard syntax)
  std::string time_zone;  // spec.timeZone; empty: the controller's zone (UTC)
  ConcurrencyPolicy concurrency_policy = ConcurrencyPolicy::kAllow;
  bool suspend = false;
  std::optional<int64_t> starting_deadline_seconds;
  int32_t successful_jobs_history_limit = 3;
  int32_t failed_jobs_history_limit = 1;
  // The Workload of each Job, as DecodeJob makes it from spec.jobTemplate
  // (name and arrival are set per Job); nullopt when the template has no
  // queue name (Kueue ignores the Jobs).
  std::optional<Workload> job_workload;
  // kueuesim.io/arrival of the CronJob: when it is created (its schedule
  // starts then; an earlier creationTimestamp counts from the start time).
  SimDuration arrival = 0;
  int64_t input_sequence = 0;
};

// kueuesim.io/v1alpha1 Change: something that happens to an object at a
// given time (scaling, a template change, a pod failure).
struct Change {
  SourceRef source;
  std::string name;
  SimTime at = 0;
  std::string target_kind;
  std::string target_namespace;
  std::string target_name;
  std::optional<int32_t> replicas;   // scale to
  bool rollout = false;              // a template change: a new revision
  std::optional<int32_t> partition;  // the rolling update partition
  std::optional<int32_t> fail_group; // a pod of this group fails (restart policy)
  // MultiKueueCluster: the connection to the worker is lost (false) or back
  // (true).
  std::optional<bool> connected;
  // ClusterQueue and Cohort: quota edits of existing flavor/resource pairs.
  struct QuotaEdit {
    std::string flavor;
    std::string resource;
    std::optional<Amount> nominal;
    bool set_borrowing_limit = false;
    std::optional<Amount> borrowing_limit;  // nullopt: no limit
    bool set_lending_limit = false;
    std::optional<Amount> lending_limit;    // nullopt: no limit
  };
  std::vector<QuotaEdit> quota_edits;
  std::optional<double> fair_weight;         // ClusterQueue, Cohort
  std::optional<StopPolicy> stop_policy;     // ClusterQueue, LocalQueue
  std::optional<int32_t> priority_value;     // WorkloadPriorityClass
  // Node: action Add (with `node`, the new Node) or Remove; the Ready
  // condition and spec.unschedulable of an existing node.
  enum class NodeAction : uint8_t { kNone, kAdd, kRemove };
  NodeAction node_action = NodeAction::kNone;
  std::optional<Node> node;
  std::optional<bool> node_ready;
  std::optional<bool> node_unschedulable;
  // AutoscalerPool: the nodes the cloud can supply from now on (capacity
  // timeline), and the start or end of a stockout.
  std::optional<int32_t> pool_capacity;
  std::optional<bool> pool_stockout;
};

// --- DRA (resource.k8s.io/v1) ---

// A device attribute value: int, bool, string or version (kept as text).
// A device attribute: one value (int, bool, string, version) or, with the
// list fields of Kubernetes' DRAListTypeAttributes (ints, bools, strings,
// versions), a non-empty list of values of one type (`is_list`).
struct DeviceAttribute {
  enum class Type { kInt, kBool, kString, kVersion };
  Type type = Type::kString;
  int64_t int_value = 0;
  bool bool_value = false;
  std::string string_value;  // string or version
  bool is_list = false;
  std::vector<int64_t> int_values;
  std::vector<bool> bool_values;
  std::vector<std::string> string_values;  // strings or versions
};

struct DeviceCapacity {
  Quantity value;
  // requestPolicy
  std::optional<Quantity> default_value;
  std::vector<Quantity> valid_values;  // ascending
  std::optional<Quantity> range_min;
  std::optional<Quantity> range_max;
  std::optional<Quantity> range_step;
};

struct DeviceCounterConsumption {
  std::string counter_set;
  std::map<std::string, Quantity> counters;
};

struct Device {
  std::string name;
  // Attribute and capacity names are qualified: "<domain>/<id>"; a bare id
  // is qualified with the driver's name by the decoder.
  std::map<std::string, DeviceAttribute> attributes;
  std::map<std::string, DeviceCapacity> capacity;
  std::vector<DeviceCounterConsumption> consumes_counters;
  bool allow_multiple_allocations = false;
};

struct ResourceSlice {
  ObjectMeta meta;
  std::string driver;
  std::string pool_name;
  int64_t pool_generation = 0;
  int64_t pool_resource_slice_count = 1;
  std::string node_name;  // empty: not node-local (nodeSelector / allNodes)
  bool all_nodes = false;
  std::vector<Device> devices;
  // sharedCounters: counter set -> counter -> value.
  std::map<std::string, std::map<std::string, Quantity>> shared_counters;
};

struct DeviceClass {
  ObjectMeta meta;
  std::vector<std::string> selectors;  // CEL expressions
  std::string extended_resource_name;
};

struct DeviceRequest {
  std::string name;
  // exactly
  bool exactly = false;
  std::string device_class_name;
  std::vector<std::string> selectors;  // CEL expressions
  std::string allocation_mode = "ExactCount";  // or "All"
  int64_t count = 1;
  bool admin_access = false;
  std::map<std::string, Quantity> capacity_requests;
  // firstAvailable (Kueue refuses it); the number of sub-requests.
  int32_t first_available = 0;
};

struct ResourceClaimTemplate {
  ObjectMeta meta;
  std::vector<DeviceRequest> requests;
};

// Configuration resources.deviceClassMappings[].
struct DeviceClassMappingSource {
  enum class Kind { kCounter, kCapacity };
  Kind kind = Kind::kCounter;
  std::string name;    // counter name or capacity name
  std::string driver;
  std::string device_selector;  // CEL expression, may be empty
};

struct DeviceClassMapping {
  std::string name;  // the logical resource name used in quotas
  std::vector<std::string> device_class_names;
  std::vector<DeviceClassMappingSource> sources;
};

// --- Configuration (config.kueue.x-k8s.io) ---

enum class FairSharingStrategy { kLessThanOrEqualToFinalShare, kLessThanInitialShare };

struct FairSharingConfig {
  std::vector<FairSharingStrategy> preemption_strategies;
};

struct AdmissionFairSharingConfig {
  SimDuration usage_half_life_time = 0;
  SimDuration usage_sampling_interval = 5 * kMinute;
  std::map<std::string, double> resource_weights;
};

enum class RequeuingTimestamp { kEviction, kCreation };

struct WaitForPodsReadyConfig {
  bool enable = false;
  SimDuration timeout = 30 * kMinute;
  bool block_admission = false;
  std::optional<SimDuration> recovery_timeout;
  RequeuingTimestamp requeuing_timestamp = RequeuingTimestamp::kEviction;
  std::optional<int32_t> backoff_limit_count;
  int32_t backoff_base_seconds = 60;
  int32_t backoff_max_seconds = 3600;
};

enum class TransformationStrategy { kRetain, kReplace };

struct ResourceTransformation {
  std::string input;
  TransformationStrategy strategy = TransformationStrategy::kRetain;
  // Output resource -> quantity per unit of input, kept exact.
  std::vector<std::pair<std::string, Quantity>> outputs;
};

// Configuration multiKueue (v1beta2), with Kueue's defaults.
struct MultiKueueSettings {
  SimDuration gc_interval = kMinute;
  std::string origin = "multikueue";
  SimDuration worker_lost_timeout = 15 * kMinute;
  std::string dispatcher_name = "kueue.x-k8s.io/multikueue-dispatcher-all-at-once";
  std::optional<int32_t> incremental_step_size;  // default 3
};

struct Configuration {
  SourceRef source;
  std::string api_version;
  std::optional<FairSharingConfig> fair_sharing;
  std::optional<AdmissionFairSharingConfig> admission_fair_sharing;
  WaitForPodsReadyConfig wait_for_pods_ready;
  std::vector<std::string> exclude_resource_prefixes;
  std::vector<ResourceTransformation> transformations;
  bool quota_check_ignore_undeclared = false;
  std::vector<DeviceClassMapping> device_class_mappings;
  MultiKueueSettings multi_kueue;
  std::map<std::string, bool> feature_gates;  // as written; defaults in FeatureGates
};

}  // namespace kueuesim::model

#endif  // KUEUESIM_MODEL_OBJECTS_H_
