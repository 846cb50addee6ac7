// kueuesim.io/v1alpha1 NodePool: many alike v1 Nodes from one object.
#include "scenario/decode_nodes.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "absl/container/flat_hash_set.h"

#include "kueuesim/base/checked.h"
#include "kueuesim/base/status.h"
#include "scenario/decode.h"

namespace kueuesim::scenario {
namespace {

// Without a Budget (a caller decoding one pool on its own): more nodes than
// any real cluster has, so that a typo does not eat memory.
constexpr int64_t kMaxPoolNodes = 1000000;

// A name or value pattern split into literal text and {placeholder}s.
struct PatternPart {
  bool placeholder = false;
  std::string text;  // literal text, or the placeholder's name
};

absl::StatusOr<std::vector<PatternPart>> ParsePattern(const FieldReader& field, std::string_view pattern,
                                                      const std::set<std::string>& known) {
  std::vector<PatternPart> parts;
  size_t at = 0;
  while (at < pattern.size()) {
    size_t open = pattern.find('{', at);
    if (open == std::string_view::npos) {
      parts.push_back({false, std::string(pattern.substr(at))});
      break;
    }
    if (open > at) parts.push_back({false, std::string(pattern.substr(at, open - at))});
    size_t close = pattern.find('}', open);
    if (close == std::string_view::npos) {
      return field.Error(fmt::format("\"{}\": unclosed '{{'", pattern));
    }
    std::string name(pattern.substr(open + 1, close - open - 1));
    if (!known.contains(name)) {
      std::string valid;
      for (const auto& k : known) valid += (valid.empty() ? "" : ", ") + fmt::format("{{{}}}", k);
      return field.Error(fmt::format("\"{}\": unknown placeholder {{{}}} (valid: {})", pattern, name, valid));
    }
    parts.push_back({true, std::move(name)});
    at = close + 1;
  }
  return parts;
}

// Expands `parts`; `lookup` gives each placeholder's text.
template <typename Lookup>
std::string Expand(const std::vector<PatternPart>& parts, Lookup lookup) {
  std::string out;
  for (const auto& part : parts) {
    if (part.placeholder) {
      out += lookup(part.text);
    } else {
      out += part.text;
    }
  }
  return out;
}

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z'); }

// A DNS subdomain (RFC 1123), what Kubernetes requires of a node name.
bool IsValidNodeName(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  }
  return IsAlnum(name.front()) && IsAlnum(name.back());
}

// A label value: at most 63 characters, alphanumerics with '-', '_', '.'
// inside.
bool IsValidLabelValue(std::string_view value) {
  if (value.empty()) return true;
  if (value.size() > 63) return false;
  for (char c : value) {
    if (!(IsAlnum(c) || c == '-' || c == '_' || c == '.')) return false;
  }
  return IsAlnum(value.front()) && IsAlnum(value.back());
}

// The placeholder a level is known by in namePattern: the label's last
// word, "cloud.com/topology-block" -> "block", "topology.kubernetes.io/zone"
// -> "zone".
std::string DefaultLevelName(std::string_view label) {
  size_t slash = label.rfind('/');
  std::string_view tail = slash == std::string_view::npos ? label : label.substr(slash + 1);
  size_t dash = tail.find_last_of("-_.");
  return std::string(dash == std::string_view::npos ? tail : tail.substr(dash + 1));
}

struct Level {
  explicit Level(FieldReader item) : field(std::move(item)) {}
  FieldReader field;  // spec.levels[i], for messages
  std::string label;
  std::string name;  // placeholder name in namePattern
  int64_t count = 1;
  std::vector<PatternPart> value_pattern;
};

}  // namespace

absl::StatusOr<std::vector<model::Node>> DecodeNodePool(const FieldReader& object, Budget* budget, bool counted) {
  KUEUESIM_ASSIGN_OR_RETURN(model::ObjectMeta pool_meta, DecodeMeta(object, false));
  FieldReader spec = object.Field("spec");
  if (!spec.present()) return spec.Error("is required");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_RETURN_IF_ERROR(CheckKnownFields(
      spec, {"count", "namePattern", "levels", "labels", "taints", "allocatable", "unschedulable", "ready"}));

  KUEUESIM_ASSIGN_OR_RETURN(int64_t count, spec.Field("count").Int64());
  if (count < 1) return spec.Field("count").Error("must be at least 1");
  // The scenario's node budget (nodes of earlier objects included), before
  // anything is generated; without one, a fixed cap.
  if (budget != nullptr) {
    KUEUESIM_RETURN_IF_ERROR(budget->Add(Budget::Kind::kNodes, count, spec.Field("count")));
  } else if (!counted && count > kMaxPoolNodes) {
    return spec.Field("count").Error(fmt::format("must be between 1 and {}", kMaxPoolNodes));
  }

  // Levels, top down.
  std::vector<Level> levels;
  std::set<std::string> labels_seen;
  std::set<std::string> name_placeholders = {"index", "n"};
  FieldReader levels_field = spec.Field("levels");
  KUEUESIM_RETURN_IF_ERROR(levels_field.ExpectSequence());
  int64_t domains = 1;
  for (size_t i = 0; i < levels_field.size(); ++i) {
    FieldReader item = levels_field.Index(i);
    KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
    KUEUESIM_RETURN_IF_ERROR(CheckKnownFields(item, {"label", "name", "count", "valuePattern"}));
    Level level(item);
    KUEUESIM_ASSIGN_OR_RETURN(level.label, item.Field("label").String());
    if (level.label.empty()) return item.Field("label").Error("must not be empty");
    if (level.label == kHostnameLabel) {
      return item.Field("label").Error(
          "kubernetes.io/hostname is set to each node's name; the hosts are the nodes themselves, leave the "
          "level out");
    }
    if (!labels_seen.insert(level.label).second) {
      return item.Field("label").Error(fmt::format("label \"{}\" is used by an earlier level", level.label));
    }
    KUEUESIM_ASSIGN_OR_RETURN(auto name, item.Field("name").OptString());
    level.name = name.value_or(DefaultLevelName(level.label));
    if (level.name.empty()) return item.Field("name").Error("must not be empty");
    if (!name_placeholders.insert(level.name).second) {
      return item.Field(name.has_value() ? "name" : "label")
          .Error(fmt::format("placeholder {{{}}} is already taken (by {{index}}, {{n}} or an earlier level); set "
                             "a distinct `name`",
                             level.name));
    }
    KUEUESIM_ASSIGN_OR_RETURN(level.count, item.Field("count").Int64());
    if (level.count < 1 || level.count > count) {
      return item.Field("count").Error(fmt::format("must be between 1 and the pool's count ({})", count));
    }
    const std::optional<int64_t> product = CheckedMul(domains, level.count);
    if (!product.has_value() || *product > count) {
      return item.Field("count").Error(fmt::format(
          "the levels make more domains at this level ({} x {}) than the pool's {} nodes", domains, level.count,
          count));
    }
    domains = *product;
    KUEUESIM_ASSIGN_OR_RETURN(auto value_pattern, item.Field("valuePattern").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(level.value_pattern,
                              ParsePattern(item.Field("valuePattern"),
                                           value_pattern.value_or(level.name + "-{i}"), {"i", "g"}));
    levels.push_back(std::move(level));
  }
  if (count % domains != 0) {
    return spec.Field("count").Error(fmt::format(
        "{} nodes do not split evenly over the {} innermost domains the levels make ({} is not a multiple of {})",
        count, domains, count, domains));
  }
  const int64_t hosts_per_domain = count / domains;

  KUEUESIM_ASSIGN_OR_RETURN(auto name_pattern_text, spec.Field("namePattern").OptString());
  const std::string name_pattern_source = name_pattern_text.value_or(pool_meta.name + "-{n}");
  KUEUESIM_ASSIGN_OR_RETURN(std::vector<PatternPart> name_pattern,
                            ParsePattern(spec.Field("namePattern"), name_pattern_source, name_placeholders));

  // What every node shares.
  model::NodeTemplate shape;
  shape.source = pool_meta.source;
  shape.cluster = pool_meta.cluster();
  KUEUESIM_ASSIGN_OR_RETURN(shape.labels, spec.Field("labels").StringMap());
  for (const auto& level : levels) {
    if (shape.labels.contains(level.label)) {
      return spec.Field("labels").Field(level.label).Error("is set by a level; leave it out of labels");
    }
  }
  if (shape.labels.contains(kHostnameLabel)) {
    return spec.Field("labels").Field(kHostnameLabel).Error("is set to each node's name; leave it out");
  }
  KUEUESIM_ASSIGN_OR_RETURN(shape.taints, DecodeTaintList(spec.Field("taints")));
  FieldReader allocatable = spec.Field("allocatable");
  if (!allocatable.present()) return allocatable.Error("is required");
  KUEUESIM_RETURN_IF_ERROR(allocatable.ExpectMapping());
  for (size_t i = 0; i < allocatable.node().size(); ++i) {
    std::string resource(allocatable.node().key(i));
    KUEUESIM_ASSIGN_OR_RETURN(shape.allocatable[resource], allocatable.Field(resource).AmountOf(resource, true));
  }
  model::Node prototype;
  prototype.shared = std::make_shared<const model::NodeTemplate>(std::move(shape));
  prototype.hostname_label = true;
  if (spec.Field("unschedulable").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(prototype.unschedulable, spec.Field("unschedulable").Bool());
  }
  if (spec.Field("ready").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(prototype.ready, spec.Field("ready").Bool());
  }

  // Generate: node n sits in innermost domain n / hosts_per_domain; its
  // index among that domain's hosts is n % hosts_per_domain. A level's
  // domain index within its parent is {i}; across the pool, {g}. The
  // nodes of one innermost domain share its level labels.
  std::vector<model::Node> nodes;
  nodes.reserve(static_cast<size_t>(count));
  // Names are checked for repeats by view: `nodes` never reallocates.
  absl::flat_hash_set<std::string_view> names;
  names.reserve(static_cast<size_t>(count));
  std::vector<std::string> level_values(levels.size());
  std::vector<int64_t> level_global(levels.size(), -1);
  std::vector<int64_t> within(levels.size());
  std::vector<int64_t> global(levels.size());
  std::shared_ptr<const model::Labels> domain_labels;
  int64_t labelled_domain = -1;
  for (int64_t n = 0; n < count; ++n) {
    const int64_t domain = n / hosts_per_domain;
    if (domain != labelled_domain && !levels.empty()) {
      labelled_domain = domain;
      // Domain index per level, innermost last.
      int64_t rest = domain;
      int64_t below = 1;
      for (size_t l = levels.size(); l-- > 0;) {
        within[l] = rest % levels[l].count;
        rest /= levels[l].count;
        global[l] = domain / below;
        below *= levels[l].count;
      }
      auto labels = std::make_shared<model::Labels>();
      for (size_t l = 0; l < levels.size(); ++l) {
        if (global[l] != level_global[l]) {
          level_global[l] = global[l];
          level_values[l] = Expand(levels[l].value_pattern, [&](const std::string& p) {
            return std::to_string(p == "i" ? within[l] : global[l]);
          });
          if (!IsValidLabelValue(level_values[l])) {
            return levels[l].field.Field("valuePattern").Error(
                fmt::format("makes \"{}\", which is not a valid label value (at most 63 characters: alphanumerics, "
                            "'-', '_', '.', starting and ending with an alphanumeric)",
                            level_values[l]));
          }
        }
        labels->emplace(levels[l].label, level_values[l]);
      }
      domain_labels = std::move(labels);
    }
    model::Node& node = nodes.emplace_back(prototype);
    node.domain_labels = domain_labels;
    node.name = Expand(name_pattern, [&](const std::string& p) -> std::string {
      if (p == "n") return std::to_string(n);
      if (p == "index") return std::to_string(n % hosts_per_domain);
      for (size_t l = 0; l < levels.size(); ++l) {
        if (levels[l].name == p) return level_values[l];
      }
      return "";
    });
    if (!IsValidNodeName(node.name)) {
      return spec.Field("namePattern").Error(fmt::format(
          "makes \"{}\", which is not a valid node name (lowercase alphanumerics, '-' and '.', starting and "
          "ending with an alphanumeric, at most 253 characters)",
          node.name));
    }
    if (!names.insert(node.name).second) {
      return spec.Field("namePattern").Error(fmt::format(
          "\"{}\" makes the name \"{}\" twice; include {{index}} (the host within its innermost domain) or {{n}} "
          "(the node's number in the pool)",
          name_pattern_source, node.name));
    }
  }
  return nodes;
}

}  // namespace kueuesim::scenario
