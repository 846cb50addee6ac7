# Results out: the time series of a run (kueuesim run --timeseries), the
# HTML report, compare and sweeps.
kueuesim_test(NAME timeseries_test
  SOURCES metrics/timeseries_test.cc
  DEPS kueuesim::metrics kueuesim::sim kueuesim::policy kueuesim::scenario nlohmann_json::nlohmann_json)

kueuesim_test(NAME report_test
  SOURCES report/report_test.cc
  DEPS kueuesim::report)

kueuesim_test(NAME sweep_test
  SOURCES sweep/sweep_test.cc
  DEPS kueuesim::sweep kueuesim::scenario)

# The per-workload table (kueuesim run --workloads).
kueuesim_test(NAME workload_table_test
  SOURCES metrics/workload_table_test.cc
  DEPS kueuesim::metrics kueuesim::sim kueuesim::policy kueuesim::scenario nlohmann_json::nlohmann_json)
