#include "kueuesim/base/status.h"

#include <cstdio>
#include <cstdlib>

namespace kueuesim::internal {

void CheckFailed(const char* file, int line, const char* condition, const std::string& message) {
  std::fprintf(stderr, "kueuesim: internal error at %s:%d: check failed: %s%s%s\n", file, line,
               condition, message.empty() ? "" : ": ", message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace kueuesim::internal
