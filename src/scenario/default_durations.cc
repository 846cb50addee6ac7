// Default run times; see kueuesim/scenario/default_durations.h.
#include "kueuesim/scenario/default_durations.h"

#include <algorithm>
#include <cmath>

namespace kueuesim::scenario {
namespace {

constexpr uint64_t kFnvOffset = 14695981039346656037ULL;
constexpr uint64_t kFnvPrime = 1099511628211ULL;

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t HashIdentity(uint64_t seed, std::string_view identity) {
  uint64_t h = kFnvOffset;
  for (unsigned char c : identity) {
    h ^= c;
    h *= kFnvPrime;
  }
  return Mix(h ^ Mix(seed));
}

// A uniform double in (0, 1) from 53 bits of `x`.
double Unit(uint64_t x) { return (static_cast<double>(x >> 11) + 0.5) / static_cast<double>(1ULL << 53); }

SimDuration ToMilliseconds(double micros) {
  if (!(micros > 0)) return 0;
  const double limit = 1e17;  // ~3,000 years: far beyond any run, far below overflow
  const double millis = std::round(std::min(micros, limit) / static_cast<double>(kMillisecond));
  return static_cast<SimDuration>(millis) * kMillisecond;
}

}  // namespace

std::string_view WorkloadObjectKind(const model::Workload& workload) {
  if (!workload.rare->object_kind.empty()) return workload.rare->object_kind;
  switch (workload.source_kind) {
    case model::WorkloadSourceKind::kWorkload:
      return "Workload";
    case model::WorkloadSourceKind::kJob:
      return "Job";
    case model::WorkloadSourceKind::kPod:
    case model::WorkloadSourceKind::kPodGroup:
      return "Pod";
    case model::WorkloadSourceKind::kDeployment:
      return "Deployment";
    case model::WorkloadSourceKind::kStatefulSet:
      return "StatefulSet";
    case model::WorkloadSourceKind::kJobSet:
      return "JobSet";
    case model::WorkloadSourceKind::kPyTorchJob:
      return "PyTorchJob";
    case model::WorkloadSourceKind::kTFJob:
      return "TFJob";
    case model::WorkloadSourceKind::kXGBoostJob:
      return "XGBoostJob";
    case model::WorkloadSourceKind::kPaddleJob:
      return "PaddleJob";
    case model::WorkloadSourceKind::kJAXJob:
      return "JAXJob";
    case model::WorkloadSourceKind::kMPIJob:
      return "MPIJob";
    case model::WorkloadSourceKind::kTrainJob:
      return "TrainJob";
    case model::WorkloadSourceKind::kRayJob:
      return "RayJob";
    case model::WorkloadSourceKind::kRayCluster:
      return "RayCluster";
    case model::WorkloadSourceKind::kRayService:
      return "RayService";
    case model::WorkloadSourceKind::kAppWrapper:
      return "AppWrapper";
    case model::WorkloadSourceKind::kSparkApplication:
      return "SparkApplication";
  }
  return "Workload";
}

bool IsServingKind(std::string_view kind) {
  // RayCluster and RayService run until they are deleted, as serving does.
  return kind == "Deployment" || kind == "StatefulSet" || kind == "LeaderWorkerSet" || kind == "RayCluster" ||
         kind == "RayService";
}

bool DefaultDurationRuleMatches(const DefaultDurationRule& rule, const model::Workload& workload,
                                std::string_view kind) {
  if (rule.kind.empty() ? IsServingKind(kind) : rule.kind != kind) return false;
  if (!rule.queue.empty() && rule.queue != workload.queue_name) return false;
  if (!rule.namespace_.empty() && rule.namespace_ != workload.meta.namespace_) return false;
  for (const auto& [key, value] : rule.labels) {
    auto it = workload.meta.labels.find(key);
    if (it == workload.meta.labels.end() || it->second != value) return false;
  }
  return true;
}

SimDuration DrawDuration(const DurationDistribution& distribution, uint64_t seed, std::string_view identity) {
  const uint64_t x = HashIdentity(seed, identity);
  switch (distribution.type) {
    case DurationDistribution::Type::kFixed:
      return distribution.value;
    case DurationDistribution::Type::kExponential:
      return ToMilliseconds(-std::log(Unit(x)) * static_cast<double>(distribution.value));
    case DurationDistribution::Type::kLogNormal: {
      // Box-Muller from two independent uniforms of the same identity.
      const double u1 = Unit(x);
      const double u2 = Unit(Mix(x));
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
      return ToMilliseconds(static_cast<double>(distribution.value) * std::exp(distribution.sigma * z));
    }
    case DurationDistribution::Type::kEmpirical:
      if (distribution.samples.empty()) return 0;
      return distribution.samples[x % distribution.samples.size()];
  }
  return 0;
}

int ApplyDefaultDuration(const SimulationSettings& settings, model::Workload* workload) {
  const std::string_view kind = WorkloadObjectKind(*workload);
  for (size_t i = 0; i < settings.default_durations.size(); ++i) {
    const DefaultDurationRule& rule = settings.default_durations[i];
    if (!DefaultDurationRuleMatches(rule, *workload, kind)) continue;
    std::string identity = workload->meta.namespace_ + "/" + workload->meta.name;
    workload->duration = DrawDuration(rule.distribution, settings.seed, identity);
    return static_cast<int>(i);
  }
  return -1;
}

}  // namespace kueuesim::scenario
