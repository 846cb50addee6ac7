// The JSON fast path of the document reader (see json_fast_path.h).
//
// simdjson's On-Demand parser finds every structural character of the text in
// one vectorized pass (validating UTF-8 and unescaped control characters on
// the way); this file then walks the values in document order and builds the
// same arenas as reader.cc's libyaml path: a node is appended when it starts,
// the children of a collection are copied to the children vector in one run
// when it ends, and the top-level "items" of a List are delivered one by one
// (ReadOptions::split_list_items). Strings are copied from the input (and
// unescaped here when they contain a backslash), never through simdjson's
// string buffer, so the only memory besides the input and the Documents is
// simdjson's index of structural characters (4 bytes each).
//
// What is accepted must read exactly as libyaml reads it, so the fast path
// takes only plain JSON: strings (quoted scalars), numbers of the JSON grammar
// and true/false/null (plain scalars), objects and arrays. Anything else
// (YAML flow syntax such as unquoted words, trailing commas or comments, a
// second document, invalid escapes, lone surrogates) falls back to libyaml.
// The syntax between tokens (the commas, colons and brackets, and nothing
// else but white space) is checked on the text here: On-Demand does not
// check all of it (a missing comma between entries went through).
// Positions are libyaml's: 1-based lines, with "\r\n" or a lone "\r" one line
// break, and columns counted in characters. (A raw NEL, LS or PS, which libyaml
// folds inside strings, sends the text to libyaml.)
#include "json_fast_path.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kueuesim/base/utf8.h"
#include "kueuesim/doc/document.h"

namespace kueuesim::doc::internal {
namespace {

namespace ondemand = simdjson::ondemand;
using NodeData = Document::NodeData;

static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING);

constexpr uint32_t kQuadraticDuplicateCheckLimit = 16;
constexpr size_t kMaxReserve = size_t{1} << 16;

bool IsJsonWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view TrimTrailingWhitespace(std::string_view token) {
  while (!token.empty() && IsJsonWhitespace(token.back())) token.remove_suffix(1);
  return token;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// RFC 8259's number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool IsJsonNumber(std::string_view text) {
  size_t i = 0;
  const size_t n = text.size();
  if (i < n && text[i] == '-') ++i;
  if (i == n || !IsDigit(text[i])) return false;
  if (text[i] == '0') {
    ++i;
  } else {
    while (i < n && IsDigit(text[i])) ++i;
  }
  if (i < n && text[i] == '.') {
    ++i;
    if (i == n || !IsDigit(text[i])) return false;
    while (i < n && IsDigit(text[i])) ++i;
  }
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
    if (i == n || !IsDigit(text[i])) return false;
    while (i < n && IsDigit(text[i])) ++i;
  }
  return i == n;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Four hex digits at p (the text is padded, so reading past a short string
// only meets its closing quote or padding, never out of bounds).
int ReadHex4(const char* p, const char* end) {
  if (end - p < 4) return -1;
  int value = 0;
  for (int i = 0; i < 4; ++i) {
    const int digit = HexValue(p[i]);
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

// Appends the JSON string body [p, end) (between its quotes) to `out`,
// resolving escapes. False on an escape libyaml would read differently or
// refuse: anything but JSON's escapes, and lone surrogates.
bool AppendUnescaped(const char* p, const char* end, std::string& out) {
  while (p < end) {
    const char* backslash = static_cast<const char*>(std::memchr(p, '\\', static_cast<size_t>(end - p)));
    if (backslash == nullptr) {
      out.append(p, static_cast<size_t>(end - p));
      return true;
    }
    out.append(p, static_cast<size_t>(backslash - p));
    if (backslash + 1 >= end) return false;
    const char escape = backslash[1];
    p = backslash + 2;
    switch (escape) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        const int unit = ReadHex4(p, end);
        if (unit < 0) return false;
        p += 4;
        uint32_t code_point = static_cast<uint32_t>(unit);
        if (unit >= 0xDC00 && unit <= 0xDFFF) return false;  // a lone low surrogate
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          // A high surrogate must be followed by an escaped low one.
          if (end - p < 6 || p[0] != '\\' || p[1] != 'u') return false;
          const int low = ReadHex4(p + 2, end);
          if (low < 0xDC00 || low > 0xDFFF) return false;
          p += 6;
          code_point = 0x10000 + ((code_point - 0xD800) << 10) + (static_cast<uint32_t>(low) - 0xDC00);
        }
        AppendUtf8(code_point, out);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

// The closing quote of the string whose body starts at `body`: the first
// quote not escaped by an odd number of backslashes. simdjson validated that
// every string is closed, so one exists before `limit`.
const char* FindClosingQuote(const char* body, const char* limit) {
  const char* p = body;
  for (;;) {
    const char* quote = static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(limit - p)));
    if (quote == nullptr) return nullptr;
    size_t backslashes = 0;
    for (const char* b = quote; b > body && b[-1] == '\\'; --b) ++backslashes;
    if (backslashes % 2 == 0) return quote;
    p = quote + 1;
  }
}

// Whether the text holds a raw NEL (C2 85), LS (E2 80 A8) or PS (E2 80 A9).
// In JSON they can only stand inside strings, where libyaml takes them for
// line breaks and folds them; the fast path leaves such texts to libyaml.
bool HasUnicodeLineBreak(std::string_view text) {
  for (const char lead : {'\xC2', '\xE2'}) {
    const char* p = text.data();
    const char* const end = text.data() + text.size();
    while ((p = static_cast<const char*>(std::memchr(p, lead, static_cast<size_t>(end - p)))) != nullptr) {
      const auto second = static_cast<unsigned char>(p[1]);  // the padding makes p[1], p[2] readable
      const auto third = static_cast<unsigned char>(p[2]);
      if (lead == '\xC2' ? second == 0x85 : second == 0x80 && (third == 0xA8 || third == 0xA9)) return true;
      ++p;
    }
  }
  return false;
}

int32_t CountCharacters(const char* from, const char* to) {
  int32_t count = 0;
  for (const char* q = from; q < to; ++q) count += (static_cast<unsigned char>(*q) & 0xC0) != 0x80;
  return count;
}

// Whether libyaml takes the key from `open_quote` to `close_quote` as a key:
// a flow mapping's key must end with its ":" on the line it starts on and at
// most 1024 characters after its start (YAML's "simple key").
bool IsSimpleKey(const char* open_quote, const char* close_quote) {
  const char* colon = close_quote + 1;
  while (IsJsonWhitespace(*colon)) {
    if (*colon == '\n' || *colon == '\r') return false;
    ++colon;
  }
  constexpr int32_t kMaxSimpleKey = 1024;
  return colon - open_quote <= kMaxSimpleKey || CountCharacters(open_quote, colon) <= kMaxSimpleKey;
}

// libyaml's line and column of byte positions met in increasing order: lines
// broken by "\n", "\r\n" or a lone "\r", columns counted in characters.
class PositionCursor {
 public:
  PositionCursor(const char* begin, const char* end)
      : begin_(begin), pos_(begin), has_carriage_return_(std::memchr(begin, '\r', static_cast<size_t>(end - begin)) != nullptr) {}

  size_t offset() const { return static_cast<size_t>(pos_ - begin_); }

  Position At(const char* p) {
    if (p < pos_) {  // never in document order; restart rather than go wrong
      pos_ = begin_;
      line_ = 1;
      column_ = 0;
    }
    if (has_carriage_return_) {
      WalkWithCarriageReturns(p);
    } else {
      for (;;) {
        const void* newline = std::memchr(pos_, '\n', static_cast<size_t>(p - pos_));
        if (newline == nullptr) break;
        ++line_;
        column_ = 0;
        pos_ = static_cast<const char*>(newline) + 1;
      }
      column_ += CountCharacters(pos_, p);
      pos_ = p;
    }
    return Position{line_, column_ + 1};
  }

 private:
  void WalkWithCarriageReturns(const char* p) {
    while (pos_ < p) {
      const char c = *pos_;
      if (c == '\n' || c == '\r') {
        ++line_;
        column_ = 0;
        pos_ += (c == '\r' && pos_ + 1 < p && pos_[1] == '\n') ? 2 : 1;
      } else {
        column_ += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        ++pos_;
      }
    }
  }

  const char* const begin_;
  const char* pos_;  // where At() was last asked; no earlier byte is read again
  int32_t line_ = 1;
  int32_t column_ = 0;
  const bool has_carriage_return_;
};

// Sets a flag for its lifetime.
class BusyFlag {
 public:
  explicit BusyFlag(bool* flag) : flag_(flag) { *flag_ = true; }
  ~BusyFlag() { *flag_ = false; }
  BusyFlag(const BusyFlag&) = delete;
  BusyFlag& operator=(const BusyFlag&) = delete;

 private:
  bool* flag_;
};

// Builds the documents; every method returning bool returns false to fall
// back (and, when a callback failed, has set callback_status_).
class JsonBuilder {
 public:
  JsonBuilder(std::string_view text, const std::shared_ptr<const std::string>& file,
              const DocumentCallback& callback, const ReadOptions& options, const ConsumedCallback& consumed)
      : text_(text),
        file_(file),
        callback_(callback),
        consumed_(consumed),
        max_depth_(std::max(options.max_depth, 0)),
        max_expanded_(static_cast<uint64_t>(std::max<int64_t>(options.max_expanded_nodes, 0))),
        split_list_items_(options.split_list_items),
        cursor_(text.data(), text.data() + text.size()) {}

  FastJsonResult Run() {
    FastJsonResult result;
    result.fell_back = !Parse();
    result.delivered = delivered_;
    if (!callback_status_.ok()) {
      result.fell_back = false;
      result.status = callback_status_;
    }
    return result;
  }

 private:
  bool Parse() {
    if (HasUnicodeLineBreak(text_)) return false;
    // Small texts (JSON Lines rows, one after another) reuse the thread's
    // parser and its buffers; a large one, or one read from a callback
    // while the thread's parser is busy, gets its own, freed after it.
    constexpr size_t kReusedParserLimit = size_t{1} << 20;
    thread_local ondemand::parser reused_parser(kReusedParserLimit);
    thread_local bool reused_parser_busy = false;
    std::optional<ondemand::parser> own_parser;
    ondemand::parser* parser = nullptr;
    std::optional<BusyFlag> busy;
    if (text_.size() <= kReusedParserLimit && !reused_parser_busy) {
      parser = &reused_parser;
      busy.emplace(&reused_parser_busy);
    } else {
      parser = &own_parser.emplace(text_.size());
    }
    ondemand::document json;
    if (parser->iterate(text_.data(), text_.size(), text_.size() + kJsonPadding).get(json) != simdjson::SUCCESS) {
      return false;
    }
    ondemand::value root;
    if (json.get_value().get(root) != simdjson::SUCCESS) return false;
    StartArena();
    uint32_t root_node = 0;
    last_end_ = text_.data();
    const std::string_view root_token = root.raw_json_token();
    if (root_token.empty() || !GapIs(root_token.data(), 0)) return false;
    // Outside a flow collection YAML takes a tab for indentation, which it
    // refuses: before the root, and at the start of a line after it.
    if (std::string_view(text_.data(), static_cast<size_t>(root_token.data() - text_.data())).find('\t') !=
        std::string_view::npos) {
      return false;
    }
    if (!ParseValue(root, 1, /*top_level_mapping=*/true, &root_node)) return false;
    // Anything after the JSON text (a second document, YAML) is libyaml's.
    if (!GapIs(text_.data() + text_.size(), 0)) return false;
    const std::string_view trailing(last_end_, static_cast<size_t>(text_.data() + text_.size() - last_end_));
    if (const size_t newline = trailing.find_first_of("\r\n");
        newline != std::string_view::npos && trailing.find('\t', newline) != std::string_view::npos) {
      return false;
    }
    const char* after = nullptr;
    if (json.current_location().get(after) == simdjson::SUCCESS) return false;
    if (doc_.nodes().size() > max_expanded_) return false;
    doc_.set_root(root_node);
    doc_.set_split_items(items_delivered_);
    return Deliver(std::move(doc_));
  }

  void StartArena() {
    doc_ = Document();
    doc_.nodes().reserve(std::min(size_hint_.nodes, kMaxReserve));
    doc_.children().reserve(std::min(size_hint_.children, kMaxReserve));
    doc_.text_pool().reserve(std::min(size_hint_.text, 8 * kMaxReserve));
    doc_.set_file(file_);
    doc_.set_index(0);
  }

  bool Deliver(Document&& document) {
    size_hint_ = {document.nodes().size(), document.children().size(), document.text_pool().size()};
    ++delivered_;
    callback_status_ = callback_(std::move(document));
    return callback_status_.ok();
  }

  bool NewNode(NodeKind kind, ScalarStyle style, const char* at, uint32_t* index) {
    std::vector<NodeData>& nodes = doc_.nodes();
    if (nodes.size() >= std::numeric_limits<uint32_t>::max()) return false;
    const Position position = cursor_.At(at);
    NodeData& data = nodes.emplace_back();
    data.kind = kind;
    data.style = style;
    data.line = position.line;
    data.column = position.column;
    data.text_offset = static_cast<uint32_t>(doc_.text_pool().size());
    *index = static_cast<uint32_t>(nodes.size() - 1);
    return true;
  }

  // A scalar whose text is appended by `append` (which may fail).
  template <typename Append>
  bool ScalarNode(ScalarStyle style, const char* at, Append append, uint32_t* index) {
    if (!NewNode(NodeKind::kScalar, style, at, index)) return false;
    std::string& pool = doc_.text_pool();
    const size_t start = pool.size();
    if (!append(pool)) return false;
    if (pool.size() >= std::numeric_limits<uint32_t>::max()) return false;
    doc_.nodes()[*index].text_size = static_cast<uint32_t>(pool.size() - start);
    return true;
  }

  bool StringNode(const char* open_quote, const char* close_quote, uint32_t* index) {
    return ScalarNode(ScalarStyle::kQuoted, open_quote,
                      [&](std::string& pool) { return AppendUnescaped(open_quote + 1, close_quote, pool); },
                      index);
  }

  bool ParseValue(ondemand::value& value, int depth, bool top_level_mapping, uint32_t* index) {
    const std::string_view token = value.raw_json_token();
    if (token.empty()) return false;
    const char* at = token.data();
    switch (*at) {
      case '{':
        return ParseObject(value, at, depth, top_level_mapping, index);
      case '[':
        return ParseArray(value, at, depth, /*split=*/false, index);
      case '"': {
        const std::string_view string = TrimTrailingWhitespace(token);
        if (string.size() < 2 || string.back() != '"') return false;
        last_end_ = string.data() + string.size();
        return StringNode(at, string.data() + string.size() - 1, index);
      }
      default: {
        const std::string_view atom = TrimTrailingWhitespace(token);
        if (atom != "true" && atom != "false" && atom != "null" && !IsJsonNumber(atom)) return false;
        last_end_ = atom.data() + atom.size();
        return ScalarNode(ScalarStyle::kPlain, at,
                          [&](std::string& pool) {
                            pool.append(atom);
                            return true;
                          },
                          index);
      }
    }
  }

  bool ParseObject(ondemand::value& value, const char* at, int depth, bool top_level_mapping, uint32_t* index) {
    if (depth > max_depth_) return false;
    uint32_t node = 0;
    if (!NewNode(NodeKind::kMapping, ScalarStyle::kPlain, at, &node)) return false;
    ondemand::object object;
    if (value.get_object().get(object) != simdjson::SUCCESS) return false;
    last_end_ = at + 1;
    const size_t pending_start = pending_.size();
    for (auto field_result : object) {
      ondemand::field field;
      if (std::move(field_result).get(field) != simdjson::SUCCESS) return false;
      const char* key_body = reinterpret_cast<const char*>(field.key().raw());
      if (!GapIs(key_body - 1, pending_.size() == pending_start ? 0 : ',') || key_body[-1] != '"') return false;
      const char* key_end = FindClosingQuote(key_body, text_.data() + text_.size());
      if (key_end == nullptr) return false;
      if (!IsSimpleKey(key_body - 1, key_end)) return false;
      uint32_t key = 0;
      if (!StringNode(key_body - 1, key_end, &key)) return false;
      last_end_ = key_end + 1;
      pending_.push_back(key);
      ondemand::value child_value = field.value();
      uint32_t child = 0;
      const std::string_view child_token = child_value.raw_json_token();
      if (child_token.empty() || !GapIs(child_token.data(), ':')) return false;
      const bool items = top_level_mapping && split_list_items_ && !in_items_ && !child_token.empty() &&
                         child_token.front() == '[' && Text(key) == "items";
      if (items ? !ParseArray(child_value, child_token.data(), depth + 1, /*split=*/true, &child)
                : !ParseValue(child_value, depth + 1, /*top_level_mapping=*/false, &child)) {
        return false;
      }
      pending_.push_back(child);
    }
    if (!Close('}') || HasDuplicateKey(pending_start)) return false;
    return FinishCollection(node, pending_start, index);
  }

  bool ParseArray(ondemand::value& value, const char* at, int depth, bool split, uint32_t* index) {
    if (depth > max_depth_) return false;
    uint32_t node = 0;
    if (!NewNode(NodeKind::kSequence, ScalarStyle::kPlain, at, &node)) return false;
    ondemand::array array;
    if (value.get_array().get(array) != simdjson::SUCCESS) return false;
    last_end_ = at + 1;
    const size_t pending_start = pending_.size();
    bool first = true;
    if (split) {
      // Each item in an arena of its own; the List keeps an empty sequence.
      in_items_ = true;
      Document outer = std::move(doc_);
      StartArena();
      doc_.set_list_item(items_delivered_);
      for (auto element_result : array) {
        ondemand::value element;
        if (std::move(element_result).get(element) != simdjson::SUCCESS) return false;
        if (!ElementStarts(element, &first)) return false;
        uint32_t item_root = 0;
        if (!ParseValue(element, depth + 1, /*top_level_mapping=*/false, &item_root)) return false;
        if (doc_.nodes().size() > max_expanded_) return false;
        // Delivered only once the item is known to end here: YAML reads
        // `["kind": "Workload"]` as one mapping, not the string "kind".
        if (!NextIsEntryEnd()) return false;
        doc_.set_root(item_root);
        Document item = std::move(doc_);
        ++items_delivered_;
        StartArena();
        doc_.set_list_item(items_delivered_);
        if (!Deliver(std::move(item))) return false;
        if (consumed_) consumed_(cursor_.offset());
      }
      doc_ = std::move(outer);
      in_items_ = false;
    } else {
      for (auto element_result : array) {
        ondemand::value element;
        if (std::move(element_result).get(element) != simdjson::SUCCESS) return false;
        if (!ElementStarts(element, &first)) return false;
        uint32_t child = 0;
        if (!ParseValue(element, depth + 1, /*top_level_mapping=*/false, &child)) return false;
        pending_.push_back(child);
      }
    }
    if (!Close(']')) return false;
    return FinishCollection(node, pending_start, index);
  }

  // The syntax between tokens, checked here on the text rather than trusted
  // to On-Demand, which does not validate all of it: between the end of the
  // last token read (last_end_) and `next`, JSON whitespace around exactly
  // one `separator`, or only whitespace when it is 0.
  bool GapIs(const char* next, char separator) {
    if (next < last_end_) return false;
    bool seen = separator == 0;
    for (const char* p = last_end_; p < next; ++p) {
      if (IsJsonWhitespace(*p)) continue;
      if (*p != separator || seen) return false;
      seen = true;
    }
    return seen;
  }

  // After an array element: whitespace, then "," or "]" (checked again,
  // as usual, when the next element starts or the array closes).
  bool NextIsEntryEnd() const {
    const char* p = last_end_;
    const char* const end = text_.data() + text_.size();
    while (p < end && IsJsonWhitespace(*p)) ++p;
    return p < end && (*p == ',' || *p == ']');
  }

  // An array element starts after "[" or after a ",".
  bool ElementStarts(ondemand::value& element, bool* first) {
    const std::string_view token = element.raw_json_token();
    const bool ok = !token.empty() && GapIs(token.data(), *first ? 0 : ',');
    *first = false;
    return ok;
  }

  // After a collection's last entry: whitespace, then its `closing` bracket.
  bool Close(char closing) {
    const char* p = last_end_;
    const char* const end = text_.data() + text_.size();
    while (p < end && IsJsonWhitespace(*p)) ++p;
    if (p == end || *p != closing) return false;
    last_end_ = p + 1;
    return true;
  }

  bool FinishCollection(uint32_t node, size_t pending_start, uint32_t* index) {
    std::vector<uint32_t>& children = doc_.children();
    const size_t count = pending_.size() - pending_start;
    if (children.size() + count > std::numeric_limits<uint32_t>::max()) return false;
    NodeData& data = doc_.nodes()[node];
    data.first_child = static_cast<uint32_t>(children.size());
    data.child_count = static_cast<uint32_t>(count);
    children.insert(children.end(), pending_.begin() + static_cast<std::ptrdiff_t>(pending_start), pending_.end());
    pending_.resize(pending_start);
    *index = node;
    return true;
  }

  std::string_view Text(uint32_t node) {
    const NodeData& data = doc_.nodes()[node];
    return std::string_view(doc_.text_pool()).substr(data.text_offset, data.text_size);
  }

  // Whether the mapping whose entries start at pending_[start] repeats a key
  // (libyaml's path then reports it, with both positions).
  bool HasDuplicateKey(size_t start) {
    const size_t count = (pending_.size() - start) / 2;
    if (count <= kQuadraticDuplicateCheckLimit) {
      for (size_t i = 1; i < count; ++i) {
        const std::string_view key = Text(pending_[start + 2 * i]);
        for (size_t j = 0; j < i; ++j) {
          if (Text(pending_[start + 2 * j]) == key) return true;
        }
      }
      return false;
    }
    sorted_keys_.clear();
    for (size_t i = 0; i < count; ++i) sorted_keys_.push_back(Text(pending_[start + 2 * i]));
    std::sort(sorted_keys_.begin(), sorted_keys_.end());
    return std::adjacent_find(sorted_keys_.begin(), sorted_keys_.end()) != sorted_keys_.end();
  }

  struct SizeHint {
    size_t nodes = 0;
    size_t children = 0;
    size_t text = 0;
  };

  const std::string_view text_;
  const std::shared_ptr<const std::string>& file_;
  const DocumentCallback& callback_;
  const ConsumedCallback& consumed_;
  const int max_depth_;
  const uint64_t max_expanded_;
  const bool split_list_items_;
  PositionCursor cursor_;
  Document doc_;
  SizeHint size_hint_;
  std::vector<uint32_t> pending_;
  std::vector<std::string_view> sorted_keys_;
  const char* last_end_ = nullptr;  // just after the last token read
  bool in_items_ = false;
  int64_t items_delivered_ = 0;
  int64_t delivered_ = 0;
  absl::Status callback_status_;
};

}  // namespace

bool StartsLikeJson(std::string_view text) {
  for (const char c : text) {
    if (IsJsonWhitespace(c)) continue;
    return c == '{' || c == '[';
  }
  return false;
}

FastJsonResult ReadJsonFast(std::string_view text, const std::shared_ptr<const std::string>& file,
                            const DocumentCallback& callback, const ReadOptions& options,
                            const ConsumedCallback& consumed) {
  if (text.size() > std::numeric_limits<uint32_t>::max() - kJsonPadding) {
    return FastJsonResult{/*fell_back=*/true, /*delivered=*/0, absl::OkStatus()};
  }
  JsonBuilder builder(text, file, callback, options, consumed);
  return builder.Run();
}

}  // namespace kueuesim::doc::internal
