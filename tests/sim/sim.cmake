# The invariant checker (sim/invariants.h): every invariant broken on purpose.
# Included from tests/CMakeLists.txt.
kueuesim_test(NAME invariants_test
  SOURCES sim/invariants_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario fmt::fmt)

# The scheduler's reuse of an unchanged head's nomination: the same outputs
# as assigning afresh, and where it applies.
kueuesim_test(NAME nomination_reuse_test
  SOURCES sim/nomination_reuse_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario kueuesim::metrics kueuesim::runtime)
