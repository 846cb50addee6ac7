// Tests for kueue-workloads (src/trace/kueue_workloads.cc): a `kubectl get
// workloads -A -o json` List (tests/trace/testdata/kueue_workloads.json,
// hand-written in kubectl's layout: a finished, a pending and a running
// Workload out of creation order, v1beta1 and v1beta2 spellings, and items
// to skip), a bare array, and malformed input.
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
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using namespace ::kueuesim::trace::testing;  // NOLINT

// Setup: the List. Expectation: job-b (created 09:59), job-a (10:00) and
// job-c (10:01) in creation order at 0, 60 s, 120 s; the ConfigMap, the
// unparsable creationTimestamp, the workload finished without admission
// and the one without a queue skipped by reason, with the line of their
// item.
TEST(KueueWorkloadsTest, ListIsReadInCreationOrder) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("kueue-workloads", TestData("kueue_workloads.json"))));
  EXPECT_EQ(r.report.rows_read, 7);
  ASSERT_EQ(r.workloads.size(), 3u);
  EXPECT_EQ(r.workloads[0].meta.name, "job-b");
  EXPECT_EQ(r.workloads[1].meta.name, "job-a");
  EXPECT_EQ(r.workloads[2].meta.name, "job-c");
  EXPECT_EQ(r.workloads[0].arrival, 0);
  EXPECT_EQ(r.workloads[1].arrival, kMinute);
  EXPECT_EQ(r.workloads[2].arrival, 2 * kMinute);
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("bad metadata.creationTimestamp", 1),
                                            Pair("finished without admission", 1), Pair("no queue name", 1),
                                            Pair("not a Workload (kind ConfigMap)", 1)));
  EXPECT_THAT(r.report.examples, ElementsAre("line 115: skipped: not a Workload (kind ConfigMap)",
                                             "line 120: skipped: bad metadata.creationTimestamp",
                                             "line 126: skipped: finished without admission",
                                             "line 135: skipped: no queue name"));
  EXPECT_EQ(r.workloads[1].meta.source.line, 4);
}

// Setup: job-a, finished: Admitted 10:00:06, Finished 10:10:06; two
// containers (500m cpu + 1Gi; limits only: 1 cpu, 1 GPU) and an init
// container of 2 cpu; admitted to cq-a on flavors default/a100.
// Expectation: duration 10 m; per-pod requests cpu 2 (max of 1.5 and the
// init container's 2), memory 1Gi, GPU 1; count 2; the recorded admission
// in annotations; kubectl's last-applied annotation dropped.
TEST(KueueWorkloadsTest, FinishedWorkload) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("kueue-workloads", TestData("kueue_workloads.json"))));
  const model::Workload* a = Find(r.workloads, "job-a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->meta.namespace_, "team-a");
  EXPECT_EQ(a->queue_name, "q-a");
  EXPECT_EQ(a->priority, 100);
  EXPECT_EQ(a->duration, 10 * kMinute);
  ASSERT_EQ(a->pod_sets.size(), 1u);
  EXPECT_EQ(a->pod_sets[0].count, 2);
  EXPECT_EQ(Request(*a, "cpu"), 2000);
  EXPECT_EQ(Request(*a, "memory"), int64_t{1} << 30);
  EXPECT_EQ(Request(*a, "nvidia.com/gpu"), 1);
  EXPECT_THAT(a->meta.labels, ElementsAre(Pair("app", "trainer")));
  EXPECT_THAT(a->meta.annotations,
              ElementsAre(Pair("kueuesim.io/recorded-cluster-queue", "cq-a"),
                          Pair("kueuesim.io/recorded-creation", "2025-03-01T10:00:00Z"),
                          Pair("kueuesim.io/recorded-flavors", "cpu=default,memory=default,nvidia.com/gpu=a100"),
                          Pair("kueuesim.io/recorded-wait", "6s"), Pair("team", "a")));
  EXPECT_FALSE(a->meta.creation_timestamp.has_value());
  EXPECT_FALSE(a->admission.has_value());
}

// Setup: job-b, pending (no status), v1beta2 priorityClassRef, minCount,
// nodeSelector, toleration and required node affinity; job-c, v1beta1,
// admitted but not finished, queue from the label, a scheduling.k8s.io
// priority class. Expectation: no duration for either; the pod template's
// scheduling constraints kept; priority class sources as written.
TEST(KueueWorkloadsTest, PendingAndRunningWorkloads) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("kueue-workloads", TestData("kueue_workloads.json"))));
  const model::Workload* b = Find(r.workloads, "job-b");
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->duration.has_value());
  EXPECT_EQ(b->priority, 1000);
  EXPECT_EQ(b->priority_class_name, "high");
  EXPECT_EQ(b->rare->priority_class_source, "kueue.x-k8s.io/workloadpriorityclass");
  EXPECT_EQ(b->meta.annotations.count("kueuesim.io/recorded-wait"), 0u);
  const model::PodSet& workers = b->pod_sets.at(0);
  EXPECT_EQ(workers.name, "workers");
  EXPECT_EQ(workers.count, 4);
  EXPECT_EQ(workers.min_count, 2);
  EXPECT_EQ(Request(*b, "cpu"), 1000);
  EXPECT_THAT(workers.rare->node_selector, ElementsAre(Pair("pool", "spot")));
  ASSERT_EQ(workers.rare->tolerations.size(), 1u);
  EXPECT_EQ(workers.rare->tolerations[0].key, "spot");
  EXPECT_EQ(workers.rare->tolerations[0].op, model::TolerationOperator::kExists);
  ASSERT_EQ(workers.rare->required_affinity.size(), 1u);
  EXPECT_THAT(workers.rare->required_affinity[0].match_expressions.at(0).values, ElementsAre("z1", "z2"));
  const model::Workload* c = Find(r.workloads, "job-c");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->queue_name, "q-c");
  EXPECT_FALSE(c->duration.has_value());
  EXPECT_EQ(c->priority, 0);
  EXPECT_EQ(c->priority_class_name, "system-low");
  EXPECT_EQ(c->rare->priority_class_source, "scheduling.k8s.io/priorityclass");
  EXPECT_EQ(c->meta.annotations.at("kueuesim.io/recorded-wait"), "1m0s");
  EXPECT_EQ(c->meta.annotations.count("kueuesim.io/recorded-flavors"), 0u);
  EXPECT_EQ(c->pod_sets[0].name, "main");
  EXPECT_TRUE(c->pod_sets[0].requests.empty());
}

// Setup: mapping overrides reading metadata (a label, the namespace) and
// a limit of 2. Expectation: queue from the app label with a default,
// namespace prefixed; only the first two by creation time.
TEST(KueueWorkloadsTest, MappingAndLimit) {
  TraceSpec spec = Spec("kueue-workloads", TestData("kueue_workloads.json"));
  spec.mapping["queue"].field = "labels.app";
  spec.mapping["queue"].default_value = "fallback";
  spec.mapping["namespace"].field = "namespace";
  spec.mapping["namespace"].prefix = "replay-";
  spec.limit = 2;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].queue_name, "fallback");
  EXPECT_EQ(r.workloads[0].meta.namespace_, "replay-team-b");
  EXPECT_EQ(r.workloads[1].queue_name, "trainer");
  // job-no-queue now has a queue: 4 valid in the window, 2 beyond the limit.
  EXPECT_EQ(r.report.skipped.at("beyond the limit"), 2);
}

// Setup: a bare JSON array of Workloads (with a non-object element), a
// JSON object without items, truncated JSON, and an empty List.
// Expectation: the array is read (the number skipped as "item is not an
// object"); the others are errors naming the file (and the position of the
// syntax error); the empty List yields nothing.
TEST(KueueWorkloadsTest, ArraysAndMalformedInput) {
  const std::string item =
      R"({"kind":"Workload","metadata":{"name":"x","namespace":"n","creationTimestamp":"2025-01-01T00:00:00Z"},)"
      R"("spec":{"queueName":"q","podSets":[{"count":1,"template":{"spec":{"containers":[{"resources":)"
      R"({"requests":{"cpu":"1"}}}]}}}]}})";
  const std::string array = WriteTemp("array.json", "[\n" + item + ",\n 42\n]\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("kueue-workloads", array)));
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(Request(r.workloads[0], "cpu"), 1000);
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("item is not an object", 1)));
  EXPECT_THAT(r.report.examples, ElementsAre("line 3: skipped: item is not an object"));
  EXPECT_THAT(ReadAll(Spec("kueue-workloads", WriteTemp("noitems.json", R"({"kind":"Workload"})"))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a List of Workloads")));
  EXPECT_THAT(ReadAll(Spec("kueue-workloads", WriteTemp("trunc.json", "{\"items\": [\n" + item + ",\n{\"kind\":"))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("kueuesim_trace_trunc.json"), HasSubstr("line 3"))));
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult empty,
                                ReadAll(Spec("kueue-workloads", WriteTemp("empty.json", R"({"items":[],"kind":"List"})"))));
  EXPECT_TRUE(empty.workloads.empty());
}

// Setup: Lists that break JSON in each way the scan checks (RFC 8259), one
// per file, each on line 2. Expect: an InvalidArgument naming the file, the
// line and column and what was expected; valid spellings (escapes, a
// surrogate pair, UTF-8, numbers, a byte order mark) are read.
TEST(KueueWorkloadsTest, ScanIsStrictJson) {
  const struct {
    const char* name;
    std::string text;
    const char* expected;
  } kBroken[] = {
      {"comma", "{\"items\": [],\n \"kind\": \"List\",}", "line 2, column 17: expected a string key, found '}'"},
      {"escape", "{\"items\": [],\n \"kind\": \"Li\\xst\"}", "line 2, column 14: expected an escape"},
      {"control", "{\"items\": [],\n \"kind\": \"Li\tst\"}", "line 2, column 13: expected a character of a string"},
      {"utf8", "{\"items\": [],\n \"kind\": \"Li\xC3(\"}", "line 2, column 14: expected UTF-8 text"},
      {"surrogate", "{\"items\": [],\n \"kind\": \"\\udc00\"}", "expected a high surrogate"},
      {"number", "{\"items\": [],\n \"n\": 01}", "line 2, column 8: expected ',' or '}'"},
      {"fraction", "{\"items\": [],\n \"n\": 1.}", "expected a digit after '.'"},
      {"literal", "{\"items\": [],\n \"n\": tru}", "expected 'true'"},
      {"trailing", "{\"items\": []}\n{}", "line 2, column 1: expected the end of the input"},
      {"yaml", "items: []\nkind: List", "line 1, column 1: expected a JSON value"},
      {"nesting", "{\"items\": [],\n \"x\": " + std::string(600, '[') + std::string(600, ']') + "}",
       "levels of nesting"},
  };
  for (const auto& broken : kBroken) {
    const std::string path = WriteTemp(std::string("scan_") + broken.name + ".json", broken.text);
    EXPECT_THAT(ReadAll(Spec("kueue-workloads", path)),
                StatusIs(absl::StatusCode::kInvalidArgument, AllOf(HasSubstr(path), HasSubstr(broken.expected))))
        << broken.name;
  }
  const std::string valid = WriteTemp(
      "scan_valid.json",
      "\xEF\xBB\xBF{\"kind\": \"L\\u0069st\", \"n\": [-0.5e+3, 0, 12, true, false, null],\n"
      " \"s\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t \\ud83d\\ude00 \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\", \"items\": []}\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult read, ReadAll(Spec("kueue-workloads", valid)));
  EXPECT_TRUE(read.workloads.empty());
}

}  // namespace
}  // namespace kueuesim::trace
