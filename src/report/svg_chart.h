// Inline SVG line charts for the HTML report: axes with round ticks, one
// polyline per series, a legend. Deterministic text output.
#ifndef KUEUESIM_SRC_REPORT_SVG_CHART_H_
#define KUEUESIM_SRC_REPORT_SVG_CHART_H_

#include <string>
#include <string_view>
#include <vector>

#include "kueuesim/report/run_data.h"

namespace kueuesim::report {

struct ChartSeries {
  std::string label;
  std::string color;  // CSS colour
  Points points;      // in x order
};

struct ChartOptions {
  std::string title;
  std::string x_label;
  std::string y_label;
  // Step function (value holds until the next point) rather than straight
  // segments between points.
  bool step = true;
  // Extends each step series to this x (the run's end); <0: no extension.
  double x_end = -1;
  // Fixed y range start at 0; y_max <= 0 picks it from the data.
  double y_max = 0;
  // Time axis: x values are seconds, labelled in s, min, h or d.
  bool time_axis = true;
};

// An <svg> element. At most ~2 points per horizontal pixel are drawn for a
// series (the min and max of each pixel column), so long runs stay small.
std::string RenderLineChart(const ChartOptions& options, const std::vector<ChartSeries>& series);

// Escapes text for HTML element content and attribute values.
std::string HtmlEscape(std::string_view text);

}  // namespace kueuesim::report

#endif  // KUEUESIM_SRC_REPORT_SVG_CHART_H_
