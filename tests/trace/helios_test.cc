// Tests for helios (src/trace/helios.cc). No Helios job log is in
// ../shared/traces (only summaries), so the fixtures are the three example
// rows of the HeliosData README (real rows of a Helios cluster_log.csv) and
// hand-written rows in the same schema.
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

// Setup: the README's three rows (COMPLETED, FAILED, and a CANCELLED job
// that ran 675233 s). Expectation: three workloads "helios-<job_id>" in
// their VC's namespace, queue "main", arrivals from the first submit
// (0, 26 s, 27 s), durations from the `duration` column, GPUs and CPUs per
// pod, recorded wait 0s; the CANCELLED job kept (it ran).
TEST(HeliosTest, ReadmeRows) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("helios", TestData("helios_readme_rows.csv"))));
  ASSERT_EQ(r.workloads.size(), 3u);
  EXPECT_THAT(r.report.skipped, IsEmpty());
  const model::Workload& first = r.workloads[0];
  EXPECT_EQ(first.meta.name, "helios-1425511");
  EXPECT_EQ(first.meta.namespace_, "vcJkd");
  EXPECT_EQ(first.queue_name, "main");
  EXPECT_EQ(first.arrival, 0);
  EXPECT_EQ(first.duration, 36848 * kSecond);
  EXPECT_EQ(first.meta.annotations.at("kueuesim.io/recorded-wait"), "0s");
  const model::Workload& failed = r.workloads[1];
  EXPECT_EQ(failed.arrival, 26 * kSecond);
  EXPECT_EQ(Request(failed, "nvidia.com/gpu"), 4);
  EXPECT_EQ(Request(failed, "cpu"), 16000);
  EXPECT_EQ(failed.duration, 249 * kSecond);
  EXPECT_EQ(r.workloads[2].meta.name, "helios-1425513");
  EXPECT_EQ(r.workloads[2].duration, 675233 * kSecond);
}

// Setup: hand-written rows, out of submit order: multi-node jobs (16 GPUs
// on 2 nodes; 8 GPUs and 6 CPUs on 4 nodes), a job cancelled before it
// started, a CANCELLED job of zero duration, an invalid date, a bad GPU
// count, end before start (no duration column), node_num 0, a short row,
// a quoted job name with a comma and a negative duration. Expectation:
// three workloads sorted by submit time, pods = nodes, requests per pod
// (rounded up and counted as repaired when they do not divide), recorded
// wait = start - submit; every other row skipped by reason.
TEST(HeliosTest, HandWrittenRows) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("helios", TestData("helios_handwritten.csv"))));
  EXPECT_EQ(r.report.rows_read, 10);
  ASSERT_EQ(r.workloads.size(), 3u);
  std::vector<std::string> names;
  for (const auto& wl : r.workloads) names.push_back(wl.meta.name);
  EXPECT_THAT(names, ElementsAre("helios-1425500", "helios-1425501", "helios-1425507"));
  const model::Workload& big = r.workloads[0];
  EXPECT_EQ(big.arrival, 0);
  EXPECT_EQ(big.pod_sets[0].count, 2);
  EXPECT_EQ(Request(big, "nvidia.com/gpu"), 8);
  EXPECT_EQ(Request(big, "cpu"), 32000);
  EXPECT_EQ(big.duration, kHour);
  EXPECT_EQ(big.meta.annotations.at("kueuesim.io/recorded-wait"), "5m0s");
  const model::Workload& split = r.workloads[1];
  EXPECT_EQ(split.arrival, 30 * kSecond);
  EXPECT_EQ(split.pod_sets[0].count, 4);
  EXPECT_EQ(Request(split, "nvidia.com/gpu"), 2);
  EXPECT_EQ(Request(split, "cpu"), 2000);
  const model::Workload& timeout = r.workloads[2];
  EXPECT_EQ(timeout.arrival, 2 * kMinute);
  EXPECT_EQ(timeout.pod_sets[0].count, 1);
  EXPECT_EQ(timeout.meta.annotations.at("kueuesim.io/recorded-wait"), "10s");
  EXPECT_THAT(r.report.skipped,
              ElementsAre(Pair("bad gpu_num", 1), Pair("bad submit_time", 1), Pair("cancelled before start", 1),
                          Pair("cancelled with zero duration", 1), Pair("negative duration", 2),
                          Pair("too few fields", 1)));
  EXPECT_THAT(r.report.repaired, ElementsAre(Pair("gpu_num or cpu_num not divisible by node_num (rounded up)", 1),
                                             Pair("node_num missing or 0 (1 node)", 1)));
  EXPECT_EQ(r.report.rows_read, r.report.workloads + TotalSkipped(r.report));
}

// Setup: rows whose node_num is zero spelled "00", "+0", "-0" and with
// many digits, then -1 (found by fuzzing: a zero not spelled "0" once
// divided by zero).
// Expectation: every zero is one node, counted as repaired; -1 is skipped.
TEST(HeliosTest, NodeNumZeroInAnySpellingIsOneNode) {
  std::string csv = "job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";
  const std::vector<std::string> node_nums = {"00", "+0", "-0", "0000000000000000000000000000000000000000", "-1"};
  for (size_t i = 0; i < node_nums.size(); ++i) {
    csv += std::to_string(100 + i) + ",u,vcA,train,8,16," + node_nums[i] +
           ",COMPLETED,2020-06-09 18:40:00,2020-06-09 18:45:00,2020-06-09 19:45:00,3600,300\n";
  }
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("helios", WriteTemp("helios_node_num_zero.csv", csv))));
  ASSERT_EQ(r.workloads.size(), 4u);
  for (const auto& wl : r.workloads) {
    EXPECT_EQ(wl.pod_sets[0].count, 1) << wl.meta.name;
    EXPECT_EQ(Request(wl, "nvidia.com/gpu"), 8) << wl.meta.name;
  }
  EXPECT_THAT(r.report.repaired, ElementsAre(Pair("node_num missing or 0 (1 node)", 4)));
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("bad node_num", 1)));
}

// Setup: namespace mapped from the user column, priority a constant, the
// log without start/end columns (duration and queue only), and a log with
// neither duration nor start/end. Expectation: the mapping applies; the
// recorded wait then comes from `queue`; the last header is refused.
TEST(HeliosTest, MappingAndColumnVariants) {
  TraceSpec spec = Spec("helios", TestData("helios_readme_rows.csv"));
  spec.mapping["namespace"].field = "user";
  spec.mapping["priority"].value = "3";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult mapped, ReadAll(spec));
  EXPECT_EQ(mapped.workloads[0].meta.namespace_, "uXBbc");
  EXPECT_EQ(mapped.workloads[0].priority, 3);
  const std::string short_log = WriteTemp("helios_short.csv",
                                          "job_id,vc,gpu_num,cpu_num,node_num,state,submit_time,duration,queue\n"
                                          "7,vcA,1,2,1,COMPLETED,2020-06-09 18:41:01,100,42\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("helios", short_log)));
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].duration, 100 * kSecond);
  EXPECT_EQ(r.workloads[0].meta.annotations.at("kueuesim.io/recorded-wait"), "42s");
  const std::string no_duration = WriteTemp("helios_nodur.csv",
                                            "job_id,vc,gpu_num,cpu_num,node_num,state,submit_time\n"
                                            "7,vcA,1,2,1,COMPLETED,2020-06-09 18:41:01\n");
  EXPECT_THAT(ReadAll(Spec("helios", no_duration)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs a duration column or start_time")));
}

}  // namespace
}  // namespace kueuesim::trace
