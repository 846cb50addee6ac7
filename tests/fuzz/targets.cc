// The fuzz targets; see targets.h and docs/fuzzing.md.
#include "targets.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <utility>

#include "kueuesim/base/quantity.h"
#include "kueuesim/base/time.h"
#include "kueuesim/doc/reader.h"
#include "kueuesim/dra/cel.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/trace/change_source.h"
#include "kueuesim/trace/importers.h"

namespace kueuesim::fuzz {
namespace {

std::string_view Text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A property the code promises was broken: a bug, as a crash would be.
[[noreturn]] void Broken(const char* what, std::string_view input) {
  std::fprintf(stderr, "fuzz property broken: %s (input of %zu bytes)\n", what, input.size());
  std::abort();
}

// --- YAML / JSON document reader ---

int DocReader(const uint8_t* data, size_t size) {
  doc::ReadOptions options;
  options.max_expanded_nodes = 200'000;  // bounded time per input
  int64_t documents = 0;
  absl::Status status = doc::ReadString(
      Text(data, size), "fuzz.yaml",
      [&documents](doc::Document&&) {
        ++documents;
        return absl::OkStatus();
      },
      options);
  auto all = doc::ReadAllFromString(Text(data, size), "fuzz.yaml", options);
  // The two entry points agree on whether the input is valid.
  if (status.ok() != all.ok()) Broken("ReadString and ReadAllFromString disagree", Text(data, size));
  // Lists read item by item (the scenario loader's way): where both reads
  // succeed, each document's split items are as many as its top-level
  // "items" read whole, and all were delivered. (Either may refuse what the
  // other accepts: an alias across items only when split, alias expansion
  // summed over all items only when whole.)
  doc::ReadOptions split = options;
  split.split_list_items = true;
  auto pieces = doc::ReadAllFromString(Text(data, size), "fuzz.yaml", split);
  if (pieces.ok() && all.ok()) {
    int64_t delivered = 0;
    int64_t announced = 0;
    for (const doc::Document& piece : *pieces) {
      if (piece.list_item() >= 0) {
        ++delivered;
        continue;
      }
      announced += piece.split_items();
      if (piece.split_items() == 0) continue;
      for (const doc::Document& whole : *all) {
        if (whole.index() != piece.index()) continue;
        if (static_cast<int64_t>(whole.root().Get("items").size()) != piece.split_items()) {
          Broken("a split read delivered another number of items than the whole read has", Text(data, size));
        }
      }
    }
    if (delivered != announced) Broken("a split read announced another number of items", Text(data, size));
  }
  // The JSON fast path reads what libyaml reads: with and without it, the
  // same error, or the same documents (every node, style and position).
  // Valid JSON that YAML refuses (a surrogate pair escape, a raw DEL or C1
  // control character) is the one difference allowed (docs/scenario-format.md).
  for (const bool split_items : {false, true}) {
    doc::ReadOptions fast = options;
    fast.split_list_items = split_items;
    doc::ReadOptions slow = fast;
    slow.json_fast_path = false;
    const auto describe = [&](const doc::ReadOptions& read_options, std::string* out) {
      return doc::ReadString(
          Text(data, size), "fuzz.yaml",
          [out](doc::Document&& document) {
            *out += document.DebugString();
            return absl::OkStatus();
          },
          read_options);
    };
    std::string fast_documents;
    std::string slow_documents;
    const absl::Status fast_status = describe(fast, &fast_documents);
    const absl::Status slow_status = describe(slow, &slow_documents);
    if (fast_status.ok() && !slow_status.ok()) {
      const std::string message(slow_status.message());
      if (message.find("invalid Unicode character escape code") == std::string::npos &&
          message.find("control characters are not allowed") == std::string::npos) {
        Broken("the JSON fast path accepted what libyaml refuses", Text(data, size));
      }
      continue;
    }
    if (fast_status != slow_status) Broken("the JSON fast path failed otherwise than libyaml", Text(data, size));
    // (On an error, the fast path may have delivered documents before the
    // point where libyaml's read-ahead stops; the read fails all the same.)
    if (fast_status.ok() && fast_documents != slow_documents) {
      Broken("the JSON fast path read other documents", Text(data, size));
    }
  }
  return 0;
}

// --- The scenario loader, bytes to a validated scenario ---

int ScenarioLoader(const uint8_t* data, size_t size) {
  scenario::LoadOptions options;
  // Small budgets keep each input fast (a NodePool of a million nodes is
  // valid, and refused here as over the budget, which is fine).
  options.limits.nodes = 2'000;
  options.limits.workloads = 2'000;
  options.limits.queues = 500;
  auto loaded = scenario::LoadScenarioStrings({{"fuzz.yaml", std::string(Text(data, size))}}, options);
  (void)loaded;
  return 0;
}

// --- Trace importers: the bytes as a trace file of one format ---

std::string TempPath(std::string_view format) {
  return (std::filesystem::temp_directory_path() /
          ("kueuesim-fuzz-" + std::to_string(::getpid()) + "-" + std::string(format)))
      .string();
}

void ImportTrace(std::string_view format, const uint8_t* data, size_t size) {
  const std::string path = TempPath(format);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  trace::TraceSpec spec;
  spec.name = "fuzz";
  spec.format = std::string(format);
  spec.path = path;
  spec.source.file = path;
  // Generators make what their configuration says: measured first, and
  // skipped when large (the loader refuses those against its budget).
  auto extent = trace::MeasureGenerated(spec);
  if (!extent.ok()) return;
  if (extent->workloads > 5'000 || extent->cluster_queues > 500 || extent->cohorts > 500) return;
  auto objects = trace::GeneratedObjectsFor(spec);
  if (!objects.ok()) return;
  if (trace::IsChangeTrace(spec)) {
    auto changes = trace::OpenChangeTrace(spec);
    if (!changes.ok()) return;
    for (int i = 0; i < 100'000; ++i) {
      auto next = (*changes)->Next();
      if (!next.ok() || !next->has_value()) break;
    }
    return;
  }
  auto source = trace::OpenTrace(spec);
  if (!source.ok()) return;
  for (int i = 0; i < 100'000; ++i) {
    auto next = (*source)->Next();
    if (!next.ok() || !next->has_value()) break;
  }
}

template <const char* kFormat>
int Trace(const uint8_t* data, size_t size) {
  ImportTrace(kFormat, data, size);
  return 0;
}

constexpr char kNativeCsv[] = "native-csv";
constexpr char kNativeJsonl[] = "native-jsonl";
constexpr char kKueueWorkloads[] = "kueue-workloads";
constexpr char kPerfGenerator[] = "kueue-perf-generator";
constexpr char kAlibaba[] = "alibaba-gpu-2023";
constexpr char kPhilly[] = "philly";
constexpr char kHelios[] = "helios";
constexpr char kPollux[] = "pollux";
constexpr char kAlibabaDlrm[] = "alibaba-dlrm";
constexpr char kReplicaTimelineCsv[] = "replica-timeline-csv";

// --- Kubernetes quantities and durations ---

int Quantities(const uint8_t* data, size_t size) {
  const std::string_view text = Text(data, size);
  auto q = ParseQuantity(text);
  if (q.ok()) {
    if (dra::CompareQuantities(*q, *q) != 0) Broken("a quantity differs from itself", text);
    for (const char* resource : {"cpu", "memory", "nvidia.com/gpu", "pods"}) {
      auto canonical = CanonicalValue(*q, resource);
      const Amount saturated = CanonicalAmountSaturating(*q, resource);
      if (canonical.ok()) {
        // Equal below Kueue's "unlimited" threshold (AmountFromQuantity:
        // INT64_MAX / 1000 cores of cpu, INT64_MAX units otherwise); at or
        // above it the saturating conversion says unlimited.
        const int64_t threshold = std::string_view(resource) == "cpu"
                                      ? std::numeric_limits<int64_t>::max() / 1000 * 1000
                                      : std::numeric_limits<int64_t>::max();
        if (saturated == kUnlimited ? *canonical < threshold : saturated != *canonical) {
          Broken("CanonicalAmountSaturating disagrees with CanonicalValue", text);
        }
        (void)FormatAmount(*canonical, resource);
        (void)KueueQuantityString(*canonical, resource);
      }
    }
    for (int scale : {-9, -3, 0, 3, 6}) (void)ScaledValue(*q, scale);
  }
  (void)ParseCanonicalValue(text, "cpu");
  (void)ParseCanonicalValue(text, "memory");
  return 0;
}

int Durations(const uint8_t* data, size_t size) {
  const std::string_view text = Text(data, size);
  auto d = ParseDuration(text);
  if (d.ok()) {
    (void)FormatDuration(*d);
    (void)FormatSeconds(*d);
  }
  auto t = ParseRfc3339(text);
  if (t.ok()) (void)FormatRfc3339(*t);
  return 0;
}

// --- CEL (DRA device selectors) ---

model::DeviceAttribute Attr(model::DeviceAttribute::Type type) {
  model::DeviceAttribute a;
  a.type = type;
  return a;
}

const model::Device& FuzzDevice() {
  static const model::Device device = [] {
    model::Device d;
    d.name = "gpu-0";
    auto s = Attr(model::DeviceAttribute::Type::kString);
    s.string_value = "H100";
    d.attributes["gpu.example.com/model"] = s;
    auto i = Attr(model::DeviceAttribute::Type::kInt);
    i.int_value = 132;
    d.attributes["gpu.example.com/cores"] = i;
    auto b = Attr(model::DeviceAttribute::Type::kBool);
    b.bool_value = true;
    d.attributes["gpu.example.com/mig"] = b;
    auto v = Attr(model::DeviceAttribute::Type::kVersion);
    v.string_value = "1.2.3";
    d.attributes["gpu.example.com/driverVersion"] = v;
    auto l = Attr(model::DeviceAttribute::Type::kString);
    l.is_list = true;
    l.string_values = {"a", "b"};
    d.attributes["vendor.example.com/tags"] = l;
    model::DeviceCapacity memory;
    memory.value = *ParseQuantity("80Gi");
    d.capacity["gpu.example.com/memory"] = memory;
    return d;
  }();
  return device;
}

int Cel(const uint8_t* data, size_t size) {
  auto expression = dra::CelExpression::Compile(Text(data, size));
  if (!expression.ok()) return 0;
  const dra::CelResult result = expression->Evaluate("gpu.example.com", FuzzDevice());
  if (expression->Matches("gpu.example.com", FuzzDevice()) != (result.outcome == dra::CelResult::Outcome::kTrue)) {
    Broken("Matches disagrees with Evaluate", Text(data, size));
  }
  (void)expression->Evaluate("other.example.com", FuzzDevice());
  return 0;
}

}  // namespace

const std::vector<Target>& AllTargets() {
  static const std::vector<Target> targets = {
      {"doc_reader", DocReader},
      {"scenario_loader", ScenarioLoader},
      {"trace_native_csv", Trace<kNativeCsv>},
      {"trace_native_jsonl", Trace<kNativeJsonl>},
      {"trace_kueue_workloads", Trace<kKueueWorkloads>},
      {"trace_perf_generator", Trace<kPerfGenerator>},
      {"trace_alibaba", Trace<kAlibaba>},
      {"trace_philly", Trace<kPhilly>},
      {"trace_helios", Trace<kHelios>},
      {"trace_pollux", Trace<kPollux>},
      {"trace_alibaba_dlrm", Trace<kAlibabaDlrm>},
      {"trace_replica_timeline", Trace<kReplicaTimelineCsv>},
      {"quantity", Quantities},
      {"duration", Durations},
      {"cel", Cel},
  };
  return targets;
}

const Target* FindTarget(std::string_view name) {
  for (const Target& t : AllTargets()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace kueuesim::fuzz
