// The CEL subset of kueuesim/dra/cel.h: a tokenizer, a recursive-descent
// parser that type-checks as it builds a small AST (so that anything outside
// the subset is a compile error with its position), and an evaluator with
// CEL's error semantics.
#include "kueuesim/dra/cel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "kueuesim/base/status.h"

namespace kueuesim::dra {
namespace {

constexpr int kMaxDepth = 64;

// --- Quantities, exactly ---

// A non-negative big integer in base 1e9, least significant limb first.
class BigNat {
 public:
  explicit BigNat(const std::string& digits) {
    for (size_t end = digits.size(); end > 0;) {
      size_t begin = end >= 9 ? end - 9 : 0;
      uint32_t limb = 0;
      for (size_t i = begin; i < end; ++i) limb = limb * 10 + static_cast<uint32_t>(digits[i] - '0');
      limbs_.push_back(limb);
      end = begin;
    }
    Trim();
  }

  void MulSmall(uint32_t factor) {
    uint64_t carry = 0;
    for (uint32_t& limb : limbs_) {
      uint64_t product = static_cast<uint64_t>(limb) * factor + carry;
      limb = static_cast<uint32_t>(product % kBase);
      carry = product / kBase;
    }
    while (carry > 0) {
      limbs_.push_back(static_cast<uint32_t>(carry % kBase));
      carry /= kBase;
    }
    Trim();
  }

  void MulPow10(int64_t k) {
    for (; k >= 9; k -= 9) MulSmall(kBase);
    uint32_t factor = 1;
    for (; k > 0; --k) factor *= 10;
    MulSmall(factor);
  }

  void MulPow1024(int64_t k) {
    for (; k > 0; --k) MulSmall(1024);
  }

  friend int Compare(const BigNat& a, const BigNat& b) {
    if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() < b.limbs_.size() ? -1 : 1;
    for (size_t i = a.limbs_.size(); i > 0; --i) {
      if (a.limbs_[i - 1] != b.limbs_[i - 1]) return a.limbs_[i - 1] < b.limbs_[i - 1] ? -1 : 1;
    }
    return 0;
  }

 private:
  static constexpr uint32_t kBase = 1'000'000'000;
  void Trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }
  std::vector<uint32_t> limbs_;
};

int CompareMagnitudes(const Quantity& a, const Quantity& b) {
  // log10 of m * 10^e * 1024^p lies in [len - 1 + e + 3.0103p, len + e +
  // 3.0103p): a gap of more than one decides without big numbers, and bounds
  // the exponent differences the exact path has to multiply out.
  constexpr double kLog10Of1024 = 3.0102999566398120;
  double la =
      static_cast<double>(a.mantissa.size()) + static_cast<double>(a.exponent10) + kLog10Of1024 * a.exponent2;
  double lb =
      static_cast<double>(b.mantissa.size()) + static_cast<double>(b.exponent10) + kLog10Of1024 * b.exponent2;
  if (la - lb > 2) return 1;
  if (lb - la > 2) return -1;
  int64_t e = std::min(a.exponent10, b.exponent10);
  int64_t p = std::min<int64_t>(a.exponent2, b.exponent2);
  BigNat x(a.mantissa);
  x.MulPow10(a.exponent10 - e);
  x.MulPow1024(a.exponent2 - p);
  BigNat y(b.mantissa);
  y.MulPow10(b.exponent10 - e);
  y.MulPow1024(b.exponent2 - p);
  return Compare(x, y);
}

// --- Semantic versions (semver 2.0.0, as blang/semver parses them) ---

struct Semver {
  uint64_t major = 0, minor = 0, patch = 0;
  std::vector<std::string> pre;
};

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsIdentChars(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
  });
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

std::optional<Semver> ParseSemver(std::string_view text) {
  size_t plus = text.find('+');
  if (plus != std::string_view::npos) {
    for (std::string_view id : Split(text.substr(plus + 1), '.')) {
      if (!IsIdentChars(id)) return std::nullopt;
    }
    text = text.substr(0, plus);
  }
  Semver v;
  size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    for (std::string_view id : Split(text.substr(dash + 1), '.')) {
      if (!IsIdentChars(id)) return std::nullopt;
      if (IsDigits(id) && id.size() > 1 && id[0] == '0') return std::nullopt;
      v.pre.emplace_back(id);
    }
    text = text.substr(0, dash);
  }
  std::vector<std::string_view> core = Split(text, '.');
  if (core.size() != 3) return std::nullopt;
  uint64_t* out[3] = {&v.major, &v.minor, &v.patch};
  for (int i = 0; i < 3; ++i) {
    std::string_view part = core[static_cast<size_t>(i)];
    if (!IsDigits(part) || (part.size() > 1 && part[0] == '0') || part.size() > 19) return std::nullopt;
    uint64_t value = 0;
    for (char c : part) value = value * 10 + static_cast<uint64_t>(c - '0');
    *out[i] = value;
  }
  return v;
}

int ComparePreIdent(const std::string& a, const std::string& b) {
  bool na = IsDigits(a), nb = IsDigits(b);
  if (na && nb) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    return a < b ? -1 : (a > b ? 1 : 0);
  }
  if (na != nb) return na ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0);
}

int CompareSemver(const Semver& a, const Semver& b) {
  if (a.major != b.major) return a.major < b.major ? -1 : 1;
  if (a.minor != b.minor) return a.minor < b.minor ? -1 : 1;
  if (a.patch != b.patch) return a.patch < b.patch ? -1 : 1;
  if (a.pre.empty() || b.pre.empty()) {
    if (a.pre.empty() && b.pre.empty()) return 0;
    return a.pre.empty() ? 1 : -1;
  }
  for (size_t i = 0; i < a.pre.size() && i < b.pre.size(); ++i) {
    int c = ComparePreIdent(a.pre[i], b.pre[i]);
    if (c != 0) return c;
  }
  if (a.pre.size() == b.pre.size()) return 0;
  return a.pre.size() < b.pre.size() ? -1 : 1;
}

// --- Values ---

struct Value {
  enum class Type { kError, kBool, kInt, kString, kQuantity, kSemver };
  Type type = Type::kError;
  bool b = false;
  int64_t i = 0;
  std::string s;  // string value, or the error message
  Quantity q;
  Semver v;

  static Value Error(std::string message) {
    Value value;
    value.s = std::move(message);
    return value;
  }
  static Value Bool(bool x) {
    Value value;
    value.type = Type::kBool;
    value.b = x;
    return value;
  }
  static Value Int(int64_t x) {
    Value value;
    value.type = Type::kInt;
    value.i = x;
    return value;
  }
  static Value String(std::string x) {
    Value value;
    value.type = Type::kString;
    value.s = std::move(x);
    return value;
  }
  bool is_error() const { return type == Type::kError; }
};

const char* TypeName(Value::Type type) {
  switch (type) {
    case Value::Type::kError: return "error";
    case Value::Type::kBool: return "bool";
    case Value::Type::kInt: return "int";
    case Value::Type::kString: return "string";
    case Value::Type::kQuantity: return "Quantity";
    case Value::Type::kSemver: return "Semver";
  }
  return "?";
}

bool ValuesEqual(const Value& a, const Value& b) {
  if (a.type != b.type) return false;  // CEL heterogeneous equality
  switch (a.type) {
    case Value::Type::kBool: return a.b == b.b;
    case Value::Type::kInt: return a.i == b.i;
    case Value::Type::kString: return a.s == b.s;
    case Value::Type::kQuantity: return CompareQuantities(a.q, b.q) == 0;
    case Value::Type::kSemver: return CompareSemver(a.v, b.v) == 0;
    case Value::Type::kError: return false;
  }
  return false;
}

// --- Tokens ---

// A byte offset into the text; turned into a line and column only for
// messages.
using Pos = size_t;

enum class Tok { kEnd, kIdent, kInt, kString, kPunct };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;        // identifier, punctuation or decoded string
  uint64_t magnitude = 0;  // integer literals
  Pos pos = 0;
};

std::string Describe(const Token& token) {
  switch (token.kind) {
    case Tok::kEnd: return "end of expression";
    case Tok::kIdent: return fmt::format("'{}'", token.text);
    case Tok::kInt: return fmt::format("integer {}", token.magnitude);
    case Tok::kString: return "string literal";
    case Tok::kPunct: return fmt::format("'{}'", token.text);
  }
  return "token";
}

std::string PrintableChar(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("'\\x{:02x}'", u);
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {
    line_starts_.push_back(0);
    for (size_t k = 0; k < text.size(); ++k) {
      if (text[k] == '\n') line_starts_.push_back(k + 1);
    }
    multiline_ = line_starts_.size() > 1;
  }

  bool multiline() const { return multiline_; }

  absl::StatusOr<std::vector<Token>> Run() {
    std::vector<Token> tokens;
    for (;;) {
      SkipSpaceAndComments();
      Token token;
      token.pos = PosAt(i_);
      if (i_ >= text_.size()) {
        tokens.push_back(token);
        return tokens;
      }
      char c = text_[i_];
      if (IsIdentStart(c)) {
        size_t start = i_;
        while (i_ < text_.size() && IsIdentChar(text_[i_])) ++i_;
        std::string ident(text_.substr(start, i_ - start));
        if (i_ < text_.size() && (text_[i_] == '"' || text_[i_] == '\'')) {
          std::string lower = ident;
          for (char& ch : lower) ch = static_cast<char>(ch | 0x20);
          if (lower == "r") {
            KUEUESIM_ASSIGN_OR_RETURN(token.text, LexString(/*raw=*/true));
            token.kind = Tok::kString;
            tokens.push_back(std::move(token));
            continue;
          }
          if (lower == "b" || lower == "rb" || lower == "br") {
            return Error(token.pos, "unsupported bytes literal");
          }
        }
        token.kind = Tok::kIdent;
        token.text = std::move(ident);
        tokens.push_back(std::move(token));
        continue;
      }
      if (IsDigit(c) || (c == '.' && i_ + 1 < text_.size() && IsDigit(text_[i_ + 1]))) {
        KUEUESIM_RETURN_IF_ERROR(LexNumber(&token));
        tokens.push_back(std::move(token));
        continue;
      }
      if (c == '"' || c == '\'') {
        KUEUESIM_ASSIGN_OR_RETURN(token.text, LexString(/*raw=*/false));
        token.kind = Tok::kString;
        tokens.push_back(std::move(token));
        continue;
      }
      KUEUESIM_RETURN_IF_ERROR(LexPunct(&token));
      tokens.push_back(std::move(token));
    }
  }

  absl::Status Error(Pos offset, const std::string& message) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    size_t line = static_cast<size_t>(it - line_starts_.begin());  // >= 1
    // Columns count characters (UTF-8 code points), not bytes.
    int column = 1;
    for (size_t k = line_starts_[line - 1]; k < offset && k < text_.size(); ++k) {
      if ((static_cast<unsigned char>(text_[k]) & 0xC0) != 0x80) ++column;
    }
    return InvalidArgument(multiline_ ? fmt::format("line {}, column {}: {}", line, column, message)
                                      : fmt::format("column {}: {}", column, message));
  }

 private:
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
  static bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }
  static int HexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  Pos PosAt(size_t offset) const { return offset; }

  void SkipSpaceAndComments() {
    while (i_ < text_.size()) {
      char c = text_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++i_;
      } else if (c == '/' && i_ + 1 < text_.size() && text_[i_ + 1] == '/') {
        while (i_ < text_.size() && text_[i_] != '\n') ++i_;
      } else {
        return;
      }
    }
  }

  absl::Status LexNumber(Token* token) {
    size_t start = i_;
    uint64_t value = 0;
    bool overflow = false;
    auto accumulate = [&](uint64_t base, uint64_t digit) {
      if (value > (std::numeric_limits<uint64_t>::max() - digit) / base) overflow = true;
      value = value * base + digit;
    };
    if (text_[i_] == '0' && i_ + 1 < text_.size() && (text_[i_ + 1] == 'x' || text_[i_ + 1] == 'X')) {
      i_ += 2;
      size_t digits_start = i_;
      while (i_ < text_.size() && HexValue(text_[i_]) >= 0) {
        accumulate(16, static_cast<uint64_t>(HexValue(text_[i_])));
        ++i_;
      }
      if (i_ == digits_start) return Error(PosAt(start), "malformed hexadecimal literal");
    } else {
      while (i_ < text_.size() && IsDigit(text_[i_])) {
        accumulate(10, static_cast<uint64_t>(text_[i_] - '0'));
        ++i_;
      }
      bool fraction =
          i_ < text_.size() && text_[i_] == '.' && i_ + 1 < text_.size() && IsDigit(text_[i_ + 1]);
      bool exponent = i_ < text_.size() && (text_[i_] == 'e' || text_[i_] == 'E');
      if (fraction || exponent) return Error(PosAt(start), "unsupported double literal");
    }
    if (i_ < text_.size() && (text_[i_] == 'u' || text_[i_] == 'U')) {
      return Error(PosAt(start), "unsupported unsigned integer literal");
    }
    if (i_ < text_.size() && IsIdentChar(text_[i_])) {
      return Error(PosAt(i_), fmt::format("unexpected character {} in a number", PrintableChar(text_[i_])));
    }
    if (overflow) return Error(PosAt(start), "integer literal out of range");
    token->kind = Tok::kInt;
    token->magnitude = value;
    token->text = std::string(text_.substr(start, i_ - start));
    return absl::OkStatus();
  }

  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // At an opening quote.
  absl::StatusOr<std::string> LexString(bool raw) {
    size_t start = i_;
    char quote = text_[i_];
    if (i_ + 2 < text_.size() && text_[i_ + 1] == quote && text_[i_ + 2] == quote) {
      return Error(PosAt(start), "unsupported triple-quoted string literal");
    }
    ++i_;
    std::string out;
    while (i_ < text_.size()) {
      char c = text_[i_];
      if (c == quote) {
        ++i_;
        return out;
      }
      if (c == '\n' || c == '\r') break;
      if (c != '\\' || raw) {
        out.push_back(c);
        ++i_;
        continue;
      }
      size_t escape_start = i_;
      if (i_ + 1 >= text_.size()) break;
      char e = text_[i_ + 1];
      i_ += 2;
      switch (e) {
        case '\\': out.push_back('\\'); continue;
        case '"': out.push_back('"'); continue;
        case '\'': out.push_back('\''); continue;
        case '`': out.push_back('`'); continue;
        case '?': out.push_back('?'); continue;
        case 'a': out.push_back('\a'); continue;
        case 'b': out.push_back('\b'); continue;
        case 'f': out.push_back('\f'); continue;
        case 'n': out.push_back('\n'); continue;
        case 'r': out.push_back('\r'); continue;
        case 't': out.push_back('\t'); continue;
        case 'v': out.push_back('\v'); continue;
        default: break;
      }
      int hex_digits = e == 'x' || e == 'X' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
      if (hex_digits > 0) {
        uint32_t cp = 0;
        for (int k = 0; k < hex_digits; ++k, ++i_) {
          int h = i_ < text_.size() ? HexValue(text_[i_]) : -1;
          if (h < 0) return Error(PosAt(escape_start), "invalid escape sequence");
          cp = cp * 16 + static_cast<uint32_t>(h);
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          return Error(PosAt(escape_start), "invalid escape sequence");
        }
        AppendUtf8(cp, &out);
        continue;
      }
      if (e >= '0' && e <= '3' && i_ + 1 < text_.size() && text_[i_] >= '0' && text_[i_] <= '7' &&
          text_[i_ + 1] >= '0' && text_[i_ + 1] <= '7') {
        uint32_t cp = static_cast<uint32_t>((e - '0') * 64 + (text_[i_] - '0') * 8 + (text_[i_ + 1] - '0'));
        i_ += 2;
        AppendUtf8(cp, &out);
        continue;
      }
      return Error(PosAt(escape_start), "invalid escape sequence");
    }
    return Error(PosAt(start), "unterminated string literal");
  }

  absl::Status LexPunct(Token* token) {
    static constexpr std::string_view kTwo[] = {"==", "!=", "<=", ">=", "&&", "||"};
    for (std::string_view op : kTwo) {
      if (text_.substr(i_, 2) == op) {
        token->kind = Tok::kPunct;
        token->text = std::string(op);
        i_ += 2;
        return absl::OkStatus();
      }
    }
    char c = text_[i_];
    static constexpr std::string_view kOne = "<>!()[],.+-*/%?:{}";
    if (kOne.find(c) != std::string_view::npos) {
      token->kind = Tok::kPunct;
      token->text = std::string(1, c);
      ++i_;
      return absl::OkStatus();
    }
    if (c == '=') return Error(token->pos, "unexpected character '=' (did you mean '=='?)");
    if (c == '&') return Error(token->pos, "unexpected character '&' (did you mean '&&'?)");
    if (c == '|') return Error(token->pos, "unexpected character '|' (did you mean '||'?)");
    return Error(token->pos, fmt::format("unexpected character {}", PrintableChar(c)));
  }

  std::string_view text_;
  std::vector<size_t> line_starts_;
  size_t i_ = 0;
  bool multiline_ = false;
};

// --- AST ---

// Static types, checked while parsing. kDyn is an attribute (its type is the
// device's business); the structural types are partial references that
// only some contexts accept.
enum class SType {
  kBool,
  kInt,
  kString,
  kQuantity,
  kSemver,
  kList,
  kDyn,
  kDevice,
  kAttrRoot,
  kCapRoot,
  kAttrDomain,
  kCapDomain,
};

const char* STypeName(SType t) {
  switch (t) {
    case SType::kBool: return "bool";
    case SType::kInt: return "int";
    case SType::kString: return "string";
    case SType::kQuantity: return "Quantity";
    case SType::kSemver: return "Semver";
    case SType::kList: return "list";
    case SType::kDyn: return "dyn";
    case SType::kDevice: return "device";
    case SType::kAttrRoot: return "device.attributes";
    case SType::kCapRoot: return "device.capacity";
    case SType::kAttrDomain: return "map(string, dyn)";
    case SType::kCapDomain: return "map(string, Quantity)";
  }
  return "?";
}

enum class NodeKind {
  kLiteral,
  kList,
  kDriver,
  kAllowMulti,
  kAttribute,
  kCapacity,
  kHas,
  kNot,
  kAnd,
  kOr,
  kCompare,
  kIn,
  kInDomain,
  kCompareTo,
  kIsGreaterThan,
  kIsLessThan,
  kRef,
};

enum class CmpOp { kEq, kNe, kLt, kLe, kGt, kGe };

struct Node {
  NodeKind kind = NodeKind::kLiteral;
  SType type = SType::kBool;
  Pos pos = 0;
  Value literal;            // kLiteral
  std::vector<Value> list;  // kList
  std::string name;         // qualified name (kAttribute, kCapacity, kHas); domain (refs, kInDomain)
  std::string id;           // the bare name, for "no such key" errors
  bool capacity = false;    // kHas, kInDomain: device.capacity rather than attributes
  CmpOp op = CmpOp::kEq;
  std::vector<Node> children;
};

bool IsScalarType(SType t) {
  return t == SType::kBool || t == SType::kInt || t == SType::kString || t == SType::kQuantity ||
         t == SType::kSemver || t == SType::kDyn;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, const Lexer& lexer) : tokens_(std::move(tokens)), lexer_(lexer) {}

  absl::StatusOr<Node> ParseTop() {
    KUEUESIM_ASSIGN_OR_RETURN(Node root, ParseExpr(0));
    if (Peek().kind != Tok::kEnd) return Err(Peek().pos, fmt::format("unexpected {}", Describe(Peek())));
    KUEUESIM_RETURN_IF_ERROR(CheckValue(root));
    if (root.type != SType::kBool && root.type != SType::kDyn) {
      return Err(root.pos,
                 fmt::format("the expression must evaluate to a bool, not {}", STypeName(root.type)));
    }
    return root;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    size_t k = std::min(next_ + ahead, tokens_.size() - 1);
    return tokens_[k];
  }
  const Token& Next() {
    const Token& token = Peek();
    if (next_ < tokens_.size() - 1) ++next_;
    return token;
  }
  bool IsPunct(const char* text, size_t ahead = 0) const {
    const Token& token = Peek(ahead);
    return token.kind == Tok::kPunct && token.text == text;
  }
  absl::Status Err(Pos pos, const std::string& message) const { return lexer_.Error(pos, message); }
  absl::Status Expect(const char* punct) {
    if (IsPunct(punct)) {
      Next();
      return absl::OkStatus();
    }
    return Err(Peek().pos, fmt::format("expected '{}', found {}", punct, Describe(Peek())));
  }

  // Partial references (device, device.attributes, ...) are not values.
  absl::Status CheckValue(const Node& node) const {
    switch (node.type) {
      case SType::kDevice:
        return Err(node.pos,
                   "'device' must be followed by a field (driver, attributes, capacity, "
                   "allowMultipleAllocations)");
      case SType::kAttrRoot:
      case SType::kCapRoot:
        return Err(node.pos, fmt::format("{} must be indexed by a domain, e.g. {}[\"dra.example.com\"]",
                                         STypeName(node.type), STypeName(node.type)));
      case SType::kAttrDomain:
      case SType::kCapDomain:
        return Err(node.pos,
                   fmt::format("device.{}[\"{}\"] must be followed by a name",
                               node.type == SType::kAttrDomain ? "attributes" : "capacity", node.name));
      default: return absl::OkStatus();
    }
  }

  absl::Status CheckBoolOperand(const Node& node, const char* op) const {
    KUEUESIM_RETURN_IF_ERROR(CheckValue(node));
    if (node.type == SType::kBool || node.type == SType::kDyn) return absl::OkStatus();
    return Err(node.pos,
               fmt::format("operator '{}' needs bool operands, found {}", op, STypeName(node.type)));
  }

  absl::StatusOr<Node> ParseExpr(int depth) {
    if (depth > kMaxDepth) {
      return Err(Peek().pos, fmt::format("expression nested too deeply (more than {} levels)", kMaxDepth));
    }
    KUEUESIM_ASSIGN_OR_RETURN(Node node, ParseOr(depth));
    if (IsPunct("?")) return Err(Peek().pos, "unsupported conditional operator '?:'");
    return node;
  }

  absl::StatusOr<Node> ParseOr(int depth) {
    KUEUESIM_ASSIGN_OR_RETURN(Node first, ParseAnd(depth));
    if (!IsPunct("||")) return first;
    Node node;
    node.kind = NodeKind::kOr;
    node.type = SType::kBool;
    node.pos = first.pos;
    KUEUESIM_RETURN_IF_ERROR(CheckBoolOperand(first, "||"));
    node.children.push_back(std::move(first));
    while (IsPunct("||")) {
      Next();
      KUEUESIM_ASSIGN_OR_RETURN(Node operand, ParseAnd(depth));
      KUEUESIM_RETURN_IF_ERROR(CheckBoolOperand(operand, "||"));
      node.children.push_back(std::move(operand));
    }
    return node;
  }

  absl::StatusOr<Node> ParseAnd(int depth) {
    KUEUESIM_ASSIGN_OR_RETURN(Node first, ParseRelation(depth));
    if (!IsPunct("&&")) return first;
    Node node;
    node.kind = NodeKind::kAnd;
    node.type = SType::kBool;
    node.pos = first.pos;
    KUEUESIM_RETURN_IF_ERROR(CheckBoolOperand(first, "&&"));
    node.children.push_back(std::move(first));
    while (IsPunct("&&")) {
      Next();
      KUEUESIM_ASSIGN_OR_RETURN(Node operand, ParseRelation(depth));
      KUEUESIM_RETURN_IF_ERROR(CheckBoolOperand(operand, "&&"));
      node.children.push_back(std::move(operand));
    }
    return node;
  }

  absl::Status RefuseArithmetic() const {
    static constexpr const char* kOps[] = {"+", "-", "*", "/", "%"};
    for (const char* op : kOps) {
      if (IsPunct(op)) return Err(Peek().pos, fmt::format("unsupported arithmetic operator '{}'", op));
    }
    return absl::OkStatus();
  }

  std::optional<CmpOp> PeekCmpOp() const {
    if (Peek().kind != Tok::kPunct) return std::nullopt;
    const std::string& t = Peek().text;
    if (t == "==") return CmpOp::kEq;
    if (t == "!=") return CmpOp::kNe;
    if (t == "<") return CmpOp::kLt;
    if (t == "<=") return CmpOp::kLe;
    if (t == ">") return CmpOp::kGt;
    if (t == ">=") return CmpOp::kGe;
    return std::nullopt;
  }
  bool PeekIn() const { return Peek().kind == Tok::kIdent && Peek().text == "in"; }

  absl::StatusOr<Node> ParseRelation(int depth) {
    KUEUESIM_ASSIGN_OR_RETURN(Node lhs, ParseUnary(depth));
    KUEUESIM_RETURN_IF_ERROR(RefuseArithmetic());
    std::optional<CmpOp> op = PeekCmpOp();
    bool in = PeekIn();
    if (!op.has_value() && !in) return lhs;
    Token op_token = Next();
    KUEUESIM_ASSIGN_OR_RETURN(Node rhs, ParseUnary(depth));
    KUEUESIM_RETURN_IF_ERROR(RefuseArithmetic());
    if (PeekCmpOp().has_value() || PeekIn()) {
      return Err(Peek().pos, "chained comparisons are not supported; use && and parentheses");
    }
    Node node;
    node.pos = lhs.pos;
    node.type = SType::kBool;
    KUEUESIM_RETURN_IF_ERROR(CheckValue(lhs));
    if (in) {
      if (rhs.type == SType::kAttrDomain || rhs.type == SType::kCapDomain) {
        if (lhs.type != SType::kString && lhs.type != SType::kDyn) {
          return Err(lhs.pos, fmt::format("a presence test 'x in {}' needs a string name, found {}",
                                          STypeName(rhs.type), STypeName(lhs.type)));
        }
        node.kind = NodeKind::kInDomain;
        node.name = rhs.name;
        node.capacity = rhs.type == SType::kCapDomain;
      } else if (rhs.type == SType::kList) {
        if (!IsScalarType(lhs.type)) {
          return Err(lhs.pos, fmt::format("operator 'in' cannot test a {}", STypeName(lhs.type)));
        }
        node.kind = NodeKind::kIn;
      } else {
        KUEUESIM_RETURN_IF_ERROR(CheckValue(rhs));
        return Err(rhs.pos, fmt::format("operator 'in' needs a list literal or a device.attributes/"
                                        "device.capacity domain on its right, found {}",
                                        STypeName(rhs.type)));
      }
      node.children.push_back(std::move(lhs));
      node.children.push_back(std::move(rhs));
      return node;
    }
    KUEUESIM_RETURN_IF_ERROR(CheckValue(rhs));
    node.kind = NodeKind::kCompare;
    node.op = *op;
    SType a = lhs.type, b = rhs.type;
    if (a == SType::kList || b == SType::kList) {
      return Err(op_token.pos, fmt::format("operator '{}' is not supported on lists", op_token.text));
    }
    bool equality = *op == CmpOp::kEq || *op == CmpOp::kNe;
    if (a != b && a != SType::kDyn && b != SType::kDyn) {
      return Err(op_token.pos, fmt::format("no matching overload for '{}' applied to ({}, {})", op_token.text,
                                           STypeName(a), STypeName(b)));
    }
    if (!equality) {
      for (SType t : {a, b}) {
        if (t == SType::kQuantity || t == SType::kSemver) {
          return Err(op_token.pos, fmt::format("operator '{}' is not defined on {}; use compareTo, "
                                               "isGreaterThan or isLessThan",
                                               op_token.text, STypeName(t)));
        }
      }
    }
    node.children.push_back(std::move(lhs));
    node.children.push_back(std::move(rhs));
    return node;
  }

  absl::StatusOr<Node> ParseUnary(int depth) {
    if (IsPunct("!")) {
      Token bang = Next();
      if (depth + 1 > kMaxDepth) {
        return Err(bang.pos, fmt::format("expression nested too deeply (more than {} levels)", kMaxDepth));
      }
      KUEUESIM_ASSIGN_OR_RETURN(Node operand, ParseUnary(depth + 1));
      KUEUESIM_RETURN_IF_ERROR(CheckBoolOperand(operand, "!"));
      Node node;
      node.kind = NodeKind::kNot;
      node.type = SType::kBool;
      node.pos = bang.pos;
      node.children.push_back(std::move(operand));
      return node;
    }
    if (IsPunct("-")) {
      Token minus = Next();
      if (Peek().kind != Tok::kInt) return Err(minus.pos, "unsupported arithmetic operator '-'");
      Token number = Next();
      constexpr uint64_t kMinMagnitude = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1;
      if (number.magnitude > kMinMagnitude) return Err(number.pos, "integer literal out of range");
      Node node;
      node.kind = NodeKind::kLiteral;
      node.type = SType::kInt;
      node.pos = minus.pos;
      node.literal = Value::Int(number.magnitude == kMinMagnitude ? std::numeric_limits<int64_t>::min()
                                                                  : -static_cast<int64_t>(number.magnitude));
      return ParsePostfix(std::move(node), depth);
    }
    return ParseMember(depth);
  }

  absl::StatusOr<Node> ParseMember(int depth) {
    KUEUESIM_ASSIGN_OR_RETURN(Node node, ParsePrimary(depth));
    return ParsePostfix(std::move(node), depth);
  }

  static bool IsMacro(const std::string& name) {
    return name == "all" || name == "exists" || name == "exists_one" || name == "map" || name == "filter" ||
           name == "has";
  }

  absl::StatusOr<std::vector<Node>> ParseArgs(int depth) {
    KUEUESIM_RETURN_IF_ERROR(Expect("("));
    std::vector<Node> args;
    if (IsPunct(")")) {
      Next();
      return args;
    }
    for (;;) {
      KUEUESIM_ASSIGN_OR_RETURN(Node arg, ParseExpr(depth + 1));
      args.push_back(std::move(arg));
      if (IsPunct(",")) {
        Next();
        continue;
      }
      KUEUESIM_RETURN_IF_ERROR(Expect(")"));
      return args;
    }
  }

  absl::StatusOr<Node> ParsePostfix(Node node, int depth) {
    for (;;) {
      if (IsPunct(".")) {
        Next();
        if (Peek().kind != Tok::kIdent) {
          return Err(Peek().pos, fmt::format("expected a field name after '.', found {}", Describe(Peek())));
        }
        Token name = Next();
        if (IsPunct("(")) {
          KUEUESIM_ASSIGN_OR_RETURN(node, ParseMethod(std::move(node), name, depth));
        } else {
          KUEUESIM_ASSIGN_OR_RETURN(node, SelectField(std::move(node), name));
        }
        continue;
      }
      if (IsPunct("[")) {
        Token open = Next();
        KUEUESIM_ASSIGN_OR_RETURN(Node index, ParseExpr(depth + 1));
        KUEUESIM_RETURN_IF_ERROR(Expect("]"));
        KUEUESIM_ASSIGN_OR_RETURN(node, IndexNode(std::move(node), index, open));
        continue;
      }
      return node;
    }
  }

  absl::StatusOr<Node> SelectField(Node receiver, const Token& name) {
    Node node;
    node.pos = receiver.pos;
    switch (receiver.type) {
      case SType::kDevice:
        if (name.text == "driver") {
          node.kind = NodeKind::kDriver;
          node.type = SType::kString;
        } else if (name.text == "allowMultipleAllocations") {
          node.kind = NodeKind::kAllowMulti;
          node.type = SType::kBool;
        } else if (name.text == "attributes") {
          node.kind = NodeKind::kRef;
          node.type = SType::kAttrRoot;
        } else if (name.text == "capacity") {
          node.kind = NodeKind::kRef;
          node.type = SType::kCapRoot;
        } else {
          return Err(name.pos, fmt::format("undefined field '{}' of device", name.text));
        }
        return node;
      case SType::kAttrRoot:
      case SType::kCapRoot:
        // m.f on a map is m["f"]: a domain spelled as an identifier.
        node.kind = NodeKind::kRef;
        node.type = receiver.type == SType::kAttrRoot ? SType::kAttrDomain : SType::kCapDomain;
        node.name = name.text;
        return node;
      case SType::kAttrDomain:
      case SType::kCapDomain: return Qualified(receiver, name.text);
      default:
        return Err(name.pos, fmt::format("unsupported field selection '.{}' on {}", name.text,
                                         STypeName(receiver.type)));
    }
  }

  Node Qualified(const Node& domain_ref, const std::string& id) const {
    Node node;
    node.pos = domain_ref.pos;
    bool capacity = domain_ref.type == SType::kCapDomain;
    node.kind = capacity ? NodeKind::kCapacity : NodeKind::kAttribute;
    node.type = capacity ? SType::kQuantity : SType::kDyn;
    node.name = fmt::format("{}/{}", domain_ref.name, id);
    node.id = id;
    return node;
  }

  absl::StatusOr<Node> IndexNode(Node receiver, const Node& index, const Token& open) {
    bool root = receiver.type == SType::kAttrRoot || receiver.type == SType::kCapRoot;
    bool domain = receiver.type == SType::kAttrDomain || receiver.type == SType::kCapDomain;
    if (!root && !domain) {
      return Err(open.pos, fmt::format("unsupported index operator on {}", STypeName(receiver.type)));
    }
    if (index.kind != NodeKind::kLiteral || index.type != SType::kString) {
      return Err(index.pos,
                 fmt::format("the index of {} must be a string literal", STypeName(receiver.type)));
    }
    if (domain) return Qualified(receiver, index.literal.s);
    Node node;
    node.kind = NodeKind::kRef;
    node.pos = receiver.pos;
    node.type = receiver.type == SType::kAttrRoot ? SType::kAttrDomain : SType::kCapDomain;
    node.name = index.literal.s;
    return node;
  }

  absl::StatusOr<Node> ParseMethod(Node receiver, const Token& name, int depth) {
    if (IsMacro(name.text)) return Err(name.pos, fmt::format("unsupported macro \"{}\"", name.text));
    NodeKind kind;
    if (name.text == "compareTo") {
      kind = NodeKind::kCompareTo;
    } else if (name.text == "isGreaterThan") {
      kind = NodeKind::kIsGreaterThan;
    } else if (name.text == "isLessThan") {
      kind = NodeKind::kIsLessThan;
    } else {
      return Err(name.pos, fmt::format("unsupported function \"{}\"", name.text));
    }
    KUEUESIM_RETURN_IF_ERROR(CheckValue(receiver));
    KUEUESIM_ASSIGN_OR_RETURN(std::vector<Node> args, ParseArgs(depth));
    if (args.size() != 1) {
      return Err(name.pos, fmt::format("{}() takes exactly one argument, found {}", name.text, args.size()));
    }
    KUEUESIM_RETURN_IF_ERROR(CheckValue(args[0]));
    auto comparable = [](SType t) {
      return t == SType::kQuantity || t == SType::kSemver || t == SType::kDyn;
    };
    if (!comparable(receiver.type)) {
      return Err(name.pos, fmt::format("{}() is not defined on {}", name.text, STypeName(receiver.type)));
    }
    if (!comparable(args[0].type)) {
      return Err(args[0].pos, fmt::format("{}() needs a Quantity or Semver argument, found {}", name.text,
                                          STypeName(args[0].type)));
    }
    if (receiver.type != SType::kDyn && args[0].type != SType::kDyn && receiver.type != args[0].type) {
      return Err(args[0].pos, fmt::format("no matching overload for {}() applied to ({}, {})", name.text,
                                          STypeName(receiver.type), STypeName(args[0].type)));
    }
    Node node;
    node.kind = kind;
    node.type = kind == NodeKind::kCompareTo ? SType::kInt : SType::kBool;
    node.pos = receiver.pos;
    node.children.push_back(std::move(receiver));
    node.children.push_back(std::move(args[0]));
    return node;
  }

  absl::StatusOr<Node> StringLiteralArg(const Token& name, std::vector<Node> args) const {
    if (args.size() != 1) {
      return Err(name.pos, fmt::format("{}() takes exactly one argument, found {}", name.text, args.size()));
    }
    if (args[0].kind != NodeKind::kLiteral || args[0].type != SType::kString) {
      return Err(args[0].pos, fmt::format("the argument of {}() must be a string literal", name.text));
    }
    return std::move(args[0]);
  }

  absl::StatusOr<Node> ParseFunction(const Token& name, int depth) {
    if (name.text != "has" && IsMacro(name.text)) {
      return Err(name.pos, fmt::format("unsupported macro \"{}\"", name.text));
    }
    if (name.text != "quantity" && name.text != "semver" && name.text != "has") {
      return Err(name.pos, fmt::format("unsupported function \"{}\"", name.text));
    }
    KUEUESIM_ASSIGN_OR_RETURN(std::vector<Node> args, ParseArgs(depth));
    Node node;
    node.pos = name.pos;
    if (name.text == "has") {
      if (args.size() != 1 || (args[0].kind != NodeKind::kAttribute && args[0].kind != NodeKind::kCapacity)) {
        return Err(name.pos,
                   "has() needs one attribute or capacity, e.g. "
                   "has(device.attributes[\"dra.example.com\"].model)");
      }
      node.kind = NodeKind::kHas;
      node.type = SType::kBool;
      node.name = args[0].name;
      node.capacity = args[0].kind == NodeKind::kCapacity;
      return node;
    }
    KUEUESIM_ASSIGN_OR_RETURN(Node arg, StringLiteralArg(name, std::move(args)));
    node.kind = NodeKind::kLiteral;
    if (name.text == "quantity") {
      auto parsed = ParseQuantity(arg.literal.s);
      if (!parsed.ok()) {
        return Err(arg.pos,
                   fmt::format("invalid quantity \"{}\": {}", arg.literal.s, StatusMessage(parsed.status())));
      }
      node.type = SType::kQuantity;
      node.literal.type = Value::Type::kQuantity;
      node.literal.q = *std::move(parsed);
      return node;
    }
    std::optional<Semver> version = ParseSemver(arg.literal.s);
    if (!version.has_value()) {
      return Err(arg.pos, fmt::format("invalid semantic version \"{}\"", arg.literal.s));
    }
    node.type = SType::kSemver;
    node.literal.type = Value::Type::kSemver;
    node.literal.v = *std::move(version);
    return node;
  }

  absl::StatusOr<Node> ParsePrimary(int depth) {
    const Token& token = Peek();
    Node node;
    node.pos = token.pos;
    switch (token.kind) {
      case Tok::kEnd: return Err(token.pos, "unexpected end of expression");
      case Tok::kInt: {
        Token number = Next();
        if (number.magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return Err(number.pos, "integer literal out of range");
        }
        node.kind = NodeKind::kLiteral;
        node.type = SType::kInt;
        node.literal = Value::Int(static_cast<int64_t>(number.magnitude));
        return node;
      }
      case Tok::kString:
        node.kind = NodeKind::kLiteral;
        node.type = SType::kString;
        node.literal = Value::String(Next().text);
        return node;
      case Tok::kIdent: {
        Token name = Next();
        if (IsPunct("(")) return ParseFunction(name, depth);
        if (name.text == "true" || name.text == "false") {
          node.kind = NodeKind::kLiteral;
          node.type = SType::kBool;
          node.literal = Value::Bool(name.text == "true");
          return node;
        }
        if (name.text == "null") return Err(name.pos, "unsupported null literal");
        if (name.text == "in") return Err(name.pos, "unexpected 'in'");
        if (name.text == "device") {
          node.kind = NodeKind::kRef;
          node.type = SType::kDevice;
          return node;
        }
        return Err(name.pos, fmt::format("undeclared reference to '{}'", name.text));
      }
      case Tok::kPunct: break;
    }
    if (IsPunct("(")) {
      Next();
      KUEUESIM_ASSIGN_OR_RETURN(Node inner, ParseExpr(depth + 1));
      KUEUESIM_RETURN_IF_ERROR(Expect(")"));
      return inner;
    }
    if (IsPunct("[")) {
      Next();
      node.kind = NodeKind::kList;
      node.type = SType::kList;
      while (!IsPunct("]")) {
        KUEUESIM_ASSIGN_OR_RETURN(Node element, ParseExpr(depth + 1));
        if (element.kind != NodeKind::kLiteral) {
          return Err(element.pos, "list elements must be literals");
        }
        node.list.push_back(std::move(element.literal));
        if (!IsPunct(",")) break;
        Next();
      }
      KUEUESIM_RETURN_IF_ERROR(Expect("]"));
      return node;
    }
    if (IsPunct("{")) return Err(token.pos, "unsupported map literal");
    return Err(token.pos, fmt::format("unexpected {}", Describe(token)));
  }

  std::vector<Token> tokens_;
  size_t next_ = 0;
  const Lexer& lexer_;
};

// --- Evaluation ---

struct Env {
  const std::string& driver;
  const model::Device& device;
};

Value NoSuchOverload() { return Value::Error("no such overload"); }

Value AttributeValue(const Node& node, const Env& env) {
  auto it = env.device.attributes.find(node.name);
  if (it == env.device.attributes.end()) return Value::Error(fmt::format("no such key: {}", node.id));
  const model::DeviceAttribute& attribute = it->second;
  switch (attribute.type) {
    case model::DeviceAttribute::Type::kInt: return Value::Int(attribute.int_value);
    case model::DeviceAttribute::Type::kBool: return Value::Bool(attribute.bool_value);
    case model::DeviceAttribute::Type::kString: return Value::String(attribute.string_value);
    case model::DeviceAttribute::Type::kVersion: {
      std::optional<Semver> version = ParseSemver(attribute.string_value);
      if (!version.has_value()) {
        return Value::Error(fmt::format("invalid semantic version \"{}\"", attribute.string_value));
      }
      Value value;
      value.type = Value::Type::kSemver;
      value.v = *std::move(version);
      return value;
    }
  }
  return NoSuchOverload();
}

Value Eval(const Node& node, const Env& env);

int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// compareTo on two values: -1, 0, 1, or an error.
Value CompareValues(const Value& a, const Value& b) {
  if (a.is_error()) return a;
  if (b.is_error()) return b;
  if (a.type == Value::Type::kQuantity && b.type == Value::Type::kQuantity) {
    return Value::Int(CompareQuantities(a.q, b.q));
  }
  if (a.type == Value::Type::kSemver && b.type == Value::Type::kSemver) {
    return Value::Int(Sign(CompareSemver(a.v, b.v)));
  }
  return NoSuchOverload();
}

Value EvalCompare(const Node& node, const Env& env) {
  Value a = Eval(node.children[0], env);
  if (a.is_error()) return a;
  Value b = Eval(node.children[1], env);
  if (b.is_error()) return b;
  if (node.op == CmpOp::kEq) return Value::Bool(ValuesEqual(a, b));
  if (node.op == CmpOp::kNe) return Value::Bool(!ValuesEqual(a, b));
  if (a.type != b.type) return NoSuchOverload();
  int c = 0;
  switch (a.type) {
    case Value::Type::kInt: c = a.i < b.i ? -1 : (a.i > b.i ? 1 : 0); break;
    case Value::Type::kString: c = a.s < b.s ? -1 : (a.s > b.s ? 1 : 0); break;
    case Value::Type::kBool: c = a.b == b.b ? 0 : (a.b ? 1 : -1); break;
    default: return NoSuchOverload();
  }
  switch (node.op) {
    case CmpOp::kLt: return Value::Bool(c < 0);
    case CmpOp::kLe: return Value::Bool(c <= 0);
    case CmpOp::kGt: return Value::Bool(c > 0);
    case CmpOp::kGe: return Value::Bool(c >= 0);
    default: return NoSuchOverload();
  }
}

Value Eval(const Node& node, const Env& env) {
  switch (node.kind) {
    case NodeKind::kLiteral: return node.literal;
    case NodeKind::kDriver: return Value::String(env.driver);
    case NodeKind::kAllowMulti: return Value::Bool(env.device.allow_multiple_allocations);
    case NodeKind::kAttribute: return AttributeValue(node, env);
    case NodeKind::kCapacity: {
      auto it = env.device.capacity.find(node.name);
      if (it == env.device.capacity.end()) return Value::Error(fmt::format("no such key: {}", node.id));
      Value value;
      value.type = Value::Type::kQuantity;
      value.q = it->second.value;
      return value;
    }
    case NodeKind::kHas:
      return Value::Bool(node.capacity ? env.device.capacity.count(node.name) > 0
                                       : env.device.attributes.count(node.name) > 0);
    case NodeKind::kNot: {
      Value v = Eval(node.children[0], env);
      if (v.is_error()) return v;
      if (v.type != Value::Type::kBool) return NoSuchOverload();
      return Value::Bool(!v.b);
    }
    case NodeKind::kAnd:
    case NodeKind::kOr: {
      // CEL's commutative logic: a deciding operand wins over an error.
      const bool decisive = node.kind == NodeKind::kOr;
      std::optional<Value> error;
      for (const Node& child : node.children) {
        Value v = Eval(child, env);
        if (v.type == Value::Type::kBool) {
          if (v.b == decisive) return v;
          continue;
        }
        if (!error.has_value()) error = v.is_error() ? v : NoSuchOverload();
      }
      if (error.has_value()) return *error;
      return Value::Bool(!decisive);
    }
    case NodeKind::kCompare: return EvalCompare(node, env);
    case NodeKind::kIn: {
      Value v = Eval(node.children[0], env);
      if (v.is_error()) return v;
      for (const Value& element : node.children[1].list) {
        if (ValuesEqual(v, element)) return Value::Bool(true);
      }
      return Value::Bool(false);
    }
    case NodeKind::kInDomain: {
      Value v = Eval(node.children[0], env);
      if (v.is_error()) return v;
      if (v.type != Value::Type::kString) return Value::Bool(false);
      std::string key = fmt::format("{}/{}", node.name, v.s);
      return Value::Bool(node.capacity ? env.device.capacity.count(key) > 0
                                       : env.device.attributes.count(key) > 0);
    }
    case NodeKind::kCompareTo: return CompareValues(Eval(node.children[0], env), Eval(node.children[1], env));
    case NodeKind::kIsGreaterThan:
    case NodeKind::kIsLessThan: {
      Value c = CompareValues(Eval(node.children[0], env), Eval(node.children[1], env));
      if (c.is_error()) return c;
      return Value::Bool(node.kind == NodeKind::kIsGreaterThan ? c.i > 0 : c.i < 0);
    }
    case NodeKind::kList:
    case NodeKind::kRef: break;
  }
  return NoSuchOverload();
}

}  // namespace

int CompareQuantities(const Quantity& a, const Quantity& b) {
  int sa = a.IsZero() ? 0 : (a.negative ? -1 : 1);
  int sb = b.IsZero() ? 0 : (b.negative ? -1 : 1);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  int magnitude = CompareMagnitudes(a, b);
  return sa > 0 ? magnitude : -magnitude;
}

struct CelExpression::Impl {
  std::string text;
  Node root;
};

absl::StatusOr<CelExpression> CelExpression::Compile(std::string_view text) {
  Lexer lexer(text);
  KUEUESIM_ASSIGN_OR_RETURN(std::vector<Token> tokens, lexer.Run());
  Parser parser(std::move(tokens), lexer);
  KUEUESIM_ASSIGN_OR_RETURN(Node root, parser.ParseTop());
  auto impl = std::make_unique<Impl>();
  impl->text = std::string(text);
  impl->root = std::move(root);
  return CelExpression(std::move(impl));
}

CelExpression::CelExpression(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CelExpression::CelExpression(CelExpression&&) noexcept = default;
CelExpression& CelExpression::operator=(CelExpression&&) noexcept = default;
CelExpression::~CelExpression() = default;

CelResult CelExpression::Evaluate(const std::string& driver, const model::Device& device) const {
  Env env{driver, device};
  Value v = Eval(impl_->root, env);
  CelResult result;
  if (v.type == Value::Type::kBool) {
    result.outcome = v.b ? CelResult::Outcome::kTrue : CelResult::Outcome::kFalse;
  } else if (v.is_error()) {
    result.outcome = CelResult::Outcome::kError;
    result.error = v.s;
  } else {
    result.outcome = CelResult::Outcome::kError;
    result.error = fmt::format("CEL result of type {} could not be converted to bool", TypeName(v.type));
  }
  return result;
}

bool CelExpression::Matches(const std::string& driver, const model::Device& device) const {
  return Evaluate(driver, device).outcome == CelResult::Outcome::kTrue;
}

const std::string& CelExpression::text() const { return impl_->text; }

}  // namespace kueuesim::dra
