// The kueuesim umbrella header: the simulation facade, scenario loading,
// the policy registry and the reports. Most programs need nothing else.
#ifndef KUEUESIM_KUEUESIM_H_
#define KUEUESIM_KUEUESIM_H_

#include "kueuesim/base/quantity.h"
#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "kueuesim/metrics/event_log.h"
#include "kueuesim/metrics/summary.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/sim/simulation.h"

#endif  // KUEUESIM_KUEUESIM_H_
