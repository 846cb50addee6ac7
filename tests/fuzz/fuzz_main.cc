// The libFuzzer entry point of one target; KUEUESIM_FUZZ_TARGET names it
// (tests/fuzz/fuzz.cmake builds one executable per target).
#include <cstdio>
#include <cstdlib>

#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const kueuesim::fuzz::Target* target = [] {
    const kueuesim::fuzz::Target* t = kueuesim::fuzz::FindTarget(KUEUESIM_FUZZ_TARGET);
    if (t == nullptr) {
      std::fprintf(stderr, "no fuzz target %s\n", KUEUESIM_FUZZ_TARGET);
      std::abort();
    }
    return t;
  }();
  return target->function(data, size);
}
