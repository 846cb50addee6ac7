// Builders and a case runner for the TAS tests, shaped after the Go test
// helpers of Kueue (testingnode.MakeNode, testingpod.MakePod,
// utiltestingapi.MakeTopologyAssignment) so that ported cases read alike.
#ifndef KUEUESIM_TESTS_TOPOLOGY_TAS_TEST_UTIL_H_
#define KUEUESIM_TESTS_TOPOLOGY_TAS_TEST_UTIL_H_

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/topology/tas_flavor_snapshot.h"

namespace kueuesim::topology::testing {

inline constexpr ResourceId kCpu = 0;
inline constexpr ResourceId kMemory = 1;
inline constexpr ResourceId kPods = 2;
inline constexpr ResourceId kGpu = 3;        // example.com/gpu
inline constexpr ResourceId kNvidiaGpu = 4;  // nvidia.com/gpu

inline const std::vector<std::string>& ResourceNames() {
  static const std::vector<std::string> names = {"cpu", "memory", "pods", "example.com/gpu",
                                                 "nvidia.com/gpu"};
  return names;
}

inline constexpr const char* kDataCenter = "cloud.com/datacenter";
inline constexpr const char* kAIZone = "cloud.com/aizone";
inline constexpr const char* kBlock = "cloud.com/topology-block";
inline constexpr const char* kRack = "cloud.com/topology-rack";
inline constexpr const char* kSubBlock = "cloud.com/topology-subblock";
inline constexpr const char* kHostname = "kubernetes.io/hostname";

inline const std::vector<std::string> kOneLevel = {kHostname};
inline const std::vector<std::string> kTwoLevels = {kBlock, kRack};
inline const std::vector<std::string> kThreeLevels = {kBlock, kRack, kHostname};

// testingnode.MakeNode: Ready unless NotReady() is called.
class N {
 public:
  explicit N(std::string name) { spec_.name = std::move(name); }
  N& L(const std::string& key, const std::string& value) {
    spec_.labels[key] = value;
    return *this;
  }
  // An allocatable quantity ("1", "1Gi", "500m").
  N& A(ResourceId resource, const std::string& quantity) {
    const absl::StatusOr<int64_t> v =
        ParseCanonicalValue(quantity, ResourceNames()[static_cast<size_t>(resource)]);
    EXPECT_TRUE(v.ok()) << quantity;
    auto it = std::find_if(spec_.allocatable.begin(), spec_.allocatable.end(),
                           [&](const ResourceAmount& ra) { return ra.resource == resource; });
    if (it != spec_.allocatable.end()) {
      it->amount = v.value_or(0);
    } else {
      spec_.allocatable.push_back({resource, v.value_or(0)});
      std::sort(
          spec_.allocatable.begin(), spec_.allocatable.end(),
          [](const ResourceAmount& a, const ResourceAmount& b) { return a.resource < b.resource; });
    }
    return *this;
  }
  N& Taint(const std::string& key, const std::string& value, model::TaintEffect effect) {
    spec_.taints.push_back({key, value, effect});
    return *this;
  }
  N& NotReady() {
    ready_ = false;
    return *this;
  }
  N& Unschedulable() {
    unschedulable_ = true;
    return *this;
  }
  operator NodeSpec() const {  // NOLINT: implicit, for brace lists
    NodeSpec spec = spec_;
    spec.schedulable = ready_ && !unschedulable_;
    return spec;
  }

 private:
  NodeSpec spec_;
  bool ready_ = true;
  bool unschedulable_ = false;
};

// testingpod.MakePod: a pod outside Kueue.
struct Pod {
  explicit Pod(std::string n) : name(std::move(n)) {}
  Pod& NodeName(std::string n) {
    node = std::move(n);
    return *this;
  }
  Pod& Phase(std::string p) {
    phase = std::move(p);
    return *this;
  }
  Pod& Request(ResourceId resource, const std::string& quantity) {
    const absl::StatusOr<int64_t> v =
        ParseCanonicalValue(quantity, ResourceNames()[static_cast<size_t>(resource)]);
    EXPECT_TRUE(v.ok()) << quantity;
    requests.push_back({resource, v.value_or(0)});
    return *this;
  }
  std::string name;
  std::string node;
  std::string phase;
  Requests requests;
};

// kueue.PodSetTopologyRequest.
class TR {
 public:
  TR& Required(std::string level) {
    r_.required = std::move(level);
    return *this;
  }
  TR& Preferred(std::string level) {
    r_.preferred = std::move(level);
    return *this;
  }
  TR& Unconstrained(bool value) {
    r_.unconstrained = value;
    return *this;
  }
  // One slice layer (PodSetSliceRequiredTopology + PodSetSliceSize, or one
  // entry of PodsetSliceRequiredTopologyConstraints).
  TR& Slice(std::string level, int32_t size) {
    r_.slice_layers.push_back({std::move(level), size});
    return *this;
  }
  operator std::optional<model::TopologyRequest>() const { return r_; }  // NOLINT
  operator model::TopologyRequest() const { return r_; }                 // NOLINT

 private:
  model::TopologyRequest r_;
};

inline model::TopologyAssignment TA(
    std::vector<std::string> levels,
    std::vector<std::pair<std::vector<std::string>, int32_t>> domains) {
  model::TopologyAssignment ta;
  ta.levels = std::move(levels);
  for (auto& [values, count] : domains) ta.domains.push_back({std::move(values), count});
  return ta;
}

inline model::NodeSelectorTerm Term(std::string key, model::SelectorOperator op,
                                    std::vector<std::string> values) {
  model::NodeSelectorTerm term;
  term.match_expressions.push_back({std::move(key), op, std::move(values)});
  return term;
}

inline PreferredSchedulingTerm Pref(int32_t weight, std::string key, model::SelectorOperator op,
                                    std::vector<std::string> values) {
  return PreferredSchedulingTerm{weight, Term(std::move(key), op, std::move(values))};
}

// Node sets of Kueue's TestFindTopologyAssignments (defaultNodes,
// scatteredNodes, multipodNodeset, binaryTreesNodes).
// clang-format off
inline std::vector<NodeSpec> DefaultNodes() {
  return {
      N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b1-r2-x5").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x5").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b1-r2-x1").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x1").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b1-r2-x6").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x6").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b2-r2-x2").L(kBlock, "b2").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b2-r2-x4").L(kBlock, "b2").L(kRack, "r2").L(kHostname, "x4").A(kCpu, "2").A(kMemory, "4Gi").A(kPods, "40"),
  };
}

inline std::vector<NodeSpec> ScatteredNodes() {
  return {
      N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "4").A(kMemory, "1Gi").A(kPods, "10"),
      N("b1-r1-x5").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x5").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b2-r1-x6").L(kBlock, "b2").L(kRack, "r1").L(kHostname, "x6").A(kCpu, "2").A(kMemory, "1Gi").A(kPods, "10"),
      N("b2-r1-x2").L(kBlock, "b2").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
  };
}

inline std::vector<NodeSpec> MultipodNodeset() {
  return {
      N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "10").A(kMemory, "1Gi").A(kPods, "10"),
      N("b1-r2-x5").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x5").A(kCpu, "10").A(kMemory, "1Gi").A(kPods, "10"),
      N("b1-r2-x1").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x1").A(kCpu, "10").A(kMemory, "1Gi").A(kPods, "10"),
      N("b1-r2-x6").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x6").A(kCpu, "10").A(kMemory, "1Gi").A(kPods, "10"),
      N("b2-r1-x2").L(kBlock, "b2").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "10").A(kMemory, "1Gi").A(kPods, "10"),
      N("b2-r2-x4").L(kBlock, "b2").L(kRack, "r2").L(kHostname, "x4").A(kCpu, "20").A(kMemory, "4Gi").A(kPods, "40"),
  };
}

inline std::vector<NodeSpec> BinaryTreesNodes() {
  return {
      N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b1-r1-x5").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x5").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b1-r2-x1").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x1").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b1-r2-x6").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x6").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b2-r1-x2").L(kBlock, "b2").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b2-r1-x4").L(kBlock, "b2").L(kRack, "r1").L(kHostname, "x4").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b2-r2-x7").L(kBlock, "b2").L(kRack, "r2").L(kHostname, "x7").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
      N("b2-r2-x8").L(kBlock, "b2").L(kRack, "r2").L(kHostname, "x8").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
  };
}

// clang-format on

struct PodSetCase {
  std::string name;
  std::optional<model::TopologyRequest> topology;
  std::vector<std::pair<ResourceId, Amount>> requests;
  int32_t count = 0;
  std::vector<model::Toleration> tolerations;
  model::Labels node_selector;
  std::vector<model::NodeSelectorTerm> required_affinity;
  std::vector<PreferredSchedulingTerm> preferred_affinity;
  std::optional<std::string> group;
  std::optional<model::TopologyAssignment> want;
  std::string want_reason;
};

struct Case {
  std::string name;
  TasOptions options;
  std::vector<NodeSpec> nodes;
  std::vector<Pod> pods;
  std::vector<std::string> levels;
  model::Labels node_labels;  // the flavor's nodeLabels
  std::vector<DomainUsage> prior_usage;
  std::vector<PodSetCase> pod_sets;
};

inline Requests ToRequests(std::vector<std::pair<ResourceId, Amount>> pairs) {
  std::sort(pairs.begin(), pairs.end());
  Requests out;
  for (const auto& [id, amount] : pairs) out.push_back({id, amount});
  return out;
}

inline std::string Describe(const std::optional<model::TopologyAssignment>& ta,
                            const std::string& reason) {
  std::string out;
  if (ta.has_value()) {
    out += "assignment{levels=[";
    for (size_t i = 0; i < ta->levels.size(); ++i) out += (i ? "," : "") + ta->levels[i];
    out += "]";
    for (const model::TopologyDomainAssignment& d : ta->domains) {
      out += " ";
      for (size_t i = 0; i < d.values.size(); ++i) out += (i ? "/" : "") + d.values[i];
      out += "=" + std::to_string(d.count);
    }
    out += "}";
  } else {
    out += "no assignment";
  }
  if (!reason.empty()) out += " reason: " + reason;
  return out;
}

// Builds the snapshot as the Go harness does.
inline TasFlavorSnapshot MakeSnapshot(const Case& c) {
  std::vector<NodeSpec> nodes;
  for (const NodeSpec& node : c.nodes) {
    bool match = true;
    for (const auto& [k, v] : c.node_labels) {
      const auto it = node.labels.find(k);
      if (it == node.labels.end() || it->second != v) match = false;
    }
    if (match) nodes.push_back(node);
  }
  TasFlavorSnapshot snapshot(c.levels, std::move(nodes), {}, kPods, c.options);
  snapshot.SetTopologyName("default");
  snapshot.SetResourceNames(ResourceNames());
  for (const Pod& pod : c.pods) {
    if (pod.node.empty() || pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    std::vector<std::pair<ResourceId, Amount>> usage;
    for (const ResourceAmount& ra : pod.requests) usage.emplace_back(ra.resource, ra.amount);
    usage.emplace_back(kPods, 1);
    snapshot.AddNonTasUsage(pod.node, ToRequests(usage));
  }
  for (const DomainUsage& u : c.prior_usage) snapshot.AddUsage(u);
  return snapshot;
}

inline std::vector<PodSetPlacementRequest> MakeRequests(const Case& c) {
  std::vector<PodSetPlacementRequest> requests;
  for (const PodSetCase& ps : c.pod_sets) {
    PodSetPlacementRequest r;
    r.name = ps.name;
    r.count = ps.count;
    r.single_pod_requests = ToRequests(ps.requests);
    r.topology_request = ps.topology;
    r.group_name = ps.group;
    r.node_selector = ps.node_selector;
    r.required_affinity = ps.required_affinity;
    r.tolerations = ps.tolerations;
    r.preferred_affinity = ps.preferred_affinity;
    requests.push_back(std::move(r));
  }
  return requests;
}

inline void RunCase(const Case& c) {
  const TasFlavorSnapshot snapshot = MakeSnapshot(c);
  const std::vector<PlacementOutcome> got = snapshot.FindAssignments(MakeRequests(c), false);
  ASSERT_EQ(got.size(), c.pod_sets.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(Describe(got[i].assignment, got[i].failure_reason),
              Describe(c.pod_sets[i].want, c.pod_sets[i].want_reason))
        << "pod set #" << i << " " << c.pod_sets[i].name;
  }
}

// A gtest parameter name from a Go case name.
inline std::string ParamName(const std::string& name, size_t index) {
  std::string out;
  for (const char ch : name) {
    out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return out + "_" + std::to_string(index);
}

}  // namespace kueuesim::topology::testing

#endif  // KUEUESIM_TESTS_TOPOLOGY_TAS_TEST_UTIL_H_
