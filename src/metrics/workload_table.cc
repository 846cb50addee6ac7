// The per-workload table; see workload_table.h.
#include "kueuesim/metrics/workload_table.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/time.h"

namespace kueuesim::metrics {
namespace {

using cluster::EventType;

constexpr char kCsvHeader[] =
    "cluster,workload,clusterQueue,status,arrival,quotaReserved,admitted,started,finished,wait,runTime,"
    "evictions,preemptions,flavors,pendingReason,pendingMessage\n";

std::string OptionalTime(SimTime t, std::string_view missing) {
  return t < 0 ? std::string(missing) : FormatSeconds(t);
}

void AppendCsv(std::string* out, std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

void AppendJson(std::string* out, std::string_view text) {
  out->push_back('"');
  for (char c : text) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out->append(fmt::format("\\u{:04x}", static_cast<unsigned char>(c)));
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

// "resource=flavor" pairs of the workload's admission, sorted, ";"-joined.
std::string FlavorsOf(const cluster::ClusterState& state, const cluster::WorkloadRecord& wl) {
  if (!wl.admission.has_value()) return "";
  std::set<std::string> pairs;
  for (const auto& pod_set : wl.admission->pod_sets) {
    for (const auto& entry : pod_set.entries) {
      if (entry.resource == cluster::kNone || entry.flavor == cluster::kNone) continue;
      pairs.insert(state.resource_name(entry.resource) + "=" + state.flavor(entry.flavor).name);
    }
  }
  std::string out;
  for (const auto& pair : pairs) out += (out.empty() ? "" : ";") + pair;
  return out;
}

}  // namespace

WorkloadTableWriter::WorkloadTableWriter(std::FILE* out, TimeSeriesFormat format) : out_(out), format_(format) {
  if (format_ == TimeSeriesFormat::kCsv) std::fputs(kCsvHeader, out_);
}

int32_t WorkloadTableWriter::ClusterIndex(const cluster::ClusterState* state) {
  for (size_t i = 0; i < clusters_.size(); ++i) {
    if (clusters_[i] == state) return static_cast<int32_t>(i);
  }
  clusters_.push_back(state);
  cluster_names_.push_back(state->name());
  return static_cast<int32_t>(clusters_.size() - 1);
}

WorkloadTableWriter::Row& WorkloadTableWriter::RowFor(const cluster::SimEvent& event, int32_t cluster) {
  const int64_t key = (static_cast<int64_t>(cluster) << 32) | static_cast<uint32_t>(event.workload);
  auto [it, inserted] = in_flight_.try_emplace(key);
  Row& row = it->second;
  if (inserted) {
    const cluster::WorkloadRecord& wl = event.cluster->workload(event.workload);
    row.cluster = cluster;
    row.workload = wl.key;
    row.arrival = wl.arrival;
  }
  if (row.cluster_queue.empty() && event.cq != cluster::kNone) row.cluster_queue = event.cluster->cq(event.cq).name;
  return row;
}

void WorkloadTableWriter::StopRunning(Row* row, SimTime now) {
  if (row->ready_since < 0) return;
  row->run_time += now - row->ready_since;
  row->ready_since = -1;
}

void WorkloadTableWriter::OnEvent(const cluster::SimEvent& event) {
  if (event.cluster == nullptr || event.workload == cluster::kNone) return;
  const int32_t cluster = ClusterIndex(event.cluster);
  // A row starts at the workload's arrival (or its admission in the input
  // status); a later event of a workload whose row is written (an event
  // after its completion) changes nothing.
  const int64_t key = (static_cast<int64_t>(cluster) << 32) | static_cast<uint32_t>(event.workload);
  if (event.type != EventType::kArrived && event.type != EventType::kAdmittedAtStart &&
      in_flight_.find(key) == in_flight_.end()) {
    return;
  }
  Row& row = RowFor(event, cluster);
  const SimTime now = event.time;
  switch (event.type) {
    case EventType::kQuotaReserved:
    case EventType::kAdmittedAtStart: {
      const cluster::WorkloadRecord& wl = event.cluster->workload(event.workload);
      if (row.quota_reserved < 0) row.quota_reserved = now;
      if (event.type == EventType::kAdmittedAtStart && event.reason != cluster::kAwaitingAdmissionReason &&
          row.admitted < 0) {
        row.admitted = now;
      }
      if (event.cq != cluster::kNone) row.cluster_queue = event.cluster->cq(event.cq).name;
      row.flavors = FlavorsOf(*event.cluster, wl);
      row.status = "running";
      break;
    }
    case EventType::kAdmitted:
      if (row.admitted < 0) row.admitted = now;
      break;
    case EventType::kPodsReady:
      if (row.started < 0) row.started = now;
      if (row.ready_since < 0) row.ready_since = now;
      break;
    case EventType::kPreempted:
      ++row.preemptions;
      break;
    case EventType::kEvicted:
      ++row.evictions;
      StopRunning(&row, now);
      break;
    case EventType::kRequeued:
      row.status = "pending";
      break;
    case EventType::kDeactivated:
      StopRunning(&row, now);
      row.status = "deactivated";
      break;
    case EventType::kInadmissible:
      row.status = "inadmissible";
      break;
    case EventType::kPending: {
      // The QuotaReserved=False condition, worded now: the last one stays
      // on the row after the workload reserves quota.
      const cluster::WorkloadRecord& wl = event.cluster->workload(event.workload);
      row.pending_reason = std::string(event.reason);
      row.pending_message = cluster::PendingMessageText(*event.cluster, wl, *wl.pending);
      break;
    }
    case EventType::kFinished:
    case EventType::kDeleted: {
      StopRunning(&row, now);
      row.finished = now;
      row.status = event.type == EventType::kFinished ? "finished" : "deleted";
      Write(row);
      in_flight_.erase(key);
      break;
    }
    default:
      break;
  }
}

void WorkloadTableWriter::Finish(SimTime end_time) {
  std::vector<Row*> rest;
  rest.reserve(in_flight_.size());
  for (auto& [key, row] : in_flight_) rest.push_back(&row);
  std::sort(rest.begin(), rest.end(), [](const Row* a, const Row* b) {
    return std::tie(a->cluster, a->arrival, a->workload) < std::tie(b->cluster, b->arrival, b->workload);
  });
  for (Row* row : rest) {
    StopRunning(row, std::max(end_time, row->ready_since));
    Write(*row);
  }
  in_flight_.clear();
  std::fflush(out_);
}

void WorkloadTableWriter::WriteInFlight(std::FILE* out, SimTime end_time) const {
  WorkloadTableWriter copy = *this;
  copy.out_ = out;
  copy.Finish(end_time);
}

void WorkloadTableWriter::Write(const Row& row) {
  const SimDuration wait = row.quota_reserved < 0 ? -1 : row.quota_reserved - row.arrival;
  std::string line;
  if (format_ == TimeSeriesFormat::kCsv) {
    AppendCsv(&line, cluster_names_[static_cast<size_t>(row.cluster)]);
    line += ',';
    AppendCsv(&line, row.workload);
    line += ',';
    AppendCsv(&line, row.cluster_queue);
    line += fmt::format(",{},{},{},{},{},{},{},{},{},{},", row.status, FormatSeconds(row.arrival),
                        OptionalTime(row.quota_reserved, ""), OptionalTime(row.admitted, ""),
                        OptionalTime(row.started, ""), OptionalTime(row.finished, ""), OptionalTime(wait, ""),
                        FormatSeconds(row.run_time), row.evictions, row.preemptions);
    AppendCsv(&line, row.flavors);
    line += ',';
    AppendCsv(&line, row.pending_reason);
    line += ',';
    AppendCsv(&line, row.pending_message);
    line += '\n';
  } else {
    line += "{\"cluster\": ";
    AppendJson(&line, cluster_names_[static_cast<size_t>(row.cluster)]);
    line += ", \"workload\": ";
    AppendJson(&line, row.workload);
    line += ", \"clusterQueue\": ";
    AppendJson(&line, row.cluster_queue);
    line += fmt::format(
        ", \"status\": \"{}\", \"arrival\": {}, \"quotaReserved\": {}, \"admitted\": {}, \"started\": {}, "
        "\"finished\": {}, \"wait\": {}, \"runTime\": {}, \"evictions\": {}, \"preemptions\": {}, \"flavors\": ",
        row.status, FormatSeconds(row.arrival), OptionalTime(row.quota_reserved, "null"),
        OptionalTime(row.admitted, "null"), OptionalTime(row.started, "null"), OptionalTime(row.finished, "null"),
        OptionalTime(wait, "null"), FormatSeconds(row.run_time), row.evictions, row.preemptions);
    AppendJson(&line, row.flavors);
    line += ", \"pendingReason\": ";
    AppendJson(&line, row.pending_reason);
    line += ", \"pendingMessage\": ";
    AppendJson(&line, row.pending_message);
    line += "}\n";
  }
  std::fwrite(line.data(), 1, line.size(), out_);
  ++rows_;
}

}  // namespace kueuesim::metrics
