// Tests for what every format shares (src/trace/source.cc, importers.cc):
// ordering of unsorted input, window, limit, scales, arrival origin,
// mapping overrides and their errors, options, and streaming with bounded
// memory.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
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
using ::testing::IsEmpty;
using ::testing::Pair;
using namespace ::kueuesim::trace::testing;  // NOLINT

std::vector<std::string> Names(const std::vector<model::Workload>& workloads) {
  std::vector<std::string> out;
  for (const auto& wl : workloads) out.push_back(wl.meta.name);
  return out;
}

std::vector<SimDuration> Arrivals(const std::vector<model::Workload>& workloads) {
  std::vector<SimDuration> out;
  for (const auto& wl : workloads) out.push_back(wl.arrival);
  return out;
}

// Arrivals 30, 0, 20, 10, 20, 40, 5 seconds (unsorted, a tie at 20s).
std::string UnsortedCsv() {
  return WriteTemp("unsorted.csv",
                   "name,queue,arrival,duration\n"
                   "d,q,30s,10s\n"
                   "a,q,0,10s\n"
                   "c1,q,20s,10s\n"
                   "b,q,10s,10s\n"
                   "c2,q,20s,10s\n"
                   "e,q,40s,10s\n"
                   "a5,q,5s,10s\n");
}

// Setup: a native CSV whose arrivals are out of order, with a tie.
// Expectation: workloads in arrival order, the tie in file order, each
// workload's source line its own row's.
TEST(TraceSourceTest, UnsortedInputIsSortedTiesInFileOrder) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("native-csv", UnsortedCsv())));
  EXPECT_THAT(Names(r.workloads), ElementsAre("a", "a5", "b", "c1", "c2", "d", "e"));
  EXPECT_THAT(Arrivals(r.workloads), ElementsAre(0, 5 * kSecond, 10 * kSecond, 20 * kSecond, 20 * kSecond,
                                                 30 * kSecond, 40 * kSecond));
  EXPECT_EQ(r.workloads[0].meta.source.line, 3);
  EXPECT_EQ(r.report.rows_read, 7);
  EXPECT_THAT(r.report.skipped, IsEmpty());
  EXPECT_EQ(r.report.source, "kueuesim_trace_unsorted.csv (native-csv)");
}

// Setup: window [10s, 30s) over the unsorted file. Expectation: b, c1, c2;
// simulated time 0 is the window start (arrivals 0, 10s, 10s); the four
// others counted as "outside the window".
TEST(TraceSourceTest, WindowSelectsTraceTimeRange) {
  TraceSpec spec = Spec("native-csv", UnsortedCsv());
  spec.window_start = 10 * kSecond;
  spec.window_end = 30 * kSecond;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  EXPECT_THAT(Names(r.workloads), ElementsAre("b", "c1", "c2"));
  EXPECT_THAT(Arrivals(r.workloads), ElementsAre(0, 10 * kSecond, 10 * kSecond));
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("outside the window", 4)));
  EXPECT_EQ(r.report.rows_read, r.report.workloads + TotalSkipped(r.report));
}

// Setup: window [8s, ...) with arrivalOrigin "trace" (default) and "first",
// on sorted and on unsorted input. Expectation: "trace" keeps the gap from
// the window start (first arrival 2s); "first" starts at the first arrival
// in the window (0); both the same sorted or not.
TEST(TraceSourceTest, ArrivalOrigin) {
  const std::string sorted = WriteTemp("sorted.csv", "name,queue,arrival\na,q,0\nb,q,10s\nc,q,25s\n");
  for (const std::string& path : {sorted, UnsortedCsv()}) {
    TraceSpec spec = Spec("native-csv", path);
    spec.window_start = 8 * kSecond;
    KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult trace_origin, ReadAll(spec));
    EXPECT_EQ(trace_origin.workloads.front().arrival, 2 * kSecond) << path;
    spec.options["arrivalOrigin"] = "first";
    KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult first_origin, ReadAll(spec));
    EXPECT_EQ(first_origin.workloads.front().arrival, 0) << path;
    EXPECT_EQ(first_origin.workloads[1].arrival - first_origin.workloads[0].arrival,
              trace_origin.workloads[1].arrival - trace_origin.workloads[0].arrival);
  }
}

// Setup: scale arrival 2 (twice the rate) and duration 0.5. Expectation:
// arrivals halved relative to trace start, durations halved; a rate of 3
// rounds to the nearest microsecond and keeps the order.
TEST(TraceSourceTest, Scales) {
  TraceSpec spec = Spec("native-csv", UnsortedCsv());
  spec.arrival_scale = 2;
  spec.duration_scale = 0.5;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  EXPECT_THAT(Arrivals(r.workloads), ElementsAre(0, 2500 * kMillisecond, 5 * kSecond, 10 * kSecond, 10 * kSecond,
                                                 15 * kSecond, 20 * kSecond));
  for (const auto& wl : r.workloads) EXPECT_EQ(wl.duration, 5 * kSecond);
  spec.arrival_scale = 3;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult thirds, ReadAll(spec));
  EXPECT_EQ(thirds.workloads[2].arrival, 3333333);
  EXPECT_TRUE(ArrivalsSorted(thirds.workloads));
}

// Setup: limit 3 over unsorted input, over sorted input, and limit 0.
// Expectation: the first three in arrival order; the rest counted as
// "beyond the limit"; limit 0 yields nothing.
// Setup: rows whose arrival, duration or scaled duration lie beyond the
// simulated time range (spec.time_limit, the scenario's limits.time), or
// overflow int64 once scaled (issue 24). Expectation: an input error naming
// the file and the line, never a wrapped time.
TEST(TraceSourceTest, TimesBeyondTheRangeAreInputErrors) {
  const std::string path = WriteTemp("late.csv", "name,queue,arrival,duration\na,q,10s,10s\nb,q,2h,10s\n");
  TraceSpec spec = Spec("native-csv", path);
  spec.time_limit = kHour;
  EXPECT_THAT(ReadAll(spec), StatusIs(absl::StatusCode::kInvalidArgument,
                                      AllOf(HasSubstr(path + ":3: arrival is beyond (2h0m0s) the simulated time range "
                                                      "of 1h0m0s"))));
  const std::string huge = WriteTemp("huge.csv", "name,queue,arrival,duration\na,q,1s,2562047h\n");
  TraceSpec scaled = Spec("native-csv", huge);
  scaled.duration_scale = 1e10;
  EXPECT_THAT(ReadAll(scaled), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(":2: duration overflows")));
  scaled.duration_scale = 1.0;
  scaled.time_limit = kHour;
  EXPECT_THAT(ReadAll(scaled), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(":2: duration is beyond")));
  scaled.time_limit = 3000000 * kHour;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult within, ReadAll(scaled));
  EXPECT_EQ(within.workloads.size(), 1u);
}

TEST(TraceSourceTest, Limit) {
  TraceSpec spec = Spec("native-csv", UnsortedCsv());
  spec.limit = 3;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  EXPECT_THAT(Names(r.workloads), ElementsAre("a", "a5", "b"));
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("beyond the limit", 4)));
  TraceSpec sorted = Spec("native-csv", WriteTemp("lim.csv", "queue,arrival\nq,1\nq,2\nq,3\nq,4\n"));
  sorted.limit = 2;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult s, ReadAll(sorted));
  EXPECT_EQ(s.workloads.size(), 2u);
  EXPECT_THAT(s.report.skipped, ElementsAre(Pair("beyond the limit", 2)));
  sorted.limit = 0;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult none, ReadAll(sorted));
  EXPECT_TRUE(none.workloads.empty());
}

// Setup: window, limit and a broken row together on unsorted input.
// Expectation: the broken row is skipped with its reason; the window is
// applied before the limit; rows_read = workloads + skipped.
TEST(TraceSourceTest, WindowLimitAndSkipsTogether) {
  TraceSpec spec = Spec("native-csv", WriteTemp("wls.csv",
                                                "name,queue,arrival\nz,q,50s\ny,q,oops\nx,q,5s\nw,q,15s\nv,q,12s\nu,q,14s\n"));
  spec.window_start = 10 * kSecond;
  spec.window_end = 60 * kSecond;
  spec.limit = 2;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  EXPECT_THAT(Names(r.workloads), ElementsAre("v", "u"));
  EXPECT_THAT(r.report.skipped, ElementsAre(Pair("bad arrival", 1), Pair("beyond the limit", 2),
                                            Pair("outside the window", 1)));
  EXPECT_EQ(r.report.rows_read, 6);
  EXPECT_EQ(r.report.rows_read, r.report.workloads + TotalSkipped(r.report));
}

// Setup: option sorted "true" (one streaming pass, no counting pass) on a
// file with one row out of order and a window. Expectation: the late row is
// moved to its predecessor's arrival and counted as repaired; the output
// stays sorted; the window is applied as rows stream by.
TEST(TraceSourceTest, SortedOptionStreamsOnceAndRepairsDisorder) {
  TraceSpec spec = Spec("native-csv", WriteTemp("presorted.csv", "name,queue,arrival\na,q,0\nb,q,10s\nc,q,5s\nd,q,20s\n"));
  spec.options["sorted"] = "true";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  EXPECT_THAT(Names(r.workloads), ElementsAre("a", "b", "c", "d"));
  EXPECT_THAT(Arrivals(r.workloads), ElementsAre(0, 10 * kSecond, 10 * kSecond, 20 * kSecond));
  EXPECT_EQ(r.report.repaired.size(), 1u);
  EXPECT_THAT(r.report.examples, ElementsAre(HasSubstr("line 4: repaired: arrival earlier")));
  spec.window_start = 15 * kSecond;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult w, ReadAll(spec));
  EXPECT_THAT(Names(w.workloads), ElementsAre("d"));
  EXPECT_THAT(w.report.skipped, ElementsAre(Pair("outside the window", 3)));
}

// Setup: every mapping key overridden on a CSV with extra columns: a
// constant namespace, queue from a column through `values` with a default,
// a name with a prefix, priority through `values`, a constant priority
// class, and flavorLabel with single and "|"-separated values.
// Expectation: the mapped values; a single flavor value is a nodeSelector,
// several a required node-affinity term In (sorted, duplicates removed);
// an empty one none.
TEST(TraceSourceTest, MappingOverrides) {
  TraceSpec spec = Spec("native-csv", WriteTemp("map.csv",
                                                "id,arrival,team,tier,model\n"
                                                "1,0,ml,gold,A100\n"
                                                "2,1s,web,silver,V100|A100|V100\n"
                                                "3,2s,other,bronze,\n"));
  spec.mapping["namespace"].value = "shared";
  spec.mapping["queue"].field = "team";
  spec.mapping["queue"].values = {{"ml", "ml-queue"}, {"web", "web-queue"}};
  spec.mapping["queue"].default_value = "misc";
  spec.mapping["name"].field = "id";
  spec.mapping["name"].prefix = "job-";
  spec.mapping["priority"].field = "tier";
  spec.mapping["priority"].values = {{"gold", "1000"}, {"silver", "500"}};
  spec.mapping["priorityClass"].value = "batch";
  spec.mapping["flavorLabel"].field = "model";
  spec.mapping["flavorLabel"].label = "gpu-model";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  ASSERT_EQ(r.workloads.size(), 3u);
  EXPECT_THAT(Names(r.workloads), ElementsAre("job-1", "job-2", "job-3"));
  EXPECT_EQ(r.workloads[0].meta.namespace_, "shared");
  EXPECT_EQ(r.workloads[0].queue_name, "ml-queue");
  EXPECT_EQ(r.workloads[1].queue_name, "web-queue");
  EXPECT_EQ(r.workloads[2].queue_name, "misc");
  EXPECT_EQ(r.workloads[0].priority, 1000);
  EXPECT_EQ(r.workloads[1].priority, 500);
  EXPECT_FALSE(r.workloads[2].priority.has_value());
  EXPECT_EQ(r.workloads[2].priority_class_name, "batch");
  EXPECT_THAT(r.workloads[0].pod_sets[0].rare->node_selector, ElementsAre(Pair("gpu-model", "A100")));
  EXPECT_TRUE(r.workloads[0].pod_sets[0].rare->required_affinity.empty());
  const auto& affinity = r.workloads[1].pod_sets[0].rare->required_affinity;
  ASSERT_EQ(affinity.size(), 1u);
  ASSERT_EQ(affinity[0].match_expressions.size(), 1u);
  EXPECT_EQ(affinity[0].match_expressions[0].key, "gpu-model");
  EXPECT_EQ(affinity[0].match_expressions[0].op, model::SelectorOperator::kIn);
  EXPECT_THAT(affinity[0].match_expressions[0].values, ElementsAre("A100", "V100"));
  EXPECT_TRUE(r.workloads[1].pod_sets[0].rare->node_selector.empty());
  EXPECT_TRUE(r.workloads[2].pod_sets[0].rare->node_selector.empty());
  EXPECT_TRUE(r.workloads[2].pod_sets[0].rare->required_affinity.empty());
}

// Setup: invalid mappings, options, formats and scales. Expectation: each
// refused at open with the Trace, the field path and the reason.
TEST(TraceSourceTest, InvalidSpecsAreRefused) {
  const std::string path = WriteTemp("spec.csv", "queue,arrival\nq,1\n");
  auto expect_error = [&](const std::function<void(TraceSpec&)>& edit, const std::string& message) {
    TraceSpec spec = Spec("native-csv", path);
    edit(spec);
    EXPECT_THAT(OpenTrace(spec), StatusIs(absl::StatusCode::kInvalidArgument,
                                          AllOf(HasSubstr("scenario.yaml:3: Trace \"t\""), HasSubstr(message))));
  };
  expect_error([](TraceSpec& s) { s.mapping["user"].value = "x"; }, "spec.mapping.user: unknown mapping");
  expect_error([](TraceSpec& s) { s.mapping["queue"] = {"a", "queue", {}, "", "", ""}; }, "either value or field");
  expect_error([](TraceSpec& s) { s.mapping["queue"].field = "team"; }, "field \"team\" is not a column");
  expect_error([](TraceSpec& s) { s.mapping["flavorLabel"].field = "queue"; }, "needs a label");
  expect_error([](TraceSpec& s) { s.mapping["priority"].value = "high"; }, "not a 32-bit integer");
  expect_error([](TraceSpec& s) { s.mapping["queue"].label = "x"; s.mapping["queue"].value = "q"; },
               "label applies only to flavorLabel");
  expect_error([](TraceSpec& s) { s.options["gpuResorce"] = "x"; }, "spec.options.gpuResorce: unknown option");
  expect_error([](TraceSpec& s) { s.options["sorted"] = "yes"; }, "spec.options.sorted: unknown value");
  expect_error([](TraceSpec& s) { s.format = "csv"; }, "unknown format \"csv\"");
  expect_error([](TraceSpec& s) { s.arrival_scale = 0; }, "spec.scale");
  expect_error([](TraceSpec& s) {
    s.window_start = 10 * kSecond;
    s.window_end = 5 * kSecond;
  }, "spec.window");
}

// Setup: FormatNames. Expectation: the eleven formats (two of them change
// formats, alibaba-dlrm one with its default mapping), in a stable order.
TEST(TraceSourceTest, FormatNames) {
  EXPECT_THAT(FormatNames(), ElementsAre("native-csv", "native-jsonl", "kueue-workloads", "kueue-perf-generator",
                                         "alibaba-gpu-2023", "philly", "helios", "pollux", "alibaba-dlrm",
                                         "replica-timeline-csv", "replica-timeline-jsonl"));
}

int64_t MaxRssKiB() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// Setup: a generated 1,000,000-row native CSV (about 24 MB; each workload
// is several hundred bytes in memory), read through Next() one workload at a
// time without keeping them. Expectation: every workload arrives in order;
// the peak resident memory grows by far less than the workloads would take
// (< 32 MiB, where storing them would take > 300 MiB), and the read takes
// well under 3 s in an optimized build.
// GCC says a sanitizer is on with __SANITIZE_*__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KUEUESIM_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KUEUESIM_TEST_SANITIZED 1
#endif
#endif

TEST(TraceSourceTest, StreamsAMillionRowsInBoundedMemory) {
#if defined(KUEUESIM_TEST_SANITIZED)
  // Sanitizer builds run ~100x slower and keep freed memory in quarantine:
  // fewer rows, and the memory bound is not checked.
  constexpr int kRows = 50'000;
  constexpr bool kCheckMemory = false;
#else
  constexpr int kRows = 1'000'000;
  constexpr bool kCheckMemory = true;
#endif
  const std::string path = ProcessTempDir() + "/kueuesim_trace_million.csv";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << "queue,arrival,duration,cpu\n";
    std::string row;
    for (int i = 0; i < kRows; ++i) {
      row = "q,";
      row += std::to_string(i / 10);
      row += ",60,1\n";
      out << row;
    }
  }
  const int64_t rss_before = MaxRssKiB();
  const auto start = std::chrono::steady_clock::now();
  auto source = OpenTrace(Spec("native-csv", path));
  ASSERT_TRUE(source.ok()) << source.status();
  int64_t count = 0;
  SimDuration last = -1;
  bool sorted = true;
  while (true) {
    auto next = (*source)->Next();
    ASSERT_TRUE(next.ok()) << next.status();
    if (!next->has_value()) break;
    sorted = sorted && (*next)->arrival >= last;
    last = (*next)->arrival;
    ++count;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int64_t rss_growth_kib = MaxRssKiB() - rss_before;
  EXPECT_EQ(count, kRows);
  EXPECT_TRUE(sorted);
  EXPECT_EQ(last, (kRows / 10 - 1) * kSecond);
  EXPECT_EQ((*source)->report().rows_read, kRows);
  if (kCheckMemory) {
    EXPECT_LT(rss_growth_kib, 32 * 1024);
  }
  RecordProperty("seconds", std::to_string(seconds));
  RecordProperty("rss_growth_kib", std::to_string(rss_growth_kib));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace kueuesim::trace
