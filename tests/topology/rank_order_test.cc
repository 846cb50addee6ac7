// Rank-ordered placement (topology/rank_order.h), as Kueue's
// TopologyUngater maps pod indices to the domains of an assignment.
#include "kueuesim/topology/rank_order.h"

#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kueuesim::topology {
namespace {

using ::testing::ElementsAre;

constexpr char kWorkerIndex[] = "leaderworkerset.sigs.k8s.io/worker-index";

model::PodSet MakePodSet(const std::string& name, int32_t count, std::optional<std::string> pod_index_label,
                         std::optional<std::string> group = std::nullopt,
                         std::optional<int32_t> offset = std::nullopt) {
  model::PodSet ps;
  ps.name = name;
  ps.count = count;
  model::TopologyRequest request;
  request.required = "cloud.com/rack";
  request.pod_index_label = std::move(pod_index_label);
  request.pod_set_group_name = std::move(group);
  request.pod_index_offset = offset;
  ps.topology_request = request;
  return ps;
}

model::TopologyAssignment Hosts(const std::vector<std::pair<std::string, int32_t>>& hosts) {
  model::TopologyAssignment ta;
  ta.levels = {"kubernetes.io/hostname"};
  for (const auto& [host, count] : hosts) ta.domains.push_back({{host}, count});
  return ta;
}

std::vector<std::pair<int32_t, int32_t>> Pairs(const std::vector<PodIndexRange>& ranges) {
  std::vector<std::pair<int32_t, int32_t>> out;
  for (const auto& r : ranges) out.emplace_back(r.first, r.last);
  return out;
}

// Setup: one pod set "main" of 4 pods (an LWS without a leader template:
// worker-index 0..3, the leader 0) over hosts a (1 pod), b (3 pods).
// Expected: ranks in domain order: the leader (index 0) on a, 1..3 on b.
TEST(RankOrderTest, SinglePodSetFillsTheDomainsInOrder) {
  const model::PodSet main = MakePodSet("main", 4, kWorkerIndex);
  const model::TopologyAssignment ta = Hosts({{"a", 1}, {"b", 3}});
  const auto ranges = PodIndexRanges({&main}, {&ta});
  ASSERT_TRUE(ranges[0].has_value());
  EXPECT_THAT(Pairs(*ranges[0]), ElementsAre(std::pair{0, 0}, std::pair{1, 3}));
}

// Setup: leader (1, no pod index label, as Kueue builds it) and worker (3)
// pod sets in one pod-set group; the workers on a (2) and b (1).
// Expected: the leader ranks first (0), so the workers' indices are 1..3:
// 1, 2 on a, 3 on b; the leader itself has no rank order (greedy).
TEST(RankOrderTest, PodSetGroupRanksTheLeaderFirst) {
  const model::PodSet leader = MakePodSet("leader", 1, std::nullopt, "group");
  const model::PodSet worker = MakePodSet("worker", 3, kWorkerIndex, "group");
  const model::TopologyAssignment leader_ta = Hosts({{"a", 1}});
  const model::TopologyAssignment worker_ta = Hosts({{"a", 2}, {"b", 1}});
  const auto ranges = PodIndexRanges({&leader, &worker}, {&leader_ta, &worker_ta});
  EXPECT_FALSE(ranges[0].has_value());
  ASSERT_TRUE(ranges[1].has_value());
  EXPECT_THAT(Pairs(*ranges[1]), ElementsAre(std::pair{1, 2}, std::pair{3, 3}));
}

// Setup: the same pod sets without a group, the worker pods carrying
// pod-index-offset 1 (the LWS webhook's).
// Expected: the same indices: the offset takes the leader's place.
TEST(RankOrderTest, PodIndexOffsetShiftsTheRanks) {
  const model::PodSet leader = MakePodSet("leader", 1, std::nullopt);
  const model::PodSet worker = MakePodSet("worker", 3, kWorkerIndex, std::nullopt, 1);
  const model::TopologyAssignment leader_ta = Hosts({{"b", 1}});
  const model::TopologyAssignment worker_ta = Hosts({{"a", 2}, {"b", 1}});
  const auto ranges = PodIndexRanges({&leader, &worker}, {&leader_ta, &worker_ta});
  ASSERT_TRUE(ranges[1].has_value());
  EXPECT_THAT(Pairs(*ranges[1]), ElementsAre(std::pair{1, 2}, std::pair{3, 3}));
}

// Setup: a pod set without a topology assignment, and one without a pod
// index label.
// Expected: no rank order for either.
TEST(RankOrderTest, NoRankOrderWithoutAssignmentOrLabel) {
  const model::PodSet labelled = MakePodSet("main", 2, kWorkerIndex);
  const model::PodSet unlabelled = MakePodSet("other", 2, std::nullopt);
  const model::TopologyAssignment ta = Hosts({{"a", 2}});
  const auto ranges = PodIndexRanges({&labelled, &unlabelled}, {nullptr, &ta});
  EXPECT_FALSE(ranges[0].has_value());
  EXPECT_FALSE(ranges[1].has_value());
}

}  // namespace
}  // namespace kueuesim::topology
