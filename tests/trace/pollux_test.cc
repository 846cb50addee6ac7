// Tests for pollux (src/trace/pollux.cc) on real rows of the Pollux
// workload-1.csv (Philly-derived, 30 rows) and the Sia Helios-Saturn
// workload-1.csv (20 rows), and on broken rows.
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

// Setup: 30 real rows of pollux-workloads/workload-1.csv with the default
// durations (GPU-hours per class / num_replicas). Expectation: arrivals =
// `time` in seconds (the first at 107 s: trace time 0 is the workload
// start), names from the file, namespace "pollux", queue "main",
// num_replicas pods of one GPU, durations: cifar10 on 6 GPUs 0.5 h / 6 =
// 5 m, deepspeech2 on 6 GPUs 5 h / 6 = 50 m, ncf on 1 GPU 30 m, imagenet on
// 32 GPUs 250 h / 32 = 7 h 48 m 45 s.
TEST(PolluxTest, RealRowsWithDefaultDurations) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("pollux", TestData("pollux_workload1_head.csv"))));
  ASSERT_EQ(r.workloads.size(), 30u);
  EXPECT_THAT(r.report.skipped, IsEmpty());
  EXPECT_TRUE(ArrivalsSorted(r.workloads));
  const model::Workload& first = r.workloads[0];  // cifar10-0,107,cifar10,6,2048
  EXPECT_EQ(first.meta.name, "cifar10-0");
  EXPECT_EQ(first.meta.namespace_, "pollux");
  EXPECT_EQ(first.queue_name, "main");
  EXPECT_EQ(first.arrival, 107 * kSecond);
  EXPECT_EQ(first.pod_sets[0].count, 6);
  EXPECT_EQ(Request(first, "nvidia.com/gpu"), 1);
  EXPECT_EQ(first.duration, 5 * kMinute);
  EXPECT_EQ(first.meta.labels.at("kueuesim.io/application"), "cifar10");
  EXPECT_EQ(Find(r.workloads, "deepspeech2-1")->duration, 50 * kMinute);
  EXPECT_EQ(Find(r.workloads, "ncf-2")->duration, 30 * kMinute);
  EXPECT_EQ(Find(r.workloads, "imagenet-11")->duration, (7 * 3600 + 48 * 60 + 45) * kSecond);
  EXPECT_EQ(Find(r.workloads, "imagenet-11")->pod_sets[0].count, 32);
  EXPECT_EQ(Find(r.workloads, "bert-27")->duration, 25 * kMinute);  // 5 h / 12
}

// Setup: 20 real rows of the Sia Helios-Saturn workload-1.csv (float
// times) with options: duration.cifar10 45m, gpuHours.yolov3 8, a default
// duration of 2h, gpusPerPod 4, cpuPerGpu 8. Expectation: cifar10 jobs
// run 45 m whatever their size, yolov3 on 4 GPUs 2 h, deepspeech2 (only
// the default) 2 h; 12 replicas as 3 pods of 4 GPUs and 32 CPUs.
TEST(PolluxTest, SiaRowsWithDurationOptions) {
  TraceSpec spec = Spec("pollux", TestData("sia_saturn_workload1_head.csv"));
  spec.options["duration.cifar10"] = "45m";
  spec.options["gpuHours.yolov3"] = "8";
  spec.options["duration"] = "2h";
  spec.options["gpusPerPod"] = "4";
  spec.options["cpuPerGpu"] = "8";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(spec));
  ASSERT_EQ(r.workloads.size(), 20u);
  const model::Workload& first = r.workloads[0];  // cifar10-0,401.0,cifar10,12,4096
  EXPECT_EQ(first.arrival, 401 * kSecond);
  EXPECT_EQ(first.duration, 45 * kMinute);
  EXPECT_EQ(first.pod_sets[0].count, 3);
  EXPECT_EQ(Request(first, "nvidia.com/gpu"), 4);
  EXPECT_EQ(Request(first, "cpu"), 32000);
  EXPECT_EQ(Find(r.workloads, "yolov3-7")->duration, 2 * kHour);  // 8 GPU-hours on 4 GPUs
  for (const auto& wl : r.workloads) {
    if (wl.meta.labels.at("kueuesim.io/application") == "deepspeech2") {
      EXPECT_EQ(wl.duration, 2 * kHour);
    }
  }
  EXPECT_EQ(r.workloads.back().meta.name, "cifar10-19");
  EXPECT_EQ(r.workloads.back().arrival, 3362 * kSecond);
}

// Setup: broken rows: bad and negative time, zero and non-integer
// replicas, an application without a duration, a missing application; an
// invalid duration option. Expectation: skips by reason; the option error
// names the option.
TEST(PolluxTest, BrokenRowsAndOptions) {
  const std::string path = WriteTemp("pollux_broken.csv",
                                     "name,time,application,num_replicas,batch_size\n"
                                     "ok,10,ncf,1,32\n"
                                     "a,later,ncf,1,32\n"
                                     "b,-1,ncf,1,32\n"
                                     "c,10,ncf,0,32\n"
                                     "d,10,ncf,1.5,32\n"
                                     "e,10,resnet,1,32\n"
                                     "f,10,,1,32\n");
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult r, ReadAll(Spec("pollux", path)));
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_THAT(r.report.skipped,
              ElementsAre(Pair("bad num_replicas", 2), Pair("bad time", 1), Pair("missing application", 1),
                          Pair("negative time", 1),
                          Pair("unknown application (no duration: set options.duration.<application>)", 1)));
  TraceSpec spec = Spec("pollux", path);
  spec.options["duration.resnet"] = "1h";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(ReadResult with_option, ReadAll(spec));
  EXPECT_EQ(Find(with_option.workloads, "e")->duration, kHour);
  spec.options["duration.ncf"] = "soon";
  EXPECT_THAT(OpenTrace(spec), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("spec.options.duration.ncf: \"soon\" is not a duration")));
  spec.options.erase("duration.ncf");
  spec.options["gpuHour.ncf"] = "1";
  EXPECT_THAT(OpenTrace(spec), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown option")));
}

}  // namespace
}  // namespace kueuesim::trace
