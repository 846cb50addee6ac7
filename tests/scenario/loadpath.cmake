# Loading real clusters: generateName, kubectl JSON, directories,
# unsimulated kinds, default run times, CronJobs. Included from
# tests/CMakeLists.txt.
kueuesim_test(NAME loadpath_test
  SOURCES scenario/loadpath_test.cc
  DEPS kueuesim::scenario kueuesim::doc)
