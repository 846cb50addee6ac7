// Results subcommands of the kueuesim CLI; see report_command.h.
#include "report_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "kueuesim/metrics/summary.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/report/html_report.h"
#include "kueuesim/report/run_data.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/sim/simulation.h"
#include "kueuesim/sweep/sweep.h"
#include "output.h"

namespace kueuesim::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitInvalidInput = 1;
constexpr int kExitUsage = 2;
constexpr int kExitRunFailed = 3;

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "kueuesim: error: %s\n", StatusMessage(status).c_str());
  return status.code() == absl::StatusCode::kInvalidArgument || status.code() == absl::StatusCode::kNotFound ||
                 status.code() == absl::StatusCode::kPermissionDenied
             ? kExitInvalidInput
             : kExitRunFailed;
}

std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Waits of first quota reservations (as the summary counts them), over all
// ClusterQueues and clusters.
class WaitRecorder : public cluster::EventSink {
 public:
  void OnEvent(const cluster::SimEvent& event) override {
    if (event.workload == cluster::kNone || !event.object.empty()) return;
    auto& seen = seen_[event.cluster];
    if (seen.size() <= static_cast<size_t>(event.workload)) seen.resize(static_cast<size_t>(event.workload) + 1);
    switch (event.type) {
      case cluster::EventType::kQuotaReserved:
        if (!seen[static_cast<size_t>(event.workload)]) {
          seen[static_cast<size_t>(event.workload)] = true;
          waits.push_back(event.time - event.cluster->workload(event.workload).arrival);
        }
        break;
      case cluster::EventType::kAdmittedAtStart:
        seen[static_cast<size_t>(event.workload)] = true;
        break;
      case cluster::EventType::kFinished:
      case cluster::EventType::kDeleted:
        seen[static_cast<size_t>(event.workload)] = false;
        break;
      default:
        break;
    }
  }
  std::vector<SimDuration> waits;

 private:
  std::map<const cluster::ClusterState*, std::vector<bool>> seen_;
};

SimDuration Percentile(const std::vector<SimDuration>& sorted, int percent) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>((static_cast<int64_t>(sorted.size()) * percent + 99) / 100);
  if (rank == 0) rank = 1;
  return sorted[rank - 1];
}

enum class Unit { kCount, kDuration, kRatio, kAmount, kHours };

struct FigureRow {
  std::string name;
  Unit unit = Unit::kCount;
  std::vector<std::optional<double>> values;  // by run; nullopt: absent there
};

struct CompareRun {
  std::string label;
  std::vector<std::string> files;
  metrics::Summary summary;
  std::vector<SimDuration> waits;  // sorted
};

absl::StatusOr<CompareRun> RunScenario(const std::string& argument, const sim::RunOptions& options) {
  CompareRun run;
  run.files = SplitComma(argument);
  if (run.files.empty()) return absl::InvalidArgumentError(fmt::format("compare: empty scenario \"{}\"", argument));
  for (const std::string& file : run.files) {
    run.label += (run.label.empty() ? "" : ",") + std::filesystem::path(file).filename().string();
  }
  KUEUESIM_ASSIGN_OR_RETURN(scenario::Scenario loaded, scenario::LoadScenarioFiles(run.files));
  KUEUESIM_RETURN_IF_ERROR(CheckInputNotEmpty(run.files, loaded));
  for (const auto& warning : loaded.report.warnings) std::fprintf(stderr, "kueuesim: warning: %s\n", warning.c_str());
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  KUEUESIM_ASSIGN_OR_RETURN(std::unique_ptr<sim::Simulation> simulation, sim::Simulation::Create(std::move(loaded), registry));
  metrics::SummaryCollector collector;
  WaitRecorder waits;
  simulation->AddEventSink(&collector);
  simulation->AddEventSink(&waits);
  KUEUESIM_RETURN_IF_ERROR(simulation->Run(options));
  run.summary = collector.Finish(simulation->end_time(), simulation->cluster_pointers(),
                                 simulation->multikueue_reports());
  run.waits = std::move(waits.waits);
  std::sort(run.waits.begin(), run.waits.end());
  return run;
}

// Rows for LeaderWorkerSet rollouts, MultiKueue managers, admission checks
// and autoscaler pools (present in some runs only: "-" elsewhere).
std::vector<FigureRow> ServingAndCapacityFigures(const std::vector<CompareRun>& runs) {
  std::map<std::string, FigureRow> rows;  // keyed to keep an object's rows together, in order
  auto set = [&](const std::string& key, const std::string& name, Unit unit, size_t run, double value) {
    FigureRow& row = rows[key];
    if (row.values.empty()) {
      row.name = name;
      row.unit = unit;
      row.values.resize(runs.size());
    }
    row.values[run] = row.values[run].value_or(0) + value;
  };
  auto gpu_hours = [](const std::map<std::string, double>& amounts) {
    double total = 0;
    for (const auto& [resource, value] : amounts) {
      if (resource.find("gpu") != std::string::npos) total += value / 3600.0;
    }
    return total;
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const auto& cluster : runs[i].summary.clusters) {
      const std::string prefix = cluster.name.empty() ? "" : cluster.name + "/";
      // The first rollout of each LeaderWorkerSet (the one a comparison is about).
      std::map<std::string, bool> seen;
      for (const auto& r : cluster.rollouts) {
        if (seen[r.leader_worker_set]) continue;
        seen[r.leader_worker_set] = true;
        const std::string obj = "1 lws " + prefix + r.leader_worker_set;
        const std::string label = "lws " + prefix + r.leader_worker_set;
        if (r.end >= 0) set(obj + "\t1", label + " rollout time", Unit::kDuration, i, static_cast<double>(r.duration));
        set(obj + "\t2", label + " below desired", Unit::kDuration, i, static_cast<double>(r.below_desired));
        set(obj + "\t3", label + " deficit group-h", Unit::kHours, i, r.deficit_group_seconds / 3600.0);
        set(obj + "\t4", label + " surge GPU-h", Unit::kHours, i, gpu_hours(r.surge_quota_seconds));
        set(obj + "\t5", label + " idle surge GPU-h", Unit::kHours, i, gpu_hours(r.idle_surge_quota_seconds));
        set(obj + "\t6", label + " preemptions", Unit::kCount, i, static_cast<double>(r.preemptions));
      }
      for (const auto& c : cluster.admission_checks) {
        const std::string obj = "3 check " + prefix + c.name;
        const std::string label = "check " + prefix + c.name;
        if (c.time_to_ready.count > 0) {
          set(obj + "\t1", label + " ready p90", Unit::kDuration, i, static_cast<double>(c.time_to_ready.p90));
        }
        set(obj + "\t2", label + " held", Unit::kDuration, i, static_cast<double>(c.held_time));
        set(obj + "\t3", label + " held GPU-h", Unit::kHours, i, gpu_hours(c.held_quota));
        set(obj + "\t4", label + " retries", Unit::kCount, i, static_cast<double>(c.retry));
        set(obj + "\t5", label + " rejected", Unit::kCount, i, static_cast<double>(c.rejected));
      }
      if (cluster.autoscaler.has_value()) {
        for (const auto& p : cluster.autoscaler->pools) {
          const std::string obj = "4 pool " + prefix + p.name;
          const std::string label = "pool " + prefix + p.name;
          set(obj + "\t1", label + " nodes added", Unit::kCount, i, static_cast<double>(p.nodes_added));
          set(obj + "\t2", label + " GPU-h", Unit::kHours, i, gpu_hours(p.provisioned_amount_seconds));
          set(obj + "\t3", label + " idle GPU-h", Unit::kHours, i, gpu_hours(p.idle_amount_seconds));
          set(obj + "\t4", label + " stockout", Unit::kDuration, i, static_cast<double>(p.stockout_time));
        }
      }
    }
    for (const auto& mk : runs[i].summary.multikueue) {
      const std::string obj = "2 multikueue " + mk.manager;
      const std::string label = "multikueue " + (mk.manager.empty() ? std::string("(default)") : mk.manager);
      set(obj + "\t1", label + " copies", Unit::kCount, i, static_cast<double>(mk.copies));
      set(obj + "\t2", label + " losing reservations", Unit::kCount, i, static_cast<double>(mk.losing_reservations));
      set(obj + "\t3", label + " losing preemptions", Unit::kCount, i, static_cast<double>(mk.losing_preemptions));
      if (mk.time_to_admission.count > 0) {
        set(obj + "\t4", label + " time to admission p90", Unit::kDuration, i,
            static_cast<double>(mk.time_to_admission.p90));
      }
    }
  }
  std::vector<FigureRow> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  return out;
}

// The headline figures of every run, one row per figure, rows in a fixed
// order: overall counts and waits, then per ClusterQueue, then utilization
// per flavor and resource.
std::vector<FigureRow> Figures(const std::vector<CompareRun>& runs) {
  std::map<std::string, FigureRow> per_queue;   // "cq <name> <figure>" sorts by queue
  std::map<std::string, FigureRow> per_flavor;  // "utilization <flavor>/<resource>"
  std::vector<FigureRow> overall = {{"admitted", Unit::kCount, {}},   {"finished", Unit::kCount, {}},
                                    {"preempted", Unit::kCount, {}},  {"pending at end", Unit::kCount, {}},
                                    {"wait p50", Unit::kDuration, {}}, {"wait p90", Unit::kDuration, {}}};
  for (auto& row : overall) row.values.resize(runs.size());
  auto queue_row = [&](const std::string& name, Unit unit) -> FigureRow& {
    FigureRow& row = per_queue[name];
    if (row.values.empty()) {
      row.name = name.substr(name.rfind('\t') + 1);
      row.unit = unit;
      row.values.resize(runs.size());
    }
    return row;
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    const CompareRun& run = runs[i];
    int64_t admitted = 0, finished = 0, preempted = 0, pending = 0;
    // flavor/resource -> (used amount-seconds, nominal in resource units)
    std::map<std::string, std::pair<double, double>> usage;
    for (const auto& cluster : run.summary.clusters) {
      for (const auto& cq : cluster.cluster_queues) {
        admitted += cq.admitted;
        finished += cq.finished;
        preempted += cq.preempted;
        pending += cq.pending;
        const std::string queue = cluster.name.empty() ? cq.name : cluster.name + "/" + cq.name;
        // A tab keeps a queue's rows together and in this order.
        queue_row(queue + "\t1" + "\tcq " + queue + " admitted", Unit::kCount).values[i] = cq.admitted;
        queue_row(queue + "\t2" + "\tcq " + queue + " finished", Unit::kCount).values[i] = cq.finished;
        queue_row(queue + "\t3" + "\tcq " + queue + " preempted", Unit::kCount).values[i] = cq.preempted;
        // No wait (nothing admitted): no data, "-" in the table and null in JSON.
        FigureRow& p50 = queue_row(queue + "\t4" + "\tcq " + queue + " wait p50", Unit::kDuration);
        FigureRow& p90 = queue_row(queue + "\t5" + "\tcq " + queue + " wait p90", Unit::kDuration);
        if (cq.wait.count > 0) {
          p50.values[i] = static_cast<double>(cq.wait.p50);
          p90.values[i] = static_cast<double>(cq.wait.p90);
        }
        for (const auto& r : cq.resources) {
          auto& [used, nominal] = usage[r.flavor + "/" + r.resource];
          used += r.used_amount_seconds;
          if (r.nominal_quota != kUnlimited) {
            nominal += static_cast<double>(r.nominal_quota) / (IsMilliResource(r.resource) ? 1000.0 : 1.0);
          }
        }
      }
    }
    overall[0].values[i] = static_cast<double>(admitted);
    overall[1].values[i] = static_cast<double>(finished);
    overall[2].values[i] = static_cast<double>(preempted);
    overall[3].values[i] = static_cast<double>(pending);
    if (!run.waits.empty()) {
      overall[4].values[i] = static_cast<double>(Percentile(run.waits, 50));
      overall[5].values[i] = static_cast<double>(Percentile(run.waits, 90));
    }
    const double seconds = static_cast<double>(run.summary.end_time) / static_cast<double>(kSecond);
    for (const auto& [key, amounts] : usage) {
      FigureRow& row = per_flavor["utilization " + key];
      if (row.values.empty()) {
        row.name = "utilization " + key;
        row.unit = Unit::kRatio;
        row.values.resize(runs.size());
      }
      if (amounts.second > 0 && seconds > 0) row.values[i] = amounts.first / (amounts.second * seconds);
    }
  }
  // MultiKueue managers: figures per manager workload (the per-cluster rows
  // above count each cluster's own workloads, the workers' copies among
  // them).
  std::map<std::string, FigureRow> per_manager;  // "<manager>\t<order>\t<name>"
  auto manager_row = [&](const std::string& key, Unit unit) -> FigureRow& {
    FigureRow& row = per_manager[key];
    if (row.values.empty()) {
      row.name = key.substr(key.rfind('\t') + 1);
      row.unit = unit;
      row.values.resize(runs.size());
    }
    return row;
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const auto& mk : runs[i].summary.multikueue) {
      const std::string prefix = (mk.manager.empty() ? std::string("(default)") : mk.manager) + "\t";
      const std::string name = "multikueue " + (mk.manager.empty() ? std::string("(default)") : mk.manager) + " ";
      auto set = [&](const std::string& order, const std::string& figure, Unit unit, double value) {
        manager_row(prefix + order + "\t" + name + figure, unit).values[i] = value;
      };
      set("01", "workloads", Unit::kCount, static_cast<double>(mk.workloads));
      set("02", "admitted on a worker", Unit::kCount, static_cast<double>(mk.admitted));
      set("03", "finished", Unit::kCount, static_cast<double>(mk.finished));
      set("04", "copies", Unit::kCount, static_cast<double>(mk.copies));
      set("05", "losing reservations", Unit::kCount, static_cast<double>(mk.losing_reservations));
      set("06", "losing preemptions", Unit::kCount, static_cast<double>(mk.losing_preemptions));
      if (mk.time_to_admission.count > 0) {
        set("07", "time to admission p50", Unit::kDuration, static_cast<double>(mk.time_to_admission.p50));
        set("08", "time to admission p90", Unit::kDuration, static_cast<double>(mk.time_to_admission.p90));
      } else {
        manager_row(prefix + "07\t" + name + "time to admission p50", Unit::kDuration);
        manager_row(prefix + "08\t" + name + "time to admission p90", Unit::kDuration);
      }
      set("09", "jobs running twice", Unit::kDuration, static_cast<double>(mk.duplicate_run_time));
      set("10", "API operations", Unit::kCount,
          static_cast<double>(mk.copies + mk.copies_deleted + mk.nomination_patches + mk.status_syncs + mk.gate_opens));
      for (const auto& [resource, amount] : mk.losing_quota_seconds) {
        if (resource != "memory") set("11 " + resource, "losing quota " + resource + "-hours", Unit::kAmount, amount / 3600.0);
      }
      for (const auto& [resource, amount] : mk.losing_victim_work) {
        if (resource != "memory") set("12 " + resource, "victim work lost " + resource + "-hours", Unit::kAmount, amount / 3600.0);
      }
    }
  }
  std::vector<FigureRow> rows = std::move(overall);
  for (auto& [key, row] : per_queue) rows.push_back(std::move(row));
  for (auto& [key, row] : per_flavor) rows.push_back(std::move(row));
  for (auto& [key, row] : per_manager) rows.push_back(std::move(row));
  for (auto& row : ServingAndCapacityFigures(runs)) rows.push_back(std::move(row));
  return rows;
}

std::string FormatValue(Unit unit, double value) {
  switch (unit) {
    case Unit::kCount: return fmt::format("{}", static_cast<int64_t>(std::llround(value)));
    case Unit::kDuration: return FormatDuration(static_cast<SimDuration>(std::llround(value)));
    case Unit::kRatio: return fmt::format("{:.1f}%", value * 100);
    case Unit::kAmount: return fmt::format("{:.2f}", value);
    case Unit::kHours: return fmt::format("{:.2f}h", value);
  }
  return "";
}

std::string FormatDelta(Unit unit, double delta) {
  switch (unit) {
    case Unit::kCount: return fmt::format("{:+}", static_cast<int64_t>(std::llround(delta)));
    case Unit::kDuration: {
      const auto micros = static_cast<SimDuration>(std::llround(delta));
      return (micros < 0 ? "-" : "+") + FormatDuration(micros < 0 ? -micros : micros);
    }
    case Unit::kRatio: return fmt::format("{:+.1f}pp", delta * 100);
    case Unit::kAmount: return fmt::format("{:+.2f}", delta);
    case Unit::kHours: return fmt::format("{:+.2f}h", delta);
  }
  return "";
}

std::string FormatTable(const std::vector<CompareRun>& runs, const std::vector<FigureRow>& rows) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header = {"figure"};
  for (size_t i = 0; i < runs.size(); ++i) header.push_back((i == 0 ? "base: " : "") + runs[i].label);
  cells.push_back(header);
  for (const FigureRow& row : rows) {
    std::vector<std::string> line = {row.name};
    for (size_t i = 0; i < runs.size(); ++i) {
      if (!row.values[i].has_value()) {
        line.push_back("-");
        continue;
      }
      std::string cell = FormatValue(row.unit, *row.values[i]);
      if (i > 0 && row.values[0].has_value()) cell += " (" + FormatDelta(row.unit, *row.values[i] - *row.values[0]) + ")";
      line.push_back(std::move(cell));
    }
    cells.push_back(std::move(line));
  }
  std::vector<size_t> widths(header.size(), 0);
  for (const auto& line : cells) {
    for (size_t c = 0; c < line.size(); ++c) widths[c] = std::max(widths[c], line[c].size());
  }
  std::string out;
  for (const auto& line : cells) {
    for (size_t c = 0; c < line.size(); ++c) {
      if (c == 0) {
        out += fmt::format("{:<{}}", line[c], widths[c]);
      } else {
        out += fmt::format("  {:>{}}", line[c], widths[c]);
      }
    }
    out += '\n';
  }
  return out;
}

std::string CompareJson(const std::vector<CompareRun>& runs, const std::vector<FigureRow>& rows,
                        const std::string& until) {
  nlohmann::ordered_json doc;
  doc["until"] = until.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(until);
  doc["runs"] = nlohmann::ordered_json::array();
  for (const auto& run : runs) {
    doc["runs"].push_back({{"label", run.label},
                           {"files", run.files},
                           {"endTime", static_cast<double>(run.summary.end_time) / static_cast<double>(kSecond)}});
  }
  doc["figures"] = nlohmann::ordered_json::array();
  for (const FigureRow& row : rows) {
    nlohmann::ordered_json figure;
    figure["figure"] = row.name;
    figure["unit"] = row.unit == Unit::kCount      ? "count"
                     : row.unit == Unit::kDuration ? "seconds"
                     : row.unit == Unit::kAmount   ? "amount"
                     : row.unit == Unit::kHours    ? "hours"
                                                   : "ratio";
    const double scale = row.unit == Unit::kDuration ? static_cast<double>(kSecond) : 1.0;
    auto values = nlohmann::ordered_json::array();
    auto deltas = nlohmann::ordered_json::array();
    for (size_t i = 0; i < runs.size(); ++i) {
      values.push_back(row.values[i].has_value() ? nlohmann::ordered_json(*row.values[i] / scale)
                                                 : nlohmann::ordered_json());
      deltas.push_back(i > 0 && row.values[i].has_value() && row.values[0].has_value()
                           ? nlohmann::ordered_json((*row.values[i] - *row.values[0]) / scale)
                           : nlohmann::ordered_json());
    }
    figure["values"] = std::move(values);
    figure["deltas"] = std::move(deltas);
    doc["figures"].push_back(std::move(figure));
  }
  return doc.dump(2) + "\n";
}

}  // namespace

absl::Status PrepareRunDirectory(const std::string& dir, std::string* events, std::string* summary,
                                 std::string* timeseries, std::string* workloads) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir)) {
    return absl::UnavailableError(fmt::format("--out {}: cannot create the run directory: {}", dir,
                                              error ? error.message() : "not a directory"));
  }
  const std::filesystem::path path(dir);
  if (events->empty()) *events = (path / "events.jsonl").string();
  if (summary->empty()) *summary = (path / "summary.json").string();
  if (timeseries->empty()) *timeseries = (path / "timeseries.jsonl").string();
  if (workloads->empty()) *workloads = (path / "workloads.jsonl").string();
  return absl::OkStatus();
}

ResultsCommands::ResultsCommands(CLI::App* app) {
  report_ = app->add_subcommand("report", "Write an HTML report (interactive charts, one offline file) of one or more run directories");
  report_->add_option("runs", report_runs_, "Run directories written by `kueuesim run ... --out DIR`")->required();
  report_->add_option("-o,--output", report_output_, "The HTML file to write, or - for stdout")->required();
  report_->footer(
      "Example:\n"
      "  kueuesim run scenarios/docs/fair-sharing.yaml --out runs/base --quiet\n"
      "  kueuesim report runs/base -o report.html");

  compare_ = app->add_subcommand(
      "compare", "Run the same workloads under several scenarios and compare headline figures with the first");
  compare_->add_option("scenarios", compare_scenarios_,
                       "BASE VARIANT...: each a scenario file or a comma-joined list of files")
      ->required()
      ->expected(2, -1);
  compare_->add_option("--until", compare_until_, "Stop each run at this simulated time (e.g. 2h)");
  compare_->add_option("--json", compare_json_,
                       "Also write the table as JSON to FILE, or - for stdout (the table then goes to stderr)");
  compare_->footer(
      "Example:\n"
      "  kueuesim compare scenarios/capacity-planning/base.yaml,scenarios/capacity-planning/common.yaml \\\n"
      "      scenarios/capacity-planning/more-lending.yaml,scenarios/capacity-planning/common.yaml");

  sweep_ = app->add_subcommand("sweep", "Run the grid points of the scenario's Sweep (one summary JSON per point)");
  sweep_->add_option("files", sweep_files_, "Scenario files or directories, one of them declaring a kueuesim.io/v1alpha1 Sweep")
      ->required();
  sweep_->add_option("--out", sweep_out_, "Directory for the point-NNNNNN.json files")->required();
  sweep_->add_option("--shard", sweep_shard_,
                     "Run only shard i of n (0 <= i < n): the points p with p % n == i (default 0/1)");
  sweep_->add_option("--until", sweep_until_, "Stop each run at this simulated time");
  sweep_->add_option("-j,--jobs", sweep_jobs_,
                     "Points run at once, each on its own thread (default: the number of cores); "
                     "the output is the same for any number")
      ->check(CLI::PositiveNumber);
  sweep_->footer(
      "Example:\n"
      "  kueuesim sweep scenarios/provisioning/rollout-study.yaml scenarios/provisioning/rollout-study-sweep.yaml \\\n"
      "      --out sweep-out --jobs 2");

  sweep_merge_ = app->add_subcommand("sweep-merge", "Join the point files of sweep shards into one CSV table");
  sweep_merge_->add_option("dirs", sweep_merge_dirs_, "Directories written by `kueuesim sweep --out`")->required();
  sweep_merge_->add_option("-o,--output", sweep_merge_output_, "The CSV file to write, or - for stdout")->required();
  sweep_merge_->footer(
      "Example:\n"
      "  kueuesim sweep scenario.yaml sweep.yaml --out shard-0 --shard 0/2\n"
      "  kueuesim sweep scenario.yaml sweep.yaml --out shard-1 --shard 1/2\n"
      "  kueuesim sweep-merge shard-0 shard-1 -o table.csv");
}

std::optional<int> ResultsCommands::Run() const {
  if (report_ != nullptr && report_->parsed()) return Report();
  if (compare_ != nullptr && compare_->parsed()) return Compare();
  if (sweep_ != nullptr && sweep_->parsed()) return Sweep();
  if (sweep_merge_ != nullptr && sweep_merge_->parsed()) return SweepMerge();
  return std::nullopt;
}

int ResultsCommands::Report() const {
  std::vector<report::RunData> runs;
  for (const std::string& dir : report_runs_) {
    auto run = report::LoadRunDirectory(dir);
    if (!run.ok()) return Fail(run.status());
    runs.push_back(std::move(*run));
  }
  // Two runs with the same directory name: label them by their paths.
  for (size_t i = 0; i < runs.size(); ++i) {
    for (size_t j = 0; j < runs.size(); ++j) {
      if (i != j && runs[i].label == runs[j].label) runs[i].label = runs[i].directory;
    }
  }
  auto html = report::RenderHtmlReport(runs);
  if (!html.ok()) return Fail(html.status());
  if (!WriteOutput(report_output_, *html)) return kExitRunFailed;
  return kExitOk;
}

int ResultsCommands::Compare() const {
  sim::RunOptions options;
  if (!compare_until_.empty()) {
    auto until = ParseDuration(compare_until_);
    if (!until.ok()) {
      std::fprintf(stderr, "kueuesim: error: --until: %s\n", StatusMessage(until.status()).c_str());
      return kExitUsage;
    }
    options.until = *until;
  }
  std::vector<CompareRun> runs;
  for (const std::string& argument : compare_scenarios_) {
    auto run = RunScenario(argument, options);
    if (!run.ok()) return Fail(run.status());
    runs.push_back(std::move(*run));
  }
  const std::vector<FigureRow> rows = Figures(runs);
  const std::string table = FormatTable(runs, rows);
  // With the JSON on stdout, the table goes to stderr.
  std::fwrite(table.data(), 1, table.size(), IsStdout(compare_json_) ? stderr : stdout);
  if (!compare_json_.empty() && !WriteOutput(compare_json_, CompareJson(runs, rows, compare_until_))) {
    return kExitRunFailed;
  }
  return kExitOk;
}

}  // namespace kueuesim::cli

namespace kueuesim::cli {

int ResultsCommands::Sweep() const {
  sweep::SweepOptions options;
  if (!sweep_until_.empty()) {
    auto until = ParseDuration(sweep_until_);
    if (!until.ok()) {
      std::fprintf(stderr, "kueuesim: error: --until: %s\n", StatusMessage(until.status()).c_str());
      return kExitUsage;
    }
    options.until = *until;
  }
  if (!sweep_shard_.empty()) {
    auto shard = sweep::ParseShard(sweep_shard_);
    if (!shard.ok()) {
      std::fprintf(stderr, "kueuesim: error: %s\n", StatusMessage(shard.status()).c_str());
      return kExitUsage;
    }
    options.shard = *shard;
  }
  options.jobs = sweep_jobs_ > 0 ? sweep_jobs_ : sweep::DefaultSweepJobs();
  auto ran = sweep::RunSweep(sweep_files_, sweep_out_, options);
  if (!ran.ok()) return Fail(ran.status());
  std::printf("ran %lld point(s) of shard %lld/%lld into %s\n", static_cast<long long>(*ran),
              static_cast<long long>(options.shard.index), static_cast<long long>(options.shard.count),
              sweep_out_.c_str());
  return kExitOk;
}

int ResultsCommands::SweepMerge() const {
  auto table = sweep::MergeSweep(sweep_merge_dirs_);
  if (!table.ok()) return Fail(table.status());
  if (!WriteOutput(sweep_merge_output_, *table)) return kExitRunFailed;
  return kExitOk;
}

}  // namespace kueuesim::cli
