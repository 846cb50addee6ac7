// The event log: one JSON object per line for each workload event, the
// contract of ../shared/conformance/README.md:
//   {"time": 0.0, "cycle": 1, "type": "QuotaReserved", "workload": "ns/name",
//    "clusterQueue": "cq", "podSets": [{"name": "main", "count": 3,
//    "flavors": {"cpu": "on-demand"}}]}
//   {"time": 0.0, "cycle": 1, "type": "Preempted", "workload": "ns/victim",
//    "preemptor": "ns/name", "reason": "InClusterQueue", ...}
// Times are simulated seconds. Keys come in a fixed order and the output is
// byte-identical for the same input.
#ifndef KUEUESIM_METRICS_EVENT_LOG_H_
#define KUEUESIM_METRICS_EVENT_LOG_H_

#include <cstdio>
#include <string>

#include "kueuesim/cluster/events.h"

namespace kueuesim::metrics {

class EventLogWriter : public cluster::EventSink {
 public:
  // Writes to `out` (not owned; must outlive the writer).
  explicit EventLogWriter(std::FILE* out) : out_(out) {}
  void OnEvent(const cluster::SimEvent& event) override;
  int64_t lines() const { return lines_; }

 private:
  std::FILE* out_;
  std::string buffer_;
  int64_t lines_ = 0;
};

// Appends `text` as a JSON string literal (quoted and escaped).
void AppendJsonString(std::string* out, std::string_view text);

}  // namespace kueuesim::metrics

#endif  // KUEUESIM_METRICS_EVENT_LOG_H_
