// kueue-workloads: the output of `kubectl get workloads -A -o json` (a List
// of kueue.x-k8s.io Workloads, v1beta1 or v1beta2; a bare JSON array of
// Workloads is read too) replayed as a trace.
//
// Reading: at open, one strict pass over the text (ExtentScanner, which
// builds no values) finds where each item of `items` starts and ends (byte
// offsets and line: 24 bytes per item); nothing else is kept. Each item is then read
// back on its own (one item's text and DOM at a time) and parsed. The List
// need not be sorted (kubectl sorts by namespace and name): the shared
// machinery sorts by creation time with a 24-byte index entry per item.
//
// Per item:
//   arrival      metadata.creationTimestamp, relative to the earliest one
//   duration     Finished.lastTransitionTime - Admitted (else QuotaReserved)
//                .lastTransitionTime (conditions with status True); none when
//                not finished; finished without admission: skipped
//   pod sets     spec.podSets: name, count, minCount, and from the template
//                the effective per-pod request (containers summed, limits
//                standing in for missing requests, sidecars, max with init
//                containers, pod overhead), nodeSelector, required node
//                affinity, tolerations; spec.podSets[].topologyRequest
//   priority     spec.priority; priority class from spec.priorityClassRef
//                (v1beta2) or spec.priorityClassName/Source (v1beta1)
//   queue        spec.queueName (else the kueue.x-k8s.io/queue-name label)
//   active       spec.active
//   labels and annotations are kept (minus kubectl's last-applied
//   configuration), plus the recorded admission for comparison:
//     kueuesim.io/recorded-cluster-queue  status.admission.clusterQueue
//     kueuesim.io/recorded-flavors        "cpu=default,memory=default" (the
//                                         podSetAssignments' flavors)
//     kueuesim.io/recorded-wait           admission time - creation (Go duration)
//     kueuesim.io/recorded-creation       the original creationTimestamp
// The creationTimestamp itself is not kept: the simulation creates the
// workload at its (scaled) arrival.
#include <algorithm>
#include <iterator>
#include <memory>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kueuesim/base/quantity.h"
#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "kueuesim/base/utf8.h"
#include "trace/formats.h"
#include "trace/input_buffer.h"
#include "trace/json_util.h"

namespace kueuesim::trace::internal {
namespace {

using nlohmann::json;

constexpr char kQueueNameLabel[] = "kueue.x-k8s.io/queue-name";
constexpr char kLastApplied[] = "kubectl.kubernetes.io/last-applied-configuration";

// --- Finding the items ---

struct Extent {
  int64_t begin = 0;  // -1: the item is not an object
  int64_t end = 0;
  int64_t line = 0;
};

// One pass over the JSON text that checks it strictly (RFC 8259: structure,
// string escapes, UTF-8, numbers, literals, nothing after the value) and
// records the extent of each element of the top-level `items` array (or of
// a top-level array), without building any value. Runs of plain string bytes
// and of white space are scanned straight from the input's buffer.
class ExtentScanner {
 public:
  ExtentScanner(InputBuffer* input, std::vector<Extent>* extents) : input_(input), extents_(extents) {}

  // OK, or an error naming the line and column of the first fault.
  absl::Status Scan() {
    // A UTF-8 byte order mark is allowed before the text.
    if (input_->Peek() == 0xEF) {
      input_->Get();
      if (input_->Get() != 0xBB || input_->Get() != 0xBF) return Fault("a byte order mark");
      line_start_ = input_->offset();
    }
    SkipWhitespace();
    KUEUESIM_RETURN_IF_ERROR(Value(/*depth=*/0, /*is_items=*/false));
    SkipWhitespace();
    if (input_->Peek() >= 0) return Fault("the end of the input after the JSON value");
    return input_->status();
  }

  bool found_items() const { return found_items_; }

 private:
  // Nesting deeper than this is refused (the items are read back with a
  // recursive parser).
  static constexpr int kMaxDepth = 512;

  absl::Status Fault(std::string_view expected) {
    KUEUESIM_RETURN_IF_ERROR(input_->status());
    const int next = input_->Peek();
    const int64_t column = input_->offset() - line_start_ + 1;
    std::string found = next < 0 ? "the end of the input"
                        : (next >= 0x20 && next < 0x7F)
                            ? fmt::format("'{}'", static_cast<char>(next))
                            : fmt::format("byte 0x{:02X}", next);
    return InvalidArgument(
        fmt::format("{}: invalid JSON at line {}, column {}: expected {}, found {}", input_->name(), line_,
                    column, expected, found));
  }

  void SkipWhitespace() {
    for (;;) {
      std::string_view run = input_->Buffered();
      if (run.empty()) {
        if (input_->Peek() < 0) return;
        run = input_->Buffered();
      }
      size_t i = 0;
      for (; i < run.size(); ++i) {
        const char c = run[i];
        if (c == '\n') {
          ++line_;
          line_start_ = input_->offset() + static_cast<int64_t>(i) + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
          break;
        }
      }
      input_->Skip(i);
      if (i < run.size()) return;
    }
  }

  // A value at `depth` (0: the top level); the elements of the items array
  // are recorded.
  absl::Status Value(int depth, bool is_item) {
    const int64_t begin = input_->offset();
    const int64_t line = line_;
    const int c = input_->Peek();
    switch (c) {
      case '{':
        KUEUESIM_RETURN_IF_ERROR(Object(depth));
        if (is_item) extents_->push_back({begin, input_->offset(), line});
        return absl::OkStatus();
      case '[': {
        const bool items = depth == 0 || (depth == 1 && top_key_is_items_);
        if (items) found_items_ = true;
        if (is_item) extents_->push_back({-1, 0, line});
        return Array(depth, items);
      }
      case '"':
        if (is_item) extents_->push_back({-1, 0, line});
        return String(nullptr);
      case 't':
        if (is_item) extents_->push_back({-1, 0, line});
        return Literal("true");
      case 'f':
        if (is_item) extents_->push_back({-1, 0, line});
        return Literal("false");
      case 'n':
        if (is_item) extents_->push_back({-1, 0, line});
        return Literal("null");
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          if (is_item) extents_->push_back({-1, 0, line});
          return Number();
        }
        return Fault("a JSON value");
    }
  }

  absl::Status Object(int depth) {
    if (depth >= kMaxDepth) return Fault(fmt::format("at most {} levels of nesting", kMaxDepth));
    input_->Get();  // '{'
    SkipWhitespace();
    if (input_->Peek() == '}') {
      input_->Get();
      return absl::OkStatus();
    }
    for (;;) {
      if (input_->Peek() != '"') return Fault("a string key");
      std::string key;
      KUEUESIM_RETURN_IF_ERROR(String(depth == 0 ? &key : nullptr));
      if (depth == 0) top_key_is_items_ = key == "items";
      SkipWhitespace();
      if (input_->Peek() != ':') return Fault("':'");
      input_->Get();
      SkipWhitespace();
      KUEUESIM_RETURN_IF_ERROR(Value(depth + 1, /*is_item=*/false));
      SkipWhitespace();
      const int next = input_->Peek();
      if (next == '}') {
        input_->Get();
        if (depth == 0) top_key_is_items_ = false;
        return absl::OkStatus();
      }
      if (next != ',') return Fault("',' or '}'");
      input_->Get();
      SkipWhitespace();
    }
  }

  absl::Status Array(int depth, bool items) {
    if (depth >= kMaxDepth) return Fault(fmt::format("at most {} levels of nesting", kMaxDepth));
    input_->Get();  // '['
    SkipWhitespace();
    if (input_->Peek() == ']') {
      input_->Get();
      return absl::OkStatus();
    }
    for (;;) {
      KUEUESIM_RETURN_IF_ERROR(Value(depth + 1, items));
      SkipWhitespace();
      const int next = input_->Peek();
      if (next == ']') {
        input_->Get();
        return absl::OkStatus();
      }
      if (next != ',') return Fault("',' or ']'");
      input_->Get();
      SkipWhitespace();
    }
  }

  // A string; its unescaped text goes to `text` when given (only top-level
  // keys are kept; the escapes are checked either way).
  absl::Status String(std::string* text) {
    input_->Get();  // '"'
    for (;;) {
      std::string_view run = input_->Buffered();
      if (run.empty()) {
        if (input_->Peek() < 0) return Fault("'\"' to close the string");
        run = input_->Buffered();
      }
      size_t i = 0;
      while (i < run.size()) {
        const auto byte = static_cast<unsigned char>(run[i]);
        if (byte == '"' || byte == '\\' || byte < 0x20 || byte >= 0x80) break;
        ++i;
      }
      if (text != nullptr) text->append(run.substr(0, i));
      input_->Skip(i);
      if (i == run.size()) continue;
      const int c = input_->Peek();
      if (c == '"') {
        input_->Get();
        return absl::OkStatus();
      }
      if (c < 0x20) return Fault("a character of a string (control characters must be escaped)");
      if (c == '\\') {
        KUEUESIM_RETURN_IF_ERROR(Escape(text));
      } else {
        KUEUESIM_RETURN_IF_ERROR(Utf8Sequence(text));
      }
    }
  }

  absl::Status Escape(std::string* text) {
    input_->Get();  // '\'
    const int c = input_->Peek();
    char plain = 0;
    switch (c) {
      case '"': plain = '"'; break;
      case '\\': plain = '\\'; break;
      case '/': plain = '/'; break;
      case 'b': plain = '\b'; break;
      case 'f': plain = '\f'; break;
      case 'n': plain = '\n'; break;
      case 'r': plain = '\r'; break;
      case 't': plain = '\t'; break;
      case 'u': {
        input_->Get();
        uint32_t unit = 0;
        KUEUESIM_RETURN_IF_ERROR(Hex4(&unit));
        if (unit >= 0xDC00 && unit <= 0xDFFF) return Fault("a high surrogate before a low one");
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          if (input_->Get() != '\\' || input_->Get() != 'u') return Fault("'\\u' and a low surrogate");
          uint32_t low = 0;
          KUEUESIM_RETURN_IF_ERROR(Hex4(&low));
          if (low < 0xDC00 || low > 0xDFFF) return Fault("a low surrogate");
          unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
        }
        if (text != nullptr) AppendUtf8(unit, *text);
        return absl::OkStatus();
      }
      default:
        return Fault("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
    }
    input_->Get();
    if (text != nullptr) text->push_back(plain);
    return absl::OkStatus();
  }

  absl::Status Hex4(uint32_t* value) {
    for (int i = 0; i < 4; ++i) {
      const int c = input_->Peek();
      int digit = -1;
      if (c >= '0' && c <= '9') digit = c - '0';
      if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
      if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
      if (digit < 0) return Fault("four hexadecimal digits");
      input_->Get();
      *value = *value * 16 + static_cast<uint32_t>(digit);
    }
    return absl::OkStatus();
  }

  // One multi-byte UTF-8 character (no overlong forms, no surrogates, at
  // most U+10FFFF).
  absl::Status Utf8Sequence(std::string* text) {
    const int lead = input_->Peek();
    int continuation = 0;
    int low = 0x80;
    int high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      continuation = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      continuation = 2;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      continuation = 3;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return Fault("UTF-8 text");
    }
    input_->Get();
    if (text != nullptr) text->push_back(static_cast<char>(lead));
    for (int i = 0; i < continuation; ++i) {
      const int c = input_->Peek();
      if (c < low || c > high) return Fault("UTF-8 text");
      input_->Get();
      if (text != nullptr) text->push_back(static_cast<char>(c));
      low = 0x80;
      high = 0xBF;
    }
    return absl::OkStatus();
  }

  absl::Status Literal(std::string_view word) {
    for (const char c : word) {
      if (input_->Peek() != static_cast<unsigned char>(c)) return Fault(fmt::format("'{}'", word));
      input_->Get();
    }
    return absl::OkStatus();
  }

  bool Digits() {
    bool any = false;
    for (int c = input_->Peek(); c >= '0' && c <= '9'; c = input_->Peek()) {
      input_->Get();
      any = true;
    }
    return any;
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  absl::Status Number() {
    if (input_->Peek() == '-') input_->Get();
    if (input_->Peek() == '0') {
      input_->Get();
    } else if (!Digits()) {
      return Fault("a digit");
    }
    if (input_->Peek() == '.') {
      input_->Get();
      if (!Digits()) return Fault("a digit after '.'");
    }
    if (input_->Peek() == 'e' || input_->Peek() == 'E') {
      input_->Get();
      if (input_->Peek() == '+' || input_->Peek() == '-') input_->Get();
      if (!Digits()) return Fault("a digit in the exponent");
    }
    return absl::OkStatus();
  }

  InputBuffer* input_;
  std::vector<Extent>* extents_;
  int64_t line_ = 1;
  int64_t line_start_ = 0;  // offset of the first byte of the line
  bool top_key_is_items_ = false;
  bool found_items_ = false;
};

// --- Effective pod requests from a pod template ---

void AddRequests(std::map<std::string, Amount>* into, const std::map<std::string, Amount>& from) {
  for (const auto& [name, amount] : from) (*into)[name] = AddAmounts((*into)[name], amount);
}

void MaxRequests(std::map<std::string, Amount>* into, const std::map<std::string, Amount>& from) {
  for (const auto& [name, amount] : from) {
    auto it = into->find(name);
    if (it == into->end() || it->second < amount) (*into)[name] = amount;
  }
}

// Reads a resource list (requests, limits, overhead) into `out`; with
// `keep_existing` a value already there is not replaced. False when malformed.
bool ReadResourceList(const json* list, bool keep_existing, std::map<std::string, Amount>* out) {
  if (list == nullptr || list->is_null()) return true;
  if (!list->is_object()) return false;
  for (const auto& [name, quantity] : list->items()) {
    auto text = JsonScalarText(quantity);
    if (!text.has_value() || quantity.is_boolean()) return false;
    auto parsed = ParseQuantity(*text);
    if (!parsed.ok()) return false;
    auto value = CanonicalValue(*parsed, name);
    if (!value.ok()) return false;
    if (keep_existing) {
      out->emplace(name, *value);
    } else {
      (*out)[name] = *value;
    }
  }
  return true;
}

bool ContainerRequests(const json& container, std::map<std::string, Amount>* out) {
  const json* resources = JsonMember(container, "resources");
  if (resources == nullptr || resources->is_null()) return true;
  if (!resources->is_object()) return false;
  // Requests first; a limit only stands in for a missing request.
  return ReadResourceList(JsonMember(*resources, "requests"), false, out) &&
         ReadResourceList(JsonMember(*resources, "limits"), true, out);
}

bool StringMap(const json* value, model::Labels* out) {
  if (value == nullptr || value->is_null()) return true;
  if (!value->is_object()) return false;
  for (const auto& [key, item] : value->items()) {
    if (!item.is_string()) return false;
    (*out)[key] = item.get<std::string>();
  }
  return true;
}

std::optional<std::string> OptString(const json& object, std::string_view key, bool* ok) {
  const json* value = JsonMember(object, key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (!value->is_string()) {
    *ok = false;
    return std::nullopt;
  }
  return value->get<std::string>();
}

bool ParseRequirements(const json* list, std::vector<model::SelectorRequirement>* out) {
  if (list == nullptr || list->is_null()) return true;
  if (!list->is_array()) return false;
  for (const json& item : *list) {
    bool ok = true;
    model::SelectorRequirement requirement;
    requirement.key = OptString(item, "key", &ok).value_or("");
    const std::string op = OptString(item, "operator", &ok).value_or("");
    if (!ok || requirement.key.empty()) return false;
    if (op == "In") {
      requirement.op = model::SelectorOperator::kIn;
    } else if (op == "NotIn") {
      requirement.op = model::SelectorOperator::kNotIn;
    } else if (op == "Exists") {
      requirement.op = model::SelectorOperator::kExists;
    } else if (op == "DoesNotExist") {
      requirement.op = model::SelectorOperator::kDoesNotExist;
    } else if (op == "Gt") {
      requirement.op = model::SelectorOperator::kGt;
    } else if (op == "Lt") {
      requirement.op = model::SelectorOperator::kLt;
    } else {
      return false;
    }
    if (const json* values = JsonMember(item, "values"); values != nullptr && !values->is_null()) {
      if (!values->is_array()) return false;
      for (const json& value : *values) {
        if (!value.is_string()) return false;
        requirement.values.push_back(value.get<std::string>());
      }
    }
    out->push_back(std::move(requirement));
  }
  return true;
}

// The scheduling-relevant parts of a pod template; a skip reason or "".
std::string DecodeTemplate(const json* tmpl, model::PodSet* pod_set) {
  if (tmpl == nullptr || !tmpl->is_object()) return "podSets[].template missing";
  const json* spec = JsonMember(*tmpl, "spec");
  if (spec == nullptr || !spec->is_object()) return "podSets[].template.spec missing";
  std::map<std::string, Amount> requests;
  if (const json* containers = JsonMember(*spec, "containers"); containers != nullptr && !containers->is_null()) {
    if (!containers->is_array()) return "bad containers";
    for (const json& container : *containers) {
      std::map<std::string, Amount> one;
      if (!ContainerRequests(container, &one)) return "bad container resources";
      AddRequests(&requests, one);
    }
  }
  std::map<std::string, Amount> sidecars;
  std::map<std::string, Amount> init_max;
  if (const json* inits = JsonMember(*spec, "initContainers"); inits != nullptr && !inits->is_null()) {
    if (!inits->is_array()) return "bad initContainers";
    for (const json& container : *inits) {
      std::map<std::string, Amount> one;
      if (!ContainerRequests(container, &one)) return "bad container resources";
      bool ok = true;
      if (OptString(container, "restartPolicy", &ok).value_or("") == "Always") {
        AddRequests(&requests, one);
        AddRequests(&sidecars, one);
        MaxRequests(&init_max, sidecars);
      } else {
        AddRequests(&one, sidecars);
        MaxRequests(&init_max, one);
      }
    }
  }
  MaxRequests(&requests, init_max);
  if (const json* pod_resources = JsonMember(*spec, "resources"); pod_resources != nullptr) {
    if (!ReadResourceList(JsonMember(*pod_resources, "requests"), false, &requests)) {
      return "bad pod resources";
    }
  }
  std::map<std::string, Amount> overhead;
  if (!ReadResourceList(JsonMember(*spec, "overhead"), false, &overhead)) return "bad overhead";
  AddRequests(&requests, overhead);
  pod_set->requests.clear();
  for (const auto& [name, amount] : requests) pod_set->requests.push_back({name, std::max<Amount>(amount, 0)});

  model::Labels node_selector;
  if (!StringMap(JsonMember(*spec, "nodeSelector"), &node_selector)) return "bad nodeSelector";
  if (!node_selector.empty()) pod_set->rare.Mutable().node_selector = std::move(node_selector);
  const json* affinity = JsonMember(*spec, "affinity");
  const json* node_affinity = affinity != nullptr ? JsonMember(*affinity, "nodeAffinity") : nullptr;
  const json* required =
      node_affinity != nullptr ? JsonMember(*node_affinity, "requiredDuringSchedulingIgnoredDuringExecution")
                               : nullptr;
  if (const json* terms = required != nullptr ? JsonMember(*required, "nodeSelectorTerms") : nullptr;
      terms != nullptr && !terms->is_null()) {
    if (!terms->is_array()) return "bad node affinity";
    for (const json& term_json : *terms) {
      model::NodeSelectorTerm term;
      if (!ParseRequirements(JsonMember(term_json, "matchExpressions"), &term.match_expressions) ||
          !ParseRequirements(JsonMember(term_json, "matchFields"), &term.match_fields)) {
        return "bad node affinity";
      }
      pod_set->rare.Mutable().required_affinity.push_back(std::move(term));
    }
  }
  if (const json* tolerations = JsonMember(*spec, "tolerations"); tolerations != nullptr && !tolerations->is_null()) {
    if (!tolerations->is_array()) return "bad tolerations";
    for (const json& item : *tolerations) {
      bool ok = true;
      model::Toleration toleration;
      toleration.key = OptString(item, "key", &ok).value_or("");
      const std::string op = OptString(item, "operator", &ok).value_or("Equal");
      toleration.value = OptString(item, "value", &ok).value_or("");
      const std::string effect = OptString(item, "effect", &ok).value_or("");
      if (!ok) return "bad tolerations";
      if (op == "Exists") {
        toleration.op = model::TolerationOperator::kExists;
      } else if (op != "Equal" && !op.empty()) {
        return "bad tolerations";
      }
      if (effect == "NoSchedule") {
        toleration.effect = model::TaintEffect::kNoSchedule;
      } else if (effect == "PreferNoSchedule") {
        toleration.effect = model::TaintEffect::kPreferNoSchedule;
      } else if (effect == "NoExecute") {
        toleration.effect = model::TaintEffect::kNoExecute;
      } else if (!effect.empty()) {
        return "bad tolerations";
      }
      pod_set->rare.Mutable().tolerations.push_back(std::move(toleration));
    }
  }
  bool ok = true;
  std::string priority_class_name = OptString(*spec, "priorityClassName", &ok).value_or("");
  if (!priority_class_name.empty()) pod_set->rare.Mutable().priority_class_name = std::move(priority_class_name);
  if (!ok) return "bad priorityClassName";
  return "";
}

// spec.podSets[].topologyRequest; a skip reason or "".
std::string DecodeTopologyRequest(const json* request, model::PodSet* pod_set) {
  if (request == nullptr || request->is_null()) return "";
  if (!request->is_object()) return "bad topologyRequest";
  bool ok = true;
  model::TopologyRequest out;
  out.required = OptString(*request, "required", &ok);
  out.preferred = OptString(*request, "preferred", &ok);
  out.pod_index_label = OptString(*request, "podIndexLabel", &ok);
  out.sub_group_index_label = OptString(*request, "subGroupIndexLabel", &ok);
  out.pod_set_group_name = OptString(*request, "podSetGroupName", &ok);
  if (const json* unconstrained = JsonMember(*request, "unconstrained"); unconstrained != nullptr) {
    if (!unconstrained->is_boolean()) return "bad topologyRequest";
    out.unconstrained = unconstrained->get<bool>();
  }
  if (const json* count = JsonMember(*request, "subGroupCount"); count != nullptr && !count->is_null()) {
    if (!count->is_number_integer()) return "bad topologyRequest";
    out.sub_group_count = static_cast<int32_t>(count->get<int64_t>());
  }
  auto slice = OptString(*request, "podSetSliceRequiredTopology", &ok);
  if (slice.has_value()) {
    model::SliceLayer layer;
    layer.topology = *slice;
    if (const json* size = JsonMember(*request, "podSetSliceSize"); size != nullptr && !size->is_null()) {
      if (!size->is_number_integer() || size->get<int64_t>() < 1) return "bad topologyRequest";
      layer.size = static_cast<int32_t>(size->get<int64_t>());
    }
    out.slice_layers.push_back(layer);
  }
  if (!ok) return "bad topologyRequest";
  pod_set->topology_request = std::move(out);
  return "";
}

// lastTransitionTime of condition `type` when its status is True.
std::optional<UnixMicros> TrueConditionTime(const json* conditions, std::string_view type, bool* ok) {
  if (conditions == nullptr || !conditions->is_array()) return std::nullopt;
  for (const json& condition : *conditions) {
    bool fine = true;
    if (OptString(condition, "type", &fine).value_or("") != type) continue;
    if (OptString(condition, "status", &fine).value_or("") != "True") return std::nullopt;
    auto text = OptString(condition, "lastTransitionTime", &fine);
    if (!fine || !text.has_value()) {
      *ok = false;
      return std::nullopt;
    }
    auto parsed = ParseRfc3339(*text);
    if (!parsed.ok()) {
      *ok = false;
      return std::nullopt;
    }
    return *parsed;
  }
  return std::nullopt;
}

class KueueWorkloads : public RecordFormat {
 public:
  absl::Status Open(const TraceSpec& spec) {
    KUEUESIM_RETURN_IF_ERROR(CheckOptions(spec, {}));
    spec_ = spec;
    source_file_ = spec.path;
    KUEUESIM_ASSIGN_OR_RETURN(input_, InputBuffer::OpenFile(spec.path));
    std::map<std::string, FieldMapping> defaults = {{"name", FieldOf("name")},
                                                    {"namespace", FieldOf("namespace")},
                                                    {"queue", FieldOf("queueName")},
                                                    {"priority", FieldOf("priority")},
                                                    {"priorityClass", FieldOf("priorityClassName")}};
    KUEUESIM_ASSIGN_OR_RETURN(mapper_, Mapper::Create(spec, std::move(defaults), nullptr));
    // Find the items.
    ExtentScanner scanner(input_.get(), &extents_);
    KUEUESIM_RETURN_IF_ERROR(scanner.Scan());
    if (!scanner.found_items()) {
      return InvalidArgument(fmt::format("{}: not a List of Workloads (no \"items\" list; expected the output "
                                         "of `kubectl get workloads -A -o json`)",
                                         spec.path));
    }
    extents_.shrink_to_fit();
    return absl::OkStatus();
  }

  bool absolute_time() const override { return true; }

  absl::Status Rewind() override {
    cursor_ = 0;
    return absl::OkStatus();
  }

  absl::StatusOr<bool> Next(ImportReport* report, RecordPos* pos, std::optional<ParsedRecord>* out) override {
    out->reset();
    if (cursor_ >= extents_.size()) return false;
    pos->offset = static_cast<int64_t>(cursor_);
    pos->line = extents_[cursor_].line;
    KUEUESIM_ASSIGN_OR_RETURN(*out, ReadItem(cursor_, report));
    ++cursor_;
    return true;
  }

  absl::StatusOr<std::optional<ParsedRecord>> ReadAt(const RecordPos& pos) override {
    if (pos.offset < 0 || static_cast<size_t>(pos.offset) >= extents_.size()) {
      return Internal(fmt::format("no item {}", pos.offset));
    }
    return ReadItem(static_cast<size_t>(pos.offset), nullptr);
  }

 private:
  absl::StatusOr<std::optional<ParsedRecord>> ReadItem(size_t index, ImportReport* report) {
    const Extent& extent = extents_[index];
    if (extent.begin < 0) return std::optional<ParsedRecord>(Skip(report, extent.line, "item is not an object"));
    KUEUESIM_ASSIGN_OR_RETURN(std::string text,
                              input_->ReadAt(extent.begin, static_cast<size_t>(extent.end - extent.begin)));
    json item = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (item.is_discarded()) {
      return Internal(fmt::format("{}:{}: the item does not read back as JSON", spec_.path, extent.line));
    }
    return ParseWorkload(item, extent.line, report);
  }

  std::optional<ParsedRecord> ParseWorkload(const json& item, int64_t ln, ImportReport* report) {
    bool ok = true;
    const std::string kind = OptString(item, "kind", &ok).value_or("Workload");
    if (!ok || kind != "Workload") return Skip(report, ln, fmt::format("not a Workload (kind {})", kind));
    ParsedRecord record;
    model::Workload& wl = record.workload;
    wl.meta.source.file = source_file_;
    wl.meta.source.line = static_cast<int32_t>(ln);
    const json* metadata = JsonMember(item, "metadata");
    if (metadata == nullptr || !metadata->is_object()) return Skip(report, ln, "missing metadata");
    const std::string name = OptString(*metadata, "name", &ok).value_or("");
    const std::string ns = OptString(*metadata, "namespace", &ok).value_or("default");
    if (!ok || name.empty()) return Skip(report, ln, "missing metadata.name");
    const auto created_text = OptString(*metadata, "creationTimestamp", &ok);
    if (!ok || !created_text.has_value()) return Skip(report, ln, "missing metadata.creationTimestamp");
    auto created = ParseRfc3339(*created_text);
    if (!created.ok()) return Skip(report, ln, "bad metadata.creationTimestamp");
    record.time = *created;
    const json* labels = JsonMember(*metadata, "labels");
    const json* annotations = JsonMember(*metadata, "annotations");
    if (!StringMap(labels, &wl.meta.labels)) return Skip(report, ln, "bad metadata.labels");
    if (!StringMap(annotations, &wl.meta.annotations)) return Skip(report, ln, "bad metadata.annotations");
    wl.meta.annotations.erase(kLastApplied);
    wl.meta.set_uid(OptString(*metadata, "uid", &ok).value_or(""));

    const json* spec = JsonMember(item, "spec");
    if (spec == nullptr || !spec->is_object()) return Skip(report, ln, "missing spec");
    std::string queue = OptString(*spec, "queueName", &ok).value_or("");
    if (queue.empty()) {
      auto it = wl.meta.labels.find(kQueueNameLabel);
      if (it != wl.meta.labels.end()) queue = it->second;
    }
    std::string priority_text;
    if (const json* priority = JsonMember(*spec, "priority"); priority != nullptr && !priority->is_null()) {
      if (!priority->is_number_integer()) return Skip(report, ln, "bad spec.priority");
      priority_text = std::to_string(priority->get<int64_t>());
    }
    std::string priority_class;
    std::string priority_class_source;
    if (const json* ref = JsonMember(*spec, "priorityClassRef"); ref != nullptr && ref->is_object()) {
      priority_class = OptString(*ref, "name", &ok).value_or("");
      priority_class_source = OptString(*ref, "group", &ok).value_or("") == "scheduling.k8s.io"
                                  ? "scheduling.k8s.io/priorityclass"
                                  : kWorkloadPriorityClassSource;
    } else {
      priority_class = OptString(*spec, "priorityClassName", &ok).value_or("");
      priority_class_source = OptString(*spec, "priorityClassSource", &ok).value_or("");
    }
    if (const json* active = JsonMember(*spec, "active"); active != nullptr && active->is_boolean()) {
      wl.active = active->get<bool>();
    }
    if (!ok) return Skip(report, ln, "bad spec");

    const json* pod_sets = JsonMember(*spec, "podSets");
    if (pod_sets == nullptr || !pod_sets->is_array() || pod_sets->empty() || pod_sets->size() > 18) {
      return Skip(report, ln, "spec.podSets must be a list of 1 to 18 pod sets");
    }
    std::set<std::string> names;
    for (const json& item_set : *pod_sets) {
      model::PodSet pod_set;
      pod_set.name = OptString(item_set, "name", &ok).value_or("main");
      if (!ok || !names.insert(pod_set.name).second) return Skip(report, ln, "bad pod set name");
      if (const json* count = JsonMember(item_set, "count"); count != nullptr && !count->is_null()) {
        if (!count->is_number_integer() || count->get<int64_t>() < 0 || count->get<int64_t>() > INT32_MAX) {
          return Skip(report, ln, "bad podSets[].count");
        }
        pod_set.count = static_cast<int32_t>(count->get<int64_t>());
      }
      if (const json* min_count = JsonMember(item_set, "minCount"); min_count != nullptr && !min_count->is_null()) {
        if (!min_count->is_number_integer() || min_count->get<int64_t>() < 1 ||
            min_count->get<int64_t>() > pod_set.count) {
          return Skip(report, ln, "bad podSets[].minCount");
        }
        pod_set.min_count = static_cast<int32_t>(min_count->get<int64_t>());
      }
      std::string reason = DecodeTemplate(JsonMember(item_set, "template"), &pod_set);
      if (reason.empty()) reason = DecodeTopologyRequest(JsonMember(item_set, "topologyRequest"), &pod_set);
      if (!reason.empty()) return Skip(report, ln, reason);
      wl.pod_sets.push_back(std::move(pod_set));
    }

    // Status: the recorded run.
    const json* status = JsonMember(item, "status");
    const json* conditions = status != nullptr ? JsonMember(*status, "conditions") : nullptr;
    bool conditions_ok = true;
    const auto quota_reserved = TrueConditionTime(conditions, "QuotaReserved", &conditions_ok);
    const auto admitted = TrueConditionTime(conditions, "Admitted", &conditions_ok);
    const auto finished = TrueConditionTime(conditions, "Finished", &conditions_ok);
    if (!conditions_ok) return Skip(report, ln, "bad status.conditions");
    const std::optional<UnixMicros> started = admitted.has_value() ? admitted : quota_reserved;
    if (finished.has_value()) {
      if (!started.has_value()) return Skip(report, ln, "finished without admission");
      if (*finished < *started) return Skip(report, ln, "negative duration (finished before admitted)");
      wl.duration = *finished - *started;
    }
    if (started.has_value()) {
      if (*started < *created) {
        Repair(report, ln, "admitted before creation (recorded wait 0)");
        wl.meta.annotations[kRecordedWaitAnnotation] = FormatDuration(0);
      } else {
        wl.meta.annotations[kRecordedWaitAnnotation] = FormatDuration(*started - *created);
      }
    }
    if (const json* admission = status != nullptr ? JsonMember(*status, "admission") : nullptr;
        admission != nullptr && admission->is_object()) {
      bool fine = true;
      const std::string cq = OptString(*admission, "clusterQueue", &fine).value_or("");
      if (!cq.empty()) wl.meta.annotations["kueuesim.io/recorded-cluster-queue"] = cq;
      std::vector<std::string> flavors;
      if (const json* assignments = JsonMember(*admission, "podSetAssignments");
          assignments != nullptr && assignments->is_array()) {
        for (const json& assignment : *assignments) {
          const json* map = JsonMember(assignment, "flavors");
          if (map == nullptr || !map->is_object()) continue;
          for (const auto& [resource, flavor] : map->items()) {
            if (!flavor.is_string()) continue;
            std::string entry = resource + "=" + flavor.get<std::string>();
            if (std::find(flavors.begin(), flavors.end(), entry) == flavors.end()) flavors.push_back(entry);
          }
        }
      }
      if (!flavors.empty()) {
        std::string joined;
        for (const auto& f : flavors) joined += (joined.empty() ? "" : ",") + f;
        wl.meta.annotations["kueuesim.io/recorded-flavors"] = joined;
      }
    }
    wl.meta.annotations["kueuesim.io/recorded-creation"] = *created_text;

    JsonFields fields(nullptr, labels, annotations);
    fields.Set("name", name);
    fields.Set("namespace", ns);
    fields.Set("queueName", queue);
    fields.Set("priority", priority_text);
    fields.Set("priorityClassName", priority_class);
    const std::string reason = mapper_.Apply(fields, name, &wl);
    if (!reason.empty()) return Skip(report, ln, reason);
    if (!priority_class.empty() && wl.priority_class_name == priority_class && !priority_class_source.empty()) {
      wl.rare.Mutable().priority_class_source = priority_class_source;
    }
    return record;
  }

  TraceSpec spec_;
  model::SourceFile source_file_;  // spec_.path, shared by every workload
  std::unique_ptr<InputBuffer> input_;
  Mapper mapper_;
  std::vector<Extent> extents_;
  size_t cursor_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RecordFormat>> OpenKueueWorkloads(const TraceSpec& spec) {
  auto format = std::make_unique<KueueWorkloads>();
  KUEUESIM_RETURN_IF_ERROR(format->Open(spec));
  return std::unique_ptr<RecordFormat>(std::move(format));
}

}  // namespace kueuesim::trace::internal
