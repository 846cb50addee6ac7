// JSON Lines event log; see event_log.h.
#include "kueuesim/metrics/event_log.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "kueuesim/topology/rank_order.h"

namespace kueuesim::metrics {

void AppendJsonString(std::string* out, std::string_view text) {
  out->push_back('"');
  for (char c : text) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out->append(fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c))));
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

namespace {

// `pod_indices`, when set, has each domain's pod index range (rank-ordered
// placement, see topology/rank_order.h).
void AppendTopologyAssignment(std::string* out, const model::TopologyAssignment& ta,
                              const std::vector<topology::PodIndexRange>* pod_indices) {
  out->append("{\"levels\": [");
  for (size_t i = 0; i < ta.levels.size(); ++i) {
    if (i > 0) out->append(", ");
    AppendJsonString(out, ta.levels[i]);
  }
  out->append("], \"domains\": [");
  for (size_t d = 0; d < ta.domains.size(); ++d) {
    if (d > 0) out->append(", ");
    out->append("{\"values\": [");
    for (size_t v = 0; v < ta.domains[d].values.size(); ++v) {
      if (v > 0) out->append(", ");
      AppendJsonString(out, ta.domains[d].values[v]);
    }
    out->append(fmt::format("], \"count\": {}", ta.domains[d].count));
    if (pod_indices != nullptr && d < pod_indices->size()) {
      out->append(fmt::format(", \"podIndices\": [{}, {}]", (*pod_indices)[d].first, (*pod_indices)[d].last));
    }
    out->append("}");
  }
  out->append("]}");
}

}  // namespace

void EventLogWriter::OnEvent(const cluster::SimEvent& event) {
  if (event.type == cluster::EventType::kQuotaReleased) return;
  const cluster::ClusterState& state = *event.cluster;
  std::string& out = buffer_;
  out.clear();
  out.append(fmt::format("{{\"time\": {}, \"cycle\": {}, \"type\": ", FormatSeconds(event.time),
                         event.cycle));
  AppendJsonString(&out, cluster::EventTypeName(event.type));
  if (!state.name().empty()) {
    out.append(", \"cluster\": ");
    AppendJsonString(&out, state.name());
  }
  if (!event.worker.empty()) {
    out.append(", \"worker\": ");
    AppendJsonString(&out, event.worker);
  }
  if (event.type == cluster::EventType::kChanged) {
    out.append(", \"object\": ");
    AppendJsonString(&out, event.object);
  } else if (!event.object.empty()) {
    out.append(", \"leaderWorkerSet\": ");
    AppendJsonString(&out, event.object);
    if (event.group >= 0) out.append(fmt::format(", \"group\": {}", event.group));
  }
  if (event.workload == cluster::kNone) {
    if (event.type == cluster::EventType::kScaled || event.type == cluster::EventType::kGroupReady ||
        event.type == cluster::EventType::kGroupNotReady || event.type == cluster::EventType::kNominated) {
      out.append(fmt::format(", \"value\": {}", event.value));
    }
    if (!event.reason.empty()) {
      out.append(", \"reason\": ");
      AppendJsonString(&out, event.reason);
    }
    out.append("}\n");
    std::fwrite(out.data(), 1, out.size(), out_);
    ++lines_;
    return;
  }
  const cluster::WorkloadRecord& wl = state.workload(event.workload);
  out.append(", \"workload\": ");
  AppendJsonString(&out, wl.key);
  if (event.cq != cluster::kNone) {
    out.append(", \"clusterQueue\": ");
    AppendJsonString(&out, state.cq(event.cq).name);
  }
  if (event.type == cluster::EventType::kQuotaReserved && wl.admission.has_value()) {
    std::vector<const model::PodSet*> specs;
    std::vector<const model::TopologyAssignment*> assignments;
    for (size_t i = 0; i < wl.pod_sets.size(); ++i) {
      specs.push_back(wl.pod_sets[i].spec);
      const auto& ta = wl.admission->pod_sets[i].topology_assignment;
      assignments.push_back(ta.has_value() ? &*ta : nullptr);
    }
    const auto pod_indices = topology::PodIndexRanges(specs, assignments);
    out.append(", \"podSets\": [");
    for (size_t i = 0; i < wl.pod_sets.size(); ++i) {
      const cluster::PodSetAdmission& ps = wl.admission->pod_sets[i];
      if (i > 0) out.append(", ");
      out.append("{\"name\": ");
      AppendJsonString(&out, wl.pod_sets[i].spec->name);
      out.append(fmt::format(", \"count\": {}, \"flavors\": {{", ps.count));
      std::vector<std::pair<std::string, std::string>> flavors;
      for (const auto& entry : ps.entries) {
        flavors.emplace_back(state.resource_name(entry.resource), state.flavor(entry.flavor).name);
      }
      std::sort(flavors.begin(), flavors.end());
      for (size_t f = 0; f < flavors.size(); ++f) {
        if (f > 0) out.append(", ");
        AppendJsonString(&out, flavors[f].first);
        out.append(": ");
        AppendJsonString(&out, flavors[f].second);
      }
      out.append("}");
      if (ps.topology_assignment.has_value()) {
        out.append(", \"topologyAssignment\": ");
        AppendTopologyAssignment(&out, *ps.topology_assignment,
                                 pod_indices[i].has_value() ? &*pod_indices[i] : nullptr);
      }
      out.append("}");
    }
    out.append("]");
  }
  if (event.preemptor != cluster::kNone) {
    out.append(", \"preemptor\": ");
    AppendJsonString(&out, state.workload(event.preemptor).key);
  }
  if (!event.reason.empty()) {
    out.append(", \"reason\": ");
    AppendJsonString(&out, event.reason);
  }
  if (event.type == cluster::EventType::kPending) {
    // The condition's message, worded now (it is in the record as figures).
    out.append(", \"message\": ");
    AppendJsonString(&out, cluster::PendingMessageText(state, wl, *wl.pending));
  }
  if ((!event.object.empty() && (event.type == cluster::EventType::kGroupReady ||
                                 event.type == cluster::EventType::kGroupNotReady)) ||
      event.type == cluster::EventType::kNominated) {
    out.append(fmt::format(", \"value\": {}", event.value));
  }
  out.append("}\n");
  std::fwrite(out.data(), 1, out.size(), out_);
  ++lines_;
}

}  // namespace kueuesim::metrics
