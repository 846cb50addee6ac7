// Decoders for the DRA kinds (resource.k8s.io/v1) and Kueue's
// deviceClassMappings. Field names and limits follow k8s.io/api/resource/v1
// and its API validation (pkg/apis/resource/validation).
#include "scenario/decode_dra.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "kueuesim/base/status.h"
#include "scenario/decode.h"

namespace kueuesim::scenario {
namespace {

constexpr size_t kMaxDriverLength = 63;
constexpr size_t kMaxDevicesPerSlice = 128;
constexpr size_t kMaxAttributesAndCapacities = 32;
constexpr size_t kMaxConsumesCounters = 2;
constexpr size_t kMaxValidValues = 10;
constexpr size_t kMaxAttributeStringLength = 64;
constexpr size_t kMaxRequests = 32;
constexpr size_t kMaxSelectors = 32;
constexpr size_t kMaxFirstAvailable = 8;

bool IsAlnumLower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool IsDns1123Label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!IsAlnumLower(s.front()) || !IsAlnumLower(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsAlnumLower(c) || c == '-'; });
}

bool IsDns1123Subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '.') {
      if (!IsDns1123Label(s.substr(start, i - start))) return false;
      start = i + 1;
    }
  }
  return true;
}

bool IsCIdentifier(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

// A semantic version (semver 2.0.0) as the API server validates version
// attributes.
bool IsSemver(std::string_view text) {
  auto ident_ok = [](std::string_view id, bool numeric_no_leading_zero) {
    if (id.empty()) return false;
    bool digits = true;
    for (char c : id) {
      bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
      if (!alnum) return false;
      if (c < '0' || c > '9') digits = false;
    }
    return !(numeric_no_leading_zero && digits && id.size() > 1 && id[0] == '0');
  };
  auto each = [](std::string_view s, auto&& fn) {
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i) {
      if (i == s.size() || s[i] == '.') {
        if (!fn(s.substr(start, i - start))) return false;
        start = i + 1;
      }
    }
    return true;
  };
  size_t plus = text.find('+');
  if (plus != std::string_view::npos) {
    if (!each(text.substr(plus + 1), [&](std::string_view id) { return ident_ok(id, false); })) return false;
    text = text.substr(0, plus);
  }
  size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    if (!each(text.substr(dash + 1), [&](std::string_view id) { return ident_ok(id, true); })) return false;
    text = text.substr(0, dash);
  }
  int parts = 0;
  bool ok = each(text, [&](std::string_view part) {
    ++parts;
    if (part.empty() || part.size() > 19) return false;
    if (!std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
    return !(part.size() > 1 && part[0] == '0');
  });
  return ok && parts == 3;
}

absl::Status CheckDriver(const FieldReader& field, const std::string& driver) {
  if (driver.empty()) return field.Error("is required");
  if (driver.size() > kMaxDriverLength || !IsDns1123Subdomain(driver)) {
    return field.Error(fmt::format("\"{}\" must be a lowercase DNS subdomain of at most {} characters",
                                   driver, kMaxDriverLength));
  }
  return absl::OkStatus();
}

// A device attribute or capacity name: "<domain>/<id>" or a bare "<id>"
// qualified with the driver.
absl::StatusOr<std::string> QualifiedName(const FieldReader& field, std::string_view key,
                                          const std::string& driver) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) {
    if (!IsCIdentifier(key)) {
      return field.Error(fmt::format("name \"{}\" must be a C identifier of at most 32 characters", key));
    }
    return fmt::format("{}/{}", driver, key);
  }
  std::string_view domain = key.substr(0, slash);
  std::string_view id = key.substr(slash + 1);
  if (domain.size() > kMaxDriverLength || !IsDns1123Subdomain(domain)) {
    return field.Error(fmt::format("the domain of \"{}\" must be a DNS subdomain of at most {} characters",
                                   key, kMaxDriverLength));
  }
  if (!IsCIdentifier(id)) {
    return field.Error(
        fmt::format("the name of \"{}\" must be a C identifier of at most 32 characters", key));
  }
  return std::string(key);
}

absl::StatusOr<model::DeviceAttribute> DecodeAttribute(const FieldReader& field) {
  KUEUESIM_RETURN_IF_ERROR(field.ExpectMapping());
  if (!field.present()) {
    return field.Error("must set exactly one of int, bool, string, version, ints, bools, strings, versions");
  }
  model::DeviceAttribute attribute;
  int set = 0;
  if (field.Field("int").present()) {
    ++set;
    attribute.type = model::DeviceAttribute::Type::kInt;
    KUEUESIM_ASSIGN_OR_RETURN(attribute.int_value, field.Field("int").Int64());
  }
  if (field.Field("bool").present()) {
    ++set;
    attribute.type = model::DeviceAttribute::Type::kBool;
    KUEUESIM_ASSIGN_OR_RETURN(attribute.bool_value, field.Field("bool").Bool());
  }
  if (field.Field("string").present()) {
    ++set;
    attribute.type = model::DeviceAttribute::Type::kString;
    KUEUESIM_ASSIGN_OR_RETURN(attribute.string_value, field.Field("string").String());
    if (attribute.string_value.size() > kMaxAttributeStringLength) {
      return field.Field("string").Error(
          fmt::format("must be at most {} characters", kMaxAttributeStringLength));
    }
  }
  if (field.Field("version").present()) {
    ++set;
    attribute.type = model::DeviceAttribute::Type::kVersion;
    KUEUESIM_ASSIGN_OR_RETURN(attribute.string_value, field.Field("version").String());
    if (attribute.string_value.size() > kMaxAttributeStringLength || !IsSemver(attribute.string_value)) {
      return field.Field("version").Error(
          fmt::format("\"{}\" must be a semantic version (semver 2.0.0) of at most {} characters",
                      attribute.string_value, kMaxAttributeStringLength));
    }
  }
  // List types (DRAListTypeAttributes): non-empty lists of one type.
  auto list_field = [&](const char* name) -> absl::StatusOr<FieldReader> {
    FieldReader list = field.Field(name);
    if (!list.present()) return list;
    ++set;
    attribute.is_list = true;
    KUEUESIM_RETURN_IF_ERROR(list.ExpectSequence());
    if (list.size() == 0) return list.Error("must not be empty");
    return list;
  };
  KUEUESIM_ASSIGN_OR_RETURN(FieldReader ints, list_field("ints"));
  for (size_t i = 0; ints.present() && i < ints.size(); ++i) {
    attribute.type = model::DeviceAttribute::Type::kInt;
    KUEUESIM_ASSIGN_OR_RETURN(int64_t value, ints.Index(i).Int64());
    attribute.int_values.push_back(value);
  }
  KUEUESIM_ASSIGN_OR_RETURN(FieldReader bools, list_field("bools"));
  for (size_t i = 0; bools.present() && i < bools.size(); ++i) {
    attribute.type = model::DeviceAttribute::Type::kBool;
    KUEUESIM_ASSIGN_OR_RETURN(bool value, bools.Index(i).Bool());
    attribute.bool_values.push_back(value);
  }
  KUEUESIM_ASSIGN_OR_RETURN(FieldReader strings, list_field("strings"));
  for (size_t i = 0; strings.present() && i < strings.size(); ++i) {
    attribute.type = model::DeviceAttribute::Type::kString;
    KUEUESIM_ASSIGN_OR_RETURN(std::string value, strings.Index(i).String());
    if (value.size() > kMaxAttributeStringLength) {
      return strings.Index(i).Error(fmt::format("must be at most {} characters", kMaxAttributeStringLength));
    }
    attribute.string_values.push_back(std::move(value));
  }
  KUEUESIM_ASSIGN_OR_RETURN(FieldReader versions, list_field("versions"));
  for (size_t i = 0; versions.present() && i < versions.size(); ++i) {
    attribute.type = model::DeviceAttribute::Type::kVersion;
    KUEUESIM_ASSIGN_OR_RETURN(std::string value, versions.Index(i).String());
    if (value.size() > kMaxAttributeStringLength || !IsSemver(value)) {
      return versions.Index(i).Error(fmt::format(
          "\"{}\" must be a semantic version (semver 2.0.0) of at most {} characters", value,
          kMaxAttributeStringLength));
    }
    attribute.string_values.push_back(std::move(value));
  }
  if (set != 1) {
    return field.Error("must set exactly one of int, bool, string, version, ints, bools, strings, versions");
  }
  return attribute;
}

absl::StatusOr<model::DeviceCapacity> DecodeCapacity(const FieldReader& field) {
  KUEUESIM_RETURN_IF_ERROR(field.ExpectMapping());
  model::DeviceCapacity capacity;
  KUEUESIM_ASSIGN_OR_RETURN(capacity.value, field.Field("value").QuantityValue());
  FieldReader policy = field.Field("requestPolicy");
  if (!policy.present()) return capacity;
  KUEUESIM_RETURN_IF_ERROR(policy.ExpectMapping());
  if (policy.Field("default").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(capacity.default_value, policy.Field("default").QuantityValue());
  }
  FieldReader valid_values = policy.Field("validValues");
  FieldReader valid_range = policy.Field("validRange");
  if (valid_values.present() && valid_range.present()) {
    return policy.Error("must not set both validValues and validRange");
  }
  KUEUESIM_RETURN_IF_ERROR(valid_values.ExpectSequence());
  if (valid_values.size() > kMaxValidValues) {
    return valid_values.Error(fmt::format("must have at most {} items", kMaxValidValues));
  }
  for (size_t i = 0; i < valid_values.size(); ++i) {
    KUEUESIM_ASSIGN_OR_RETURN(Quantity q, valid_values.Index(i).QuantityValue());
    capacity.valid_values.push_back(std::move(q));
  }
  if (valid_range.present()) {
    KUEUESIM_RETURN_IF_ERROR(valid_range.ExpectMapping());
    KUEUESIM_ASSIGN_OR_RETURN(capacity.range_min, valid_range.Field("min").QuantityValue());
    if (valid_range.Field("max").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(capacity.range_max, valid_range.Field("max").QuantityValue());
    }
    if (valid_range.Field("step").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(capacity.range_step, valid_range.Field("step").QuantityValue());
    }
  }
  return capacity;
}

// counters: {name: {value: qty}}.
absl::StatusOr<std::map<std::string, Quantity>> DecodeCounters(const FieldReader& field) {
  std::map<std::string, Quantity> counters;
  KUEUESIM_RETURN_IF_ERROR(field.ExpectMapping());
  for (size_t i = 0; i < field.node().size(); ++i) {
    std::string name(field.node().key(i));
    FieldReader counter = field.Field(name);
    if (!IsDns1123Label(name)) return counter.Error("the counter name must be a DNS label");
    KUEUESIM_RETURN_IF_ERROR(counter.ExpectMapping());
    KUEUESIM_ASSIGN_OR_RETURN(counters[name], counter.Field("value").QuantityValue());
  }
  return counters;
}

absl::StatusOr<model::Device> DecodeDevice(const FieldReader& item, const std::string& driver) {
  KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
  model::Device device;
  KUEUESIM_ASSIGN_OR_RETURN(device.name, item.Field("name").String());
  if (!IsDns1123Label(device.name)) return item.Field("name").Error("must be a DNS label");
  // resource.k8s.io/v1beta1 nests the device's fields under `basic`.
  FieldReader body = item.Field("basic").present() ? item.Field("basic") : item;
  KUEUESIM_RETURN_IF_ERROR(body.ExpectMapping());
  FieldReader attributes = body.Field("attributes");
  KUEUESIM_RETURN_IF_ERROR(attributes.ExpectMapping());
  for (size_t i = 0; i < attributes.node().size(); ++i) {
    std::string key(attributes.node().key(i));
    FieldReader value = attributes.Field(key);
    KUEUESIM_ASSIGN_OR_RETURN(std::string name, QualifiedName(value, key, driver));
    KUEUESIM_ASSIGN_OR_RETURN(model::DeviceAttribute attribute, DecodeAttribute(value));
    if (!device.attributes.emplace(name, std::move(attribute)).second) {
      return value.Error(fmt::format("duplicate attribute \"{}\"", name));
    }
  }
  FieldReader capacity = body.Field("capacity");
  KUEUESIM_RETURN_IF_ERROR(capacity.ExpectMapping());
  for (size_t i = 0; i < capacity.node().size(); ++i) {
    std::string key(capacity.node().key(i));
    FieldReader value = capacity.Field(key);
    KUEUESIM_ASSIGN_OR_RETURN(std::string name, QualifiedName(value, key, driver));
    KUEUESIM_ASSIGN_OR_RETURN(model::DeviceCapacity cap, DecodeCapacity(value));
    if (!device.capacity.emplace(name, std::move(cap)).second) {
      return value.Error(fmt::format("duplicate capacity \"{}\"", name));
    }
  }
  if (device.attributes.size() + device.capacity.size() > kMaxAttributesAndCapacities) {
    return body.Error(
        fmt::format("must have at most {} attributes and capacities combined", kMaxAttributesAndCapacities));
  }
  FieldReader consumes = body.Field("consumesCounters");
  KUEUESIM_RETURN_IF_ERROR(consumes.ExpectSequence());
  if (consumes.size() > kMaxConsumesCounters) {
    return consumes.Error(fmt::format("must have at most {} items", kMaxConsumesCounters));
  }
  for (size_t i = 0; i < consumes.size(); ++i) {
    FieldReader entry = consumes.Index(i);
    KUEUESIM_RETURN_IF_ERROR(entry.ExpectMapping());
    model::DeviceCounterConsumption consumption;
    KUEUESIM_ASSIGN_OR_RETURN(consumption.counter_set, entry.Field("counterSet").String());
    if (consumption.counter_set.empty()) return entry.Field("counterSet").Error("must not be empty");
    KUEUESIM_ASSIGN_OR_RETURN(consumption.counters, DecodeCounters(entry.Field("counters")));
    device.consumes_counters.push_back(std::move(consumption));
  }
  if (body.Field("allowMultipleAllocations").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(device.allow_multiple_allocations,
                              body.Field("allowMultipleAllocations").Bool());
  }
  return device;
}

absl::StatusOr<std::string> DecodeCelSelector(const FieldReader& selector) {
  KUEUESIM_RETURN_IF_ERROR(selector.ExpectMapping());
  FieldReader cel = selector.Field("cel");
  if (!cel.present()) return cel.Error("is required (the only selector type)");
  KUEUESIM_RETURN_IF_ERROR(cel.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(std::string expression, cel.Field("expression").String());
  if (expression.empty()) return cel.Field("expression").Error("must not be empty");
  return expression;
}

absl::StatusOr<std::vector<std::string>> DecodeSelectors(const FieldReader& list) {
  std::vector<std::string> out;
  KUEUESIM_RETURN_IF_ERROR(list.ExpectSequence());
  if (list.size() > kMaxSelectors)
    return list.Error(fmt::format("must have at most {} items", kMaxSelectors));
  for (size_t i = 0; i < list.size(); ++i) {
    KUEUESIM_ASSIGN_OR_RETURN(std::string expression, DecodeCelSelector(list.Index(i)));
    out.push_back(std::move(expression));
  }
  return out;
}

absl::Status DecodeExactly(const FieldReader& exactly, model::DeviceRequest* request) {
  KUEUESIM_RETURN_IF_ERROR(exactly.ExpectMapping());
  request->exactly = true;
  KUEUESIM_ASSIGN_OR_RETURN(request->device_class_name, exactly.Field("deviceClassName").String());
  if (request->device_class_name.empty()) return exactly.Field("deviceClassName").Error("must not be empty");
  KUEUESIM_ASSIGN_OR_RETURN(request->selectors, DecodeSelectors(exactly.Field("selectors")));
  KUEUESIM_ASSIGN_OR_RETURN(auto mode, exactly.Field("allocationMode").OptString());
  request->allocation_mode = mode.value_or("");
  if (request->allocation_mode.empty()) request->allocation_mode = "ExactCount";
  if (request->allocation_mode != "ExactCount" && request->allocation_mode != "All") {
    return exactly.Field("allocationMode")
        .Error(fmt::format("unknown value \"{}\" (valid: ExactCount, All)", request->allocation_mode));
  }
  // count is an omitempty int64: `count: 0` is the field left unset, which
  // the API server defaults to 1 for ExactCount (and ignores for All).
  FieldReader count = exactly.Field("count");
  int64_t count_value = 0;
  if (count.present()) {
    KUEUESIM_ASSIGN_OR_RETURN(count_value, count.Int64());
  }
  if (count_value != 0) {
    if (request->allocation_mode == "All") return count.Error("must not be set when allocationMode is All");
    if (count_value < 0) return count.Error("must be greater than zero");
    request->count = count_value;
  }
  if (exactly.Field("adminAccess").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(request->admin_access, exactly.Field("adminAccess").Bool());
  }
  FieldReader requests = exactly.Field("capacity").Field("requests");
  KUEUESIM_RETURN_IF_ERROR(exactly.Field("capacity").ExpectMapping());
  KUEUESIM_RETURN_IF_ERROR(requests.ExpectMapping());
  for (size_t i = 0; i < requests.node().size(); ++i) {
    std::string key(requests.node().key(i));
    KUEUESIM_ASSIGN_OR_RETURN(request->capacity_requests[key], requests.Field(key).QuantityValue());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<model::ResourceSlice> DecodeResourceSlice(const FieldReader& object) {
  model::ResourceSlice slice;
  KUEUESIM_ASSIGN_OR_RETURN(slice.meta, DecodeMeta(object, false));
  FieldReader spec = object.Field("spec");
  if (!spec.present()) return spec.Error("is required");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(slice.driver, spec.Field("driver").String());
  KUEUESIM_RETURN_IF_ERROR(CheckDriver(spec.Field("driver"), slice.driver));

  FieldReader pool = spec.Field("pool");
  if (!pool.present()) return pool.Error("is required");
  KUEUESIM_RETURN_IF_ERROR(pool.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(slice.pool_name, pool.Field("name").String());
  if (slice.pool_name.empty()) return pool.Field("name").Error("must not be empty");
  KUEUESIM_ASSIGN_OR_RETURN(slice.pool_generation, pool.Field("generation").Int64());
  if (slice.pool_generation < 0) return pool.Field("generation").Error("must not be negative");
  KUEUESIM_ASSIGN_OR_RETURN(slice.pool_resource_slice_count, pool.Field("resourceSliceCount").Int64());
  if (slice.pool_resource_slice_count <= 0) {
    return pool.Field("resourceSliceCount").Error("must be greater than zero");
  }

  // Exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection.
  int node_selection = 0;
  KUEUESIM_ASSIGN_OR_RETURN(auto node_name, spec.Field("nodeName").OptString());
  slice.node_name = node_name.value_or("");
  if (!slice.node_name.empty()) ++node_selection;
  if (spec.Field("nodeSelector").present()) {
    KUEUESIM_RETURN_IF_ERROR(spec.Field("nodeSelector").ExpectMapping());
    ++node_selection;
  }
  if (spec.Field("allNodes").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(slice.all_nodes, spec.Field("allNodes").Bool());
    if (slice.all_nodes) ++node_selection;
  }
  if (spec.Field("perDeviceNodeSelection").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(bool per_device, spec.Field("perDeviceNodeSelection").Bool());
    if (per_device) ++node_selection;
  }
  if (node_selection != 1) {
    return spec.Error("must set exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection");
  }

  FieldReader devices = spec.Field("devices");
  KUEUESIM_RETURN_IF_ERROR(devices.ExpectSequence());
  if (devices.size() > kMaxDevicesPerSlice) {
    return devices.Error(fmt::format("must have at most {} items", kMaxDevicesPerSlice));
  }
  std::set<std::string> device_names;
  for (size_t i = 0; i < devices.size(); ++i) {
    KUEUESIM_ASSIGN_OR_RETURN(model::Device device, DecodeDevice(devices.Index(i), slice.driver));
    if (!device_names.insert(device.name).second) {
      return devices.Index(i).Field("name").Error(fmt::format("duplicate device name \"{}\"", device.name));
    }
    slice.devices.push_back(std::move(device));
  }

  FieldReader shared = spec.Field("sharedCounters");
  KUEUESIM_RETURN_IF_ERROR(shared.ExpectSequence());
  for (size_t i = 0; i < shared.size(); ++i) {
    FieldReader set = shared.Index(i);
    KUEUESIM_RETURN_IF_ERROR(set.ExpectMapping());
    KUEUESIM_ASSIGN_OR_RETURN(std::string name, set.Field("name").String());
    if (!IsDns1123Label(name)) return set.Field("name").Error("must be a DNS label");
    KUEUESIM_ASSIGN_OR_RETURN(auto counters, DecodeCounters(set.Field("counters")));
    if (!slice.shared_counters.emplace(name, std::move(counters)).second) {
      return set.Field("name").Error(fmt::format("duplicate counter set \"{}\"", name));
    }
  }
  return slice;
}

absl::StatusOr<model::DeviceClass> DecodeDeviceClass(const FieldReader& object) {
  model::DeviceClass cls;
  KUEUESIM_ASSIGN_OR_RETURN(cls.meta, DecodeMeta(object, false));
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(cls.selectors, DecodeSelectors(spec.Field("selectors")));
  KUEUESIM_ASSIGN_OR_RETURN(auto extended, spec.Field("extendedResourceName").OptString());
  cls.extended_resource_name = extended.value_or("");
  return cls;
}

absl::StatusOr<model::ResourceClaimTemplate> DecodeResourceClaimTemplate(const FieldReader& object,
                                                                        bool v1beta1_layout) {
  model::ResourceClaimTemplate tmpl;
  KUEUESIM_ASSIGN_OR_RETURN(tmpl.meta, DecodeMeta(object, true));
  FieldReader claim_spec = object.Field("spec").Field("spec");
  KUEUESIM_RETURN_IF_ERROR(object.Field("spec").ExpectMapping());
  KUEUESIM_RETURN_IF_ERROR(claim_spec.ExpectMapping());
  KUEUESIM_RETURN_IF_ERROR(claim_spec.Field("devices").ExpectMapping());
  FieldReader requests = claim_spec.Field("devices").Field("requests");
  KUEUESIM_RETURN_IF_ERROR(requests.ExpectSequence());
  if (requests.size() > kMaxRequests)
    return requests.Error(fmt::format("must have at most {} items", kMaxRequests));
  std::set<std::string> names;
  for (size_t i = 0; i < requests.size(); ++i) {
    FieldReader item = requests.Index(i);
    KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
    model::DeviceRequest request;
    KUEUESIM_ASSIGN_OR_RETURN(request.name, item.Field("name").String());
    if (!IsDns1123Label(request.name)) return item.Field("name").Error("must be a DNS label");
    if (!names.insert(request.name).second) {
      return item.Field("name").Error(fmt::format("duplicate request name \"{}\"", request.name));
    }
    FieldReader first_available = item.Field("firstAvailable");
    if (v1beta1_layout) {
      // resource.k8s.io/v1beta1: deviceClassName, selectors, allocationMode,
      // count, adminAccess and capacity sit on the request; with
      // firstAvailable, deviceClassName must be unset.
      const bool has_class = item.Field("deviceClassName").present();
      if (has_class == first_available.present()) {
        return item.Error("must set exactly one of deviceClassName, firstAvailable");
      }
      if (has_class) {
        KUEUESIM_RETURN_IF_ERROR(DecodeExactly(item, &request));
      }
    } else {
      FieldReader exactly = item.Field("exactly");
      if (exactly.present() == first_available.present()) {
        return item.Error("must set exactly one of exactly, firstAvailable");
      }
      if (exactly.present()) {
        KUEUESIM_RETURN_IF_ERROR(DecodeExactly(exactly, &request));
      }
    }
    if (!request.exactly) {
      KUEUESIM_RETURN_IF_ERROR(first_available.ExpectSequence());
      if (first_available.size() == 0 || first_available.size() > kMaxFirstAvailable) {
        return first_available.Error(fmt::format("must have between 1 and {} items", kMaxFirstAvailable));
      }
      for (size_t k = 0; k < first_available.size(); ++k) {
        FieldReader sub = first_available.Index(k);
        KUEUESIM_RETURN_IF_ERROR(sub.ExpectMapping());
        KUEUESIM_ASSIGN_OR_RETURN(std::string sub_name, sub.Field("name").String());
        if (!IsDns1123Label(sub_name)) return sub.Field("name").Error("must be a DNS label");
        KUEUESIM_ASSIGN_OR_RETURN(std::string sub_class, sub.Field("deviceClassName").String());
        if (sub_class.empty()) return sub.Field("deviceClassName").Error("must not be empty");
        KUEUESIM_RETURN_IF_ERROR(DecodeSelectors(sub.Field("selectors")).status());
      }
      request.first_available = static_cast<int32_t>(first_available.size());
    }
    tmpl.requests.push_back(std::move(request));
  }
  return tmpl;
}

absl::StatusOr<std::vector<model::DeviceClassMapping>> DecodeDeviceClassMappings(
    const FieldReader& resources) {
  std::vector<model::DeviceClassMapping> out;
  KUEUESIM_RETURN_IF_ERROR(resources.ExpectMapping());
  FieldReader list = resources.Field("deviceClassMappings");
  KUEUESIM_RETURN_IF_ERROR(list.ExpectSequence());
  for (size_t i = 0; i < list.size(); ++i) {
    FieldReader item = list.Index(i);
    KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
    model::DeviceClassMapping mapping;
    KUEUESIM_ASSIGN_OR_RETURN(mapping.name, item.Field("name").String());
    KUEUESIM_ASSIGN_OR_RETURN(mapping.device_class_names, item.Field("deviceClassNames").StringList());
    FieldReader sources = item.Field("sources");
    KUEUESIM_RETURN_IF_ERROR(sources.ExpectSequence());
    for (size_t s = 0; s < sources.size(); ++s) {
      FieldReader source = sources.Index(s);
      KUEUESIM_RETURN_IF_ERROR(source.ExpectMapping());
      FieldReader counter = source.Field("counter");
      FieldReader capacity = source.Field("capacity");
      if (counter.present() == capacity.present()) {
        return source.Error("exactly one source type must be set per entry (counter or capacity)");
      }
      FieldReader body = counter.present() ? counter : capacity;
      KUEUESIM_RETURN_IF_ERROR(body.ExpectMapping());
      model::DeviceClassMappingSource src;
      src.kind = counter.present() ? model::DeviceClassMappingSource::Kind::kCounter
                                   : model::DeviceClassMappingSource::Kind::kCapacity;
      KUEUESIM_ASSIGN_OR_RETURN(src.name, body.Field("name").String());
      KUEUESIM_ASSIGN_OR_RETURN(src.driver, body.Field("driver").String());
      FieldReader selector = body.Field("deviceSelector");
      if (!selector.present()) return selector.Error("is required");
      KUEUESIM_ASSIGN_OR_RETURN(src.device_selector, DecodeCelSelector(selector));
      mapping.sources.push_back(std::move(src));
    }
    out.push_back(std::move(mapping));
  }
  return out;
}

absl::StatusOr<std::vector<model::PodResourceClaim>> DecodePodResourceClaims(const FieldReader& pod_spec) {
  std::vector<model::PodResourceClaim> out;
  KUEUESIM_RETURN_IF_ERROR(pod_spec.ExpectMapping());
  FieldReader list = pod_spec.Field("resourceClaims");
  KUEUESIM_RETURN_IF_ERROR(list.ExpectSequence());
  std::set<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    FieldReader item = list.Index(i);
    KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
    model::PodResourceClaim claim;
    KUEUESIM_ASSIGN_OR_RETURN(claim.name, item.Field("name").String());
    if (!IsDns1123Label(claim.name)) return item.Field("name").Error("must be a DNS label");
    if (!names.insert(claim.name).second) {
      return item.Field("name").Error(fmt::format("duplicate claim name \"{}\"", claim.name));
    }
    KUEUESIM_ASSIGN_OR_RETURN(auto claim_name, item.Field("resourceClaimName").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(auto template_name, item.Field("resourceClaimTemplateName").OptString());
    claim.resource_claim_name = claim_name.value_or("");
    claim.resource_claim_template_name = template_name.value_or("");
    if (claim.resource_claim_name.empty() == claim.resource_claim_template_name.empty()) {
      return item.Error("must set exactly one of resourceClaimName, resourceClaimTemplateName");
    }
    out.push_back(std::move(claim));
  }
  return out;
}

}  // namespace kueuesim::scenario
