// ImportReport bookkeeping and formatting.
#include <fmt/format.h>

#include "kueuesim/trace/workload_source.h"

namespace kueuesim::trace {

void ImportReport::Skip(int64_t line, const std::string& reason) {
  ++skipped[reason];
  if (examples.size() < kMaxExamples) examples.push_back(fmt::format("line {}: skipped: {}", line, reason));
}

void ImportReport::Repair(int64_t line, const std::string& reason) {
  ++repaired[reason];
  if (examples.size() < kMaxExamples) examples.push_back(fmt::format("line {}: repaired: {}", line, reason));
}

std::string ImportReport::Format() const {
  std::string out = fmt::format("{}: {} rows read, {} workloads", source, rows_read, workloads);
  if (changes > 0) out += fmt::format(", {} changes", changes);
  int64_t skipped_total = 0;
  for (const auto& [reason, count] : skipped) skipped_total += count;
  int64_t repaired_total = 0;
  for (const auto& [reason, count] : repaired) repaired_total += count;
  int64_t replica_rows = 0;
  for (const auto& [what, count] : replicas) replica_rows += count;
  if (replica_rows > 0) out += fmt::format(", {} rows as replicas", replica_rows);
  out += fmt::format(", {} rows skipped, {} repaired", skipped_total, repaired_total);
  for (const auto& [what, count] : replicas) out += fmt::format("\n  replicas {}: {}", count, what);
  for (const auto& [reason, count] : skipped) out += fmt::format("\n  skipped {}: {}", count, reason);
  for (const auto& [reason, count] : repaired) out += fmt::format("\n  repaired {}: {}", count, reason);
  for (const auto& [what, count] : ignored) out += fmt::format("\n  ignored on {} rows: {}", count, what);
  for (const auto& note : notes) out += "\n  " + note;
  for (const auto& example : examples) out += "\n  " + example;
  return out;
}

}  // namespace kueuesim::trace
