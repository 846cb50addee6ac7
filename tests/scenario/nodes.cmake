# Node inventories: kueuesim.io/v1alpha1 NodePool and node changes
# (src/scenario/decode_nodes.cc). Included from tests/CMakeLists.txt.
kueuesim_test(NAME nodes_decode_test
  SOURCES scenario/decode_nodes_test.cc
  DEPS kueuesim::scenario kueuesim::doc)
