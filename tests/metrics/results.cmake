# Results out: the time series of a run (kueuesim run --timeseries), the
# HTML report, compare and sweeps.
kueuesim_test(NAME timeseries_test
  SOURCES metrics/timeseries_test.cc
  DEPS kueuesim::metrics kueuesim::sim kueuesim::policy kueuesim::scenario nlohmann_json::nlohmann_json)
