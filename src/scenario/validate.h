// Validation of a loaded scenario: what Kueue's webhooks reject is an
// error; what Kueue accepts but cannot run is a warning in the report.
#ifndef KUEUESIM_SCENARIO_VALIDATE_H_
#define KUEUESIM_SCENARIO_VALIDATE_H_

#include "absl/status/status.h"
#include "kueuesim/scenario/scenario.h"

namespace kueuesim::scenario {

absl::Status ValidateScenario(Scenario* scenario);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_VALIDATE_H_
