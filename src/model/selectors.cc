// Kubernetes selector, affinity and toleration semantics.
// Mirrors k8s.io/apimachinery/pkg/labels/selector.go,
// k8s.io/component-helpers/scheduling/corev1/nodeaffinity and
// k8s.io/component-helpers/scheduling/corev1/helpers.go.
#include "kueuesim/model/selectors.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace kueuesim::model {
namespace {

bool Contains(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

std::optional<long long> ParseInteger(const std::string& text) {
  long long value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

const char* EffectName(TaintEffect effect) {
  switch (effect) {
    case TaintEffect::kNoSchedule:
      return "NoSchedule";
    case TaintEffect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case TaintEffect::kNoExecute:
      return "NoExecute";
  }
  return "";
}

}  // namespace

bool MatchesRequirement(const SelectorRequirement& requirement, const Labels& labels) {
  auto it = labels.find(requirement.key);
  const bool has = it != labels.end();
  switch (requirement.op) {
    case SelectorOperator::kIn:
      return has && Contains(requirement.values, it->second);
    case SelectorOperator::kNotIn:
      return !has || !Contains(requirement.values, it->second);
    case SelectorOperator::kExists:
      return has;
    case SelectorOperator::kDoesNotExist:
      return !has;
    case SelectorOperator::kGt:
    case SelectorOperator::kLt: {
      if (!has || requirement.values.size() != 1) return false;
      auto label_value = ParseInteger(it->second);
      auto bound = ParseInteger(requirement.values[0]);
      if (!label_value || !bound) return false;
      return requirement.op == SelectorOperator::kGt ? *label_value > *bound
                                                     : *label_value < *bound;
    }
  }
  return false;
}

bool MatchesLabelSelector(const LabelSelector& selector, const Labels& labels) {
  if (!selector.present) return false;
  for (const auto& [key, value] : selector.match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  for (const auto& requirement : selector.match_expressions) {
    if (!MatchesRequirement(requirement, labels)) return false;
  }
  return true;
}

bool MatchesNodeAffinity(const std::vector<NodeSelectorTerm>& terms, const Labels& labels,
                         const std::string& node_name) {
  if (terms.empty()) return true;
  for (const auto& term : terms) {
    if (term.match_expressions.empty() && term.match_fields.empty()) continue;
    bool all = true;
    for (const auto& requirement : term.match_expressions) {
      if (!MatchesRequirement(requirement, labels)) {
        all = false;
        break;
      }
    }
    if (all) {
      Labels fields;
      if (!node_name.empty()) fields["metadata.name"] = node_name;
      for (const auto& requirement : term.match_fields) {
        if (!MatchesRequirement(requirement, fields)) {
          all = false;
          break;
        }
      }
    }
    if (all) return true;
  }
  return false;
}

bool MatchesNodeSelection(const Labels& node_selector, const std::vector<NodeSelectorTerm>& affinity,
                          const Labels& labels, const std::string& node_name) {
  for (const auto& [key, value] : node_selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return MatchesNodeAffinity(affinity, labels, node_name);
}

bool MatchesFlavorLabels(const Labels& node_selector, const std::vector<NodeSelectorTerm>& affinity,
                         const Labels& flavor_labels) {
  Labels reduced_selector;
  for (const auto& [key, value] : node_selector) {
    if (flavor_labels.count(key) > 0) reduced_selector[key] = value;
  }
  std::vector<NodeSelectorTerm> reduced_terms;
  for (const auto& term : affinity) {
    NodeSelectorTerm copy;
    for (const auto& requirement : term.match_expressions) {
      if (flavor_labels.count(requirement.key) > 0) copy.match_expressions.push_back(requirement);
    }
    if (copy.match_expressions.empty()) {
      reduced_terms.clear();
      break;
    }
    reduced_terms.push_back(std::move(copy));
  }
  return MatchesNodeSelection(reduced_selector, reduced_terms, flavor_labels);
}

bool ToleratesTaint(const Toleration& toleration, const Taint& taint) {
  if (toleration.effect.has_value() && *toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  switch (toleration.op) {
    case TolerationOperator::kExists:
      return true;
    case TolerationOperator::kEqual:
      return toleration.value == taint.value;
  }
  return false;
}

std::optional<Taint> FindUntoleratedTaint(const std::vector<Taint>& taints,
                                          const std::vector<Toleration>& tolerations) {
  for (const auto& taint : taints) {
    if (taint.effect != TaintEffect::kNoSchedule && taint.effect != TaintEffect::kNoExecute) {
      continue;
    }
    bool tolerated = false;
    for (const auto& toleration : tolerations) {
      if (ToleratesTaint(toleration, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return taint;
  }
  return std::nullopt;
}

std::string TaintToString(const Taint& taint) {
  std::string out = taint.key;
  if (!taint.value.empty()) out += "=" + taint.value;
  out += ":";
  out += EffectName(taint.effect);
  return out;
}

}  // namespace kueuesim::model
