// The admission-check and autoscaler parts of the run summary (summary.cc
// calls these; kept apart so that summary.cc changes little).
#ifndef KUEUESIM_METRICS_PROVISIONING_SUMMARY_H_
#define KUEUESIM_METRICS_PROVISIONING_SUMMARY_H_

#include <string>
#include <vector>

#include "kueuesim/metrics/summary.h"
#include "kueuesim/runtime/cluster_runtime.h"

namespace kueuesim::metrics {

// Rows of cells printed with each column as wide as its widest cell (the
// first `left` columns left-aligned, the others right-aligned), each line
// indented by `indent`, columns two spaces apart, trailing spaces dropped.
std::string FormatTextColumns(const std::vector<std::vector<std::string>>& rows, size_t left,
                              const std::string& indent);

// Fills cs->admission_checks and cs->autoscaler from the runtime.
void SummarizeAdmissionChecks(const runtime::ClusterRuntime& runtime, ClusterSummary* cs);
// The text block for one cluster ("" when it has no checks nor pools).
std::string FormatAdmissionChecks(const ClusterSummary& cluster);
// The JSON members for one cluster (",\n    \"admissionChecks\": [...]" ...,
// "" when it has no checks nor pools).
std::string AdmissionChecksJson(const ClusterSummary& cluster);

// The LeaderWorkerSet rollout figures (text block and JSON member; "" when
// there is no rollout).
std::string FormatRollouts(const ClusterSummary& cluster);
std::string RolloutsJson(const ClusterSummary& cluster);
// The LeaderWorkerSets' serving availability (ClusterSummary::serving).
std::string FormatServing(const ClusterSummary& cluster);
std::string ServingJson(const ClusterSummary& cluster);

}  // namespace kueuesim::metrics

#endif  // KUEUESIM_METRICS_PROVISIONING_SUMMARY_H_
