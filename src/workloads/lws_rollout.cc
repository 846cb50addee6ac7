// LWS rolling update decisions; see lws_rollout.h. Translated from
// kubernetes-sigs/lws v0.10.0 pkg/controllers/leaderworkerset_controller.go
// (rollingUpdateParameters, rollingUpdatePartition,
// calculateLWSUnreadyReplicas, calculateRollingUpdateReplicas,
// calculateContinuousReadyReplicas) and v0.8.0 where they differ, and from
// the Kubernetes StatefulSet controller's rolling update.
#include "kueuesim/workloads/lws_rollout.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "kueuesim/base/status.h"

namespace kueuesim::workloads {

absl::StatusOr<IntOrPercent> IntOrPercent::Parse(const std::string& text) {
  IntOrPercent out;
  std::string digits = text;
  if (!digits.empty() && digits.back() == '%') {
    out.percent = true;
    digits.pop_back();
  }
  int32_t value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || value < 0) {
    return InvalidArgument(fmt::format("\"{}\" is not a non-negative integer or percentage", text));
  }
  out.value = value;
  return out;
}

int32_t IntOrPercent::Scaled(int32_t total, bool round_up) const {
  if (!percent) return value;
  const int64_t product = static_cast<int64_t>(value) * total;
  return static_cast<int32_t>(round_up ? (product + 99) / 100 : product / 100);
}

std::string IntOrPercent::ToString() const {
  return percent ? fmt::format("{}%", value) : fmt::format("{}", value);
}

namespace {

// calculateContinuousReadyReplicas: ready-and-updated groups counted down
// from the last index.
int32_t ContinuousReadyTail(const std::vector<GroupView>& groups) {
  int32_t count = 0;
  for (size_t i = groups.size(); i-- > 0;) {
    if (!groups[i].ready || !groups[i].updated) break;
    ++count;
  }
  return count;
}

// rollingUpdatePartition.
int32_t NewPartition(const std::vector<GroupView>& groups, int32_t sts_replicas, int32_t rolling_step,
                     int32_t current_partition) {
  const int32_t tail = ContinuousReadyTail(groups);
  const int32_t base = std::max(0, sts_replicas - tail - rolling_step);
  int32_t unavailable = 0;
  for (int32_t i = 0; i < base; ++i) {
    if (!groups[static_cast<size_t>(i)].ready) ++unavailable;
  }
  int32_t partition = base + unavailable;
  for (int32_t i = std::min(partition, sts_replicas - 1); i >= base; --i) {
    const GroupView& g = groups[static_cast<size_t>(i)];
    if (!g.ready || g.updated) {
      partition = i;
    } else {
      break;
    }
  }
  return std::min(partition, current_partition);
}

// calculateLWSUnreadyReplicas: desired indices that are not ready and
// updated (missing ones included).
int32_t UnreadyDesired(const std::vector<GroupView>& groups, int32_t replicas) {
  int32_t count = 0;
  for (int32_t i = 0; i < replicas; ++i) {
    if (i >= static_cast<int32_t>(groups.size()) || !groups[static_cast<size_t>(i)].ready ||
        !groups[static_cast<size_t>(i)].updated) {
      ++count;
    }
  }
  return count;
}

}  // namespace

RolloutDecision ComputeRollout(const RolloutInput& in) {
  RolloutDecision d;
  const int32_t r = in.replicas;
  d.max_unavailable = in.max_unavailable.Scaled(r, /*round_up=*/false);
  d.max_surge = std::min(in.max_surge.Scaled(r, /*round_up=*/true), r);
  // The leader StatefulSet's maxUnavailable: MU + MS (at least 1) from
  // v0.9.0; v0.8 copied the LWS value (a percentage applies to the
  // StatefulSet's replicas, rounded down, at least 1).
  if (in.version == LwsVersion::kV0_10) {
    d.sts_max_unavailable = std::max(1, d.max_unavailable + d.max_surge);
  } else {
    d.sts_max_unavailable = std::max(1, in.max_unavailable.Scaled(std::max(in.sts_replicas, r), false));
  }
  const int32_t burst = r + d.max_surge;
  auto want_replicas = [&](int32_t unready) {
    if (unready <= d.max_surge) {
      const int32_t budget = in.version == LwsVersion::kV0_10 ? d.max_unavailable : 1;
      return r + std::max(0, unready - budget);
    }
    return burst;
  };
  auto finish = [&](int32_t partition, int32_t replicas, int which) {
    d.partition = std::max(partition, in.partition);
    d.replicas = replicas;
    d.which_case = which;
    return d;
  };
  if (!in.sts_exists) return finish(0, r, 1);
  if (in.new_revision) {
    const int32_t partition = std::min(r, in.sts_replicas);
    if (in.version == LwsVersion::kV0_10 && in.sts_replicas < r) return finish(partition, r, 2);
    return finish(partition, want_replicas(r), 2);
  }
  if (in.sts_partition == 0 && in.sts_replicas == r) return finish(0, r, 3);
  if (in.version == LwsVersion::kV0_10 && in.sts_replicas < r) return finish(in.sts_partition, r, 4);
  d.unavailable = UnreadyDesired(in.groups, r);
  if (in.replicas_changed) {
    return finish(std::min(in.sts_partition, burst), want_replicas(d.unavailable), 5);
  }
  const int32_t rolling_step = d.max_unavailable + d.max_surge - (burst - in.sts_replicas);
  const int32_t partition = NewPartition(in.groups, in.sts_replicas, rolling_step, in.sts_partition);
  return finish(partition, want_replicas(d.unavailable), 5);
}

StatefulSetAction StatefulSetStep(const std::vector<LeaderView>& leaders, int32_t replicas,
                                  int32_t partition, int32_t max_unavailable,
                                  StatefulSetReplacement mode) {
  StatefulSetAction action;
  const int32_t existing = static_cast<int32_t>(leaders.size());
  // Parallel pod management: create every missing ordinal, delete every
  // ordinal at or above replicas, at once.
  for (int32_t i = 0; i < replicas; ++i) {
    if (i >= existing || !leaders[static_cast<size_t>(i)].exists) action.create.push_back(i);
  }
  for (int32_t i = existing - 1; i >= replicas; --i) {
    if (leaders[static_cast<size_t>(i)].exists && !leaders[static_cast<size_t>(i)].terminating) {
      action.remove.push_back(i);
    }
  }
  const int32_t top = std::min(replicas, existing);
  if (mode == StatefulSetReplacement::kConcurrent) {
    // MaxUnavailableStatefulSet: count unavailable pods among the replicas;
    // replace old ones from the top down within the remaining budget.
    int32_t unavailable = 0;
    for (int32_t i = 0; i < replicas; ++i) {
      if (i >= existing) {
        ++unavailable;
        continue;
      }
      const LeaderView& l = leaders[static_cast<size_t>(i)];
      if (!l.exists || l.terminating || !l.ready) ++unavailable;
    }
    int32_t budget = max_unavailable - unavailable;
    for (int32_t i = top - 1; i >= partition && budget > 0; --i) {
      const LeaderView& l = leaders[static_cast<size_t>(i)];
      if (l.exists && !l.updated && !l.terminating) {
        action.replace.push_back(i);
        --budget;
      }
    }
    return action;
  }
  // Serial: delete the first old pod from the top, but wait at any pod that
  // is not healthy.
  for (int32_t i = top - 1; i >= partition; --i) {
    const LeaderView& l = leaders[static_cast<size_t>(i)];
    if (l.exists && !l.updated && !l.terminating) {
      action.replace.push_back(i);
      break;
    }
    if (!l.exists || l.terminating || !l.ready) break;
  }
  return action;
}

}  // namespace kueuesim::workloads
