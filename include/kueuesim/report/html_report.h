// The HTML report of one or more runs (`kueuesim report RUN... -o FILE`):
// one self-contained page — inline CSS and inline SVG, no script, nothing
// fetched — with the runs' headline figures, utilization over time per
// ClusterQueue, flavor and resource, queue lengths over time, the wait-time
// distribution (CDF) per ClusterQueue, preemptions over time and, under
// fair sharing, the weighted shares. Several runs are overlaid in every
// chart, one colour per run with a legend. The same runs give
// byte-identical HTML.
#ifndef KUEUESIM_REPORT_HTML_REPORT_H_
#define KUEUESIM_REPORT_HTML_REPORT_H_

#include <string>
#include <vector>

#include "kueuesim/report/run_data.h"

namespace kueuesim::report {

std::string RenderHtmlReport(const std::vector<RunData>& runs);

// The colour of the i-th run in charts and tables.
const char* RunColor(size_t index);

}  // namespace kueuesim::report

#endif  // KUEUESIM_REPORT_HTML_REPORT_H_
