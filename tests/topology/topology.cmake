# Topology-aware scheduling (src/topology). Included from tests/CMakeLists.txt.
kueuesim_test(NAME topology_test
  SOURCES topology/tas_find_assignments_test.cc topology/tas_flavor_snapshot_test.cc
          topology/tas_internal_test.cc topology/rank_order_test.cc
  DEPS kueuesim::topology)
