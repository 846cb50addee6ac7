// alibaba-gpu-2023: the Alibaba PAI "openb" pod list of the FGD paper
// (alibaba/clusterdata cluster-trace-gpu-v2023, openb_pod_list_*.csv):
//   name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,
//   creation_time,deletion_time,scheduled_time
// times in seconds since the trace start. One workload per pod (pod set
// "main", count 1):
//   arrival     creation_time
//   duration    deletion_time - scheduled_time (in the default list, 34
//               Running pods carry the trace end, 12902960 s, as deletion_time)
//   requests    cpu = cpu_milli (milli-cores), memory = memory_mib MiB;
//               num_gpu whole GPUs as options.gpuResource (nvidia.com/gpu);
//               a fractional GPU (num_gpu 1, gpu_milli < 1000) as
//               options.gpuMilliResource (alibaba.com/gpu-milli) = gpu_milli
//   annotation  kueuesim.io/recorded-wait = scheduled_time - creation_time
// Skipped: never scheduled (empty scheduled_time; the Pending pods),
// negative durations, unparsable numbers.
// Default mapping: name from `name`, namespace "alibaba", queue "main",
// priority from qos (LS 1000, Guaranteed 800, Burstable 500, BE 100; other
// values: none), flavorLabel gpu_spec as node label gpu-model (a single
// model: a nodeSelector; "A|B": a required node-affinity term In [A, B]).
//
// Nodes (GeneratedObjectsFor with options.nodes = an openb_node_list_*.csv,
// columns sn,cpu_milli,memory_mib,gpu,model): Node sn with labels
// <flavorLabel label>=model (when set) and kubernetes.io/hostname=sn,
// allocatable cpu, memory, pods 110, and for GPU nodes gpu GPUs and
// gpu*1000 gpu-milli.
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "trace/csv_format.h"
#include "trace/formats.h"

namespace kueuesim::trace::internal {
namespace {

constexpr char kDefaultGpuMilliResource[] = "alibaba.com/gpu-milli";
constexpr char kDefaultModelLabel[] = "gpu-model";
constexpr int64_t kMiB = 1024 * 1024;

std::map<std::string, FieldMapping> AlibabaDefaults() {
  FieldMapping priority = FieldOf("qos");
  priority.values = {{"LS", "1000"}, {"Guaranteed", "800"}, {"Burstable", "500"}, {"BE", "100"}};
  FieldMapping flavor = FieldOf("gpu_spec");
  flavor.label = kDefaultModelLabel;
  return {{"name", FieldOf("name")},
          {"namespace", ValueOf("alibaba")},
          {"queue", ValueOf("main")},
          {"priority", std::move(priority)},
          {"flavorLabel", std::move(flavor)}};
}

// Seconds since the trace start, as microseconds.
std::optional<int64_t> Seconds(std::string_view text) {
  auto value = ParseNumber(text);
  if (!value.has_value() || *value < 0) return std::nullopt;
  return SecondsToMicros(*value);
}

class AlibabaGpu2023 : public CsvFormat {
 public:
  enum BoundColumn : size_t { kCreationTime, kScheduledTime, kDeletionTime, kCpuMilli, kMemoryMib, kNumGpu, kGpuMilli };

  absl::Status Open(const TraceSpec& spec) {
    KUEUESIM_RETURN_IF_ERROR(CheckOptions(spec, {"gpuResource", "gpuMilliResource", "nodes"}));
    gpu_resource_ = Option(spec, "gpuResource", kDefaultGpuResource);
    gpu_milli_resource_ = Option(spec, "gpuMilliResource", kDefaultGpuMilliResource);
    KUEUESIM_RETURN_IF_ERROR(OpenCsv(spec,
                   {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "creation_time", "deletion_time",
                    "scheduled_time"},
                   {"gpu_spec", "qos", "pod_phase"}, true, AlibabaDefaults()));
    Bind({"creation_time", "scheduled_time", "deletion_time", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"});
    return absl::OkStatus();
  }

 protected:
  bool ParseRow(ImportReport* report, ParsedRecord* out) override {
    const int64_t ln = line();
    ParsedRecord& record = *out;
    model::Workload& wl = record.workload;
    SetSource(&wl);
    const std::string_view creation_text = Field(kCreationTime);
    if (creation_text.empty()) return SkipRow(report, ln, "missing creation_time");
    auto creation = Seconds(creation_text);
    if (!creation.has_value()) return SkipRow(report, ln, "bad creation_time");
    record.time = *creation;
    const std::string_view scheduled_text = Field(kScheduledTime);
    if (scheduled_text.empty()) return SkipRow(report, ln, "never scheduled");
    auto scheduled = Seconds(scheduled_text);
    if (!scheduled.has_value()) return SkipRow(report, ln, "bad scheduled_time");
    const std::string_view deletion_text = Field(kDeletionTime);
    if (deletion_text.empty()) {
      Repair(report, ln, "no deletion_time (runs until the end)");
    } else {
      auto deletion = Seconds(deletion_text);
      if (!deletion.has_value()) return SkipRow(report, ln, "bad deletion_time");
      if (*deletion < *scheduled) return SkipRow(report, ln, "negative duration");
      wl.duration = *deletion - *scheduled;
    }
    if (*scheduled < *creation) {
      Repair(report, ln, "scheduled before creation (recorded wait 0)");
      wl.meta.annotations[kRecordedWaitAnnotation] = FormatDuration(0);
    } else {
      wl.meta.annotations[kRecordedWaitAnnotation] = FormatDuration(*scheduled - *creation);
    }

    std::map<std::string, Amount> requests;
    auto cpu = ParseInt(Field(kCpuMilli));
    if (!cpu.has_value() || *cpu < 0) return SkipRow(report, ln, "bad cpu_milli");
    requests["cpu"] = *cpu;
    auto memory = ParseNumber(Field(kMemoryMib));
    if (!memory.has_value() || *memory < 0 || *memory > 1e12) return SkipRow(report, ln, "bad memory_mib");
    requests["memory"] = static_cast<Amount>(std::llround(*memory * static_cast<double>(kMiB)));
    auto gpus = ParseInt(Field(kNumGpu));
    if (!gpus.has_value() || *gpus < 0 || *gpus > 1'000'000) return SkipRow(report, ln, "bad num_gpu");
    auto gpu_milli = ParseInt(Field(kGpuMilli));
    if (!gpu_milli.has_value() || *gpu_milli < 0 || *gpu_milli > 1000) return SkipRow(report, ln, "bad gpu_milli");
    if (*gpus == 0) {
      if (*gpu_milli != 0) Repair(report, ln, "gpu_milli without num_gpu (ignored)");
    } else if (*gpus == 1 && *gpu_milli > 0 && *gpu_milli < 1000) {
      requests[gpu_milli_resource_] = *gpu_milli;
    } else {
      if (*gpu_milli == 0) Repair(report, ln, "num_gpu with gpu_milli 0 (whole GPUs)");
      if (*gpus > 1 && *gpu_milli > 0 && *gpu_milli < 1000) {
        Repair(report, ln, "gpu_milli < 1000 with num_gpu > 1 (whole GPUs)");
      }
      requests[gpu_resource_] = *gpus;
    }
    model::PodSet pod_set;
    pod_set.name = "main";
    SetRequests(&pod_set, requests);
    wl.pod_sets.push_back(std::move(pod_set));
    const std::string reason = ApplyMapping(FallbackName(spec_, ln), &wl);
    if (!reason.empty()) return SkipRow(report, ln, reason);
    return true;
  }

 private:
  std::string gpu_resource_;
  std::string gpu_milli_resource_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RecordFormat>> OpenAlibabaGpu2023(const TraceSpec& spec) {
  auto format = std::make_unique<AlibabaGpu2023>();
  KUEUESIM_RETURN_IF_ERROR(format->Open(spec));
  return std::unique_ptr<RecordFormat>(std::move(format));
}

absl::StatusOr<GeneratedObjects> AlibabaGpu2023Objects(const TraceSpec& spec) {
  GeneratedObjects out;
  const std::string path = Option(spec, "nodes", "");
  if (path.empty()) return out;
  const std::string gpu_resource = Option(spec, "gpuResource", kDefaultGpuResource);
  const std::string gpu_milli_resource = Option(spec, "gpuMilliResource", kDefaultGpuMilliResource);
  std::string model_label = kDefaultModelLabel;
  if (auto it = spec.mapping.find("flavorLabel"); it != spec.mapping.end() && !it->second.label.empty()) {
    model_label = it->second.label;
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto reader, CsvReader::Open(path));
  KUEUESIM_RETURN_IF_ERROR(reader->ReadHeader());
  std::vector<size_t> columns;
  for (const char* name : {"sn", "cpu_milli", "memory_mib", "gpu"}) {
    auto column = reader->Column(name);
    if (!column.has_value()) {
      return InvalidArgument(fmt::format("{}:1: options.nodes: the header lacks column {} (columns: "
                                         "sn,cpu_milli,memory_mib,gpu[,model])",
                                         path, name));
    }
    columns.push_back(*column);
  }
  const std::optional<size_t> model_column = reader->Column("model");
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t>, std::shared_ptr<const model::NodeTemplate>> shapes;
  while (true) {
    KUEUESIM_ASSIGN_OR_RETURN(bool more, reader->Next());
    if (!more) break;
    auto error = [&](const std::string& what) {
      return InvalidArgument(fmt::format("{}:{}: options.nodes: {}", path, reader->line(), what));
    };
    if (!reader->malformed().empty()) return error("malformed CSV: " + reader->malformed());
    if (reader->size() != reader->header().size()) return error("wrong number of fields");
    std::string name(reader->Get(columns[0]));
    if (name.empty()) return error("empty sn");
    auto cpu = ParseInt(reader->Get(columns[1]));
    auto memory = ParseInt(reader->Get(columns[2]));
    auto gpu = ParseInt(reader->Get(columns[3]));
    if (!cpu.has_value() || *cpu < 0) return error("bad cpu_milli");
    if (!memory.has_value() || *memory < 0 || *memory > (int64_t{1} << 40)) return error("bad memory_mib");
    if (!gpu.has_value() || *gpu < 0 || *gpu > 1'000'000) return error("bad gpu");
    const std::string gpu_model =
        model_column.has_value() ? std::string(reader->Get(*model_column)) : std::string();
    // Nodes of one shape share their labels and allocatable (the source
    // names the first node of the shape).
    std::shared_ptr<const model::NodeTemplate>& shared = shapes[{gpu_model, *cpu, *memory, *gpu}];
    if (shared == nullptr) {
      model::NodeTemplate shape;
      shape.source = {path, static_cast<int32_t>(reader->line())};
      shape.cluster = spec.cluster;
      if (!gpu_model.empty()) shape.labels[model_label] = gpu_model;
      shape.allocatable["cpu"] = *cpu;
      shape.allocatable["memory"] = *memory * kMiB;
      shape.allocatable["pods"] = 110;
      if (*gpu > 0) {
        shape.allocatable[gpu_resource] = *gpu;
        shape.allocatable[gpu_milli_resource] = *gpu * 1000;
      }
      shared = std::make_shared<const model::NodeTemplate>(std::move(shape));
    }
    model::Node node;
    node.name = std::move(name);
    node.shared = shared;
    node.hostname_label = true;
    out.nodes.push_back(std::move(node));
  }
  return out;
}

}  // namespace kueuesim::trace::internal
