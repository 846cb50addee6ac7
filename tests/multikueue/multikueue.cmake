kueuesim_test(NAME multikueue_test
  SOURCES multikueue/multikueue_test.cc
  DEPS kueuesim::sim kueuesim::multikueue kueuesim::policy kueuesim::scenario fmt::fmt)
