// Streaming readers for the text trace formats:
//
// CsvReader: RFC 4180 CSV, read record by record through a fixed buffer
// (trace/input_buffer.h), never the whole file. Handles quoted fields with
// embedded delimiters, doubled quotes ("") and line breaks; CRLF, LF and lone
// CR line ends; a UTF-8 byte-order mark at the start. Empty lines (no bytes
// at all between two line ends) are not records and are skipped, as pandas
// and Python's csv module do. Each record carries the line it starts on and
// its byte offset, so that a caller can report "line 17" and come back to
// the record later (Seek).
//
// Leniency, as Python's csv module: a quote inside an unquoted field is kept
// literally. Two defects are reported on the record (malformed(), the
// record is still returned so that the caller can count it and go on):
// text after a closing quote ("ab"c, kept as abc) and a quoted field still
// open at the end of the file. A record longer than max_record_bytes is an
// error (a stray quote would otherwise swallow the rest of the file).
//
// LineReader: the lines of a text file (JSON Lines), with the same
// positions; lines holding only white space are skipped.
#ifndef KUEUESIM_TRACE_CSV_READER_H_
#define KUEUESIM_TRACE_CSV_READER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trace/input_buffer.h"

namespace kueuesim::trace::internal {

struct CsvOptions {
  char delimiter = ',';
  size_t max_record_bytes = size_t{1} << 20;  // 1 MiB
  size_t buffer_capacity = InputBuffer::kDefaultCapacity;
};

class CsvReader {
 public:
  static absl::StatusOr<std::unique_ptr<CsvReader>> Open(const std::string& path,
                                                         const CsvOptions& options = {});
  static std::unique_ptr<CsvReader> FromString(std::string text, std::string name,
                                               const CsvOptions& options = {});

  const std::string& name() const { return input_->name(); }

  // Reads the next record. Returns false at the end of the input. Errors: a
  // read error, or a record longer than max_record_bytes (both stop the
  // reading; the message names the file and the line).
  absl::StatusOr<bool> Next();

  // The current record: its fields, the 1-based line it starts on, its byte
  // offset, and a description of a quoting defect ("" when well formed).
  size_t size() const { return size_; }
  const std::string& field(size_t i) const { return fields_[i]; }
  int64_t line() const { return record_line_; }
  int64_t offset() const { return record_offset_; }
  const std::string& malformed() const { return malformed_; }

  // Reads the first record as the header: column names, compared exactly
  // (case-sensitive; surrounding white space is kept). Errors: an empty
  // input, a malformed header, a name that repeats.
  absl::Status ReadHeader();
  const std::vector<std::string>& header() const { return header_; }
  // Index of column `name`, or nullopt.
  std::optional<size_t> Column(std::string_view name) const;
  // Field `column` of the current record, or "" when the record is shorter.
  std::string_view Get(size_t column) const {
    return column < size_ ? std::string_view(fields_[column]) : std::string_view();
  }

  // Moves to a record start returned by offset() and line() earlier.
  absl::Status Seek(int64_t offset, int64_t line);
  // Moves to the first data record (after the header when one was read).
  absl::Status Rewind();

 private:
  CsvReader(std::unique_ptr<InputBuffer> input, const CsvOptions& options);
  void SkipBom();
  std::string& NewField();

  std::unique_ptr<InputBuffer> input_;
  CsvOptions options_;
  std::vector<std::string> fields_;  // capacity kept across records
  size_t size_ = 0;
  int64_t line_ = 1;  // line of the next byte
  int64_t record_line_ = 0;
  int64_t record_offset_ = 0;
  std::string malformed_;
  std::vector<std::string> header_;
  std::map<std::string, size_t, std::less<>> columns_;
  int64_t data_offset_ = 0;  // first data record
  int64_t data_line_ = 1;
};

class LineReader {
 public:
  static absl::StatusOr<std::unique_ptr<LineReader>> Open(const std::string& path,
                                                          size_t max_line_bytes = size_t{16} << 20);
  static std::unique_ptr<LineReader> FromString(std::string text, std::string name,
                                                size_t max_line_bytes = size_t{16} << 20);

  const std::string& name() const { return input_->name(); }
  // Reads the next line that holds something other than white space; the
  // line end (LF or CRLF) is not part of it. False at the end. Errors: a
  // read error or a line longer than max_line_bytes.
  absl::StatusOr<bool> Next();
  const std::string& text() const { return text_; }
  int64_t line() const { return record_line_; }
  int64_t offset() const { return record_offset_; }
  absl::Status Seek(int64_t offset, int64_t line);
  absl::Status Rewind() { return Seek(start_offset_, 1); }

 private:
  LineReader(std::unique_ptr<InputBuffer> input, size_t max_line_bytes);

  std::unique_ptr<InputBuffer> input_;
  size_t max_line_bytes_;
  std::string text_;
  int64_t line_ = 1;
  int64_t record_line_ = 0;
  int64_t record_offset_ = 0;
  int64_t start_offset_ = 0;  // after a byte-order mark
};

}  // namespace kueuesim::trace::internal

#endif  // KUEUESIM_TRACE_CSV_READER_H_
