// Loading scenario files: documents in, objects grouped by cluster out.
#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/doc/reader.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/trace/importers.h"
#include "scenario/decode.h"
#include "scenario/decode_dra.h"
#include "scenario/decode_nodes.h"
#include "scenario/decode_pods.h"
#include "scenario/decode_provisioning.h"
#include "scenario/decode_trace.h"
#include "scenario/decode_workloads.h"
#include "scenario/validate.h"

namespace kueuesim::scenario {
namespace {

constexpr char kClusterAnnotation[] = "kueuesim.io/cluster";
constexpr char kKueueSimApi[] = "kueuesim.io/v1alpha1";
// Simulated time 0 when nothing else says: a fixed instant, so that runs
// are reproducible.
constexpr UnixMicros kDefaultStartTime = 1735689600LL * kSecond;  // 2025-01-01T00:00:00Z

class Loader {
 public:
  absl::Status LoadDocument(doc::Document&& document) {
    ++scenario_.report.documents;
    current_cluster_ = file_cluster_;
    return LoadNode(document.root(), /*in_list=*/false);
  }

  void StartFile() { file_cluster_.clear(); }

  absl::StatusOr<Scenario> Finish() {
    KUEUESIM_RETURN_IF_ERROR(FinishPodGroups());
    KUEUESIM_RETURN_IF_ERROR(ValidateScenario(&scenario_));
    if (!scenario_.settings.start_time.has_value()) {
      UnixMicros latest = kDefaultStartTime;
      bool any = false;
      for (const auto& cluster : scenario_.clusters) {
        for (const auto& wl : cluster.workloads) {
          if (!wl.meta.creation_timestamp.has_value()) continue;
          latest = any ? std::max(latest, *wl.meta.creation_timestamp) : *wl.meta.creation_timestamp;
          any = true;
        }
      }
      scenario_.settings.start_time = latest;
    }
    if (scenario_.clusters.empty()) scenario_.Cluster("");
    return std::move(scenario_);
  }

 private:
  absl::Status LoadNode(const doc::Node& root, bool in_list) {
    auto object_name = std::make_shared<const std::string>("object");
    FieldReader top(root, object_name, "");
    if (!root.IsMapping()) return top.Error("a manifest must be a mapping with apiVersion and kind");
    KUEUESIM_ASSIGN_OR_RETURN(std::string api_version, top.Field("apiVersion").String());
    KUEUESIM_ASSIGN_OR_RETURN(std::string kind, top.Field("kind").String());
    if (kind == "List" || (kind.size() > 4 && kind.substr(kind.size() - 4) == "List" &&
                           top.Field("items").node().IsSequence())) {
      if (in_list) return top.Error("a List inside a List is not supported");
      FieldReader items = top.Field("items");
      KUEUESIM_RETURN_IF_ERROR(items.ExpectSequence());
      for (size_t i = 0; i < items.size(); ++i) {
        KUEUESIM_RETURN_IF_ERROR(LoadNode(items.node().at(i), /*in_list=*/true));
      }
      return absl::OkStatus();
    }
    ++scenario_.report.objects;
    std::string name;
    if (root.Get("metadata").IsMapping() && root.Get("metadata").Get("name").IsScalar()) {
      name = std::string(root.Get("metadata").Get("name").scalar());
    }
    FieldReader object(root, std::make_shared<const std::string>(
                                 name.empty() ? kind : fmt::format("{} \"{}\"", kind, name)),
                       "");
    const std::string group = api_version.substr(0, api_version.find('/'));
    const bool v1beta1 = api_version == "kueue.x-k8s.io/v1beta1" ||
                         api_version == "config.kueue.x-k8s.io/v1beta1";
    const KueueApiVersion version = v1beta1 ? KueueApiVersion::kV1beta1 : KueueApiVersion::kV1beta2;

    if (api_version == kKueueSimApi) return LoadKueueSimObject(object, kind);

    ClusterSpec& cluster = ClusterFor(root);
    if (group == "kueue.x-k8s.io") {
      if (api_version != "kueue.x-k8s.io/v1beta1" && api_version != "kueue.x-k8s.io/v1beta2") {
        return object.Field("apiVersion")
            .Error(fmt::format("unsupported version \"{}\" (valid: kueue.x-k8s.io/v1beta1, "
                               "kueue.x-k8s.io/v1beta2)",
                               api_version));
      }
      if (kind == "ResourceFlavor") return Add(&cluster.resource_flavors, DecodeResourceFlavor(object));
      if (kind == "ClusterQueue") return Add(&cluster.cluster_queues, DecodeClusterQueue(object, version));
      if (kind == "Cohort") return Add(&cluster.cohorts, DecodeCohort(object, version));
      if (kind == "LocalQueue") return Add(&cluster.local_queues, DecodeLocalQueue(object));
      if (kind == "WorkloadPriorityClass") {
        return Add(&cluster.workload_priority_classes, DecodeWorkloadPriorityClass(object));
      }
      if (kind == "Workload") return AddWorkload(&cluster, DecodeWorkload(object, version));
      if (kind == "AdmissionCheck") return Add(&cluster.admission_checks, DecodeAdmissionCheck(object));
      if (kind == "Topology") return Add(&cluster.topologies, DecodeTopology(object));
      if (kind == "MultiKueueConfig") {
        return Add(&cluster.multikueue_configs, DecodeMultiKueueConfig(object));
      }
      if (kind == "MultiKueueCluster") {
        return Add(&cluster.multikueue_clusters, DecodeMultiKueueCluster(object));
      }
      if (kind == "ProvisioningRequestConfig") {
        return Add(&cluster.provisioning_request_configs, DecodeProvisioningRequestConfig(object));
      }
    } else if (group == "config.kueue.x-k8s.io" && kind == "Configuration") {
      if (cluster_has_configuration_.count(cluster.name)) {
        return object.Error(fmt::format("a second Configuration for cluster \"{}\"", cluster.name));
      }
      cluster_has_configuration_.insert(cluster.name);
      KUEUESIM_ASSIGN_OR_RETURN(cluster.configuration, DecodeConfiguration(object, version));
      cluster.configuration.api_version = api_version;
      cluster.feature_gates = model::FeatureGates();
      for (const auto& unknown : cluster.feature_gates.Apply(cluster.configuration.feature_gates)) {
        scenario_.report.warnings.push_back(fmt::format(
            "{}:{}: Configuration: feature gate \"{}\" does not affect the simulation and is ignored",
            cluster.configuration.source.file, cluster.configuration.source.line, unknown));
      }
      return absl::OkStatus();
    } else if (api_version == "v1") {
      if (kind == "Namespace") return Add(&cluster.namespaces, DecodeNamespace(object));
      if (kind == "Node") return Add(&cluster.nodes, DecodeNode(object));
      if (kind == "Pod") return LoadPod(object, root, name, &cluster);
    } else if (api_version == "apps/v1" && (kind == "Deployment" || kind == "StatefulSet")) {
      std::string why_unmanaged;
      auto workloads = kind == "Deployment" ? DecodeDeployment(object, &why_unmanaged)
                                            : DecodeStatefulSet(object, &why_unmanaged);
      if (!workloads.ok()) return workloads.status();
      if (!workloads->has_value()) {
        scenario_.report.warnings.push_back(
            fmt::format("{}:{}: {} \"{}\" {}", root.file(), root.position().line, kind, name, why_unmanaged));
        return absl::OkStatus();
      }
      for (auto& workload : **workloads) KUEUESIM_RETURN_IF_ERROR(AddWorkload(&cluster, std::move(workload)));
      return absl::OkStatus();
    } else if (group == "resource.k8s.io" &&
               (kind == "ResourceSlice" || kind == "DeviceClass" || kind == "ResourceClaimTemplate")) {
      // DRA objects: v1 (GA); v1beta2 has the same layout; v1beta1 nests a
      // slice device's fields under `basic` (the decoder reads both).
      const bool dra_v1beta1 = api_version == "resource.k8s.io/v1beta1";
      if (api_version != "resource.k8s.io/v1" && api_version != "resource.k8s.io/v1beta2" && !dra_v1beta1) {
        return object.Field("apiVersion")
            .Error(fmt::format("unsupported version \"{}\" (valid: resource.k8s.io/v1, resource.k8s.io/v1beta2, "
                               "resource.k8s.io/v1beta1)",
                               api_version));
      }
      if (kind == "ResourceSlice") return Add(&cluster.resource_slices, DecodeResourceSlice(object));
      if (kind == "DeviceClass") return Add(&cluster.device_classes, DecodeDeviceClass(object));
      if (dra_v1beta1) {
        return object.Field("apiVersion")
            .Error("a resource.k8s.io/v1beta1 ResourceClaimTemplate is not supported; write it as "
                   "resource.k8s.io/v1 (spec.spec.devices.requests[].exactly)");
      }
      return Add(&cluster.resource_claim_templates, DecodeResourceClaimTemplate(object));
    } else if (api_version == "scheduling.k8s.io/v1" && kind == "PriorityClass") {
      return Add(&cluster.priority_classes, DecodePriorityClass(object));
    } else if (api_version == "leaderworkerset.x-k8s.io/v1" && kind == "LeaderWorkerSet") {
      KUEUESIM_ASSIGN_OR_RETURN(model::LeaderWorkerSet lws, DecodeLeaderWorkerSet(object));
      if (lws.queue_name.empty()) {
        scenario_.report.warnings.push_back(fmt::format(
            "{}:{}: LeaderWorkerSet \"{}\" has no kueue.x-k8s.io/queue-name label; Kueue does not manage it",
            root.file(), root.position().line, name));
        return absl::OkStatus();
      }
      lws.input_sequence = next_sequence_++;
      cluster.leader_worker_sets.push_back(std::move(lws));
      return absl::OkStatus();
    } else if (api_version == "batch/v1" && kind == "Job") {
      KUEUESIM_ASSIGN_OR_RETURN(auto workload, DecodeJob(object));
      if (!workload.has_value()) {
        scenario_.report.warnings.push_back(fmt::format(
            "{}:{}: Job \"{}\" has no kueue.x-k8s.io/queue-name label; Kueue does not manage it",
            root.file(), root.position().line, name));
        return absl::OkStatus();
      }
      return AddWorkload(&cluster, std::move(*workload));
    }
    ++scenario_.report.unknown_kinds[api_version + "/" + kind];
    return absl::OkStatus();
  }

  absl::Status LoadKueueSimObject(const FieldReader& object, const std::string& kind) {
    if (kind == "Simulation") {
      if (has_simulation_) return object.Error("a second Simulation object");
      has_simulation_ = true;
      return DecodeSimulation(object, &scenario_.settings);
    }
    if (kind == "Change") {
      KUEUESIM_ASSIGN_OR_RETURN(model::Change change, DecodeChange(object));
      scenario_.Cluster(current_cluster_).changes.push_back(std::move(change));
      return absl::OkStatus();
    }
    if (kind == "NodePool") {
      KUEUESIM_ASSIGN_OR_RETURN(std::vector<model::Node> nodes, DecodeNodePool(object));
      ClusterSpec& cluster = ClusterFor(object.node());
      for (auto& node : nodes) cluster.nodes.push_back(std::move(node));
      return absl::OkStatus();
    }
    if (kind == "AutoscalerPool") {
      return Add(&ClusterFor(object.node()).autoscaler_pools, DecodeAutoscalerPool(object));
    }
    if (kind == "Cluster") {
      KUEUESIM_ASSIGN_OR_RETURN(model::ObjectMeta meta, DecodeMeta(object, false));
      file_cluster_ = meta.name;
      current_cluster_ = meta.name;
      scenario_.Cluster(meta.name);
      return absl::OkStatus();
    }
    if (kind == "Trace") return LoadTrace(object);
    if (kind == "Sweep") {
      // A parameter grid for `kueuesim sweep` (sweep/sweep.h reads it); a
      // single run simulates the scenario as written.
      return absl::OkStatus();
    }
    return object.Field("kind").Error(
        fmt::format("unknown kueuesim.io/v1alpha1 kind \"{}\" (valid: Simulation, Cluster, Change, NodePool, AutoscalerPool, Trace, Sweep)",
                    kind));
  }

  // A Trace: replayed as a streaming source when the simulation is built
  // (paths relative to the scenario file). Its cluster is spec.cluster, else
  // the kueuesim.io/cluster annotation, else the file's current Cluster; the
  // objects its format defines (a generator's queues, a node list) join
  // that cluster now, so that they are validated with the rest.
  absl::Status LoadTrace(const FieldReader& object) {
    const doc::Node& root = object.node();
    const std::string base_dir = std::filesystem::path(root.file()).parent_path().string();
    KUEUESIM_ASSIGN_OR_RETURN(trace::TraceSpec spec, DecodeTrace(object, base_dir));
    const bool cluster_given = root.Get("spec").Get("cluster").IsScalar() ||
                               root.Get("metadata").Get("annotations").Get(kClusterAnnotation).IsScalar();
    if (!cluster_given) spec.cluster = current_cluster_;
    auto generated = trace::GeneratedObjectsFor(spec);
    if (!generated.ok()) return generated.status();
    ClusterSpec& cluster = scenario_.Cluster(spec.cluster);
    auto append = [](auto* into, auto& from) {
      for (auto& item : from) into->push_back(std::move(item));
    };
    append(&cluster.resource_flavors, generated->resource_flavors);
    append(&cluster.cohorts, generated->cohorts);
    append(&cluster.cluster_queues, generated->cluster_queues);
    append(&cluster.local_queues, generated->local_queues);
    append(&cluster.namespaces, generated->namespaces);
    append(&cluster.workload_priority_classes, generated->workload_priority_classes);
    append(&cluster.nodes, generated->nodes);
    scenario_.traces.push_back(std::move(spec));
    return absl::OkStatus();
  }

  // A v1 Pod: a single-pod Workload, or a member of a pod group whose
  // Workload FinishPodGroups builds once every file is read.
  absl::Status LoadPod(const FieldReader& object, const doc::Node& root, const std::string& name,
                       ClusterSpec* cluster) {
    if (IsPodGroupMember(object)) return pod_groups_[cluster->name].Add(object, next_sequence_++);
    std::string why_unmanaged;
    KUEUESIM_ASSIGN_OR_RETURN(auto workload, DecodePod(object, &why_unmanaged));
    if (!workload.has_value()) {
      scenario_.report.warnings.push_back(
          fmt::format("{}:{}: Pod \"{}\" {}", root.file(), root.position().line, name, why_unmanaged));
      return absl::OkStatus();
    }
    return AddWorkload(cluster, std::move(*workload));
  }

  // The pod groups of each cluster become Workloads, placed by the sequence
  // of their last member among the cluster's other Workloads.
  absl::Status FinishPodGroups() {
    for (auto& [cluster_name, collector] : pod_groups_) {
      KUEUESIM_ASSIGN_OR_RETURN(std::vector<model::Workload> groups,
                                collector.Finish(&scenario_.report.warnings));
      if (groups.empty()) continue;
      std::vector<model::Workload>& workloads = scenario_.Cluster(cluster_name).workloads;
      for (auto& workload : groups) workloads.push_back(std::move(workload));
      std::stable_sort(workloads.begin(), workloads.end(), [](const model::Workload& a, const model::Workload& b) {
        return a.input_sequence < b.input_sequence;
      });
    }
    pod_groups_.clear();
    return absl::OkStatus();
  }

  ClusterSpec& ClusterFor(const doc::Node& root) {
    doc::Node annotation = root.Get("metadata").Get("annotations").Get(kClusterAnnotation);
    if (annotation.IsScalar()) return scenario_.Cluster(std::string(annotation.scalar()));
    return scenario_.Cluster(current_cluster_);
  }

  template <typename T>
  absl::Status Add(std::vector<T>* into, absl::StatusOr<T> object) {
    if (!object.ok()) return object.status();
    into->push_back(*std::move(object));
    return absl::OkStatus();
  }

  absl::Status AddWorkload(ClusterSpec* cluster, absl::StatusOr<model::Workload> workload) {
    if (!workload.ok()) return workload.status();
    workload->input_sequence = next_sequence_++;
    cluster->workloads.push_back(*std::move(workload));
    return absl::OkStatus();
  }

  Scenario scenario_;
  std::string file_cluster_;
  std::string current_cluster_;
  std::set<std::string> cluster_has_configuration_;
  bool has_simulation_ = false;
  int64_t next_sequence_ = 0;
  std::map<std::string, PodGroupCollector> pod_groups_;  // by cluster name
};

}  // namespace

ClusterSpec& Scenario::Cluster(const std::string& name) {
  for (auto& cluster : clusters) {
    if (cluster.name == name) return cluster;
  }
  ClusterSpec spec;
  spec.name = name;
  // A Kueue without a Configuration file runs on the v1beta2 defaults.
  spec.configuration.api_version = "config.kueue.x-k8s.io/v1beta2";
  spec.configuration.wait_for_pods_ready.enable = true;  // v1beta2 defaulting
  if (name.empty()) {
    clusters.insert(clusters.begin(), std::move(spec));
    return clusters.front();
  }
  clusters.push_back(std::move(spec));
  return clusters.back();
}

const ClusterSpec* Scenario::FindCluster(const std::string& name) const {
  for (const auto& cluster : clusters) {
    if (cluster.name == name) return &cluster;
  }
  return nullptr;
}

absl::StatusOr<Scenario> LoadScenarioFiles(const std::vector<std::string>& paths) {
  Loader loader;
  for (const auto& path : paths) {
    loader.StartFile();
    KUEUESIM_RETURN_IF_ERROR(doc::ReadFile(
        path, [&](doc::Document&& document) { return loader.LoadDocument(std::move(document)); }));
  }
  return loader.Finish();
}

absl::StatusOr<Scenario> LoadScenarioStrings(
    const std::vector<std::pair<std::string, std::string>>& named_texts) {
  Loader loader;
  for (const auto& [name, text] : named_texts) {
    loader.StartFile();
    KUEUESIM_RETURN_IF_ERROR(doc::ReadString(
        text, name, [&](doc::Document&& document) { return loader.LoadDocument(std::move(document)); }));
  }
  return loader.Finish();
}

}  // namespace kueuesim::scenario
