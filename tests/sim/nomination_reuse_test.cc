// The scheduler's reuse of an unchanged head's last nomination
// (cluster::NominationMemo, admission/scheduler.cc): the same decisions and
// the same outputs as assigning flavors afresh in every cycle, reuse only
// where nothing the nomination read has changed, and none where preemption
// could find targets.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/base/status.h"
#include "kueuesim/metrics/event_log.h"
#include "kueuesim/metrics/workload_table.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/runtime/cluster_runtime.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/sim/simulation.h"
#include "testing/status_matchers.h"

namespace kueuesim {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;

struct RunOutput {
  std::string events;    // the event log (JSON Lines)
  std::string table;     // the workload table (CSV)
  int64_t reused = 0;    // heads whose nomination was reused
  int64_t assigned = 0;  // heads assigned flavors afresh
};

enum class Mode { kReuse, kNoReuse, kVerify };

absl::StatusOr<RunOutput> RunScenario(const std::string& yaml, Mode mode) {
  KUEUESIM_ASSIGN_OR_RETURN(scenario::Scenario loaded, scenario::LoadScenarioStrings({{"reuse.yaml", yaml}}));
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  KUEUESIM_ASSIGN_OR_RETURN(auto sim, sim::Simulation::Create(loaded, registry));
  runtime::ClusterRuntime& cluster = *sim->clusters().front();
  cluster.set_reuse_nominations(mode != Mode::kNoReuse);
  char* events_data = nullptr;
  size_t events_size = 0;
  std::FILE* events_file = open_memstream(&events_data, &events_size);
  char* table_data = nullptr;
  size_t table_size = 0;
  std::FILE* table_file = open_memstream(&table_data, &table_size);
  metrics::EventLogWriter log(events_file);
  metrics::WorkloadTableWriter table(table_file, metrics::TimeSeriesFormat::kCsv);
  sim->AddEventSink(&log);
  sim->AddEventSink(&table);
  sim::RunOptions options;
  // The invariant checks compare every reuse with a fresh nomination.
  options.check_invariants = mode == Mode::kVerify;
  absl::Status status = sim->Run(options);
  table.Finish(sim->end_time());
  std::fclose(events_file);
  std::fclose(table_file);
  RunOutput out;
  out.events.assign(events_data, events_size);
  out.table.assign(table_data, table_size);
  std::free(events_data);
  std::free(table_data);
  KUEUESIM_RETURN_IF_ERROR(status);
  out.reused = cluster.nominations_reused();
  out.assigned = cluster.nominations_assigned();
  return out;
}

std::string Header() {
  return "apiVersion: kueuesim.io/v1alpha1\nkind: Simulation\nmetadata: {name: reuse}\n"
         "spec: {startTime: \"2025-06-02T09:00:00Z\"}\n---\n"
         "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: gpu}\n---\n";
}

// A ClusterQueue of `gpus` GPUs; `extra` goes under spec (cohort,
// preemption, queueing strategy).
std::string ClusterQueue(const std::string& name, const std::string& gpus, const std::string& extra = "",
                         const std::string& quota_extra = "") {
  return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: " + name +
         "}\nspec:\n  namespaceSelector: {}\n  queueingStrategy: StrictFIFO\n" + extra +
         "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: gpu\n"
         "      resources:\n      - {name: nvidia.com/gpu, nominalQuota: \"" +
         gpus + "\"" + quota_extra + "}\n---\n" +
         "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: jobs, namespace: " + name +
         "}\nspec: {clusterQueue: " + name + "}\n---\n";
}

std::string Job(const std::string& ns, const std::string& name, int gpus, const std::string& arrival,
                const std::string& duration, const std::string& priority_class = "") {
  return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
         "\n  labels: {kueue.x-k8s.io/queue-name: jobs" +
         (priority_class.empty() ? "" : ", kueue.x-k8s.io/priority-class: " + priority_class) +
         "}\n  annotations: {kueuesim.io/arrival: " + arrival + ", kueuesim.io/duration: " + duration +
         "}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: main, resources: {requests: "
         "{nvidia.com/gpu: \"" +
         std::to_string(gpus) + "\"}}}\n---\n";
}

// Busy traffic in ClusterQueue "b" (a job every 10 s, 5 s each): a cycle
// every few seconds, in which the other queues' heads are nominated again.
std::string Traffic(int jobs) {
  std::string out;
  for (int i = 0; i < jobs; ++i) out += Job("b", "b-" + std::to_string(i), 1, std::to_string(10 * i) + "s", "5s");
  return out;
}

void ExpectSameAsFresh(const std::string& yaml, int64_t min_reused) {
  auto reuse = RunScenario(yaml, Mode::kReuse);
  ASSERT_THAT(reuse, IsOk());
  auto fresh = RunScenario(yaml, Mode::kNoReuse);
  ASSERT_THAT(fresh, IsOk());
  auto verified = RunScenario(yaml, Mode::kVerify);
  ASSERT_THAT(verified, IsOk());
  EXPECT_EQ(reuse->events, fresh->events);
  EXPECT_EQ(reuse->table, fresh->table);
  EXPECT_EQ(verified->events, fresh->events);
  EXPECT_EQ(fresh->reused, 0);
  EXPECT_GE(reuse->reused, min_reused);
  EXPECT_EQ(reuse->reused + reuse->assigned, fresh->assigned);
}

// Setup: StrictFIFO queue "a" (4 GPUs) holds a job of 4 GPUs for 100 s; its
// head (2 GPUs) arrives at 1 s and waits. Queue "b" runs a job every 10 s.
// Invariant: the head is nominated in every cycle b's traffic causes and
// cannot fit; from its second nomination on, its nomination is reused (its
// queue's usage is unchanged), and the run is the same as without reuse:
// the head is admitted when a's job finishes, at 100 s.
TEST(NominationReuseTest, BlockedHeadIsReusedUntilItsQueueChanges) {
  const std::string yaml = Header() + ClusterQueue("a", "4") + ClusterQueue("b", "1") +
                           Job("a", "a-long", 4, "0s", "100s") + Job("a", "a-head", 2, "1s", "10s") + Traffic(12);
  ExpectSameAsFresh(yaml, 20);
  auto run = RunScenario(yaml, Mode::kReuse);
  ASSERT_THAT(run, IsOk());
  EXPECT_THAT(run->table, HasSubstr("a/job-a-head,a,finished,1.0,100.0,"));
}

// Setup: queues "a" (4 GPUs) and "c" (none) in cohort "team": c's job
// borrows 2 of a's GPUs until 35 s, a's own job holds the other 2 for
// 1000 s, and a's head (2 GPUs, within a's nominal quota) waits from 1 s;
// queue "b" (no cohort) runs a job every 10 s.
// Invariant: the head's nomination is reused while the cohort's usage
// stands; c's release at 35 s changes the usage on a's path to the root,
// the head is assigned afresh and admitted then, as without reuse.
TEST(NominationReuseTest, ChangeInTheCohortEndsTheReuse) {
  const std::string yaml = Header() + ClusterQueue("a", "4", "  cohortName: team\n") +
                           ClusterQueue("c", "0", "  cohortName: team\n") + ClusterQueue("b", "1") +
                           Job("c", "c-borrow", 2, "0s", "35s") + Job("a", "a-half", 2, "0s", "1000s") +
                           Job("a", "a-head", 2, "1s", "10s") + Traffic(8);
  ExpectSameAsFresh(yaml, 5);
  auto run = RunScenario(yaml, Mode::kReuse);
  ASSERT_THAT(run, IsOk());
  EXPECT_THAT(run->table, HasSubstr("a/job-a-head,a,finished,1.0,35.0,"));
}

// Setup: the blocked head of the first test, and a Change raising a's quota
// to 6 GPUs at 25 s.
// Invariant: the quota change (the tree's quota generation) ends the reuse:
// the head is admitted once the change's requeue comes, as without reuse.
TEST(NominationReuseTest, QuotaChangeEndsTheReuse) {
  const std::string yaml = Header() + ClusterQueue("a", "4") + ClusterQueue("b", "1") +
                           Job("a", "a-long", 4, "0s", "100s") + Job("a", "a-head", 2, "1s", "10s") + Traffic(8) +
                           "apiVersion: kueuesim.io/v1alpha1\nkind: Change\nmetadata: {name: more}\nspec:\n"
                           "  at: 25s\n  target: {kind: ClusterQueue, name: a}\n"
                           "  resources:\n  - {flavor: gpu, name: nvidia.com/gpu, nominalQuota: \"6\"}\n---\n";
  ExpectSameAsFresh(yaml, 4);
  auto run = RunScenario(yaml, Mode::kReuse);
  ASSERT_THAT(run, IsOk());
  EXPECT_THAT(run->table, HasSubstr("a/job-a-head,a,finished,1.0,25.0,"));
}

// Setup: the blocked head of the first test, in a queue whose
// withinClusterQueue preemption is LowerPriority.
// Invariant: preemption could find targets there (whatever the usage), so
// no nomination of that queue is reused; the run is the same.
TEST(NominationReuseTest, NoReuseWherePreemptionIsPossible) {
  const std::string yaml =
      Header() + ClusterQueue("a", "4", "  preemption: {withinClusterQueue: LowerPriority}\n") +
      Job("a", "a-long", 4, "0s", "100s") + Job("a", "a-head", 2, "1s", "10s") + Job("a", "a-next", 1, "2s", "10s") +
      Job("a", "a-later", 1, "30s", "10s") + Job("a", "a-last", 1, "60s", "10s");
  auto run = RunScenario(yaml, Mode::kReuse);
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->reused, 0);
  auto fresh = RunScenario(yaml, Mode::kNoReuse);
  ASSERT_THAT(fresh, IsOk());
  EXPECT_EQ(run->events, fresh->events);
}

}  // namespace
}  // namespace kueuesim
