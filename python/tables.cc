// Tables of a run for Python; see tables.h.
#include "tables.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <tuple>
#include <vector>

#include "kueuesim/base/quantity.h"

namespace kueuesim::python {
namespace {

constexpr const char* kPandasHint = "(Debian: apt-get install python3-pandas)";

py::object None() { return py::none(); }

// dict[key] or None.
py::object Get(const py::handle& dict, const char* key) {
  py::dict d = py::reinterpret_borrow<py::dict>(dict);
  if (!d.contains(key)) return None();
  return d[key];
}

// Simulated seconds (a number or None) as a UTC datetime from `start`.
py::object ToDatetime(const py::object& seconds, UnixMicros start) {
  if (seconds.is_none()) return seconds;
  py::module_ datetime = py::module_::import("datetime");
  const double s = seconds.cast<double>();
  const auto micros = static_cast<int64_t>(std::llround(s * 1e6)) + start;
  py::object epoch = datetime.attr("datetime")(1970, 1, 1, py::arg("tzinfo") = datetime.attr("timezone").attr("utc"));
  return epoch + datetime.attr("timedelta")(py::arg("microseconds") = micros);
}

// The rows as a DataFrame with `columns` in order (time columns turned into
// UTC datetimes from `start`), or as the rows themselves (time fields turned
// into datetimes likewise).
py::object Shape(const py::list& rows, const std::vector<const char*>& columns,
                 const std::vector<const char*>& time_columns, const std::vector<const char*>& numeric_columns,
                 std::optional<UnixMicros> start, TableShape shape) {
  if (shape == TableShape::kRows) {
    if (start.has_value()) {
      for (const py::handle& row : rows) {
        py::dict d = py::reinterpret_borrow<py::dict>(row);
        for (const char* column : time_columns) d[column] = ToDatetime(Get(d, column), *start);
      }
    }
    return rows;
  }
  py::module_ pandas = py::module_::import("pandas");
  py::list names;
  for (const char* column : columns) names.append(column);
  py::object frame = pandas.attr("DataFrame")(rows, py::arg("columns") = names);
  for (const char* column : numeric_columns) {
    frame.attr("__setitem__")(column, pandas.attr("to_numeric")(frame[column]));
  }
  for (const char* column : time_columns) {
    py::object seconds = pandas.attr("to_numeric")(frame[column]);
    if (start.has_value()) {
      py::object origin = pandas.attr("Timestamp")(*start, py::arg("unit") = "us", py::arg("tz") = "UTC");
      frame.attr("__setitem__")(column, origin + pandas.attr("to_timedelta")(seconds, py::arg("unit") = "s"));
    } else {
      frame.attr("__setitem__")(column, seconds);
    }
  }
  return frame;
}

std::string MetricUnit(const std::string& metric, const std::string& resource) {
  if (metric == "usage" || metric == "borrowing" || metric == "quota") return UnitOf(resource);
  if (metric == "pending") return "workloads";
  if (metric == "share") return "weightedShare";
  if (metric == "nominationPatches") return "patches";
  return "copies";  // copies, copiesCreated, copiesDeleted
}

}  // namespace

MemoryFile::MemoryFile() {
  file_ = open_memstream(&buffer_, &size_);
  if (file_ == nullptr) throw std::bad_alloc();
}

MemoryFile::~MemoryFile() {
  if (file_ != nullptr) std::fclose(file_);
  std::free(buffer_);
}

std::string_view MemoryFile::text() {
  std::fflush(file_);
  return buffer_ == nullptr ? std::string_view() : std::string_view(buffer_, size_);
}

TableShape ShapeArg(const py::object& as_frame, const char* method) {
  if (!as_frame.is_none() && !as_frame.cast<bool>()) return TableShape::kRows;
  try {
    py::module_::import("pandas");
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_ImportError)) throw;
    if (as_frame.is_none()) return TableShape::kRows;
    PyErr_SetString(PyExc_ImportError,
                    (std::string(method) + "(as_frame=True) needs pandas, which is not installed " +
                     kPandasHint + "; as_frame=False gives the same rows as a list of dicts")
                        .c_str());
    throw py::error_already_set();
  }
  return TableShape::kFrame;
}

py::list ParseJsonLines(std::string_view text) {
  py::object loads = py::module_::import("json").attr("loads");
  py::list out;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') continue;
    out.append(loads(py::str(text.data() + start, i - start)));
    start = i + 1;
  }
  return out;
}

std::string UnitOf(std::string_view resource) {
  if (resource == "cpu") return "cores";
  if (resource == "memory" || resource == "ephemeral-storage" || resource == "storage" ||
      resource.rfind("hugepages-", 0) == 0) {
    return "bytes";
  }
  return "units";
}

double QuantityValue(std::string_view resource, std::string_view text) {
  auto quantity = ParseQuantity(text);
  if (!quantity.ok()) return std::numeric_limits<double>::quiet_NaN();
  const Amount amount = CanonicalAmountSaturating(*quantity, resource);
  return IsMilliResource(resource) ? static_cast<double>(amount) / 1000.0 : static_cast<double>(amount);
}

py::object WorkloadTable(const py::list& rows, std::optional<UnixMicros> start, TableShape shape) {
  py::list out;
  for (const py::handle& row : rows) {
    py::dict r;
    for (const char* key : {"cluster", "workload", "clusterQueue", "status", "arrival", "quotaReserved", "admitted",
                            "started", "finished"}) {
      r[key] = Get(row, key);
    }
    r["waitSeconds"] = Get(row, "wait");
    r["runTimeSeconds"] = Get(row, "runTime");
    for (const char* key : {"evictions", "preemptions", "flavors", "pendingReason", "pendingMessage"}) {
      r[key] = Get(row, key);
    }
    out.append(r);
  }
  return Shape(out,
               {"cluster", "workload", "clusterQueue", "status", "arrival", "quotaReserved", "admitted", "started",
                "finished", "waitSeconds", "runTimeSeconds", "evictions", "preemptions", "flavors", "pendingReason",
                "pendingMessage"},
               {"arrival", "quotaReserved", "admitted", "started", "finished"},
               {"waitSeconds", "runTimeSeconds", "evictions", "preemptions"}, start, shape);
}

py::object TimeSeriesTable(const py::list& rows, std::optional<UnixMicros> start, TableShape shape) {
  py::list out;
  for (const py::handle& row : rows) {
    py::dict r;
    for (const char* key : {"time", "cluster", "scope", "name", "metric", "flavor", "resource"}) r[key] = Get(row, key);
    py::object value = Get(row, "value");
    r["value"] = value.is_none() ? value : py::float_(value.cast<double>());
    r["unit"] = MetricUnit(Get(row, "metric").cast<std::string>(), Get(row, "resource").cast<std::string>());
    out.append(r);
  }
  return Shape(out, {"time", "cluster", "scope", "name", "metric", "flavor", "resource", "value", "unit"}, {"time"},
               {"value"}, start, shape);
}

py::dict SummaryTables(const py::dict& summary, const py::list& timeseries_rows, double end_seconds,
                       TableShape shape) {
  py::list queues;
  py::list resources;
  py::list clusters = summary.contains("clusters") ? py::list(summary["clusters"]) : py::list();
  for (const py::handle& cluster : clusters) {
    const py::object cluster_name = Get(cluster, "name");
    py::object cqs = Get(cluster, "clusterQueues");
    if (cqs.is_none()) continue;
    for (const py::handle& cq : cqs) {
      py::dict q;
      q["cluster"] = cluster_name;
      q["clusterQueue"] = Get(cq, "name");
      q["cohort"] = Get(cq, "cohort");
      for (const char* key : {"admitted", "finished", "running", "pending", "preempted", "evicted"}) {
        q[key] = Get(cq, key);
      }
      py::object wait = Get(cq, "waitSeconds");
      const bool has_wait = py::isinstance<py::dict>(wait);
      q["waitCount"] = has_wait ? Get(wait, "count") : py::object(py::int_(0));
      const std::pair<const char*, const char*> stats[] = {{"p50", "waitP50Seconds"},  {"p90", "waitP90Seconds"},
                                                           {"p99", "waitP99Seconds"},  {"max", "waitMaxSeconds"},
                                                           {"mean", "waitMeanSeconds"}};
      for (const auto& [from, to] : stats) q[to] = has_wait ? Get(wait, from) : None();
      queues.append(q);
      py::object rs = Get(cq, "resources");
      if (rs.is_none()) continue;
      for (const py::handle& res : rs) {
        const std::string resource = Get(res, "resource").cast<std::string>();
        py::dict r;
        r["cluster"] = cluster_name;
        r["clusterQueue"] = Get(cq, "name");
        r["cohort"] = Get(cq, "cohort");
        r["flavor"] = Get(res, "flavor");
        r["resource"] = resource;
        r["unit"] = UnitOf(resource);
        for (const char* key : {"nominalQuota", "peakUsage"}) {
          py::object text = Get(res, key);
          r[key] = text.is_none() ? text : py::float_(QuantityValue(resource, py::str(text).cast<std::string>()));
        }
        for (const char* key : {"utilization", "borrowedShare", "usedAmountSeconds"}) r[key] = Get(res, key);
        resources.append(r);
      }
    }
  }

  // Cohorts, from their usage, borrowing and quota series: the series hold a
  // value from its sample's time until the next sample.
  struct CohortFigures {
    double quota = std::numeric_limits<double>::quiet_NaN();
    double peak_usage = 0;
    double peak_borrowing = 0;
    double usage_seconds = 0;
    double usage = 0;
    double usage_since = 0;
  };
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Key, CohortFigures> cohorts;
  for (const py::handle& row : timeseries_rows) {
    if (Get(row, "scope").cast<std::string>() != "Cohort") continue;
    const std::string metric = Get(row, "metric").cast<std::string>();
    if (metric != "usage" && metric != "borrowing" && metric != "quota") continue;
    Key key{Get(row, "cluster").cast<std::string>(), Get(row, "name").cast<std::string>(),
            Get(row, "flavor").cast<std::string>(), Get(row, "resource").cast<std::string>()};
    const double time = Get(row, "time").cast<double>();
    const double value = Get(row, "value").cast<double>();
    CohortFigures& f = cohorts[key];
    if (metric == "quota") {
      f.quota = value;
    } else if (metric == "borrowing") {
      f.peak_borrowing = std::max(f.peak_borrowing, value);
    } else {
      f.usage_seconds += f.usage * (time - f.usage_since);
      f.usage = value;
      f.usage_since = time;
      f.peak_usage = std::max(f.peak_usage, value);
    }
  }
  py::list cohort_rows;
  for (auto& [key, f] : cohorts) {
    f.usage_seconds += f.usage * std::max(0.0, end_seconds - f.usage_since);
    const double mean = end_seconds > 0 ? f.usage_seconds / end_seconds : 0.0;
    py::dict r;
    r["cluster"] = std::get<0>(key);
    r["cohort"] = std::get<1>(key);
    r["flavor"] = std::get<2>(key);
    r["resource"] = std::get<3>(key);
    r["unit"] = UnitOf(std::get<3>(key));
    r["quota"] = std::isnan(f.quota) ? None() : py::object(py::float_(f.quota));
    r["peakUsage"] = f.peak_usage;
    r["meanUsage"] = mean;
    r["utilization"] = std::isnan(f.quota) || f.quota <= 0 ? None() : py::object(py::float_(mean / f.quota));
    r["peakBorrowing"] = f.peak_borrowing;
    cohort_rows.append(r);
  }

  py::dict out;
  out["clusterQueues"] = Shape(queues,
                               {"cluster", "clusterQueue", "cohort", "admitted", "finished", "running", "pending",
                                "preempted", "evicted", "waitCount", "waitP50Seconds", "waitP90Seconds",
                                "waitP99Seconds", "waitMaxSeconds", "waitMeanSeconds"},
                               {},
                               {"waitP50Seconds", "waitP90Seconds", "waitP99Seconds", "waitMaxSeconds",
                                "waitMeanSeconds"},
                               std::nullopt, shape);
  out["resources"] = Shape(resources,
                           {"cluster", "clusterQueue", "cohort", "flavor", "resource", "unit", "nominalQuota",
                            "peakUsage", "utilization", "borrowedShare", "usedAmountSeconds"},
                           {}, {"nominalQuota", "peakUsage", "utilization", "borrowedShare", "usedAmountSeconds"},
                           std::nullopt, shape);
  out["cohorts"] = Shape(cohort_rows,
                         {"cluster", "cohort", "flavor", "resource", "unit", "quota", "peakUsage", "meanUsage",
                          "utilization", "peakBorrowing"},
                         {}, {"quota", "utilization"}, std::nullopt, shape);
  return out;
}

py::object QuotaTable(const py::list& queues, const std::string& cluster, TableShape shape) {
  py::list rows;
  for (const py::handle& cq : queues) {
    for (const py::handle& group : Get(cq, "resourceGroups")) {
      for (const py::handle& flavor : Get(group, "flavors")) {
        for (const py::handle& res : Get(flavor, "resources")) {
          const std::string resource = Get(res, "name").cast<std::string>();
          py::dict r;
          r["cluster"] = cluster;
          r["clusterQueue"] = Get(cq, "name");
          r["cohort"] = Get(cq, "cohort");
          r["flavor"] = Get(flavor, "name");
          r["resource"] = resource;
          r["unit"] = UnitOf(resource);
          for (const char* key : {"nominalQuota", "borrowingLimit", "lendingLimit"}) {
            py::object text = Get(res, key);
            r[key] = text.is_none() ? text : py::float_(QuantityValue(resource, py::str(text).cast<std::string>()));
          }
          rows.append(r);
        }
      }
    }
  }
  return Shape(rows,
               {"cluster", "clusterQueue", "cohort", "flavor", "resource", "unit", "nominalQuota", "borrowingLimit",
                "lendingLimit"},
               {}, {"nominalQuota", "borrowingLimit", "lendingLimit"}, std::nullopt, shape);
}

}  // namespace kueuesim::python
