// Output files and input checks; see output.h.
#include "output.h"

#include <fmt/format.h>

namespace kueuesim::cli {

std::FILE* OpenOutput(const std::string& path) {
  if (IsStdout(path)) return stdout;
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) std::fprintf(stderr, "kueuesim: error: cannot open %s for writing\n", path.c_str());
  return file;
}

bool CloseOutput(std::FILE* file, const std::string& path) {
  const bool failed = file == stdout ? std::fflush(stdout) != 0 || std::ferror(stdout) != 0 : std::fclose(file) != 0;
  if (failed) std::fprintf(stderr, "kueuesim: error: writing %s failed\n", IsStdout(path) ? "stdout" : path.c_str());
  return !failed;
}

bool WriteOutput(const std::string& path, const std::string& text) {
  std::FILE* out = OpenOutput(path);
  if (out == nullptr) return false;
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  const bool closed = CloseOutput(out, path);
  if (!written && closed) {
    std::fprintf(stderr, "kueuesim: error: writing %s failed\n", IsStdout(path) ? "stdout" : path.c_str());
  }
  return written && closed;
}

absl::Status CheckInputNotEmpty(const std::vector<std::string>& files, const scenario::Scenario& scenario) {
  if (scenario.report.objects > 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("{}: no objects: the input is empty (expected Kubernetes manifests such as ResourceFlavor, "
                  "ClusterQueue, LocalQueue and Workload or Job objects)",
                  fmt::join(files, ", ")));
}

}  // namespace kueuesim::cli
