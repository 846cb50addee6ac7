// TasFlavorSnapshot's public API beyond the ported placement table: HasLevel
// (Kueue's TestHasLevel), usage accounting and Fits, assumed usage
// (TestAddAssumedUsage), the KEP-2724 examples of the design notes, request
// validation messages, group handling and determinism.
#include "kueuesim/topology/tas_flavor_snapshot.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "topology/tas_test_util.h"

namespace kueuesim::topology {
namespace {

using namespace kueuesim::topology::testing;  // NOLINT: test builders
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Designated initializers name only the fields they set.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

TasFlavorSnapshot Snapshot(std::vector<std::string> levels, std::vector<NodeSpec> nodes,
                           TasOptions options = {}) {
  TasFlavorSnapshot s(std::move(levels), std::move(nodes), {}, kPods, options);
  s.SetTopologyName("default");
  s.SetResourceNames(ResourceNames());
  return s;
}

PodSetPlacementRequest Request(std::optional<model::TopologyRequest> tr, int32_t count,
                               std::vector<std::pair<ResourceId, Amount>> requests,
                               std::string name = "main") {
  PodSetPlacementRequest r;
  r.name = std::move(name);
  r.count = count;
  r.topology_request = std::move(tr);
  r.single_pod_requests = ToRequests(std::move(requests));
  return r;
}

std::string Place(const TasFlavorSnapshot& s, const PodSetPlacementRequest& r,
                  bool simulate_empty = false) {
  const std::vector<PlacementOutcome> out = s.FindAssignments({r}, simulate_empty);
  return Describe(out[0].assignment, out[0].failure_reason);
}

// Hosts h<i> under one block with room for `pods[i]` one-cpu pods.
std::vector<NodeSpec> Hosts(const std::vector<int>& pods) {
  std::vector<NodeSpec> nodes;
  for (size_t i = 0; i < pods.size(); ++i) {
    const std::string name = "h" + std::to_string(i + 1);
    nodes.push_back(N(name)
                        .L(kBlock, "b1")
                        .L(kHostname, name)
                        .A(kCpu, std::to_string(pods[i]))
                        .A(kPods, "110"));
  }
  return nodes;
}

TEST(HasLevelTest, KueueCases) {
  const TasFlavorSnapshot s = Snapshot({"level-1", "level-2"}, {});
  // "topology request nil" / "topology request empty"
  EXPECT_FALSE(s.HasLevel(model::TopologyRequest{}));
  EXPECT_TRUE(s.HasLevel(TR().Required("level-1")));          // "required"
  EXPECT_FALSE(s.HasLevel(TR().Required("invalid-level")));   // "required – invalid level"
  EXPECT_TRUE(s.HasLevel(TR().Preferred("level-1")));         // "preferred"
  EXPECT_FALSE(s.HasLevel(TR().Preferred("invalid-level")));  // "preferred – invalid level"
  EXPECT_TRUE(s.HasLevel(TR().Unconstrained(true)));          // "unconstrained"
  EXPECT_TRUE(s.HasLevel(TR().Slice("level-1", 0)));          // "slice-only"
  EXPECT_FALSE(s.HasLevel(TR().Slice("invalid-level", 0)));   // "slice-only – invalid level"
  // Not in Kueue's table: unconstrained=false alone names no level; every
  // slice layer must exist.
  EXPECT_FALSE(s.HasLevel(TR().Unconstrained(false)));
  EXPECT_FALSE(s.HasLevel(TR().Required("level-1").Slice("level-1", 2).Slice("nope", 1)));
  EXPECT_TRUE(s.HasLevel(TR().Required("level-1").Slice("level-1", 2).Slice("level-2", 1)));
}

TEST(TasFlavorSnapshotTest, Levels) {
  const TasFlavorSnapshot s = Snapshot(kThreeLevels, {});
  EXPECT_EQ(s.levels(), kThreeLevels);
  EXPECT_TRUE(s.IsLowestLevelHostname());
  EXPECT_FALSE(Snapshot(kTwoLevels, {}).IsLowestLevelHostname());
}

// --- KEP-2724 examples (design notes §5.2) ---

TEST(KepExamplesTest, BestFitThreeThreeOne) {
  // Room for 3, 3, 2 and 1 pods; 7 pods: BestFit takes 3+3, then the node
  // that fits exactly 1.
  const TasFlavorSnapshot s = Snapshot({kBlock, kHostname}, Hosts({3, 3, 2, 1}));
  EXPECT_EQ(Place(s, Request(TR().Required(kBlock), 7, {{kCpu, 1000}})),
            "assignment{levels=[kubernetes.io/hostname] h1=3 h2=3 h4=1}");
}

TEST(KepExamplesTest, LeastFreeCapacityOneTwoThreeOne) {
  // LeastFreeCapacity walks in ascending order: 1, 2, 3 and 1 of the last.
  const TasFlavorSnapshot s = Snapshot({kBlock, kHostname}, Hosts({3, 3, 2, 1}));
  EXPECT_EQ(Place(s, Request(TR().Unconstrained(true), 7, {{kCpu, 1000}})),
            "assignment{levels=[kubernetes.io/hostname] h1=3 h2=1 h3=2 h4=1}");
}

TEST(KepExamplesTest, SlicesBestFit) {
  // Slices of 2 at the host level, room for 6, 5, 4, 3, 2: BestFit for 12
  // pods places 6, 4, 2 (4 is the tight fit for two slices).
  const TasFlavorSnapshot s = Snapshot({kBlock, kHostname}, Hosts({6, 5, 4, 3, 2}));
  EXPECT_EQ(Place(s, Request(TR().Required(kBlock).Slice(kHostname, 2), 12, {{kCpu, 1000}})),
            "assignment{levels=[kubernetes.io/hostname] h1=6 h3=4 h5=2}");
}

TEST(KepExamplesTest, SlicesLeastFreeCapacity) {
  // LeastFreeCapacity for 10 pods: 2, 4, 2, 2 on the nodes of size 5, 4, 3, 2.
  const TasFlavorSnapshot s = Snapshot({kBlock, kHostname}, Hosts({6, 5, 4, 3, 2}));
  EXPECT_EQ(Place(s, Request(TR().Slice(kHostname, 2), 10, {{kCpu, 1000}})),
            "assignment{levels=[kubernetes.io/hostname] h2=2 h3=4 h4=2 h5=2}");
}

TEST(KepExamplesTest, BestFitWithoutProfileMixed) {
  // Without TASProfileMixed, unconstrained requests use BestFit too.
  TasOptions options;
  options.profile_mixed = false;
  const TasFlavorSnapshot s = Snapshot({kBlock, kHostname}, Hosts({3, 3, 2, 1}), options);
  EXPECT_EQ(Place(s, Request(TR().Unconstrained(true), 7, {{kCpu, 1000}})),
            "assignment{levels=[kubernetes.io/hostname] h1=3 h2=3 h4=1}");
}

// --- Usage ---

TEST(UsageTest, TasUsageAddRemoveAndSimulateEmpty) {
  TasFlavorSnapshot s =
      Snapshot(kOneLevel, {N("x1").L(kHostname, "x1").A(kCpu, "2").A(kPods, "10")});
  const PodSetPlacementRequest r = Request(TR().Required(kHostname), 2, {{kCpu, 1000}});
  EXPECT_EQ(Place(s, r), "assignment{levels=[kubernetes.io/hostname] x1=2}");
  const DomainUsage usage{{"x1"}, ToRequests({{kCpu, 1000}}), 1};
  s.AddUsage(usage);
  EXPECT_EQ(Place(s, r),
            R"(no assignment reason: topology "default" allows to fit only 1 out of 2 pod(s))");
  // Simulating an empty cluster ignores TAS usage.
  EXPECT_EQ(Place(s, r, /*simulate_empty=*/true),
            "assignment{levels=[kubernetes.io/hostname] x1=2}");
  s.RemoveUsage(usage);
  EXPECT_EQ(Place(s, r), "assignment{levels=[kubernetes.io/hostname] x1=2}");
  // Usage of a domain the snapshot does not hold is skipped.
  s.AddUsage(DomainUsage{{"gone"}, ToRequests({{kCpu, 1000}}), 5});
  EXPECT_EQ(Place(s, r), "assignment{levels=[kubernetes.io/hostname] x1=2}");
}

TEST(UsageTest, CloneHasItsOwnUsage) {
  TasFlavorSnapshot s =
      Snapshot(kOneLevel, {N("x1").L(kHostname, "x1").A(kCpu, "2").A(kPods, "10")});
  TasFlavorSnapshot copy = s.Clone();
  copy.AddUsage({{"x1"}, ToRequests({{kCpu, 1000}}), 1});
  const PodSetPlacementRequest r = Request(TR().Required(kHostname), 2, {{kCpu, 1000}});
  EXPECT_EQ(Place(s, r), "assignment{levels=[kubernetes.io/hostname] x1=2}");
  EXPECT_EQ(Place(copy, r),
            R"(no assignment reason: topology "default" allows to fit only 1 out of 2 pod(s))");
  EXPECT_EQ(copy.levels(), kOneLevel);
}

TEST(UsageTest, NonTasUsageKeepsCountingWhenSimulatingEmpty) {
  TasFlavorSnapshot s =
      Snapshot(kOneLevel, {N("node-1").L(kHostname, "x1").A(kCpu, "2").A(kPods, "10")});
  // By node name (the hostname label differs).
  s.AddNonTasUsage("node-1", ToRequests({{kCpu, 1500}, {kPods, 1}}));
  s.AddNonTasUsage("unknown", ToRequests({{kCpu, 2000}, {kPods, 1}}));
  const PodSetPlacementRequest r = Request(TR().Required(kHostname), 1, {{kCpu, 1000}});
  const std::string want =
      R"(no assignment reason: topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1)";
  EXPECT_EQ(Place(s, r), want);
  EXPECT_EQ(Place(s, r, /*simulate_empty=*/true), want);
}

TEST(UsageTest, PodsAllocatableLimitsPlacement) {
  // One "pods" per pod is added to the requests: 3 pods fit by cpu, 2 by pods.
  TasFlavorSnapshot s =
      Snapshot(kOneLevel, {N("x1").L(kHostname, "x1").A(kCpu, "3").A(kPods, "2")});
  EXPECT_EQ(Place(s, Request(TR().Required(kHostname), 3, {{kCpu, 1000}})),
            R"(no assignment reason: topology "default" allows to fit only 2 out of 3 pod(s))");
  // A node without "pods" allocatable takes no pod at all.
  TasFlavorSnapshot no_pods = Snapshot(kOneLevel, {N("x1").L(kHostname, "x1").A(kCpu, "3")});
  EXPECT_EQ(
      Place(no_pods, Request(TR().Required(kHostname), 1, {{kCpu, 1000}})),
      R"(no assignment reason: topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "pods": 1)");
}

TEST(FitsTest, ChecksRemainingCapacityWithoutPods) {
  TasFlavorSnapshot s = Snapshot(kThreeLevels, DefaultNodes());
  // x4 has 2 cpus and 40 pods.
  EXPECT_TRUE(s.Fits({{{"x4"}, ToRequests({{kCpu, 1000}}), 2}}));
  EXPECT_FALSE(s.Fits({{{"x4"}, ToRequests({{kCpu, 1000}}), 3}}));
  EXPECT_FALSE(s.Fits({{{"unknown"}, ToRequests({{kCpu, 1000}}), 1}}));
  // Kueue's Fits does not add "pods": a pod count above the pods allocatable
  // still fits when the requests fit.
  EXPECT_TRUE(s.Fits({{{"x3"}, ToRequests({{kCpu, 50}}), 20}}));
  // CountIn of empty requests is 0.
  EXPECT_FALSE(s.Fits({{{"x3"}, Requests{}, 1}}));
  EXPECT_TRUE(s.Fits({{{"x3"}, Requests{}, 0}}));
  s.AddUsage({{"x4"}, ToRequests({{kCpu, 1000}}), 1});
  EXPECT_FALSE(s.Fits({{{"x4"}, ToRequests({{kCpu, 1000}}), 2}}));
  EXPECT_TRUE(
      s.Fits({{{"x4"}, ToRequests({{kCpu, 1000}}), 1}, {{"x3"}, ToRequests({{kCpu, 1000}}), 1}}));
}

TEST(FitsTest, NonHostnameLeavesUseFullDomainIds) {
  TasFlavorSnapshot s = Snapshot(kTwoLevels, DefaultNodes());
  // b1/r2 aggregates x5, x1 and x6: 3 cpus.
  EXPECT_TRUE(s.Fits({{{"b1", "r2"}, ToRequests({{kCpu, 1000}}), 3}}));
  EXPECT_FALSE(s.Fits({{{"b1", "r2"}, ToRequests({{kCpu, 1000}}), 4}}));
  EXPECT_FALSE(s.Fits({{{"r2"}, ToRequests({{kCpu, 1000}}), 1}}));
}

TEST(AssumedUsageTest, ExtendedWithPlacementsIncludingPods) {
  // Kueue's TestAddAssumedUsage: the usage per domain includes the pod count.
  const TasFlavorSnapshot s =
      Snapshot(kOneLevel, {N("x1").L(kHostname, "x1").A(kCpu, "4").A(kPods, "10"),
                           N("x2").L(kHostname, "x2").A(kCpu, "4").A(kPods, "10")});
  std::map<std::string, Requests> assumed;
  assumed["x1"] = ToRequests({{kCpu, 3000}, {kPods, 3}});
  assumed["elsewhere"] = ToRequests({{kCpu, 1000}, {kPods, 1}});
  const std::vector<PlacementOutcome> out =
      s.FindAssignments({Request(TR().Required(kHostname), 2, {{kCpu, 1000}})}, false, &assumed);
  EXPECT_EQ(Describe(out[0].assignment, out[0].failure_reason),
            "assignment{levels=[kubernetes.io/hostname] x2=2}");
  EXPECT_EQ(assumed["x2"], ToRequests({{kCpu, 2000}, {kPods, 2}}));
  EXPECT_EQ(assumed["x1"], ToRequests({{kCpu, 3000}, {kPods, 3}}));
  EXPECT_EQ(assumed.size(), 3u);
}

TEST(AssumedUsageTest, LaterPodSetsSeeEarlierOnes) {
  // Each group sees what the previous groups assumed; the caller's map is
  // left untouched when none is passed.
  const TasFlavorSnapshot s =
      Snapshot(kOneLevel, {N("x1").L(kHostname, "x1").A(kCpu, "2").A(kPods, "10")});
  const std::vector<PlacementOutcome> out =
      s.FindAssignments({Request(TR().Required(kHostname), 1, {{kCpu, 1000}}, "a"),
                         Request(TR().Required(kHostname), 2, {{kCpu, 1000}}, "b"),
                         Request(TR().Required(kHostname), 1, {{kCpu, 1000}}, "c")},
                        false);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Describe(out[0].assignment, out[0].failure_reason),
            "assignment{levels=[kubernetes.io/hostname] x1=1}");
  EXPECT_EQ(Describe(out[1].assignment, out[1].failure_reason),
            R"(no assignment reason: topology "default" allows to fit only 1 out of 2 pod(s))");
  // Not reached.
  EXPECT_FALSE(out[2].assignment.has_value());
  EXPECT_THAT(out[2].failure_reason, IsEmpty());
  // A second call starts afresh.
  EXPECT_EQ(Place(s, Request(TR().Required(kHostname), 2, {{kCpu, 1000}})),
            "assignment{levels=[kubernetes.io/hostname] x1=2}");
}

// --- Groups ---

TEST(GroupTest, LeaderIsTheSmallerOfTheFirstTwo) {
  const TasFlavorSnapshot s =
      Snapshot(kOneLevel, {N("x1").L(kHostname, "x1").A(kCpu, "4").A(kPods, "10"),
                           N("x2").L(kHostname, "x2").A(kCpu, "2").A(kPods, "10")});
  PodSetPlacementRequest workers = Request(TR().Preferred(kHostname), 3, {{kCpu, 1000}}, "workers");
  PodSetPlacementRequest leader = Request(TR().Preferred(kHostname), 1, {{kCpu, 2000}}, "leader");
  workers.group_name = "g";
  leader.group_name = "g";
  // Workers listed first, leader second, or the other way round: same result.
  for (const bool leader_first : {false, true}) {
    SCOPED_TRACE(leader_first);
    const std::vector<PodSetPlacementRequest> requests =
        leader_first ? std::vector{leader, workers} : std::vector{workers, leader};
    const std::vector<PlacementOutcome> out = s.FindAssignments(requests, false);
    const PlacementOutcome& got_leader = out[leader_first ? 0 : 1];
    const PlacementOutcome& got_workers = out[leader_first ? 1 : 0];
    EXPECT_EQ(Describe(got_leader.assignment, got_leader.failure_reason),
              "assignment{levels=[kubernetes.io/hostname] x1=1}");
    EXPECT_EQ(Describe(got_workers.assignment, got_workers.failure_reason),
              "assignment{levels=[kubernetes.io/hostname] x1=2 x2=1}");
  }
}

TEST(GroupTest, FailureReasonOnEveryMember) {
  const TasFlavorSnapshot s =
      Snapshot(kOneLevel, {N("x1").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10")});
  PodSetPlacementRequest workers = Request(TR().Required(kHostname), 2, {{kCpu, 1000}}, "workers");
  PodSetPlacementRequest leader = Request(TR().Required(kHostname), 1, {{kCpu, 1000}}, "leader");
  workers.group_name = "g";
  leader.group_name = "g";
  const std::vector<PlacementOutcome> out = s.FindAssignments({workers, leader}, false);
  ASSERT_EQ(out.size(), 2u);
  for (const PlacementOutcome& o : out) {
    EXPECT_FALSE(o.assignment.has_value());
    // As in Kueue, the message counts the workers that fit without the
    // leader (sliceCount, not sliceCountWithLeader).
    EXPECT_EQ(o.failure_reason, R"(topology "default" allows to fit only 1 out of 2 pod(s))");
  }
}

// --- Request validation (findTopologyAssignment / buildSliceSizeAtLevel) ---

TEST(ValidationTest, Messages) {
  const TasFlavorSnapshot s = Snapshot(kThreeLevels, DefaultNodes());
  auto reason = [&](const model::TopologyRequest& tr) {
    return s.FindAssignments({Request(tr, 2, {{kCpu, 100}})}, false)[0].failure_reason;
  };
  EXPECT_EQ(reason(TR().Unconstrained(false)), "topology level not specified");
  EXPECT_EQ(reason(TR().Required("nope")), "no requested topology level: nope");
  EXPECT_EQ(reason(TR().Required(kBlock).Slice("nope", 2)),
            "no requested topology level for slices: nope");
  EXPECT_EQ(reason(TR().Required(kRack).Slice(kBlock, 2)),
            "podset slice topology cloud.com/topology-block is above the podset topology "
            "cloud.com/topology-rack");
  EXPECT_EQ(reason(TR().Required(kBlock).Slice(kRack, 0)),
            "slice topology requested, but slice size not provided");
  EXPECT_EQ(reason(TR().Required(kBlock).Slice(kRack, 2).Slice("nope", 1)),
            "no requested topology level for additional slice layer: nope");
  EXPECT_EQ(reason(TR().Required(kBlock).Slice(kRack, 2).Slice(kRack, 1)),
            "additional slice layer topology cloud.com/topology-rack must be at a lower level than "
            "cloud.com/topology-rack");
  EXPECT_EQ(reason(TR().Required(kBlock).Slice(kBlock, 2).Slice(kHostname, 3)),
            "additional slice layer size 3 must evenly divide parent layer size 2");
}

TEST(ValidationTest, MultiLayerOffReadsOnlyTheFirstLayer) {
  TasOptions options;
  options.multi_layer_topology = false;
  const TasFlavorSnapshot s = Snapshot(kThreeLevels, DefaultNodes(), options);
  // The invalid inner layer is ignored.
  EXPECT_THAT(s.FindAssignments({Request(TR().Required(kBlock).Slice(kBlock, 2).Slice(kHostname, 3),
                                         2, {{kCpu, 100}})},
                                false)[0]
                  .failure_reason,
              IsEmpty());
}

TEST(ValidationTest, NoDomainsAtLevel) {
  const TasFlavorSnapshot s = Snapshot(kOneLevel, {});
  EXPECT_EQ(Place(s, Request(std::nullopt, 1, {{kCpu, 100}})),
            "no assignment reason: no topology domains at level: kubernetes.io/hostname");
}

// --- Nodes ---

TEST(NodesTest, OnlySchedulableNodesWithEveryLevelLabel) {
  const TasFlavorSnapshot s =
      Snapshot(kThreeLevels,
               {N("a").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "a").A(kCpu, "1").A(kPods, "10"),
                N("b").L(kBlock, "b1").L(kHostname, "b").A(kCpu, "1").A(kPods, "10"),
                N("c")
                    .L(kBlock, "b1")
                    .L(kRack, "r1")
                    .L(kHostname, "c")
                    .A(kCpu, "1")
                    .A(kPods, "10")
                    .NotReady(),
                N("d")
                    .L(kBlock, "b1")
                    .L(kRack, "r1")
                    .L(kHostname, "d")
                    .A(kCpu, "1")
                    .A(kPods, "10")
                    .Unschedulable()});
  EXPECT_EQ(Place(s, Request(std::nullopt, 2, {{kCpu, 1000}})),
            R"(no assignment reason: topology "default" allows to fit only 1 out of 2 pod(s))");
}

TEST(NodesTest, NodesOfALeafAddUp) {
  // Without the hostname level, a leaf aggregates its nodes, and no node is
  // filtered by taints or selectors (Kueue filters nodes only when the lowest
  // level is the hostname).
  TasFlavorSnapshot s =
      Snapshot(kTwoLevels, {N("a").L(kBlock, "b1").L(kRack, "r1").A(kCpu, "1").A(kPods, "10"),
                            N("b")
                                .L(kBlock, "b1")
                                .L(kRack, "r1")
                                .A(kCpu, "1")
                                .A(kPods, "10")
                                .Taint("k", "v", model::TaintEffect::kNoSchedule)});
  PodSetPlacementRequest r = Request(TR().Required(kRack), 2, {{kCpu, 1000}});
  r.node_selector = {{"zone", "nowhere"}};
  EXPECT_EQ(Place(s, r),
            "assignment{levels=[cloud.com/topology-block,cloud.com/topology-rack] b1/r1=2}");
  s.AddNonTasUsage("b", ToRequests({{kCpu, 1000}, {kPods, 1}}));
  EXPECT_EQ(Place(s, r),
            R"(no assignment reason: topology "default" allows to fit only 1 out of 2 pod(s))");
}

TEST(NodesTest, TaintsTolerationsSelectorsAndAffinity) {
  const std::vector<model::Toleration> flavor_tolerations = {
      {.key = "flavor", .op = model::TolerationOperator::kExists}};
  TasFlavorSnapshot s(kOneLevel,
                      {N("x1")
                           .L(kHostname, "x1")
                           .L("zone", "a")
                           .A(kCpu, "1")
                           .A(kPods, "10")
                           .Taint("flavor", "yes", model::TaintEffect::kNoSchedule),
                       N("x2")
                           .L(kHostname, "x2")
                           .L("zone", "a")
                           .A(kCpu, "1")
                           .A(kPods, "10")
                           .Taint("gpu", "yes", model::TaintEffect::kNoExecute),
                       N("x3").L(kHostname, "x3").L("zone", "b").A(kCpu, "1").A(kPods, "10"),
                       N("x4")
                           .L(kHostname, "x4")
                           .L("zone", "a")
                           .A(kCpu, "1")
                           .A(kPods, "10")
                           .Taint("soft", "", model::TaintEffect::kPreferNoSchedule)},
                      flavor_tolerations, kPods);
  s.SetTopologyName("default");
  s.SetResourceNames(ResourceNames());
  PodSetPlacementRequest r = Request(std::nullopt, 4, {{kCpu, 1000}});
  r.node_selector = {{"zone", "a"}};
  r.required_affinity = {Term(kHostname, model::SelectorOperator::kNotIn, {"x4"})};
  EXPECT_EQ(
      Place(s, r),
      R"(no assignment reason: topology "default" allows to fit only 1 out of 4 pod(s). Total nodes: 4; excluded: affinity: 1, nodeSelector: 1, taint "gpu=yes:NoExecute": 1)");
  r.tolerations = {{.key = "gpu", .op = model::TolerationOperator::kEqual, .value = "yes"}};
  r.required_affinity.clear();
  r.count = 3;
  EXPECT_EQ(Place(s, r), "assignment{levels=[kubernetes.io/hostname] x1=1 x2=1 x4=1}");
}

TEST(NodesTest, PreferredAffinityIgnoredWhenGateOff) {
  std::vector<NodeSpec> nodes = {
      N("x1").L(kHostname, "x1").L("type", "other").A(kCpu, "2").A(kPods, "10"),
      N("x2").L(kHostname, "x2").L("type", "preferred").A(kCpu, "2").A(kPods, "10")};
  PodSetPlacementRequest r = Request(TR().Required(kHostname), 1, {{kCpu, 1000}});
  r.preferred_affinity = {Pref(10, "type", model::SelectorOperator::kIn, {"preferred"})};
  EXPECT_EQ(Place(Snapshot(kOneLevel, nodes), r),
            "assignment{levels=[kubernetes.io/hostname] x1=1}");
  TasOptions options;
  options.respect_node_affinity_preferred = true;
  EXPECT_EQ(Place(Snapshot(kOneLevel, nodes, options), r),
            "assignment{levels=[kubernetes.io/hostname] x2=1}");
}

// --- Determinism: Kueue iterates maps; the result must not depend on the
// order nodes come in. ---

TEST(DeterminismTest, NodeOrderDoesNotMatter) {
  std::vector<NodeSpec> nodes;
  for (int b = 0; b < 3; ++b) {
    for (int r = 0; r < 3; ++r) {
      for (int h = 0; h < 4; ++h) {
        const std::string name =
            "b" + std::to_string(b) + "-r" + std::to_string(r) + "-h" + std::to_string(h);
        nodes.push_back(N(name)
                            .L(kBlock, "b" + std::to_string(b))
                            .L(kRack, "r" + std::to_string(r))
                            .L(kHostname, name)
                            .A(kCpu, std::to_string(1 + (b + r + h) % 3))
                            .A(kPods, "110"));
      }
    }
  }
  const std::vector<PodSetPlacementRequest> requests = {
      Request(TR().Preferred(kRack), 9, {{kCpu, 1000}}, "a"),
      Request(TR().Required(kBlock).Slice(kRack, 2), 6, {{kCpu, 1000}}, "b"),
      Request(TR().Unconstrained(true), 5, {{kCpu, 1000}}, "c"),
  };
  auto run = [&](std::vector<NodeSpec> ordered, TasOptions options) {
    const TasFlavorSnapshot s = Snapshot(kThreeLevels, std::move(ordered), options);
    std::string out;
    for (const PlacementOutcome& o : s.FindAssignments(requests, false)) {
      out += Describe(o.assignment, o.failure_reason) + "\n";
    }
    return out;
  };
  for (const bool balanced : {false, true}) {
    TasOptions options;
    options.balanced_placement = balanced;
    const std::string want = run(nodes, options);
    std::mt19937 rng(42);
    for (int i = 0; i < 5; ++i) {
      std::vector<NodeSpec> shuffled = nodes;
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      EXPECT_EQ(run(shuffled, options), want);
    }
  }
}

TEST(ScaleTest, TenThousandNodes) {
  // 10 blocks x 20 racks x 50 hosts.
  std::vector<NodeSpec> nodes;
  for (int b = 0; b < 10; ++b) {
    for (int r = 0; r < 20; ++r) {
      for (int h = 0; h < 50; ++h) {
        const std::string name =
            "n" + std::to_string(b) + "-" + std::to_string(r) + "-" + std::to_string(h);
        nodes.push_back(N(name)
                            .L(kBlock, "b" + std::to_string(b))
                            .L(kRack, "r" + std::to_string(r))
                            .L(kHostname, name)
                            .A(kCpu, "8")
                            .A(kPods, "110"));
      }
    }
  }
  TasFlavorSnapshot s = Snapshot(kThreeLevels, std::move(nodes));
  const auto start = std::chrono::steady_clock::now();
  for (const auto& tr : {TR().Required(kBlock), TR().Preferred(kRack), TR().Unconstrained(true)}) {
    const std::vector<PlacementOutcome> out =
        s.FindAssignments({Request(tr, 3000, {{kCpu, 1000}})}, false);
    ASSERT_TRUE(out[0].assignment.has_value()) << out[0].failure_reason;
    int32_t total = 0;
    for (const model::TopologyDomainAssignment& d : out[0].assignment->domains) total += d.count;
    EXPECT_EQ(total, 3000);
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("three_placements_ms", std::to_string(ms));
}

}  // namespace
}  // namespace kueuesim::topology
