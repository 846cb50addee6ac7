// JSON helpers for the trace formats; see json_util.h.
#include "trace/json_util.h"

#include <fmt/format.h>

namespace kueuesim::trace::internal {

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
  const nlohmann::json* from = object_;
  std::string_view key = field;
  if (field.rfind("labels.", 0) == 0) {
    from = labels_;
    key = field.substr(7);
  } else if (field.rfind("annotations.", 0) == 0) {
    from = annotations_;
    key = field.substr(12);
  }
  if (from == nullptr) return std::nullopt;
  const nlohmann::json* value = JsonMember(*from, key);
  if (value == nullptr) return std::nullopt;
  if (value->is_string()) return std::string_view(value->get_ref<const std::string&>());
  auto text = JsonScalarText(*value);
  if (!text.has_value()) return std::nullopt;
  scratch_ = std::move(*text);
  return std::string_view(scratch_);
}

}  // namespace kueuesim::trace::internal
