// Small helpers of the model types.
#include "kueuesim/model/objects.h"

#include <memory>
#include <ostream>
#include <utility>

#include <fmt/format.h>

namespace kueuesim::model {

const std::string& SourceFile::EmptyName() {
  static const std::string* const empty = new std::string();
  return *empty;
}

std::ostream& operator<<(std::ostream& out, const SourceFile& file) { return out << file.str(); }

std::string SourceRef::ToString() const {
  if (file.empty()) return "<input>";
  return fmt::format("{}:{}", file.str(), line);
}

namespace {
constexpr char kHostnameLabel[] = "kubernetes.io/hostname";
}  // namespace

Node::Node() : shared(std::make_shared<const NodeTemplate>()) {}

Node::Node(std::string node_name, NodeTemplate own)
    : name(std::move(node_name)), shared(std::make_shared<const NodeTemplate>(std::move(own))) {}

const std::string* Node::FindLabel(const std::string& key) const {
  if (hostname_label && key == kHostnameLabel) return &name;
  if (domain_labels != nullptr) {
    auto it = domain_labels->find(key);
    if (it != domain_labels->end()) return &it->second;
  }
  auto it = shared->labels.find(key);
  return it == shared->labels.end() ? nullptr : &it->second;
}

bool Node::HasLabels(const Labels& wanted) const {
  for (const auto& [key, value] : wanted) {
    const std::string* have = FindLabel(key);
    if (have == nullptr || *have != value) return false;
  }
  return true;
}

Labels Node::AllLabels() const {
  Labels out = shared->labels;
  if (domain_labels != nullptr) {
    for (const auto& [key, value] : *domain_labels) out[key] = value;
  }
  if (hostname_label) out[kHostnameLabel] = name;
  return out;
}

}  // namespace kueuesim::model
