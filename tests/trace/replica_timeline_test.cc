// Tests for the replica-timeline-csv and replica-timeline-jsonl change
// formats (src/trace/replica_timeline.cc): every column, template changes
// as rollouts, broken rows counted by reason with their lines, window,
// scale and limit, header errors.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/time.h"
#include "kueuesim/trace/change_source.h"
#include "testing/status_matchers.h"
#include "trace/trace_test_util.h"

namespace kueuesim::trace {
namespace {

using ::kueuesim::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using namespace ::kueuesim::trace::testing;  // NOLINT

struct Changes {
  std::vector<model::Change> changes;
  ImportReport report;
};

absl::StatusOr<Changes> ReadChanges(const TraceSpec& spec) {
  auto source = OpenChangeTrace(spec);
  if (!source.ok()) return source.status();
  Changes out;
  while (true) {
    auto next = (*source)->Next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) break;
    out.changes.push_back(**next);
  }
  out.report = (*source)->report();
  return out;
}

// Setup: a timeline of an LWS scaled up and down, a revision that changes
// (a rollout) and one that repeats (none), a partition, a Deployment row.
// Expectation: one Change per row with the fields of a Change document,
// the file and line as source, the first revision taken as the current
// template (its row changes nothing else: skipped "nothing to change").
TEST(ReplicaTimelineTest, CsvRowsBecomeChanges) {
  const std::string path = WriteTemp("rt.csv",
                                     "time,namespace,name,kind,replicas,partition,revision\n"
                                     "0,serving,llm,,4,,v1\n"
                                     "10m,serving,llm,LeaderWorkerSet,6,,\n"
                                     "1h,serving,llm,,,,v2\n"
                                     "2h,serving,llm,,,,v2\n"
                                     "3600.5,serving,llm,,,,\n"
                                     "3h,serving,llm,,2,1,\n"
                                     "4h,,web,Deployment,3,,\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Changes r, ReadChanges(Spec("replica-timeline-csv", path)));
  ASSERT_EQ(r.changes.size(), 5u);
  EXPECT_EQ(r.changes[0].at, 0);
  EXPECT_EQ(r.changes[0].target_kind, "LeaderWorkerSet");
  EXPECT_EQ(r.changes[0].target_namespace, "serving");
  EXPECT_EQ(r.changes[0].target_name, "llm");
  EXPECT_EQ(r.changes[0].replicas, 4);
  EXPECT_FALSE(r.changes[0].rollout);
  EXPECT_EQ(r.changes[0].source.file, path);
  EXPECT_EQ(r.changes[0].source.line, 2);
  EXPECT_EQ(r.changes[0].name, "t-2");
  EXPECT_EQ(r.changes[1].at, 10 * kMinute);
  EXPECT_EQ(r.changes[1].replicas, 6);
  EXPECT_EQ(r.changes[2].at, kHour);
  EXPECT_TRUE(r.changes[2].rollout);
  EXPECT_FALSE(r.changes[2].replicas.has_value());
  EXPECT_EQ(r.changes[3].at, 3 * kHour);
  EXPECT_EQ(r.changes[3].replicas, 2);
  EXPECT_EQ(r.changes[3].partition, 1);
  EXPECT_EQ(r.changes[4].target_kind, "Deployment");
  EXPECT_EQ(r.changes[4].target_namespace, "default");
  EXPECT_EQ(r.report.rows_read, 7);
  EXPECT_EQ(r.report.changes, 5);
  // "2h ... v2" repeats the template; "3600.5" comes before the 2h row.
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("nothing to change", 1), Pair("time before the previous row", 1)));
  EXPECT_THAT(r.report.Format(), HasSubstr("7 rows read, 0 workloads, 5 changes, 2 rows skipped"));
}

// Setup: broken rows of every kind. Expectation: each skipped with its
// reason and line; rows_read = changes + skipped.
TEST(ReplicaTimelineTest, BrokenCsvRowsCountedByReason) {
  const std::string path = WriteTemp("rt_broken.csv",
                                     "time,name,kind,replicas,partition,rollout,maxSurge,image\n"
                                     ",a,,1,,,,\n"            // 2 missing time
                                     "soon,a,,1,,,,\n"        // 3 bad time
                                     "-5,a,,1,,,,\n"          // 4 negative time
                                     "10,,,1,,,,\n"           // 5 missing name
                                     "10,a,Job,1,,,,\n"       // 6 unknown kind
                                     "10,a,,-1,,,,\n"         // 7 bad replicas
                                     "10,a,,x,,,,\n"          // 8 bad replicas
                                     "10,a,,1,3000000000,,,\n"  // 9 bad partition
                                     "10,a,,,,yes,,\n"        // 10 bad rollout
                                     "10,a,,1,,,2,\n"         // 11 maxSurge
                                     "10,a,,,,,,img:1\n"      // 12 nothing to change (first image)
                                     "10,a,,1\n"              // 13 too few fields
                                     "20,a,,,,true,,\n"       // 14 ok: rollout
                                     "5,a,,1,,,,\n"           // 15 time before the previous row
                                     "30,a,,,,,,img:2\n");    // 16 ok: image changed
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Changes r, ReadChanges(Spec("replica-timeline-csv", path)));
  ASSERT_EQ(r.changes.size(), 2u);
  EXPECT_TRUE(r.changes[0].rollout);
  EXPECT_EQ(r.changes[0].at, 20 * kSecond);
  EXPECT_TRUE(r.changes[1].rollout);
  EXPECT_EQ(r.changes[1].source.line, 16);
  EXPECT_EQ(r.report.rows_read, 15);
  EXPECT_THAT(r.report.skipped,
              ElementsAre(Pair("bad partition", 1), Pair("bad replicas", 2), Pair("bad rollout", 1),
                          Pair("bad time", 1), Pair("maxSurge/maxUnavailable edits are not simulated", 1),
                          Pair("missing name", 1), Pair("missing time", 1), Pair("negative time", 1),
                          Pair("nothing to change", 1), Pair("time before the previous row", 1),
                          Pair("too few fields", 1), Pair("unknown kind", 1)));
  int64_t skipped = 0;
  for (const auto& [reason, count] : r.report.skipped) skipped += count;
  EXPECT_EQ(r.report.rows_read, r.report.changes + skipped);
  EXPECT_EQ(r.report.examples.front(), "line 2: skipped: missing time");
}

// Setup: the same timeline as JSON Lines, numbers and strings, a boolean
// rollout, broken lines. Expectation: the same changes; broken lines
// counted.
TEST(ReplicaTimelineTest, JsonlRows) {
  const std::string path = WriteTemp("rt.jsonl",
                                     "{\"time\": 0, \"namespace\": \"serving\", \"name\": \"llm\", \"replicas\": 4}\n"
                                     "{\"time\": \"1h\", \"name\": \"llm\", \"rollout\": true, \"partition\": 2}\n"
                                     "not json\n"
                                     "[1]\n"
                                     "{\"time\": 7200, \"name\": \"llm\", \"replicas\": 2, \"color\": \"red\"}\n"
                                     "{\"time\": 7200, \"name\": \"llm\", \"replicas\": true}\n"
                                     "{\"time\": 7200, \"name\": \"llm\", \"replicas\": 1.5}\n"
                                     "{\"time\": 7300, \"name\": \"llm\", \"replicas\": 1}\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Changes r, ReadChanges(Spec("replica-timeline-jsonl", path)));
  ASSERT_EQ(r.changes.size(), 3u);
  EXPECT_EQ(r.changes[0].replicas, 4);
  EXPECT_EQ(r.changes[0].target_namespace, "serving");
  EXPECT_TRUE(r.changes[1].rollout);
  EXPECT_EQ(r.changes[1].partition, 2);
  EXPECT_EQ(r.changes[1].at, kHour);
  EXPECT_EQ(r.changes[2].replicas, 1);
  EXPECT_EQ(r.changes[2].at, 7300 * kSecond);
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("bad replicas", 2), Pair("malformed JSON", 1),
                                            Pair("not a JSON object", 1), Pair("unknown field \"color\"", 1)));
  EXPECT_EQ(r.report.rows_read, 8);
}

// Setup: window [1h, 3h), arrival scale 2, limit 2. Expectation: rows
// outside the window and beyond the limit counted; times shifted to the
// window start and halved.
TEST(ReplicaTimelineTest, WindowScaleAndLimit) {
  const std::string path = WriteTemp("rt_window.csv",
                                     "time,name,replicas\n"
                                     "0,a,1\n"
                                     "1h,a,2\n"
                                     "2h,a,3\n"
                                     "2h30m,a,4\n"
                                     "3h,a,5\n");
  TraceSpec spec = Spec("replica-timeline-csv", path);
  spec.window_start = kHour;
  spec.window_end = 3 * kHour;
  spec.arrival_scale = 2;
  spec.limit = 2;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Changes r, ReadChanges(spec));
  ASSERT_EQ(r.changes.size(), 2u);
  EXPECT_EQ(r.changes[0].at, 0);
  EXPECT_EQ(r.changes[0].replicas, 2);
  EXPECT_EQ(r.changes[1].at, 30 * kMinute);
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("beyond the limit", 1), Pair("outside the window", 2)));
}

// Setup: headers without time, with an unknown column; a mapping; a
// workload format. Expectation: errors naming the file and the column.
TEST(ReplicaTimelineTest, HeaderAndSpecErrors) {
  const std::string no_time = WriteTemp("rt_no_time.csv", "name,replicas\na,1\n");
  EXPECT_THAT(ReadChanges(Spec("replica-timeline-csv", no_time)).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("lacks column time")));
  const std::string extra = WriteTemp("rt_extra.csv", "time,name,color\n0,a,red\n");
  EXPECT_THAT(ReadChanges(Spec("replica-timeline-csv", extra)).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown column \"color\"")));
  TraceSpec mapped = Spec("replica-timeline-csv", extra);
  mapped.mapping["queue"].value = "q";
  EXPECT_THAT(ReadChanges(mapped).status(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.mapping")));
  EXPECT_THAT(ReadChanges(Spec("native-csv", extra)).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a change format")));
  // The workload opener refuses the change formats.
  EXPECT_THAT(OpenTrace(Spec("replica-timeline-csv", extra)).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("holds changes, not workloads")));
}

}  // namespace
}  // namespace kueuesim::trace
