// The CSV record format base; see csv_format.h.
#include "trace/csv_format.h"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/status.h"

namespace kueuesim::trace::internal {

absl::Status CsvFormat::OpenCsv(const TraceSpec& spec, const std::vector<std::string>& required,
                                const std::vector<std::string>& optional, bool allow_other_columns,
                                std::map<std::string, FieldMapping> default_mapping) {
  spec_ = spec;
  source_file_ = spec.path;
  KUEUESIM_ASSIGN_OR_RETURN(reader_, CsvReader::Open(spec.path));
  KUEUESIM_RETURN_IF_ERROR(reader_->ReadHeader());
  const std::vector<std::string>& header = reader_->header();
  std::string missing;
  for (const auto& column : required) {
    if (!reader_->Column(column).has_value()) missing += (missing.empty() ? "" : ", ") + column;
  }
  auto expected = [&] {
    std::string out;
    for (const auto& c : required) out += (out.empty() ? "" : ",") + c;
    for (const auto& c : optional) out += (out.empty() ? "[" : ",[") + c + "]";
    return out;
  };
  if (!missing.empty()) {
    return InvalidArgument(fmt::format("{}:1: the header lacks column(s) {} of format {} (columns: {})",
                                       spec.path, missing, spec.format, expected()));
  }
  KUEUESIM_ASSIGN_OR_RETURN(mapper_, Mapper::Create(spec, std::move(default_mapping), &header));
  if (!allow_other_columns) {
    const std::set<std::string> mapped = mapper_.FieldsRead();
    for (const auto& column : header) {
      if (std::find(required.begin(), required.end(), column) != required.end()) continue;
      if (std::find(optional.begin(), optional.end(), column) != optional.end()) continue;
      if (mapped.count(column)) continue;
      return InvalidArgument(fmt::format(
          "{}:1: unknown column \"{}\" for format {} (columns: {}; other columns are allowed when "
          "spec.mapping reads them)",
          spec.path, column, spec.format, expected()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> CsvFormat::NextRow(ImportReport* report, RecordPos* pos, bool* well_formed) {
  *well_formed = false;
  auto more = reader_->Next();
  if (!more.ok()) return more.status();
  if (!*more) return false;
  pos->offset = reader_->offset();
  pos->line = reader_->line();
  if (!reader_->malformed().empty()) {
    Skip(report, reader_->line(), "malformed CSV: " + reader_->malformed());
    return true;
  }
  if (reader_->size() != reader_->header().size()) {
    Skip(report, reader_->line(),
         reader_->size() < reader_->header().size() ? "too few fields" : "too many fields");
    return true;
  }
  *well_formed = true;
  return true;
}

absl::StatusOr<bool> CsvFormat::Next(ImportReport* report, RecordPos* pos, std::optional<ParsedRecord>* out) {
  out->reset();
  bool well_formed = false;
  KUEUESIM_ASSIGN_OR_RETURN(bool more, NextRow(report, pos, &well_formed));
  if (!more || !well_formed) return more;
  out->emplace();
  if (!ParseRow(report, &**out)) out->reset();
  return true;
}

absl::StatusOr<bool> CsvFormat::NextTime(ImportReport* report, RecordPos* pos, std::optional<int64_t>* time) {
  time->reset();
  bool well_formed = false;
  KUEUESIM_ASSIGN_OR_RETURN(bool more, NextRow(report, pos, &well_formed));
  if (!more || !well_formed) return more;
  int64_t t = 0;
  if (CountRow(report, &t)) *time = t;
  return true;
}

bool CsvFormat::CountRow(ImportReport* report, int64_t* time) {
  ParsedRecord record;
  if (!ParseRow(report, &record)) return false;
  *time = record.time;
  return true;
}

absl::StatusOr<std::optional<ParsedRecord>> CsvFormat::ReadAt(const RecordPos& pos) {
  KUEUESIM_RETURN_IF_ERROR(reader_->Seek(pos.offset, pos.line));
  RecordPos read_pos;
  std::optional<ParsedRecord> out;
  KUEUESIM_ASSIGN_OR_RETURN(bool more, Next(nullptr, &read_pos, &out));
  if (!more) return std::optional<ParsedRecord>();
  return out;
}

}  // namespace kueuesim::trace::internal
