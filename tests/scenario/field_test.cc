// Tests for FieldReader (src/scenario/field.h): a child reader names its
// object and path in errors, also after the reader it came from is gone
// (the object's name is shared by count), copies and moves keep it, and a
// lazily made name reads as an eager one.
#include "scenario/field.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/doc/reader.h"

namespace kueuesim::scenario {
namespace {

using ::testing::HasSubstr;

constexpr char kYaml[] = "kind: ClusterQueue\nmetadata:\n  name: a\nspec:\n  cohort: [x]\n";

TEST(FieldReaderTest, ChildrenKeepTheObjectNameAfterTheRootIsGone) {
  auto docs = doc::ReadAllFromString(kYaml, "field.yaml");
  ASSERT_TRUE(docs.ok()) << docs.status();
  std::optional<FieldReader> child;
  {
    FieldReader root((*docs)[0].root(), std::make_shared<const std::string>("ClusterQueue \"a\""), "");
    child.emplace(root.Field("spec").Field("cohort"));
  }
  const std::string message(child->String().status().message());
  EXPECT_THAT(message, HasSubstr("field.yaml:5: ClusterQueue \"a\": spec.cohort: must be a string"));
  EXPECT_EQ(child->object(), "ClusterQueue \"a\"");
}

TEST(FieldReaderTest, CopiesAndMovesShareTheName) {
  auto docs = doc::ReadAllFromString(kYaml, "field.yaml");
  ASSERT_TRUE(docs.ok()) << docs.status();
  std::vector<FieldReader> readers;
  {
    FieldReader root((*docs)[0].root(), std::make_shared<const std::string>("ClusterQueue \"a\""), "");
    FieldReader copy = root;
    readers.push_back(copy);
    readers.push_back(std::move(copy));
    readers.push_back(root.Field("metadata"));
    FieldReader assigned = root.Field("spec");
    assigned = readers.back();
    readers.push_back(assigned);
  }
  for (const FieldReader& reader : readers) EXPECT_EQ(reader.object(), "ClusterQueue \"a\"");
  EXPECT_THAT(std::string(readers.back().Field("name").Int64().status().message()),
              HasSubstr("ClusterQueue \"a\": metadata.name: \"a\" is not an integer"));
}

// A name made with SharedObjectName::Of is formatted when first asked for,
// as `KIND "NAME"`, or KIND alone for an empty name.
TEST(FieldReaderTest, LazyNamesFormatAsKindAndName) {
  auto docs = doc::ReadAllFromString(kYaml, "field.yaml");
  ASSERT_TRUE(docs.ok()) << docs.status();
  FieldReader named((*docs)[0].root(), SharedObjectName::Of("ClusterQueue", "a"), "");
  EXPECT_THAT(std::string(named.Field("spec").Field("cohort").String().status().message()),
              HasSubstr("field.yaml:5: ClusterQueue \"a\": spec.cohort: must be a string"));
  EXPECT_EQ(named.Field("metadata").object(), "ClusterQueue \"a\"");
  FieldReader unnamed((*docs)[0].root(), SharedObjectName::Of("object", ""), "");
  EXPECT_EQ(unnamed.Field("kind").object(), "object");
}

}  // namespace
}  // namespace kueuesim::scenario
