// Tests for kueuesim/report: reading a run directory back (summary, time
// series, events, run.json) with clear errors, and the HTML report built
// from it: one offline file with the charting library inlined,
// deterministic, every ClusterQueue charted, every run in every legend,
// step data as steps, degenerate distributions visible, one unit per table
// column, wall-clock axes from the scenario's startTime.
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

  auto rendered = RenderHtmlReport({*run, *run});
  ASSERT_THAT(rendered, IsOk());
  const std::string& html = *rendered;
  auto again = RenderHtmlReport({*run, *run});
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(html, *again);
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  // One offline file: the charting library inlined, nothing fetched.
  EXPECT_THAT(html, HasSubstr("new Dygraph("));
  EXPECT_THAT(html, HasSubstr("dygraphs (Debian libjs-dygraphs), inlined"));
  EXPECT_THAT(html, Not(HasSubstr("<script src")));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  EXPECT_THAT(html, Not(HasSubstr("href=\"http")));
  // Utilization of cq, the wait CDFs and the preemptions chart.
  EXPECT_THAT(html, HasSubstr("data-kind=\"utilization\" data-title=\"cq f cpu\""));
  EXPECT_THAT(html, HasSubstr("data-title=\"wait CDF in cq\""));
  EXPECT_THAT(html, HasSubstr("data-title=\"preemptions\""));
  // The idle ClusterQueue has its charts too: pending (0 throughout: the
  // run has time series but never recorded it) and an empty wait chart.
  EXPECT_THAT(html, HasSubstr("data-title=\"pending in idle\""));
  EXPECT_THAT(html, HasSubstr("data-title=\"wait CDF in idle\""));
  EXPECT_THAT(html, HasSubstr("No admitted workloads: no waits to show."));
  // Step data are steps, with the value before the first sample stated.
  EXPECT_THAT(html, HasSubstr("data-kind=\"pending\" data-title=\"pending in cq\" data-runs=\"kueuesim-report-test"));
  EXPECT_THAT(html, Not(HasSubstr("data-step=\"false\"")));
  // Every run in every legend, told apart by colour and dash.
  const auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = html.find(needle); at != std::string::npos; at = html.find(needle, at + 1)) ++n;
    return n;
  };
  const size_t figures = count("<figure class=\"chart\"");
  EXPECT_GE(figures, 6u);
  EXPECT_EQ(count("<li data-run=\"0\">"), figures);
  EXPECT_EQ(count("<li data-run=\"1\">"), figures);
  EXPECT_THAT(html, HasSubstr(std::string("stroke-dasharray=\"") + RunDash(1) + "\""));
  EXPECT_STRNE(RunDash(0), RunDash(1));
  EXPECT_STRNE(RunColor(0), RunColor(1));
  // One unit per table column: waits of 0 s and 30 s both in seconds; the
  // idle ClusterQueue's waits read "-" (no data), never "0".
  EXPECT_THAT(html, HasSubstr("<th>wait p50 (s)</th><th>wait p90 (s)</th>"));
  EXPECT_THAT(html, HasSubstr("<td data-seconds=\"0\">0.00</td><td data-seconds=\"30\">30.00</td>"));
  EXPECT_THAT(html, HasSubstr("<td>0</td><td>0</td><td>0</td><td>0</td><td data-seconds=\"\">-</td>"
                              "<td data-seconds=\"\">-</td></tr>"));
  // The utilization series: 50% from 0 s, 100% from 50 s, to the end.
  EXPECT_THAT(html, HasSubstr("\"end\":100,\"before\":0,\"points\":[[0,50],[50,100]]"));
  // No startTime: simulated time.
  EXPECT_THAT(html, HasSubstr("{\"startTime\":null,"));
  EXPECT_THAT(html, Not(HasSubstr("data-x=\"wall\"")));
}

// Setup: a LeaderWorkerSet with 2 groups scaled to 5 at 1800 s, ready
// groups reaching 5 at 1980 s. Invariant: its chart shows the ready groups
// (thick) and the desired ones (thin, a step from 2 to 5 at 1800 s).
TEST(RunDataTest, LeaderWorkerSetReadyAgainstDesiredGroups) {
  RunDirectory dir("kueuesim-report-test");
  dir.Write("summary.json", R"({"endTime": 3600.0, "events": 3, "clusters": [{"name": "", "clusterQueues": [],
    "leaderWorkerSets": [{"name": "chat/chat", "replicas": 5, "size": 4, "rollouts": [],
      "scales": [{"at": 1800.0, "from": 2, "to": 5, "allReadyAt": 1980.0}],
      "readyGroups": [[0.0, 0], [180.0, 2], [1980.0, 5]]}]}]})");
  auto run = LoadRunDirectory(dir.path());
  ASSERT_THAT(run, IsOk());
  ASSERT_EQ(run->leader_worker_sets.size(), 1u);
  EXPECT_EQ(run->leader_worker_sets[0].ready_groups, (Points{{0, 0}, {180, 2}, {1980, 5}}));
  EXPECT_EQ(run->leader_worker_sets[0].desired_groups, (Points{{0, 2}, {1800, 5}}));
  auto rendered = RenderHtmlReport({*run});
  ASSERT_THAT(rendered, IsOk());
  EXPECT_THAT(*rendered, HasSubstr("data-kind=\"lws\" data-title=\"ready groups of chat/chat\""));
  EXPECT_THAT(*rendered, HasSubstr("\"thin\":false,\"end\":3600,\"before\":0,\"points\":[[0,0],[180,2],[1980,5]]"));
  EXPECT_THAT(*rendered, HasSubstr("\"thin\":true,\"end\":3600,\"before\":null,\"points\":[[0,2],[1800,5]]"));
}

// Setup: the same run with every wait 0 and a run.json with a startTime.
// Invariant: the wait CDF is marked degenerate and drawn as a jump to
// 100% at 0 s that runs on to 1 s (never a single invisible point), and
// time axes become wall-clock axes.
TEST(HtmlReportTest, DegenerateWaitsAndWallClock) {
  RunDirectory dir("kueuesim-report-degenerate");
  dir.Write("summary.json", kSummary);
  dir.Write("timeseries.jsonl",
            "{\"time\": 7200.0, \"cluster\": \"\", \"scope\": \"ClusterQueue\", \"name\": \"cq\", \"metric\": \"pending\", "
            "\"flavor\": \"\", \"resource\": \"\", \"value\": 3}\n");
  dir.Write("events.jsonl",
            "{\"time\": 5.0, \"type\": \"Arrived\", \"workload\": \"ns/a\", \"clusterQueue\": \"cq\"}\n"
            "{\"time\": 5.0, \"type\": \"QuotaReserved\", \"workload\": \"ns/a\", \"clusterQueue\": \"cq\"}\n"
            "{\"time\": 9.0, \"type\": \"Arrived\", \"workload\": \"ns/b\", \"clusterQueue\": \"cq\"}\n"
            "{\"time\": 9.0, \"type\": \"QuotaReserved\", \"workload\": \"ns/b\", \"clusterQueue\": \"cq\"}\n");
  dir.Write("run.json", "{\"startTime\": \"2024-01-01T00:00:00Z\"}\n");
  auto run = LoadRunDirectory(dir.path());
  ASSERT_THAT(run, IsOk());
  ASSERT_TRUE(run->start_time.has_value());
  EXPECT_EQ(*run->start_time, 1704067200.0);
  auto html = RenderHtmlReport({*run});
  ASSERT_THAT(html, IsOk());
  EXPECT_THAT(*html, HasSubstr("data-title=\"wait CDF in cq\" data-runs=\"kueuesim-report-degenerate"));
  EXPECT_THAT(*html, HasSubstr("data-degenerate=\"true\""));
  EXPECT_THAT(*html, HasSubstr("\"points\":[[0,100],[1,100]]"));
  EXPECT_THAT(*html, HasSubstr("Every admitted workload waited 0 s."));
  // The pending series starts at 0 and steps to 3 at 2 h (no ramp).
  EXPECT_THAT(*html, HasSubstr("\"before\":0,\"points\":[[7200,3]]"));
  EXPECT_THAT(*html, HasSubstr("{\"startTime\":1704067200,"));
  EXPECT_THAT(*html, HasSubstr("data-x=\"wall\""));
  EXPECT_THAT(*html, HasSubstr("<td class=\"name\">2024-01-01T00:00:00Z</td>"));

  dir.Write("run.json", "{\"startTime\": \"yesterday\"}\n");
  auto bad = LoadRunDirectory(dir.path());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("run.json: field \"startTime\""));
}

// Invariant: without the charting library the report fails with an error
// that names the missing file and the package; it never writes a page
// without charts.
TEST(HtmlReportTest, MissingChartLibraryIsAnError) {
  RunDirectory dir("kueuesim-report-nolib");
  dir.Write("summary.json", kSummary);
  auto run = LoadRunDirectory(dir.path());
  ASSERT_THAT(run, IsOk());
  ReportOptions options;
  options.chart_library_dir = dir.path() + "/no-such-dir";
  auto html = RenderHtmlReport({*run}, options);
  EXPECT_EQ(html.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(html.status().message()), HasSubstr("no-such-dir/dygraph.min.js"));
  EXPECT_THAT(std::string(html.status().message()), HasSubstr("libjs-dygraphs"));
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
