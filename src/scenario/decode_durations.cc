// Simulation spec.defaultDurations; see decode_durations.h.
#include "scenario/decode_durations.h"

#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "trace/csv_reader.h"

namespace kueuesim::scenario {
namespace {

absl::Status CheckFields(const FieldReader& field, const std::set<std::string_view>& known) {
  if (!field.node().IsMapping()) return absl::OkStatus();
  for (size_t i = 0; i < field.node().size(); ++i) {
    std::string_view key = field.node().key(i);
    if (known.contains(key)) continue;
    std::string valid;
    for (auto k : known) valid += fmt::format("{}{}", valid.empty() ? "" : ", ", k);
    return field.Field(key).Error(fmt::format("unknown field (valid: {})", valid));
  }
  return absl::OkStatus();
}

// The values of `column` in the CSV file `path`: durations ("90s", "2h") or
// bare numbers of seconds; empty cells are skipped.
absl::Status ReadEmpiricalSamples(const FieldReader& distribution, DurationDistribution* out) {
  KUEUESIM_ASSIGN_OR_RETURN(std::string file, distribution.Field("file").String());
  KUEUESIM_ASSIGN_OR_RETURN(std::string column, distribution.Field("column").String());
  std::filesystem::path path(file);
  if (path.is_relative()) path = std::filesystem::path(distribution.node().file()).parent_path() / path;
  auto reader = trace::internal::CsvReader::Open(path.string());
  if (!reader.ok()) return distribution.Field("file").Error(StatusMessage(reader.status()));
  if (absl::Status header = (*reader)->ReadHeader(); !header.ok()) {
    return distribution.Field("file").Error(StatusMessage(header));
  }
  std::optional<size_t> index = (*reader)->Column(column);
  if (!index.has_value()) {
    return distribution.Field("column").Error(fmt::format("{} has no column \"{}\"", path.string(), column));
  }
  while (true) {
    auto more = (*reader)->Next();
    if (!more.ok()) return distribution.Field("file").Error(StatusMessage(more.status()));
    if (!*more) break;
    std::string_view cell = (*reader)->Get(*index);
    if (cell.empty()) continue;
    auto value = ParseDuration(cell);
    if (!value.ok()) {
      return distribution.Field("column").Error(fmt::format("{}:{}: \"{}\": {}", path.string(), (*reader)->line(),
                                                            cell, StatusMessage(value.status())));
    }
    out->samples.push_back(*value);
  }
  if (out->samples.empty()) {
    return distribution.Field("column").Error(fmt::format("{}: column \"{}\" has no values", path.string(), column));
  }
  out->description = fmt::format("empirical, {} values of {} column {}", out->samples.size(),
                                 path.filename().string(), column);
  return absl::OkStatus();
}

absl::StatusOr<DurationDistribution> DecodeDistribution(const FieldReader& field) {
  DurationDistribution d;
  KUEUESIM_RETURN_IF_ERROR(field.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(std::string type, field.Field("type").String());
  if (type == "fixed") {
    KUEUESIM_RETURN_IF_ERROR(CheckFields(field, {"type", "value"}));
    KUEUESIM_ASSIGN_OR_RETURN(d.value, field.Field("value").Duration());
    d.description = fmt::format("fixed {}", FormatDuration(d.value));
  } else if (type == "exponential") {
    KUEUESIM_RETURN_IF_ERROR(CheckFields(field, {"type", "mean"}));
    d.type = DurationDistribution::Type::kExponential;
    KUEUESIM_ASSIGN_OR_RETURN(d.value, field.Field("mean").Duration());
    if (d.value <= 0) return field.Field("mean").Error("must be positive");
    d.description = fmt::format("exponential, mean {}", FormatDuration(d.value));
  } else if (type == "logNormal") {
    KUEUESIM_RETURN_IF_ERROR(CheckFields(field, {"type", "median", "sigma"}));
    d.type = DurationDistribution::Type::kLogNormal;
    KUEUESIM_ASSIGN_OR_RETURN(d.value, field.Field("median").Duration());
    if (d.value <= 0) return field.Field("median").Error("must be positive");
    KUEUESIM_ASSIGN_OR_RETURN(d.sigma, field.Field("sigma").Double());
    if (!(d.sigma >= 0 && d.sigma <= 10)) return field.Field("sigma").Error("must be between 0 and 10");
    d.description = fmt::format("log-normal, median {}, sigma {}", FormatDuration(d.value), d.sigma);
  } else if (type == "empirical") {
    KUEUESIM_RETURN_IF_ERROR(CheckFields(field, {"type", "file", "column"}));
    d.type = DurationDistribution::Type::kEmpirical;
    KUEUESIM_RETURN_IF_ERROR(ReadEmpiricalSamples(field, &d));
  } else {
    return field.Field("type").Error(
        fmt::format("unknown distribution \"{}\" (valid: fixed, exponential, logNormal, empirical)", type));
  }
  return d;
}

}  // namespace

absl::Status DecodeDefaultDurations(const FieldReader& field, std::vector<DefaultDurationRule>* rules) {
  if (!field.present()) return absl::OkStatus();
  KUEUESIM_RETURN_IF_ERROR(field.ExpectSequence());
  rules->clear();
  for (size_t i = 0; i < field.size(); ++i) {
    FieldReader item = field.Index(i);
    KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
    KUEUESIM_RETURN_IF_ERROR(CheckFields(item, {"match", "duration", "distribution"}));
    DefaultDurationRule rule;
    rule.source.file = item.node().shared_file();
    rule.source.line = item.node().position().line;
    FieldReader match = item.Field("match");
    KUEUESIM_RETURN_IF_ERROR(match.ExpectMapping());
    KUEUESIM_RETURN_IF_ERROR(CheckFields(match, {"queue", "namespace", "kind", "labels"}));
    KUEUESIM_ASSIGN_OR_RETURN(auto queue, match.Field("queue").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(auto ns, match.Field("namespace").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(auto kind, match.Field("kind").OptString());
    KUEUESIM_ASSIGN_OR_RETURN(rule.labels, match.Field("labels").StringMap());
    rule.queue = queue.value_or("");
    rule.namespace_ = ns.value_or("");
    rule.kind = kind.value_or("");
    const bool has_duration = item.Field("duration").present();
    const bool has_distribution = item.Field("distribution").present();
    if (has_duration == has_distribution) return item.Error("needs exactly one of duration and distribution");
    if (has_duration) {
      KUEUESIM_ASSIGN_OR_RETURN(rule.distribution.value, item.Field("duration").Duration());
      rule.distribution.description = fmt::format("fixed {}", FormatDuration(rule.distribution.value));
    } else {
      KUEUESIM_ASSIGN_OR_RETURN(rule.distribution, DecodeDistribution(item.Field("distribution")));
    }
    std::string conditions;
    auto add = [&conditions](std::string text) { conditions += (conditions.empty() ? "" : ", ") + text; };
    if (!rule.kind.empty()) add("kind " + rule.kind);
    if (!rule.namespace_.empty()) add("namespace " + rule.namespace_);
    if (!rule.queue.empty()) add("queue " + rule.queue);
    for (const auto& [key, value] : rule.labels) add(fmt::format("label {}={}", key, value));
    rule.description = fmt::format("defaultDurations[{}] ({}): {}", i, conditions.empty() ? "all" : conditions,
                                   rule.distribution.description);
    rules->push_back(std::move(rule));
  }
  return absl::OkStatus();
}

}  // namespace kueuesim::scenario
