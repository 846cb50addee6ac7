// A progress line for long runs: on standard error, only when it is a
// terminal (never in pipes, files or tests), rewritten in place at most
// twice a second: simulated time reached, workloads finished, and the rate
// in workloads and simulated seconds per wall-clock second.
#ifndef KUEUESIM_CLI_PROGRESS_H_
#define KUEUESIM_CLI_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "kueuesim/cluster/events.h"

namespace kueuesim::cli {

class ProgressLine : public cluster::EventSink {
 public:
  // Whether standard error is a terminal: the line is shown only then.
  static bool Wanted();
  explicit ProgressLine(std::FILE* out);
  void OnEvent(const cluster::SimEvent& event) override;
  // Clears the line (before the summary is printed).
  void Finish();

 private:
  void Print();

  std::FILE* out_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_print_;
  SimTime now_ = 0;
  int64_t finished_ = 0;
  int64_t events_ = 0;
  bool printed_ = false;
};

}  // namespace kueuesim::cli

#endif  // KUEUESIM_CLI_PROGRESS_H_
