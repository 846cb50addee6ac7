// Tests for the streaming readers of src/trace/csv_reader.h and
// src/trace/input_buffer.h: RFC 4180 quoting, line ends, BOM, empty lines,
// malformed records, line numbers and offsets, seeking, headers, tiny
// buffers, and JSON Lines.
#include "trace/csv_reader.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"
#include "trace/input_buffer.h"
#include "trace/trace_test_util.h"

namespace kueuesim::trace::internal {
namespace {

using ::kueuesim::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Record {
  std::vector<std::string> fields;
  int64_t line;
  std::string malformed;
};

std::vector<Record> ReadRecords(CsvReader& reader) {
  std::vector<Record> out;
  while (true) {
    auto more = reader.Next();
    EXPECT_TRUE(more.ok()) << more.status();
    if (!more.ok() || !*more) break;
    Record record{{}, reader.line(), reader.malformed()};
    for (size_t i = 0; i < reader.size(); ++i) record.fields.push_back(reader.field(i));
    out.push_back(std::move(record));
  }
  return out;
}

std::vector<Record> Parse(const std::string& text, size_t capacity = InputBuffer::kDefaultCapacity) {
  CsvOptions options;
  options.buffer_capacity = capacity;
  auto reader = CsvReader::FromString(text, "t.csv", options);
  return ReadRecords(*reader);
}

// Setup: plain records, an empty field, a trailing delimiter and no final
// line end. Expectation: fields split on commas, empty fields kept, lines
// 1..3.
TEST(CsvReaderTest, PlainFields) {
  auto records = Parse("a,b,c\n1,,3\nx,y,");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_THAT(records[0].fields, ElementsAre("a", "b", "c"));
  EXPECT_THAT(records[1].fields, ElementsAre("1", "", "3"));
  EXPECT_THAT(records[2].fields, ElementsAre("x", "y", ""));
  EXPECT_EQ(records[2].line, 3);
}

// Setup: quoted fields holding a comma, doubled quotes, LF and CRLF line
// breaks, and an empty quoted field. Expectation: the quoted text exactly
// (quotes undoubled, line breaks kept), and the next record's line counts the
// embedded line breaks.
TEST(CsvReaderTest, QuotedFieldsWithDelimitersQuotesAndNewlines) {
  auto records = Parse("\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"crlf\r\ninside\",\"\"\nnext,1\n");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_THAT(records[0].fields, ElementsAre("a,b", "say \"hi\"", "two\nlines", "crlf\r\ninside", ""));
  EXPECT_EQ(records[0].line, 1);
  EXPECT_EQ(records[0].malformed, "");
  EXPECT_THAT(records[1].fields, ElementsAre("next", "1"));
  EXPECT_EQ(records[1].line, 4);  // two embedded line breaks: the first record spans lines 1-3
}

// Setup: CRLF line ends, a lone CR line end, empty lines (LF and CRLF)
// between records and at the end. Expectation: three records; empty lines
// are not records but still count for line numbers.
TEST(CsvReaderTest, LineEndsAndEmptyLines) {
  auto records = Parse("h1,h2\r\n\r\nv1,v2\r\rv3,v4\n\n\n");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].line, 1);
  EXPECT_THAT(records[1].fields, ElementsAre("v1", "v2"));
  EXPECT_EQ(records[1].line, 3);
  EXPECT_THAT(records[2].fields, ElementsAre("v3", "v4"));
  EXPECT_EQ(records[2].line, 5);
}

// Setup: a UTF-8 byte-order mark before the header. Expectation: the BOM
// is not part of the first column name.
TEST(CsvReaderTest, ByteOrderMarkIsSkipped) {
  auto reader = CsvReader::FromString("\xEF\xBB\xBFname,time\nx,1\n", "bom.csv");
  ASSERT_THAT(reader->ReadHeader(), ::kueuesim::testing::IsOk());
  EXPECT_THAT(reader->header(), ElementsAre("name", "time"));
  EXPECT_EQ(reader->Column("name"), 0u);
  // A lone 0xEF that is not a BOM stays.
  auto records = Parse("\xEFx,1\n");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].fields[0], "\xEFx");
}

// Setup: text after a closing quote, a quote inside an unquoted field, and
// a quoted field left open at the end of the file. Expectation: lenient
// fields (as Python's csv) with the first and last record flagged as
// malformed; the quote inside an unquoted field is kept without a flag.
TEST(CsvReaderTest, MalformedQuoting) {
  auto records = Parse("\"ab\"c,d\nx\"y,z\n\"open,1\n2\n");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_THAT(records[0].fields, ElementsAre("abc", "d"));
  EXPECT_EQ(records[0].malformed, "text after a closing quote");
  EXPECT_THAT(records[1].fields, ElementsAre("x\"y", "z"));
  EXPECT_EQ(records[1].malformed, "");
  EXPECT_THAT(records[2].fields, ElementsAre("open,1\n2\n"));
  EXPECT_EQ(records[2].malformed, "quoted field not closed at the end of the file");
  EXPECT_EQ(records[2].line, 3);
}

// Setup: a record longer than max_record_bytes (an unclosed quote).
// Expectation: an error naming the file and the line, not unbounded memory.
TEST(CsvReaderTest, OverlongRecordIsAnError) {
  CsvOptions options;
  options.max_record_bytes = 64;
  auto reader = CsvReader::FromString("ok,1\n\"" + std::string(200, 'x') + "\n", "long.csv", options);
  ASSERT_TRUE(*reader->Next());
  EXPECT_THAT(reader->Next(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("long.csv:2: record longer")));
}

// Setup: the same text through a 16-byte buffer (refilled many times,
// quotes and CRLF split across refills). Expectation: identical records.
TEST(CsvReaderTest, TinyBufferGivesTheSameRecords) {
  const std::string text = "name,\"quoted, with \"\"quotes\"\"\"\r\nrow-1,\"multi\r\nline\"\r\nrow-2,plain\r\n";
  auto big = Parse(text);
  auto small = Parse(text, 16);
  ASSERT_EQ(big.size(), small.size());
  for (size_t i = 0; i < big.size(); ++i) {
    EXPECT_EQ(big[i].fields, small[i].fields);
    EXPECT_EQ(big[i].line, small[i].line);
  }
  EXPECT_EQ(small[2].line, 4);
}

// Setup: a header, then records read once for their offsets, then Seek
// back to each in reverse order. Expectation: the same record and line
// again; Rewind returns to the first data record.
TEST(CsvReaderTest, SeekAndRewind) {
  CsvOptions options;
  options.buffer_capacity = 32;
  auto reader = CsvReader::FromString("a,b\n1,\"x\ny\"\n2,z\n3,w\n", "s.csv", options);
  ASSERT_THAT(reader->ReadHeader(), ::kueuesim::testing::IsOk());
  std::vector<std::pair<int64_t, int64_t>> positions;
  std::vector<std::string> first;
  while (*reader->Next()) {
    positions.push_back({reader->offset(), reader->line()});
    first.push_back(reader->field(0));
  }
  ASSERT_EQ(positions.size(), 3u);
  EXPECT_EQ(positions[1].second, 4);
  for (size_t i = positions.size(); i-- > 0;) {
    ASSERT_THAT(reader->Seek(positions[i].first, positions[i].second), ::kueuesim::testing::IsOk());
    ASSERT_TRUE(*reader->Next());
    EXPECT_EQ(reader->field(0), first[i]);
    EXPECT_EQ(reader->line(), positions[i].second);
  }
  ASSERT_THAT(reader->Rewind(), ::kueuesim::testing::IsOk());
  ASSERT_TRUE(*reader->Next());
  EXPECT_EQ(reader->field(0), "1");
  EXPECT_EQ(reader->line(), 2);
}

// Setup: headers that are empty, repeat a name, or are malformed.
// Expectation: errors naming the file (and line); Get on a short row is "".
TEST(CsvReaderTest, HeaderErrorsAndColumnLookup) {
  EXPECT_THAT(CsvReader::FromString("", "e.csv")->ReadHeader(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("e.csv: the file is empty")));
  EXPECT_THAT(CsvReader::FromString("a,b,a\n", "d.csv")->ReadHeader(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("d.csv:1: column \"a\" appears twice")));
  EXPECT_THAT(CsvReader::FromString("\"a\"b,c\n", "m.csv")->ReadHeader(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("malformed header")));
  auto reader = CsvReader::FromString("Name,name\nx\n", "c.csv");
  ASSERT_THAT(reader->ReadHeader(), ::kueuesim::testing::IsOk());
  EXPECT_EQ(reader->Column("Name"), 0u);  // case-sensitive
  EXPECT_EQ(reader->Column("name"), 1u);
  EXPECT_FALSE(reader->Column("NAME").has_value());
  ASSERT_TRUE(*reader->Next());
  EXPECT_EQ(reader->Get(1), "");
}

// Setup: a file path that does not exist, and a directory. Expectation:
// NotFound and InvalidArgument naming the path.
TEST(CsvReaderTest, OpenErrors) {
  EXPECT_THAT(CsvReader::Open("/nonexistent/trace.csv"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent/trace.csv")));
  EXPECT_THAT(CsvReader::Open(::testing::TempDir()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is a directory")));
}

// Setup: a real file on disk larger than the buffer (5,000 rows through a
// 1 KiB buffer). Expectation: every row read once, in order, lines right.
TEST(CsvReaderTest, ReadsAFileIncrementally) {
  std::string text = "i,s\n";
  for (int i = 0; i < 5000; ++i) text += std::to_string(i) + ",\"v" + std::to_string(i) + "\"\n";
  const std::string path = testing::WriteTemp("incremental.csv", text);
  CsvOptions options;
  options.buffer_capacity = 1024;
  auto reader = CsvReader::Open(path, options);
  ASSERT_TRUE(reader.ok()) << reader.status();
  ASSERT_THAT((*reader)->ReadHeader(), ::kueuesim::testing::IsOk());
  int count = 0;
  while (*(*reader)->Next()) {
    ASSERT_EQ((*reader)->field(0), std::to_string(count));
    ASSERT_EQ((*reader)->line(), count + 2);
    ++count;
  }
  EXPECT_EQ(count, 5000);
}

// Setup: JSON Lines with CRLF, blank and white-space-only lines, no final
// line end. Expectation: three lines with their line numbers, CR removed;
// Seek returns to a line.
TEST(LineReaderTest, LinesPositionsAndSeek) {
  auto reader = LineReader::FromString("{\"a\":1}\r\n\n   \n{\"b\":2}\n{\"c\":3}", "l.jsonl");
  std::vector<std::pair<std::string, int64_t>> lines;
  std::vector<int64_t> offsets;
  while (*reader->Next()) {
    lines.push_back({reader->text(), reader->line()});
    offsets.push_back(reader->offset());
  }
  EXPECT_THAT(lines, ElementsAre(std::pair<std::string, int64_t>{"{\"a\":1}", 1},
                                 std::pair<std::string, int64_t>{"{\"b\":2}", 4},
                                 std::pair<std::string, int64_t>{"{\"c\":3}", 5}));
  ASSERT_THAT(reader->Seek(offsets[1], 4), ::kueuesim::testing::IsOk());
  ASSERT_TRUE(*reader->Next());
  EXPECT_EQ(reader->text(), "{\"b\":2}");
  EXPECT_EQ(reader->line(), 4);
}

// Setup: an InputBuffer over a text, read partly, then ReadAt and Seek.
// Expectation: ReadAt does not move the cursor; reading past the end is
// OutOfRange.
TEST(InputBufferTest, ReadAtAndSeek) {
  auto input = InputBuffer::FromString("0123456789", "b", 4);
  EXPECT_EQ(input->Get(), '0');
  EXPECT_EQ(input->Get(), '1');
  EXPECT_EQ(*input->ReadAt(5, 3), "567");
  EXPECT_EQ(input->Get(), '2');
  ASSERT_THAT(input->Seek(9), ::kueuesim::testing::IsOk());
  EXPECT_EQ(input->Get(), '9');
  EXPECT_EQ(input->Get(), -1);
  EXPECT_EQ(input->Peek(), -1);
  ASSERT_THAT(input->Seek(0), ::kueuesim::testing::IsOk());
  EXPECT_EQ(input->Peek(), '0');
  EXPECT_THAT(input->ReadAt(8, 5), StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("file ended")));
}

// Setup: a small trace file opened, then overwritten on disk before any
// read. Expectation: the reads give the content at open time: a file under
// kWholeFileLimit is read once, whole, at OpenFile (no read per record).
TEST(InputBufferTest, SmallFilesAreReadWholeAtOpen) {
  const std::string path = ::testing::TempDir() + "/input_buffer_whole.csv";
  std::ofstream(path) << "a,b\n1,2\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto input, InputBuffer::OpenFile(path, 4));
  std::ofstream(path) << "x,y\n9,9\n";
  std::string read;
  for (int c = input->Get(); c != -1; c = input->Get()) read.push_back(static_cast<char>(c));
  EXPECT_EQ(read, "a,b\n1,2\n");
  EXPECT_EQ(*input->ReadAt(4, 3), "1,2");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace kueuesim::trace::internal
