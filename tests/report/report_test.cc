// Tests for kueuesim/report: reading a run directory back (summary, time
// series, events) with clear errors, and the HTML report built from it:
// self-contained, deterministic, one chart per series, utilization as
// usage over quota.
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/report/html_report.h"
#include "kueuesim/report/run_data.h"
#include "testing/status_matchers.h"

namespace kueuesim::report {
namespace {

using ::kueuesim::testing::IsOk;
using ::testing::HasSubstr;
using ::testing::Not;

class RunDirectory {
 public:
  explicit RunDirectory(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              (name + "-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~RunDirectory() { std::filesystem::remove_all(path_); }
  void Write(const std::string& file, const std::string& text) const { std::ofstream(path_ / file) << text; }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

constexpr const char* kSummary = R"({"endTime": 100.0, "events": 7, "clusters": [{"name": "", "clusterQueues": [
  {"name": "cq", "admitted": 2, "finished": 2, "pending": 0, "preempted": 1,
   "waitSeconds": {"p50": 0.0, "p90": 30.0},
   "resources": [{"flavor": "f", "resource": "cpu", "utilization": 0.5}]},
  {"name": "idle", "admitted": 0, "finished": 0, "pending": 0, "preempted": 0,
   "waitSeconds": {"count": 0, "p50": null, "p90": null}, "resources": []}]}]})";

// Setup: cq has quota 4 cpu from 0 s, uses 2 cpu from 0 s and 4 cpu from
// 50 s; one workload waited 0 s, another 30 s; one preemption at 50 s.
// Invariant: the run reads back with its figures, series and sorted waits.
TEST(RunDataTest, ReadsSummaryTimeSeriesAndEvents) {
  RunDirectory dir("kueuesim-report-test");
  dir.Write("summary.json", kSummary);
  dir.Write("timeseries.jsonl",
            "{\"time\": 0.0, \"cluster\": \"\", \"scope\": \"ClusterQueue\", \"name\": \"cq\", \"metric\": \"quota\", "
            "\"flavor\": \"f\", \"resource\": \"cpu\", \"value\": 4}\n"
            "{\"time\": 0.0, \"cluster\": \"\", \"scope\": \"ClusterQueue\", \"name\": \"cq\", \"metric\": \"usage\", "
            "\"flavor\": \"f\", \"resource\": \"cpu\", \"value\": 2}\n"
            "{\"time\": 50.0, \"cluster\": \"\", \"scope\": \"ClusterQueue\", \"name\": \"cq\", \"metric\": \"usage\", "
            "\"flavor\": \"f\", \"resource\": \"cpu\", \"value\": 4}\n");
  dir.Write("events.jsonl",
            "{\"time\": 0.0, \"type\": \"Arrived\", \"workload\": \"ns/a\", \"clusterQueue\": \"cq\"}\n"
            "{\"time\": 0.0, \"type\": \"QuotaReserved\", \"workload\": \"ns/a\", \"clusterQueue\": \"cq\"}\n"
            "{\"time\": 20.0, \"type\": \"Arrived\", \"workload\": \"ns/b\", \"clusterQueue\": \"cq\"}\n"
            "{\"time\": 50.0, \"type\": \"Preempted\", \"workload\": \"ns/a\", \"clusterQueue\": \"cq\"}\n"
            "{\"time\": 50.0, \"type\": \"QuotaReserved\", \"workload\": \"ns/b\", \"clusterQueue\": \"cq\"}\n"
            "{\"time\": 60.0, \"type\": \"QuotaReserved\", \"workload\": \"ns/a\", \"clusterQueue\": \"cq\"}\n");
  auto run = LoadRunDirectory(dir.path());
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->end_time, 100.0);
  EXPECT_EQ(run->events, 7);
  ASSERT_EQ(run->queues.size(), 2u);
  EXPECT_EQ(run->queues[0].preempted, 1);
  EXPECT_EQ(run->queues[0].wait_p90, 30.0);
  // A ClusterQueue that admitted nothing has no wait, not a wait of 0.
  EXPECT_FALSE(run->queues[1].wait_p50.has_value());
  SeriesKey usage{"", "ClusterQueue", "cq", "usage", "f", "cpu"};
  ASSERT_EQ(run->series.count(usage), 1u);
  EXPECT_EQ(run->series[usage], (Points{{0, 2}, {50, 4}}));
  // The re-reservation of ns/a after its preemption is not a second wait.
  EXPECT_EQ(run->waits["cq"], (std::vector<double>{0, 30}));
  EXPECT_EQ(run->preemptions, (std::vector<double>{50}));

  const std::string html = RenderHtmlReport({*run, *run});
  EXPECT_EQ(html, RenderHtmlReport({*run, *run}));
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("href=")));
  EXPECT_THAT(html, Not(HasSubstr("src=")));
  // Utilization (50% then 100% of 4 cpu), pending (absent: no chart rows),
  // the wait CDF and the preemptions chart.
  EXPECT_THAT(html, HasSubstr("aria-label=\"cq f cpu\""));
  // The idle ClusterQueue's waits read "-" (no data), never "0 s".
  EXPECT_THAT(html, HasSubstr("<td>0</td><td>0</td><td>0</td><td>0</td><td>-</td><td>-</td></tr>"));
  EXPECT_THAT(html, HasSubstr("aria-label=\"wait CDF in cq\""));
  EXPECT_THAT(html, HasSubstr("aria-label=\"preemptions\""));
  // Two runs: both colours in the legend.
  EXPECT_THAT(html, HasSubstr(RunColor(0)));
  EXPECT_THAT(html, HasSubstr(RunColor(1)));
  // The utilization polyline: x 0..100 s over 520 px from 64; y 0..100 %
  // over 208 px from 48: (0 s, 50%) -> (64.0, 152.0), (50 s, 100%) ->
  // (324.0, 48.0), extended to the end (584.0, 48.0).
  EXPECT_THAT(html, HasSubstr("points=\"64.0,152.0 324.0,152.0 324.0,48.0 584.0,48.0\""));
}

TEST(RunDataTest, ErrorsNameTheFileAndLine) {
  RunDirectory dir("kueuesim-report-errors");
  auto missing = LoadRunDirectory(dir.path());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("summary.json"));
  dir.Write("summary.json", kSummary);
  dir.Write("timeseries.jsonl", "{\"time\": 0.0, \"name\": \"cq\", \"metric\": \"usage\", \"value\": 1}\n{\"time\": 1.0}\n");
  auto bad = LoadRunDirectory(dir.path());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("timeseries.jsonl:2: field \"value\""));
  auto not_a_dir = LoadRunDirectory(dir.path() + "/nope");
  EXPECT_EQ(not_a_dir.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kueuesim::report
