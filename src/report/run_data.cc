// Reading a run directory back; see run_data.h.
#include "kueuesim/report/run_data.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "kueuesim/base/time.h"

namespace kueuesim::report {
namespace {

using nlohmann::json;

absl::Status FieldError(const std::string& file, int64_t line, const std::string& what) {
  return absl::InvalidArgumentError(line > 0 ? fmt::format("{}:{}: {}", file, line, what)
                                             : fmt::format("{}: {}", file, what));
}

// A number field of `object`, or an error naming it.
absl::StatusOr<double> Number(const json& object, const char* field, const std::string& file, int64_t line) {
  auto it = object.find(field);
  if (it == object.end() || !it->is_number()) {
    return FieldError(file, line, fmt::format("field \"{}\" is missing or not a number", field));
  }
  return it->get<double>();
}

std::string Text(const json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Summary quantities are strings ("4", "500m") or numbers.
int64_t Count(const json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

absl::Status LoadSummary(const std::string& file, RunData* run) {
  std::ifstream in(file);
  if (!in) return absl::NotFoundError(fmt::format("{}: cannot open the run's summary (is {} a run directory "
                                                  "written by `kueuesim run --out`?)",
                                                  file, run->directory));
  json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return FieldError(file, 0, "not a JSON object");
  auto end = Number(doc, "endTime", file, 0);
  if (!end.ok()) return end.status();
  run->end_time = *end;
  run->events = Count(doc, "events");
  auto clusters = doc.find("clusters");
  if (clusters == doc.end() || !clusters->is_array()) return FieldError(file, 0, "field \"clusters\" is missing");
  for (const json& cluster : *clusters) {
    auto cqs = cluster.find("clusterQueues");
    if (cqs == cluster.end() || !cqs->is_array()) continue;
    for (const json& cq : *cqs) {
      QueueFigures q;
      q.cluster = Text(cluster, "name");
      q.name = Text(cq, "name");
      q.cohort = Text(cq, "cohort");
      auto reasons = cq.find("pendingByReason");
      if (reasons != cq.end() && reasons->is_object()) {
        for (const auto& [reason, count] : reasons->items()) {
          if (count.is_number_integer()) q.pending_by_reason[reason] = count.get<int64_t>();
        }
      }
      q.admitted = Count(cq, "admitted");
      q.finished = Count(cq, "finished");
      q.pending = Count(cq, "pending");
      q.preempted = Count(cq, "preempted");
      auto wait = cq.find("waitSeconds");
      if (wait != cq.end() && wait->is_object()) {
        // null: no data (nothing admitted).
        auto number = [&](const char* key) -> std::optional<double> {
          auto it = wait->find(key);
          if (it == wait->end() || !it->is_number()) return std::nullopt;
          return it->get<double>();
        };
        q.wait_p50 = number("p50");
        q.wait_p90 = number("p90");
      }
      auto resources = cq.find("resources");
      if (resources != cq.end() && resources->is_array()) {
        for (const json& r : *resources) {
          QueueFigures::Resource res;
          res.flavor = Text(r, "flavor");
          res.resource = Text(r, "resource");
          auto u = r.find("utilization");
          if (u != r.end() && u->is_number()) res.utilization = u->get<double>();
          q.resources.push_back(std::move(res));
        }
      }
      run->queues.push_back(std::move(q));
    }
    auto lwss = cluster.find("leaderWorkerSets");
    if (lwss != cluster.end() && lwss->is_array()) {
      for (const json& l : *lwss) {
        LwsFigures lws;
        lws.cluster = Text(cluster, "name");
        lws.name = Text(l, "name");
        lws.replicas = Count(l, "replicas");
        auto ready = l.find("readyGroups");
        if (ready != l.end() && ready->is_array()) {
          for (const json& point : *ready) {
            if (point.is_array() && point.size() == 2 && point[0].is_number() && point[1].is_number()) {
              lws.ready_groups.emplace_back(point[0].get<double>(), point[1].get<double>());
            }
          }
        }
        // The desired groups: the replicas before the first scale (or the
        // final replicas when it never scaled), then each scale's target.
        auto scales = l.find("scales");
        std::vector<std::pair<double, double>> steps;
        double initial = static_cast<double>(lws.replicas);
        if (scales != l.end() && scales->is_array()) {
          for (const json& scale : *scales) {
            auto at = scale.find("at");
            auto from = scale.find("from");
            auto to = scale.find("to");
            if (at == scale.end() || from == scale.end() || to == scale.end() || !at->is_number() ||
                !from->is_number() || !to->is_number()) {
              continue;
            }
            if (steps.empty()) initial = from->get<double>();
            steps.emplace_back(at->get<double>(), to->get<double>());
          }
        }
        lws.desired_groups.emplace_back(0.0, initial);
        for (const auto& step : steps) lws.desired_groups.push_back(step);
        run->leader_worker_sets.push_back(std::move(lws));
      }
    }
  }
  auto multikueue = doc.find("multiKueue");
  run->multikueue = multikueue != doc.end() && multikueue->is_array() && !multikueue->empty();
  return absl::OkStatus();
}

absl::Status LoadTimeSeries(const std::string& file, RunData* run) {
  std::ifstream in(file);
  if (!in) return absl::OkStatus();
  run->has_timeseries = true;
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    json row = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (row.is_discarded() || !row.is_object()) return FieldError(file, number, "not a JSON object");
    auto time = Number(row, "time", file, number);
    if (!time.ok()) return time.status();
    auto value = Number(row, "value", file, number);
    if (!value.ok()) return value.status();
    SeriesKey key{Text(row, "cluster"), Text(row, "scope"),  Text(row, "name"),
                  Text(row, "metric"),  Text(row, "flavor"), Text(row, "resource")};
    if (key.metric.empty() || key.name.empty()) {
      return FieldError(file, number, "field \"metric\" or \"name\" is missing");
    }
    run->series[key].emplace_back(*time, *value);
  }
  return absl::OkStatus();
}

absl::Status LoadEvents(const std::string& file, RunData* run) {
  std::ifstream in(file);
  if (!in) return absl::OkStatus();
  run->has_events = true;
  // Arrival time of each workload not yet reserved, by "cluster|workload".
  std::unordered_map<std::string, double> arrived;
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    // Only three event types matter: skip the others without parsing.
    const bool is_arrived = line.find("\"type\": \"Arrived\"") != std::string::npos;
    const bool is_reserved = line.find("\"type\": \"QuotaReserved\"") != std::string::npos;
    const bool is_preempted = line.find("\"type\": \"Preempted\"") != std::string::npos;
    if (!is_arrived && !is_reserved && !is_preempted) continue;
    json event = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (event.is_discarded() || !event.is_object()) return FieldError(file, number, "not a JSON object");
    auto time = Number(event, "time", file, number);
    if (!time.ok()) return time.status();
    const std::string cluster = Text(event, "cluster");
    const std::string key = cluster + "|" + Text(event, "workload");
    if (is_preempted) {
      run->preemptions.push_back(*time);
    } else if (is_arrived) {
      arrived[key] = *time;
    } else {
      auto it = arrived.find(key);
      if (it == arrived.end()) continue;  // reserved again after an eviction
      const std::string cq = Text(event, "clusterQueue");
      run->waits[cluster.empty() ? cq : cluster + "/" + cq].push_back(*time - it->second);
      arrived.erase(it);
    }
  }
  for (auto& [cq, waits] : run->waits) std::sort(waits.begin(), waits.end());
  return absl::OkStatus();
}

// run.json: {"startTime": "2024-01-01T00:00:00Z"}.
absl::Status LoadRunInfo(const std::string& file, RunData* run) {
  std::ifstream in(file);
  if (!in) return absl::OkStatus();
  json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return FieldError(file, 0, "not a JSON object");
  auto start = doc.find("startTime");
  if (start == doc.end() || start->is_null()) return absl::OkStatus();
  if (!start->is_string()) return FieldError(file, 0, "field \"startTime\" is not an RFC 3339 string");
  auto parsed = ParseRfc3339(start->get<std::string>());
  if (!parsed.ok()) {
    return FieldError(file, 0, fmt::format("field \"startTime\": {}", std::string(parsed.status().message())));
  }
  run->start_time = static_cast<double>(*parsed) / 1e6;
  run->start_time_text = start->get<std::string>();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RunData> LoadRunDirectory(const std::string& dir) {
  RunData run;
  run.directory = dir;
  std::filesystem::path path(dir);
  run.label = path.filename().string();
  if (run.label.empty()) run.label = path.parent_path().filename().string();
  if (run.label.empty()) run.label = dir;
  if (!std::filesystem::is_directory(path)) {
    return absl::NotFoundError(fmt::format("{}: not a run directory (write one with `kueuesim run ... --out {}`)",
                                           dir, dir));
  }
  absl::Status status = LoadSummary((path / "summary.json").string(), &run);
  if (!status.ok()) return status;
  status = LoadTimeSeries((path / "timeseries.jsonl").string(), &run);
  if (!status.ok()) return status;
  status = LoadEvents((path / "events.jsonl").string(), &run);
  if (!status.ok()) return status;
  status = LoadRunInfo((path / "run.json").string(), &run);
  if (!status.ok()) return status;
  return run;
}

}  // namespace kueuesim::report
