// CsvFormat: the RecordFormat of the CSV trace formats (native-csv,
// alibaba-gpu-2023, philly, helios, pollux). A subclass names its columns
// and turns one row into a workload; this class reads rows, checks the
// header, counts malformed rows and rows with the wrong number of fields,
// and gives random access for the sorted pass.
#ifndef KUEUESIM_TRACE_CSV_FORMAT_H_
#define KUEUESIM_TRACE_CSV_FORMAT_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trace/csv_reader.h"
#include "trace/source.h"

namespace kueuesim::trace::internal {

// The fields of the current CSV row, by column name.
class CsvFields : public RecordFields {
 public:
  explicit CsvFields(const CsvReader* reader) : reader_(reader) {}
  std::optional<std::string_view> Get(std::string_view field) const override {
    auto column = reader_->Column(field);
    if (!column.has_value()) return std::nullopt;
    return reader_->Get(*column);
  }
  std::optional<std::string_view> GetColumn(size_t index) const override { return reader_->Get(index); }

 private:
  const CsvReader* reader_;
};

class CsvFormat : public RecordFormat {
 public:
  absl::Status Rewind() override { return reader_->Rewind(); }
  absl::StatusOr<bool> Next(ImportReport* report, RecordPos* pos, std::optional<ParsedRecord>* out) override;
  absl::StatusOr<bool> NextTime(ImportReport* report, RecordPos* pos, std::optional<int64_t>* time) override;
  absl::StatusOr<std::optional<ParsedRecord>> ReadAt(const RecordPos& pos) override;

 protected:
  // Opens `spec.path` and reads its header: every column of `required` must
  // be present; columns outside `required` + `optional` are refused unless
  // `allow_other_columns` or the mapping reads them. Creates the Mapper.
  absl::Status OpenCsv(const TraceSpec& spec, const std::vector<std::string>& required,
                       const std::vector<std::string>& optional, bool allow_other_columns,
                       std::map<std::string, FieldMapping> default_mapping);

  // Parses the current row (reader() positioned on it; its field count
  // already checked) into `out`, a fresh record. Reports skips and repairs
  // to `report` when not null; false when the row is skipped.
  virtual bool ParseRow(ImportReport* report, ParsedRecord* out) = 0;
  // As ParseRow, for the counting pass: the arrival of a valid row, with
  // the same skips and repairs, without the workload. The default parses
  // the row; a format may check it without building anything.
  virtual bool CountRow(ImportReport* report, int64_t* time);

  const CsvReader& reader() const { return *reader_; }
  // Resolves column names once (after OpenCsv); Field(i) then reads the
  // i-th of them in the current row ("" when the file has no such column).
  void Bind(std::initializer_list<const char*> names) {
    bound_.clear();
    for (const char* name : names) bound_.push_back(reader_->Column(name).value_or(static_cast<size_t>(-1)));
  }
  std::string_view Field(size_t bound) const { return reader_->Get(bound_[bound]); }
  bool HasColumn(std::string_view name) const { return reader_->Column(name).has_value(); }
  int64_t line() const { return reader_->line(); }
  // Applies the mapping; returns the skip reason or "".
  std::string ApplyMapping(const std::string& fallback_name, model::Workload* wl) const {
    return mapper_.Apply(CsvFields(reader_.get()), fallback_name, wl);
  }
  // The skip reason ApplyMapping would return, or "" (for CountRow).
  std::string MappingSkipReason() const { return mapper_.SkipReason(CsvFields(reader_.get())); }
  // Sets the workload's source to the file and the current line.
  void SetSource(model::Workload* wl) const {
    wl->meta.source.file = source_file_;
    wl->meta.source.line = static_cast<int32_t>(reader_->line());
  }

  TraceSpec spec_;
  model::SourceFile source_file_;  // spec_.path, shared by every workload
  Mapper mapper_;

 private:
  // Reads the next row and checks its shape (malformed, field count: counted
  // as skipped). False at the end; *well_formed says whether to parse it.
  absl::StatusOr<bool> NextRow(ImportReport* report, RecordPos* pos, bool* well_formed);

  std::unique_ptr<CsvReader> reader_;
  std::vector<size_t> bound_;
};

}  // namespace kueuesim::trace::internal

#endif  // KUEUESIM_TRACE_CSV_FORMAT_H_
