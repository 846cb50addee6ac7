// Loading a cluster export: Workload manifests as `kubectl get workloads -A
// -o yaml` (one `kind: List`) and `-o json` print them, the input issue 21's
// loading targets are about. Each benchmark reports bytes per second of the
// manifest text (SetBytesProcessed).
//
// BM_ReadDocuments/<format>/<n>: the document reader alone (every item of
//   the List built as a document, then dropped).
// BM_LoadScenario/<format>/<n>: the reader and the scenario loader (every
//   Workload decoded and checked).
// BM_LoadAndCreate/<format>/<n>: as `kueuesim validate` does: the loaded
//   scenario handed to a Simulation (the workloads' runtime records built).
//
// The export is generated in memory, shaped like bench/make_workload_manifests.py's
// (owner reference, labels, one pod set with limits and requests, the
// pending condition), so the benchmark needs no file. Whole-process figures
// (`kueuesim validate` on the written files, with peak memory) are in
// docs/performance.md.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/doc/reader.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/sim/simulation.h"

namespace kueuesim::bench {
namespace {

constexpr int kQueues = 11;

std::string ClusterYaml() {
  std::string text = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: gpu\n";
  for (int q = 0; q < kQueues; ++q) {
    text += fmt::format(
        "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: vc-{0}\n"
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: vc-{0}\n"
        "spec:\n  namespaceSelector: {{}}\n  queueingStrategy: StrictFIFO\n  resourceGroups:\n"
        "  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: gpu\n      resources:\n"
        "      - name: nvidia.com/gpu\n        nominalQuota: 64\n"
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: main\n"
        "  namespace: vc-{0}\nspec:\n  clusterQueue: vc-{0}\n",
        q);
  }
  return text;
}

// A UUID-shaped string derived from `i` (deterministic).
std::string Uid(int i, int salt) {
  const unsigned x = static_cast<unsigned>(i) * 2654435761u + static_cast<unsigned>(salt) * 40503u;
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", x, (x >> 7) & 0xffff, (x >> 13) & 0xffff,
                     (x >> 3) & 0xffff, static_cast<unsigned long long>(x) * 977u);
}

std::string WorkloadsYaml(int n) {
  std::string text = "apiVersion: v1\nitems:\n";
  for (int i = 0; i < n; ++i) {
    const std::string job_uid = Uid(i, 1);
    const std::string created = fmt::format("2017-10-{:02d}T{:02d}:{:02d}:{:02d}Z", 9 + i / 86400 % 20,
                                            i / 3600 % 24, i / 60 % 60, i % 60);
    const int gpus = 1 << (i % 4);
    text += fmt::format(
        "- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: Workload\n  metadata:\n    annotations:\n"
        "      kueuesim.io/duration: \"{dur}s\"\n    creationTimestamp: \"{created}\"\n    generation: 1\n"
        "    labels:\n      kueue.x-k8s.io/job-uid: \"{job_uid}\"\n      kueue.x-k8s.io/queue-name: main\n"
        "    name: job-philly-{i:06d}-{short}\n    namespace: vc-{q}\n    ownerReferences:\n"
        "    - apiVersion: batch/v1\n      blockOwnerDeletion: true\n      controller: true\n      kind: Job\n"
        "      name: philly-{i:06d}\n      uid: \"{job_uid}\"\n    resourceVersion: \"{rv}\"\n    uid: \"{uid}\"\n"
        "  spec:\n    active: true\n    podSets:\n    - count: 1\n      name: main\n      template:\n"
        "        metadata: {{}}\n        spec:\n          containers:\n"
        "          - image: registry.example.com/philly/train:2017.10\n            imagePullPolicy: IfNotPresent\n"
        "            name: train\n            resources:\n              limits:\n"
        "                nvidia.com/gpu: \"{gpus}\"\n              requests:\n                nvidia.com/gpu: \"{gpus}\"\n"
        "            terminationMessagePath: /dev/termination-log\n            terminationMessagePolicy: File\n"
        "          dnsPolicy: ClusterFirst\n          restartPolicy: Never\n          schedulerName: default-scheduler\n"
        "          securityContext: {{}}\n          terminationGracePeriodSeconds: 30\n"
        "    priority: 0\n    priorityClassSource: \"\"\n    queueName: main\n  status:\n    conditions:\n"
        "    - lastTransitionTime: \"{created}\"\n      message: \"couldn't assign flavors to pod set main: "
        "insufficient quota for nvidia.com/gpu in flavor gpu, request > maximum capacity ({gpus} > 0)\"\n"
        "      observedGeneration: 1\n      reason: Pending\n      status: \"False\"\n      type: QuotaReserved\n",
        fmt::arg("dur", 60 + i % 7200), fmt::arg("created", created), fmt::arg("job_uid", job_uid),
        fmt::arg("i", i), fmt::arg("short", job_uid.substr(0, 5)), fmt::arg("q", i % kQueues),
        fmt::arg("rv", 1000 + i), fmt::arg("uid", Uid(i, 2)), fmt::arg("gpus", gpus));
  }
  text += "kind: List\nmetadata:\n  resourceVersion: \"\"\n";
  return text;
}

enum class Format { kYaml, kJson };

void AppendJsonString(std::string_view text, std::string& out) {
  out.push_back('"');
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

bool IsJsonLiteral(std::string_view text) {
  if (text == "true" || text == "false" || text == "null") return true;
  if (text.empty()) return false;
  for (const char c : text) {
    if ((c < '0' || c > '9') && c != '-') return false;
  }
  return true;
}

// Writes a node as `kubectl -o json` does: four-space indents, one entry per
// line, quoted strings; a plain scalar that is a JSON literal stays bare.
void AppendJson(const doc::Node& node, int depth, std::string& out) {
  const std::string indent(static_cast<size_t>(depth + 1) * 4, ' ');
  const std::string closing(static_cast<size_t>(depth) * 4, ' ');
  if (node.IsScalar()) {
    if (node.style() == doc::ScalarStyle::kPlain && IsJsonLiteral(node.scalar())) {
      out += node.scalar();
    } else {
      AppendJsonString(node.scalar(), out);
    }
  } else if (node.size() == 0) {
    out += node.IsMapping() ? "{}" : "[]";
  } else if (node.IsMapping()) {
    out += "{\n";
    for (size_t i = 0; i < node.size(); ++i) {
      out += indent;
      AppendJsonString(node.key(i), out);
      out += ": ";
      AppendJson(node.value(i), depth + 1, out);
      out += i + 1 < node.size() ? ",\n" : "\n";
    }
    out += closing + "}";
  } else {
    out += "[\n";
    for (size_t i = 0; i < node.size(); ++i) {
      out += indent;
      AppendJson(node.at(i), depth + 1, out);
      out += i + 1 < node.size() ? ",\n" : "\n";
    }
    out += closing + "]";
  }
}

void Check(const absl::Status& status);

// The export of n Workloads in `format`; the JSON is the YAML List rewritten.
std::string Workloads(Format format, int n) {
  std::string yaml = WorkloadsYaml(n);
  if (format == Format::kYaml) return yaml;
  auto documents = doc::ReadAllFromString(yaml, "workloads.yaml");
  Check(documents.status());
  std::string json;
  AppendJson((*documents)[0].root(), 0, json);
  json += "\n";
  return json;
}

std::string FileName(Format format) { return format == Format::kYaml ? "workloads.yaml" : "workloads.json"; }

void Check(const absl::Status& status) {
  if (!status.ok()) {
    std::fprintf(stderr, "manifest benchmark: %s\n", StatusMessage(status).c_str());
    std::abort();
  }
}

void BM_ReadDocuments(benchmark::State& state, Format format) {
  const std::string text = Workloads(format, static_cast<int>(state.range(0)));
  doc::ReadOptions options;
  options.split_list_items = true;
  int64_t documents = 0;
  for (auto _ : state) {
    Check(doc::ReadString(
        text, FileName(format),
        [&documents](doc::Document&& document) {
          benchmark::DoNotOptimize(document.root());
          ++documents;
          return absl::OkStatus();
        },
        options));
  }
  state.SetBytesProcessed(static_cast<int64_t>(text.size()) * state.iterations());
  state.counters["documents"] = static_cast<double>(documents) / static_cast<double>(state.iterations());
}
BENCHMARK_CAPTURE(BM_ReadDocuments, yaml, Format::kYaml)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadDocuments, json, Format::kJson)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_LoadScenario(benchmark::State& state, Format format) {
  const std::string cluster = ClusterYaml();
  const std::string workloads = Workloads(format, static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto scenario = scenario::LoadScenarioStrings({{"cluster.yaml", cluster}, {FileName(format), workloads}});
    Check(scenario.status());
    benchmark::DoNotOptimize(scenario->clusters.size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(workloads.size()) * state.iterations());
}
BENCHMARK_CAPTURE(BM_LoadScenario, yaml, Format::kYaml)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LoadScenario, json, Format::kJson)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_LoadAndCreate(benchmark::State& state, Format format) {
  const std::string cluster = ClusterYaml();
  const std::string workloads = Workloads(format, static_cast<int>(state.range(0)));
  const policy::PolicyRegistry registry = policy::PolicyRegistry::WithBuiltins();
  for (auto _ : state) {
    auto scenario = scenario::LoadScenarioStrings({{"cluster.yaml", cluster}, {FileName(format), workloads}});
    Check(scenario.status());
    auto simulation = sim::Simulation::Create(*std::move(scenario), registry);
    Check(simulation.status());
    benchmark::DoNotOptimize(simulation->get());
  }
  state.SetBytesProcessed(static_cast<int64_t>(workloads.size()) * state.iterations());
}
BENCHMARK_CAPTURE(BM_LoadAndCreate, yaml, Format::kYaml)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LoadAndCreate, json, Format::kJson)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kueuesim::bench

BENCHMARK_MAIN();
