// Tests for kueuesim/model/pod_resources.h: the pod's effective request,
// Kueue's AdjustResources (RuntimeClass overhead, LimitRange defaults) and
// ValidateLimitRange, with cases after pkg/util/limitrange/limitrange_test.go
// and pkg/workload/resources_test.go at ff69552e.
#include "kueuesim/model/pod_resources.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/hash/hash.h"

namespace kueuesim::model {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

MATCHER_P2(Res, name, amount, "") { return arg.name == name && arg.amount == amount; }

ContainerResources Container(std::vector<ResourceAmount> requests, std::vector<ResourceAmount> limits,
                             ContainerResources::Role role = ContainerResources::Role::kRegular, int32_t index = 0) {
  ContainerResources c;
  c.role = role;
  c.index = index;
  c.requests = std::move(requests);
  c.limits = std::move(limits);
  return c;
}

LimitRange Range(const std::string& name, std::vector<LimitRangeItem> items) {
  LimitRange range;
  range.meta.name = name;
  range.meta.namespace_ = "ns";
  range.limits = std::move(items);
  return range;
}

TEST(PodResourcesTest, EffectiveRequestSidecarsInitAndOverhead) {
  PodResources pod;
  pod.containers.push_back(Container({{"cpu", 1000}}, {}));
  pod.containers.push_back(Container({}, {{"cpu", 500}, {"memory", 100}}, ContainerResources::Role::kRegular, 1));
  // A sidecar runs with the containers; an init container with the sidecars
  // started before it.
  pod.containers.push_back(Container({{"cpu", 200}}, {}, ContainerResources::Role::kSidecar, 0));
  pod.containers.push_back(Container({{"cpu", 3000}}, {}, ContainerResources::Role::kInit, 1));
  pod.overhead = std::vector<ResourceAmount>{{"cpu", 10}};
  PodRequestTotals totals = ComputePodRequests(pod);
  // max(1000 + 500 + 200, 200 + 3000) + 10; memory from the limit.
  EXPECT_THAT(totals.requests, ElementsAre(Res("cpu", 3210), Res("memory", 100)));
  EXPECT_THAT(totals.requests_above_limits, IsEmpty());
}

// Setup: two pod templates' resources written alike, then copies that
// differ in one place each (a limit, a container's role, the overhead's
// presence, the pod-level resources). Expectation: the alike pair is equal
// with equal hashes (the loader shares one copy between them); each
// differing copy is unequal.
TEST(PodResourcesTest, EqualAndHashableForSharingAlikeTemplates) {
  PodResources pod;
  pod.containers.push_back(Container({{"nvidia.com/gpu", 1000}}, {{"nvidia.com/gpu", 1000}}));
  PodResources alike = pod;
  EXPECT_EQ(pod, alike);
  EXPECT_EQ(absl::Hash<PodResources>{}(pod), absl::Hash<PodResources>{}(alike));

  PodResources other_limit = pod;
  other_limit.containers[0].limits[0].amount = 2000;
  EXPECT_FALSE(pod == other_limit);
  PodResources init = pod;
  init.containers[0].role = ContainerResources::Role::kInit;
  EXPECT_FALSE(pod == init);
  PodResources empty_overhead = pod;
  empty_overhead.overhead.emplace();  // present but empty is not absent
  EXPECT_FALSE(pod == empty_overhead);
  EXPECT_NE(absl::Hash<PodResources>{}(pod), absl::Hash<PodResources>{}(empty_overhead));
  PodResources pod_level = pod;
  pod_level.pod_level = PodResources::PodLevel{{{"cpu", 1000}}, {}};
  EXPECT_FALSE(pod == pod_level);
}

TEST(PodResourcesTest, PodLevelLimitsStandInForMissingPodLevelRequests) {
  PodResources pod;
  pod.containers.push_back(Container({{"cpu", 1000}, {"memory", 50}}, {}));
  pod.pod_level = PodResources::PodLevel{{}, {{"cpu", 4000}}};
  EXPECT_THAT(ComputePodRequests(pod).requests, ElementsAre(Res("cpu", 4000), Res("memory", 50)));
}

TEST(PodResourcesTest, SummarizeKeepsLowestMaxHighestMinFirstDefaults) {
  LimitRangeItem a{"Container", {{"cpu", 4000}}, {{"cpu", 100}}, {{"cpu", 2000}}, {{"cpu", 1000}}};
  LimitRangeItem b{"Container", {{"cpu", 3000}, {"memory", 10}}, {{"cpu", 200}}, {{"cpu", 500}, {"memory", 5}}, {}};
  LimitRangeItem pvc{"PersistentVolumeClaim", {{"storage", 1}}, {}, {}, {}};
  LimitRange second = Range("b", {b, pvc});
  LimitRange first = Range("a", {a});
  // Given out of order: the names decide which default comes first.
  LimitRangeSummary summary = SummarizeLimitRanges({&second, &first});
  EXPECT_TRUE(summary.container.present);
  EXPECT_FALSE(summary.pod.present);
  EXPECT_THAT(summary.container.max, ElementsAre(Res("cpu", 3000), Res("memory", 10)));
  EXPECT_THAT(summary.container.min, ElementsAre(Res("cpu", 200)));
  EXPECT_THAT(summary.container.default_limits, ElementsAre(Res("cpu", 2000), Res("memory", 5)));
  EXPECT_THAT(summary.container.default_requests, ElementsAre(Res("cpu", 1000)));
}

TEST(PodResourcesTest, DefaultsFillOnlyWhatContainersDoNotSay) {
  LimitRange range = Range("lr", {LimitRangeItem{"Container", {}, {}, {{"cpu", 2000}, {"memory", 64}},
                                                 {{"cpu", 500}, {"memory", 32}}}});
  LimitRangeSummary summary = SummarizeLimitRanges({&range});
  PodResources pod;
  pod.containers.push_back(Container({{"cpu", 1000}}, {}));
  pod.containers.push_back(Container({}, {}, ContainerResources::Role::kInit, 0));
  ASSERT_TRUE(AdjustPodResources(summary, nullptr, &pod));
  EXPECT_THAT(pod.containers[0].requests, ElementsAre(Res("cpu", 1000), Res("memory", 32)));
  EXPECT_THAT(pod.containers[0].limits, ElementsAre(Res("cpu", 2000), Res("memory", 64)));
  EXPECT_THAT(pod.containers[1].requests, ElementsAre(Res("cpu", 500), Res("memory", 32)));
  // max(1000 + 0, 500) cpu; max(32, 32) memory.
  EXPECT_THAT(ComputePodRequests(pod).requests, ElementsAre(Res("cpu", 1000), Res("memory", 32)));
  // A second application changes nothing.
  EXPECT_FALSE(AdjustPodResources(summary, nullptr, &pod));
}

TEST(PodResourcesTest, DefaultLimitBelowRequestFailsValidateResources) {
  LimitRange range = Range("lr", {LimitRangeItem{"Container", {}, {}, {{"cpu", 1000}}, {{"cpu", 1000}}}});
  PodResources pod;
  pod.containers.push_back(Container({{"cpu", 2000}}, {}));
  ASSERT_TRUE(AdjustPodResources(SummarizeLimitRanges({&range}), nullptr, &pod));
  PodRequestTotals totals = ComputePodRequests(pod);
  ASSERT_EQ(totals.requests_above_limits.size(), 1u);
  EXPECT_EQ(totals.requests_above_limits[0].path, "containers[0]");
  EXPECT_THAT(totals.requests_above_limits[0].resources, ElementsAre("cpu"));
}

TEST(PodResourcesTest, RuntimeClassOverheadOnlyWithoutOwnOverhead) {
  RuntimeClass kata;
  kata.meta.name = "kata";
  kata.pod_fixed_overhead = std::vector<ResourceAmount>{{"cpu", 250}, {"memory", 120}};
  PodResources pod;
  pod.runtime_class_name = "kata";
  pod.containers.push_back(Container({{"cpu", 1000}}, {}));
  PodResources own = pod;
  own.overhead = std::vector<ResourceAmount>{{"cpu", 5}};
  const LimitRangeSummary none;
  ASSERT_TRUE(AdjustPodResources(none, &kata, &pod));
  EXPECT_THAT(ComputePodRequests(pod).requests, ElementsAre(Res("cpu", 1250), Res("memory", 120)));
  EXPECT_FALSE(AdjustPodResources(none, &kata, &own));
  EXPECT_THAT(ComputePodRequests(own).requests, ElementsAre(Res("cpu", 1005)));
  // Not found: nothing added (Kueue logs the error).
  PodResources missing = pod;
  missing.overhead.reset();
  EXPECT_FALSE(AdjustPodResources(none, nullptr, &missing));
}

TEST(PodResourcesTest, ValidateLimitRangeOrderAndComparisons) {
  LimitRange range = Range(
      "lr", {LimitRangeItem{"Container", {{"cpu", 2000}, {"memory", 100}}, {{"cpu", 100}}, {}, {}},
             LimitRangeItem{"Pod", {{"cpu", 1000}}, {{"memory", 10}}, {}, {}}});
  LimitRangeSummary summary = SummarizeLimitRanges({&range});
  PodResources pod;
  // The limit is what is compared with the max, the request with the min.
  pod.containers.push_back(Container({{"cpu", 50}}, {{"cpu", 2500}}));
  pod.containers.push_back(Container({{"cpu", 1000}}, {}, ContainerResources::Role::kRegular, 1));
  pod.containers.push_back(Container({{"cpu", 500}, {"memory", 200}}, {}, ContainerResources::Role::kInit, 0));
  const auto totals = ComputePodRequests(pod);
  // The pod: max(50 + 1000, 500) = 1050 cpu > the pod max 1000; memory 200
  // (the init container) holds the pod min 10.
  auto violations = ValidateLimitRanges(summary, pod, totals.requests);
  ASSERT_EQ(violations.size(), 4u);
  EXPECT_EQ(violations[0], (PodSet::LimitRangeViolation{"initContainers[0]", {"memory"}, true}));
  EXPECT_EQ(violations[1], (PodSet::LimitRangeViolation{"containers[0]", {"cpu"}, true}));
  EXPECT_EQ(violations[2], (PodSet::LimitRangeViolation{"containers[0]", {"cpu"}, false}));
  EXPECT_EQ(violations[3], (PodSet::LimitRangeViolation{"", {"cpu"}, true}));
}

TEST(PodResourcesTest, ValidateLimitRangeIgnoresWhatOneSideDoesNotName) {
  LimitRange range = Range("lr", {LimitRangeItem{"Container", {}, {{"cpu", 100}, {"memory", 10}}, {}, {}}});
  PodResources pod;
  pod.containers.push_back(Container({{"memory", 20}}, {}));  // no cpu at all: the min does not apply
  pod.containers.push_back(Container({}, {}, ContainerResources::Role::kRegular, 1));
  EXPECT_THAT(ValidateLimitRanges(SummarizeLimitRanges({&range}), pod, ComputePodRequests(pod).requests),
              IsEmpty());
}

}  // namespace
}  // namespace kueuesim::model
