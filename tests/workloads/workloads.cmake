kueuesim_test(NAME workloads_test
  SOURCES workloads/lws_rollout_test.cc
  DEPS kueuesim::workloads)
