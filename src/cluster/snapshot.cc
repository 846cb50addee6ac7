// SchedulingSnapshot; see snapshot.h.
#include "kueuesim/cluster/snapshot.h"

#include <algorithm>

#include "kueuesim/base/status.h"

namespace kueuesim::cluster {

SchedulingSnapshot::SchedulingSnapshot(ClusterState* state, SimTime now, const AdmissionFairSharing* afs)
    : state_(state), now_(now), afs_(afs) {
  if (state_->tas() != nullptr) state_->tas()->BeginCycle(*state_);
  if (afs_ != nullptr && afs_->Enabled()) {
    lq_usage_.resize(static_cast<size_t>(state_->num_local_queues()));
    for (LqId lq = 0; lq < state_->num_local_queues(); ++lq) {
      lq_usage_[static_cast<size_t>(lq)] = afs_->Usage(lq);
    }
  }
}

SchedulingSnapshot::~SchedulingSnapshot() { FinishCycle(); }

void SchedulingSnapshot::FinishCycle() {
  if (finished_) return;
  finished_ = true;
  if (state_->tas() != nullptr) state_->tas()->EndCycle(*state_);
}

void SchedulingSnapshot::UpdateTasUsageOf(WorkloadId id, bool add) {
  TasCache* tas = state_->tas();
  if (tas == nullptr) return;
  const TasUsage* usage = tas->AccountedUsage(id);
  if (usage == nullptr) return;
  if (add) {
    tas->AddUsage(*usage);
  } else {
    tas->RemoveUsage(*usage);
  }
}

void SchedulingSnapshot::AddTasUsage(const TasUsage& usage) {
  if (state_->tas() != nullptr) state_->tas()->AddCycleUsage(usage);
}

bool SchedulingSnapshot::FitsTas(const TasUsage& usage) const {
  return state_->tas() == nullptr || state_->tas()->Fits(usage);
}

void SchedulingSnapshot::AccountAdmission(WorkloadId id) {
  if (state_->tas() != nullptr) state_->tas()->AccountAfterCycle(id);
}

std::optional<double> SchedulingSnapshot::LocalQueueFsUsage(WorkloadId id) const {
  if (lq_usage_.empty()) return std::nullopt;
  const WorkloadRecord& wl = state_->workload(id);
  if (!wl.admission.has_value() || wl.lq == kNone || !afs_->OrdersClusterQueue(wl.admission->cq)) {
    return std::nullopt;
  }
  return lq_usage_[static_cast<size_t>(wl.lq)];
}

std::span<const FrAmount> SchedulingSnapshot::UsageOf(WorkloadId id) const {
  const WorkloadRecord& wl = state_->workload(id);
  if (!wl.admission.has_value()) return {};
  return wl.admission->usage;
}

CqId SchedulingSnapshot::HoldingCq(WorkloadId id) const {
  const WorkloadRecord& wl = state_->workload(id);
  return wl.admission.has_value() ? wl.admission->cq : kNone;
}

void SchedulingSnapshot::RemoveWorkload(WorkloadId id) {
  WorkloadRecord& wl = state_->workload(id);
  KUEUESIM_CHECK(wl.admission.has_value() && !wl.snapshot_removed);
  wl.snapshot_removed = true;
  state_->tree().RemoveUsage(state_->cq(wl.admission->cq).node, wl.admission->usage);
  UpdateTasUsageOf(id, false);
}

void SchedulingSnapshot::AddWorkload(WorkloadId id) {
  WorkloadRecord& wl = state_->workload(id);
  KUEUESIM_CHECK(wl.admission.has_value() && wl.snapshot_removed);
  wl.snapshot_removed = false;
  state_->tree().AddUsage(state_->cq(wl.admission->cq).node, wl.admission->usage);
  UpdateTasUsageOf(id, true);
}

void SchedulingSnapshot::RemoveWorkloadUsage(WorkloadId id) {
  const WorkloadRecord& wl = state_->workload(id);
  state_->tree().RemoveUsage(state_->cq(wl.admission->cq).node, wl.admission->usage);
  UpdateTasUsageOf(id, false);
}

void SchedulingSnapshot::AddWorkloadUsage(WorkloadId id) {
  const WorkloadRecord& wl = state_->workload(id);
  state_->tree().AddUsage(state_->cq(wl.admission->cq).node, wl.admission->usage);
  UpdateTasUsageOf(id, true);
}

void SchedulingSnapshot::AddUsage(CqId cq, std::span<const FrAmount> usage) {
  state_->tree().AddUsage(state_->cq(cq).node, usage);
}

void SchedulingSnapshot::RemoveUsage(CqId cq, std::span<const FrAmount> usage) {
  state_->tree().RemoveUsage(state_->cq(cq).node, usage);
}

bool SchedulingSnapshot::FitsQuota(CqId cq, std::span<const FrAmount> usage) const {
  const NodeId node = state_->cq(cq).node;
  for (const FrAmount& u : usage) {
    if (state_->tree().Available(node, u.fr) < u.amount) return false;
  }
  return true;
}

UnixMicros SchedulingSnapshot::QuotaReservationTime(WorkloadId id) const {
  const WorkloadRecord& wl = state_->workload(id);
  return wl.admission.has_value() ? wl.quota_reserved_at : wall_now();
}

bool SchedulingSnapshot::UsesResources(WorkloadId id, std::span<const FrId> frs) const {
  const WorkloadRecord& wl = state_->workload(id);
  if (!wl.admission.has_value()) return false;
  for (const auto& ps : wl.admission->pod_sets) {
    for (const auto& entry : ps.entries) {
      FrId fr = state_->FindFr(entry.flavor, entry.resource);
      if (fr != kNone && std::find(frs.begin(), frs.end(), fr) != frs.end()) return true;
    }
  }
  return false;
}

}  // namespace kueuesim::cluster
