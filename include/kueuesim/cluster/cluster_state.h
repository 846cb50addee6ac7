// The compiled state of one simulated Kueue: the objects of a ClusterSpec
// interned into ids and flat arrays (the "cache" of Kueue's
// pkg/cache/scheduler), plus the live workloads.
//
// Names are interned once when the state is built; the admission loop
// works only with the ids below.
#ifndef KUEUESIM_CLUSTER_CLUSTER_STATE_H_
#define KUEUESIM_CLUSTER_CLUSTER_STATE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "kueuesim/base/boxed.h"
#include "kueuesim/base/optional_micros.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/base/time.h"
#include "kueuesim/cluster/pending_condition.h"
#include "kueuesim/dra/charger.h"
#include "kueuesim/model/feature_gates.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/quota/quota_tree.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/topology/tas_flavor_snapshot.h"

namespace kueuesim::cluster {

using quota::FrAmount;
using quota::FrAmountList;
using quota::FrId;
using quota::NodeId;
using quota::ResourceId;
using FlavorId = int32_t;
using CqId = int32_t;
using LqId = int32_t;
using NamespaceId = int32_t;
using WorkloadId = int32_t;
inline constexpr int32_t kNone = -1;

// A resource and an amount, by id.
struct ResourceAmount {
  ResourceId resource = kNone;
  Amount amount = 0;
};

// Requests by resource id. Inline: a pod asks for a few resources.
using ResourceAmountList = absl::InlinedVector<ResourceAmount, 4>;

struct FlavorInfo {
  std::string name;
  bool exists = false;  // false: only referenced, no ResourceFlavor object
  const model::ResourceFlavor* spec = nullptr;
};

struct ResourceGroupInfo {
  std::vector<ResourceId> covered;  // coveredResources, in order
  std::vector<FlavorId> flavors;    // in preference order
  // frs[flavor_index * covered.size() + resource_index]
  std::vector<FrId> frs;
  FrId Fr(size_t flavor_index, size_t resource_index) const {
    return frs[flavor_index * covered.size() + resource_index];
  }
};

struct ClusterQueueInfo {
  std::string name;
  NodeId node = quota::kNoNode;
  const model::ClusterQueue* spec = nullptr;
  std::vector<ResourceGroupInfo> groups;
  // Resource group covering each resource id, or kNone.
  std::vector<int32_t> group_of_resource;
  bool covers_pods = false;
  bool active = true;
  std::string inactive_reason;
  bool stopped = false;  // stopPolicy Hold or HoldAndDrain (changes over time)
  // Bumped on every workload removal and quota change (Kueue's
  // AllocatableResourceGeneration; drives the flavor-scan cursor).
  int64_t allocatable_generation = 1;
  // Workloads holding quota here (reserved or admitted), unordered.
  std::vector<WorkloadId> holding;

  int32_t GroupOf(ResourceId resource) const {
    return resource >= 0 && static_cast<size_t>(resource) < group_of_resource.size()
               ? group_of_resource[static_cast<size_t>(resource)]
               : kNone;
  }
};

struct LocalQueueInfo {
  std::string namespace_;
  std::string name;
  NamespaceId ns = kNone;
  CqId cq = kNone;  // kNone: points to a missing ClusterQueue
  const model::LocalQueue* spec = nullptr;
  model::StopPolicy stop_policy = model::StopPolicy::kNone;  // current (changes over time)
};

struct NamespaceInfo {
  std::string name;
  model::Labels labels;
  bool exists = false;
};

// A pod set as the scheduler sees it.
struct PodSetInfo {
  const model::PodSet* spec = nullptr;
  int32_t count = 0;      // after reclaimable pods
  int32_t min_count = 0;  // == count when not partially admissible
  // Per-pod requests after excluded prefixes and transformations, sorted by
  // resource name, zero entries kept (Kueue ignores them where it matters).
  ResourceAmountList per_pod;
  // The pod template's requests (resources.NewRequestsFromPodSpec: before
  // excluded prefixes and transformations) in TAS resource ids, for
  // topology-aware scheduling; empty when no flavor uses TAS.
  topology::Requests tas_per_pod;
};

// The admission a workload holds (status.admission).
struct PodSetAdmission {
  int32_t count = 0;
  // One entry per resource with an assigned flavor.
  struct Entry {
    ResourceId resource = kNone;
    FlavorId flavor = kNone;
    Amount usage = 0;  // total for the pod set
  };
  absl::InlinedVector<Entry, 2> entries;
  std::optional<model::TopologyAssignment> topology_assignment;
  // delayedTopologyRequest: Pending (topology to be assigned by a second
  // pass, after a ProvisioningRequest, or on the worker with MultiKueue).
  bool delayed_topology_pending = false;
};

struct AdmissionState {
  CqId cq = kNone;
  // Parallel to WorkloadRecord::pod_sets. (Inline: most workloads have one
  // pod set, and every admission builds one of these.)
  absl::InlinedVector<PodSetAdmission, 1> pod_sets;
  FrAmountList usage;  // aggregated quota usage
};

// The flavor-scan cursor (workload.AssignmentClusterQueueState).
struct LastAssignmentState {
  // Per assigned pod set (in assignment order): resource -> last tried
  // flavor index (-1: the scan reached the end).
  // (Inline: recorded for every head of every cycle.)
  using TriedFlavors = absl::InlinedVector<std::pair<ResourceId, int32_t>, 2>;
  absl::InlinedVector<TriedFlavors, 1> last_tried_flavor_idx;
  int64_t cluster_queue_generation = 0;
  int64_t scheduling_cycle = 0;
  uint64_t scheduling_hash = 0;

  bool PendingFlavors() const;
  int32_t NextFlavorToTry(size_t pod_set, ResourceId resource) const;
};

// What a head's last nomination found when it could not be admitted (no
// flavor fit: NoFit, or Preempt with no workload to preempt) and the result
// depended only on its ClusterQueue's quotas and on the usage along the
// ClusterQueue's path to its root (admission/scheduler.cc says when). While
// those, the workload and its pending condition are unchanged, nominating it
// again finds the same, and the scheduler reuses this instead of assigning
// flavors again.
struct NominationMemo {
  bool valid = false;
  bool preempt = false;  // Preempt mode with no targets (else NoFit)
  CqId cq = kNone;
  int32_t borrowing = 0;
  QuotaReservedReason no_fit_reason = QuotaReservedReason::kNone;
  uint64_t scheduling_hash = 0;
  uint64_t quota_generation = 0;
  // Usage of the ClusterQueue's FRs (defined_frs) at the ClusterQueue, then
  // at each cohort up to the root, as the nomination saw it.
  absl::InlinedVector<Amount, 4> path_usage;
  FrAmountList usage;  // the assignment's quota usage
  LastAssignmentState last_state;
};

// Whether a queue holds the workload: kQueued is active or parked (the
// queue manager's Placement tells which), kInflight popped by the current
// cycle.
enum class QueueState : uint8_t { kNotQueued, kQueued, kInflight };

enum class WorkloadPhase : uint8_t {
  kNotArrived,
  kPending,        // waiting in a queue (or without one)
  kQuotaReserved,  // quota reserved, admission checks pending
  kAdmitted,       // quota reserved and every check ready
  kFinished,
  kDeactivated,
};

// "Pending", "QuotaReserved", "Admitted", ... for messages.
std::string_view WorkloadPhaseName(WorkloadPhase phase);

enum class EvictionReason : uint8_t {
  kNotEvicted,
  kPreempted,
  kPodsReadyTimeout,
  kAdmissionCheck,
  kClusterQueueStopped,
  kLocalQueueStopped,
  kDeactivated,
  kNodeFailures,
};

std::string_view EvictionReasonName(EvictionReason reason);

// The state of one admission check for a workload (status.admissionChecks).
enum class CheckState : uint8_t { kPending, kReady, kRetry, kRejected };

struct AdmissionCheckStatus {
  int32_t check = kNone;  // index of the AdmissionCheck in the cluster spec
  CheckState state = CheckState::kPending;
  // The check's message (status.admissionChecks[].message), set by its
  // controller (ClusterRuntime::SetAdmissionCheckState).
  std::string message = {};  // (defaulted: {check, state} stays a complete initializer)
};

// The state of a workload record that most records never need: what its
// admissions, evictions and admission checks left behind, and Kueue's
// refusals. A record keeps it in a LazyBox (its `rare` member): a pointer
// until one of these is written, so that a pending workload's record stays
// small (a large load holds tens of thousands of them).
struct WorkloadRecordRareState {
  SimDuration lost_run_time = 0;  // run time thrown away by the last eviction
  // The Evicted condition's message of the last eviction (Kueue's wording,
  // e.g. "Preempted to accommodate a workload (UID: ...) due to ...").
  std::string eviction_message;
  UnixMicros evicted_at = 0;
  std::optional<SimTime> recovery_deadline;
  // Admission checks of its ClusterQueue that apply to its flavors, while
  // it holds quota.
  std::vector<AdmissionCheckStatus> checks;
  // Why the last deactivation happened (RequeuingLimitExceeded,
  // AdmissionCheck).
  std::string_view deactivation_reason;
  // Non-empty when Kueue's workload controller refuses to queue it (DRA:
  // QuotaReserved=False reason Misconfigured, Requeued=False): the
  // condition message. Set by AddWorkload for workloads not admitted in
  // their input status.
  std::string inadmissible_reason;
  // Admitted time thrown away by evictions so far (Kueue's
  // accumulatedPastExecutionTimeSeconds counts it toward
  // maximumExecutionTimeSeconds).
  SimDuration accumulated_execution = 0;
  // status.unhealthyNodes: nodes of its topology assignment that failed
  // (TASFailedNodeReplacement); cleared by a replacement or an eviction.
  std::vector<std::string> unhealthy_nodes;
  // Statistics.
  int32_t times_evicted = 0;
  int32_t times_preempted = 0;
};

struct WorkloadRecord {
  // (A large load holds tens of thousands of records: the members are
  // ordered so that none leaves padding, the flags and one-byte states
  // together at the end.)

  // Identity.
  std::string key;  // "namespace/name"
  std::shared_ptr<const model::Workload> spec;
  NamespaceId ns = kNone;
  LqId lq = kNone;
  int32_t priority = 0;
  int32_t input_subsequence = 0;
  UnixMicros creation = 0;
  int64_t input_sequence = 0;
  absl::InlinedVector<PodSetInfo, 1> pod_sets;  // (most workloads have one)
  uint64_t scheduling_hash = 0;

  // The controller that owns the workload (an LWS group), or kNone; the
  // owner drives its pods' readiness.
  int32_t owner = kNone;
  int32_t owner_index = 0;

  // Timing (simulated).
  SimTime arrival = 0;
  std::optional<SimDuration> duration;
  SimDuration startup_delay = 0;

  // Life cycle (its phase and queue state are among the flags below).
  CqId queued_cq = kNone;   // the ClusterQueue whose queue holds it
  int32_t holding_index = kNone;  // position in ClusterQueueInfo::holding
  // On the heap (base/boxed.h): a record without them, the pending and the
  // finished, is 250 bytes smaller, and a large load holds tens of
  // thousands of records.
  Boxed<LastAssignmentState> last_assignment;
  Boxed<AdmissionState> admission;
  UnixMicros quota_reserved_at = 0;
  SimTime admitted_at = 0;
  SimTime running_since = 0;  // when its pods started (for work lost)
  // Eviction, admission-check and refusal state (read as defaults until
  // written through rare.Mutable()).
  LazyBox<WorkloadRecordRareState> rare;
  // Why it waits: its QuotaReserved=False condition (reason, message
  // figures, since when), kept while it holds no quota and left as it was
  // once it reserves quota (see pending_condition.h). Out of line (read as
  // no condition until one is written): a loaded cluster's workloads have
  // none until a cycle looks at them, and those that never wait never do.
  LazyBox<PendingCondition> pending;
  // The last nomination, when the scheduler may reuse it (see
  // NominationMemo); made on first use.
  LazyBox<NominationMemo> nomination_memo;
  // Queue-order timestamp (workload.Ordering.GetQueueOrderTimestamp).
  UnixMicros queue_order_timestamp = 0;
  // Requeue state (status.requeueState) and the Requeued condition (its
  // flag is among the flags below).
  OptionalMicros requeue_at;
  int32_t requeue_count = 0;
  uint32_t run_generation = 0;    // invalidates stale timed events

  // Statistics.
  SimTime first_reserved_at = -1;
  SimTime finished_at = -1;

  // One-byte states and flags.
  WorkloadPhase phase = WorkloadPhase::kNotArrived;
  QueueState queue_state = QueueState::kNotQueued;
  EvictionReason eviction_reason = EvictionReason::kNotEvicted;
  bool partially_admissible = false;
  bool has_closed_preemption_gate = false;
  bool evicted = false;       // eviction issued, quota not yet released
  bool pods_ready = false;
  // Whether the pods were ready since the admission: Kueue's PodsReady
  // timeout then no longer applies, only recoveryTimeout (from when they
  // stopped being ready, at recovery_deadline).
  bool pods_ready_once = false;
  // Runs elsewhere (a MultiKueue worker): its check controller reports pod
  // readiness and completion instead of the runtime's timers.
  bool runs_remotely = false;
  bool requeued_condition_false = false;
  // The input's requeue state was looked at (on its first arrival).
  bool input_backoff_seen = false;
  bool snapshot_removed = false;  // removed from the snapshot by a simulation
  // Admitted in the running cycle: its usage counts, but the cycle's
  // snapshot does not list it among the queue's workloads yet.
  bool admitted_in_cycle = false;

  bool HoldsQuota() const { return admission.has_value(); }
};

class TasCache;

// The compiled objects of one cluster.
class ClusterState {
 public:
  // Builds the state from a validated ClusterSpec. `start_time` is the
  // wall-clock time of simulated time 0.
  static absl::StatusOr<std::unique_ptr<ClusterState>> Build(const scenario::ClusterSpec& spec,
                                                             UnixMicros start_time,
                                                             SimDuration default_startup_delay);
  ~ClusterState();

  const std::string& name() const { return name_; }
  const model::FeatureGates& gates() const { return gates_; }
  const model::Configuration& configuration() const { return configuration_; }
  bool fair_sharing_enabled() const { return configuration_.fair_sharing.has_value(); }
  UnixMicros start_time() const { return start_time_; }
  UnixMicros WallTime(SimTime t) const { return start_time_ + t; }

  // Interned names.
  const std::string& resource_name(ResourceId r) const { return resources_[static_cast<size_t>(r)]; }
  int32_t resource_rank(ResourceId r) const { return resource_rank_[static_cast<size_t>(r)]; }
  int num_resources() const { return static_cast<int>(resources_.size()); }
  ResourceId FindResource(std::string_view name) const;
  ResourceId pods_resource() const { return pods_resource_; }
  const FlavorInfo& flavor(FlavorId f) const { return flavors_[static_cast<size_t>(f)]; }
  int num_flavors() const { return static_cast<int>(flavors_.size()); }
  FlavorId FindFlavor(std::string_view name) const;
  FrId FindFr(FlavorId flavor, ResourceId resource) const;
  FlavorId fr_flavor(FrId fr) const { return fr_flavor_[static_cast<size_t>(fr)]; }
  ResourceId fr_resource(FrId fr) const { return fr_resource_[static_cast<size_t>(fr)]; }

  quota::QuotaTree& tree() { return *tree_; }
  const quota::QuotaTree& tree() const { return *tree_; }

  int num_cluster_queues() const { return static_cast<int>(cqs_.size()); }
  ClusterQueueInfo& cq(CqId id) { return cqs_[static_cast<size_t>(id)]; }
  const ClusterQueueInfo& cq(CqId id) const { return cqs_[static_cast<size_t>(id)]; }
  CqId FindClusterQueue(std::string_view name) const;
  // The ClusterQueue of a quota node, or kNone for a cohort.
  CqId CqOfNode(NodeId node) const { return node_cq_[static_cast<size_t>(node)]; }

  const LocalQueueInfo& lq(LqId id) const { return lqs_[static_cast<size_t>(id)]; }
  int num_local_queues() const { return static_cast<int>(lqs_.size()); }
  LqId FindLocalQueue(std::string_view ns, std::string_view name) const;
  const NamespaceInfo& namespace_info(NamespaceId id) const { return namespaces_[static_cast<size_t>(id)]; }
  NamespaceId FindOrAddNamespace(std::string_view name);

  // Workloads.
  int num_workloads() const { return static_cast<int>(workloads_.size()); }
  WorkloadRecord& workload(WorkloadId id) { return workloads_[static_cast<size_t>(id)]; }
  const WorkloadRecord& workload(WorkloadId id) const { return workloads_[static_cast<size_t>(id)]; }
  // Adds a workload (not yet arrived). Errors name the workload and field.
  // Reuses the slot of a released workload when there is one.
  absl::StatusOr<WorkloadId> AddWorkload(std::shared_ptr<const model::Workload> spec);
  // Room for `count` more workloads, so that adding a known number (the
  // input's) moves no record.
  void ReserveWorkloads(size_t count) { workloads_.reserve(workloads_.size() + count); }
  // Frees a finished workload's record for reuse (streaming runs keep memory
  // bounded by what is in flight). REQUIRES: it holds no quota and is in no
  // queue. Its id may be handed out again by AddWorkload.
  void ReleaseWorkload(WorkloadId id);
  // Live (not released) workloads.
  int64_t live_workloads() const { return static_cast<int64_t>(workloads_.size() - free_slots_.size()); }

  // The ClusterQueue a workload's LocalQueue points to (kNone if missing).
  CqId ClusterQueueOf(const WorkloadRecord& wl) const {
    return wl.lq == kNone ? kNone : lqs_[static_cast<size_t>(wl.lq)].cq;
  }

  // Priority resolution for a workload (1.7 of the semantics notes).
  int32_t ResolvePriority(const model::Workload& spec) const;

  // --- Changes over time (kueuesim.io/v1alpha1 Change; cluster/changes.cc) ---
  // The quota node of a cohort, or kNoNode.
  NodeId FindCohortNode(std::string_view name) const;
  // Replaces a ClusterQueue's or cohort's quota for one flavor/resource
  // pair that exists in its resource groups; usage carries over.
  void UpdateQuota(NodeId node, FrId fr, const quota::FrQuota& quota);
  // Stops (Hold, HoldAndDrain) or restarts a ClusterQueue.
  void SetClusterQueueStopped(CqId cq, bool stopped);
  void SetLocalQueueStopPolicy(LqId lq, model::StopPolicy policy) {
    lqs_[static_cast<size_t>(lq)].stop_policy = policy;
  }
  // A WorkloadPriorityClass's new value, for workloads created from now on;
  // running ones are updated by the caller (UpdatePriority).
  void SetWorkloadPriorityClassValue(const std::string& name, int32_t value);
  // Whether a workload takes its priority from the WorkloadPriorityClass
  // `name` (Kueue's WorkloadPriorityClass controller updates those).
  bool UsesWorkloadPriorityClass(const WorkloadRecord& wl, const std::string& name) const;
  // Sets a live workload's priority (its scheduling-equivalence hash
  // changes with it).
  void UpdatePriority(WorkloadId id, int32_t priority);

  // Topology-aware scheduling: the TAS flavors' snapshots and the usage of
  // admitted TAS workloads (null when the TopologyAwareScheduling gate is
  // off or no flavor uses a topology).
  const TasCache* tas() const { return tas_.get(); }
  TasCache* tas() { return tas_.get(); }
  // Whether the ClusterQueue has an AdmissionCheck of the given controller
  // that applies to `flavor` (kNone: to any flavor).
  bool HasAdmissionCheckController(CqId cq, std::string_view controller, FlavorId flavor) const;

 private:
  ClusterState() = default;
  ResourceId InternResource(std::string_view name);
  FlavorId InternFlavor(std::string_view name);
  FrId InternFr(FlavorId flavor, ResourceId resource);
  void ComputeResourceRanks();
  // A free record slot (a fresh one when none is free), and giving one
  // back; a slot keeps its run generation.
  WorkloadId TakeSlot();
  void ResetSlot(WorkloadId id);
  // The pod set's per-pod requests after excluded prefixes and
  // transformations, into `out` (`key` names the workload in errors).
  absl::Status EffectiveRequests(const model::PodSet& pod_set, const std::string& key,
                                 ResourceAmountList* out);

  std::string name_;
  model::FeatureGates gates_;
  model::Configuration configuration_;
  UnixMicros start_time_ = 0;
  SimDuration default_startup_delay_ = 0;

  // Owned copies of the specs the infos point into.
  scenario::ClusterSpec spec_;

  std::vector<std::string> resources_;
  std::vector<int32_t> resource_rank_;
  absl::flat_hash_map<std::string, ResourceId> resource_index_;
  ResourceId pods_resource_ = kNone;
  std::vector<FlavorInfo> flavors_;
  absl::flat_hash_map<std::string, FlavorId> flavor_index_;
  std::vector<FlavorId> fr_flavor_;
  std::vector<ResourceId> fr_resource_;
  std::map<std::pair<FlavorId, ResourceId>, FrId> fr_index_;

  std::unique_ptr<quota::QuotaTree> tree_;
  std::vector<ClusterQueueInfo> cqs_;
  absl::flat_hash_map<std::string, CqId> cq_index_;
  std::vector<CqId> node_cq_;
  std::vector<LocalQueueInfo> lqs_;
  absl::flat_hash_map<std::string, LqId> lq_index_;  // "ns/name"
  std::vector<NamespaceInfo> namespaces_;
  absl::flat_hash_map<std::string, NamespaceId> namespace_index_;
  absl::flat_hash_map<std::string, int32_t> workload_priority_classes_;
  absl::flat_hash_map<std::string, int32_t> priority_classes_;
  std::optional<int32_t> global_default_priority_;
  std::vector<WorkloadRecord> workloads_;
  // DRA quota charging (dra/charger.h); null when the cluster has no DRA
  // objects or mappings and no workload has claimed any yet.
  std::unique_ptr<dra::Charger> dra_charger_;
  std::vector<WorkloadId> free_slots_;
  // The live workloads by key ("namespace/name"), for refusing duplicates:
  // a set of ids whose hash and equality read the key in the record, so the
  // key is stored once (a large load would otherwise hold a second copy of
  // every key). Looked up with a string_view. Ids stay valid while their
  // record is live; ReleaseWorkload erases before the slot is reset.
  struct WorkloadKeyHash {
    using is_transparent = void;
    const std::vector<WorkloadRecord>* records = nullptr;
    size_t operator()(std::string_view key) const { return absl::Hash<std::string_view>()(key); }
    size_t operator()(WorkloadId id) const { return (*this)(std::string_view((*records)[static_cast<size_t>(id)].key)); }
  };
  struct WorkloadKeyEq {
    using is_transparent = void;
    const std::vector<WorkloadRecord>* records = nullptr;
    std::string_view Key(WorkloadId id) const { return (*records)[static_cast<size_t>(id)].key; }
    std::string_view Key(std::string_view key) const { return key; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const { return Key(a) == Key(b); }
  };
  absl::flat_hash_set<WorkloadId, WorkloadKeyHash, WorkloadKeyEq> workload_index_{
      0, WorkloadKeyHash{&workloads_}, WorkloadKeyEq{&workloads_}};
  std::unique_ptr<TasCache> tas_;
};

}  // namespace kueuesim::cluster

#endif  // KUEUESIM_CLUSTER_CLUSTER_STATE_H_
