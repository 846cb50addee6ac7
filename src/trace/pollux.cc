// pollux: the Pollux (OSDI'21) and Sia (SOSP'23) workload files,
//   name,time,application,num_replicas,batch_size
// `time` is the arrival in seconds since the workload start; num_replicas
// the GPUs (one replica per GPU). The files hold no run time (each
// simulator derives it from a throughput model), so the duration comes from
// the application class, by precedence:
//   options.duration.<application>   wall time (Go duration), e.g. "45m"
//   options.gpuHours.<application>   GPU-hours; duration = GPU-hours / num_replicas
//   options.duration                 wall time for every application
//   the default GPU-hours per class (the bins the files were sampled by:
//   cifar10 and ncf < 1 GPU-hour, deepspeech2 and bert < 10, yolov3 < 100,
//   imagenet >= 100): cifar10 0.5, ncf 0.5, deepspeech2 5, bert 5,
//   yolov3 50, imagenet 250.
// An application with none of these is skipped ("unknown application").
// One workload per row, one pod set "main" of num_replicas pods with one GPU
// each (options.gpusPerPod = N: ceil(num_replicas / N) equal pods), plus
// options.cpuPerGpu / options.memoryPerGpu per GPU; label
// kueuesim.io/application = application.
// Default mapping: name from `name`, namespace "pollux", queue "main".
#include <cmath>
#include <memory>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/checked.h"
#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "trace/csv_format.h"
#include "trace/formats.h"

namespace kueuesim::trace::internal {
namespace {

const std::map<std::string, double>& DefaultGpuHours() {
  static const auto* table = new std::map<std::string, double>{
      {"cifar10", 0.5}, {"ncf", 0.5}, {"deepspeech2", 5}, {"bert", 5}, {"yolov3", 50}, {"imagenet", 250}};
  return *table;
}

class Pollux : public CsvFormat {
 public:
  enum BoundColumn : size_t { kTime, kNumReplicas, kApplication };

  absl::Status Open(const TraceSpec& spec) {
    KUEUESIM_RETURN_IF_ERROR(CheckOptions(spec, {"gpuResource", "gpusPerPod", "cpuPerGpu", "memoryPerGpu", "duration"},
                                          {"duration.", "gpuHours."}));
    gpu_resource_ = Option(spec, "gpuResource", kDefaultGpuResource);
    auto bad = [&](const std::string& key, const std::string& value, const char* what) {
      return InvalidArgument(
          fmt::format("spec.options.{}: \"{}\" is not {}", key, value, what));
    };
    for (const auto& [key, value] : spec.options) {
      if (key == "duration" || key.rfind("duration.", 0) == 0) {
        auto duration = ParseDuration(value);
        if (!duration.ok()) return bad(key, value, "a duration");
        if (key == "duration") {
          default_duration_ = *duration;
        } else {
          durations_[key.substr(9)] = *duration;
        }
      } else if (key.rfind("gpuHours.", 0) == 0) {
        auto hours = ParseNumber(value);
        if (!hours.has_value() || *hours < 0 || *hours > 1e9) return bad(key, value, "a number of GPU-hours");
        gpu_hours_[key.substr(9)] = *hours;
      } else if (key == "gpusPerPod") {
        auto per_pod = ParseInt(value);
        if (!per_pod.has_value() || *per_pod < 1 || *per_pod > 1'000'000) return bad(key, value, "a positive integer");
        gpus_per_pod_ = *per_pod;
      } else if (key == "cpuPerGpu" || key == "memoryPerGpu") {
        auto amount = ParseRequestAmount(value, key == "cpuPerGpu" ? "cpu" : "memory");
        if (!amount.has_value()) return bad(key, value, "a quantity");
        (key == "cpuPerGpu" ? cpu_per_gpu_ : memory_per_gpu_) = *amount;
      }
    }
    std::map<std::string, FieldMapping> defaults = {
        {"name", FieldOf("name")}, {"namespace", ValueOf("pollux")}, {"queue", ValueOf("main")}};
    KUEUESIM_RETURN_IF_ERROR(OpenCsv(spec, {"time", "application", "num_replicas"}, {"name", "batch_size"}, true,
                   std::move(defaults)));
    Bind({"time", "num_replicas", "application"});
    return absl::OkStatus();
  }

 protected:
  bool ParseRow(ImportReport* report, ParsedRecord* out) override {
    const int64_t ln = line();
    ParsedRecord& record = *out;
    model::Workload& wl = record.workload;
    SetSource(&wl);
    auto seconds = ParseNumber(Field(kTime));
    if (!seconds.has_value()) return SkipRow(report, ln, "bad time");
    if (*seconds < 0) return SkipRow(report, ln, "negative time");
    auto time = SecondsToMicros(*seconds);
    if (!time.has_value()) return SkipRow(report, ln, "bad time");
    record.time = *time;
    auto replicas = ParseInt(Field(kNumReplicas));
    if (!replicas.has_value() || *replicas < 1 || *replicas > 1'000'000) return SkipRow(report, ln, "bad num_replicas");
    const std::string application(Field(kApplication));
    if (application.empty()) return SkipRow(report, ln, "missing application");
    if (auto it = durations_.find(application); it != durations_.end()) {
      wl.duration = it->second;
    } else {
      std::optional<double> hours;
      if (auto gh = gpu_hours_.find(application); gh != gpu_hours_.end()) {
        hours = gh->second;
      } else if (default_duration_.has_value()) {
        wl.duration = *default_duration_;
      } else if (auto def = DefaultGpuHours().find(application); def != DefaultGpuHours().end()) {
        hours = def->second;
      } else {
        return SkipRow(report, ln, "unknown application (no duration: set options.duration.<application>)");
      }
      if (hours.has_value()) {
        wl.duration = CheckedRound(*hours * 3600.0 * static_cast<double>(kSecond) / static_cast<double>(*replicas));
        if (!wl.duration.has_value() || *wl.duration < 0) return SkipRow(report, ln, "bad gpu hours (duration out of range)");
      }
    }
    wl.meta.labels["kueuesim.io/application"] = application;
    model::PodSet pod_set;
    pod_set.name = "main";
    const int64_t pods = (*replicas + gpus_per_pod_ - 1) / gpus_per_pod_;
    const int64_t per_pod = (*replicas + pods - 1) / pods;
    if (per_pod * pods != *replicas) Repair(report, ln, "num_replicas not divisible into equal pods (rounded up)");
    pod_set.count = static_cast<int32_t>(pods);
    SetRequests(&pod_set, {{gpu_resource_, per_pod},
                           {"cpu", MulAmount(cpu_per_gpu_, per_pod)},
                           {"memory", MulAmount(memory_per_gpu_, per_pod)}});
    wl.pod_sets.push_back(std::move(pod_set));
    const std::string reason = ApplyMapping(FallbackName(spec_, ln), &wl);
    if (!reason.empty()) return SkipRow(report, ln, reason);
    return true;
  }

 private:
  std::string gpu_resource_;
  std::optional<SimDuration> default_duration_;
  std::map<std::string, SimDuration> durations_;
  std::map<std::string, double> gpu_hours_;
  int64_t gpus_per_pod_ = 1;
  Amount cpu_per_gpu_ = 0;
  Amount memory_per_gpu_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RecordFormat>> OpenPollux(const TraceSpec& spec) {
  auto format = std::make_unique<Pollux>();
  KUEUESIM_RETURN_IF_ERROR(format->Open(spec));
  return std::unique_ptr<RecordFormat>(std::move(format));
}

}  // namespace kueuesim::trace::internal
