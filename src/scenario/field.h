// FieldReader: typed access to the fields of a decoded manifest, producing
// errors that name the file, the line, the object and the field path, e.g.
//   cluster.yaml:14: ClusterQueue "team-a": spec.resourceGroups[0].flavors[0]
//   .resources[0].nominalQuota: malformed quantity "12x": unknown suffix "x"
#ifndef KUEUESIM_SCENARIO_FIELD_H_
#define KUEUESIM_SCENARIO_FIELD_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/base/time.h"
#include "kueuesim/doc/document.h"
#include "kueuesim/model/objects.h"

namespace kueuesim::scenario {

// The name of the object a FieldReader reads (`ClusterQueue "a"`), shared
// by the reader and every child it makes. Every field read of every object
// copies it, so the count of holders is a plain integer, not the atomic
// one of a shared_ptr (4 % of loading a large export went to those atomic
// operations): a reader and its copies stay on the thread that made them,
// as the loader's do.
class SharedObjectName {
 public:
  explicit SharedObjectName(const std::string& text) : block_(new Block{1, true, text, {}, {}}) {}
  // `KIND "NAME"` (KIND alone for an empty name), formatted when first
  // asked for: most objects never are, having no error.
  static SharedObjectName Of(std::string kind, std::string name) {
    return SharedObjectName(new Block{1, false, {}, std::move(kind), std::move(name)});
  }
  SharedObjectName(const SharedObjectName& other) : block_(other.block_) {
    if (block_ != nullptr) ++block_->holders;
  }
  SharedObjectName(SharedObjectName&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
  SharedObjectName& operator=(SharedObjectName other) noexcept {
    std::swap(block_, other.block_);
    return *this;
  }
  ~SharedObjectName() {
    if (block_ != nullptr && --block_->holders == 0) delete block_;
  }

  const std::string& text() const;

 private:
  struct Block {
    int64_t holders;
    bool made;         // `text` is set (for Of(), on first use)
    std::string text;
    std::string kind;  // Of()'s parts
    std::string object_name;
  };
  explicit SharedObjectName(Block* block) : block_(block) {}
  Block* block_;
};

class FieldReader {
 public:
  // `object` names the enclosing object for messages, e.g. `ClusterQueue "a"`.
  FieldReader(doc::Node node, std::shared_ptr<const std::string> object, std::string path);
  // The same, with the name shared with other readers (children: Field,
  // Index) or made lazily (SharedObjectName::Of).
  FieldReader(doc::Node node, const SharedObjectName& object, std::string path);

  const doc::Node& node() const { return node_; }
  bool present() const { return node_.valid() && !node_.IsNull(); }
  const std::string& path() const { return path_; }
  const std::string& object() const { return object_.text(); }

  // A child field (absent children are !present()).
  FieldReader Field(std::string_view key) const;
  FieldReader Index(size_t i) const;
  size_t size() const { return node_.size(); }

  // An error at this field: "<file>:<line>: <object>: <path>: <message>".
  absl::Status Error(const std::string& message) const;

  // Checks the node kind; absent fields pass.
  absl::Status ExpectMapping() const;
  absl::Status ExpectSequence() const;

  // Typed reads of present scalar fields.
  absl::StatusOr<std::string> String() const;
  absl::StatusOr<int64_t> Int64() const;
  absl::StatusOr<int32_t> Int32() const;
  absl::StatusOr<bool> Bool() const;
  absl::StatusOr<double> Double() const;
  absl::StatusOr<Quantity> QuantityValue() const;
  // Canonical amount of `resource`; negative values are an error unless
  // `allow_negative`. Saturates at kUnlimited when `saturate` (quotas).
  absl::StatusOr<kueuesim::Amount> AmountOf(std::string_view resource, bool saturate,
                                bool allow_negative = false) const;
  // A pod's request or limit of `resource` as Kueue reads it
  // (resources.ResourceValue: milli-units for cpu, units otherwise, rounded
  // up), saturating at the int64 bounds as utilmath.SafeMilliValue and
  // SafeValue do. Negative amounts are returned as they are.
  absl::StatusOr<kueuesim::Amount> RequestAmountOf(std::string_view resource) const;
  absl::StatusOr<SimDuration> Duration() const;
  absl::StatusOr<UnixMicros> Timestamp() const;

  // Optional variants: nullopt when absent or null.
  absl::StatusOr<std::optional<std::string>> OptString() const;
  absl::StatusOr<std::optional<int32_t>> OptInt32() const;

  // A string map (labels, nodeSelector).
  absl::StatusOr<model::Labels> StringMap() const;
  // A list of strings.
  absl::StatusOr<std::vector<std::string>> StringList() const;

 private:
  doc::Node node_;
  // The last present ancestor, for the line of errors about absent fields.
  doc::Node anchor_;
  SharedObjectName object_;
  std::string path_;
};

// An error naming the first key of the mapping `field` that is not in
// `known` (kueuesim's own objects: a misspelt or misplaced setting must not
// be ignored). OK when `field` is absent or not a mapping.
absl::Status CheckKnownFields(const FieldReader& field, const std::set<std::string_view>& known);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_FIELD_H_
