// LeaderWorkerSet rolling updates: the LWS controller's decision (leader
// StatefulSet partition and replicas) and the StatefulSet controller's step
// (which leaders to replace, create or delete), as pure functions of the
// state so that each reconcile can be tested state by state.
//
// Mirrors kubernetes-sigs/lws pkg/controllers/leaderworkerset_controller.go
// (rollingUpdateParameters, iterateReplicas/newPartition, desiredReplicas)
// at v0.10 and the StatefulSet controller's rolling update
// (../shared/design/lws-multikueue-dra.md A.6, A.7; F.4 for v0.8).
#ifndef KUEUESIM_WORKLOADS_LWS_ROLLOUT_H_
#define KUEUESIM_WORKLOADS_LWS_ROLLOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kueuesim::workloads {

// An int or a percentage ("25%"), as intstr.IntOrString.
struct IntOrPercent {
  int32_t value = 0;
  bool percent = false;

  static absl::StatusOr<IntOrPercent> Parse(const std::string& text);
  // intstr.GetScaledValueFromIntOrPercent: percent of `total`, rounded up or
  // down.
  int32_t Scaled(int32_t total, bool round_up) const;
  std::string ToString() const;
};

// Which release of LWS the algorithm mirrors.
enum class LwsVersion {
  kV0_8,   // rollingStep = MU; surge released one group per ready group
  kV0_10,  // (>= v0.9.0) rollingStep = MU + MS - released surge; R + max(0, u - MU)
};

// How the leader StatefulSet replaces leaders.
enum class StatefulSetReplacement {
  kConcurrent,  // Kubernetes >= 1.35 MaxUnavailableStatefulSet (default)
  kSerial,      // older: one at a time, waiting for each to be ready
};

// One group index as the LWS controller sees it.
struct GroupView {
  bool exists = false;   // the leader pod exists
  bool ready = false;    // group ready (leader and workers)
  bool updated = false;  // leader and workers on the current revision
};

struct RolloutInput {
  int32_t replicas = 1;  // spec.replicas (R)
  int32_t partition = 0;  // spec rollingUpdateConfiguration.partition (P_user)
  IntOrPercent max_unavailable{1, false};
  IntOrPercent max_surge{0, false};
  bool sts_exists = false;
  int32_t sts_replicas = 0;   // leader StatefulSet spec.replicas
  int32_t sts_partition = 0;  // leader StatefulSet partition
  // The LWS template changed since the last reconcile (a new revision).
  bool new_revision = false;
  // The StatefulSet's replicas annotation differs from spec.replicas (the
  // replicas changed since the last apply).
  bool replicas_changed = false;
  std::vector<GroupView> groups;  // indices [0, sts_replicas)
  LwsVersion version = LwsVersion::kV0_10;
};

struct RolloutDecision {
  int32_t partition = 0;
  int32_t replicas = 0;
  int32_t sts_max_unavailable = 1;  // the leader StatefulSet's maxUnavailable
  int32_t max_surge = 0;            // MS
  int32_t max_unavailable = 0;      // MU
  int32_t unavailable = 0;          // u, unready-or-old desired groups (case 5)
  int which_case = 0;               // 1..5 as in A.6 (5 = partition walk), for reports
};

// The LWS controller's decision for one reconcile.
RolloutDecision ComputeRollout(const RolloutInput& input);

// One leader pod as the StatefulSet controller sees it.
struct LeaderView {
  bool exists = false;
  bool updated = false;      // on the update revision
  bool ready = false;        // Running and Ready (leader only)
  bool terminating = false;  // being deleted
};

struct StatefulSetAction {
  std::vector<int32_t> replace;  // old leaders to delete (recreated with the new revision)
  std::vector<int32_t> create;   // missing leaders below replicas
  std::vector<int32_t> remove;   // leaders at or above replicas
};

// The StatefulSet controller's step: create missing ordinals below
// `replicas`, delete those above, and replace old-revision leaders at or
// above `partition`, highest first, within the maxUnavailable budget
// (concurrent) or one at a time waiting for readiness (serial).
StatefulSetAction StatefulSetStep(const std::vector<LeaderView>& leaders, int32_t replicas,
                                  int32_t partition, int32_t max_unavailable,
                                  StatefulSetReplacement mode);

}  // namespace kueuesim::workloads

#endif  // KUEUESIM_WORKLOADS_LWS_ROLLOUT_H_
