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
  }
  return "";
}

}  // namespace kueuesim::cluster
