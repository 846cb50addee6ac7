// What happens to workloads during a simulation, as typed events that
// observers (the event log, metrics, reports) subscribe to.
#ifndef KUEUESIM_CLUSTER_EVENTS_H_
#define KUEUESIM_CLUSTER_EVENTS_H_

#include <cstdint>
#include <string_view>

#include "kueuesim/cluster/cluster_state.h"

namespace kueuesim::cluster {

enum class EventType : uint8_t {
  kArrived,        // the workload was created
  kQuotaReserved,  // the scheduler reserved quota (status.admission set)
  kAdmitted,       // quota reserved and every admission check ready
  kPodsReady,      // the workload's pods are running and ready
  kPreempted,      // chosen as a preemption victim
  kEvicted,        // eviction issued (quota held until released)
  kRequeued,       // back in its queue after an eviction
  kQuotaReleased,  // its quota is about to be released (admission still set)
  kFinished,       // completed; quota released
  kDeactivated,    // made inactive (e.g. requeuing limit exceeded)
  kDeleted,        // deleted by its owner (e.g. an LWS scaled down); quota released
  kAdmittedAtStart,  // admitted in its input status: holds quota from time 0
                     // (reason kAwaitingAdmissionReason: QuotaReserved only,
                     // its admission checks or topology still to come)
  kHeld,           // its LocalQueue is stopped: it waits, not queued
  kChanged,        // a timed Change was applied (`object`: "Kind/name", reason: the Change)
  kInadmissible,   // refused by the workload controller (DRA), never queued;
                   // `reason` is Kueue's condition message
  kPending,        // its QuotaReserved=False condition changed: `reason` is
                   // Kueue's reason; the message is the workload record's
                   // `pending` condition (cluster::PendingMessageText)
  // LeaderWorkerSet events (`object` names the LWS, `group` the index;
  // `workload` is the group's Workload when it has one).
  kGroupCreated,
  kGroupReady,
  kGroupNotReady,
  kGroupReplaced,
  kSurgeCreated,
  kSurgeReleased,
  kRolloutStarted,
  kRolloutCompleted,
  kRolloutStalled,
  kRolloutResumed,
  kScaled,
  kGroupStopped,  // Kueue deleted the group's Workload and stopped its pods
  // MultiKueue events, in the manager's stream (`worker` names the
  // MultiKueueCluster; `workload` is the manager's Workload).
  kNominated,          // the dispatcher nominated workers (value: how many)
  kDispatched,         // a copy was created on `worker`
  kCopyDeleted,        // the copy on `worker` was deleted
  kWorkerSelected,     // the copy on `worker` was admitted first: it runs there
  kPreemptionGateOpened,  // orchestrated preemption: `worker` may preempt
  kWorkerDisconnected,
  kWorkerConnected,
};

std::string_view EventTypeName(EventType type);

// The reason of an AdmittedAtStart event for a workload that holds quota in
// its input but is not admitted there yet.
inline constexpr std::string_view kAwaitingAdmissionReason = "QuotaReserved";

struct SimEvent {
  EventType type = EventType::kArrived;
  SimTime time = 0;
  int64_t cycle = 0;
  const ClusterState* cluster = nullptr;
  WorkloadId workload = kNone;
  CqId cq = kNone;
  // kPreempted: the workload that preempts and Kueue's reason.
  WorkloadId preemptor = kNone;
  std::string_view reason;
  // Owner-level events: the owning object ("namespace/name") and group.
  std::string_view object;
  int32_t group = -1;
  int64_t value = 0;  // e.g. replicas for kScaled, ready groups for kGroupReady
  // MultiKueue events: the worker cluster (MultiKueueCluster name).
  std::string_view worker;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void OnEvent(const SimEvent& event) = 0;
};

}  // namespace kueuesim::cluster

#endif  // KUEUESIM_CLUSTER_EVENTS_H_
