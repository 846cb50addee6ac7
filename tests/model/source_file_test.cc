// Tests for model::SourceFile (kueuesim/model/objects.h): the file name an
// object carries for messages, shared by the objects of one file.
#include <memory>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "kueuesim/model/objects.h"

namespace kueuesim::model {
namespace {

// Setup: a SourceFile made from a long name (beyond the string's inline
// buffer), its copies, one made from the same shared string, and a default.
// Invariant: copies and the shared-string one read the very same storage
// (one copy of the name however many objects carry it); each compares
// equal to the name in every spelling; the default is empty, and
// SourceRef::ToString says "<input>" for it and "file:line" otherwise.
TEST(SourceFileTest, CopiesShareOneName) {
  const std::string name = "/clusters/production/export/workloads.yaml";
  const SourceFile made(name);
  const SourceFile copy = made;
  SourceFile assigned;
  assigned = copy;
  EXPECT_EQ(&copy.str(), &made.str());
  EXPECT_EQ(&assigned.str(), &made.str());
  auto shared = std::make_shared<const std::string>(name);
  const SourceFile a(shared), b(shared);
  EXPECT_EQ(&a.str(), shared.get());
  EXPECT_EQ(&b.str(), shared.get());

  EXPECT_EQ(made, name);
  EXPECT_EQ(made, name.c_str());
  EXPECT_EQ(made, std::string_view(name));
  EXPECT_EQ(made, a);
  EXPECT_FALSE(made == SourceFile("other.yaml"));
  const std::string& as_string = made;
  EXPECT_EQ(as_string, name);
  std::ostringstream out;
  out << made;
  EXPECT_EQ(out.str(), name);

  const SourceFile none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none, "");
  EXPECT_EQ(SourceRef{}.ToString(), "<input>");
  EXPECT_EQ((SourceRef{made, 12}.ToString()), name + ":12");
}

}  // namespace
}  // namespace kueuesim::model
