// Replays every fuzz target over its seed corpus (tests/fuzz/corpus/<target>/)
// and every input that ever crashed it (tests/fuzz/regressions/<target>/),
// so that the ordinary test run keeps old fuzz findings fixed. A crash here
// is the bug itself (the sanitizer builds of ./dev.sh test report it too).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "targets.h"

namespace kueuesim::fuzz {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> Files(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().filename().string().front() != '.') out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

int Replay(const Target& target, const fs::path& dir) {
  int n = 0;
  for (const fs::path& file : Files(dir)) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(file.string());
    EXPECT_EQ(target.function(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), 0);
    ++n;
  }
  return n;
}

class ReplayTest : public ::testing::TestWithParam<Target> {};

TEST_P(ReplayTest, CorpusAndRegressions) {
  const fs::path root = KUEUESIM_FUZZ_DIR;
  const Target& target = GetParam();
  const int seeds = Replay(target, root / "corpus" / std::string(target.name));
  // Every target has seeds (a target without them would fuzz from nothing).
  EXPECT_GT(seeds, 0) << "no seed corpus for " << target.name;
  Replay(target, root / "regressions" / std::string(target.name));
  // Empty input and a few odd bytes, always.
  for (const std::string& odd : {std::string(), std::string("\0", 1), std::string("\xff\xfe"), std::string("---")}) {
    EXPECT_EQ(target.function(reinterpret_cast<const uint8_t*>(odd.data()), odd.size()), 0);
  }
}

TEST(ReplayTest, EveryTargetHasADictionaryOrNeedsNone) {
  const fs::path root = KUEUESIM_FUZZ_DIR;
  for (const Target& target : AllTargets()) {
    EXPECT_TRUE(fs::exists(root / "dict" / (std::string(target.name) + ".dict"))) << target.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Fuzz, ReplayTest, ::testing::ValuesIn(AllTargets()),
                         [](const ::testing::TestParamInfo<Target>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace kueuesim::fuzz
