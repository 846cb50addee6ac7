// Why a workload waits: the QuotaReserved=False condition Kueue writes on a
// Workload that holds no quota, kept compactly (an enum and the figures) and
// worded in Kueue's exact text only when an output asks for it.
//
// Mirrors kueue apis/kueue/v1beta2/workload_types.go (the QuotaReserved
// reasons), pkg/scheduler/scheduler.go (nominate, processEntry,
// requeueAndUpdate: the scheduler's reasons and messages),
// pkg/scheduler/flavorassigner (Assignment.Message, the flavor reasons) and
// pkg/controller/core/workload_controller.go (getQueueBlocker,
// resolveGranularUnadmittedQuotaReservedCondition: the controller's).
#ifndef KUEUESIM_CLUSTER_PENDING_CONDITION_H_
#define KUEUESIM_CLUSTER_PENDING_CONDITION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/base/time.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/quota/quota_tree.h"

namespace kueuesim::cluster {

class ClusterState;
struct WorkloadRecord;

// Why a pod set does not fit in a flavor. Quota shortfalls, which the
// admission loop produces for most heads of a busy cluster and rarely
// reports, keep their figures and are worded only when asked (Text).
struct FlavorReason {
  enum class Kind : uint8_t {
    kText,
    // "insufficient quota for R in flavor F, previously considered podsets
    // requests (assumed) + current podset request (request) > maximum
    // capacity (limit)"
    kOverMaximumCapacity,
    // "insufficient unused quota for R in flavor F, (request) more needed"
    kInsufficientUnusedQuota,
  };
  Kind kind = Kind::kText;
  std::string text;  // kText
  quota::ResourceId resource = -1;
  int32_t flavor = -1;  // FlavorId
  Amount assumed = 0;
  Amount request = 0;
  Amount limit = 0;

  static FlavorReason Text(std::string text);
  // Kueue's message.
  std::string Text(const ClusterState& state) const;
  bool operator==(const FlavorReason& other) const = default;
};

// The reason of the QuotaReserved=False condition. The granular reasons are
// Kueue's with the UnadmittedWorkloadsObservability gate (Beta, on); the
// legacy ones are what Kueue writes with the gate off.
enum class QuotaReservedReason : uint8_t {
  kNone,  // no QuotaReserved condition (not evaluated yet)
  kNoMatchingFlavor,
  kWaitingForQuota,
  kExceedsMaxQuota,
  kTopologyPlacementFailed,
  kWaitingForPreemptedWorkloads,
  kMisconfigured,
  kSuspended,
  kPendingEvaluation,
  kWaitingForPodsReady,
  kAdmissionGated,
  kDeactivated,
  kOnHold,  // a job integration released the quota on purpose (workload.IsOnHold)
  // Legacy (gate off).
  kPending,
  kInadmissible,
  kWaiting,
};

// Kueue's spelling ("WaitingForQuota"); "" for kNone.
std::string_view QuotaReservedReasonName(QuotaReservedReason reason);

// Kueue's reason severity for a NoFit assignment (flavorassigner
// reasonSeverity): 0 for reasons without one.
int QuotaReservedReasonSeverity(QuotaReservedReason reason);
// mostSevereReason: `a` unless `b` is strictly more severe.
QuotaReservedReason MostSevereReason(QuotaReservedReason a, QuotaReservedReason b);

// Which message Kueue writes; the figures are in the PendingCondition.
enum class PendingMessage : uint8_t {
  kNone,
  // Assignment.Message(): "couldn't assign flavors to pod set main: ..."
  kAssignment,
  // ... + ". Pending the preemption of N workload(s)" (count).
  kAssignmentPendingPreemption,
  kFailedChecks,              // "The workload has failed admission checks"
  kClusterQueueInactive,      // "ClusterQueue X is inactive"
  kNamespaceMismatch,         // "workload namespace doesn't match ClusterQueue selector"
  kNamespaceMissing,          // "workload namespace \"ns\" does not exist: ..."
  kInvalidResources,          // "resources validation failed: ..." (requests above limits)
  kLimitRangeViolated,        // "resources didn't satisfy LimitRange constraints: ..."
  kAdmissionGatedBy,          // "Admission is gated by: <annotation>"
  kPreemptionGated,           // "Workload requires preemption, but it's gated"
  kDeferredFit,               // "Workload has overlapping preemption targets ..., but will fit after ..."
  kOverlappingTargets,        // "Workload has overlapping preemption targets with another workload"
  kNoLongerFits,              // "Workload no longer fits after processing another workload"
  kWaitingForPodsReady,       // "waiting for all admitted workloads to be in PodsReady condition"
  kLocalQueueMissing,         // "LocalQueue X doesn't exist"
  kLocalQueueInactive,        // "LocalQueue X is inactive"
  kClusterQueueMissing,       // "ClusterQueue X doesn't exist"
  kLocalQueueStopped,         // "LocalQueue X is stopped" (reservation released)
  kClusterQueueStopped,       // "ClusterQueue X is stopped" (reservation released)
  kDeactivated,               // "The workload is deactivated"
  kPendingEvaluation,         // "Workload is pending evaluation in the scheduling queue"
  kText,                      // `text` (an eviction's message, a controller's)
};

// The flavor reasons of one pod set that did not fit (Kueue's
// PodSetAssignment.Status).
struct PodSetFlavorReasons {
  int32_t pod_set = 0;  // index in the workload's pod sets
  bool error = false;   // "failed to assign flavors to pod set ..."
  std::vector<FlavorReason> reasons;
  bool operator==(const PodSetFlavorReasons& other) const = default;
};

// A workload's QuotaReserved=False condition.
struct PendingCondition {
  QuotaReservedReason reason = QuotaReservedReason::kNone;
  PendingMessage message = PendingMessage::kNone;
  int32_t count = 0;  // kAssignmentPendingPreemption: the workloads preempted
  // When the reason or message last changed (simulated time).
  SimTime since = 0;
  // kAssignment*: the pod sets that did not fit, in assignment order.
  absl::InlinedVector<PodSetFlavorReasons, 1> pod_sets;
  std::string text;  // kText

  bool has_condition() const { return reason != QuotaReservedReason::kNone; }
  // Same reason and figures (not `since`).
  bool SameAs(const PendingCondition& other) const {
    return reason == other.reason && message == other.message && count == other.count &&
           pod_sets == other.pod_sets && text == other.text;
  }
};

// Whether a container (or the pod-level resources) of `workload` requests
// more than its limit (Kueue's ValidateResources, checked by the scheduler
// before flavor assignment and by the workload controller).
bool HasRequestsAboveLimits(const model::Workload& workload);
// Kueue's message for such a workload: "resources validation failed: ...".
std::string InvalidResourcesMessage(const model::Workload& workload);

// Whether a container or the pod of `workload` breaks its namespace's
// LimitRanges (Kueue's ValidateLimitRange, checked after ValidateResources).
bool HasLimitRangeViolations(const model::Workload& workload);
// Kueue's message for such a workload: "resources didn't satisfy LimitRange
// constraints: ...".
std::string LimitRangeViolationMessage(const model::Workload& workload);

// The kueue.x-k8s.io/admission-gated-by annotation (Kueue copies a job's to
// its Workload); "" when absent. Non-empty with the AdmissionGatedBy gate on:
// the workload is not queued (workload.HasAdmissionGate).
inline constexpr const char* kAdmissionGatedByAnnotation = "kueue.x-k8s.io/admission-gated-by";
std::string_view AdmissionGateOf(const model::Workload& workload);

// Kueue's condition message for `condition` of workload `wl` (names of pod
// sets, queues and namespaces come from the state).
std::string PendingMessageText(const ClusterState& state, const WorkloadRecord& wl,
                               const PendingCondition& condition);

// Kueue's Assignment.Message() for the pod sets that did not fit.
std::string AssignmentMessageText(const ClusterState& state, const WorkloadRecord& wl,
                                  const absl::InlinedVector<PodSetFlavorReasons, 1>& pod_sets);

// Sets the workload's condition to `next` at `now`. Returns whether it
// changed (reason or worded message); an unchanged condition keeps its
// `since`. A `next` without a reason leaves the condition as it is (Kueue's
// status patch refuses an empty reason).
bool UpdatePendingCondition(const ClusterState& state, WorkloadRecord* wl, PendingCondition next, SimTime now);

}  // namespace kueuesim::cluster

#endif  // KUEUESIM_CLUSTER_PENDING_CONDITION_H_
