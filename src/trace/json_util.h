// Helpers for the JSON trace formats (native-jsonl, kueue-workloads), over
// nlohmann::json values. Nothing here throws: types are checked first.
#ifndef KUEUESIM_TRACE_JSON_UTIL_H_
#define KUEUESIM_TRACE_JSON_UTIL_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "trace/source.h"

namespace kueuesim::trace::internal {

// A scalar as text: a string as is, an integer in decimal, a float in the
// shortest form that reads back, a boolean as true/false; nullopt for null,
// objects and arrays.
std::optional<std::string> JsonScalarText(const nlohmann::json& value);

// The member `key` of an object, or nullptr (also when `object` is not an
// object).
const nlohmann::json* JsonMember(const nlohmann::json& object, std::string_view key);

// Mapping fields of a JSON object: its scalar members by name, and
// "labels.<key>" / "annotations.<key>" from `labels` and `annotations`
// objects (top-level, or under metadata when `kubernetes_object`).
class JsonFields : public RecordFields {
 public:
  JsonFields(const nlohmann::json* object, const nlohmann::json* labels, const nlohmann::json* annotations)
      : object_(object), labels_(labels), annotations_(annotations) {}
  std::optional<std::string_view> Get(std::string_view field) const override;
  // Adds a computed field (e.g. "queueName" of a Workload).
  void Set(std::string name, std::string value);

 private:
  const nlohmann::json* object_;
  const nlohmann::json* labels_;
  const nlohmann::json* annotations_;
  std::map<std::string, std::string, std::less<>> extra_;
  mutable std::string scratch_;
};

}  // namespace kueuesim::trace::internal

#endif  // KUEUESIM_TRACE_JSON_UTIL_H_
