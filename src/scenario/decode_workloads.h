// Decoders for workload kinds other than Workload and Job
// (LeaderWorkerSet) and for kueuesim.io/v1alpha1 Change.
#ifndef KUEUESIM_SCENARIO_DECODE_WORKLOADS_H_
#define KUEUESIM_SCENARIO_DECODE_WORKLOADS_H_

#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"
#include "scenario/field.h"

namespace kueuesim::scenario {

// A leaderworkerset.x-k8s.io/v1 LeaderWorkerSet.
absl::StatusOr<model::LeaderWorkerSet> DecodeLeaderWorkerSet(const FieldReader& object);

// A kueuesim.io/v1alpha1 Change.
absl::StatusOr<model::Change> DecodeChange(const FieldReader& object);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_DECODE_WORKLOADS_H_
