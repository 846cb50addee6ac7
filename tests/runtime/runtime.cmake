# Timed changes of Kueue objects, through the whole simulation.
# Included from tests/CMakeLists.txt.
kueuesim_test(NAME object_changes_test
  SOURCES runtime/object_changes_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario fmt::fmt)
