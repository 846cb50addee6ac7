// Rank-ordered placement; see rank_order.h.
#include "kueuesim/topology/rank_order.h"

#include <map>
#include <string>

namespace kueuesim::topology {

std::vector<std::optional<std::vector<PodIndexRange>>> PodIndexRanges(
    const std::vector<const model::PodSet*>& specs,
    const std::vector<const model::TopologyAssignment*>& assignments) {
  const size_t n = specs.size();
  // The pod sets of each pod-set group (a pod set without a group is alone).
  std::vector<int32_t> offset(n, 0);
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < n; ++i) {
    const auto& request = specs[i]->topology_request;
    if (request.has_value() && request->pod_set_group_name.has_value()) {
      groups[*request->pod_set_group_name].push_back(i);
    }
  }
  for (const auto& [name, members] : groups) {
    if (members.size() < 2) continue;
    // As the ungater: of the first two, the smaller count is the leader and
    // ranks first (ties: the first listed).
    size_t smaller = members[0];
    size_t larger = members[1];
    if (specs[smaller]->count > specs[larger]->count) std::swap(smaller, larger);
    offset[larger] = specs[smaller]->count;
  }
  std::vector<std::optional<std::vector<PodIndexRange>>> out(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& request = specs[i]->topology_request;
    if (assignments[i] == nullptr || !request.has_value() || !request->pod_index_label.has_value()) continue;
    const int32_t first_index = offset[i] + request->pod_index_offset.value_or(0);
    std::vector<PodIndexRange> ranges;
    int32_t rank = 0;
    for (const model::TopologyDomainAssignment& domain : assignments[i]->domains) {
      ranges.push_back({first_index + rank, first_index + rank + domain.count - 1});
      rank += domain.count;
    }
    out[i] = std::move(ranges);
  }
  return out;
}

}  // namespace kueuesim::topology
