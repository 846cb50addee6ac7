// Tests for the native-csv and native-jsonl formats (src/trace/native.cc):
// every column and key, defaults, broken rows counted by reason with line
// numbers, header errors.
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
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using namespace ::kueuesim::trace::testing;  // NOLINT

// Setup: a native CSV with every column: Go durations and bare seconds,
// priority, priority class, count/minCount, cpu/memory/gpu and extra
// requests, kind Job, an empty duration. Expectation: workloads with those
// fields, requests canonical and sorted by name, the gpu column as
// nvidia.com/gpu, no duration for the empty one.
TEST(NativeCsvTest, EveryColumn) {
  const std::string path = WriteTemp("native_all.csv",
                                     "name,namespace,queue,arrival,duration,priority,priorityClass,count,minCount,"
                                     "cpu,memory,gpu,requests,kind\n"
                                     "a,team-a,q,0,90s,100,high,4,2,500m,1Gi,1,example.com/fpga=2;hugepages-2Mi=4Mi,Job\n"
                                     "b,,q,1.5,,,,,,2,,,,\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("native-csv", path)));
  ASSERT_EQ(r.workloads.size(), 2u);
  const model::Workload& a = r.workloads[0];
  EXPECT_EQ(a.meta.name, "a");
  EXPECT_EQ(a.meta.namespace_, "team-a");
  EXPECT_EQ(a.queue_name, "q");
  EXPECT_EQ(a.arrival, 0);
  EXPECT_EQ(a.duration, 90 * kSecond);
  EXPECT_EQ(a.priority, 100);
  EXPECT_EQ(a.priority_class_name, "high");
  EXPECT_EQ(a.rare->priority_class_source, "kueue.x-k8s.io/workloadpriorityclass");
  EXPECT_EQ(a.source_kind, model::WorkloadSourceKind::kJob);
  ASSERT_EQ(a.pod_sets.size(), 1u);
  EXPECT_EQ(a.pod_sets[0].name, "main");
  EXPECT_EQ(a.pod_sets[0].count, 4);
  EXPECT_EQ(a.pod_sets[0].min_count, 2);
  std::vector<std::string> names;
  for (const auto& req : a.pod_sets[0].requests) names.push_back(req.name);
  EXPECT_THAT(names, ElementsAre("cpu", "example.com/fpga", "hugepages-2Mi", "memory", "nvidia.com/gpu"));
  EXPECT_EQ(Request(a, "cpu"), 500);
  EXPECT_EQ(Request(a, "memory"), int64_t{1} << 30);
  EXPECT_EQ(Request(a, "nvidia.com/gpu"), 1);
  EXPECT_EQ(Request(a, "hugepages-2Mi"), 4 << 20);
  EXPECT_EQ(a.meta.source.line, 2);
  const model::Workload& b = r.workloads[1];
  EXPECT_EQ(b.meta.namespace_, "default");
  EXPECT_EQ(b.arrival, 1500 * kMillisecond);
  EXPECT_FALSE(b.duration.has_value());
  EXPECT_FALSE(b.priority.has_value());
  EXPECT_EQ(b.pod_sets[0].count, 1);
  EXPECT_EQ(Request(b, "cpu"), 2000);
  EXPECT_EQ(b.source_kind, model::WorkloadSourceKind::kWorkload);
  EXPECT_EQ(r.report.rows_read, 2);
  EXPECT_EQ(r.report.workloads, 2);
}

// Setup: only the required columns (arrival, queue); options.gpuResource.
// Expectation: names "<trace name>-<line>", namespace "default"; a gpu
// column goes to the configured resource.
TEST(NativeCsvTest, MinimalColumnsAndGpuResource) {
  const std::string path = WriteTemp("native_min.csv", "queue,arrival,gpu\nq,10s,2\nq,20s,\n");
  TraceSpec spec = Spec("native-csv", path);
  spec.name = "mini";
  spec.options["gpuResource"] = "amd.com/gpu";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].meta.name, "mini-2");
  EXPECT_EQ(r.workloads[1].meta.name, "mini-3");
  EXPECT_EQ(Request(r.workloads[0], "amd.com/gpu"), 2);
  EXPECT_TRUE(r.workloads[1].pod_sets[0].requests.empty());
}

// Setup: one good row and broken rows: bad and negative arrival, missing
// arrival, bad duration, negative duration, bad count, minCount > count,
// bad cpu, negative memory, bad requests syntax, a resource given twice,
// unknown kind, bad priority, no queue, too few and too many fields, and a
// malformed quote. Expectation: one workload; every broken row skipped and
// counted under its reason; the first five examples name their lines;
// rows_read = workloads + skipped.
TEST(NativeCsvTest, BrokenRowsAreCountedByReason) {
  const std::string path = WriteTemp("native_broken.csv",
                                     "name,queue,arrival,duration,count,minCount,cpu,memory,requests,kind,priority\n"
                                     "ok,q,1s,1s,1,,1,1Gi,,,\n"               // 2
                                     "a,q,soon,1s,1,,1,,,,\n"                  // 3 bad arrival
                                     "b,q,-5s,1s,1,,1,,,,\n"                   // 4 negative arrival
                                     "c,q,,1s,1,,1,,,,\n"                      // 5 missing arrival
                                     "d,q,1s,1x,1,,1,,,,\n"                    // 6 bad duration
                                     "e,q,1s,-1s,1,,1,,,,\n"                   // 7 negative duration
                                     "f,q,1s,1s,two,,1,,,,\n"                  // 8 bad count
                                     "g,q,1s,1s,1,2,1,,,,\n"                   // 9 bad minCount
                                     "h,q,1s,1s,1,,1.5.5,,,,\n"                // 10 bad cpu
                                     "i,q,1s,1s,1,,1,-1Gi,,,\n"                // 11 bad memory
                                     "j,q,1s,1s,1,,1,,fpga,,\n"                // 12 bad requests
                                     "k,q,1s,1s,1,,1,,cpu=2,,\n"               // 13 resource given twice
                                     "l,q,1s,1s,1,,1,,,Deployment,\n"          // 14 unknown kind
                                     "m,q,1s,1s,1,,1,,,,high\n"                // 15 bad priority
                                     "n,,1s,1s,1,,1,,,,\n"                     // 16 no queue name
                                     "o,q,1s\n"                                // 17 too few fields
                                     "p,q,1s,1s,1,,1,,,,,extra\n"              // 18 too many fields
                                     "\"q\"x,q,1s,1s,1,,1,,,,\n");             // 19 malformed
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("native-csv", path)));
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].meta.name, "ok");
  EXPECT_EQ(r.report.rows_read, 18);
  EXPECT_EQ(r.report.rows_read, r.report.workloads + TotalSkipped(r.report));
  EXPECT_THAT(r.report.skipped,
              ElementsAre(Pair("bad arrival", 1), Pair("bad count", 1), Pair("bad cpu", 1),
                          Pair("bad duration", 1), Pair("bad memory", 1), Pair("bad minCount", 1),
                          Pair("bad priority", 1), Pair("bad requests", 1), Pair("malformed CSV: text after a closing quote", 1),
                          Pair("missing arrival", 1), Pair("negative arrival", 1), Pair("negative duration", 1),
                          Pair("no queue name", 1), Pair("resource given twice", 1), Pair("too few fields", 1),
                          Pair("too many fields", 1), Pair("unknown kind", 1)));
  EXPECT_THAT(r.report.examples, ElementsAre("line 3: skipped: bad arrival", "line 4: skipped: negative arrival",
                                             "line 5: skipped: missing arrival", "line 6: skipped: bad duration",
                                             "line 7: skipped: negative duration"));
  EXPECT_THAT(r.report.Format(), HasSubstr("18 rows read, 1 workloads, 17 rows skipped, 0 repaired"));
}

// Setup: header problems: no arrival column, no queue column (without a
// mapping), an unknown column (a typo), an unknown column that the mapping
// reads, an empty file. Expectation: errors naming the Trace, the file and
// what is wrong; the mapped extra column is accepted.
TEST(NativeCsvTest, HeaderErrors) {
  EXPECT_THAT(ReadAll(Spec("native-csv", WriteTemp("h1.csv", "name,queue\nx,q\n"))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("scenario.yaml:3: Trace \"t\""), HasSubstr("h1.csv:1: the header lacks column(s) arrival"))));
  EXPECT_THAT(ReadAll(Spec("native-csv", WriteTemp("h2.csv", "arrival\n1s\n"))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no queue column")));
  EXPECT_THAT(ReadAll(Spec("native-csv", WriteTemp("h3.csv", "arrival,queue,memroy\n1s,q,1Gi\n"))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown column \"memroy\"")));
  TraceSpec spec = Spec("native-csv", WriteTemp("h4.csv", "arrival,queue,user\n1s,q,alice\n"));
  spec.mapping["namespace"].field = "user";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].meta.namespace_, "alice");
  EXPECT_THAT(ReadAll(Spec("native-csv", WriteTemp("h5.csv", ""))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("the file is empty")));
  EXPECT_THAT(ReadAll(Spec("native-csv", "/nonexistent/x.csv")),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent/x.csv")));
}

// Setup: native JSON Lines with two pod sets, numeric and string times,
// labels, annotations, node selectors, a blank line, CRLF. Expectation:
// workloads as written; pod set names and counts; requests canonical.
TEST(NativeJsonlTest, ReadsObjects) {
  const std::string path = WriteTemp(
      "native.jsonl",
      "{\"name\":\"lws-1\",\"namespace\":\"serving\",\"queue\":\"q\",\"arrival\":\"2m\",\"duration\":3600,"
      "\"priority\":500,\"priorityClass\":\"prod\",\"kind\":\"Job\",\"labels\":{\"app\":\"x\"},"
      "\"annotations\":{\"note\":\"y\"},\"podSets\":[{\"name\":\"leader\",\"count\":1,\"requests\":{\"cpu\":\"1\","
      "\"memory\":\"2Gi\"}},{\"name\":\"workers\",\"count\":4,\"minCount\":2,\"requests\":{\"cpu\":0.5,"
      "\"nvidia.com/gpu\":\"2\"},\"nodeSelector\":{\"pool\":\"gpu\"}}]}\r\n"
      "\n"
      "{\"queue\":\"q\",\"arrival\":150.25,\"podSets\":[{\"requests\":{\"cpu\":\"250m\"}}]}\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("native-jsonl", path)));
  ASSERT_EQ(r.workloads.size(), 2u);
  const model::Workload& a = r.workloads[0];
  EXPECT_EQ(a.meta.name, "lws-1");
  EXPECT_EQ(a.meta.namespace_, "serving");
  EXPECT_EQ(a.arrival, 2 * kMinute);
  EXPECT_EQ(a.duration, kHour);
  EXPECT_EQ(a.priority, 500);
  EXPECT_EQ(a.priority_class_name, "prod");
  EXPECT_EQ(a.source_kind, model::WorkloadSourceKind::kJob);
  EXPECT_THAT(a.meta.labels, ElementsAre(Pair("app", "x")));
  EXPECT_THAT(a.meta.annotations, ElementsAre(Pair("note", "y")));
  ASSERT_EQ(a.pod_sets.size(), 2u);
  EXPECT_EQ(a.pod_sets[0].name, "leader");
  EXPECT_EQ(Request(a, "memory", 0), int64_t{2} << 30);
  EXPECT_EQ(a.pod_sets[1].count, 4);
  EXPECT_EQ(a.pod_sets[1].min_count, 2);
  EXPECT_EQ(Request(a, "cpu", 1), 500);
  EXPECT_EQ(Request(a, "nvidia.com/gpu", 1), 2);
  EXPECT_THAT(a.pod_sets[1].rare->node_selector, ElementsAre(Pair("pool", "gpu")));
  const model::Workload& b = r.workloads[1];
  EXPECT_EQ(b.meta.name, "t-3");
  EXPECT_EQ(b.meta.source.line, 3);
  EXPECT_EQ(b.arrival, 150250 * kMillisecond);
  EXPECT_EQ(b.pod_sets[0].name, "main");
  EXPECT_EQ(Request(b, "cpu"), 250);
}

// Setup: broken JSON lines: not JSON, not an object, unknown key, missing
// arrival, bad arrival type, no podSets, duplicate pod set names, bad
// count, bad request, bad labels, bad priority. Expectation: all skipped
// with their reasons, the good line kept.
TEST(NativeJsonlTest, BrokenLinesAreCountedByReason) {
  const std::string path = WriteTemp(
      "broken.jsonl",
      "{\"queue\":\"q\",\"arrival\":\"1s\",\"podSets\":[{}]}\n"                                    // 1 ok
      "{\"queue\":\"q\",\"arrival\":\n"                                                            // 2
      "[1,2]\n"                                                                                   // 3
      "{\"queue\":\"q\",\"arrival\":\"1s\",\"cpus\":1,\"podSets\":[{}]}\n"                         // 4
      "{\"queue\":\"q\",\"podSets\":[{}]}\n"                                                       // 5
      "{\"queue\":\"q\",\"arrival\":true,\"podSets\":[{}]}\n"                                      // 6
      "{\"queue\":\"q\",\"arrival\":\"1s\"}\n"                                                     // 7
      "{\"queue\":\"q\",\"arrival\":\"1s\",\"podSets\":[{},{}]}\n"                                 // 8
      "{\"queue\":\"q\",\"arrival\":\"1s\",\"podSets\":[{\"count\":-1}]}\n"                        // 9
      "{\"queue\":\"q\",\"arrival\":\"1s\",\"podSets\":[{\"requests\":{\"cpu\":\"lots\"}}]}\n"     // 10
      "{\"queue\":\"q\",\"arrival\":\"1s\",\"labels\":{\"a\":1},\"podSets\":[{}]}\n"               // 11
      "{\"queue\":\"q\",\"arrival\":\"1s\",\"priority\":1.5,\"podSets\":[{}]}\n"                   // 12
      "{\"queue\":\"q\",\"arrival\":\"1s\",\"podSets\":[{\"replicas\":2}]}\n");                    // 13
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("native-jsonl", path)));
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.report.rows_read, 13);
  EXPECT_THAT(r.report.skipped,
              ElementsAre(Pair("bad arrival", 1), Pair("bad count", 1), Pair("bad labels", 1),
                          Pair("bad priority", 1), Pair("bad requests", 1), Pair("duplicate pod set name", 1),
                          Pair("malformed JSON", 1), Pair("missing arrival", 1), Pair("not a JSON object", 1),
                          Pair("podSets must be a list of 1 to 18 pod sets", 1), Pair("unknown field \"cpus\"", 1),
                          Pair("unknown field \"podSets[].replicas\"", 1)));
  EXPECT_THAT(r.report.examples, Contains("line 2: skipped: malformed JSON"));
}

}  // namespace
}  // namespace kueuesim::trace
