// Shared parts of Kueue's job integrations; see common.h. Semantics follow
// kueue pkg/controller/jobframework (validation.go, tas.go,
// tas_validation.go, reconciler.go ExtractPriority, workload_names.go).
#include "scenario/kinds/common.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/quantity.h"
#include "kueuesim/base/status.h"
#include "kueuesim/doc/reader.h"

namespace kueuesim::scenario::kinds {
namespace {

constexpr char kMaxExecTimeLabel[] = "kueue.x-k8s.io/max-exec-time-seconds";

// TAS annotations on pod templates (kueue apis/kueue/v1beta2 constants).
constexpr char kRequired[] = "kueue.x-k8s.io/podset-required-topology";
constexpr char kPreferred[] = "kueue.x-k8s.io/podset-preferred-topology";
constexpr char kUnconstrained[] = "kueue.x-k8s.io/podset-unconstrained-topology";
constexpr char kSliceRequired[] = "kueue.x-k8s.io/podset-slice-required-topology";
constexpr char kSliceSize[] = "kueue.x-k8s.io/podset-slice-size";
constexpr char kSliceConstraints[] = "kueue.x-k8s.io/podset-slice-required-topology-constraints";
constexpr char kGroupName[] = "kueue.x-k8s.io/podset-group-name";

const std::string* Find(const model::Labels& map, const char* key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// k8s.io/apimachinery validation.IsDNS1123Subdomain.
bool IsDnsSubdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('.', start);
    if (end == std::string_view::npos) end = name.size();
    std::string_view label = name.substr(start, end - start);
    if (label.empty() || label.size() > 63) return false;
    if (!lower_alnum(label.front()) || !lower_alnum(label.back())) return false;
    for (char c : label) {
      if (!lower_alnum(c) && c != '-') return false;
    }
    start = end + 1;
    if (end == name.size()) break;
  }
  return true;
}

// validation.IsQualifiedName (label keys): [prefix/]name.
bool IsQualifiedName(std::string_view value) {
  std::string_view name = value;
  const size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (!IsDnsSubdomain(value.substr(0, slash))) return false;
    name = value.substr(slash + 1);
  }
  if (name.empty() || name.size() > 63) return false;
  if (!IsAlnum(name.front()) || !IsAlnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// Go's strconv.ParseBool.
std::optional<bool> ParseGoBool(std::string_view text) {
  for (std::string_view t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == t) return true;
  }
  for (std::string_view f : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == f) return false;
  }
  return std::nullopt;
}

// Go's strconv.ParseInt(text, 10, 32) (a leading sign allowed).
std::optional<int32_t> ParseGoInt32(std::string_view text) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '+') ++begin;
  int32_t value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || begin == end) return std::nullopt;
  return value;
}

absl::Status CheckLabelName(const FieldReader& field, const std::string& value) {
  if (IsQualifiedName(value)) return absl::OkStatus();
  return field.Error(fmt::format("\"{}\" is not a valid label name", value));
}

// The slice layers of the multi-layer constraints annotation, a JSON list of
// {"topology": <label>, "size": <n>} (coarse to fine), checked as
// validateSliceRequiredTopologyConstraintsAnnotation does.
absl::StatusOr<std::vector<model::SliceLayer>> ParseSliceConstraints(const FieldReader& field,
                                                                     const std::string& text) {
  auto documents = doc::ReadAllFromString(text, field.node().file());
  const bool parsed = documents.ok() && documents->size() == 1 && documents->front().root().IsSequence();
  if (!parsed) return field.Error(fmt::format("\"{}\" must be a valid JSON array of {{topology, size}}", text));
  const doc::Node list = documents->front().root();
  if (list.size() == 0 || list.size() > 3) {
    return field.Error(fmt::format("\"{}\": topology constraints must contain between 1 and 3 entries", text));
  }
  std::vector<model::SliceLayer> layers;
  std::set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const doc::Node entry = list.at(i);
    const std::string where = fmt::format("entry {} of \"{}\"", i, text);
    if (!entry.IsMapping()) return field.Error(where + " must be an object {topology, size}");
    model::SliceLayer layer;
    if (entry.Get("topology").IsScalar()) layer.topology = std::string(entry.Get("topology").scalar());
    std::optional<int32_t> size;
    if (entry.Get("size").IsScalar()) size = ParseGoInt32(entry.Get("size").scalar());
    if (entry.Get("size").valid() && !size.has_value()) return field.Error(where + ": size must be an integer");
    layer.size = size.value_or(0);
    if (!IsQualifiedName(layer.topology)) {
      return field.Error(fmt::format("{}: topology \"{}\" is not a valid label name", where, layer.topology));
    }
    if (layer.size < 1) return field.Error(where + ": size must be greater than or equal to 1");
    if (!seen.insert(layer.topology).second) {
      return field.Error(fmt::format("{}: topology \"{}\" appears twice", where, layer.topology));
    }
    if (!layers.empty() && layers.back().size % layer.size != 0) {
      return field.Error(
          fmt::format("{}: size {} must evenly divide the parent layer size {}", where, layer.size, layers.back().size));
    }
    layers.push_back(std::move(layer));
  }
  return layers;
}

}  // namespace

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

absl::StatusOr<JobObject> ReadJobObject(const FieldReader& object, std::string_view kind) {
  JobObject job;
  job.kind = std::string(kind);
  KUEUESIM_ASSIGN_OR_RETURN(job.meta, DecodeMeta(object, true));
  // Only the label (jobframework.QueueNameForObject): Kueue stopped reading
  // the deprecated annotation of the same name (kueue#7271).
  if (const std::string* label = Find(job.meta.labels, kQueueNameLabel); label != nullptr) job.queue_name = *label;
  return job;
}

std::string NoQueueNameReason() {
  return fmt::format("has no {} label; Kueue does not manage it", kQueueNameLabel);
}

bool IsElastic(const JobObject& job) {
  const std::string* value = Find(job.meta.annotations, kElasticJobAnnotation);
  return value != nullptr && *value == "true";
}

absl::Status ValidateJobOnCreate(const FieldReader& object, const JobObject& job, bool elastic_supported) {
  FieldReader metadata = object.Field("metadata");
  if (!IsDnsSubdomain(job.queue_name)) {
    const bool labelled = Find(job.meta.labels, kQueueNameLabel) != nullptr;
    return metadata.Field(labelled ? "labels" : "annotations")
        .Field(kQueueNameLabel)
        .Error(fmt::format("\"{}\" is not a valid queue name (a DNS-1123 subdomain)", job.queue_name));
  }
  if (const std::string* value = Find(job.meta.labels, kMaxExecTimeLabel)) {
    const std::optional<int32_t> seconds = ParseGoInt32(*value);
    if (!seconds.has_value() || *seconds <= 0) {
      return metadata.Field("labels").Field(kMaxExecTimeLabel).Error(
          fmt::format("\"{}\" must be an integer greater than 0", *value));
    }
  }
  if (IsElastic(job) && !elastic_supported) {
    return metadata.Field("annotations").Field(kElasticJobAnnotation).Error(
        fmt::format("elastic jobs are not supported for {} (only batch/v1 Job, RayCluster, RayJob and RayService)",
                    job.kind));
  }
  return absl::OkStatus();
}

absl::StatusOr<model::Workload> NewWorkload(const FieldReader& object, const JobObject& job,
                                            model::WorkloadSourceKind source) {
  model::Workload wl;
  wl.meta = job.meta;
  wl.meta.name = Lower(job.kind) + "-" + job.meta.name;
  wl.source_kind = source;
  wl.queue_name = job.queue_name;
  KUEUESIM_RETURN_IF_ERROR(DecodeTimingAnnotations(object.Field("metadata"), &wl));
  if (const std::string* priority_class = Find(job.meta.labels, kPriorityClassLabel)) {
    if (!priority_class->empty()) {
      wl.priority_class_name = *priority_class;
      wl.rare.Mutable().priority_class_source = kWorkloadPriorityClassSource;
    }
  }
  if (const std::string* value = Find(job.meta.labels, kMaxExecTimeLabel)) {
    wl.rare.Mutable().maximum_execution_time_seconds = ParseGoInt32(*value);
  }
  return wl;
}

absl::StatusOr<std::optional<model::TopologyRequest>> TopologyRequestFromAnnotations(
    const FieldReader& annotations, int32_t count, const TopologyIndex& index) {
  KUEUESIM_RETURN_IF_ERROR(annotations.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(model::Labels values, annotations.StringMap());
  return TopologyRequestFromMap(values, annotations, [&](std::string_view key) { return annotations.Field(key); },
                                count, index);
}

absl::StatusOr<std::optional<model::TopologyRequest>> TopologyRequestFromMap(
    const model::Labels& values, const FieldReader& annotations,
    const std::function<FieldReader(std::string_view)>& field_of, int32_t count, const TopologyIndex& index) {
  const std::string* required = Find(values, kRequired);
  const std::string* preferred = Find(values, kPreferred);
  const std::string* unconstrained = Find(values, kUnconstrained);
  const std::string* slice_required = Find(values, kSliceRequired);
  const std::string* slice_size_text = Find(values, kSliceSize);
  const std::string* constraints_text = Find(values, kSliceConstraints);
  const std::string* group = Find(values, kGroupName);

  // ValidateTASPodSetRequest.
  if ((required != nullptr) + (preferred != nullptr) + (unconstrained != nullptr) > 1) {
    return annotations.Error(fmt::format("must not contain more than one topology annotation: [\"{}\", \"{}\", \"{}\"]",
                                         kRequired, kPreferred, kUnconstrained));
  }
  if (required != nullptr) KUEUESIM_RETURN_IF_ERROR(CheckLabelName(field_of(kRequired), *required));
  if (preferred != nullptr) KUEUESIM_RETURN_IF_ERROR(CheckLabelName(field_of(kPreferred), *preferred));
  if (slice_required != nullptr) {
    KUEUESIM_RETURN_IF_ERROR(CheckLabelName(field_of(kSliceRequired), *slice_required));
  }
  if (group != nullptr) {
    FieldReader field = field_of(kGroupName);
    if (!group->empty() && std::all_of(group->begin(), group->end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return field.Error(fmt::format("\"{}\" must not be a number", *group));
    }
    if (slice_size_text != nullptr) return field.Error(fmt::format("may not be set when '{}' is specified", kSliceSize));
    if (slice_required != nullptr) {
      return field.Error(fmt::format("may not be set when '{}' is specified", kSliceRequired));
    }
    if (required == nullptr && preferred == nullptr) {
      return field.Error(
          fmt::format("may not be set when neither '{}' nor '{}' is specified", kPreferred, kRequired));
    }
  }
  std::optional<bool> unconstrained_value;
  if (unconstrained != nullptr) {
    unconstrained_value = ParseGoBool(*unconstrained);
    if (!unconstrained_value.has_value()) {
      return field_of(kUnconstrained).Error(fmt::format("\"{}\" must be a boolean value", *unconstrained));
    }
  }
  std::optional<int32_t> slice_size;
  if (slice_size_text != nullptr) {
    slice_size = ParseGoInt32(*slice_size_text);
    if (!slice_size.has_value()) {
      return field_of(kSliceSize).Error(fmt::format("\"{}\" must be a numeric value", *slice_size_text));
    }
    if (*slice_size < 1) {
      return field_of(kSliceSize).Error(
          fmt::format("\"{}\" must be greater than or equal to 1", *slice_size_text));
    }
    if (slice_required == nullptr) {
      return field_of(kSliceSize).Error(
          fmt::format("may not be set when '{}' is not specified", kSliceRequired));
    }
    if (*slice_size > count) {
      return field_of(kSliceSize).Error(
          fmt::format("\"{}\" must not be greater than pod set count {}", *slice_size_text, count));
    }
  } else if (slice_required != nullptr) {
    return field_of(kSliceSize).Error(fmt::format("must be set when '{}' is specified", kSliceRequired));
  }
  std::vector<model::SliceLayer> constraints;
  if (constraints_text != nullptr) {
    FieldReader field = field_of(kSliceConstraints);
    if (slice_required != nullptr) {
      return field.Error(fmt::format("may not be set when '{}' is specified", kSliceRequired));
    }
    if (group != nullptr) {
      return field_of(kGroupName).Error(
          fmt::format("may not be set when '{}' is specified", kSliceConstraints));
    }
    KUEUESIM_ASSIGN_OR_RETURN(constraints, ParseSliceConstraints(field, *constraints_text));
    if (constraints.front().size > count) {
      return field.Error(fmt::format("size {} must not be greater than pod set count {}", constraints.front().size, count));
    }
  }

  // podSetTopologyRequestBuilder.Build.
  model::TopologyRequest request;
  if (required != nullptr) {
    request.required = *required;
  } else if (preferred != nullptr) {
    request.preferred = *preferred;
  } else if (unconstrained != nullptr) {
    request.unconstrained = unconstrained_value;
  } else {
    const bool has_slice_layer = slice_size.has_value() || constraints_text != nullptr;
    const bool has_index = index.pod_index_label.has_value() || index.sub_group_index_label.has_value() ||
                           index.sub_group_count.has_value();
    if (!has_slice_layer && !has_index) return std::optional<model::TopologyRequest>();
  }
  if (!constraints.empty()) {
    request.slice_layers = std::move(constraints);
  } else if (slice_size.has_value()) {
    request.slice_layers.push_back(model::SliceLayer{*slice_required, *slice_size});
  }
  request.pod_index_label = index.pod_index_label;
  request.sub_group_index_label = index.sub_group_index_label;
  request.sub_group_count = index.sub_group_count;
  if (group != nullptr && (required != nullptr || preferred != nullptr)) request.pod_set_group_name = *group;
  return std::optional<model::TopologyRequest>(std::move(request));
}

absl::StatusOr<model::PodSet> PodSetFromTemplate(const FieldReader& pod_template, std::string name, int32_t count,
                                                 const TopologyIndex& index, const PodSpecExtras* extras) {
  if (!pod_template.present()) return pod_template.Error("is required");
  KUEUESIM_RETURN_IF_ERROR(pod_template.ExpectMapping());
  model::PodSet pod_set;
  pod_set.name = std::move(name);
  pod_set.count = count;
  if (extras != nullptr) {
    KUEUESIM_RETURN_IF_ERROR(DecodePodSpec(pod_template.Field("spec"), *extras, &pod_set));
  } else {
    KUEUESIM_RETURN_IF_ERROR(DecodePodTemplate(pod_template, &pod_set));
  }
  KUEUESIM_ASSIGN_OR_RETURN(
      pod_set.topology_request,
      TopologyRequestFromAnnotations(pod_template.Field("metadata").Field("annotations"), count, index));
  return pod_set;
}

absl::Status ValidatePodSetGroups(const std::vector<model::PodSet>& pod_sets,
                                  const std::vector<FieldReader>& annotations) {
  // Groups in order of first appearance (orderedgroups).
  std::vector<std::pair<std::string, std::vector<size_t>>> groups;
  for (size_t i = 0; i < pod_sets.size(); ++i) {
    const auto& request = pod_sets[i].topology_request;
    if (!request.has_value() || !request->pod_set_group_name.has_value()) continue;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == *request->pod_set_group_name; });
    if (it == groups.end()) {
      groups.push_back({*request->pod_set_group_name, {i}});
    } else {
      it->second.push_back(i);
    }
  }
  for (const auto& [group, members] : groups) {
    const FieldReader first = annotations.at(members.front()).Field(kGroupName);
    if (members.size() != 2) {
      return first.Error(fmt::format("\"{}\": can only define groups of exactly 2 pod sets, got: {} pod set(s)", group,
                                     members.size()));
    }
    const model::PodSet& a = pod_sets[members[0]];
    const model::PodSet& b = pod_sets[members[1]];
    if (a.count != 1 && b.count != 1) {
      return first.Error(fmt::format(
          "\"{}\": can only define groups where at least one pod set has only 1 replica, got: {} replica(s) and {} "
          "replica(s) in the group",
          group, a.count, b.count));
    }
    const model::TopologyRequest& ra = *a.topology_request;
    const model::TopologyRequest& rb = *b.topology_request;
    if (ra.required != rb.required || ra.preferred != rb.preferred) {
      return annotations.at(members.front())
          .Error(fmt::format("must specify '{}' or '{}' topology consistent with pod set \"{}\" in group '{}'",
                             kRequired, kPreferred, b.name, group));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidatePodSetList(const std::vector<model::PodSet>& pod_sets, const FieldReader& field) {
  if (pod_sets.empty() || pod_sets.size() > kMaxPodSets) {
    return field.Error(fmt::format("gives {} pod sets; a Workload has 1 to {}", pod_sets.size(), kMaxPodSets));
  }
  std::set<std::string> names;
  for (const auto& pod_set : pod_sets) {
    if (!names.insert(pod_set.name).second) {
      return field.Error(fmt::format("gives the pod set name \"{}\" twice", pod_set.name));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int32_t> CountField(const FieldReader& field, int32_t fallback) {
  KUEUESIM_ASSIGN_OR_RETURN(std::optional<int32_t> value, field.OptInt32());
  if (!value.has_value()) return fallback;
  if (*value < 0) return field.Error(fmt::format("{} must not be negative", *value));
  return *value;
}

Amount ConstantAmount(std::string_view quantity, std::string_view resource) {
  auto value = ParseCanonicalValue(quantity, resource);
  return value.ok() ? *value : 0;
}

}  // namespace kueuesim::scenario::kinds
