// The loader's running totals against the scenario's Limits (see
// kueuesim/scenario/limits.h): each object is counted before it is built,
// and the one that would cross a limit is refused with its file, line,
// object, field and the figures.
//
// Limits come from, in order of precedence: the command line (or the
// caller's LoadOptions), the Simulation's spec.limits, the defaults. A
// Simulation's limits apply to the objects read after it (put it first, as
// usual); the totals are checked once more against the final limits when
// loading ends, so a limit lowered late still holds.
#ifndef KUEUESIM_SCENARIO_BUDGET_H_
#define KUEUESIM_SCENARIO_BUDGET_H_

#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "kueuesim/base/time.h"
#include "kueuesim/scenario/limits.h"
#include "scenario/field.h"

namespace kueuesim::scenario {

class Budget {
 public:
  enum class Kind { kNodes, kWorkloads, kQueues };

  explicit Budget(LimitOverrides command_line = {});

  // The Simulation's spec.limits (below the command line's).
  void SetSimulationLimits(const LimitOverrides& simulation, const model::SourceRef& source);
  const Limits& limits() const { return limits_; }

  // Counts `n` more objects of `kind` made by the object at `field` (a
  // count field such as spec.count or spec.replicas, or the object itself);
  // an error when the total would cross the limit. `n` must not be
  // negative.
  absl::Status Add(Kind kind, int64_t n, const FieldReader& field);
  // As Add, for objects not read through a FieldReader (a trace's
  // generated objects): `where` starts the message ("file:line: Trace \"x\"").
  absl::Status Add(Kind kind, int64_t n, const std::string& where);
  // As above, with `where` made only for the error: for what is counted
  // once per object of a large input (every Workload).
  absl::Status Add(Kind kind, int64_t n, absl::FunctionRef<std::string()> where);

  // An error when `value` (a time or duration of `field`) is beyond the
  // simulated time range.
  absl::Status CheckTime(SimDuration value, const FieldReader& field) const;
  absl::Status CheckTime(SimDuration value, const std::string& where) const;
  absl::Status CheckTime(SimDuration value, absl::FunctionRef<std::string()> where) const;

  // Loading ended: the totals against the final limits.
  absl::Status Finish() const;

  int64_t total(Kind kind) const { return totals_[static_cast<int>(kind)]; }

 private:
  std::string Crossing(Kind kind, int64_t n) const;
  std::string TimeCrossing(SimDuration value) const;
  int64_t limit(Kind kind) const;

  LimitOverrides command_line_;
  Limits limits_;
  model::SourceRef simulation_source_;
  bool has_simulation_limits_ = false;
  int64_t totals_[3] = {0, 0, 0};
};

// "nodes", "workloads", "queues".
const char* BudgetKindName(Budget::Kind kind);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_BUDGET_H_
