// Tests for the alibaba-dlrm format (src/trace/alibaba_dlrm.cc): real rows
// of the DLRM serving trace as LeaderWorkerSets with their scale Changes and
// as Deployment pods, every row accounted for (on a slice and on the whole
// file), broken rows counted by reason with their lines and columns, window
// and option errors.
#include <cstdlib>
#include <filesystem>
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

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr char kHeader[] =
    "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_limit,memory_request,"
    "memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,deletion_time\n";
constexpr char kAtStart[] = "HN instance alive at the trace start (no creation_time), deleted in it: a group from time 0";
constexpr char kThrough[] =
    "HN instance alive through the trace (no creation_time, no deletion_time): a group from time 0";
constexpr char kCreated[] = "HN instance created in the window: a group from its creation_time";
constexpr char kWorkers[] = "CN instance: worker pods of its application's groups (the group size)";

struct Lws {
  std::vector<model::LeaderWorkerSet> objects;
  std::vector<model::Change> changes;
  ImportReport report;
};

absl::StatusOr<Lws> ReadLws(const TraceSpec& spec) {
  auto objects = GeneratedObjectsFor(spec);
  if (!objects.ok()) return objects.status();
  auto source = OpenChangeTrace(spec);
  if (!source.ok()) return source.status();
  Lws out;
  out.objects = objects->leader_worker_sets;
  while (true) {
    auto next = (*source)->Next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) break;
    out.changes.push_back(**next);
  }
  out.report = (*source)->report();
  return out;
}

int64_t Sum(const std::map<std::string, int64_t>& counts) {
  int64_t total = 0;
  for (const auto& [reason, count] : counts) total += count;
  return total;
}

const model::LeaderWorkerSet* FindLws(const std::vector<model::LeaderWorkerSet>& all, const std::string& name) {
  for (const auto& lws : all) {
    if (lws.meta.name == name) return &lws;
  }
  return nullptr;
}

Amount PodRequest(const model::PodSet& pod_set, const std::string& resource) {
  for (const auto& r : pod_set.requests) {
    if (r.name == resource) return r.amount;
  }
  return -1;
}

// Setup: 64 real rows: the first 4 of app_0 (HN, alive throughout), and
// every row of app_1, app_3 and app_90 (the four time patterns: no times,
// deletion only, created and deleted, created and still alive).
// Expectation: one LeaderWorkerSet per application; groups at time 0 = the
// HN rows without creation_time (14: 11 alive through the trace, 3 deleted
// in it); one Change per instant an
// application's live HN count changes (45, checked against an independent
// count); every row accounted for: 14 + 24 groups + 26 CN rows = 64.
TEST(AlibabaDlrmTest, RealRowsBecomeLeaderWorkerSets) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Lws r, ReadLws(Spec("alibaba-dlrm", TestData("alibaba_dlrm_slice.csv"))));
  EXPECT_EQ(r.report.rows_read, 64);
  EXPECT_THAT(r.report.replicas,
              ElementsAre(Pair(kWorkers, 26), Pair(kAtStart, 3), Pair(kThrough, 11), Pair(kCreated, 24)));
  EXPECT_TRUE(r.report.skipped.empty());
  EXPECT_EQ(Sum(r.report.replicas) + Sum(r.report.skipped), r.report.rows_read);
  EXPECT_EQ(r.report.changes, 45);
  ASSERT_EQ(r.changes.size(), 45u);
  for (size_t i = 1; i < r.changes.size(); ++i) EXPECT_LE(r.changes[i - 1].at, r.changes[i].at);
  ASSERT_EQ(r.objects.size(), 4u);
  EXPECT_EQ(r.objects[0].meta.name, "app-0");
  EXPECT_EQ(r.objects[0].replicas, 4);
  EXPECT_EQ(r.objects[0].size, 1);  // no CN row: a leader alone
  EXPECT_EQ(r.objects[0].worker_template.count, 0);

  // app_3: 12 HN rows (4 alive at the start), 8 CN rows: round(8/12) = 1
  // worker per group.
  const model::LeaderWorkerSet* app3 = FindLws(r.objects, "app-3");
  ASSERT_NE(app3, nullptr);
  EXPECT_EQ(app3->meta.namespace_, "dlrm");
  EXPECT_EQ(app3->queue_name, "serving");
  EXPECT_EQ(app3->meta.labels.at("app"), "app_3");
  EXPECT_EQ(app3->replicas, 4);
  EXPECT_EQ(app3->size, 2);
  ASSERT_TRUE(app3->leader_template.has_value());
  // instance_457,HN,app_3,8,8,1,1,25,25,16.0,...
  EXPECT_EQ(PodRequest(*app3->leader_template, "cpu"), 8000);
  EXPECT_EQ(PodRequest(*app3->leader_template, "memory"), 16 * kGiB);
  EXPECT_EQ(PodRequest(*app3->leader_template, "nvidia.com/gpu"), 1);
  EXPECT_EQ(PodRequest(*app3->leader_template, "rdma/hca"), 25);
  // instance_459,CN,app_3,64,64,0,0,1,1,320.0,...
  EXPECT_EQ(app3->worker_template.name, "worker");
  EXPECT_EQ(app3->worker_template.count, 1);
  EXPECT_EQ(PodRequest(app3->worker_template, "cpu"), 64000);
  EXPECT_EQ(PodRequest(app3->worker_template, "memory"), 320 * kGiB);
  EXPECT_EQ(PodRequest(app3->worker_template, "nvidia.com/gpu"), -1);
  EXPECT_EQ(PodRequest(app3->worker_template, "rdma/hca"), 1);
  // Recorded waits of its 8 created HN instances: 26, 25, 41, 44 s and 0 x 4.
  EXPECT_EQ(app3->meta.annotations.at("kueuesim.io/recorded-wait"), "n 8, mean 17s, p50 0s, max 44s");

  // app_3's timeline: 4 -> 5 at 1871089 s (line 45), 6 at 1871090, 5 at
  // 1871504 (line 17, an instance alive at the start, deleted), ...; 7 at
  // 2030693 (two instances created at once: one Change); 15 Changes.
  std::vector<std::pair<int64_t, int32_t>> app3_changes;
  for (const auto& c : r.changes) {
    if (c.target_name != "app-3") continue;
    EXPECT_EQ(c.target_kind, "LeaderWorkerSet");
    EXPECT_EQ(c.target_namespace, "dlrm");
    app3_changes.emplace_back(c.at / kSecond, *c.replicas);
    if (app3_changes.size() == 1) {
      EXPECT_EQ(c.source.line, 45);
    }
    if (app3_changes.size() == 3) {
      EXPECT_EQ(c.source.line, 17);
    }
  }
  EXPECT_THAT(app3_changes,
              ElementsAre(Pair(1871089, 5), Pair(1871090, 6), Pair(1871504, 5), Pair(1875149, 6), Pair(1875389, 5),
                          Pair(1878566, 6), Pair(1878810, 5), Pair(2030693, 7), Pair(2030906, 6), Pair(2031123, 5),
                          Pair(2040787, 6), Pair(2040983, 5), Pair(2048246, 6), Pair(2048689, 5)));

  // app_90: 9 HN rows of 8 vCPU and 5 of 12: the template is the common
  // shape, the 5 others are repaired (charged as the template).
  const model::LeaderWorkerSet* app90 = FindLws(r.objects, "app-90");
  ASSERT_NE(app90, nullptr);
  EXPECT_EQ(PodRequest(*app90->leader_template, "cpu"), 8000);
  EXPECT_THAT(r.report.repaired,
              ElementsAre(Pair("requests differ from the application's template (its most common shape is charged)",
                               5)));
  // max_instance_per_node is ignored, and counted (app_0: 8, app_1, app_3, app_90: 2).
  EXPECT_THAT(r.report.ignored, ElementsAre(Pair(HasSubstr("max_instance_per_node"), 4 + 8 + 12 + 14)));
  ASSERT_EQ(r.report.notes.size(), 1u);
  EXPECT_THAT(r.report.notes[0], HasSubstr("4 LeaderWorkerSets, 14 groups at time 0"));
}

// Setup: the slice with window [1000000 s, 2000000 s) and arrival scale 2.
// Expectation: instances deleted before the start or created after the end
// are skipped ("outside the window"); those alive at the start are groups
// from time 0; Change times count from the start, halved; the accounting
// still adds up.
TEST(AlibabaDlrmTest, WindowAndScale) {
  TraceSpec spec = Spec("alibaba-dlrm", TestData("alibaba_dlrm_slice.csv"));
  spec.window_start = 1000000 * kSecond;
  spec.window_end = 2000000 * kSecond;
  spec.arrival_scale = 2;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Lws r, ReadLws(spec));
  EXPECT_EQ(Sum(r.report.replicas) + Sum(r.report.skipped), 64);
  EXPECT_GT(r.report.skipped.at("outside the window"), 0);
  EXPECT_GT(r.report.replicas.at("HN instance created at or before the window start: a group from time 0"), 0);
  for (const auto& c : r.changes) {
    EXPECT_GE(c.at, 0);
    EXPECT_LT(c.at, 500000 * kSecond);
  }
  // app_3 in the window: instance_458/457/4823 alive (instance_4857 too,
  // deleted at 1871504), the first created one at 1871089 s ->
  // (1871089 - 1000000) / 2 s.
  const model::LeaderWorkerSet* app3 = FindLws(r.objects, "app-3");
  ASSERT_NE(app3, nullptr);
  EXPECT_EQ(app3->replicas, 4);
  for (const auto& c : r.changes) {
    if (c.target_name != "app-3") continue;
    EXPECT_EQ(c.at, 435544500 * kMillisecond);
    EXPECT_EQ(c.replicas, 5);
    break;
  }
}

// Setup: the slice with mapping deployment and GPU / RDMA resources renamed.
// Expectation: one single-pod Workload per row (kind Deployment, labels app
// and role), arriving at creation_time (0 for instances alive at the
// start, repaired), running until deletion_time, with the recorded wait.
TEST(AlibabaDlrmTest, DeploymentMapping) {
  TraceSpec spec = Spec("alibaba-dlrm", TestData("alibaba_dlrm_slice.csv"));
  spec.options["mapping"] = "deployment";
  spec.options["gpuResource"] = "example.com/gpu";
  spec.options["rdmaResource"] = "example.com/rdma";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(GeneratedObjects objects, GeneratedObjectsFor(spec));
  EXPECT_TRUE(objects.leader_worker_sets.empty());
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  EXPECT_EQ(r.report.rows_read, 64);
  ASSERT_EQ(r.workloads.size(), 64u);
  EXPECT_TRUE(r.report.skipped.empty());
  // 14 HN + 12 CN rows have no creation_time.
  EXPECT_EQ(r.report.repaired.at("alive at the trace start (no creation_time): created at time 0"), 26);
  EXPECT_TRUE(ArrivalsSorted(r.workloads));
  // instance_10468,HN,app_1,8,8,1,1,25,25,16.0,...,914900.0,914900.0,1115576.0
  const model::Workload* wl = Find(r.workloads, "instance_10468");
  ASSERT_NE(wl, nullptr);
  EXPECT_EQ(wl->rare->object_kind, "Deployment");
  EXPECT_EQ(wl->meta.namespace_, "dlrm");
  EXPECT_EQ(wl->queue_name, "serving");
  EXPECT_EQ(wl->meta.labels.at("app"), "app_1");
  EXPECT_EQ(wl->meta.labels.at("kueuesim.io/dlrm-role"), "HN");
  EXPECT_EQ(wl->arrival, 914900 * kSecond);
  EXPECT_EQ(wl->duration, (1115576 - 914900) * kSecond);
  EXPECT_EQ(Request(*wl, "cpu"), 8000);
  EXPECT_EQ(Request(*wl, "memory"), 16 * kGiB);
  EXPECT_EQ(Request(*wl, "example.com/gpu"), 1);
  EXPECT_EQ(Request(*wl, "example.com/rdma"), 25);
  EXPECT_EQ(Request(*wl, "nvidia.com/gpu"), -1);
  // instance_11757: created 1115450, scheduled 1115451: a recorded wait of 1 s.
  const model::Workload* waited = Find(r.workloads, "instance_11757");
  ASSERT_NE(waited, nullptr);
  EXPECT_EQ(waited->meta.annotations.at("kueuesim.io/recorded-wait"), "1s");
  EXPECT_EQ(waited->duration, (1120373 - 1115451) * kSecond);
  // instance_2488 (app_90): no creation, deleted at 16422 s: from 0 to then.
  const model::Workload* at_start = Find(r.workloads, "instance_2488");
  ASSERT_NE(at_start, nullptr);
  EXPECT_EQ(at_start->arrival, 0);
  EXPECT_EQ(at_start->duration, 16422 * kSecond);
  EXPECT_EQ(at_start->meta.annotations.count("kueuesim.io/recorded-wait"), 0u);
}

// Setup: broken rows (bad and negative numbers, a missing field, an
// unknown role, no application, deletion before creation, RDMA above 100%)
// between valid ones. Expectation: each skipped, counted by a reason naming
// the column, with its line; the valid rows still count.
TEST(AlibabaDlrmTest, BrokenRowsAreCountedByReason) {
  const std::string path = WriteTemp("dlrm_broken.csv",
                                     std::string(kHeader) +
                                         "i0,HN,a,8,8,1,1,25,25,16.0,16.0,1,1,-1,,,\n"        // 2 ok
                                         "i1,HN,a,x,8,1,1,25,25,16.0,16.0,1,1,-1,,,\n"        // 3 bad cpu
                                         "i2,HN,a,8,8,1,1,25,25,-16,16.0,1,1,-1,,,\n"         // 4 bad memory
                                         "i3,HN,a,8,8,1,1,25,25,16.0,16.0,1,1,-1,-5,,\n"      // 5 negative creation
                                         "i4,HN,a,8,8,1,1,25,25,16.0,16.0,1,1,-1,10,11\n"     // 6 too few fields
                                         "i5,XN,a,8,8,1,1,25,25,16.0,16.0,1,1,-1,,,\n"        // 7 unknown role
                                         "i6,CN,,8,8,0,0,1,1,16.0,16.0,1,1,-1,,,\n"           // 8 no app
                                         "i7,HN,a,8,8,1,1,25,25,16.0,16.0,1,1,-1,20,20,10\n"  // 9 deleted before created
                                         "i8,HN,a,8,8,1,1,101,101,16.0,16.0,1,1,-1,,,\n"      // 10 rdma > 100
                                         "i9,HN,a,8,8,1.5,1,25,25,16.0,16.0,1,1,-1,,,\n"      // 11 bad gpu
                                         "i10,HN,a,8,8,1,1,25,25,16.0,16.0,1,1,-1,3x,,\n"     // 12 bad creation
                                         "i11,CN,b,8,8,0,0,1,1,16.0,16.0,1,1,-1,,,\n"         // 13 no group in b
                                         "i12,HN,a,8,8,1,1,25,25,16.0,16.0,1,1,-1,30,31,\n"); // 14 ok
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Lws r, ReadLws(Spec("alibaba-dlrm", path)));
  EXPECT_EQ(r.report.rows_read, 13);
  EXPECT_THAT(r.report.skipped,
              ElementsAre(Pair("CN instance of an application without an HN instance in the window (no group to join)", 1),
                          Pair("bad cpu_request", 1), Pair("bad creation_time", 1), Pair("bad gpu_request", 1),
                          Pair("bad memory_request", 1), Pair("bad rdma_request", 1),
                          Pair("deletion_time before creation_time", 1), Pair("missing app_name", 1),
                          Pair("negative creation_time", 1), Pair("too few fields", 1),
                          Pair("unknown role (not HN or CN)", 1)));
  EXPECT_THAT(r.report.examples,
              ElementsAre("line 3: skipped: bad cpu_request", "line 4: skipped: bad memory_request",
                          "line 5: skipped: negative creation_time", "line 6: skipped: too few fields",
                          "line 7: skipped: unknown role (not HN or CN)"));
  EXPECT_THAT(r.report.replicas, ElementsAre(Pair(kThrough, 1), Pair(kCreated, 1)));
  EXPECT_EQ(Sum(r.report.replicas) + Sum(r.report.skipped), r.report.rows_read);
  ASSERT_EQ(r.objects.size(), 1u);
  EXPECT_EQ(r.objects[0].replicas, 1);
  EXPECT_THAT(r.report.Format(), HasSubstr("dlrm_broken.csv (alibaba-dlrm, leaderworkerset): 13 rows read"));
  // The deployment mapping skips the same rows for the same reasons (but
  // the CN row of b: a pod needs no group).
  TraceSpec deployment = Spec("alibaba-dlrm", path);
  deployment.options["mapping"] = "deployment";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult d, ReadAll(deployment));
  EXPECT_EQ(d.workloads.size(), 3u);
  EXPECT_EQ(d.report.skipped.at("bad cpu_request"), 1);
  EXPECT_EQ(static_cast<int64_t>(d.workloads.size()) + Sum(d.report.skipped), 13);
}

// Setup: a header without deletion_time; option and spec errors.
// Expectation: errors naming the file, line 1 and the column; the option.
TEST(AlibabaDlrmTest, HeaderAndSpecErrors) {
  const std::string path = WriteTemp("dlrm_header.csv",
                                     "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,"
                                     "rdma_request,rdma_limit,memory_request,memory_limit,disk_request,disk_limit,"
                                     "max_instance_per_node,creation_time,scheduled_time\n");
  EXPECT_THAT(ReadLws(Spec("alibaba-dlrm", path)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(path + ":1: the header lacks column(s) deletion_time of format alibaba-dlrm")));
  TraceSpec deployment = Spec("alibaba-dlrm", path);
  deployment.options["mapping"] = "deployment";
  EXPECT_THAT(ReadAll(deployment), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("deletion_time")));

  TraceSpec bad_mapping = Spec("alibaba-dlrm", TestData("alibaba_dlrm_slice.csv"));
  bad_mapping.options["mapping"] = "statefulset";
  EXPECT_THAT(GeneratedObjectsFor(bad_mapping),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("options.mapping: unknown value \"statefulset\"")));
  TraceSpec limited = Spec("alibaba-dlrm", TestData("alibaba_dlrm_slice.csv"));
  limited.limit = 10;
  EXPECT_THAT(OpenChangeTrace(limited), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.limit")));
  TraceSpec priority = Spec("alibaba-dlrm", TestData("alibaba_dlrm_slice.csv"));
  FieldMapping five;
  five.value = "5";
  priority.mapping["priority"] = five;
  EXPECT_THAT(GeneratedObjectsFor(priority),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.mapping.priority")));
  // The leaderworkerset mapping is a change trace; deployment a workload trace.
  EXPECT_TRUE(IsChangeTrace(Spec("alibaba-dlrm", path)));
  EXPECT_FALSE(IsChangeTrace(deployment));
  EXPECT_THAT(OpenTrace(Spec("alibaba-dlrm", path)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("holds changes, not workloads")));
  // A Change beyond limits.time is an input error naming the line.
  TraceSpec short_range = Spec("alibaba-dlrm", TestData("alibaba_dlrm_slice.csv"));
  short_range.time_limit = 100000 * kSecond;
  EXPECT_THAT(ReadLws(short_range), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("limits.time")));
}

std::string FullTrace() {
  const char* dir = std::getenv("KUEUESIM_TRACES_DIR");
  return (dir != nullptr ? std::string(dir) : SourceDir() + "/../shared/traces") +
         "/alibaba-gpu-v2025/disaggregated_DLRM_trace.csv";
}

// Setup: the whole trace (23,871 rows, 156 applications), both mappings.
// Expectation: every row accounted for; the counts match an independent
// reading of the CSV (3,123 HN instances alive at the start: 2,277 through
// the trace and 846 deleted in it; 4,263 created
// in the trace, 16,485 CN rows; 5,875 scale Changes).
TEST(AlibabaDlrmTest, FullTraceEveryRowAccountedFor) {
  const std::string path = FullTrace();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "the shared trace is not at " << path;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(Lws r, ReadLws(Spec("alibaba-dlrm", path)));
  EXPECT_EQ(r.report.rows_read, 23871);
  EXPECT_EQ(Sum(r.report.replicas) + Sum(r.report.skipped), 23871);
  EXPECT_THAT(r.report.replicas, ElementsAre(Pair(kWorkers, 16485), Pair(kAtStart, 846), Pair(kThrough, 2277),
                                             Pair(kCreated, 4263)));
  EXPECT_TRUE(r.report.skipped.empty());
  EXPECT_EQ(r.objects.size(), 156u);
  EXPECT_EQ(r.report.changes, 5875);
  int64_t groups = 0;
  for (const auto& lws : r.objects) groups += lws.replicas;
  EXPECT_EQ(groups, 3123);

  TraceSpec deployment = Spec("alibaba-dlrm", path);
  deployment.options["mapping"] = "deployment";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult d, ReadAll(deployment));
  EXPECT_EQ(d.report.rows_read, 23871);
  EXPECT_EQ(static_cast<int64_t>(d.workloads.size()) + Sum(d.report.skipped), 23871);
  EXPECT_EQ(d.workloads.size(), 23871u);
  // 4,677 + 2,603 rows have no creation_time.
  EXPECT_EQ(d.report.repaired.at("alive at the trace start (no creation_time): created at time 0"), 7280);
}

}  // namespace
}  // namespace kueuesim::trace
