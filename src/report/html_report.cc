// The HTML report; see html_report.h.
//
// The page is built in C++ as static HTML (tables, legends, one <figure>
// per chart with data attributes) plus one JSON document with every
// chart's series; a small script of ours turns each into a dygraphs chart
// when the page loads. Step data are drawn as steps (dygraphs' stepPlot)
// from the values the run recorded, with the value before a series' first
// sample stated explicitly (0 for counts and usage, none for shares), so
// no chart draws a ramp that did not happen.
#include "kueuesim/report/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "absl/status/status.h"

#ifndef KUEUESIM_DYGRAPHS_DIR
#define KUEUESIM_DYGRAPHS_DIR "/usr/share/javascript/dygraphs"
#endif

namespace kueuesim::report {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};
// Run i's dash: runs with identical values stay visible one over another.
constexpr const char* kDashes[] = {"", "7,4", "2,3", "10,3,2,3", "4,4", "12,4", "1,2", "6,2,2,2"};

constexpr const char* kStyle = R"(body{font-family:sans-serif;margin:24px;color:#222;background:#fafafa}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}h3{font-size:15px;margin-top:20px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#eee}
td.name,th.name{text-align:left}
nav.toc{font-size:13px;background:#fff;border:1px solid #ddd;padding:6px 14px;display:inline-block}
nav.toc ul{margin:2px 0;padding-left:18px}nav.toc li.toc-3{margin-left:18px}
.swatch-box{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:middle}
.charts{display:flex;flex-wrap:wrap;gap:12px}
figure.chart{margin:0;border:1px solid #ddd;background:#fff;width:600px;padding:6px}
figure.chart figcaption{font-size:13px;font-weight:bold;margin-bottom:4px}
figure.chart .plot{width:590px;height:260px}
figure.chart .values{font-size:12px;min-height:16px;color:#333}
figure.chart ul.legend{list-style:none;margin:4px 0 0;padding:0;font-size:12px}
figure.chart ul.legend li{display:inline-block;margin-right:14px}
figure.chart ul.legend svg{vertical-align:middle;margin-right:4px}
figure.chart .empty{height:80px;display:flex;align-items:center;justify-content:center;color:#666;font-size:13px}
p.note,figure.chart p.note{color:#666;font-size:13px;margin:4px 0}
#ks-errors{color:#b00;white-space:pre-wrap}
)";

// Runs before anything else: every script error and console.error lands
// in #ks-errors and body[data-errors], where the render test reads them.
constexpr const char* kErrorHook = R"(window.ksErrors=[];
window.ksError=function(m){window.ksErrors.push(String(m));var e=document.getElementById('ks-errors');
if(e)e.textContent=window.ksErrors.join('\n');if(document.body)document.body.setAttribute('data-errors',String(window.ksErrors.length));};
window.addEventListener('error',function(ev){window.ksError('error: '+ev.message);});
(function(){var c=console.error;console.error=function(){window.ksError(Array.prototype.join.call(arguments,' '));c.apply(console,arguments);};})();
)";

// Builds the charts from #ks-data. Each figure gets data-rendered="true"
// (and, for wait distributions, data-p90: each run's 90th percentile read
// off the plotted CDF); body gets data-charts (charts drawn) and
// data-render-ms.
constexpr const char* kApp = R"((function(){
'use strict';
var t0=performance.now();
var doc=JSON.parse(document.getElementById('ks-data').textContent);
var start=doc.startTime;
function esc(s){return String(s).replace(/&/g,'&amp;').replace(/</g,'&lt;').replace(/>/g,'&gt;');}
function num(v){if(v===null||v===undefined)return 'no data';var a=Math.abs(v);
 if(a!==0&&(a>=1e7||a<1e-3))return v.toExponential(4);return String(Math.round(v*1000)/1000);}
function dur(s){var a=Math.abs(s);if(a<120)return num(s)+' s';if(a<7200)return num(s/60)+' min';
 if(a<172800)return num(s/3600)+' h';return num(s/86400)+' d';}
function wall(ms){return new Date(ms).toISOString().replace('T',' ').replace(/\.000Z$/,'Z').replace(/Z$/,' UTC');}
var drawn=0;
doc.charts.forEach(function(c){
 var fig=document.getElementById(c.id);
 if(!fig)throw new Error('no figure '+c.id);
 var live=c.series.filter(function(s){return s.points!==null&&s.points.length>0;});
 if(live.length===0){fig.setAttribute('data-rendered','empty');return;}
 var xs={};
 c.series.forEach(function(s){if(s.points===null)return;s.points.forEach(function(p){xs[p[0]]=1;});if(s.end!==null)xs[s.end]=1;});
 var xv=Object.keys(xs).map(Number).sort(function(a,b){return a-b;});
 if(c.xMin!==null&&xv[0]>c.xMin)xv.unshift(c.xMin);
 var cols=c.series.map(function(s){
  var out=new Array(xv.length),k=-1,pts=s.points||[];
  for(var i=0;i<xv.length;i++){
   var x=xv[i];
   while(k+1<pts.length&&pts[k+1][0]<=x)k++;
   if(s.points===null)out[i]=null;
   else if(s.end!==null&&x>s.end)out[i]=null;
   else if(k<0)out[i]=s.before;
   else out[i]=pts[k][1];
  }
  return out;});
 var wallAxis=c.x==='time'&&start!==null;
 var rows=new Array(xv.length);
 for(var i=0;i<xv.length;i++){
  var r=new Array(cols.length+1);
  r[0]=wallAxis?new Date((start+xv[i])*1000):xv[i];
  for(var j=0;j<cols.length;j++)r[j+1]=cols[j][i];
  rows[i]=r;}
 var used={};
 var names=c.series.map(function(s,i){var n=esc(s.label);if(used[n])n+=' #'+(i+1);used[n]=1;return n;});
 var labels=[c.x==='wait'?'wait':'time'].concat(names);
 var series={};
 c.series.forEach(function(s,i){series[names[i]]={strokePattern:s.dash.length?s.dash:null,
  strokeWidth:s.thin?1:2,drawPoints:!!c.degenerate,pointSize:c.degenerate?5:1};});
 var unit=c.unit;
 var yFmt=function(v){return num(v)+(unit?' '+unit:'');};
 var xFmt;
 if(c.x==='wait')xFmt=function(v){return 'wait '+num(v)+' s ('+dur(v)+')';};
 else if(wallAxis)xFmt=function(ms){var t=ms/1000-start;return wall(ms)+' (t = '+num(t)+' s, '+dur(t)+')';};
 else xFmt=function(v){return 't = '+num(v)+' s ('+dur(v)+')';};
 var opts={labels:labels,colors:c.series.map(function(s){return s.color;}),series:series,
  stepPlot:c.step,labelsUTC:true,legend:'always',labelsDiv:fig.querySelector('.values'),labelsSeparateLines:false,
  connectSeparatedPoints:false,includeZero:true,animatedZooms:false,xlabel:c.xLabel,ylabel:c.yLabel,
  axes:{x:{valueFormatter:xFmt},y:{valueFormatter:yFmt,axisLabelWidth:60}}};
 // Tick labels in one unit per axis, chosen from the visible range.
 if(!wallAxis)opts.axes.x.axisLabelFormatter=function(v,gran,o,gr){var r=gr.xAxisRange(),w=r[1]-r[0];
  var u=w<=600?[1,'s']:w<=36000?[60,'min']:w<=259200?[3600,'h']:[86400,'d'];
  return String(Math.round(v/u[0]*100)/100)+' '+u[1];};
 if(c.yMax!==null)opts.valueRange=[0,c.yMax];
 var g=new Dygraph(fig.querySelector('.plot'),rows,opts);
 fig.ksGraph=g;
 fig.setAttribute('data-rendered','true');
 fig.setAttribute('data-rows',String(rows.length));
 if(c.kind==='wait'){
  fig.setAttribute('data-p90',c.series.map(function(s,i){
   var v='none';(s.points||[]).some(function(p){if(p[1]>=90-1e-9){v=num(p[0]);return true;}return false;});
   return names[i]+'='+v;}).join(';'));}
 drawn++;
});
document.body.setAttribute('data-charts',String(drawn));
document.body.setAttribute('data-render-ms',String(Math.round(performance.now()-t0)));
// file:///report.html#ks-selftest: what the render test reads back from the
// live charts: the step option dygraphs drew with, the legend text under the
// pointer at the middle row (the tooltip), and whether zooming works.
if(location.hash==='#ks-selftest'){
 var zoomed=false;
 Array.prototype.forEach.call(document.querySelectorAll('figure.chart'),function(fig){
  var g=fig.ksGraph;if(!g)return;
  fig.setAttribute('data-step-drawn',String(g.getOption('stepPlot')));
  fig.setAttribute('data-dashes',g.getLabels().slice(1).map(function(l){var p=g.getOption('strokePattern',l);return p?p.join(','):'solid';}).join('|'));
  g.setSelection(Math.floor(g.numRows()/2));
  fig.setAttribute('data-tooltip',fig.querySelector('.values').textContent);
  g.clearSelection();
  if(!zoomed){var r=g.xAxisRange(),w=r[1]-r[0];
   g.updateOptions({dateWindow:[r[0]+w/4,r[1]-w/4]});
   var z=g.xAxisRange();
   fig.setAttribute('data-zoom',String(g.isZoomed('x')&&Math.abs((z[1]-z[0])-w/2)<w*1e-6));
   g.resetZoom();zoomed=true;}
 });
}
})();
)";

std::string Json(const std::string& text) {
  std::string out = nlohmann::json(text).dump();
  // Inside <script>: never close the element.
  std::string safe;
  safe.reserve(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '<' && i + 1 < out.size() && out[i + 1] == '/') {
      safe += "<\\/";
      ++i;
    } else {
      safe += out[i];
    }
  }
  return safe;
}

std::string Num(double value) {
  if (!std::isfinite(value)) return "null";
  if (value == std::floor(value) && std::fabs(value) < 1e15) return fmt::format("{}", static_cast<int64_t>(value));
  return fmt::format("{}", value);
}

std::string QueueName(const std::string& cluster, const std::string& name) {
  return cluster.empty() ? name : cluster + "/" + name;
}

std::string Slug(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += ok ? c : '-';
  }
  return out;
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

// A time unit for a table column: the one that suits its largest value.
struct TimeUnit {
  const char* name;
  double seconds;
};

TimeUnit UnitFor(double largest) {
  if (largest < 120) return {"s", 1};
  if (largest < 7200) return {"min", 60};
  if (largest < 172800) return {"h", 3600};
  return {"d", 86400};
}

std::string InUnit(double seconds, const TimeUnit& unit) {
  return fmt::format("{:.2f}", seconds / unit.seconds);
}

struct ChartSeries {
  std::string label;
  size_t run = 0;
  bool thin = false;              // a capacity line
  std::optional<Points> points;   // nullopt: the run has no such series
  std::optional<double> end;      // the series stops here (the run's end)
  std::optional<double> before;   // value before the first point; nullopt: none
};

struct Chart {
  std::string kind;  // utilization | borrowed | cohort | pending | share | wait | preemptions | copies | lws
  std::string title;
  std::string x = "time";  // time | wait
  std::string x_label;
  std::string y_label;
  std::string unit;
  bool step = true;
  bool degenerate = false;
  std::optional<double> y_max;
  std::optional<double> x_min;
  std::string note;
  std::vector<ChartSeries> series;
};

class Page {
 public:

  void Heading(int level, const std::string& title, const std::string& note = "") {
    const std::string id = fmt::format("sec-{}-{}", toc_.size() + 1, Slug(title));
    toc_.emplace_back(level, id, title);
    body_ += fmt::format("<h{0} id=\"{1}\">{2}</h{0}>\n", level, id, HtmlEscape(title));
    if (!note.empty()) body_ += "<p class=\"note\">" + HtmlEscape(note) + "</p>\n";
  }
  void Raw(const std::string& html) { body_ += html; }
  void OpenCharts() { body_ += "<div class=\"charts\">\n"; }
  void CloseCharts() { body_ += "</div>\n"; }

  void Add(Chart chart) {
    // Time axes start at simulated time 0 (the value before a series' first
    // sample is drawn from there), so charts of one run line up.
    if (chart.x == "time" && !chart.x_min.has_value()) chart.x_min = 0;
    const std::string id = fmt::format("chart-{}", ++charts_);
    std::string runs;
    for (const auto& s : chart.series) {
      if (s.thin) continue;
      runs += (runs.empty() ? "" : "|") + s.label;
    }
    body_ += fmt::format(
        "<figure class=\"chart\" id=\"{}\" data-kind=\"{}\" data-title=\"{}\" data-runs=\"{}\" data-step=\"{}\" "
        "data-x=\"{}\"{}>\n<figcaption>{}</figcaption>\n",
        id, chart.kind, HtmlEscape(chart.title), HtmlEscape(runs), chart.step ? "true" : "false",
        chart.x == "time" && wall_clock_ ? "wall" : chart.x, chart.degenerate ? " data-degenerate=\"true\"" : "",
        HtmlEscape(chart.title));
    bool any = false;
    for (const auto& s : chart.series) any = any || (s.points.has_value() && !s.points->empty());
    if (any) {
      body_ += "<div class=\"plot\"></div><div class=\"values\"></div>\n";
    } else {
      body_ += "<div class=\"empty\">no data in any run</div>\n";
    }
    body_ += "<ul class=\"legend\">";
    for (const auto& s : chart.series) {
      const bool none = !s.points.has_value() || s.points->empty();
      body_ += fmt::format(
          "<li data-run=\"{}\"><svg width=\"30\" height=\"8\"><line x1=\"0\" y1=\"4\" x2=\"30\" y2=\"4\" "
          "stroke=\"{}\" stroke-width=\"{}\"{}/></svg>{}{}</li>",
          s.run, RunColor(s.run), s.thin ? 1 : 2,
          *RunDash(s.run) != '\0' ? fmt::format(" stroke-dasharray=\"{}\"", RunDash(s.run)) : std::string(),
          HtmlEscape(s.label), none ? " (no data)" : "");
    }
    body_ += "</ul>\n";
    if (!chart.note.empty()) body_ += "<p class=\"note\">" + HtmlEscape(chart.note) + "</p>\n";
    body_ += "</figure>\n";
    // The chart's data.
    std::string json = fmt::format(
        "{{\"id\":{},\"kind\":{},\"x\":{},\"xLabel\":{},\"yLabel\":{},\"unit\":{},\"step\":{},\"degenerate\":{},"
        "\"yMax\":{},\"xMin\":{},\"series\":[",
        Json(id), Json(chart.kind), Json(chart.x), Json(chart.x_label), Json(chart.y_label), Json(chart.unit),
        chart.step ? "true" : "false", chart.degenerate ? "true" : "false",
        chart.y_max.has_value() ? Num(*chart.y_max) : "null", chart.x_min.has_value() ? Num(*chart.x_min) : "null");
    for (size_t i = 0; i < chart.series.size(); ++i) {
      const ChartSeries& s = chart.series[i];
      std::string dash = RunDash(s.run);
      json += fmt::format("{}{{\"label\":{},\"color\":{},\"dash\":[{}],\"thin\":{},\"end\":{},\"before\":{},\"points\":",
                          i == 0 ? "" : ",", Json(s.label), Json(RunColor(s.run)), dash, s.thin ? "true" : "false",
                          s.end.has_value() ? Num(*s.end) : "null", s.before.has_value() ? Num(*s.before) : "null");
      if (!s.points.has_value()) {
        json += "null}";
        continue;
      }
      json += "[";
      for (size_t k = 0; k < s.points->size(); ++k) {
        json += fmt::format("{}[{},{}]", k == 0 ? "" : ",", Num((*s.points)[k].first), Num((*s.points)[k].second));
      }
      json += "]}";
    }
    json += "]}";
    chart_json_.push_back(std::move(json));
  }

  void set_wall_clock(std::optional<double> start) { start_ = start; wall_clock_ = start.has_value(); }
  int charts() const { return charts_; }

  // A flat list, indented by heading level.
  std::string Toc() const {
    std::string out = "<nav class=\"toc\" id=\"toc\"><strong>Contents</strong>\n<ul>\n";
    for (const auto& [level, id, title] : toc_) {
      out += fmt::format("<li class=\"toc-{}\"><a href=\"#{}\">{}</a></li>\n", level, id, HtmlEscape(title));
    }
    return out + "</ul></nav>\n";
  }

  std::string Data() const {
    std::string out = "{\"startTime\":";
    out += start_.has_value() ? Num(*start_) : "null";
    out += ",\"charts\":[\n";
    for (size_t i = 0; i < chart_json_.size(); ++i) out += (i == 0 ? "" : ",\n") + chart_json_[i];
    out += "\n]}";
    return out;
  }

  const std::string& body() const { return body_; }

 private:
  std::string body_;
  std::vector<std::tuple<int, std::string, std::string>> toc_;
  std::vector<std::string> chart_json_;
  std::optional<double> start_;
  bool wall_clock_ = false;
  int charts_ = 0;
};

const QueueFigures* FindQueue(const RunData& run, const std::string& cluster, const std::string& name) {
  for (const auto& q : run.queues) {
    if (q.cluster == cluster && q.name == name) return &q;
  }
  return nullptr;
}

// One series per run of a step metric of ClusterQueue `queue`: the run's
// series, zeros when the run has the ClusterQueue but never recorded the
// metric (it stayed 0), no data when the run lacks the ClusterQueue or
// time series.
std::vector<ChartSeries> StepSeries(const std::vector<RunData>& runs, const SeriesKey& key, bool queue_scope,
                                    std::optional<double> before) {
  std::vector<ChartSeries> out;
  for (size_t i = 0; i < runs.size(); ++i) {
    ChartSeries s;
    s.label = runs[i].label;
    s.run = i;
    s.end = runs[i].end_time;
    s.before = before;
    const Points* points = Find(runs[i], key);
    if (points != nullptr) {
      s.points = *points;
    } else if (runs[i].has_timeseries && before.has_value() &&
               (!queue_scope || FindQueue(runs[i], key.cluster, key.name) != nullptr)) {
      s.points = Points{{0, *before}};
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> Clusters(const std::vector<RunData>& runs) {
  std::set<std::string> names;
  for (const auto& run : runs) {
    for (const auto& q : run.queues) names.insert(q.cluster);
    for (const auto& [key, points] : run.series) names.insert(key.cluster);
  }
  return {names.begin(), names.end()};
}

// ClusterQueue names of `cluster` over all runs (summaries and series).
std::vector<std::string> QueuesOf(const std::vector<RunData>& runs, const std::string& cluster) {
  std::set<std::string> names;
  for (const auto& run : runs) {
    for (const auto& q : run.queues) {
      if (q.cluster == cluster) names.insert(q.name);
    }
    for (const auto& [key, points] : run.series) {
      if (key.cluster == cluster && key.scope == "ClusterQueue") names.insert(key.name);
    }
  }
  return {names.begin(), names.end()};
}

// (flavor, resource) pairs of a ClusterQueue with nominal quota in some run.
std::set<std::pair<std::string, std::string>> QuotaResources(const std::vector<RunData>& runs,
                                                              const std::string& cluster, const std::string& name) {
  std::set<std::pair<std::string, std::string>> out;
  for (const auto& run : runs) {
    if (const QueueFigures* q = FindQueue(run, cluster, name)) {
      for (const auto& r : q->resources) {
        if (r.utilization >= 0) out.emplace(r.flavor, r.resource);
      }
    }
    for (const auto& [key, points] : run.series) {
      if (key.cluster != cluster || key.scope != "ClusterQueue" || key.name != name || key.metric != "quota") continue;
      for (const auto& p : points) {
        if (p.second > 0) {
          out.emplace(key.flavor, key.resource);
          break;
        }
      }
    }
  }
  return out;
}

bool InCohort(const std::vector<RunData>& runs, const std::string& cluster, const std::string& name) {
  for (const auto& run : runs) {
    if (const QueueFigures* q = FindQueue(run, cluster, name); q != nullptr && !q->cohort.empty()) return true;
  }
  return false;
}

std::string ResourceUnit(const std::string& resource) {
  if (resource == "cpu") return "cores";
  if (resource == "memory" || resource == "ephemeral-storage") return "bytes";
  return resource;
}

void RunsTable(Page* page, const std::vector<RunData>& runs) {
  double longest = 0;
  for (const auto& run : runs) longest = std::max(longest, run.end_time);
  const TimeUnit unit = UnitFor(longest);
  std::string out = fmt::format(
      "<table class=\"runs\"><tr><th class=\"name\">run</th><th class=\"name\">directory</th>"
      "<th class=\"name\">startTime</th><th>simulated ({})</th><th>events</th><th>admitted</th><th>finished</th>"
      "<th>pending</th><th>preempted</th></tr>\n",
      unit.name);
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunData& run = runs[i];
    int64_t admitted = 0, finished = 0, pending = 0, preempted = 0;
    for (const auto& q : run.queues) {
      admitted += q.admitted;
      finished += q.finished;
      pending += q.pending;
      preempted += q.preempted;
    }
    out += fmt::format(
        "<tr><td class=\"name\"><span class=\"swatch-box\" style=\"background:{}\"></span>{}</td>"
        "<td class=\"name\">{}</td><td class=\"name\">{}</td><td data-seconds=\"{}\">{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
        RunColor(i), HtmlEscape(run.label), HtmlEscape(run.directory),
        run.start_time.has_value() ? HtmlEscape(run.start_time_text) : std::string("-"), Num(run.end_time),
        InUnit(run.end_time, unit), run.events, admitted, finished, pending, preempted);
  }
  page->Raw(out + "</table>\n");
}

void QueueTable(Page* page, const std::vector<RunData>& runs) {
  std::set<std::pair<std::string, std::string>> names;
  double p50_max = 0, p90_max = 0;
  for (const auto& run : runs) {
    for (const auto& q : run.queues) {
      names.emplace(q.cluster, q.name);
      p50_max = std::max(p50_max, q.wait_p50.value_or(0));
      p90_max = std::max(p90_max, q.wait_p90.value_or(0));
    }
  }
  const TimeUnit p50_unit = UnitFor(p50_max);
  const TimeUnit p90_unit = UnitFor(p90_max);
  std::string out = fmt::format(
      "<table class=\"queues\"><tr><th class=\"name\">ClusterQueue</th><th class=\"name\">cohort</th>"
      "<th class=\"name\">run</th><th>admitted</th><th>finished</th><th>pending</th><th>preempted</th>"
      "<th>wait p50 ({})</th><th>wait p90 ({})</th></tr>\n",
      p50_unit.name, p90_unit.name);
  auto cell = [](const std::optional<double>& seconds, const TimeUnit& unit) {
    // "-": no data (nothing admitted), never a wait of 0.
    if (!seconds.has_value()) return std::string("<td data-seconds=\"\">-</td>");
    return fmt::format("<td data-seconds=\"{}\">{}</td>", Num(*seconds), InUnit(*seconds, unit));
  };
  for (const auto& [cluster, name] : names) {
    for (size_t i = 0; i < runs.size(); ++i) {
      const QueueFigures* q = FindQueue(runs[i], cluster, name);
      if (q == nullptr) {
        out += fmt::format(
            "<tr><td class=\"name\">{}</td><td class=\"name\"></td><td class=\"name\"><span class=\"swatch-box\" "
            "style=\"background:{}\"></span>{}</td><td colspan=\"6\" class=\"name\">not in this run</td></tr>\n",
            HtmlEscape(QueueName(cluster, name)), RunColor(i), HtmlEscape(runs[i].label));
        continue;
      }
      out += fmt::format(
          "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"name\"><span class=\"swatch-box\" "
          "style=\"background:{}\"></span>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}{}</tr>\n",
          HtmlEscape(QueueName(cluster, name)), HtmlEscape(q->cohort), RunColor(i), HtmlEscape(runs[i].label),
          q->admitted, q->finished, q->pending, q->preempted, cell(q->wait_p50, p50_unit), cell(q->wait_p90, p90_unit));
    }
  }
  page->Raw(out + "</table>\n");
}

void PendingReasonTable(Page* page, const std::vector<RunData>& runs) {
  std::set<std::string> reasons;
  for (const auto& run : runs) {
    for (const auto& q : run.queues) {
      for (const auto& [reason, count] : q.pending_by_reason) reasons.insert(reason);
    }
  }
  if (reasons.empty()) return;
  page->Heading(2, "Pending workloads by reason",
                "Workloads without quota at the end of the run, by the reason of their QuotaReserved=False "
                "condition, per ClusterQueue (over time: the pending charts per ClusterQueue).");
  std::string out = "<table class=\"pending-reasons\"><tr><th class=\"name\">ClusterQueue</th><th class=\"name\">run</th>";
  for (const auto& reason : reasons) out += "<th>" + HtmlEscape(reason) + "</th>";
  out += "</tr>\n";
  std::set<std::pair<std::string, std::string>> names;
  for (const auto& run : runs) {
    for (const auto& q : run.queues) names.emplace(q.cluster, q.name);
  }
  for (const auto& [cluster, name] : names) {
    for (size_t i = 0; i < runs.size(); ++i) {
      const QueueFigures* q = FindQueue(runs[i], cluster, name);
      if (q == nullptr || q->pending_by_reason.empty()) continue;
      out += fmt::format("<tr><td class=\"name\">{}</td><td class=\"name\"><span class=\"swatch-box\" "
                         "style=\"background:{}\"></span>{}</td>",
                         HtmlEscape(QueueName(cluster, name)), RunColor(i), HtmlEscape(runs[i].label));
      for (const auto& reason : reasons) {
        auto it = q->pending_by_reason.find(reason);
        out += fmt::format("<td>{}</td>", it == q->pending_by_reason.end() ? 0 : it->second);
      }
      out += "</tr>\n";
    }
  }
  page->Raw(out + "</table>\n");
}

void ClusterCharts(Page* page, const std::vector<RunData>& runs, const std::string& cluster, int level) {
  const std::vector<std::string> queues = QueuesOf(runs, cluster);
  bool timeseries = false, events = false;
  for (const auto& run : runs) {
    timeseries = timeseries || run.has_timeseries;
    events = events || run.has_events;
  }
  if (timeseries) {
    page->Heading(level, "Utilization over time",
                  "Usage of each ClusterQueue as a percentage of its nominal quota at that instant, by flavor and "
                  "resource (above 100% it borrows).");
    page->OpenCharts();
    for (const std::string& name : queues) {
      for (const auto& [flavor, resource] : QuotaResources(runs, cluster, name)) {
        Chart chart;
        chart.kind = "utilization";
        chart.title = fmt::format("{} {} {}", QueueName(cluster, name), flavor, resource);
        chart.y_label = "% of nominal quota";
        chart.unit = "%";
        for (size_t i = 0; i < runs.size(); ++i) {
          ChartSeries s;
          s.label = runs[i].label;
          s.run = i;
          s.end = runs[i].end_time;
          s.before = 0;
          const Points* usage = Find(runs[i], {cluster, "ClusterQueue", name, "usage", flavor, resource});
          const Points* quota = Find(runs[i], {cluster, "ClusterQueue", name, "quota", flavor, resource});
          if (quota != nullptr) s.points = Utilization(usage != nullptr ? *usage : Points{}, *quota);
          chart.series.push_back(std::move(s));
        }
        page->Add(chart);
      }
    }
    page->CloseCharts();

    std::vector<Chart> borrowed;
    for (const std::string& name : queues) {
      if (!InCohort(runs, cluster, name)) continue;
      for (const auto& [flavor, resource] : QuotaResources(runs, cluster, name)) {
        Chart chart;
        chart.kind = "borrowed";
        chart.title = fmt::format("borrowed by {} {} {}", QueueName(cluster, name), flavor, resource);
        chart.y_label = ResourceUnit(resource);
        chart.unit = ResourceUnit(resource);
        chart.series = StepSeries(runs, {cluster, "ClusterQueue", name, "borrowing", flavor, resource}, true, 0.0);
        borrowed.push_back(std::move(chart));
      }
    }
    if (!borrowed.empty()) {
      page->Heading(level, "Borrowed quota over time",
                    "Usage above the nominal quota of each ClusterQueue in a cohort (max(0, usage - nominal quota)), "
                    "in resource units.");
      page->OpenCharts();
      for (const Chart& chart : borrowed) page->Add(chart);
      page->CloseCharts();
    }

    std::set<std::tuple<std::string, std::string, std::string>> cohort_keys;
    for (const auto& run : runs) {
      for (const auto& [key, points] : run.series) {
        if (key.cluster == cluster && key.scope == "Cohort" && (key.metric == "usage" || key.metric == "quota")) {
          cohort_keys.emplace(key.name, key.flavor, key.resource);
        }
      }
    }
    if (!cohort_keys.empty()) {
      page->Heading(level, "Cohort usage against capacity",
                    "Usage summed over each cohort's subtree (thick) and the cohort's capacity: its own quota plus "
                    "what its members lend it (thin), in resource units.");
      page->OpenCharts();
      for (const auto& [name, flavor, resource] : cohort_keys) {
        Chart chart;
        chart.kind = "cohort";
        chart.title = fmt::format("cohort {} {} {}", QueueName(cluster, name), flavor, resource);
        chart.y_label = ResourceUnit(resource);
        chart.unit = ResourceUnit(resource);
        auto usage = StepSeries(runs, {cluster, "Cohort", name, "usage", flavor, resource}, false, 0.0);
        auto capacity = StepSeries(runs, {cluster, "Cohort", name, "quota", flavor, resource}, false, 0.0);
        for (size_t i = 0; i < runs.size(); ++i) {
          chart.series.push_back(std::move(usage[i]));
          capacity[i].label = "capacity " + runs[i].label;
          capacity[i].thin = true;
          chart.series.push_back(std::move(capacity[i]));
        }
        page->Add(chart);
      }
      page->CloseCharts();
    }

    page->Heading(level, "Pending workloads over time",
                  "Workloads waiting for quota in each ClusterQueue (every ClusterQueue, idle ones included).");
    page->OpenCharts();
    for (const std::string& name : queues) {
      Chart chart;
      chart.kind = "pending";
      chart.title = "pending in " + QueueName(cluster, name);
      chart.y_label = "workloads";
      chart.unit = "workloads";
      chart.series = StepSeries(runs, {cluster, "ClusterQueue", name, "pending", "", ""}, true, 0.0);
      page->Add(chart);
    }
    page->CloseCharts();

    std::set<std::pair<std::string, std::string>> shares;
    for (const auto& run : runs) {
      for (const auto& [key, points] : run.series) {
        if (key.cluster == cluster && key.metric == "share") shares.emplace(key.scope, key.name);
      }
    }
    if (!shares.empty()) {
      page->Heading(level, "Fair sharing: weighted shares",
                    "Kueue's status.fairSharing.weightedShare of each ClusterQueue and cohort over time (from its "
                    "first recorded value on).");
      page->OpenCharts();
      for (const auto& [scope, name] : shares) {
        Chart chart;
        chart.kind = "share";
        chart.title = fmt::format("{} {}", scope == "Cohort" ? "cohort" : "ClusterQueue", QueueName(cluster, name));
        chart.y_label = "weighted share";
        chart.series = StepSeries(runs, {cluster, scope, name, "share", "", ""}, false, std::nullopt);
        page->Add(chart);
      }
      page->CloseCharts();
    }
  }
  if (events) {
    page->Heading(level, "Wait-time distribution",
                  "Cumulative share of admitted workloads by wait (arrival to first quota reservation), per "
                  "ClusterQueue; a distribution of one value is drawn as points.");
    page->OpenCharts();
    for (const std::string& name : queues) {
      const std::string queue = QueueName(cluster, name);
      Chart chart;
      chart.kind = "wait";
      chart.title = "wait CDF in " + queue;
      chart.x = "wait";
      chart.x_label = "wait";
      chart.y_label = "% of admitted workloads";
      chart.unit = "%";
      chart.y_max = 100;
      chart.x_min = 0;
      std::set<double> distinct;
      double longest = 0;
      for (const auto& run : runs) {
        auto it = run.waits.find(queue);
        if (it == run.waits.end()) continue;
        for (double w : it->second) distinct.insert(w);
        if (!it->second.empty()) longest = std::max(longest, it->second.back());
      }
      // The CDF runs on to the longest wait of any run (at least 1 s), so a
      // run whose waits were all equal still shows a step and a line.
      const double right = std::max(longest, 1.0);
      chart.degenerate = distinct.size() == 1;
      for (size_t i = 0; i < runs.size(); ++i) {
        ChartSeries s;
        s.label = runs[i].label;
        s.run = i;
        s.end = right;
        s.before = 0;
        auto it = runs[i].waits.find(queue);
        if (runs[i].has_events && FindQueue(runs[i], cluster, name) != nullptr) s.points = Points{};
        if (it != runs[i].waits.end() && !it->second.empty()) {
          const std::vector<double>& waits = it->second;
          Points cdf;
          for (size_t k = 0; k < waits.size(); ++k) {
            const double share = static_cast<double>(k + 1) / static_cast<double>(waits.size()) * 100.0;
            if (!cdf.empty() && cdf.back().first == waits[k]) {
              cdf.back().second = share;
            } else {
              cdf.emplace_back(waits[k], share);
            }
          }
          if (cdf.back().first < right) cdf.emplace_back(right, 100.0);
          s.points = std::move(cdf);
        }
        chart.series.push_back(std::move(s));
      }
      if (chart.degenerate) {
        chart.note = fmt::format("Every admitted workload waited {} s.", Num(*distinct.begin()));
      }
      bool any = false;
      for (const auto& s : chart.series) any = any || (s.points.has_value() && !s.points->empty());
      if (!any) chart.note = "No admitted workloads: no waits to show.";
      page->Add(chart);
    }
    page->CloseCharts();
  }
}

void PreemptionChart(Page* page, const std::vector<RunData>& runs) {
  page->Heading(2, "Preemptions over time", "Cumulative number of preemptions.");
  Chart chart;
  chart.kind = "preemptions";
  chart.title = "preemptions";
  chart.y_label = "preemptions so far";
  chart.unit = "preemptions";
  for (size_t i = 0; i < runs.size(); ++i) {
    ChartSeries s;
    s.label = runs[i].label;
    s.run = i;
    s.end = runs[i].end_time;
    s.before = 0;
    if (runs[i].has_events) {
      Points cumulative{{0, 0}};
      for (size_t k = 0; k < runs[i].preemptions.size(); ++k) {
        const double t = runs[i].preemptions[k];
        if (cumulative.back().first == t) {
          cumulative.back().second = static_cast<double>(k + 1);
        } else {
          cumulative.emplace_back(t, static_cast<double>(k + 1));
        }
      }
      s.points = std::move(cumulative);
    }
    chart.series.push_back(std::move(s));
  }
  page->OpenCharts();
  page->Add(chart);
  page->CloseCharts();
}

void MultiKueueCharts(Page* page, const std::vector<RunData>& runs) {
  std::set<std::tuple<std::string, std::string, std::string, std::string>> keys;  // cluster, scope, name, metric
  for (const auto& run : runs) {
    for (const auto& [key, points] : run.series) {
      if (key.scope == "MultiKueueCluster" || key.scope == "MultiKueue") {
        keys.emplace(key.cluster, key.scope, key.name, key.metric);
      }
    }
  }
  if (keys.empty()) return;
  page->Heading(2, "MultiKueue",
                "Per worker cluster: live copies the manager created there (copies) and the cumulative copies "
                "created and deleted; per manager: cumulative writes of status.nominatedClusterNames.");
  page->OpenCharts();
  for (const auto& [cluster, scope, name, metric] : keys) {
    Chart chart;
    chart.kind = "multikueue";
    chart.title = scope == "MultiKueue" ? fmt::format("manager {} {}", cluster, metric)
                                        : fmt::format("worker {} (of {}) {}", name, cluster, metric);
    chart.y_label = metric;
    chart.unit = metric == "copies" ? "copies" : "operations";
    chart.series = StepSeries(runs, {cluster, scope, name, metric, "", ""}, false, 0.0);
    page->Add(chart);
  }
  page->CloseCharts();
}

void LwsCharts(Page* page, const std::vector<RunData>& runs) {
  std::set<std::pair<std::string, std::string>> names;
  for (const auto& run : runs) {
    for (const auto& l : run.leader_worker_sets) names.emplace(l.cluster, l.name);
  }
  if (names.empty()) return;
  page->Heading(2, "LeaderWorkerSets",
                "Groups ready to serve over time (thick) against the groups desired, spec.replicas (thin), per "
                "LeaderWorkerSet.");
  page->OpenCharts();
  for (const auto& [cluster, name] : names) {
    Chart chart;
    chart.kind = "lws";
    chart.title = "ready groups of " + QueueName(cluster, name);
    chart.y_label = "groups";
    chart.unit = "groups";
    for (size_t i = 0; i < runs.size(); ++i) {
      ChartSeries s;
      s.label = runs[i].label;
      s.run = i;
      s.end = runs[i].end_time;
      s.before = 0;
      ChartSeries desired;
      desired.label = "desired " + runs[i].label;
      desired.run = i;
      desired.thin = true;
      desired.end = runs[i].end_time;
      for (const auto& l : runs[i].leader_worker_sets) {
        if (l.cluster != cluster || l.name != name) continue;
        s.points = l.ready_groups.empty() ? Points{{0, 0}} : l.ready_groups;
        desired.points = l.desired_groups;
      }
      chart.series.push_back(std::move(s));
      chart.series.push_back(std::move(desired));
    }
    page->Add(chart);
  }
  page->CloseCharts();
}

absl::StatusOr<std::string> ReadLibraryFile(const std::string& dir, const char* file) {
  const std::string path = (std::filesystem::path(dir) / file).string();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::FailedPreconditionError(fmt::format(
        "{}: cannot read the charting library (dygraphs) the report inlines; install Debian's libjs-dygraphs "
        "(`apt-get install libjs-dygraphs`, which ./dev.sh does) or point KUEUESIM_DYGRAPHS_DIR at a directory "
        "holding dygraph.min.js and dygraph.min.css",
        path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The library's text inside <script> or <style>: never close the element.
std::string Inline(std::string text, const char* element) {
  const std::string closing = fmt::format("</{}", element);
  for (size_t at = text.find(closing); at != std::string::npos; at = text.find(closing, at + 2)) {
    text.replace(at, 2, "<\\/");
  }
  return text;
}

}  // namespace

const char* RunColor(size_t index) { return kPalette[index % (sizeof(kPalette) / sizeof(kPalette[0]))]; }
const char* RunDash(size_t index) { return kDashes[index % (sizeof(kDashes) / sizeof(kDashes[0]))]; }

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string ChartLibraryDir(const ReportOptions& options) {
  if (!options.chart_library_dir.empty()) return options.chart_library_dir;
  if (const char* env = std::getenv("KUEUESIM_DYGRAPHS_DIR"); env != nullptr && *env != '\0') return env;
  return KUEUESIM_DYGRAPHS_DIR;
}

absl::StatusOr<std::string> RenderHtmlReport(const std::vector<RunData>& runs, const ReportOptions& options) {
  const std::string dir = ChartLibraryDir(options);
  auto script = ReadLibraryFile(dir, "dygraph.min.js");
  if (!script.ok()) return script.status();
  auto style = ReadLibraryFile(dir, "dygraph.min.css");
  if (!style.ok()) return style.status();

  Page page;
  // Wall-clock axes when every run starts at the same scenario startTime.
  std::optional<double> start;
  bool same = !runs.empty();
  for (const auto& run : runs) same = same && run.start_time.has_value() && run.start_time == runs[0].start_time;
  if (same) start = runs[0].start_time;
  page.set_wall_clock(start);

  page.Heading(2, "Runs");
  RunsTable(&page, runs);
  page.Heading(2, "ClusterQueues",
               "Waits in one unit per column; \"-\": the ClusterQueue admitted nothing (no data, not a wait of 0).");
  QueueTable(&page, runs);
  bool timeseries = false, events = false;
  for (const auto& run : runs) {
    timeseries = timeseries || run.has_timeseries;
    events = events || run.has_events;
  }
  if (!timeseries) page.Raw("<p class=\"note\">No timeseries.jsonl in the run directories: no charts over time.</p>\n");
  if (!events) {
    page.Raw("<p class=\"note\">No events.jsonl in the run directories: no wait distributions or preemptions.</p>\n");
  }
  const std::vector<std::string> clusters = Clusters(runs);
  if (clusters.size() == 1) {
    ClusterCharts(&page, runs, clusters[0], 2);
  } else {
    for (const std::string& cluster : clusters) {
      page.Heading(2, cluster.empty() ? std::string("cluster (default)") : "cluster " + cluster);
      ClusterCharts(&page, runs, cluster, 3);
    }
  }
  if (events) PreemptionChart(&page, runs);
  PendingReasonTable(&page, runs);
  MultiKueueCharts(&page, runs);
  LwsCharts(&page, runs);

  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kueuesim report";
  for (size_t i = 0; i < runs.size(); ++i) out += (i == 0 ? ": " : ", ") + HtmlEscape(runs[i].label);
  out += "</title>\n<style>\n";
  out += Inline(*style, "style");
  out += "\n";
  out += kStyle;
  out += "</style>\n<script>\n";
  out += kErrorHook;
  out += "</script>\n<script>\n/* dygraphs (Debian libjs-dygraphs), inlined by kueuesim report */\n";
  out += Inline(*script, "script");
  out += "\n</script>\n</head>\n<body>\n<h1>kueuesim report</h1>\n";
  out += fmt::format(
      "<p class=\"note\">{} Drag across a chart to zoom, shift-drag to pan, double-click to zoom out; the values "
      "under the pointer are shown above each legend.</p>\n",
      start.has_value() ? "Time axes show wall-clock time (UTC) from the scenario's startTime."
                        : "Time axes show simulated time (the scenario sets no startTime).");
  out += "<pre id=\"ks-errors\"></pre>\n";
  out += page.Toc();
  out += page.body();
  out += "<script type=\"application/json\" id=\"ks-data\">";
  out += page.Data();
  out += "</script>\n<script>\n";
  out += kApp;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace kueuesim::report
