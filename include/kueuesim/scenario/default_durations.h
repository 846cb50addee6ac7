// Run times for workloads without kueuesim.io/duration: the Simulation's
// spec.defaultDurations rules (first match wins) and their seeded draws.
//
// Objects exported from a live cluster never carry kueuesim.io/duration; a
// rule gives them one: fixed, or drawn from an exponential, log-normal or
// empirical (a CSV column) distribution. A draw depends only on the run's
// seed and the workload's identity (namespace and name), never on the order
// in which workloads are read or created, so the same seed gives the same
// run times whatever else the scenario holds.
#ifndef KUEUESIM_SCENARIO_DEFAULT_DURATIONS_H_
#define KUEUESIM_SCENARIO_DEFAULT_DURATIONS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "kueuesim/base/time.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/scenario/scenario.h"

namespace kueuesim::scenario {

// The kind of object a workload was made from: Workload::object_kind, else
// the name of its source_kind ("Workload", "Job", "Pod", ...).
std::string_view WorkloadObjectKind(const model::Workload& workload);

// Serving workloads (Deployment pods, StatefulSets, LeaderWorkerSet groups)
// run until they are scaled down: a rule applies to them only when it names
// their kind, and they are not counted as workloads without a run time.
bool IsServingKind(std::string_view kind);

// Whether `rule` applies to `workload` (of kind `kind`).
bool DefaultDurationRuleMatches(const DefaultDurationRule& rule, const model::Workload& workload,
                                std::string_view kind);

// A run time drawn from `distribution` for the workload `identity`
// ("namespace/name") with `seed`; whole milliseconds, never negative.
SimDuration DrawDuration(const DurationDistribution& distribution, uint64_t seed, std::string_view identity);

// Gives `workload` (without a duration) the run time of the first matching
// rule of `settings`; returns the rule's index, or -1 when none matches.
int ApplyDefaultDuration(const SimulationSettings& settings, model::Workload* workload);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_DEFAULT_DURATIONS_H_
