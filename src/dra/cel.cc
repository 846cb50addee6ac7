// A CEL interpreter of our own for DeviceClass and ResourceClaim device
// selectors (kueuesim/dra/cel.h says what it covers): a tokenizer, a
// recursive-descent parser to an AST, a light type check with cel-go's
// compile errors, and a tree-walking evaluator with CEL's value and error
// semantics, bounded in depth and in cost.
#include "kueuesim/dra/cel.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "kueuesim/base/status.h"
#include "kueuesim/base/utf8.h"

namespace kueuesim::dra {
namespace {

// Parser nesting (parentheses, calls, unary operators) and AST depth.
constexpr int kMaxDepth = 64;
constexpr int kMaxAstDepth = 250;
// resourceapi.CELSelectorExpressionMaxCost: the runtime cost limit of a
// selector, in CEL's cost units (about one per evaluated node, plus the
// sizes of strings and lists that functions walk).
constexpr int64_t kCostLimit = 1'000'000;

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

  BigNat() = default;
  bool IsZero() const { return limbs_.empty(); }
  void Add(const BigNat& o) {
    uint64_t carry = 0;
    if (limbs_.size() < o.limbs_.size()) limbs_.resize(o.limbs_.size(), 0);
    for (size_t k = 0; k < limbs_.size(); ++k) {
      uint64_t sum = limbs_[k] + carry + (k < o.limbs_.size() ? o.limbs_[k] : 0);
      limbs_[k] = static_cast<uint32_t>(sum % kBase);
      carry = sum / kBase;
    }
    if (carry > 0) limbs_.push_back(static_cast<uint32_t>(carry));
  }
  // *this -= o; requires *this >= o.
  void Sub(const BigNat& o) {
    int64_t borrow = 0;
    for (size_t k = 0; k < limbs_.size(); ++k) {
      int64_t diff = static_cast<int64_t>(limbs_[k]) - borrow - (k < o.limbs_.size() ? o.limbs_[k] : 0);
      borrow = diff < 0 ? 1 : 0;
      if (diff < 0) diff += kBase;
      limbs_[k] = static_cast<uint32_t>(diff);
    }
    Trim();
  }
  std::string ToString() const {
    if (limbs_.empty()) return "0";
    std::string out = std::to_string(limbs_.back());
    for (size_t k = limbs_.size() - 1; k > 0; --k) out += fmt::format("{:09d}", limbs_[k - 1]);
    return out;
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

// --- Quantity arithmetic, exactly: value = sign * n * 10^e ---

struct ExactQuantity {
  bool negative = false;
  BigNat n;
  int64_t e = 0;
};

ExactQuantity ToExact(const Quantity& q) {
  ExactQuantity x;
  x.negative = q.negative && !q.IsZero();
  x.n = BigNat(q.mantissa.empty() ? std::string("0") : q.mantissa);
  x.n.MulPow1024(q.exponent2);
  x.e = q.exponent10;
  return x;
}

Quantity FromExact(const ExactQuantity& x) {
  Quantity q;
  if (x.n.IsZero()) return q;
  std::string digits = x.n.ToString();
  int64_t e = x.e;
  while (digits.size() > 1 && digits.back() == '0') {
    digits.pop_back();
    ++e;
  }
  q.negative = x.negative;
  q.mantissa = std::move(digits);
  q.exponent10 = e;
  return q;
}

Quantity AddQuantities(const Quantity& a, const Quantity& b, bool subtract) {
  ExactQuantity x = ToExact(a), y = ToExact(b);
  if (subtract) y.negative = !y.negative && !y.n.IsZero();
  int64_t e = std::min(x.e, y.e);
  x.n.MulPow10(x.e - e);
  y.n.MulPow10(y.e - e);
  ExactQuantity out;
  out.e = e;
  if (x.negative == y.negative) {
    out.negative = x.negative;
    out.n = x.n;
    out.n.Add(y.n);
  } else if (Compare(x.n, y.n) >= 0) {
    out.negative = x.negative;
    out.n = x.n;
    out.n.Sub(y.n);
  } else {
    out.negative = y.negative;
    out.n = y.n;
    out.n.Sub(x.n);
  }
  return FromExact(out);
}

Quantity QuantityFromInt(int64_t v) {
  Quantity q;
  if (v == 0) return q;
  q.negative = v < 0;
  uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  std::string digits = std::to_string(magnitude);
  while (digits.back() == '0') {
    digits.pop_back();
    ++q.exponent10;
  }
  q.mantissa = std::move(digits);
  return q;
}

// resource.Quantity.AsInt64: the value when it is an integer in int64.
std::optional<int64_t> QuantityAsInt64(const Quantity& q) {
  if (q.IsZero()) return 0;
  Quantity norm = FromExact(ToExact(q));
  if (norm.exponent10 < 0) return std::nullopt;
  if (static_cast<int64_t>(norm.mantissa.size()) + norm.exponent10 > 19) return std::nullopt;
  std::string digits = norm.mantissa + std::string(static_cast<size_t>(norm.exponent10), '0');
  uint64_t magnitude = 0;
  for (char c : digits) {
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    magnitude = magnitude * 10 + digit;
  }
  if (norm.negative) {
    if (magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1) return std::nullopt;
    return static_cast<int64_t>(0 - magnitude);
  }
  if (magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return static_cast<int64_t>(magnitude);
}

double QuantityAsDouble(const Quantity& q) {
  if (q.IsZero()) return 0;
  std::string text = fmt::format("{}{}e{}", q.negative ? "-" : "", q.mantissa, q.exponent10);
  double d = std::strtod(text.c_str(), nullptr);
  return std::ldexp(d, 10 * q.exponent2);
}

int QuantitySign(const Quantity& q) { return q.IsZero() ? 0 : (q.negative ? -1 : 1); }

// normalizeAndParse of the semver library (version 1): a leading "v",
// missing minor and patch, leading zeros.
std::optional<Semver> ParseSemverTolerant(std::string_view text) {
  if (!text.empty() && text[0] == 'v') text.remove_prefix(1);
  std::vector<std::string> parts;
  size_t start = 0;
  for (int k = 0; k < 2; ++k) {
    size_t dot = text.find('.', start);
    if (dot == std::string_view::npos) break;
    parts.emplace_back(text.substr(start, dot - start));
    start = dot + 1;
  }
  parts.emplace_back(text.substr(start));
  for (std::string& p : parts) {
    if (p.size() > 1) {
      size_t nz = p.find_first_not_of('0');
      p = nz == std::string::npos ? "" : p.substr(nz);
      if (p.empty() || !(p[0] >= '0' && p[0] <= '9')) p = "0" + p;
    }
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) return std::nullopt;
    while (parts.size() < 3) parts.emplace_back("0");
  }
  return ParseSemver(parts[0] + "." + parts[1] + "." + parts[2]);
}

// --- Values ---

struct Value;
using List = std::vector<Value>;
struct MapData;

enum class K : uint8_t {
  kError,
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kQuantity,
  kSemver,
  kOptional,
  kType,
  kView,  // the device or one of its maps, read lazily
};

// The views of the device: the `device` object, device.attributes and
// device.capacity (maps by domain), and one domain's attributes or capacity.
enum class View : uint8_t { kDevice, kAttributes, kCapacity, kAttrDomain, kCapDomain };

struct Value {
  K k = K::kNull;
  View view = View::kDevice;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string s;                     // string, bytes, error message, type name, view domain
  std::shared_ptr<const List> list;  // list; optional: none (empty) or one value
  std::shared_ptr<const MapData> map;
  std::shared_ptr<const Quantity> q;
  std::shared_ptr<const Semver> v;

  static Value Error(std::string message) {
    Value x;
    x.k = K::kError;
    x.s = std::move(message);
    return x;
  }
  static Value Null() { return Value(); }
  static Value Bool(bool b) {
    Value x;
    x.k = K::kBool;
    x.b = b;
    return x;
  }
  static Value Int(int64_t i) {
    Value x;
    x.k = K::kInt;
    x.i = i;
    return x;
  }
  static Value Uint(uint64_t u) {
    Value x;
    x.k = K::kUint;
    x.u = u;
    return x;
  }
  static Value Double(double d) {
    Value x;
    x.k = K::kDouble;
    x.d = d;
    return x;
  }
  static Value String(std::string s) {
    Value x;
    x.k = K::kString;
    x.s = std::move(s);
    return x;
  }
  static Value Bytes(std::string s) {
    Value x;
    x.k = K::kBytes;
    x.s = std::move(s);
    return x;
  }
  static Value ListOf(List items) {
    Value x;
    x.k = K::kList;
    x.list = std::make_shared<const List>(std::move(items));
    return x;
  }
  static Value MapOf(std::shared_ptr<const MapData> m) {
    Value x;
    x.k = K::kMap;
    x.map = std::move(m);
    return x;
  }
  static Value Quant(Quantity q) {
    Value x;
    x.k = K::kQuantity;
    x.q = std::make_shared<const Quantity>(std::move(q));
    return x;
  }
  static Value Version(Semver v) {
    Value x;
    x.k = K::kSemver;
    x.v = std::make_shared<const Semver>(std::move(v));
    return x;
  }
  static Value None() {
    Value x;
    x.k = K::kOptional;
    x.list = std::make_shared<const List>();
    return x;
  }
  static Value Some(Value inner) {
    Value x;
    x.k = K::kOptional;
    x.list = std::make_shared<const List>(List{std::move(inner)});
    return x;
  }
  static Value Type(std::string name) {
    Value x;
    x.k = K::kType;
    x.s = std::move(name);
    return x;
  }
  static Value MakeView(View view, std::string domain = "") {
    Value x;
    x.k = K::kView;
    x.view = view;
    x.s = std::move(domain);
    return x;
  }
  bool is_error() const { return k == K::kError; }
  bool is_map() const { return k == K::kMap || (k == K::kView && view != View::kDevice); }
  bool is_number() const { return k == K::kInt || k == K::kUint || k == K::kDouble; }
};

struct MapData {
  std::vector<std::pair<Value, Value>> entries;  // insertion order
};

const char* KindName(const Value& x) {
  switch (x.k) {
    case K::kError: return "error";
    case K::kNull: return "null_type";
    case K::kBool: return "bool";
    case K::kInt: return "int";
    case K::kUint: return "uint";
    case K::kDouble: return "double";
    case K::kString: return "string";
    case K::kBytes: return "bytes";
    case K::kList: return "list";
    case K::kMap: return "map";
    case K::kQuantity: return "kubernetes.Quantity";
    case K::kSemver: return "kubernetes.Semver";
    case K::kOptional: return "optional_type";
    case K::kType: return "type";
    case K::kView: return x.view == View::kDevice ? "kubernetes.DRADevice" : "map";
  }
  return "dyn";
}

Value NoSuchOverload() { return Value::Error("no such overload"); }
Value NoSuchKey(const Value& key);

// The device a selector is evaluated against, variables in scope, and the
// cost spent so far.
struct Env {
  const std::string* driver = nullptr;
  const model::Device* device = nullptr;
  std::vector<std::pair<const std::string*, Value>> vars;
  int64_t cost = 0;
  bool cost_exceeded = false;
};

std::pair<std::string_view, std::string_view> SplitQualified(const std::string& name) {
  size_t slash = name.find('/');
  if (slash == std::string::npos) return {std::string_view(), std::string_view(name)};
  return {std::string_view(name).substr(0, slash), std::string_view(name).substr(slash + 1)};
}

Value ScalarAttributeValue(const model::DeviceAttribute& a);

// A list-typed attribute (DRAListTypeAttributes: ints, bools, strings,
// versions) is a CEL list of its values.
Value ListAttributeValue(const model::DeviceAttribute& a) {
  List items;
  model::DeviceAttribute one;
  one.type = a.type;
  switch (a.type) {
    case model::DeviceAttribute::Type::kInt:
      for (int64_t v : a.int_values) items.push_back(Value::Int(v));
      break;
    case model::DeviceAttribute::Type::kBool:
      for (bool v : a.bool_values) items.push_back(Value::Bool(v));
      break;
    case model::DeviceAttribute::Type::kString:
    case model::DeviceAttribute::Type::kVersion:
      for (const std::string& v : a.string_values) {
        one.string_value = v;
        Value item = ScalarAttributeValue(one);
        if (item.is_error()) return item;
        items.push_back(std::move(item));
      }
      break;
  }
  return Value::ListOf(std::move(items));
}

Value AttributeValue(const model::DeviceAttribute& a) {
  return a.is_list ? ListAttributeValue(a) : ScalarAttributeValue(a);
}

Value ScalarAttributeValue(const model::DeviceAttribute& a) {
  switch (a.type) {
    case model::DeviceAttribute::Type::kInt: return Value::Int(a.int_value);
    case model::DeviceAttribute::Type::kBool: return Value::Bool(a.bool_value);
    case model::DeviceAttribute::Type::kString: return Value::String(a.string_value);
    case model::DeviceAttribute::Type::kVersion: {
      std::optional<Semver> v = ParseSemver(a.string_value);
      if (!v.has_value()) return Value::Error("parse semantic version: " + a.string_value);
      return Value::Version(*v);
    }
  }
  return Value::Error("unsupported attribute value");
}

// Domains (sorted) of the device's attributes or capacity.
template <typename M>
std::vector<std::string> DomainsOf(const M& entries) {
  std::vector<std::string> out;
  for (const auto& [name, unused] : entries) {
    std::string domain(SplitQualified(name).first);
    if (out.empty() || out.back() != domain) {
      if (std::find(out.begin(), out.end(), domain) == out.end()) out.push_back(domain);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The entries of a map value (a view is read from the device, keys sorted).
std::vector<std::pair<Value, Value>> MapEntries(const Value& m, const Env& env) {
  if (m.k == K::kMap) return m.map->entries;
  std::vector<std::pair<Value, Value>> out;
  const model::Device& device = *env.device;
  switch (m.view) {
    case View::kAttributes:
      for (const std::string& domain : DomainsOf(device.attributes)) {
        out.emplace_back(Value::String(domain), Value::MakeView(View::kAttrDomain, domain));
      }
      break;
    case View::kCapacity:
      for (const std::string& domain : DomainsOf(device.capacity)) {
        out.emplace_back(Value::String(domain), Value::MakeView(View::kCapDomain, domain));
      }
      break;
    case View::kAttrDomain:
      for (const auto& [name, attr] : device.attributes) {
        auto [domain, id] = SplitQualified(name);
        if (domain == m.s) out.emplace_back(Value::String(std::string(id)), AttributeValue(attr));
      }
      break;
    case View::kCapDomain:
      for (const auto& [name, cap] : device.capacity) {
        auto [domain, id] = SplitQualified(name);
        if (domain == m.s) out.emplace_back(Value::String(std::string(id)), Value::Quant(cap.value));
      }
      break;
    case View::kDevice: break;
  }
  return out;
}

bool ValuesEqual(const Value& a, const Value& b, const Env& env);

// Numeric equality across int, uint and double, as CEL's heterogeneous
// equality has it.
std::optional<int> CompareNumbers(const Value& a, const Value& b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  if (a.k == K::kInt && b.k == K::kInt) return cmp(a.i, b.i);
  if (a.k == K::kUint && b.k == K::kUint) return cmp(a.u, b.u);
  if (a.k == K::kDouble || b.k == K::kDouble) {
    double x = a.k == K::kDouble ? a.d : (a.k == K::kInt ? static_cast<double>(a.i) : static_cast<double>(a.u));
    double y = b.k == K::kDouble ? b.d : (b.k == K::kInt ? static_cast<double>(b.i) : static_cast<double>(b.u));
    if (std::isnan(x) || std::isnan(y)) return std::nullopt;
    // Exact for integers beyond 2^53: compare the integer with the double's
    // integral part when the double is in range.
    if (a.k == K::kInt && std::abs(y) < 9.2e18) {
      double t = std::trunc(y);
      int64_t yi = static_cast<int64_t>(t);
      if (a.i != yi) return cmp(a.i, yi);
      return cmp(0.0, y - t);
    }
    if (b.k == K::kInt && std::abs(x) < 9.2e18) {
      double t = std::trunc(x);
      int64_t xi = static_cast<int64_t>(t);
      if (xi != b.i) return cmp(xi, b.i);
      return cmp(x - t, 0.0);
    }
    if (a.k == K::kUint && y >= 0 && y < 1.8e19) {
      double t = std::trunc(y);
      uint64_t yu = static_cast<uint64_t>(t);
      if (a.u != yu) return cmp(a.u, yu);
      return cmp(0.0, y - t);
    }
    if (b.k == K::kUint && x >= 0 && x < 1.8e19) {
      double t = std::trunc(x);
      uint64_t xu = static_cast<uint64_t>(t);
      if (xu != b.u) return cmp(xu, b.u);
      return cmp(x - t, 0.0);
    }
    return cmp(x, y);
  }
  // int and uint.
  if (a.k == K::kInt) return a.i < 0 ? -1 : cmp(static_cast<uint64_t>(a.i), b.u);
  return b.i < 0 ? 1 : cmp(a.u, static_cast<uint64_t>(b.i));
}

// Map lookup by key (numeric keys equal across types). Views: the device's
// maps; device.attributes[domain] of a domain the device lacks is an empty
// map, as in Kubernetes (its mapper's Find returns an empty map).
std::optional<Value> MapFind(const Value& m, const Value& key, const Env& env, bool presence_only = false) {
  if (m.k == K::kMap) {
    for (const auto& [k, v] : m.map->entries) {
      if (ValuesEqual(k, key, env)) return v;
    }
    return std::nullopt;
  }
  if (key.k != K::kString) return std::nullopt;
  const model::Device& device = *env.device;
  switch (m.view) {
    case View::kAttributes:
    case View::kCapacity: {
      View inner = m.view == View::kAttributes ? View::kAttrDomain : View::kCapDomain;
      if (!presence_only) return Value::MakeView(inner, key.s);
      std::string prefix = key.s + "/";
      bool found = false;
      if (m.view == View::kAttributes) {
        auto it = device.attributes.lower_bound(prefix);
        found = it != device.attributes.end() && it->first.compare(0, prefix.size(), prefix) == 0;
      } else {
        auto it = device.capacity.lower_bound(prefix);
        found = it != device.capacity.end() && it->first.compare(0, prefix.size(), prefix) == 0;
      }
      if (!found) return std::nullopt;
      return Value::MakeView(inner, key.s);
    }
    case View::kAttrDomain: {
      auto it = device.attributes.find(m.s + "/" + key.s);
      if (it == device.attributes.end()) return std::nullopt;
      return AttributeValue(it->second);
    }
    case View::kCapDomain: {
      auto it = device.capacity.find(m.s + "/" + key.s);
      if (it == device.capacity.end()) return std::nullopt;
      return Value::Quant(it->second.value);
    }
    case View::kDevice: break;
  }
  return std::nullopt;
}

bool ValuesEqual(const Value& a, const Value& b, const Env& env) {
  if (a.is_number() && b.is_number()) {
    std::optional<int> c = CompareNumbers(a, b);
    return c.has_value() && *c == 0;
  }
  if (a.is_map() && b.is_map()) {
    auto ea = MapEntries(a, env), eb = MapEntries(b, env);
    if (ea.size() != eb.size()) return false;
    for (const auto& [k, v] : ea) {
      std::optional<Value> other = MapFind(b, k, env, /*presence_only=*/true);
      if (!other.has_value() || !ValuesEqual(v, *other, env)) return false;
    }
    return true;
  }
  if (a.k != b.k) return false;
  switch (a.k) {
    case K::kNull: return true;
    case K::kBool: return a.b == b.b;
    case K::kString:
    case K::kBytes:
    case K::kType: return a.s == b.s;
    case K::kList: {
      if (a.list->size() != b.list->size()) return false;
      for (size_t k = 0; k < a.list->size(); ++k) {
        if (!ValuesEqual((*a.list)[k], (*b.list)[k], env)) return false;
      }
      return true;
    }
    case K::kQuantity: return CompareQuantities(*a.q, *b.q) == 0;
    case K::kSemver: return CompareSemver(*a.v, *b.v) == 0;
    case K::kOptional:
      if (a.list->empty() || b.list->empty()) return a.list->empty() && b.list->empty();
      return ValuesEqual(a.list->front(), b.list->front(), env);
    case K::kView: return a.view == b.view;  // only the device itself
    default: return false;
  }
}

Value NoSuchKey(const Value& key) {
  switch (key.k) {
    case K::kString: return Value::Error("no such key: " + key.s);
    case K::kInt: return Value::Error(fmt::format("no such key: {}", key.i));
    case K::kUint: return Value::Error(fmt::format("no such key: {}", key.u));
    case K::kBool: return Value::Error(fmt::format("no such key: {}", key.b));
    default: return Value::Error("no such key");
  }
}

// Ordering within a type (and across numeric types); nullopt: no ordering.
std::optional<int> CompareOrdered(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return CompareNumbers(a, b);
  if (a.k != b.k) return std::nullopt;
  switch (a.k) {
    case K::kBool: return a.b == b.b ? 0 : (a.b ? 1 : -1);
    case K::kString:
    case K::kBytes: {
      int c = a.s.compare(b.s);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default: return std::nullopt;
  }
}

// --- Tokens ---

// A byte offset into the text; turned into a line and column only for
// messages.
using Pos = size_t;

enum class Tok { kEnd, kIdent, kInt, kUint, kDouble, kString, kBytes, kPunct };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;        // identifier, punctuation or decoded string
  uint64_t magnitude = 0;  // integer literals
  double number = 0;       // double literals
  Pos pos = 0;
};

std::string Describe(const Token& token) {
  switch (token.kind) {
    case Tok::kEnd: return "end of expression";
    case Tok::kIdent: return fmt::format("'{}'", token.text);
    case Tok::kInt:
    case Tok::kUint:
    case Tok::kDouble: return fmt::format("'{}'", token.text);
    case Tok::kString: return "string literal";
    case Tok::kBytes: return "bytes literal";
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
          if (lower == "r" || lower == "b" || lower == "rb" || lower == "br") {
            bool bytes = lower.find('b') != std::string::npos;
            KUEUESIM_ASSIGN_OR_RETURN(token.text, LexString(lower.find('r') != std::string::npos, bytes));
            token.kind = bytes ? Tok::kBytes : Tok::kString;
            tokens.push_back(std::move(token));
            continue;
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
        KUEUESIM_ASSIGN_OR_RETURN(token.text, LexString(/*raw=*/false, /*bytes=*/false));
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
    return InvalidArgument(fmt::format("ERROR: <input>:{}:{}: {}", line, column, message));
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
      if (fraction || exponent || text_[start] == '.') {
        if (i_ < text_.size() && text_[i_] == '.') {
          ++i_;
          while (i_ < text_.size() && IsDigit(text_[i_])) ++i_;
        }
        if (i_ < text_.size() && (text_[i_] == 'e' || text_[i_] == 'E')) {
          size_t e = i_ + 1;
          if (e < text_.size() && (text_[e] == '+' || text_[e] == '-')) ++e;
          if (e >= text_.size() || !IsDigit(text_[e])) return Error(PosAt(start), "malformed double literal");
          i_ = e;
          while (i_ < text_.size() && IsDigit(text_[i_])) ++i_;
        }
        std::string literal(text_.substr(start, i_ - start));
        double d = 0;
        auto [ptr, ec] = std::from_chars(literal.data(), literal.data() + literal.size(), d);
        if (ec == std::errc::result_out_of_range) {
          d = std::strtod(literal.c_str(), nullptr);
        } else if (ec != std::errc() || ptr != literal.data() + literal.size()) {
          return Error(PosAt(start), "malformed double literal");
        }
        if (i_ < text_.size() && IsIdentChar(text_[i_])) {
          return Error(PosAt(i_), fmt::format("unexpected character {} in a number", PrintableChar(text_[i_])));
        }
        token->kind = Tok::kDouble;
        token->number = d;
        token->text = std::move(literal);
        return absl::OkStatus();
      }
    }
    bool is_uint = false;
    if (i_ < text_.size() && (text_[i_] == 'u' || text_[i_] == 'U')) {
      is_uint = true;
      ++i_;
    }
    if (i_ < text_.size() && IsIdentChar(text_[i_])) {
      return Error(PosAt(i_), fmt::format("unexpected character {} in a number", PrintableChar(text_[i_])));
    }
    if (overflow) return Error(PosAt(start), "integer literal out of range");
    token->kind = is_uint ? Tok::kUint : Tok::kInt;
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
  absl::StatusOr<std::string> LexString(bool raw, bool bytes) {
    size_t start = i_;
    char quote = text_[i_];
    bool triple = i_ + 2 < text_.size() && text_[i_ + 1] == quote && text_[i_ + 2] == quote;
    i_ += triple ? 3 : 1;
    std::string out;
    while (i_ < text_.size()) {
      char c = text_[i_];
      if (c == quote && (!triple || (i_ + 2 < text_.size() && text_[i_ + 1] == quote && text_[i_ + 2] == quote))) {
        i_ += triple ? 3 : 1;
        return out;
      }
      if (!triple && (c == '\n' || c == '\r')) break;
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
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || (bytes && hex_digits > 2)) {
          return Error(PosAt(escape_start), "invalid escape sequence");
        }
        if (bytes) {
          out.push_back(static_cast<char>(cp));
        } else {
          AppendUtf8(cp, &out);
        }
        continue;
      }
      if (e >= '0' && e <= '3' && i_ + 1 < text_.size() && text_[i_] >= '0' && text_[i_] <= '7' &&
          text_[i_ + 1] >= '0' && text_[i_ + 1] <= '7') {
        uint32_t cp = static_cast<uint32_t>((e - '0') * 64 + (text_[i_] - '0') * 8 + (text_[i_ + 1] - '0'));
        i_ += 2;
        if (bytes) {
          out.push_back(static_cast<char>(cp));
        } else {
          AppendUtf8(cp, &out);
        }
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
    static constexpr std::string_view kOne = "<>!()[],.+-*/%?:{}";  // also ".?" and "[?" as two tokens
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

enum class NK : uint8_t {
  kLiteral,
  kIdent,
  kSelect,  // kids[0].name, or kids[0].?name when optional
  kIndex,   // kids[0][kids[1]], or kids[0][?kids[1]]
  kCall,    // name(kids...) or kids[0].name(kids[1..]) when member
  kList,
  kMap,  // kids: key, value, key, value...
  kNot,
  kNeg,
  kBinary,  // name: the operator
  kAnd,     // n-ary
  kOr,      // n-ary
  kTernary,
  kHas,  // kids[0]: the select whose presence is tested
  kMacro,
};

enum class Macro : uint8_t {
  kAll,
  kExists,
  kExistsOne,
  kMap,        // (x, f) or (x, p, f)
  kFilter,
  kTransformList,  // (i, v, f) or (i, v, p, f)
  kTransformMap,
  kBind,       // cel.bind(v, init, body)
  kOptMap,
  kOptFlatMap,
};

enum class Resolved : uint8_t { kUnresolved, kVar, kDevice, kType };

struct Node {
  NK kind = NK::kLiteral;
  Pos pos = 0;
  Value literal;
  std::string name;
  bool optional = false;
  bool member = false;
  std::vector<std::unique_ptr<Node>> kids;
  std::vector<bool> optional_entries;  // list elements / map entries written [?x] / {?k: v}
  Macro macro = Macro::kAll;
  std::string var1, var2;  // macro variables (var2 empty for one-variable forms)
  bool has_filter = false;  // map(x, p, f), transformList(i, v, p, f)
  Resolved resolved = Resolved::kUnresolved;
  std::shared_ptr<const RE2> regex;  // a literal pattern, compiled once
  int depth = 1;
};

using NodePtr = std::unique_ptr<Node>;

class Parser {
 public:
  Parser(std::vector<Token> tokens, const Lexer& lexer) : tokens_(std::move(tokens)), lexer_(lexer) {}

  absl::StatusOr<NodePtr> Run() {
    KUEUESIM_ASSIGN_OR_RETURN(NodePtr root, Expr());
    if (Peek().kind != Tok::kEnd) return Err(Peek().pos, fmt::format("Syntax error: unexpected {}", Describe(Peek())));
    return root;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    size_t k = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[k];
  }
  bool IsPunct(const char* p, size_t ahead = 0) const {
    return Peek(ahead).kind == Tok::kPunct && Peek(ahead).text == p;
  }
  Token Next() { return tokens_[std::min(pos_++, tokens_.size() - 1)]; }
  absl::Status Err(Pos pos, const std::string& message) const { return lexer_.Error(pos, message); }
  absl::Status Expect(const char* p) {
    if (!IsPunct(p)) {
      return Err(Peek().pos, fmt::format("Syntax error: expected '{}', found {}", p, Describe(Peek())));
    }
    ++pos_;
    return absl::OkStatus();
  }

  absl::StatusOr<NodePtr> Make(NK kind, Pos pos, std::vector<NodePtr> kids = {}) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->pos = pos;
    int depth = 0;
    for (const NodePtr& kid : kids) depth = std::max(depth, kid->depth);
    n->depth = depth + 1;
    n->kids = std::move(kids);
    if (n->depth > kMaxAstDepth) {
      return Err(pos, fmt::format("expression nested too deeply (more than {} levels)", kMaxAstDepth));
    }
    return n;
  }

  absl::StatusOr<NodePtr> Expr() {
    if (++nesting_ > kMaxDepth) {
      return Err(Peek().pos, fmt::format("expression nested too deeply (more than {} levels)", kMaxDepth));
    }
    KUEUESIM_ASSIGN_OR_RETURN(NodePtr cond, LogicalChain(/*is_or=*/true));
    if (IsPunct("?")) {
      Pos pos = Next().pos;
      KUEUESIM_ASSIGN_OR_RETURN(NodePtr then, LogicalChain(true));
      KUEUESIM_RETURN_IF_ERROR(Expect(":"));
      KUEUESIM_ASSIGN_OR_RETURN(NodePtr otherwise, Expr());
      std::vector<NodePtr> kids;
      kids.push_back(std::move(cond));
      kids.push_back(std::move(then));
      kids.push_back(std::move(otherwise));
      KUEUESIM_ASSIGN_OR_RETURN(cond, Make(NK::kTernary, pos, std::move(kids)));
    }
    --nesting_;
    return cond;
  }

  // || over && chains, each kept flat (n-ary) so that long chains are not
  // deep.
  absl::StatusOr<NodePtr> LogicalChain(bool is_or) {
    const char* op = is_or ? "||" : "&&";
    KUEUESIM_ASSIGN_OR_RETURN(NodePtr first, is_or ? LogicalChain(false) : Relation());
    if (!IsPunct(op)) return first;
    Pos pos = Peek().pos;
    std::vector<NodePtr> terms;
    terms.push_back(std::move(first));
    while (IsPunct(op)) {
      ++pos_;
      KUEUESIM_ASSIGN_OR_RETURN(NodePtr term, is_or ? LogicalChain(false) : Relation());
      terms.push_back(std::move(term));
    }
    return Make(is_or ? NK::kOr : NK::kAnd, pos, std::move(terms));
  }

  absl::StatusOr<NodePtr> Binary(NodePtr lhs, const Token& op, NodePtr rhs) {
    std::vector<NodePtr> kids;
    kids.push_back(std::move(lhs));
    kids.push_back(std::move(rhs));
    KUEUESIM_ASSIGN_OR_RETURN(NodePtr n, Make(NK::kBinary, op.pos, std::move(kids)));
    n->name = op.text;
    return n;
  }

  absl::StatusOr<NodePtr> Relation() {
    KUEUESIM_ASSIGN_OR_RETURN(NodePtr lhs, Addition());
    for (;;) {
      const Token& t = Peek();
      bool rel = (t.kind == Tok::kPunct && (t.text == "==" || t.text == "!=" || t.text == "<" ||
                                             t.text == "<=" || t.text == ">" || t.text == ">=")) ||
                 (t.kind == Tok::kIdent && t.text == "in");
      if (!rel) return lhs;
      Token op = Next();
      KUEUESIM_ASSIGN_OR_RETURN(NodePtr rhs, Addition());
      KUEUESIM_ASSIGN_OR_RETURN(lhs, Binary(std::move(lhs), op, std::move(rhs)));
    }
  }

  absl::StatusOr<NodePtr> Addition() {
    KUEUESIM_ASSIGN_OR_RETURN(NodePtr lhs, Multiplication());
    while (IsPunct("+") || IsPunct("-")) {
      Token op = Next();
      KUEUESIM_ASSIGN_OR_RETURN(NodePtr rhs, Multiplication());
      KUEUESIM_ASSIGN_OR_RETURN(lhs, Binary(std::move(lhs), op, std::move(rhs)));
    }
    return lhs;
  }

  absl::StatusOr<NodePtr> Multiplication() {
    KUEUESIM_ASSIGN_OR_RETURN(NodePtr lhs, Unary());
    while (IsPunct("*") || IsPunct("/") || IsPunct("%")) {
      Token op = Next();
      KUEUESIM_ASSIGN_OR_RETURN(NodePtr rhs, Unary());
      KUEUESIM_ASSIGN_OR_RETURN(lhs, Binary(std::move(lhs), op, std::move(rhs)));
    }
    return lhs;
  }

  absl::StatusOr<NodePtr> Unary() {
    if (IsPunct("!") || IsPunct("-")) {
      Token op = Next();
      if (++nesting_ > kMaxDepth) {
        return Err(op.pos, fmt::format("expression nested too deeply (more than {} levels)", kMaxDepth));
      }
      // A negative number literal.
      if (op.text == "-" && (Peek().kind == Tok::kInt || Peek().kind == Tok::kDouble) && !IsPunct(".", 1) &&
          !IsPunct("[", 1)) {
        Token lit = Next();
        NodePtr n;
        KUEUESIM_ASSIGN_OR_RETURN(n, Make(NK::kLiteral, op.pos));
        if (lit.kind == Tok::kDouble) {
          n->literal = Value::Double(-lit.number);
        } else {
          if (lit.magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1) {
            return Err(lit.pos, "invalid int literal");
          }
          n->literal = Value::Int(static_cast<int64_t>(0 - lit.magnitude));
        }
        --nesting_;
        return n;
      }
      KUEUESIM_ASSIGN_OR_RETURN(NodePtr operand, Unary());
      std::vector<NodePtr> kids;
      kids.push_back(std::move(operand));
      KUEUESIM_ASSIGN_OR_RETURN(NodePtr n, Make(op.text == "!" ? NK::kNot : NK::kNeg, op.pos, std::move(kids)));
      --nesting_;
      return n;
    }
    return Member();
  }

  absl::StatusOr<std::vector<NodePtr>> Args() {
    std::vector<NodePtr> args;
    KUEUESIM_RETURN_IF_ERROR(Expect("("));
    if (!IsPunct(")")) {
      for (;;) {
        KUEUESIM_ASSIGN_OR_RETURN(NodePtr arg, Expr());
        args.push_back(std::move(arg));
        if (!IsPunct(",")) break;
        ++pos_;
      }
    }
    KUEUESIM_RETURN_IF_ERROR(Expect(")"));
    return args;
  }

  static bool IsSimpleIdent(const Node& n) { return n.kind == NK::kIdent; }

  // A member call that is a macro: the comprehension node, or nullptr.
  absl::StatusOr<NodePtr> MaybeMacro(NodePtr* target, const std::string& name, Pos pos, std::vector<NodePtr>* args) {
    struct Shape {
      const char* name;
      Macro macro;
      size_t vars;
      size_t nargs;
      bool filter;
    };
    static constexpr Shape kShapes[] = {
        {"all", Macro::kAll, 1, 2, false},
        {"all", Macro::kAll, 2, 3, false},
        {"exists", Macro::kExists, 1, 2, false},
        {"exists", Macro::kExists, 2, 3, false},
        {"exists_one", Macro::kExistsOne, 1, 2, false},
        {"exists_one", Macro::kExistsOne, 2, 3, false},
        {"existsOne", Macro::kExistsOne, 1, 2, false},
        {"existsOne", Macro::kExistsOne, 2, 3, false},
        {"map", Macro::kMap, 1, 2, false},
        {"map", Macro::kMap, 1, 3, true},
        {"filter", Macro::kFilter, 1, 2, false},
        {"transformList", Macro::kTransformList, 2, 3, false},
        {"transformList", Macro::kTransformList, 2, 4, true},
        {"transformMap", Macro::kTransformMap, 2, 3, false},
        {"transformMap", Macro::kTransformMap, 2, 4, true},
        {"optMap", Macro::kOptMap, 1, 2, false},
        {"optFlatMap", Macro::kOptFlatMap, 1, 2, false},
    };
    bool bind = name == "bind" && (*target)->kind == NK::kIdent && (*target)->name == "cel" && args->size() == 3;
    const Shape* shape = nullptr;
    for (const Shape& s : kShapes) {
      if (name == s.name && args->size() == s.nargs) {
        // map(x, p, f) has one variable; all(k, v, p) two.
        if (s.vars == 2 && s.nargs == 3 && s.macro != Macro::kTransformList && s.macro != Macro::kTransformMap &&
            !IsSimpleIdent(*(*args)[1])) {
          continue;
        }
        shape = &s;
        break;
      }
    }
    if (!bind && shape == nullptr) return NodePtr();
    size_t vars = bind ? 1 : shape->vars;
    for (size_t k = 0; k < vars; ++k) {
      if (!IsSimpleIdent(*(*args)[k])) {
        return Err((*args)[k]->pos, fmt::format("{}() variable names must be simple identifiers", name));
      }
    }
    std::vector<NodePtr> kids;
    if (!bind) kids.push_back(std::move(*target));
    for (size_t k = vars; k < args->size(); ++k) kids.push_back(std::move((*args)[k]));
    KUEUESIM_ASSIGN_OR_RETURN(NodePtr n, Make(NK::kMacro, pos, std::move(kids)));
    n->macro = bind ? Macro::kBind : shape->macro;
    n->name = bind ? "cel.bind" : name;
    n->var1 = (*args)[0]->name;
    if (vars == 2) n->var2 = (*args)[1]->name;
    n->has_filter = !bind && shape->filter;
    if (!n->var2.empty() && n->var1 == n->var2) {
      return Err(pos, fmt::format("{}() duplicate variable name: {}", name, n->var1));
    }
    return n;
  }

  absl::StatusOr<NodePtr> Member() {
    KUEUESIM_ASSIGN_OR_RETURN(NodePtr n, Primary());
    for (;;) {
      if (IsPunct(".")) {
        Pos dot = Next().pos;
        bool optional = false;
        if (IsPunct("?")) {
          ++pos_;
          optional = true;
        }
        if (Peek().kind != Tok::kIdent) {
          return Err(Peek().pos, fmt::format("Syntax error: expected a field name, found {}", Describe(Peek())));
        }
        Token field = Next();
        if (!optional && IsPunct("(")) {
          if (++nesting_ > kMaxDepth) {
            return Err(field.pos, fmt::format("expression nested too deeply (more than {} levels)", kMaxDepth));
          }
          KUEUESIM_ASSIGN_OR_RETURN(std::vector<NodePtr> args, Args());
          --nesting_;
          KUEUESIM_ASSIGN_OR_RETURN(NodePtr macro, MaybeMacro(&n, field.text, field.pos, &args));
          if (macro != nullptr) {
            n = std::move(macro);
            continue;
          }
          std::vector<NodePtr> kids;
          kids.push_back(std::move(n));
          for (NodePtr& a : args) kids.push_back(std::move(a));
          KUEUESIM_ASSIGN_OR_RETURN(n, Make(NK::kCall, field.pos, std::move(kids)));
          n->name = field.text;
          n->member = true;
          continue;
        }
        std::vector<NodePtr> kids;
        kids.push_back(std::move(n));
        KUEUESIM_ASSIGN_OR_RETURN(n, Make(NK::kSelect, optional ? dot : field.pos, std::move(kids)));
        n->name = field.text;
        n->optional = optional;
        continue;
      }
      if (IsPunct("[")) {
        Pos open = Next().pos;
        bool optional = false;
        if (IsPunct("?")) {
          ++pos_;
          optional = true;
        }
        KUEUESIM_ASSIGN_OR_RETURN(NodePtr index, Expr());
        KUEUESIM_RETURN_IF_ERROR(Expect("]"));
        std::vector<NodePtr> kids;
        kids.push_back(std::move(n));
        kids.push_back(std::move(index));
        KUEUESIM_ASSIGN_OR_RETURN(n, Make(NK::kIndex, open, std::move(kids)));
        n->optional = optional;
        continue;
      }
      return n;
    }
  }

  static bool IsReserved(const std::string& s) {
    static constexpr std::string_view kReserved[] = {"as",     "break", "const",   "continue", "else",
                                                     "for",    "function", "if",   "import",   "let",
                                                     "loop",   "package",  "namespace", "return", "var",
                                                     "void",   "while"};
    return std::find(std::begin(kReserved), std::end(kReserved), s) != std::end(kReserved);
  }

  absl::StatusOr<NodePtr> Primary() {
    Token t = Next();
    switch (t.kind) {
      case Tok::kEnd: return Err(t.pos, "Syntax error: unexpected end of expression");
      case Tok::kInt: {
        if (t.magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return Err(t.pos, "invalid int literal");
        }
        KUEUESIM_ASSIGN_OR_RETURN(NodePtr n, Make(NK::kLiteral, t.pos));
        n->literal = Value::Int(static_cast<int64_t>(t.magnitude));
        return n;
      }
      case Tok::kUint: {
        KUEUESIM_ASSIGN_OR_RETURN(NodePtr n, Make(NK::kLiteral, t.pos));
        n->literal = Value::Uint(t.magnitude);
        return n;
      }
      case Tok::kDouble: {
        KUEUESIM_ASSIGN_OR_RETURN(NodePtr n, Make(NK::kLiteral, t.pos));
        n->literal = Value::Double(t.number);
        return n;
      }
      case Tok::kString:
      case Tok::kBytes: {
        KUEUESIM_ASSIGN_OR_RETURN(NodePtr n, Make(NK::kLiteral, t.pos));
        n->literal = t.kind == Tok::kString ? Value::String(t.text) : Value::Bytes(t.text);
        return n;
      }
      case Tok::kIdent: {
        if (t.text == "true" || t.text == "false" || t.text == "null") {
          KUEUESIM_ASSIGN_OR_RETURN(NodePtr n, Make(NK::kLiteral, t.pos));
          n->literal = t.text == "null" ? Value::Null() : Value::Bool(t.text == "true");
          return n;
        }
        if (IsReserved(t.text) || t.text == "in") {
          return Err(t.pos, fmt::format("Syntax error: reserved identifier: {}", t.text));
        }
        if (IsPunct("(")) {
          if (++nesting_ > kMaxDepth) {
            return Err(t.pos, fmt::format("expression nested too deeply (more than {} levels)", kMaxDepth));
          }
          KUEUESIM_ASSIGN_OR_RETURN(std::vector<NodePtr> args, Args());
          --nesting_;
          if (t.text == "has") {
            if (args.size() != 1 || args[0]->kind != NK::kSelect || args[0]->optional) {
              return Err(t.pos, "invalid argument to has() macro");
            }
            return Make(NK::kHas, t.pos, std::move(args));
          }
          KUEUESIM_ASSIGN_OR_RETURN(NodePtr n, Make(NK::kCall, t.pos, std::move(args)));
          n->name = t.text;
          return n;
        }
        if (IsPunct("{")) return Err(t.pos, "Syntax error: message construction is not supported");
        KUEUESIM_ASSIGN_OR_RETURN(NodePtr n, Make(NK::kIdent, t.pos));
        n->name = t.text;
        return n;
      }
      case Tok::kPunct: break;
    }
    if (t.text == "(") {
      KUEUESIM_ASSIGN_OR_RETURN(NodePtr inner, Expr());
      KUEUESIM_RETURN_IF_ERROR(Expect(")"));
      return inner;
    }
    if (t.text == "[" || t.text == "{") {
      bool is_map = t.text == "{";
      const char* close = is_map ? "}" : "]";
      if (++nesting_ > kMaxDepth) {
        return Err(t.pos, fmt::format("expression nested too deeply (more than {} levels)", kMaxDepth));
      }
      std::vector<NodePtr> kids;
      std::vector<bool> optional;
      while (!IsPunct(close)) {
        bool opt = false;
        if (IsPunct("?")) {
          ++pos_;
          opt = true;
        }
        KUEUESIM_ASSIGN_OR_RETURN(NodePtr item, Expr());
        kids.push_back(std::move(item));
        if (is_map) {
          KUEUESIM_RETURN_IF_ERROR(Expect(":"));
          KUEUESIM_ASSIGN_OR_RETURN(NodePtr value, Expr());
          kids.push_back(std::move(value));
        }
        optional.push_back(opt);
        if (!IsPunct(",")) break;
        ++pos_;
      }
      KUEUESIM_RETURN_IF_ERROR(Expect(close));
      --nesting_;
      KUEUESIM_ASSIGN_OR_RETURN(NodePtr n, Make(is_map ? NK::kMap : NK::kList, t.pos, std::move(kids)));
      n->optional_entries = std::move(optional);
      return n;
    }
    if (t.text == "." && Peek().kind == Tok::kIdent) {
      // A leading dot names the root scope: .device.
      --pos_;
      ++pos_;
      return Primary();
    }
    return Err(t.pos, fmt::format("Syntax error: unexpected {}", Describe(t)));
  }

  std::vector<Token> tokens_;
  const Lexer& lexer_;
  size_t pos_ = 0;
  int nesting_ = -1;  // the whole expression is not nesting
};

// --- Type check ---

enum class T : uint8_t {
  kDyn,
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kQuantity,
  kSemver,
  kOptional,
  kType,
  kDevice,
  kAny,  // an overload's type parameter
};

struct SType {
  T t = T::kDyn;
  std::shared_ptr<const SType> key, elem;  // map key / list, map or optional element
};

SType Simple(T t) { return SType{t, nullptr, nullptr}; }
SType ListOfT(SType elem) { return SType{T::kList, nullptr, std::make_shared<const SType>(std::move(elem))}; }
SType MapOfT(SType key, SType value) {
  return SType{T::kMap, std::make_shared<const SType>(std::move(key)), std::make_shared<const SType>(std::move(value))};
}
SType OptOfT(SType elem) { return SType{T::kOptional, nullptr, std::make_shared<const SType>(std::move(elem))}; }
SType ElemOf(const SType& s) { return s.elem ? *s.elem : Simple(T::kDyn); }
SType KeyOf(const SType& s) { return s.key ? *s.key : Simple(T::kDyn); }

std::string TypeString(const SType& s) {
  switch (s.t) {
    case T::kDyn:
    case T::kAny: return "dyn";
    case T::kNull: return "null_type";
    case T::kBool: return "bool";
    case T::kInt: return "int";
    case T::kUint: return "uint";
    case T::kDouble: return "double";
    case T::kString: return "string";
    case T::kBytes: return "bytes";
    case T::kList: return "list(" + TypeString(ElemOf(s)) + ")";
    case T::kMap: return "map(" + TypeString(KeyOf(s)) + ", " + TypeString(ElemOf(s)) + ")";
    case T::kQuantity: return "kubernetes.Quantity";
    case T::kSemver: return "kubernetes.Semver";
    case T::kOptional: return "optional_type(" + TypeString(ElemOf(s)) + ")";
    case T::kType: return "type";
    case T::kDevice: return "kubernetes.DRADevice";
  }
  return "dyn";
}

bool IsDyn(const SType& s) { return s.t == T::kDyn || s.t == T::kAny; }
bool IsNumeric(T t) { return t == T::kInt || t == T::kUint || t == T::kDouble; }
bool SameKind(const SType& a, const SType& b) { return IsDyn(a) || IsDyn(b) || a.t == b.t; }

// Function overloads: receiver (kDyn: a global function) and argument types.
struct Overload {
  const char* name;
  bool member;
  T recv;
  std::vector<T> args;
  T result;  // kAny: computed from the arguments (see CallResult)
};

const std::vector<Overload>& Overloads() {
  static const std::vector<Overload> kOverloads = {
      // Standard.
      {"size", false, T::kDyn, {T::kString}, T::kInt},
      {"size", false, T::kDyn, {T::kBytes}, T::kInt},
      {"size", false, T::kDyn, {T::kList}, T::kInt},
      {"size", false, T::kDyn, {T::kMap}, T::kInt},
      {"size", true, T::kString, {}, T::kInt},
      {"size", true, T::kBytes, {}, T::kInt},
      {"size", true, T::kList, {}, T::kInt},
      {"size", true, T::kMap, {}, T::kInt},
      {"int", false, T::kDyn, {T::kInt}, T::kInt},
      {"int", false, T::kDyn, {T::kUint}, T::kInt},
      {"int", false, T::kDyn, {T::kDouble}, T::kInt},
      {"int", false, T::kDyn, {T::kString}, T::kInt},
      {"uint", false, T::kDyn, {T::kInt}, T::kUint},
      {"uint", false, T::kDyn, {T::kUint}, T::kUint},
      {"uint", false, T::kDyn, {T::kDouble}, T::kUint},
      {"uint", false, T::kDyn, {T::kString}, T::kUint},
      {"double", false, T::kDyn, {T::kInt}, T::kDouble},
      {"double", false, T::kDyn, {T::kUint}, T::kDouble},
      {"double", false, T::kDyn, {T::kDouble}, T::kDouble},
      {"double", false, T::kDyn, {T::kString}, T::kDouble},
      {"string", false, T::kDyn, {T::kInt}, T::kString},
      {"string", false, T::kDyn, {T::kUint}, T::kString},
      {"string", false, T::kDyn, {T::kDouble}, T::kString},
      {"string", false, T::kDyn, {T::kString}, T::kString},
      {"string", false, T::kDyn, {T::kBytes}, T::kString},
      {"string", false, T::kDyn, {T::kBool}, T::kString},
      {"bool", false, T::kDyn, {T::kBool}, T::kBool},
      {"bool", false, T::kDyn, {T::kString}, T::kBool},
      {"bytes", false, T::kDyn, {T::kBytes}, T::kBytes},
      {"bytes", false, T::kDyn, {T::kString}, T::kBytes},
      {"dyn", false, T::kDyn, {T::kAny}, T::kDyn},
      {"type", false, T::kDyn, {T::kAny}, T::kType},
      {"contains", true, T::kString, {T::kString}, T::kBool},
      {"startsWith", true, T::kString, {T::kString}, T::kBool},
      {"endsWith", true, T::kString, {T::kString}, T::kBool},
      {"matches", true, T::kString, {T::kString}, T::kBool},
      {"matches", false, T::kDyn, {T::kString, T::kString}, T::kBool},
      // Extended strings (version 2).
      {"charAt", true, T::kString, {T::kInt}, T::kString},
      {"indexOf", true, T::kString, {T::kString}, T::kInt},
      {"indexOf", true, T::kString, {T::kString, T::kInt}, T::kInt},
      {"lastIndexOf", true, T::kString, {T::kString}, T::kInt},
      {"lastIndexOf", true, T::kString, {T::kString, T::kInt}, T::kInt},
      {"lowerAscii", true, T::kString, {}, T::kString},
      {"upperAscii", true, T::kString, {}, T::kString},
      {"replace", true, T::kString, {T::kString, T::kString}, T::kString},
      {"replace", true, T::kString, {T::kString, T::kString, T::kInt}, T::kString},
      {"split", true, T::kString, {T::kString}, T::kList},
      {"split", true, T::kString, {T::kString, T::kInt}, T::kList},
      {"substring", true, T::kString, {T::kInt}, T::kString},
      {"substring", true, T::kString, {T::kInt, T::kInt}, T::kString},
      {"trim", true, T::kString, {}, T::kString},
      {"join", true, T::kList, {}, T::kString},
      {"join", true, T::kList, {T::kString}, T::kString},
      {"strings.quote", false, T::kDyn, {T::kString}, T::kString},
      // Kubernetes regex library.
      {"find", true, T::kString, {T::kString}, T::kString},
      {"findAll", true, T::kString, {T::kString}, T::kList},
      {"findAll", true, T::kString, {T::kString, T::kInt}, T::kList},
      // Kubernetes lists library.
      {"isSorted", true, T::kList, {}, T::kBool},
      {"sum", true, T::kList, {}, T::kAny},
      {"min", true, T::kList, {}, T::kAny},
      {"max", true, T::kList, {}, T::kAny},
      {"indexOf", true, T::kList, {T::kAny}, T::kInt},
      {"lastIndexOf", true, T::kList, {T::kAny}, T::kInt},
      // Sets.
      {"sets.contains", false, T::kDyn, {T::kList, T::kList}, T::kBool},
      {"sets.equivalent", false, T::kDyn, {T::kList, T::kList}, T::kBool},
      {"sets.intersects", false, T::kDyn, {T::kList, T::kList}, T::kBool},
      // Optional types.
      {"optional.of", false, T::kDyn, {T::kAny}, T::kAny},
      {"optional.ofNonZeroValue", false, T::kDyn, {T::kAny}, T::kAny},
      {"optional.none", false, T::kDyn, {}, T::kAny},
      {"hasValue", true, T::kOptional, {}, T::kBool},
      {"value", true, T::kOptional, {}, T::kAny},
      {"orValue", true, T::kOptional, {T::kAny}, T::kAny},
      {"or", true, T::kOptional, {T::kOptional}, T::kAny},
      {"first", true, T::kList, {}, T::kAny},
      {"last", true, T::kList, {}, T::kAny},
      // Kubernetes quantity library.
      {"quantity", false, T::kDyn, {T::kString}, T::kQuantity},
      {"isQuantity", false, T::kDyn, {T::kString}, T::kBool},
      {"sign", true, T::kQuantity, {}, T::kInt},
      {"sign", false, T::kDyn, {T::kQuantity}, T::kInt},
      {"isInteger", true, T::kQuantity, {}, T::kBool},
      {"asInteger", true, T::kQuantity, {}, T::kInt},
      {"asApproximateFloat", true, T::kQuantity, {}, T::kDouble},
      {"add", true, T::kQuantity, {T::kQuantity}, T::kQuantity},
      {"add", true, T::kQuantity, {T::kInt}, T::kQuantity},
      {"sub", true, T::kQuantity, {T::kQuantity}, T::kQuantity},
      {"sub", true, T::kQuantity, {T::kInt}, T::kQuantity},
      {"mul", true, T::kQuantity, {T::kInt}, T::kQuantity},
      {"isGreaterThan", true, T::kQuantity, {T::kQuantity}, T::kBool},
      {"isLessThan", true, T::kQuantity, {T::kQuantity}, T::kBool},
      {"compareTo", true, T::kQuantity, {T::kQuantity}, T::kInt},
      // Kubernetes semver library (version 1).
      {"semver", false, T::kDyn, {T::kString}, T::kSemver},
      {"semver", false, T::kDyn, {T::kString, T::kBool}, T::kSemver},
      {"isSemver", false, T::kDyn, {T::kString}, T::kBool},
      {"isSemver", false, T::kDyn, {T::kString, T::kBool}, T::kBool},
      {"major", true, T::kSemver, {}, T::kInt},
      {"minor", true, T::kSemver, {}, T::kInt},
      {"patch", true, T::kSemver, {}, T::kInt},
      {"isGreaterThan", true, T::kSemver, {T::kSemver}, T::kBool},
      {"isLessThan", true, T::kSemver, {T::kSemver}, T::kBool},
      {"compareTo", true, T::kSemver, {T::kSemver}, T::kInt},
  };
  return kOverloads;
}

bool Matches(T param, const SType& arg) { return param == T::kAny || IsDyn(arg) || param == arg.t; }

class Checker {
 public:
  explicit Checker(const Lexer& lexer) : lexer_(lexer) {}

  absl::StatusOr<SType> Check(Node& n) {
    switch (n.kind) {
      case NK::kLiteral: return LiteralType(n.literal);
      case NK::kIdent: return Ident(n);
      case NK::kSelect: return Select(n);
      case NK::kIndex: return Index(n);
      case NK::kCall: return Call(n);
      case NK::kList: {
        SType elem = Simple(T::kDyn);
        bool first = true;
        for (size_t k = 0; k < n.kids.size(); ++k) {
          KUEUESIM_ASSIGN_OR_RETURN(SType t, Check(*n.kids[k]));
          if (n.optional_entries[k]) {
            if (!IsDyn(t) && t.t != T::kOptional) return Err(*n.kids[k], fmt::format("expected type 'optional_type' but found '{}'", TypeString(t)));
            t = ElemOf(t);
          }
          KUEUESIM_RETURN_IF_ERROR(Homogeneous(*n.kids[k], &elem, &first, t));
        }
        return ListOfT(elem);
      }
      case NK::kMap: {
        SType key = Simple(T::kDyn), value = Simple(T::kDyn);
        bool first_key = true, first_value = true;
        for (size_t k = 0; k + 1 < n.kids.size(); k += 2) {
          KUEUESIM_ASSIGN_OR_RETURN(SType kt, Check(*n.kids[k]));
          KUEUESIM_ASSIGN_OR_RETURN(SType vt, Check(*n.kids[k + 1]));
          if (!IsDyn(kt) && kt.t != T::kInt && kt.t != T::kUint && kt.t != T::kString && kt.t != T::kBool) {
            return Err(*n.kids[k], fmt::format("unsupported map key type: {}", TypeString(kt)));
          }
          if (n.optional_entries[k / 2]) {
            if (!IsDyn(vt) && vt.t != T::kOptional) return Err(*n.kids[k + 1], fmt::format("expected type 'optional_type' but found '{}'", TypeString(vt)));
            vt = ElemOf(vt);
          }
          KUEUESIM_RETURN_IF_ERROR(Homogeneous(*n.kids[k], &key, &first_key, kt));
          KUEUESIM_RETURN_IF_ERROR(Homogeneous(*n.kids[k + 1], &value, &first_value, vt));
        }
        return MapOfT(key, value);
      }
      case NK::kNot: {
        KUEUESIM_ASSIGN_OR_RETURN(SType t, Check(*n.kids[0]));
        if (!IsDyn(t) && t.t != T::kBool) return NoOverload(n, "!_", {t});
        return Simple(T::kBool);
      }
      case NK::kNeg: {
        KUEUESIM_ASSIGN_OR_RETURN(SType t, Check(*n.kids[0]));
        if (!IsDyn(t) && t.t != T::kInt && t.t != T::kDouble) return NoOverload(n, "-_", {t});
        return t;
      }
      case NK::kBinary: return Binary(n);
      case NK::kAnd:
      case NK::kOr: {
        std::vector<SType> types;
        for (NodePtr& kid : n.kids) {
          KUEUESIM_ASSIGN_OR_RETURN(SType t, Check(*kid));
          types.push_back(t);
        }
        for (size_t k = 0; k < types.size(); ++k) {
          if (!IsDyn(types[k]) && types[k].t != T::kBool) {
            return NoOverload(n, n.kind == NK::kAnd ? "_&&_" : "_||_", {types[k == 0 ? 0 : k - 1], types[k]});
          }
        }
        return Simple(T::kBool);
      }
      case NK::kTernary: {
        KUEUESIM_ASSIGN_OR_RETURN(SType c, Check(*n.kids[0]));
        KUEUESIM_ASSIGN_OR_RETURN(SType a, Check(*n.kids[1]));
        KUEUESIM_ASSIGN_OR_RETURN(SType b, Check(*n.kids[2]));
        if ((!IsDyn(c) && c.t != T::kBool) || !SameKind(a, b)) return NoOverload(n, "_?_:_", {c, a, b});
        return IsDyn(a) ? b : a;
      }
      case NK::kHas: {
        Node& sel = *n.kids[0];
        KUEUESIM_ASSIGN_OR_RETURN(SType operand, Check(*sel.kids[0]));
        if (operand.t == T::kDevice) {
          KUEUESIM_RETURN_IF_ERROR(DeviceField(sel).status());
        } else if (!IsDyn(operand) && operand.t != T::kMap && operand.t != T::kOptional) {
          return Err(sel, fmt::format("type '{}' does not support field selection", TypeString(operand)));
        }
        return Simple(T::kBool);
      }
      case NK::kMacro: return MacroType(n);
    }
    return Simple(T::kDyn);
  }

  absl::Status Err(const Node& n, const std::string& message) const { return lexer_.Error(n.pos, message); }

 private:
  static SType LiteralType(const Value& v) {
    switch (v.k) {
      case K::kNull: return Simple(T::kNull);
      case K::kBool: return Simple(T::kBool);
      case K::kInt: return Simple(T::kInt);
      case K::kUint: return Simple(T::kUint);
      case K::kDouble: return Simple(T::kDouble);
      case K::kString: return Simple(T::kString);
      case K::kBytes: return Simple(T::kBytes);
      default: return Simple(T::kDyn);
    }
  }

  absl::Status Homogeneous(const Node& at, SType* acc, bool* first, const SType& t) {
    if (*first) {
      *acc = t;
      *first = false;
      return absl::OkStatus();
    }
    if (IsDyn(*acc) || IsDyn(t)) {
      *acc = Simple(T::kDyn);
      return absl::OkStatus();
    }
    if (acc->t != t.t) {
      return Err(at, fmt::format("expected type '{}' but found '{}'", TypeString(*acc), TypeString(t)));
    }
    return absl::OkStatus();
  }

  absl::Status NoOverload(const Node& n, const std::string& fn, const std::vector<SType>& args) const {
    std::string list;
    for (const SType& a : args) list += (list.empty() ? "" : ", ") + TypeString(a);
    return Err(n, fmt::format("found no matching overload for '{}' applied to '({})'", fn, list));
  }

  const SType* Lookup(const std::string& name) const {
    for (size_t k = scope_.size(); k > 0; --k) {
      if (scope_[k - 1].first == name) return &scope_[k - 1].second;
    }
    return nullptr;
  }

  static bool IsTypeName(const std::string& name) {
    static constexpr std::string_view kTypes[] = {"int",  "uint", "double", "bool",      "string", "bytes",
                                                  "list", "map",  "type",   "null_type", "dyn"};
    return std::find(std::begin(kTypes), std::end(kTypes), name) != std::end(kTypes);
  }

  absl::StatusOr<SType> Ident(Node& n) {
    if (const SType* t = Lookup(n.name)) {
      n.resolved = Resolved::kVar;
      return *t;
    }
    if (n.name == "device") {
      n.resolved = Resolved::kDevice;
      return Simple(T::kDevice);
    }
    if (IsTypeName(n.name)) {
      n.resolved = Resolved::kType;
      n.literal = Value::Type(n.name);
      return Simple(T::kType);
    }
    return Err(n, fmt::format("undeclared reference to '{}' (in container '')", n.name));
  }

  absl::StatusOr<SType> DeviceField(const Node& sel) const {
    if (sel.name == "driver") return Simple(T::kString);
    if (sel.name == "attributes") return MapOfT(Simple(T::kString), MapOfT(Simple(T::kString), Simple(T::kDyn)));
    if (sel.name == "capacity") return MapOfT(Simple(T::kString), MapOfT(Simple(T::kString), Simple(T::kQuantity)));
    if (sel.name == "allowMultipleAllocations") return Simple(T::kBool);
    return Err(sel, fmt::format("undefined field '{}'", sel.name));
  }

  absl::StatusOr<SType> Select(Node& n) {
    KUEUESIM_ASSIGN_OR_RETURN(SType base, Check(*n.kids[0]));
    SType out;
    bool was_optional = base.t == T::kOptional;
    if (was_optional) base = ElemOf(base);
    if (base.t == T::kDevice) {
      KUEUESIM_ASSIGN_OR_RETURN(out, DeviceField(n));
    } else if (base.t == T::kMap) {
      out = ElemOf(base);
    } else if (IsDyn(base)) {
      out = Simple(T::kDyn);
    } else {
      return Err(n, fmt::format("type '{}' does not support field selection", TypeString(base)));
    }
    return n.optional || was_optional ? OptOfT(out) : out;
  }

  absl::StatusOr<SType> Index(Node& n) {
    KUEUESIM_ASSIGN_OR_RETURN(SType base, Check(*n.kids[0]));
    KUEUESIM_ASSIGN_OR_RETURN(SType index, Check(*n.kids[1]));
    bool was_optional = base.t == T::kOptional;
    if (was_optional) base = ElemOf(base);
    SType out;
    if (base.t == T::kList) {
      if (!IsDyn(index) && !IsNumeric(index.t)) return NoOverload(n, "_[_]", {base, index});
      out = ElemOf(base);
    } else if (base.t == T::kMap) {
      if (!SameKind(KeyOf(base), index) && !(IsNumeric(KeyOf(base).t) && IsNumeric(index.t))) {
        return NoOverload(n, "_[_]", {base, index});
      }
      out = ElemOf(base);
    } else if (IsDyn(base)) {
      out = Simple(T::kDyn);
    } else {
      return NoOverload(n, "_[_]", {base, index});
    }
    return n.optional || was_optional ? OptOfT(out) : out;
  }

  absl::StatusOr<SType> Binary(Node& n) {
    KUEUESIM_ASSIGN_OR_RETURN(SType a, Check(*n.kids[0]));
    KUEUESIM_ASSIGN_OR_RETURN(SType b, Check(*n.kids[1]));
    const std::string& op = n.name;
    const std::string fn = op == "in" ? "@in" : "_" + op + "_";
    if (op == "==" || op == "!=") {
      bool ok = SameKind(a, b) || (a.t == T::kNull && b.t == T::kOptional) || (b.t == T::kNull && a.t == T::kOptional);
      if (!ok) return NoOverload(n, fn, {a, b});
      return Simple(T::kBool);
    }
    if (op == "<" || op == "<=" || op == ">" || op == ">=") {
      auto orderable = [](T t) {
        return t == T::kInt || t == T::kUint || t == T::kDouble || t == T::kString || t == T::kBytes || t == T::kBool;
      };
      bool ok;
      if (IsDyn(a) || IsDyn(b)) {
        ok = (IsDyn(a) || orderable(a.t)) && (IsDyn(b) || orderable(b.t));
      } else {
        ok = orderable(a.t) && (a.t == b.t || (IsNumeric(a.t) && IsNumeric(b.t)));
      }
      if (!ok) return NoOverload(n, fn, {a, b});
      return Simple(T::kBool);
    }
    if (op == "in") {
      if (b.t == T::kList) {
        if (!SameKind(a, ElemOf(b)) && !(IsNumeric(a.t) && IsNumeric(ElemOf(b).t))) return NoOverload(n, fn, {a, b});
      } else if (b.t == T::kMap) {
        if (!SameKind(a, KeyOf(b)) && !(IsNumeric(a.t) && IsNumeric(KeyOf(b).t))) return NoOverload(n, fn, {a, b});
      } else if (!IsDyn(b)) {
        return NoOverload(n, fn, {a, b});
      }
      return Simple(T::kBool);
    }
    // Arithmetic.
    auto allowed = [&](T t) {
      if (op == "+") return IsNumeric(t) || t == T::kString || t == T::kBytes || t == T::kList;
      if (op == "%") return t == T::kInt || t == T::kUint;
      return IsNumeric(t);
    };
    if (IsDyn(a) && IsDyn(b)) return Simple(T::kDyn);
    const SType& known = IsDyn(a) ? b : a;
    if (!allowed(known.t) || !SameKind(a, b)) return NoOverload(n, fn, {a, b});
    if (known.t == T::kList && !IsDyn(a) && !IsDyn(b)) {
      if (!SameKind(ElemOf(a), ElemOf(b))) return ListOfT(Simple(T::kDyn));
    }
    return known;
  }

  absl::StatusOr<SType> Call(Node& n) {
    // Namespaced functions: optional.of(x), sets.contains(a, b), ...
    if (n.member && n.kids[0]->kind == NK::kIdent && Lookup(n.kids[0]->name) == nullptr &&
        (n.kids[0]->name == "optional" || n.kids[0]->name == "sets" || n.kids[0]->name == "strings")) {
      n.name = n.kids[0]->name + "." + n.name;
      n.member = false;
      n.kids.erase(n.kids.begin());
    }
    std::vector<SType> types;
    for (NodePtr& kid : n.kids) {
      KUEUESIM_ASSIGN_OR_RETURN(SType t, Check(*kid));
      types.push_back(t);
    }
    bool known_name = false;
    const Overload* match = nullptr;
    for (const Overload& o : Overloads()) {
      if (n.name != o.name) continue;
      known_name = true;
      if (o.member != n.member) continue;
      size_t first_arg = n.member ? 1 : 0;
      if (types.size() - first_arg != o.args.size()) continue;
      if (n.member && !Matches(o.recv, types[0])) continue;
      bool ok = true;
      size_t k = first_arg;
      for (T param : o.args) ok = ok && Matches(param, types[k++]);
      if (ok) {
        match = &o;
        break;
      }
    }
    if (!known_name) return Err(n, fmt::format("undeclared reference to '{}' (in container '')", n.name));
    if (match == nullptr) {
      std::string list;
      for (size_t k = n.member ? 1 : 0; k < types.size(); ++k) list += (list.empty() ? "" : ", ") + TypeString(types[k]);
      std::string applied = n.member ? TypeString(types[0]) + ".(" + list + ")" : "(" + list + ")";
      return Err(n, fmt::format("found no matching overload for '{}' applied to '{}'", n.name, applied));
    }
    // A literal pattern is compiled once, and a bad one is a compile error
    // (cel.ValidateRegexLiterals).
    if (n.name == "matches" || n.name == "find" || n.name == "findAll") {
      const Node& pattern = *n.kids[1];
      if (pattern.kind == NK::kLiteral && pattern.literal.k == K::kString) {
        RE2::Options options;
        options.set_log_errors(false);
        auto re = std::make_shared<const RE2>(pattern.literal.s, options);
        if (!re->ok()) {
          return Err(pattern, fmt::format("invalid regular expression: error parsing regexp: {}", re->error()));
        }
        n.regex = std::move(re);
      }
    }
    if (match->result != T::kAny) {
      if (match->result == T::kList) return ListOfT(Simple(T::kString));
      return Simple(match->result);
    }
    const std::string& f = n.name;
    if (f == "optional.of" || f == "optional.ofNonZeroValue") return OptOfT(types[0]);
    if (f == "optional.none") return OptOfT(Simple(T::kDyn));
    if (f == "value") return ElemOf(types[0]);
    if (f == "orValue") return IsDyn(ElemOf(types[0])) ? types[1] : ElemOf(types[0]);
    if (f == "or") return types[0];
    if (f == "first" || f == "last") return OptOfT(ElemOf(types[0]));
    return ElemOf(types[0]);  // sum, min, max
  }

  absl::StatusOr<SType> MacroType(Node& n) {
    if (n.macro == Macro::kBind) {
      KUEUESIM_ASSIGN_OR_RETURN(SType init, Check(*n.kids[0]));
      scope_.emplace_back(n.var1, init);
      auto body = Check(*n.kids[1]);
      scope_.pop_back();
      return body;
    }
    KUEUESIM_ASSIGN_OR_RETURN(SType range, Check(*n.kids[0]));
    if (n.macro == Macro::kOptMap || n.macro == Macro::kOptFlatMap) {
      if (!IsDyn(range) && range.t != T::kOptional) {
        return Err(n, fmt::format("found no matching overload for '{}' applied to '{}'", n.name, TypeString(range)));
      }
      scope_.emplace_back(n.var1, ElemOf(range));
      auto body = Check(*n.kids[1]);
      scope_.pop_back();
      if (!body.ok()) return body.status();
      return n.macro == Macro::kOptMap ? OptOfT(*body) : *body;
    }
    SType v1, v2;
    if (range.t == T::kList) {
      v1 = n.var2.empty() ? ElemOf(range) : Simple(T::kInt);
      v2 = ElemOf(range);
    } else if (range.t == T::kMap || range.t == T::kDevice) {
      if (range.t == T::kDevice) {
        return Err(*n.kids[0], "expression of type 'kubernetes.DRADevice' cannot be range of a comprehension "
                               "(must be list, map, or dynamic)");
      }
      v1 = KeyOf(range);
      v2 = ElemOf(range);
    } else if (IsDyn(range)) {
      v1 = v2 = Simple(T::kDyn);
    } else {
      return Err(*n.kids[0], fmt::format("expression of type '{}' cannot be range of a comprehension (must be "
                                         "list, map, or dynamic)",
                                         TypeString(range)));
    }
    scope_.emplace_back(n.var1, v1);
    if (!n.var2.empty()) scope_.emplace_back(n.var2, v2);
    std::vector<SType> types;
    absl::Status status;
    for (size_t k = 1; k < n.kids.size() && status.ok(); ++k) {
      auto t = Check(*n.kids[k]);
      if (!t.ok()) {
        status = t.status();
      } else {
        types.push_back(*t);
      }
    }
    scope_.pop_back();
    if (!n.var2.empty()) scope_.pop_back();
    KUEUESIM_RETURN_IF_ERROR(status);
    bool predicate = n.macro == Macro::kAll || n.macro == Macro::kExists || n.macro == Macro::kExistsOne ||
                     n.macro == Macro::kFilter || n.has_filter;
    if (predicate && !IsDyn(types[0]) && types[0].t != T::kBool) {
      return Err(*n.kids[1], fmt::format("found no matching overload for '{}' applied to '({})'", n.name,
                                         TypeString(types[0])));
    }
    switch (n.macro) {
      case Macro::kMap:
      case Macro::kTransformList: return ListOfT(types.back());
      case Macro::kTransformMap: return MapOfT(range.t == T::kList ? Simple(T::kInt) : KeyOf(range), types.back());
      case Macro::kFilter: return range.t == T::kMap ? ListOfT(KeyOf(range)) : (IsDyn(range) ? ListOfT(Simple(T::kDyn)) : range);
      default: return Simple(T::kBool);
    }
  }

  const Lexer& lexer_;
  std::vector<std::pair<std::string, SType>> scope_;
};

// --- Evaluation ---

constexpr char kCostError[] = "operation cancelled: actual cost limit exceeded";

std::vector<char32_t> DecodeUtf8(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  for (size_t k = 0; k < s.size();) {
    auto c = static_cast<unsigned char>(s[k]);
    int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    char32_t cp = 0;
    bool ok = len > 0 && k + static_cast<size_t>(len) <= s.size();
    if (ok) {
      cp = len == 1 ? c : (c & (0x7F >> len));
      for (int j = 1; j < len && ok; ++j) {
        auto cc = static_cast<unsigned char>(s[k + static_cast<size_t>(j)]);
        if ((cc & 0xC0) != 0x80) ok = false;
        cp = (cp << 6) | (cc & 0x3F);
      }
    }
    if (!ok) {
      out.push_back(0xFFFD);
      ++k;
    } else {
      out.push_back(cp);
      k += static_cast<size_t>(len);
    }
  }
  return out;
}

std::string EncodeUtf8(const char32_t* begin, const char32_t* end) {
  std::string out;
  for (const char32_t* p = begin; p != end; ++p) AppendUtf8(static_cast<uint32_t>(*p), out);
  return out;
}

std::string EncodeUtf8(const std::vector<char32_t>& cps, size_t from, size_t to) {
  return EncodeUtf8(cps.data() + from, cps.data() + to);
}

int64_t CodePoints(std::string_view s) {
  int64_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

bool IsUnicodeSpace(char32_t c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// Go's strconv.FormatFloat(d, 'g', -1, 64), as CEL's string(double).
std::string FormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto sci = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string s(buf, sci.ptr);
  size_t e = s.find('e');
  int exp = std::atoi(s.c_str() + e + 1);
  if (exp < -4 || exp >= 6) {
    // Go writes at least two exponent digits, as to_chars does.
    return s;
  }
  auto fixed = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::fixed);
  return std::string(buf, fixed.ptr);
}

std::string GoQuoteString(std::string_view s) {
  std::string out = "\"";
  for (char32_t c : DecodeUtf8(s)) {
    switch (c) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
        } else {
          out += EncodeUtf8(&c, &c + 1);
        }
    }
  }
  return out + "\"";
}

bool IsZeroValue(const Value& v) {
  switch (v.k) {
    case K::kNull: return true;
    case K::kBool: return !v.b;
    case K::kInt: return v.i == 0;
    case K::kUint: return v.u == 0;
    case K::kDouble: return v.d == 0;
    case K::kString:
    case K::kBytes: return v.s.empty();
    case K::kList: return v.list->empty();
    case K::kMap: return v.map->entries.empty();
    default: return false;
  }
}

std::optional<int64_t> AsIndex(const Value& v) {
  if (v.k == K::kInt) return v.i;
  if (v.k == K::kUint && v.u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return static_cast<int64_t>(v.u);
  }
  if (v.k == K::kDouble && std::trunc(v.d) == v.d && std::abs(v.d) < 9.2e18) return static_cast<int64_t>(v.d);
  return std::nullopt;
}

class Evaluator {
 public:
  explicit Evaluator(Env& env) : env_(env) {}

  Value Eval(const Node& n) {
    if (!Charge(1)) return Value::Error(kCostError);
    switch (n.kind) {
      case NK::kLiteral: return n.literal;
      case NK::kIdent:
        if (n.resolved == Resolved::kDevice) return Value::MakeView(View::kDevice);
        if (n.resolved == Resolved::kType) return n.literal;
        for (size_t k = env_.vars.size(); k > 0; --k) {
          if (*env_.vars[k - 1].first == n.name) return env_.vars[k - 1].second;
        }
        return Value::Error("no such attribute: " + n.name);
      case NK::kSelect: {
        Value base = Eval(*n.kids[0]);
        if (base.is_error()) return base;
        return SelectField(base, n.name, n.optional);
      }
      case NK::kIndex: {
        Value base = Eval(*n.kids[0]);
        if (base.is_error()) return base;
        Value index = Eval(*n.kids[1]);
        if (index.is_error()) return index;
        return IndexValue(base, index, n.optional);
      }
      case NK::kCall: return Call(n);
      case NK::kList: {
        List items;
        for (size_t k = 0; k < n.kids.size(); ++k) {
          Value v = Eval(*n.kids[k]);
          if (v.is_error()) return v;
          if (n.optional_entries[k]) {
            if (v.k != K::kOptional) return NoSuchOverload();
            if (v.list->empty()) continue;
            Value inner = v.list->front();  // a copy first: v owns the list
            v = std::move(inner);
          }
          items.push_back(std::move(v));
        }
        return Value::ListOf(std::move(items));
      }
      case NK::kMap: {
        auto m = std::make_shared<MapData>();
        for (size_t k = 0; k + 1 < n.kids.size(); k += 2) {
          Value key = Eval(*n.kids[k]);
          if (key.is_error()) return key;
          Value value = Eval(*n.kids[k + 1]);
          if (value.is_error()) return value;
          if (key.k != K::kString && key.k != K::kInt && key.k != K::kUint && key.k != K::kBool) {
            return Value::Error("unsupported key type");
          }
          if (n.optional_entries[k / 2]) {
            if (value.k != K::kOptional) return NoSuchOverload();
            if (value.list->empty()) continue;
            Value inner = value.list->front();  // a copy first: value owns the list
            value = std::move(inner);
          }
          for (const auto& [existing, unused] : m->entries) {
            if (ValuesEqual(existing, key, env_)) return Value::Error("Failed with repeated key");
          }
          m->entries.emplace_back(std::move(key), std::move(value));
        }
        return Value::MapOf(std::move(m));
      }
      case NK::kNot: {
        Value v = Eval(*n.kids[0]);
        if (v.is_error()) return v;
        if (v.k != K::kBool) return NoSuchOverload();
        return Value::Bool(!v.b);
      }
      case NK::kNeg: {
        Value v = Eval(*n.kids[0]);
        if (v.is_error()) return v;
        if (v.k == K::kInt) {
          if (v.i == std::numeric_limits<int64_t>::min()) return Value::Error("integer overflow");
          return Value::Int(-v.i);
        }
        if (v.k == K::kDouble) return Value::Double(-v.d);
        return NoSuchOverload();
      }
      case NK::kBinary: {
        Value a = Eval(*n.kids[0]);
        if (a.is_error()) return a;
        Value b = Eval(*n.kids[1]);
        if (b.is_error()) return b;
        return BinaryOp(n.name, a, b);
      }
      case NK::kAnd:
      case NK::kOr: {
        // CEL's commutative logic: a deciding value wins over errors on
        // either side.
        const bool decider = n.kind == NK::kOr;
        std::optional<Value> error;
        for (const NodePtr& term : n.kids) {
          Value v = Eval(*term);
          if (env_.cost_exceeded) return Value::Error(kCostError);
          if (v.k == K::kBool) {
            if (v.b == decider) return v;
            continue;
          }
          if (!error.has_value()) error = v.is_error() ? v : NoSuchOverload();
        }
        if (error.has_value()) return *error;
        return Value::Bool(!decider);
      }
      case NK::kTernary: {
        Value c = Eval(*n.kids[0]);
        if (c.is_error()) return c;
        if (c.k != K::kBool) return NoSuchOverload();
        return Eval(*n.kids[c.b ? 1 : 2]);
      }
      case NK::kHas: {
        const Node& sel = *n.kids[0];
        Value base = Eval(*sel.kids[0]);
        if (base.is_error()) return base;
        if (base.k == K::kView && base.view == View::kDevice) return Value::Bool(true);
        // device.attributes and device.capacity find every domain (an empty
        // map for one the device lacks), so has() on them is true.
        if (base.k == K::kView && (base.view == View::kAttributes || base.view == View::kCapacity)) {
          return Value::Bool(true);
        }
        if (base.is_map()) return Value::Bool(MapFind(base, Value::String(sel.name), env_).has_value());
        return NoSuchOverload();
      }
      case NK::kMacro: return MacroValue(n);
    }
    return NoSuchOverload();
  }

 private:
  bool Charge(int64_t c) {
    env_.cost += c;
    if (env_.cost > kCostLimit) env_.cost_exceeded = true;
    return !env_.cost_exceeded;
  }

  Value SelectField(const Value& base, const std::string& name, bool optional) {
    if (base.k == K::kOptional) {
      if (base.list->empty()) return base;
      Value inner = SelectField(base.list->front(), name, optional);
      if (inner.is_error() || inner.k == K::kOptional) return inner;
      return Value::Some(std::move(inner));
    }
    if (base.k == K::kView && base.view == View::kDevice) {
      Value v;
      if (name == "driver") {
        v = Value::String(*env_.driver);
      } else if (name == "attributes") {
        v = Value::MakeView(View::kAttributes);
      } else if (name == "capacity") {
        v = Value::MakeView(View::kCapacity);
      } else if (name == "allowMultipleAllocations") {
        v = Value::Bool(env_.device->allow_multiple_allocations);
      } else {
        return Value::Error("no such key: " + name);
      }
      return optional ? Value::Some(std::move(v)) : v;
    }
    if (base.is_map()) {
      Value key = Value::String(name);
      std::optional<Value> found = MapFind(base, key, env_);
      if (optional) return found.has_value() ? Value::Some(std::move(*found)) : Value::None();
      return found.has_value() ? std::move(*found) : NoSuchKey(key);
    }
    return Value::Error(fmt::format("type '{}' does not support field selection", KindName(base)));
  }

  Value IndexValue(const Value& base, const Value& index, bool optional) {
    if (base.k == K::kOptional) {
      if (base.list->empty()) return base;
      Value inner = IndexValue(base.list->front(), index, optional);
      if (inner.is_error() || inner.k == K::kOptional) return inner;
      return Value::Some(std::move(inner));
    }
    if (base.k == K::kList) {
      std::optional<int64_t> k = AsIndex(index);
      if (!k.has_value()) {
        if (index.k == K::kDouble) return Value::Error(fmt::format("unsupported index value {}", FormatDouble(index.d)));
        return NoSuchOverload();
      }
      int64_t size = static_cast<int64_t>(base.list->size());
      if (*k < 0 || *k >= size) {
        if (optional) return Value::None();
        return Value::Error(fmt::format("index out of range: {}", *k));
      }
      const Value& v = (*base.list)[static_cast<size_t>(*k)];
      return optional ? Value::Some(v) : v;
    }
    if (base.is_map()) {
      std::optional<Value> found = MapFind(base, index, env_);
      if (optional) return found.has_value() ? Value::Some(std::move(*found)) : Value::None();
      return found.has_value() ? std::move(*found) : NoSuchKey(index);
    }
    return NoSuchOverload();
  }

  Value BinaryOp(const std::string& op, const Value& a, const Value& b) {
    if (op == "==") return Value::Bool(ValuesEqual(a, b, env_));
    if (op == "!=") return Value::Bool(!ValuesEqual(a, b, env_));
    if (op == "<" || op == "<=" || op == ">" || op == ">=") {
      std::optional<int> c = CompareOrdered(a, b);
      if (!c.has_value()) {
        if (a.is_number() && b.is_number()) return Value::Bool(false);  // NaN
        return NoSuchOverload();
      }
      if (op == "<") return Value::Bool(*c < 0);
      if (op == "<=") return Value::Bool(*c <= 0);
      if (op == ">") return Value::Bool(*c > 0);
      return Value::Bool(*c >= 0);
    }
    if (op == "in") {
      if (b.k == K::kList) {
        if (!Charge(static_cast<int64_t>(b.list->size()))) return Value::Error(kCostError);
        for (const Value& item : *b.list) {
          if (ValuesEqual(a, item, env_)) return Value::Bool(true);
        }
        return Value::Bool(false);
      }
      if (b.is_map()) return Value::Bool(MapFind(b, a, env_, /*presence_only=*/true).has_value());
      return NoSuchOverload();
    }
    if (a.k != b.k) return NoSuchOverload();
    switch (a.k) {
      case K::kInt: {
        int64_t r = 0;
        bool overflow = false;
        if (op == "+") {
          overflow = __builtin_add_overflow(a.i, b.i, &r);
        } else if (op == "-") {
          overflow = __builtin_sub_overflow(a.i, b.i, &r);
        } else if (op == "*") {
          overflow = __builtin_mul_overflow(a.i, b.i, &r);
        } else if (op == "/" || op == "%") {
          if (b.i == 0) return Value::Error(op == "/" ? "division by zero" : "modulus by zero");
          if (a.i == std::numeric_limits<int64_t>::min() && b.i == -1) return Value::Error("integer overflow");
          r = op == "/" ? a.i / b.i : a.i % b.i;
        }
        if (overflow) return Value::Error("integer overflow");
        return Value::Int(r);
      }
      case K::kUint: {
        uint64_t r = 0;
        bool overflow = false;
        if (op == "+") {
          overflow = __builtin_add_overflow(a.u, b.u, &r);
        } else if (op == "-") {
          overflow = __builtin_sub_overflow(a.u, b.u, &r);
        } else if (op == "*") {
          overflow = __builtin_mul_overflow(a.u, b.u, &r);
        } else if (op == "/" || op == "%") {
          if (b.u == 0) return Value::Error(op == "/" ? "division by zero" : "modulus by zero");
          r = op == "/" ? a.u / b.u : a.u % b.u;
        }
        if (overflow) return Value::Error("unsigned integer overflow");
        return Value::Uint(r);
      }
      case K::kDouble:
        if (op == "+") return Value::Double(a.d + b.d);
        if (op == "-") return Value::Double(a.d - b.d);
        if (op == "*") return Value::Double(a.d * b.d);
        if (op == "/") return Value::Double(a.d / b.d);
        return NoSuchOverload();
      case K::kString:
      case K::kBytes:
        if (op != "+") return NoSuchOverload();
        if (!Charge(static_cast<int64_t>((a.s.size() + b.s.size()) / 10))) return Value::Error(kCostError);
        return a.k == K::kString ? Value::String(a.s + b.s) : Value::Bytes(a.s + b.s);
      case K::kList: {
        if (op != "+") return NoSuchOverload();
        if (!Charge(static_cast<int64_t>(a.list->size() + b.list->size()))) return Value::Error(kCostError);
        List items = *a.list;
        items.insert(items.end(), b.list->begin(), b.list->end());
        return Value::ListOf(std::move(items));
      }
      default: return NoSuchOverload();
    }
  }

  // The (first, second) variables of each step of a comprehension: list
  // (element) or (index, element); map (key) or (key, value).
  std::optional<std::vector<std::pair<Value, Value>>> Items(const Value& range, bool two_vars) {
    std::vector<std::pair<Value, Value>> out;
    if (range.k == K::kList) {
      for (size_t k = 0; k < range.list->size(); ++k) {
        const Value& item = (*range.list)[k];
        out.emplace_back(two_vars ? Value::Int(static_cast<int64_t>(k)) : item, item);
      }
      return out;
    }
    if (range.is_map()) return MapEntries(range, env_);
    return std::nullopt;
  }

  Value MacroValue(const Node& n) {
    if (n.macro == Macro::kBind) {
      Value init = Eval(*n.kids[0]);
      env_.vars.emplace_back(&n.var1, std::move(init));
      Value body = Eval(*n.kids[1]);
      env_.vars.pop_back();
      return body;
    }
    Value range = Eval(*n.kids[0]);
    if (range.is_error()) return range;
    if (n.macro == Macro::kOptMap || n.macro == Macro::kOptFlatMap) {
      if (range.k != K::kOptional) return NoSuchOverload();
      if (range.list->empty()) return range;
      env_.vars.emplace_back(&n.var1, range.list->front());
      Value body = Eval(*n.kids[1]);
      env_.vars.pop_back();
      if (body.is_error() || n.macro == Macro::kOptFlatMap) {
        if (!body.is_error() && body.k != K::kOptional) return NoSuchOverload();
        return body;
      }
      return Value::Some(std::move(body));
    }
    const bool two = !n.var2.empty();
    auto items = Items(range, two);
    if (!items.has_value()) return NoSuchOverload();
    const bool is_map = range.is_map();
    std::optional<Value> error;
    int64_t count = 0;
    List out;
    auto out_map = std::make_shared<MapData>();
    for (auto& [first, second] : *items) {
      if (!Charge(1)) return Value::Error(kCostError);
      env_.vars.emplace_back(&n.var1, first);
      if (two) env_.vars.emplace_back(&n.var2, second);
      auto pop = [&] {
        env_.vars.pop_back();
        if (two) env_.vars.pop_back();
      };
      switch (n.macro) {
        case Macro::kAll:
        case Macro::kExists: {
          const bool decider = n.macro == Macro::kExists;
          Value p = Eval(*n.kids[1]);
          pop();
          if (env_.cost_exceeded) return Value::Error(kCostError);
          if (p.k == K::kBool) {
            if (p.b == decider) return p;
          } else if (!error.has_value()) {
            error = p.is_error() ? p : NoSuchOverload();
          }
          continue;
        }
        case Macro::kExistsOne: {
          Value p = Eval(*n.kids[1]);
          pop();
          if (p.is_error()) return p;
          if (p.k != K::kBool) return NoSuchOverload();
          if (p.b) ++count;
          continue;
        }
        case Macro::kFilter: {
          Value p = Eval(*n.kids[1]);
          pop();
          if (p.is_error()) return p;
          if (p.k != K::kBool) return NoSuchOverload();
          if (p.b) out.push_back(is_map || two ? first : second);
          continue;
        }
        case Macro::kMap:
        case Macro::kTransformList:
        case Macro::kTransformMap: {
          if (n.has_filter) {
            Value p = Eval(*n.kids[1]);
            if (p.is_error() || p.k != K::kBool) {
              pop();
              return p.is_error() ? p : NoSuchOverload();
            }
            if (!p.b) {
              pop();
              continue;
            }
          }
          Value f = Eval(*n.kids.back());
          pop();
          if (f.is_error()) return f;
          if (n.macro == Macro::kTransformMap) {
            out_map->entries.emplace_back(first, std::move(f));
          } else {
            out.push_back(std::move(f));
          }
          continue;
        }
        default: pop(); return NoSuchOverload();
      }
    }
    switch (n.macro) {
      case Macro::kAll:
      case Macro::kExists:
        if (error.has_value()) return *error;
        return Value::Bool(n.macro == Macro::kAll);
      case Macro::kExistsOne: return Value::Bool(count == 1);
      case Macro::kTransformMap: return Value::MapOf(std::move(out_map));
      default: return Value::ListOf(std::move(out));
    }
  }

  Value Call(const Node& n);

  Env& env_;
};

Value ParseIntValue(const std::string& s, bool is_unsigned) {
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  if (is_unsigned) {
    uint64_t u = 0;
    auto [ptr, ec] = std::from_chars(begin, end, u);
    if (ec != std::errc() || ptr != end || s.empty()) return Value::Error("type conversion error from 'string' to 'uint'");
    return Value::Uint(u);
  }
  if (!s.empty() && s[0] == '+') ++begin;
  int64_t i = 0;
  auto [ptr, ec] = std::from_chars(begin, end, i);
  if (ec != std::errc() || ptr != end || s.empty()) return Value::Error("type conversion error from 'string' to 'int'");
  return Value::Int(i);
}

Value Evaluator::Call(const Node& n) {
  std::vector<Value> args;
  args.reserve(n.kids.size());
  for (const NodePtr& kid : n.kids) {
    Value v = Eval(*kid);
    if (v.is_error()) return v;
    args.push_back(std::move(v));
  }
  const std::string& f = n.name;
  const size_t argc = args.size();
  auto arg = [&](size_t k) -> const Value& { return args[k]; };
  auto is = [&](size_t k, K kind) { return k < argc && args[k].k == kind; };
  auto charge_len = [&](size_t bytes) { return Charge(static_cast<int64_t>(bytes / 10)); };

  // size
  if (f == "size" && argc == 1) {
    const Value& x = arg(0);
    if (x.k == K::kString) return Value::Int(CodePoints(x.s));
    if (x.k == K::kBytes) return Value::Int(static_cast<int64_t>(x.s.size()));
    if (x.k == K::kList) return Value::Int(static_cast<int64_t>(x.list->size()));
    if (x.is_map()) return Value::Int(static_cast<int64_t>(MapEntries(x, env_).size()));
    return NoSuchOverload();
  }
  // Type conversions.
  if (f == "int" && argc == 1) {
    const Value& x = arg(0);
    if (x.k == K::kInt) return x;
    if (x.k == K::kUint) {
      if (x.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return Value::Error("integer overflow");
      return Value::Int(static_cast<int64_t>(x.u));
    }
    if (x.k == K::kDouble) {
      if (!(x.d > -9223372036854775808.0 && x.d < 9223372036854775808.0)) return Value::Error("integer overflow");
      return Value::Int(static_cast<int64_t>(x.d));
    }
    if (x.k == K::kString) return ParseIntValue(x.s, false);
    return NoSuchOverload();
  }
  if (f == "uint" && argc == 1) {
    const Value& x = arg(0);
    if (x.k == K::kUint) return x;
    if (x.k == K::kInt) {
      if (x.i < 0) return Value::Error("unsigned integer overflow");
      return Value::Uint(static_cast<uint64_t>(x.i));
    }
    if (x.k == K::kDouble) {
      if (!(x.d > -1.0 && x.d < 18446744073709551616.0)) return Value::Error("unsigned integer overflow");
      return Value::Uint(static_cast<uint64_t>(x.d));
    }
    if (x.k == K::kString) return ParseIntValue(x.s, true);
    return NoSuchOverload();
  }
  if (f == "double" && argc == 1) {
    const Value& x = arg(0);
    if (x.k == K::kDouble) return x;
    if (x.k == K::kInt) return Value::Double(static_cast<double>(x.i));
    if (x.k == K::kUint) return Value::Double(static_cast<double>(x.u));
    if (x.k == K::kString) {
      double d = 0;
      const char* begin = x.s.data();
      const char* end = begin + x.s.size();
      if (x.s == "NaN") return Value::Double(std::nan(""));
      if (x.s == "Inf" || x.s == "+Inf" || x.s == "inf" || x.s == "+inf" || x.s == "Infinity") {
        return Value::Double(std::numeric_limits<double>::infinity());
      }
      if (x.s == "-Inf" || x.s == "-inf" || x.s == "-Infinity") {
        return Value::Double(-std::numeric_limits<double>::infinity());
      }
      if (begin != end && *begin == '+') ++begin;
      auto [ptr, ec] = std::from_chars(begin, end, d);
      if ((ec != std::errc() && ec != std::errc::result_out_of_range) || ptr != end || x.s.empty()) {
        return Value::Error("type conversion error from 'string' to 'double'");
      }
      return Value::Double(d);
    }
    return NoSuchOverload();
  }
  if (f == "string" && argc == 1) {
    const Value& x = arg(0);
    switch (x.k) {
      case K::kString: return x;
      case K::kInt: return Value::String(std::to_string(x.i));
      case K::kUint: return Value::String(std::to_string(x.u));
      case K::kDouble: return Value::String(FormatDouble(x.d));
      case K::kBool: return Value::String(x.b ? "true" : "false");
      case K::kBytes: {
        std::vector<char32_t> cps = DecodeUtf8(x.s);
        if (EncodeUtf8(cps, 0, cps.size()) != x.s) return Value::Error("invalid UTF-8 in bytes, cannot convert to string");
        return Value::String(x.s);
      }
      default: return NoSuchOverload();
    }
  }
  if (f == "bool" && argc == 1) {
    const Value& x = arg(0);
    if (x.k == K::kBool) return x;
    if (x.k == K::kString) {
      static const std::pair<const char*, bool> kBools[] = {{"1", true},     {"t", true},      {"T", true},
                                                            {"TRUE", true},  {"true", true},   {"True", true},
                                                            {"0", false},    {"f", false},     {"F", false},
                                                            {"FALSE", false}, {"false", false}, {"False", false}};
      for (const auto& [text, value] : kBools) {
        if (x.s == text) return Value::Bool(value);
      }
      return Value::Error("type conversion error from 'string' to 'bool'");
    }
    return NoSuchOverload();
  }
  if (f == "bytes" && argc == 1) {
    if (is(0, K::kBytes)) return arg(0);
    if (is(0, K::kString)) return Value::Bytes(arg(0).s);
    return NoSuchOverload();
  }
  if (f == "dyn" && argc == 1) return arg(0);
  if (f == "type" && argc == 1) {
    const Value& x = arg(0);
    if (x.k == K::kView) return Value::Type(KindName(x));
    return Value::Type(x.k == K::kOptional ? "optional_type" : KindName(x));
  }
  // Strings.
  if (is(0, K::kString) && argc == 2 && is(1, K::kString) &&
      (f == "contains" || f == "startsWith" || f == "endsWith")) {
    const std::string& s = arg(0).s;
    const std::string& t = arg(1).s;
    if (!charge_len(s.size())) return Value::Error(kCostError);
    if (f == "contains") return Value::Bool(s.find(t) != std::string::npos);
    if (f == "startsWith") return Value::Bool(s.compare(0, t.size(), t) == 0);
    return Value::Bool(s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0);
  }
  if ((f == "matches" || f == "find" || f == "findAll") && is(0, K::kString) && is(1, K::kString)) {
    std::shared_ptr<const RE2> re = n.regex;
    if (re == nullptr) {
      RE2::Options options;
      options.set_log_errors(false);
      re = std::make_shared<const RE2>(arg(1).s, options);
      if (!re->ok()) return Value::Error("error parsing regexp: " + re->error());
    }
    const std::string& s = arg(0).s;
    if (!charge_len(s.size() * 10)) return Value::Error(kCostError);
    if (f == "matches") return Value::Bool(RE2::PartialMatch(s, *re));
    re2::StringPiece text(s);
    re2::StringPiece match;
    if (f == "find") {
      if (!re->Match(text, 0, text.size(), RE2::UNANCHORED, &match, 1)) return Value::String("");
      return Value::String(std::string(match.data(), match.size()));
    }
    int64_t limit = argc == 3 && is(2, K::kInt) ? arg(2).i : -1;
    List out;
    size_t pos = 0;
    std::optional<size_t> prev_end;
    while (pos <= s.size() && (limit < 0 || static_cast<int64_t>(out.size()) < limit)) {
      if (!re->Match(text, pos, text.size(), RE2::UNANCHORED, &match, 1)) break;
      size_t start = static_cast<size_t>(match.data() - s.data());
      size_t end = start + match.size();
      bool accept = !(match.empty() && prev_end.has_value() && start == *prev_end);
      if (accept) out.push_back(Value::String(std::string(match.data(), match.size())));
      prev_end = end;
      if (end > start) {
        pos = end;
      } else {
        // Past one code point.
        size_t next = end + 1;
        while (next < s.size() && (static_cast<unsigned char>(s[next]) & 0xC0) == 0x80) ++next;
        pos = next;
      }
      if (!Charge(1)) return Value::Error(kCostError);
    }
    return Value::ListOf(std::move(out));
  }
  if (is(0, K::kString)) {
    const std::string& s = arg(0).s;
    if (!charge_len(s.size())) return Value::Error(kCostError);
    if (f == "lowerAscii" || f == "upperAscii") {
      std::string out = s;
      for (char& c : out) {
        if (f == "lowerAscii" && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (f == "upperAscii" && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      }
      return Value::String(std::move(out));
    }
    if (f == "trim") {
      std::vector<char32_t> cps = DecodeUtf8(s);
      size_t b = 0, e = cps.size();
      while (b < e && IsUnicodeSpace(cps[b])) ++b;
      while (e > b && IsUnicodeSpace(cps[e - 1])) --e;
      return Value::String(EncodeUtf8(cps, b, e));
    }
    if (f == "charAt" && is(1, K::kInt)) {
      std::vector<char32_t> cps = DecodeUtf8(s);
      int64_t i = arg(1).i;
      if (i < 0 || i > static_cast<int64_t>(cps.size())) return Value::Error(fmt::format("index out of range: {}", i));
      if (i == static_cast<int64_t>(cps.size())) return Value::String("");
      return Value::String(EncodeUtf8(cps, static_cast<size_t>(i), static_cast<size_t>(i) + 1));
    }
    if ((f == "indexOf" || f == "lastIndexOf") && is(1, K::kString)) {
      std::vector<char32_t> cps = DecodeUtf8(s);
      std::vector<char32_t> sub = DecodeUtf8(arg(1).s);
      const int64_t len = static_cast<int64_t>(cps.size());
      const int64_t sub_len = static_cast<int64_t>(sub.size());
      auto at = [&](int64_t k) {
        return std::equal(sub.begin(), sub.end(), cps.begin() + k);
      };
      if (f == "indexOf") {
        int64_t offset = argc == 3 && is(2, K::kInt) ? arg(2).i : 0;
        if (offset < 0 || offset > len) return Value::Error(fmt::format("index out of range: {}", offset));
        if (sub_len == 0) return Value::Int(offset);
        for (int64_t k = offset; k + sub_len <= len; ++k) {
          if (at(k)) return Value::Int(k);
        }
        return Value::Int(-1);
      }
      int64_t offset = len - 1;
      if (argc == 3 && is(2, K::kInt)) {
        offset = arg(2).i;
        if (offset < 0 || offset >= len) return Value::Error(fmt::format("index out of range: {}", offset));
      }
      if (sub_len == 0) return Value::Int(argc == 3 ? offset : len);
      for (int64_t k = std::min(offset, len - sub_len); k >= 0; --k) {
        if (at(k)) return Value::Int(k);
      }
      return Value::Int(-1);
    }
    if (f == "substring" && is(1, K::kInt)) {
      std::vector<char32_t> cps = DecodeUtf8(s);
      const int64_t len = static_cast<int64_t>(cps.size());
      int64_t start = arg(1).i;
      int64_t end = argc == 3 && is(2, K::kInt) ? arg(2).i : len;
      if (start < 0 || start > len) return Value::Error(fmt::format("index out of range: {}", start));
      if (end < 0 || end > len) return Value::Error(fmt::format("index out of range: {}", end));
      if (start > end) return Value::Error(fmt::format("invalid substring range. start: {}, end: {}", start, end));
      return Value::String(EncodeUtf8(cps, static_cast<size_t>(start), static_cast<size_t>(end)));
    }
    if (f == "replace" && is(1, K::kString) && is(2, K::kString)) {
      const std::string& from = arg(1).s;
      const std::string& to = arg(2).s;
      int64_t limit = argc == 4 && is(3, K::kInt) ? arg(3).i : -1;
      std::string out;
      int64_t done = 0;
      if (from.empty()) {
        // Go's strings.Replace: `to` before each code point and at the end.
        std::vector<char32_t> cps = DecodeUtf8(s);
        for (size_t k = 0; k <= cps.size(); ++k) {
          if (limit < 0 || done < limit) {
            out += to;
            ++done;
          }
          if (k < cps.size()) out += EncodeUtf8(cps, k, k + 1);
        }
      } else {
        size_t pos = 0;
        while (limit < 0 || done < limit) {
          size_t hit = s.find(from, pos);
          if (hit == std::string::npos) break;
          out.append(s, pos, hit - pos);
          out += to;
          pos = hit + from.size();
          ++done;
        }
        out.append(s, pos, std::string::npos);
      }
      if (!charge_len(out.size())) return Value::Error(kCostError);
      return Value::String(std::move(out));
    }
    if (f == "split" && is(1, K::kString)) {
      const std::string& sep = arg(1).s;
      int64_t limit = argc == 3 && is(2, K::kInt) ? arg(2).i : -1;
      List out;
      if (limit == 0) return Value::ListOf(std::move(out));
      if (sep.empty()) {
        std::vector<char32_t> cps = DecodeUtf8(s);
        for (size_t k = 0; k < cps.size(); ++k) {
          if (limit > 0 && static_cast<int64_t>(out.size()) == limit - 1) {
            out.push_back(Value::String(EncodeUtf8(cps, k, cps.size())));
            break;
          }
          out.push_back(Value::String(EncodeUtf8(cps, k, k + 1)));
        }
        return Value::ListOf(std::move(out));
      }
      size_t pos = 0;
      for (;;) {
        if (limit > 0 && static_cast<int64_t>(out.size()) == limit - 1) break;
        size_t hit = s.find(sep, pos);
        if (hit == std::string::npos) break;
        out.push_back(Value::String(s.substr(pos, hit - pos)));
        pos = hit + sep.size();
      }
      out.push_back(Value::String(s.substr(pos)));
      return Value::ListOf(std::move(out));
    }
  }
  if (f == "strings.quote" && is(0, K::kString)) return Value::String(GoQuoteString(arg(0).s));
  // Lists.
  if (is(0, K::kList)) {
    const List& l = *arg(0).list;
    if (!Charge(static_cast<int64_t>(l.size()))) return Value::Error(kCostError);
    if (f == "join") {
      std::string sep = argc == 2 && is(1, K::kString) ? arg(1).s : "";
      std::string out;
      for (size_t k = 0; k < l.size(); ++k) {
        if (l[k].k != K::kString) return NoSuchOverload();
        if (k > 0) out += sep;
        out += l[k].s;
      }
      return Value::String(std::move(out));
    }
    if (f == "isSorted") {
      for (size_t k = 1; k < l.size(); ++k) {
        std::optional<int> c = CompareOrdered(l[k - 1], l[k]);
        if (!c.has_value()) return NoSuchOverload();
        if (*c > 0) return Value::Bool(false);
      }
      return Value::Bool(true);
    }
    if (f == "min" || f == "max") {
      if (l.empty()) return Value::Error(f + " called on empty list");
      Value best = l[0];
      for (size_t k = 1; k < l.size(); ++k) {
        std::optional<int> c = CompareOrdered(l[k], best);
        if (!c.has_value()) return NoSuchOverload();
        if ((f == "min" && *c < 0) || (f == "max" && *c > 0)) best = l[k];
      }
      return best;
    }
    if (f == "sum") {
      if (l.empty()) return Value::Int(0);
      Value total = l[0];
      if (!total.is_number()) return NoSuchOverload();
      for (size_t k = 1; k < l.size(); ++k) {
        total = BinaryOp("+", total, l[k]);
        if (total.is_error()) return total;
      }
      return total;
    }
    if ((f == "indexOf" || f == "lastIndexOf") && argc == 2) {
      if (f == "indexOf") {
        for (size_t k = 0; k < l.size(); ++k) {
          if (ValuesEqual(l[k], arg(1), env_)) return Value::Int(static_cast<int64_t>(k));
        }
      } else {
        for (size_t k = l.size(); k > 0; --k) {
          if (ValuesEqual(l[k - 1], arg(1), env_)) return Value::Int(static_cast<int64_t>(k - 1));
        }
      }
      return Value::Int(-1);
    }
    if (f == "first") return l.empty() ? Value::None() : Value::Some(l.front());
    if (f == "last") return l.empty() ? Value::None() : Value::Some(l.back());
  }
  if ((f == "sets.contains" || f == "sets.equivalent" || f == "sets.intersects") && is(0, K::kList) &&
      is(1, K::kList)) {
    const List& a = *arg(0).list;
    const List& b = *arg(1).list;
    if (!Charge(static_cast<int64_t>(a.size() * b.size()))) return Value::Error(kCostError);
    auto contains_all = [&](const List& x, const List& y) {
      for (const Value& v : y) {
        bool found = false;
        for (const Value& w : x) found = found || ValuesEqual(v, w, env_);
        if (!found) return false;
      }
      return true;
    };
    if (f == "sets.contains") return Value::Bool(contains_all(a, b));
    if (f == "sets.equivalent") return Value::Bool(contains_all(a, b) && contains_all(b, a));
    for (const Value& v : a) {
      for (const Value& w : b) {
        if (ValuesEqual(v, w, env_)) return Value::Bool(true);
      }
    }
    return Value::Bool(false);
  }
  // Optional values.
  if (f == "optional.of" && argc == 1) return Value::Some(arg(0));
  if (f == "optional.ofNonZeroValue" && argc == 1) return IsZeroValue(arg(0)) ? Value::None() : Value::Some(arg(0));
  if (f == "optional.none" && argc == 0) return Value::None();
  if (is(0, K::kOptional)) {
    const List& inner = *arg(0).list;
    if (f == "hasValue") return Value::Bool(!inner.empty());
    if (f == "value") return inner.empty() ? Value::Error("optional.none() dereference") : inner.front();
    if (f == "orValue" && argc == 2) return inner.empty() ? arg(1) : inner.front();
    if (f == "or" && argc == 2) {
      if (!is(1, K::kOptional)) return NoSuchOverload();
      return inner.empty() ? arg(1) : arg(0);
    }
  }
  // Quantities.
  if (f == "quantity" || f == "isQuantity") {
    if (!is(0, K::kString)) return NoSuchOverload();
    auto q = ParseQuantity(arg(0).s);
    if (f == "isQuantity") return Value::Bool(q.ok());
    if (!q.ok()) {
      // resource.ParseQuantity's errors: the overall shape, the number, the
      // suffix.
      static const RE2 kShape("^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$");
      std::string number;
      if (!RE2::FullMatch(arg(0).s, kShape, &number)) {
        return Value::Error(
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
      }
      if (std::count(number.begin(), number.end(), '.') > 1 || number.find_first_of("0123456789") == std::string::npos) {
        return Value::Error("unable to parse numeric part of quantity");
      }
      return Value::Error("unable to parse quantity's suffix");
    }
    return Value::Quant(*std::move(q));
  }
  if (f == "sign" && is(0, K::kQuantity)) return Value::Int(QuantitySign(*arg(0).q));
  if (is(0, K::kQuantity)) {
    const Quantity& q = *arg(0).q;
    if (f == "isInteger") return Value::Bool(QuantityAsInt64(q).has_value());
    if (f == "asInteger") {
      std::optional<int64_t> v = QuantityAsInt64(q);
      if (!v.has_value()) return Value::Error("cannot convert value to integer");
      return Value::Int(*v);
    }
    if (f == "asApproximateFloat") return Value::Double(QuantityAsDouble(q));
    if ((f == "add" || f == "sub") && argc == 2) {
      Quantity other;
      if (is(1, K::kQuantity)) {
        other = *arg(1).q;
      } else if (is(1, K::kInt)) {
        other = QuantityFromInt(arg(1).i);
      } else {
        return NoSuchOverload();
      }
      return Value::Quant(AddQuantities(q, other, f == "sub"));
    }
    if (f == "mul" && is(1, K::kInt)) {
      ExactQuantity x = ToExact(q);
      Quantity factor = QuantityFromInt(arg(1).i);
      if (factor.IsZero() || x.n.IsZero()) return Value::Quant(Quantity());
      ExactQuantity out;
      out.negative = x.negative != factor.negative;
      out.e = x.e + factor.exponent10;
      // n * m, m the factor's digits (at most 19): by its decimal digits.
      for (char c : factor.mantissa) {
        BigNat shifted = out.n;
        shifted.MulSmall(10);
        out.n = shifted;
        BigNat term = x.n;
        term.MulSmall(static_cast<uint32_t>(c - '0'));
        out.n.Add(term);
      }
      return Value::Quant(FromExact(out));
    }
    if ((f == "isGreaterThan" || f == "isLessThan" || f == "compareTo") && is(1, K::kQuantity)) {
      int c = CompareQuantities(q, *arg(1).q);
      if (f == "compareTo") return Value::Int(c);
      return Value::Bool(f == "isGreaterThan" ? c > 0 : c < 0);
    }
    return NoSuchOverload();
  }
  // Semantic versions.
  if (f == "semver" || f == "isSemver") {
    if (!is(0, K::kString) || (argc == 2 && !is(1, K::kBool))) return NoSuchOverload();
    bool normalize = argc == 2 && arg(1).b;
    std::optional<Semver> v = normalize ? ParseSemverTolerant(arg(0).s) : ParseSemver(arg(0).s);
    if (f == "isSemver") return Value::Bool(v.has_value());
    if (!v.has_value()) return Value::Error(fmt::format("invalid semantic version \"{}\"", arg(0).s));
    return Value::Version(*v);
  }
  if (is(0, K::kSemver)) {
    const Semver& v = *arg(0).v;
    auto as_int = [](uint64_t x) {
      return x > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? Value::Error("integer overflow")
                                                                            : Value::Int(static_cast<int64_t>(x));
    };
    if (f == "major") return as_int(v.major);
    if (f == "minor") return as_int(v.minor);
    if (f == "patch") return as_int(v.patch);
    if ((f == "isGreaterThan" || f == "isLessThan" || f == "compareTo") && is(1, K::kSemver)) {
      int c = CompareSemver(v, *arg(1).v);
      if (f == "compareTo") return Value::Int(c);
      return Value::Bool(f == "isGreaterThan" ? c > 0 : c < 0);
    }
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
  NodePtr root;
};

absl::StatusOr<CelExpression> CelExpression::Compile(std::string_view text) {
  Lexer lexer(text);
  auto tokens = lexer.Run();
  if (!tokens.ok()) return InvalidArgument("compilation failed: " + StatusMessage(tokens.status()));
  Parser parser(*std::move(tokens), lexer);
  auto root = parser.Run();
  if (!root.ok()) return InvalidArgument("compilation failed: " + StatusMessage(root.status()));
  Checker checker(lexer);
  auto type = checker.Check(**root);
  if (!type.ok()) return InvalidArgument("compilation failed: " + StatusMessage(type.status()));
  if (!IsDyn(*type) && type->t != T::kBool) {
    return InvalidArgument(fmt::format("must evaluate to bool or the unknown type, not {}", TypeString(*type)));
  }
  auto impl = std::make_unique<Impl>();
  impl->text = std::string(text);
  impl->root = *std::move(root);
  return CelExpression(std::move(impl));
}

CelExpression::CelExpression(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CelExpression::CelExpression(CelExpression&&) noexcept = default;
CelExpression& CelExpression::operator=(CelExpression&&) noexcept = default;
CelExpression::~CelExpression() = default;

CelResult CelExpression::Evaluate(const std::string& driver, const model::Device& device) const {
  CelResult result;
  // As DeviceMatches: every attribute must convert, a version must parse.
  for (const auto& [name, attr] : device.attributes) {
    if (!attr.is_list && attr.type == model::DeviceAttribute::Type::kVersion &&
        !ParseSemver(attr.string_value).has_value()) {
      result.outcome = CelResult::Outcome::kError;
      result.error = fmt::format("attribute {}: parse semantic version: invalid version \"{}\"", name, attr.string_value);
      return result;
    }
  }
  Env env;
  env.driver = &driver;
  env.device = &device;
  Evaluator evaluator(env);
  Value v = evaluator.Eval(*impl_->root);
  if (env.cost_exceeded) {
    result.outcome = CelResult::Outcome::kError;
    result.error = kCostError;
    return result;
  }
  if (v.is_error()) {
    result.outcome = CelResult::Outcome::kError;
    result.error = v.s;
    return result;
  }
  if (v.k != K::kBool) {
    result.outcome = CelResult::Outcome::kError;
    result.error = fmt::format("CEL result of type {} could not be converted to bool", KindName(v));
    return result;
  }
  result.outcome = v.b ? CelResult::Outcome::kTrue : CelResult::Outcome::kFalse;
  return result;
}

bool CelExpression::Matches(const std::string& driver, const model::Device& device) const {
  return Evaluate(driver, device).outcome == CelResult::Outcome::kTrue;
}

const std::string& CelExpression::text() const { return impl_->text; }

}  // namespace kueuesim::dra
