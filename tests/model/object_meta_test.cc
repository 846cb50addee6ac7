// Tests for kueuesim/model/objects.h's ObjectMeta: its rarely set uid and
// cluster, read as "" until written and kept out of line.
#include <string>

#include <gtest/gtest.h>

#include "kueuesim/model/objects.h"

namespace kueuesim::model {
namespace {

// Setup: metadata as people write it (no uid, no cluster), and empty values
// set on purpose.
// Expect: both read as "" and nothing is allocated for them.
TEST(ObjectMetaTest, EmptyUidAndClusterAllocateNothing) {
  ObjectMeta meta;
  EXPECT_EQ(meta.uid(), "");
  EXPECT_EQ(meta.cluster(), "");
  meta.set_uid("");
  meta.set_cluster("");
  EXPECT_FALSE(meta.rare.allocated());
}

// Setup: a uid and a cluster set, the metadata copied, then the uid cleared.
// Expect: each reads back; the copy is independent; a cleared uid reads ""
// while the cluster stays.
TEST(ObjectMetaTest, SetCopyAndClear) {
  ObjectMeta meta;
  meta.set_uid("3f1c");
  meta.set_cluster("worker-1");
  ASSERT_TRUE(meta.rare.allocated());
  ObjectMeta copy = meta;
  meta.set_uid("");
  EXPECT_EQ(meta.uid(), "");
  EXPECT_EQ(meta.cluster(), "worker-1");
  EXPECT_EQ(copy.uid(), "3f1c");
  EXPECT_EQ(copy.cluster(), "worker-1");
}

}  // namespace
}  // namespace kueuesim::model
