// Tests of the YAML/JSON reader (kueuesim/doc/reader.h) and of the Node
// accessors of kueuesim/doc/document.h: structure, positions, styles, tags,
// anchors, merge keys, and the refusal of malformed or hostile input (deep
// nesting, alias bombs, random bytes) with "<file>:<line>:<column>: " errors.
#include "kueuesim/doc/reader.h"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/doc/document.h"
#include "testing/status_matchers.h"

namespace kueuesim::doc {
namespace {

using ::kueuesim::testing::IsOk;
using ::kueuesim::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Reads `text` as "test.yaml" and returns the documents.
absl::StatusOr<std::vector<Document>> Read(std::string_view text, const ReadOptions& options = {}) {
  return ReadAllFromString(text, "test.yaml", options);
}

// The keys of a mapping, in order.
std::vector<std::string> Keys(const Node& node) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < node.size(); ++i) keys.emplace_back(node.key(i));
  return keys;
}

// Writes `text` to a fresh file under the test temporary directory.
std::string WriteTempFile(const std::string& name, std::string_view text) {
  // Each test runs in its own process, several at once: a directory per process.
  const std::string dir = ::testing::TempDir() + "/kueuesim-doc-test-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  return path;
}

// Setup: a stream of three documents separated by "---" and closed by "...".
// Expect: three documents in order, indexed 0..2, each naming the file.
TEST(ReaderTest, MultiDocumentStream) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read("a: 1\n---\nb: 2\n...\n---\nc: 3\n...\n"));
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0].root().Get("a").scalar(), "1");
  EXPECT_EQ(docs[1].root().Get("b").scalar(), "2");
  EXPECT_EQ(docs[2].root().Get("c").scalar(), "3");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(docs[i].index(), i);
    EXPECT_EQ(docs[i].file(), "test.yaml");
    EXPECT_EQ(docs[i].root().file(), "test.yaml");
  }
}

// Setup: empty documents ("---" with nothing or only a comment after it)
// between real ones. Expect: only the real documents are returned (and the
// callback never sees an empty one), with indices counting the skipped ones.
TEST(ReaderTest, EmptyDocumentsAreSkippedButCounted) {
  const std::string text =
      "---\n---\n# just a comment\n---\na: 1\n--- # trailing\n---\nb: 2\n---\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read(text));
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0].index(), 2);
  EXPECT_EQ(docs[0].root().Get("a").scalar(), "1");
  EXPECT_EQ(docs[1].index(), 4);
  EXPECT_EQ(docs[1].root().Get("b").scalar(), "2");

  int calls = 0;
  EXPECT_THAT(ReadString(text, "test.yaml",
                         [&calls](Document&& doc) {
                           ++calls;
                           EXPECT_TRUE(doc.root().valid());
                           return absl::OkStatus();
                         }),
              IsOk());
  EXPECT_EQ(calls, 2);
}

// Setup: documents whose only content is an explicit null or empty string.
// Expect: they are not "empty" (something was written) and are kept.
TEST(ReaderTest, ExplicitNullDocumentsAreKept) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read("--- ~\n--- ''\n--- !!null\n"));
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_TRUE(docs[0].root().IsNull());
  EXPECT_FALSE(docs[1].root().IsNull());
  EXPECT_EQ(docs[1].root().scalar(), "");
  EXPECT_TRUE(docs[2].root().IsNull());
}

// Setup: empty input, whitespace only, and a stream of only comments.
// Expect: zero documents, no error.
TEST(ReaderTest, EmptyInputAndOnlyCommentsGiveNoDocuments) {
  for (const char* text : {"", "\n\n  \n", "# a comment\n# another\n", "# no newline"}) {
    KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read(text));
    EXPECT_TRUE(docs.empty()) << "input: " << text;
  }
}

// Setup: a kubectl "kind: List" with two items.
// Expect: items are reachable through Get/at, with their nested fields.
TEST(ReaderTest, KubectlListStyle) {
  const char* text = R"(apiVersion: v1
kind: List
items:
- apiVersion: kueue.x-k8s.io/v1beta1
  kind: ClusterQueue
  metadata:
    name: cq-a
  spec:
    resourceGroups:
    - coveredResources: ["cpu", "memory"]
      flavors:
      - name: default
        resources:
        - name: cpu
          nominalQuota: 9
- apiVersion: kueue.x-k8s.io/v1beta1
  kind: LocalQueue
  metadata:
    name: lq
    namespace: team-a
  spec:
    clusterQueue: cq-a
metadata:
  resourceVersion: ""
)";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read(text));
  ASSERT_EQ(docs.size(), 1u);
  const Node root = docs[0].root();
  EXPECT_EQ(root.Get("kind").scalar(), "List");
  const Node items = root.Get("items");
  ASSERT_TRUE(items.IsSequence());
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items.at(0).Get("metadata").Get("name").scalar(), "cq-a");
  const Node group = items.at(0).Get("spec").Get("resourceGroups").at(0);
  EXPECT_EQ(group.Get("coveredResources").size(), 2u);
  EXPECT_EQ(group.Get("coveredResources").at(1).scalar(), "memory");
  EXPECT_EQ(group.Get("flavors").at(0).Get("resources").at(0).Get("nominalQuota").scalar(), "9");
  EXPECT_EQ(items.at(1).Get("spec").Get("clusterQueue").scalar(), "cq-a");
  EXPECT_EQ(root.Get("metadata").Get("resourceVersion").scalar(), "");
  EXPECT_FALSE(root.Get("metadata").Get("resourceVersion").IsNull());
}

// Setup: nested mappings and sequences.
// Expect: kinds, sizes, key/key_node/value by index, Get; absent lookups and
// lookups on the wrong kind give invalid nodes, which read as empty.
TEST(ReaderTest, NestedLookups) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read("m:\n  x: 1\n  y: [a, b, {c: d}]\ns: str\n"));
  const Node root = docs[0].root();
  ASSERT_TRUE(root.IsMapping());
  EXPECT_EQ(root.kind(), NodeKind::kMapping);
  EXPECT_EQ(root.size(), 2u);
  EXPECT_THAT(Keys(root), ElementsAre("m", "s"));
  EXPECT_EQ(root.key_node(1).scalar(), "s");
  EXPECT_EQ(root.value(1).scalar(), "str");
  const Node m = root.Get("m");
  EXPECT_THAT(Keys(m), ElementsAre("x", "y"));
  const Node y = m.Get("y");
  ASSERT_TRUE(y.IsSequence());
  EXPECT_EQ(y.size(), 3u);
  EXPECT_EQ(y.at(0).scalar(), "a");
  EXPECT_TRUE(y.at(2).IsMapping());
  EXPECT_EQ(y.at(2).Get("c").scalar(), "d");

  EXPECT_FALSE(root.Get("missing").valid());
  EXPECT_FALSE(root.Get("missing"));
  EXPECT_FALSE(root.Get("missing").Get("deeper").valid());
  EXPECT_FALSE(y.Get("a").valid());           // not a mapping
  EXPECT_FALSE(y.at(3).valid());              // out of range
  EXPECT_FALSE(root.Get("s").at(0).valid());  // not a sequence
  EXPECT_EQ(root.Get("s").size(), 0u);        // scalars have no elements
  const Node invalid;
  EXPECT_FALSE(invalid.IsScalar());
  EXPECT_FALSE(invalid.IsNull());
  EXPECT_EQ(invalid.size(), 0u);
  EXPECT_EQ(invalid.scalar(), "");
  EXPECT_EQ(invalid.file(), "");
  EXPECT_EQ(invalid.position().line, 0);
}

// Setup: block and flow content at known places.
// Expect: 1-based line and column of each node's first character.
TEST(ReaderTest, Positions) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read("# c\nkey:\n  inner: value\n  list: [x, \"y\"]\n"));
  const Node root = docs[0].root();
  EXPECT_EQ(root.position().line, 2);
  EXPECT_EQ(root.position().column, 1);
  EXPECT_EQ(root.key_node(0).position().line, 2);
  const Node inner = root.Get("key").Get("inner");
  EXPECT_EQ(inner.position().line, 3);
  EXPECT_EQ(inner.position().column, 10);
  const Node list = root.Get("key").Get("list");
  EXPECT_EQ(list.position().line, 4);
  EXPECT_EQ(list.position().column, 9);
  EXPECT_EQ(list.at(1).position().column, 13);
}

// Setup: the same text written plain, single/double quoted, literal, folded.
// Expect: plain is kPlain, every other style is kQuoted; values are decoded.
TEST(ReaderTest, ScalarStyles) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(
      auto docs, Read("p: 10\ns: '10'\nd: \"1\\t0\"\nl: |\n  line1\n  line2\nf: >\n  a\n  b\n"));
  const Node root = docs[0].root();
  EXPECT_EQ(root.Get("p").style(), ScalarStyle::kPlain);
  EXPECT_EQ(root.Get("s").style(), ScalarStyle::kQuoted);
  EXPECT_EQ(root.Get("s").scalar(), "10");
  EXPECT_EQ(root.Get("d").style(), ScalarStyle::kQuoted);
  EXPECT_EQ(root.Get("d").scalar(), "1\t0");
  EXPECT_EQ(root.Get("l").style(), ScalarStyle::kQuoted);
  EXPECT_EQ(root.Get("l").scalar(), "line1\nline2\n");
  EXPECT_EQ(root.Get("f").style(), ScalarStyle::kQuoted);
  EXPECT_EQ(root.Get("f").scalar(), "a b\n");
  EXPECT_EQ(root.key_node(0).style(), ScalarStyle::kPlain);
}

// Setup: null spellings, quoted and tagged look-alikes, and empty values.
// Expect: IsNull only for plain "", "~", "null", "Null", "NULL" without a
// tag other than !!null.
TEST(ReaderTest, Nulls) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read(R"(empty:
tilde: ~
lower: null
title: Null
upper: NULL
mixed: nUll
quoted: "null"
single: ''
string_tag: !!str null
null_tag: !!null ""
flow: {a: , b: null}
)"));
  const Node root = docs[0].root();
  for (const char* key : {"empty", "tilde", "lower", "title", "upper"}) {
    EXPECT_TRUE(root.Get(key).IsNull()) << key;
  }
  for (const char* key : {"mixed", "quoted", "single", "string_tag", "null_tag", "absent"}) {
    EXPECT_FALSE(root.Get(key).IsNull()) << key;
  }
  EXPECT_TRUE(root.Get("flow").Get("a").IsNull());
  EXPECT_TRUE(root.Get("flow").Get("b").IsNull());
  EXPECT_FALSE(root.IsNull());  // a mapping
}

// Setup: scalars and collections with explicit tags, via "!!" and "!".
// Expect: tags are kept in shorthand form; untagged nodes have "".
TEST(ReaderTest, Tags) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(
      auto docs, Read("a: !!str 123\nb: !custom x\nc: plain\nd: !!map {k: v}\ne: !seqtag [1]\n"
                      "f: !<tag:example.com,2024:t> v\ng: ! nonspecific\n"));
  const Node root = docs[0].root();
  EXPECT_EQ(root.Get("a").tag(), "!!str");
  EXPECT_EQ(root.Get("a").scalar(), "123");
  EXPECT_EQ(root.Get("b").tag(), "!custom");
  EXPECT_EQ(root.Get("c").tag(), "");
  EXPECT_EQ(root.Get("d").tag(), "!!map");
  EXPECT_EQ(root.Get("d").Get("k").scalar(), "v");
  EXPECT_EQ(root.Get("e").tag(), "!seqtag");
  EXPECT_EQ(root.Get("f").tag(), "tag:example.com,2024:t");
  EXPECT_EQ(root.Get("g").tag(), "!");
  EXPECT_EQ(root.tag(), "");
}

// Setup: an anchored mapping and scalar used through aliases.
// Expect: an alias is the anchored node itself (same position, same
// content), a later anchor of the same name replaces the earlier one.
TEST(ReaderTest, AnchorsAndAliasesShareNodes) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read(R"(base: &res
  cpu: 1
  memory: 2Gi
name: &n worker
copy: *res
list: [*n, *res]
again: &n other
last: *n
)"));
  const Node root = docs[0].root();
  const Node base = root.Get("base");
  const Node copy = root.Get("copy");
  EXPECT_EQ(copy.Get("memory").scalar(), "2Gi");
  EXPECT_EQ(copy.position().line, base.position().line);
  EXPECT_EQ(copy.position().column, base.position().column);
  EXPECT_EQ(root.Get("list").at(0).scalar(), "worker");
  EXPECT_EQ(root.Get("list").at(0).position().line, 4);
  EXPECT_EQ(root.Get("list").at(1).Get("cpu").scalar(), "1");
  EXPECT_EQ(root.Get("last").scalar(), "other");
  // Nodes are shared: the arena holds the anchored subtree once.
  EXPECT_LT(docs[0].nodes().size(), 25u);
}

// Setup: an alias whose anchor is not defined (or defined only later, or in
// an earlier document), and an alias inside its own anchored node.
// Expect: InvalidArgument naming the alias at its position.
TEST(ReaderTest, BadAliases) {
  EXPECT_THAT(Read("a: *nope\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, "test.yaml:1:4: unknown alias *nope"));
  EXPECT_THAT(Read("a: *x\nb: &x 1\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown alias *x")));
  EXPECT_THAT(Read("a: &x 1\n---\nb: *x\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, "test.yaml:3:4: unknown alias *x"));
  EXPECT_THAT(Read("&a [1, *a]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("test.yaml:1:8: alias *a refers to a node that contains it")));
}

// Setup: merge keys "<<" with one alias, a list of aliases, an inline
// mapping, and explicit keys before and after the merge.
// Expect: entries merged in place of "<<", explicit keys win wherever they
// stand, earlier merged mappings win over later ones, "<<" is not kept.
TEST(ReaderTest, MergeKeys) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read(R"(defaults: &defaults
  cpu: 1
  memory: 1Gi
  gpu: 0
big: &big
  cpu: 8
  disk: 100Gi
one:
  name: one
  <<: *defaults
  memory: 4Gi
two:
  <<: [*big, *defaults]
  name: two
three:
  cpu: 2
  <<: {cpu: 3, zone: a}
quoted:
  "<<": not a merge
)"));
  const Node root = docs[0].root();
  const Node one = root.Get("one");
  EXPECT_THAT(Keys(one), ElementsAre("name", "cpu", "gpu", "memory"));
  EXPECT_EQ(one.Get("cpu").scalar(), "1");
  EXPECT_EQ(one.Get("memory").scalar(), "4Gi");
  EXPECT_FALSE(one.Get("<<").valid());

  const Node two = root.Get("two");
  EXPECT_THAT(Keys(two), ElementsAre("cpu", "disk", "memory", "gpu", "name"));
  EXPECT_EQ(two.Get("cpu").scalar(), "8");  // *big comes first
  EXPECT_EQ(two.Get("memory").scalar(), "1Gi");

  const Node three = root.Get("three");
  EXPECT_THAT(Keys(three), ElementsAre("cpu", "zone"));
  EXPECT_EQ(three.Get("cpu").scalar(), "2");

  EXPECT_EQ(root.Get("quoted").Get("<<").scalar(), "not a merge");
  // The anchored mapping itself is unchanged.
  EXPECT_THAT(Keys(root.Get("defaults")), ElementsAre("cpu", "memory", "gpu"));
}

// Setup: a merge into a mapping that itself merged, three levels deep.
// Expect: merges compose (the inner merge was already resolved).
TEST(ReaderTest, MergeKeysCompose) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read(R"(a: &a {x: 1, y: 1}
b: &b {<<: *a, y: 2, z: 2}
c: {<<: *b, z: 3}
)"));
  const Node c = docs[0].root().Get("c");
  EXPECT_THAT(Keys(c), ElementsAre("x", "y", "z"));
  EXPECT_EQ(c.Get("x").scalar(), "1");
  EXPECT_EQ(c.Get("y").scalar(), "2");
  EXPECT_EQ(c.Get("z").scalar(), "3");
}

// Setup: merge keys whose value is a scalar or a sequence holding a scalar.
// Expect: InvalidArgument at the offending value.
TEST(ReaderTest, MergeKeyNeedsMappings) {
  EXPECT_THAT(Read("a:\n  <<: 3\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith("test.yaml:2:7: merge key \"<<\" needs a mapping")));
  EXPECT_THAT(Read("m: &m {k: v}\na:\n  <<: [*m, x]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith("test.yaml:3:12: merge key \"<<\" needs a mapping")));
}

// Setup: a key repeated in one mapping (small, large, flow, JSON), and keys
// repeated only through a merge.
// Expect: explicit duplicates are InvalidArgument naming the key and both
// positions; a merged key overridden by an explicit one is fine.
TEST(ReaderTest, DuplicateKeys) {
  EXPECT_THAT(Read("a: 1\nb: 2\na: 3\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "test.yaml:3:1: duplicate key \"a\" (first at line 1, column 1)"));
  EXPECT_THAT(Read("x:\n  k: 1\n  'k': 2\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "test.yaml:3:3: duplicate key \"k\" (first at line 2, column 3)"));
  EXPECT_THAT(Read(R"({"name": "a", "name": "b"})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("duplicate key \"name\"")));

  // More keys than the quadratic check handles; two duplicated names: the one
  // repeated first (k7 at line 40) is reported.
  std::string big;
  for (int i = 0; i < 40; ++i) big += "k" + std::to_string(i) + ": v\n";
  big += "k7: again\nk3: again\n";
  EXPECT_THAT(Read(big),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "test.yaml:41:1: duplicate key \"k7\" (first at line 8, column 1)"));
  std::string big_ok;
  for (int i = 0; i < 1000; ++i) big_ok += "k" + std::to_string(i) + ": v\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read(big_ok));
  EXPECT_EQ(docs[0].root().size(), 1000u);
  EXPECT_EQ(docs[0].root().Get("k999").scalar(), "v");

  EXPECT_THAT(Read("d: &d {a: 1}\nm:\n  <<: *d\n  a: 2\n"), IsOk());
  EXPECT_THAT(Read("d: &d {a: 1}\nm:\n  <<: *d\n  <<: *d\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("duplicate key \"<<\"")));
}

// Setup: mapping keys that are a sequence, a mapping, or an alias to one.
// Expect: InvalidArgument "mapping key must be a scalar" at the key.
TEST(ReaderTest, NonScalarKeys) {
  EXPECT_THAT(Read("? [a, b]\n: c\n"), StatusIs(absl::StatusCode::kInvalidArgument,
                                                "test.yaml:1:3: mapping key must be a scalar"));
  EXPECT_THAT(Read("{{a: b}: c}\n"), StatusIs(absl::StatusCode::kInvalidArgument,
                                              "test.yaml:1:2: mapping key must be a scalar"));
  EXPECT_THAT(
      Read("x: &s [1]\n? *s\n: v\n"),
      StatusIs(absl::StatusCode::kInvalidArgument, "test.yaml:2:3: mapping key must be a scalar"));
  // An alias to a scalar is a fine key.
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read("x: &k name\n*k : v\n"));
  EXPECT_EQ(docs[0].root().Get("name").scalar(), "v");
}

// Setup: a file cut in the middle of a flow sequence inside a mapping.
// Expect: InvalidArgument with file, line and column and libyaml's problem.
TEST(ReaderTest, TruncatedInput) {
  EXPECT_THAT(
      Read("a:\n  b: [1, 2"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(StartsWith("test.yaml:3:1: "), HasSubstr("did not find expected ',' or ']'"),
                     HasSubstr("while parsing a flow sequence at line 2, column 6"))));
  EXPECT_THAT(Read("a:\n  b: 1\n c: 2\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("test.yaml:3:")));
}

// Setup: a double-quoted scalar that never ends.
// Expect: InvalidArgument pointing into the input, mentioning the quoted scalar.
TEST(ReaderTest, UnterminatedQuote) {
  EXPECT_THAT(Read("a: 1\nb: \"abc\nc: 2\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(StartsWith("test.yaml:"), HasSubstr("quoted scalar"),
                             HasSubstr("line 2, column 4"))));
}

// Setup: 100,000 nested "[" (flow), then 100,000 nested "- " (block) on one line.
// Expect: fails fast with the depth error at the 257th level.
TEST(ReaderTest, DeepNestingIsRefused) {
  const std::string flow(100000, '[');
  EXPECT_THAT(Read(flow), StatusIs(absl::StatusCode::kInvalidArgument,
                                   "test.yaml:1:257: nesting deeper than 256 levels"));
  std::string block;
  for (int i = 0; i < 100000; ++i) block += "- ";
  block += "x\n";
  EXPECT_THAT(Read(block), StatusIs(absl::StatusCode::kInvalidArgument,
                                    "test.yaml:1:513: nesting deeper than 256 levels"));
  std::string mappings;
  for (int i = 0; i < 100000; ++i) mappings += "{a: ";
  EXPECT_THAT(Read(mappings), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("nesting deeper than 256 levels")));
}

// Setup: nesting exactly at the limit and one beyond it, with a custom limit.
// Expect: max_depth levels are accepted, max_depth + 1 refused.
TEST(ReaderTest, DepthLimitIsExact) {
  auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  EXPECT_THAT(Read(nested(256)), IsOk());
  EXPECT_THAT(Read(nested(257)), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("nesting deeper than 256 levels")));
  ReadOptions options;
  options.max_depth = 3;
  EXPECT_THAT(Read("a: {b: [1]}\n", options), IsOk());
  EXPECT_THAT(
      Read("a: {b: [[1]]}\n", options),
      StatusIs(absl::StatusCode::kInvalidArgument, "test.yaml:1:9: nesting deeper than 3 levels"));
}

// Setup: the "billion laughs" stream: 9 levels of 10 aliases to the level
// below (10^9 scalars when expanded).
// Expect: fails fast with the expansion error as soon as an open collection
// would exceed the default limit (20 million): at the second alias of h
// (g expands to 11,111,111 nodes), long before i; nothing is expanded.
TEST(ReaderTest, BillionLaughsIsRefused) {
  std::string text =
      "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    const char prev = static_cast<char>(c - 1);
    text += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) text += std::string(i ? ",*" : "*") + prev;
    text += "]\n";
  }
  EXPECT_THAT(Read(text), StatusIs(absl::StatusCode::kInvalidArgument,
                                   AllOf(StartsWith("test.yaml:8:11: "),
                                         HasSubstr("aliases expand to more than 20000000 nodes"))));
}

// Setup: a small expansion limit and documents just within and beyond it.
// Expect: the limit counts every node, aliases as full copies of their anchor.
TEST(ReaderTest, ExpansionLimitCountsAliasesAsCopies) {
  ReadOptions options;
  options.max_expanded_nodes = 10;
  // Root mapping (1) + 2 keys + [x, y] (3) + alias counted as 3 = 9 nodes.
  EXPECT_THAT(Read("a: &l [x, y]\nb: *l\n", options), IsOk());
  // One more key/value pair: 11 nodes.
  EXPECT_THAT(Read("a: &l [x, y]\nb: *l\nc: d\n", options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "test.yaml:3:4: aliases expand to more than 10 nodes"));
}

// Setup: 10 MB of deterministic pseudo-random bytes.
// Expect: a prompt InvalidArgument (libyaml rejects non-UTF-8 / control bytes).
TEST(ReaderTest, RandomBytesAreRefused) {
  std::string bytes(10 * 1024 * 1024, '\0');
  uint32_t state = 12345;
  for (char& byte : bytes) {
    state = state * 1664525u + 1013904223u;
    byte = static_cast<char>(state >> 24);
  }
  EXPECT_THAT(Read(bytes),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("test.yaml:1:")));
  const std::string path = WriteTempFile("random.bin", bytes);
  EXPECT_THAT(ReadAllFromFile(path),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(path + ":1:")));
  std::remove(path.c_str());
}

// Setup: an invalid UTF-8 byte and a control character after more than one
// libyaml buffer (16 KiB) of valid text, in a string and in a file.
// Expect: the error gives the exact line and column of the bad byte.
TEST(ReaderTest, EncodingErrorPositions) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "key" + std::to_string(i) + ": value\n";
  const int line = 1001;
  text += "bad: \xc3\xa9t\xff\n";
  EXPECT_THAT(Read(text), StatusIs(absl::StatusCode::kInvalidArgument,
                                   AllOf(StartsWith("test.yaml:" + std::to_string(line) + ":8: "),
                                         HasSubstr("invalid leading UTF-8 octet"))));
  const std::string path = WriteTempFile("bad_utf8.yaml", text);
  EXPECT_THAT(ReadAllFromFile(path),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith(path + ":" + std::to_string(line) + ":8: ")));
  std::remove(path.c_str());
  EXPECT_THAT(Read("a: 1\nb: x\x01y\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(StartsWith("test.yaml:2:5: "), HasSubstr("control characters"))));
}

// Setup: compact JSON (no spaces, "key":value) as kubectl or jq -c print it.
// Expect: the same tree as YAML; strings are quoted, numbers/literals plain.
TEST(ReaderTest, CompactJson) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(
      auto docs,
      Read(R"({"a":1,"b":[1,2,{"c":"d"}],"e":"x\/y\u00e9","f":true,"g":null,"h":-1.5e3,"i":{}})"));
  ASSERT_EQ(docs.size(), 1u);
  const Node root = docs[0].root();
  EXPECT_THAT(Keys(root), ElementsAre("a", "b", "e", "f", "g", "h", "i"));
  EXPECT_EQ(root.Get("a").scalar(), "1");
  EXPECT_EQ(root.Get("a").style(), ScalarStyle::kPlain);
  EXPECT_EQ(root.key_node(0).style(), ScalarStyle::kQuoted);
  EXPECT_EQ(root.Get("b").size(), 3u);
  EXPECT_EQ(root.Get("b").at(2).Get("c").scalar(), "d");
  EXPECT_EQ(root.Get("b").at(2).Get("c").style(), ScalarStyle::kQuoted);
  EXPECT_EQ(root.Get("b").at(2).position().column, 17);
  EXPECT_EQ(root.Get("e").scalar(), "x/y\xc3\xa9");
  EXPECT_EQ(root.Get("f").scalar(), "true");
  EXPECT_TRUE(root.Get("g").IsNull());
  EXPECT_EQ(root.Get("h").scalar(), "-1.5e3");
  EXPECT_TRUE(root.Get("i").IsMapping());
  EXPECT_EQ(root.Get("i").size(), 0u);

  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto arrays, Read(R"([[],[1],{"k":[true,false]}])"));
  EXPECT_EQ(arrays[0].root().size(), 3u);
  EXPECT_EQ(arrays[0].root().at(2).Get("k").at(1).scalar(), "false");
}

// Setup: JSON indented with tabs and with CRLF line ends (both valid JSON).
// Expect: parsed like any other JSON; lines count CRLF as one break.
TEST(ReaderTest, JsonWithTabsAndCrlf) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto tabs, Read("{\n\t\"a\": [\n\t\t1,\n\t\t\"x\"\n\t]\n}\n"));
  EXPECT_EQ(tabs[0].root().Get("a").at(1).scalar(), "x");
  EXPECT_EQ(tabs[0].root().Get("a").at(1).position().line, 4);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto crlf, Read("{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}\r\n"));
  EXPECT_EQ(crlf[0].root().Get("b").scalar(), "2");
  EXPECT_EQ(crlf[0].root().Get("b").position().line, 3);
}

// Setup: a NUL byte inside otherwise valid text.
// Expect: InvalidArgument (a control character), not a silently cut document.
TEST(ReaderTest, NulByteIsRefused) {
  const std::string text("a: 1\nb: x\0y\n", 12);
  EXPECT_THAT(Read(text), StatusIs(absl::StatusCode::kInvalidArgument,
                                   AllOf(StartsWith("test.yaml:2:5: "),
                                         HasSubstr("control characters are not allowed"))));
}

// Setup: pretty JSON as `kubectl get -o json` prints it (a List), in a file.
// Expect: the tree and positions of the pretty form.
TEST(ReaderTest, PrettyKubectlJson) {
  const char* text = R"({
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "kueue.x-k8s.io/v1beta1",
            "kind": "Workload",
            "metadata": {
                "labels": {
                    "kueue.x-k8s.io/queue-name": "user-queue"
                },
                "name": "job-a",
                "namespace": "default"
            },
            "spec": {
                "podSets": [
                    {
                        "count": 3,
                        "name": "main"
                    }
                ],
                "priority": 0
            }
        }
    ],
    "kind": "List",
    "metadata": {
        "resourceVersion": ""
    }
}
)";
  const std::string path = WriteTempFile("list.json", text);
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, ReadAllFromFile(path));
  std::remove(path.c_str());
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].file(), path);
  const Node root = docs[0].root();
  EXPECT_EQ(root.Get("kind").scalar(), "List");
  const Node workload = root.Get("items").at(0);
  EXPECT_EQ(workload.position().line, 4);
  EXPECT_EQ(workload.position().column, 9);
  EXPECT_EQ(workload.Get("metadata").Get("labels").Get("kueue.x-k8s.io/queue-name").scalar(),
            "user-queue");
  const Node count = workload.Get("spec").Get("podSets").at(0).Get("count");
  EXPECT_EQ(count.scalar(), "3");
  EXPECT_EQ(count.style(), ScalarStyle::kPlain);
  EXPECT_EQ(count.position().line, 17);
  EXPECT_EQ(count.position().column, 34);
}

// Setup: a multi-document file read with ReadFile.
// Expect: the callback sees each document in order; a non-OK status from the
// callback stops the read and is returned unchanged.
TEST(ReaderTest, ReadFileStreamsDocuments) {
  const std::string path = WriteTempFile("multi.yaml", "n: 0\n---\nn: 1\n---\nn: 2\n");
  std::vector<std::string> seen;
  EXPECT_THAT(ReadFile(path,
                       [&seen](Document&& doc) {
                         seen.emplace_back(doc.root().Get("n").scalar());
                         return absl::OkStatus();
                       }),
              IsOk());
  EXPECT_THAT(seen, ElementsAre("0", "1", "2"));

  seen.clear();
  EXPECT_THAT(ReadFile(path,
                       [&seen](Document&& doc) {
                         seen.emplace_back(doc.root().Get("n").scalar());
                         return seen.size() == 2 ? absl::CancelledError("enough")
                                                 : absl::OkStatus();
                       }),
              StatusIs(absl::StatusCode::kCancelled, "enough"));
  EXPECT_THAT(seen, ElementsAre("0", "1"));
  std::remove(path.c_str());
}

// Setup: kubectl's List (apiVersion, items, kind, metadata), read with
// split_list_items.
// Expect: each item a document of its own, in order, with its own positions
// and list_item(); then the List, its items empty and split_items() 3.
TEST(ReaderTest, SplitListItemsDeliversEachItemAlone) {
  ReadOptions options;
  options.split_list_items = true;
  const std::string text =
      "apiVersion: v1\n"
      "items:\n"
      "- kind: A\n"
      "  spec: {n: 1}\n"
      "- kind: B\n"
      "  base: &b {x: 1}\n"
      "  copy: {<<: *b, y: 2}\n"
      "- plain\n"
      "kind: List\n"
      "metadata: {resourceVersion: \"\"}\n"
      "---\n"
      "items: [1, 2]\n"
      "nested: {items: [3]}\n";
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::vector<Document> docs, Read(text, options));
  ASSERT_EQ(docs.size(), 7u);
  EXPECT_EQ(docs[0].list_item(), 0);
  EXPECT_EQ(docs[0].index(), 0);
  EXPECT_EQ(docs[0].root().Get("kind").scalar(), "A");
  EXPECT_EQ(docs[0].root().Get("spec").Get("n").scalar(), "1");
  EXPECT_EQ(docs[0].root().position().line, 3);
  EXPECT_EQ(docs[1].list_item(), 1);
  EXPECT_EQ(docs[1].root().Get("copy").Get("x").scalar(), "1");
  EXPECT_EQ(docs[1].root().Get("copy").Get("y").scalar(), "2");
  EXPECT_EQ(docs[1].root().Get("kind").position().line, 5);
  EXPECT_EQ(docs[2].list_item(), 2);
  EXPECT_EQ(docs[2].root().scalar(), "plain");
  // The List itself, last.
  EXPECT_EQ(docs[3].list_item(), -1);
  EXPECT_EQ(docs[3].split_items(), 3);
  EXPECT_EQ(docs[3].root().Get("kind").scalar(), "List");
  EXPECT_TRUE(docs[3].root().Get("items").IsSequence());
  EXPECT_EQ(docs[3].root().Get("items").size(), 0u);
  EXPECT_THAT(Keys(docs[3].root()), ElementsAre("apiVersion", "items", "kind", "metadata"));
  // The second document's top-level items are split too (scalars); items
  // below the top level are not.
  EXPECT_EQ(docs[4].list_item(), 0);
  EXPECT_EQ(docs[4].index(), 1);
  EXPECT_EQ(docs[4].root().scalar(), "1");
  EXPECT_EQ(docs[5].list_item(), 1);
  EXPECT_EQ(docs[5].root().scalar(), "2");
  EXPECT_EQ(docs[6].split_items(), 2);
  EXPECT_EQ(docs[6].root().Get("nested").Get("items").size(), 1u);

  // Without the option, the same stream reads whole.
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::vector<Document> whole, Read(text));
  ASSERT_EQ(whole.size(), 2u);
  EXPECT_EQ(whole[0].root().Get("items").size(), 3u);
  EXPECT_EQ(whole[0].split_items(), 0);
  EXPECT_EQ(whole[0].list_item(), -1);
}

// Setup: JSON as `kubectl get -o json` prints it, split.
// Expect: the same split as YAML.
TEST(ReaderTest, SplitListItemsOfJson) {
  ReadOptions options;
  options.split_list_items = true;
  KUEUESIM_ASSERT_OK_AND_ASSIGN(std::vector<Document> docs,
                       Read("{\"apiVersion\": \"v1\", \"items\": [{\"kind\": \"A\"}, {\"kind\": \"B\"}],"
                            " \"kind\": \"List\"}",
                            options));
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0].root().Get("kind").scalar(), "A");
  EXPECT_EQ(docs[1].root().Get("kind").scalar(), "B");
  EXPECT_EQ(docs[2].split_items(), 2);
}

// Setup: split items whose aliases reach outside their item: into an
// earlier item, from the List into the items, from an item into the List,
// from an item of a second top-level "items" into one of the first (found
// by fuzzing: each item's arena id was reused, and the alias read another
// arena's node).
// Expect: an error at the alias naming it (the other item is gone); an
// anchor inside one item serves that item.
TEST(ReaderTest, SplitListItemsRefuseAliasesAcrossItems) {
  ReadOptions options;
  options.split_list_items = true;
  EXPECT_THAT(Read("items:\n- a: &x 1\n- b: *x\n", options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(StartsWith("test.yaml:3:6: "), HasSubstr("alias *x refers to an anchor outside"))));
  EXPECT_THAT(Read("defaults: &d {a: 1}\nitems:\n- <<: *d\n", options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("alias *d refers to an anchor outside")));
  EXPECT_THAT(Read("items:\n- &i {a: 1}\nagain: *i\n", options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("alias *i refers to an anchor outside")));
  EXPECT_THAT(Read("items:\n- a: &x 1\nitems:\n- b: *x\n", options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(StartsWith("test.yaml:4:6: "), HasSubstr("alias *x refers to an anchor outside"))));
  EXPECT_THAT(Read("items:\n- {a: &y 1, b: *y}\n", options), IsOk());
  // Unsplit, the same aliases are fine.
  EXPECT_THAT(Read("items:\n- a: &x 1\n- b: *x\n"), IsOk());
}

// Setup: a callback that stops at the second item.
// Expect: its status is returned, and no later document is delivered.
TEST(ReaderTest, SplitListItemsCallbackStops) {
  ReadOptions options;
  options.split_list_items = true;
  int seen = 0;
  EXPECT_THAT(ReadString("items: [a, b, c]\nkind: List\n", "test.yaml",
                         [&seen](Document&&) {
                           ++seen;
                           return seen == 2 ? absl::CancelledError("enough") : absl::OkStatus();
                         },
                         options),
              StatusIs(absl::StatusCode::kCancelled, "enough"));
  EXPECT_EQ(seen, 2);
}

// Setup: a path that does not exist, and a directory.
// Expect: NotFound "cannot open <path>: <reason>".
TEST(ReaderTest, ReadFileOpenErrors) {
  const std::string missing = ::testing::TempDir() + "/no/such/file.yaml";
  EXPECT_THAT(ReadAllFromFile(missing),
              StatusIs(absl::StatusCode::kNotFound,
                       "cannot open " + missing + ": No such file or directory"));
  EXPECT_THAT(ReadAllFromFile(::testing::TempDir()),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("Is a directory")));
}

// Setup: syntax errors in a file.
// Expect: the message is prefixed with the path, line and column.
TEST(ReaderTest, FileErrorsNameThePath) {
  const std::string path = WriteTempFile("broken.yaml", "ok: 1\n---\nkey: [unclosed\n");
  int calls = 0;
  EXPECT_THAT(ReadFile(path,
                       [&calls](Document&&) {
                         ++calls;
                         return absl::OkStatus();
                       }),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(path + ":4:1: ")));
  EXPECT_EQ(calls, 1);  // the first document was complete and delivered
  std::remove(path.c_str());
}

// Setup: a document moved out of the reader's vector.
// Expect: Nodes borrowed from the moved-to document still work.
TEST(ReaderTest, DocumentsAreMovable) {
  KUEUESIM_ASSERT_OK_AND_ASSIGN(auto docs, Read("a: [1, 2]\n"));
  Document moved = std::move(docs[0]);
  EXPECT_EQ(moved.root().Get("a").at(1).scalar(), "2");
  EXPECT_EQ(moved.root().file(), "test.yaml");
}

}  // namespace
}  // namespace kueuesim::doc
