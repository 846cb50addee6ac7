// Tests for kueuesim/sweep: the grid numbering, shard assignment (every
// point in exactly one shard), --shard parsing, applying a point to a
// scenario, Sweep decoding errors that name file, line and field, and
// RunSweep reading the grid and the scenario in one pass.
#include "kueuesim/sweep/sweep.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/scenario_fixtures.h"
#include "testing/status_matchers.h"

namespace kueuesim::sweep {
namespace {

using ::kueuesim::testing::ClusterQueueYaml;
using ::kueuesim::testing::IsOk;
using ::kueuesim::testing::LoadYaml;
using ::kueuesim::testing::ResourceFlavorYaml;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string WriteTemp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    (name + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".yaml");
  std::ofstream(path) << text;
  return path.string();
}

constexpr const char* kSweep = R"(apiVersion: kueuesim.io/v1alpha1
kind: Sweep
metadata: {name: grid}
spec:
  parameters:
  - name: a-cpu
    quota: {clusterQueue: a, flavor: f, resource: cpu, field: nominalQuota}
    values: ["1", "2", "3"]
  - name: a-borrow
    quota: {clusterQueue: a, flavor: f, resource: cpu, field: borrowingLimit}
    values: ["0", 500m]
  - name: a-weight
    fairSharingWeight: {clusterQueue: a}
    values: ["1", "2.5"]
  - name: order
    policy: queueOrdering
    values: ["", kueue]
)";

// Invariant: 3*2*2*2 = 24 points, the first parameter slowest; for every
// shard count n every point belongs to exactly one shard i.
TEST(SweepTest, GridNumberingAndShards) {
  auto sweep = LoadSweep({WriteTemp("sweep", kSweep)});
  ASSERT_THAT(sweep, IsOk());
  EXPECT_EQ(sweep->name, "grid");
  EXPECT_EQ(sweep->num_points(), 24);
  EXPECT_THAT(sweep->Coordinates(0), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(sweep->Coordinates(1), ElementsAre(0, 0, 0, 1));
  EXPECT_THAT(sweep->Coordinates(9), ElementsAre(1, 0, 0, 1));
  EXPECT_THAT(sweep->Coordinates(23), ElementsAre(2, 1, 1, 1));
  std::set<std::vector<size_t>> distinct;
  for (int64_t p = 0; p < 24; ++p) distinct.insert(sweep->Coordinates(p));
  EXPECT_EQ(distinct.size(), 24u);
  for (int64_t n = 1; n <= 30; ++n) {
    for (int64_t p = 0; p < 24; ++p) {
      int owners = 0;
      for (int64_t i = 0; i < n; ++i) owners += Shard{i, n}.Owns(p) ? 1 : 0;
      EXPECT_EQ(owners, 1) << "point " << p << " of " << n << " shards";
    }
  }
}

TEST(SweepTest, ParseShard) {
  auto shard = ParseShard("2/5");
  ASSERT_THAT(shard, IsOk());
  EXPECT_EQ(shard->index, 2);
  EXPECT_EQ(shard->count, 5);
  for (const char* bad : {"5/5", "1", "-1/3", "a/3", "0/0", "1/", "/3"}) {
    EXPECT_FALSE(ParseShard(bad).ok()) << bad;
  }
}

// Setup: ClusterQueue a (flavor f, cpu 4); point 23 = cpu 3, borrowing
// limit 500m, weight 2.5, ordering "kueue".
// Invariant: exactly those fields change.
TEST(SweepTest, ApplyPointSetsTheFields) {
  auto sweep = LoadSweep({WriteTemp("sweep", kSweep)});
  ASSERT_THAT(sweep, IsOk());
  auto scenario = LoadYaml(ResourceFlavorYaml("f") + ClusterQueueYaml("a", {"cpu"}, {{"f", {"4"}, {}}}));
  ASSERT_THAT(scenario, IsOk());
  auto applied = ApplyPoint(*sweep, 23, *scenario);
  ASSERT_THAT(applied, IsOk());
  const model::ClusterQueue& cq = applied->clusters[0].cluster_queues[0];
  const model::ResourceQuota& cpu = cq.resource_groups[0].flavors[0].resources[0];
  EXPECT_EQ(cpu.nominal_quota, 3000);
  EXPECT_EQ(cpu.borrowing_limit, 500);
  EXPECT_FALSE(cpu.lending_limit.has_value());
  EXPECT_EQ(cq.fair_weight, 2.5);
  EXPECT_EQ(applied->settings.queue_ordering.name, "kueue");
  // The input scenario is untouched.
  EXPECT_EQ(scenario->clusters[0].cluster_queues[0].resource_groups[0].flavors[0].resources[0].nominal_quota, 4000);

  auto other = LoadYaml(ResourceFlavorYaml("f") + ClusterQueueYaml("b", {"cpu"}, {{"f", {"4"}, {}}}));
  ASSERT_THAT(other, IsOk());
  auto missing = ApplyPoint(*sweep, 0, *other);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("Sweep parameter a-cpu: no ClusterQueue a"));
}

TEST(SweepTest, DecodingErrorsNameFileLineAndField) {
  struct Case {
    std::string from;
    std::string to;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"field: nominalQuota", "field: quota", ":7: Sweep grid: spec.parameters[0] (a-cpu).quota.field: \"quota\""},
      {"values: [\"1\", \"2\", \"3\"]", "values: [\"1\", \"x\"]", "spec.parameters[0] (a-cpu).values[1]: \"x\" is not a quantity"},
      {"values: [\"1\", \"2.5\"]", "values: [\"1\", \"-2\"]", "values[1]: \"-2\" is not a non-negative number"},
      {"policy: queueOrdering", "policy: ordering", "\"ordering\" is not queueOrdering, preemption or dispatcher"},
      {"name: a-weight", "name: a-cpu", "spec.parameters[2]: the name \"a-cpu\" is used twice"},
      {"    values: [\"0\", 500m]", "    values: [\"0\", 500m]\n    extra: 1", "unknown field \"extra\""},
  };
  for (const Case& c : cases) {
    std::string text = kSweep;
    ASSERT_NE(text.find(c.from), std::string::npos) << c.from;
    text.replace(text.find(c.from), c.from.size(), c.to);
    const std::string file = WriteTemp("bad-sweep", text);
    auto sweep = LoadSweep({file});
    EXPECT_EQ(sweep.status().code(), absl::StatusCode::kInvalidArgument) << c.to;
    EXPECT_THAT(std::string(sweep.status().message()), HasSubstr(file)) << c.to;
    EXPECT_THAT(std::string(sweep.status().message()), HasSubstr(c.message)) << c.to;
  }
  auto none = LoadSweep({WriteTemp("no-sweep", ResourceFlavorYaml("f"))});
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  const std::string two = WriteTemp("two-sweeps", std::string(kSweep) + "---\n" + kSweep);
  EXPECT_THAT(std::string(LoadSweep({two}).status().message()), HasSubstr("a second Sweep"));
}

// RunSweep takes the grid from the same pass over the files as the
// scenario (LoadOptions::on_sweep), so a directory of files works as it
// does for `run`, and the Sweep's own errors still name its file and line.
TEST(SweepTest, RunSweepReadsTheGridAndTheScenarioInOnePass) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::filesystem::path root = std::filesystem::temp_directory_path() / ("sweep-run-" + test);
  std::filesystem::remove_all(root);
  const auto write = [](const std::filesystem::path& path, const std::string& text) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  };
  const std::string cluster = ResourceFlavorYaml("f") + ClusterQueueYaml("a", {"cpu"}, {{"f", {"4"}, {}}});
  const std::string grid = R"(apiVersion: kueuesim.io/v1alpha1
kind: Sweep
metadata: {name: two}
spec:
  parameters:
  - name: a-cpu
    quota: {clusterQueue: a, flavor: f, resource: cpu, field: nominalQuota}
    values: ["1", "2"]
)";
  write(root / "good" / "a-cluster.yaml", cluster);
  write(root / "good" / "b-sweep.yaml", grid);
  SweepOptions options;
  options.jobs = 2;
  auto ran = RunSweep({(root / "good").string()}, (root / "out").string(), options);
  ASSERT_THAT(ran, IsOk());
  EXPECT_EQ(*ran, 2);
  EXPECT_TRUE(std::filesystem::exists(root / "out" / "point-000000.json"));
  EXPECT_TRUE(std::filesystem::exists(root / "out" / "point-000001.json"));

  // A malformed Sweep: its file and line, from the loader's pass.
  std::string bad = grid;
  bad.replace(bad.find("field: nominalQuota"), 19, "field: quota");
  write(root / "bad" / "cluster.yaml", cluster);
  write(root / "bad" / "sweep.yaml", bad);
  auto malformed = RunSweep({(root / "bad" / "cluster.yaml").string(), (root / "bad" / "sweep.yaml").string()},
                            (root / "out-bad").string(), options);
  EXPECT_EQ(malformed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(malformed.status().message()),
              HasSubstr((root / "bad" / "sweep.yaml").string() + ":7: Sweep two: spec.parameters[0] (a-cpu).quota.field"));

  // No Sweep, or two.
  auto none = RunSweep({(root / "good" / "a-cluster.yaml").string()}, (root / "out-none").string(), options);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  write(root / "two" / "cluster.yaml", cluster + grid + "---\n" + grid);
  auto two = RunSweep({(root / "two" / "cluster.yaml").string()}, (root / "out-two").string(), options);
  EXPECT_THAT(std::string(two.status().message()), HasSubstr("a second Sweep"));
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace kueuesim::sweep
