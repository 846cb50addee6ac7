// Tests for scenario/decode_nodes.h: kueuesim.io/v1alpha1 NodePool
// generating v1 Nodes over topology levels, through the decoder and through
// the loader.
#include "scenario/decode_nodes.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/doc/reader.h"
#include "kueuesim/scenario/scenario.h"
#include "scenario/field.h"
#include "testing/status_matchers.h"

namespace kueuesim::scenario {
namespace {

using ::kueuesim::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr char kFile[] = "nodes.yaml";

absl::StatusOr<std::vector<model::Node>> Decode(std::string_view yaml) {
  auto docs = doc::ReadAllFromString(yaml, kFile);
  if (!docs.ok()) return docs.status();
  doc::Node root = docs->at(0).root();
  std::string name(root.Get("metadata").Get("name").scalar());
  return DecodeNodePool(FieldReader(root, std::make_shared<const std::string>("NodePool \"" + name + "\""), ""));
}

// A pool named "gpu" with `spec` (indented by 2) under spec.
std::string Pool(std::string_view spec) {
  return "apiVersion: kueuesim.io/v1alpha1\nkind: NodePool\nmetadata:\n  name: gpu\nspec:\n" + std::string(spec);
}

constexpr char kTwoLevels[] = R"(  count: 12
  namePattern: "gpu-{block}-{rack}-{index}"
  levels:
  - label: cloud.com/topology-block
    count: 2
    valuePattern: "b{i}"
  - label: cloud.com/topology-rack
    count: 3
    valuePattern: "r{g}"
  labels:
    cloud.com/gpu: h100
  taints:
  - key: nvidia.com/gpu
    effect: NoSchedule
  allocatable:
    cpu: 96
    memory: 1Ti
    nvidia.com/gpu: 8
    pods: 110
)";

// Setup: 12 nodes over 2 blocks x 3 racks. Invariant: 2 hosts per rack, in
// layout order; {i} counts within the parent, {g} across the pool; every
// node has the pool labels, its level labels, kubernetes.io/hostname = its
// name, the taints and the allocatable in canonical units.
TEST(DecodeNodePoolTest, LaysNodesOutOverLevels) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::vector<model::Node> nodes, Decode(Pool(kTwoLevels)));
  ASSERT_EQ(nodes.size(), 12u);
  std::vector<std::string> names;
  for (const auto& node : nodes) names.push_back(node.name);
  EXPECT_THAT(names, ElementsAre("gpu-b0-r0-0", "gpu-b0-r0-1", "gpu-b0-r1-0", "gpu-b0-r1-1", "gpu-b0-r2-0",
                                 "gpu-b0-r2-1", "gpu-b1-r3-0", "gpu-b1-r3-1", "gpu-b1-r4-0", "gpu-b1-r4-1",
                                 "gpu-b1-r5-0", "gpu-b1-r5-1"));
  const model::Node& node = nodes[7];
  EXPECT_THAT(node.AllLabels(), ElementsAre(Pair("cloud.com/gpu", "h100"), Pair("cloud.com/topology-block", "b1"),
                                            Pair("cloud.com/topology-rack", "r3"),
                                            Pair("kubernetes.io/hostname", "gpu-b1-r3-1")));
  EXPECT_THAT(node.allocatable(), ElementsAre(Pair("cpu", 96000), Pair("memory", int64_t{1} << 40),
                                            Pair("nvidia.com/gpu", 8), Pair("pods", 110)));
  ASSERT_EQ(node.taints().size(), 1u);
  EXPECT_EQ(node.taints()[0].key, "nvidia.com/gpu");
  EXPECT_TRUE(node.ready);
  EXPECT_FALSE(node.unschedulable);
  EXPECT_EQ(node.source().file, kFile);
  EXPECT_EQ(node.source().line, 1);
  // Compact: every node shares the pool's template, and the two hosts of a
  // rack share their level labels.
  for (const auto& other : nodes) EXPECT_EQ(other.shared.get(), node.shared.get());
  EXPECT_EQ(nodes[6].domain_labels.get(), node.domain_labels.get());
  EXPECT_NE(nodes[5].domain_labels.get(), node.domain_labels.get());
}

// Setup: no levels and no namePattern. Invariant: names "<pool>-<n>", only
// the hostname label.
TEST(DecodeNodePoolTest, FlatPoolDefaultsItsNames) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::vector<model::Node> nodes,
                                Decode(Pool("  count: 3\n  allocatable: {cpu: 4}\n  ready: false\n")));
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[2].name, "gpu-2");
  EXPECT_THAT(nodes[2].AllLabels(), ElementsAre(Pair("kubernetes.io/hostname", "gpu-2")));
  EXPECT_FALSE(nodes[2].ready);
}

// Setup: a level without valuePattern and with an explicit placeholder name.
// Invariant: values default to "<name>-<i>".
TEST(DecodeNodePoolTest, LevelNameAndDefaultValues) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(
      std::vector<model::Node> nodes,
      Decode(Pool("  count: 4\n  namePattern: \"h-{z}-{index}\"\n  levels:\n  - label: topology.kubernetes.io/zone\n"
                  "    name: z\n    count: 2\n  allocatable: {cpu: 1}\n")));
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[3].name, "h-z-1-1");
  EXPECT_EQ(*nodes[3].FindLabel("topology.kubernetes.io/zone"), "z-1");
}

struct BadCase {
  std::string spec;
  std::string message;
};

// Setup: malformed pools. Invariant: an InvalidArgument naming the file,
// the pool and the field.
TEST(DecodeNodePoolTest, RejectsBadPools) {
  const std::vector<BadCase> cases = {
      {"  count: 0\n  allocatable: {cpu: 1}\n", "NodePool \"gpu\": spec.count: must be at least 1"},
      {"  count: 1000001\n  allocatable: {cpu: 1}\n", "NodePool \"gpu\": spec.count: must be between 1 and 1000000"},
      {"  allocatable: {cpu: 1}\n", "spec.count: is required"},
      {"  count: 2\n", "spec.allocatable: is required"},
      {"  count: 10\n  levels:\n  - {label: a/rack, count: 4}\n  allocatable: {cpu: 1}\n",
       "spec.count: 10 nodes do not split evenly over the 4 innermost domains"},
      {"  count: 4\n  levels:\n  - {label: a/rack, count: 8}\n  allocatable: {cpu: 1}\n",
       "spec.levels[0].count: must be between 1 and the pool's count (4)"},
      {"  count: 4\n  levels:\n  - {label: a/rack, count: 2}\n  - {label: b/rack, count: 2}\n  allocatable: {cpu: 1}\n",
       "spec.levels[1].label: placeholder {rack} is already taken"},
      {"  count: 4\n  levels:\n  - {label: a/rack, count: 2}\n  - {label: a/rack, name: r2, count: 2}\n"
       "  allocatable: {cpu: 1}\n",
       "spec.levels[1].label: label \"a/rack\" is used by an earlier level"},
      {"  count: 4\n  levels:\n  - {label: kubernetes.io/hostname, count: 2}\n  allocatable: {cpu: 1}\n",
       "spec.levels[0].label: kubernetes.io/hostname is set to each node's name"},
      {"  count: 4\n  namePattern: \"n-{rack}\"\n  allocatable: {cpu: 1}\n",
       "spec.namePattern: \"n-{rack}\": unknown placeholder {rack} (valid: {index}, {n})"},
      {"  count: 4\n  namePattern: \"n-{n\"\n  allocatable: {cpu: 1}\n", "spec.namePattern: \"n-{n\": unclosed '{'"},
      {"  count: 4\n  levels:\n  - {label: a/rack, count: 2}\n  namePattern: \"n-{rack}\"\n  allocatable: {cpu: 1}\n",
       "spec.namePattern: \"n-{rack}\" makes the name \"n-rack-0\" twice"},
      {"  count: 2\n  namePattern: \"N_{n}\"\n  allocatable: {cpu: 1}\n",
       "spec.namePattern: makes \"N_0\", which is not a valid node name"},
      {"  count: 2\n  levels:\n  - {label: a/rack, count: 2, valuePattern: \"r {i}\"}\n  allocatable: {cpu: 1}\n",
       "spec.levels[0].valuePattern: makes \"r 0\", which is not a valid label value"},
      {"  count: 2\n  levels:\n  - {label: a/rack, count: 2}\n  labels: {a/rack: x}\n  allocatable: {cpu: 1}\n",
       "spec.labels.a/rack: is set by a level"},
      {"  count: 2\n  labels: {kubernetes.io/hostname: x}\n  allocatable: {cpu: 1}\n",
       "spec.labels.kubernetes.io/hostname: is set to each node's name"},
      {"  count: 2\n  allocatable: {cpu: 1x}\n", "spec.allocatable.cpu: malformed quantity"},
      {"  count: 2\n  alocatable: {cpu: 1}\n", "spec.alocatable: unknown field (valid: allocatable, count"},
      {"  count: 2\n  taints:\n  - key: a\n  allocatable: {cpu: 1}\n", "spec.taints[0].effect: is required"},
  };
  for (const auto& c : cases) {
    auto nodes = Decode(Pool(c.spec));
    EXPECT_THAT(nodes, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message))) << c.spec;
    if (!nodes.ok()) {
      EXPECT_THAT(std::string(nodes.status().message()), HasSubstr("nodes.yaml:")) << c.spec;
    }
  }
}

// Setup: a scenario with a NodePool, a hand-written Node without the
// hostname label, and a second cluster's pool. Invariant: the loader adds
// the pool's nodes to the cluster the pool belongs to; the hand-written node
// is taken as written.
TEST(DecodeNodePoolTest, LoaderAddsPoolNodesToTheirCluster) {
  const std::string yaml = Pool("  count: 2\n  allocatable: {cpu: 4}\n") + R"(---
apiVersion: v1
kind: Node
metadata:
  name: hand-written
status:
  allocatable: {cpu: 2}
---
apiVersion: kueuesim.io/v1alpha1
kind: NodePool
metadata:
  name: remote
  annotations:
    kueuesim.io/cluster: worker
spec:
  count: 1
  allocatable: {cpu: 8}
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario scenario, LoadScenarioStrings({{kFile, yaml}}));
  const ClusterSpec* main = scenario.FindCluster("");
  ASSERT_NE(main, nullptr);
  std::vector<std::string> names;
  for (const auto& node : main->nodes) names.push_back(node.name);
  EXPECT_THAT(names, ElementsAre("gpu-0", "gpu-1", "hand-written"));
  EXPECT_TRUE(main->nodes[2].AllLabels().empty());
  const ClusterSpec* worker = scenario.FindCluster("worker");
  ASSERT_NE(worker, nullptr);
  ASSERT_EQ(worker->nodes.size(), 1u);
  EXPECT_EQ(worker->nodes[0].name, "remote-0");
}

// Setup: three v1 Nodes: without status.conditions, with Ready False, and
// with Ready True; and a pool (kueuesim.io nodes are ready unless said).
// Invariant: as Kueue's TAS node cache (IsNodeStatusConditionTrue), only the
// Ready True node and the pool's node are ready; the loader warns about the
// node without a Ready condition, naming it.
TEST(DecodeNodePoolTest, OnlyNodesWithReadyTrueAreReady) {
  const std::string yaml = Pool("  count: 1\n  allocatable: {cpu: 4}\n") + R"(---
apiVersion: v1
kind: Node
metadata: {name: no-conditions}
status:
  allocatable: {cpu: 2}
---
apiVersion: v1
kind: Node
metadata: {name: not-ready}
status:
  allocatable: {cpu: 2}
  conditions: [{type: MemoryPressure, status: "False"}, {type: Ready, status: "False"}]
---
apiVersion: v1
kind: Node
metadata: {name: ready}
status:
  allocatable: {cpu: 2}
  conditions: [{type: Ready, status: "True"}]
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Scenario scenario, LoadScenarioStrings({{kFile, yaml}}));
  const ClusterSpec* main = scenario.FindCluster("");
  ASSERT_NE(main, nullptr);
  std::vector<std::pair<std::string, bool>> readiness;
  for (const auto& node : main->nodes) readiness.emplace_back(node.name, node.ready);
  EXPECT_THAT(readiness, ElementsAre(Pair("gpu-0", true), Pair("no-conditions", false), Pair("not-ready", false),
                                     Pair("ready", true)));
  std::string warnings;
  for (const auto& warning : scenario.report.warnings) warnings += warning + "\n";
  EXPECT_THAT(warnings, HasSubstr("1 Node(s) have no Ready condition in status.conditions (first: nodes.yaml:"));
  EXPECT_THAT(warnings, HasSubstr(" no-conditions)"));
}

// Setup: a pool whose names collide with a hand-written node. Invariant: the
// scenario is refused, naming the duplicate.
TEST(DecodeNodePoolTest, LoaderRefusesDuplicateNodeNames) {
  const std::string yaml = Pool("  count: 2\n  allocatable: {cpu: 4}\n") +
                           "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n";
  EXPECT_THAT(LoadScenarioStrings({{kFile, yaml}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("gpu-1")));
}

}  // namespace
}  // namespace kueuesim::scenario
