// Rank-ordered placement: which pods of a TAS-admitted workload go to which
// domain of its topology assignment.
//
// Kueue's TopologyUngater (pkg/controller/tas/topology_ungater.go) reads
// each pod's index from the pod set's podIndexLabel, turns it into a rank
// (index - offset) and ungates the pod onto the domain at that rank, the
// assignment's domains (sorted by their level values) taking their counts
// in order: ranks [0, c0) go to the first domain, [c0, c0 + c1) to the
// second, and so on. The offset comes from two places: in a pod-set group
// (kueue.x-k8s.io/podset-group-name) of two pod sets the smaller one is the
// leader and ranks before the larger one (a LeaderWorkerSet group: leader
// 0, workers 1..size-1), and the pods' kueue.x-k8s.io/pod-index-offset
// annotation adds to it.
#ifndef KUEUESIM_TOPOLOGY_RANK_ORDER_H_
#define KUEUESIM_TOPOLOGY_RANK_ORDER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "kueuesim/model/objects.h"

namespace kueuesim::topology {

// The pod indices (values of podIndexLabel), first and last, that land in
// one domain.
struct PodIndexRange {
  int32_t first = 0;
  int32_t last = 0;
};

// For each pod set (`specs[i]`, admitted with `assignments[i]`, which may
// have no topology assignment), the pod index range of each domain of its
// assignment, in the assignment's order; nullopt where Kueue does not
// order by rank (no topology assignment or no podIndexLabel: pods are then
// ungated greedily, in no particular order).
std::vector<std::optional<std::vector<PodIndexRange>>> PodIndexRanges(
    const std::vector<const model::PodSet*>& specs,
    const std::vector<const model::TopologyAssignment*>& assignments);

}  // namespace kueuesim::topology

#endif  // KUEUESIM_TOPOLOGY_RANK_ORDER_H_
