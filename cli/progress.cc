// The progress line; see progress.h.
#include "progress.h"

#include <unistd.h>

#include <string>

#include <fmt/format.h>

#include "kueuesim/base/time.h"

namespace kueuesim::cli {
namespace {
// Looking at the clock every event would cost more than the event.
constexpr int64_t kEventsBetweenClockReads = 4096;
constexpr auto kPrintInterval = std::chrono::milliseconds(500);
// Runs shorter than this print nothing.
constexpr auto kFirstPrint = std::chrono::seconds(1);
}  // namespace

bool ProgressLine::Wanted() { return isatty(fileno(stderr)) == 1; }

ProgressLine::ProgressLine(std::FILE* out)
    : out_(out), started_(std::chrono::steady_clock::now()), last_print_(started_) {}

void ProgressLine::OnEvent(const cluster::SimEvent& event) {
  now_ = event.time;
  if (event.type == cluster::EventType::kFinished || event.type == cluster::EventType::kDeleted) ++finished_;
  if (++events_ % kEventsBetweenClockReads != 0) return;
  const auto wall = std::chrono::steady_clock::now();
  if (wall - started_ < kFirstPrint || wall - last_print_ < kPrintInterval) return;
  last_print_ = wall;
  Print();
}

void ProgressLine::Print() {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const double rate = elapsed > 0 ? static_cast<double>(finished_) / elapsed : 0;
  const double speed = elapsed > 0 ? static_cast<double>(now_) / static_cast<double>(kSecond) / elapsed : 0;
  std::string line = fmt::format("\r\033[Ksimulated {} | {} workloads done | {:.0f} workloads/s, {:.0f}x real time",
                                 FormatDuration(now_), finished_, rate, speed);
  std::fputs(line.c_str(), out_);
  std::fflush(out_);
  printed_ = true;
}

void ProgressLine::Finish() {
  if (!printed_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
}

}  // namespace kueuesim::cli
