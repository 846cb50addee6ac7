# Kueue's other job integrations: JobSet, Kubeflow jobs, MPIJob, TrainJob,
# Ray, AppWrapper, SparkApplication (src/scenario/kinds). Included from
# tests/CMakeLists.txt.
kueuesim_test(NAME kinds_test
  SOURCES scenario/kinds_test.cc scenario/kinds_examples_test.cc
  DEPS kueuesim::scenario kueuesim::cluster)
