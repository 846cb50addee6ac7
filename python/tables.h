// The tables of a run for Python: the per-workload table, the time series
// and the summary's tables, as pandas DataFrames when pandas is present and
// as lists of dicts otherwise (docs/python.md#tables). Numbers are numbers:
// quantities are floats in their resource's canonical unit (cpu in cores,
// memory-like resources in bytes, anything else in units), named in a
// `unit` column; durations are seconds (columns ending in "Seconds"); time
// points are datetimes (UTC) when the scenario has a startTime, else
// simulated seconds.
#ifndef KUEUESIM_PYTHON_TABLES_H_
#define KUEUESIM_PYTHON_TABLES_H_

#include <pybind11/pybind11.h>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "kueuesim/base/time.h"

namespace kueuesim::python {

namespace py = pybind11;

// A FILE* writing to memory (open_memstream); text() is what was written.
class MemoryFile {
 public:
  MemoryFile();
  ~MemoryFile();
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  std::FILE* file() const { return file_; }
  // Flushes and returns the text written so far.
  std::string_view text();

 private:
  std::FILE* file_ = nullptr;
  char* buffer_ = nullptr;
  size_t size_ = 0;
};

// How a table is returned: `as_frame` None (a DataFrame if pandas can be
// imported, else rows), True (a DataFrame; ImportError without pandas) or
// False (rows: a list of dicts).
enum class TableShape { kFrame, kRows };
TableShape ShapeArg(const py::object& as_frame, const char* method);  // method: "Simulation.workloads", ... for messages

// One dict per JSON line of `text`.
py::list ParseJsonLines(std::string_view text);

// The canonical unit of a resource's quantities: "cores" (cpu), "bytes"
// (memory, ephemeral-storage, storage, hugepages-*), else "units".
std::string UnitOf(std::string_view resource);
// A Kubernetes quantity of `resource` as a float in UnitOf(resource).
double QuantityValue(std::string_view resource, std::string_view text);

// The per-workload table (rows of metrics::WorkloadTableWriter's JSON Lines).
py::object WorkloadTable(const py::list& rows, std::optional<UnixMicros> start, TableShape shape);
// The time series (rows of metrics::TimeSeriesRecorder's JSON Lines).
py::object TimeSeriesTable(const py::list& rows, std::optional<UnixMicros> start, TableShape shape);
// {"clusterQueues", "resources", "cohorts"} from the summary dict and the
// time-series rows (cohort figures come from the Cohort series);
// `end_seconds` closes the time integrals.
py::dict SummaryTables(const py::dict& summary, const py::list& timeseries_rows, double end_seconds,
                       TableShape shape);

// The quotas of Scenario.cluster_queues(`cluster`) (`queues`) as a table:
// one row per ClusterQueue, flavor and resource, with nominalQuota,
// borrowingLimit and lendingLimit as floats in the resource's unit (None /
// NaN: no limit).
py::object QuotaTable(const py::list& queues, const std::string& cluster, TableShape shape);

}  // namespace kueuesim::python

#endif  // KUEUESIM_PYTHON_TABLES_H_
