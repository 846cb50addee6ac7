// Event type names.
#include "kueuesim/cluster/events.h"

namespace kueuesim::cluster {

std::string_view EventTypeName(EventType type) {
  switch (type) {
    case EventType::kArrived:
      return "Arrived";
    case EventType::kQuotaReserved:
      return "QuotaReserved";
    case EventType::kAdmitted:
      return "Admitted";
    case EventType::kPodsReady:
      return "PodsReady";
    case EventType::kPreempted:
      return "Preempted";
    case EventType::kEvicted:
      return "Evicted";
    case EventType::kRequeued:
      return "Requeued";
    case EventType::kQuotaReleased:
      return "QuotaReleased";
    case EventType::kFinished:
      return "Finished";
    case EventType::kDeactivated:
      return "Deactivated";
    case EventType::kDeleted:
      return "Deleted";
    case EventType::kAdmittedAtStart:
      return "AdmittedAtStart";
    case EventType::kHeld:
      return "Held";
    case EventType::kChanged:
      return "Changed";
    case EventType::kInadmissible:
      return "Inadmissible";
    case EventType::kPending:
      return "Pending";
    case EventType::kGroupCreated:
      return "GroupCreated";
    case EventType::kGroupReady:
      return "GroupReady";
    case EventType::kGroupNotReady:
      return "GroupNotReady";
    case EventType::kGroupReplaced:
      return "GroupReplaced";
    case EventType::kSurgeCreated:
      return "SurgeCreated";
    case EventType::kSurgeReleased:
      return "SurgeReleased";
    case EventType::kRolloutStarted:
      return "RolloutStarted";
    case EventType::kRolloutCompleted:
      return "RolloutCompleted";
    case EventType::kRolloutStalled:
      return "RolloutStalled";
    case EventType::kRolloutResumed:
      return "RolloutResumed";
    case EventType::kScaled:
      return "Scaled";
    case EventType::kGroupStopped:
      return "GroupStopped";
    case EventType::kNominated:
      return "Nominated";
    case EventType::kDispatched:
      return "Dispatched";
    case EventType::kCopyDeleted:
      return "CopyDeleted";
    case EventType::kWorkerSelected:
      return "WorkerSelected";
    case EventType::kPreemptionGateOpened:
      return "PreemptionGateOpened";
    case EventType::kWorkerDisconnected:
      return "WorkerDisconnected";
    case EventType::kWorkerConnected:
      return "WorkerConnected";
  }
  return "";
}

}  // namespace kueuesim::cluster
