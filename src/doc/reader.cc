// Reads YAML and JSON streams into Documents with libyaml's event parser (see
// kueuesim/doc/reader.h).
//
// One pass over the events builds each document's arena without recursion: an
// explicit stack of open collections (Frame) and one stack of child indices
// (pending_) that holds the children of every open collection; when a
// collection ends, its children are copied to the document's children vector
// in one contiguous run. Aliases are the anchored node's index, never a copy;
// each anchor records its "expanded size" (1 + children's expanded sizes, an
// alias counting as its anchor's) so that alias bombs are refused as soon as
// any open collection would expand beyond ReadOptions::max_expanded_nodes.
// Nesting is refused at the first collection deeper than
// ReadOptions::max_depth, before libyaml reads much further.
//
// JSON needs no separate path: libyaml 0.2.5 reads JSON, including compact
// {"a":1,"b":[1,2]} (no space after ':'), as YAML flow syntax.
//
// Speed (measured by hand, RelWithDebInfo, on a shared 2-core Debian 12 VM
// whose speed varied a lot between runs): a generated 20 MB kubectl-style
// stream of ~15,000 Workload documents read through ReadFile at 21-38 MB/s,
// and the same content as one 20 MB `kind: List` at 21-34 MB/s, while a bare
// libyaml loop (parse and delete events, nothing else) read the same file at
// 25-50 MB/s in the same sessions. Under callgrind this reader executes ~14%
// more instructions than that bare loop: libyaml's scanner and its per-token
// mallocs dominate, so this reader runs at about 85-90% of libyaml's speed
// (~50 MB/s where libyaml reaches the ~60 MB/s measured in
// ../shared/design/decisions.md, "Input speed").
#include "kueuesim/doc/reader.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "kueuesim/base/status.h"
#include "json_fast_path.h"
#include "kueuesim/doc/document.h"

namespace kueuesim::doc {
namespace {

// libyaml resolves the "!!" handle to this prefix; we store the shorthand.
constexpr std::string_view kYamlTagPrefix = "tag:yaml.org,2002:";
// Mappings with more keys than this are checked for duplicates by sorting.
constexpr uint32_t kQuadraticDuplicateCheckLimit = 16;
// Longest key text quoted in an error message.
constexpr size_t kMaxKeyInMessage = 80;

using NodeData = Document::NodeData;

int32_t OneBased(size_t zero_based) {
  constexpr size_t kMax = static_cast<size_t>(std::numeric_limits<int32_t>::max());
  return static_cast<int32_t>(std::min(zero_based + 1, kMax));
}

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  const uint64_t sum = a + b;
  return sum < a ? std::numeric_limits<uint64_t>::max() : sum;
}

std::string_view ToView(const yaml_char_t* text) {
  return text == nullptr ? std::string_view()
                         : std::string_view(reinterpret_cast<const char*>(text));
}

std::string QuoteKey(std::string_view key) {
  if (key.size() <= kMaxKeyInMessage) return fmt::format("\"{}\"", key);
  return fmt::format("\"{}...\"", key.substr(0, kMaxKeyInMessage));
}

// Owns a yaml_parser_t.
class Parser {
 public:
  Parser() { initialized_ = yaml_parser_initialize(&parser_) != 0; }
  ~Parser() {
    if (initialized_) yaml_parser_delete(&parser_);
  }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  bool initialized() const { return initialized_; }
  yaml_parser_t* get() { return &parser_; }

 private:
  yaml_parser_t parser_;
  bool initialized_ = false;
};

// Deletes an event at the end of a scope.
class EventDeleter {
 public:
  explicit EventDeleter(yaml_event_t* event) : event_(event) {}
  ~EventDeleter() { yaml_event_delete(event_); }
  EventDeleter(const EventDeleter&) = delete;
  EventDeleter& operator=(const EventDeleter&) = delete;

 private:
  yaml_event_t* event_;
};

// The file read handler: plain fread, remembering errno for the message.
struct FileInput {
  std::FILE* file = nullptr;
  int read_errno = 0;
};

int ReadFileHandler(void* data, unsigned char* buffer, size_t size, size_t* size_read) {
  auto* input = static_cast<FileInput*>(data);
  *size_read = std::fread(buffer, 1, size, input->file);
  if (std::ferror(input->file)) {
    input->read_errno = errno;
    return 0;
  }
  return 1;
}

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

// An anchor: the node it names and that node's expanded size, 0 while the
// node is still open (an alias to it then would be recursive).
struct Anchor {
  uint32_t node = 0;
  uint64_t expanded = 0;
  uint64_t arena = 0;  // the arena (document or List item) the node is in
};

// An open sequence or mapping.
struct Frame {
  uint32_t node = 0;
  uint32_t pending_start = 0;  // its first child in Builder::pending_
  uint64_t expanded = 1;       // 1 + expanded sizes of the children so far
  Anchor* anchor = nullptr;    // the anchor naming it, if any
  bool mapping = false;
  bool has_merge = false;  // a "<<" key was seen
};

// Consumes a parser's events, builds documents and hands them to a callback.
class Builder {
 public:
  Builder(std::shared_ptr<const std::string> file, const ReadOptions& options,
          const DocumentCallback& callback)
      : file_(std::move(file)),
        max_depth_(std::max(options.max_depth, 0)),
        max_expanded_(static_cast<uint64_t>(std::max<int64_t>(options.max_expanded_nodes, 0))),
        split_list_items_(options.split_list_items),
        callback_(callback) {
    frames_.reserve(static_cast<size_t>(std::min(max_depth_, 1024)) + 1);
  }

  absl::Status Run(yaml_parser_t* parser, const FileInput* file_input);

 private:
  absl::Status Error(int32_t line, int32_t column, std::string_view what) const {
    return InvalidArgument(fmt::format("{}:{}:{}: {}", *file_, line, column, what));
  }
  absl::Status Error(const yaml_mark_t& mark, std::string_view what) const {
    return Error(OneBased(mark.line), OneBased(mark.column), what);
  }
  absl::Status ErrorAtNode(uint32_t node, std::string_view what) {
    const NodeData& data = doc_.nodes()[node];
    return Error(data.line, data.column, what);
  }
  absl::Status ParserError(const yaml_parser_t& parser, const FileInput* file_input) const;

  void StartDocument();
  absl::Status EndDocument();
  // A fresh, empty arena (doc_) for the current document, with a new id.
  void StartArena();
  // List items read one by one (ReadOptions::split_list_items): whether the
  // sequence about to open is the document's top-level "items"; a fresh
  // arena for the next item; the item just completed, handed over.
  bool IsTopLevelItems(bool mapping);
  void StartItemArena();
  absl::Status DeliverItem(uint32_t root);
  absl::Status OnScalar(const yaml_event_t& event);
  absl::Status OnAlias(const yaml_event_t& event);
  absl::Status OnCollectionStart(const yaml_event_t& event, bool mapping);
  absl::Status OnCollectionEnd();

  // Appends a node with `text` (scalars only) and `tag` (may be null) to the
  // arena and sets *index; fails only when the arena would outgrow its 32-bit
  // offsets.
  absl::Status NewNode(NodeKind kind, const yaml_mark_t& mark, const yaml_char_t* tag,
                       std::string_view text, uint32_t* index);
  Anchor* DefineAnchor(const yaml_char_t* name, uint32_t node, uint64_t expanded);
  // Whether the next child of the innermost open collection is a mapping key.
  bool ExpectingKey() const {
    return !frames_.empty() && frames_.back().mapping &&
           (pending_.size() - frames_.back().pending_start) % 2 == 0;
  }
  absl::Status AddChild(uint32_t node, uint64_t expanded, int32_t line, int32_t column);
  absl::Status FinishMapping(Frame& frame);
  absl::Status CheckDuplicateKeys(const uint32_t* entries, uint32_t count);
  absl::Status ResolveMerges(const Frame& frame);
  absl::Status MergeFrom(uint32_t mapping);

  // (Not const: Document's arena accessors are mutable only.)
  std::string_view Text(uint32_t node) {
    const NodeData& data = doc_.nodes()[node];
    return std::string_view(doc_.text_pool()).substr(data.text_offset, data.text_size);
  }
  bool IsMergeKey(uint32_t node) {
    const NodeData& data = doc_.nodes()[node];
    if (data.kind != NodeKind::kScalar || data.style != ScalarStyle::kPlain) return false;
    if (data.tag_size != 0 &&
        std::string_view(doc_.text_pool()).substr(data.tag_offset, data.tag_size) != "!!merge") {
      return false;
    }
    return Text(node) == "<<";
  }

  const std::shared_ptr<const std::string> file_;
  const int max_depth_;
  const uint64_t max_expanded_;
  const bool split_list_items_;
  const DocumentCallback& callback_;

  // Sizes of the last document's arena, reserved for the next one.
  struct SizeHint {
    size_t nodes = 0;
    size_t children = 0;
    size_t text = 0;
  };
  static constexpr size_t kMaxReserve = size_t{1} << 16;
  SizeHint size_hint_;
  int document_index_ = -1;
  bool document_is_empty_ = false;
  Document doc_;
  // The arena nodes are added to: each document, and each List item when
  // items are split, gets a new id (anchors remember theirs). Ids are never
  // reused, not even after a document's items end and arena_ goes back to
  // the enclosing document's: a second top-level "items" key must not make
  // an anchor of the first one's items look like its own.
  uint64_t arena_ = 0;
  uint64_t last_arena_id_ = 0;
  // While a document's top-level "items" are read one by one: the enclosing
  // document (its arena and id), set aside, and the items delivered so far.
  bool in_items_ = false;
  Document outer_doc_;
  uint64_t outer_arena_ = 0;
  int64_t items_delivered_ = 0;
  std::vector<Frame> frames_;
  std::vector<uint32_t> pending_;
  std::unordered_map<std::string, Anchor> anchors_;
  // Scratch space, kept across mappings and documents.
  std::vector<std::pair<std::string_view, uint32_t>> sorted_keys_;
  std::vector<uint32_t> merged_;
  std::unordered_set<std::string_view> merged_keys_;
};

absl::Status Builder::Run(yaml_parser_t* parser, const FileInput* file_input) {
  yaml_event_t event;
  for (;;) {
    if (!yaml_parser_parse(parser, &event)) return ParserError(*parser, file_input);
    EventDeleter deleter(&event);
    switch (event.type) {
      case YAML_STREAM_END_EVENT:
        return absl::OkStatus();
      case YAML_DOCUMENT_START_EVENT:
        StartDocument();
        break;
      case YAML_DOCUMENT_END_EVENT:
        KUEUESIM_RETURN_IF_ERROR(EndDocument());
        break;
      case YAML_SCALAR_EVENT:
        KUEUESIM_RETURN_IF_ERROR(OnScalar(event));
        break;
      case YAML_ALIAS_EVENT:
        KUEUESIM_RETURN_IF_ERROR(OnAlias(event));
        break;
      case YAML_SEQUENCE_START_EVENT:
        KUEUESIM_RETURN_IF_ERROR(OnCollectionStart(event, /*mapping=*/false));
        break;
      case YAML_MAPPING_START_EVENT:
        KUEUESIM_RETURN_IF_ERROR(OnCollectionStart(event, /*mapping=*/true));
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        KUEUESIM_RETURN_IF_ERROR(OnCollectionEnd());
        break;
      case YAML_STREAM_START_EVENT:
      case YAML_NO_EVENT:
        break;
    }
  }
}

absl::Status Builder::ParserError(const yaml_parser_t& parser, const FileInput* file_input) const {
  if (parser.error == YAML_MEMORY_ERROR) {
    return ResourceExhausted(fmt::format("{}: out of memory while parsing", *file_));
  }
  const std::string_view problem =
      parser.problem != nullptr ? std::string_view(parser.problem) : "syntax error";
  if (parser.error == YAML_READER_ERROR) {
    // Reader errors carry a byte offset, not a mark. The reader stopped right
    // after the last character it decoded; the scanner's mark stands at
    // buffer.pointer, and [buffer.pointer, buffer.last) are the characters
    // decoded since (UTF-8, one byte per input byte for UTF-8 input), so
    // walking them from the mark gives the position of the offending byte.
    size_t line = parser.mark.line;
    size_t column = parser.mark.column;
    for (const unsigned char* p = parser.buffer.pointer; p < parser.buffer.last; ++p) {
      if (*p == '\n' || (*p == '\r' && (p + 1 == parser.buffer.last || p[1] != '\n'))) {
        ++line;
        column = 0;
      } else if (*p != '\r' && (*p & 0xC0) != 0x80) {
        ++column;
      }
    }
    std::string what(problem);
    if (file_input != nullptr && file_input->read_errno != 0) {
      what = fmt::format("read error: {}", std::strerror(file_input->read_errno));
    } else if (parser.problem_value != -1) {
      what += fmt::format(" (#{:02X} at byte {})", parser.problem_value, parser.problem_offset);
    }
    return Error(OneBased(line), OneBased(column), what);
  }
  std::string what(problem);
  if (parser.context != nullptr) {
    what += fmt::format(" ({} at line {}, column {})", parser.context,
                        OneBased(parser.context_mark.line), OneBased(parser.context_mark.column));
  }
  return Error(parser.problem_mark, what);
}

void Builder::StartDocument() {
  ++document_index_;
  StartArena();
  document_is_empty_ = false;
  in_items_ = false;
  items_delivered_ = 0;
  frames_.clear();
  pending_.clear();
  anchors_.clear();
}

bool Builder::IsTopLevelItems(bool mapping) {
  if (!split_list_items_ || mapping || in_items_ || frames_.size() != 1 || !frames_[0].mapping) return false;
  const Frame& root = frames_[0];
  // The value of a key: an odd number of pending entries, the key last.
  if ((pending_.size() - root.pending_start) % 2 != 1) return false;
  return Text(pending_.back()) == "items";
}

void Builder::StartArena() {
  doc_ = Document();
  // Streams of similar documents (kubectl output) need one allocation per
  // arena vector when sized like the previous document.
  doc_.nodes().reserve(std::min(size_hint_.nodes, kMaxReserve));
  doc_.children().reserve(std::min(size_hint_.children, kMaxReserve));
  doc_.text_pool().reserve(std::min(size_hint_.text, 8 * kMaxReserve));
  doc_.set_file(file_);
  doc_.set_index(document_index_);
  arena_ = ++last_arena_id_;
}

void Builder::StartItemArena() {
  StartArena();
  doc_.set_list_item(items_delivered_);
}

absl::Status Builder::DeliverItem(uint32_t root) {
  doc_.set_root(root);
  size_hint_ = {doc_.nodes().size(), doc_.children().size(), doc_.text_pool().size()};
  Document item = std::move(doc_);
  ++items_delivered_;
  StartItemArena();
  return callback_(std::move(item));
}

absl::Status Builder::EndDocument() {
  if (document_is_empty_ || doc_.nodes().empty()) return absl::OkStatus();
  doc_.set_split_items(items_delivered_);
  size_hint_ = {doc_.nodes().size(), doc_.children().size(), doc_.text_pool().size()};
  Document done = std::move(doc_);
  doc_ = Document();
  return callback_(std::move(done));
}

absl::Status Builder::NewNode(NodeKind kind, const yaml_mark_t& mark, const yaml_char_t* tag,
                              std::string_view text, uint32_t* index) {
  std::vector<NodeData>& nodes = doc_.nodes();
  std::string& pool = doc_.text_pool();
  const std::string_view tag_text = ToView(tag);
  constexpr size_t kMax = std::numeric_limits<uint32_t>::max();
  if (nodes.size() >= kMax || pool.size() + text.size() + tag_text.size() + 2 > kMax) {
    return Error(mark, "document too large (more than 4 GiB of text or 2^32 nodes)");
  }
  NodeData& data = nodes.emplace_back();
  data.kind = kind;
  data.line = OneBased(mark.line);
  data.column = OneBased(mark.column);
  data.text_offset = static_cast<uint32_t>(pool.size());
  data.text_size = static_cast<uint32_t>(text.size());
  pool.append(text);
  if (!tag_text.empty()) {
    data.tag_offset = static_cast<uint32_t>(pool.size());
    if (tag_text.substr(0, kYamlTagPrefix.size()) == kYamlTagPrefix) {
      pool.append("!!");
      pool.append(tag_text.substr(kYamlTagPrefix.size()));
    } else {
      pool.append(tag_text);
    }
    data.tag_size = static_cast<uint32_t>(pool.size() - data.tag_offset);
  }
  *index = static_cast<uint32_t>(nodes.size() - 1);
  return absl::OkStatus();
}

Anchor* Builder::DefineAnchor(const yaml_char_t* name, uint32_t node, uint64_t expanded) {
  // A later anchor of the same name replaces the earlier one (YAML 1.2, 3.2.2.2).
  Anchor& anchor = anchors_[std::string(ToView(name))];
  anchor.node = node;
  anchor.expanded = expanded;
  anchor.arena = arena_;
  return &anchor;  // stable: unordered_map never moves its elements
}

absl::Status Builder::AddChild(uint32_t node, uint64_t expanded, int32_t line, int32_t column) {
  if (expanded > max_expanded_) {
    return Error(line, column, fmt::format("aliases expand to more than {} nodes", max_expanded_));
  }
  if (frames_.empty()) {
    doc_.set_root(node);
    return absl::OkStatus();
  }
  if (in_items_ && frames_.size() == 2) return DeliverItem(node);  // an item of the List, complete
  Frame& frame = frames_.back();
  if (ExpectingKey()) {
    if (doc_.nodes()[node].kind != NodeKind::kScalar) {
      return Error(line, column, "mapping key must be a scalar");
    }
    if (IsMergeKey(node)) frame.has_merge = true;
  }
  if (pending_.size() >= std::numeric_limits<uint32_t>::max()) {
    return Error(line, column, "document has too many nodes");
  }
  pending_.push_back(node);
  frame.expanded = SaturatingAdd(frame.expanded, expanded);
  if (frame.expanded > max_expanded_) {
    return Error(line, column, fmt::format("aliases expand to more than {} nodes", max_expanded_));
  }
  return absl::OkStatus();
}

absl::Status Builder::OnScalar(const yaml_event_t& event) {
  const auto& scalar = event.data.scalar;
  uint32_t node = 0;
  KUEUESIM_RETURN_IF_ERROR(
      NewNode(NodeKind::kScalar, event.start_mark, scalar.tag,
              std::string_view(reinterpret_cast<const char*>(scalar.value), scalar.length), &node));
  NodeData& data = doc_.nodes()[node];
  const bool plain = scalar.style == YAML_PLAIN_SCALAR_STYLE;
  data.style = plain ? ScalarStyle::kPlain : ScalarStyle::kQuoted;
  if (frames_.empty() && plain && scalar.length == 0 && scalar.tag == nullptr &&
      scalar.anchor == nullptr) {
    document_is_empty_ = true;  // "---" with nothing after it
  }
  if (scalar.anchor != nullptr) DefineAnchor(scalar.anchor, node, 1);
  return AddChild(node, 1, data.line, data.column);
}

absl::Status Builder::OnAlias(const yaml_event_t& event) {
  const std::string name(ToView(event.data.alias.anchor));
  const auto it = anchors_.find(name);
  if (it == anchors_.end()) return Error(event.start_mark, fmt::format("unknown alias *{}", name));
  if (it->second.expanded == 0) {
    return Error(event.start_mark,
                 fmt::format("alias *{} refers to a node that contains it", name));
  }
  if (it->second.arena != arena_) {
    return Error(event.start_mark,
                 fmt::format("alias *{} refers to an anchor outside this item of the List (the items of "
                             "a List are read one at a time; repeat the content instead)",
                             name));
  }
  return AddChild(it->second.node, it->second.expanded, OneBased(event.start_mark.line),
                  OneBased(event.start_mark.column));
}

absl::Status Builder::OnCollectionStart(const yaml_event_t& event, bool mapping) {
  if (frames_.size() >= static_cast<size_t>(max_depth_)) {
    return Error(event.start_mark, fmt::format("nesting deeper than {} levels", max_depth_));
  }
  if (ExpectingKey()) return Error(event.start_mark, "mapping key must be a scalar");
  const yaml_char_t* tag = mapping ? event.data.mapping_start.tag : event.data.sequence_start.tag;
  const yaml_char_t* anchor =
      mapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor;
  const bool top_level_items = IsTopLevelItems(mapping);
  uint32_t node = 0;
  KUEUESIM_RETURN_IF_ERROR(NewNode(mapping ? NodeKind::kMapping : NodeKind::kSequence,
                                   event.start_mark, tag, std::string_view(), &node));
  Frame frame;
  frame.node = node;
  frame.pending_start = static_cast<uint32_t>(pending_.size());
  frame.mapping = mapping;
  if (anchor != nullptr) frame.anchor = DefineAnchor(anchor, node, 0);
  frames_.push_back(frame);
  if (top_level_items) {
    // The enclosing document waits aside; each item gets an arena of its own.
    in_items_ = true;
    outer_doc_ = std::move(doc_);
    outer_arena_ = arena_;
    StartItemArena();
  }
  return absl::OkStatus();
}

absl::Status Builder::OnCollectionEnd() {
  if (in_items_ && frames_.size() == 2) {
    // The end of the items: back to the enclosing document (the sequence
    // stays empty there).
    in_items_ = false;
    doc_ = std::move(outer_doc_);
    outer_doc_ = Document();
    arena_ = outer_arena_;
  }
  Frame frame = frames_.back();
  frames_.pop_back();
  if (frame.mapping) KUEUESIM_RETURN_IF_ERROR(FinishMapping(frame));
  std::vector<uint32_t>& children = doc_.children();
  const size_t count = pending_.size() - frame.pending_start;
  if (children.size() + count > std::numeric_limits<uint32_t>::max()) {
    return ErrorAtNode(frame.node, "document has too many nodes");
  }
  NodeData& data = doc_.nodes()[frame.node];
  data.first_child = static_cast<uint32_t>(children.size());
  data.child_count = static_cast<uint32_t>(count);
  children.insert(children.end(), pending_.begin() + frame.pending_start, pending_.end());
  pending_.resize(frame.pending_start);
  if (frame.anchor != nullptr && frame.anchor->node == frame.node && frame.anchor->arena == arena_) {
    frame.anchor->expanded = frame.expanded;
  }
  return AddChild(frame.node, frame.expanded, data.line, data.column);
}

absl::Status Builder::FinishMapping(Frame& frame) {
  const auto count = static_cast<uint32_t>((pending_.size() - frame.pending_start) / 2);
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicateKeys(pending_.data() + frame.pending_start, count));
  if (frame.has_merge) KUEUESIM_RETURN_IF_ERROR(ResolveMerges(frame));
  return absl::OkStatus();
}

absl::Status Builder::CheckDuplicateKeys(const uint32_t* entries, uint32_t count) {
  // Find the duplicate whose second occurrence comes first; report both.
  uint32_t first = 0;
  uint32_t second = 0;
  bool found = false;
  if (count <= kQuadraticDuplicateCheckLimit) {
    for (uint32_t i = 1; i < count && !found; ++i) {
      const std::string_view key = Text(entries[2 * i]);
      for (uint32_t j = 0; j < i; ++j) {
        if (Text(entries[2 * j]) == key) {
          first = j;
          second = i;
          found = true;
          break;
        }
      }
    }
  } else {
    sorted_keys_.clear();
    for (uint32_t i = 0; i < count; ++i) sorted_keys_.emplace_back(Text(entries[2 * i]), i);
    std::sort(sorted_keys_.begin(), sorted_keys_.end());
    for (size_t i = 1; i < sorted_keys_.size(); ++i) {
      if (sorted_keys_[i].first != sorted_keys_[i - 1].first) continue;
      // Equal keys are sorted by position: the run's first element is the
      // first occurrence, the next one the earliest repetition.
      size_t run_start = i - 1;
      while (run_start > 0 && sorted_keys_[run_start - 1].first == sorted_keys_[i].first) {
        --run_start;
      }
      if (!found || sorted_keys_[i].second < second) {
        first = sorted_keys_[run_start].second;
        second = sorted_keys_[i].second;
        found = true;
      }
    }
  }
  if (!found) return absl::OkStatus();
  const NodeData& first_key = doc_.nodes()[entries[2 * first]];
  const NodeData& second_key = doc_.nodes()[entries[2 * second]];
  return Error(second_key.line, second_key.column,
               fmt::format("duplicate key {} (first at line {}, column {})",
                           QuoteKey(Text(entries[2 * second])), first_key.line, first_key.column));
}

absl::Status Builder::ResolveMerges(const Frame& frame) {
  // YAML merge keys (https://yaml.org/type/merge.html): the entries of the
  // merged mappings are inserted where the "<<" entry stood, except keys the
  // mapping states explicitly; of several merged mappings, the earlier wins.
  merged_.clear();
  merged_keys_.clear();
  const uint32_t start = frame.pending_start;
  const auto end = static_cast<uint32_t>(pending_.size());
  for (uint32_t i = start; i < end; i += 2) {
    if (!IsMergeKey(pending_[i])) merged_keys_.insert(Text(pending_[i]));
  }
  const std::vector<NodeData>& nodes = doc_.nodes();
  const std::vector<uint32_t>& children = doc_.children();
  for (uint32_t i = start; i < end; i += 2) {
    const uint32_t key = pending_[i];
    const uint32_t value = pending_[i + 1];
    if (!IsMergeKey(key)) {
      merged_.push_back(key);
      merged_.push_back(value);
      continue;
    }
    const NodeData& value_data = nodes[value];
    if (value_data.kind == NodeKind::kMapping) {
      KUEUESIM_RETURN_IF_ERROR(MergeFrom(value));
    } else if (value_data.kind == NodeKind::kSequence) {
      for (uint32_t j = 0; j < value_data.child_count; ++j) {
        const uint32_t element = children[value_data.first_child + j];
        if (nodes[element].kind != NodeKind::kMapping) {
          return ErrorAtNode(element, "merge key \"<<\" needs a mapping or a sequence of mappings");
        }
        KUEUESIM_RETURN_IF_ERROR(MergeFrom(element));
      }
    } else {
      return ErrorAtNode(value, "merge key \"<<\" needs a mapping or a sequence of mappings");
    }
  }
  pending_.resize(start);
  pending_.insert(pending_.end(), merged_.begin(), merged_.end());
  return absl::OkStatus();
}

absl::Status Builder::MergeFrom(uint32_t mapping) {
  const NodeData& data = doc_.nodes()[mapping];
  const std::vector<uint32_t>& children = doc_.children();
  for (uint32_t j = 0; j < data.child_count; j += 2) {
    const uint32_t key = children[data.first_child + j];
    if (merged_keys_.insert(Text(key)).second) {
      merged_.push_back(key);
      merged_.push_back(children[data.first_child + j + 1]);
    }
  }
  return absl::OkStatus();
}

absl::Status Read(yaml_parser_t* parser, const std::string& display_name,
                  const DocumentCallback& callback, const ReadOptions& options,
                  const FileInput* file_input) {
  Builder builder(std::make_shared<const std::string>(display_name), options, callback);
  return builder.Run(parser, file_input);
}

absl::Status ReadWithLibyaml(std::string_view text, const std::string& display_name,
                             const DocumentCallback& callback, const ReadOptions& options) {
  Parser parser;
  if (!parser.initialized()) return ResourceExhausted("cannot initialize the YAML parser");
  yaml_parser_set_input_string(parser.get(), reinterpret_cast<const unsigned char*>(text.data()),
                               text.size());
  return Read(parser.get(), display_name, callback, options, nullptr);
}

// A JSON text (`text` followed by internal::kJsonPadding readable bytes):
// simdjson first; where it falls back, libyaml reads the text again and the
// documents the fast path already delivered are not delivered twice.
absl::Status ReadJson(std::string_view text, const std::string& display_name,
                      const DocumentCallback& callback, const ReadOptions& options,
                      const internal::ConsumedCallback& consumed = nullptr) {
  const internal::FastJsonResult fast = internal::ReadJsonFast(
      text, std::make_shared<const std::string>(display_name), callback, options, consumed);
  if (!fast.fell_back) return fast.status;
  int64_t to_skip = fast.delivered;
  const DocumentCallback skip_delivered = [&to_skip, &callback](Document&& document) {
    if (to_skip > 0) {
      --to_skip;
      return absl::OkStatus();
    }
    return callback(std::move(document));
  };
  return ReadWithLibyaml(text, display_name, to_skip > 0 ? skip_delivered : callback, options);
}

// Text followed by internal::kJsonPadding zero bytes, as the JSON fast path
// needs it.
class PaddedText {
 public:
  explicit PaddedText(size_t size)
      : data_(std::make_unique_for_overwrite<char[]>(size + internal::kJsonPadding)), size_(size) {
    std::memset(data_.get() + size, 0, internal::kJsonPadding);
  }
  char* data() { return data_.get(); }
  std::string_view view() const { return std::string_view(data_.get(), size_); }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_;
};

// A regular file mapped read-only and followed by internal::kJsonPadding zero
// bytes: the file's pages over an anonymous zero mapping one page longer, so
// the padding never reaches past the file into pages that do not exist. No
// copy and no zeroing of the text; pages already read can be dropped from
// the process (they stay in the page cache). The file must not shrink while
// it is read.
class MappedFile {
 public:
  static std::unique_ptr<MappedFile> Map(int fd) {
    struct stat info;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size <= 0) return nullptr;
    const auto size = static_cast<size_t>(info.st_size);
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t file_length = (size + page - 1) / page * page;
    const size_t total = (size + internal::kJsonPadding + page - 1) / page * page;
    void* base = mmap(nullptr, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return nullptr;
    auto mapped = std::unique_ptr<MappedFile>(new MappedFile(static_cast<char*>(base), size, total, page));
    if (mmap(base, file_length, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) return nullptr;
    // Two calls: advice values are not flags (SEQUENTIAL | WILLNEED is
    // WILLNEED alone).
    madvise(base, file_length, MADV_SEQUENTIAL);
    madvise(base, file_length, MADV_WILLNEED);
    return mapped;
  }
  ~MappedFile() { munmap(base_, mapped_); }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view view() const { return std::string_view(base_, size_); }
  // The first `bytes` are read: their whole pages leave the process, in
  // steps of kReleaseStep (a madvise per item would cost more than it saves).
  void Release(size_t bytes) {
    constexpr size_t kReleaseStep = size_t{16} << 20;
    const size_t end = bytes / page_ * page_;
    if (end >= released_ + kReleaseStep) {
      madvise(base_ + released_, end - released_, MADV_DONTNEED);
      released_ = end;
    }
  }

 private:
  MappedFile(char* base, size_t size, size_t mapped, size_t page)
      : base_(base), size_(size), mapped_(mapped), page_(page) {}

  char* const base_;
  const size_t size_;
  const size_t mapped_;
  const size_t page_;
  size_t released_ = 0;
};

}  // namespace

absl::Status ReadFile(const std::string& path, const DocumentCallback& callback,
                      const ReadOptions& options) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (file == nullptr) {
    const int error = errno;
    const std::string message = fmt::format("cannot open {}: {}", path, std::strerror(error));
    if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
    return NotFound(message);
  }
  struct stat info;
  if (fstat(fileno(file.get()), &info) == 0 && S_ISDIR(info.st_mode)) {
    return NotFound(fmt::format("cannot open {}: {}", path, std::strerror(EISDIR)));
  }
  // A regular file that starts like JSON (kubectl -o json) is mapped for
  // the fast path; anything else (YAML, a pipe) streams through libyaml.
  if (options.json_fast_path && fstat(fileno(file.get()), &info) == 0 && S_ISREG(info.st_mode)) {
    char start[256];
    const size_t peeked = std::fread(start, 1, sizeof(start), file.get());
    if (internal::StartsLikeJson(std::string_view(start, peeked))) {
      if (const auto mapped = MappedFile::Map(fileno(file.get()))) {
        return ReadJson(mapped->view(), path, callback, options,
                        [&mapped](size_t consumed) { mapped->Release(consumed); });
      }
    }
    std::clearerr(file.get());
    if (std::fseek(file.get(), 0, SEEK_SET) != 0) {
      return InvalidArgument(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    }
  }
  Parser parser;
  if (!parser.initialized()) return ResourceExhausted("cannot initialize the YAML parser");
  FileInput input;
  input.file = file.get();
  yaml_parser_set_input(parser.get(), &ReadFileHandler, &input);
  return Read(parser.get(), path, callback, options, &input);
}

absl::Status ReadString(std::string_view text, const std::string& display_name,
                        const DocumentCallback& callback, const ReadOptions& options) {
  if (options.json_fast_path && internal::StartsLikeJson(text)) {
    PaddedText padded(text.size());
    std::memcpy(padded.data(), text.data(), text.size());
    return ReadJson(padded.view(), display_name, callback, options);
  }
  return ReadWithLibyaml(text, display_name, callback, options);
}

absl::StatusOr<Document> ReadJsonText(std::string_view text, const std::string& display_name,
                                      const ReadOptions& options) {
  PaddedText padded(text.size());
  std::memcpy(padded.data(), text.data(), text.size());
  ReadOptions whole = options;
  whole.split_list_items = false;
  Document document;
  bool delivered = false;
  const internal::FastJsonResult fast = internal::ReadJsonFast(
      padded.view(), std::make_shared<const std::string>(display_name),
      [&](Document&& read) {
        document = std::move(read);
        delivered = true;
        return absl::OkStatus();
      },
      whole);
  if (fast.fell_back || !delivered) return InvalidArgument(fmt::format("{}: not plain JSON", display_name));
  KUEUESIM_RETURN_IF_ERROR(fast.status);
  return document;
}

absl::StatusOr<std::vector<Document>> ReadAllFromFile(const std::string& path,
                                                      const ReadOptions& options) {
  std::vector<Document> documents;
  KUEUESIM_RETURN_IF_ERROR(ReadFile(
      path,
      [&documents](Document&& document) {
        documents.push_back(std::move(document));
        return absl::OkStatus();
      },
      options));
  return documents;
}

absl::StatusOr<std::vector<Document>> ReadAllFromString(std::string_view text,
                                                        const std::string& display_name,
                                                        const ReadOptions& options) {
  std::vector<Document> documents;
  KUEUESIM_RETURN_IF_ERROR(ReadString(
      text, display_name,
      [&documents](Document&& document) {
        documents.push_back(std::move(document));
        return absl::OkStatus();
      },
      options));
  return documents;
}

}  // namespace kueuesim::doc
