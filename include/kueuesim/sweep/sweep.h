// Parameter sweeps: a kueuesim.io/v1alpha1 Sweep object in a scenario
// declares a grid over parameters; every grid point is the scenario with
// those values applied, run to the end (or --until), giving one summary.
//
//   apiVersion: kueuesim.io/v1alpha1
//   kind: Sweep
//   metadata: {name: gpu-quota}
//   spec:
//     parameters:
//     - name: x-cpu                    # column name; unique
//       quota: {clusterQueue: x, flavor: default-flavor, resource: cpu,
//               field: nominalQuota}   # or borrowingLimit | lendingLimit;
//                                      # cohort: NAME instead of clusterQueue;
//                                      # cluster: NAME for a MultiKueue worker
//       values: ["8", "10", "16"]      # quantities
//     - name: ordering
//       policy: queueOrdering          # or preemption | dispatcher
//       values: ["", "shortest-job-first"]  # "" is Kueue's own behaviour
//     - name: x-weight
//       fairSharingWeight: {clusterQueue: x}  # or cohort: NAME
//       values: ["1", "2.5"]
//
// Points are numbered 0..N-1 over the cartesian product, the first
// parameter varying slowest. Shard i of n (0 <= i < n) runs the points p
// with p % n == i, so any set of shards 0..n-1 covers every point exactly
// once (i is Kubernetes' JOB_COMPLETION_INDEX, 0-based).
#ifndef KUEUESIM_SWEEP_SWEEP_H_
#define KUEUESIM_SWEEP_SWEEP_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/base/time.h"
#include "kueuesim/scenario/scenario.h"

namespace kueuesim::sweep {

struct SweepParameter {
  enum class Kind { kQuota, kPolicy, kFairSharingWeight, kLeaderWorkerSet, kAutoscalerPool, kProvisioningRequestConfig };
  std::string name;
  Kind kind = Kind::kQuota;
  std::string cluster;        // "" : the default cluster
  std::string cluster_queue;  // quota / weight target (or cohort)
  std::string cohort;
  std::string flavor;         // quota
  std::string resource;       // quota
  std::string field;          // quota: nominalQuota | borrowingLimit | lendingLimit
  std::string policy;         // policy: queueOrdering | preemption | dispatcher
  // leaderWorkerSet / autoscalerPool / provisioningRequestConfig: the
  // object (namespace for a LeaderWorkerSet, default "default") and its
  // field (see docs/sweeps.md); `field` is shared with quota.
  std::string object_name;
  std::string object_namespace;
  std::vector<std::string> values;
  std::string where;          // "file:line" of the parameter, for messages
};

struct Sweep {
  std::string name;
  std::string where;  // "file:line" of the object
  std::vector<SweepParameter> parameters;

  int64_t num_points() const;
  // The value index of each parameter at point `point`.
  std::vector<size_t> Coordinates(int64_t point) const;
};

// Finds the one Sweep object in the scenario files, read as
// scenario::LoadScenarioFiles reads them (the scenario must load). NotFound
// when there is none; InvalidArgument (naming file, line and field) when it
// is malformed or there are several.
absl::StatusOr<Sweep> LoadSweep(const std::vector<std::string>& files);

// The scenario with point `point`'s values applied. Errors name the Sweep
// parameter and the object or field it could not find.
absl::StatusOr<scenario::Scenario> ApplyPoint(const Sweep& sweep, int64_t point, scenario::Scenario scenario);

// Shard "i/n": 0 <= i < n.
struct Shard {
  int64_t index = 0;
  int64_t count = 1;
  bool Owns(int64_t point) const { return point % count == index; }
};
absl::StatusOr<Shard> ParseShard(std::string_view text);

// The number of hardware threads (at least 1): the default of --jobs.
int DefaultSweepJobs();

struct SweepOptions {
  std::optional<SimTime> until;
  Shard shard;
  // Points run at once, each on its own thread (at least 1). Every point's
  // file is byte-identical whatever the number.
  int jobs = 1;
};

// Runs the shard's points of the scenario's sweep (options.jobs at a time)
// and writes one file per
// point: OUT/point-<number>.json = {"sweep", "point", "points",
// "parameters": {name: value}, "figures": {...}, "summary": {...}}.
// Returns the number of points run. `files` are read once, as
// scenario::LoadScenarioFiles reads them (directories included); the Sweep
// comes from that same pass.
absl::StatusOr<int64_t> RunSweep(const std::vector<std::string>& files, const std::string& out_dir,
                                 const SweepOptions& options);

// Joins the point files of shard directories into one CSV table, one row
// per point in point order; fails naming the point when one is missing or
// appears twice, or when the directories come from different sweeps.
absl::StatusOr<std::string> MergeSweep(const std::vector<std::string>& dirs);

}  // namespace kueuesim::sweep

#endif  // KUEUESIM_SWEEP_SWEEP_H_
