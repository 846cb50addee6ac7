// Tests for philly (src/trace/philly.cc) on real rows of the Sia/Pollux
// philly.csv (tests/trace/testdata/philly_rows.csv: its first 40 rows, which
// are not sorted, plus its first jobs of 8, 2, 16, 12 and 128 GPUs, and the
// file's trailing empty line) and on broken rows.
#include <map>
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
using ::testing::IsEmpty;
using ::testing::Pair;
using namespace ::kueuesim::trace::testing;  // NOLINT

// Setup: 45 real rows, unsorted (timestamps from 2017-09-29 07:58:32 to
// 2017-12-12 21:38:32), and an empty last line. Expectation: 45 workloads
// in submit order starting at 0 (the earliest timestamp), names
// "philly-<line>", namespace "vc-<cluster>", queue "main", one pod with
// num_gpus GPUs, duration in seconds; the empty line is not a row.
TEST(PhillyTest, RealRowsSortedBySubmitTime) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("philly", TestData("philly_rows.csv"))));
  EXPECT_EQ(r.report.rows_read, 45);
  ASSERT_EQ(r.workloads.size(), 45u);
  EXPECT_THAT(r.report.skipped, IsEmpty());
  EXPECT_TRUE(ArrivalsSorted(r.workloads));
  // 2017-09-29 07:58:32,860662.0,1,860662.0,6c71a0 (line 4)
  const model::Workload& first = r.workloads[0];
  EXPECT_EQ(first.meta.name, "philly-4");
  EXPECT_EQ(first.meta.namespace_, "vc-6c71a0");
  EXPECT_EQ(first.queue_name, "main");
  EXPECT_EQ(first.arrival, 0);
  EXPECT_EQ(first.duration, 860662 * kSecond);
  EXPECT_EQ(Request(first, "nvidia.com/gpu"), 1);
  EXPECT_FALSE(first.priority.has_value());
  // 2017-10-06 01:49:35,195.0,16,3120.0,11cb48 (line 44): 6d17h51m3s later.
  const model::Workload& second = r.workloads[1];
  EXPECT_EQ(second.meta.name, "philly-44");
  EXPECT_EQ(second.arrival, (6 * 86400 + 17 * 3600 + 51 * 60 + 3) * kSecond);
  EXPECT_EQ(second.pod_sets[0].count, 1);
  EXPECT_EQ(Request(second, "nvidia.com/gpu"), 16);
  EXPECT_EQ(second.duration, 195 * kSecond);
  EXPECT_EQ(r.workloads[2].meta.name, "philly-42");
  const model::Workload& last = r.workloads.back();
  EXPECT_EQ(last.meta.name, "philly-46");
  EXPECT_EQ(Request(last, "nvidia.com/gpu"), 128);
  EXPECT_EQ(last.meta.namespace_, "vc-ee9e8c");
}

// Setup: options.gpusPerPod 8 and per-GPU cpu and memory. Expectation: 16
// GPUs as 2 pods of 8, 12 as 2 of 6, 128 as 16 of 8, 2 as 1 of 2; cpu and
// memory per pod scale with its GPUs; nothing repaired (all divide).
TEST(PhillyTest, GpusPerPodSplitsJobs) {
  TraceSpec spec = Spec("philly", TestData("philly_rows.csv"));
  spec.options["gpusPerPod"] = "8";
  spec.options["cpuPerGpu"] = "4";
  spec.options["memoryPerGpu"] = "32Gi";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  auto shape = [&](const std::string& name) {
    const model::Workload* wl = Find(r.workloads, name);
    return std::pair<int32_t, Amount>(wl->pod_sets[0].count, Request(*wl, "nvidia.com/gpu"));
  };
  EXPECT_EQ(shape("philly-44"), (std::pair<int32_t, Amount>(2, 8)));
  EXPECT_EQ(shape("philly-45"), (std::pair<int32_t, Amount>(2, 6)));
  EXPECT_EQ(shape("philly-46"), (std::pair<int32_t, Amount>(16, 8)));
  EXPECT_EQ(shape("philly-43"), (std::pair<int32_t, Amount>(1, 2)));
  EXPECT_EQ(shape("philly-4"), (std::pair<int32_t, Amount>(1, 1)));
  EXPECT_EQ(Request(*Find(r.workloads, "philly-45"), "cpu"), 24000);
  EXPECT_EQ(Request(*Find(r.workloads, "philly-45"), "memory"), int64_t{6} * 32 << 30);
  EXPECT_THAT(r.report.repaired, IsEmpty());
}

// Setup: a window of one day from 2017-10-09 (trace time [9d22h, 10d22h)
// after the earliest submit) with arrival scale 24 and mapping overrides
// (queue from the cluster column, a priority). Expectation: only jobs
// submitted in the window, the first at 0 relative to the window start
// plus its own offset / 24; queue = the VC.
TEST(PhillyTest, WindowScaleAndMapping) {
  TraceSpec spec = Spec("philly", TestData("philly_rows.csv"));
  spec.window_start = (9 * 86400 + 22 * 3600) * kSecond;  // 2017-10-09 05:58:32
  spec.window_end = (10 * 86400 + 22 * 3600) * kSecond;
  spec.arrival_scale = 24;
  spec.mapping["queue"].field = "cluster";
  spec.mapping["priority"].value = "10";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  ASSERT_FALSE(r.workloads.empty());
  for (const auto& wl : r.workloads) {
    EXPECT_EQ(wl.priority, 10);
    EXPECT_EQ("vc-" + wl.queue_name, wl.meta.namespace_);
  }
  // 34 of the 45 jobs; the earliest in the window: 2017-10-09 06:00:22
  // (line 34), 110 s after the window start.
  EXPECT_EQ(r.workloads.size(), 34u);
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("outside the window", 11)));
  EXPECT_EQ(r.workloads[0].meta.name, "philly-34");
  EXPECT_EQ(r.workloads[0].arrival, 4583333);  // 110 s / 24, rounded
  EXPECT_EQ(r.report.rows_read, r.report.workloads + TotalSkipped(r.report));
}

// Setup: broken rows: unparsable timestamp, bad and negative duration, bad
// num_gpus, too few fields; a 10-GPU job with gpusPerPod 4. Expectation:
// skips by reason; the 10-GPU job as 3 pods of 4, counted as repaired.
TEST(PhillyTest, BrokenRows) {
  const std::string path = WriteTemp("philly_broken.csv",
                                     "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                     "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
                                     "2017-10-09T25:01:55,66.0,1,66.0,11cb48\n"
                                     "not a time,66.0,1,66.0,11cb48\n"
                                     "2017-10-09 07:01:55,abc,1,66.0,11cb48\n"
                                     "2017-10-09 07:01:55,-3.0,1,66.0,11cb48\n"
                                     "2017-10-09 07:01:55,66.0,1.5,66.0,11cb48\n"
                                     "2017-10-09 07:01:55,66.0\n"
                                     "2017-10-09 07:02:00,10.5,10,105.0,11cb48\n");
  TraceSpec spec = Spec("philly", path);
  spec.options["gpusPerPod"] = "4";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("bad duration", 1), Pair("bad num_gpus", 1),
                                            Pair("bad timestamp", 2), Pair("negative duration", 1),
                                            Pair("too few fields", 1)));
  EXPECT_THAT(r.report.repaired, ElementsAre(Pair("num_gpus not divisible into equal pods (rounded up)", 1)));
  EXPECT_EQ(r.workloads[1].pod_sets[0].count, 3);
  EXPECT_EQ(Request(r.workloads[1], "nvidia.com/gpu"), 4);
  EXPECT_EQ(r.workloads[1].duration, 10500 * kMillisecond);
  EXPECT_EQ(r.workloads[1].arrival, 5 * kSecond);
  spec.options["gpusPerPod"] = "0";
  EXPECT_THAT(OpenTrace(spec), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.options.gpusPerPod")));
}

// Setup: unsorted rows, broken in every way the format and its mapping can
// skip or repair (queue mapped from a column empty on one row, priority
// from a column with a non-integer and an out-of-range value, a 10-GPU job
// with gpusPerPod 4, a job with a bad duration that also splits unevenly),
// read with the counting pass (which checks rows without building their
// workloads) and with option sorted: "true" (no counting pass: every row
// parsed whole, out-of-order rows moved).
// Expectation: the same skips, repairs and examples either way, and the
// same workloads (the sorted reading rereads every row the counting pass
// kept, and would fail on one it reads differently).
TEST(PhillyTest, CountingPassSkipsAndRepairsAsTheFullParse) {
  const std::string path = WriteTemp("philly_count.csv",
                                     "timestamp,duration,num_gpus,gpu_time,cluster,team,rank\n"
                                     "2017-10-09 07:05:00,66.0,1,66.0,11cb48,a,1\n"
                                     "2017-10-09 07:01:55,60.0,2,66.0,11cb48,,1\n"
                                     "2017-10-09 07:03:00,10.5,10,105.0,11cb48,b,2\n"
                                     "2017-10-09 07:02:00,10.5,3,105.0,6214e9,b,high\n"
                                     "2017-10-09 07:00:00,bad,10,105.0,6214e9,b,3\n"
                                     "2017-10-09 07:04:00,1.0,4,4.0,6214e9,c,99999999999\n"
                                     "2017-10-09 06:59:00,2.0,6,12.0,6214e9,c,4\n");
  TraceSpec spec = Spec("philly", path);
  spec.options["gpusPerPod"] = "4";
  spec.mapping["queue"].field = "team";
  spec.mapping["priority"].field = "rank";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult counted, ReadAll(spec));
  EXPECT_THAT(counted.report.skipped, ElementsAre(Pair("bad duration", 1), Pair("bad priority", 2),
                                                  Pair("no queue name", 1)));
  // Line 4 only: line 6's duration is checked before its split.
  EXPECT_THAT(counted.report.repaired,
              ElementsAre(Pair("num_gpus not divisible into equal pods (rounded up)", 1)));
  ASSERT_EQ(counted.workloads.size(), 3u);
  EXPECT_EQ(counted.workloads[0].meta.source.line, 8);  // 06:59, 6 GPUs as 2 pods of 3
  EXPECT_EQ(counted.workloads[0].pod_sets[0].count, 2);
  EXPECT_EQ(counted.workloads[1].meta.source.line, 4);
  EXPECT_EQ(counted.workloads[2].meta.source.line, 2);

  TraceSpec lazy = spec;
  lazy.options["sorted"] = "true";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult parsed, ReadAll(lazy));
  EXPECT_EQ(parsed.report.skipped, counted.report.skipped);
  // The lazy reading also repairs the rows it moves; the rest is the same.
  std::map<std::string, int64_t> parsed_repaired = parsed.report.repaired;
  EXPECT_EQ(parsed_repaired.erase("arrival earlier than the previous row's (moved to it; option sorted)"), 1u);
  EXPECT_EQ(parsed_repaired, counted.report.repaired);
  // Its examples (five at most) include the moves, so fewer of the others.
  std::vector<std::string> parsed_examples = parsed.report.examples;
  std::erase_if(parsed_examples, [](const std::string& e) { return e.find("earlier than") != std::string::npos; });
  ASSERT_LE(parsed_examples.size(), counted.report.examples.size());
  EXPECT_EQ(parsed_examples, std::vector<std::string>(counted.report.examples.begin(),
                                                      counted.report.examples.begin() +
                                                          static_cast<std::ptrdiff_t>(parsed_examples.size())));
  EXPECT_EQ(counted.report.examples.size(), 5u);
  ASSERT_EQ(parsed.workloads.size(), counted.workloads.size());
}

}  // namespace
}  // namespace kueuesim::trace
