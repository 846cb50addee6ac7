// Tests of the reader's JSON fast path (src/doc/json_fast_path.h): it must
// build the very Documents libyaml's path builds, take the inputs it is meant
// for (kubectl's JSON) without falling back, and fall back on everything else
// so that the results and error messages stay libyaml's.
#include "doc/json_fast_path.h"

#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/doc/document.h"
#include "kueuesim/doc/reader.h"
#include "testing/status_matchers.h"

namespace kueuesim::doc {
namespace {

using ::kueuesim::testing::IsOk;
using ::testing::HasSubstr;

// What the fast path alone does with `text`.
struct FastRead {
  internal::FastJsonResult result;
  std::vector<std::string> documents;  // DebugString of each delivered document
};

FastRead ReadFast(std::string_view text, const ReadOptions& options = {}) {
  std::string padded(text);
  padded.append(internal::kJsonPadding, '\0');
  FastRead read;
  read.result = internal::ReadJsonFast(
      std::string_view(padded.data(), text.size()), std::make_shared<const std::string>("test.json"),
      [&read](Document&& document) {
        read.documents.push_back(document.DebugString());
        return absl::OkStatus();
      },
      options);
  return read;
}

// Every document of `text` through the reader, as DebugStrings, or the
// error message.
std::vector<std::string> ReadThroughReader(std::string_view text, ReadOptions options, bool fast) {
  options.json_fast_path = fast;
  std::vector<std::string> out;
  const absl::Status status = ReadString(
      text, "test.json",
      [&out](Document&& document) {
        out.push_back(document.DebugString());
        return absl::OkStatus();
      },
      options);
  if (!status.ok()) out.push_back("error: " + std::string(status.message()));
  return out;
}

// The reader gives the same documents (or error) with and without the fast
// path, whole and with List items split.
void ExpectSameAsLibyaml(std::string_view text) {
  for (const bool split : {false, true}) {
    ReadOptions options;
    options.split_list_items = split;
    EXPECT_EQ(ReadThroughReader(text, options, /*fast=*/true), ReadThroughReader(text, options, /*fast=*/false))
        << "split=" << split << " input:\n"
        << text;
  }
}

constexpr std::string_view kKubectlList = R"({
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Workload",
            "metadata": {
                "annotations": {"note": "caf\u00e9 \"quoted\" \\ back\/slash <\u003c>"},
                "labels": {"kueue.x-k8s.io/job-uid": "5d1f"},
                "name": "job-a",
                "namespace": "team-a"
            },
            "spec": {
                "active": true,
                "podSets": [
                    {"count": 2, "name": "main", "template": {"spec": {"containers": [
                        {"name": "c", "resources": {"requests": {"cpu": "1500m", "nvidia.com/gpu": 8}}}
                    ]}}}
                ],
                "priority": -5,
                "queueName": "lq",
                "ratio": 1.5e-3,
                "nothing": null,
                "empty": {},
                "none": []
            }
        },
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Workload",
            "metadata": {"name": "job-b", "namespace": "team-b"},
            "spec": {"active": false, "podSets": []}
        }
    ],
    "kind": "List",
    "metadata": {"resourceVersion": ""}
}
)";

// Setup: a List as `kubectl get -o json` prints it, with escapes, numbers,
// booleans, null and empty collections.
// Expect: the fast path takes it whole (no fallback) and the reader's
// documents equal libyaml's, whole and split.
TEST(JsonFastPathTest, KubectlListIsReadWithoutFallback) {
  const FastRead whole = ReadFast(kKubectlList);
  EXPECT_FALSE(whole.result.fell_back);
  EXPECT_THAT(whole.result.status, IsOk());
  EXPECT_EQ(whole.documents.size(), 1u);
  ReadOptions split;
  split.split_list_items = true;
  const FastRead pieces = ReadFast(kKubectlList, split);
  EXPECT_FALSE(pieces.result.fell_back);
  EXPECT_EQ(pieces.documents.size(), 3u);  // two items, then the List
  ExpectSameAsLibyaml(kKubectlList);
}

// Setup: JSON whose positions libyaml counts in characters and across every
// line break it knows (CRLF, lone CR, NEL, LS, PS inside strings, tabs).
// Expect: the same lines and columns as libyaml.
TEST(JsonFastPathTest, PositionsMatchLibyaml) {
  ExpectSameAsLibyaml("{\"é\": \"ü\", \"b\": [1,\t2]}");
  ExpectSameAsLibyaml("{\r\n  \"a\": 1,\r\n  \"b\": \"x\"\r\n}");
  ExpectSameAsLibyaml("{\r  \"a\": 1,\r  \"b\": \"x\"\r}");
  ExpectSameAsLibyaml("{\"a\": \"x\xC2\x85y\", \"b\": 2}");
  ExpectSameAsLibyaml("{\"a\": \"x\xE2\x80\xA8y\", \"b\":\n \"\xE2\x80\xA9\", \"c\": 3}");
  ExpectSameAsLibyaml("[\n  {\"k\": \"日本語\", \"v\": \"日本語\"},\n  [\"€\", 1]\n]");
  ExpectSameAsLibyaml("  \n\n  [1, 2]");
}

// Setup: keys around YAML's 1024-character limit for a key (from its quote
// to its ":", in characters), a key whose ":" is on the next line, and a long
// value. Expect: the same documents (or error) as libyaml: the fast path
// leaves what libyaml refuses to libyaml.
TEST(JsonFastPathTest, KeysAsLongAsYamlAllows) {
  for (const size_t length : {1020u, 1021u, 1022u, 1023u, 2000u}) {
    const std::string key(length, 'k');
    ExpectSameAsLibyaml("{\"" + key + "\": 1}");
    ExpectSameAsLibyaml("{\"" + key + "\" : 1}");
    ExpectSameAsLibyaml("{\"a\": 1, \"" + key + "\": [1]}");
  }
  const std::string wide_key(400, 'k');
  ExpectSameAsLibyaml("{\"" + wide_key + "\u00e9\u00e9\": \"" + std::string(3000, 'v') + "\"}");
  std::string accents;
  for (int i = 0; i < 1022; ++i) accents += "\xC3\xA9";  // 1022 characters, 2044 bytes
  ExpectSameAsLibyaml("{\"" + accents + "\": 1}");
  ExpectSameAsLibyaml("{\"" + accents + "e\": 1}");
  ExpectSameAsLibyaml("{\"a\"\n: 1}");
  ExpectSameAsLibyaml("{\"a\"\r\n  : 1}");
}

// Setup: inputs that start like JSON but are not plain JSON, or break a
// limit. Expect: the fast path falls back before delivering anything and the
// reader's result (documents or error) is libyaml's.
TEST(JsonFastPathTest, FallsBackOnWhatIsNotPlainJson) {
  const std::vector<std::string> inputs = {
      "{a: 1}",                              // YAML flow, unquoted key
      "{\"a\": foo bar}",                    // plain scalar with a space
      "{\"a\": tru}",                        // not a JSON literal
      "{\"a\": 01}",                         // not a JSON number
      "{\"a\": 1,}",                         // trailing comma (YAML accepts it)
      "{\"a\": 1}\n---\nb: 2\n",             // a second document
      "{\"a\": 1} # comment\n",              // a comment after the text
      "{\"a\": \"\\x41\"}",                  // a YAML escape
      "{\"a\": \"\\ud800\"}",                // a lone surrogate
      "{\"a\": 1, \"a\": 2}",                // a duplicate key
      "{\"a\": [1, 2}",                      // mismatched brackets
      "{\"a\": \"unterminated}",             // an unterminated string
      "{\"a\": \"tab\there\"}",              // an unescaped control character
      "[1, 2",                               // truncated
      "{\"a\": !!str 1}",                    // a tag
      "{\"a\": &x 1, \"b\": *x}",            // an anchor and an alias
      // Syntax On-Demand alone lets through (found by fuzzing):
      "{\"a\": -1    \"b\": {\"c\": 1}}",        // a missing comma between entries
      "{\"s\": {\n ( \"n\": -1, \"m\": 2}}",     // a stray character before a key
      "[1 2]",                               // a missing comma between elements
      "{\"a\" 1}",                            // a missing colon
      "{\"a\":: 1}",                          // two colons
      "[1,, 2]",                             // two commas
      "{\"a\": 1} x",                         // a word after the text
      // A key: value pair right in an array (YAML reads a one-pair mapping;
      // found by an hour-long fuzz run), alone and as a List's item.
      "[\"a\": 1]",
      "{\"kind\": \"List\", \"items\": [\n \"kind\": \"Workload\",\n ]\n}\n",
      // Tabs outside the flow collections, which YAML takes for indentation
      // (found by the same run).
      "\t\t[\t\t]",
      " \t{\"a\": 1}",
      "[1]\n\t",
      "{\"a\": 1}\n \t\n",
  };
  for (const std::string& input : inputs) {
    const FastRead fast = ReadFast(input);
    EXPECT_TRUE(fast.result.fell_back) << input;
    EXPECT_EQ(fast.result.delivered, 0) << input;
    ExpectSameAsLibyaml(input);
  }
}

// Setup: more than 16 keys (the sorted duplicate check) with one repeated.
// Expect: a fallback, and libyaml's message naming both positions.
// Setup: tabs where YAML allows them: inside the flow collections (on the
// same line or a new one) and right after the root on its line.
// Expect: read fast, as libyaml reads them.
TEST(JsonFastPathTest, TabsInsideTheTextAreReadFast) {
  for (const std::string input : {"[\t1,\t2\t]", "{\"a\":\t[\n\t1]\n}", "[1]\t", "[1] \t\n", "[1]\r\n"}) {
    EXPECT_FALSE(ReadFast(input).result.fell_back) << input;
    ExpectSameAsLibyaml(input);
  }
}

TEST(JsonFastPathTest, DuplicateKeyInLargeMappingFallsBack) {
  std::string text = "{";
  for (int i = 0; i < 40; ++i) text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  text += "\"k7\": 0}";
  EXPECT_TRUE(ReadFast(text).result.fell_back);
  const std::vector<std::string> read = ReadThroughReader(text, {}, /*fast=*/true);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_THAT(read[0], HasSubstr("duplicate key \"k7\""));
  ExpectSameAsLibyaml(text);
}

// Setup: nesting at the depth limit and one deeper; a document of more nodes
// than max_expanded_nodes. Expect: the limit itself is read fast, beyond it
// the fast path falls back and libyaml's error is returned.
TEST(JsonFastPathTest, LimitsFallBack) {
  ReadOptions options;
  options.max_depth = 4;
  EXPECT_FALSE(ReadFast("[[[[1]]]]", options).result.fell_back);
  EXPECT_TRUE(ReadFast("[[[[[1]]]]]", options).result.fell_back);
  EXPECT_THAT(ReadThroughReader("[[[[[1]]]]]", options, /*fast=*/true).back(), HasSubstr("nesting deeper than 4"));
  ReadOptions small;
  small.max_expanded_nodes = 5;
  EXPECT_FALSE(ReadFast("[1, 2, 3, 4]", small).result.fell_back);
  EXPECT_TRUE(ReadFast("[1, 2, 3, 4, 5]", small).result.fell_back);
  EXPECT_EQ(ReadThroughReader("[1, 2, 3, 4, 5]", small, true), ReadThroughReader("[1, 2, 3, 4, 5]", small, false));
}

// Setup: a List whose third item is YAML flow syntax (an unquoted word pair),
// read with items split. Expect: the fast path delivers the first two items,
// falls back, and the reader delivers every document exactly once: the same
// sequence as libyaml alone.
TEST(JsonFastPathTest, FallbackMidListDeliversEachDocumentOnce) {
  const std::string text =
      "{\"kind\": \"List\", \"items\": [{\"a\": 1}, {\"b\": 2}, {\"c\": foo bar}, {\"d\": 4}]}";
  ReadOptions split;
  split.split_list_items = true;
  const FastRead fast = ReadFast(text, split);
  EXPECT_TRUE(fast.result.fell_back);
  EXPECT_EQ(fast.result.delivered, 2);
  const std::vector<std::string> read = ReadThroughReader(text, split, /*fast=*/true);
  EXPECT_EQ(read.size(), 5u);  // four items, then the List
  ExpectSameAsLibyaml(text);
}

// Setup: the callback refuses the second item. Expect: the callback's status
// is returned as is, without a fallback (nothing is read again).
TEST(JsonFastPathTest, CallbackErrorStopsWithoutFallback) {
  ReadOptions split;
  split.split_list_items = true;
  int calls = 0;
  const std::string text = "{\"items\": [1, 2, 3], \"kind\": \"List\"}";
  const absl::Status status = ReadString(
      text, "test.json",
      [&calls](Document&&) {
        return ++calls == 2 ? absl::FailedPreconditionError("stop here") : absl::OkStatus();
      },
      split);
  EXPECT_EQ(status, absl::FailedPreconditionError("stop here"));
  EXPECT_EQ(calls, 2);
}

// Setup: an emoji written as a JSON surrogate pair (Python's json.dumps does
// this). Expect: the fast path reads it as the one character (libyaml's
// path refuses every surrogate escape; a documented difference in favour of
// JSON).
TEST(JsonFastPathTest, SurrogatePairsAreOneCharacter) {
  const auto documents = ReadAllFromString("{\"a\": \"\\ud83d\\ude00\"}", "test.json");
  ASSERT_THAT(documents.status(), IsOk());
  EXPECT_EQ((*documents)[0].root().Get("a").scalar(), "\xF0\x9F\x98\x80");
}

// Setup: a JSON file on disk (the reader reads it whole for the fast path).
// Expect: the same documents as through libyaml, and errors naming the path.
TEST(JsonFastPathTest, FilesAreReadWhole) {
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "/kueuesim-json-fast-path-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".json";
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::fwrite(kKubectlList.data(), 1, kKubectlList.size(), file);
  std::fclose(file);
  for (const bool split : {false, true}) {
    ReadOptions fast;
    fast.split_list_items = split;
    ReadOptions slow = fast;
    slow.json_fast_path = false;
    const auto a = ReadAllFromFile(path, fast);
    const auto b = ReadAllFromFile(path, slow);
    ASSERT_THAT(a.status(), IsOk());
    ASSERT_THAT(b.status(), IsOk());
    ASSERT_EQ(a->size(), b->size());
    for (size_t i = 0; i < a->size(); ++i) EXPECT_EQ((*a)[i].DebugString(), (*b)[i].DebugString());
    EXPECT_EQ((*a)[0].root().file(), path);
  }
  std::remove(path.c_str());
}

// Setup: JSON written into a pipe, read through its /proc/self/fd path (as
// `kueuesim validate <(kubectl get ... -o json)` does). Expect: it is read
// (streamed through libyaml: a pipe cannot be mapped, nor rewound after a
// peek), with the same documents as from a string.
TEST(JsonFastPathTest, PipesAreStreamed) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string text = "{\"kind\": \"List\", \"items\": [{\"a\": 1}, {\"b\": [true, null]}]}\n";
  ASSERT_EQ(::write(fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fds[1]);
  ReadOptions split;
  split.split_list_items = true;
  const auto from_pipe = ReadAllFromFile("/proc/self/fd/" + std::to_string(fds[0]), split);
  ::close(fds[0]);
  ASSERT_THAT(from_pipe.status(), IsOk());
  const auto from_string = ReadAllFromString(text, "x", split);
  ASSERT_THAT(from_string.status(), IsOk());
  ASSERT_EQ(from_pipe->size(), 3u);
  for (size_t i = 0; i < from_pipe->size(); ++i) {
    EXPECT_EQ((*from_pipe)[i].DebugString(), (*from_string)[i].DebugString());
  }
}

}  // namespace
}  // namespace kueuesim::doc
