// The LWS rolling-update algorithm, state by state: the worked example of
// ../shared/design/lws-multikueue-dra.md A.7 (replicas 4, maxUnavailable 1,
// maxSurge 1) and its variants.
#include "kueuesim/workloads/lws_rollout.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace kueuesim::workloads {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A tiny LWS world: groups with a revision (A old, B new) and readiness,
// the leader StatefulSet's partition and replicas. Reconcile() runs the LWS
// decision then the StatefulSet step; replaced and created groups start
// not ready on revision B; removed groups disappear.
class World {
 public:
  World(int32_t replicas, IntOrPercent mu, IntOrPercent ms, int32_t user_partition = 0,
        StatefulSetReplacement mode = StatefulSetReplacement::kConcurrent,
        LwsVersion version = LwsVersion::kV0_10)
      : mode_(mode) {
    input_.replicas = replicas;
    input_.max_unavailable = mu;
    input_.max_surge = ms;
    input_.partition = user_partition;
    input_.version = version;
    input_.sts_exists = true;
    input_.sts_replicas = replicas;
    input_.sts_partition = 0;
    for (int32_t i = 0; i < replicas; ++i) groups_.push_back({true, true, 'A'});
  }

  // The template changed: B is the new revision.
  void ChangeTemplate() { new_revision_ = true; }
  void SetReady(int32_t index) { groups_[static_cast<size_t>(index)].ready = true; }

  RolloutDecision Reconcile() {
    input_.new_revision = new_revision_;
    new_revision_ = false;
    input_.groups.clear();
    for (const auto& g : groups_) input_.groups.push_back({g.exists, g.ready, g.rev == 'B'});
    RolloutDecision d = ComputeRollout(input_);
    input_.sts_partition = d.partition;
    input_.sts_replicas = d.replicas;
    std::vector<LeaderView> leaders;
    for (const auto& g : groups_) leaders.push_back({g.exists, g.rev == 'B', g.ready, false});
    last_ = StatefulSetStep(leaders, d.replicas, d.partition, d.sts_max_unavailable, mode_);
    for (int32_t i : last_.replace) groups_[static_cast<size_t>(i)] = {true, false, 'B'};
    for (int32_t i : last_.create) {
      if (static_cast<size_t>(i) >= groups_.size()) groups_.resize(static_cast<size_t>(i) + 1);
      groups_[static_cast<size_t>(i)] = {true, false, 'B'};
    }
    for (int32_t i : last_.remove) groups_.resize(static_cast<size_t>(i));
    return d;
  }

  const StatefulSetAction& last() const { return last_; }
  std::string Groups() const {
    std::string out;
    for (size_t i = 0; i < groups_.size(); ++i) {
      out += std::to_string(i) + ":" + groups_[i].rev + (groups_[i].ready ? "+" : "-") + " ";
    }
    return out;
  }

 private:
  struct Group {
    bool exists;
    bool ready;
    char rev;
  };
  RolloutInput input_;
  std::vector<Group> groups_;
  bool new_revision_ = false;
  StatefulSetReplacement mode_;
  StatefulSetAction last_;
};

IntOrPercent Int(int32_t v) { return {v, false}; }
IntOrPercent Pct(int32_t v) { return {v, true}; }

TEST(LwsRolloutTest, WorkedExampleReplicas4MaxUnavailable1MaxSurge1) {
  // A.7: replicas 4, MU 1, MS 1 => burst 5, StatefulSet maxUnavailable 2.
  // Each row: the reconcile's (partition, replicas) and what the
  // StatefulSet does; ready groups never drop below 3.
  World w(4, Int(1), Int(1));
  w.ChangeTemplate();
  RolloutDecision d = w.Reconcile();  // t1: case 2
  EXPECT_EQ(d.which_case, 2);
  EXPECT_EQ(d.sts_max_unavailable, 2);
  EXPECT_EQ(d.partition, 4);
  EXPECT_EQ(d.replicas, 5);
  EXPECT_THAT(w.last().create, ElementsAre(4));
  EXPECT_EQ(w.Groups(), "0:A+ 1:A+ 2:A+ 3:A+ 4:B- ");

  d = w.Reconcile();  // t1': step = 2, base 3
  EXPECT_EQ(d.partition, 3);
  EXPECT_EQ(d.replicas, 5);
  EXPECT_THAT(w.last().replace, ElementsAre(3));
  EXPECT_EQ(w.Groups(), "0:A+ 1:A+ 2:A+ 3:B- 4:B- ");

  w.SetReady(4);  // t2
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 2);
  EXPECT_EQ(d.replicas, 5);
  EXPECT_THAT(w.last().replace, ElementsAre(2));

  w.SetReady(3);  // t3
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 1);
  EXPECT_EQ(d.replicas, 5);
  EXPECT_EQ(d.unavailable, 3);
  EXPECT_THAT(w.last().replace, ElementsAre(1));

  w.SetReady(2);  // t4
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 0);
  EXPECT_EQ(d.replicas, 5);
  EXPECT_EQ(d.unavailable, 2);
  EXPECT_THAT(w.last().replace, ElementsAre(0));

  w.SetReady(1);  // t5: u = 1 <= MS => 4 + max(0, 1 - 1) = 4, the surge goes
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 0);
  EXPECT_EQ(d.replicas, 4);
  EXPECT_THAT(w.last().remove, ElementsAre(4));
  EXPECT_EQ(w.Groups(), "0:B- 1:B+ 2:B+ 3:B+ ");

  w.SetReady(0);  // t6: steady
  d = w.Reconcile();
  EXPECT_EQ(d.which_case, 3);
  EXPECT_EQ(d.partition, 0);
  EXPECT_EQ(d.replicas, 4);
  EXPECT_THAT(w.last().replace, IsEmpty());
  EXPECT_EQ(w.Groups(), "0:B+ 1:B+ 2:B+ 3:B+ ");
}

TEST(LwsRolloutTest, WorkedExampleOutOfOrderReadiness) {
  // A.7 variant: g3 becomes ready before g4. At the second readiness the
  // tail is 2 (g4, g3), base 1: the partition jumps 3 -> 1 and the
  // StatefulSet replaces 2 and 1 together; once they are ready, u = 1:
  // replicas 4 and partition 0 in one reconcile (surge g4 deleted, g0
  // replaced at once).
  World w(4, Int(1), Int(1));
  w.ChangeTemplate();
  w.Reconcile();
  w.Reconcile();  // 3 replaced
  w.SetReady(3);
  RolloutDecision d = w.Reconcile();
  EXPECT_EQ(d.partition, 3);  // tail 0: g4 not ready yet
  EXPECT_THAT(w.last().replace, IsEmpty());
  w.SetReady(4);
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 1);
  EXPECT_THAT(w.last().replace, ElementsAre(2, 1));
  w.SetReady(2);
  w.SetReady(1);
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 0);
  EXPECT_EQ(d.replicas, 4);
  EXPECT_THAT(w.last().remove, ElementsAre(4));
  EXPECT_THAT(w.last().replace, ElementsAre(0));
}

TEST(LwsRolloutTest, NoSurgeReplacesOneAtATime) {
  // Variant MU 1, MS 0: partition 4 -> 3 -> 2 -> 1 -> 0, replicas stay 4.
  World w(4, Int(1), Int(0));
  w.ChangeTemplate();
  RolloutDecision d = w.Reconcile();
  EXPECT_EQ(d.partition, 4);
  EXPECT_EQ(d.replicas, 4);
  std::vector<int32_t> partitions;
  for (int32_t g = 3; g >= 0; --g) {
    d = w.Reconcile();
    partitions.push_back(d.partition);
    EXPECT_EQ(d.replicas, 4);
    EXPECT_THAT(w.last().replace, ElementsAre(g));
    w.SetReady(g);
  }
  EXPECT_THAT(partitions, ElementsAre(3, 2, 1, 0));
  d = w.Reconcile();
  EXPECT_EQ(d.which_case, 3);
}

TEST(LwsRolloutTest, SurgeOnlyNeverDropsBelowReplicas) {
  // Variant MU 0, MS 1: burst to 5 first; g3 is replaced only after g4 is
  // ready; ...; g4 deleted after g0 is ready (u = 0 => 4).
  World w(4, Int(0), Int(1));
  w.ChangeTemplate();
  RolloutDecision d = w.Reconcile();
  EXPECT_EQ(d.replicas, 5);
  EXPECT_EQ(d.sts_max_unavailable, 1);
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 4);  // step 0 + 1 - 0 = 1 but the tail (g4) is not ready
  EXPECT_THAT(w.last().replace, IsEmpty());
  w.SetReady(4);
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 3);
  EXPECT_THAT(w.last().replace, ElementsAre(3));
  for (int32_t g = 3; g >= 1; --g) {
    w.SetReady(g);
    d = w.Reconcile();
    EXPECT_EQ(d.replicas, 5);
    EXPECT_THAT(w.last().replace, ElementsAre(g - 1));
  }
  w.SetReady(0);
  d = w.Reconcile();
  EXPECT_EQ(d.replicas, 4);
  EXPECT_THAT(w.last().remove, ElementsAre(4));
}

TEST(LwsRolloutTest, LargeBudgetsReleaseSurgeTogether) {
  // Variant MU 2, MS 2: create 4 and 5, replace 3 and 2 at once
  // (partition 2); both surge groups go together once u <= 2.
  World w(4, Int(2), Int(2));
  w.ChangeTemplate();
  RolloutDecision d = w.Reconcile();
  EXPECT_EQ(d.replicas, 6);
  EXPECT_THAT(w.last().create, ElementsAre(4, 5));
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 2);
  EXPECT_EQ(d.sts_max_unavailable, 4);
  EXPECT_THAT(w.last().replace, ElementsAre(3, 2));
  for (int32_t g : {2, 3, 4, 5}) w.SetReady(g);
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 0);
  EXPECT_EQ(d.unavailable, 2);
  EXPECT_EQ(d.replicas, 4);
  EXPECT_THAT(w.last().remove, ElementsAre(5, 4));
}

TEST(LwsRolloutTest, PercentagesRoundAsLwsRounds) {
  // 25% / 50% of 4: maxUnavailable rounds down (1), maxSurge rounds up (2).
  World w(4, Pct(25), Pct(50));
  w.ChangeTemplate();
  RolloutDecision d = w.Reconcile();
  EXPECT_EQ(d.max_unavailable, 1);
  EXPECT_EQ(d.max_surge, 2);
  EXPECT_EQ(d.replicas, 6);
  // 30% of 3: maxUnavailable floor(0.9) = 0, maxSurge ceil(0.9) = 1.
  EXPECT_EQ(Pct(30).Scaled(3, false), 0);
  EXPECT_EQ(Pct(30).Scaled(3, true), 1);
}

TEST(LwsRolloutTest, SingleReplicaReplacedInPlace) {
  // replicas 1, MU 1, MS 1: u = 1 <= MS, so no burst; group 0 replaced.
  World w(1, Int(1), Int(1));
  w.ChangeTemplate();
  RolloutDecision d = w.Reconcile();
  EXPECT_EQ(d.partition, 1);
  EXPECT_EQ(d.replicas, 1);
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 0);
  EXPECT_THAT(w.last().replace, ElementsAre(0));
}

TEST(LwsRolloutTest, UserPartitionHoldsSurge) {
  // replicas 3, MU 1, MS 1, partition 2: group 3 surges, group 2 is
  // updated, then the rollout holds at (partition 2, replicas 4).
  World w(3, Int(1), Int(1), /*user_partition=*/2);
  w.ChangeTemplate();
  RolloutDecision d = w.Reconcile();
  EXPECT_EQ(d.partition, 3);
  EXPECT_EQ(d.replicas, 4);
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 2);
  EXPECT_THAT(w.last().replace, ElementsAre(2));
  w.SetReady(3);
  w.SetReady(2);
  for (int i = 0; i < 3; ++i) {
    d = w.Reconcile();
    EXPECT_EQ(d.partition, 2);
    EXPECT_EQ(d.replicas, 4);
  }
}

TEST(LwsRolloutTest, SerialStatefulSetWaitsForEachLeader) {
  // Older Kubernetes: one leader at a time, waiting for the updated one to
  // be ready, even when the LWS partition allows more.
  World w(4, Int(2), Int(0), 0, StatefulSetReplacement::kSerial);
  w.ChangeTemplate();
  w.Reconcile();
  RolloutDecision d = w.Reconcile();
  EXPECT_EQ(d.partition, 2);
  EXPECT_THAT(w.last().replace, ElementsAre(3));
  d = w.Reconcile();
  EXPECT_THAT(w.last().replace, IsEmpty());  // 3 is updated but not ready
  w.SetReady(3);
  w.Reconcile();
  EXPECT_THAT(w.last().replace, ElementsAre(2));
}

TEST(LwsRolloutTest, V08ReleasesSurgeOneGroupAtATime) {
  // LWS v0.8 (MU 2, MS 2, replicas 4): the leader StatefulSet gets the raw
  // maxUnavailable (2), so with two unready surge groups nothing is
  // replaced; once they are ready, 3 and 2 are. With groups 0 and 1 left
  // (u = 2 <= MS) v0.8 keeps R + max(0, u - 1) = 5 groups where v0.10 would
  // keep R + max(0, u - MU) = 4.
  World w(4, Int(2), Int(2), 0, StatefulSetReplacement::kConcurrent, LwsVersion::kV0_8);
  w.ChangeTemplate();
  RolloutDecision d = w.Reconcile();
  EXPECT_EQ(d.replicas, 6);
  d = w.Reconcile();
  EXPECT_EQ(d.partition, 2);
  EXPECT_EQ(d.sts_max_unavailable, 2);
  EXPECT_THAT(w.last().replace, IsEmpty());
  w.SetReady(4);
  w.SetReady(5);
  w.Reconcile();
  EXPECT_THAT(w.last().replace, ElementsAre(3, 2));
  w.SetReady(3);
  w.SetReady(2);
  d = w.Reconcile();
  EXPECT_EQ(d.unavailable, 2);
  EXPECT_EQ(d.replicas, 5);
}

TEST(IntOrPercentTest, Parses) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(IntOrPercent p, IntOrPercent::Parse("25%"));
  EXPECT_TRUE(p.percent);
  EXPECT_EQ(p.value, 25);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(IntOrPercent i, IntOrPercent::Parse("3"));
  EXPECT_FALSE(i.percent);
  EXPECT_FALSE(IntOrPercent::Parse("-1").ok());
  EXPECT_FALSE(IntOrPercent::Parse("x%").ok());
}

}  // namespace
}  // namespace kueuesim::workloads
