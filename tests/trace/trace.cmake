# Trace importers: the CSV reader, the shared machinery (window, limit,
# scales, mapping, ordering, streaming), every format on real and broken
# rows, and the kueuesim.io/v1alpha1 Trace decoder.
kueuesim_test(NAME trace_test
  SOURCES trace/csv_reader_test.cc trace/engine_test.cc trace/native_test.cc trace/alibaba_test.cc
          trace/philly_test.cc trace/helios_test.cc trace/pollux_test.cc trace/kueue_workloads_test.cc
          trace/perf_generator_test.cc trace/decode_trace_test.cc trace/replica_timeline_test.cc
          trace/alibaba_dlrm_test.cc trace/read_ahead_test.cc
  DEPS kueuesim::trace kueuesim::scenario kueuesim::doc)

# Traces through the loader and the whole simulation (replayRecordedStart).
kueuesim_test(NAME trace_replay_test
  SOURCES trace/replay_test.cc
  DEPS kueuesim::sim kueuesim::metrics kueuesim::policy kueuesim::scenario kueuesim::trace)
