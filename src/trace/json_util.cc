// JSON helpers for the trace formats; see json_util.h.
#include "trace/json_util.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "kueuesim/doc/reader.h"

namespace kueuesim::trace::internal {

JsonRow ReadJsonRow(std::string_view text, const std::string& name) {
  JsonRow row;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (text[first] != '{' && text[first] != '[')) {
    // A scalar is valid JSON, but not an object: read it as an array's element.
    std::string as_element;
    as_element.reserve(text.size() + 2);
    as_element.append("[").append(text).append("]");
    const bool scalar = first != std::string_view::npos && doc::ReadJsonText(as_element, name).ok();
    row.skip_reason = scalar ? "not a JSON object" : "malformed JSON";
    return row;
  }
  auto document = doc::ReadJsonText(text, name);
  if (!document.ok()) {
    row.skip_reason = "malformed JSON";
  } else if (!document->root().IsMapping()) {
    row.skip_reason = "not a JSON object";
  } else {
    row.document = *std::move(document);
  }
  return row;
}

bool IsJsonString(const doc::Node& value) {
  return value.IsScalar() && value.style() == doc::ScalarStyle::kQuoted;
}

bool IsJsonBoolean(const doc::Node& value) {
  return value.IsScalar() && value.style() == doc::ScalarStyle::kPlain &&
         (value.scalar() == "true" || value.scalar() == "false");
}

bool IsJsonNull(const doc::Node& value) {
  return !value.valid() ||
         (value.IsScalar() && value.style() == doc::ScalarStyle::kPlain && value.scalar() == "null");
}

namespace {

// A plain scalar of a JSON text is a number unless it is a literal.
bool IsJsonNumber(const doc::Node& value) {
  return value.IsScalar() && value.style() == doc::ScalarStyle::kPlain && !IsJsonBoolean(value) &&
         !IsJsonNull(value);
}

bool IsIntegerLiteral(std::string_view text) {
  return text.find_first_of(".eE") == std::string_view::npos;
}

}  // namespace

std::optional<int64_t> JsonInteger(const doc::Node& value) {
  if (!IsJsonNumber(value) || !IsIntegerLiteral(value.scalar())) return std::nullopt;
  const std::string_view text = value.scalar();
  int64_t parsed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return parsed;
}

std::optional<std::string> JsonScalarText(const doc::Node& value) {
  if (IsJsonString(value)) return std::string(value.scalar());
  if (IsJsonBoolean(value)) return std::string(value.scalar());
  if (!IsJsonNumber(value)) return std::nullopt;
  const std::string_view text = value.scalar();
  const char* const begin = text.data();
  const char* const end = text.data() + text.size();
  if (IsIntegerLiteral(text)) {
    // As nlohmann: within int64 signed, above it unsigned, beyond a double.
    int64_t integer = 0;
    if (const auto r = std::from_chars(begin, end, integer); r.ec == std::errc() && r.ptr == end) {
      return std::to_string(integer);
    }
    uint64_t unsigned_integer = 0;
    if (const auto r = std::from_chars(begin, end, unsigned_integer); r.ec == std::errc() && r.ptr == end) {
      return std::to_string(unsigned_integer);
    }
  }
  double number = 0;
  const auto r = std::from_chars(begin, end, number);
  if (r.ptr != end || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)) return std::nullopt;
  return fmt::format("{}", number);
}

std::optional<std::string> FirstUnknownKey(const doc::Node& object, const std::set<std::string, std::less<>>& known,
                                           const std::set<std::string, std::less<>>* also_known) {
  std::optional<std::string> first;
  for (size_t i = 0; i < object.size(); ++i) {
    const std::string_view key = object.key(i);
    if (known.count(key) != 0 || (also_known != nullptr && also_known->count(key) != 0)) continue;
    if (!first.has_value() || key < *first) first = std::string(key);
  }
  return first;
}

namespace {

// Where a record field is looked up: "labels.<key>" in the labels,
// "annotations.<key>" in the annotations, anything else in the object.
enum class FieldSource { kObject, kLabels, kAnnotations };
struct FieldPath {
  FieldSource source;
  std::string_view key;
};

FieldPath SplitFieldPath(std::string_view field) {
  constexpr std::string_view kLabels = "labels.";
  constexpr std::string_view kAnnotations = "annotations.";
  if (field.substr(0, kLabels.size()) == kLabels) return {FieldSource::kLabels, field.substr(kLabels.size())};
  if (field.substr(0, kAnnotations.size()) == kAnnotations) {
    return {FieldSource::kAnnotations, field.substr(kAnnotations.size())};
  }
  return {FieldSource::kObject, field};
}

}  // namespace

std::optional<std::string_view> NodeFields::Get(std::string_view field) const {
  const FieldPath path = SplitFieldPath(field);
  const doc::Node& from = path.source == FieldSource::kLabels        ? labels_
                          : path.source == FieldSource::kAnnotations ? annotations_
                                                                     : object_;
  const doc::Node value = from.Get(path.key);
  if (!value.valid()) return std::nullopt;
  if (IsJsonString(value)) return value.scalar();
  auto text = JsonScalarText(value);
  if (!text.has_value()) return std::nullopt;
  scratch_ = std::move(*text);
  return std::string_view(scratch_);
}

std::optional<std::string> JsonScalarText(const nlohmann::json& value) {
  if (value.is_string()) return value.get_ref<const std::string&>();
  if (value.is_number_unsigned()) return std::to_string(value.get<uint64_t>());
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  if (value.is_number_float()) return fmt::format("{}", value.get<double>());
  if (value.is_boolean()) return std::string(value.get<bool>() ? "true" : "false");
  return std::nullopt;
}

const nlohmann::json* JsonMember(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end()) return nullptr;
  return &*it;
}

void JsonFields::Set(std::string name, std::string value) { extra_[std::move(name)] = std::move(value); }

std::optional<std::string_view> JsonFields::Get(std::string_view field) const {
  auto extra = extra_.find(field);
  if (extra != extra_.end()) return std::string_view(extra->second);
  const FieldPath path = SplitFieldPath(field);
  const nlohmann::json* from = path.source == FieldSource::kLabels        ? labels_
                               : path.source == FieldSource::kAnnotations ? annotations_
                                                                          : object_;
  if (from == nullptr) return std::nullopt;
  const nlohmann::json* value = JsonMember(*from, path.key);
  if (value == nullptr) return std::nullopt;
  if (value->is_string()) return std::string_view(value->get_ref<const std::string&>());
  auto text = JsonScalarText(*value);
  if (!text.has_value()) return std::nullopt;
  scratch_ = std::move(*text);
  return std::string_view(scratch_);
}

}  // namespace kueuesim::trace::internal
