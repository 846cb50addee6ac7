// Small helpers of the model types.
#include "kueuesim/model/objects.h"

#include <fmt/format.h>

namespace kueuesim::model {

std::string SourceRef::ToString() const {
  if (file.empty()) return "<input>";
  return fmt::format("{}:{}", file, line);
}

}  // namespace kueuesim::model
