// Time series of a run; see timeseries.h.
#include "kueuesim/metrics/timeseries.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "kueuesim/metrics/event_log.h"

namespace kueuesim::metrics {
namespace {

constexpr cluster::FrId kNoFr = -1;

// An amount in resource units: cpu (milli) as cores with up to three
// decimals, everything else as the integer.
std::string AmountValue(Amount amount, std::string_view resource) {
  if (amount == kUnlimited) return "9223372036854775807";
  if (!IsMilliResource(resource)) return fmt::format("{}", amount);
  const bool negative = amount < 0;
  const uint64_t magnitude = negative ? static_cast<uint64_t>(-(amount + 1)) + 1 : static_cast<uint64_t>(amount);
  std::string out = fmt::format("{}{}", negative ? "-" : "", magnitude / 1000);
  uint64_t fraction = magnitude % 1000;
  if (fraction != 0) {
    std::string digits = fmt::format("{:03d}", fraction);
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

// Kueue's status.fairSharing.weightedShare: the share rounded up, with the
// largest integer for a zero weight that borrows.
double WeightedShare(const quota::QuotaTree& tree, quota::NodeId n) {
  quota::Drs drs = tree.DominantResourceShare(n);
  return drs.ZeroWeightBorrows() ? 9223372036854775807.0 : std::ceil(drs.PreciseWeightedShare());
}

std::string ShareValue(double share) {
  if (share >= 9.2e18) return "9223372036854775807";
  return fmt::format("{}", static_cast<int64_t>(share));
}

void AppendCsvField(std::string* out, std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char ch : text) {
    if (ch == '"') out->push_back('"');
    out->push_back(ch);
  }
  out->push_back('"');
}

}  // namespace

TimeSeriesFormat TimeSeriesFormatForPath(std::string_view path) {
  constexpr std::string_view kCsv = ".csv";
  if (path.size() >= kCsv.size() && path.substr(path.size() - kCsv.size()) == kCsv) return TimeSeriesFormat::kCsv;
  return TimeSeriesFormat::kJsonLines;
}

TimeSeriesRecorder::TimeSeriesRecorder(std::FILE* out, TimeSeriesFormat format) : out_(out), format_(format) {
  if (format_ == TimeSeriesFormat::kCsv) {
    static constexpr std::string_view kHeader = "time,cluster,scope,name,metric,flavor,resource,value\n";
    std::fwrite(kHeader.data(), 1, kHeader.size(), out_);
  }
}

TimeSeriesRecorder::ClusterSeries& TimeSeriesRecorder::For(const cluster::ClusterState* state) {
  for (auto& c : clusters_) {
    if (c.state == state) return c;
  }
  ClusterSeries c;
  c.state = state;
  const quota::QuotaTree& tree = state->tree();
  c.num_frs = tree.num_frs();
  const size_t nodes = static_cast<size_t>(tree.num_nodes());
  const size_t cells = nodes * static_cast<size_t>(c.num_frs);
  c.usage.assign(cells, 0);
  c.emitted_usage.assign(cells, 0);
  c.emitted_borrowing.assign(cells, 0);
  c.emitted_quota.assign(cells, 0);
  c.quota_written.assign(cells, false);
  const size_t cqs = static_cast<size_t>(state->num_cluster_queues());
  c.pending.assign(cqs, 0);
  c.emitted_pending.assign(cqs, 0);
  c.dirty_cq.assign(cqs, false);
  c.emitted_share.assign(nodes, 0);
  c.share.assign(nodes, 0);
  c.dirty_node.assign(nodes, false);
  c.share_dirty.assign(nodes, false);
  clusters_.push_back(std::move(c));
  // The quotas at the first instant.
  MarkAllNodes(&clusters_.back());
  return clusters_.back();
}

void TimeSeriesRecorder::MarkNode(ClusterSeries* c, quota::NodeId n) {
  if (c->dirty_node[static_cast<size_t>(n)]) return;
  c->dirty_node[static_cast<size_t>(n)] = true;
  c->dirty_nodes.push_back(n);
}

void TimeSeriesRecorder::MarkAllNodes(ClusterSeries* c) {
  for (quota::NodeId n = 0; n < static_cast<quota::NodeId>(c->dirty_node.size()); ++n) MarkNode(c, n);
}

void TimeSeriesRecorder::MarkCq(ClusterSeries* c, cluster::CqId cq) {
  if (c->dirty_cq[static_cast<size_t>(cq)]) return;
  c->dirty_cq[static_cast<size_t>(cq)] = true;
  c->dirty_cqs.push_back(cq);
}

void TimeSeriesRecorder::MarkShares(ClusterSeries* c, cluster::CqId cq) {
  if (!c->state->fair_sharing_enabled()) return;
  const quota::QuotaTree& tree = c->state->tree();
  for (quota::NodeId n = c->state->cq(cq).node; n != quota::kNoNode; n = tree.parent(n)) {
    if (!tree.has_parent(n) || c->share_dirty[static_cast<size_t>(n)]) continue;
    c->share_dirty[static_cast<size_t>(n)] = true;
    c->share_nodes.push_back(n);
  }
}

void TimeSeriesRecorder::ReadShares(ClusterSeries* c) {
  const quota::QuotaTree& tree = c->state->tree();
  for (quota::NodeId n : c->share_nodes) {
    c->share_dirty[static_cast<size_t>(n)] = false;
    c->share[static_cast<size_t>(n)] = WeightedShare(tree, n);
    c->changed_shares.push_back(n);
  }
  c->share_nodes.clear();
}

void TimeSeriesRecorder::AddUsage(ClusterSeries* c, cluster::CqId cq, const cluster::WorkloadRecord& wl, int sign) {
  if (!wl.admission.has_value()) return;
  const quota::QuotaTree& tree = c->state->tree();
  for (quota::NodeId n = c->state->cq(cq).node; n != quota::kNoNode; n = tree.parent(n)) {
    for (const auto& u : wl.admission->usage) {
      Amount& slot = c->usage[static_cast<size_t>(n) * static_cast<size_t>(c->num_frs) + static_cast<size_t>(u.fr)];
      slot = sign > 0 ? AddAmounts(slot, u.amount) : SubAmounts(slot, u.amount);
    }
    MarkNode(c, n);
  }
}

void TimeSeriesRecorder::SetPending(ClusterSeries* c, cluster::CqId cq, cluster::WorkloadId id, bool pending) {
  if (id == cluster::kNone) return;
  if (c->counted_pending.size() <= static_cast<size_t>(id)) {
    c->counted_pending.resize(static_cast<size_t>(c->state->num_workloads()) + 1, false);
  }
  if (c->counted_pending[static_cast<size_t>(id)] == pending) return;
  c->counted_pending[static_cast<size_t>(id)] = pending;
  if (cq == cluster::kNone) return;
  c->pending[static_cast<size_t>(cq)] += pending ? 1 : -1;
  MarkCq(c, cq);
}

void TimeSeriesRecorder::OnEvent(const cluster::SimEvent& event) {
  // A Pending event changes no series (and must not flush an instant).
  if (event.cluster == nullptr || event.type == cluster::EventType::kPending) return;
  if (!any_event_ || event.time != now_) {
    if (any_event_) {
      // Shares marked by a QuotaReleased of the closing instant: the quota
      // tree has the release applied now. A reservation's event comes after
      // its usage is in the tree, so then they wait to be read at the new
      // instant.
      if (event.type != cluster::EventType::kQuotaReserved && event.type != cluster::EventType::kAdmittedAtStart) {
        for (ClusterSeries& c : clusters_) ReadShares(&c);
      }
      Flush();
    }
    now_ = event.time;
    any_event_ = true;
  }
  ClusterSeries& c = For(event.cluster);
  const cluster::ClusterState& state = *event.cluster;
  // A usage change announced by an earlier QuotaReleased has been applied
  // to the quota tree by now.
  if (event.type != cluster::EventType::kQuotaReleased) ReadShares(&c);
  if (event.type == cluster::EventType::kChanged) {
    // A quota, limit or weight change is applied right after its event;
    // the flush at the end of the instant reads the new quotas.
    MarkAllNodes(&c);
    if (state.fair_sharing_enabled()) {
      for (cluster::CqId cq = 0; cq < state.num_cluster_queues(); ++cq) MarkShares(&c, cq);
    }
    return;
  }
  if (!event.worker.empty()) {
    // MultiKueue: copies and API operations per worker, nominations per
    // manager.
    switch (event.type) {
      case cluster::EventType::kDispatched: {
        ClusterSeries::WorkerCounts& counts = c.multikueue[std::string(event.worker)];
        ++counts.copies;
        ++counts.created;
        c.multikueue_dirty = true;
        break;
      }
      case cluster::EventType::kCopyDeleted: {
        ClusterSeries::WorkerCounts& counts = c.multikueue[std::string(event.worker)];
        --counts.copies;
        ++counts.deleted;
        c.multikueue_dirty = true;
        break;
      }
      default:
        break;
    }
  }
  if (event.type == cluster::EventType::kNominated) {
    ++c.nominations;
    c.multikueue_dirty = true;
  }
  if (event.workload == cluster::kNone || !event.object.empty()) return;
  const cluster::CqId cq = event.cq;
  switch (event.type) {
    case cluster::EventType::kArrived:
      SetPending(&c, cq, event.workload, cq != cluster::kNone);
      break;
    case cluster::EventType::kRequeued:
      SetPending(&c, cq, event.workload, true);
      break;
    case cluster::EventType::kDeactivated:
    case cluster::EventType::kInadmissible:
      SetPending(&c, cq, event.workload, false);
      break;
    case cluster::EventType::kQuotaReserved:
    case cluster::EventType::kAdmittedAtStart:
      SetPending(&c, cq, event.workload, false);
      if (cq == cluster::kNone) break;
      AddUsage(&c, cq, state.workload(event.workload), +1);
      MarkShares(&c, cq);
      ReadShares(&c);
      break;
    case cluster::EventType::kQuotaReleased:
      if (cq == cluster::kNone) break;
      AddUsage(&c, cq, state.workload(event.workload), -1);
      MarkShares(&c, cq);
      break;
    case cluster::EventType::kFinished:
    case cluster::EventType::kDeleted:
      // The record may be recycled for another workload after this event.
      SetPending(&c, cq, event.workload, false);
      break;
    default:
      break;
  }
}

void TimeSeriesRecorder::WriteRow(const ClusterSeries& c, quota::NodeId node, std::string_view metric,
                                  cluster::FrId fr, std::string_view value) {
  const cluster::ClusterState& state = *c.state;
  const quota::QuotaTree& tree = state.tree();
  std::string_view flavor;
  std::string_view resource;
  if (fr != kNoFr) {
    flavor = state.flavor(state.fr_flavor(fr)).name;
    resource = state.resource_name(state.fr_resource(fr));
  }
  WriteRow(state.name(), tree.is_cluster_queue(node) ? "ClusterQueue" : "Cohort", tree.name(node), metric, flavor,
           resource, value);
}

void TimeSeriesRecorder::WriteRow(std::string_view cluster, std::string_view scope, std::string_view name,
                                  std::string_view metric, std::string_view flavor, std::string_view resource,
                                  std::string_view value) {
  const std::string time = FormatSeconds(now_);
  if (format_ == TimeSeriesFormat::kCsv) {
    buffer_ += time;
    buffer_ += ',';
    AppendCsvField(&buffer_, cluster);
    buffer_ += ',';
    buffer_ += scope;
    buffer_ += ',';
    AppendCsvField(&buffer_, name);
    buffer_ += ',';
    buffer_ += metric;
    buffer_ += ',';
    AppendCsvField(&buffer_, flavor);
    buffer_ += ',';
    AppendCsvField(&buffer_, resource);
    buffer_ += ',';
    buffer_ += value;
    buffer_ += '\n';
  } else {
    buffer_ += "{\"time\": ";
    buffer_ += time;
    buffer_ += ", \"cluster\": ";
    AppendJsonString(&buffer_, cluster);
    buffer_ += ", \"scope\": \"";
    buffer_ += scope;
    buffer_ += "\", \"name\": ";
    AppendJsonString(&buffer_, name);
    buffer_ += ", \"metric\": \"";
    buffer_ += metric;
    buffer_ += "\", \"flavor\": ";
    AppendJsonString(&buffer_, flavor);
    buffer_ += ", \"resource\": ";
    AppendJsonString(&buffer_, resource);
    buffer_ += ", \"value\": ";
    buffer_ += value;
    buffer_ += "}\n";
  }
  ++rows_;
  instant_wrote_ = true;
}

void TimeSeriesRecorder::Flush() {
  instant_wrote_ = false;
  for (ClusterSeries& c : clusters_) {
    const cluster::ClusterState& state = *c.state;
    const quota::QuotaTree& tree = state.tree();
    std::sort(c.dirty_nodes.begin(), c.dirty_nodes.end());
    for (quota::NodeId n : c.dirty_nodes) {
      c.dirty_node[static_cast<size_t>(n)] = false;
      for (quota::FrId fr = 0; fr < c.num_frs; ++fr) {
        const size_t cell = static_cast<size_t>(n) * static_cast<size_t>(c.num_frs) + static_cast<size_t>(fr);
        const std::string& resource = state.resource_name(state.fr_resource(fr));
        const bool cq = tree.is_cluster_queue(n);
        const Amount quota = cq ? tree.quota(n, fr).nominal : tree.subtree_quota(n, fr);
        const Amount usage = c.usage[cell];
        const bool defined = std::find(tree.defined_frs(n).begin(), tree.defined_frs(n).end(), fr) !=
                             tree.defined_frs(n).end();
        if ((defined || c.quota_written[cell]) && (!c.quota_written[cell] || c.emitted_quota[cell] != quota)) {
          WriteRow(c, n, "quota", fr, AmountValue(quota, resource));
          c.emitted_quota[cell] = quota;
          c.quota_written[cell] = true;
        }
        if (usage != c.emitted_usage[cell]) {
          WriteRow(c, n, "usage", fr, AmountValue(usage, resource));
          c.emitted_usage[cell] = usage;
        }
        const Amount borrowing = quota == kUnlimited || usage <= quota ? 0 : SubAmounts(usage, quota);
        if (borrowing != c.emitted_borrowing[cell]) {
          WriteRow(c, n, "borrowing", fr, AmountValue(borrowing, resource));
          c.emitted_borrowing[cell] = borrowing;
        }
      }
    }
    c.dirty_nodes.clear();
    std::sort(c.dirty_cqs.begin(), c.dirty_cqs.end());
    for (cluster::CqId cq : c.dirty_cqs) {
      c.dirty_cq[static_cast<size_t>(cq)] = false;
      const int64_t pending = c.pending[static_cast<size_t>(cq)];
      if (pending == c.emitted_pending[static_cast<size_t>(cq)]) continue;
      WriteRow(c, state.cq(cq).node, "pending", kNoFr, fmt::format("{}", pending));
      c.emitted_pending[static_cast<size_t>(cq)] = pending;
    }
    c.dirty_cqs.clear();
    std::sort(c.changed_shares.begin(), c.changed_shares.end());
    c.changed_shares.erase(std::unique(c.changed_shares.begin(), c.changed_shares.end()), c.changed_shares.end());
    for (quota::NodeId n : c.changed_shares) {
      const double share = c.share[static_cast<size_t>(n)];
      if (share == c.emitted_share[static_cast<size_t>(n)]) continue;
      WriteRow(c, n, "share", kNoFr, ShareValue(share));
      c.emitted_share[static_cast<size_t>(n)] = share;
    }
    c.changed_shares.clear();
    if (c.multikueue_dirty) {
      c.multikueue_dirty = false;
      for (auto& [worker, counts] : c.multikueue) {
        if (counts.copies != counts.emitted_copies) {
          WriteRow(state.name(), "MultiKueueCluster", worker, "copies", {}, {}, fmt::format("{}", counts.copies));
          counts.emitted_copies = counts.copies;
        }
        if (counts.created != counts.emitted_created) {
          WriteRow(state.name(), "MultiKueueCluster", worker, "copiesCreated", {}, {},
                   fmt::format("{}", counts.created));
          counts.emitted_created = counts.created;
        }
        if (counts.deleted != counts.emitted_deleted) {
          WriteRow(state.name(), "MultiKueueCluster", worker, "copiesDeleted", {}, {},
                   fmt::format("{}", counts.deleted));
          counts.emitted_deleted = counts.deleted;
        }
      }
      if (c.nominations != c.emitted_nominations) {
        WriteRow(state.name(), "MultiKueue", state.name(), "nominationPatches", {}, {},
                 fmt::format("{}", c.nominations));
        c.emitted_nominations = c.nominations;
      }
    }
  }
  if (instant_wrote_) ++samples_;
  if (buffer_.size() >= (1 << 16)) {
    std::fwrite(buffer_.data(), 1, buffer_.size(), out_);
    buffer_.clear();
  }
}

void TimeSeriesRecorder::WritePending(std::FILE* out) const {
  TimeSeriesRecorder copy = *this;
  copy.out_ = out;
  copy.Finish();
}

void TimeSeriesRecorder::Finish() {
  for (ClusterSeries& c : clusters_) ReadShares(&c);
  if (any_event_) Flush();
  std::fwrite(buffer_.data(), 1, buffer_.size(), out_);
  buffer_.clear();
  std::fflush(out_);
}

}  // namespace kueuesim::metrics
