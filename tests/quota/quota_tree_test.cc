// Tests for kueuesim/quota/quota_tree.h: Kueue's hierarchical quota
// arithmetic (pkg/cache/scheduler/resource_node.go), the borrowing level
// (FindHeightOfLowestSubtreeThatFits) and the dominant resource share
// (fair_sharing.go). Several tables are ported from Kueue's resource_test.go
// (TestAvailable) and fair_sharing_test.go (TestDominantResourceShare), with
// our own code; quantities are in the units Kueue uses (milli-CPU for cpu,
// plain counts for GPUs).
#include "kueuesim/quota/quota_tree.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kueuesim::quota {
namespace {

constexpr Amount kMinAmount = std::numeric_limits<int64_t>::min();

FrQuota Q(Amount nominal, Amount borrowing_limit = kNoLimit, Amount lending_limit = kNoLimit) {
  return FrQuota{nominal, borrowing_limit, lending_limit};
}

// Builds a QuotaTree by name. Resources are interned in the order given;
// their rank is their alphabetical position. FRs are "flavor/resource".
class Builder {
 public:
  Builder(std::vector<std::string> resources, std::vector<std::pair<std::string, std::string>> frs)
      : resources_(std::move(resources)) {
    std::vector<ResourceId> fr_resource;
    for (size_t i = 0; i < frs.size(); ++i) {
      const auto& [flavor, resource] = frs[i];
      ResourceId r = -1;
      for (size_t k = 0; k < resources_.size(); ++k) {
        if (resources_[k] == resource) r = static_cast<ResourceId>(k);
      }
      fr_resource.push_back(r);
      fr_ids_[flavor + "/" + resource] = static_cast<FrId>(i);
    }
    std::vector<int32_t> rank(resources_.size(), 0);
    for (size_t a = 0; a < resources_.size(); ++a) {
      for (size_t b = 0; b < resources_.size(); ++b) {
        if (resources_[b] < resources_[a]) ++rank[a];
      }
    }
    tree_ = std::make_unique<QuotaTree>(std::move(fr_resource), std::move(rank));
  }

  NodeId Cohort(const std::string& name, const std::string& parent = "") { return Add(name, false, parent); }
  NodeId Cq(const std::string& name, const std::string& parent = "") { return Add(name, true, parent); }
  void Quota(const std::string& node, const std::string& fr, FrQuota quota) {
    tree_->SetQuota(nodes_.at(node), fr_ids_.at(fr), quota);
  }
  void Weight(const std::string& node, double weight) { tree_->SetFairWeight(nodes_.at(node), weight); }
  QuotaTree Finish() {
    for (const auto& [child, parent] : parents_) tree_->SetParent(nodes_.at(child), nodes_.at(parent));
    tree_->Finalize();
    return *tree_;
  }
  FrId Fr(const std::string& name) const { return fr_ids_.at(name); }
  NodeId Node(const std::string& name) const { return nodes_.at(name); }
  ResourceId Resource(const std::string& name) const {
    for (size_t k = 0; k < resources_.size(); ++k) {
      if (resources_[k] == name) return static_cast<ResourceId>(k);
    }
    return -1;
  }

 private:
  NodeId Add(const std::string& name, bool cq, const std::string& parent) {
    NodeId id = tree_->AddNode(name, cq);
    nodes_[name] = id;
    if (!parent.empty()) parents_.emplace_back(name, parent);
    return id;
  }

  std::vector<std::string> resources_;
  std::map<std::string, FrId> fr_ids_;
  std::map<std::string, NodeId> nodes_;
  std::vector<std::pair<std::string, std::string>> parents_;
  std::unique_ptr<QuotaTree> tree_;
};

// Every node's usage, for comparisons.
std::vector<Amount> AllUsage(const QuotaTree& tree) {
  std::vector<Amount> out;
  for (NodeId n = 0; n < tree.num_nodes(); ++n) {
    for (FrId fr = 0; fr < tree.num_frs(); ++fr) out.push_back(tree.usage(n, fr));
  }
  return out;
}

// --- The worked example of kueue-semantics.md §3.5 ---

// Setup (one FR, cores): R (root, no quota) -> {A (cohort, no quota) ->
// {a1 nominal 10 lendingLimit 4, a2 nominal 6}, b nominal 10
// borrowingLimit 5}; usage a1 8, b 12.
class WorkedExampleTest : public ::testing::Test {
 protected:
  WorkedExampleTest() : b_({"cpu"}, {{"f", "cpu"}}) {
    b_.Cohort("R");
    b_.Cohort("A", "R");
    b_.Cq("a1", "A");
    b_.Cq("a2", "A");
    b_.Cq("b", "R");
    b_.Quota("a1", "f/cpu", Q(10, kNoLimit, 4));
    b_.Quota("a2", "f/cpu", Q(6));
    b_.Quota("b", "f/cpu", Q(10, 5));
    tree_ = b_.Finish();
    fr_ = b_.Fr("f/cpu");
    tree_.AddUsage(b_.Node("a1"), fr_, 8);
    tree_.AddUsage(b_.Node("b"), fr_, 12);
  }
  NodeId N(const std::string& name) const { return b_.Node(name); }

  Builder b_;
  QuotaTree tree_{{}, {}};
  FrId fr_ = 0;
};

// Invariant: localQuota(a1) = 10-4 = 6, LocalAvailable(a1) = max(0, 6-8) = 0;
// a2 and b keep nothing private.
TEST_F(WorkedExampleTest, LocalQuotaAndLocalAvailable) {
  EXPECT_EQ(tree_.LocalQuota(N("a1"), fr_), 6);
  EXPECT_EQ(tree_.LocalAvailable(N("a1"), fr_), 0);
  EXPECT_EQ(tree_.LocalQuota(N("a2"), fr_), 0);
  EXPECT_EQ(tree_.LocalQuota(N("b"), fr_), 0);
  EXPECT_EQ(tree_.LocalAvailable(N("b"), fr_), 0);
}

// Invariant: SubtreeQuota A = (10-6)+(6-0) = 10, R = 10+10 = 20; usage
// propagates only past local quota: A = max(0, 8-6) = 2, R = 2+12 = 14.
TEST_F(WorkedExampleTest, SubtreeQuotaAndUsagePropagation) {
  EXPECT_EQ(tree_.subtree_quota(N("A"), fr_), 10);
  EXPECT_EQ(tree_.subtree_quota(N("R"), fr_), 20);
  EXPECT_EQ(tree_.usage(N("a1"), fr_), 8);
  EXPECT_EQ(tree_.usage(N("A"), fr_), 2);
  EXPECT_EQ(tree_.usage(N("R"), fr_), 14);
}

// Invariant: available(b) = min(6, 10-12+5) = 3 (= nominal + borrowingLimit -
// usage); available(a1) = 0 + 6 = 6; available(a2) = 6.
TEST_F(WorkedExampleTest, Available) {
  EXPECT_EQ(tree_.AvailableRaw(N("R"), fr_), 6);
  EXPECT_EQ(tree_.Available(N("b"), fr_), 3);
  EXPECT_EQ(tree_.Available(N("a1"), fr_), 6);
  EXPECT_EQ(tree_.Available(N("a2"), fr_), 6);
}

// Invariant: potential a1 = 6 + 20 = 26; a2 = 20 (cannot reach a1's private
// 6); b = min(20, 10+5) = 15.
TEST_F(WorkedExampleTest, PotentialAvailable) {
  EXPECT_EQ(tree_.PotentialAvailable(N("a1"), fr_), 26);
  EXPECT_EQ(tree_.PotentialAvailable(N("a2"), fr_), 20);
  EXPECT_EQ(tree_.PotentialAvailable(N("b"), fr_), 15);
  EXPECT_EQ(tree_.PotentialAvailable(N("R"), fr_), 20);
}

// Invariant: a 7-CPU workload in a2 does not fit (7 > 6), borrows (nominal 6
// < 7); at A, 10 >= 2+7 so the level is height(A) = 1 and mayReclaim = true.
TEST_F(WorkedExampleTest, SevenCpuWorkloadBorrowingLevel) {
  EXPECT_GT(7, tree_.Available(N("a2"), fr_));
  EXPECT_TRUE(tree_.BorrowingWith(N("a2"), fr_, 7));
  EXPECT_FALSE(tree_.BorrowingWith(N("A"), fr_, 7));
  EXPECT_EQ(tree_.height(N("A")), 1);
  EXPECT_EQ(tree_.height(N("R")), 2);
  EXPECT_EQ(tree_.FindHeightOfLowestSubtreeThatFits(N("a2"), fr_, 7), std::make_pair(1, true));
  // Within a2's nominal: level 0, reclaim possible (a2 has a parent).
  EXPECT_EQ(tree_.FindHeightOfLowestSubtreeThatFits(N("a2"), fr_, 6), std::make_pair(0, true));
}

// Invariant: a2's own fits-in-quota fails (6 < 7), A's subtree fits (10 >=
// 2+7); removing 3 of b's usage frees the root to 9 so available(a2) = 9.
TEST_F(WorkedExampleTest, HierarchicalReclaimArithmetic) {
  FrAmountList remaining;
  const FrAmount request[] = {{fr_, 7}};
  EXPECT_FALSE(tree_.QuantitiesFitInQuota(N("a2"), request, &remaining));
  ASSERT_EQ(remaining.size(), 1u);
  EXPECT_EQ(remaining[0].amount, 7);  // a2 has no local available
  EXPECT_TRUE(tree_.QuantitiesFitInQuota(N("A"), remaining, nullptr));
  EXPECT_FALSE(tree_.IsWithinNominal(N("b"), std::vector<FrId>{fr_}));  // 12 > 10
  tree_.RemoveUsage(N("b"), fr_, 3);
  EXPECT_EQ(tree_.usage(N("R"), fr_), 11);
  EXPECT_EQ(tree_.Available(N("a2"), fr_), 9);
}

// Invariant: adding usage at a1 first fills its private 6, then flows up:
// +5 -> a1 5, A 0; +3 -> a1 8, A 2, R 2 (with b's 12, R 14 as above).
TEST_F(WorkedExampleTest, AddUsageFillsLocalQuotaFirst) {
  tree_.RemoveUsage(N("a1"), fr_, 8);
  EXPECT_EQ(tree_.usage(N("A"), fr_), 0);
  EXPECT_EQ(tree_.usage(N("R"), fr_), 12);
  tree_.AddUsage(N("a1"), fr_, 5);
  EXPECT_EQ(tree_.usage(N("A"), fr_), 0);
  EXPECT_EQ(tree_.LocalAvailable(N("a1"), fr_), 1);
  tree_.AddUsage(N("a1"), fr_, 3);
  EXPECT_EQ(tree_.usage(N("A"), fr_), 2);
  EXPECT_EQ(tree_.usage(N("R"), fr_), 14);
}

// --- Ported from Kueue resource_test.go TestAvailable ---

// Setup: cq1 (red cpu 0), cq2 (red 5, blue 10), no cohorts; usage cq1 red
// 1000m, cq2 red 2500m blue 1000m. Invariant: a root CQ has available =
// nominal - usage clamped at 0: cq1 0, cq2 red 2500 blue 9000; potential =
// nominal.
TEST(QuotaTreeAvailableTest, BaseClusterQueues) {
  Builder b({"cpu"}, {{"red", "cpu"}, {"blue", "cpu"}});
  b.Cq("cq1");
  b.Cq("cq2");
  b.Quota("cq1", "red/cpu", Q(0));
  b.Quota("cq2", "red/cpu", Q(5000));
  b.Quota("cq2", "blue/cpu", Q(10000));
  QuotaTree t = b.Finish();
  const FrId red = b.Fr("red/cpu"), blue = b.Fr("blue/cpu");
  t.AddUsage(b.Node("cq1"), red, 1000);
  t.AddUsage(b.Node("cq2"), red, 2500);
  t.AddUsage(b.Node("cq2"), blue, 1000);
  EXPECT_EQ(t.Available(b.Node("cq1"), red), 0);
  EXPECT_EQ(t.AvailableRaw(b.Node("cq1"), red), -1000);
  EXPECT_EQ(t.Available(b.Node("cq2"), red), 2500);
  EXPECT_EQ(t.Available(b.Node("cq2"), blue), 9000);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq1"), red), 0);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq2"), red), 5000);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq2"), blue), 10000);
}

// Setup: cohort (red 10) -> {cq1 red 10, cq2 red 10 lendingLimit 9}; usage
// cq1 1000, cq2 500. Invariant: cohort SQ = 10+10+9 = 29; cq2 keeps 1 private.
// Empty: available = potential = cq1 29000, cq2 30000. With usage: cq1
// 28000 (29000 - 1000; cq2's 500 stays in its private 1000), cq2 28500.
TEST(QuotaTreeAvailableTest, ClusterQueuesWithCohortAndLendingLimit) {
  Builder b({"cpu"}, {{"red", "cpu"}});
  b.Cohort("cohort");
  b.Cq("cq1", "cohort");
  b.Cq("cq2", "cohort");
  b.Quota("cohort", "red/cpu", Q(10000));
  b.Quota("cq1", "red/cpu", Q(10000));
  b.Quota("cq2", "red/cpu", Q(10000, kNoLimit, 9000));
  QuotaTree t = b.Finish();
  const FrId red = b.Fr("red/cpu");
  EXPECT_EQ(t.Available(b.Node("cq1"), red), 29000);
  EXPECT_EQ(t.Available(b.Node("cq2"), red), 30000);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq1"), red), 29000);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq2"), red), 30000);
  t.AddUsage(b.Node("cq1"), red, 1000);
  t.AddUsage(b.Node("cq2"), red, 500);
  EXPECT_EQ(t.Available(b.Node("cq1"), red), 28000);
  EXPECT_EQ(t.Available(b.Node("cq2"), red), 28500);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq1"), red), 29000);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq2"), red), 30000);
  t.RemoveUsage(b.Node("cq1"), red, 1000);
  t.RemoveUsage(b.Node("cq2"), red, 500);
  EXPECT_EQ(t.Available(b.Node("cq1"), red), 29000);
  EXPECT_EQ(t.Available(b.Node("cq2"), red), 30000);
}

// Setup: cohort (red 10) -> cq1 (red 10) using 11000. Invariant: available
// = 20000 - 11000 = 9000; potential 20000.
TEST(QuotaTreeAvailableTest, ClusterQueueBorrowsFromCohort) {
  Builder b({"cpu"}, {{"red", "cpu"}});
  b.Cohort("cohort");
  b.Cq("cq1", "cohort");
  b.Quota("cohort", "red/cpu", Q(10000));
  b.Quota("cq1", "red/cpu", Q(10000));
  QuotaTree t = b.Finish();
  const FrId red = b.Fr("red/cpu");
  t.AddUsage(b.Node("cq1"), red, 11000);
  EXPECT_EQ(t.Available(b.Node("cq1"), red), 9000);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq1"), red), 20000);
}

// Setup: cohort (red 10) -> {cq1 red 10, cq2 red 10 borrowingLimit 0
// lendingLimit 0}; cq1 over-admitted to 31000. Invariant: cohort SQ = 20000,
// usage 31000, so available is negative everywhere and clamps to 0, even for
// cq2 which neither lends nor borrows (raw: cq1 -11000, cq2 10000-11000 =
// -1000); potential cq1 20000, cq2 10000.
TEST(QuotaTreeAvailableTest, OversubscriptionSpillsIntoCohort) {
  Builder b({"cpu"}, {{"red", "cpu"}});
  b.Cohort("cohort");
  b.Cq("cq1", "cohort");
  b.Cq("cq2", "cohort");
  b.Quota("cohort", "red/cpu", Q(10000));
  b.Quota("cq1", "red/cpu", Q(10000));
  b.Quota("cq2", "red/cpu", Q(10000, 0, 0));
  QuotaTree t = b.Finish();
  const FrId red = b.Fr("red/cpu");
  t.AddUsage(b.Node("cq1"), red, 31000);
  EXPECT_EQ(t.AvailableRaw(b.Node("cq1"), red), -11000);
  EXPECT_EQ(t.Available(b.Node("cq1"), red), 0);
  EXPECT_EQ(t.AvailableRaw(b.Node("cq2"), red), -1000);
  EXPECT_EQ(t.Available(b.Node("cq2"), red), 0);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq1"), red), 20000);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq2"), red), 10000);
}

// Setup: cohort (red 10) -> {cq1 red 10, cq2 red 10 borrowingLimit 2, cq3
// red 10 lendingLimit 5}; usage cq1 20000, cq2 10000, cq3 6000. Invariant:
// potential cq1 35000 (40000 minus cq3's private 5000), cq2 12000 (borrowing
// limit), cq3 40000; available cq1 4000, cq2 2000 (limit), cq3 4000.
TEST(QuotaTreeAvailableTest, LendingAndBorrowingLimitsRespected) {
  Builder b({"cpu"}, {{"red", "cpu"}});
  b.Cohort("cohort");
  b.Cq("cq1", "cohort");
  b.Cq("cq2", "cohort");
  b.Cq("cq3", "cohort");
  b.Quota("cohort", "red/cpu", Q(10000));
  b.Quota("cq1", "red/cpu", Q(10000));
  b.Quota("cq2", "red/cpu", Q(10000, 2000));
  b.Quota("cq3", "red/cpu", Q(10000, kNoLimit, 5000));
  QuotaTree t = b.Finish();
  const FrId red = b.Fr("red/cpu");
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq1"), red), 35000);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq2"), red), 12000);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq3"), red), 40000);
  EXPECT_EQ(t.Available(b.Node("cq2"), red), 12000);
  t.AddUsage(b.Node("cq1"), red, 20000);
  t.AddUsage(b.Node("cq2"), red, 10000);
  t.AddUsage(b.Node("cq3"), red, 6000);
  EXPECT_EQ(t.Available(b.Node("cq1"), red), 4000);
  EXPECT_EQ(t.Available(b.Node("cq2"), red), 2000);
  EXPECT_EQ(t.Available(b.Node("cq3"), red), 4000);
}

// Setup: root -> {left (red 10) -> cq1 (red 10), right (red 10) -> cq2 (red
// 10 lendingLimit 0)}; usage cq1 10000, cq2 5000. Invariant: potential cq1
// 30000 (cq2's 10 is private), cq2 40000; available cq1 20000, cq2 25000.
TEST(QuotaTreeAvailableTest, HierarchicalCohort) {
  Builder b({"cpu"}, {{"red", "cpu"}});
  b.Cohort("root");
  b.Cohort("left", "root");
  b.Cohort("right", "root");
  b.Cq("cq1", "left");
  b.Cq("cq2", "right");
  b.Quota("left", "red/cpu", Q(10000));
  b.Quota("right", "red/cpu", Q(10000));
  b.Quota("cq1", "red/cpu", Q(10000));
  b.Quota("cq2", "red/cpu", Q(10000, kNoLimit, 0));
  QuotaTree t = b.Finish();
  const FrId red = b.Fr("red/cpu");
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq1"), red), 30000);
  EXPECT_EQ(t.PotentialAvailable(b.Node("cq2"), red), 40000);
  t.AddUsage(b.Node("cq1"), red, 10000);
  t.AddUsage(b.Node("cq2"), red, 5000);
  EXPECT_EQ(t.Available(b.Node("cq1"), red), 20000);
  EXPECT_EQ(t.Available(b.Node("cq2"), red), 25000);
}

// Setup: root -> {left (red 10, borrowingLimit 5) -> {left-cq1 red 10,
// left-cq2 red 10 borrowingLimit 5}, right (red 10) -> right-cq red 10}; no
// usage. Invariant: left-cq1 35000 (left's 30 + 5 above), left-cq2 15000,
// right-cq 50000; available equals potential.
TEST(QuotaTreeAvailableTest, HierarchicalCohortRespectsBorrowingLimit) {
  Builder b({"cpu"}, {{"red", "cpu"}});
  b.Cohort("root");
  b.Cohort("left", "root");
  b.Cohort("right", "root");
  b.Cq("left-cq1", "left");
  b.Cq("left-cq2", "left");
  b.Cq("right-cq", "right");
  b.Quota("left", "red/cpu", Q(10000, 5000));
  b.Quota("right", "red/cpu", Q(10000));
  b.Quota("left-cq1", "red/cpu", Q(10000));
  b.Quota("left-cq2", "red/cpu", Q(10000, 5000));
  b.Quota("right-cq", "red/cpu", Q(10000));
  QuotaTree t = b.Finish();
  const FrId red = b.Fr("red/cpu");
  for (const auto& [name, want] : std::vector<std::pair<std::string, Amount>>{
           {"left-cq1", 35000}, {"left-cq2", 15000}, {"right-cq", 50000}}) {
    EXPECT_EQ(t.Available(b.Node(name), red), want) << name;
    EXPECT_EQ(t.PotentialAvailable(b.Node(name), red), want) << name;
  }
}

// Setup: root -> {root-cq (red 0), left (red 0, lendingLimit 5) ->
// {left-cq1 red 10 lendingLimit 5, left-cq2 red 10}, right (red 0) ->
// right-cq red 0}. Invariant: left-cq1 20000, left-cq2 15000, right-cq 5000,
// root-cq 5000.
TEST(QuotaTreeAvailableTest, HierarchicalCohortRespectsLendingLimit) {
  Builder b({"cpu"}, {{"red", "cpu"}});
  b.Cohort("root");
  b.Cohort("left", "root");
  b.Cohort("right", "root");
  b.Cq("left-cq1", "left");
  b.Cq("left-cq2", "left");
  b.Cq("right-cq", "right");
  b.Cq("root-cq", "root");
  b.Quota("left", "red/cpu", Q(0, kNoLimit, 5000));
  b.Quota("right", "red/cpu", Q(0));
  b.Quota("left-cq1", "red/cpu", Q(10000, kNoLimit, 5000));
  b.Quota("left-cq2", "red/cpu", Q(10000));
  b.Quota("right-cq", "red/cpu", Q(0));
  b.Quota("root-cq", "red/cpu", Q(0));
  QuotaTree t = b.Finish();
  const FrId red = b.Fr("red/cpu");
  for (const auto& [name, want] : std::vector<std::pair<std::string, Amount>>{
           {"left-cq1", 20000}, {"left-cq2", 15000}, {"right-cq", 5000}, {"root-cq", 5000}}) {
    EXPECT_EQ(t.Available(b.Node(name), red), want) << name;
    EXPECT_EQ(t.PotentialAvailable(b.Node(name), red), want) << name;
  }
}

// Setup: cohort -> {cq1 cpu 10, cq2 cpu 10 borrowingLimit 3}; usage cq1 0,
// cq2 13000 then +1. Invariant: cq2 available = 10+3-13 = 0 although the
// cohort has 7000 free; BorrowingWith(cq2, 1) since 13001 > 10000.
TEST(QuotaTreeTest, BorrowingStopsAtBorrowingLimit) {
  Builder b({"cpu"}, {{"f", "cpu"}});
  b.Cohort("c");
  b.Cq("cq1", "c");
  b.Cq("cq2", "c");
  b.Quota("cq1", "f/cpu", Q(10000));
  b.Quota("cq2", "f/cpu", Q(10000, 3000));
  QuotaTree t = b.Finish();
  const FrId fr = b.Fr("f/cpu");
  t.AddUsage(b.Node("cq2"), fr, 13000);
  EXPECT_EQ(t.AvailableRaw(b.Node("c"), fr), 7000);
  EXPECT_EQ(t.Available(b.Node("cq2"), fr), 0);
  EXPECT_EQ(t.Available(b.Node("cq1"), fr), 7000);
  EXPECT_TRUE(t.BorrowingWith(b.Node("cq2"), fr, 1));
  EXPECT_TRUE(t.Borrowing(b.Node("cq2"), fr));
  EXPECT_FALSE(t.Borrowing(b.Node("cq1"), fr));
}

// --- Unlimited (INT64_MAX) quotas ---

// Setup: cohort -> {big cpu nominal Unlimited, small cpu nominal 10}.
// Invariant: sums saturate: cohort SQ = Unlimited, not a wrapped negative;
// available/potential stay Unlimited after usage 5000 on big; small sees
// Unlimited available through the cohort.
TEST(QuotaTreeTest, UnlimitedQuotaSaturates) {
  Builder b({"cpu"}, {{"f", "cpu"}});
  b.Cohort("c");
  b.Cq("big", "c");
  b.Cq("small", "c");
  b.Quota("big", "f/cpu", Q(kUnlimited));
  b.Quota("small", "f/cpu", Q(10000));
  QuotaTree t = b.Finish();
  const FrId fr = b.Fr("f/cpu");
  EXPECT_EQ(t.subtree_quota(b.Node("c"), fr), kUnlimited);
  t.AddUsage(b.Node("big"), fr, 5000);
  EXPECT_EQ(t.usage(b.Node("c"), fr), 5000);
  EXPECT_EQ(t.Available(b.Node("big"), fr), kUnlimited);
  EXPECT_EQ(t.Available(b.Node("small"), fr), kUnlimited);
  EXPECT_EQ(t.PotentialAvailable(b.Node("small"), fr), kUnlimited);
  EXPECT_FALSE(t.BorrowingWith(b.Node("big"), fr, 1'000'000'000));
  EXPECT_TRUE(t.BorrowingWith(b.Node("small"), fr, 10001));
  // Two Unlimited children still sum to Unlimited.
  Builder b2({"cpu"}, {{"f", "cpu"}});
  b2.Cohort("c");
  b2.Cq("x", "c");
  b2.Cq("y", "c");
  b2.Quota("x", "f/cpu", Q(kUnlimited));
  b2.Quota("y", "f/cpu", Q(kUnlimited));
  QuotaTree t2 = b2.Finish();
  EXPECT_EQ(t2.subtree_quota(b2.Node("c"), b2.Fr("f/cpu")), kUnlimited);
  EXPECT_EQ(t2.Available(b2.Node("x"), b2.Fr("f/cpu")), kUnlimited);
}

// Setup: cohort -> {a cpu 10 borrowingLimit Unlimited, lender cpu 20}; usage
// a 15000. Invariant: an Unlimited borrowing limit does not cap: available(a)
// = 30000-15000 = 15000; potential(a) = min(Unlimited, 30000) = 30000. A
// lending limit of Unlimited keeps nothing private (SQ - Unlimited is MinInt
// -> localQuota 0).
TEST(QuotaTreeTest, UnlimitedLimits) {
  Builder b({"cpu"}, {{"f", "cpu"}});
  b.Cohort("c");
  b.Cq("a", "c");
  b.Cq("lender", "c");
  b.Quota("a", "f/cpu", Q(10000, kUnlimited));
  b.Quota("lender", "f/cpu", Q(20000, kNoLimit, kUnlimited));
  QuotaTree t = b.Finish();
  const FrId fr = b.Fr("f/cpu");
  EXPECT_EQ(t.LocalQuota(b.Node("lender"), fr), 0);
  EXPECT_EQ(t.subtree_quota(b.Node("c"), fr), 30000);
  t.AddUsage(b.Node("a"), fr, 15000);
  EXPECT_EQ(t.Available(b.Node("a"), fr), 15000);
  EXPECT_EQ(t.PotentialAvailable(b.Node("a"), fr), 30000);
}

// Invariant: the raw arithmetic follows Kueue's Amount rules: bounded -
// Unlimited is MinInt64 (here via a root CQ whose usage is Unlimited), and
// Available clamps it to 0.
TEST(QuotaTreeTest, UnlimitedUsageOnBoundedRoot) {
  Builder b({"cpu"}, {{"f", "cpu"}});
  b.Cq("cq");
  b.Quota("cq", "f/cpu", Q(10));
  QuotaTree t = b.Finish();
  const FrId fr = b.Fr("f/cpu");
  t.AddUsage(b.Node("cq"), fr, kUnlimited);
  EXPECT_EQ(t.usage(b.Node("cq"), fr), kUnlimited);
  EXPECT_EQ(t.AvailableRaw(b.Node("cq"), fr), kMinAmount);
  EXPECT_EQ(t.Available(b.Node("cq"), fr), 0);
}

// --- AddUsage / RemoveUsage symmetry ---

// Setup: a 3-level tree with nominal quotas, lending and borrowing limits at
// every level, 2 FRs; 400 random add/remove operations (deterministic seed),
// each removing only what was added. Invariant: after every operation the
// incremental cohort usage equals RecomputeCohortUsage on a copy; after
// removing everything, every usage is 0.
TEST(QuotaTreeTest, AddRemoveUsageSymmetryMatchesRecompute) {
  Builder b({"cpu", "memory"}, {{"f", "cpu"}, {"f", "memory"}});
  b.Cohort("root");
  b.Cohort("mid", "root");
  b.Cohort("leaf", "mid");
  b.Cq("q1", "leaf");
  b.Cq("q2", "leaf");
  b.Cq("q3", "mid");
  b.Cq("q4", "root");
  b.Cq("alone");
  b.Quota("root", "f/cpu", Q(5));
  b.Quota("mid", "f/cpu", Q(3, 4, 2));
  b.Quota("leaf", "f/cpu", Q(2, kNoLimit, 1));
  b.Quota("q1", "f/cpu", Q(10, 5, 4));
  b.Quota("q2", "f/cpu", Q(6, kNoLimit, 0));
  b.Quota("q3", "f/cpu", Q(8, 2));
  b.Quota("q4", "f/cpu", Q(4, kNoLimit, 3));
  b.Quota("alone", "f/cpu", Q(7));
  b.Quota("q1", "f/memory", Q(100, kNoLimit, 50));
  b.Quota("q2", "f/memory", Q(100));
  b.Quota("mid", "f/memory", Q(0, kNoLimit, 10));
  QuotaTree t = b.Finish();
  const std::vector<NodeId> cqs = {b.Node("q1"), b.Node("q2"), b.Node("q3"), b.Node("q4"),
                                   b.Node("alone")};
  std::mt19937 rng(12345);
  struct Held {
    NodeId node;
    FrId fr;
    Amount amount;
  };
  std::vector<Held> held;
  auto check = [&](int step) {
    QuotaTree copy = t;
    copy.RecomputeCohortUsage();
    ASSERT_EQ(AllUsage(copy), AllUsage(t)) << "after step " << step;
  };
  for (int step = 0; step < 400; ++step) {
    const bool add = held.empty() || rng() % 3 != 0;
    if (add) {
      Held h{cqs[rng() % cqs.size()], static_cast<FrId>(rng() % 2),
             static_cast<Amount>(rng() % 9 + 1)};
      t.AddUsage(h.node, h.fr, h.amount);
      held.push_back(h);
    } else {
      size_t i = rng() % held.size();
      t.RemoveUsage(held[i].node, held[i].fr, held[i].amount);
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
    }
    check(step);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::shuffle(held.begin(), held.end(), rng);
  for (const Held& h : held) t.RemoveUsage(h.node, h.fr, h.amount);
  for (Amount u : AllUsage(t)) EXPECT_EQ(u, 0);
}

// Setup: cq (nominal 10, lendingLimit 4) in cohort; AddUsage(cq, {cpu 8, mem
// 3}) as a span then RemoveUsage with the same span. Invariant: the span
// overloads are the per-FR calls in sequence; usage returns to 0 everywhere.
TEST(QuotaTreeTest, SpanAddRemoveUsage) {
  Builder b({"cpu", "memory"}, {{"f", "cpu"}, {"f", "memory"}});
  b.Cohort("c");
  b.Cq("cq", "c");
  b.Quota("cq", "f/cpu", Q(10, kNoLimit, 4));
  b.Quota("cq", "f/memory", Q(2));
  QuotaTree t = b.Finish();
  const std::vector<FrAmount> usage = {{b.Fr("f/cpu"), 8}, {b.Fr("f/memory"), 3}};
  t.AddUsage(b.Node("cq"), usage);
  EXPECT_EQ(t.usage(b.Node("c"), b.Fr("f/cpu")), 2);     // 8 - 6 private
  EXPECT_EQ(t.usage(b.Node("c"), b.Fr("f/memory")), 3);  // no private part
  t.RemoveUsage(b.Node("cq"), usage);
  for (Amount u : AllUsage(t)) EXPECT_EQ(u, 0);
}

// --- FindHeightOfLowestSubtreeThatFits and height() ---

// Setup: R -> {M -> {L -> {q (cpu 4)}, m2 (cpu 4)}, r2 (cpu 4)}; no cohort
// quota. Heights: q 0, L 1, M 2, R 3. Requests at q: 4 -> level 0 (within
// nominal, mayReclaim true); 6 -> L's SQ is 4 < 6, M's SQ 8 >= 6 -> level
// height(M) = 2, mayReclaim true; 10 -> only R (12) fits -> 3, mayReclaim
// false (R has no parent); 20 -> nothing fits -> height(root) = 3, false.
TEST(QuotaTreeTest, FindHeightOfLowestSubtreeThatFitsThreeLevels) {
  Builder b({"cpu"}, {{"f", "cpu"}});
  b.Cohort("R");
  b.Cohort("M", "R");
  b.Cohort("L", "M");
  b.Cq("q", "L");
  b.Cq("m2", "M");
  b.Cq("r2", "R");
  b.Quota("q", "f/cpu", Q(4));
  b.Quota("m2", "f/cpu", Q(4));
  b.Quota("r2", "f/cpu", Q(4));
  QuotaTree t = b.Finish();
  const FrId fr = b.Fr("f/cpu");
  const NodeId q = b.Node("q");
  EXPECT_EQ(t.height(q), 0);
  EXPECT_EQ(t.height(b.Node("L")), 1);
  EXPECT_EQ(t.height(b.Node("M")), 2);
  EXPECT_EQ(t.height(b.Node("R")), 3);
  EXPECT_EQ(t.FindHeightOfLowestSubtreeThatFits(q, fr, 4), std::make_pair(0, true));
  EXPECT_EQ(t.FindHeightOfLowestSubtreeThatFits(q, fr, 6), std::make_pair(2, true));
  EXPECT_EQ(t.FindHeightOfLowestSubtreeThatFits(q, fr, 10), std::make_pair(3, false));
  EXPECT_EQ(t.FindHeightOfLowestSubtreeThatFits(q, fr, 20), std::make_pair(3, false));
  // Usage elsewhere counts: with m2 using 4, 6 no longer fits at M (SQ 8 <
  // usage 4 + 6) but fits at R (12 >= 4 + 6).
  t.AddUsage(b.Node("m2"), fr, 4);
  EXPECT_EQ(t.FindHeightOfLowestSubtreeThatFits(q, fr, 6), std::make_pair(3, false));
}

// Setup: a CQ without a cohort (nominal 5). Invariant: level 0 and no reclaim
// regardless of the request (it can never borrow).
TEST(QuotaTreeTest, FindHeightWithoutParent) {
  Builder b({"cpu"}, {{"f", "cpu"}});
  b.Cq("q");
  b.Quota("q", "f/cpu", Q(5));
  QuotaTree t = b.Finish();
  EXPECT_EQ(t.FindHeightOfLowestSubtreeThatFits(b.Node("q"), b.Fr("f/cpu"), 3), std::make_pair(0, false));
  EXPECT_EQ(t.FindHeightOfLowestSubtreeThatFits(b.Node("q"), b.Fr("f/cpu"), 30), std::make_pair(0, false));
  EXPECT_EQ(t.Root(b.Node("q")), b.Node("q"));
}

// Setup: C (root) -> {q (cpu 10, lendingLimit 4: 6 private), p (cpu 2)}; q
// uses 2, so LocalAvailable(q) = 4 and SQ(C) = 4+2 = 6. Invariant: 12 at q
// borrows (10 < 14), rem = 12-4 = 8 > 6 at C -> no ancestor fits -> {height
// (root) = 1, false}; 9 -> rem 5 <= 6 fits at C -> {1, has_parent(C) =
// false}; 8 -> within nominal (10 >= 10) -> {0, true}.
TEST(QuotaTreeTest, FindHeightSubtractsLocalAvailable) {
  Builder b({"cpu"}, {{"f", "cpu"}});
  b.Cohort("C");
  b.Cq("q", "C");
  b.Cq("p", "C");
  b.Quota("q", "f/cpu", Q(10, kNoLimit, 4));
  b.Quota("p", "f/cpu", Q(2));
  QuotaTree t = b.Finish();
  const FrId fr = b.Fr("f/cpu");
  t.AddUsage(b.Node("q"), fr, 2);
  EXPECT_EQ(t.LocalAvailable(b.Node("q"), fr), 4);
  EXPECT_EQ(t.subtree_quota(b.Node("C"), fr), 6);
  EXPECT_EQ(t.FindHeightOfLowestSubtreeThatFits(b.Node("q"), fr, 12), std::make_pair(1, false));
  EXPECT_EQ(t.FindHeightOfLowestSubtreeThatFits(b.Node("q"), fr, 9), std::make_pair(1, false));
  EXPECT_EQ(t.FindHeightOfLowestSubtreeThatFits(b.Node("q"), fr, 8), std::make_pair(0, true));
}

// Invariant: height(cohort) = max(min(#children, 1), max child cohort
// height + 1): an empty cohort 0, a cohort of CQs 1, a cohort whose only
// child is an empty cohort 1, and the children lists are split by kind.
TEST(QuotaTreeTest, HeightFollowsKueueGetNodeHeight) {
  Builder b({"cpu"}, {{"f", "cpu"}});
  b.Cohort("empty");
  b.Cohort("parent_of_empty");
  b.Cohort("inner", "parent_of_empty");
  b.Cohort("cqs");
  b.Cq("x", "cqs");
  b.Cq("y", "cqs");
  QuotaTree t = b.Finish();
  EXPECT_EQ(t.height(b.Node("empty")), 0);
  EXPECT_EQ(t.height(b.Node("inner")), 0);
  EXPECT_EQ(t.height(b.Node("parent_of_empty")), 1);
  EXPECT_EQ(t.height(b.Node("cqs")), 1);
  EXPECT_EQ(t.height(b.Node("x")), 0);
  EXPECT_THAT(t.child_cluster_queues(b.Node("cqs")), ::testing::ElementsAre(b.Node("x"), b.Node("y")));
  EXPECT_THAT(t.child_cohorts(b.Node("parent_of_empty")), ::testing::ElementsAre(b.Node("inner")));
  EXPECT_TRUE(t.child_cohorts(b.Node("cqs")).empty());
}

// --- Dominant resource share ---

int64_t RoundedShare(const Drs& drs) {
  if (drs.ZeroWeightBorrows()) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(std::ceil(drs.PreciseWeightedShare()));
}

// Kueue's two-CQ DRS fixture: cq and lending-cq in test-cohort, resources
// cpu (milli) and example.com/gpu, flavor "default".
struct DrsCase {
  std::string name;
  Amount cq_cpu = -1, cq_gpu = -1, lend_cpu = -1, lend_gpu = -1;  // -1: not declared
  Amount cq_gpu_lending = kNoLimit, lend_gpu_lending = kNoLimit;
  double cq_weight = 1, lend_weight = 1;
  Amount usage_cpu = 0, usage_gpu = 0;
  Amount req_cpu = 0, req_gpu = 0;
  int64_t want_cq = 0;
  std::string want_resource;  // "" when not borrowing
};

// Ported from Kueue fair_sharing_test.go TestDominantResourceShare (two-CQ
// cases). Invariant per case: DRS(cq) = ceil(max_r borrowed_r*1000/lendable_r
// / weight), lending-cq and the root cohort 0.
TEST(DominantResourceShareTest, KueueTwoClusterQueueCases) {
  const std::vector<DrsCase> cases = {
      // usage below nominal: 1 cpu of 2, 2 gpu of 5.
      {"below nominal", 2000, 5, 8000, 5, kNoLimit, kNoLimit, 1, 1, 1000, 2, 0, 0, 0, ""},
      // gpu (7-5)*1000/10 = 200 beats cpu (3-2)*1000/10 = 100.
      {"above nominal", 2000, 5, 8000, 5, kNoLimit, kNoLimit, 1, 1, 3000, 7, 0, 0, 200,
       "example.com/gpu"},
      // 1*1000/1500 = 0.67 -> ceil 1.
      {"slightly above, large quotas", -1, 500, -1, 1000, kNoLimit, kNoLimit, 1, 300, 0, 501, 0, 0, 1,
       "example.com/gpu"},
      // 300*1000/1500 = 200 / weight 300 = 0.67 -> 1.
      {"way above, weights", -1, 500, -1, 1000, kNoLimit, kNoLimit, 300, 300, 0, 800, 0, 0, 1,
       "example.com/gpu"},
      // cpu (3-2)*1000/10 = 100; gpu 3 of 5 not borrowed.
      {"one resource above", 2000, 5, 8000, 5, kNoLimit, kNoLimit, 1, 1, 3000, 3, 0, 0, 100, "cpu"},
      // with the workload: cpu (1+4-2)*1000/10 = 300, gpu (2+4-5)*100 = 100.
      {"workload above nominal", 2000, 5, 8000, 5, kNoLimit, kNoLimit, 1, 1, 1000, 2, 4000, 4, 300,
       "cpu"},
      // gpu lendable 0 (both lend 0) -> ignored; cpu 300.
      {"zero lendable resource", 2000, 2, 8000, 64, 0, 0, 1, 1, 1000, 1, 4000, 4, 300, "cpu"},
      // weight 2: 200 / 2 = 100; weight 0.5: 400.
      {"integer weight", -1, 5, -1, 5, kNoLimit, kNoLimit, 2, 1, 0, 7, 0, 0, 100, "example.com/gpu"},
      {"decimal weight", -1, 5, -1, 5, kNoLimit, kNoLimit, 0.5, 1, 0, 7, 0, 0, 400, "example.com/gpu"},
      {"zero weight", -1, 5, -1, 10, kNoLimit, kNoLimit, 0, 1, 0, 7, 0, 0,
       std::numeric_limits<int64_t>::max(), "example.com/gpu"},
  };
  for (const DrsCase& c : cases) {
    SCOPED_TRACE(c.name);
    Builder b({"cpu", "example.com/gpu"}, {{"default", "cpu"}, {"default", "example.com/gpu"}});
    b.Cohort("test-cohort");
    b.Cq("cq", "test-cohort");
    b.Cq("lending-cq", "test-cohort");
    if (c.cq_cpu >= 0) b.Quota("cq", "default/cpu", Q(c.cq_cpu));
    if (c.cq_gpu >= 0) b.Quota("cq", "default/example.com/gpu", Q(c.cq_gpu, kNoLimit, c.cq_gpu_lending));
    if (c.lend_cpu >= 0) b.Quota("lending-cq", "default/cpu", Q(c.lend_cpu));
    if (c.lend_gpu >= 0) {
      b.Quota("lending-cq", "default/example.com/gpu", Q(c.lend_gpu, kNoLimit, c.lend_gpu_lending));
    }
    b.Weight("cq", c.cq_weight);
    b.Weight("lending-cq", c.lend_weight);
    QuotaTree t = b.Finish();
    const FrId cpu = b.Fr("default/cpu"), gpu = b.Fr("default/example.com/gpu");
    if (c.usage_cpu > 0) t.AddUsage(b.Node("cq"), cpu, c.usage_cpu);
    if (c.usage_gpu > 0) t.AddUsage(b.Node("cq"), gpu, c.usage_gpu);
    std::vector<FrAmount> extra;
    if (c.req_cpu > 0) extra.push_back({cpu, c.req_cpu});
    if (c.req_gpu > 0) extra.push_back({gpu, c.req_gpu});
    Drs drs = t.DominantResourceShare(b.Node("cq"), extra);
    EXPECT_EQ(RoundedShare(drs), c.want_cq);
    EXPECT_EQ(drs.borrowing, !c.want_resource.empty());
    EXPECT_EQ(drs.dominant_resource, c.want_resource.empty() ? -1 : b.Resource(c.want_resource));
    Drs lender = t.DominantResourceShare(b.Node("lending-cq"), extra);
    EXPECT_EQ(RoundedShare(lender), 0);
    EXPECT_FALSE(lender.borrowing);
    Drs root = t.DominantResourceShare(b.Node("test-cohort"), extra);
    EXPECT_EQ(RoundedShare(root), 0);
    EXPECT_FALSE(root.borrowing);
  }
}

// Ported "multiple flavors": cq (on-demand cpu 20, spot cpu 80), lending-cq
// (default cpu 100), usage on-demand 15, spot 5, workload +10 on-demand.
// Invariant: borrowed cpu = (15+10-20) + 0 = 5 cores; lendable sums the
// root's FRs of cpu = 20+80+100 = 200 -> 5000*1000/200000 = 25.
TEST(DominantResourceShareTest, MultipleFlavorsSumPerResource) {
  Builder b({"cpu"}, {{"on-demand", "cpu"}, {"spot", "cpu"}, {"default", "cpu"}});
  b.Cohort("test-cohort");
  b.Cq("cq", "test-cohort");
  b.Cq("lending-cq", "test-cohort");
  b.Quota("cq", "on-demand/cpu", Q(20000));
  b.Quota("cq", "spot/cpu", Q(80000));
  b.Quota("lending-cq", "default/cpu", Q(100000));
  QuotaTree t = b.Finish();
  t.AddUsage(b.Node("cq"), b.Fr("on-demand/cpu"), 15000);
  t.AddUsage(b.Node("cq"), b.Fr("spot/cpu"), 5000);
  const FrAmount extra[] = {{b.Fr("on-demand/cpu"), 10000}};
  Drs drs = t.DominantResourceShare(b.Node("cq"), extra);
  EXPECT_DOUBLE_EQ(drs.unweighted_ratio, 25.0);
  EXPECT_THAT(drs.borrowed_frs, ::testing::ElementsAre(b.Fr("on-demand/cpu")));
}

// Ported "cohort has resource share": root (gpu 45) -> child-cohort (weight
// 2) -> cq (gpu 5) using 10. Invariant: lendable from cq's parent = 45+5 =
// 50; DRS(cq) = 5*1000/50 = 100; DRS(child) = 100/2 = 50; root 0.
TEST(DominantResourceShareTest, NestedCohortShares) {
  Builder b({"example.com/gpu"}, {{"default", "example.com/gpu"}});
  b.Cohort("root");
  b.Cohort("child-cohort", "root");
  b.Cq("cq", "child-cohort");
  b.Quota("root", "default/example.com/gpu", Q(45));
  b.Quota("cq", "default/example.com/gpu", Q(5));
  b.Weight("child-cohort", 2);
  QuotaTree t = b.Finish();
  t.AddUsage(b.Node("cq"), b.Fr("default/example.com/gpu"), 10);
  EXPECT_EQ(RoundedShare(t.DominantResourceShare(b.Node("cq"))), 100);
  Drs child = t.DominantResourceShare(b.Node("child-cohort"));
  EXPECT_TRUE(child.borrowing);
  EXPECT_DOUBLE_EQ(child.PreciseWeightedShare(), 50.0);
  EXPECT_EQ(RoundedShare(t.DominantResourceShare(b.Node("root"))), 0);
}

// Ported "resource share affected by borrowing limit": root (gpu 50) ->
// child-cohort (gpu 0, borrowingLimit 10) -> cq (gpu 0) using 10.
// Invariant: from cq, lendable = potential(child) = min(0+10, 50) = 10 ->
// 1000; from child, lendable = 50 -> 200.
TEST(DominantResourceShareTest, BorrowingLimitShrinksLendable) {
  Builder b({"example.com/gpu"}, {{"default", "example.com/gpu"}});
  b.Cohort("root");
  b.Cohort("child-cohort", "root");
  b.Cq("cq", "child-cohort");
  b.Quota("root", "default/example.com/gpu", Q(50));
  b.Quota("child-cohort", "default/example.com/gpu", Q(0, 10));
  b.Quota("cq", "default/example.com/gpu", Q(0));
  QuotaTree t = b.Finish();
  t.AddUsage(b.Node("cq"), b.Fr("default/example.com/gpu"), 10);
  EXPECT_EQ(RoundedShare(t.DominantResourceShare(b.Node("cq"))), 1000);
  EXPECT_EQ(RoundedShare(t.DominantResourceShare(b.Node("child-cohort"))), 200);
}

// Ported "borrowing against unlimited lendable capacity": cq (cpu 0) and
// lending-cq (cpu Unlimited) using 1000m. Invariant: lendable saturates at
// MaxInt64; the ratio 1e6/9.2e18 is tiny, positive and finite; ceil -> 1.
TEST(DominantResourceShareTest, UnlimitedLendableGivesTinyPositiveShare) {
  Builder b({"cpu"}, {{"default", "cpu"}});
  b.Cohort("test-cohort");
  b.Cq("cq", "test-cohort");
  b.Cq("lending-cq", "test-cohort");
  b.Quota("cq", "default/cpu", Q(0));
  b.Quota("lending-cq", "default/cpu", Q(kUnlimited));
  QuotaTree t = b.Finish();
  t.AddUsage(b.Node("cq"), b.Fr("default/cpu"), 1000);
  Drs drs = t.DominantResourceShare(b.Node("cq"));
  EXPECT_TRUE(drs.borrowing);
  EXPECT_GT(drs.unweighted_ratio, 0);
  EXPECT_LT(drs.unweighted_ratio, 1e-9);
  EXPECT_TRUE(std::isfinite(drs.unweighted_ratio));
  EXPECT_EQ(RoundedShare(drs), 1);
}

// §4.6 example: R -> {x, y}, nominal 10 cores each; x uses 0, y 15. x's head
// (4) leaves x at 4 <= 10: DRS 0, not borrowing. y's head (1) leaves y at
// 16: borrowed 6, lendable 20 -> 6000*1000/20000 = 300.
TEST(DominantResourceShareTest, TournamentExampleSection46) {
  Builder b({"cpu"}, {{"f", "cpu"}});
  b.Cohort("R");
  b.Cq("x", "R");
  b.Cq("y", "R");
  b.Quota("x", "f/cpu", Q(10000));
  b.Quota("y", "f/cpu", Q(10000));
  QuotaTree t = b.Finish();
  const FrId fr = b.Fr("f/cpu");
  t.AddUsage(b.Node("y"), fr, 15000);
  const FrAmount x_head[] = {{fr, 4000}};
  const FrAmount y_head[] = {{fr, 1000}};
  Drs x = t.DominantResourceShare(b.Node("x"), x_head);
  Drs y = t.DominantResourceShare(b.Node("y"), y_head);
  EXPECT_TRUE(x.IsZero());
  EXPECT_FALSE(x.borrowing);
  EXPECT_FALSE(x.IsBorrowingOn(x_head));
  EXPECT_DOUBLE_EQ(y.unweighted_ratio, 300.0);
  EXPECT_TRUE(y.IsBorrowingOn(y_head));
  EXPECT_LT(CompareDrs(x, y), 0);
}

// §4.7 example: R -> {x, y, z}, nominal 10 each (lendable 30); x uses 10, y
// 18 (three 6s), z 0. Invariant: Pnew (x + 4) = 4000/30 = 133.3; Told (y) =
// 8000/30 = 266.7; Tnew (y - 6) = 2000/30 = 66.7. S2-a: 133.3 <= 66.7 false;
// S2-b: 133.3 < 266.7 true.
TEST(DominantResourceShareTest, FairPreemptionExampleSection47) {
  Builder b({"cpu"}, {{"f", "cpu"}});
  b.Cohort("R");
  b.Cq("x", "R");
  b.Cq("y", "R");
  b.Cq("z", "R");
  for (const char* cq : {"x", "y", "z"}) b.Quota(cq, "f/cpu", Q(10000));
  QuotaTree t = b.Finish();
  const FrId fr = b.Fr("f/cpu");
  t.AddUsage(b.Node("x"), fr, 10000);
  for (int i = 0; i < 3; ++i) t.AddUsage(b.Node("y"), fr, 6000);
  EXPECT_EQ(t.Available(b.Node("x"), fr), 2000);
  const FrAmount incoming[] = {{fr, 4000}};
  Drs p_new = t.DominantResourceShare(b.Node("x"), incoming);
  Drs t_old = t.DominantResourceShare(b.Node("y"));
  EXPECT_NEAR(p_new.PreciseWeightedShare(), 133.333, 1e-3);
  EXPECT_NEAR(t_old.PreciseWeightedShare(), 266.667, 1e-3);
  t.RemoveUsage(b.Node("y"), fr, 6000);
  Drs t_new = t.DominantResourceShare(b.Node("y"));
  EXPECT_NEAR(t_new.PreciseWeightedShare(), 66.667, 1e-3);
  EXPECT_GT(CompareDrs(p_new, t_new), 0);  // S2-a fails
  EXPECT_LT(CompareDrs(p_new, t_old), 0);  // S2-b passes
  // After that one preemption x fits: usage 10+12 = 22, free 8 >= 4.
  EXPECT_GE(t.Available(b.Node("x"), fr), 4000);
}

// Setup: cq declares only cpu (quota 1) in a cohort with a lender declaring
// cpu 10 and gpu 10. Invariant: the DRS iterates the node's own FRs only: a
// gpu request on cq (an FR it does not declare) is not "borrowed"; cpu 2000m
// of 1000m borrows 1000m of lendable 11000m -> 1000*1000/11000 = 90.9.
TEST(DominantResourceShareTest, UndeclaredResourceNotCounted) {
  Builder b({"cpu", "gpu"}, {{"f", "cpu"}, {"f", "gpu"}});
  b.Cohort("c");
  b.Cq("cq", "c");
  b.Cq("lender", "c");
  b.Quota("cq", "f/cpu", Q(1000));
  b.Quota("lender", "f/cpu", Q(10000));
  b.Quota("lender", "f/gpu", Q(10));
  QuotaTree t = b.Finish();
  EXPECT_THAT(t.defined_frs(b.Node("cq")), ::testing::ElementsAre(b.Fr("f/cpu")));
  EXPECT_THAT(t.defined_frs(b.Node("c")), ::testing::ElementsAre(b.Fr("f/cpu"), b.Fr("f/gpu")));
  const FrAmount gpu_only[] = {{b.Fr("f/gpu"), 8}};
  Drs drs = t.DominantResourceShare(b.Node("cq"), gpu_only);
  EXPECT_FALSE(drs.borrowing);
  EXPECT_TRUE(drs.IsZero());
  const FrAmount both[] = {{b.Fr("f/gpu"), 8}, {b.Fr("f/cpu"), 2000}};
  drs = t.DominantResourceShare(b.Node("cq"), both);
  EXPECT_TRUE(drs.borrowing);
  EXPECT_EQ(drs.dominant_resource, b.Resource("cpu"));
  EXPECT_NEAR(drs.unweighted_ratio, 1000.0 * 1000 / 11000, 1e-9);
  EXPECT_THAT(drs.borrowed_frs, ::testing::ElementsAre(b.Fr("f/cpu")));
}

// Setup: resources interned as "zeta" (id 0) and "alpha" (id 1), equal
// borrowed ratios (1 of lendable 10 each). Invariant: the dominant resource
// of a tie is the alphabetically smaller name ("alpha"), not the smaller id.
TEST(DominantResourceShareTest, TieGoesToAlphabeticallySmallerResource) {
  Builder b({"zeta", "alpha"}, {{"f", "zeta"}, {"f", "alpha"}});
  b.Cohort("c");
  b.Cq("cq", "c");
  b.Cq("lender", "c");
  b.Quota("cq", "f/zeta", Q(0));
  b.Quota("cq", "f/alpha", Q(0));
  b.Quota("lender", "f/zeta", Q(10));
  b.Quota("lender", "f/alpha", Q(10));
  QuotaTree t = b.Finish();
  t.AddUsage(b.Node("cq"), b.Fr("f/zeta"), 1);
  t.AddUsage(b.Node("cq"), b.Fr("f/alpha"), 1);
  Drs drs = t.DominantResourceShare(b.Node("cq"));
  EXPECT_DOUBLE_EQ(drs.unweighted_ratio, 100.0);
  EXPECT_EQ(drs.dominant_resource, b.Resource("alpha"));
}

// Invariant (CompareDRS): a zero weight while borrowing is +inf and larger
// than any finite share; two such compare by unweighted ratio; a zero weight
// that does not borrow has share 0; otherwise unweighted/weight compares.
TEST(DominantResourceShareTest, CompareDrsRules) {
  auto make = [](double weight, double ratio) {
    Drs d;
    d.fair_weight = weight;
    d.unweighted_ratio = ratio;
    d.borrowing = ratio > 0;
    return d;
  };
  const Drs zero_small = make(0, 10), zero_big = make(0, 20), zero_idle = make(0, 0);
  const Drs w1_huge = make(1, 1e12), w2_200 = make(2, 200), w1_100 = make(1, 100);
  EXPECT_TRUE(zero_small.ZeroWeightBorrows());
  EXPECT_FALSE(zero_idle.ZeroWeightBorrows());
  EXPECT_EQ(zero_small.PreciseWeightedShare(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(zero_idle.PreciseWeightedShare(), 0.0);
  EXPECT_EQ(CompareDrs(zero_small, zero_big), -1);
  EXPECT_EQ(CompareDrs(zero_big, zero_small), 1);
  EXPECT_EQ(CompareDrs(zero_small, zero_small), 0);
  EXPECT_EQ(CompareDrs(zero_small, w1_huge), 1);
  EXPECT_EQ(CompareDrs(w1_huge, zero_small), -1);
  EXPECT_EQ(CompareDrs(zero_idle, w1_100), -1);
  EXPECT_EQ(CompareDrs(w2_200, w1_100), 0);  // 200/2 == 100/1
  EXPECT_EQ(CompareDrs(w1_100, w1_huge), -1);
}

// Setup: a zero-weight CQ borrowing 2 of lendable 15 in a cohort. Invariant:
// DominantResourceShare reports unweighted 2000/15 = 133.3, weight 0 ->
// PreciseWeightedShare +inf; a root node always has DRS 0.
TEST(DominantResourceShareTest, ZeroWeightBorrowingIsInfinite) {
  Builder b({"cpu"}, {{"f", "cpu"}});
  b.Cohort("c");
  b.Cq("cq", "c");
  b.Cq("lender", "c");
  b.Quota("cq", "f/cpu", Q(5000));
  b.Quota("lender", "f/cpu", Q(10000));
  b.Weight("cq", 0);
  QuotaTree t = b.Finish();
  t.AddUsage(b.Node("cq"), b.Fr("f/cpu"), 7000);
  Drs drs = t.DominantResourceShare(b.Node("cq"));
  EXPECT_NEAR(drs.unweighted_ratio, 2000.0 * 1000 / 15000, 1e-9);
  EXPECT_TRUE(std::isinf(drs.PreciseWeightedShare()));
  EXPECT_TRUE(drs.ZeroWeightBorrows());
  Drs root = t.DominantResourceShare(b.Node("c"));
  EXPECT_TRUE(root.IsZero());
  EXPECT_FALSE(root.borrowing);
  // Back within nominal: share 0 even with weight 0.
  t.RemoveUsage(b.Node("cq"), b.Fr("f/cpu"), 3000);
  EXPECT_TRUE(t.DominantResourceShare(b.Node("cq")).IsZero());
  EXPECT_EQ(t.DominantResourceShare(b.Node("cq")).PreciseWeightedShare(), 0.0);
}

// Invariant: IsBorrowingOn only counts FRs that are both borrowed and
// requested with a positive amount (Kueue TestIsBorrowingOn).
TEST(DominantResourceShareTest, IsBorrowingOn) {
  Drs drs;
  drs.borrowing = true;
  drs.borrowed_frs = {1, 3};
  const FrAmount none[] = {{0, 5}, {2, 5}};
  const FrAmount zero[] = {{1, 0}};
  const FrAmount hit[] = {{0, 5}, {3, 1}};
  EXPECT_FALSE(drs.IsBorrowingOn(none));
  EXPECT_FALSE(drs.IsBorrowingOn(zero));
  EXPECT_TRUE(drs.IsBorrowingOn(hit));
  EXPECT_FALSE(drs.IsBorrowingOn({}));
}

}  // namespace
}  // namespace kueuesim::quota
