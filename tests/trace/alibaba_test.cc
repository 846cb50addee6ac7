// Tests for alibaba-gpu-2023 (src/trace/alibaba.cc) on real rows of the
// Alibaba PAI openb pod lists (tests/trace/testdata: the first 100 rows of
// openb_pod_list_gpuspec33.csv, rows 1080-1109 of the unsorted
// openb_pod_list_gpushare100.csv, 20 rows of the node lists) and on broken
// rows.
#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/time.h"
#include "testing/status_matchers.h"
#include "trace/trace_test_util.h"

namespace kueuesim::trace {
namespace {

using ::kueuesim::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using namespace ::kueuesim::trace::testing;  // NOLINT

constexpr int64_t kMiB = 1024 * 1024;

// Setup: the first 100 real rows of openb_pod_list_gpuspec33.csv (sorted by
// creation_time; 5 Pending pods never scheduled). Expectation: 95
// workloads in namespace "alibaba", queue "main", arrival = creation_time,
// duration = deletion - scheduled; the 5 Pending rows skipped as "never
// scheduled" with their line numbers.
TEST(AlibabaGpu2023Test, RealRowsDefaultMapping) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r,
                                ReadAll(Spec("alibaba-gpu-2023", TestData("alibaba_gpuspec33_head.csv"))));
  EXPECT_EQ(r.report.rows_read, 100);
  ASSERT_EQ(r.workloads.size(), 95u);
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("never scheduled", 5)));
  EXPECT_THAT(r.report.examples,
              ElementsAre("line 63: skipped: never scheduled", "line 86: skipped: never scheduled",
                          "line 92: skipped: never scheduled", "line 98: skipped: never scheduled",
                          "line 99: skipped: never scheduled"));
  EXPECT_TRUE(ArrivalsSorted(r.workloads));
  // openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0
  const model::Workload& first = r.workloads[0];
  EXPECT_EQ(first.meta.name, "openb-pod-0000");
  EXPECT_EQ(first.meta.namespace_, "alibaba");
  EXPECT_EQ(first.queue_name, "main");
  EXPECT_EQ(first.arrival, 0);
  EXPECT_EQ(first.duration, 12537496 * kSecond);
  EXPECT_EQ(first.priority, 1000);  // LS
  EXPECT_EQ(Request(first, "cpu"), 12000);
  EXPECT_EQ(Request(first, "memory"), 16384 * kMiB);
  EXPECT_EQ(Request(first, "nvidia.com/gpu"), 1);
  EXPECT_EQ(Request(first, "alibaba.com/gpu-milli"), -1);
  // openb-pod-0001,6000,12288,1,460,,LS,...: a fractional GPU.
  const model::Workload* fractional = Find(r.workloads, "openb-pod-0001");
  ASSERT_NE(fractional, nullptr);
  EXPECT_EQ(Request(*fractional, "alibaba.com/gpu-milli"), 460);
  EXPECT_EQ(Request(*fractional, "nvidia.com/gpu"), -1);
  EXPECT_EQ(fractional->arrival, 427061 * kSecond);
  // openb-pod-0005,20000,65536,0,0,,LS,...: CPU only.
  const model::Workload* cpu_only = Find(r.workloads, "openb-pod-0005");
  ASSERT_NE(cpu_only, nullptr);
  ASSERT_EQ(cpu_only->pod_sets[0].requests.size(), 2u);
  // openb-pod-0017,88000,327680,8,1000,G2,Burstable,Succeeded,...: 8 GPUs on G2.
  const model::Workload* big = Find(r.workloads, "openb-pod-0017");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(Request(*big, "nvidia.com/gpu"), 8);
  EXPECT_EQ(big->priority, 500);
  EXPECT_THAT(big->pod_sets[0].rare->node_selector, ElementsAre(Pair("gpu-model", "G2")));
  EXPECT_EQ(big->duration, (10769854 - 9437497) * kSecond);
  // openb-pod-0022 is BE.
  EXPECT_EQ(Find(r.workloads, "openb-pod-0022")->priority, 100);
  // Counts over the 95: 33 fractional, 56 whole-GPU, 6 CPU-only pods.
  int fractional_count = 0, whole = 0, cpu = 0;
  for (const auto& wl : r.workloads) {
    if (Request(wl, "alibaba.com/gpu-milli") > 0) ++fractional_count;
    else if (Request(wl, "nvidia.com/gpu") > 0) ++whole;
    else ++cpu;
  }
  EXPECT_EQ(fractional_count, 33);
  EXPECT_EQ(whole, 56);
  EXPECT_EQ(cpu, 6);
}

// Setup: rows with gpu_spec "V100M16|V100M32" and
// "G2|P100|T4|V100M16|V100M32" (openb-pod-0009, -0021), and "T4"
// (openb-pod-0012). Expectation: multi-model specs become one required
// node-affinity term gpu-model In [...]; a single model a nodeSelector.
// Over the 95: 9 affinity terms and 19 selectors.
TEST(AlibabaGpu2023Test, GpuSpecBecomesSelectorOrAffinity) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r,
                                ReadAll(Spec("alibaba-gpu-2023", TestData("alibaba_gpuspec33_head.csv"))));
  const model::Workload* two = Find(r.workloads, "openb-pod-0009");
  ASSERT_NE(two, nullptr);
  ASSERT_EQ(two->pod_sets[0].rare->required_affinity.size(), 1u);
  const auto& requirement = two->pod_sets[0].rare->required_affinity[0].match_expressions.at(0);
  EXPECT_EQ(requirement.key, "gpu-model");
  EXPECT_EQ(requirement.op, model::SelectorOperator::kIn);
  EXPECT_THAT(requirement.values, ElementsAre("V100M16", "V100M32"));
  const model::Workload* five = Find(r.workloads, "openb-pod-0021");
  EXPECT_THAT(five->pod_sets[0].rare->required_affinity[0].match_expressions[0].values,
              ElementsAre("G2", "P100", "T4", "V100M16", "V100M32"));
  EXPECT_THAT(Find(r.workloads, "openb-pod-0012")->pod_sets[0].rare->node_selector, ElementsAre(Pair("gpu-model", "T4")));
  int affinity = 0, selector = 0;
  for (const auto& wl : r.workloads) {
    affinity += wl.pod_sets[0].rare->required_affinity.empty() ? 0 : 1;
    selector += wl.pod_sets[0].rare->node_selector.empty() ? 0 : 1;
  }
  EXPECT_EQ(affinity, 9);
  EXPECT_EQ(selector, 19);
}

// Setup: the real rows again; the trace's own wait statistics from the
// kueuesim.io/recorded-wait annotation. Expectation: the values of the
// file (scheduled - creation): mean 115.43 s, median 0, max 7338 s at
// openb-pod-0012 (6595531 - 6588193).
TEST(AlibabaGpu2023Test, RecordedWaitMatchesTheTrace) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r,
                                ReadAll(Spec("alibaba-gpu-2023", TestData("alibaba_gpuspec33_head.csv"))));
  std::vector<SimDuration> waits;
  for (const auto& wl : r.workloads) {
    auto parsed = ParseDuration(wl.meta.annotations.at("kueuesim.io/recorded-wait"));
    ASSERT_TRUE(parsed.ok());
    waits.push_back(*parsed);
  }
  SimDuration total = 0;
  for (SimDuration w : waits) total += w;
  EXPECT_EQ(total, 10966 * kSecond);
  std::sort(waits.begin(), waits.end());
  EXPECT_EQ(waits[waits.size() / 2], 0);
  EXPECT_EQ(waits.back(), 7338 * kSecond);
  EXPECT_EQ(Find(r.workloads, "openb-pod-0012")->meta.annotations.at("kueuesim.io/recorded-wait"), "2h2m18s");
}

// Setup: 30 real rows of openb_pod_list_gpushare100.csv, whose
// creation_time is out of order (4 never scheduled). Expectation: 26
// workloads in creation order: openb-pod-1090 (9960736 s) first,
// openb-pod-1087 (12454251 s) last.
TEST(AlibabaGpu2023Test, UnsortedRealRowsAreSorted) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(
      ReadResult r, ReadAll(Spec("alibaba-gpu-2023", TestData("alibaba_gpushare100_rows1080_1109.csv"))));
  ASSERT_EQ(r.workloads.size(), 26u);
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("never scheduled", 4)));
  EXPECT_TRUE(ArrivalsSorted(r.workloads));
  EXPECT_EQ(r.workloads.front().meta.name, "openb-pod-1090");
  EXPECT_EQ(r.workloads.front().arrival, 9960736 * kSecond);
  EXPECT_EQ(r.workloads.back().meta.name, "openb-pod-1087");
  EXPECT_EQ(r.workloads[1].meta.name, "openb-pod-1099");
}

// Setup: mapping overrides and options on real rows: namespace from qos
// with a prefix, a constant priority class, flavorLabel on another label,
// other GPU resource names. Expectation: the overrides win over the
// defaults.
TEST(AlibabaGpu2023Test, MappingAndOptionOverrides) {
  TraceSpec spec = Spec("alibaba-gpu-2023", TestData("alibaba_gpuspec33_head.csv"));
  spec.mapping["namespace"].field = "qos";
  spec.mapping["namespace"].prefix = "qos-";
  spec.mapping["priority"].value = "7";
  spec.mapping["flavorLabel"].field = "gpu_spec";
  spec.mapping["flavorLabel"].label = "example.com/accelerator";
  spec.options["gpuResource"] = "example.com/gpu";
  spec.options["gpuMilliResource"] = "example.com/gpu-share";
  spec.limit = 25;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  ASSERT_EQ(r.workloads.size(), 25u);
  EXPECT_EQ(r.workloads[0].meta.namespace_, "qos-LS");
  EXPECT_EQ(r.workloads[0].priority, 7);
  EXPECT_EQ(Request(r.workloads[0], "example.com/gpu"), 1);
  EXPECT_EQ(Request(r.workloads[1], "example.com/gpu-share"), 460);
  EXPECT_THAT(Find(r.workloads, "openb-pod-0012")->pod_sets[0].rare->node_selector,
              ElementsAre(Pair("example.com/accelerator", "T4")));
  EXPECT_EQ(Find(r.workloads, "openb-pod-0022")->meta.namespace_, "qos-BE");
}

// Setup: broken rows: bad cpu, negative memory, num_gpu not a number,
// gpu_milli above 1000, unparsable and negative times, deletion before
// scheduling, scheduled before creation, num_gpu 0 with gpu_milli set,
// missing deletion time, too few fields. Expectation: skips and repairs
// counted by reason with line numbers; repaired rows kept.
TEST(AlibabaGpu2023Test, BrokenRows) {
  const std::string header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
      "scheduled_time\n";
  const std::string path = WriteTemp("alibaba_broken.csv",
                                     header +
                                         "ok,1000,1024,1,1000,,LS,Running,0,100,10\n"            // 2
                                         "p1,lots,1024,1,1000,,LS,Running,1,100,10\n"            // 3
                                         "p2,1000,-1,1,1000,,LS,Running,1,100,10\n"              // 4
                                         "p3,1000,1024,one,1000,,LS,Running,1,100,10\n"          // 5
                                         "p4,1000,1024,1,1500,,LS,Running,1,100,10\n"            // 6
                                         "p5,1000,1024,1,1000,,LS,Running,yesterday,100,10\n"    // 7
                                         "p6,1000,1024,1,1000,,LS,Running,-5,100,10\n"           // 8
                                         "p7,1000,1024,1,1000,,LS,Running,1,5,10\n"              // 9
                                         "p8,1000,1024,1,1000,,LS,Running,20,100,10\n"           // 10 repaired
                                         "p9,1000,1024,0,500,,BE,Running,30,100,30\n"            // 11 repaired
                                         "p10,1000,1024,1,1000,,BE,Running,40,,40\n"             // 12 repaired
                                         "p11,1000,1024,1,1000,,BE,Running,50,60\n");            // 13 too few fields
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("alibaba-gpu-2023", path)));
  EXPECT_EQ(r.report.rows_read, 12);
  ASSERT_EQ(r.workloads.size(), 4u);
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("bad cpu_milli", 1), Pair("bad creation_time", 2),
                                            Pair("bad gpu_milli", 1), Pair("bad memory_mib", 1),
                                            Pair("bad num_gpu", 1), Pair("negative duration", 1),
                                            Pair("too few fields", 1)));
  EXPECT_THAT(r.report.repaired, ElementsAre(Pair("gpu_milli without num_gpu (ignored)", 1),
                                             Pair("no deletion_time (runs until the end)", 1),
                                             Pair("scheduled before creation (recorded wait 0)", 1)));
  EXPECT_EQ(Find(r.workloads, "p8")->meta.annotations.at("kueuesim.io/recorded-wait"), "0s");
  EXPECT_FALSE(Find(r.workloads, "p10")->duration.has_value());
  EXPECT_EQ(Request(*Find(r.workloads, "p9"), "nvidia.com/gpu"), -1);
  EXPECT_THAT(r.report.examples.front(), HasSubstr("line 3: skipped: bad cpu_milli"));
}

// Setup: the multigpu50 layout (no time columns). Expectation: an error
// naming the missing columns.
TEST(AlibabaGpu2023Test, FileWithoutTimesIsRefused) {
  const std::string path = WriteTemp("multigpu50.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nx,1,1,1,1000\n");
  EXPECT_THAT(ReadAll(Spec("alibaba-gpu-2023", path)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("lacks column(s) creation_time, deletion_time, scheduled_time")));
}

// Setup: GeneratedObjectsFor with options.nodes = 20 real rows of
// openb_node_list_all_node.csv (its first 5 CPU nodes and first 15 GPU
// nodes). Expectation: 20 Nodes with hostname and
// gpu-model labels, allocatable cpu/memory/pods and, on GPU nodes, GPUs
// and GPU milli-units; without options.nodes, no objects.
TEST(AlibabaGpu2023Test, NodesFromNodeList) {
  TraceSpec spec = Spec("alibaba-gpu-2023", TestData("alibaba_gpuspec33_head.csv"));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(GeneratedObjects none, GeneratedObjectsFor(spec));
  EXPECT_TRUE(none.nodes.empty());
  spec.options["nodes"] = TestData("alibaba_nodes.csv");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(GeneratedObjects objects, GeneratedObjectsFor(spec));
  ASSERT_EQ(objects.nodes.size(), 20u);
  // openb-node-0000,32000,262144,0, (a CPU node)
  const model::Node& cpu_node = objects.nodes[0];
  EXPECT_EQ(cpu_node.name, "openb-node-0000");
  EXPECT_THAT(cpu_node.AllLabels(), ElementsAre(Pair("kubernetes.io/hostname", "openb-node-0000")));
  EXPECT_THAT(cpu_node.allocatable(),
              ElementsAre(Pair("cpu", 32000), Pair("memory", 262144 * kMiB), Pair("pods", 110)));
  // openb-node-0123,64000,262144,2,P100 (the sixth row).
  const model::Node& gpu_node = objects.nodes[5];
  EXPECT_THAT(gpu_node.AllLabels(), ElementsAre(Pair("gpu-model", "P100"), Pair("kubernetes.io/hostname", gpu_node.name)));
  EXPECT_EQ(gpu_node.allocatable().at("nvidia.com/gpu"), 2);
  EXPECT_EQ(gpu_node.allocatable().at("alibaba.com/gpu-milli"), 2000);
  EXPECT_EQ(gpu_node.allocatable().at("cpu"), 64000);
  // Nodes of one shape share their template.
  for (const auto& node : objects.nodes) {
    const std::string* gpu_model = node.FindLabel("gpu-model");
    if (node.allocatable() == gpu_node.allocatable() && gpu_model != nullptr && *gpu_model == "P100") {
      EXPECT_EQ(node.shared.get(), gpu_node.shared.get()) << node.name;
    }
  }
  spec.options["nodes"] = WriteTemp("bad_nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,8000,x,0,\n");
  EXPECT_THAT(GeneratedObjectsFor(spec),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bad_nodes.csv:2: options.nodes: bad memory_mib")));
}

}  // namespace
}  // namespace kueuesim::trace
