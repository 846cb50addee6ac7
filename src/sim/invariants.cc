// Invariant checks; see invariants.h and docs/invariants.md.
#include "kueuesim/sim/invariants.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kueuesim/base/quantity.h"
#include "kueuesim/base/status.h"
#include "kueuesim/cluster/tas_cache.h"

namespace kueuesim::sim {
namespace {

using cluster::ClusterState;
using cluster::CqId;
using cluster::WorkloadId;
using cluster::WorkloadPhase;
using cluster::WorkloadPhaseName;
using cluster::WorkloadRecord;
using quota::FrId;
using quota::NodeId;

absl::Status Violation(std::string_view invariant, const std::string& where, const std::string& detail) {
  return absl::InternalError(fmt::format("invariant violated: {} ({}): {}", invariant, where, detail));
}

std::string FrName(const ClusterState& state, FrId fr) {
  return fmt::format("{} of flavor {}", state.resource_name(state.fr_resource(fr)),
                     state.flavor(state.fr_flavor(fr)).name);
}

std::string Figure(const ClusterState& state, FrId fr, Amount amount) {
  return FormatAmount(amount, state.resource_name(state.fr_resource(fr)));
}

std::string_view QueueStateName(cluster::QueueState state) {
  switch (state) {
    case cluster::QueueState::kNotQueued: return "not queued";
    case cluster::QueueState::kQueued: return "queued";
    case cluster::QueueState::kInflight: return "in flight";
  }
  return "?";
}

std::string NodeKind(const quota::QuotaTree& tree, NodeId n) {
  return fmt::format("{} \"{}\"", tree.is_cluster_queue(n) ? "ClusterQueue" : "Cohort", tree.name(n));
}

// Names the cluster in a multi-cluster run (a single cluster has no name).
std::string ClusterPrefix(const ClusterState& state) {
  return state.name().empty() ? std::string() : fmt::format("cluster \"{}\"", state.name());
}

}  // namespace

absl::Status CheckQuotaAccounting(const ClusterState& state, const std::string& where) {
  const quota::QuotaTree& tree = state.tree();
  const size_t num_frs = static_cast<size_t>(tree.num_frs());
  const size_t num_nodes = static_cast<size_t>(tree.num_nodes());
  auto index = [num_frs](NodeId n, FrId fr) { return static_cast<size_t>(n) * num_frs + static_cast<size_t>(fr); };
  // ClusterQueues: the sum of their holders' admissions.
  std::vector<Amount> expected(num_nodes * num_frs, 0);
  for (WorkloadId id = 0; id < state.num_workloads(); ++id) {
    const WorkloadRecord& wl = state.workload(id);
    if (!wl.admission.has_value()) continue;
    const CqId cq = wl.admission->cq;
    if (cq < 0 || cq >= state.num_cluster_queues()) {
      return Violation("workload holds quota in a ClusterQueue", where,
                       fmt::format("workload \"{}\" holds quota in ClusterQueue id {}, which does not exist",
                                   wl.key, cq));
    }
    const NodeId node = state.cq(cq).node;
    for (const quota::FrAmount& u : wl.admission->usage) {
      if (u.amount < 0) {
        return Violation("usage is never negative", where,
                         fmt::format("workload \"{}\" holds {} of {} in ClusterQueue \"{}\"", wl.key,
                                     Figure(state, u.fr, u.amount), FrName(state, u.fr), state.cq(cq).name));
      }
      Amount& slot = expected[index(node, u.fr)];
      slot = AddAmounts(slot, u.amount);
    }
  }
  // Cohorts: what each child's usage overflows its local quota (the part a
  // lendingLimit keeps to the child), children before parents.
  std::vector<std::pair<int, NodeId>> by_depth;
  for (NodeId n = 0; n < tree.num_nodes(); ++n) {
    int depth = 0;
    for (NodeId p = tree.parent(n); p != quota::kNoNode; p = tree.parent(p)) ++depth;
    by_depth.emplace_back(-depth, n);
  }
  std::sort(by_depth.begin(), by_depth.end());
  for (const auto& [neg_depth, n] : by_depth) {
    const NodeId p = tree.parent(n);
    if (p == quota::kNoNode) continue;
    for (FrId fr = 0; fr < tree.num_frs(); ++fr) {
      const quota::FrQuota& q = tree.quota(n, fr);
      const Amount local =
          q.lending_limit == quota::kNoLimit
              ? 0
              : std::max<Amount>(0, SubAmounts(tree.subtree_quota(n, fr), q.lending_limit));
      const Amount over = std::max<Amount>(0, SubAmounts(expected[index(n, fr)], local));
      expected[index(p, fr)] = AddAmounts(expected[index(p, fr)], over);
    }
  }
  // ClusterQueues first (a wrong ClusterQueue explains a wrong cohort).
  for (int pass = 0; pass < 2; ++pass) {
    for (NodeId n = 0; n < tree.num_nodes(); ++n) {
      if (tree.is_cluster_queue(n) != (pass == 0)) continue;
      for (FrId fr = 0; fr < tree.num_frs(); ++fr) {
        const Amount actual = tree.usage(n, fr);
        const Amount want = expected[index(n, fr)];
        if (actual == want) continue;
        return Violation(
            pass == 0 ? "a ClusterQueue's usage equals the quota its workloads hold"
                      : "a cohort's usage equals what its members use beyond their lending limits",
            where,
            fmt::format("{}: usage of {} is {}, the workloads holding quota add up to {}", NodeKind(tree, n),
                        FrName(state, fr), Figure(state, fr, actual), Figure(state, fr, want)));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckWorkloadStates(const ClusterState& state, const std::string& where) {
  // Holders as listed by each ClusterQueue.
  for (CqId cq = 0; cq < state.num_cluster_queues(); ++cq) {
    const cluster::ClusterQueueInfo& info = state.cq(cq);
    for (size_t i = 0; i < info.holding.size(); ++i) {
      const WorkloadId id = info.holding[i];
      if (id < 0 || id >= state.num_workloads()) {
        return Violation("a ClusterQueue lists only workloads that hold its quota", where,
                         fmt::format("ClusterQueue \"{}\" lists workload id {}, which does not exist", info.name, id));
      }
      const WorkloadRecord& wl = state.workload(id);
      if (!wl.admission.has_value() || wl.admission->cq != cq) {
        return Violation("a ClusterQueue lists only workloads that hold its quota", where,
                         fmt::format("ClusterQueue \"{}\" lists workload \"{}\" ({}), which {}", info.name,
                                     wl.key.empty() ? fmt::format("id {}", id) : wl.key, WorkloadPhaseName(wl.phase),
                                     wl.admission.has_value()
                                         ? fmt::format("holds quota in ClusterQueue \"{}\"",
                                                       state.cq(wl.admission->cq).name)
                                         : std::string("holds no quota")));
      }
      if (wl.holding_index != static_cast<int32_t>(i)) {
        return Violation("no workload holds quota twice", where,
                         fmt::format("workload \"{}\" is listed at position {} of ClusterQueue \"{}\"'s holders, "
                                     "its record says position {}",
                                     wl.key, i, info.name, wl.holding_index));
      }
    }
  }
  for (WorkloadId id = 0; id < state.num_workloads(); ++id) {
    const WorkloadRecord& wl = state.workload(id);
    const bool holds = wl.admission.has_value();
    const bool reserved_phase = wl.phase == WorkloadPhase::kQuotaReserved || wl.phase == WorkloadPhase::kAdmitted;
    if (holds != reserved_phase) {
      return Violation("a workload holds quota exactly when QuotaReserved or Admitted", where,
                       fmt::format("workload \"{}\" is {} and {}", wl.key, WorkloadPhaseName(wl.phase),
                                   holds ? fmt::format("holds quota in ClusterQueue \"{}\"",
                                                       state.cq(wl.admission->cq).name)
                                         : std::string("holds no quota")));
    }
    if (holds) {
      const cluster::ClusterQueueInfo& info = state.cq(wl.admission->cq);
      if (wl.holding_index < 0 || static_cast<size_t>(wl.holding_index) >= info.holding.size() ||
          info.holding[static_cast<size_t>(wl.holding_index)] != id) {
        return Violation("a workload that holds quota is listed once by its ClusterQueue", where,
                         fmt::format("workload \"{}\" holds quota in ClusterQueue \"{}\" but is not among its {} "
                                     "holders",
                                     wl.key, info.name, info.holding.size()));
      }
      if (wl.queue_state != cluster::QueueState::kNotQueued) {
        return Violation("no workload is in two states", where,
                         fmt::format("workload \"{}\" holds quota in ClusterQueue \"{}\" and is {}", wl.key,
                                     info.name, QueueStateName(wl.queue_state)));
      }
      if (wl.admission->pod_sets.size() != wl.pod_sets.size()) {
        return Violation("an admission covers every pod set", where,
                         fmt::format("workload \"{}\" has {} pod sets, its admission {}", wl.key,
                                     wl.pod_sets.size(), wl.admission->pod_sets.size()));
      }
    }
    if (wl.queue_state == cluster::QueueState::kInflight) {
      return Violation("no workload is left in flight between cycles", where,
                       fmt::format("workload \"{}\" ({}) is still popped by a finished cycle", wl.key,
                                   WorkloadPhaseName(wl.phase)));
    }
    const bool terminal = wl.phase == WorkloadPhase::kFinished || wl.phase == WorkloadPhase::kDeactivated ||
                          wl.phase == WorkloadPhase::kNotArrived;
    if (terminal && wl.queue_state != cluster::QueueState::kNotQueued) {
      return Violation("no workload is in two states", where,
                       fmt::format("workload \"{}\" is {} and {}",
                                   wl.key.empty() ? fmt::format("id {}", id) : wl.key, WorkloadPhaseName(wl.phase),
                                   QueueStateName(wl.queue_state)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAdmissionFits(const ClusterState& state, WorkloadId id, const std::string& where) {
  const WorkloadRecord& wl = state.workload(id);
  if (!wl.admission.has_value()) return absl::OkStatus();
  // Kueue's fit test leaves out the quota of the workloads being preempted
  // (scheduler.go fits: SimulateWorkloadUsageRemoval of the cycle's
  // preemption targets): a workload may be admitted into what a victim
  // still holds while its eviction completes. So is the check here.
  std::optional<quota::QuotaTree> without_evicting;
  for (WorkloadId other = 0; other < state.num_workloads(); ++other) {
    const WorkloadRecord& o = state.workload(other);
    if (!o.evicted || !o.admission.has_value() || other == id) continue;
    if (!without_evicting.has_value()) without_evicting.emplace(state.tree());
    without_evicting->RemoveUsage(state.cq(o.admission->cq).node, o.admission->usage);
  }
  const quota::QuotaTree& tree = without_evicting.has_value() ? *without_evicting : state.tree();
  const cluster::ClusterQueueInfo& info = state.cq(wl.admission->cq);
  const NodeId n = info.node;
  for (const quota::FrAmount& u : wl.admission->usage) {
    if (u.amount <= 0) continue;
    const Amount usage = tree.usage(n, u.fr);
    const quota::FrQuota& q = tree.quota(n, u.fr);
    if (!tree.has_parent(n) && usage > tree.subtree_quota(n, u.fr)) {
      return Violation("admission stays within nominal quota (no cohort)", where,
                       fmt::format("workload \"{}\" reserved {} of {} in ClusterQueue \"{}\": usage {} > nominal {}",
                                   wl.key, Figure(state, u.fr, u.amount), FrName(state, u.fr), info.name,
                                   Figure(state, u.fr, usage), Figure(state, u.fr, tree.subtree_quota(n, u.fr))));
    }
    if (tree.has_parent(n) && q.borrowing_limit != quota::kNoLimit &&
        usage > AddAmounts(tree.subtree_quota(n, u.fr), q.borrowing_limit)) {
      return Violation("admission stays within nominal quota + borrowingLimit", where,
                       fmt::format("workload \"{}\" reserved {} of {} in ClusterQueue \"{}\": usage {} > nominal {} "
                                   "+ borrowingLimit {}",
                                   wl.key, Figure(state, u.fr, u.amount), FrName(state, u.fr), info.name,
                                   Figure(state, u.fr, usage), Figure(state, u.fr, tree.subtree_quota(n, u.fr)),
                                   Figure(state, u.fr, q.borrowing_limit)));
    }
    const Amount available = tree.AvailableRaw(n, u.fr);
    if (available < 0) {
      return Violation("admission fits the cohort's quota (lendingLimits and borrowingLimits on the way up)", where,
                       fmt::format("workload \"{}\" reserved {} of {} in ClusterQueue \"{}\": {} over what the "
                                   "ClusterQueue may use (usage {})",
                                   wl.key, Figure(state, u.fr, u.amount), FrName(state, u.fr), info.name,
                                   Figure(state, u.fr, -available), Figure(state, u.fr, usage)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckTopologyPlacements(const ClusterState& state, const std::string& where,
                                     const std::function<bool(cluster::WorkloadId)>& placed_by_input) {
  const cluster::TasCache* tas = state.tas();
  if (tas == nullptr || tas->empty()) return absl::OkStatus();
  // The nodes of each domain, per list of levels (built when first needed).
  using Values = std::vector<std::string>;
  std::map<Values, std::map<Values, std::vector<const model::Node*>>> domains_by_levels;
  auto nodes_of = [&](const Values& levels, const Values& values) -> const std::vector<const model::Node*>* {
    auto [it, inserted] = domains_by_levels.try_emplace(levels);
    if (inserted) {
      for (const model::Node& node : tas->nodes()) {
        Values key;
        for (const std::string& level : levels) {
          const std::string* v = node.FindLabel(level);
          if (v == nullptr) break;
          key.push_back(*v);
        }
        if (key.size() == levels.size()) it->second[key].push_back(&node);
      }
    }
    auto found = it->second.find(values);
    return found == it->second.end() ? nullptr : &found->second;
  };
  // (flavor, levels, values) -> resource -> pods' requests, and who placed them.
  struct Placed {
    const std::vector<const model::Node*>* nodes = nullptr;
    std::map<std::string, Amount> requests;
    std::vector<std::string> workloads;
    bool placed_by_run = false;  // a placement there was made by the run
  };
  std::map<std::tuple<cluster::FlavorId, Values, Values>, Placed> placed;
  for (WorkloadId id = 0; id < state.num_workloads(); ++id) {
    const WorkloadRecord& wl = state.workload(id);
    if (!wl.admission.has_value()) continue;
    for (size_t i = 0; i < wl.admission->pod_sets.size() && i < wl.pod_sets.size(); ++i) {
      const cluster::PodSetAdmission& ps = wl.admission->pod_sets[i];
      if (!ps.topology_assignment.has_value()) continue;
      std::vector<cluster::FlavorId> flavors;
      for (const auto& entry : ps.entries) {
        if (tas->IsTasFlavor(entry.flavor) &&
            std::find(flavors.begin(), flavors.end(), entry.flavor) == flavors.end()) {
          flavors.push_back(entry.flavor);
        }
      }
      for (const cluster::FlavorId f : flavors) {
        for (const model::TopologyDomainAssignment& domain : ps.topology_assignment->domains) {
          const auto* all = nodes_of(ps.topology_assignment->levels, domain.values);
          if (all == nullptr) continue;  // the nodes are gone
          Placed& p = placed[{f, ps.topology_assignment->levels, domain.values}];
          if (p.nodes == nullptr) p.nodes = all;
          p.workloads.push_back(wl.key);
          if (!placed_by_input || !placed_by_input(id)) p.placed_by_run = true;
          const Amount count = domain.count;
          for (const topology::ResourceAmount& r : wl.pod_sets[i].tas_per_pod) {
            if (r.resource == tas->pods_resource()) continue;
            Amount& slot = p.requests[tas->resource_name(r.resource)];
            slot = AddAmounts(slot, MulAmount(r.amount, count));
          }
          Amount& pods = p.requests["pods"];
          pods = AddAmounts(pods, count);
        }
      }
    }
  }
  for (const auto& [key, p] : placed) {
    const auto& [f, levels, values] = key;
    std::map<std::string, Amount> allocatable;
    std::vector<std::string> names;
    for (const model::Node* node : *p.nodes) {
      const std::vector<cluster::FlavorId> of = tas->FlavorsOfNode(*node);
      if (std::find(of.begin(), of.end(), f) == of.end()) continue;
      names.push_back(node->name);
      bool has_pods = false;
      for (const auto& [resource, amount] : node->allocatable()) {
        allocatable[resource] = AddAmounts(allocatable[resource], amount);
        if (resource == "pods") has_pods = true;
      }
      if (!has_pods) {
        allocatable["pods"] = AddAmounts(allocatable["pods"], cluster::kDefaultNodePods);
      }
    }
    if (names.empty()) continue;  // no node of the flavor there any more
    if (!p.placed_by_run) continue;  // the input's own placements only
    for (const auto& [resource, amount] : p.requests) {
      const auto it = allocatable.find(resource);
      const Amount have = it == allocatable.end() ? 0 : it->second;
      if (amount <= have) continue;
      std::string domain;
      for (size_t j = 0; j < levels.size() && j < values.size(); ++j) {
        domain += fmt::format("{}{}={}", j == 0 ? "" : ",", levels[j], values[j]);
      }
      return Violation("topology-aware placements fit the nodes' allocatable", where,
                       fmt::format("flavor {}, domain {} (node{} {}): the pods placed there by {} request {} of "
                                   "{}, the allocatable is {}",
                                   state.flavor(f).name, domain, names.size() == 1 ? "" : "s",
                                   fmt::join(names, ", "), fmt::join(p.workloads, ", "),
                                   FormatAmount(amount, resource), resource, FormatAmount(have, resource)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOwnedWorkloads(const ClusterState& state, const std::string& where) {
  std::map<std::pair<int32_t, int32_t>, WorkloadId> live;
  for (WorkloadId id = 0; id < state.num_workloads(); ++id) {
    const WorkloadRecord& wl = state.workload(id);
    if (wl.owner == cluster::kNone) continue;
    if (wl.phase != WorkloadPhase::kPending && wl.phase != WorkloadPhase::kQuotaReserved &&
        wl.phase != WorkloadPhase::kAdmitted) {
      continue;
    }
    if (wl.owner < 0 || wl.owner_index < 0) {
      return Violation("a group's Workload belongs to a LeaderWorkerSet group", where,
                       fmt::format("workload \"{}\" ({}) has owner {} and group index {}", wl.key,
                                   WorkloadPhaseName(wl.phase), wl.owner, wl.owner_index));
    }
    auto [it, inserted] = live.try_emplace({wl.owner, wl.owner_index}, id);
    if (!inserted) {
      const WorkloadRecord& other = state.workload(it->second);
      return Violation("a LeaderWorkerSet group has at most one live Workload", where,
                       fmt::format("group {} of LeaderWorkerSet #{} has workload \"{}\" ({}) and workload \"{}\" ({})",
                                   wl.owner_index, wl.owner, other.key, WorkloadPhaseName(other.phase), wl.key,
                                   WorkloadPhaseName(wl.phase)));
    }
  }
  return absl::OkStatus();
}

void InvariantChecker::Fail(absl::Status status) {
  if (status_.ok()) status_ = std::move(status);
}

std::string InvariantChecker::Where(const std::string& where) const {
  if (last_event_.empty()) return where;
  return fmt::format("{}; last event: {}", where, last_event_);
}

void InvariantChecker::OnEvent(const cluster::SimEvent& event) {
  ++events_;
  if (event.time < last_event_time_) {
    Fail(Violation("event times never go back", fmt::format("event #{}", events_),
                   fmt::format("{} at {} s comes after an event at {} s", EventTypeName(event.type),
                               FormatSeconds(event.time), FormatSeconds(last_event_time_))));
  }
  last_event_time_ = std::max(last_event_time_, event.time);
  if (!status_.ok()) return;
  std::string object;
  const std::string cluster_name =
      event.cluster != nullptr && !event.cluster->name().empty()
          ? fmt::format(" in cluster \"{}\"", event.cluster->name())
          : std::string();
  if (event.cluster != nullptr && event.workload != cluster::kNone &&
      event.workload < event.cluster->num_workloads()) {
    object = fmt::format(" workload \"{}\"", event.cluster->workload(event.workload).key);
  } else if (!event.object.empty()) {
    object = fmt::format(" {}", event.object);
  }
  last_event_ = fmt::format("#{} {} at {} s{}{}", events_, EventTypeName(event.type), FormatSeconds(event.time),
                            object, cluster_name);
  if (event.type == cluster::EventType::kQuotaReserved && event.cluster != nullptr &&
      event.workload != cluster::kNone) {
    reserved_.push_back({event.cluster, event.workload});
    placed_by_input_.erase({event.cluster, event.workload});
  }
  if (event.type == cluster::EventType::kAdmittedAtStart && event.cluster != nullptr &&
      event.workload != cluster::kNone) {
    placed_by_input_.insert({event.cluster, event.workload});
  }
}

const absl::Status& InvariantChecker::Check(SimTime now, const std::string& where) {
  if (!status_.ok()) return status_;
  ++checks_;
  const std::string at = Where(where);
  if (now < last_check_time_) {
    Fail(Violation("simulated time never goes back", at,
                   fmt::format("the clock reads {} s after {} s", FormatSeconds(now), FormatSeconds(last_check_time_))));
    return status_;
  }
  last_check_time_ = now;
  for (const Reservation& r : reserved_) {
    absl::Status s = CheckAdmissionFits(*r.cluster, r.workload, at);
    if (!s.ok()) {
      Fail(ClusterPrefix(*r.cluster).empty() ? s : Annotate(s, ClusterPrefix(*r.cluster)));
      return status_;
    }
  }
  reserved_.clear();
  for (const ClusterState* state : clusters_) {
    absl::Status s = CheckWorkloadStates(*state, at);
    if (s.ok()) s = CheckQuotaAccounting(*state, at);
    if (s.ok()) {
      s = CheckTopologyPlacements(*state, at, [this, state](cluster::WorkloadId id) {
        return placed_by_input_.count({state, id}) > 0;
      });
    }
    if (s.ok()) s = CheckOwnedWorkloads(*state, at);
    if (!s.ok()) {
      Fail(ClusterPrefix(*state).empty() ? s : Annotate(s, ClusterPrefix(*state)));
      return status_;
    }
  }
  for (const ExtraCheck& check : extra_checks_) {
    absl::Status s = check(at);
    if (!s.ok()) {
      Fail(std::move(s));
      return status_;
    }
  }
  return status_;
}

}  // namespace kueuesim::sim
