// Output files and input checks shared by the kueuesim subcommands.
//
// Every output option (--events, --summary, --timeseries, --workloads,
// compare --json, report -o, sweep-merge -o) takes "-" for stdout.
#ifndef KUEUESIM_CLI_OUTPUT_H_
#define KUEUESIM_CLI_OUTPUT_H_

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "kueuesim/scenario/scenario.h"

namespace kueuesim::cli {

// True for the path that means stdout.
inline bool IsStdout(const std::string& path) { return path == "-"; }

// stdout for "-", else the file opened for writing; nullptr (after
// printing the error) when it cannot be opened.
std::FILE* OpenOutput(const std::string& path);
// Flushes stdout or closes the file; false (after printing the error) when
// writing failed.
bool CloseOutput(std::FILE* file, const std::string& path);
// Writes `text` to `path` ("-": stdout); false after printing the error.
bool WriteOutput(const std::string& path, const std::string& text);

// An error naming the files when the input holds no object at all (an empty
// file, a directory without manifests): a run of nothing is a mistake.
absl::Status CheckInputNotEmpty(const std::vector<std::string>& files, const scenario::Scenario& scenario);

}  // namespace kueuesim::cli

#endif  // KUEUESIM_CLI_OUTPUT_H_
