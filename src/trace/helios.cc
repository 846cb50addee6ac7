// helios: SenseTime Helios job logs (S-Lab-System-Group/HeliosData,
// data/<cluster>/cluster_log.csv):
//   job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,
//   end_time,duration,queue
// (a `jobname` column is accepted too). Times are "YYYY-MM-DD HH:MM:SS"
// (UTC assumed); `duration` (end - start) and `queue` (start - submit) are
// seconds. The log is read in any order; trace time 0 is the earliest valid
// submit_time. One workload per job, one pod set "main" of node_num pods,
// each with gpu_num / node_num GPUs and cpu_num / node_num CPUs (rounded up,
// counted as repaired, when they do not divide):
//   arrival     submit_time
//   duration    the `duration` column, else end_time - start_time
//   annotation  kueuesim.io/recorded-wait = start_time - submit_time (else
//               the `queue` column)
// Skipped (counted by reason): jobs that never started (no start_time) and
// CANCELLED jobs with zero duration (cancelled while queued), negative
// durations, unparsable times and numbers.
// Default mapping: name "helios-<job_id>", namespace = vc, queue "main";
// no priority.
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "trace/csv_format.h"
#include "trace/formats.h"

namespace kueuesim::trace::internal {
namespace {

class Helios : public CsvFormat {
 public:
  enum BoundColumn : size_t { kJobId, kSubmitTime, kState, kStartTime, kDuration, kEndTime, kQueue, kGpuNum, kCpuNum, kNodeNum };

  absl::Status Open(const TraceSpec& spec) {
    KUEUESIM_RETURN_IF_ERROR(CheckOptions(spec, {"gpuResource"}));
    gpu_resource_ = Option(spec, "gpuResource", kDefaultGpuResource);
    std::map<std::string, FieldMapping> defaults = {{"name", FieldOf("job_id", "helios-")},
                                                    {"namespace", FieldOf("vc")},
                                                    {"queue", ValueOf("main")}};
    KUEUESIM_RETURN_IF_ERROR(OpenCsv(spec, {"job_id", "vc", "gpu_num", "cpu_num", "node_num", "state", "submit_time"},
                                     {"user", "jobname", "start_time", "end_time", "duration", "queue"}, true,
                                     std::move(defaults)));
    Bind({"job_id", "submit_time", "state", "start_time", "duration", "end_time", "queue", "gpu_num", "cpu_num",
          "node_num"});
    has_start_time_ = HasColumn("start_time");
    if (!HasColumn("duration") && !(HasColumn("start_time") && HasColumn("end_time"))) {
      return InvalidArgument(fmt::format("{}:1: the header needs a duration column or start_time and end_time",
                                         spec.path));
    }
    return absl::OkStatus();
  }

  bool absolute_time() const override { return true; }

 protected:
  bool ParseRow(ImportReport* report, ParsedRecord* out) override {
    const int64_t ln = line();
    ParsedRecord& record = *out;
    model::Workload& wl = record.workload;
    SetSource(&wl);
    if (Field(kJobId).empty()) return SkipRow(report, ln, "missing job_id");
    auto submit = ParseDateTime(Field(kSubmitTime));
    if (!submit.has_value()) return SkipRow(report, ln, "bad submit_time");
    record.time = *submit;
    const std::string_view state = Field(kState);
    std::optional<int64_t> start;
    if (const std::string_view text = Field(kStartTime); !text.empty()) {
      start = ParseDateTime(text);
      if (!start.has_value()) return SkipRow(report, ln, "bad start_time");
    } else if (has_start_time_) {
      return SkipRow(report, ln, state == "CANCELLED" ? "cancelled before start" : "never started");
    }
    // Duration: the column, else end - start.
    if (const std::string_view text = Field(kDuration); !text.empty()) {
      auto seconds = ParseNumber(text);
      if (!seconds.has_value()) return SkipRow(report, ln, "bad duration");
      if (*seconds < 0) return SkipRow(report, ln, "negative duration");
      wl.duration = SecondsToMicros(*seconds);
      if (!wl.duration.has_value()) return SkipRow(report, ln, "bad duration");
    } else {
      const std::string_view end_text = Field(kEndTime);
      if (!start.has_value() || end_text.empty()) return SkipRow(report, ln, "missing duration");
      auto end = ParseDateTime(end_text);
      if (!end.has_value()) return SkipRow(report, ln, "bad end_time");
      if (*end < *start) return SkipRow(report, ln, "negative duration");
      wl.duration = *end - *start;
    }
    if (state == "CANCELLED" && *wl.duration == 0) return SkipRow(report, ln, "cancelled with zero duration");
    // Recorded wait.
    if (start.has_value()) {
      if (*start < *submit) {
        Repair(report, ln, "started before submission (recorded wait 0)");
        wl.meta.annotations[kRecordedWaitAnnotation] = FormatDuration(0);
      } else {
        wl.meta.annotations[kRecordedWaitAnnotation] = FormatDuration(*start - *submit);
      }
    } else if (const std::string_view queue = Field(kQueue); !queue.empty()) {
      auto seconds = ParseNumber(queue);
      if (!seconds.has_value() || *seconds < 0 || !SecondsToMicros(*seconds).has_value()) {
        return SkipRow(report, ln, "bad queue");
      }
      wl.meta.annotations[kRecordedWaitAnnotation] = FormatDuration(*SecondsToMicros(*seconds));
    }
    // Resources.
    auto gpus = ParseInt(Field(kGpuNum));
    if (!gpus.has_value() || *gpus < 0 || *gpus > 1'000'000) return SkipRow(report, ln, "bad gpu_num");
    auto cpus = ParseInt(Field(kCpuNum));
    if (!cpus.has_value() || *cpus < 0 || *cpus > 1'000'000'000) return SkipRow(report, ln, "bad cpu_num");
    int64_t nodes = 1;
    const std::string_view node_text = Field(kNodeNum);
    // Missing or zero in any spelling ("0", "00", "+0", "-0"): one node.
    const std::optional<int64_t> node_num = node_text.empty() ? std::optional<int64_t>(0) : ParseInt(node_text);
    if (!node_num.has_value() || *node_num < 0 || *node_num > 1'000'000) return SkipRow(report, ln, "bad node_num");
    if (*node_num == 0) {
      Repair(report, ln, "node_num missing or 0 (1 node)");
    } else {
      nodes = *node_num;
    }
    const int64_t gpus_per_pod = (*gpus + nodes - 1) / nodes;
    const int64_t cpus_per_pod = (*cpus + nodes - 1) / nodes;
    if (gpus_per_pod * nodes != *gpus || cpus_per_pod * nodes != *cpus) {
      Repair(report, ln, "gpu_num or cpu_num not divisible by node_num (rounded up)");
    }
    model::PodSet pod_set;
    pod_set.name = "main";
    pod_set.count = static_cast<int32_t>(nodes);
    SetRequests(&pod_set, {{gpu_resource_, gpus_per_pod}, {"cpu", cpus_per_pod * 1000}});
    wl.pod_sets.push_back(std::move(pod_set));
    const std::string reason = ApplyMapping(FallbackName(spec_, ln), &wl);
    if (!reason.empty()) return SkipRow(report, ln, reason);
    return true;
  }

 private:
  std::string gpu_resource_;
  bool has_start_time_ = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RecordFormat>> OpenHelios(const TraceSpec& spec) {
  auto format = std::make_unique<Helios>();
  KUEUESIM_RETURN_IF_ERROR(format->Open(spec));
  return std::unique_ptr<RecordFormat>(std::move(format));
}

}  // namespace kueuesim::trace::internal
