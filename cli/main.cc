// kueuesim: the command-line front end.
//
//   kueuesim run FILES... [--until T] [--cycles N] [--events FILE|-]
//                         [--summary FILE|-] [--seed S] [--quiet]
//                         [--check THRESHOLDS] [--timeseries FILE|-] [--out DIR]
//                         [--workloads FILE|-] [--limits LIMITS]
//                         [--check-invariants]
//
// "-" is stdout for every output option (one of them at a time); the text
// summary then goes to stderr.
//   kueuesim validate [--strict] FILES... [--limits LIMITS]
//   kueuesim policies
//   kueuesim report | compare | sweep | sweep-merge   (report_command.h)
//   kueuesim explain FILES... --workload NS/NAME [--at T]  (explain_command.h)
//
// Exit codes: 0 success; 1 invalid input (the message names the file, the
// object and the field); 2 bad command line; 3 a run that failed (I/O,
// internal error); 4 a run whose --check thresholds failed.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "kueuesim/metrics/event_log.h"
#include "kueuesim/metrics/summary.h"
#include "kueuesim/metrics/thresholds.h"
#include "kueuesim/metrics/timeseries.h"
#include "kueuesim/metrics/workload_table.h"
#include "explain_command.h"
#include "output.h"
#include "progress.h"
#include "report_command.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/sim/simulation.h"
#ifdef KUEUESIM_WITH_MIMALLOC
#include <mimalloc.h>

#include <string_view>

// The command allocates with mimalloc (cli/CMakeLists.txt) on 2 MiB pages,
// which the kernel gives where transparent huge pages are on (`always` or
// `madvise`): loading a cluster export touches hundreds of MB, and faulting
// them in 4 KiB at a time was a fifth of the run
// (docs/performance.md#the-allocator). mimalloc reads the setting once, as
// it starts, before main; this function runs earlier still, from the
// executable's .preinit_array (before any library's initializer), and
// leaves it alone when MIMALLOC_LARGE_OS_PAGES is in the environment
// (MIMALLOC_LARGE_OS_PAGES=0 keeps 4 KiB pages). It reads the environment
// from its argument: nothing is allocated this early.
namespace {
void EnableLargeOsPagesUnlessSet(int /*argc*/, char** /*argv*/, char** envp) {
  constexpr std::string_view kSetting = "MIMALLOC_LARGE_OS_PAGES=";
  for (char** entry = envp; entry != nullptr && *entry != nullptr; ++entry) {
    if (std::string_view(*entry).starts_with(kSetting)) return;
  }
  mi_option_set(mi_option_large_os_pages, 1);
}
}  // namespace
[[gnu::section(".preinit_array"), gnu::used]] void (*const kueuesim_enable_large_os_pages)(int, char**, char**) =
    &EnableLargeOsPagesUnlessSet;
#endif

#ifndef KUEUESIM_VERSION
#define KUEUESIM_VERSION "0.0.0"
#endif

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInvalidInput = 1;
constexpr int kExitUsage = 2;
constexpr int kExitRunFailed = 3;
constexpr int kExitThresholdsFailed = 4;

// The command is about to exit: a simulation that holds every loaded
// Workload and its record is left for the operating system to reclaim
// instead of being freed object by object (2 % of `validate` on an export
// of 82,000 Workloads, docs/performance.md). Its pointer stays reachable
// from here, so leak checkers do not count it.
void LeaveForExit(std::unique_ptr<kueuesim::sim::Simulation> simulation) {
  static auto* const kept = new std::vector<kueuesim::sim::Simulation*>();
  kept->push_back(simulation.release());
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "kueuesim: error: %s\n", kueuesim::StatusMessage(status).c_str());
  return status.code() == absl::StatusCode::kInvalidArgument || status.code() == absl::StatusCode::kNotFound ||
                 status.code() == absl::StatusCode::kPermissionDenied
             ? kExitInvalidInput
             : kExitRunFailed;
}

void PrintReport(const kueuesim::scenario::LoadReport& report) {
  for (const auto& warning : report.warnings) std::fprintf(stderr, "kueuesim: warning: %s\n", warning.c_str());
  for (const auto& [kind, count] : report.unknown_kinds) {
    if (report.unsimulated_workload_kinds.count(kind)) continue;  // warned about above
    std::fprintf(stderr, "kueuesim: note: skipped %lld object(s) of unsupported kind %s\n",
                 static_cast<long long>(count), kind.c_str());
  }
}

struct RunArgs {
  std::vector<std::string> files;
  std::string until;
  int64_t cycles = -1;
  std::string events;
  std::string summary;
  int64_t seed = -1;
  bool quiet = false;
  bool check_invariants = false;
  std::string check;  // thresholds file
  std::string timeseries;
  std::string out_dir;  // run directory: events, summary and time series
  std::string workloads;  // per-workload table (.csv, else JSON Lines)
  std::string limits;     // --limits: the budget of what the input may generate
};

// --limits, or nullopt after printing the error (a bad command line).
std::optional<kueuesim::scenario::LoadOptions> LoadOptionsFor(const std::string& limits) {
  kueuesim::scenario::LoadOptions options;
  if (limits.empty()) return options;
  auto parsed = kueuesim::scenario::ParseLimits(limits);
  if (!parsed.ok()) {
    std::fprintf(stderr, "kueuesim: error: %s\n", kueuesim::StatusMessage(parsed.status()).c_str());
    return std::nullopt;
  }
  options.limits = *parsed;
  return options;
}

int Run(const RunArgs& given_args) {
  using namespace kueuesim;
  RunArgs args = given_args;
  if (!args.out_dir.empty()) {
    absl::Status prepared = cli::PrepareRunDirectory(args.out_dir, &args.events, &args.summary, &args.timeseries,
                                                         &args.workloads);
    if (!prepared.ok()) return Fail(prepared);
  }
  int to_stdout = 0;
  for (const std::string* path : {&args.events, &args.summary, &args.timeseries, &args.workloads}) {
    if (cli::IsStdout(*path)) ++to_stdout;
  }
  if (to_stdout > 1) {
    std::fprintf(stderr, "kueuesim: error: only one of --events, --summary, --timeseries and --workloads can be - "
                         "(stdout)\n");
    return kExitUsage;
  }
  // With an output on stdout, the text summary and the --check report go to stderr.
  std::FILE* text_out = to_stdout > 0 ? stderr : stdout;
  const std::optional<scenario::LoadOptions> load_options = LoadOptionsFor(args.limits);
  if (!load_options.has_value()) return kExitUsage;
  auto scenario = scenario::LoadScenarioFiles(args.files, *load_options);
  if (!scenario.ok()) return Fail(scenario.status());
  if (absl::Status empty = cli::CheckInputNotEmpty(args.files, *scenario); !empty.ok()) return Fail(empty);
  PrintReport(scenario->report);
  std::optional<metrics::Thresholds> thresholds;
  if (!args.check.empty()) {
    auto loaded = metrics::LoadThresholdsFile(args.check);
    if (!loaded.ok()) return Fail(loaded.status());
    thresholds = std::move(*loaded);
  }
  if (args.seed >= 0) scenario->settings.seed = static_cast<uint64_t>(args.seed);
  sim::RunOptions options;
  if (!args.until.empty()) {
    auto until = ParseDuration(args.until);
    if (!until.ok()) {
      std::fprintf(stderr, "kueuesim: error: --until: %s\n", StatusMessage(until.status()).c_str());
      return kExitUsage;
    }
    options.until = *until;
  }
  if (args.cycles >= 0) options.max_cycles = args.cycles;
  options.check_invariants = args.check_invariants;
  policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  // The simulation takes the scenario (its workloads are not copied); what
  // the summary needs of the input is kept first.
  const auto unknown_kinds = scenario->report.unknown_kinds;
  const auto load_warnings = scenario->report.warnings;
  const scenario::SimulationSettings settings = scenario->settings;
  auto simulation = sim::Simulation::Create(*std::move(scenario), registry);
  if (!simulation.ok()) return Fail(simulation.status());

  std::FILE* events_file = nullptr;
  std::unique_ptr<metrics::EventLogWriter> event_log;
  if (!args.events.empty()) {
    events_file = cli::OpenOutput(args.events);
    if (events_file == nullptr) return kExitRunFailed;
    event_log = std::make_unique<metrics::EventLogWriter>(events_file);
    (*simulation)->AddEventSink(event_log.get());
  }
  std::FILE* timeseries_file = nullptr;
  std::unique_ptr<metrics::TimeSeriesRecorder> timeseries;
  if (!args.timeseries.empty()) {
    timeseries_file = cli::OpenOutput(args.timeseries);
    if (timeseries_file == nullptr) return kExitRunFailed;
    timeseries = std::make_unique<metrics::TimeSeriesRecorder>(timeseries_file,
                                                               metrics::TimeSeriesFormatForPath(args.timeseries));
    (*simulation)->AddEventSink(timeseries.get());
  }
  std::FILE* workloads_file = nullptr;
  std::unique_ptr<metrics::WorkloadTableWriter> workload_table;
  if (!args.workloads.empty()) {
    workloads_file = cli::OpenOutput(args.workloads);
    if (workloads_file == nullptr) return kExitRunFailed;
    workload_table = std::make_unique<metrics::WorkloadTableWriter>(
        workloads_file, metrics::TimeSeriesFormatForPath(args.workloads));
    (*simulation)->AddEventSink(workload_table.get());
  }
  std::unique_ptr<cli::ProgressLine> progress;
  if (cli::ProgressLine::Wanted()) {
    progress = std::make_unique<cli::ProgressLine>(stderr);
    (*simulation)->AddEventSink(progress.get());
  }
  metrics::SummaryCollector collector;
  (*simulation)->AddEventSink(&collector);
  absl::Status status = (*simulation)->Run(options);
  if (progress != nullptr) progress->Finish();
  if (workload_table != nullptr) {
    workload_table->Finish((*simulation)->end_time());
    if (!cli::CloseOutput(workloads_file, args.workloads)) return kExitRunFailed;
  }
  if (timeseries != nullptr) {
    timeseries->Finish();
    if (!cli::CloseOutput(timeseries_file, args.timeseries)) return kExitRunFailed;
  }
  if (events_file != nullptr && !cli::CloseOutput(events_file, args.events)) return kExitRunFailed;
  if (!status.ok()) return Fail(status);
  metrics::Summary summary = collector.Finish((*simulation)->end_time(), (*simulation)->cluster_pointers(),
                                              (*simulation)->multikueue_reports());
  summary.unknown_kinds = unknown_kinds;
  summary.warnings = load_warnings;
  metrics::AddLoadReport((*simulation)->scenario().report, settings, &summary);
  for (const sim::CronJobReport& cron_job : (*simulation)->cron_job_reports()) {
    summary.cron_jobs.push_back({cron_job.cluster, cron_job.name, cron_job.created, cron_job.already_active,
                                 cron_job.missed, cron_job.replaced});
  }
  for (const auto& source : (*simulation)->sources()) {
    const trace::ImportReport& report = source->report();
    summary.traces.push_back({report.source, report.rows_read, report.workloads, report.skipped,
                              report.repaired, report.examples, report.changes, report.replicas,
                              report.ignored, report.notes});
  }
  if (!args.summary.empty() && !cli::WriteOutput(args.summary, metrics::SummaryToJson(summary))) {
    return kExitRunFailed;
  }
  // The run directory also records the scenario's startTime, for the
  // report's wall-clock axes (report/run_data.h).
  if (!args.out_dir.empty()) {
    std::string info = "{}\n";
    if (settings.start_time_from_input && settings.start_time.has_value()) {
      info = "{\"startTime\": \"" + FormatRfc3339(*settings.start_time) + "\"}\n";
    }
    if (!cli::WriteOutput((std::filesystem::path(args.out_dir) / "run.json").string(), info)) return kExitRunFailed;
  }
  if (!args.quiet) {
    std::string text = metrics::FormatSummary(summary);
    std::fwrite(text.data(), 1, text.size(), text_out);
  }
  if (thresholds.has_value()) {
    auto report = metrics::EvaluateThresholds(*thresholds, summary);
    if (!report.ok()) return Fail(report.status());
    std::string text = metrics::FormatThresholdReport(*report, args.check);
    std::fwrite(text.data(), 1, text.size(), text_out);
    if (!report->ok()) return kExitThresholdsFailed;
  }
  LeaveForExit(*std::move(simulation));
  return kExitOk;
}

int Validate(const std::vector<std::string>& files, bool strict, const std::string& limits) {
  using namespace kueuesim;
  const std::optional<scenario::LoadOptions> load_options = LoadOptionsFor(limits);
  if (!load_options.has_value()) return kExitUsage;
  auto scenario = scenario::LoadScenarioFiles(files, *load_options);
  if (!scenario.ok()) return Fail(scenario.status());
  if (absl::Status empty = cli::CheckInputNotEmpty(files, *scenario); !empty.ok()) return Fail(empty);
  PrintReport(scenario->report);
  policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  size_t workloads = 0;
  for (const auto& cluster : scenario->clusters) workloads += cluster.workloads.size();
  const size_t load_warnings = scenario->report.warnings.size();
  const int64_t objects = scenario->report.objects;
  const int64_t documents = scenario->report.documents;
  // The simulation takes the scenario's workloads (not copied); the rest of
  // the scenario is read back from it.
  auto simulation = sim::Simulation::Create(*std::move(scenario), registry);
  if (!simulation.ok()) return Fail(simulation.status());
  const scenario::Scenario& loaded = (*simulation)->scenario();
  if (strict && load_warnings > 0) {
    std::fprintf(stderr, "kueuesim: error: --strict: %zu warning(s) while loading (listed above)\n", load_warnings);
    return kExitInvalidInput;
  }
  // Traces are opened (and their files checked) by Simulation::Create;
  // their workloads are streamed during a run, not counted here.
  std::string traces =
      loaded.traces.empty() ? "" : fmt::format(", {} trace(s)", loaded.traces.size());
  size_t cron_jobs = 0;
  for (const auto& cluster : loaded.clusters) cron_jobs += cluster.cron_jobs.size();
  if (cron_jobs > 0) traces += fmt::format(", {} CronJob(s)", cron_jobs);
  std::printf("valid: %lld objects in %lld documents, %zu cluster(s), %zu workload(s)%s\n",
              static_cast<long long>(objects), static_cast<long long>(documents), loaded.clusters.size(), workloads,
              traces.c_str());
  LeaveForExit(*std::move(simulation));
  return kExitOk;
}

int Policies() {
  using namespace kueuesim;
  policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  // Columns as wide as their widest cell.
  size_t kind_width = 0, name_width = 0;
  for (const auto& info : registry.List()) {
    kind_width = std::max(kind_width, policy::PolicyKindName(info.kind).size());
    name_width = std::max(name_width, info.name.size());
  }
  for (const auto& info : registry.List()) {
    std::printf("%-*s  %-*s  %s\n", static_cast<int>(kind_width), std::string(policy::PolicyKindName(info.kind)).c_str(),
                static_cast<int>(name_width), info.name.c_str(), info.description.c_str());
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kueuesim: simulate Kubernetes Kueue's quota management and admission decisions"};
  app.set_version_flag("--version", std::string("kueuesim ") + KUEUESIM_VERSION);
  app.require_subcommand(1);

  RunArgs run_args;
  CLI::App* run = app.add_subcommand("run", "Run a scenario and print its summary");
  run->add_option("files", run_args.files, "Scenario files (YAML or JSON manifests) or directories of them")->required();
  run->add_option("--until", run_args.until, "Stop at this simulated time (e.g. 90s, 2h30m, 7d)");
  run->add_option("--cycles", run_args.cycles, "Stop after this many scheduling cycles")->check(CLI::NonNegativeNumber);
  run->add_flag("--check-invariants", run_args.check_invariants,
                "Verify Kueue's invariants after every event and cycle; a violation fails the run (docs/invariants.md)");
  run->add_option("--events", run_args.events, "Write the event log (JSON Lines) to FILE, or - for stdout");
  run->add_option("--summary", run_args.summary, "Write the summary as JSON to FILE, or - for stdout");
  run->add_option("--seed", run_args.seed, "Random seed (default: the scenario's, else 1)")->check(CLI::NonNegativeNumber);
  run->add_flag("--quiet,-q", run_args.quiet, "Do not print the summary");
  run->add_option("--check", run_args.check,
                  "Check the run's figures against a thresholds file; exit 4 when a check fails");
  run->add_option("--timeseries", run_args.timeseries,
                  "Write usage, borrowing, pending and shares over time to FILE (.csv, else JSON Lines), or - "
                  "for stdout (JSON Lines)");
  run->add_option("--out", run_args.out_dir,
                  "Write a run directory: DIR/events.jsonl, DIR/summary.json, DIR/timeseries.jsonl, "
                  "DIR/workloads.jsonl");
  run->add_option("--workloads", run_args.workloads,
                  "Write one row per workload (arrival, admission, start, finish, wait, run time, evictions, "
                  "flavors) to FILE (.csv, else JSON Lines), or - for stdout (JSON Lines)");
  constexpr char kLimitsHelp[] =
      "The budget of what the input may make kueuesim build, e.g. nodes=2000000,workloads=1000000,"
      "queues=200000,time=7300d (defaults: nodes=1000000,workloads=500000,queues=100000,time=3650d; "
      "overrides the Simulation's spec.limits)";
  run->add_option("--limits", run_args.limits, kLimitsHelp);

  std::vector<std::string> validate_files;
  CLI::App* validate = app.add_subcommand("validate", "Check scenario files without running them");
  validate->add_option("files", validate_files, "Scenario files or directories")->required();
  bool validate_strict = false;
  validate->add_flag("--strict", validate_strict,
                     "Fail (exit 1) when loading gives any warning: unsimulated workload kinds, workloads "
                     "without a run time, ignored objects (for CI)");
  std::string validate_limits;
  validate->add_option("--limits", validate_limits, kLimitsHelp);

  CLI::App* policies = app.add_subcommand("policies", "List the policies that scenarios can select");
  kueuesim::cli::ResultsCommands results(&app);  // report, compare (report_command.cc)
  kueuesim::cli::ExplainCommand explain(&app);   // explain (explain_command.cc)

  run->footer(
      "Examples:\n"
      "  kueuesim run scenarios/quickstart/gpu-teams.yaml\n"
      "  kueuesim run scenarios/quickstart/gpu-teams.yaml --until 2h --summary - --quiet\n"
      "  kueuesim run cluster.yaml workloads.yaml --out runs/base --check thresholds.yaml");
  validate->footer("Example:\n  kueuesim validate --strict scenarios/quickstart/gpu-teams.yaml");
  policies->footer("Example:\n  kueuesim policies");

  // CLI11 answers an unknown command with "A subcommand is required": name it.
  std::string commands;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands({})) {
    commands += (commands.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::fprintf(stderr, "kueuesim: error: unknown command \"%s\" (commands: %s; see kueuesim --help)\n", argv[1],
                 commands.c_str());
    return kExitUsage;
  }
  if (argc == 1) {
    std::fprintf(stderr, "kueuesim: error: a command is required (e.g. kueuesim run FILES...; see kueuesim --help)\n");
    return kExitUsage;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (*run) return Run(run_args);
  if (*validate) return Validate(validate_files, validate_strict, validate_limits);
  if (*policies) return Policies();
  if (auto code = results.Run()) return *code;
  if (auto code = explain.Run()) return *code;
  return kExitUsage;
}
