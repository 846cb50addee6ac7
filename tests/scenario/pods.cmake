# Pod-based integrations: plain Pods, pod groups, Deployments and
# StatefulSets (src/scenario/decode_pods.cc). Included from
# tests/CMakeLists.txt.
kueuesim_test(NAME pods_decode_test
  SOURCES scenario/decode_pods_test.cc
  DEPS kueuesim::scenario kueuesim::doc)
