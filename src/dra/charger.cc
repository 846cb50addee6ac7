// DRA quota charging as Kueue's workload controller does it before queueing
// a Workload (kueue pkg/dra: claims.go, extended_resources.go, counters.go,
// capacity.go; the Configuration checks of pkg/config/validation.go).
//
// Per pod set, in Kueue's order: the gates (DRA disabled + reject), claims by
// name, then the ResourceClaimTemplate stage (unsupported requests, the CEL
// pre-check against the cluster's devices, device counts of mapped classes),
// the extended-resource stage, the counter stage and the capacity stage. The
// first stage that fails decides the reason; its text is Kueue's field error.
#include "kueuesim/dra/charger.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "kueuesim/base/status.h"
#include "kueuesim/dra/cel.h"

namespace kueuesim::dra {
namespace {

constexpr int64_t kMaxMappings = 16;
constexpr int64_t kMaxDeviceClassNames = 8;
constexpr size_t kMaxDriverLength = 63;  // resourcev1.DriverNameMaxLength

// --- Go-compatible arithmetic (kueue pkg/util/math) ---

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return b > 0 ? kUnlimited : std::numeric_limits<int64_t>::min();
  return out;
}

int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_sub_overflow(a, b, &out)) return b < 0 ? kUnlimited : std::numeric_limits<int64_t>::min();
  return out;
}

int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) {
    return (a < 0) == (b < 0) ? kUnlimited : std::numeric_limits<int64_t>::min();
  }
  return out;
}

// utilmath.SafeValue: Value() (rounded away from zero) clamped to int64.
int64_t SafeValue(const Quantity& q) { return CanonicalAmountSaturating(q, ""); }

// safeChargeValue: negative values clamp to 0; times count, saturating.
int64_t SafeChargeValue(const Quantity& q, int64_t count) {
  int64_t value = q.negative && !q.IsZero() ? 0 : SafeValue(q);
  if (count > 1) value = SaturatingMul(value, count);
  return value;
}

Quantity QuantityOf(int64_t value) {
  auto parsed = ParseQuantity(std::to_string(value));
  return parsed.ok() ? *std::move(parsed) : Quantity{};
}

// A logical resource's charge in Kueue's canonical units (milli for cpu).
Amount ToCanonical(const std::string& resource, int64_t units) {
  return IsMilliResource(resource) ? MulAmount(units, 1000) : units;
}

// --- Go's rendering of field errors (k8s.io/apimachinery validation/field) ---

// A Go string as %q and json.Marshal render plain text.
std::string GoQuote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

constexpr char kNull[] = "null";

std::string Invalid(const std::string& path, const std::string& value, const std::string& detail) {
  return fmt::format("{}: Invalid value: {}: {}", path, value, detail);
}
std::string InternalError(const std::string& path, const std::string& detail) {
  return fmt::format("{}: Internal error: {}", path, detail);
}
std::string NotFoundError(const std::string& path, const std::string& value) {
  return fmt::format("{}: Not found: {}", path, value);
}
std::string Required(const std::string& path, const std::string& detail) {
  return detail.empty() ? fmt::format("{}: Required value", path)
                        : fmt::format("{}: Required value: {}", path, detail);
}

// utilerrors.Aggregate.Error(): one message as is, several de-duplicated in
// brackets.
std::string Aggregate(const std::vector<std::string>& errors) {
  std::vector<std::string> unique;
  for (const std::string& e : errors) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) unique.push_back(e);
  }
  if (unique.size() == 1) return unique[0];
  std::string out = "[";
  for (size_t i = 0; i < unique.size(); ++i) out += (i == 0 ? "" : ", ") + unique[i];
  return out + "]";
}

// --- Name validation (apimachinery validation) ---

bool IsAlnumLower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return IsAlnumLower(c) || (c >= 'A' && c <= 'Z'); }

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
      std::string_view part = s.substr(start, i - start);
      if (part.empty() || !IsAlnumLower(part.front()) || !IsAlnumLower(part.back())) return false;
      if (!std::all_of(part.begin(), part.end(), [](char c) { return IsAlnumLower(c) || c == '-'; })) {
        return false;
      }
      start = i + 1;
    }
  }
  return true;
}

// content.IsLabelKey (IsQualifiedName): the reasons, empty when valid.
std::vector<std::string> LabelKeyErrors(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back(
          "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
          "start and end with an alphanumeric character with an optional DNS subdomain prefix "
          "and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else if (!IsDns1123Subdomain(prefix)) {
      errs.push_back(
          "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
          "characters, '-' or '.', and must start and end with an alphanumeric character");
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part must be no more than 63 characters");
  } else if (!IsAlnum(name.front()) || !IsAlnum(name.back()) ||
             !std::all_of(name.begin(), name.end(),
                          [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; })) {
    errs.push_back(
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
        "end with an alphanumeric character");
  }
  return errs;
}

bool IsCIdentifier(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsAlnum(c) || c == '_'; });
}

// A DRA QualifiedName: "<domain>/<id>" or "<id>".
std::optional<std::string> QualifiedNameError(std::string_view name) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) {
    if (!IsCIdentifier(name)) return "must be a C identifier of at most 32 characters";
    return std::nullopt;
  }
  std::string_view domain = name.substr(0, slash);
  std::string_view id = name.substr(slash + 1);
  if (domain.empty()) return "the domain must not be empty";
  if (domain.size() > kMaxDriverLength || !IsDns1123Subdomain(domain)) {
    return "the domain must be a DNS subdomain of at most 63 characters";
  }
  if (id.empty()) return "the name must not be empty";
  if (!IsCIdentifier(id)) return "the name must be a C identifier of at most 32 characters";
  return std::nullopt;
}

std::string Qualify(const std::string& driver, const std::string& name) {
  return name.find('/') == std::string::npos ? fmt::format("{}/{}", driver, name) : name;
}

// A device and the driver of its slice.
struct DeviceRef {
  const std::string* driver;
  const model::Device* device;
};

struct CounterConfig {
  std::string quota_resource;
  std::string driver;
  std::string counter;
  std::shared_ptr<const CelExpression> selector;
};

struct CapacityConfig {
  std::string driver;
  std::string name;  // qualified with the driver when written bare
  std::shared_ptr<const CelExpression> selector;
};

// A DeviceClass or claim selector as Kueue's CEL cache holds it: compiled,
// or the compiler's error. Kueue compiles these where it uses them (a
// selector that does not compile makes only the workloads that need it
// inadmissible), so loading keeps the error for then.
struct Selector {
  std::string text;
  std::shared_ptr<const CelExpression> expr;  // null when it failed to compile
  std::string error;                          // the compiler's message (result.Error.Detail)
};

std::vector<Selector> CompileSelectors(const std::vector<std::string>& texts) {
  std::vector<Selector> out;
  for (const std::string& text : texts) {
    Selector s;
    s.text = text;
    auto compiled = CelExpression::Compile(text);
    if (compiled.ok()) {
      s.expr = std::make_shared<const CelExpression>(*std::move(compiled));
    } else {
      s.error = StatusMessage(compiled.status());
    }
    out.push_back(std::move(s));
  }
  return out;
}

// compileCELSelectors' errors: one per selector that does not compile, at
// `path`[k].cel.expression, its detail "<context>: <compiler message>".
std::vector<std::string> SelectorErrors(const std::vector<Selector>& selectors, const std::string& path,
                                        const std::string& context) {
  std::vector<std::string> errors;
  for (size_t k = 0; k < selectors.size(); ++k) {
    if (selectors[k].expr != nullptr) continue;
    errors.push_back(Invalid(fmt::format("{}[{}].cel.expression", path, k), GoQuote(selectors[k].text),
                             fmt::format("{}: {}", context, selectors[k].error)));
  }
  return errors;
}

struct ClassInfo {
  model::DeviceClass cls;
  std::vector<Selector> selectors;
};

struct TemplateInfo {
  model::ResourceClaimTemplate tmpl;
  std::vector<std::vector<Selector>> request_selectors;  // per request
};

// Evaluates selectors in order as evaluateSelectorsOnDevice does: the first
// false or error decides. Callers check first that all compiled.
CelResult AllMatch(const std::vector<Selector>& selectors, const DeviceRef& ref) {
  for (const Selector& selector : selectors) {
    CelResult r = selector.expr->Evaluate(*ref.driver, *ref.device);
    if (r.outcome != CelResult::Outcome::kTrue) return r;
  }
  CelResult ok;
  ok.outcome = CelResult::Outcome::kTrue;
  return ok;
}

std::string ObjectName(const model::ObjectMeta& meta, const char* kind) {
  if (meta.namespace_.empty()) return fmt::format("{} \"{}\"", kind, meta.name);
  return fmt::format("{} \"{}/{}\"", kind, meta.namespace_, meta.name);
}

}  // namespace

struct Charger::Impl {
  model::FeatureGates gates;
  // ResourceMapper (pkg/dra/mapper.go).
  std::map<std::string, std::string> class_to_resource;  // the first mapping wins
  std::map<std::string, std::vector<CounterConfig>> class_counters;
  std::map<std::string, std::vector<CapacityConfig>> class_capacity;

  std::map<std::string, ClassInfo> classes;
  std::map<std::pair<std::string, std::string>, TemplateInfo> templates;  // (namespace, name)
  std::map<std::string, std::vector<const model::DeviceClass*>> extended_resource_classes;

  // Slices sorted by name (the order of a List), and device views of them.
  std::vector<model::ResourceSlice> slices;
  std::vector<DeviceRef> all_devices;
  std::map<std::string, std::vector<DeviceRef>> devices_by_driver;
  // Devices of complete pools at their highest generation, pools by name.
  std::map<std::string, std::vector<DeviceRef>> pooled_devices_by_driver;

  bool HasCounters(const std::string& cls) const {
    auto it = class_counters.find(cls);
    return it != class_counters.end() && !it->second.empty();
  }
  bool HasCapacity(const std::string& cls) const {
    auto it = class_capacity.find(cls);
    return it != class_capacity.end() && !it->second.empty();
  }
  const std::vector<DeviceRef>& DevicesOf(const std::map<std::string, std::vector<DeviceRef>>& by_driver,
                                          const std::string& driver) const {
    static const std::vector<DeviceRef> kNone;
    auto it = by_driver.find(driver);
    return it == by_driver.end() ? kNone : it->second;
  }

  void IndexDevices();
  absl::Status ValidateMappings(const std::vector<model::DeviceClassMapping>& mappings,
                                const model::SourceRef& source);

  // The stages of Charge; each returns the reason, empty on success.
  std::string ChargeTemplates(const std::string& ns, const model::PodSet& pod_set, const std::string& ps_path,
                              std::map<std::string, Amount>* dra) const;
  std::string PreCheckClaim(const TemplateInfo& info, const std::string& claim_path) const;
  // Returns the field errors (Kueue aggregates them over all pod sets).
  std::vector<std::string> ChargeExtendedResources(const std::string& ps_path,
                                                   const std::map<std::string, Amount>& requests,
                                                   std::map<std::string, Amount>* dra,
                                                   std::set<std::string>* replaced) const;
  std::string ChargeCounters(const std::string& ns, const model::PodSet& pod_set, const std::string& ps_path,
                             std::map<std::string, Amount>* dra) const;
  std::string ChargeCapacity(const std::string& ns, const model::PodSet& pod_set, const std::string& ps_path,
                             std::map<std::string, Amount>* dra) const;
  // matchDevicesForSource: devices of complete pools of `driver` matching
  // the source's selector, the class's and the request's. Returns the
  // reason on an evaluation error.
  std::string MatchForSource(const std::string& driver, const CelExpression& source_selector,
                             const ClassInfo* cls, const std::vector<Selector>& request_selectors,
                             const std::string& req_path, std::vector<const model::Device*>* matched) const;
  // prepareDeviceSelectors (counters and capacity): the request's class,
  // whose selectors (resolveAndCompileDeviceClass) and the request's must
  // compile. Returns the reason, empty on success.
  std::string PrepareSelectors(const model::DeviceRequest& req, const std::vector<Selector>& request_selectors,
                               const std::string& claim_path, size_t r, const ClassInfo** cls) const;
  const model::DeviceClass* SelectedClass(const std::string& extended_resource) const;
};

void Charger::Impl::IndexDevices() {
  std::stable_sort(
      slices.begin(), slices.end(),
      [](const model::ResourceSlice& a, const model::ResourceSlice& b) { return a.meta.name < b.meta.name; });
  for (const model::ResourceSlice& slice : slices) {
    for (const model::Device& device : slice.devices) {
      DeviceRef ref{&slice.driver, &device};
      all_devices.push_back(ref);
      devices_by_driver[slice.driver].push_back(ref);
    }
  }
  // groupSlicesByPool: per driver and pool name, the slices of the highest
  // generation; complete when their number equals resourceSliceCount (as
  // published by the first slice of that generation seen).
  struct Pool {
    int64_t generation = 0;
    int64_t slice_count = 0;
    std::vector<const model::ResourceSlice*> slices;
  };
  std::map<std::string, std::map<std::string, Pool>> pools;
  for (const model::ResourceSlice& slice : slices) {
    auto& by_name = pools[slice.driver];
    auto it = by_name.find(slice.pool_name);
    if (it == by_name.end() || slice.pool_generation > it->second.generation) {
      by_name[slice.pool_name] = Pool{slice.pool_generation, slice.pool_resource_slice_count, {&slice}};
    } else if (slice.pool_generation == it->second.generation) {
      it->second.slices.push_back(&slice);
    }
  }
  for (const auto& [driver, by_name] : pools) {
    std::vector<DeviceRef>& out = pooled_devices_by_driver[driver];
    for (const auto& [pool_name, pool] : by_name) {
      if (static_cast<int64_t>(pool.slices.size()) != pool.slice_count) continue;
      for (const model::ResourceSlice* slice : pool.slices) {
        for (const model::Device& device : slice->devices) out.push_back(DeviceRef{&slice->driver, &device});
      }
    }
  }
}

absl::Status Charger::Impl::ValidateMappings(const std::vector<model::DeviceClassMapping>& mappings,
                                             const model::SourceRef& source) {
  const std::string root = "resources.deviceClassMappings";
  auto fail = [&](const std::string& message) {
    return InvalidArgument(fmt::format("{}: Configuration: {}", source.ToString(), message));
  };
  if (static_cast<int64_t>(mappings.size()) > kMaxMappings) {
    return fail(
        fmt::format("{}: Too many: {}: must have at most {} items", root, mappings.size(), kMaxMappings));
  }
  std::set<std::string> seen_names;
  std::map<std::string, std::string> mapped_to;
  std::map<std::string, std::set<std::string>> class_counter_names;
  for (size_t idx = 0; idx < mappings.size(); ++idx) {
    const model::DeviceClassMapping& mapping = mappings[idx];
    const std::string path = fmt::format("{}[{}]", root, idx);
    if (auto errs = LabelKeyErrors(mapping.name); !errs.empty()) {
      std::string joined;
      for (const auto& e : errs) joined += (joined.empty() ? "" : "; ") + e;
      return fail(Invalid(path + ".name", GoQuote(mapping.name), joined));
    }
    if (mapping.name.size() > 253) {
      return fail(Invalid(path + ".name", GoQuote(mapping.name), "must not exceed 253 characters"));
    }
    if (!seen_names.insert(mapping.name).second) {
      return fail(fmt::format("{}.name: Duplicate value: {}", path, GoQuote(mapping.name)));
    }
    if (mapping.device_class_names.empty()) {
      return fail(Required(path + ".deviceClassNames", "at least one device class name is required"));
    }
    if (static_cast<int64_t>(mapping.device_class_names.size()) > kMaxDeviceClassNames) {
      return fail(fmt::format("{}.deviceClassNames: Too many: {}: must have at most {} items", path,
                              mapping.device_class_names.size(), kMaxDeviceClassNames));
    }
    // counterNameForMapping: the first source's counter name.
    std::string counter_name;
    if (!mapping.sources.empty() &&
        mapping.sources[0].kind == model::DeviceClassMappingSource::Kind::kCounter) {
      counter_name = mapping.sources[0].name;
    }
    std::set<std::string> seen_classes;
    for (size_t c = 0; c < mapping.device_class_names.size(); ++c) {
      const std::string& dc = mapping.device_class_names[c];
      const std::string dc_path = fmt::format("{}.deviceClassNames[{}]", path, c);
      if (auto errs = LabelKeyErrors(dc); !errs.empty()) {
        std::string joined;
        for (const auto& e : errs) joined += (joined.empty() ? "" : "; ") + e;
        return fail(Invalid(dc_path, GoQuote(dc), joined));
      }
      if (dc.size() > 253) return fail(Invalid(dc_path, GoQuote(dc), "must not exceed 253 characters"));
      if (!seen_classes.insert(dc).second) {
        return fail(fmt::format("{}: Duplicate value: {}", dc_path, GoQuote(dc)));
      }
      auto existing = mapped_to.find(dc);
      if (existing == mapped_to.end()) {
        mapped_to[dc] = mapping.name;
        if (!counter_name.empty()) class_counter_names[dc].insert(counter_name);
        continue;
      }
      if (existing->second == mapping.name) continue;
      // The same class in two mappings only with counter sources of
      // different counters (e.g. gpu.memory and gpu.compute).
      std::set<std::string>& counters = class_counter_names[dc];
      if (counter_name.empty() || counters.empty()) {
        return fail(Invalid(dc_path, GoQuote(dc),
                            fmt::format("device class already mapped to resource {}", existing->second)));
      }
      if (counters.count(counter_name) > 0) {
        return fail(Invalid(
            dc_path, GoQuote(dc),
            fmt::format("device class already has a counter source for counter \"{}\"", counter_name)));
      }
      counters.insert(counter_name);
    }
    bool has_counter = false, has_capacity = false;
    for (size_t s = 0; s < mapping.sources.size(); ++s) {
      const model::DeviceClassMappingSource& src = mapping.sources[s];
      const bool counter = src.kind == model::DeviceClassMappingSource::Kind::kCounter;
      const std::string src_path =
          fmt::format("{}.sources[{}].{}", path, s, counter ? "counter" : "capacity");
      if (counter) {
        has_counter = true;
        if (!gates.kueue_dra_integration_partitionable_devices) {
          return fail(
              Invalid(src_path, "true",
                      "counter sources require KueueDRAIntegrationPartitionableDevices to be enabled"));
        }
        if (src.name.empty()) return fail(Required(src_path + ".name", ""));
        if (!IsDns1123Label(src.name)) {
          return fail(Invalid(src_path + ".name", GoQuote(src.name),
                              "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
                              "or '-', and must start and end with an alphanumeric character"));
        }
      } else {
        has_capacity = true;
        if (!gates.kueue_dra_integration_consumable_capacity) {
          return fail(
              Invalid(src_path, "true",
                      "capacity sources require KueueDRAIntegrationConsumableCapacity to be enabled"));
        }
        if (auto err = QualifiedNameError(src.name); err.has_value()) {
          return fail(Invalid(src_path + ".name", GoQuote(src.name), *err));
        }
      }
      // validateDeviceClassSource.
      if (src.driver.empty()) return fail(Required(src_path + ".driver", ""));
      if (src.driver.size() > kMaxDriverLength) {
        return fail(Invalid(src_path + ".driver", GoQuote(src.driver),
                            fmt::format("must not exceed {} characters", kMaxDriverLength)));
      }
      if (!IsDns1123Subdomain(src.driver)) {
        return fail(Invalid(src_path + ".driver", GoQuote(src.driver),
                            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                            "characters, '-' or '.', and must start and end with an alphanumeric character"));
      }
      const std::string selector_path = src_path + ".deviceSelector.cel.expression";
      if (src.device_selector.empty()) return fail(Required(selector_path, ""));
      auto compiled = CelExpression::Compile(src.device_selector);
      if (!compiled.ok()) {
        return fail(Invalid(selector_path, GoQuote(src.device_selector),
                            "CEL compilation failed: " + StatusMessage(compiled.status())));
      }
    }
    if (has_counter && has_capacity) {
      return fail(Invalid(path + ".sources", std::to_string(mapping.sources.size()),
                          "cannot mix counter and capacity sources in the same mapping"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Charger>> Charger::Create(const ChargerInputs& inputs) {
  auto impl = std::make_unique<Impl>();
  impl->gates = inputs.gates;
  KUEUESIM_RETURN_IF_ERROR(impl->ValidateMappings(inputs.mappings, inputs.mappings_source));

  // PopulateFromConfiguration.
  for (const model::DeviceClassMapping& mapping : inputs.mappings) {
    for (const std::string& dc : mapping.device_class_names) {
      impl->class_to_resource.emplace(dc, mapping.name);
      for (const model::DeviceClassMappingSource& src : mapping.sources) {
        KUEUESIM_ASSIGN_OR_RETURN(CelExpression selector, CelExpression::Compile(src.device_selector));
        auto shared = std::make_shared<const CelExpression>(std::move(selector));
        if (src.kind == model::DeviceClassMappingSource::Kind::kCounter) {
          impl->class_counters[dc].push_back(CounterConfig{mapping.name, src.driver, src.name, shared});
        } else {
          impl->class_capacity[dc].push_back(
              CapacityConfig{src.driver, Qualify(src.driver, src.name), shared});
        }
      }
    }
  }

  if (inputs.device_classes != nullptr) {
    for (const model::DeviceClass& cls : *inputs.device_classes) {
      const std::string where =
          fmt::format("{}: {}", cls.meta.source.ToString(), ObjectName(cls.meta, "DeviceClass"));
      ClassInfo info;
      info.cls = cls;
      info.selectors = CompileSelectors(cls.selectors);
      if (!impl->classes.emplace(cls.meta.name, std::move(info)).second) {
        return InvalidArgument(fmt::format("{}: duplicate DeviceClass name", where));
      }
    }
    for (const auto& [name, info] : impl->classes) {
      if (!info.cls.extended_resource_name.empty()) {
        impl->extended_resource_classes[info.cls.extended_resource_name].push_back(&info.cls);
      }
    }
  }

  if (inputs.templates != nullptr) {
    for (const model::ResourceClaimTemplate& tmpl : *inputs.templates) {
      const std::string where =
          fmt::format("{}: {}", tmpl.meta.source.ToString(), ObjectName(tmpl.meta, "ResourceClaimTemplate"));
      TemplateInfo info;
      info.tmpl = tmpl;
      for (const model::DeviceRequest& req : tmpl.requests) {
        info.request_selectors.push_back(CompileSelectors(req.selectors));
      }
      if (!impl->templates.emplace(std::make_pair(tmpl.meta.namespace_, tmpl.meta.name), std::move(info))
               .second) {
        return InvalidArgument(fmt::format("{}: duplicate ResourceClaimTemplate name", where));
      }
    }
  }

  if (inputs.slices != nullptr) impl->slices = *inputs.slices;
  impl->IndexDevices();
  return std::unique_ptr<Charger>(new Charger(std::move(impl)));
}

Charger::Charger(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Charger::~Charger() = default;

const model::DeviceClass* Charger::Impl::SelectedClass(const std::string& extended_resource) const {
  auto it = extended_resource_classes.find(extended_resource);
  if (it == extended_resource_classes.end() || it->second.empty()) return nullptr;
  // selectedDeviceClass: the class created last; on equal timestamps the
  // lexicographically first name. A missing timestamp is Go's zero time.
  const model::DeviceClass* selected = it->second.front();
  for (const model::DeviceClass* candidate : it->second) {
    UnixMicros a = candidate->meta.creation_timestamp.value_or(std::numeric_limits<UnixMicros>::min());
    UnixMicros b = selected->meta.creation_timestamp.value_or(std::numeric_limits<UnixMicros>::min());
    if (a > b || (a == b && candidate->meta.name < selected->meta.name)) selected = candidate;
  }
  return selected;
}

bool Charger::Applies(const model::PodSet& pod_set,
                      const std::map<std::string, Amount>& per_pod_requests) const {
  const model::FeatureGates& gates = impl_->gates;
  if (!gates.kueue_dra_integration) {
    return gates.kueue_dra_reject_workloads_when_dra_disabled && !pod_set.rare->resource_claims.empty();
  }
  if (!pod_set.rare->resource_claims.empty()) return true;
  if (!gates.kueue_dra_integration_extended_resource) return false;
  for (const auto& [name, amount] : per_pod_requests) {
    if (amount > 0 && IsExtendedResourceName(name) && impl_->SelectedClass(name) != nullptr) return true;
  }
  return false;
}

// validateCELSelectorsAgainstDevices for one claim: each device counts for
// at most one request of the claim; slices are listed whole (every
// generation, complete or not), all of them unless every CEL request's
// class has counter or capacity sources (then only those drivers').
std::string Charger::Impl::PreCheckClaim(const TemplateInfo& info, const std::string& claim_path) const {
  struct CelRequest {
    size_t index;
    const model::DeviceRequest* request;
  };
  std::vector<CelRequest> cel_requests;
  for (size_t i = 0; i < info.tmpl.requests.size(); ++i) {
    const model::DeviceRequest& req = info.tmpl.requests[i];
    if (req.exactly && !req.selectors.empty()) cel_requests.push_back({i, &req});
  }
  if (cel_requests.empty()) return "";

  bool needs_all = false;
  for (const CelRequest& cr : cel_requests) {
    if (!HasCounters(cr.request->device_class_name) && !HasCapacity(cr.request->device_class_name)) {
      needs_all = true;
      break;
    }
  }
  std::vector<DeviceRef> by_driver;
  if (!needs_all) {
    std::set<std::string> seen;
    auto add = [&](const std::string& driver) {
      if (!seen.insert(driver).second) return;
      const auto& devices = DevicesOf(devices_by_driver, driver);
      by_driver.insert(by_driver.end(), devices.begin(), devices.end());
    };
    for (const CelRequest& cr : cel_requests) {
      auto counters = class_counters.find(cr.request->device_class_name);
      if (counters != class_counters.end()) {
        for (const CounterConfig& cc : counters->second) add(cc.driver);
      }
      auto capacity = class_capacity.find(cr.request->device_class_name);
      if (capacity != class_capacity.end()) {
        for (const CapacityConfig& cap : capacity->second) add(cap.driver);
      }
    }
  }
  const std::vector<DeviceRef>& devices = needs_all ? all_devices : by_driver;
  std::vector<bool> used(devices.size(), false);

  std::vector<std::string> errors;
  for (const CelRequest& cr : cel_requests) {
    const std::string& class_name = cr.request->device_class_name;
    const std::string req_path = fmt::format("{}.devices.requests[{}]", claim_path, cr.index);
    const std::vector<Selector>* class_selectors = nullptr;
    if (!class_name.empty()) {
      auto cls = classes.find(class_name);
      if (cls == classes.end()) {
        errors.push_back(
            InternalError(req_path, fmt::format("ResourceClaimTemplate {}: failed to get DeviceClass {}: "
                                                "deviceclasses.resource.k8s.io \"{}\" not found",
                                                info.tmpl.meta.name, class_name, class_name)));
        continue;
      }
      // resolveAndCompileDeviceClass: the class's first selector that does
      // not compile refuses the request.
      std::vector<std::string> class_errors =
          SelectorErrors(cls->second.selectors, req_path,
                         fmt::format("ResourceClaimTemplate {}: DeviceClass {} has invalid CEL selector",
                                     info.tmpl.meta.name, class_name));
      if (!class_errors.empty()) {
        errors.push_back(class_errors.front());
        continue;
      }
      class_selectors = &cls->second.selectors;
    }
    const std::vector<Selector>& request_selectors = info.request_selectors[cr.index];
    if (std::vector<std::string> request_errors =
            SelectorErrors(request_selectors, req_path + ".exactly.selectors",
                           fmt::format("ResourceClaimTemplate {}: CEL compilation failed", info.tmpl.meta.name));
        !request_errors.empty()) {
      errors.insert(errors.end(), request_errors.begin(), request_errors.end());
      continue;
    }
    int64_t matches = 0;
    std::optional<std::string> eval_error;
    for (size_t d = 0; d < devices.size(); ++d) {
      if (used[d]) continue;
      if (class_selectors != nullptr) {
        CelResult r = AllMatch(*class_selectors, devices[d]);
        if (r.outcome == CelResult::Outcome::kError) {
          eval_error = r.error;
          break;
        }
        if (r.outcome == CelResult::Outcome::kFalse) continue;
      }
      CelResult r = AllMatch(request_selectors, devices[d]);
      if (r.outcome == CelResult::Outcome::kError) {
        eval_error = r.error;
        break;
      }
      if (r.outcome == CelResult::Outcome::kTrue) {
        used[d] = true;
        if (++matches >= cr.request->count) break;
      }
    }
    const std::string selectors_path = req_path + ".exactly.selectors";
    if (eval_error.has_value()) {
      errors.push_back(
          Invalid(selectors_path, kNull,
                  fmt::format("ResourceClaimTemplate {}: CEL evaluation failed for DeviceClass {}: {}",
                              info.tmpl.meta.name, class_name, *eval_error)));
      continue;
    }
    if (matches < cr.request->count) {
      errors.push_back(InternalError(
          selectors_path,
          fmt::format("ResourceClaimTemplate {}: insufficient matching devices for CEL selector in "
                      "DeviceClass {}: {} device(s) match in the cluster but {} requested",
                      info.tmpl.meta.name, class_name, matches, cr.request->count)));
    }
  }
  return errors.empty() ? "" : Aggregate(errors);
}

// GetResourceRequestsForResourceClaimTemplates for one pod set.
std::string Charger::Impl::ChargeTemplates(const std::string& ns, const model::PodSet& pod_set,
                                           const std::string& ps_path,
                                           std::map<std::string, Amount>* dra) const {
  for (size_t j = 0; j < pod_set.rare->resource_claims.size(); ++j) {
    const model::PodResourceClaim& claim = pod_set.rare->resource_claims[j];
    if (claim.resource_claim_template_name.empty()) continue;
    const std::string& tmpl_name = claim.resource_claim_template_name;
    const std::string claim_path = fmt::format("{}.template.spec.resourceClaims[{}]", ps_path, j);
    auto found = templates.find({ns, tmpl_name});
    if (found == templates.end()) {
      return InternalError(claim_path,
                           fmt::format("failed to get claim spec for ResourceClaimTemplate {} in podset "
                                       "{}: resourceclaimtemplates.resource.k8s.io \"{}\" not found",
                                       tmpl_name, pod_set.name, tmpl_name));
    }
    const TemplateInfo& info = found->second;

    // countDevicesPerClass.
    std::map<std::string, int64_t> device_counts;
    for (size_t i = 0; i < info.tmpl.requests.size(); ++i) {
      const model::DeviceRequest& req = info.tmpl.requests[i];
      const std::string req_path = fmt::format("{}.devices.requests[{}]", claim_path, i);
      if (req.first_available > 0) {
        return Invalid(
            req_path, kNull,
            fmt::format("ResourceClaimTemplate {}: FirstAvailable device selection is not supported",
                        tmpl_name));
      }
      if (!req.exactly) {
        return Invalid(
            req_path, kNull,
            fmt::format("ResourceClaimTemplate {}: Exactly must be set if FirstAvailable is nil", tmpl_name));
      }
      // validateCELSelectors: the request's selectors must compile; the
      // errors, aggregated, are the detail of one error on the list.
      if (std::vector<std::string> errors =
              SelectorErrors(info.request_selectors[i], fmt::format("devices.requests[{}].exactly.selectors", i),
                             "CEL compilation failed");
          !errors.empty()) {
        return Invalid(req_path + ".exactly.selectors", kNull,
                       fmt::format("ResourceClaimTemplate {}: {}", tmpl_name, Aggregate(errors)));
      }
      if (req.admin_access) continue;
      if (req.allocation_mode == "All") {
        return Invalid(
            req_path + ".exactly.allocationMode", GoQuote("All"),
            fmt::format("ResourceClaimTemplate {}: AllocationMode 'All' is not supported", tmpl_name));
      }
      if (req.allocation_mode != "ExactCount") {
        return Invalid(req_path + ".exactly.allocationMode", GoQuote(req.allocation_mode),
                       fmt::format("ResourceClaimTemplate {}: unsupported allocation mode: {}", tmpl_name,
                                   req.allocation_mode));
      }
      if (req.device_class_name.empty()) continue;
      device_counts[req.device_class_name] = SaturatingAdd(device_counts[req.device_class_name], req.count);
    }

    if (std::string reason = PreCheckClaim(info, claim_path); !reason.empty()) return reason;

    for (const auto& [dc, count] : device_counts) {
      auto logical = class_to_resource.find(dc);
      if (logical == class_to_resource.end()) {
        return NotFoundError(
            claim_path + ".resourceClaimTemplateName",
            GoQuote(fmt::format("DeviceClass {} is not mapped in DRA configuration for podset {}", dc,
                                pod_set.name)));
      }
      if (gates.kueue_dra_integration_partitionable_devices && HasCounters(dc)) continue;
      if (gates.kueue_dra_integration_consumable_capacity && HasCapacity(dc)) continue;
      (*dra)[logical->second] = AddAmounts((*dra)[logical->second], ToCanonical(logical->second, count));
    }
  }
  return "";
}

// ResolveExtendedResourceQuota for one pod set, on its per-pod requests.
std::vector<std::string> Charger::Impl::ChargeExtendedResources(const std::string& ps_path,
                                                                const std::map<std::string, Amount>& requests,
                                                                std::map<std::string, Amount>* dra,
                                                                std::set<std::string>* replaced) const {
  std::vector<std::string> errors;
  std::map<std::string, Amount> aggregated;
  for (const auto& [name, amount] : requests) {
    if (amount <= 0 || !IsExtendedResourceName(name)) continue;
    const model::DeviceClass* selected = SelectedClass(name);
    if (selected == nullptr) continue;  // not DRA-backed
    std::string quota_key = name;
    auto logical = class_to_resource.find(selected->meta.name);
    if (logical != class_to_resource.end()) {
      quota_key = logical->second;
      const std::string path = ps_path + ".template.spec";
      if (gates.kueue_dra_integration_partitionable_devices && HasCounters(selected->meta.name)) {
        errors.push_back(
            Invalid(path, GoQuote(name),
                    fmt::format("extended resource {} resolves to DeviceClass {} with counters configured;"
                                " use ResourceClaimTemplates with CEL selectors for counter-based quota",
                                name, selected->meta.name)));
        continue;
      }
      if (gates.kueue_dra_integration_consumable_capacity && HasCapacity(selected->meta.name)) {
        errors.push_back(
            Invalid(path, GoQuote(name),
                    fmt::format("extended resource {} resolves to DeviceClass {} with capacity sources "
                                "configured; use ResourceClaimTemplates with capacity.requests for "
                                "capacity-based quota",
                                name, selected->meta.name)));
        continue;
      }
    }
    replaced->insert(name);
    aggregated[quota_key] = AddAmounts(aggregated[quota_key], ToCanonical(quota_key, amount));
  }
  if (!errors.empty()) {
    replaced->clear();
    return errors;
  }
  for (const auto& [key, amount] : aggregated) (*dra)[key] = AddAmounts((*dra)[key], amount);
  return {};
}

std::string Charger::Impl::MatchForSource(const std::string& driver, const CelExpression& source_selector,
                                          const ClassInfo* cls,
                                          const std::vector<Selector>& request_selectors,
                                          const std::string& req_path,
                                          std::vector<const model::Device*>* matched) const {
  for (const DeviceRef& ref : DevicesOf(pooled_devices_by_driver, driver)) {
    CelResult r = source_selector.Evaluate(*ref.driver, *ref.device);
    if (r.outcome != CelResult::Outcome::kTrue) {
      if (r.outcome == CelResult::Outcome::kError) {
        return InternalError(req_path, fmt::format("CEL evaluation error in deviceSelector for device {}: {}",
                                                   ref.device->name, r.error));
      }
      continue;
    }
    if (cls != nullptr) {
      r = AllMatch(cls->selectors, ref);
      if (r.outcome != CelResult::Outcome::kTrue) {
        if (r.outcome == CelResult::Outcome::kError) {
          return InternalError(req_path,
                               fmt::format("CEL evaluation error in DeviceClass selector for device {}: {}",
                                           ref.device->name, r.error));
        }
        continue;
      }
    }
    r = AllMatch(request_selectors, ref);
    if (r.outcome == CelResult::Outcome::kTrue) {
      matched->push_back(ref.device);
    } else if (r.outcome == CelResult::Outcome::kError) {
      return InternalError(req_path, fmt::format("CEL evaluation error in request selector for device {}: {}",
                                                 ref.device->name, r.error));
    }
  }
  return "";
}

std::string Charger::Impl::PrepareSelectors(const model::DeviceRequest& req,
                                            const std::vector<Selector>& request_selectors,
                                            const std::string& claim_path, size_t r, const ClassInfo** cls) const {
  const std::string req_path = fmt::format("{}.devices.requests[{}]", claim_path, r);
  *cls = nullptr;
  if (!req.device_class_name.empty()) {
    auto it = classes.find(req.device_class_name);
    if (it == classes.end()) {
      return InternalError(req_path, fmt::format("failed to get DeviceClass {}: deviceclasses.resource.k8s.io "
                                                 "\"{}\" not found",
                                                 req.device_class_name, req.device_class_name));
    }
    std::vector<std::string> class_errors = SelectorErrors(
        it->second.selectors, req_path, fmt::format("DeviceClass {} has invalid CEL selector", req.device_class_name));
    if (!class_errors.empty()) return class_errors.front();
    *cls = &it->second;
  }
  std::vector<std::string> errors =
      SelectorErrors(request_selectors, req_path + ".exactly.selectors", "CEL compilation failed");
  return errors.empty() ? "" : Aggregate(errors);
}

// GetCounterResourcesForWorkload for one pod set.
std::string Charger::Impl::ChargeCounters(const std::string& ns, const model::PodSet& pod_set,
                                          const std::string& ps_path,
                                          std::map<std::string, Amount>* dra) const {
  for (size_t j = 0; j < pod_set.rare->resource_claims.size(); ++j) {
    const model::PodResourceClaim& claim = pod_set.rare->resource_claims[j];
    if (claim.resource_claim_template_name.empty()) continue;
    const std::string claim_path = fmt::format("{}.template.spec.resourceClaims[{}]", ps_path, j);
    auto found = templates.find({ns, claim.resource_claim_template_name});
    if (found == templates.end()) {
      return InternalError(
          claim_path, fmt::format("failed to get claim spec for ResourceClaimTemplate {}: "
                                  "resourceclaimtemplates.resource.k8s.io \"{}\" not found",
                                  claim.resource_claim_template_name, claim.resource_claim_template_name));
    }
    const TemplateInfo& info = found->second;
    for (size_t r = 0; r < info.tmpl.requests.size(); ++r) {
      const model::DeviceRequest& req = info.tmpl.requests[r];
      if (!req.exactly || req.admin_access) continue;
      auto configs = class_counters.find(req.device_class_name);
      if (configs == class_counters.end() || configs->second.empty()) continue;
      const std::string req_path = fmt::format("{}.devices.requests[{}]", claim_path, r);
      const ClassInfo* cls = nullptr;
      if (std::string reason = PrepareSelectors(req, info.request_selectors[r], claim_path, r, &cls);
          !reason.empty()) {
        return reason;
      }
      for (const CounterConfig& cc : configs->second) {
        std::vector<const model::Device*> matched;
        if (std::string reason =
                MatchForSource(cc.driver, *cc.selector, cls, info.request_selectors[r], req_path, &matched);
            !reason.empty()) {
          return reason;
        }
        if (static_cast<int64_t>(matched.size()) < req.count) {
          return InternalError(req_path,
                               fmt::format("insufficient matching devices for counter driver: {} device(s) "
                                           "match but {} requested",
                                           matched.size(), req.count));
        }
        // computeCounterCharges: the largest value of the counter in any
        // counter set a matched device consumes from.
        const Quantity* max_value = nullptr;
        for (const model::Device* device : matched) {
          for (const model::DeviceCounterConsumption& consumption : device->consumes_counters) {
            auto it = consumption.counters.find(cc.counter);
            if (it == consumption.counters.end()) continue;
            if (max_value == nullptr || CompareQuantities(it->second, *max_value) > 0)
              max_value = &it->second;
          }
        }
        if (max_value == nullptr) {
          return InternalError(req_path,
                               fmt::format("matched devices have no consumesCounters entry for counter "
                                           "\"{}\"",
                                           cc.counter));
        }
        int64_t charge = SafeChargeValue(*max_value, req.count);
        (*dra)[cc.quota_resource] =
            AddAmounts((*dra)[cc.quota_resource], ToCanonical(cc.quota_resource, charge));
      }
    }
  }
  return "";
}

namespace {

// roundToPolicy: the charge for one device, or nullopt when its policy
// cannot satisfy the request (the device is skipped).
std::optional<Quantity> RoundToPolicy(const Quantity& base, const model::DeviceCapacity& capacity) {
  if (!capacity.valid_values.empty()) {
    for (const Quantity& v : capacity.valid_values) {
      if (CompareQuantities(v, base) >= 0) return v;
    }
    return std::nullopt;
  }
  if (capacity.range_min.has_value() || capacity.range_max.has_value() || capacity.range_step.has_value()) {
    int64_t value = SafeValue(base);
    if (capacity.range_min.has_value()) value = std::max(value, SafeValue(*capacity.range_min));
    if (capacity.range_step.has_value() && capacity.range_min.has_value()) {
      int64_t step = SafeValue(*capacity.range_step);
      if (step > 0) {
        int64_t min = SafeValue(*capacity.range_min);
        int64_t offset = SaturatingSub(value, min);
        if (offset % step != 0)
          value = SaturatingAdd(min, SaturatingMul(SaturatingAdd(offset / step, 1), step));
      }
    }
    if (capacity.range_max.has_value() && value > SafeValue(*capacity.range_max)) return std::nullopt;
    return QuantityOf(value);
  }
  return base;
}

}  // namespace

// DetermineCapacityResourcesForWorkload for one pod set.
std::string Charger::Impl::ChargeCapacity(const std::string& ns, const model::PodSet& pod_set,
                                          const std::string& ps_path,
                                          std::map<std::string, Amount>* dra) const {
  for (size_t j = 0; j < pod_set.rare->resource_claims.size(); ++j) {
    const model::PodResourceClaim& claim = pod_set.rare->resource_claims[j];
    if (claim.resource_claim_template_name.empty()) continue;
    const std::string claim_path = fmt::format("{}.template.spec.resourceClaims[{}]", ps_path, j);
    auto found = templates.find({ns, claim.resource_claim_template_name});
    if (found == templates.end()) {
      return InternalError(
          claim_path, fmt::format("failed to get claim spec for ResourceClaimTemplate {}: "
                                  "resourceclaimtemplates.resource.k8s.io \"{}\" not found",
                                  claim.resource_claim_template_name, claim.resource_claim_template_name));
    }
    const TemplateInfo& info = found->second;
    for (size_t r = 0; r < info.tmpl.requests.size(); ++r) {
      const model::DeviceRequest& req = info.tmpl.requests[r];
      if (!req.exactly || req.admin_access) continue;
      auto configs = class_capacity.find(req.device_class_name);
      if (configs == class_capacity.end() || configs->second.empty()) continue;
      auto logical = class_to_resource.find(req.device_class_name);
      if (logical == class_to_resource.end()) continue;
      const std::string& quota_resource = logical->second;
      const std::string req_path = fmt::format("{}.devices.requests[{}]", claim_path, r);
      const ClassInfo* cls = nullptr;
      if (std::string reason = PrepareSelectors(req, info.request_selectors[r], claim_path, r, &cls);
          !reason.empty()) {
        return reason;
      }
      for (const CapacityConfig& cap : configs->second) {
        std::vector<const model::Device*> matched;
        if (std::string reason =
                MatchForSource(cap.driver, *cap.selector, cls, info.request_selectors[r], req_path, &matched);
            !reason.empty()) {
          return reason;
        }
        if (static_cast<int64_t>(matched.size()) < req.count) {
          return InternalError(req_path, fmt::format("insufficient matching devices for capacity driver: {} "
                                                     "device(s) match but {} requested",
                                                     matched.size(), req.count));
        }
        // The claim's explicit request for this dimension, if any (a bare
        // key is the driver's domain).
        const Quantity* explicit_request = nullptr;
        for (const auto& [key, qty] : req.capacity_requests) {
          if (Qualify(cap.driver, key) == cap.name) explicit_request = &qty;
        }
        // computeCapacityCharge.
        bool has_dimension = false;
        std::optional<Quantity> max_rounded;
        for (const model::Device* device : matched) {
          auto dim = device->capacity.find(cap.name);
          if (dim == device->capacity.end()) continue;
          has_dimension = true;
          const model::DeviceCapacity& capacity = dim->second;
          const Quantity& base = explicit_request != nullptr          ? *explicit_request
                                 : capacity.default_value.has_value() ? *capacity.default_value
                                                                      : capacity.value;
          std::optional<Quantity> rounded = RoundToPolicy(base, capacity);
          if (!rounded.has_value()) continue;
          if (!max_rounded.has_value() || CompareQuantities(*rounded, *max_rounded) > 0)
            max_rounded = rounded;
        }
        if (!has_dimension) {
          return InternalError(req_path,
                               fmt::format("matched devices have no capacity dimension \"{}\"", cap.name));
        }
        if (!max_rounded.has_value()) {
          return Invalid(
              req_path, kNull,
              fmt::format("capacity request cannot be satisfied by any matched device's RequestPolicy "
                          "for dimension \"{}\"",
                          cap.name));
        }
        int64_t charge = SafeChargeValue(*max_rounded, req.count);
        (*dra)[quota_resource] = AddAmounts((*dra)[quota_resource], ToCanonical(quota_resource, charge));
      }
    }
  }
  return "";
}

PodSetCharge Charger::Charge(const std::string& namespace_, const model::PodSet& pod_set,
                             const std::map<std::string, Amount>& per_pod_requests, int pod_set_index) const {
  const Impl& impl = *impl_;
  const model::FeatureGates& gates = impl.gates;
  PodSetCharge out;
  out.per_pod_requests = per_pod_requests;
  auto refuse = [&out](ChargeStage stage, std::vector<std::string> errors) {
    out.refused_at = stage;
    out.inadmissible_reason = Aggregate(errors);
    out.errors = std::move(errors);
    return out;
  };

  bool has_claim_by_name = false;
  for (const model::PodResourceClaim& claim : pod_set.rare->resource_claims) {
    if (!claim.resource_claim_name.empty()) has_claim_by_name = true;
  }
  if (!gates.kueue_dra_integration) {
    if (gates.kueue_dra_reject_workloads_when_dra_disabled && !pod_set.rare->resource_claims.empty()) {
      return refuse(ChargeStage::kWorkload,
                    {"Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled"});
    }
    return out;
  }
  if (has_claim_by_name) {
    return refuse(ChargeStage::kWorkload, {"KueueDRAIntegration feature does not support use of resource claims"});
  }

  const std::string ps_path = pod_set_index >= 0 ? fmt::format("spec.podSets[{}]", pod_set_index)
                                                 : fmt::format("spec.podSets[{}]", pod_set.name);
  std::map<std::string, Amount> dra;
  std::set<std::string> replaced;
  if (std::string reason = impl.ChargeTemplates(namespace_, pod_set, ps_path, &dra); !reason.empty()) {
    return refuse(ChargeStage::kTemplates, {std::move(reason)});
  }
  if (gates.kueue_dra_integration_extended_resource) {
    std::vector<std::string> errors = impl.ChargeExtendedResources(ps_path, per_pod_requests, &dra, &replaced);
    if (!errors.empty()) return refuse(ChargeStage::kExtendedResources, std::move(errors));
  }
  if (gates.kueue_dra_integration_partitionable_devices) {
    if (std::string reason = impl.ChargeCounters(namespace_, pod_set, ps_path, &dra); !reason.empty()) {
      return refuse(ChargeStage::kCounters, {std::move(reason)});
    }
  }
  if (gates.kueue_dra_integration_consumable_capacity) {
    if (std::string reason = impl.ChargeCapacity(namespace_, pod_set, ps_path, &dra); !reason.empty()) {
      return refuse(ChargeStage::kCapacity, {std::move(reason)});
    }
  }
  for (const std::string& name : replaced) out.per_pod_requests.erase(name);
  for (const auto& [name, amount] : dra) {
    out.per_pod_requests[name] = AddAmounts(out.per_pod_requests[name], amount);
  }
  out.replaced_extended_resources = std::move(replaced);
  out.dra_requests = std::move(dra);
  return out;
}

bool IsExtendedResourceName(const std::string& name) {
  // kueue pkg/util/resource.IsExtendedResourceName: not native (has a '/'
  // and not in the kubernetes.io/ namespace), not hugepages-*.
  if (name.find('/') == std::string::npos) return false;
  if (name.rfind("kubernetes.io/", 0) == 0) return false;
  if (name.rfind("hugepages-", 0) == 0) return false;
  return true;
}

std::string WorkloadInadmissibleReason(const std::vector<PodSetCharge>& charges) {
  const PodSetCharge* first = nullptr;
  for (const PodSetCharge& charge : charges) {
    if (charge.refused_at == ChargeStage::kNone) continue;
    if (first == nullptr || charge.refused_at < first->refused_at) first = &charge;
  }
  if (first == nullptr) return "";
  if (first->refused_at != ChargeStage::kExtendedResources) return first->inadmissible_reason;
  std::vector<std::string> errors;
  for (const PodSetCharge& charge : charges) {
    if (charge.refused_at != ChargeStage::kExtendedResources) continue;
    errors.insert(errors.end(), charge.errors.begin(), charge.errors.end());
  }
  return Aggregate(errors);
}

}  // namespace kueuesim::dra
