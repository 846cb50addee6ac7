// Inline SVG line charts; see svg_chart.h.
#include "svg_chart.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace kueuesim::report {
namespace {

constexpr double kWidth = 600;
constexpr double kHeight = 300;
constexpr double kLeft = 64;
constexpr double kRight = 16;
constexpr double kTop = 48;
constexpr double kBottom = 44;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;

// A round step (1, 2 or 5 times a power of ten) giving about `target`
// intervals over [0, span].
double NiceStep(double span, int target) {
  if (span <= 0) return 1;
  const double raw = span / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  const double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * magnitude;
}

std::string Number(double value) {
  if (std::fabs(value) < 1e-9) return "0";
  return fmt::format("{:.6g}", value);
}

std::string Coord(double value) { return fmt::format("{:.1f}", value); }

struct TimeUnit {
  double seconds;
  const char* name;
};

TimeUnit UnitFor(double max_seconds) {
  if (max_seconds < 600) return {1, "s"};
  if (max_seconds < 36000) return {60, "min"};
  if (max_seconds < 3 * 86400) return {3600, "h"};
  return {86400, "d"};
}

// The vertices to draw for one series, in data coordinates: step corners
// added, the tail extended to x_end, and thinned to the min and max of each
// pixel column when there are many.
Points Vertices(const ChartSeries& s, const ChartOptions& options, double x_max) {
  Points out;
  // A step series is 0 before its first change (time series write a row
  // only when a value changes from 0).
  if (options.step && !s.points.empty() && s.points.front().first > 0) out.emplace_back(0, 0);
  for (size_t i = 0; i < s.points.size(); ++i) {
    if (options.step && i > 0) out.emplace_back(s.points[i].first, s.points[i - 1].second);
    out.push_back(s.points[i]);
  }
  if (options.step && !s.points.empty() && options.x_end > s.points.back().first) {
    out.emplace_back(options.x_end, s.points.back().second);
  }
  if (out.size() <= static_cast<size_t>(4 * kPlotWidth) || x_max <= 0) return out;
  Points thinned;
  size_t i = 0;
  while (i < out.size()) {
    const int64_t column = static_cast<int64_t>(out[i].first / x_max * kPlotWidth);
    const double x = out[i].first;
    double first = out[i].second;
    double low = first;
    double high = first;
    double last = first;
    size_t j = i + 1;
    while (j < out.size() && static_cast<int64_t>(out[j].first / x_max * kPlotWidth) == column) {
      low = std::min(low, out[j].second);
      high = std::max(high, out[j].second);
      last = out[j].second;
      ++j;
    }
    thinned.emplace_back(x, first);
    if (j > i + 1) {
      thinned.emplace_back(x, low);
      thinned.emplace_back(x, high);
      thinned.emplace_back(out[j - 1].first, last);
    }
    i = j;
  }
  return thinned;
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string RenderLineChart(const ChartOptions& options, const std::vector<ChartSeries>& series) {
  double x_max = std::max(0.0, options.x_end);
  double y_max = options.y_max;
  bool any_point = false;
  for (const auto& s : series) {
    for (const auto& [x, y] : s.points) {
      any_point = true;
      x_max = std::max(x_max, x);
      if (options.y_max <= 0) y_max = std::max(y_max, y);
    }
  }
  if (x_max <= 0) x_max = 1;
  if (y_max <= 0) y_max = 1;
  const TimeUnit unit = options.time_axis ? UnitFor(x_max) : TimeUnit{1, ""};
  const double x_step = NiceStep(x_max / unit.seconds, 6) * unit.seconds;
  const double y_step = NiceStep(y_max, 5);
  y_max = std::ceil(y_max / y_step - 1e-9) * y_step;
  auto px = [&](double x) { return kLeft + x / x_max * kPlotWidth; };
  auto py = [&](double y) { return kTop + kPlotHeight - y / y_max * kPlotHeight; };

  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"{2}\">\n",
      kWidth, kHeight, HtmlEscape(options.title));
  out += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", kWidth, kHeight);
  out += fmt::format("<text x=\"{}\" y=\"16\" class=\"title\">{}</text>\n", kLeft, HtmlEscape(options.title));
  // Legend: one swatch per series, in a row under the title.
  double legend_x = kLeft;
  for (const auto& s : series) {
    out += fmt::format("<rect class=\"swatch\" x=\"{}\" y=\"24\" width=\"12\" height=\"12\" fill=\"{}\"/>",
                       Coord(legend_x), s.color);
    out += fmt::format("<text x=\"{}\" y=\"34\" class=\"legend\">{}</text>\n", Coord(legend_x + 16),
                       HtmlEscape(s.label));
    legend_x += 28 + 7.0 * static_cast<double>(s.label.size());
  }
  // Grid and ticks.
  for (double y = 0; y <= y_max + y_step * 1e-6; y += y_step) {
    out += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", Coord(kLeft), Coord(py(y)),
                       Coord(kLeft + kPlotWidth), Coord(py(y)));
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", Coord(kLeft - 6),
                       Coord(py(y) + 4), Number(y));
  }
  for (double x = 0; x <= x_max + x_step * 1e-6; x += x_step) {
    out += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", Coord(px(x)), Coord(kTop),
                       Coord(px(x)), Coord(kTop + kPlotHeight));
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", Coord(px(x)),
                       Coord(kTop + kPlotHeight + 16), Number(x / unit.seconds));
  }
  out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>", Coord(kLeft),
                     Coord(kTop + kPlotHeight), Coord(kLeft + kPlotWidth));
  out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", Coord(kLeft),
                     Coord(kTop), Coord(kTop + kPlotHeight));
  std::string x_label = options.x_label;
  if (options.time_axis) x_label += fmt::format(" ({})", unit.name);
  out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     Coord(kLeft + kPlotWidth / 2), Coord(kHeight - 6), HtmlEscape(x_label));
  out += fmt::format(
      "<text class=\"label\" x=\"14\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {0})\">{1}</text>\n",
      Coord(kTop + kPlotHeight / 2), HtmlEscape(options.y_label));
  if (!any_point) {
    out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">no data</text>\n",
                       Coord(kLeft + kPlotWidth / 2), Coord(kTop + kPlotHeight / 2));
  }
  for (const auto& s : series) {
    const Points vertices = Vertices(s, options, x_max);
    if (vertices.empty()) continue;
    out += fmt::format("<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"", s.color);
    for (size_t i = 0; i < vertices.size(); ++i) {
      if (i > 0) out += ' ';
      out += Coord(px(vertices[i].first));
      out += ',';
      out += Coord(py(std::min(vertices[i].second, y_max)));
    }
    out += "\"><title>";
    out += HtmlEscape(s.label);
    out += "</title></polyline>\n";
  }
  out += "</svg>\n";
  return out;
}

}  // namespace kueuesim::report
