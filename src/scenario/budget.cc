// The loader's budget; see budget.h and kueuesim/scenario/limits.h.
#include "scenario/budget.h"

#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "kueuesim/base/checked.h"
#include "kueuesim/base/status.h"

namespace kueuesim::scenario {
namespace {

// The largest count a limit may be set to: far beyond any machine, small
// enough that adding two totals cannot overflow.
constexpr int64_t kMaxCountLimit = int64_t{1} << 50;

std::string RaiseHint(const char* item) {
  return fmt::format("raise it with --limits {}=N or the Simulation's spec.limits.{} (see docs/scenario-format.md#limits)",
                     item, item);
}

}  // namespace

const char* BudgetKindName(Budget::Kind kind) {
  switch (kind) {
    case Budget::Kind::kNodes:
      return "nodes";
    case Budget::Kind::kWorkloads:
      return "workloads";
    case Budget::Kind::kQueues:
      return "queues";
  }
  return "";
}

Limits LimitOverrides::ApplyTo(Limits base) const {
  if (nodes.has_value()) base.nodes = *nodes;
  if (workloads.has_value()) base.workloads = *workloads;
  if (queues.has_value()) base.queues = *queues;
  if (time.has_value()) base.time = *time;
  return base;
}

absl::StatusOr<LimitOverrides> ParseLimits(std::string_view text) {
  LimitOverrides out;
  if (text.empty()) return InvalidArgument("--limits: empty (want e.g. nodes=2000000,workloads=1000000)");
  size_t at = 0;
  while (at <= text.size()) {
    size_t comma = text.find(',', at);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(at, comma - at);
    at = comma + 1;
    const size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq == std::string_view::npos ? item.size() : eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
    if (eq == std::string_view::npos || value.empty()) {
      return InvalidArgument(fmt::format("--limits: \"{}\": want NAME=VALUE (names: nodes, workloads, queues, time)",
                                         item));
    }
    if (key == "time") {
      auto duration = ParseDuration(value);
      if (!duration.ok() || *duration <= 0) {
        return InvalidArgument(fmt::format("--limits: time: \"{}\" is not a positive duration (e.g. 7300d)", value));
      }
      out.time = *duration;
      continue;
    }
    std::optional<int64_t>* target = key == "nodes"       ? &out.nodes
                                     : key == "workloads" ? &out.workloads
                                     : key == "queues"    ? &out.queues
                                                          : nullptr;
    if (target == nullptr) {
      return InvalidArgument(
          fmt::format("--limits: unknown limit \"{}\" (valid: nodes, workloads, queues, time)", key));
    }
    int64_t n = 0;
    bool ok = !value.empty();
    for (char c : value) {
      ok = ok && c >= '0' && c <= '9';
      if (!ok) break;
      auto next = CheckedAdd(CheckedMul(n, 10), c - '0');
      if (!next.has_value() || *next > kMaxCountLimit) {
        ok = false;
        break;
      }
      n = *next;
    }
    if (!ok || n < 1) {
      return InvalidArgument(fmt::format("--limits: {}: \"{}\" is not an integer between 1 and {}", key, value,
                                         kMaxCountLimit));
    }
    *target = n;
  }
  return out;
}

std::string FormatLimits(const Limits& limits) {
  return fmt::format("nodes={},workloads={},queues={},time={}", limits.nodes, limits.workloads, limits.queues,
                     FormatDuration(limits.time));
}

Budget::Budget(LimitOverrides command_line)
    : command_line_(std::move(command_line)), limits_(command_line_.ApplyTo(Limits())) {}

void Budget::SetSimulationLimits(const LimitOverrides& simulation, const model::SourceRef& source) {
  limits_ = command_line_.ApplyTo(simulation.ApplyTo(Limits()));
  simulation_source_ = source;
  has_simulation_limits_ = !simulation.empty();
}

int64_t Budget::limit(Kind kind) const {
  switch (kind) {
    case Kind::kNodes:
      return limits_.nodes;
    case Kind::kWorkloads:
      return limits_.workloads;
    case Kind::kQueues:
      return limits_.queues;
  }
  return 0;
}

std::string Budget::Crossing(Kind kind, int64_t n) const {
  const int64_t before = totals_[static_cast<int>(kind)];
  const char* name = BudgetKindName(kind);
  return fmt::format("{} {} would bring the scenario to {} {}, over the limit of {}; {}", n, name,
                     CheckedAdd(before, n).value_or(INT64_MAX), name, limit(kind), RaiseHint(name));
}

absl::Status Budget::Add(Kind kind, int64_t n, const FieldReader& field) {
  int64_t& total = totals_[static_cast<int>(kind)];
  auto sum = CheckedAdd(total, n);
  if (n < 0 || !sum.has_value() || *sum > limit(kind)) return field.Error(Crossing(kind, n));
  total = *sum;
  return absl::OkStatus();
}

absl::Status Budget::Add(Kind kind, int64_t n, const std::string& where) {
  return Add(kind, n, [&where] { return where; });
}

absl::Status Budget::Add(Kind kind, int64_t n, absl::FunctionRef<std::string()> where) {
  int64_t& total = totals_[static_cast<int>(kind)];
  auto sum = CheckedAdd(total, n);
  if (n < 0 || !sum.has_value() || *sum > limit(kind)) {
    return InvalidArgument(fmt::format("{}: {}", where(), Crossing(kind, n)));
  }
  total = *sum;
  return absl::OkStatus();
}

std::string Budget::TimeCrossing(SimDuration value) const {
  return fmt::format("{} is beyond the simulated time range of {}; {}", FormatDuration(value),
                     FormatDuration(limits_.time), RaiseHint("time"));
}

absl::Status Budget::CheckTime(SimDuration value, const FieldReader& field) const {
  if (value <= limits_.time) return absl::OkStatus();
  return field.Error(TimeCrossing(value));
}

absl::Status Budget::CheckTime(SimDuration value, const std::string& where) const {
  return CheckTime(value, [&where] { return where; });
}

absl::Status Budget::CheckTime(SimDuration value, absl::FunctionRef<std::string()> where) const {
  if (value <= limits_.time) return absl::OkStatus();
  return InvalidArgument(fmt::format("{}: {}", where(), TimeCrossing(value)));
}

absl::Status Budget::Finish() const {
  if (!has_simulation_limits_) return absl::OkStatus();  // every Add checked the final limits
  for (Kind kind : {Kind::kNodes, Kind::kWorkloads, Kind::kQueues}) {
    const int64_t total = totals_[static_cast<int>(kind)];
    if (total <= limit(kind)) continue;
    return InvalidArgument(fmt::format("{}: Simulation: spec.limits.{}: the scenario has {} {}, over this limit of {}",
                                       simulation_source_.ToString(), BudgetKindName(kind), total,
                                       BudgetKindName(kind), limit(kind)));
  }
  return absl::OkStatus();
}

}  // namespace kueuesim::scenario
