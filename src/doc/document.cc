// Node accessors of kueuesim::doc::Document (see kueuesim/doc/document.h).
//
// A Node is a (document, index) pair; every accessor reads the document's
// arena. Accessors are lenient where the header says REQUIRES: on an invalid
// node or a node of the wrong kind they return an empty value (an empty
// string, 0, an invalid Node) rather than reading out of bounds, so a caller
// probing an unexpected shape gets "absent" instead of undefined behavior.
#include "kueuesim/doc/document.h"

#include <cstdio>
#include <string>
#include <string_view>

namespace kueuesim::doc {
namespace {

// Appends text with every byte outside printable ASCII (and the quote and
// backslash) escaped as \xNN, between quotes.
void AppendQuoted(std::string_view text, std::string& out) {
  out.push_back('"');
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7F || c == '"' || c == '\\') {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02X", byte);
      out.append(escaped);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

void Describe(const Node& node, int depth, std::string& out) {
  out.append(static_cast<size_t>(depth) * 2, ' ');
  const Position position = node.position();
  out.append(std::to_string(position.line)).append(":").append(std::to_string(position.column));
  if (!node.tag().empty()) out.append(" tag=").append(node.tag());
  switch (node.kind()) {
    case NodeKind::kScalar:
      out.append(node.style() == ScalarStyle::kPlain ? " plain " : " quoted ");
      AppendQuoted(node.scalar(), out);
      out.push_back('\n');
      return;
    case NodeKind::kSequence:
      out.append(" sequence\n");
      for (size_t i = 0; i < node.size(); ++i) Describe(node.at(i), depth + 1, out);
      return;
    case NodeKind::kMapping:
      out.append(" mapping\n");
      for (size_t i = 0; i < node.size(); ++i) {
        Describe(node.key_node(i), depth + 1, out);
        Describe(node.value(i), depth + 2, out);
      }
      return;
  }
}

const std::string& EmptyString() {
  static const std::string* const kEmpty = new std::string();
  return *kEmpty;
}

}  // namespace

NodeKind Node::kind() const { return doc_->nodes_[index_].kind; }

bool Node::IsNull() const {
  if (!IsScalar()) return false;
  const Document::NodeData& data = doc_->nodes_[index_];
  if (data.style != ScalarStyle::kPlain) return false;
  // An explicit tag other than !!null ("!!str null", "! ~") makes it a string.
  const std::string_view explicit_tag = tag();
  if (!explicit_tag.empty() && explicit_tag != "!!null") return false;
  const std::string_view text = scalar();
  return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
}

Position Node::position() const {
  if (!valid()) return Position{};
  const Document::NodeData& data = doc_->nodes_[index_];
  return Position{data.line, data.column};
}

const std::string& Node::file() const {
  if (!valid()) return EmptyString();
  return doc_->file();
}

std::shared_ptr<const std::string> Node::shared_file() const {
  if (!valid()) return nullptr;
  return doc_->shared_file();
}

std::string_view Node::scalar() const {
  if (!IsScalar()) return {};
  const Document::NodeData& data = doc_->nodes_[index_];
  return std::string_view(doc_->text_pool_).substr(data.text_offset, data.text_size);
}

ScalarStyle Node::style() const {
  if (!valid()) return ScalarStyle::kPlain;
  return doc_->nodes_[index_].style;
}

std::string_view Node::tag() const {
  if (!valid()) return {};
  const Document::NodeData& data = doc_->nodes_[index_];
  if (data.tag_size == 0) return {};
  return std::string_view(doc_->text_pool_).substr(data.tag_offset, data.tag_size);
}

size_t Node::size() const {
  if (!valid()) return 0;
  const Document::NodeData& data = doc_->nodes_[index_];
  switch (data.kind) {
    case NodeKind::kSequence:
      return data.child_count;
    case NodeKind::kMapping:
      return data.child_count / 2;
    case NodeKind::kScalar:
      break;
  }
  return 0;
}

Node Node::at(size_t i) const {
  if (!IsSequence() || i >= size()) return Node();
  const Document::NodeData& data = doc_->nodes_[index_];
  return Node(doc_, doc_->children_[data.first_child + i]);
}

std::string_view Node::key(size_t i) const { return key_node(i).scalar(); }

Node Node::key_node(size_t i) const {
  if (!IsMapping() || i >= size()) return Node();
  const Document::NodeData& data = doc_->nodes_[index_];
  return Node(doc_, doc_->children_[data.first_child + 2 * i]);
}

Node Node::value(size_t i) const {
  if (!IsMapping() || i >= size()) return Node();
  const Document::NodeData& data = doc_->nodes_[index_];
  return Node(doc_, doc_->children_[data.first_child + 2 * i + 1]);
}

Node Node::Get(std::string_view key) const {
  if (!IsMapping()) return Node();
  const Document::NodeData& data = doc_->nodes_[index_];
  const std::string_view pool(doc_->text_pool_);
  const uint32_t* entry = doc_->children_.data() + data.first_child;
  const uint32_t* const end = entry + data.child_count;
  for (; entry != end; entry += 2) {
    const Document::NodeData& key_data = doc_->nodes_[entry[0]];
    if (key_data.text_size == key.size() &&
        pool.substr(key_data.text_offset, key_data.text_size) == key) {
      return Node(doc_, entry[1]);
    }
  }
  return Node();
}

Node Document::root() const {
  if (!has_root_) return Node();
  return Node(this, root_);
}

std::string Document::DebugString() const {
  std::string out = "document " + std::to_string(index_) + " item " + std::to_string(list_item_) +
                    " split " + std::to_string(split_items_) + "\n";
  if (const Node node = root()) Describe(node, 1, out);
  return out;
}

}  // namespace kueuesim::doc
