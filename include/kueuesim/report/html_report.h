// The HTML report of one or more runs (`kueuesim report RUN... -o FILE`):
// one self-contained, offline page. The charts are drawn by dygraphs
// (Debian's libjs-dygraphs, docs/decisions.md), whose script and style are
// read from the installed package and inlined into the page; nothing is
// fetched when the page is opened. The page holds the runs' headline
// figures (tables with one unit per column), a table of contents, and,
// per cluster: utilization, borrowed quota, cohort usage against cohort
// capacity, pending workloads, fair-sharing shares and the wait-time
// distribution (CDF) of every ClusterQueue (idle ones included); then
// preemptions over time, pending workloads by reason at the end of the
// run, and MultiKueue and LeaderWorkerSet sections when the runs have
// them. Charts zoom (drag; double-click resets) and pan (shift-drag), show
// exact values with units under the pointer, draw step data as steps,
// use wall-clock time when the scenario set a startTime, and tell runs
// apart by colour and dash, every run in every legend. The same runs give
// byte-identical HTML.
#ifndef KUEUESIM_REPORT_HTML_REPORT_H_
#define KUEUESIM_REPORT_HTML_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/report/run_data.h"

namespace kueuesim::report {

struct ReportOptions {
  // Directory holding dygraph.min.js and dygraph.min.css. Empty: the
  // environment variable KUEUESIM_DYGRAPHS_DIR, else the directory found
  // when kueuesim was built (Debian: /usr/share/javascript/dygraphs).
  std::string chart_library_dir;
};

// The directory RenderHtmlReport reads dygraphs from under `options`.
std::string ChartLibraryDir(const ReportOptions& options);

// The page, or FailedPrecondition naming the missing file and how to
// install it when the charting library is not there.
absl::StatusOr<std::string> RenderHtmlReport(const std::vector<RunData>& runs, const ReportOptions& options = {});

// The colour and the dash pattern ("" for solid, "6,3", ...) of the i-th
// run in charts and legends.
const char* RunColor(size_t index);
const char* RunDash(size_t index);

// Escapes text for HTML element content and attribute values.
std::string HtmlEscape(std::string_view text);

}  // namespace kueuesim::report

#endif  // KUEUESIM_REPORT_HTML_REPORT_H_
