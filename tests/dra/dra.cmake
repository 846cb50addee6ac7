# DRA quota charging (src/dra) and the DRA decoders (src/scenario/decode_dra).
# Included from tests/CMakeLists.txt.
kueuesim_test(NAME dra_test
  SOURCES dra/cel_test.cc dra/charger_test.cc dra/decode_dra_test.cc
  DEPS kueuesim::dra kueuesim::scenario kueuesim::doc)
