// kueuesim.io/v1alpha1 Trace; see decode_trace.h.
#include "scenario/decode_trace.h"

#include <algorithm>
#include <filesystem>
#include <initializer_list>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/trace/importers.h"
#include "scenario/decode.h"

namespace kueuesim::scenario {
namespace {

constexpr char kClusterAnnotation[] = "kueuesim.io/cluster";

// Refuses keys of a mapping field outside `known`.
absl::Status CheckKeys(const FieldReader& field, std::initializer_list<const char*> known) {
  if (!field.present()) return absl::OkStatus();
  KUEUESIM_RETURN_IF_ERROR(field.ExpectMapping());
  for (size_t i = 0; i < field.node().size(); ++i) {
    const std::string_view key = field.node().key(i);
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (ok) continue;
    std::string valid;
    for (const char* k : known) valid += (valid.empty() ? "" : ", ") + std::string(k);
    return field.Field(key).Error(fmt::format("unknown field (valid: {})", valid));
  }
  return absl::OkStatus();
}

std::string Resolve(const std::string& base_dir, const std::string& path) {
  if (base_dir.empty() || path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(base_dir) / path).lexically_normal().string();
}

absl::StatusOr<double> PositiveNumber(const FieldReader& field) {
  KUEUESIM_ASSIGN_OR_RETURN(double value, field.Double());
  if (!(value > 0)) return field.Error("must be a positive number");
  return value;
}

}  // namespace

absl::StatusOr<trace::TraceSpec> DecodeTrace(const FieldReader& object, const std::string& base_dir) {
  trace::TraceSpec spec;
  KUEUESIM_ASSIGN_OR_RETURN(model::ObjectMeta meta, DecodeMeta(object, false));
  spec.name = meta.name;
  spec.source = meta.source;
  FieldReader spec_field = object.Field("spec");
  if (!spec_field.present()) return spec_field.Error("is required");
  KUEUESIM_RETURN_IF_ERROR(
      CheckKeys(spec_field, {"format", "path", "cluster", "mapping", "scale", "window", "limit", "options"}));

  KUEUESIM_ASSIGN_OR_RETURN(spec.format, spec_field.Field("format").String());
  const std::vector<std::string> formats = trace::FormatNames();
  if (std::find(formats.begin(), formats.end(), spec.format) == formats.end()) {
    std::string valid;
    for (const auto& f : formats) valid += (valid.empty() ? "" : ", ") + f;
    return spec_field.Field("format").Error(fmt::format("unknown format \"{}\" (valid: {})", spec.format, valid));
  }
  KUEUESIM_ASSIGN_OR_RETURN(std::string path, spec_field.Field("path").String());
  if (path.empty()) return spec_field.Field("path").Error("must not be empty");
  spec.path = Resolve(base_dir, path);

  KUEUESIM_ASSIGN_OR_RETURN(auto cluster, spec_field.Field("cluster").OptString());
  if (cluster.has_value()) {
    spec.cluster = *cluster;
  } else if (auto it = meta.annotations.find(kClusterAnnotation); it != meta.annotations.end()) {
    spec.cluster = it->second;
  }

  FieldReader mapping = spec_field.Field("mapping");
  KUEUESIM_RETURN_IF_ERROR(
      CheckKeys(mapping, {"namespace", "queue", "name", "priority", "priorityClass", "flavorLabel"}));
  for (size_t i = 0; mapping.present() && i < mapping.node().size(); ++i) {
    const std::string key(mapping.node().key(i));
    FieldReader item = mapping.Field(key);
    KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
    KUEUESIM_RETURN_IF_ERROR(CheckKeys(item, {"value", "field", "values", "default", "prefix", "label"}));
    trace::FieldMapping m;
    KUEUESIM_ASSIGN_OR_RETURN(auto value, item.Field("value").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(auto field, item.Field("field").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(auto default_value, item.Field("default").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(auto prefix, item.Field("prefix").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(auto label, item.Field("label").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(model::Labels values, item.Field("values").StringMap());
    m.values.insert(values.begin(), values.end());
    m.value = value.value_or("");
    m.field = field.value_or("");
    m.default_value = default_value.value_or("");
    m.prefix = prefix.value_or("");
    m.label = label.value_or("");
    if (!m.value.empty() && !m.field.empty()) return item.Error("set either value or field, not both");
    if (m.value.empty() && m.field.empty() && m.default_value.empty()) {
      return item.Error("needs a value or a field");
    }
    if (!m.values.empty() && m.field.empty()) return item.Field("values").Error("needs a field");
    if (key == "flavorLabel" && m.label.empty()) {
      return item.Field("label").Error("is required (the node label to select on)");
    }
    if (key != "flavorLabel" && !m.label.empty()) {
      return item.Field("label").Error("applies only to flavorLabel");
    }
    if (key == "priority" && !m.value.empty()) {
      KUEUESIM_RETURN_IF_ERROR(item.Field("value").Int32().status());
    }
    spec.mapping[key] = std::move(m);
  }

  FieldReader scale = spec_field.Field("scale");
  KUEUESIM_RETURN_IF_ERROR(CheckKeys(scale, {"arrival", "duration"}));
  if (scale.Field("arrival").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(spec.arrival_scale, PositiveNumber(scale.Field("arrival")));
  }
  if (scale.Field("duration").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(spec.duration_scale, PositiveNumber(scale.Field("duration")));
  }

  FieldReader window = spec_field.Field("window");
  KUEUESIM_RETURN_IF_ERROR(CheckKeys(window, {"start", "end"}));
  if (window.Field("start").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(spec.window_start, window.Field("start").Duration());
  }
  if (window.Field("end").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(spec.window_end, window.Field("end").Duration());
  }
  if (spec.window_start.has_value() && spec.window_end.has_value() && *spec.window_end <= *spec.window_start) {
    return window.Field("end").Error("must be after window.start");
  }

  if (spec_field.Field("limit").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(int64_t limit, spec_field.Field("limit").Int64());
    if (limit < 0) return spec_field.Field("limit").Error("must not be negative");
    spec.limit = limit;
  }

  KUEUESIM_ASSIGN_OR_RETURN(model::Labels options, spec_field.Field("options").StringMap());
  for (auto& [key, value] : options) {
    if (key == "nodes") value = Resolve(base_dir, value);
    spec.options[key] = value;
  }
  return spec;
}

}  // namespace kueuesim::scenario
