// The budget of what a scenario may make kueuesim build: a few hundred bytes
// of well-formed input (a NodePool of a million nodes, Deployments of a
// hundred thousand replicas, a performance-generator cohort count of a
// hundred million) would otherwise take minutes and gigabytes, or more than
// the machine has. The loader counts every object as it reads it and refuses
// the one that would cross the budget before building it; see
// docs/scenario-format.md#limits.
//
// What is counted (totals over every cluster of the scenario):
//   nodes      Nodes, the nodes of NodePools and the nodes a trace's node
//              list defines.
//   workloads  static Workloads: Workload objects, Jobs, managed Pods and
//              pod groups, the replica Workloads of Deployments and
//              StatefulSets, LeaderWorkerSet groups (at the largest replica
//              count any Change gives them), and the workloads of a
//              kueue-perf-generator trace (a generator has no file to stream
//              from: its workloads can all be pending at once). Workloads
//              streamed from a trace file are not counted.
//   queues     ClusterQueues, Cohorts and LocalQueues, written or generated.
//   time       the simulated time range: every arrival, duration, Change
//              time and `until`, and a generator's last arrival, is at most
//              this long.
// The defaults fit a machine of 24 GiB with room to spare.
#ifndef KUEUESIM_SCENARIO_LIMITS_H_
#define KUEUESIM_SCENARIO_LIMITS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "kueuesim/base/time.h"

namespace kueuesim::scenario {

struct Limits {
  int64_t nodes = 1'000'000;
  int64_t workloads = 500'000;
  int64_t queues = 100'000;
  SimDuration time = 3650 * 24 * kHour;  // ten years
};

// Overrides of some limits (the command line's --limits, a Simulation's
// spec.limits); unset fields keep the value underneath.
struct LimitOverrides {
  std::optional<int64_t> nodes;
  std::optional<int64_t> workloads;
  std::optional<int64_t> queues;
  std::optional<SimDuration> time;

  // `base` with the set fields replaced.
  Limits ApplyTo(Limits base) const;
  bool empty() const { return !nodes && !workloads && !queues && !time; }
};

// Parses "nodes=2000000,workloads=1000000,queues=200000,time=7300d" (any
// subset, any order; counts are positive integers, time a duration such as
// "7300d" or "175200h"). Errors name the item.
absl::StatusOr<LimitOverrides> ParseLimits(std::string_view text);

// Formats limits as ParseLimits reads them.
std::string FormatLimits(const Limits& limits);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_LIMITS_H_
