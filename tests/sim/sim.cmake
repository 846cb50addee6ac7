# The invariant checker (sim/invariants.h): every invariant broken on purpose.
# Included from tests/CMakeLists.txt.
kueuesim_test(NAME invariants_test
  SOURCES sim/invariants_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario fmt::fmt)
