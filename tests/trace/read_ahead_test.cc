// Tests for trace::ReadAhead (src/trace/read_ahead.cc): a source read on a
// thread of its own hands out the same workloads, in the same order, with
// the same errors and the same report as the source read directly, also
// when the reading stops early or the source fails midway.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/status.h"
#include "testing/status_matchers.h"
#include "trace/trace_test_util.h"

namespace kueuesim::trace {
namespace {

using ::kueuesim::testing::StatusIs;
using ::testing::HasSubstr;
using namespace ::kueuesim::trace::testing;  // NOLINT

// 3,001 rows (more than ten batches of the reader), arrivals out of order,
// every 97th row with a bad arrival (skipped, counted in the report).
std::string LargeUnsortedCsv() {
  std::string text = "name,queue,arrival,duration\n";
  for (int i = 0; i < 3001; ++i) {
    const std::string arrival = i % 97 == 5 ? "soon" : std::to_string((i * 7919) % 5003) + "s";
    text += "w" + std::to_string(i) + ",q," + arrival + ",10s\n";
  }
  return WriteTemp("read_ahead.csv", text);
}

struct Delivered {
  std::string name;
  SimTime arrival = 0;
  int64_t line = 0;
  bool operator==(const Delivered&) const = default;
};

// Reads up to `count` workloads (all when negative) through NextShared.
std::vector<Delivered> Take(WorkloadSource* source, int count = -1) {
  std::vector<Delivered> out;
  while (count < 0 || static_cast<int>(out.size()) < count) {
    auto next = source->NextShared();
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok() || *next == nullptr) break;
    out.push_back({(*next)->meta.name, (*next)->arrival, (*next)->meta.source.line});
  }
  return out;
}

std::unique_ptr<WorkloadSource> Open(const TraceSpec& spec) {
  auto source = OpenTrace(spec);
  EXPECT_TRUE(source.ok()) << source.status();
  return source.ok() ? *std::move(source) : nullptr;
}

// Setup: an unsorted trace of 3,001 rows read directly and read ahead.
// Expectation: the same workloads in the same order, the same report
// (rows read, skipped rows and their examples, workloads).
TEST(ReadAheadTest, SameWorkloadsAndReportAsDirectReading) {
  const TraceSpec spec = Spec("native-csv", LargeUnsortedCsv());
  std::unique_ptr<WorkloadSource> direct = Open(spec);
  ASSERT_NE(direct, nullptr);
  ASSERT_TRUE(direct->CanReadAhead());
  const std::vector<Delivered> expected = Take(direct.get());
  ASSERT_EQ(expected.size(), 3001u - 31u);  // rows 5, 102, ..., 2915 are bad

  std::unique_ptr<WorkloadSource> ahead = ReadAhead(Open(spec));
  EXPECT_EQ(Take(ahead.get()), expected);
  // The end stays the end.
  auto after = ahead->NextShared();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, nullptr);
  EXPECT_EQ(ahead->report().Format(), direct->report().Format());
  EXPECT_EQ(ahead->report().workloads, 2970);
}

// Setup: the same trace read ahead, the report asked for after 300
// workloads (as a run that stops at `until` does), then read to the end.
// Expectation: the report counts the 300 handed out, not what the thread
// read ahead; the reading then goes on from the 301st, as a direct reading
// does, and the final report is the direct one.
TEST(ReadAheadTest, ReportMidwayCountsWhatWasHandedOutAndReadingGoesOn) {
  const TraceSpec spec = Spec("native-csv", LargeUnsortedCsv());
  std::unique_ptr<WorkloadSource> direct = Open(spec);
  const std::vector<Delivered> first = Take(direct.get(), 300);
  const ImportReport midway = direct->report();
  const std::vector<Delivered> rest = Take(direct.get());

  std::unique_ptr<WorkloadSource> ahead = ReadAhead(Open(spec));
  EXPECT_EQ(Take(ahead.get(), 300), first);
  EXPECT_EQ(ahead->report().Format(), midway.Format());
  EXPECT_EQ(ahead->report().workloads, 300);
  EXPECT_EQ(Take(ahead.get()), rest);
  EXPECT_EQ(ahead->report().Format(), direct->report().Format());
}

// A source that fails after `good` workloads.
class FailingSource : public WorkloadSource {
 public:
  explicit FailingSource(int good) : good_(good) { report_.source = "failing"; }
  absl::StatusOr<std::optional<model::Workload>> Next() override {
    if (read_ == good_) return InvalidArgument("trace.csv:9: row broken");
    model::Workload wl;
    wl.meta.name = "w" + std::to_string(read_++);
    ++report_.workloads;
    return std::optional<model::Workload>(std::move(wl));
  }
  const ImportReport& report() const override { return report_; }
  bool CanReadAhead() const override { return true; }

 private:
  int good_;
  int read_ = 0;
  ImportReport report_;
};

// Setup: a source whose 601st workload fails, read ahead.
// Expectation: the 600 workloads, then the error, where a direct reading
// meets it.
TEST(ReadAheadTest, ErrorComesAfterTheWorkloadsBeforeIt) {
  std::unique_ptr<WorkloadSource> ahead = ReadAhead(std::make_unique<FailingSource>(600));
  for (int i = 0; i < 600; ++i) {
    auto next = ahead->NextShared();
    ASSERT_TRUE(next.ok()) << i << ": " << next.status();
    ASSERT_NE(*next, nullptr);
    EXPECT_EQ((*next)->meta.name, "w" + std::to_string(i));
  }
  EXPECT_THAT(ahead->NextShared().status(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("row broken")));
  EXPECT_EQ(ahead->report().workloads, 600);
}

// Setup: sources read ahead and dropped at once, after one workload, and
// after Next (the optional form).
// Expectation: no hang, no leak (the sanitizer build runs this too).
TEST(ReadAheadTest, DroppedEarlyStopsTheThread) {
  const TraceSpec spec = Spec("native-csv", LargeUnsortedCsv());
  { std::unique_ptr<WorkloadSource> ahead = ReadAhead(Open(spec)); }
  {
    std::unique_ptr<WorkloadSource> ahead = ReadAhead(Open(spec));
    auto next = ahead->Next();
    ASSERT_TRUE(next.ok());
    ASSERT_TRUE(next->has_value());
    EXPECT_EQ((*next)->meta.source.line, Take(Open(spec).get(), 1)[0].line);
  }
}

// Setup: a trace read lazily (option sorted: "true" counts its rows as it
// reads them) and one replayed at its recorded starts (a missing start is
// counted as it is read).
// Expectation: neither may be read ahead; a plain one may.
TEST(ReadAheadTest, OnlySourcesWhoseReportIsCompleteMayBeReadAhead) {
  const std::string path = WriteTemp("lazy.csv", "name,queue,arrival\na,q,0\nb,q,10s\n");
  TraceSpec lazy = Spec("native-csv", path);
  lazy.options["sorted"] = "true";
  EXPECT_FALSE(Open(lazy)->CanReadAhead());
  TraceSpec replay = Spec("native-csv", path);
  replay.options["replayRecordedStart"] = "true";
  EXPECT_FALSE(Open(replay)->CanReadAhead());
  EXPECT_TRUE(Open(Spec("native-csv", path))->CanReadAhead());
}

}  // namespace
}  // namespace kueuesim::trace
