// The format table: names, openers and generated objects; see importers.h.
#include "kueuesim/trace/importers.h"

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/trace/change_source.h"
#include "trace/formats.h"
#include "trace/source.h"

namespace kueuesim::trace {
namespace {

struct Format {
  const char* name;
  absl::StatusOr<std::unique_ptr<internal::RecordFormat>> (*open)(const TraceSpec&);
  absl::StatusOr<GeneratedObjects> (*objects)(const TraceSpec&);
  absl::StatusOr<GeneratedExtent> (*extent)(const TraceSpec&);
};

// Change formats are read with OpenChangeTrace (change_source.h); they
// define no objects.
absl::StatusOr<std::unique_ptr<internal::RecordFormat>> NotAWorkloadFormat(const TraceSpec& spec) {
  return InvalidArgument(fmt::format("spec.format: {} holds changes, not workloads (OpenChangeTrace)", spec.format));
}

constexpr Format kFormats[] = {
    {"native-csv", internal::OpenNativeCsv, nullptr, nullptr},
    {"native-jsonl", internal::OpenNativeJsonl, nullptr, nullptr},
    {"kueue-workloads", internal::OpenKueueWorkloads, nullptr, nullptr},
    {"kueue-perf-generator", internal::OpenPerfGenerator, internal::PerfGeneratorObjects, internal::PerfGeneratorExtent},
    {"alibaba-gpu-2023", internal::OpenAlibabaGpu2023, internal::AlibabaGpu2023Objects, nullptr},
    {"philly", internal::OpenPhilly, nullptr, nullptr},
    {"helios", internal::OpenHelios, nullptr, nullptr},
    {"pollux", internal::OpenPollux, nullptr, nullptr},
    {"alibaba-dlrm", internal::OpenAlibabaDlrm, internal::AlibabaDlrmObjects, nullptr},
    {"replica-timeline-csv", NotAWorkloadFormat, nullptr, nullptr},
    {"replica-timeline-jsonl", NotAWorkloadFormat, nullptr, nullptr},
};

absl::StatusOr<const Format*> FindFormat(const TraceSpec& spec) {
  for (const Format& format : kFormats) {
    if (spec.format == format.name) return &format;
  }
  std::string valid;
  for (const Format& format : kFormats) valid += (valid.empty() ? "" : ", ") + std::string(format.name);
  return InvalidArgument(fmt::format("{}: spec.format: unknown format \"{}\" (valid: {})",
                                     internal::TraceContext(spec), spec.format, valid));
}

absl::Status CheckSpec(const TraceSpec& spec) {
  const std::string context = internal::TraceContext(spec);
  if (spec.path.empty()) return InvalidArgument(fmt::format("{}: spec.path is required", context));
  if (!(spec.arrival_scale > 0) || !(spec.duration_scale > 0)) {
    return InvalidArgument(fmt::format("{}: spec.scale: arrival and duration must be positive", context));
  }
  if (spec.window_start.has_value() && spec.window_end.has_value() && *spec.window_end <= *spec.window_start) {
    return InvalidArgument(fmt::format("{}: spec.window: end must be after start", context));
  }
  if (spec.limit.has_value() && *spec.limit < 0) {
    return InvalidArgument(fmt::format("{}: spec.limit must not be negative", context));
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> FormatNames() {
  std::vector<std::string> out;
  for (const Format& format : kFormats) out.emplace_back(format.name);
  return out;
}

absl::StatusOr<std::unique_ptr<WorkloadSource>> OpenTrace(const TraceSpec& spec) {
  KUEUESIM_ASSIGN_OR_RETURN(const Format* format, FindFormat(spec));
  KUEUESIM_RETURN_IF_ERROR(CheckSpec(spec));
  auto opened = format->open(spec);
  if (!opened.ok()) return internal::TraceError(spec, opened.status());
  return internal::MakeSource(spec, *std::move(opened));
}

absl::StatusOr<GeneratedObjects> GeneratedObjectsFor(const TraceSpec& spec) {
  KUEUESIM_ASSIGN_OR_RETURN(const Format* format, FindFormat(spec));
  KUEUESIM_RETURN_IF_ERROR(CheckSpec(spec));
  if (format->objects == nullptr) return GeneratedObjects();
  auto objects = format->objects(spec);
  if (!objects.ok()) return internal::TraceError(spec, objects.status());
  return objects;
}

absl::StatusOr<GeneratedExtent> MeasureGenerated(const TraceSpec& spec) {
  KUEUESIM_ASSIGN_OR_RETURN(const Format* format, FindFormat(spec));
  KUEUESIM_RETURN_IF_ERROR(CheckSpec(spec));
  if (format->extent == nullptr) return GeneratedExtent();
  auto extent = format->extent(spec);
  if (!extent.ok()) return internal::TraceError(spec, extent.status());
  return extent;
}

}  // namespace kueuesim::trace
