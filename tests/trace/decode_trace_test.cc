// Tests for scenario::DecodeTrace (src/scenario/decode_trace.cc): the
// kueuesim.io/v1alpha1 Trace object, its defaults, path resolution, and
// errors naming file:line, the object and the field path. Also opens the
// scenarios/kueue-perf/baseline.yaml Trace end to end.
#include "scenario/decode_trace.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/time.h"
#include "kueuesim/doc/reader.h"
#include "kueuesim/trace/importers.h"
#include "testing/status_matchers.h"
#include "trace/trace_test_util.h"

namespace kueuesim::scenario {
namespace {

using ::kueuesim::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

absl::StatusOr<trace::TraceSpec> Decode(const std::string& yaml, const std::string& base_dir = "/scenarios/x") {
  auto docs = doc::ReadAllFromString(yaml, "scenario.yaml");
  if (!docs.ok()) return docs.status();
  FieldReader object((*docs)[0].root(), std::make_shared<const std::string>("Trace \"t\""), "");
  return DecodeTrace(object, base_dir);
}

// Setup: a Trace with every field. Expectation: each decoded: the path and
// options.nodes resolved against the scenario's directory, mappings with
// values/default/prefix/label, scales, window, limit, options as strings.
TEST(DecodeTraceTest, EveryField) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(trace::TraceSpec spec, Decode(R"(apiVersion: kueuesim.io/v1alpha1
kind: Trace
metadata:
  name: alibaba
spec:
  format: alibaba-gpu-2023
  path: ../traces/pods.csv
  cluster: worker-1
  mapping:
    namespace: {field: qos, prefix: qos-, default: other}
    queue: {value: main}
    priority: {field: qos, values: {LS: "1000", BE: 100}}
    flavorLabel: {field: gpu_spec, label: gpu-model}
  scale: {arrival: "2", duration: 0.5}
  window: {start: 1h, end: 7d}
  limit: 10000
  options: {gpuResource: nvidia.com/gpu, nodes: nodes.csv, gpusPerPod: 8}
)"));
  EXPECT_EQ(spec.name, "alibaba");
  EXPECT_EQ(spec.source.file, "scenario.yaml");
  EXPECT_EQ(spec.source.line, 1);
  EXPECT_EQ(spec.format, "alibaba-gpu-2023");
  EXPECT_EQ(spec.path, "/scenarios/traces/pods.csv");
  EXPECT_EQ(spec.cluster, "worker-1");
  ASSERT_EQ(spec.mapping.size(), 4u);
  EXPECT_EQ(spec.mapping["namespace"].field, "qos");
  EXPECT_EQ(spec.mapping["namespace"].prefix, "qos-");
  EXPECT_EQ(spec.mapping["namespace"].default_value, "other");
  EXPECT_EQ(spec.mapping["queue"].value, "main");
  EXPECT_THAT(spec.mapping["priority"].values, ElementsAre(Pair("BE", "100"), Pair("LS", "1000")));
  EXPECT_EQ(spec.mapping["flavorLabel"].label, "gpu-model");
  EXPECT_EQ(spec.arrival_scale, 2.0);
  EXPECT_EQ(spec.duration_scale, 0.5);
  EXPECT_EQ(spec.window_start, kHour);
  EXPECT_EQ(spec.window_end, 7 * 24 * kHour);
  EXPECT_EQ(spec.limit, 10000);
  EXPECT_THAT(spec.options, ElementsAre(Pair("gpuResource", "nvidia.com/gpu"), Pair("gpusPerPod", "8"),
                                        Pair("nodes", "/scenarios/x/nodes.csv")));
}

// Setup: a minimal Trace (format and path; absolute path) with the cluster
// in the kueuesim.io/cluster annotation. Expectation: defaults: scales 1,
// no window, no limit, no mapping; the path kept; the annotation's cluster.
TEST(DecodeTraceTest, MinimalAndDefaults) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(trace::TraceSpec spec, Decode(R"(apiVersion: kueuesim.io/v1alpha1
kind: Trace
metadata:
  name: p
  annotations: {kueuesim.io/cluster: east}
spec:
  format: philly
  path: /data/philly.csv
)"));
  EXPECT_EQ(spec.path, "/data/philly.csv");
  EXPECT_EQ(spec.cluster, "east");
  EXPECT_EQ(spec.arrival_scale, 1.0);
  EXPECT_EQ(spec.duration_scale, 1.0);
  EXPECT_FALSE(spec.window_start.has_value());
  EXPECT_FALSE(spec.limit.has_value());
  EXPECT_TRUE(spec.mapping.empty());
}

// Setup: Traces with one mistake each. Expectation: an error naming
// scenario.yaml, the line, the object and the field path.
TEST(DecodeTraceTest, Errors) {
  const std::string head = "apiVersion: kueuesim.io/v1alpha1\nkind: Trace\nmetadata:\n  name: t\nspec:\n";
  auto expect_error = [&](const std::string& spec, const std::string& message) {
    EXPECT_THAT(Decode(head + spec), StatusIs(absl::StatusCode::kInvalidArgument,
                                              AllOf(HasSubstr("scenario.yaml:"), HasSubstr("Trace \"t\""),
                                                    HasSubstr(message))))
        << spec;
  };
  expect_error("  path: x.csv\n", "spec.format: is required");
  expect_error("  format: csv\n  path: x.csv\n", "spec.format: unknown format \"csv\" (valid: native-csv");
  expect_error("  format: philly\n", "spec.path: is required");
  expect_error("  format: philly\n  path: x\n  limits: 3\n", "spec.limits: unknown field");
  expect_error("  format: philly\n  path: x\n  mapping: {user: {value: a}}\n", "spec.mapping.user: unknown field");
  expect_error("  format: philly\n  path: x\n  mapping: {queue: {value: a, field: b}}\n",
               "spec.mapping.queue: set either value or field");
  expect_error("  format: philly\n  path: x\n  mapping: {queue: {prefix: a}}\n", "needs a value or a field");
  expect_error("  format: philly\n  path: x\n  mapping: {flavorLabel: {field: a}}\n",
               "spec.mapping.flavorLabel.label: is required");
  expect_error("  format: philly\n  path: x\n  mapping: {priority: {value: high}}\n",
               "spec.mapping.priority.value: \"high\" is not an integer");
  expect_error("  format: philly\n  path: x\n  mapping: {queue: {value: a, lable: b}}\n",
               "spec.mapping.queue.lable: unknown field");
  expect_error("  format: philly\n  path: x\n  scale: {arrival: 0}\n", "spec.scale.arrival: must be a positive number");
  expect_error("  format: philly\n  path: x\n  scale: {duration: fast}\n", "spec.scale.duration: \"fast\" is not a number");
  expect_error("  format: philly\n  path: x\n  window: {start: 2d, end: 1d}\n", "spec.window.end: must be after");
  expect_error("  format: philly\n  path: x\n  window: {start: yesterday}\n", "spec.window.start: malformed duration");
  expect_error("  format: philly\n  path: x\n  limit: -1\n", "spec.limit: must not be negative");
  expect_error("  format: philly\n  path: x\n  options: {gpusPerPod: [8]}\n", "spec.options.gpusPerPod: must be a string");
}

// Setup: scenarios/kueue-perf/baseline.yaml decoded with its own directory
// as base, then opened. Expectation: the format and the resolved path of
// the generator copy; 15,000 workloads and 30 ClusterQueues.
TEST(DecodeTraceTest, KueuePerfBaselineScenario) {
  const std::string dir = trace::testing::SourceDir() + "/scenarios/kueue-perf";
  auto docs = doc::ReadAllFromFile(dir + "/baseline.yaml");
  ASSERT_TRUE(docs.ok()) << docs.status();
  ASSERT_EQ(docs->size(), 1u);
  FieldReader object((*docs)[0].root(), std::make_shared<const std::string>("Trace \"kueue-perf-baseline\""), "");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(trace::TraceSpec spec, DecodeTrace(object, dir));
  EXPECT_EQ(spec.format, "kueue-perf-generator");
  EXPECT_EQ(std::filesystem::path(spec.path).filename(), "generator-baseline.yaml");
  EXPECT_EQ(std::filesystem::path(spec.path).parent_path().filename(), "kueue-perf");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(trace::GeneratedObjects objects, trace::GeneratedObjectsFor(spec));
  EXPECT_EQ(objects.cluster_queues.size(), 30u);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(trace::testing::ReadResult r, trace::testing::ReadAll(spec));
  EXPECT_EQ(r.workloads.size(), 15000u);
}

}  // namespace
}  // namespace kueuesim::scenario
