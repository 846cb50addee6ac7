// Summary collection and formatting; see summary.h.
#include "kueuesim/metrics/summary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "kueuesim/metrics/event_log.h"
#include "metrics/provisioning_summary.h"

namespace kueuesim::metrics {
namespace {

// The workloads without quota at the end, by QuotaReserved=False reason.
struct PendingReasons {
  std::vector<std::map<std::string, int64_t>> by_cq;  // by CqId
  std::map<std::string, int64_t> total;
  std::map<std::string, std::string> example;  // reason -> "ns/name: message"
};

PendingReasons CountPendingReasons(const cluster::ClusterState& state) {
  PendingReasons out;
  out.by_cq.resize(static_cast<size_t>(state.num_cluster_queues()));
  for (cluster::WorkloadId id = 0; id < state.num_workloads(); ++id) {
    const cluster::WorkloadRecord& wl = state.workload(id);
    if (wl.spec == nullptr || wl.phase != cluster::WorkloadPhase::kPending || wl.admission.has_value()) continue;
    // Kueue's unadmitted-workloads metric counts a workload without the
    // condition as PendingEvaluation.
    const std::string reason = wl.pending->has_condition()
                                   ? std::string(cluster::QuotaReservedReasonName(wl.pending->reason))
                                   : std::string("PendingEvaluation");
    ++out.total[reason];
    const cluster::CqId cq = state.ClusterQueueOf(wl);
    if (cq != cluster::kNone) ++out.by_cq[static_cast<size_t>(cq)][reason];
    if (!out.example.count(reason)) {
      const std::string message = cluster::PendingMessageText(state, wl, *wl.pending);
      out.example[reason] = message.empty() ? wl.key : wl.key + ": " + message;
    }
  }
  return out;
}

// Nearest-rank percentile of sorted values.
SimDuration Percentile(const std::vector<SimDuration>& sorted, int percent) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>((static_cast<int64_t>(sorted.size()) * percent + 99) / 100);
  if (rank == 0) rank = 1;
  return sorted[rank - 1];
}

std::string JsonDouble(double value) {
  if (!std::isfinite(value)) return "null";
  return fmt::format("{:.6f}", value);
}

std::string JsonCounts(const std::map<std::string, int64_t>& counts) {
  std::string out = "{";
  for (const auto& [key, value] : counts) {
    if (out.size() > 1) out += ", ";
    AppendJsonString(&out, key);
    out += fmt::format(": {}", value);
  }
  return out + "}";
}

std::string JsonAmounts(const std::map<std::string, double>& amounts) {
  std::string out = "{";
  for (const auto& [key, value] : amounts) {
    if (out.size() > 1) out += ", ";
    AppendJsonString(&out, key);
    out += ": " + JsonDouble(value);
  }
  return out + "}";
}

std::string JsonSeries(const std::map<std::string, TimeSeries>& series) {
  std::string out = "{";
  for (const auto& [name, points] : series) {
    if (out.size() > 1) out += ", ";
    AppendJsonString(&out, name);
    out += ": [";
    for (size_t i = 0; i < points.size(); ++i) {
      if (i > 0) out += ", ";
      out += fmt::format("[{}, {}]", FormatSeconds(points[i].first),
                         points[i].second >= 9.2e18 ? std::string("9223372036854775807")
                                                    : fmt::format("{}", static_cast<int64_t>(points[i].second)));
    }
    out += "]";
  }
  return out + "}";
}

}  // namespace

SummaryCollector::ClusterAccumulator& SummaryCollector::For(const cluster::ClusterState* state) {
  for (auto& c : clusters_) {
    if (c.state == state) return c;
  }
  ClusterAccumulator acc;
  acc.state = state;
  const size_t frs = static_cast<size_t>(state->tree().num_frs());
  acc.cqs.resize(static_cast<size_t>(state->num_cluster_queues()));
  for (auto& cq : acc.cqs) {
    cq.usage.assign(frs, 0);
    cq.peak.assign(frs, 0);
    cq.integral.assign(frs, 0);
    cq.borrowed.assign(frs, 0);
  }
  clusters_.push_back(std::move(acc));
  return clusters_.back();
}

void SummaryCollector::Advance(const cluster::ClusterState& state, CqAccumulator* acc,
                               cluster::CqId cq, SimTime now) {
  const double dt = static_cast<double>(now - acc->last_update);
  if (dt > 0) {
    const quota::NodeId node = state.cq(cq).node;
    for (size_t fr = 0; fr < acc->usage.size(); ++fr) {
      if (acc->usage[fr] == 0) continue;
      const double used = static_cast<double>(acc->usage[fr]);
      acc->integral[fr] += used * dt;
      const Amount nominal = state.tree().quota(node, static_cast<quota::FrId>(fr)).nominal;
      if (acc->usage[fr] > nominal) acc->borrowed[fr] += static_cast<double>(acc->usage[fr] - nominal) * dt;
    }
  }
  acc->last_update = now;
}

void SummaryCollector::MarkShareChange(ClusterAccumulator* cluster, cluster::CqId cq, SimTime now) {
  const cluster::ClusterState& state = *cluster->state;
  if (!state.fair_sharing_enabled()) return;
  const quota::QuotaTree& tree = state.tree();
  cluster->dirty_time = now;
  for (quota::NodeId n = state.cq(cq).node; n != quota::kNoNode; n = tree.parent(n)) {
    if (std::find(cluster->dirty_nodes.begin(), cluster->dirty_nodes.end(), n) == cluster->dirty_nodes.end()) {
      cluster->dirty_nodes.push_back(n);
    }
  }
}

void SummaryCollector::FlushShares(ClusterAccumulator* cluster) {
  if (cluster->dirty_nodes.empty()) return;
  const quota::QuotaTree& tree = cluster->state->tree();
  if (cluster->shares.size() < static_cast<size_t>(tree.num_nodes())) {
    cluster->shares.resize(static_cast<size_t>(tree.num_nodes()));
  }
  for (quota::NodeId n : cluster->dirty_nodes) {
    if (!tree.has_parent(n)) continue;
    // Kueue's status.fairSharing.weightedShare: the share rounded up, with
    // the largest integer for a zero weight that borrows.
    quota::Drs drs = tree.DominantResourceShare(n);
    double share = drs.ZeroWeightBorrows() ? 9223372036854775807.0 : std::ceil(drs.PreciseWeightedShare());
    TimeSeries& series = cluster->shares[static_cast<size_t>(n)];
    if (!series.empty() && series.back().second == share) continue;
    if (!series.empty() && series.back().first == cluster->dirty_time) {
      series.back().second = share;
    } else {
      series.emplace_back(cluster->dirty_time, share);
    }
  }
  cluster->dirty_nodes.clear();
}

void SummaryCollector::OnEvent(const cluster::SimEvent& event) {
  rollouts_.OnEvent(event);
  // A Pending event changes no figure here (pendingByReason is read from
  // the workloads at the end) and is not counted, so that summaries do not
  // depend on how often a waiting workload's reason changed.
  if (event.type == cluster::EventType::kPending) return;
  ++events_;
  ClusterAccumulator& cluster = For(event.cluster);
  const cluster::ClusterState& state = *event.cluster;
  // A usage change announced by the previous event has been applied now.
  if (event.type != cluster::EventType::kQuotaReleased) FlushShares(&cluster);
  if (cluster.reserved_once.size() < static_cast<size_t>(state.num_workloads())) {
    cluster.reserved_once.resize(static_cast<size_t>(state.num_workloads()), false);
  }
  if (event.type == cluster::EventType::kArrived || event.type == cluster::EventType::kAdmittedAtStart) {
    ++cluster.arrivals;
    // A released record's slot may hold a new workload (a LeaderWorkerSet
    // surge Workload created again under its old name): its wait counts.
    if (event.workload != cluster::kNone) cluster.reserved_once[static_cast<size_t>(event.workload)] = false;
  }
  if (event.cq == cluster::kNone || event.workload == cluster::kNone || !event.object.empty()) return;
  CqAccumulator& acc = cluster.cqs[static_cast<size_t>(event.cq)];
  const cluster::WorkloadRecord& wl = state.workload(event.workload);
  switch (event.type) {
    case cluster::EventType::kQuotaReserved:
    case cluster::EventType::kAdmittedAtStart: {
      if (event.type == cluster::EventType::kQuotaReserved) {
        ++acc.admitted;
        if (!cluster.reserved_once[static_cast<size_t>(event.workload)]) {
          cluster.reserved_once[static_cast<size_t>(event.workload)] = true;
          acc.waits.push_back(event.time - wl.arrival);
        }
      } else {
        // Admitted before the run: its usage counts, its wait is unknown.
        cluster.reserved_once[static_cast<size_t>(event.workload)] = true;
        ++acc.admitted_at_start;
      }
      Advance(state, &acc, event.cq, event.time);
      for (const auto& u : wl.admission->usage) {
        Amount& slot = acc.usage[static_cast<size_t>(u.fr)];
        slot = AddAmounts(slot, u.amount);
        acc.peak[static_cast<size_t>(u.fr)] = std::max(acc.peak[static_cast<size_t>(u.fr)], slot);
      }
      MarkShareChange(&cluster, event.cq, event.time);
      FlushShares(&cluster);
      break;
    }
    case cluster::EventType::kQuotaReleased:
      Advance(state, &acc, event.cq, event.time);
      for (const auto& u : wl.admission->usage) {
        Amount& slot = acc.usage[static_cast<size_t>(u.fr)];
        slot = SubAmounts(slot, u.amount);
      }
      MarkShareChange(&cluster, event.cq, event.time);
      break;
    case cluster::EventType::kDeleted:
      cluster.reserved_once[static_cast<size_t>(event.workload)] = false;
      break;
    case cluster::EventType::kFinished:
      ++acc.finished;
      // The record may be recycled for another workload after this event.
      cluster.reserved_once[static_cast<size_t>(event.workload)] = false;
      break;
    case cluster::EventType::kPreempted: {
      ++acc.preempted;
      ++acc.preempted_by_reason[std::string(event.reason)];
      const cluster::CqId preemptor_cq = state.ClusterQueueOf(state.workload(event.preemptor));
      if (preemptor_cq != cluster::kNone) {
        ++cluster.cqs[static_cast<size_t>(preemptor_cq)].preemptions_issued_by_reason[std::string(event.reason)];
      }
      break;
    }
    case cluster::EventType::kEvicted: {
      ++acc.evicted;
      ++acc.evictions_by_reason[std::string(event.reason)];
      if (wl.rare->lost_run_time > 0 && wl.admission.has_value()) {
        const double seconds = static_cast<double>(wl.rare->lost_run_time) / static_cast<double>(kSecond);
        for (const auto& ps : wl.admission->pod_sets) {
          for (const auto& entry : ps.entries) {
            const std::string& name = state.resource_name(entry.resource);
            double amount = static_cast<double>(entry.usage);
            if (IsMilliResource(name)) amount /= 1000.0;
            acc.work_lost[name] += amount * seconds;
          }
        }
      }
      break;
    }
    case cluster::EventType::kDeactivated:
      ++acc.deactivated;
      break;
    default:
      break;
  }
}

namespace {

WaitStats ComputeWaitStats(std::vector<SimDuration> values) {
  WaitStats stats;
  std::sort(values.begin(), values.end());
  stats.count = static_cast<int64_t>(values.size());
  if (values.empty()) return stats;
  stats.p50 = Percentile(values, 50);
  stats.p90 = Percentile(values, 90);
  stats.p99 = Percentile(values, 99);
  stats.max = values.back();
  double total = 0;
  for (SimDuration v : values) total += static_cast<double>(v);
  stats.mean = static_cast<SimDuration>(std::llround(total / static_cast<double>(values.size())));
  return stats;
}

MultiKueueSummary SummarizeMultiKueue(const multikueue::MultiKueueReport& report) {
  MultiKueueSummary s;
  s.manager = report.manager;
  s.dispatcher = report.dispatcher;
  s.workers = report.workers;
  s.per_workload = report.workloads;
  std::vector<SimDuration> times;
  for (const auto& wl : report.workloads) {
    ++s.workloads;
    s.dispatches += wl.dispatches;
    if (wl.admitted_at >= 0) ++s.admitted;
    if (wl.finished_at >= 0) ++s.finished;
    s.copies += wl.copies;
    s.reservations += wl.reserving_workers;
    s.losing_reservations += wl.losing_reservations;
    s.losing_preemptions += wl.losing_preemptions;
    s.winning_preemptions += wl.winning_preemptions;
    times.insert(times.end(), wl.time_to_admission.begin(), wl.time_to_admission.end());
    for (const auto& [name, value] : wl.losing_quota_seconds) s.losing_quota_seconds[name] += value;
    for (const auto& [name, value] : wl.losing_victim_work) s.losing_victim_work[name] += value;
    s.duplicate_run_time += wl.duplicate_run_time;
    s.nomination_patches += wl.nomination_patches;
  }
  for (const auto& worker : report.workers) {
    s.copies_deleted += worker.deleted;
    s.status_syncs += worker.status_syncs;
    s.gate_opens += worker.gate_opens;
  }
  s.time_to_admission = ComputeWaitStats(std::move(times));
  return s;
}

}  // namespace

Summary SummaryCollector::Finish(SimTime end_time, const std::vector<const runtime::ClusterRuntime*>& runtimes,
                                 const std::vector<const multikueue::MultiKueueReport*>& multikueue) {
  Summary summary;
  summary.end_time = end_time;
  summary.events = events_;
  std::set<std::string> workers;  // the clusters of MultiKueue workers
  for (const multikueue::MultiKueueReport* report : multikueue) {
    for (const multikueue::WorkerReport& worker : report->workers) workers.insert(worker.cluster);
  }
  for (const runtime::ClusterRuntime* runtime : runtimes) {
    const cluster::ClusterState& state = runtime->state();
    ClusterAccumulator& cluster = For(&state);
    ClusterSummary cs;
    cs.name = state.name();
    // A cluster fed by streaming sources recycles the records of finished
    // workloads, and a MultiKueue worker releases the record of every copy
    // the manager deletes (a later copy reuses it): then its arrivals count
    // its workloads.
    const bool releases = runtime->recycle_finished() || workers.count(state.name()) > 0;
    cs.workloads = releases ? std::max<int64_t>(state.num_workloads(), cluster.arrivals) : state.num_workloads();
    cs.cycles = runtime->counters().cycles;
    cs.workloads_without_queue = runtime->counters().workloads_without_queue;
    cs.inadmissible = runtime->counters().inadmissible;
    PendingReasons pending = CountPendingReasons(state);
    cs.pending_by_reason = std::move(pending.total);
    cs.pending_example = std::move(pending.example);
    std::vector<cluster::CqId> order(static_cast<size_t>(state.num_cluster_queues()));
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<cluster::CqId>(i);
    std::sort(order.begin(), order.end(),
              [&](cluster::CqId a, cluster::CqId b) { return state.cq(a).name < state.cq(b).name; });
    for (cluster::CqId cq : order) {
      CqAccumulator& acc = cluster.cqs[static_cast<size_t>(cq)];
      Advance(state, &acc, cq, end_time);
      const cluster::ClusterQueueInfo& info = state.cq(cq);
      ClusterQueueSummary s;
      s.name = info.name;
      s.cohort = info.spec->cohort;
      s.admitted = acc.admitted;
      s.admitted_at_start = acc.admitted_at_start;
      s.finished = acc.finished;
      s.preempted = acc.preempted;
      s.evicted = acc.evicted;
      s.pending = runtime->PendingCount(cq);
      s.deactivated = acc.deactivated;
      s.preempted_by_reason = acc.preempted_by_reason;
      s.preemptions_issued_by_reason = acc.preemptions_issued_by_reason;
      s.evictions_by_reason = acc.evictions_by_reason;
      s.work_lost = acc.work_lost;
      s.running = static_cast<int64_t>(info.holding.size());
      s.pending_by_reason = std::move(pending.by_cq[static_cast<size_t>(cq)]);
      std::vector<SimDuration> waits = acc.waits;
      std::sort(waits.begin(), waits.end());
      s.wait.count = static_cast<int64_t>(waits.size());
      if (!waits.empty()) {
        s.wait.p50 = Percentile(waits, 50);
        s.wait.p90 = Percentile(waits, 90);
        s.wait.p99 = Percentile(waits, 99);
        s.wait.max = waits.back();
        double total = 0;
        for (SimDuration w : waits) total += static_cast<double>(w);
        s.wait.mean = static_cast<SimDuration>(std::llround(total / static_cast<double>(waits.size())));
      }
      for (const auto& group : info.groups) {
        for (size_t f = 0; f < group.flavors.size(); ++f) {
          for (size_t r = 0; r < group.covered.size(); ++r) {
            const quota::FrId fr = group.Fr(f, r);
            ResourceUsageSummary u;
            u.flavor = state.flavor(group.flavors[f]).name;
            u.resource = state.resource_name(group.covered[r]);
            u.nominal_quota = state.tree().quota(info.node, fr).nominal;
            u.peak_usage = acc.peak[static_cast<size_t>(fr)];
            const double integral = acc.integral[static_cast<size_t>(fr)];
            u.used_amount_seconds = integral / static_cast<double>(kSecond);
            if (u.nominal_quota > 0 && u.nominal_quota != kUnlimited && end_time > 0) {
              u.utilization = integral / (static_cast<double>(u.nominal_quota) * static_cast<double>(end_time));
            }
            if (integral > 0) u.borrowed_share = acc.borrowed[static_cast<size_t>(fr)] / integral;
            if (IsMilliResource(u.resource)) u.used_amount_seconds /= 1000.0;
            s.resources.push_back(std::move(u));
          }
        }
      }
      cs.cluster_queues.push_back(std::move(s));
    }
    for (const runtime::LwsReport* report : runtime->LwsReports()) cs.leader_worker_sets.push_back(*report);
    SummarizeAdmissionChecks(*runtime, &cs);
    rollouts_.Finish(end_time, *runtime, &cs);
    cs.fair_sharing = state.fair_sharing_enabled();
    if (cs.fair_sharing) {
      const quota::QuotaTree& tree = state.tree();
      for (quota::NodeId n = 0; n < tree.num_nodes() && static_cast<size_t>(n) < cluster.shares.size(); ++n) {
        const TimeSeries& series = cluster.shares[static_cast<size_t>(n)];
        if (series.empty()) continue;
        (tree.is_cluster_queue(n) ? cs.cluster_queue_shares : cs.cohort_shares)[tree.name(n)] = series;
      }
    }
    summary.clusters.push_back(std::move(cs));
  }
  for (const multikueue::MultiKueueReport* report : multikueue) summary.multikueue.push_back(SummarizeMultiKueue(*report));
  return summary;
}

void AddLoadReport(const scenario::LoadReport& report, const scenario::SimulationSettings& settings,
                   Summary* summary) {
  summary->unknown_kinds = report.unknown_kinds;
  summary->warnings = report.warnings;
  summary->unsimulated_workload_kinds = report.unsimulated_workload_kinds;
  summary->default_duration_uses.clear();
  for (size_t i = 0; i < report.default_duration_uses.size() && i < settings.default_durations.size(); ++i) {
    if (report.default_duration_uses[i] == 0) continue;
    summary->default_duration_uses.emplace_back(settings.default_durations[i].description,
                                                report.default_duration_uses[i]);
  }
  summary->workloads_without_duration = report.workloads_without_duration;
}

namespace {

bool IsByteResource(std::string_view resource) {
  auto ends_with = [&](std::string_view suffix) {
    return resource.size() >= suffix.size() && resource.substr(resource.size() - suffix.size()) == suffix;
  };
  return resource == "memory" || resource.substr(0, 10) == "hugepages-" || ends_with("storage") ||
         ends_with("memory");
}

// magnitude / unit, rounded as FormatQuantityForText says.
std::string DivideForText(uint64_t magnitude, uint64_t unit, bool* rounded) {
  uint64_t whole = magnitude / unit;
  const uint64_t rest = magnitude % unit;
  if (rest == 0) return fmt::format("{}", whole);
  int digits = 0;
  for (uint64_t w = whole; w > 0; w /= 10) ++digits;
  const int decimals = std::min(3, std::max(0, 4 - digits));
  uint64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  // rest * scale / unit, rounded half up; exact when unit divides rest * scale.
  // (For a power-of-two unit 2^(10k) that is: 2^(10k - decimals) divides rest,
  // since 10^decimals = 2^decimals * 5^decimals; computed so to avoid overflow.)
  const bool power_of_two = (unit & (unit - 1)) == 0;
  const bool exact = power_of_two ? rest % (unit >> decimals) == 0 : (rest * scale) % unit == 0;
  const long double fraction = static_cast<long double>(rest) / static_cast<long double>(unit);
  uint64_t scaled = static_cast<uint64_t>(std::llroundl(fraction * static_cast<long double>(scale)));
  if (scaled >= scale) {
    ++whole;
    scaled -= scale;
  }
  if (rounded != nullptr && !exact) *rounded = true;
  if (scaled == 0) return fmt::format("{}", whole);
  std::string frac = fmt::format("{:0{}}", scaled, decimals);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return fmt::format("{}.{}", whole, frac);
}

}  // namespace

// Rows of cells printed with each column as wide as its widest cell (the
// first `left` columns left-aligned, the others right-aligned), each line
// indented by `indent`, columns two spaces apart.
std::string FormatTextColumns(const std::vector<std::vector<std::string>>& rows, size_t left, const std::string& indent) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      line += c < left ? fmt::format("{:<{}}", row[c], widths[c]) : fmt::format("{:>{}}", row[c], widths[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string FormatQuantityForText(Amount amount, std::string_view resource, bool* rounded) {
  if (amount == kUnlimited) return "unlimited";
  const std::string sign = amount < 0 ? "-" : "";
  const uint64_t magnitude =
      amount < 0 ? uint64_t{0} - static_cast<uint64_t>(amount) : static_cast<uint64_t>(amount);
  if (IsMilliResource(resource)) return sign + DivideForText(magnitude, 1000, rounded);
  if (!IsByteResource(resource)) return sign + fmt::format("{}", magnitude);
  static constexpr std::array<std::string_view, 7> kUnits = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  size_t k = 0;
  while (k + 1 < kUnits.size() && magnitude >= (uint64_t{1} << (10 * (k + 1)))) ++k;
  return sign + DivideForText(magnitude, uint64_t{1} << (10 * k), rounded) + std::string(kUnits[k]);
}

std::string FormatWaitForText(const WaitStats& stats, SimDuration value) {
  return stats.count == 0 ? std::string("-") : FormatDuration(value);
}

std::string WaitStatsJson(const WaitStats& stats) {
  if (stats.count == 0) {
    return "{\"count\": 0, \"p50\": null, \"p90\": null, \"p99\": null, \"max\": null, \"mean\": null}";
  }
  return fmt::format("{{\"count\": {}, \"p50\": {}, \"p90\": {}, \"p99\": {}, \"max\": {}, \"mean\": {}}}",
                     stats.count, FormatSeconds(stats.p50), FormatSeconds(stats.p90), FormatSeconds(stats.p99),
                     FormatSeconds(stats.max), FormatSeconds(stats.mean));
}

std::string FormatSummary(const Summary& summary) {
  std::string out;
  out += fmt::format("Simulated {} ({} events)\n", FormatDuration(summary.end_time), summary.events);
  if (!summary.unsimulated_workload_kinds.empty()) {
    int64_t objects = 0;
    std::string kinds;
    for (const auto& [kind, count] : summary.unsimulated_workload_kinds) {
      objects += count;
      kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", kind, count);
    }
    out += fmt::format("Not simulated: {} object(s) of kinds that carry workloads ({}); their workloads are missing\n",
                       objects, kinds);
  }
  for (const auto& [rule, count] : summary.default_duration_uses) {
    out += fmt::format("Default run time: {} workload(s) from {}\n", count, rule);
  }
  if (summary.workloads_without_duration > 0) {
    out += fmt::format("No run time: {} workload(s) run until the end of the simulation\n",
                       summary.workloads_without_duration);
  }
  for (const CronJobSummary& cron_job : summary.cron_jobs) {
    out += fmt::format("CronJob {}{}: {} Jobs created, {} held back by Forbid, {} past the starting deadline, "
                       "{} replaced\n",
                       cron_job.cluster.empty() ? "" : cron_job.cluster + ":", cron_job.name, cron_job.created,
                       cron_job.already_active, cron_job.missed, cron_job.replaced);
  }
  for (const auto& trace : summary.traces) {
    int64_t skipped = 0;
    int64_t repaired = 0;
    for (const auto& [reason, count] : trace.skipped) skipped += count;
    for (const auto& [reason, count] : trace.repaired) repaired += count;
    out += fmt::format("Trace {}: {} rows read, {} workloads, ", trace.source, trace.rows_read, trace.workloads);
    if (trace.changes > 0) out += fmt::format("{} changes, ", trace.changes);
    int64_t replica_rows = 0;
    for (const auto& [what, count] : trace.replicas) replica_rows += count;
    if (replica_rows > 0) out += fmt::format("{} rows as replicas, ", replica_rows);
    out += fmt::format("{} rows skipped, {} repaired\n", skipped, repaired);
    for (const auto& [what, count] : trace.replicas) out += fmt::format("  replicas {}: {}\n", count, what);
    for (const auto& [reason, count] : trace.skipped) out += fmt::format("  skipped {}: {}\n", count, reason);
    for (const auto& [reason, count] : trace.repaired) out += fmt::format("  repaired {}: {}\n", count, reason);
    for (const auto& [what, count] : trace.ignored) out += fmt::format("  ignored on {} rows: {}\n", count, what);
    for (const auto& note : trace.notes) out += fmt::format("  {}\n", note);
    for (const auto& example : trace.examples) out += fmt::format("  {}\n", example);
  }
  for (const auto& cluster : summary.clusters) {
    out += fmt::format("\nCluster {}: {} workloads, {} scheduling cycles\n",
                       cluster.name.empty() ? "(default)" : cluster.name, cluster.workloads,
                       cluster.cycles);
    if (cluster.workloads_without_queue > 0) {
      out += fmt::format("  {} workloads name a missing LocalQueue or ClusterQueue and stay pending\n",
                         cluster.workloads_without_queue);
    }
    if (cluster.inadmissible > 0) {
      out += fmt::format("  {} workloads are inadmissible (refused before queueing; see the Inadmissible events)\n",
                         cluster.inadmissible);
    }
    std::vector<std::vector<std::string>> queue_rows = {{"ClusterQueue", "admitted", "finished", "running", "pending",
                                                     "preempted", "wait p50", "wait p90", "wait p99", "wait max"}};
    for (const auto& cq : cluster.cluster_queues) {
      queue_rows.push_back({cq.name, fmt::format("{}", cq.admitted), fmt::format("{}", cq.finished),
                        fmt::format("{}", cq.running), fmt::format("{}", cq.pending), fmt::format("{}", cq.preempted),
                        FormatWaitForText(cq.wait, cq.wait.p50), FormatWaitForText(cq.wait, cq.wait.p90),
                        FormatWaitForText(cq.wait, cq.wait.p99), FormatWaitForText(cq.wait, cq.wait.max)});
    }
    out += FormatTextColumns(queue_rows, 1, "  ");
    if (!cluster.pending_by_reason.empty()) {
      // The top reasons why workloads wait at the end, with an example.
      std::vector<std::pair<std::string, int64_t>> reasons(cluster.pending_by_reason.begin(),
                                                           cluster.pending_by_reason.end());
      std::stable_sort(reasons.begin(), reasons.end(),
                       [](const auto& a, const auto& b) { return a.second > b.second; });
      out += "\n  Pending at the end, by QuotaReserved reason:\n";
      constexpr size_t kTopReasons = 5;
      for (size_t i = 0; i < reasons.size() && i < kTopReasons; ++i) {
        const auto& [reason, count] = reasons[i];
        // The ClusterQueues with the most such workloads (at most four).
        std::vector<std::pair<int64_t, std::string>> by_queue;
        for (const auto& cq : cluster.cluster_queues) {
          auto it = cq.pending_by_reason.find(reason);
          if (it != cq.pending_by_reason.end()) by_queue.emplace_back(it->second, cq.name);
        }
        std::stable_sort(by_queue.begin(), by_queue.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        std::string queues;
        for (size_t q = 0; q < by_queue.size() && q < 4; ++q) {
          queues += fmt::format("{}{} {}", queues.empty() ? "" : ", ", by_queue[q].second, by_queue[q].first);
        }
        if (by_queue.size() > 4) queues += ", ...";
        out += fmt::format("    {:<28} {:>6}{}\n", reason, count, queues.empty() ? "" : "  (" + queues + ")");
        auto example = cluster.pending_example.find(reason);
        if (example != cluster.pending_example.end()) out += fmt::format("      e.g. {}\n", example->second);
      }
      if (reasons.size() > kTopReasons) {
        out += fmt::format("    ... and {} more reasons (see the summary JSON)\n", reasons.size() - kTopReasons);
      }
    }
    std::vector<std::vector<std::string>> resources = {
        {"ClusterQueue", "flavor", "resource", "nominal", "peak", "utilization", "borrowed"}};
    bool rounded = false;
    for (const auto& cq : cluster.cluster_queues) {
      for (const auto& r : cq.resources) {
        resources.push_back({cq.name, r.flavor, r.resource, FormatQuantityForText(r.nominal_quota, r.resource, &rounded),
                             FormatQuantityForText(r.peak_usage, r.resource, &rounded),
                             r.utilization.has_value() ? fmt::format("{:.1f}%", *r.utilization * 100) : "-",
                             fmt::format("{:.1f}%", r.borrowed_share * 100)});
      }
    }
    out += '\n';  // appended apart: GCC 12 at -O3 warns (wrongly, -Wrestrict) on "\n" + string
    out += FormatTextColumns(resources, 3, "  ");
    if (rounded) out += "  (cpu in cores, bytes in Ki..Ei; rounded to 4 significant digits: the JSON summary is exact)\n";
    for (const auto& lws : cluster.leader_worker_sets) {
      out += fmt::format("\n  LeaderWorkerSet {} ({} groups of {} pods)\n", lws.name, lws.replicas, lws.size);
      for (const auto& r : lws.rollouts) {
        SimDuration stalled = 0;
        for (const auto& st : r.stalls) stalled += (st.end < 0 ? summary.end_time : st.end) - st.start;
        std::string surge;
        for (const auto& [resource, amount] : r.peak_surge_quota) {
          surge += fmt::format("{}{} {}", surge.empty() ? "" : ", ", FormatQuantityForText(amount, resource), resource);
        }
        // Each distinct stall reason once, in order of first appearance.
        std::vector<std::string> reasons;
        for (const auto& st : r.stalls) {
          if (std::find(reasons.begin(), reasons.end(), st.reason) == reasons.end()) reasons.push_back(st.reason);
        }
        std::string stall_reasons;
        for (const auto& reason : reasons) stall_reasons += (stall_reasons.empty() ? "" : "; ") + reason;
        out += fmt::format(
            "    rollout at {}: {}, min ready groups {}, peak surge {} group(s){}{}{}\n", FormatDuration(r.start),
            r.end < 0 ? std::string("not finished") : "done in " + FormatDuration(r.end - r.start),
            r.min_ready_groups, r.peak_surge_groups, surge.empty() ? "" : " (" + surge + ")",
            r.groups_stopped == 0 ? "" : fmt::format(", {} group(s) stopped by Kueue", r.groups_stopped),
            r.stalls.empty() ? "" : fmt::format(", stalled {} ({})", FormatDuration(stalled), stall_reasons));
      }
      // A serving trace scales an LWS thousands of times: the first few
      // scales here, all of them in the JSON summary.
      constexpr size_t kMaxScaleLines = 5;
      for (size_t k = 0; k < lws.scales.size() && k < kMaxScaleLines; ++k) {
        const auto& sc = lws.scales[k];
        out += fmt::format("    scale {} -> {} at {}: {}\n", sc.from, sc.to, FormatDuration(sc.at),
                           sc.all_ready_at < 0 ? std::string("not all groups ready")
                                               : "all ready after " + FormatDuration(sc.all_ready_at - sc.at));
      }
      if (lws.scales.size() > kMaxScaleLines) {
        out += fmt::format("    ... {} more scales (all in the JSON summary)\n", lws.scales.size() - kMaxScaleLines);
      }
    }
    out += FormatAdmissionChecks(cluster);
    out += FormatRollouts(cluster);
    out += FormatServing(cluster);
    bool any_eviction = false;
    for (const auto& cq : cluster.cluster_queues) any_eviction = any_eviction || cq.evicted > 0;
    if (any_eviction) {
      out += "\n  Preemptions and evictions\n";
      size_t name_width = 0;
      for (const auto& cq : cluster.cluster_queues) {
        if (cq.evicted > 0 || !cq.preemptions_issued_by_reason.empty()) name_width = std::max(name_width, cq.name.size());
      }
      for (const auto& cq : cluster.cluster_queues) {
        if (cq.evicted == 0 && cq.preemptions_issued_by_reason.empty()) continue;
        std::string preempted;
        for (const auto& [reason, count] : cq.preempted_by_reason) {
          preempted += fmt::format("{}{} {}", preempted.empty() ? "" : ", ", count, reason);
        }
        std::string issued;
        for (const auto& [reason, count] : cq.preemptions_issued_by_reason) {
          issued += fmt::format("{}{} {}", issued.empty() ? "" : ", ", count, reason);
        }
        std::string evictions;
        for (const auto& [reason, count] : cq.evictions_by_reason) {
          evictions += fmt::format("{}{} {}", evictions.empty() ? "" : ", ", count, reason);
        }
        std::string lost;
        for (const auto& [resource, amount] : cq.work_lost) {
          if (resource == "memory") continue;
          lost += fmt::format("{}{:.2f} {}-hours", lost.empty() ? "" : ", ", amount / 3600.0, resource);
        }
        out += fmt::format("  {:<{}}  preempted: {}; preempting others: {}; evictions: {}; work lost: {}\n",
                           cq.name, name_width, preempted.empty() ? "-" : preempted, issued.empty() ? "-" : issued,
                           evictions.empty() ? "-" : evictions, lost.empty() ? "-" : lost);
      }
    }
  }
  for (const auto& mk : summary.multikueue) {
    out += fmt::format("\nMultiKueue manager {} (dispatcher {})\n", mk.manager.empty() ? "(default)" : mk.manager,
                       mk.dispatcher);
    const double per_workload = mk.workloads > 0 ? static_cast<double>(mk.copies) / static_cast<double>(mk.workloads) : 0;
    out += fmt::format(
        "  {} workloads dispatched ({} dispatches), {} admitted on a worker, {} finished\n"
        "  copies {} ({:.2f} per workload), worker reservations {} of which {} on workers that lost\n"
        "  preemptions by losing copies {}, by winning copies {}\n"
        "  manager reservation to worker admission: p50 {}, p90 {}, max {}\n",
        mk.workloads, mk.dispatches, mk.admitted, mk.finished, mk.copies, per_workload, mk.reservations,
        mk.losing_reservations, mk.losing_preemptions, mk.winning_preemptions,
        FormatWaitForText(mk.time_to_admission, mk.time_to_admission.p50),
        FormatWaitForText(mk.time_to_admission, mk.time_to_admission.p90),
        FormatWaitForText(mk.time_to_admission, mk.time_to_admission.max));
    auto hours = [](const std::map<std::string, double>& amounts) {
      std::string text;
      for (const auto& [resource, amount] : amounts) {
        if (resource == "memory") continue;
        text += fmt::format("{}{:.2f} {}-hours", text.empty() ? "" : ", ", amount / 3600.0, resource);
      }
      return text.empty() ? std::string("-") : text;
    };
    out += fmt::format(
        "  quota held by losing copies: {}; jobs running twice: {}\n"
        "  work lost by the victims of losing copies: {}\n"
        "  API operations: {} copies created, {} deleted, {} nominatedClusterNames patches, {} status syncs, "
        "{} preemption gates opened\n",
        hours(mk.losing_quota_seconds), FormatDuration(mk.duplicate_run_time), hours(mk.losing_victim_work),
        mk.copies, mk.copies_deleted, mk.nomination_patches, mk.status_syncs, mk.gate_opens);
    std::vector<std::vector<std::string>> workers = {
        {"worker", "cluster", "copies", "reservations", "won", "deleted", "losing preemptions", "status syncs"}};
    for (const auto& w : mk.workers) {
      workers.push_back({w.name, w.cluster, fmt::format("{}", w.copies), fmt::format("{}", w.reservations),
                         fmt::format("{}", w.won), fmt::format("{}", w.deleted), fmt::format("{}", w.losing_preemptions),
                         fmt::format("{}", w.status_syncs)});
    }
    out += FormatTextColumns(workers, 2, "  ");
  }
  return out;
}

std::string SummaryToJson(const Summary& summary) {
  std::string out = "{\n";
  out += fmt::format("  \"endTime\": {},\n  \"events\": {},\n  \"clusters\": [", FormatSeconds(summary.end_time),
                     summary.events);
  for (size_t c = 0; c < summary.clusters.size(); ++c) {
    const auto& cluster = summary.clusters[c];
    out += c == 0 ? "\n" : ",\n";
    out += "    {\"name\": ";
    AppendJsonString(&out, cluster.name);
    out += fmt::format(", \"workloads\": {}, \"cycles\": {}, \"workloadsWithoutQueue\": {}, ", cluster.workloads,
                       cluster.cycles, cluster.workloads_without_queue);
    // Only when there are some, so that summaries without DRA stay as they were.
    if (cluster.inadmissible > 0) out += fmt::format("\"inadmissible\": {}, ", cluster.inadmissible);
    if (!cluster.pending_by_reason.empty()) {
      out += fmt::format("\"pendingByReason\": {}, ", JsonCounts(cluster.pending_by_reason));
    }
    out += "\"clusterQueues\": [";
    for (size_t q = 0; q < cluster.cluster_queues.size(); ++q) {
      const auto& cq = cluster.cluster_queues[q];
      out += q == 0 ? "\n" : ",\n";
      out += "      {\"name\": ";
      AppendJsonString(&out, cq.name);
      out += ", \"cohort\": ";
      AppendJsonString(&out, cq.cohort);
      out += fmt::format(
          ", \"admitted\": {}, \"finished\": {}, \"running\": {}, \"pending\": {}, \"preempted\": {}, "
          "\"evicted\": {},\n        \"waitSeconds\": {},\n        \"resources\": [",
          cq.admitted, cq.finished, cq.running, cq.pending, cq.preempted, cq.evicted, WaitStatsJson(cq.wait));
      for (size_t r = 0; r < cq.resources.size(); ++r) {
        const auto& u = cq.resources[r];
        out += r == 0 ? "" : ", ";
        out += "{\"flavor\": ";
        AppendJsonString(&out, u.flavor);
        out += ", \"resource\": ";
        AppendJsonString(&out, u.resource);
        out += ", \"nominalQuota\": ";
        AppendJsonString(&out, FormatAmount(u.nominal_quota, u.resource));
        out += ", \"peakUsage\": ";
        AppendJsonString(&out, FormatAmount(u.peak_usage, u.resource));
        out += fmt::format(", \"utilization\": {}, \"borrowedShare\": {}, \"usedAmountSeconds\": {}}}",
                           u.utilization.has_value() ? JsonDouble(*u.utilization) : "null",
                           JsonDouble(u.borrowed_share), JsonDouble(u.used_amount_seconds));
      }
      out += fmt::format("],\n        \"preemptedByReason\": {}, \"preemptionsIssuedByReason\": {}, "
                         "\"evictionsByReason\": {}, \"deactivated\": {}, \"workLostAmountSeconds\": {}{}{}}}",
                         JsonCounts(cq.preempted_by_reason), JsonCounts(cq.preemptions_issued_by_reason),
                         JsonCounts(cq.evictions_by_reason), cq.deactivated, JsonAmounts(cq.work_lost),
                         cq.admitted_at_start > 0 ? fmt::format(", \"admittedAtStart\": {}", cq.admitted_at_start)
                                                  : std::string(),
                         // Only when some workload waits, so that other summaries stay as they were.
                         cq.pending_by_reason.empty()
                             ? std::string()
                             : fmt::format(", \"pendingByReason\": {}", JsonCounts(cq.pending_by_reason)));
    }
    out += "\n    ]";
    if (!cluster.leader_worker_sets.empty()) {
      out += ",\n    \"leaderWorkerSets\": [";
      for (size_t l = 0; l < cluster.leader_worker_sets.size(); ++l) {
        const auto& lws = cluster.leader_worker_sets[l];
        out += l == 0 ? "\n      {\"name\": " : ",\n      {\"name\": ";
        AppendJsonString(&out, lws.name);
        out += fmt::format(", \"replicas\": {}, \"size\": {}, \"rollouts\": [", lws.replicas, lws.size);
        for (size_t r = 0; r < lws.rollouts.size(); ++r) {
          const auto& ro = lws.rollouts[r];
          out += r == 0 ? "" : ", ";
          out += fmt::format("{{\"start\": {}, \"end\": {}, \"minReadyGroups\": {}, \"peakSurgeGroups\": {}, "
                             "\"groupsStopped\": {}, \"peakSurgeQuota\": {{",
                             FormatSeconds(ro.start), ro.end < 0 ? std::string("null") : FormatSeconds(ro.end),
                             ro.min_ready_groups, ro.peak_surge_groups, ro.groups_stopped);
          bool first_q = true;
          for (const auto& [resource, amount] : ro.peak_surge_quota) {
            out += first_q ? "" : ", ";
            first_q = false;
            AppendJsonString(&out, resource);
            out += ": ";
            AppendJsonString(&out, FormatAmount(amount, resource));
          }
          out += "}, \"stalls\": [";
          for (size_t k = 0; k < ro.stalls.size(); ++k) {
            const auto& st = ro.stalls[k];
            out += k == 0 ? "" : ", ";
            out += fmt::format("{{\"start\": {}, \"end\": {}, \"group\": {}, \"reason\": ", FormatSeconds(st.start),
                               st.end < 0 ? std::string("null") : FormatSeconds(st.end), st.group);
            AppendJsonString(&out, st.reason);
            out += "}";
          }
          out += "]}";
        }
        out += "], \"scales\": [";
        for (size_t k = 0; k < lws.scales.size(); ++k) {
          const auto& sc = lws.scales[k];
          out += k == 0 ? "" : ", ";
          out += fmt::format("{{\"at\": {}, \"from\": {}, \"to\": {}, \"allReadyAt\": {}}}", FormatSeconds(sc.at),
                             sc.from, sc.to, sc.all_ready_at < 0 ? std::string("null") : FormatSeconds(sc.all_ready_at));
        }
        out += "], \"readyGroups\": [";
        for (size_t k = 0; k < lws.ready_groups.size(); ++k) {
          out += fmt::format("{}[{}, {}]", k == 0 ? "" : ", ", FormatSeconds(lws.ready_groups[k].first),
                             lws.ready_groups[k].second);
        }
        out += "]}";
      }
      out += "\n    ]";
    }
    out += AdmissionChecksJson(cluster);
    out += RolloutsJson(cluster);
    out += ServingJson(cluster);
    if (cluster.fair_sharing) {
      out += fmt::format(",\n    \"fairSharing\": {{\"clusterQueueShares\": {}, \"cohortShares\": {}}}",
                         JsonSeries(cluster.cluster_queue_shares), JsonSeries(cluster.cohort_shares));
    }
    out += "}";
  }
  out += "\n  ]";
  if (!summary.multikueue.empty()) {
    out += ",\n  \"multiKueue\": [";
    for (size_t m = 0; m < summary.multikueue.size(); ++m) {
      const auto& mk = summary.multikueue[m];
      out += m == 0 ? "\n    {\"manager\": " : ",\n    {\"manager\": ";
      AppendJsonString(&out, mk.manager);
      out += ", \"dispatcher\": ";
      AppendJsonString(&out, mk.dispatcher);
      out += fmt::format(
          ", \"workloads\": {}, \"dispatches\": {}, \"admitted\": {}, \"finished\": {}, \"copies\": {}, "
          "\"reservations\": {}, \"losingReservations\": {}, \"losingPreemptions\": {}, "
          "\"winningPreemptions\": {},\n     \"timeToAdmissionSeconds\": {},\n     ",
          mk.workloads, mk.dispatches, mk.admitted, mk.finished, mk.copies, mk.reservations,
          mk.losing_reservations, mk.losing_preemptions, mk.winning_preemptions, WaitStatsJson(mk.time_to_admission));
      out += fmt::format("\"losingQuotaSeconds\": {}, \"losingVictimWork\": {}, \"duplicateRunSeconds\": {},\n"
                         "     \"apiOperations\": {{\"copiesCreated\": {}, \"copiesDeleted\": {}, "
                         "\"nominationPatches\": {}, \"statusSyncs\": {}, \"gateOpens\": {}}},\n     \"workers\": [",
                         JsonAmounts(mk.losing_quota_seconds), JsonAmounts(mk.losing_victim_work),
                         FormatSeconds(mk.duplicate_run_time), mk.copies, mk.copies_deleted, mk.nomination_patches,
                         mk.status_syncs, mk.gate_opens);
      for (size_t w = 0; w < mk.workers.size(); ++w) {
        const auto& worker = mk.workers[w];
        out += w == 0 ? "\n       {\"name\": " : ",\n       {\"name\": ";
        AppendJsonString(&out, worker.name);
        out += ", \"cluster\": ";
        AppendJsonString(&out, worker.cluster);
        out += fmt::format(", \"copies\": {}, \"reservations\": {}, \"won\": {}, \"deleted\": {}, "
                           "\"losingPreemptions\": {}, ",
                           worker.copies, worker.reservations, worker.won, worker.deleted, worker.losing_preemptions);
        out += fmt::format("\"losingReservations\": {}, \"statusSyncs\": {}, \"gateOpens\": {}, "
                           "\"peakLiveCopies\": {}, \"losingQuotaSeconds\": {}, \"losingVictimWork\": {}, "
                           "\"connectivity\": [",
                           worker.losing_reservations, worker.status_syncs, worker.gate_opens, worker.peak_live_copies,
                           JsonAmounts(worker.losing_quota_seconds), JsonAmounts(worker.losing_victim_work));
        for (size_t k = 0; k < worker.connectivity.size(); ++k) {
          out += fmt::format("{}[{}, {}]", k == 0 ? "" : ", ", FormatSeconds(worker.connectivity[k].first),
                             worker.connectivity[k].second ? "true" : "false");
        }
        out += "]}";
      }
      out += "],\n     \"perWorkload\": [";
      for (size_t k = 0; k < mk.per_workload.size(); ++k) {
        const auto& wl = mk.per_workload[k];
        out += k == 0 ? "\n       {\"workload\": " : ",\n       {\"workload\": ";
        AppendJsonString(&out, wl.workload);
        out += ", \"clusterQueue\": ";
        AppendJsonString(&out, wl.cluster_queue);
        out += ", \"worker\": ";
        AppendJsonString(&out, wl.worker);
        std::string times;
        for (size_t t = 0; t < wl.time_to_admission.size(); ++t) {
          times += (t == 0 ? "" : ", ") + FormatSeconds(wl.time_to_admission[t]);
        }
        out += fmt::format(
            ", \"arrival\": {}, \"firstReserved\": {}, \"admitted\": {}, \"finished\": {}, \"dispatches\": {}, "
            "\"copies\": {}, \"reservations\": {}, \"losingReservations\": {}, \"losingPreemptions\": {}, "
            "\"winningPreemptions\": {}, \"timeToAdmission\": [{}], ",
            FormatSeconds(wl.arrival), FormatSeconds(wl.first_reserved_at),
            wl.admitted_at < 0 ? std::string("null") : FormatSeconds(wl.admitted_at),
            wl.finished_at < 0 ? std::string("null") : FormatSeconds(wl.finished_at), wl.dispatches, wl.copies,
            wl.reserving_workers, wl.losing_reservations, wl.losing_preemptions, wl.winning_preemptions, times);
        out += fmt::format("\"losingQuotaSeconds\": {}, \"losingVictimWork\": {}, \"duplicateRunSeconds\": {}, "
                           "\"nominationPatches\": {}}}",
                           JsonAmounts(wl.losing_quota_seconds), JsonAmounts(wl.losing_victim_work),
                           FormatSeconds(wl.duplicate_run_time), wl.nomination_patches);
      }
      out += "]}";
    }
    out += "\n  ]";
  }
  out += ",\n  \"unknownKinds\": {";
  bool first = true;
  for (const auto& [kind, count] : summary.unknown_kinds) {
    out += first ? "" : ", ";
    first = false;
    AppendJsonString(&out, kind);
    out += fmt::format(": {}", count);
  }
  out += "},\n  \"warnings\": [";
  for (size_t i = 0; i < summary.warnings.size(); ++i) {
    out += i == 0 ? "\n    " : ",\n    ";
    AppendJsonString(&out, summary.warnings[i]);
  }
  out += summary.warnings.empty() ? "]" : "\n  ]";
  if (!summary.unsimulated_workload_kinds.empty()) {
    out += ",\n  \"unsimulatedWorkloadKinds\": {";
    bool first_kind = true;
    for (const auto& [kind, count] : summary.unsimulated_workload_kinds) {
      out += first_kind ? "" : ", ";
      first_kind = false;
      AppendJsonString(&out, kind);
      out += fmt::format(": {}", count);
    }
    out += "}";
  }
  if (!summary.default_duration_uses.empty()) {
    out += ",\n  \"defaultDurations\": [";
    for (size_t i = 0; i < summary.default_duration_uses.size(); ++i) {
      out += i == 0 ? "\n    {\"rule\": " : ",\n    {\"rule\": ";
      AppendJsonString(&out, summary.default_duration_uses[i].first);
      out += fmt::format(", \"workloads\": {}}}", summary.default_duration_uses[i].second);
    }
    out += "\n  ]";
  }
  if (summary.workloads_without_duration > 0) {
    out += fmt::format(",\n  \"workloadsWithoutDuration\": {}", summary.workloads_without_duration);
  }
  if (!summary.cron_jobs.empty()) {
    out += ",\n  \"cronJobs\": [";
    for (size_t i = 0; i < summary.cron_jobs.size(); ++i) {
      const CronJobSummary& cron_job = summary.cron_jobs[i];
      out += i == 0 ? "\n    {\"cluster\": " : ",\n    {\"cluster\": ";
      AppendJsonString(&out, cron_job.cluster);
      out += ", \"name\": ";
      AppendJsonString(&out, cron_job.name);
      out += fmt::format(", \"jobsCreated\": {}, \"alreadyActive\": {}, \"missedDeadline\": {}, \"replaced\": {}}}",
                         cron_job.created, cron_job.already_active, cron_job.missed, cron_job.replaced);
    }
    out += "\n  ]";
  }
  if (!summary.traces.empty()) {
    auto append_counts = [&out](const std::map<std::string, int64_t>& counts) {
      out += "{";
      bool first_count = true;
      for (const auto& [reason, count] : counts) {
        out += first_count ? "" : ", ";
        first_count = false;
        AppendJsonString(&out, reason);
        out += fmt::format(": {}", count);
      }
      out += "}";
    };
    out += ",\n  \"traces\": [";
    for (size_t i = 0; i < summary.traces.size(); ++i) {
      const TraceImportSummary& trace = summary.traces[i];
      out += i == 0 ? "\n    {\"source\": " : ",\n    {\"source\": ";
      AppendJsonString(&out, trace.source);
      out += fmt::format(", \"rowsRead\": {}, \"workloads\": {}, ", trace.rows_read, trace.workloads);
      if (trace.changes > 0) out += fmt::format("\"changes\": {}, ", trace.changes);
      out += "\"skipped\": ";
      append_counts(trace.skipped);
      out += ", \"repaired\": ";
      append_counts(trace.repaired);
      if (!trace.replicas.empty()) {
        out += ", \"replicas\": ";
        append_counts(trace.replicas);
      }
      if (!trace.ignored.empty()) {
        out += ", \"ignored\": ";
        append_counts(trace.ignored);
      }
      if (!trace.notes.empty()) {
        out += ", \"notes\": [";
        for (size_t n = 0; n < trace.notes.size(); ++n) {
          out += n == 0 ? "" : ", ";
          AppendJsonString(&out, trace.notes[n]);
        }
        out += "]";
      }
      out += ", \"examples\": [";
      for (size_t e = 0; e < trace.examples.size(); ++e) {
        out += e == 0 ? "" : ", ";
        AppendJsonString(&out, trace.examples[e]);
      }
      out += "]}";
    }
    out += "\n  ]";
  }
  out += "\n}\n";
  return out;
}

}  // namespace kueuesim::metrics
