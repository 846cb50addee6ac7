# Thresholds on a run's figures (kueuesim run --check).
kueuesim_test(NAME thresholds_test
  SOURCES metrics/thresholds_test.cc
  DEPS kueuesim::metrics)
