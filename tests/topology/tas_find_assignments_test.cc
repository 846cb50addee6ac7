// TasFlavorSnapshot::FindAssignments against the cases of Kueue's
// TestFindTopologyAssignments (kueue pkg/cache/scheduler/tas_cache_test.go at
// ff69552e). Each case keeps the Go case name (the test parameter name is
// derived from it); nodes, pods and expectations are transcribed one to one:
// node builders mirror testingnode.MakeNode(...).Label(...).
// StatusAllocatable(...), allocatable quantities are Kubernetes quantity
// strings, pod-set requests canonical amounts (milli-cpu, bytes, counts).
//
// Not ported (kueuesim does not model them): the node-replacement cases
// ("node replace* ...", workload with unhealthy nodes) and the elastic
// workload cases ("elastic workload ...", previousAssignment).
//
// Harness as in the Go test: nodes are filtered by the flavor's node labels
// (nodesCache.find), non-TAS pods count when bound to a node and not
// terminated (nonTasUsageCache: requests plus one "pods"), prior usage of the
// flavor (priorOwnUsage / priorFlavorUsage) is TAS usage of the snapshot, and
// the topology is named "default".
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
#include "topology/tas_test_util.h"

namespace kueuesim::topology {
namespace {

using namespace kueuesim::topology::testing;  // NOLINT: test builders

// The case table names only the fields a case sets (designated initializers);
// GCC's -Wextra would flag every field left at its default.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

// The GB200 case's node generator: 1 dc x 2 aizones x 2 blocks x 2 racks,
// 18 nodes with 2 GPUs each per rack.
std::vector<NodeSpec> Gb200Nodes() {
  struct RackDef {
    const char* dc;
    const char* az;
    const char* block;
    const char* rack;
  };
  const RackDef racks[] = {
      {"dc0", "aizone0", "block0", "r0"}, {"dc0", "aizone0", "block0", "r1"},
      {"dc0", "aizone0", "block1", "r2"}, {"dc0", "aizone0", "block1", "r3"},
      {"dc0", "aizone1", "block2", "r4"}, {"dc0", "aizone1", "block2", "r5"},
      {"dc0", "aizone1", "block3", "r6"}, {"dc0", "aizone1", "block3", "r7"},
  };
  std::vector<NodeSpec> nodes;
  for (const RackDef& r : racks) {
    for (int i = 0; i < 18; ++i) {
      const std::string name =
          std::string(r.block) + "-" + r.rack + "-" + r.az + "-n" + std::to_string(i);
      nodes.push_back(N(name)
                          .L(kDataCenter, r.dc)
                          .L(kAIZone, r.az)
                          .L(kBlock, r.block)
                          .L(kRack, r.rack)
                          .A(kNvidiaGpu, "2")
                          .A(kPods, "110"));
    }
  }
  return nodes;
}

// One function per case (a single table initializer of this size takes very
// long to compile with sanitizers). Formatted by hand: one node per line.
// clang-format off
// Go: "minimize the number of used racks before optimizing the number of nodes; BestFit"
Case Case000() {
  return {
    .name = "minimize the number of used racks before optimizing the number of nodes; BestFit",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "2").A(kPods, "10"),
        N("b1-r2-x5").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x5").A(kCpu, "2").A(kPods, "20"),
        N("b1-r3-x1").L(kBlock, "b1").L(kRack, "r3").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10"),
        N("b1-r3-x6").L(kBlock, "b1").L(kRack, "r3").L(kHostname, "x6").A(kCpu, "1").A(kPods, "10"),
        N("b1-r3-x2").L(kBlock, "b1").L(kRack, "r3").L(kHostname, "x2").A(kCpu, "1").A(kPods, "10"),
        N("b1-r3-x4").L(kBlock, "b1").L(kRack, "r3").L(kHostname, "x4").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .want = TA({kHostname}, {{{"x1"}, 1}, {{"x2"}, 1}, {{"x4"}, 1}, {{"x6"}, 1}}),
    }},
  };
}

// Go: "choose the node that can accommodate all Pods"
Case Case001() {
  return {
    .name = "choose the node that can accommodate all Pods",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "2").A(kPods, "10"),
        N("b1-r1-x5").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x5").A(kCpu, "1").A(kPods, "10"),
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 2,
        .want = TA({kHostname}, {{{"x3"}, 2}}),
    }},
  };
}

// Go: "no annotation; implied default to unconstrained; 6 pods fit into hosts scattered across the whole datacenter even they could fit into single rack; BestFit"
Case Case002() {
  return {
    .name = "no annotation; implied default to unconstrained; 6 pods fit into hosts scattered across the whole datacenter even they could fit into single rack; BestFit",
    .nodes = ScatteredNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .requests = {{kCpu, 1000}},
        .count = 6,
        .want = TA({kHostname}, {{{"x1"}, 1}, {{"x3"}, 1}, {{"x5"}, 1}, {{"x2"}, 1}, {{"x6"}, 2}}),
    }},
  };
}

// Go: "unconstrained; 6 pods fit into hosts scattered across the whole datacenter even they could fit into single rack; BestFit"
Case Case003() {
  return {
    .name = "unconstrained; 6 pods fit into hosts scattered across the whole datacenter even they could fit into single rack; BestFit",
    .nodes = ScatteredNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Unconstrained(true),
        .requests = {{kCpu, 1000}},
        .count = 6,
        .want = TA({kHostname}, {{{"x1"}, 1}, {{"x3"}, 1}, {{"x5"}, 1}, {{"x2"}, 1}, {{"x6"}, 2}}),
    }},
  };
}

// Go: "unconstrained; a single pod fits into each host; BestFit"
Case Case004() {
  return {
    .name = "unconstrained; a single pod fits into each host; BestFit",
    .nodes = DefaultNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Unconstrained(true),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x3"}, 1}}),
    }},
  };
}

// Go: "unconstrained; a single pod fits into each host; LeastFreeCapacity; TASProfileMixed"
Case Case005() {
  return {
    .name = "unconstrained; a single pod fits into each host; LeastFreeCapacity; TASProfileMixed",
    .nodes = DefaultNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Unconstrained(true),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x3"}, 1}}),
    }},
  };
}

// Go: "block required; 4 pods fit into one host each; BestFit"
Case Case006() {
  return {
    .name = "block required; 4 pods fit into one host each; BestFit",
    .nodes = BinaryTreesNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .want = TA({kHostname}, {{{"x3"}, 1}, {{"x5"}, 1}, {{"x1"}, 1}, {{"x6"}, 1}}),
    }},
  };
}

// Go: "host required; single Pod fits in the host; BestFit"
Case Case007() {
  return {
    .name = "host required; single Pod fits in the host; BestFit",
    .nodes = DefaultNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x3"}, 1}}),
    }},
  };
}

// Go: "host required; single Pod fits in the host; BestFit; TASProfileMixed"
Case Case008() {
  return {
    .name = "host required; single Pod fits in the host; BestFit; TASProfileMixed",
    .nodes = DefaultNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x3"}, 1}}),
    }},
  };
}

// Go: "host preferred; single Pod fits in the host; BestFit; TASProfileMixed"
Case Case009() {
  return {
    .name = "host preferred; single Pod fits in the host; BestFit; TASProfileMixed",
    .nodes = DefaultNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x3"}, 1}}),
    }},
  };
}

// Go: "rack required; single Pod fits in a rack; BestFit"
Case Case010() {
  return {
    .name = "rack required; single Pod fits in a rack; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kBlock, kRack}, {{{"b1", "r1"}, 1}}),
    }},
  };
}

// Go: "rack required; multiple Pods fit in a rack; BestFit"
Case Case011() {
  return {
    .name = "rack required; multiple Pods fit in a rack; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 3,
        .want = TA({kBlock, kRack}, {{{"b1", "r2"}, 3}}),
    }},
  };
}

// Go: "block preferred; Pods fit in 2 blocks; BestFit"
Case Case012() {
  return {
    .name = "block preferred; Pods fit in 2 blocks; BestFit",
    .nodes = {
        N("b1").L(kBlock, "b1").A(kCpu, "2").A(kPods, "20"),
        N("b2").L(kBlock, "b2").A(kCpu, "1").A(kPods, "10"),
        N("b3").L(kBlock, "b3").A(kCpu, "4").A(kPods, "40"),
    },
    .levels = {kBlock},
    .pod_sets = {{
        .topology = TR().Preferred(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 5,
        .want = TA({kBlock}, {{{"b2"}, 1}, {{"b3"}, 4}}),
    }},
  };
}

// Go: "rack required; multiple Pods fit in some racks; BestFit"
Case Case013() {
  return {
    .name = "rack required; multiple Pods fit in some racks; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 2,
        .want = TA({kBlock, kRack}, {{{"b2", "r2"}, 2}}),
    }},
  };
}

// Go: "rack required; too many pods to fit in any rack; BestFit"
Case Case014() {
  return {
    .name = "rack required; too many pods to fit in any rack; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .want_reason = R"(topology "default" allows to fit only 3 out of 4 pod(s))",
    }},
  };
}

// Go: "block required; single Pod fits in a block and a single rack; BestFit"
Case Case015() {
  return {
    .name = "block required; single Pod fits in a block and a single rack; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kBlock, kRack}, {{{"b2", "r1"}, 1}}),
    }},
  };
}

// Go: "block required; single Pod fits in a block spread across two racks; BestFit"
Case Case016() {
  return {
    .name = "block required; single Pod fits in a block spread across two racks; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .want = TA({kBlock, kRack}, {{{"b1", "r1"}, 1}, {{"b1", "r2"}, 3}}),
    }},
  };
}

// Go: "block required; Pods fit in a block spread across two racks; BestFit"
Case Case017() {
  return {
    .name = "block required; Pods fit in a block spread across two racks; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .want = TA({kBlock, kRack}, {{{"b1", "r1"}, 1}, {{"b1", "r2"}, 3}}),
    }},
  };
}

// Go: "block required; single Pod which cannot be split; BestFit"
Case Case018() {
  return {
    .name = "block required; single Pod which cannot be split; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 4000}},
        .count = 1,
        .want_reason = R"(topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 4; excluded: resource "cpu": 4)",
    }},
  };
}

// Go: "block required; too many Pods to fit requested; BestFit"
Case Case019() {
  return {
    .name = "block required; too many Pods to fit requested; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 5,
        .want_reason = R"(topology "default" allows to fit only 4 out of 5 pod(s))",
    }},
  };
}

// Go: "rack required; single Pod requiring memory; BestFit"
Case Case020() {
  return {
    .name = "rack required; single Pod requiring memory; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Required(kRack),
        .requests = {{kMemory, 1024}},
        .count = 4,
        .want = TA({kBlock, kRack}, {{{"b1", "r1"}, 4}}),
    }},
  };
}

// Go: "rack preferred; but only block can accommodate the workload; BestFit"
Case Case021() {
  return {
    .name = "rack preferred; but only block can accommodate the workload; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kRack),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .want = TA({kBlock, kRack}, {{{"b1", "r1"}, 1}, {{"b1", "r2"}, 3}}),
    }},
  };
}

// Go: "rack preferred; but only multiple blocks can accommodate the workload; BestFit"
Case Case022() {
  return {
    .name = "rack preferred; but only multiple blocks can accommodate the workload; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kRack),
        .requests = {{kCpu, 1000}},
        .count = 6,
        .want = TA({kBlock, kRack}, {{{"b1", "r1"}, 1}, {{"b1", "r2"}, 3}, {{"b2", "r2"}, 2}}),
    }},
  };
}

// Go: "block preferred; but only multiple blocks can accommodate the workload; BestFit"
Case Case023() {
  return {
    .name = "block preferred; but only multiple blocks can accommodate the workload; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 6,
        .want = TA({kBlock, kRack}, {{{"b1", "r1"}, 1}, {{"b1", "r2"}, 3}, {{"b2", "r2"}, 2}}),
    }},
  };
}

// Go: "block preferred; but the workload cannot be accommodate in entire topology; BestFit"
Case Case024() {
  return {
    .name = "block preferred; but the workload cannot be accommodate in entire topology; BestFit",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 10,
        .want_reason = R"(topology "default" allows to fit only 7 out of 10 pod(s))",
    }},
  };
}

// Go: "only nodes with matching labels are considered; no matching node; BestFit"
Case Case025() {
  return {
    .name = "only nodes with matching labels are considered; no matching node; BestFit",
    .nodes = {
        N("b1-r1-x3").L("zone", "zone-a").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10").NotReady(),
    },
    .levels = kOneLevel,
    .node_labels = {{"zone", "zone-b"}},
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want_reason = "no topology domains at level: kubernetes.io/hostname",
    }},
  };
}

// Go: "only nodes with matching labels are considered; matching node is found; BestFit"
Case Case026() {
  return {
    .name = "only nodes with matching labels are considered; matching node is found; BestFit",
    .nodes = {
        N("b1-r1-x3").L("zone", "zone-a").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .node_labels = {{"zone", "zone-a"}},
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x3"}, 1}}),
    }},
  };
}

// Go: "only nodes with matching levels are considered; no host label on node; BestFit"
Case Case027() {
  return {
    .name = "only nodes with matching levels are considered; no host label on node; BestFit",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want_reason = "no topology domains at level: cloud.com/topology-rack",
    }},
  };
}

// Go: "don't consider unscheduled Pods when computing capacity; BestFit"
Case Case028() {
  return {
    .name = "don't consider unscheduled Pods when computing capacity; BestFit",
    .nodes = {
        N("x3").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
    },
    .pods = {
        Pod("test-unscheduled").Request(kCpu, "600m"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 600}},
        .count = 1,
        .want = TA({kHostname}, {{{"x3"}, 1}}),
    }},
  };
}

// Go: "don't consider terminal pods when computing the capacity; BestFit"
Case Case029() {
  return {
    .name = "don't consider terminal pods when computing the capacity; BestFit",
    .nodes = {
        N("x3").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
    },
    .pods = {
        Pod("test-failed").NodeName("x3").Phase("Failed").Request(kCpu, "600m"),
        Pod("test-succeeded").NodeName("x3").Phase("Succeeded").Request(kCpu, "600m"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 600}},
        .count = 1,
        .want = TA({kHostname}, {{{"x3"}, 1}}),
    }},
  };
}

// Go: "include usage from pending scheduled non-TAS pods, blocked assignment; BestFit"
Case Case030() {
  return {
    .name = "include usage from pending scheduled non-TAS pods, blocked assignment; BestFit",
    .nodes = {
        N("x3").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
    },
    .pods = {
        Pod("test-pending").NodeName("x3").Phase("Pending").Request(kCpu, "600m"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 600}},
        .count = 1,
        .want_reason = R"(topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1)",
    }},
  };
}

// Go: "include usage from running non-TAS pods, blocked assignment; BestFit"
Case Case031() {
  return {
    .name = "include usage from running non-TAS pods, blocked assignment; BestFit",
    .nodes = {
        N("x3").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
    },
    .pods = {
        Pod("test-running").NodeName("x3").Phase("Running").Request(kCpu, "600m"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 600}},
        .count = 1,
        .want_reason = R"(topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1)",
    }},
  };
}

// Go: "node allocatable capacity completely used by non-TAS pod; empty remainingCapacity"
Case Case032() {
  return {
    .name = "node allocatable capacity completely used by non-TAS pod; empty remainingCapacity",
    .nodes = {
        N("x3").L(kHostname, "x3").A(kCpu, "1").A(kPods, "1"),
    },
    .pods = {
        Pod("running1").NodeName("x3").Phase("Running").Request(kCpu, "1"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 100}},
        .count = 1,
        .want_reason = R"(topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1)",
    }},
  };
}

// Go: "include usage from non-TAS pods; pod usage"
Case Case033() {
  return {
    .name = "include usage from non-TAS pods; pod usage",
    .nodes = {
        N("x3").L(kHostname, "x3").A(kPods, "10"),
    },
    .pods = {
        Pod("running1").NodeName("x3").Phase("Running"),
        Pod("running2").NodeName("x3").Phase("Running"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 0}},
        .count = 9,
        .want_reason = R"(topology "default" allows to fit only 8 out of 9 pod(s))",
    }},
  };
}

// Go: "include usage from running non-TAS pods, found free capacity on another node; BestFit"
Case Case034() {
  return {
    .name = "include usage from running non-TAS pods, found free capacity on another node; BestFit",
    .nodes = {
        N("x3").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
        N("x5").L(kHostname, "x5").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
    },
    .pods = {
        Pod("test-pod").NodeName("x3").Request(kCpu, "600m"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 600}},
        .count = 1,
        .want = TA({kHostname}, {{{"x5"}, 1}}),
    }},
  };
}

// Go: "no assignment as node is not ready; BestFit"
Case Case035() {
  return {
    .name = "no assignment as node is not ready; BestFit",
    .nodes = {
        N("b1-r1-x3").L("zone", "zone-a").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10").NotReady(),
    },
    .levels = kOneLevel,
    .node_labels = {{"zone", "zone-a"}},
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want_reason = "no topology domains at level: kubernetes.io/hostname",
    }},
  };
}

// Go: "no assignment as node is unschedulable; BestFit"
Case Case036() {
  return {
    .name = "no assignment as node is unschedulable; BestFit",
    .nodes = {
        N("b1-r1-x3").L("zone", "zone-a").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10").Unschedulable(),
    },
    .levels = kOneLevel,
    .node_labels = {{"zone", "zone-a"}},
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want_reason = "no topology domains at level: kubernetes.io/hostname",
    }},
  };
}

// Go: "skip node which has untolerated taint; BestFit"
Case Case037() {
  return {
    .name = "skip node which has untolerated taint; BestFit",
    .nodes = {
        N("x3").L("zone", "zone-a").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10").Taint("example.com/gpu", "present", model::TaintEffect::kNoSchedule),
    },
    .levels = kOneLevel,
    .node_labels = {{"zone", "zone-a"}},
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want_reason = R"(topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: taint "example.com/gpu=present:NoSchedule": 1)",
    }},
  };
}

// Go: "detailed failure message with exclusion stats"
Case Case038() {
  return {
    .name = "detailed failure message with exclusion stats",
    .nodes = {
        N("x1").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10").Taint("key", "value", model::TaintEffect::kNoSchedule),
        N("x2").L(kHostname, "x2").L("zone", "zone-b").A(kCpu, "1").A(kPods, "10"),
        N("x3").L(kHostname, "x3").L("zone", "zone-b").A(kCpu, "2").A(kPods, "10"),
        N("x4").L(kHostname, "x4").L("zone", "zone-a").A(kCpu, "100m").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .node_selector = {{"zone", "zone-a"}},
        .want_reason = R"(topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 4; excluded: nodeSelector: 2, resource "cpu": 1, taint "key=value:NoSchedule": 1)",
    }},
  };
}

// Go: "resource exclusion picks most restrictive resource"
Case Case039() {
  return {
    .name = "resource exclusion picks most restrictive resource",
    .nodes = {
        N("dual-shortage").L(kHostname, "dual-shortage").A(kCpu, "500m").A(kPods, "10").A(kGpu, "0"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}, {kGpu, 1}},
        .count = 1,
        .want_reason = R"(topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1)",
    }},
  };
}

// Go: "allow to schedule on node with tolerated taint; BestFit"
Case Case040() {
  return {
    .name = "allow to schedule on node with tolerated taint; BestFit",
    .nodes = {
        N("b1-r1-x3").L("zone", "zone-a").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10").Taint("example.com/gpu", "present", model::TaintEffect::kNoSchedule),
    },
    .levels = kOneLevel,
    .node_labels = {{"zone", "zone-a"}},
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .tolerations = {{.key = "example.com/gpu", .op = model::TolerationOperator::kEqual, .value = "present"}},
        .want = TA({kHostname}, {{{"x3"}, 1}}),
    }},
  };
}

// Go: "no assignment as node does not have enough allocatable pods (.status.allocatable['pods']); BestFit"
Case Case041() {
  return {
    .name = "no assignment as node does not have enough allocatable pods (.status.allocatable['pods']); BestFit",
    .nodes = {
        N("b1-r1-x3").L("zone", "zone-a").L(kHostname, "x3").A(kCpu, "1000m").A(kPods, "1"),
    },
    .pods = {
        Pod("test-running").NodeName("b1-r1-x3").Phase("Running").Request(kCpu, "300m"),
    },
    .levels = kOneLevel,
    .node_labels = {{"zone", "zone-a"}},
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 300}},
        .count = 1,
        .want_reason = R"(topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "pods": 1)",
    }},
  };
}

// Go: "multiple PodSets account assumed pod usage against allocatable pods; BestFit"
Case Case042() {
  return {
    .name = "multiple PodSets account assumed pod usage against allocatable pods; BestFit",
    .nodes = {
        N("x1").L(kHostname, "x1").A(kCpu, "2").A(kPods, "1"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .name = "one",
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x1"}, 1}}),
    }, {
        .name = "two",
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want_reason = R"(topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "pods": 1)",
    }},
  };
}

// Go: "skip node which doesn't match node selector, missing label; BestFit"
Case Case043() {
  return {
    .name = "skip node which doesn't match node selector, missing label; BestFit",
    .nodes = {
        N("x3").L("zone", "zone-a").L(kHostname, "x3").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .node_labels = {{"zone", "zone-a"}},
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 300}},
        .count = 1,
        .node_selector = {{"custom-label-1", "custom-value-1"}},
        .want_reason = R"(topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: nodeSelector: 1)",
    }},
  };
}

// Go: "skip node which doesn't match node selector, label exists, value doesn't match; BestFit"
Case Case044() {
  return {
    .name = "skip node which doesn't match node selector, label exists, value doesn't match; BestFit",
    .nodes = {
        N("x3").L("zone", "zone-a").L(kHostname, "x3").L("custom-label-1", "value-1").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .node_labels = {{"zone", "zone-a"}},
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 300}},
        .count = 1,
        .node_selector = {{"custom-label-1", "value-2"}},
        .want_reason = R"(topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: nodeSelector: 1)",
    }},
  };
}

// Go: "allow to schedule on node which matches node; BestFit"
Case Case045() {
  return {
    .name = "allow to schedule on node which matches node; BestFit",
    .nodes = {
        N("b1-r1-x3").L("zone", "zone-a").L(kHostname, "x3").L("custom-label-1", "value-1").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
        N("b1-r1-x5").L("zone", "zone-a").L(kHostname, "x5").L("custom-label-1", "value-2").A(kCpu, "1").A(kMemory, "1Gi").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .node_labels = {{"zone", "zone-a"}},
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .node_selector = {{"custom-label-1", "value-2"}},
        .want = TA({kHostname}, {{{"x5"}, 1}}),
    }},
  };
}

// Go: "block required for podset; host required for slices; BestFit"
Case Case046() {
  return {
    .name = "block required for podset; host required for slices; BestFit",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "3").A(kPods, "10"),
        N("b1-r1-x5").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x5").A(kCpu, "3").A(kPods, "10"),
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "3").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kHostname, 2),
        .requests = {{kCpu, 1000}},
        .count = 6,
        .want = TA({kHostname}, {{{"x1"}, 2}, {{"x3"}, 2}, {{"x5"}, 2}}),
    }},
  };
}

// Go: "block required for podset; host required for slices; prioritize more free slice capacity first and then tight fit; BestFit"
Case Case047() {
  return {
    .name = "block required for podset; host required for slices; prioritize more free slice capacity first and then tight fit; BestFit",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "6").A(kPods, "10"),
        N("b1-r1-x5").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x5").A(kCpu, "5").A(kPods, "10"),
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "4").A(kPods, "10"),
        N("b1-r1-x6").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x6").A(kCpu, "2").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kHostname, 2),
        .requests = {{kCpu, 1000}},
        .count = 12,
        .want = TA({kHostname}, {{{"x1"}, 4}, {{"x3"}, 6}, {{"x6"}, 2}}),
    }},
  };
}

// Go: "block required for podset; host required for slices; select domains with tight fit; BestFit"
Case Case048() {
  return {
    .name = "block required for podset; host required for slices; select domains with tight fit; BestFit",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "3").A(kPods, "10"),
        N("b1-r1-x5").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x5").A(kCpu, "2").A(kPods, "10"),
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "2").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kHostname, 2),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .want = TA({kHostname}, {{{"x1"}, 2}, {{"x5"}, 2}}),
    }},
  };
}

// Go: "block required for podset; rack required for slices; BestFit"
Case Case049() {
  return {
    .name = "block required for podset; rack required for slices; BestFit",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "1").A(kPods, "10"),
        N("b1-r1-x5").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x5").A(kCpu, "1").A(kPods, "10"),
        N("b1-r2-x1").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10"),
        N("b1-r2-x6").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x6").A(kCpu, "1").A(kPods, "10"),
        N("b1-r2-x2").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x2").A(kCpu, "1").A(kPods, "10"),
        N("b2-r1-x4").L(kBlock, "b2").L(kRack, "r1").L(kHostname, "x4").A(kCpu, "1").A(kPods, "10"),
        N("b2-r1-x7").L(kBlock, "b2").L(kRack, "r1").L(kHostname, "x7").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kRack, 2),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .want = TA({kHostname}, {{{"x3"}, 1}, {{"x5"}, 1}, {{"x1"}, 1}, {{"x2"}, 1}}),
    }},
  };
}

// Go: "block preferred for podset; rack required for slices; BestFit"
Case Case050() {
  return {
    .name = "block preferred for podset; rack required for slices; BestFit",
    .nodes = DefaultNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kBlock).Slice(kRack, 2),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .want = TA({kHostname}, {{{"x1"}, 1}, {{"x5"}, 1}, {{"x4"}, 2}}),
    }},
  };
}

// Go: "block required for podset; host required for slices; optimize last domain; BestFit"
Case Case051() {
  return {
    .name = "block required for podset; host required for slices; optimize last domain; BestFit",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "4").A(kPods, "10"),
        N("b1-r1-x5").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x5").A(kCpu, "3").A(kPods, "10"),
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "2").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kHostname, 2),
        .requests = {{kCpu, 1000}},
        .count = 6,
        .want = TA({kHostname}, {{{"x1"}, 2}, {{"x3"}, 4}}),
    }},
  };
}

// Go: "block preferred for podset; host required for slices; 2 blocks with unbalanced subdomains; BestFit"
Case Case052() {
  return {
    .name = "block preferred for podset; host required for slices; 2 blocks with unbalanced subdomains; BestFit",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "3").A(kPods, "10"),
        N("b1-r1-x5").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x5").A(kCpu, "3").A(kPods, "10"),
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "3").A(kPods, "10"),
        N("b2-r1-x6").L(kBlock, "b2").L(kRack, "r1").L(kHostname, "x6").A(kCpu, "6").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kBlock).Slice(kHostname, 3),
        .requests = {{kCpu, 1000}},
        .count = 12,
        .want = TA({kHostname}, {{{"x1"}, 3}, {{"x3"}, 3}, {{"x6"}, 6}}),
    }},
  };
}

// Go: "balanced placement; basic"
Case Case053() {
  return {
    .name = "balanced placement; basic",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "15").A(kPods, "25"),
        N("b1-r2-x2").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x2").A(kGpu, "15").A(kPods, "25"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kRack),
        .requests = {{kGpu, 1}},
        .count = 25,
        .want = TA({kHostname}, {{{"x1"}, 13}, {{"x2"}, 12}}),
    }},
  };
}

// Go: "balanced placement; select optmial set of domains"
Case Case054() {
  return {
    .name = "balanced placement; select optmial set of domains",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "15").A(kPods, "23"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "13").A(kPods, "23"),
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kGpu, "10").A(kPods, "23"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kRack),
        .requests = {{kGpu, 1}},
        .count = 23,
        .want = TA({kHostname}, {{{"x1"}, 12}, {{"x2"}, 11}}),
    }},
  };
}

// Go: "balanced placement; select optmial set of domains; with slices"
Case Case055() {
  return {
    .name = "balanced placement; select optmial set of domains; with slices",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "20").A(kPods, "25"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "15").A(kPods, "25"),
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kGpu, "10").A(kPods, "25"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kRack).Slice(kHostname, 5),
        .requests = {{kGpu, 1}},
        .count = 25,
        .want = TA({kHostname}, {{{"x2"}, 15}, {{"x3"}, 10}}),
    }},
  };
}

// Go: "balanced placement; select correct block"
Case Case056() {
  return {
    .name = "balanced placement; select correct block",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "20").A(kPods, "22"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "10").A(kPods, "22"),
        N("b2-r2-x3").L(kBlock, "b2").L(kRack, "r2").L(kHostname, "x3").A(kGpu, "15").A(kPods, "22"),
        N("b2-r2-x4").L(kBlock, "b2").L(kRack, "r2").L(kHostname, "x4").A(kGpu, "15").A(kPods, "22"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kRack),
        .requests = {{kGpu, 1}},
        .count = 22,
        .want = TA({kHostname}, {{{"x3"}, 11}, {{"x4"}, 11}}),
    }},
  };
}

// Go: "balanced placement; cannot chose domains from different blocks"
Case Case057() {
  return {
    .name = "balanced placement; cannot chose domains from different blocks",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "14").A(kPods, "25"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "11").A(kPods, "25"),
        N("b2-r2-x3").L(kBlock, "b2").L(kRack, "r2").L(kHostname, "x3").A(kGpu, "15").A(kPods, "25"),
        N("b2-r2-x4").L(kBlock, "b2").L(kRack, "r2").L(kHostname, "x4").A(kGpu, "10").A(kPods, "25"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kRack),
        .requests = {{kGpu, 1}},
        .count = 25,
        .want = TA({kHostname}, {{{"x1"}, 14}, {{"x2"}, 11}}),
    }},
  };
}

// Go: "balanced placement; select correct block; prefer blocks with single rack; with slices"
Case Case058() {
  return {
    .name = "balanced placement; select correct block; prefer blocks with single rack; with slices",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "15").A(kPods, "25"),
        N("b1-r2-x2").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x2").A(kGpu, "15").A(kPods, "25"),
        N("b1-r3-x3").L(kBlock, "b1").L(kRack, "r3").L(kHostname, "x3").A(kGpu, "15").A(kPods, "25"),
        N("b1-r3-x4").L(kBlock, "b1").L(kRack, "r3").L(kHostname, "x4").A(kGpu, "15").A(kPods, "25"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kRack).Slice(kHostname, 5),
        .requests = {{kGpu, 1}},
        .count = 25,
        .want = TA({kHostname}, {{{"x3"}, 15}, {{"x4"}, 10}}),
    }},
  };
}

// Go: "balanced placement; four level topology; slice two levels below balanced level"
Case Case059() {
  return {
    .name = "balanced placement; four level topology; slice two levels below balanced level",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-sb1-r1-x1").L(kBlock, "b1").L(kSubBlock, "sb1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "18").A(kPods, "20"),
        N("b1-sb1-r2-x2").L(kBlock, "b1").L(kSubBlock, "sb1").L(kRack, "r2").L(kHostname, "x2").A(kGpu, "8").A(kPods, "20"),
        N("b1-sb1-r3-x3").L(kBlock, "b1").L(kSubBlock, "sb2").L(kRack, "r3").L(kHostname, "x3").A(kGpu, "15").A(kPods, "20"),
        N("b1-sb1-r3-x4").L(kBlock, "b1").L(kSubBlock, "sb2").L(kRack, "r4").L(kHostname, "x4").A(kGpu, "9").A(kPods, "20"),
        N("b1-sb1-r3-x5").L(kBlock, "b1").L(kSubBlock, "sb2").L(kRack, "r4").L(kHostname, "x5").A(kGpu, "7").A(kPods, "20"),
    },
    .levels = {kBlock, kSubBlock, kRack, kHostname},
    .pod_sets = {{
        .topology = TR().Preferred(kSubBlock).Slice(kHostname, 2),
        .requests = {{kGpu, 1}},
        .count = 20,
        .want = TA({kHostname}, {{{"x3"}, 10}, {{"x4"}, 8}, {{"x5"}, 2}}),
    }},
  };
}

// Go: "balanced placement; four level topology; slice one level below balanced level"
Case Case060() {
  return {
    .name = "balanced placement; four level topology; slice one level below balanced level",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-sb1-r1-x1").L(kBlock, "b1").L(kSubBlock, "sb1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "18").A(kPods, "20"),
        N("b1-sb1-r2-x2").L(kBlock, "b1").L(kSubBlock, "sb1").L(kRack, "r2").L(kHostname, "x2").A(kGpu, "8").A(kPods, "20"),
        N("b1-sb1-r3-x3").L(kBlock, "b1").L(kSubBlock, "sb2").L(kRack, "r3").L(kHostname, "x3").A(kGpu, "15").A(kPods, "20"),
        N("b1-sb1-r3-x4").L(kBlock, "b1").L(kSubBlock, "sb2").L(kRack, "r4").L(kHostname, "x4").A(kGpu, "9").A(kPods, "20"),
        N("b1-sb1-r3-x5").L(kBlock, "b1").L(kSubBlock, "sb2").L(kRack, "r4").L(kHostname, "x5").A(kGpu, "7").A(kPods, "20"),
    },
    .levels = {kBlock, kSubBlock, kRack, kHostname},
    .pod_sets = {{
        .topology = TR().Preferred(kSubBlock).Slice(kRack, 2),
        .requests = {{kGpu, 1}},
        .count = 20,
        .want = TA({kHostname}, {{{"x3"}, 10}, {{"x4"}, 3}, {{"x5"}, 7}}),
    }},
  };
}

// Go: "balanced placement; four level topology; balance on rack level; slice not on the lowest level"
Case Case061() {
  return {
    .name = "balanced placement; four level topology; balance on rack level; slice not on the lowest level",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-sb1-r1-x1").L(kBlock, "b1").L(kSubBlock, "sb1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "18").A(kPods, "20"),
        N("b1-sb1-r2-x2").L(kBlock, "b1").L(kSubBlock, "sb1").L(kRack, "r2").L(kHostname, "x2").A(kGpu, "8").A(kPods, "20"),
        N("b1-sb1-r3-x3").L(kBlock, "b1").L(kSubBlock, "sb2").L(kRack, "r3").L(kHostname, "x3").A(kGpu, "15").A(kPods, "20"),
        N("b1-sb1-r3-x4").L(kBlock, "b1").L(kSubBlock, "sb2").L(kRack, "r4").L(kHostname, "x4").A(kGpu, "15").A(kPods, "20"),
    },
    .levels = {kBlock, kSubBlock, kRack},
    .pod_sets = {{
        .topology = TR().Preferred(kSubBlock).Slice(kRack, 2),
        .requests = {{kGpu, 1}},
        .count = 20,
        .want = TA({kBlock, kSubBlock, kRack}, {{{"b1", "sb2", "r3"}, 10}, {{"b1", "sb2", "r4"}, 10}}),
    }},
  };
}

// Go: "balanced placement; three level topology; balance on the same level as slice"
Case Case062() {
  return {
    .name = "balanced placement; three level topology; balance on the same level as slice",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "15").A(kPods, "22"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "13").A(kPods, "22"),
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kGpu, "10").A(kPods, "22"),
        N("b1-r2-x4").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x4").A(kGpu, "20").A(kPods, "22"),
        N("b1-r2-x5").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x5").A(kGpu, "8").A(kPods, "22"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kHostname).Slice(kHostname, 2),
        .requests = {{kGpu, 1}},
        .count = 22,
        .want = TA({kHostname}, {{{"x2"}, 12}, {{"x3"}, 10}}),
    }},
  };
}

// Go: "balanced placement; three level topology; balance on the lowest level"
Case Case063() {
  return {
    .name = "balanced placement; three level topology; balance on the lowest level",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "20").A(kPods, "22"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "8").A(kPods, "22"),
        N("b1-r2-x3").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x3").A(kGpu, "15").A(kPods, "22"),
        N("b1-r2-x4").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x4").A(kGpu, "13").A(kPods, "22"),
        N("b1-r2-x5").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x5").A(kGpu, "10").A(kPods, "22"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kHostname),
        .requests = {{kGpu, 1}},
        .count = 22,
        .want = TA({kHostname}, {{{"x3"}, 11}, {{"x4"}, 11}}),
    }},
  };
}

// Go: "balanced placement; leader worker set"
Case Case064() {
  return {
    .name = "balanced placement; leader worker set",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "20").A(kPods, "24"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "15").A(kPods, "24"),
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kGpu, "12").A(kPods, "24"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Preferred(kRack).Slice(kHostname, 0),
        .requests = {{kGpu, 1}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x3"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Preferred(kRack).Slice(kHostname, 5),
        .requests = {{kGpu, 1}},
        .count = 25,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x2"}, 15}, {{"x3"}, 10}}),
    }},
  };
}

// Go: "balanced placement; prioritize (using entropy) balanced domains; second rack wins"
Case Case065() {
  return {
    .name = "balanced placement; prioritize (using entropy) balanced domains; second rack wins",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "10").A(kPods, "20"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "5").A(kPods, "20"),
        N("b1-r2-x3").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x3").A(kGpu, "5").A(kPods, "20"),
        N("b1-r2-x4").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x4").A(kGpu, "5").A(kPods, "20"),
        N("b1-r2-x5").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x5").A(kGpu, "5").A(kPods, "20"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kRack),
        .requests = {{kGpu, 1}},
        .count = 15,
        .want = TA({kHostname}, {{{"x3"}, 5}, {{"x4"}, 5}, {{"x5"}, 5}}),
    }},
  };
}

// Go: "balanced placement; prioritize (using entropy) balanced domains; first rack wins"
Case Case066() {
  return {
    .name = "balanced placement; prioritize (using entropy) balanced domains; first rack wins",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "8").A(kPods, "24"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "8").A(kPods, "24"),
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kGpu, "8").A(kPods, "24"),
        N("b1-r2-x4").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x4").A(kGpu, "16").A(kPods, "24"),
        N("b1-r2-x5").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x5").A(kGpu, "8").A(kPods, "24"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kRack),
        .requests = {{kGpu, 1}},
        .count = 24,
        .want = TA({kHostname}, {{{"x1"}, 8}, {{"x2"}, 8}, {{"x3"}, 8}}),
    }},
  };
}

// Go: "balanced placement; two level topology; balance on the highest level"
Case Case067() {
  return {
    .name = "balanced placement; two level topology; balance on the highest level",
    .options = {.balanced_placement = true},
    .nodes = {
        N("r1-x1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "21").A(kPods, "22"),
        N("r1-x2").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "9").A(kPods, "22"),
        N("r2-x3").L(kRack, "r2").L(kHostname, "x3").A(kGpu, "11").A(kPods, "22"),
        N("r2-x4").L(kRack, "r2").L(kHostname, "x4").A(kGpu, "10").A(kPods, "22"),
        N("r2-x5").L(kRack, "r2").L(kHostname, "x5").A(kGpu, "10").A(kPods, "22"),
    },
    .levels = {kRack, kHostname},
    .pod_sets = {{
        .topology = TR().Preferred(kRack),
        .requests = {{kGpu, 1}},
        .count = 23,
        .want = TA({kHostname}, {{{"x1"}, 12}, {{"x3"}, 11}}),
    }},
  };
}

// Go: "balanced placement; select correct block taking into account pruning"
Case Case068() {
  return {
    .name = "balanced placement; select correct block taking into account pruning",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "5").A(kPods, "20"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "5").A(kPods, "20"),
        N("b1-r2-x3").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x3").A(kGpu, "5").A(kPods, "20"),
        N("b1-r2-x4").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x4").A(kGpu, "5").A(kPods, "20"),
        N("b2-r3-x5").L(kBlock, "b2").L(kRack, "r3").L(kHostname, "x5").A(kGpu, "10").A(kPods, "20"),
        N("b2-r3-x6").L(kBlock, "b2").L(kRack, "r3").L(kHostname, "x6").A(kGpu, "4").A(kPods, "20"),
        N("b2-r3-x7").L(kBlock, "b2").L(kRack, "r3").L(kHostname, "x7").A(kGpu, "4").A(kPods, "20"),
        N("b2-r3-x8").L(kBlock, "b2").L(kRack, "r3").L(kHostname, "x8").A(kGpu, "4").A(kPods, "20"),
        N("b2-r4-x9").L(kBlock, "b2").L(kRack, "r4").L(kHostname, "x9").A(kGpu, "5").A(kPods, "20"),
        N("b2-r5-x10").L(kBlock, "b2").L(kRack, "r5").L(kHostname, "x10").A(kGpu, "5").A(kPods, "20"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Preferred(kRack),
        .requests = {{kGpu, 1}},
        .count = 20,
        .want = TA({kHostname}, {{{"x1"}, 5}, {{"x2"}, 5}, {{"x3"}, 5}, {{"x4"}, 5}}),
    }},
  };
}

// Go: "balanced placement; should not prune domain"
Case Case069() {
  return {
    .name = "balanced placement; should not prune domain",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "6").A(kPods, "24"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "5").A(kPods, "24"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Preferred(kRack).Slice(kHostname, 0),
        .requests = {{kGpu, 1}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x1"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Preferred(kRack),
        .requests = {{kGpu, 1}},
        .count = 10,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x1"}, 5}, {{"x2"}, 5}}),
    }},
  };
}

// Go: "balanced placement; leader worker set does not reserve leader space on every node"
Case Case070() {
  return {
    .name = "balanced placement; leader worker set does not reserve leader space on every node",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "7").A(kPods, "12"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kGpu, "5").A(kPods, "12"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Preferred(kRack).Slice(kHostname, 0),
        .requests = {{kGpu, 1}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x1"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Preferred(kRack),
        .requests = {{kGpu, 1}},
        .count = 10,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x1"}, 5}, {{"x2"}, 5}}),
    }},
  };
}

// Go: "balanced placement; fallback to BestFit when leader worker set cannot meet threshold"
Case Case071() {
  return {
    .name = "balanced placement; fallback to BestFit when leader worker set cannot meet threshold",
    .options = {.balanced_placement = true},
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kGpu, "3").A(kPods, "12"),
        N("b1-r2-x2").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x2").A(kGpu, "3").A(kPods, "12"),
        N("b1-r3-x3").L(kBlock, "b1").L(kRack, "r3").L(kHostname, "x3").A(kGpu, "8").A(kPods, "12"),
        N("b2-r1-x4").L(kBlock, "b2").L(kRack, "r1").L(kHostname, "x4").A(kGpu, "11").A(kPods, "12"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Preferred(kBlock).Slice(kHostname, 0),
        .requests = {{kGpu, 5}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x3"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Preferred(kBlock),
        .requests = {{kGpu, 1}},
        .count = 7,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x1"}, 3}, {{"x2"}, 1}, {{"x3"}, 3}}),
    }},
  };
}

// Go: "block required for podset; rack required for slices; podset fits in a block, but slices do not fit in racks"
Case Case072() {
  return {
    .name = "block required for podset; rack required for slices; podset fits in a block, but slices do not fit in racks",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "2").A(kPods, "10"),
        N("b1-r2-x5").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x5").A(kCpu, "2").A(kPods, "10"),
        N("b1-r3-x1").L(kBlock, "b1").L(kRack, "r3").L(kHostname, "x1").A(kCpu, "2").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kRack, 3),
        .requests = {{kCpu, 1000}},
        .count = 6,
        .want_reason = R"(topology "default" doesn't allow to fit any of 2 slice(s))",
    }},
  };
}

// Go: "block required for podset; rack required for slices; only 1 out of 2 slices fit the topology"
Case Case073() {
  return {
    .name = "block required for podset; rack required for slices; only 1 out of 2 slices fit the topology",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "3").A(kPods, "10"),
        N("b1-r2-x5").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x5").A(kCpu, "1").A(kPods, "10"),
        N("b1-r3-x1").L(kBlock, "b1").L(kRack, "r3").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10"),
        N("b1-r4-x6").L(kBlock, "b1").L(kRack, "r4").L(kHostname, "x6").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kRack, 3),
        .requests = {{kCpu, 1000}},
        .count = 6,
        .want_reason = R"(topology "default" allows to fit only 1 out of 2 slice(s))",
    }},
  };
}

// Go: "block required for podset; rack required for slices; podset fits in both blocks, but slices fit in only one block"
Case Case074() {
  return {
    .name = "block required for podset; rack required for slices; podset fits in both blocks, but slices fit in only one block",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "2").A(kPods, "10"),
        N("b1-r2-x5").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x5").A(kCpu, "2").A(kPods, "10"),
        N("b1-r3-x1").L(kBlock, "b1").L(kRack, "r3").L(kHostname, "x1").A(kCpu, "2").A(kPods, "10"),
        N("b2-r4-x6").L(kBlock, "b2").L(kRack, "r4").L(kHostname, "x6").A(kCpu, "3").A(kPods, "10"),
        N("b2-r5-x2").L(kBlock, "b2").L(kRack, "r5").L(kHostname, "x2").A(kCpu, "3").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kRack, 3),
        .requests = {{kCpu, 1000}},
        .count = 6,
        .want = TA({kHostname}, {{{"x6"}, 3}, {{"x2"}, 3}}),
    }},
  };
}

// Go: "slice required topology level cannot be above the main required topology level"
Case Case075() {
  return {
    .name = "slice required topology level cannot be above the main required topology level",
    .nodes = DefaultNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kHostname).Slice(kBlock, 1),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want_reason = "podset slice topology cloud.com/topology-block is above the podset topology kubernetes.io/hostname",
    }},
  };
}

// Go: "slice size is required when slice topology is requested"
Case Case076() {
  return {
    .name = "slice size is required when slice topology is requested",
    .nodes = DefaultNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kHostname, 0),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want_reason = "slice topology requested, but slice size not provided",
    }},
  };
}

// Go: "cannot request not existing slice topology"
Case Case077() {
  return {
    .name = "cannot request not existing slice topology",
    .nodes = DefaultNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice("not-existing-topology-level", 1),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want_reason = "no requested topology level for slices: not-existing-topology-level",
    }},
  };
}

// Go: "no topology for podset; host required for slices; BestFit"
Case Case078() {
  return {
    .name = "no topology for podset; host required for slices; BestFit",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "3").A(kPods, "10"),
        N("b1-r1-x5").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x5").A(kCpu, "3").A(kPods, "10"),
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "3").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Slice(kHostname, 2),
        .requests = {{kCpu, 1000}},
        .count = 6,
        .want = TA({kHostname}, {{{"x1"}, 2}, {{"x3"}, 2}, {{"x5"}, 2}}),
    }},
  };
}

// Go: "no topology for podset; host required for slices; multiple blocks; BestFit"
Case Case079() {
  return {
    .name = "no topology for podset; host required for slices; multiple blocks; BestFit",
    .nodes = ScatteredNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Slice(kHostname, 2),
        .requests = {{kCpu, 1000}},
        .count = 6,
        .want = TA({kHostname}, {{{"x3"}, 4}, {{"x6"}, 2}}),
    }},
  };
}

// Go: "no topology for podset; rack required for slices; multiple blocks; BestFit"
Case Case080() {
  return {
    .name = "no topology for podset; rack required for slices; multiple blocks; BestFit",
    .nodes = DefaultNodes(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Slice(kRack, 2),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .want = TA({kHostname}, {{{"x1"}, 1}, {{"x5"}, 1}, {{"x4"}, 2}}),
    }},
  };
}

// Go: "find topology assignment for two podsets with overlapping domain"
Case Case081() {
  return {
    .name = "find topology assignment for two podsets with overlapping domain",
    .nodes = {
        N("b1").L(kBlock, "b1").A(kCpu, "2").A(kPods, "10"),
        N("b2").L(kBlock, "b2").A(kCpu, "2").A(kPods, "10"),
        N("b3").L(kBlock, "b3").A(kCpu, "2").A(kPods, "10"),
    },
    .levels = {kBlock},
    .pod_sets = {{
        .name = "podset1",
        .topology = TR().Preferred(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 3,
        .want = TA({kBlock}, {{{"b1"}, 2}, {{"b2"}, 1}}),
    }, {
        .name = "podset2",
        .topology = TR().Preferred(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 3,
        .want = TA({kBlock}, {{{"b2"}, 1}, {{"b3"}, 2}}),
    }},
  };
}

// Go: "find topology assignment for two podsets with the same group"
Case Case082() {
  return {
    .name = "find topology assignment for two podsets with the same group",
    .nodes = {
        N("b1").L(kBlock, "b1").A(kCpu, "2").A(kGpu, "2").A(kMemory, "2Gi").A(kPods, "10"),
        N("b2").L(kBlock, "b2").A(kCpu, "5").A(kGpu, "4").A(kPods, "10"),
        N("b3").L(kBlock, "b3").A(kCpu, "2").A(kGpu, "2").A(kPods, "10"),
    },
    .levels = {kBlock},
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kBlock}, {{{"b2"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}, {kGpu, 1}},
        .count = 4,
        .group = "sameGroup",
        .want = TA({kBlock}, {{{"b2"}, 4}}),
    }},
  };
}

// Go: "find topology assignment for grouped podsets preserves worker capacity when placing leader"
Case Case083() {
  return {
    .name = "find topology assignment for grouped podsets preserves worker capacity when placing leader",
    .nodes = {
        N("h1").L(kRack, "r1").L(kHostname, "h1").A(kCpu, "2").A(kPods, "10"),
        N("h2").L(kRack, "r1").L(kHostname, "h2").A(kCpu, "4").A(kPods, "10"),
        N("h3").L(kRack, "r1").L(kHostname, "h3").A(kCpu, "3").A(kPods, "10"),
    },
    .levels = {kRack, kHostname},
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"h3"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 2000}},
        .count = 4,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"h1"}, 1}, {{"h2"}, 2}, {{"h3"}, 1}}),
    }},
  };
}

// Go: "find topology assignment for sliced grouped podsets preserves worker capacity when placing leader"
Case Case084() {
  return {
    .name = "find topology assignment for sliced grouped podsets preserves worker capacity when placing leader",
    .nodes = {
        N("h1").L(kRack, "r1").L(kHostname, "h1").A(kCpu, "2").A(kPods, "10"),
        N("h2").L(kRack, "r1").L(kHostname, "h2").A(kCpu, "4").A(kPods, "10"),
        N("h3").L(kRack, "r1").L(kHostname, "h3").A(kCpu, "3").A(kPods, "10"),
    },
    .levels = {kRack, kHostname},
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"h3"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Required(kRack).Slice(kHostname, 2),
        .requests = {{kCpu, 1000}},
        .count = 8,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"h1"}, 2}, {{"h2"}, 4}, {{"h3"}, 2}}),
    }},
  };
}

// Go: "find topology assignment for preferred grouped podsets preserves capacity across domains"
Case Case085() {
  return {
    .name = "find topology assignment for preferred grouped podsets preserves capacity across domains",
    .nodes = {
        N("h1").L(kHostname, "h1").A(kCpu, "8").A(kPods, "10"),
        N("h2").L(kHostname, "h2").A(kCpu, "3").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Preferred(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"h2"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Preferred(kHostname),
        .requests = {{kCpu, 2000}},
        .count = 5,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"h1"}, 4}, {{"h2"}, 1}}),
    }},
  };
}

// Go: "find topology assignment for unconstrained grouped podsets spreads leader and worker across domains with TASProfileMixed"
Case Case086() {
  return {
    .name = "find topology assignment for unconstrained grouped podsets spreads leader and worker across domains with TASProfileMixed",
    .nodes = {
        N("h1").L(kHostname, "h1").A(kCpu, "1").A(kPods, "10"),
        N("h2").L(kHostname, "h2").A(kGpu, "1").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Unconstrained(true),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"h1"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Unconstrained(true),
        .requests = {{kGpu, 1}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"h2"}, 1}}),
    }},
  };
}

// Go: "find topology assignment for grouped podsets preserves leader below the slice level"
Case Case087() {
  return {
    .name = "find topology assignment for grouped podsets preserves leader below the slice level",
    .nodes = {
        N("leader-host").L(kRack, "r1").L(kHostname, "leader-host").A(kCpu, "1").A(kPods, "10"),
        N("worker-host").L(kRack, "r1").L(kHostname, "worker-host").A(kGpu, "1").A(kPods, "10"),
    },
    .levels = {kRack, kHostname},
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kRack).Slice(kRack, 1),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"leader-host"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Required(kRack).Slice(kRack, 1),
        .requests = {{kGpu, 1}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"worker-host"}, 1}}),
    }},
  };
}

// Go: "find topology assignment for two podsets with the same group with domains that can tightly fit leader and workers"
Case Case088() {
  return {
    .name = "find topology assignment for two podsets with the same group with domains that can tightly fit leader and workers",
    .nodes = {
        N("b1").L(kBlock, "b1").A(kCpu, "2").A(kGpu, "2").A(kPods, "10"),
        N("b2").L(kBlock, "b2").A(kCpu, "8").A(kGpu, "8").A(kPods, "10"),
        N("b3").L(kBlock, "b3").A(kCpu, "2").A(kGpu, "2").A(kPods, "10"),
    },
    .levels = {kBlock},
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kBlock}, {{{"b2"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}, {kGpu, 2}},
        .count = 4,
        .group = "sameGroup",
        .want = TA({kBlock}, {{{"b2"}, 4}}),
    }},
  };
}

// Go: "find topology assignment for grouped podsets skips domain where only workers fit without leader"
Case Case089() {
  return {
    .name = "find topology assignment for grouped podsets skips domain where only workers fit without leader",
    .nodes = {
        N("small-used").L(kBlock, "b1").L(kRack, "small").L(kHostname, "small-used").A(kCpu, "2800m").A(kPods, "10"),
        N("small-free").L(kBlock, "b1").L(kRack, "small").L(kHostname, "small-free").A(kCpu, "2800m").A(kPods, "10"),
        N("large-free").L(kBlock, "b1").L(kRack, "large").L(kHostname, "large-free").A(kCpu, "6").A(kPods, "10"),
    },
    .pods = {
        Pod("filler").NodeName("small-used").Phase("Running").Request(kCpu, "2500m"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 2500}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"large-free"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 2500}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"large-free"}, 1}}),
    }},
  };
}

// Go: "find topology assignment for grouped podsets skips domain where mixed-size workers only fit without leader"
Case Case090() {
  return {
    .name = "find topology assignment for grouped podsets skips domain where mixed-size workers only fit without leader",
    .nodes = {
        N("small-used").L(kBlock, "b1").L(kRack, "small").L(kHostname, "small-used").A(kCpu, "2800m").A(kPods, "10"),
        N("small-free").L(kBlock, "b1").L(kRack, "small").L(kHostname, "small-free").A(kCpu, "2800m").A(kPods, "10"),
        N("large-free").L(kBlock, "b1").L(kRack, "large").L(kHostname, "large-free").A(kCpu, "6").A(kPods, "10"),
    },
    .pods = {
        Pod("filler").NodeName("small-used").Phase("Running").Request(kCpu, "2500m"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 2500}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"large-free"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 500}},
        .count = 2,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"large-free"}, 2}}),
    }},
  };
}

// Go: "find topology assignment for grouped podsets keeps tight domain when leader and workers fit together"
Case Case091() {
  return {
    .name = "find topology assignment for grouped podsets keeps tight domain when leader and workers fit together",
    .nodes = {
        N("small-used").L(kBlock, "b1").L(kRack, "small").L(kHostname, "small-used").A(kCpu, "2800m").A(kPods, "10"),
        N("small-free").L(kBlock, "b1").L(kRack, "small").L(kHostname, "small-free").A(kCpu, "2800m").A(kPods, "10"),
        N("large-free").L(kBlock, "b1").L(kRack, "large").L(kHostname, "large-free").A(kCpu, "6").A(kPods, "10"),
    },
    .pods = {
        Pod("filler").NodeName("small-used").Phase("Running").Request(kCpu, "2500m"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"small-free"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"small-free"}, 1}}),
    }},
  };
}

// Go: "find topology assignment for two podsets with the same group - no fit"
Case Case092() {
  return {
    .name = "find topology assignment for two podsets with the same group - no fit",
    .nodes = {
        N("b1").L(kBlock, "b1").A(kCpu, "1").A(kGpu, "0").A(kPods, "10"),
        N("b2").L(kBlock, "b2").A(kCpu, "4").A(kGpu, "4").A(kPods, "10"),
    },
    .levels = {kBlock},
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .group = "sameGroup",
        .want_reason = R"(topology "default" allows to fit only 4 out of 4 pod(s). Total nodes: 2; excluded: resource "example.com/gpu": 1)",
    }, {
        .name = "workers",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}, {kGpu, 1}},
        .count = 4,
        .group = "sameGroup",
        .want_reason = R"(topology "default" allows to fit only 4 out of 4 pod(s). Total nodes: 2; excluded: resource "example.com/gpu": 1)",
    }},
  };
}

// Go: "find topology assignment for two podsets with the same group - optimizes domain for both leader and workers"
Case Case093() {
  return {
    .name = "find topology assignment for two podsets with the same group - optimizes domain for both leader and workers",
    .nodes = {
        N("b1").L(kBlock, "b1").A(kCpu, "11").A(kGpu, "8").A(kPods, "10"),
        N("b2").L(kBlock, "b2").A(kCpu, "4").A(kGpu, "4").A(kPods, "10"),
    },
    .levels = {kBlock},
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kBlock}, {{{"b1"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}, {kGpu, 1}},
        .count = 4,
        .group = "sameGroup",
        .want = TA({kBlock}, {{{"b1"}, 4}}),
    }},
  };
}

// Go: "BestFit: podset group workers spread across hosts"
Case Case094() {
  return {
    .name = "BestFit: podset group workers spread across hosts",
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "20").A(kGpu, "4").A(kPods, "10"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "20").A(kGpu, "2").A(kPods, "10"),
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "20").A(kGpu, "2").A(kPods, "10"),
        N("b1-r1-x4").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x4").A(kCpu, "20").A(kGpu, "2").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Preferred(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x1"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Preferred(kBlock).Slice(kHostname, 2),
        .requests = {{kCpu, 1000}, {kGpu, 1}},
        .count = 6,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x1"}, 4}, {{"x2"}, 2}}),
    }},
  };
}

// Go: "find topology assignment for two podsets with the same group - leader does not fit anywhere"
Case Case095() {
  return {
    .name = "find topology assignment for two podsets with the same group - leader does not fit anywhere",
    .nodes = {
        N("b1").L(kBlock, "b1").A(kCpu, "4").A(kGpu, "4").A(kPods, "10"),
        N("b2").L(kBlock, "b2").A(kCpu, "4").A(kGpu, "4").A(kPods, "10"),
    },
    .levels = {kBlock},
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 10000}},
        .count = 1,
        .group = "sameGroup",
        .want_reason = R"(topology "default" allows to fit only 4 out of 4 pod(s))",
    }, {
        .name = "workers",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}, {kGpu, 1}},
        .count = 4,
        .group = "sameGroup",
        .want_reason = R"(topology "default" allows to fit only 4 out of 4 pod(s))",
    }},
  };
}

// Go: "find topology assignment for two podsets with the same group - multiple hosts"
Case Case096() {
  return {
    .name = "find topology assignment for two podsets with the same group - multiple hosts",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "2").A(kPods, "10").A(kGpu, "1"),
        N("b1-r1-x5").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x5").A(kCpu, "2").A(kPods, "10").A(kGpu, "1"),
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "2").A(kPods, "10").A(kGpu, "1"),
        N("b2-r4-x6").L(kBlock, "b2").L(kRack, "r4").L(kHostname, "x6").A(kCpu, "1").A(kPods, "10").A(kGpu, "1"),
        N("b2-r5-x2").L(kBlock, "b2").L(kRack, "r5").L(kHostname, "x2").A(kCpu, "2").A(kPods, "10").A(kGpu, "1"),
        N("b2-r6-x4").L(kBlock, "b2").L(kRack, "r6").L(kHostname, "x4").A(kCpu, "2").A(kPods, "10").A(kGpu, "1"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 2000}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x1"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}, {kGpu, 1}},
        .count = 2,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x3"}, 1}, {{"x5"}, 1}}),
    }},
  };
}

// Go: "find topology assignment for two podsets with the same group requesting same resources and nodes in the same rack"
Case Case097() {
  return {
    .name = "find topology assignment for two podsets with the same group requesting same resources and nodes in the same rack",
    .nodes = {
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "1").A(kPods, "10").A(kGpu, "1"),
        N("b1-r1-x5").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x5").A(kCpu, "1").A(kPods, "10").A(kGpu, "1"),
        N("b1-r2-x1").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10").A(kGpu, "1"),
        N("b1-r2-x6").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x6").A(kCpu, "1").A(kPods, "10").A(kGpu, "1"),
        N("b2-r3-x2").L(kBlock, "b2").L(kRack, "r3").L(kHostname, "x2").A(kCpu, "1").A(kPods, "10").A(kGpu, "1"),
        N("b2-r3-x4").L(kBlock, "b2").L(kRack, "r3").L(kHostname, "x4").A(kCpu, "1").A(kPods, "10").A(kGpu, "1"),
        N("b2-r4-x7").L(kBlock, "b2").L(kRack, "r4").L(kHostname, "x7").A(kCpu, "1").A(kPods, "10").A(kGpu, "1"),
        N("b2-r4-x8").L(kBlock, "b2").L(kRack, "r4").L(kHostname, "x8").A(kCpu, "1").A(kPods, "10").A(kGpu, "1"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}, {kGpu, 1}},
        .count = 1,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x3"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}, {kGpu, 1}},
        .count = 2,
        .group = "sameGroup",
        .want = TA({kHostname}, {{{"x5"}, 1}, {{"x1"}, 1}}),
    }},
  };
}

// Go: "multiple podsets: rack required for both, different resource requests; BestFit"
Case Case098() {
  return {
    .name = "multiple podsets: rack required for both, different resource requests; BestFit",
    .nodes = MultipodNodeset(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .name = "podset1",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 2,
        .want = TA({kBlock, kRack}, {{{"b1", "r1"}, 2}}),
    }, {
        .name = "podset2",
        .topology = TR().Required(kRack),
        .requests = {{kMemory, 1024}},
        .count = 1,
        .want = TA({kBlock, kRack}, {{{"b1", "r1"}, 1}}),
    }},
  };
}

// Go: "multiple podsets: block required for one, unconstrained for another; TASProfileMixed"
Case Case099() {
  return {
    .name = "multiple podsets: block required for one, unconstrained for another; TASProfileMixed",
    .nodes = MultipodNodeset(),
    .levels = kThreeLevels,
    .pod_sets = {{
        .name = "podset1",
        .topology = TR().Required(kBlock),
        .requests = {{kCpu, 1000}},
        .count = 8,
        .want = TA({kHostname}, {{{"x2"}, 8}}),
    }, {
        .name = "podset2",
        .topology = TR().Unconstrained(true),
        .requests = {{kCpu, 1000}},
        .count = 2,
        .want = TA({kHostname}, {{{"x2"}, 2}}),
    }},
  };
}

// Go: "temporary state cleanup prevents leakage across PodSets"
Case Case100() {
  return {
    .name = "temporary state cleanup prevents leakage across PodSets",
    .nodes = {
        N("n1").L(kHostname, "x1").A(kCpu, "4").A(kMemory, "4Gi").A(kPods, "10"),
        N("n2").L(kHostname, "x2").A(kCpu, "4").A(kMemory, "4Gi").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .name = "ps1",
        .requests = {{kCpu, 1000}, {kMemory, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x1"}, 1}}),
    }, {
        .name = "ps2",
        .requests = {{kCpu, 1000}, {kMemory, 1000}},
        .count = 1,
        .node_selector = {{"never", "match"}},
        .want_reason = R"(topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 2; excluded: nodeSelector: 2)",
    }},
  };
}

// Go: "multi-layer topology: block required; rack slices of 4; host slices of 2; TASMultiLayerTopology"
Case Case101() {
  return {
    .name = "multi-layer topology: block required; rack slices of 4; host slices of 2; TASMultiLayerTopology",
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "4").A(kPods, "10"),
        N("b1-r2-x3").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x3").A(kCpu, "3").A(kPods, "10"),
        N("b1-r2-x4").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x4").A(kCpu, "4").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kRack, 4).Slice(kHostname, 2),
        .requests = {{kCpu, 1000}},
        .count = 8,
        .want = TA({kHostname}, {{{"x2"}, 4}, {{"x3"}, 2}, {{"x4"}, 2}}),
    }},
  };
}

// Go: "multi-layer topology: no feature gate; additional layers ignored"
Case Case102() {
  return {
    .name = "multi-layer topology: no feature gate; additional layers ignored",
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "4").A(kPods, "10"),
        N("b1-r2-x3").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x3").A(kCpu, "3").A(kPods, "10"),
        N("b1-r2-x4").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x4").A(kCpu, "4").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kRack, 4),
        .requests = {{kCpu, 1000}},
        .count = 8,
        .want = TA({kHostname}, {{{"x1"}, 1}, {{"x2"}, 3}, {{"x3"}, 3}, {{"x4"}, 1}}),
    }},
  };
}

// Go: "multi-layer topology: mimic a real-world GB200 cluster, with NVL36 arch (2GPUs/node); dc required; aizone slices of 48; rack slices of 16; TASMultiLayerTopology"
Case Case103() {
  return {
    .name = "multi-layer topology: mimic a real-world GB200 cluster, with NVL36 arch (2GPUs/node); dc required; aizone slices of 48; rack slices of 16; TASMultiLayerTopology",
    .nodes = Gb200Nodes(),
    .levels = {kDataCenter, kAIZone, kBlock, kRack},
    .pod_sets = {{
        .topology = TR().Required(kDataCenter).Slice(kAIZone, 48).Slice(kRack, 16),
        .requests = {{kNvidiaGpu, 2}},
        .count = 96,
        .want = TA({kDataCenter, kAIZone, kBlock, kRack}, {{{"dc0", "aizone0", "block0", "r0"}, 16}, {{"dc0", "aizone0", "block0", "r1"}, 16}, {{"dc0", "aizone0", "block1", "r2"}, 16}, {{"dc0", "aizone1", "block2", "r4"}, 16}, {{"dc0", "aizone1", "block2", "r5"}, 16}, {{"dc0", "aizone1", "block3", "r6"}, 16}}),
    }},
  };
}

// Go: "multi-layer topology: host slice rounding makes rack slice impossible"
Case Case104() {
  return {
    .name = "multi-layer topology: host slice rounding makes rack slice impossible",
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "3").A(kPods, "10"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "3").A(kPods, "10"),
        N("b1-r1-x3").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x3").A(kCpu, "0").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kRack, 6).Slice(kHostname, 2),
        .requests = {{kCpu, 1000}},
        .count = 6,
        .want_reason = R"(topology "default" doesn't allow to fit; 0/1 slice(s) fit on level cloud.com/topology-rack; 2/3 slice(s) fit on level kubernetes.io/hostname. Total nodes: 3; excluded: resource "cpu": 1)",
    }},
  };
}

// Go: "multi-layer topology: small host kills rack slices despite enough total capacity"
Case Case105() {
  return {
    .name = "multi-layer topology: small host kills rack slices despite enough total capacity",
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "7").A(kPods, "10"),
        N("b1-r1-x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "4").A(kPods, "10"),
        N("b1-r2-x3").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x3").A(kCpu, "7").A(kPods, "10"),
        N("b1-r2-x4").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x4").A(kCpu, "3").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kRack, 8).Slice(kHostname, 4),
        .requests = {{kCpu, 1000}},
        .count = 16,
        .want_reason = R"(topology "default" doesn't allow to fit; 1/2 slice(s) fit on level cloud.com/topology-rack; 3/4 slice(s) fit on level kubernetes.io/hostname)",
    }},
  };
}

// Go: "multi-layer topology: enough hostname slices but not enough rack slices"
Case Case106() {
  return {
    .name = "multi-layer topology: enough hostname slices but not enough rack slices",
    .nodes = {
        N("b1-r1-x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "4").A(kPods, "10"),
        N("b1-r2-x2").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x2").A(kCpu, "4").A(kPods, "10"),
        N("b1-r3-x3").L(kBlock, "b1").L(kRack, "r3").L(kHostname, "x3").A(kCpu, "4").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kBlock).Slice(kRack, 6).Slice(kHostname, 2),
        .requests = {{kCpu, 1000}},
        .count = 12,
        .want_reason = R"(topology "default" doesn't allow to fit; 0/2 slice(s) fit on level cloud.com/topology-rack; 6/6 slice(s) fit on level kubernetes.io/hostname)",
    }},
  };
}

// Go: "multi-layer topology: 3-layer negative case with small hosts cascading up"
Case Case107() {
  return {
    .name = "multi-layer topology: 3-layer negative case with small hosts cascading up",
    .nodes = {
        N("dc1-b1-r1-x1").L(kDataCenter, "dc1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "4").A(kPods, "10"),
        N("dc1-b1-r1-x2").L(kDataCenter, "dc1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "4").A(kPods, "10"),
        N("dc1-b1-r2-x3").L(kDataCenter, "dc1").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x3").A(kCpu, "4").A(kPods, "10"),
        N("dc1-b1-r2-x4").L(kDataCenter, "dc1").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "x4").A(kCpu, "4").A(kPods, "10"),
        N("dc1-b2-r3-x5").L(kDataCenter, "dc1").L(kBlock, "b2").L(kRack, "r3").L(kHostname, "x5").A(kCpu, "4").A(kPods, "10"),
        N("dc1-b2-r3-x6").L(kDataCenter, "dc1").L(kBlock, "b2").L(kRack, "r3").L(kHostname, "x6").A(kCpu, "4").A(kPods, "10"),
        N("dc1-b2-r4-x7").L(kDataCenter, "dc1").L(kBlock, "b2").L(kRack, "r4").L(kHostname, "x7").A(kCpu, "1").A(kPods, "10"),
        N("dc1-b2-r4-x8").L(kDataCenter, "dc1").L(kBlock, "b2").L(kRack, "r4").L(kHostname, "x8").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = {kDataCenter, kBlock, kRack, kHostname},
    .pod_sets = {{
        .topology = TR().Required(kDataCenter).Slice(kBlock, 12).Slice(kRack, 6).Slice(kHostname, 3),
        .requests = {{kCpu, 1000}},
        .count = 24,
        .want_reason = R"(topology "default" doesn't allow to fit; 1/2 slice(s) fit on level cloud.com/topology-block; 3/4 slice(s) fit on level cloud.com/topology-rack; 6/8 slice(s) fit on level kubernetes.io/hostname)",
    }},
  };
}

// Go: "with preferred affinity"
Case Case108() {
  return {
    .name = "with preferred affinity",
    .options = {.respect_node_affinity_preferred = true},
    .nodes = {
        N("node-preferred").L(kRack, "rack-preferred").L(kHostname, "node-preferred").L("region", "us-west").A(kCpu, "1").A(kPods, "10"),
        N("node-other").L(kRack, "rack-other").L(kHostname, "node-other").L("region", "us-east").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = {kRack, kHostname},
    .pod_sets = {{
        .name = "main",
        .topology = TR().Preferred(kRack),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .preferred_affinity = {Pref(10, "region", model::SelectorOperator::kIn, {"us-west"})},
        .want = TA({kHostname}, {{{"node-preferred"}, 1}}),
    }},
  };
}

// Go: "with required and preferred affinity"
Case Case109() {
  return {
    .name = "with required and preferred affinity",
    .options = {.respect_node_affinity_preferred = true},
    .nodes = {
        N("node-preferred").L(kRack, "rack-preferred").L(kHostname, "node-preferred").L("region", "us-west").L("zone", "us").A(kCpu, "1").A(kPods, "10"),
        N("node-other").L(kRack, "rack-other").L(kHostname, "node-other").L("region", "us-east").L("zone", "us").A(kCpu, "1").A(kPods, "10"),
        N("node-excluded").L(kRack, "rack-excluded").L(kHostname, "node-excluded").L("region", "us-west").L("zone", "eu").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = {kRack, kHostname},
    .pod_sets = {{
        .name = "main",
        .topology = TR().Preferred(kRack),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .required_affinity = {Term("zone", model::SelectorOperator::kIn, {"us"})},
        .preferred_affinity = {Pref(10, "region", model::SelectorOperator::kIn, {"us-west"})},
        .want = TA({kHostname}, {{{"node-preferred"}, 1}}),
    }},
  };
}

// Go: "with multiple preferred affinities"
Case Case110() {
  return {
    .name = "with multiple preferred affinities",
    .options = {.respect_node_affinity_preferred = true},
    .nodes = {
        N("node-a").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "node-a").A(kCpu, "1").A(kPods, "10"),
        N("node-b").L(kBlock, "b1").L(kRack, "r2").L(kHostname, "node-b").A(kCpu, "1").A(kPods, "10"),
        N("node-c").L(kBlock, "b2").L(kRack, "r1").L(kHostname, "node-c").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .name = "main",
        .topology = TR().Preferred(kRack),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .preferred_affinity = {Pref(10, kBlock, model::SelectorOperator::kIn, {"b1"}), Pref(100, kRack, model::SelectorOperator::kIn, {"r1"})},
        .want = TA({kHostname}, {{{"node-a"}, 1}}),
    }},
  };
}

// Go: "affinity takes precedence over best fit"
Case Case111() {
  return {
    .name = "affinity takes precedence over best fit",
    .options = {.respect_node_affinity_preferred = true},
    .nodes = {
        N("node-better-fit").L(kHostname, "node-better-fit").L("region", "us-east").A(kCpu, "8").A(kPods, "10"),
        N("node-has-affinity").L(kHostname, "node-has-affinity").L("region", "us-west").A(kCpu, "2").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .name = "main",
        .topology = TR().Preferred(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .preferred_affinity = {Pref(10, "region", model::SelectorOperator::kIn, {"us-west"})},
        .want = TA({kHostname}, {{{"node-has-affinity"}, 1}}),
    }},
  };
}

// Go: "affinity ordering with required topology level chooses secondary domain if primary is too small"
Case Case112() {
  return {
    .name = "affinity ordering with required topology level chooses secondary domain if primary is too small",
    .options = {.respect_node_affinity_preferred = true},
    .nodes = {
        N("node-preferred-small").L(kRack, "rack-preferred").L(kHostname, "node-preferred-small").L("region", "us-west").A(kCpu, "2").A(kPods, "10"),
        N("node-secondary-large-1").L(kRack, "rack-secondary").L(kHostname, "node-secondary-large-1").L("region", "us-east").A(kCpu, "4").A(kPods, "10"),
        N("node-secondary-large-2").L(kRack, "rack-secondary").L(kHostname, "node-secondary-large-2").L("region", "us-east").A(kCpu, "4").A(kPods, "10"),
    },
    .levels = {kRack, kHostname},
    .pod_sets = {{
        .name = "main",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .preferred_affinity = {Pref(10, "region", model::SelectorOperator::kIn, {"us-west"})},
        .want = TA({kHostname}, {{{"node-secondary-large-1"}, 4}}),
    }},
  };
}

// Go: "affinity ordering with preferred inner topology level bubbles up to parent level to avoid splitting across parent domains"
Case Case113() {
  return {
    .name = "affinity ordering with preferred inner topology level bubbles up to parent level to avoid splitting across parent domains",
    .options = {.respect_node_affinity_preferred = true},
    .nodes = {
        N("node-preferred-small").L(kRack, "r1").L("cloud.com/topology-switch", "s1").L(kHostname, "node-preferred-small").L("region", "us-west").A(kCpu, "2").A(kPods, "10"),
        N("node-secondary-large").L(kRack, "r1").L("cloud.com/topology-switch", "s2").L(kHostname, "node-secondary-large").L("region", "us-east").A(kCpu, "4").A(kPods, "10"),
    },
    .levels = {kRack, "cloud.com/topology-switch", kHostname},
    .pod_sets = {{
        .name = "main",
        .topology = TR().Preferred("cloud.com/topology-switch"),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .preferred_affinity = {Pref(10, "region", model::SelectorOperator::kIn, {"us-west"})},
        .want = TA({kHostname}, {{{"node-preferred-small"}, 2}, {{"node-secondary-large"}, 2}}),
    }},
  };
}

// Go: "flat topology, preferred mode, size 5 pods x 1"
Case Case114() {
  return {
    .name = "flat topology, preferred mode, size 5 pods x 1",
    .options = {.respect_node_affinity_preferred = true},
    .nodes = {
        N("node-1-pref-2").L(kHostname, "node-1-pref-2").L("type", "preferred").A(kCpu, "2").A(kPods, "10"),
        N("node-2-pref-1").L(kHostname, "node-2-pref-1").L("type", "preferred").A(kCpu, "1").A(kPods, "10"),
        N("node-3-nonpref-2").L(kHostname, "node-3-nonpref-2").A(kCpu, "2").A(kPods, "10"),
        N("node-4-nonpref-1").L(kHostname, "node-4-nonpref-1").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .name = "main",
        .topology = TR().Preferred(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 5,
        .preferred_affinity = {Pref(10, "type", model::SelectorOperator::kIn, {"preferred"})},
        .want = TA({kHostname}, {{{"node-1-pref-2"}, 2}, {{"node-2-pref-1"}, 1}, {{"node-3-nonpref-2"}, 2}}),
    }},
  };
}

// Go: "flat topology, unconstrained mode, size 5 pods x 1"
Case Case115() {
  return {
    .name = "flat topology, unconstrained mode, size 5 pods x 1",
    .options = {.respect_node_affinity_preferred = true},
    .nodes = {
        N("node-1-pref-2").L(kHostname, "node-1-pref-2").L("type", "preferred").A(kCpu, "2").A(kPods, "10"),
        N("node-2-pref-1").L(kHostname, "node-2-pref-1").L("type", "preferred").A(kCpu, "1").A(kPods, "10"),
        N("node-3-nonpref-2").L(kHostname, "node-3-nonpref-2").A(kCpu, "2").A(kPods, "10"),
        N("node-4-nonpref-1a").L(kHostname, "node-4-nonpref-1a").A(kCpu, "1").A(kPods, "10"),
        N("node-5-nonpref-1b").L(kHostname, "node-5-nonpref-1b").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .name = "main",
        .topology = TR().Unconstrained(true),
        .requests = {{kCpu, 1000}},
        .count = 5,
        .preferred_affinity = {Pref(10, "type", model::SelectorOperator::kIn, {"preferred"})},
        .want = TA({kHostname}, {{{"node-1-pref-2"}, 2}, {{"node-2-pref-1"}, 1}, {{"node-4-nonpref-1a"}, 1}, {{"node-5-nonpref-1b"}, 1}}),
    }},
  };
}

// Go: "flat topology, preferred mode, size 2 pods x 2"
Case Case116() {
  return {
    .name = "flat topology, preferred mode, size 2 pods x 2",
    .options = {.respect_node_affinity_preferred = true},
    .nodes = {
        N("node-1-pref-2").L(kHostname, "node-1-pref-2").L("type", "preferred").A(kCpu, "2").A(kPods, "10"),
        N("node-2-pref-1").L(kHostname, "node-2-pref-1").L("type", "preferred").A(kCpu, "1").A(kPods, "10"),
        N("node-3-nonpref-2a").L(kHostname, "node-3-nonpref-2a").A(kCpu, "2").A(kPods, "10"),
        N("node-4-nonpref-2b").L(kHostname, "node-4-nonpref-2b").A(kCpu, "2").A(kPods, "10"),
        N("node-5-nonpref-1").L(kHostname, "node-5-nonpref-1").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .name = "main",
        .topology = TR().Preferred(kHostname).Slice(kHostname, 2),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .preferred_affinity = {Pref(10, "type", model::SelectorOperator::kIn, {"preferred"})},
        .want = TA({kHostname}, {{{"node-1-pref-2"}, 2}, {{"node-3-nonpref-2a"}, 2}}),
    }},
  };
}

// Go: "flat topology, unconstrained mode, size 2 pods x 2"
Case Case117() {
  return {
    .name = "flat topology, unconstrained mode, size 2 pods x 2",
    .options = {.respect_node_affinity_preferred = true},
    .nodes = {
        N("node-1-pref-2").L(kHostname, "node-1-pref-2").L("type", "preferred").A(kCpu, "2").A(kPods, "10"),
        N("node-2-pref-1").L(kHostname, "node-2-pref-1").L("type", "preferred").A(kCpu, "1").A(kPods, "10"),
        N("node-3-nonpref-2a").L(kHostname, "node-3-nonpref-2a").A(kCpu, "2").A(kPods, "10"),
        N("node-4-nonpref-2b").L(kHostname, "node-4-nonpref-2b").A(kCpu, "2").A(kPods, "10"),
        N("node-5-nonpref-1").L(kHostname, "node-5-nonpref-1").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kOneLevel,
    .pod_sets = {{
        .name = "main",
        .topology = TR().Unconstrained(true).Slice(kHostname, 2),
        .requests = {{kCpu, 1000}},
        .count = 4,
        .preferred_affinity = {Pref(10, "type", model::SelectorOperator::kIn, {"preferred"})},
        .want = TA({kHostname}, {{{"node-1-pref-2"}, 2}, {{"node-3-nonpref-2a"}, 2}}),
    }},
  };
}

// Go: "LWS with leader and workers; preferred affinity on workers; leader cannot fit on preferred zone"
Case Case118() {
  return {
    .name = "LWS with leader and workers; preferred affinity on workers; leader cannot fit on preferred zone",
    .options = {.respect_node_affinity_preferred = true},
    .nodes = {
        N("us-west-1").L("cloud.com/topology-zone", "us-west").L(kHostname, "us-west-1").A(kCpu, "8").A(kMemory, "32Gi").A(kPods, "10").A(kNvidiaGpu, "8"),
        N("us-west-2").L("cloud.com/topology-zone", "us-west").L(kHostname, "us-west-2").A(kCpu, "8").A(kMemory, "32Gi").A(kPods, "10").A(kNvidiaGpu, "8"),
        N("us-east-1").L("cloud.com/topology-zone", "us-east").L(kHostname, "us-east-1").A(kCpu, "32").A(kMemory, "128Gi").A(kPods, "10"),
    },
    .levels = {"cloud.com/topology-zone", kHostname},
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Preferred("cloud.com/topology-zone").Slice(kHostname, 1),
        .requests = {{kCpu, 16000}, {kMemory, 68719476736}},
        .count = 1,
        .group = "llm-group",
        .want = TA({kHostname}, {{{"us-east-1"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Preferred("cloud.com/topology-zone").Slice(kHostname, 1),
        .requests = {{kCpu, 4000}, {kMemory, 34359738368}, {kNvidiaGpu, 8}},
        .count = 2,
        .preferred_affinity = {Pref(10, "cloud.com/topology-zone", model::SelectorOperator::kIn, {"us-west"})},
        .group = "llm-group",
        .want = TA({kHostname}, {{{"us-west-1"}, 1}, {{"us-west-2"}, 1}}),
    }},
  };
}

// Go: "optimize the last domain for LWS using BestFit"
Case Case119() {
  return {
    .name = "optimize the last domain for LWS using BestFit",
    .nodes = {
        N("dom1-node").L("cloud.com/topology-zone", "dom1").L(kRack, "rack1").L(kHostname, "dom1-node").A(kCpu, "10").A(kMemory, "10Gi").A(kPods, "10"),
        N("dom2-node").L("cloud.com/topology-zone", "dom2").L(kRack, "rack2").L(kHostname, "dom2-node").A(kCpu, "6").A(kMemory, "10Gi").A(kPods, "10"),
    },
    .levels = {"cloud.com/topology-zone", kRack, kHostname},
    .pod_sets = {{
        .name = "leader",
        .topology = TR().Required("cloud.com/topology-zone").Slice(kRack, 1),
        .requests = {{kCpu, 1000}, {kMemory, 1073741824}},
        .count = 1,
        .group = "lws",
        .want = TA({kHostname}, {{{"dom2-node"}, 1}}),
    }, {
        .name = "workers",
        .topology = TR().Required("cloud.com/topology-zone").Slice(kRack, 1),
        .requests = {{kCpu, 1000}, {kMemory, 1073741824}},
        .count = 5,
        .group = "lws",
        .want = TA({kHostname}, {{{"dom2-node"}, 5}}),
    }},
  };
}

// Go: "sibling-flavor usage on the shared hostname reduces remaining capacity"
Case Case120() {
  return {
    .name = "sibling-flavor usage on the shared hostname reduces remaining capacity",
    .nodes = {
        N("b1-x1").L(kBlock, "b1").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10"),
        N("b1-x2").L(kBlock, "b1").L(kHostname, "x2").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = {kBlock, kHostname},
    .prior_usage = {{{"x1"}, {{kCpu, 1000}}, 1}},
    .pod_sets = {{
        .name = "main",
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x2"}, 1}}),
    }},
  };
}

// Go: "non-hostname-leaf topology: nil aggregatedDomainUsages preserves per-flavor behavior"
Case Case121() {
  return {
    .name = "non-hostname-leaf topology: nil aggregatedDomainUsages preserves per-flavor behavior",
    .nodes = DefaultNodes(),
    .levels = kTwoLevels,
    .pod_sets = {{
        .name = "main",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kBlock, kRack}, {{{"b1", "r1"}, 1}}),
    }},
  };
}

// Go: "non-hostname-leaf topology: prior c.usage must be applied even when aggregatedDomainUsages is non-nil empty"
Case Case122() {
  return {
    .name = "non-hostname-leaf topology: prior c.usage must be applied even when aggregatedDomainUsages is non-nil empty",
    .nodes = {
        N("b1-r1").L(kBlock, "b1").L(kRack, "r1").A(kCpu, "1").A(kPods, "10"),
        N("b1-r2").L(kBlock, "b1").L(kRack, "r2").A(kCpu, "1").A(kPods, "10"),
        N("b2-r1").L(kBlock, "b2").L(kRack, "r1").A(kCpu, "1").A(kPods, "10"),
        N("b2-r2").L(kBlock, "b2").L(kRack, "r2").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kTwoLevels,
    .prior_usage = {{{"b1", "r1"}, {{kCpu, 1000}}, 1}, {{"b1", "r2"}, {{kCpu, 1000}}, 1}},
    .pod_sets = {{
        .name = "main",
        .topology = TR().Required(kRack),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kBlock, kRack}, {{{"b2", "r1"}, 1}}),
    }},
  };
}

// Go: "stable tie break on identical nodes: TASBalancedPlacement enabled"
Case Case123() {
  return {
    .name = "stable tie break on identical nodes: TASBalancedPlacement enabled",
    .options = {.balanced_placement = true},
    .nodes = {
        N("x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "1").A(kPods, "10"),
        N("x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x1"}, 1}}),
    }},
  };
}

// Go: "stable tie break on identical nodes: TASBalancedPlacement disabled"
Case Case124() {
  return {
    .name = "stable tie break on identical nodes: TASBalancedPlacement disabled",
    .nodes = {
        N("x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "1").A(kPods, "10"),
        N("x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x1"}, 1}}),
    }},
  };
}

// Go: "stable tie break on identical nodes: reversed order, TASBalancedPlacement enabled"
Case Case125() {
  return {
    .name = "stable tie break on identical nodes: reversed order, TASBalancedPlacement enabled",
    .options = {.balanced_placement = true},
    .nodes = {
        N("x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10"),
        N("x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x1"}, 1}}),
    }},
  };
}

// Go: "stable tie break on identical nodes: reversed order, TASBalancedPlacement disabled"
Case Case126() {
  return {
    .name = "stable tie break on identical nodes: reversed order, TASBalancedPlacement disabled",
    .nodes = {
        N("x1").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x1").A(kCpu, "1").A(kPods, "10"),
        N("x2").L(kBlock, "b1").L(kRack, "r1").L(kHostname, "x2").A(kCpu, "1").A(kPods, "10"),
    },
    .levels = kThreeLevels,
    .pod_sets = {{
        .topology = TR().Required(kHostname),
        .requests = {{kCpu, 1000}},
        .count = 1,
        .want = TA({kHostname}, {{{"x1"}, 1}}),
    }},
  };
}
// clang-format on

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      Case000(), Case001(), Case002(), Case003(), Case004(), Case005(), Case006(), Case007(),
      Case008(), Case009(), Case010(), Case011(), Case012(), Case013(), Case014(), Case015(),
      Case016(), Case017(), Case018(), Case019(), Case020(), Case021(), Case022(), Case023(),
      Case024(), Case025(), Case026(), Case027(), Case028(), Case029(), Case030(), Case031(),
      Case032(), Case033(), Case034(), Case035(), Case036(), Case037(), Case038(), Case039(),
      Case040(), Case041(), Case042(), Case043(), Case044(), Case045(), Case046(), Case047(),
      Case048(), Case049(), Case050(), Case051(), Case052(), Case053(), Case054(), Case055(),
      Case056(), Case057(), Case058(), Case059(), Case060(), Case061(), Case062(), Case063(),
      Case064(), Case065(), Case066(), Case067(), Case068(), Case069(), Case070(), Case071(),
      Case072(), Case073(), Case074(), Case075(), Case076(), Case077(), Case078(), Case079(),
      Case080(), Case081(), Case082(), Case083(), Case084(), Case085(), Case086(), Case087(),
      Case088(), Case089(), Case090(), Case091(), Case092(), Case093(), Case094(), Case095(),
      Case096(), Case097(), Case098(), Case099(), Case100(), Case101(), Case102(), Case103(),
      Case104(), Case105(), Case106(), Case107(), Case108(), Case109(), Case110(), Case111(),
      Case112(), Case113(), Case114(), Case115(), Case116(), Case117(), Case118(), Case119(),
      Case120(), Case121(), Case122(), Case123(), Case124(), Case125(), Case126(),
  };
  return cases;
}

class FindTopologyAssignmentsTest : public ::testing::TestWithParam<size_t> {};

TEST_P(FindTopologyAssignmentsTest, MatchesKueue) {
  const Case& c = Cases()[GetParam()];
  SCOPED_TRACE(c.name);
  RunCase(c);
}

INSTANTIATE_TEST_SUITE_P(Kueue, FindTopologyAssignmentsTest,
                         ::testing::Range<size_t>(0, Cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& param_info) {
                           return ParamName(Cases()[param_info.param].name, param_info.param);
                         });

}  // namespace
}  // namespace kueuesim::topology
