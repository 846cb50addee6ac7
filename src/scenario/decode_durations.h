// Decoding of the Simulation's spec.defaultDurations (see
// kueuesim/scenario/default_durations.h and docs/scenario-format.md).
#ifndef KUEUESIM_SCENARIO_DECODE_DURATIONS_H_
#define KUEUESIM_SCENARIO_DECODE_DURATIONS_H_

#include <vector>

#include "absl/status/status.h"
#include "kueuesim/scenario/scenario.h"
#include "scenario/field.h"

namespace kueuesim::scenario {

// Decodes the list `field` (absent: no rules). An empirical distribution's
// CSV file is read now, relative to the scenario file.
absl::Status DecodeDefaultDurations(const FieldReader& field, std::vector<DefaultDurationRule>* rules);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_DECODE_DURATIONS_H_
