// Fuzz targets (docs/fuzzing.md): each takes arbitrary bytes, feeds them to
// one of kueuesim's input readers and returns 0. Bad input must come back
// as an error Status; anything else (a crash, a sanitizer report, a broken
// property checked here) is a bug. The same functions serve the libFuzzer
// executables (fuzz_main.cc, KUEUESIM_BUILD_FUZZERS) and the corpus and
// regression replay that every test run does (replay_test.cc).
#ifndef KUEUESIM_TESTS_FUZZ_TARGETS_H_
#define KUEUESIM_TESTS_FUZZ_TARGETS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace kueuesim::fuzz {

using TargetFunction = int (*)(const uint8_t* data, size_t size);

struct Target {
  std::string_view name;  // also the directory under corpus/ and regressions/
  TargetFunction function;
};

// Every target, in a fixed order.
const std::vector<Target>& AllTargets();
// The target named `name`, or null.
const Target* FindTarget(std::string_view name);

}  // namespace kueuesim::fuzz

#endif  // KUEUESIM_TESTS_FUZZ_TARGETS_H_
