// Admission checks and the simulated autoscaler in the run summary; see
// provisioning_summary.h.
#include "metrics/provisioning_summary.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "kueuesim/metrics/event_log.h"
#include "kueuesim/runtime/provisioning.h"

namespace kueuesim::metrics {
namespace {

SimDuration Rank(const std::vector<SimDuration>& sorted, int percent) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>((static_cast<int64_t>(sorted.size()) * percent + 99) / 100);
  if (rank == 0) rank = 1;
  return sorted[rank - 1];
}

std::string Number(double value) {
  if (!std::isfinite(value)) return "null";
  return fmt::format("{:.6f}", value);
}

std::string Amounts(const std::map<std::string, double>& amounts) {
  std::string out = "{";
  for (const auto& [key, value] : amounts) {
    if (out.size() > 1) out += ", ";
    AppendJsonString(&out, key);
    out += ": " + Number(value);
  }
  return out + "}";
}

std::string Hours(const std::map<std::string, double>& amount_seconds, std::string_view resource) {
  auto it = amount_seconds.find(std::string(resource));
  return fmt::format("{:.1f}", it == amount_seconds.end() ? 0.0 : it->second / 3600.0);
}

// The resource reported in the text tables: GPUs when the shape has them,
// else the first of the shape.
std::string MainResource(const std::map<std::string, double>& amounts) {
  for (const auto& [resource, value] : amounts) {
    if (resource.find("gpu") != std::string::npos) return resource;
  }
  return amounts.empty() ? std::string() : amounts.begin()->first;
}

std::string Describe(const model::AdmissionCheck& check, const runtime::ClusterRuntime& runtime) {
  if (check.controller_name == model::kProvisioningRequestControllerName) {
    if (!check.active) return "ProvisioningRequest (inactive)";
    return "ProvisioningRequest";
  }
  if (check.controller_name == model::kMultiKueueControllerName) return "MultiKueue";
  if (!check.simulated.has_value()) return "nobody";
  const model::SimulatedCheckBehavior& b = *check.simulated;
  if (b.never) return "never (declared)";
  std::string out = "declared: after " + b.delay.text;
  auto share = [](int32_t ppm) { return fmt::format("{:g}", ppm / 1e4); };
  if (b.ready_ppm == 1000000) return out + ", Ready";
  out += fmt::format(", Ready {}%", share(b.ready_ppm));
  if (b.retry_ppm > 0) out += fmt::format(", Retry {}%", share(b.retry_ppm));
  if (b.rejected_ppm > 0) out += fmt::format(", Rejected {}%", share(b.rejected_ppm));
  (void)runtime;
  return out;
}

}  // namespace

void SummarizeAdmissionChecks(const runtime::ClusterRuntime& runtime, ClusterSummary* cs) {
  const std::vector<runtime::AdmissionCheckStats> stats = runtime.AdmissionCheckStatsNow();
  const runtime::ProvisioningController* provisioning = runtime.provisioning_controller();
  for (size_t i = 0; i < stats.size(); ++i) {
    const model::AdmissionCheck& check = runtime.admission_check(static_cast<int32_t>(i));
    const runtime::AdmissionCheckStats& s = stats[i];
    AdmissionCheckSummary out;
    out.name = check.meta.name;
    out.controller = check.controller_name;
    out.answered_by = Describe(check, runtime);
    out.workloads = s.workloads;
    out.ready = s.ready;
    out.retry = s.retry;
    out.rejected = s.rejected;
    out.pending_at_end = s.pending_at_end;
    if (provisioning != nullptr && check.controller_name == model::kProvisioningRequestControllerName) {
      const auto& c = provisioning->counters()[i];
      out.requests = c.requests;
      out.failed = c.failed;
      out.booking_expired = c.booking_expired;
      out.capacity_revoked = c.capacity_revoked;
    }
    std::vector<SimDuration> waits = s.time_to_ready;
    std::sort(waits.begin(), waits.end());
    out.time_to_ready.count = static_cast<int64_t>(waits.size());
    if (!waits.empty()) {
      out.time_to_ready.p50 = Rank(waits, 50);
      out.time_to_ready.p90 = Rank(waits, 90);
      out.time_to_ready.p99 = Rank(waits, 99);
      out.time_to_ready.max = waits.back();
      double total = 0;
      for (SimDuration w : waits) total += static_cast<double>(w);
      out.time_to_ready.mean = static_cast<SimDuration>(std::llround(total / static_cast<double>(waits.size())));
    }
    out.held_time = s.held_time;
    out.held_quota = s.held_quota;
    cs->admission_checks.push_back(std::move(out));
  }
  cs->autoscaler = runtime.AutoscalerReportNow();
}

std::string FormatAdmissionChecks(const ClusterSummary& cluster) {
  std::string out;
  if (!cluster.admission_checks.empty()) {
    std::vector<std::vector<std::string>> rows = {{"AdmissionCheck", "answered by", "workloads", "ready", "retry",
                                                   "rejected", "waiting", "ready p50", "ready p90", "ready max", "held",
                                                   "held quota"}};
    std::vector<std::string> notes(1);  // lines printed under each row
    for (const auto& c : cluster.admission_checks) {
      const std::string resource = MainResource(c.held_quota);
      rows.push_back({c.name, c.answered_by, fmt::format("{}", c.workloads), fmt::format("{}", c.ready),
                      fmt::format("{}", c.retry), fmt::format("{}", c.rejected), fmt::format("{}", c.pending_at_end),
                      FormatWaitForText(c.time_to_ready, c.time_to_ready.p50),
                      FormatWaitForText(c.time_to_ready, c.time_to_ready.p90),
                      FormatWaitForText(c.time_to_ready, c.time_to_ready.max), FormatDuration(c.held_time),
                      resource.empty() ? std::string("-") : Hours(c.held_quota, resource) + " " + resource + "-h"});
      std::string note;
      if (c.requests > 0) {
        note += fmt::format("    ProvisioningRequests: {} created, {} failed, {} bookings expired, {} revoked\n",
                            c.requests, c.failed, c.booking_expired, c.capacity_revoked);
      }
      if (c.answered_by == "nobody" && c.workloads > 0) {
        note += "    never answered: no controller in the simulation (see the load warning)\n";
      }
      notes.push_back(std::move(note));
    }
    // The table sized to its cells, each row followed by its notes.
    const std::string table = FormatTextColumns(rows, 2, "  ");
    out += "\n";
    size_t start = 0;
    for (size_t row = 0; row < rows.size(); ++row) {
      const size_t end = table.find('\n', start) + 1;
      out += table.substr(start, end - start) + notes[row];
      start = end;
    }
  }
  if (cluster.autoscaler.has_value() && !cluster.autoscaler->pools.empty()) {
    const runtime::AutoscalerReport& a = *cluster.autoscaler;
    out += fmt::format("\n  Autoscaler: {} ProvisioningRequests, {} provisioned, {} failed, {} bookings expired, {} "
                       "revoked, {} deleted unused\n",
                       a.requests, a.provisioned, a.failed, a.booking_expired, a.capacity_revoked, a.deleted_unused);
    std::vector<std::vector<std::string>> rows = {
        {"AutoscalerPool", "peak", "added", "removed", "node-h", "idle", "provisioned", "idle", "stockout"}};
    for (const auto& p : a.pools) {
      const std::string resource = MainResource(p.provisioned_amount_seconds);
      rows.push_back({p.name, fmt::format("{}", p.peak_nodes), fmt::format("{}", p.nodes_added),
                      fmt::format("{}", p.nodes_removed), fmt::format("{:.1f}", p.node_seconds / 3600.0),
                      fmt::format("{:.1f}", p.idle_node_seconds / 3600.0),
                      resource.empty() ? std::string("-")
                                       : Hours(p.provisioned_amount_seconds, resource) + " " + resource + "-h",
                      resource.empty() ? std::string("-") : Hours(p.idle_amount_seconds, resource) + " " + resource + "-h",
                      FormatDuration(p.stockout_time)});
    }
    out += FormatTextColumns(rows, 1, "  ");
  }
  return out;
}

std::string AdmissionChecksJson(const ClusterSummary& cluster) {
  std::string out;
  if (!cluster.admission_checks.empty()) {
    out += ",\n    \"admissionChecks\": [";
    for (size_t i = 0; i < cluster.admission_checks.size(); ++i) {
      const auto& c = cluster.admission_checks[i];
      out += i == 0 ? "\n      {\"name\": " : ",\n      {\"name\": ";
      AppendJsonString(&out, c.name);
      out += ", \"controllerName\": ";
      AppendJsonString(&out, c.controller);
      out += ", \"answeredBy\": ";
      AppendJsonString(&out, c.answered_by);
      out += fmt::format(
          ", \"workloads\": {}, \"ready\": {}, \"retry\": {}, \"rejected\": {}, \"pendingAtEnd\": {}, "
          "\"provisioningRequests\": {}, \"failed\": {}, \"bookingExpired\": {}, \"capacityRevoked\": {},\n       "
          "\"timeToReadySeconds\": {}, "
          "\"heldSeconds\": {}, \"heldQuotaAmountSeconds\": {}}}",
          c.workloads, c.ready, c.retry, c.rejected, c.pending_at_end, c.requests, c.failed, c.booking_expired,
          c.capacity_revoked, WaitStatsJson(c.time_to_ready), FormatSeconds(c.held_time), Amounts(c.held_quota));
    }
    out += "\n    ]";
  }
  if (cluster.autoscaler.has_value() && !cluster.autoscaler->pools.empty()) {
    const runtime::AutoscalerReport& a = *cluster.autoscaler;
    out += fmt::format(",\n    \"autoscaler\": {{\"provisioningRequests\": {}, \"provisioned\": {}, \"failed\": {}, "
                       "\"bookingExpired\": {}, \"capacityRevoked\": {}, \"deletedUnused\": {}, \"loops\": {}, "
                       "\"pools\": [",
                       a.requests, a.provisioned, a.failed, a.booking_expired, a.capacity_revoked, a.deleted_unused,
                       a.loops);
    for (size_t i = 0; i < a.pools.size(); ++i) {
      const auto& p = a.pools[i];
      out += i == 0 ? "\n      {\"name\": " : ",\n      {\"name\": ";
      AppendJsonString(&out, p.name);
      out += fmt::format(
          ", \"minNodes\": {}, \"maxNodes\": {}, \"peakNodes\": {}, \"nodesAdded\": {}, \"nodesRemoved\": {}, "
          "\"scaleUps\": {}, \"refusedScaleUps\": {},\n       \"nodeSeconds\": {}, \"idleNodeSeconds\": {}, "
          "\"provisionedAmountSeconds\": {}, \"idleAmountSeconds\": {}, \"stockoutSeconds\": {}, \"nodesOverTime\": [",
          p.min_nodes, p.max_nodes, p.peak_nodes, p.nodes_added, p.nodes_removed, p.scale_ups, p.refused_scale_ups,
          Number(p.node_seconds), Number(p.idle_node_seconds), Amounts(p.provisioned_amount_seconds),
          Amounts(p.idle_amount_seconds), FormatSeconds(p.stockout_time));
      for (size_t k = 0; k < p.nodes_over_time.size(); ++k) {
        out += fmt::format("{}[{}, {}]", k == 0 ? "" : ", ", FormatSeconds(p.nodes_over_time[k].first),
                           p.nodes_over_time[k].second);
      }
      out += "]}";
    }
    out += "\n    ]}";
  }
  return out;
}

}  // namespace kueuesim::metrics

namespace kueuesim::metrics {

void RolloutFiguresCollector::OnEvent(const cluster::SimEvent& event) {
  using cluster::EventType;
  if (event.cluster == nullptr || event.workload == cluster::kNone) return;
  if (event.type != EventType::kQuotaReserved && event.type != EventType::kPodsReady &&
      event.type != EventType::kQuotaReleased && event.type != EventType::kPreempted) {
    return;
  }
  const cluster::ClusterState& state = *event.cluster;
  if (event.type == EventType::kPreempted) {
    if (event.preemptor == cluster::kNone) return;
    const cluster::WorkloadRecord& preemptor = state.workload(event.preemptor);
    if (preemptor.owner == cluster::kNone) return;
    clusters_[&state].preemptions.emplace_back(preemptor.key, event.time);
    return;
  }
  const cluster::WorkloadRecord& wl = state.workload(event.workload);
  if (wl.owner == cluster::kNone) return;
  ClusterData& data = clusters_[&state];
  if (event.type == EventType::kQuotaReserved) {
    if (!wl.admission.has_value()) return;
    Hold hold;
    hold.key = wl.key;
    hold.index = wl.owner_index;
    hold.start = event.time;
    for (const auto& usage : wl.admission->usage) {
      const std::string& resource = state.resource_name(state.fr_resource(usage.fr));
      double amount = static_cast<double>(usage.amount);
      if (IsMilliResource(resource)) amount /= 1000.0;
      hold.usage[resource] += amount;
    }
    data.open[event.workload] = data.holds.size();
    data.holds.push_back(std::move(hold));
    return;
  }
  auto it = data.open.find(event.workload);
  if (it == data.open.end()) return;
  Hold& hold = data.holds[it->second];
  if (event.type == EventType::kPodsReady) {
    if (hold.ready < 0) hold.ready = event.time;
    return;
  }
  hold.end = event.time;  // kQuotaReleased
  data.open.erase(it);
}

void RolloutFiguresCollector::Finish(SimTime end_time, const runtime::ClusterRuntime& runtime,
                                     ClusterSummary* cs) const {
  auto found = clusters_.find(&runtime.state());
  static const ClusterData kEmpty;
  const ClusterData& data = found == clusters_.end() ? kEmpty : found->second;
  for (const runtime::LwsReport* report : runtime.LwsReports()) {
    // The groups' workloads: <namespace>/leaderworkerset-<name>-<index>.
    const size_t slash = report->name.find('/');
    const std::string prefix = report->name.substr(0, slash + 1) + "leaderworkerset-" + report->name.substr(slash + 1) + "-";
    auto owns = [&](const std::string& key) {
      if (key.compare(0, prefix.size(), prefix) != 0) return false;
      return key.find_first_not_of("0123456789", prefix.size()) == std::string::npos && key.size() > prefix.size();
    };
    for (const auto& rollout : report->rollouts) {
      RolloutFigures f;
      f.leader_worker_set = report->name;
      f.start = rollout.start;
      f.end = rollout.end;
      const SimTime stop = rollout.end < 0 ? end_time : rollout.end;
      f.duration = stop - rollout.start;
      // Ready groups over [start, stop].
      int32_t ready = 0;
      SimTime at = rollout.start;
      for (const auto& [t, groups] : report->ready_groups) {
        if (t <= rollout.start) {
          ready = groups;
          continue;
        }
        if (t > stop) break;
        if (ready < report->replicas) {
          f.below_desired += t - at;
          f.deficit_group_seconds +=
              static_cast<double>(report->replicas - ready) * static_cast<double>(t - at) / static_cast<double>(kSecond);
        }
        ready = groups;
        at = t;
      }
      if (ready < report->replicas && stop > at) {
        f.below_desired += stop - at;
        f.deficit_group_seconds +=
            static_cast<double>(report->replicas - ready) * static_cast<double>(stop - at) / static_cast<double>(kSecond);
      }
      // Quota held by surge groups (index >= replicas) within the rollout.
      for (const Hold& hold : data.holds) {
        if (hold.index < report->replicas || !owns(hold.key)) continue;
        const SimTime from = std::max(hold.start, rollout.start);
        const SimTime to = std::min(hold.end < 0 ? end_time : hold.end, stop);
        if (to <= from) continue;
        const SimTime serving_from = hold.ready < 0 ? to : std::clamp(hold.ready, from, to);
        for (const auto& [resource, amount] : hold.usage) {
          f.surge_quota_seconds[resource] += amount * static_cast<double>(to - from) / static_cast<double>(kSecond);
          f.idle_surge_quota_seconds[resource] +=
              amount * static_cast<double>(serving_from - from) / static_cast<double>(kSecond);
        }
      }
      for (const auto& [key, t] : data.preemptions) {
        if (owns(key) && t >= rollout.start && t <= stop) ++f.preemptions;
      }
      cs->rollouts.push_back(std::move(f));
    }
    cs->serving.push_back(Serving(end_time, *report, data, owns));
  }
}

template <typename Owns>
ServingFigures RolloutFiguresCollector::Serving(SimTime end_time, const runtime::LwsReport& report,
                                                const ClusterData& data, const Owns& owns) {
  ServingFigures s;
  s.leader_worker_set = report.name;
  // Desired groups over time: spec.replicas, moved by each scale.
  std::vector<std::pair<SimTime, int32_t>> desired = {
      {0, report.scales.empty() ? report.replicas : report.scales.front().from}};
  for (const auto& sc : report.scales) desired.emplace_back(sc.at, sc.to);
  // Merge the two step functions.
  size_t d = 0;
  size_t r = 0;
  int32_t want = 0;
  int32_t ready = 0;
  SimTime at = 0;
  while (true) {
    SimTime next = end_time;
    if (d < desired.size()) next = std::min(next, desired[d].first);
    if (r < report.ready_groups.size()) next = std::min(next, report.ready_groups[r].first);
    next = std::max(next, at);
    if (next > at) {
      const double span = static_cast<double>(next - at) / static_cast<double>(kSecond);
      s.desired_group_seconds += static_cast<double>(want) * span;
      s.ready_group_seconds += static_cast<double>(std::min(ready, want)) * span;
      if (ready < want) s.below_desired += next - at;
      at = next;
    }
    if (at >= end_time) break;
    bool moved = false;
    while (d < desired.size() && desired[d].first <= at) {
      want = desired[d++].second;
      s.peak_desired = std::max(s.peak_desired, want);
      moved = true;
    }
    while (r < report.ready_groups.size() && report.ready_groups[r].first <= at) {
      ready = report.ready_groups[r++].second;
      moved = true;
    }
    if (!moved) break;
  }
  // Quota reservations of each group index, in time order.
  std::map<int32_t, std::vector<SimTime>> reserved;
  for (const Hold& hold : data.holds) {
    if (owns(hold.key)) reserved[hold.index].push_back(hold.start);
  }
  for (size_t k = 0; k < report.scales.size(); ++k) {
    const auto& sc = report.scales[k];
    if (sc.to <= sc.from) continue;
    ++s.scale_ups;
    bool waited = false;
    for (int32_t index = sc.from; index < sc.to; ++index) {
      SimTime until = end_time;
      for (size_t later = k + 1; later < report.scales.size(); ++later) {
        if (report.scales[later].to <= index) {
          until = std::min(until, report.scales[later].at);
          break;
        }
      }
      if (auto it = reserved.find(index); it != reserved.end()) {
        auto first = std::lower_bound(it->second.begin(), it->second.end(), sc.at);
        if (first != it->second.end()) until = std::min(until, *first);
      }
      const SimDuration wait = std::max<SimDuration>(0, until - sc.at);
      if (wait > 0) waited = true;
      s.group_wait_seconds += static_cast<double>(wait) / static_cast<double>(kSecond);
      s.max_group_wait = std::max(s.max_group_wait, wait);
    }
    if (waited) ++s.scale_ups_waiting;
  }
  for (const auto& [key, t] : data.preemptions) {
    if (owns(key)) ++s.preemptions;
  }
  return s;
}

std::string FormatServing(const ClusterSummary& cluster) {
  if (cluster.serving.empty()) return "";
  // Many LeaderWorkerSets (a serving trace): the total and the least
  // available ones; all of them are in the JSON summary.
  constexpr size_t kMaxRows = 10;
  std::vector<const ServingFigures*> shown;
  for (const auto& s : cluster.serving) shown.push_back(&s);
  auto availability = [](const ServingFigures& s) {
    return s.desired_group_seconds > 0 ? s.ready_group_seconds / s.desired_group_seconds : 1.0;
  };
  ServingFigures total;
  total.leader_worker_set = fmt::format("total ({} LWS)", cluster.serving.size());
  for (const auto& s : cluster.serving) {
    total.peak_desired += s.peak_desired;
    total.desired_group_seconds += s.desired_group_seconds;
    total.ready_group_seconds += s.ready_group_seconds;
    total.below_desired = std::max(total.below_desired, s.below_desired);
    total.scale_ups += s.scale_ups;
    total.scale_ups_waiting += s.scale_ups_waiting;
    total.group_wait_seconds += s.group_wait_seconds;
    total.max_group_wait = std::max(total.max_group_wait, s.max_group_wait);
    total.preemptions += s.preemptions;
  }
  const bool many = cluster.serving.size() > kMaxRows;
  if (many) {
    std::stable_sort(shown.begin(), shown.end(), [&](const ServingFigures* a, const ServingFigures* b) {
      return availability(*a) < availability(*b);
    });
    shown.resize(kMaxRows);
  }
  std::vector<std::vector<std::string>> rows = {{"Serving availability", "desired", "ready", "available",
                                                 "below desired", "scale-ups", "waited for quota", "group wait",
                                                 "max wait", "preempted"}};
  auto row = [&](const ServingFigures& s) {
    rows.push_back({s.leader_worker_set, fmt::format("{:.2f} group-h", s.desired_group_seconds / 3600.0),
                    fmt::format("{:.2f} group-h", s.ready_group_seconds / 3600.0),
                    fmt::format("{:.2f}%", availability(s) * 100), FormatDuration(s.below_desired),
                    fmt::format("{}", s.scale_ups), fmt::format("{}", s.scale_ups_waiting),
                    fmt::format("{:.2f} group-h", s.group_wait_seconds / 3600.0), FormatDuration(s.max_group_wait),
                    fmt::format("{}", s.preemptions)});
  };
  if (many) row(total);
  for (const ServingFigures* s : shown) row(*s);
  std::string out = "\n";  // appended apart: GCC 12 at -O3 warns (wrongly, -Wrestrict) on "\n" + string
  out += FormatTextColumns(rows, 1, "  ");
  if (many) {
    out += fmt::format("  (the {} least available of {}; below desired of the total: the longest; all in the JSON "
                       "summary)\n",
                       kMaxRows, cluster.serving.size());
  }
  return out;
}

std::string ServingJson(const ClusterSummary& cluster) {
  if (cluster.serving.empty()) return "";
  std::string out = ",\n    \"servingAvailability\": [";
  for (size_t i = 0; i < cluster.serving.size(); ++i) {
    const auto& s = cluster.serving[i];
    out += i == 0 ? "\n      {\"leaderWorkerSet\": " : ",\n      {\"leaderWorkerSet\": ";
    AppendJsonString(&out, s.leader_worker_set);
    out += fmt::format(", \"peakDesiredGroups\": {}, \"desiredGroupSeconds\": {}, \"readyGroupSeconds\": {}, "
                       "\"belowDesiredSeconds\": {}, \"scaleUps\": {}, \"scaleUpsWaitingForQuota\": {}, "
                       "\"groupWaitSeconds\": {}, \"maxGroupWaitSeconds\": {}, \"preemptions\": {}}}",
                       s.peak_desired, Number(s.desired_group_seconds), Number(s.ready_group_seconds),
                       FormatSeconds(s.below_desired), s.scale_ups, s.scale_ups_waiting, Number(s.group_wait_seconds),
                       FormatSeconds(s.max_group_wait), s.preemptions);
  }
  return out + "\n    ]";
}

std::string FormatRollouts(const ClusterSummary& cluster) {
  if (cluster.rollouts.empty()) return "";
  std::vector<std::vector<std::string>> rows = {
      {"LeaderWorkerSet rollout", "took", "below", "deficit", "surge quota", "idle surge", "preempted"}};
  for (const auto& r : cluster.rollouts) {
    const std::string resource = MainResource(r.surge_quota_seconds);
    rows.push_back({r.leader_worker_set + " @" + FormatDuration(r.start),
                    r.end < 0 ? "(running)" : FormatDuration(r.duration), FormatDuration(r.below_desired),
                    fmt::format("{:.2f} group-h", r.deficit_group_seconds / 3600.0),
                    resource.empty() ? std::string("-") : Hours(r.surge_quota_seconds, resource) + " " + resource + "-h",
                    resource.empty() ? std::string("-")
                                     : Hours(r.idle_surge_quota_seconds, resource) + " " + resource + "-h",
                    fmt::format("{}", r.preemptions)});
  }
  std::string out = "\n";  // appended apart: GCC 12 at -O3 warns (wrongly, -Wrestrict) on "\n" + string
  out += FormatTextColumns(rows, 1, "  ");
  return out;
}

std::string RolloutsJson(const ClusterSummary& cluster) {
  if (cluster.rollouts.empty()) return "";
  std::string out = ",\n    \"rollouts\": [";
  for (size_t i = 0; i < cluster.rollouts.size(); ++i) {
    const auto& r = cluster.rollouts[i];
    out += i == 0 ? "\n      {\"leaderWorkerSet\": " : ",\n      {\"leaderWorkerSet\": ";
    AppendJsonString(&out, r.leader_worker_set);
    out += fmt::format(", \"start\": {}, \"end\": {}, \"durationSeconds\": {}, \"belowDesiredSeconds\": {}, "
                       "\"deficitGroupSeconds\": {}, \"surgeQuotaAmountSeconds\": {}, "
                       "\"idleSurgeQuotaAmountSeconds\": {}, \"preemptions\": {}}}",
                       FormatSeconds(r.start), r.end < 0 ? std::string("null") : FormatSeconds(r.end),
                       FormatSeconds(r.duration), FormatSeconds(r.below_desired), Number(r.deficit_group_seconds),
                       Amounts(r.surge_quota_seconds), Amounts(r.idle_surge_quota_seconds), r.preemptions);
  }
  return out + "\n    ]";
}

}  // namespace kueuesim::metrics
