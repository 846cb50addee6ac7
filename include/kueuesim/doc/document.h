// A parsed YAML or JSON document: an immutable tree of scalars, sequences and
// mappings, each node carrying its line and column for error messages.
//
// Documents are read with libyaml's event parser (doc/reader.h), not built
// through a generic YAML library, because inputs can be large (tens of MB of
// kubectl output) and hostile (alias bombs, deep nesting): see
// ../shared/design/decisions.md, "Input speed". Nodes live in one arena per
// document; an alias is a second reference to the anchored node, never a
// copy, so a "billion laughs" stream costs no memory (the reader still refuses
// one whose expansion would be excessive, so no consumer can blow up by
// walking it).
#ifndef KUEUESIM_DOC_DOCUMENT_H_
#define KUEUESIM_DOC_DOCUMENT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kueuesim::doc {

enum class NodeKind : uint8_t { kScalar, kSequence, kMapping };

// How a scalar was written. Plain scalars may be null ("", "~", "null"),
// booleans or numbers; quoted and block scalars are always strings.
enum class ScalarStyle : uint8_t { kPlain, kQuoted };

// 1-based line and column in the source text.
struct Position {
  int32_t line = 0;
  int32_t column = 0;
};

class Document;

// A read-only handle to one node of a Document; cheap to copy. A
// default-constructed (or not-found) Node is invalid: valid() is false and
// every accessor treats it as an absent value.
class Node {
 public:
  Node() = default;

  bool valid() const { return doc_ != nullptr; }
  explicit operator bool() const { return valid(); }

  // REQUIRES: valid().
  NodeKind kind() const;
  bool IsScalar() const { return valid() && kind() == NodeKind::kScalar; }
  bool IsSequence() const { return valid() && kind() == NodeKind::kSequence; }
  bool IsMapping() const { return valid() && kind() == NodeKind::kMapping; }
  // A plain scalar spelled "", "~", "null", "Null" or "NULL", with no
  // explicit tag other than "!!null" ("!!str null" is a string).
  bool IsNull() const;

  // Where the node starts; an alias reads as its anchored node, so it has
  // the anchor's position. {0, 0} for an invalid node.
  Position position() const;
  // The file name the document was read from (for messages).
  const std::string& file() const;
  // The same name as the document holds it, shared by every node of every
  // document of the file (for objects that keep it, model::SourceFile);
  // null for an invalid node.
  std::shared_ptr<const std::string> shared_file() const;

  // Scalars. REQUIRES: IsScalar().
  std::string_view scalar() const;
  ScalarStyle style() const;
  // The explicit tag ("!!str", "!foo") or "" when none was written. Tags of
  // the tag:yaml.org,2002: namespace are given in their "!!" shorthand;
  // other tags as libyaml resolved them.
  std::string_view tag() const;

  // Sequences and mappings: number of elements or of key/value pairs
  // (0 for scalars and invalid nodes).
  size_t size() const;
  // Sequence element i. REQUIRES: IsSequence() && i < size().
  Node at(size_t i) const;

  // Mapping entry i: its key (a scalar text) and its value.
  // REQUIRES: IsMapping() && i < size().
  std::string_view key(size_t i) const;
  Node key_node(size_t i) const;
  Node value(size_t i) const;

  // The value for `key` in a mapping, or an invalid Node when this is not a
  // mapping or has no such key. Merge keys ("<<") were already resolved by
  // the reader, so they need no special handling here.
  Node Get(std::string_view key) const;

 private:
  friend class Document;
  Node(const Document* doc, uint32_t index) : doc_(doc), index_(index) {}

  const Document* doc_ = nullptr;
  uint32_t index_ = 0;
};

// One document of a stream. Movable, not copyable; Nodes borrowed from it
// must not outlive it.
class Document {
 public:
  // Storage of one node. Public so that the reader can fill it; not part of
  // the stable API.
  struct NodeData {
    NodeKind kind = NodeKind::kScalar;
    ScalarStyle style = ScalarStyle::kPlain;
    int32_t line = 0;
    int32_t column = 0;
    uint32_t text_offset = 0;  // scalar text in text_pool
    uint32_t text_size = 0;
    uint32_t tag_offset = 0;   // tag text in text_pool
    uint32_t tag_size = 0;
    uint32_t first_child = 0;  // index into children; mappings store key, value pairs
    uint32_t child_count = 0;  // elements; for a mapping, 2 * entries
  };

  Document() = default;
  Document(Document&&) noexcept = default;
  Document& operator=(Document&&) noexcept = default;
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  // The root node; invalid for an empty document.
  Node root() const;
  const std::string& file() const { return *file_; }
  const std::shared_ptr<const std::string>& shared_file() const { return file_; }
  // 0-based index of this document in its stream (skipped empty documents
  // count).
  int index() const { return index_; }
  // With ReadOptions::split_list_items: the position of this document in
  // its List's "items" (-1 for a document of the stream itself), and, for
  // the enclosing document, how many items were delivered before it.
  int64_t list_item() const { return list_item_; }
  int64_t split_items() const { return split_items_; }

  // Everything a reader of this document can observe (its index and List
  // position, and every node's kind, style, tag, text and position), one
  // node per line. Two documents read the same iff these are equal; for
  // tests and debugging.
  std::string DebugString() const;

  // Construction (used by the reader).
  void set_file(std::shared_ptr<const std::string> file) { file_ = std::move(file); }
  void set_index(int index) { index_ = index; }
  void set_list_item(int64_t item) { list_item_ = item; }
  void set_split_items(int64_t count) { split_items_ = count; }
  void set_root(uint32_t root) { root_ = root; has_root_ = true; }
  std::vector<NodeData>& nodes() { return nodes_; }
  std::vector<uint32_t>& children() { return children_; }
  std::string& text_pool() { return text_pool_; }

 private:
  friend class Node;
  std::shared_ptr<const std::string> file_ = std::make_shared<const std::string>();
  int index_ = 0;
  int64_t list_item_ = -1;
  int64_t split_items_ = 0;
  bool has_root_ = false;
  uint32_t root_ = 0;
  std::vector<NodeData> nodes_;
  std::vector<uint32_t> children_;
  std::string text_pool_;
};

}  // namespace kueuesim::doc

#endif  // KUEUESIM_DOC_DOCUMENT_H_
