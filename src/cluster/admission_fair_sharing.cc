// Admission fair sharing; see admission_fair_sharing.h.
#include "kueuesim/cluster/admission_fair_sharing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace kueuesim::cluster {
namespace {

// Kueue's float view of a canonical amount (Quantity.AsApproximateFloat64).
double AsFloat(std::string_view resource_name, Amount amount) {
  if (amount == kUnlimited) return std::numeric_limits<double>::infinity();
  double value = static_cast<double>(amount);
  return IsMilliResource(resource_name) ? value / 1000.0 : value;
}
double AsFloat(const ClusterState& state, ResourceId resource, Amount amount) {
  return AsFloat(state.resource_name(resource), amount);
}

void Add(std::map<ResourceId, double>* into, const std::map<ResourceId, double>& from, double factor) {
  for (const auto& [r, v] : from) (*into)[r] += v * factor;
}

}  // namespace

AdmissionFairSharing::AdmissionFairSharing(const ClusterState* state) : state_(state) {
  const auto& config = state->configuration().admission_fair_sharing;
  enabled_ = config.has_value() && state->gates().admission_fair_sharing;
  if (!enabled_) return;
  half_life_ = config->usage_half_life_time;
  sampling_interval_ = config->usage_sampling_interval;
  // A resource that no ClusterQueue covers and no workload requests still
  // counts (CalculateUsage sums every consumed resource): such names get ids
  // of their own below kNone.
  for (const auto& [name, weight] : config->resource_weights) resource_weights_[ResourceOf(name)] = weight;
  entries_.resize(static_cast<size_t>(state->num_local_queues()));
  for (LqId lq = 0; lq < state->num_local_queues(); ++lq) {
    Entry& entry = entries_[static_cast<size_t>(lq)];
    const model::LocalQueue& spec = *state->lq(lq).spec;
    entry.weight = spec.fair_weight;
    for (const auto& [name, amount] : spec.afs_consumed) entry.consumed[ResourceOf(name)] = AsFloat(name, amount);
  }
}

ResourceId AdmissionFairSharing::ResourceOf(const std::string& name) {
  const ResourceId known = state_->FindResource(name);
  if (known != kNone) return known;
  auto it = std::find(unknown_resources_.begin(), unknown_resources_.end(), name);
  if (it == unknown_resources_.end()) it = unknown_resources_.insert(unknown_resources_.end(), name);
  return kNone - 1 - static_cast<ResourceId>(it - unknown_resources_.begin());
}

std::string_view AdmissionFairSharing::ResourceName(ResourceId r) const {
  return r >= 0 ? std::string_view(state_->resource_name(r)) : std::string_view(unknown_resources_[static_cast<size_t>(kNone - 1 - r)]);
}

bool AdmissionFairSharing::OrdersClusterQueue(CqId cq) const {
  return enabled_ && state_->cq(cq).spec->admission_mode == model::AdmissionMode::kUsageBasedAdmissionFairSharing;
}

double AdmissionFairSharing::Usage(LqId lq) const {
  if (!enabled_ || lq == kNone) return 0;
  const Entry& entry = entries_[static_cast<size_t>(lq)];
  Resources all = entry.consumed;
  Add(&all, entry.pending_penalty, 1.0);
  // Summed in resource-name order, as Kueue does.
  std::vector<std::pair<std::string_view, double>> named;
  for (const auto& [r, v] : all) {
    auto it = resource_weights_.find(r);
    named.emplace_back(ResourceName(r), (it == resource_weights_.end() ? 1.0 : it->second) * v);
  }
  std::sort(named.begin(), named.end());
  double usage = 0;
  for (const auto& [name, weighted] : named) usage += weighted;
  if (entry.weight <= 0) return std::numeric_limits<double>::infinity();
  return usage / entry.weight;
}

bool AdmissionFairSharing::HasPendingPenalty(CqId cq) const {
  if (!enabled_) return false;
  for (LqId lq = 0; lq < state_->num_local_queues(); ++lq) {
    if (state_->lq(lq).cq != cq) continue;
    for (const auto& [r, v] : entries_[static_cast<size_t>(lq)].pending_penalty) {
      if (v != 0) return true;
    }
  }
  return false;
}

double AdmissionFairSharing::Alpha(double elapsed_seconds) const {
  const double half_life = static_cast<double>(half_life_) / static_cast<double>(kSecond);
  if (half_life == 0) return 0.0;
  return 1.0 - std::pow(0.5, elapsed_seconds / half_life);
}

AdmissionFairSharing::Resources AdmissionFairSharing::TotalRequests(const WorkloadRecord& wl) const {
  Resources total;
  for (const auto& ps : wl.pod_sets) {
    for (const auto& r : ps.per_pod) {
      total[r.resource] += AsFloat(*state_, r.resource, MulAmount(r.amount, ps.count));
    }
  }
  return total;
}

void AdmissionFairSharing::PushPenalty(WorkloadId id, const WorkloadRecord& wl) {
  if (!enabled_ || wl.lq == kNone) return;
  Entry& entry = entries_[static_cast<size_t>(wl.lq)];
  const double alpha = Alpha(static_cast<double>(sampling_interval_) / static_cast<double>(kSecond));
  Resources penalty;
  for (const auto& [r, v] : TotalRequests(wl)) penalty[r] = v * alpha;
  DropPenalty(id, wl);
  entry.penalties[id] = penalty;
  Add(&entry.pending_penalty, penalty, 1.0);
}

void AdmissionFairSharing::DropPenalty(WorkloadId id, const WorkloadRecord& wl) {
  if (!enabled_ || wl.lq == kNone) return;
  Entry& entry = entries_[static_cast<size_t>(wl.lq)];
  auto it = entry.penalties.find(id);
  if (it == entry.penalties.end()) return;
  Add(&entry.pending_penalty, it->second, -1.0);
  for (auto p = entry.pending_penalty.begin(); p != entry.pending_penalty.end();) {
    p = p->second == 0 ? entry.pending_penalty.erase(p) : std::next(p);
  }
  entry.penalties.erase(it);
}

void AdmissionFairSharing::Decay(Entry* entry, SimTime now) {
  const double elapsed = std::max<double>(0, static_cast<double>(now - entry->last_update) / static_cast<double>(kSecond));
  const double alpha = Alpha(elapsed);
  Resources next;
  Add(&next, entry->consumed, 1 - alpha);
  Add(&next, entry->admitted_usage, alpha);
  entry->consumed = std::move(next);
  entry->last_update = std::max(entry->last_update, now);
}

void AdmissionFairSharing::Settle(WorkloadId id, const WorkloadRecord& wl, SimTime now) {
  if (!enabled_ || wl.lq == kNone || !OrdersClusterQueue(state_->lq(wl.lq).cq)) return;
  Entry& entry = entries_[static_cast<size_t>(wl.lq)];
  Decay(&entry, now);
  auto it = entry.penalties.find(id);
  if (it == entry.penalties.end()) return;
  Add(&entry.consumed, it->second, 1.0);
  DropPenalty(id, wl);
}

void AdmissionFairSharing::AddAdmittedUsage(const WorkloadRecord& wl, int sign) {
  if (!enabled_ || wl.lq == kNone || !wl.admission.has_value()) return;
  Entry& entry = entries_[static_cast<size_t>(wl.lq)];
  for (const auto& ps : wl.admission->pod_sets) {
    for (const auto& e : ps.entries) entry.admitted_usage[e.resource] += sign * AsFloat(*state_, e.resource, e.usage);
  }
}

void AdmissionFairSharing::ReconcileAll(SimTime now) {
  if (!enabled_) return;
  for (LqId lq = 0; lq < state_->num_local_queues(); ++lq) {
    const CqId cq = state_->lq(lq).cq;
    if (cq == kNone) continue;
    Entry& entry = entries_[static_cast<size_t>(lq)];
    if (half_life_ == 0) {
      entry.consumed.clear();
      entry.last_update = now;
      continue;
    }
    Decay(&entry, now);
  }
}

}  // namespace kueuesim::cluster
