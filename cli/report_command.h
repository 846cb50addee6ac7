// Results subcommands of the kueuesim CLI, kept out of main.cc:
//
//   kueuesim report RUN_DIR... -o report.html
//   kueuesim compare BASE VARIANT... [--until T] [--json FILE]
//   kueuesim sweep FILES... --out DIR [--shard i/n] [--until T]
//   kueuesim sweep-merge DIR... -o table.csv
//
// and the run directory of `kueuesim run ... --out DIR`.
#ifndef KUEUESIM_CLI_REPORT_COMMAND_H_
#define KUEUESIM_CLI_REPORT_COMMAND_H_

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "absl/status/status.h"

namespace kueuesim::cli {

// Creates the run directory `dir` (and its parents) and points each output
// that was not given explicitly into it: DIR/events.jsonl,
// DIR/summary.json, DIR/timeseries.jsonl, DIR/workloads.jsonl.
absl::Status PrepareRunDirectory(const std::string& dir, std::string* events, std::string* summary,
                                 std::string* timeseries, std::string* workloads);

// Registers the subcommands on `app`; Run() executes the one that was
// parsed. Must not move after construction (CLI11 keeps pointers to it).
class ResultsCommands {
 public:
  explicit ResultsCommands(CLI::App* app);
  ResultsCommands(const ResultsCommands&) = delete;
  ResultsCommands& operator=(const ResultsCommands&) = delete;
  // The exit code of the parsed subcommand, or nullopt if none of these.
  std::optional<int> Run() const;

 private:
  int Report() const;
  int Compare() const;
  int Sweep() const;
  int SweepMerge() const;

  CLI::App* report_ = nullptr;
  std::vector<std::string> report_runs_;
  std::string report_output_;

  CLI::App* compare_ = nullptr;
  std::vector<std::string> compare_scenarios_;
  std::string compare_until_;
  std::string compare_json_;

  CLI::App* sweep_ = nullptr;
  std::vector<std::string> sweep_files_;
  std::string sweep_out_;
  std::string sweep_shard_;
  std::string sweep_until_;
  int sweep_jobs_ = 0;  // 0: the number of cores

  CLI::App* sweep_merge_ = nullptr;
  std::vector<std::string> sweep_merge_dirs_;
  std::string sweep_merge_output_;
};

}  // namespace kueuesim::cli

#endif  // KUEUESIM_CLI_REPORT_COMMAND_H_
