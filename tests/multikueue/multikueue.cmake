kueuesim_test(NAME multikueue_test
  SOURCES multikueue/multikueue_test.cc
  DEPS kueuesim::sim kueuesim::metrics kueuesim::multikueue kueuesim::policy kueuesim::scenario fmt::fmt)
# Serving workloads (Deployment replicas, LeaderWorkerSet groups) across
# MultiKueue workers.
kueuesim_test(NAME multikueue_serving_test
  SOURCES multikueue/serving_test.cc
  DEPS kueuesim::sim kueuesim::multikueue kueuesim::policy kueuesim::scenario fmt::fmt)
