// The `explain` subcommand of the kueuesim CLI:
//
//   kueuesim explain FILES... --workload NS/NAME [--at T]
//
// Runs the scenario (to its end, or until simulated time T) and prints one
// workload the way `kubectl describe workload` shows it: its spec in brief,
// its conditions at that moment (QuotaReserved with Kueue's reason and
// message when it waits, Admitted, Evicted, Finished), its admission and
// admission checks, and its history (arrival, every pending reason, quota
// reservation, admission, preemption, eviction, requeue, finish) with times.
#ifndef KUEUESIM_CLI_EXPLAIN_COMMAND_H_
#define KUEUESIM_CLI_EXPLAIN_COMMAND_H_

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace kueuesim::cli {

// Registers the subcommand on `app`; Run() executes it when it was parsed.
// Must not move after construction (CLI11 keeps pointers to it).
class ExplainCommand {
 public:
  explicit ExplainCommand(CLI::App* app);
  ExplainCommand(const ExplainCommand&) = delete;
  ExplainCommand& operator=(const ExplainCommand&) = delete;
  // The exit code, or nullopt if `explain` was not the parsed subcommand.
  std::optional<int> Run() const;

 private:
  int Explain() const;

  CLI::App* explain_ = nullptr;
  std::vector<std::string> files_;
  std::string workload_;
  std::string at_;
};

}  // namespace kueuesim::cli

#endif  // KUEUESIM_CLI_EXPLAIN_COMMAND_H_
