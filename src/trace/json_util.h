// Helpers for the JSON trace formats: over doc::Node values of the
// document reader's JSON path (native-jsonl, replica-timeline-jsonl: one
// doc::ReadJsonText per row), and over nlohmann::json values
// (kueue-workloads' items). Nothing here throws: types are checked first.
#ifndef KUEUESIM_TRACE_JSON_UTIL_H_
#define KUEUESIM_TRACE_JSON_UTIL_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kueuesim/doc/document.h"
#include "trace/source.h"

namespace kueuesim::trace::internal {

// One JSON Lines row read by doc::ReadJsonText; the reason to skip it
// ("malformed JSON", "not a JSON object") when it is not a JSON object.
struct JsonRow {
  std::optional<doc::Document> document;
  std::string skip_reason;
};
JsonRow ReadJsonRow(std::string_view text, const std::string& name);

// --- Values read by doc::ReadJsonText (strings are quoted scalars; numbers,
// true, false and null plain ones) ---

bool IsJsonString(const doc::Node& value);
bool IsJsonBoolean(const doc::Node& value);
// Absent or null.
bool IsJsonNull(const doc::Node& value);
// An integer literal (no fraction, no exponent) within int64.
std::optional<int64_t> JsonInteger(const doc::Node& value);

// A scalar as text, as JsonScalarText below gives it for the same JSON: a
// string as is, an integer in decimal, any other number in the shortest form
// that reads back, a boolean as true/false; nullopt for null, objects and
// arrays.
std::optional<std::string> JsonScalarText(const doc::Node& value);

// The first key of a mapping, in byte order, that is not in `known` (and
// not in `also_known`), or nullopt. Byte order, as nlohmann's std::map kept
// them, so that the reason of a skipped row does not depend on key order.
std::optional<std::string> FirstUnknownKey(const doc::Node& object, const std::set<std::string, std::less<>>& known,
                                           const std::set<std::string, std::less<>>* also_known = nullptr);

// Mapping fields of a JSON row: its scalar members by name, and
// "labels.<key>" / "annotations.<key>" from its `labels` and `annotations`.
class NodeFields : public RecordFields {
 public:
  explicit NodeFields(const doc::Node& object)
      : object_(object), labels_(object.Get("labels")), annotations_(object.Get("annotations")) {}
  std::optional<std::string_view> Get(std::string_view field) const override;

 private:
  doc::Node object_;
  doc::Node labels_;
  doc::Node annotations_;
  mutable std::string scratch_;
};

// --- nlohmann::json values ---

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
