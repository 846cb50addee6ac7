// philly: the per-job table of the Microsoft Philly trace as the Sia/Pollux
// authors derived it (philly.csv): timestamp,duration,num_gpus,gpu_time,cluster
//   timestamp  submit time "YYYY-MM-DD HH:MM:SS" (UTC assumed); the file is
//              not sorted; trace time 0 is the earliest valid submit time
//   duration   seconds (float)
//   num_gpus   GPUs of the job
//   cluster    the virtual cluster (VC) hash
//   gpu_time   ignored (duration x num_gpus)
// One workload per job, one pod set "main": one pod with num_gpus GPUs, or
// with options.gpusPerPod = N, ceil(num_gpus / N) equal pods (rounded up,
// counted as repaired, when num_gpus does not divide). Optional per-GPU
// cpu and memory: options.cpuPerGpu, options.memoryPerGpu (quantities).
// Default mapping: name "philly-<line>", namespace "vc-<cluster>", queue
// "main"; no priority.
#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "trace/csv_format.h"
#include "trace/formats.h"

namespace kueuesim::trace::internal {
namespace {

class Philly : public CsvFormat {
 public:
  enum BoundColumn : size_t { kTimestamp, kDuration, kNumGpus };

  absl::Status Open(const TraceSpec& spec) {
    KUEUESIM_RETURN_IF_ERROR(CheckOptions(spec, {"gpuResource", "gpusPerPod", "cpuPerGpu", "memoryPerGpu"}));
    gpu_resource_ = Option(spec, "gpuResource", kDefaultGpuResource);
    const std::string per_pod = Option(spec, "gpusPerPod", "");
    if (!per_pod.empty()) {
      auto value = ParseInt(per_pod);
      if (!value.has_value() || *value < 1 || *value > 1'000'000) {
        return InvalidArgument(fmt::format("spec.options.gpusPerPod: \"{}\" is not a positive integer",
                                           per_pod));
      }
      gpus_per_pod_ = *value;
    }
    for (const auto& [key, resource, target] : {std::tuple<const char*, const char*, Amount*>{"cpuPerGpu", "cpu", &cpu_per_gpu_},
                                                std::tuple<const char*, const char*, Amount*>{"memoryPerGpu", "memory", &memory_per_gpu_}}) {
      const std::string text = Option(spec, key, "");
      if (text.empty()) continue;
      auto amount = ParseRequestAmount(text, resource);
      if (!amount.has_value()) {
        return InvalidArgument(fmt::format("spec.options.{}: \"{}\" is not a quantity", key, text));
      }
      *target = *amount;
    }
    // The pod's requests in resource-name order, as SetRequests writes them
    // from a map (a name given twice keeps its first amount).
    for (const auto& [name, kind] : {std::pair<std::string, PerGpu>{gpu_resource_, PerGpu::kGpu},
                                     std::pair<std::string, PerGpu>{"cpu", PerGpu::kCpu},
                                     std::pair<std::string, PerGpu>{"memory", PerGpu::kMemory}}) {
      bool seen = false;
      for (const auto& request : requests_) seen = seen || request.first == name;
      if (!seen) requests_.emplace_back(name, kind);
    }
    std::sort(requests_.begin(), requests_.end());
    std::map<std::string, FieldMapping> defaults = {
        {"namespace", FieldOf("cluster", "vc-")}, {"queue", ValueOf("main")}};
    KUEUESIM_RETURN_IF_ERROR(OpenCsv(spec, {"timestamp", "duration", "num_gpus"}, {"gpu_time", "cluster"}, true,
                   std::move(defaults)));
    Bind({"timestamp", "duration", "num_gpus"});
    return absl::OkStatus();
  }

  bool absolute_time() const override { return true; }

 protected:
  bool ParseRow(ImportReport* report, ParsedRecord* out) override {
    const int64_t ln = line();
    Row row;
    if (!ReadRow(report, &row)) return false;
    ParsedRecord& record = *out;
    model::Workload& wl = record.workload;
    SetSource(&wl);
    record.time = row.time;
    wl.duration = row.duration;
    // The pod set is built in its place (it is large).
    model::PodSet& pod_set = wl.pod_sets.emplace_back();
    if (row.pods > 0) pod_set.count = static_cast<int32_t>(row.pods);
    pod_set.requests.reserve(requests_.size());
    for (const auto& [name, kind] : requests_) {
      const Amount amount = kind == PerGpu::kGpu   ? row.per_pod
                            : kind == PerGpu::kCpu ? MulAmount(cpu_per_gpu_, row.per_pod)
                                                   : MulAmount(memory_per_gpu_, row.per_pod);
      if (amount != 0) pod_set.requests.push_back({name, amount});
    }
    std::string fallback_name = "philly-";
    fallback_name += std::to_string(ln);
    const std::string reason = ApplyMapping(fallback_name, &wl);
    if (!reason.empty()) return SkipRow(report, ln, reason);
    return true;
  }

  // The counting pass: ParseRow's checks, in its order, without the
  // workload.
  bool CountRow(ImportReport* report, int64_t* time) override {
    Row row;
    if (!ReadRow(report, &row)) return false;
    const std::string reason = MappingSkipReason();
    if (!reason.empty()) return SkipRow(report, line(), reason);
    *time = row.time;
    return true;
  }

 private:
  enum class PerGpu { kGpu, kCpu, kMemory };

  // What ParseRow and CountRow read from a row.
  struct Row {
    int64_t time = 0;
    int64_t duration = 0;
    int64_t pods = 0;     // 0: one pod (no gpusPerPod split)
    int64_t per_pod = 0;  // GPUs per pod
  };

  // Reads and checks the current row's numbers: its skips (bad timestamp,
  // duration, num_gpus) and its repair (num_gpus not divisible into equal
  // pods) are counted here, once for both passes' callers.
  bool ReadRow(ImportReport* report, Row* row) const {
    const int64_t ln = line();
    auto time = ParseDateTime(Field(kTimestamp));
    if (!time.has_value()) return SkipRow(report, ln, "bad timestamp");
    row->time = *time;
    auto duration = ParseNumber(Field(kDuration));
    if (!duration.has_value()) return SkipRow(report, ln, "bad duration");
    if (*duration < 0) return SkipRow(report, ln, "negative duration");
    const std::optional<int64_t> micros = SecondsToMicros(*duration);
    if (!micros.has_value()) return SkipRow(report, ln, "bad duration");
    row->duration = *micros;
    auto gpus = ParseInt(Field(kNumGpus));
    if (!gpus.has_value() || *gpus < 0 || *gpus > 1'000'000) return SkipRow(report, ln, "bad num_gpus");
    row->per_pod = *gpus;
    if (gpus_per_pod_ > 0 && *gpus > gpus_per_pod_) {
      row->pods = (*gpus + gpus_per_pod_ - 1) / gpus_per_pod_;
      row->per_pod = (*gpus + row->pods - 1) / row->pods;
      if (row->per_pod * row->pods != *gpus) Repair(report, ln, "num_gpus not divisible into equal pods (rounded up)");
    }
    return true;
  }

  std::string gpu_resource_;
  std::vector<std::pair<std::string, PerGpu>> requests_;  // sorted by resource name
  int64_t gpus_per_pod_ = 0;
  Amount cpu_per_gpu_ = 0;
  Amount memory_per_gpu_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RecordFormat>> OpenPhilly(const TraceSpec& spec) {
  auto format = std::make_unique<Philly>();
  KUEUESIM_RETURN_IF_ERROR(format->Open(spec));
  return std::unique_ptr<RecordFormat>(std::move(format));
}

}  // namespace kueuesim::trace::internal
