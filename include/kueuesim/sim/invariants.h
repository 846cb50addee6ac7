// Invariant checking (`kueuesim run --check-invariants`, RunOptions::
// check_invariants): after every engine event and every scheduling cycle the
// checker recomputes, from the workload records alone, what Kueue
// guarantees and compares it with the engine's incremental bookkeeping. The
// first mismatch becomes an error Status naming the invariant, the time,
// the last event, the object and the figures. docs/invariants.md lists the
// invariants and Kueue's source for each.
//
// Off (the default) it costs one branch per event and per cycle.
#ifndef KUEUESIM_SIM_INVARIANTS_H_
#define KUEUESIM_SIM_INVARIANTS_H_

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "kueuesim/base/time.h"
#include "kueuesim/cluster/cluster_state.h"
#include "kueuesim/cluster/events.h"

namespace kueuesim::sim {

// Quota accounting: every ClusterQueue's usage per (flavor, resource)
// equals the sum of the usage in the admissions of the workloads holding
// quota there; every cohort's usage equals what its children's usage
// overflows their local (lending-limit) quota; no usage is negative.
// `where` says when (e.g. "after cycle 12 at 30 s").
absl::Status CheckQuotaAccounting(const cluster::ClusterState& state, const std::string& where);

// Workload states: a workload holds quota exactly when it is QuotaReserved
// or Admitted, holds it in one ClusterQueue and appears once in that
// queue's list of holders; finished, deactivated, not-yet-arrived and
// released workloads are in no queue and hold nothing; a workload that
// holds quota is not also queued for admission; nothing is left in flight
// between cycles.
absl::Status CheckWorkloadStates(const cluster::ClusterState& state, const std::string& where);

// Admission within limits: right after `id` reserved quota, every
// (flavor, resource) it was given a positive amount of is within what Kueue
// lets a ClusterQueue use (nominal quota, plus what it may borrow from its
// cohort up to its borrowingLimit, minus what other ClusterQueues'
// lendingLimits keep out of reach): Kueue's fit test at admission, which
// leaves out the quota of workloads being evicted (still holding it until
// the eviction completes).
absl::Status CheckAdmissionFits(const cluster::ClusterState& state, cluster::WorkloadId id,
                                const std::string& where);

// Topology-aware placements: for every TAS flavor and every domain of the
// admitted workloads' topology assignments that the TAS cache knows nodes
// of, the pods placed there (their pod templates' requests, and one "pods"
// each) add up to no more than the allocatable of those nodes, per
// resource. (Per flavor: without TASHandleOverlappingFlavors Kueue keeps
// the flavors sharing a node apart, so only the per-flavor sum is its
// guarantee.) Placements the input already holds (workloads admitted in
// their exported status) are Kueue's starting point, not its decision: a
// domain they overfill on their own is not a violation (Kueue's TAS cache
// simply has negative free capacity there), only one where a placement the
// run made is among those over the allocatable. `placed_by_input(id)`
// says which workloads' placements came from the input; null: none did.
absl::Status CheckTopologyPlacements(const cluster::ClusterState& state, const std::string& where,
                                     const std::function<bool(cluster::WorkloadId)>& placed_by_input = nullptr);

// LeaderWorkerSet groups: a Workload owned by a group (an LWS group index)
// has a valid index, and no two live Workloads (Pending, QuotaReserved or
// Admitted) belong to the same group of the same LeaderWorkerSet: Kueue's
// LWS integration names a group's Workload after the group, so a new one
// exists only once the old one is deleted.
absl::Status CheckOwnedWorkloads(const cluster::ClusterState& state, const std::string& where);

// Follows a run: an EventSink for event-level invariants (times never go
// back) and the workloads that reserve quota, and the checks at each check
// point. The first violation is kept; later ones are ignored.
class InvariantChecker : public cluster::EventSink {
 public:
  explicit InvariantChecker(std::vector<const cluster::ClusterState*> clusters)
      : clusters_(std::move(clusters)) {}

  // A check of state outside the clusters' records (a MultiKueue
  // controller's), run at every check point after the clusters' checks.
  using ExtraCheck = std::function<absl::Status(const std::string& where)>;
  void AddCheck(ExtraCheck check) { extra_checks_.push_back(std::move(check)); }

  void OnEvent(const cluster::SimEvent& event) override;
  // Runs every state check; `where` names the check point. Returns the
  // first violation so far.
  const absl::Status& Check(SimTime now, const std::string& where);
  const absl::Status& status() const { return status_; }
  int64_t checks() const { return checks_; }

 private:
  void Fail(absl::Status status);
  std::string Where(const std::string& where) const;

  std::vector<const cluster::ClusterState*> clusters_;
  std::vector<ExtraCheck> extra_checks_;
  absl::Status status_;
  SimTime last_event_time_ = 0;
  SimTime last_check_time_ = 0;
  int64_t events_ = 0;
  int64_t checks_ = 0;
  std::string last_event_;
  // Workloads that reserved quota since the last check point.
  struct Reservation {
    const cluster::ClusterState* cluster;
    cluster::WorkloadId workload;
  };
  std::vector<Reservation> reserved_;
  // Workloads holding the placement of their input status (admitted at
  // the start and not re-admitted since), per cluster.
  std::set<std::pair<const cluster::ClusterState*, cluster::WorkloadId>> placed_by_input_;
};

}  // namespace kueuesim::sim

#endif  // KUEUESIM_SIM_INVARIANTS_H_
