kueuesim_test(NAME workloads_test
  SOURCES workloads/lws_rollout_test.cc workloads/cron_schedule_test.cc
  DEPS kueuesim::workloads)
