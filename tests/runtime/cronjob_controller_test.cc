// The CronJob controller through the whole simulation
// (src/sim/cronjob_controller.cc): Jobs created on the schedule as plain
// Jobs with their own Workloads; a Job Kueue keeps suspended is active for
// Forbid; Replace deletes the queued or running Workload; the run ends at
// `until` or the CronJob horizon; default run times and
// activeDeadlineSeconds apply to the Jobs.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kueuesim/base/time.h"
#include "kueuesim/cluster/events.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/sim/simulation.h"
#include "testing/scenario_fixtures.h"

namespace kueuesim {
namespace {

using ::testing::ElementsAre;

// "<seconds> <type> <workload>" for arrivals, reservations, finishes and
// deletions.
class Recorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    using cluster::EventType;
    if (event.type != EventType::kArrived && event.type != EventType::kQuotaReserved &&
        event.type != EventType::kFinished && event.type != EventType::kDeleted) {
      return;
    }
    lines.push_back(fmt::format("{} {} {}{}", FormatSeconds(event.time), cluster::EventTypeName(event.type),
                                event.cluster->workload(event.workload).key,
                                event.reason.empty() ? "" : " " + std::string(event.reason)));
  }
  std::vector<std::string> lines;
};

// ClusterQueue "cq" with `cpu` CPUs, LocalQueue ns/lq, and a CronJob
// "c" (schedule, policy, job requests 2 cpu; `extra` under spec; `template_spec`
// under jobTemplate.spec; `annotations` on the job template).
std::string Scenario(const std::string& cpu, const std::string& schedule, const std::string& policy,
                     const std::string& annotations, const std::string& simulation,
                     const std::string& template_spec = "") {
  return fmt::format(R"(apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {{name: s}}
spec:
  startTime: "2025-06-02T00:00:00Z"
{4}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: default}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: "{0}"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq, namespace: ns}}
spec: {{clusterQueue: cq}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {{name: c, namespace: ns}}
spec:
  schedule: "{1}"
  concurrencyPolicy: {2}
  jobTemplate:
    metadata:
      labels: {{kueue.x-k8s.io/queue-name: lq}}
      annotations: {{{3}}}
    spec:
{5}
      template:
        spec:
          containers: [{{name: c, image: i, resources: {{requests: {{cpu: "2"}}}}}}]
)",
                     cpu, schedule, policy, annotations, simulation, template_spec);
}

struct SimRun {
  std::vector<std::string> lines;
  std::vector<sim::CronJobReport> reports;
  scenario::LoadReport load_report;
};

SimRun Simulate(const std::string& yaml, std::optional<SimTime> until = std::nullopt) {
  SimRun out;
  auto scenario = testing::LoadYaml(yaml, "cron.yaml");
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  if (!scenario.ok()) return out;
  static const policy::PolicyRegistry builtins = policy::PolicyRegistry::WithBuiltins();
  auto simulation = sim::Simulation::Create(*scenario, builtins);
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  if (!simulation.ok()) return out;
  Recorder recorder;
  (*simulation)->AddEventSink(&recorder);
  sim::RunOptions options;
  options.until = until;
  absl::Status status = (*simulation)->Run(options);
  EXPECT_TRUE(status.ok()) << status;
  out.lines = recorder.lines;
  out.reports = (*simulation)->cron_job_reports();
  out.load_report = (*simulation)->scenario().report;
  return out;
}

// Hourly Jobs of 30m with room for one at a time: every Job runs, on time.
TEST(CronJobControllerTest, AllowCreatesEveryRun) {
  SimRun run = Simulate(Scenario("2", "0 * * * *", "Allow", "kueuesim.io/duration: 30m", "  until: 3h"));
  EXPECT_THAT(run.lines, ElementsAre("3600.1 Arrived ns/job-c-29147100", "3600.1 QuotaReserved ns/job-c-29147100",
                                     "5400.1 Finished ns/job-c-29147100", "7200.1 Arrived ns/job-c-29147160",
                                     "7200.1 QuotaReserved ns/job-c-29147160", "9000.1 Finished ns/job-c-29147160"));
  ASSERT_EQ(run.reports.size(), 1u);
  EXPECT_EQ(run.reports[0].created, 2);
}

// The Job needs 2 CPUs and the queue has 1: it waits for quota, suspended by
// Kueue. For Forbid it is active, so no other Job is created.
TEST(CronJobControllerTest, ForbidCountsAJobWaitingForKueueAsActive) {
  SimRun run = Simulate(Scenario("1", "0 * * * *", "Forbid", "kueuesim.io/duration: 30m", "  until: 4h"));
  EXPECT_THAT(run.lines, ElementsAre("3600.1 Arrived ns/job-c-29147100"));
  ASSERT_EQ(run.reports.size(), 1u);
  EXPECT_EQ(run.reports[0].created, 1);
  EXPECT_EQ(run.reports[0].already_active, 2);  // at 2h and 3h (4h is the end)
}

// Allow with no room: the Workloads pile up in the queue.
TEST(CronJobControllerTest, AllowPilesUpPendingWorkloads) {
  SimRun run = Simulate(Scenario("1", "0 * * * *", "Allow", "kueuesim.io/duration: 30m", "  until: 3h"));
  EXPECT_THAT(run.lines, ElementsAre("3600.1 Arrived ns/job-c-29147100", "7200.1 Arrived ns/job-c-29147160"));
}

// Replace deletes the waiting Workload and creates a fresh one.
TEST(CronJobControllerTest, ReplaceDeletesTheQueuedWorkload) {
  SimRun run = Simulate(Scenario("1", "0 * * * *", "Replace", "kueuesim.io/duration: 30m", "  until: 3h"));
  EXPECT_THAT(run.lines, ElementsAre("3600.1 Arrived ns/job-c-29147100", "7200.1 Deleted ns/job-c-29147100",
                                     "7200.1 Arrived ns/job-c-29147160"));
  EXPECT_EQ(run.reports[0].replaced, 1);
}

// Replace also deletes a running Job: its quota goes to the new one.
TEST(CronJobControllerTest, ReplaceDeletesTheRunningWorkload) {
  SimRun run = Simulate(Scenario("2", "*/30 * * * *", "Replace", "kueuesim.io/duration: 45m", "  until: 1h15m"));
  EXPECT_THAT(run.lines,
              ElementsAre("1800.1 Arrived ns/job-c-29147070", "1800.1 QuotaReserved ns/job-c-29147070",
                          "3600.1 Deleted ns/job-c-29147070", "3600.1 Arrived ns/job-c-29147100",
                          "3600.1 QuotaReserved ns/job-c-29147100"));
}

// Forbid: a run held back while the Job runs starts when it finishes.
TEST(CronJobControllerTest, ForbidStartsTheHeldBackRunWhenTheJobFinishes) {
  SimRun run = Simulate(Scenario("4", "0 * * * *", "Forbid", "kueuesim.io/duration: 90m", "  until: 3h"));
  EXPECT_THAT(run.lines, ElementsAre("3600.1 Arrived ns/job-c-29147100", "3600.1 QuotaReserved ns/job-c-29147100",
                                     "9000.1 Finished ns/job-c-29147100", "9000.1 Arrived ns/job-c-29147160",
                                     "9000.1 QuotaReserved ns/job-c-29147160"));
  EXPECT_EQ(run.reports[0].already_active, 1);
}

// With a starting deadline shorter than the delay, the held-back run is
// dropped and the next one starts on time.
TEST(CronJobControllerTest, StartingDeadlineDropsALateRun) {
  std::string yaml = Scenario("4", "0 * * * *", "Forbid", "kueuesim.io/duration: 90m", "  until: 3h30m");
  const std::string forbid = "  concurrencyPolicy: Forbid";
  yaml.replace(yaml.find(forbid), forbid.size(), forbid + "\n  startingDeadlineSeconds: 600");
  SimRun run = Simulate(yaml);
  EXPECT_THAT(run.lines, ElementsAre("3600.1 Arrived ns/job-c-29147100", "3600.1 QuotaReserved ns/job-c-29147100",
                                     "9000.1 Finished ns/job-c-29147100", "10800.1 Arrived ns/job-c-29147220",
                                     "10800.1 QuotaReserved ns/job-c-29147220"));
}

// Without until, Jobs stop at the horizon (cronJobHorizon) and the run ends.
TEST(CronJobControllerTest, HorizonEndsARunWithoutUntil) {
  SimRun run = Simulate(Scenario("2", "@every 20m", "Allow", "kueuesim.io/duration: 5m", "  cronJobHorizon: 1h"));
  // 20m and 40m; the 60m run would be created at 3600.1 s, past the horizon.
  EXPECT_EQ(run.reports[0].created, 2);
  EXPECT_EQ(run.lines.back(), "2700.1 Finished ns/job-c-29147080");
  // --until (RunOptions) overrides the horizon.
  SimRun longer = Simulate(Scenario("2", "@every 20m", "Allow", "kueuesim.io/duration: 5m", "  cronJobHorizon: 1h"),
                        2 * kHour);
  EXPECT_EQ(longer.reports[0].created, 5);
}

// Jobs without a run time take a default rule's, counted in the load
// report; activeDeadlineSeconds ends a Job as a failure.
TEST(CronJobControllerTest, DefaultRunTimesAndActiveDeadline) {
  SimRun run = Simulate(Scenario("2", "@hourly", "Allow", "", R"(  until: 2h1m
  defaultDurations:
  - match: {kind: Job}
    duration: 10m)"));
  EXPECT_THAT(run.lines, ElementsAre("3600.1 Arrived ns/job-c-29147100", "3600.1 QuotaReserved ns/job-c-29147100",
                                     "4200.1 Finished ns/job-c-29147100", "7200.1 Arrived ns/job-c-29147160",
                                     "7200.1 QuotaReserved ns/job-c-29147160"));
  ASSERT_EQ(run.load_report.default_duration_uses.size(), 1u);
  EXPECT_EQ(run.load_report.default_duration_uses[0], 2);

  SimRun capped = Simulate(Scenario("2", "@hourly", "Allow", "kueuesim.io/duration: 30m", "  until: 2h",
                                 "      activeDeadlineSeconds: 60"));
  EXPECT_THAT(capped.lines, ElementsAre("3600.1 Arrived ns/job-c-29147100", "3600.1 QuotaReserved ns/job-c-29147100",
                                        "3660.1 Finished ns/job-c-29147100 DeadlineExceeded"));
}

}  // namespace
}  // namespace kueuesim
