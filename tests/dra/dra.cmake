# DRA quota charging (src/dra) and the DRA decoders (src/scenario/decode_dra).
# Included from tests/CMakeLists.txt.
kueuesim_test(NAME dra_test
  SOURCES dra/cel_test.cc dra/charger_test.cc dra/decode_dra_test.cc
  DEPS kueuesim::dra kueuesim::scenario kueuesim::doc)

# DRA end to end: scenarios with DRA objects run through the simulation.
kueuesim_test(NAME dra_simulation_test
  SOURCES dra/dra_simulation_test.cc
  DEPS kueuesim::sim kueuesim::metrics kueuesim::policy kueuesim::scenario fmt::fmt)
