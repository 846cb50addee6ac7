// The HTML report; see html_report.h.
#include "kueuesim/report/html_report.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "svg_chart.h"

namespace kueuesim::report {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};

constexpr const char* kStyle = R"(body{font-family:sans-serif;margin:24px;color:#222;background:#fafafa}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#eee}
td.name,th.name{text-align:left}
.swatch-box{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:middle}
.charts{display:flex;flex-wrap:wrap;gap:12px}
figure{margin:0;border:1px solid #ddd;background:#fff}
svg.chart text{font-family:sans-serif}
svg.chart .title{font-size:13px;font-weight:bold}
svg.chart .legend,svg.chart .tick,svg.chart .label{font-size:11px;fill:#333}
svg.chart .grid{stroke:#e5e5e5;stroke-width:1}
svg.chart .axis{stroke:#333;stroke-width:1}
p.note{color:#666;font-size:13px}
)";

std::string Seconds(double seconds) {
  if (seconds < 120) return fmt::format("{:.6g} s", seconds);
  if (seconds < 7200) return fmt::format("{:.4g} min", seconds / 60);
  if (seconds < 172800) return fmt::format("{:.4g} h", seconds / 3600);
  return fmt::format("{:.4g} d", seconds / 86400);
}

// "-" for no data.
std::string Seconds(const std::optional<double>& seconds) {
  return seconds.has_value() ? Seconds(*seconds) : std::string("-");
}

std::string QueueName(const std::string& cluster, const std::string& name) {
  return cluster.empty() ? name : cluster + "/" + name;
}

// The value of a step function at time t (0 before its first point).
double ValueAt(const Points& points, double t) {
  auto it = std::upper_bound(points.begin(), points.end(), t,
                             [](double time, const auto& point) { return time < point.first; });
  if (it == points.begin()) return 0;
  return std::prev(it)->second;
}

const Points* Find(const RunData& run, const SeriesKey& key) {
  auto it = run.series.find(key);
  return it == run.series.end() ? nullptr : &it->second;
}

// Usage as a percentage of the quota at the same instant.
Points Utilization(const Points& usage, const Points& quota) {
  std::set<double> times;
  for (const auto& p : usage) times.insert(p.first);
  for (const auto& p : quota) times.insert(p.first);
  Points out;
  for (double t : times) {
    const double q = ValueAt(quota, t);
    out.emplace_back(t, q > 0 ? ValueAt(usage, t) / q * 100.0 : 0.0);
  }
  return out;
}

// Distinct series keys with `metric` and `scope` over all runs, with the
// metric blanked (so keys of other metrics can be derived).
std::vector<SeriesKey> KeysOf(const std::vector<RunData>& runs, const std::string& scope, const std::string& metric) {
  std::set<SeriesKey> keys;
  for (const auto& run : runs) {
    for (const auto& [key, points] : run.series) {
      if (key.scope == scope && key.metric == metric) keys.insert(key);
    }
  }
  return {keys.begin(), keys.end()};
}

void Section(std::string* out, const std::string& title, const std::string& note) {
  *out += "<h2>" + HtmlEscape(title) + "</h2>\n";
  if (!note.empty()) *out += "<p class=\"note\">" + HtmlEscape(note) + "</p>\n";
}

void Figure(std::string* out, const ChartOptions& options, const std::vector<ChartSeries>& series) {
  *out += "<figure>\n" + RenderLineChart(options, series) + "</figure>\n";
}

double EndTime(const std::vector<RunData>& runs) {
  double end = 0;
  for (const auto& run : runs) end = std::max(end, run.end_time);
  return end;
}

void RunsTable(std::string* out, const std::vector<RunData>& runs) {
  *out += "<table class=\"runs\"><tr><th class=\"name\">run</th><th class=\"name\">directory</th><th>simulated</th>"
          "<th>events</th><th>admitted</th><th>finished</th><th>pending</th><th>preempted</th></tr>\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunData& run = runs[i];
    int64_t admitted = 0, finished = 0, pending = 0, preempted = 0;
    for (const auto& q : run.queues) {
      admitted += q.admitted;
      finished += q.finished;
      pending += q.pending;
      preempted += q.preempted;
    }
    *out += fmt::format(
        "<tr><td class=\"name\"><span class=\"swatch-box\" style=\"background:{}\"></span>{}</td>"
        "<td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        RunColor(i), HtmlEscape(run.label), HtmlEscape(run.directory), Seconds(run.end_time), run.events, admitted,
        finished, pending, preempted);
  }
  *out += "</table>\n";
}

void QueueTable(std::string* out, const std::vector<RunData>& runs) {
  std::set<std::pair<std::string, std::string>> names;
  for (const auto& run : runs) {
    for (const auto& q : run.queues) names.emplace(q.cluster, q.name);
  }
  *out += "<table class=\"queues\"><tr><th class=\"name\">ClusterQueue</th><th class=\"name\">run</th>"
          "<th>admitted</th><th>finished</th><th>pending</th><th>preempted</th><th>wait p50</th>"
          "<th>wait p90</th></tr>\n";
  for (const auto& [cluster, name] : names) {
    for (size_t i = 0; i < runs.size(); ++i) {
      for (const auto& q : runs[i].queues) {
        if (q.cluster != cluster || q.name != name) continue;
        *out += fmt::format(
            "<tr><td class=\"name\">{}</td><td class=\"name\"><span class=\"swatch-box\" style=\"background:{}\">"
            "</span>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            HtmlEscape(QueueName(cluster, name)), RunColor(i), HtmlEscape(runs[i].label), q.admitted, q.finished,
            q.pending, q.preempted, Seconds(q.wait_p50), Seconds(q.wait_p90));
      }
    }
  }
  *out += "</table>\n";
}

void UtilizationCharts(std::string* out, const std::vector<RunData>& runs) {
  Section(out, "Utilization over time",
          "Usage of each ClusterQueue as a percentage of its nominal quota, by flavor and resource "
          "(above 100% it borrows).");
  *out += "<div class=\"charts\">\n";
  const double end = EndTime(runs);
  for (SeriesKey key : KeysOf(runs, "ClusterQueue", "usage")) {
    std::vector<ChartSeries> series;
    bool has_quota = false;
    for (size_t i = 0; i < runs.size(); ++i) {
      SeriesKey quota_key = key;
      quota_key.metric = "quota";
      const Points* usage = Find(runs[i], key);
      const Points* quota = Find(runs[i], quota_key);
      if (usage == nullptr) continue;
      if (quota != nullptr) {
        for (const auto& p : *quota) has_quota = has_quota || p.second > 0;
      }
      series.push_back({runs[i].label, RunColor(i), quota != nullptr ? Utilization(*usage, *quota) : Points{}});
    }
    if (!has_quota) continue;  // no nominal quota: see the usage charts below
    ChartOptions options;
    options.title = fmt::format("{} {} {}", QueueName(key.cluster, key.name), key.flavor, key.resource);
    options.x_label = "simulated time";
    options.y_label = "% of nominal quota";
    options.x_end = end;
    Figure(out, options, series);
  }
  *out += "</div>\n";
}

void CohortUsageCharts(std::string* out, const std::vector<RunData>& runs) {
  const auto keys = KeysOf(runs, "Cohort", "usage");
  if (keys.empty()) return;
  Section(out, "Cohort usage over time", "Usage summed over each cohort's subtree, in resource units.");
  *out += "<div class=\"charts\">\n";
  const double end = EndTime(runs);
  for (const SeriesKey& key : keys) {
    std::vector<ChartSeries> series;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (const Points* usage = Find(runs[i], key)) series.push_back({runs[i].label, RunColor(i), *usage});
    }
    ChartOptions options;
    options.title = fmt::format("cohort {} {} {}", QueueName(key.cluster, key.name), key.flavor, key.resource);
    options.x_label = "simulated time";
    options.y_label = key.resource;
    options.x_end = end;
    Figure(out, options, series);
  }
  *out += "</div>\n";
}

void PendingCharts(std::string* out, const std::vector<RunData>& runs) {
  Section(out, "Queue lengths over time", "Workloads waiting for quota in each ClusterQueue.");
  *out += "<div class=\"charts\">\n";
  const double end = EndTime(runs);
  for (const SeriesKey& key : KeysOf(runs, "ClusterQueue", "pending")) {
    std::vector<ChartSeries> series;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (const Points* pending = Find(runs[i], key)) series.push_back({runs[i].label, RunColor(i), *pending});
    }
    ChartOptions options;
    options.title = "pending in " + QueueName(key.cluster, key.name);
    options.x_label = "simulated time";
    options.y_label = "workloads";
    options.x_end = end;
    Figure(out, options, series);
  }
  *out += "</div>\n";
}

void WaitCharts(std::string* out, const std::vector<RunData>& runs) {
  Section(out, "Wait-time distribution",
          "Cumulative share of admitted workloads by wait (arrival to first quota reservation), per ClusterQueue.");
  std::set<std::string> queues;
  for (const auto& run : runs) {
    for (const auto& [queue, waits] : run.waits) queues.insert(queue);
  }
  *out += "<div class=\"charts\">\n";
  for (const std::string& queue : queues) {
    std::vector<ChartSeries> series;
    for (size_t i = 0; i < runs.size(); ++i) {
      auto it = runs[i].waits.find(queue);
      if (it == runs[i].waits.end() || it->second.empty()) continue;
      const std::vector<double>& waits = it->second;
      Points cdf;
      cdf.emplace_back(0, 0);
      for (size_t k = 0; k < waits.size(); ++k) {
        const double share = static_cast<double>(k + 1) / static_cast<double>(waits.size()) * 100.0;
        if (!cdf.empty() && cdf.back().first == waits[k]) {
          cdf.back().second = share;
        } else {
          cdf.emplace_back(waits[k], share);
        }
      }
      series.push_back({runs[i].label, RunColor(i), std::move(cdf)});
    }
    ChartOptions options;
    options.title = "wait CDF in " + queue;
    options.x_label = "wait";
    options.y_label = "% of admitted workloads";
    options.y_max = 100;
    Figure(out, options, series);
  }
  *out += "</div>\n";
}

void PreemptionChart(std::string* out, const std::vector<RunData>& runs) {
  Section(out, "Preemptions over time", "Cumulative number of preemptions.");
  std::vector<ChartSeries> series;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].has_events) continue;
    Points cumulative;
    cumulative.emplace_back(0, 0);
    for (size_t k = 0; k < runs[i].preemptions.size(); ++k) {
      const double t = runs[i].preemptions[k];
      if (cumulative.back().first == t) {
        cumulative.back().second = static_cast<double>(k + 1);
      } else {
        cumulative.emplace_back(t, static_cast<double>(k + 1));
      }
    }
    series.push_back({runs[i].label, RunColor(i), std::move(cumulative)});
  }
  ChartOptions options;
  options.title = "preemptions";
  options.x_label = "simulated time";
  options.y_label = "preemptions so far";
  options.x_end = EndTime(runs);
  *out += "<div class=\"charts\">\n";
  Figure(out, options, series);
  *out += "</div>\n";
}

void ShareCharts(std::string* out, const std::vector<RunData>& runs) {
  std::vector<SeriesKey> keys = KeysOf(runs, "ClusterQueue", "share");
  const auto cohorts = KeysOf(runs, "Cohort", "share");
  keys.insert(keys.end(), cohorts.begin(), cohorts.end());
  if (keys.empty()) return;
  Section(out, "Fair sharing: weighted shares",
          "Kueue's status.fairSharing.weightedShare of each ClusterQueue and cohort over time.");
  *out += "<div class=\"charts\">\n";
  const double end = EndTime(runs);
  for (const SeriesKey& key : keys) {
    std::vector<ChartSeries> series;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (const Points* share = Find(runs[i], key)) series.push_back({runs[i].label, RunColor(i), *share});
    }
    ChartOptions options;
    options.title = fmt::format("{} {}", key.scope == "Cohort" ? "cohort" : "ClusterQueue",
                                QueueName(key.cluster, key.name));
    options.x_label = "simulated time";
    options.y_label = "weighted share";
    options.x_end = end;
    Figure(out, options, series);
  }
  *out += "</div>\n";
}

}  // namespace

const char* RunColor(size_t index) { return kPalette[index % (sizeof(kPalette) / sizeof(kPalette[0]))]; }

std::string RenderHtmlReport(const std::vector<RunData>& runs) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kueuesim report";
  for (size_t i = 0; i < runs.size(); ++i) out += (i == 0 ? ": " : ", ") + HtmlEscape(runs[i].label);
  out += "</title>\n<style>\n";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n<h1>kueuesim report</h1>\n";
  Section(&out, "Runs", "");
  RunsTable(&out, runs);
  Section(&out, "ClusterQueues", "");
  QueueTable(&out, runs);
  bool timeseries = false;
  bool events = false;
  for (const auto& run : runs) {
    timeseries = timeseries || run.has_timeseries;
    events = events || run.has_events;
  }
  if (timeseries) {
    UtilizationCharts(&out, runs);
    CohortUsageCharts(&out, runs);
    PendingCharts(&out, runs);
    ShareCharts(&out, runs);
  } else {
    out += "<p class=\"note\">No timeseries.jsonl in the run directories: no charts over time.</p>\n";
  }
  if (events) {
    WaitCharts(&out, runs);
    PreemptionChart(&out, runs);
  } else {
    out += "<p class=\"note\">No events.jsonl in the run directories: no wait distributions or preemptions.</p>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace kueuesim::report
