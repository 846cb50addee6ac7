// Typed, path-tracking access to manifest fields.
#include "scenario/field.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "kueuesim/base/status.h"

namespace kueuesim::scenario {

const std::string& SharedObjectName::text() const {
  if (!block_->made) {
    block_->text = block_->object_name.empty() ? block_->kind
                                               : fmt::format("{} \"{}\"", block_->kind, block_->object_name);
    block_->made = true;
  }
  return block_->text;
}

FieldReader::FieldReader(doc::Node node, std::shared_ptr<const std::string> object,
                         std::string path)
    : node_(node), anchor_(node), object_(SharedObjectName(*object)), path_(std::move(path)) {}

FieldReader::FieldReader(doc::Node node, const SharedObjectName& object, std::string path)
    : node_(node), anchor_(node), object_(object), path_(std::move(path)) {}

FieldReader FieldReader::Field(std::string_view key) const {
  // Built by hand, not formatted: every field read of every object passes here.
  std::string path;
  path.reserve(path_.size() + 1 + key.size());
  if (!path_.empty()) path.append(path_).push_back('.');
  path.append(key);
  FieldReader child(node_.IsMapping() ? node_.Get(key) : doc::Node(), object_, std::move(path));
  if (!child.node_.valid()) child.anchor_ = anchor_;
  return child;
}

FieldReader FieldReader::Index(size_t i) const {
  char digits[24];
  const auto [digits_end, ec] = std::to_chars(digits, digits + sizeof(digits), i);
  (void)ec;  // a size_t always fits
  std::string path;
  path.reserve(path_.size() + 2 + static_cast<size_t>(digits_end - digits));
  path.append(path_).push_back('[');
  path.append(digits, digits_end).push_back(']');
  FieldReader child(node_.IsSequence() && i < node_.size() ? node_.at(i) : doc::Node(), object_,
                    std::move(path));
  if (!child.node_.valid()) child.anchor_ = anchor_;
  return child;
}

absl::Status FieldReader::Error(const std::string& message) const {
  const doc::Node& at = node_.valid() ? node_ : anchor_;
  std::string where = at.valid() ? fmt::format("{}:{}: ", at.file(), at.position().line) : "";
  std::string field = path_.empty() ? "" : path_ + ": ";
  return InvalidArgument(fmt::format("{}{}: {}{}", where, object_.text(), field, message));
}

absl::Status FieldReader::ExpectMapping() const {
  if (!present() || node_.IsMapping()) return absl::OkStatus();
  return Error("must be a mapping");
}

absl::Status FieldReader::ExpectSequence() const {
  if (!present() || node_.IsSequence()) return absl::OkStatus();
  return Error("must be a list");
}

absl::StatusOr<std::string> FieldReader::String() const {
  if (!node_.IsScalar()) return Error(node_.valid() ? "must be a string" : "is required");
  return std::string(node_.scalar());
}

absl::StatusOr<int64_t> FieldReader::Int64() const {
  if (!node_.IsScalar()) return Error(node_.valid() ? "must be an integer" : "is required");
  std::string_view text = node_.scalar();
  int64_t value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (!text.empty() && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range) {
    return Error(fmt::format("integer \"{}\" is out of range", text));
  }
  if (ec != std::errc() || ptr != end || text.empty()) {
    return Error(fmt::format("\"{}\" is not an integer", text));
  }
  return value;
}

absl::StatusOr<int32_t> FieldReader::Int32() const {
  KUEUESIM_ASSIGN_OR_RETURN(int64_t value, Int64());
  if (value < INT32_MIN || value > INT32_MAX) {
    return Error(fmt::format("integer {} is out of the 32-bit range", value));
  }
  return static_cast<int32_t>(value);
}

absl::StatusOr<bool> FieldReader::Bool() const {
  if (!node_.IsScalar()) return Error(node_.valid() ? "must be true or false" : "is required");
  std::string_view text = node_.scalar();
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  return Error(fmt::format("\"{}\" is not a boolean", text));
}

absl::StatusOr<double> FieldReader::Double() const {
  if (!node_.IsScalar()) return Error(node_.valid() ? "must be a number" : "is required");
  std::string text(node_.scalar());
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return Error(fmt::format("\"{}\" is not a number", text));
  }
  return value;
}

absl::StatusOr<Quantity> FieldReader::QuantityValue() const {
  if (!node_.IsScalar()) return Error(node_.valid() ? "must be a quantity" : "is required");
  auto parsed = ParseQuantity(node_.scalar());
  if (!parsed.ok()) return Error(StatusMessage(parsed.status()));
  return *std::move(parsed);
}

absl::StatusOr<Amount> FieldReader::AmountOf(std::string_view resource, bool saturate,
                                           bool allow_negative) const {
  KUEUESIM_ASSIGN_OR_RETURN(Quantity quantity, QuantityValue());
  if (quantity.negative && !quantity.IsZero() && !allow_negative) {
    return Error(fmt::format("quantity \"{}\" must not be negative", node_.scalar()));
  }
  if (saturate) return CanonicalAmountSaturating(quantity, resource);
  auto value = CanonicalValue(quantity, resource);
  if (!value.ok()) {
    return Error(fmt::format("quantity \"{}\" overflows a 64-bit integer of {}", node_.scalar(),
                             IsMilliResource(resource) ? "milli-units" : "units"));
  }
  return *value;
}

absl::StatusOr<Amount> FieldReader::RequestAmountOf(std::string_view resource) const {
  KUEUESIM_ASSIGN_OR_RETURN(Quantity quantity, QuantityValue());
  auto value = CanonicalValue(quantity, resource);
  if (value.ok()) return *value;
  return quantity.negative ? std::numeric_limits<Amount>::min() : std::numeric_limits<Amount>::max();
}

absl::StatusOr<SimDuration> FieldReader::Duration() const {
  if (!node_.IsScalar()) return Error(node_.valid() ? "must be a duration" : "is required");
  auto parsed = ParseDuration(node_.scalar());
  if (!parsed.ok()) return Error(StatusMessage(parsed.status()));
  // Kubernetes durations are Go's time.Duration (int64 nanoseconds): at
  // most about 292 years. Keeping to it also keeps every sum of a time and
  // a few durations far from int64 microseconds' end.
  constexpr SimDuration kMaxGoDuration = std::numeric_limits<int64_t>::max() / 1000;
  if (*parsed > kMaxGoDuration) {
    return Error(fmt::format("\"{}\" is longer than a Kubernetes duration can be (2562047h47m16.854775807s)",
                             node_.scalar()));
  }
  return *parsed;
}

absl::StatusOr<UnixMicros> FieldReader::Timestamp() const {
  if (!node_.IsScalar()) return Error(node_.valid() ? "must be a timestamp" : "is required");
  auto parsed = ParseRfc3339(node_.scalar());
  if (!parsed.ok()) return Error(StatusMessage(parsed.status()));
  return *parsed;
}

absl::StatusOr<std::optional<std::string>> FieldReader::OptString() const {
  if (!present()) return std::optional<std::string>();
  KUEUESIM_ASSIGN_OR_RETURN(std::string value, String());
  return std::optional<std::string>(std::move(value));
}

absl::StatusOr<std::optional<int32_t>> FieldReader::OptInt32() const {
  if (!present()) return std::optional<int32_t>();
  KUEUESIM_ASSIGN_OR_RETURN(int32_t value, Int32());
  return std::optional<int32_t>(value);
}

absl::StatusOr<model::Labels> FieldReader::StringMap() const {
  model::Labels out;
  if (!present()) return out;
  KUEUESIM_RETURN_IF_ERROR(ExpectMapping());
  for (size_t i = 0; i < node_.size(); ++i) {
    FieldReader value = Field(node_.key(i));
    if (!value.node_.IsScalar()) return value.Error("must be a string");
    out[std::string(node_.key(i))] = std::string(value.node_.scalar());
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> FieldReader::StringList() const {
  std::vector<std::string> out;
  if (!present()) return out;
  KUEUESIM_RETURN_IF_ERROR(ExpectSequence());
  for (size_t i = 0; i < node_.size(); ++i) {
    KUEUESIM_ASSIGN_OR_RETURN(std::string value, Index(i).String());
    out.push_back(std::move(value));
  }
  return out;
}

absl::Status CheckKnownFields(const FieldReader& field, const std::set<std::string_view>& known) {
  if (!field.node().IsMapping()) return absl::OkStatus();
  for (size_t i = 0; i < field.node().size(); ++i) {
    std::string_view key = field.node().key(i);
    if (known.contains(key)) continue;
    std::string valid;
    for (auto k : known) valid += fmt::format("{}{}", valid.empty() ? "" : ", ", k);
    return field.Field(std::string(key)).Error(fmt::format("unknown field (valid: {})", valid));
  }
  return absl::OkStatus();
}

}  // namespace kueuesim::scenario
