// The LeaderWorkerSet controller and Kueue's LWS integration, simulated
// together: one Workload per group index (pod sets leader/worker or main),
// each admitted on its own; the group's pods start when it is admitted; the
// leader StatefulSet rolls out new revisions with LWS's algorithm
// (workloads/lws_rollout.h) and surge groups need quota of their own.
// See ../shared/design/lws-multikueue-dra.md parts A and B and
// docs/serving.md.
#ifndef KUEUESIM_RUNTIME_LWS_CONTROLLER_H_
#define KUEUESIM_RUNTIME_LWS_CONTROLLER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "kueuesim/engine/event_queue.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/runtime/cluster_runtime.h"
#include "kueuesim/workloads/lws_rollout.h"

namespace kueuesim::runtime {

// When Kueue deletes a surge group's Workload.
enum class KueueSurgeWorkloads {
  // Kueue ff69552e (kueue#8801, #9135, #9631): Workloads are kept for the
  // indices below the leader StatefulSet's status.replicas only while
  // maxSurge > 0 and status.updatedReplicas < spec.replicas. Updated counts
  // the surge groups, so the surge Workload is deleted as soon as
  // spec.replicas groups are updated; the pod-group reconciler then finds
  // no Workload and stops the group's pods, and the leader the StatefulSet
  // recreates stays gated until a Workload is created again.
  kUpstream,
  // A surge group's Workload is kept until its leader is gone (the
  // StatefulSet dropped the index and the pod terminated): the surge keeps
  // its quota and its pods for as long as LWS keeps the group.
  kFixed,
};

struct LwsOptions {
  workloads::LwsVersion version = workloads::LwsVersion::kV0_10;
  workloads::StatefulSetReplacement replacement = workloads::StatefulSetReplacement::kConcurrent;
  // Kueue reads a percentage maxSurge with IntValue() (0) upstream; "fixed"
  // scales it as LWS does.
  bool kueue_percentage_surge_fixed = false;
  KueueSurgeWorkloads surge_workloads = KueueSurgeWorkloads::kUpstream;
  // Time a deleted pod takes to terminate.
  SimDuration termination_delay = 0;
};

// What happened to one LeaderWorkerSet, for reports.
struct LwsReport {
  struct Stall {
    SimTime start = 0;
    SimTime end = -1;  // -1: still stalled at the end of the run
    int32_t group = -1;
    std::string reason;
  };
  struct Rollout {
    SimTime start = 0;
    SimTime end = -1;  // -1: not finished
    int32_t min_ready_groups = 0;
    int32_t peak_surge_groups = 0;  // surge groups holding quota at once
    std::map<std::string, Amount> peak_surge_quota;  // by resource
    // Times Kueue stopped a group's running pods because it had deleted
    // the group's Workload (a surge group, under kUpstream).
    int32_t groups_stopped = 0;
    std::vector<Stall> stalls;
  };
  struct Scale {
    SimTime at = 0;
    int32_t from = 0;
    int32_t to = 0;
    SimTime all_ready_at = -1;  // -1: never all ready
  };
  std::string name;  // namespace/name
  int32_t replicas = 0;
  int32_t size = 1;
  std::vector<Rollout> rollouts;
  std::vector<Scale> scales;
  std::vector<std::pair<SimTime, int32_t>> ready_groups;  // over time, one point per change
};

class LwsController : public engine::EventHandler, public WorkloadOwner {
 public:
  LwsController(ClusterRuntime* runtime, model::LeaderWorkerSet spec, std::vector<model::Change> changes,
                LwsOptions options);

  // Creates the leader StatefulSet and the groups' Workloads (at time 0),
  // and schedules the changes.
  void Start();

  const LwsReport& report() const { return report_; }
  const model::LeaderWorkerSet& spec() const { return spec_; }

  // The group table against the cluster's Workloads, for
  // --check-invariants (docs/invariants.md). Between events:
  // - a group's Workload is a live (or deactivated) record of this
  //   LeaderWorkerSet, of that group, named after it;
  // - every live or deactivated Workload of this LeaderWorkerSet is its
  //   group's (no Workload is left behind);
  // - a group's pods run only while its Workload is admitted (not evicted);
  // - exactly the groups Kueue keeps Workloads for have one (DesiredWorkloads:
  //   [0, spec.replicas), and the surge groups while Kueue's surge rule
  //   holds), except a Workload Kueue deleted in the last UpdatesBatchPeriod
  //   and is about to create again, and a churning surge group kueuesim
  //   stopped following (kMaxStopsPerRollout).
  // Returns the first violation, naming the LeaderWorkerSet and the group.
  absl::Status CheckGroupTable(const std::string& where) const;

  // Ways to break the group table on purpose, for the invariant's tests.
  enum class Breakage {
    kForgetWorkload,               // the group forgets its Workload, which stays
    kSwapWithNextGroup,            // the group and the next one swap Workloads
    kStartPodsWithoutAdmission,    // the group's pods start as they are
    kDeleteWorkloadSilently,       // the Workload is deleted, the group not told
    kLowerReplicasWithoutReconcile,  // spec.replicas - 1, nothing reconciled
  };
  void BreakForTesting(Breakage breakage, int32_t index);

  // WorkloadOwner
  void OnAdmitted(WorkloadId id, int32_t index) override;
  void OnEvicted(WorkloadId id, int32_t index) override;
  void OnRequeued(WorkloadId id, int32_t index) override;

  // engine::EventHandler
  void HandleEvent(int32_t kind, int64_t a, int64_t b) override;

 private:
  enum EventKind : int32_t { kLeaderReady = 1, kWorkersReady, kTerminated, kChange, kStallCheck, kKueueReconcile };

  struct Group {
    bool leader_exists = false;
    bool terminating = false;
    bool removing = false;  // terminating for good (scale down, surge release)
    bool surge = false;     // its leader was created beyond spec.replicas (a surge group)
    int32_t revision = 0;
    bool leader_started = false;
    bool leader_ready = false;
    bool workers_exist = false;
    bool workers_started = false;
    bool workers_ready = false;
    bool ready = false;  // last reported group readiness
    uint32_t generation = 0;
    WorkloadId workload = kNone;
    // When Kueue last deleted this index's Workload (-1: never). Kueue's
    // LWS reconciler, requeued by the deletion after UpdatesBatchPeriod
    // (1 s), is the earliest a new one is created.
    SimTime workload_deleted_at = -1;
    // That deleted Workload's record, released when a Workload of the same
    // name is created again (Kueue names them by index).
    WorkloadId deleted_workload = kNone;
    // Times Kueue stopped this group in the current rollout (a churning
    // surge group; see kMaxStopsPerRollout).
    int32_t stops = 0;
  };

  // A surge group that Kueue keeps stopping (LeaderReady: its Workload is
  // created again and deleted once its leader is ready, forever) would keep
  // a run without `until` going for ever: after this many stops in one
  // rollout kueuesim stops following, and the group's Workload is not
  // created again.
  static constexpr int32_t kMaxStopsPerRollout = 100;

  Group& group(int32_t index);
  bool Admitted(int32_t index) const;
  bool Updated(const Group& g) const;
  void CreateLeader(int32_t index, int32_t revision);
  void StartPods(int32_t index);
  void Terminate(int32_t index, bool remove);
  void UpdateReadiness(int32_t index);
  void EnsureWorkloads();
  int32_t DesiredWorkloads() const;
  // Kueue's reading of maxSurge (IntValue(): a percentage is 0 upstream).
  int32_t KueueMaxSurge() const;
  // The LWS status Kueue reads: status.replicas (the leader StatefulSet's
  // status.replicas: every leader pod, terminating ones included) and
  // status.updatedReplicas (leader pods on the latest revision whose worker
  // StatefulSet exists and is on it too, surge groups included).
  int32_t StatusReplicas() const;
  int32_t StatusUpdatedReplicas() const;
  // Kueue's pod-group reconciler: a group whose Workload is gone and whose
  // pods were ungated has its pods stopped (deleted).
  bool StopGroupsWithoutWorkload();
  // Whether some group is on its way to ready (terminating to be
  // recreated, or admitted and starting): the rollout is not stalled then.
  bool GroupInFlight() const;
  std::string GroupWorkloadName(int32_t index) const;
  model::Workload GroupWorkload(int32_t index) const;
  void Reconcile();
  // Whether the rollout waits for a group that cannot start, and why.
  int32_t BlockedGroup(std::string* reason) const;
  void CheckStall();
  void ConfirmStall();
  void TrackProgress();
  void ApplyChange(const model::Change& change);
  int32_t ReadyGroups() const;

  ClusterRuntime* runtime_;
  model::LeaderWorkerSet spec_;
  std::vector<model::Change> changes_;
  LwsOptions options_;
  int32_t owner_id_ = kNone;
  std::string key_;
  std::vector<Group> groups_;
  bool sts_exists_ = false;
  int32_t sts_replicas_ = 0;
  int32_t sts_partition_ = 0;
  int32_t update_revision_ = 0;   // the latest template revision
  int32_t current_revision_ = 0;  // the StatefulSet's current revision
  bool new_revision_ = false;
  bool replicas_changed_ = false;
  bool rolling_ = false;
  bool stalled_ = false;
  bool stall_check_pending_ = false;
  bool kueue_reconcile_pending_ = false;
  SimTime blocked_since_ = -1;
  bool scaling_ = false;
  LwsReport report_;
};

}  // namespace kueuesim::runtime

#endif  // KUEUESIM_RUNTIME_LWS_CONTROLLER_H_
