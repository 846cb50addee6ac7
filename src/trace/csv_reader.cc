// Streaming CSV and line readers; see csv_reader.h.
#include "trace/csv_reader.h"

#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/status.h"

namespace kueuesim::trace::internal {
namespace {

constexpr int kEnd = -1;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

// Skips a UTF-8 byte-order mark at offset 0; returns the offset after it.
int64_t SkipBomAt0(InputBuffer& input) {
  if (input.offset() != 0) return input.offset();
  if (input.Peek() != 0xEF) return 0;
  // Look at the three bytes; put them back when they are not a BOM.
  input.Get();
  if (input.Peek() == 0xBB) {
    input.Get();
    if (input.Peek() == 0xBF) {
      input.Get();
      return 3;
    }
  }
  (void)input.Seek(0);
  return 0;
}

}  // namespace

// --- CsvReader ---

absl::StatusOr<std::unique_ptr<CsvReader>> CsvReader::Open(const std::string& path,
                                                           const CsvOptions& options) {
  KUEUESIM_ASSIGN_OR_RETURN(auto input, InputBuffer::OpenFile(path, options.buffer_capacity));
  return std::unique_ptr<CsvReader>(new CsvReader(std::move(input), options));
}

std::unique_ptr<CsvReader> CsvReader::FromString(std::string text, std::string name,
                                                 const CsvOptions& options) {
  return std::unique_ptr<CsvReader>(
      new CsvReader(InputBuffer::FromString(std::move(text), std::move(name), options.buffer_capacity),
                    options));
}

CsvReader::CsvReader(std::unique_ptr<InputBuffer> input, const CsvOptions& options)
    : input_(std::move(input)), options_(options) {
  SkipBom();
}

void CsvReader::SkipBom() {
  data_offset_ = SkipBomAt0(*input_);
  data_line_ = 1;
}

std::string& CsvReader::NewField() {
  if (size_ == fields_.size()) fields_.emplace_back();
  std::string& field = fields_[size_++];
  field.clear();
  return field;
}

absl::StatusOr<bool> CsvReader::Next() {
  enum class State { kFieldStart, kUnquoted, kQuoted, kAfterQuote };
  size_ = 0;
  malformed_.clear();
  const char delimiter = options_.delimiter;

  // Skip empty lines before the record.
  while (true) {
    const int c = input_->Peek();
    if (c == '\n') {
      input_->Get();
      ++line_;
    } else if (c == '\r') {
      input_->Get();
      if (input_->Peek() == '\n') input_->Get();
      ++line_;
    } else {
      break;
    }
  }
  if (input_->Peek() == kEnd) {
    KUEUESIM_RETURN_IF_ERROR(input_->status());
    return false;
  }
  record_line_ = line_;
  record_offset_ = input_->offset();
  // Most records are one line without quotes, whole in the buffer: split in
  // place. Anything else (a quote, no line end in the buffer, a record too
  // long) is read byte by byte below, from the start of the record.
  if (delimiter != '"' && delimiter != '\n' && delimiter != '\r') {
    const std::string_view buffered = input_->Buffered();
    const char* begin = buffered.data();
    // The line end: the first LF, or a CR before it.
    const auto* lf = static_cast<const char*>(std::memchr(begin, '\n', buffered.size()));
    const char* line_end = lf != nullptr ? lf : begin + buffered.size();
    const auto* cr = static_cast<const char*>(std::memchr(begin, '\r', static_cast<size_t>(line_end - begin)));
    if (cr != nullptr) line_end = cr;
    const size_t n = static_cast<size_t>(line_end - begin);
    if (n < buffered.size() && n + 1 <= options_.max_record_bytes && std::memchr(begin, '"', n) == nullptr) {
      const char* field_start = begin;
      while (true) {
        const auto* next = static_cast<const char*>(
            std::memchr(field_start, delimiter, static_cast<size_t>(line_end - field_start)));
        if (next == nullptr) break;
        NewField().assign(field_start, static_cast<size_t>(next - field_start));
        field_start = next + 1;
      }
      NewField().assign(field_start, static_cast<size_t>(line_end - field_start));
      input_->Skip(n + 1);
      if (*line_end == '\r' && input_->Peek() == '\n') input_->Get();
      ++line_;
      return true;
    }
  }
  State state = State::kFieldStart;
  std::string* field = &NewField();
  size_t bytes = 0;
  while (true) {
    // Inside a field, the bytes up to the next one that means something
    // there are copied as one run (the byte-by-byte steps below would keep
    // them all).
    if (state == State::kUnquoted || state == State::kQuoted) {
      const std::string_view buffered = input_->Buffered();
      size_t run = 0;
      if (state == State::kUnquoted) {
        while (run < buffered.size() && buffered[run] != delimiter && buffered[run] != '\n' &&
               buffered[run] != '\r') {
          ++run;
        }
      } else {
        while (run < buffered.size() && buffered[run] != '"' && buffered[run] != '\n' && buffered[run] != '\r') {
          ++run;
        }
      }
      if (run > 0) {
        if (bytes + run > options_.max_record_bytes) {
          // Stopped where the byte-by-byte reading stops: after the first
          // byte too many (a doubled quote may already have gone past).
          const size_t allowed = bytes < options_.max_record_bytes ? options_.max_record_bytes - bytes : 0;
          input_->Skip(allowed + 1);
          return InvalidArgument(fmt::format(
              "{}:{}: record longer than {} bytes (a quote that is never closed?)", name(), record_line_,
              options_.max_record_bytes));
        }
        bytes += run;
        field->append(buffered.data(), run);
        input_->Skip(run);
      }
    }
    const int c = input_->Get();
    if (c == kEnd) {
      KUEUESIM_RETURN_IF_ERROR(input_->status());
      if (state == State::kQuoted) malformed_ = "quoted field not closed at the end of the file";
      return true;
    }
    if (++bytes > options_.max_record_bytes) {
      return InvalidArgument(fmt::format(
          "{}:{}: record longer than {} bytes (a quote that is never closed?)", name(), record_line_,
          options_.max_record_bytes));
    }
    const char ch = static_cast<char>(c);
    // Line ends: CRLF, LF or a lone CR.
    const bool line_end = ch == '\n' || ch == '\r';
    if (line_end) {
      if (ch == '\r' && input_->Peek() == '\n') {
        input_->Get();
        if (state == State::kQuoted) field->push_back('\r');
        ++line_;
        if (state == State::kQuoted) {
          field->push_back('\n');
          continue;
        }
        return true;
      }
      ++line_;
      if (state == State::kQuoted) {
        field->push_back(ch);
        continue;
      }
      return true;
    }
    switch (state) {
      case State::kFieldStart:
        if (ch == '"') {
          state = State::kQuoted;
        } else if (ch == delimiter) {
          field = &NewField();
        } else {
          field->push_back(ch);
          state = State::kUnquoted;
        }
        break;
      case State::kUnquoted:
        if (ch == delimiter) {
          field = &NewField();
          state = State::kFieldStart;
        } else {
          field->push_back(ch);
        }
        break;
      case State::kQuoted:
        if (ch == '"') {
          if (input_->Peek() == '"') {
            input_->Get();
            ++bytes;
            field->push_back('"');
          } else {
            state = State::kAfterQuote;
          }
        } else {
          field->push_back(ch);
        }
        break;
      case State::kAfterQuote:
        if (ch == delimiter) {
          field = &NewField();
          state = State::kFieldStart;
        } else {
          if (malformed_.empty()) malformed_ = "text after a closing quote";
          field->push_back(ch);
          state = State::kUnquoted;
        }
        break;
    }
  }
}

absl::Status CsvReader::ReadHeader() {
  KUEUESIM_ASSIGN_OR_RETURN(bool any, Next());
  if (!any) return InvalidArgument(fmt::format("{}: the file is empty (no header line)", name()));
  if (!malformed_.empty()) {
    return InvalidArgument(fmt::format("{}:{}: malformed header: {}", name(), record_line_, malformed_));
  }
  header_.assign(fields_.begin(), fields_.begin() + static_cast<std::ptrdiff_t>(size_));
  columns_.clear();
  for (size_t i = 0; i < header_.size(); ++i) {
    if (!columns_.emplace(header_[i], i).second) {
      return InvalidArgument(
          fmt::format("{}:{}: column \"{}\" appears twice in the header", name(), record_line_, header_[i]));
    }
  }
  data_offset_ = input_->offset();
  data_line_ = line_;
  return absl::OkStatus();
}

std::optional<size_t> CsvReader::Column(std::string_view name) const {
  auto it = columns_.find(name);
  if (it == columns_.end()) return std::nullopt;
  return it->second;
}

absl::Status CsvReader::Seek(int64_t offset, int64_t line) {
  KUEUESIM_RETURN_IF_ERROR(input_->Seek(offset));
  line_ = line;
  size_ = 0;
  return absl::OkStatus();
}

absl::Status CsvReader::Rewind() { return Seek(data_offset_, data_line_); }

// --- LineReader ---

absl::StatusOr<std::unique_ptr<LineReader>> LineReader::Open(const std::string& path,
                                                             size_t max_line_bytes) {
  KUEUESIM_ASSIGN_OR_RETURN(auto input, InputBuffer::OpenFile(path));
  return std::unique_ptr<LineReader>(new LineReader(std::move(input), max_line_bytes));
}

std::unique_ptr<LineReader> LineReader::FromString(std::string text, std::string name,
                                                   size_t max_line_bytes) {
  return std::unique_ptr<LineReader>(
      new LineReader(InputBuffer::FromString(std::move(text), std::move(name)), max_line_bytes));
}

LineReader::LineReader(std::unique_ptr<InputBuffer> input, size_t max_line_bytes)
    : input_(std::move(input)), max_line_bytes_(max_line_bytes) {
  start_offset_ = SkipBomAt0(*input_);
}

absl::StatusOr<bool> LineReader::Next() {
  while (true) {
    if (input_->Peek() == kEnd) {
      KUEUESIM_RETURN_IF_ERROR(input_->status());
      return false;
    }
    record_line_ = line_;
    record_offset_ = input_->offset();
    text_.clear();
    while (true) {
      const int c = input_->Get();
      if (c == kEnd) {
        KUEUESIM_RETURN_IF_ERROR(input_->status());
        break;
      }
      if (c == '\n') {
        ++line_;
        break;
      }
      if (text_.size() >= max_line_bytes_) {
        return InvalidArgument(
            fmt::format("{}:{}: line longer than {} bytes", name(), record_line_, max_line_bytes_));
      }
      text_.push_back(static_cast<char>(c));
    }
    if (!text_.empty() && text_.back() == '\r') text_.pop_back();
    bool blank = true;
    for (char ch : text_) blank = blank && IsSpace(ch);
    if (!blank) return true;
  }
}

absl::Status LineReader::Seek(int64_t offset, int64_t line) {
  KUEUESIM_RETURN_IF_ERROR(input_->Seek(offset));
  line_ = line;
  return absl::OkStatus();
}

}  // namespace kueuesim::trace::internal
