// Helpers for the trace importer tests: test data paths, temporary files,
// reading a whole source, and looking into workloads.
#ifndef KUEUESIM_TESTS_TRACE_TRACE_TEST_UTIL_H_
#define KUEUESIM_TESTS_TRACE_TRACE_TEST_UTIL_H_

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/trace/importers.h"
#include "kueuesim/trace/trace_spec.h"
#include "kueuesim/trace/workload_source.h"

namespace kueuesim::trace::testing {

// The source tree (tests run from it; KUEUESIM_SOURCE_DIR when set).
inline std::string SourceDir() {
  const char* dir = std::getenv("KUEUESIM_SOURCE_DIR");
  return dir != nullptr ? std::string(dir) : std::string(".");
}

inline std::string TestData(const std::string& name) { return SourceDir() + "/tests/trace/testdata/" + name; }

// Writes `content` to a fresh file under the test temp dir; returns its path.
// A directory of this test process's own under the test temporary
// directory: ctest runs each test in its own process, several at once.
inline std::string ProcessTempDir() {
  const std::string dir = ::testing::TempDir() + "/kueuesim-test-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string WriteTemp(const std::string& name, const std::string& content) {
  const std::string path = ProcessTempDir() + "/kueuesim_trace_" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  return path;
}

inline TraceSpec Spec(const std::string& format, const std::string& path) {
  TraceSpec spec;
  spec.name = "t";
  spec.format = format;
  spec.path = path;
  spec.source = {"scenario.yaml", 3};
  return spec;
}

struct ReadResult {
  std::vector<model::Workload> workloads;
  ImportReport report;
};

// Opens `spec` and reads every workload.
inline absl::StatusOr<ReadResult> ReadAll(const TraceSpec& spec) {
  auto source = OpenTrace(spec);
  if (!source.ok()) return source.status();
  ReadResult out;
  while (true) {
    auto next = (*source)->Next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) break;
    out.workloads.push_back(std::move(**next));
  }
  out.report = (*source)->report();
  return out;
}

// The per-pod request of `resource` in pod set `index`, or -1.
inline Amount Request(const model::Workload& wl, const std::string& resource, size_t index = 0) {
  if (index >= wl.pod_sets.size()) return -1;
  for (const auto& r : wl.pod_sets[index].requests) {
    if (r.name == resource) return r.amount;
  }
  return -1;
}

inline const model::Workload* Find(const std::vector<model::Workload>& workloads, const std::string& name) {
  for (const auto& wl : workloads) {
    if (wl.meta.name == name) return &wl;
  }
  return nullptr;
}

inline int64_t TotalSkipped(const ImportReport& report) {
  int64_t total = 0;
  for (const auto& [reason, count] : report.skipped) total += count;
  return total;
}

inline bool ArrivalsSorted(const std::vector<model::Workload>& workloads) {
  for (size_t i = 1; i < workloads.size(); ++i) {
    if (workloads[i].arrival < workloads[i - 1].arrival) return false;
  }
  return true;
}

}  // namespace kueuesim::trace::testing

#endif  // KUEUESIM_TESTS_TRACE_TRACE_TEST_UTIL_H_
