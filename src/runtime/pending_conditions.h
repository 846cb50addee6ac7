// Private helpers of the runtime's pending conditions (pending_conditions.cc).
#ifndef KUEUESIM_RUNTIME_PENDING_CONDITIONS_H_
#define KUEUESIM_RUNTIME_PENDING_CONDITIONS_H_

#include <string>
#include <string_view>

#include "kueuesim/cluster/cluster_state.h"

namespace kueuesim::runtime {

// Kueue's Evicted/Preempted message for a preemption (preemption.go
// preemptionMessage): the preemptor's UID and job UID ("UNKNOWN" when the
// input has none), the human-readable reason and both ClusterQueue paths.
std::string PreemptionMessage(const cluster::ClusterState& state, const cluster::WorkloadRecord& preemptor,
                              cluster::CqId preemptor_cq, cluster::CqId victim_cq, std::string_view reason);

}  // namespace kueuesim::runtime

#endif  // KUEUESIM_RUNTIME_PENDING_CONDITIONS_H_
