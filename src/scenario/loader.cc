// Loading scenario files: documents in, objects grouped by cluster out.
#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"

#include "kueuesim/base/status.h"
#include "kueuesim/doc/reader.h"
#include "kueuesim/model/pod_resources.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/base/checked.h"
#include "kueuesim/trace/importers.h"
#include "kueuesim/scenario/default_durations.h"
#include "scenario/budget.h"
#include "scenario/decode.h"
#include "scenario/decode_cronjob.h"
#include "scenario/decode_dra.h"
#include "scenario/decode_nodes.h"
#include "scenario/decode_pods.h"
#include "scenario/decode_provisioning.h"
#include "scenario/decode_trace.h"
#include "scenario/decode_workloads.h"
#include "scenario/generate_name.h"
#include "scenario/ownership.h"
#include "scenario/kinds/integrated_kinds.h"
#include "scenario/validate.h"
#include "scenario/workload_kinds.h"

namespace kueuesim::scenario {
namespace {

constexpr char kLwsExclusiveTopology[] = "leaderworkerset.sigs.k8s.io/exclusive-topology";
constexpr char kPrebuiltWorkloadKey[] = "kueue.x-k8s.io/prebuilt-workload-name";  // annotation or label

constexpr char kClusterAnnotation[] = "kueuesim.io/cluster";
constexpr char kKueueSimApi[] = "kueuesim.io/v1alpha1";
// Simulated time 0 when nothing else says: a fixed instant, so that runs
// are reproducible.
constexpr UnixMicros kDefaultStartTime = 1735689600LL * kSecond;  // 2025-01-01T00:00:00Z

class Loader {
 public:
  explicit Loader(const LoadOptions& options) : budget_(options.limits), on_sweep_(options.on_sweep) {}

  // Reads one document of a stream. Files are read with their Lists split
  // (doc::ReadOptions::split_list_items): the items of a List arrive first,
  // each as a document of its own, and are loaded as the List's objects; the
  // List itself comes last, with its items already taken.
  absl::Status LoadDocument(doc::Document&& document) {
    const bool list_item = document.list_item() >= 0;
    if (!list_item) ++scenario_.report.documents;
    // The cluster a document's objects belong to starts as the file's; the
    // items of a List share the List's.
    if (list_item ? document.list_item() == 0 : document.split_items() == 0) current_cluster_ = file_cluster_;
    if (!list_item && document.split_items() > 0) KUEUESIM_RETURN_IF_ERROR(CheckSplitItemsWereAList(document.root()));
    // Nodes point at their Document, so it goes to the heap before it is
    // read: objects resolved at the end (NodePools whose nodes are made then,
    // TrainJobs and their runtimes) keep it until Finish.
    auto owned = std::make_unique<doc::Document>(std::move(document));
    keep_document_ = false;
    const size_t pools_before = deferred_pools_.size();
    absl::Status status = LoadNode(owned->root(), /*in_list=*/list_item);
    if (keep_document_ || deferred_pools_.size() != pools_before) kept_documents_.push_back(std::move(owned));
    return status;
  }

  void StartFile() { file_cluster_.clear(); }

  absl::StatusOr<Scenario> Finish() {
    KUEUESIM_RETURN_IF_ERROR(MakeDeferredPools());
    MakeDeferredReplicas();
    KUEUESIM_RETURN_IF_ERROR(FinishPodGroups());
    KUEUESIM_RETURN_IF_ERROR(FinishIntegratedKinds());
    DropWorkloadsOthersStandFor();
    for (ClusterSpec& cluster : scenario_.clusters) {
      AdjustResources(&cluster);
      KUEUESIM_RETURN_IF_ERROR(ApplyPartialAdmissionGate(&cluster));
    }
    written_resources_pool_.clear();
    KUEUESIM_RETURN_IF_ERROR(CountLeaderWorkerSetScaling());
    KUEUESIM_RETURN_IF_ERROR(budget_.Finish());
    scenario_.limits = budget_.limits();
    for (trace::TraceSpec& trace : scenario_.traces) trace.time_limit = scenario_.limits.time;
    KUEUESIM_RETURN_IF_ERROR(ValidateScenario(&scenario_));
    WarnAboutUnsimulatedKinds();
    WarnAboutNodesWithoutReadyCondition();
    CountRunTimes();
    scenario_.settings.start_time_from_input = scenario_.settings.start_time.has_value();
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
      scenario_.settings.start_time_from_input = any;
    }
    if (scenario_.clusters.empty()) scenario_.Cluster("");
    return std::move(scenario_);
  }

 private:
  // A document whose top-level "items" were read one by one as objects must
  // be a List, as kubectl prints (kind List, or a typed list such as
  // WorkloadList); only Lists have such items.
  absl::Status CheckSplitItemsWereAList(const doc::Node& root) {
    FieldReader top(root, std::make_shared<const std::string>("object"), "");
    const doc::Node kind = root.Get("kind");
    const std::string_view name = kind.IsScalar() ? kind.scalar() : std::string_view();
    if (IsListKind(name)) return absl::OkStatus();
    return top.Field("items").Error(
        name.empty() ? "a document with top-level items must be a List (kind: List)"
                     : fmt::format("a document with top-level items must be a List (kind: List), not {}", name));
  }

  static bool IsListKind(std::string_view kind) {
    return kind == "List" || (kind.size() > 4 && kind.substr(kind.size() - 4) == "List");
  }

  absl::Status LoadNode(const doc::Node& root, bool in_list) {
    FieldReader top(root, SharedObjectName::Of("object", ""), "");
    if (!root.IsMapping()) return top.Error("a manifest must be a mapping with apiVersion and kind");
    KUEUESIM_ASSIGN_OR_RETURN(std::string api_version, top.Field("apiVersion").String());
    KUEUESIM_ASSIGN_OR_RETURN(std::string kind, top.Field("kind").String());
    if (kind == "List" || (IsListKind(kind) && top.Field("items").node().IsSequence())) {
      if (in_list) return top.Error("a List inside a List is not supported");
      FieldReader items = top.Field("items");
      KUEUESIM_RETURN_IF_ERROR(items.ExpectSequence());
      for (size_t i = 0; i < items.size(); ++i) {
        KUEUESIM_RETURN_IF_ERROR(LoadNode(items.node().at(i), /*in_list=*/true));
      }
      return absl::OkStatus();
    }
    ++scenario_.report.objects;
    current_kind_ = kind;
    std::string name;
    if (root.Get("metadata").IsMapping() && root.Get("metadata").Get("name").IsScalar()) {
      name = std::string(root.Get("metadata").Get("name").scalar());
    } else if (auto generated = ObjectName(root)) {
      name = *std::move(generated);  // metadata.generateName
    }
    FieldReader object(root, SharedObjectName::Of(kind, name), "");
    const std::string group = api_version.substr(0, api_version.find('/'));
    const bool v1beta1 = api_version == "kueue.x-k8s.io/v1beta1" ||
                         api_version == "config.kueue.x-k8s.io/v1beta1";
    const KueueApiVersion version = v1beta1 ? KueueApiVersion::kV1beta1 : KueueApiVersion::kV1beta2;

    if (api_version == kKueueSimApi) return LoadKueueSimObject(object, kind);

    ClusterSpec& cluster = ClusterFor(root);
    const int64_t first_sequence = next_sequence_;
    KUEUESIM_RETURN_IF_ERROR(LoadObject(api_version, kind, group, version, object, root, name, cluster));
    ownership_.Note(cluster.name, api_version, kind, root, first_sequence, next_sequence_);
    return absl::OkStatus();
  }

  // One object of the input, by kind (LoadNode's dispatch).
  absl::Status LoadObject(const std::string& api_version, const std::string& kind, const std::string& group,
                          KueueApiVersion version, const FieldReader& object, const doc::Node& root,
                          const std::string& name, ClusterSpec& cluster) {
    if (group == "kueue.x-k8s.io") {
      if (api_version != "kueue.x-k8s.io/v1beta1" && api_version != "kueue.x-k8s.io/v1beta2") {
        return object.Field("apiVersion")
            .Error(fmt::format("unsupported version \"{}\" (valid: kueue.x-k8s.io/v1beta1, "
                               "kueue.x-k8s.io/v1beta2)",
                               api_version));
      }
      if (kind == "ResourceFlavor") return Add(&cluster.resource_flavors, DecodeResourceFlavor(object));
      if (kind == "ClusterQueue" || kind == "Cohort" || kind == "LocalQueue") {
        KUEUESIM_RETURN_IF_ERROR(budget_.Add(Budget::Kind::kQueues, 1, object));
      }
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
            cluster.configuration.source.file.str(), cluster.configuration.source.line, unknown));
      }
      return absl::OkStatus();
    } else if (api_version == "v1") {
      if (kind == "Namespace") return Add(&cluster.namespaces, DecodeNamespace(object));
      if (kind == "Node") {
        KUEUESIM_RETURN_IF_ERROR(budget_.Add(Budget::Kind::kNodes, 1, object));
        bool has_ready_condition = false;
        auto node = DecodeNode(object, &has_ready_condition);
        if (node.ok() && !has_ready_condition) {
          if (nodes_without_ready_condition_ == 0) {
            first_node_without_ready_condition_ =
                fmt::format("{}:{} {}", root.file(), root.position().line, node->name);
          }
          ++nodes_without_ready_condition_;
        }
        return Add(&cluster.nodes, std::move(node));
      }
      if (kind == "Pod") return LoadPod(object, root, name, &cluster);
      if (kind == "LimitRange") return Add(&cluster.limit_ranges, DecodeLimitRange(object));
    } else if ((api_version == "node.k8s.io/v1" || api_version == "node.k8s.io/v1beta1") &&
               kind == "RuntimeClass") {
      return Add(&cluster.runtime_classes, DecodeRuntimeClass(object));
    } else if (api_version == "apps/v1" && (kind == "Deployment" || kind == "StatefulSet")) {
      // The replica Workloads of the pod integration are counted now and
      // made when loading ends: a scenario beyond the budget is refused
      // before any of them is made.
      std::string why_unmanaged;
      PendingReplicas pending;
      auto workloads = kind == "Deployment" ? DecodeDeployment(object, &why_unmanaged, &pending)
                                            : DecodeStatefulSet(object, &why_unmanaged, &pending);
      if (!workloads.ok()) return workloads.status();
      if (!workloads->has_value()) {
        scenario_.report.warnings.push_back(
            fmt::format("{}:{}: {} \"{}\" {}", root.file(), root.position().line, kind, name, why_unmanaged));
        return absl::OkStatus();
      }
      const int64_t made = static_cast<int64_t>((*workloads)->size()) + pending.replicas;
      KUEUESIM_RETURN_IF_ERROR(budget_.Add(Budget::Kind::kWorkloads, made, object.Field("spec").Field("replicas")));
      for (auto& workload : **workloads) {
        KUEUESIM_RETURN_IF_ERROR(AddWorkload(&cluster, std::move(workload), /*counted=*/true));
      }
      if (pending.replicas > 0) {
        pending.prototype.meta.name = pending.name_prefix + "0";  // for messages; MakeReplicas names each
        KUEUESIM_RETURN_IF_ERROR(CheckWorkloadBudget(pending.prototype, /*counted=*/true));
        deferred_.push_back({cluster.name, next_sequence_, std::move(pending)});
        next_sequence_ += deferred_.back().replicas.replicas;
      }
      return absl::OkStatus();
    } else if (group == "resource.k8s.io" &&
               (kind == "ResourceSlice" || kind == "DeviceClass" || kind == "ResourceClaimTemplate")) {
      // DRA objects: v1 (GA); v1beta2 has the same layout; v1beta1 nests a
      // slice device's fields under `basic` and has a claim request's
      // `exactly` fields on the request itself (the decoders read both, as
      // the API server converts v1beta1 to v1 for Kueue).
      const bool dra_v1beta1 = api_version == "resource.k8s.io/v1beta1";
      if (api_version != "resource.k8s.io/v1" && api_version != "resource.k8s.io/v1beta2" && !dra_v1beta1) {
        return object.Field("apiVersion")
            .Error(fmt::format("unsupported version \"{}\" (valid: resource.k8s.io/v1, resource.k8s.io/v1beta2, "
                               "resource.k8s.io/v1beta1)",
                               api_version));
      }
      if (kind == "ResourceSlice") return Add(&cluster.resource_slices, DecodeResourceSlice(object));
      if (kind == "DeviceClass") return Add(&cluster.device_classes, DecodeDeviceClass(object));
      return Add(&cluster.resource_claim_templates, DecodeResourceClaimTemplate(object, dra_v1beta1));
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
      // Exclusive placement changes when LWS creates a group's workers (once
      // the leader is scheduled), which the rollout model does not follow.
      if (root.Get("metadata").Get("annotations").Get(kLwsExclusiveTopology).IsScalar()) {
        scenario_.report.warnings.push_back(fmt::format(
            "{}:{}: LeaderWorkerSet \"{}\": annotation {} is not modelled (exclusive placement; workers are created "
            "with their leader)",
            root.file(), root.position().line, name, kLwsExclusiveTopology));
      }
      // One Workload per group.
      KUEUESIM_RETURN_IF_ERROR(budget_.Add(Budget::Kind::kWorkloads, lws.replicas, object.Field("spec").Field("replicas")));
      lws.input_sequence = next_sequence_++;
      cluster.leader_worker_sets.push_back(std::move(lws));
      return absl::OkStatus();
    } else if (api_version == "batch/v1" && kind == "Job") {
      if (WarnIfFinished(api_version, kind, root, name) || WarnIfPrebuiltWorkload(kind, root, name)) {
        return absl::OkStatus();
      }
      KUEUESIM_ASSIGN_OR_RETURN(auto workload, DecodeJob(object));
      if (!workload.has_value()) {
        scenario_.report.warnings.push_back(fmt::format(
            "{}:{}: Job \"{}\" has no kueue.x-k8s.io/queue-name label; Kueue does not manage it",
            root.file(), root.position().line, name));
        return absl::OkStatus();
      }
      return AddWorkload(&cluster, std::move(*workload));
    } else if (api_version == "batch/v1" && kind == "CronJob") {
      return LoadCronJob(object, root, name, &cluster);
    }
    if (IsIntegratedKind(api_version, kind)) return LoadIntegratedKind(api_version, kind, object, root, name, &cluster);
    const std::string kind_key = api_version + "/" + kind;
    ++scenario_.report.unknown_kinds[kind_key];
    if (CarriesWorkloads(api_version, kind, root)) {
      if (++scenario_.report.unsimulated_workload_kinds[kind_key] == 1) {
        first_unsimulated_[kind_key] =
            fmt::format("{}:{}{}", root.file(), root.position().line, name.empty() ? "" : " \"" + name + "\"");
      }
    }
    return absl::OkStatus();
  }

  // Kueue's other job integrations (scenario/kinds): JobSet, the Kubeflow
  // jobs, TrainJob, the Ray kinds, AppWrapper, SparkApplication.
  // A finished job object gets no Workload from Kueue (its reconciler stops
  // at Finished() when the object has none): skipped with a warning.
  bool WarnIfFinished(const std::string& api_version, const std::string& kind, const doc::Node& root,
                      const std::string& name) {
    const std::string state = FinishedJobState(api_version, kind, root);
    if (state.empty()) return false;
    scenario_.report.warnings.push_back(fmt::format("{}:{}: {} \"{}\" has finished ({}); Kueue makes no Workload for it",
                                                    root.file(), root.position().line, kind, name, state));
    return true;
  }

  // A job object whose kueue.x-k8s.io/prebuilt-workload-name annotation (or
  // label; jobframework.PrebuiltWorkloadNameFor with the default
  // WorkloadIdentifierAnnotations gate) names a Workload uses that Workload
  // and never gets one of its own (the pods of a StatefulSet or of a
  // LeaderWorkerSet group, a job on a MultiKueue worker); the Workload is
  // the input's, or the one its owner's integration makes. Skipped with a
  // warning.
  bool WarnIfPrebuiltWorkload(const std::string& kind, const doc::Node& root, const std::string& name) {
    const doc::Node metadata = root.Get("metadata");
    doc::Node prebuilt = metadata.Get("annotations").Get(kPrebuiltWorkloadKey);
    if (!prebuilt.IsScalar() || prebuilt.scalar().empty()) prebuilt = metadata.Get("labels").Get(kPrebuiltWorkloadKey);
    if (!prebuilt.IsScalar() || prebuilt.scalar().empty()) return false;
    scenario_.report.warnings.push_back(fmt::format("{}:{}: {} \"{}\" uses the prebuilt Workload \"{}\" ({}); it gets none of its own",
                                                    root.file(), root.position().line, kind, name, prebuilt.scalar(),
                                                    kPrebuiltWorkloadKey));
    return true;
  }

  absl::Status LoadIntegratedKind(const std::string& api_version, const std::string& kind, const FieldReader& object,
                                  const doc::Node& root, const std::string& name, ClusterSpec* cluster) {
    if (WarnIfFinished(api_version, kind, root, name) || WarnIfPrebuiltWorkload(kind, root, name)) {
      return absl::OkStatus();
    }
    KUEUESIM_ASSIGN_OR_RETURN(IntegratedKinds::Outcome outcome,
                              integrated_kinds_.Decode(api_version, kind, object, cluster->name, next_sequence_));
    if (outcome.deferred) {
      ++next_sequence_;
      keep_document_ = true;
      return absl::OkStatus();
    }
    if (!outcome.ignored.empty()) {
      scenario_.report.warnings.push_back(
          fmt::format("{}:{}: {} \"{}\" {}", root.file(), root.position().line, kind, name, outcome.ignored));
      return absl::OkStatus();
    }
    for (auto& workload : outcome.workloads) KUEUESIM_RETURN_IF_ERROR(AddWorkload(cluster, std::move(workload)));
    return absl::OkStatus();
  }

  // Objects another object of the input stands for (scenario/ownership.h):
  // their Workloads go, each with a warning.
  void DropWorkloadsOthersStandFor() {
    const Ownership::Dropped dropped = ownership_.Resolve();
    // A Deployment's pods of the input are its replicas (object kind
    // Deployment: serving, no default run time by a rule without a kind).
    if (!dropped.deployment_replicas.empty()) {
      for (ClusterSpec& cluster : scenario_.clusters) {
        for (model::Workload& wl : cluster.workloads) {
          if (dropped.IsDeploymentReplica(wl.input_sequence)) wl.rare.Mutable().object_kind = "Deployment";
        }
      }
    }
    if (dropped.ranges.empty()) return;
    const auto gone = [&](int64_t sequence) { return dropped.Contains(sequence); };
    for (ClusterSpec& cluster : scenario_.clusters) {
      std::erase_if(cluster.workloads, [&](const model::Workload& wl) { return gone(wl.input_sequence); });
      std::erase_if(cluster.leader_worker_sets,
                    [&](const model::LeaderWorkerSet& lws) { return gone(lws.input_sequence); });
      std::erase_if(cluster.cron_jobs, [&](const model::CronJob& cron_job) { return gone(cron_job.input_sequence); });
    }
    for (const std::string& warning : dropped.warnings) scenario_.report.warnings.push_back(warning);
  }

  // Partial admission. With the PartialAdmission gate off, Kueue's Workload
  // webhook (Default) and its job reconciler (clearMinCountsIfFeatureDisabled)
  // drop every minCount; with it on, the Workload webhook refuses a Workload
  // with minCount on more than one pod set.
  absl::Status ApplyPartialAdmissionGate(ClusterSpec* cluster) {
    const bool partial_admission = cluster->feature_gates.partial_admission;
    const auto apply = [&](model::Workload* workload) -> absl::Status {
      if (!partial_admission) {
        for (model::PodSet& pod_set : workload->pod_sets) pod_set.min_count.reset();
        return absl::OkStatus();
      }
      if (workload->source_kind == model::WorkloadSourceKind::kWorkload &&
          std::count_if(workload->pod_sets.begin(), workload->pod_sets.end(),
                        [](const model::PodSet& ps) { return ps.min_count.has_value(); }) > 1) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: Workload \"{}\": spec.podSets: Kueue's webhook rejects the Workload: at most one podSet can "
            "use minCount",
            workload->meta.source.ToString(), workload->meta.name));
      }
      return absl::OkStatus();
    };
    for (model::Workload& workload : cluster->workloads) KUEUESIM_RETURN_IF_ERROR(apply(&workload));
    for (model::CronJob& cron_job : cluster->cron_jobs) {
      if (cron_job.job_workload.has_value()) KUEUESIM_RETURN_IF_ERROR(apply(&*cron_job.job_workload));
    }
    return absl::OkStatus();
  }

  // Kueue's AdjustResources and ValidateLimitRange on every pod template of
  // `cluster` (Workloads, LeaderWorkerSet and CronJob templates): a
  // RuntimeClass's fixed overhead for pods that name it and set none, the
  // namespace's LimitRange defaults, then the effective requests again and
  // the LimitRange bounds. The written resources are dropped afterwards.
  void AdjustResources(ClusterSpec* cluster) {
    std::map<std::string, std::vector<const model::LimitRange*>> ranges_by_namespace;
    for (const model::LimitRange& range : cluster->limit_ranges) {
      ranges_by_namespace[range.meta.namespace_].push_back(&range);
    }
    std::map<std::string, model::LimitRangeSummary> summaries;
    for (const auto& [ns, ranges] : ranges_by_namespace) summaries.emplace(ns, model::SummarizeLimitRanges(ranges));
    std::map<std::string, const model::RuntimeClass*> runtime_classes;
    for (const model::RuntimeClass& runtime_class : cluster->runtime_classes) {
      runtime_classes.emplace(runtime_class.meta.name, &runtime_class);
    }
    // Replicas of one template share its written resources: adjust once.
    struct Adjusted {
      bool changed = false;
      model::PodRequestTotals totals;
      std::vector<model::PodSet::LimitRangeViolation> violations;
    };
    std::map<std::pair<const model::PodResources*, std::string>, Adjusted> done;
    const model::LimitRangeSummary no_limit_ranges;
    const auto adjust = [&](const std::string& ns, model::PodSet* pod_set) {
      // Moved out: the pod set keeps no written resources after loading.
      std::shared_ptr<const model::PodResources> written = std::move(pod_set->written_resources);
      if (written == nullptr || (summaries.empty() && runtime_classes.empty())) return;
      auto key = std::make_pair(written.get(), ns);
      auto it = done.find(key);
      if (it == done.end()) {
        const auto summary = summaries.find(ns);
        const auto runtime_class = runtime_classes.find(written->runtime_class_name);
        model::PodResources pod = *written;
        Adjusted adjusted;
        adjusted.changed = model::AdjustPodResources(
            summary == summaries.end() ? no_limit_ranges : summary->second,
            runtime_class == runtime_classes.end() ? nullptr : runtime_class->second, &pod);
        if (adjusted.changed) adjusted.totals = model::ComputePodRequests(pod);
        if (summary != summaries.end()) {
          adjusted.violations = model::ValidateLimitRanges(
              summary->second, pod, adjusted.changed ? adjusted.totals.requests : pod_set->requests);
        }
        it = done.emplace(key, std::move(adjusted)).first;
      }
      if (it->second.changed) {
        pod_set->requests = it->second.totals.requests;
        pod_set->container_extended_requests = it->second.totals.container_extended_requests;
        if (!it->second.totals.requests_above_limits.empty() || pod_set->rare.allocated()) {
          pod_set->rare.Mutable().requests_above_limits = it->second.totals.requests_above_limits;
        }
      }
      if (!it->second.violations.empty() || pod_set->rare.allocated()) {
        pod_set->rare.Mutable().limit_range_violations = it->second.violations;
      }
    };
    for (model::Workload& workload : cluster->workloads) {
      for (model::PodSet& pod_set : workload.pod_sets) {
        adjust(workload.meta.namespace_, &pod_set);
      }
    }
    for (model::LeaderWorkerSet& lws : cluster->leader_worker_sets) {
      if (lws.leader_template.has_value()) {
        adjust(lws.meta.namespace_, &*lws.leader_template);
      }
      adjust(lws.meta.namespace_, &lws.worker_template);
    }
    for (model::CronJob& cron_job : cluster->cron_jobs) {
      if (!cron_job.job_workload.has_value()) continue;
      for (model::PodSet& pod_set : cron_job.job_workload->pod_sets) {
        adjust(cron_job.meta.namespace_, &pod_set);
      }
    }
  }

  // The Workloads of objects resolved at the end (TrainJobs), placed by
  // their object's sequence among the cluster's other Workloads.
  absl::Status FinishIntegratedKinds() {
    KUEUESIM_ASSIGN_OR_RETURN(auto resolved, integrated_kinds_.Finish());
    kept_documents_.clear();
    std::set<std::string> touched;
    for (auto& [cluster_name, workload] : resolved) {
      KUEUESIM_RETURN_IF_ERROR(CheckWorkloadBudget(workload, /*counted=*/false));
      scenario_.Cluster(cluster_name).workloads.push_back(std::move(workload));
      touched.insert(cluster_name);
    }
    for (const auto& cluster_name : touched) {
      std::vector<model::Workload>& workloads = scenario_.Cluster(cluster_name).workloads;
      std::stable_sort(workloads.begin(), workloads.end(), [](const model::Workload& a, const model::Workload& b) {
        return a.input_sequence < b.input_sequence;
      });
    }
    return absl::OkStatus();
  }

  // A batch/v1 CronJob: its Jobs are created during the run
  // (sim/cronjob_controller.h).
  absl::Status LoadCronJob(const FieldReader& object, const doc::Node& root, const std::string& name,
                           ClusterSpec* cluster) {
    KUEUESIM_ASSIGN_OR_RETURN(model::CronJob cron_job, DecodeCronJob(object));
    if (!cron_job.job_workload.has_value()) {
      scenario_.report.warnings.push_back(fmt::format(
          "{}:{}: CronJob \"{}\" has no kueue.x-k8s.io/queue-name label in spec.jobTemplate.metadata.labels; "
          "Kueue does not manage its Jobs",
          root.file(), root.position().line, name));
    }
    cron_job.meta.set_cluster(cluster->name);
    cron_job.input_sequence = next_sequence_++;
    cluster->cron_jobs.push_back(std::move(cron_job));
    return absl::OkStatus();
  }

  // One warning per kind whose objects carry workloads that are not
  // simulated (Argo Workflows, Tekton PipelineRuns, ...).
  void WarnAboutNodesWithoutReadyCondition() {
    if (nodes_without_ready_condition_ == 0) return;
    scenario_.report.warnings.push_back(fmt::format(
        "{} Node(s) have no Ready condition in status.conditions (first: {}): Kueue's topology-aware "
        "scheduling counts only Ready nodes, so they offer no capacity; add a condition "
        "{{type: Ready, status: \"True\"}} to count them",
        nodes_without_ready_condition_, first_node_without_ready_condition_));
  }

  void WarnAboutUnsimulatedKinds() {
    for (const auto& [kind_key, count] : scenario_.report.unsimulated_workload_kinds) {
      scenario_.report.warnings.push_back(fmt::format(
          "{} object(s) of kind {} (first: {}) carry workloads kueuesim does not simulate: their workloads are "
          "not in this run",
          count, kind_key, first_unsimulated_[kind_key]));
    }
  }

  // Which workloads take their run time from a default-duration rule and
  // which have none (the values are drawn when the simulation is built,
  // with the run's seed).
  void CountRunTimes() {
    constexpr size_t kExamples = 5;
    LoadReport& report = scenario_.report;
    const SimulationSettings& settings = scenario_.settings;
    report.default_duration_uses.assign(settings.default_durations.size(), 0);
    std::vector<std::string> cron_jobs_without;
    for (const ClusterSpec& cluster : scenario_.clusters) {
      for (const model::Workload& wl : cluster.workloads) {
        if (wl.duration.has_value() || wl.finished) continue;
        const std::string_view kind = WorkloadObjectKind(wl);
        bool matched = false;
        for (size_t i = 0; i < settings.default_durations.size() && !matched; ++i) {
          if (!DefaultDurationRuleMatches(settings.default_durations[i], wl, kind)) continue;
          ++report.default_duration_uses[i];
          matched = true;
        }
        if (matched || IsServingKind(kind)) continue;
        ++report.workloads_without_duration;
        if (report.without_duration_examples.size() < kExamples) {
          report.without_duration_examples.push_back(wl.meta.namespace_ + "/" + wl.meta.name);
        }
      }
      for (const model::CronJob& cron_job : cluster.cron_jobs) {
        if (!cron_job.job_workload.has_value() || cron_job.job_workload->duration.has_value()) continue;
        bool matched = false;
        for (const DefaultDurationRule& rule : settings.default_durations) {
          matched = matched || DefaultDurationRuleMatches(rule, *cron_job.job_workload, "Job");
        }
        if (!matched) cron_jobs_without.push_back(cron_job.meta.namespace_ + "/" + cron_job.meta.name);
      }
    }
    if (report.workloads_without_duration > 0) {
      std::string examples;
      for (const auto& key : report.without_duration_examples) examples += (examples.empty() ? "" : ", ") + key;
      if (report.workloads_without_duration > static_cast<int64_t>(kExamples)) examples += ", ...";
      report.warnings.push_back(fmt::format(
          "{} workload(s) have no run time (no kueuesim.io/duration annotation and no Simulation "
          "spec.defaultDurations rule matches); they run until the end of the simulation: {}",
          report.workloads_without_duration, examples));
    }
    for (const auto& key : cron_jobs_without) {
      report.warnings.push_back(fmt::format(
          "the Jobs of CronJob {} have no run time (no kueuesim.io/duration annotation and no Simulation "
          "spec.defaultDurations rule matches); they run until the end of the simulation",
          key));
    }
    bool any_cron_job = false;
    for (const ClusterSpec& cluster : scenario_.clusters) {
      for (const model::CronJob& cron_job : cluster.cron_jobs) any_cron_job = any_cron_job || !cron_job.suspend;
    }
    if (any_cron_job && !settings.until.has_value()) {
      report.warnings.push_back(fmt::format(
          "CronJobs create Jobs until the end of the run: without a Simulation spec.until (or --until), "
          "until spec.cronJobHorizon ({})",
          FormatDuration(settings.cron_job_horizon)));
    }
  }

  absl::Status LoadKueueSimObject(const FieldReader& object, const std::string& kind) {
    if (kind == "Simulation") {
      if (has_simulation_) return object.Error("a second Simulation object");
      has_simulation_ = true;
      KUEUESIM_RETURN_IF_ERROR(DecodeSimulation(object, &scenario_.settings));
      budget_.SetSimulationLimits(scenario_.settings.limits, scenario_.settings.source);
      if (scenario_.settings.until.has_value()) {
        KUEUESIM_RETURN_IF_ERROR(budget_.CheckTime(*scenario_.settings.until, object.Field("spec").Field("until")));
      }
      return absl::OkStatus();
    }
    if (kind == "Change") {
      KUEUESIM_ASSIGN_OR_RETURN(model::Change change, DecodeChange(object));
      KUEUESIM_RETURN_IF_ERROR(budget_.CheckTime(change.at, object.Field("spec").Field("at")));
      scenario_.Cluster(current_cluster_).changes.push_back(std::move(change));
      return absl::OkStatus();
    }
    if (kind == "NodePool") {
      // Counted now, made when loading ends (in their place among the
      // cluster's nodes): a scenario beyond the budget is refused before
      // any node is made. The decoder reports a malformed count.
      FieldReader count = object.Field("spec").Field("count");
      if (auto n = count.present() ? count.Int64() : absl::StatusOr<int64_t>(0); n.ok() && *n >= 1) {
        KUEUESIM_RETURN_IF_ERROR(budget_.Add(Budget::Kind::kNodes, *n, count));
      }
      ClusterSpec& cluster = ClusterFor(object.node());
      deferred_pools_.push_back({object, cluster.name, cluster.nodes.size()});
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
      // A parameter grid for `kueuesim sweep` (sweep/sweep.h reads it,
      // through LoadOptions::on_sweep); a single run simulates the scenario
      // as written.
      return on_sweep_ ? on_sweep_(object.node()) : absl::OkStatus();
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
    KUEUESIM_RETURN_IF_ERROR(CountTrace(spec));
    auto generated = trace::GeneratedObjectsFor(spec);
    if (!generated.ok()) return generated.status();
    // Nodes read from a trace's node list (bounded by that file).
    KUEUESIM_RETURN_IF_ERROR(budget_.Add(Budget::Kind::kNodes, static_cast<int64_t>(generated->nodes.size()),
                                         object.Field("spec").Field("options").Field("nodes")));
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
    // Serving objects (alibaba-dlrm): one Workload per group at the start,
    // counted like a LeaderWorkerSet document's (the trace's scale changes
    // are not counted, as for replica timelines).
    for (model::LeaderWorkerSet& lws : generated->leader_worker_sets) {
      KUEUESIM_RETURN_IF_ERROR(budget_.Add(Budget::Kind::kWorkloads, lws.replicas, object.Field("spec").Field("path")));
      lws.input_sequence = next_sequence_++;
      cluster.leader_worker_sets.push_back(std::move(lws));
    }
    scenario_.traces.push_back(std::move(spec));
    return absl::OkStatus();
  }

  // A v1 Pod: a single-pod Workload, or a member of a pod group whose
  // Workload FinishPodGroups builds once every file is read.
  absl::Status LoadPod(const FieldReader& object, const doc::Node& root, const std::string& name,
                       ClusterSpec* cluster) {
    if (WarnIfPrebuiltWorkload("Pod", root, name)) return absl::OkStatus();
    if (IsPodGroupMember(object)) return pod_groups_[cluster->name].Add(object, next_sequence_++);
    if (WarnIfFinished("v1", "Pod", root, name)) return absl::OkStatus();
    std::string why_unmanaged;
    KUEUESIM_ASSIGN_OR_RETURN(auto workload, DecodePod(object, &why_unmanaged));
    if (!workload.has_value()) {
      // A pod Kueue does not manage still takes its node's capacity from
      // topology-aware scheduling while it runs there.
      KUEUESIM_ASSIGN_OR_RETURN(auto bound, DecodeBoundPod(object));
      if (bound.has_value()) {
        cluster->bound_pods.push_back(std::move(*bound));
        return absl::OkStatus();
      }
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
      for (auto& workload : groups) {
        KUEUESIM_RETURN_IF_ERROR(CheckWorkloadBudget(workload, /*counted=*/false));
        workloads.push_back(std::move(workload));
      }
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

  absl::Status AddWorkload(ClusterSpec* cluster, absl::StatusOr<model::Workload> workload, bool counted = false) {
    if (!workload.ok()) return workload.status();
    KUEUESIM_RETURN_IF_ERROR(CheckWorkloadBudget(*workload, counted));
    workload->input_sequence = next_sequence_++;
    // (Only a kind other than the one its source kind names is written: the
    // rare members stay unallocated on most Workloads.)
    if (workload->rare->object_kind.empty() && WorkloadObjectKind(*workload) != current_kind_) {
      workload->rare.Mutable().object_kind = current_kind_;
    }
    for (model::PodSet& pod_set : workload->pod_sets) ShareWrittenResources(&pod_set);
    cluster->workloads.push_back(*std::move(workload));
    return absl::OkStatus();
  }

  // Points `pod_set` at the pool's copy of resources written alike, if there
  // is one (its own copy is freed at once), else adds its copy to the pool.
  void ShareWrittenResources(model::PodSet* pod_set) {
    if (pod_set->written_resources == nullptr) return;
    auto it = written_resources_pool_.find(pod_set->written_resources);
    if (it != written_resources_pool_.end()) {
      pod_set->written_resources = *it;
    } else {
      written_resources_pool_.insert(pod_set->written_resources);
    }
  }

  // The NodePools counted while loading, their nodes made now and put
  // where the pool was read among the cluster's nodes.
  absl::Status MakeDeferredPools() {
    std::map<std::string, size_t> inserted;  // by cluster: nodes put before
    for (const DeferredPool& pool : deferred_pools_) {
      KUEUESIM_ASSIGN_OR_RETURN(std::vector<model::Node> nodes,
                                DecodeNodePool(pool.object, nullptr, /*counted=*/true));
      std::vector<model::Node>& into = scenario_.Cluster(pool.cluster).nodes;
      size_t& before = inserted[pool.cluster];
      const size_t made = nodes.size();
      const auto at = into.begin() + static_cast<std::ptrdiff_t>(pool.index + before);
      if (into.empty()) {
        into = std::move(nodes);
      } else {
        into.insert(at, std::make_move_iterator(nodes.begin()), std::make_move_iterator(nodes.end()));
      }
      before += made;
    }
    deferred_pools_.clear();  // their documents are freed by FinishIntegratedKinds
    return absl::OkStatus();
  }

  // The replica Workloads counted while loading, made now in their place
  // (their input sequence numbers were kept for them).
  void MakeDeferredReplicas() {
    std::set<std::string> clusters;
    for (DeferredReplicas& deferred : deferred_) {
      std::vector<model::Workload>& workloads = scenario_.Cluster(deferred.cluster).workloads;
      const size_t first = workloads.size();
      MakeReplicas(deferred.replicas, &workloads);
      for (size_t i = first; i < workloads.size(); ++i) {
        workloads[i].input_sequence = deferred.first_sequence + static_cast<int64_t>(i - first);
      }
      clusters.insert(deferred.cluster);
    }
    for (const std::string& name : clusters) {
      std::vector<model::Workload>& workloads = scenario_.Cluster(name).workloads;
      std::stable_sort(workloads.begin(), workloads.end(), [](const model::Workload& a, const model::Workload& b) {
        return a.input_sequence < b.input_sequence;
      });
    }
    deferred_.clear();
  }

  // A static workload: counted (unless its owner counted it) and its times
  // within the simulated time range.
  absl::Status CheckWorkloadBudget(const model::Workload& workload, bool counted) {
    // Runs for every Workload loaded: the message is made only for an error.
    const auto where = [&workload](std::string_view what) {
      return fmt::format("{}: Workload \"{}\"{}", workload.meta.source.ToString(), workload.meta.name, what);
    };
    if (!counted) KUEUESIM_RETURN_IF_ERROR(budget_.Add(Budget::Kind::kWorkloads, 1, [&] { return where(""); }));
    KUEUESIM_RETURN_IF_ERROR(budget_.CheckTime(workload.arrival, [&] { return where(": arrival"); }));
    if (workload.duration.has_value()) {
      KUEUESIM_RETURN_IF_ERROR(budget_.CheckTime(*workload.duration, [&] { return where(": duration"); }));
    }
    return absl::OkStatus();
  }

  // What a trace generates, counted before it is generated: a generator's
  // cohorts, ClusterQueues and LocalQueues, its workloads (all of them can
  // be pending at once) and its last arrival.
  absl::Status CountTrace(const trace::TraceSpec& spec) {
    KUEUESIM_ASSIGN_OR_RETURN(trace::GeneratedExtent extent, trace::MeasureGenerated(spec));
    const std::string where = fmt::format("{}: Trace \"{}\": spec.path {}", spec.source.ToString(), spec.name, spec.path);
    const std::optional<int64_t> queues = CheckedAdd(CheckedMul(extent.cluster_queues, 2), extent.cohorts);
    KUEUESIM_RETURN_IF_ERROR(budget_.Add(Budget::Kind::kQueues, queues.value_or(INT64_MAX), where));
    const int64_t workloads = spec.limit.has_value() ? std::min(*spec.limit, extent.workloads) : extent.workloads;
    KUEUESIM_RETURN_IF_ERROR(budget_.Add(Budget::Kind::kWorkloads, workloads, where));
    KUEUESIM_RETURN_IF_ERROR(budget_.CheckTime(extent.last_arrival, where + ": the last arrival"));
    KUEUESIM_RETURN_IF_ERROR(budget_.CheckTime(extent.longest_duration, where + ": the longest runtime"));
    return absl::OkStatus();
  }

  // A LeaderWorkerSet's groups were counted at spec.replicas; a Change that
  // scales it beyond counts the difference (the largest scale of each).
  absl::Status CountLeaderWorkerSetScaling() {
    for (const ClusterSpec& cluster : scenario_.clusters) {
      for (const model::LeaderWorkerSet& lws : cluster.leader_worker_sets) {
        const model::Change* largest = nullptr;
        for (const model::Change& change : cluster.changes) {
          if (change.target_kind != "LeaderWorkerSet" || change.target_name != lws.meta.name ||
              change.target_namespace != lws.meta.namespace_ || !change.replicas.has_value()) {
            continue;
          }
          if (*change.replicas > lws.replicas && (largest == nullptr || *change.replicas > *largest->replicas)) {
            largest = &change;
          }
        }
        if (largest == nullptr) continue;
        KUEUESIM_RETURN_IF_ERROR(budget_.Add(
            Budget::Kind::kWorkloads, int64_t{*largest->replicas} - lws.replicas,
            fmt::format("{}: Change \"{}\": spec.replicas", largest->source.ToString(), largest->name)));
      }
    }
    return absl::OkStatus();
  }

  struct DeferredReplicas {
    std::string cluster;
    int64_t first_sequence = 0;
    PendingReplicas replicas;
  };

  struct DeferredPool {
    FieldReader object;  // reads its document in kept_documents_
    std::string cluster;
    size_t index = 0;  // the cluster's node count when it was read
  };

  Budget budget_;
  std::function<absl::Status(const doc::Node& root)> on_sweep_;
  std::vector<DeferredReplicas> deferred_;
  std::vector<DeferredPool> deferred_pools_;
  std::vector<std::unique_ptr<doc::Document>> kept_documents_;
  Scenario scenario_;
  std::string file_cluster_;
  std::string current_cluster_;
  std::set<std::string> cluster_has_configuration_;
  bool has_simulation_ = false;
  int64_t next_sequence_ = 0;
  Ownership ownership_;
  // One copy of each distinct pod template's written resources, shared by
  // the pod sets written alike until AdjustResources drops them. An export
  // repeats a few templates over thousands of Workloads: a copy per pod
  // set, all kept to the end of loading, was a fifth of a compact export's
  // memory while it loaded, and left holes in the heap once freed.
  struct WrittenResourcesHash {
    size_t operator()(const std::shared_ptr<const model::PodResources>& resources) const {
      return absl::Hash<model::PodResources>{}(*resources);
    }
  };
  struct WrittenResourcesEqual {
    bool operator()(const std::shared_ptr<const model::PodResources>& a,
                    const std::shared_ptr<const model::PodResources>& b) const {
      return *a == *b;
    }
  };
  absl::flat_hash_set<std::shared_ptr<const model::PodResources>, WrittenResourcesHash, WrittenResourcesEqual>
      written_resources_pool_;
  std::map<std::string, PodGroupCollector> pod_groups_;  // by cluster name
  IntegratedKinds integrated_kinds_;
  bool keep_document_ = false;  // the document being read holds a deferred object
  // The kind of the object being loaded (Workload::object_kind).
  std::string current_kind_;
  // The first object of each unsimulated workload kind ("file:line \"name\"").
  std::map<std::string, std::string> first_unsimulated_;
  int64_t nodes_without_ready_condition_ = 0;
  std::string first_node_without_ready_condition_;
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

namespace {

// The files named by `paths`: a directory stands for its .yaml, .yml and
// .json files in name order, not its subdirectories (`kubectl apply -f DIR`
// without -R).
absl::StatusOr<std::vector<std::string>> ExpandScenarioPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& path : paths) {
    std::error_code error;
    if (!std::filesystem::is_directory(path, error)) {
      files.push_back(path);  // a file, or a path ReadFile reports as missing
      continue;
    }
    std::vector<std::string> in_directory;
    std::filesystem::directory_iterator it(path, error);
    for (; !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
      const std::filesystem::path& entry = it->path();
      const std::string extension = entry.extension().string();
      if (extension != ".yaml" && extension != ".yml" && extension != ".json") continue;
      std::error_code file_error;
      if (!std::filesystem::is_directory(entry, file_error)) in_directory.push_back(entry.string());
    }
    if (error) {
      return absl::PermissionDeniedError(fmt::format("{}: cannot list the directory: {}", path, error.message()));
    }
    if (in_directory.empty()) {
      return absl::InvalidArgumentError(fmt::format("{}: the directory has no .yaml, .yml or .json file", path));
    }
    std::sort(in_directory.begin(), in_directory.end());
    for (auto& file : in_directory) files.push_back(std::move(file));
  }
  return files;
}

// Lists (kubectl's output) are read an item at a time: never held whole.
doc::ReadOptions SplitLists() {
  doc::ReadOptions options;
  options.split_list_items = true;
  return options;
}

}  // namespace

absl::StatusOr<Scenario> LoadScenarioFiles(const std::vector<std::string>& given_paths, const LoadOptions& options) {
  KUEUESIM_ASSIGN_OR_RETURN(std::vector<std::string> paths, ExpandScenarioPaths(given_paths));
  Loader loader(options);
  for (const auto& path : paths) {
    loader.StartFile();
    KUEUESIM_RETURN_IF_ERROR(doc::ReadFile(
        path, [&](doc::Document&& document) { return loader.LoadDocument(std::move(document)); },
        SplitLists()));
  }
  return loader.Finish();
}

absl::StatusOr<Scenario> LoadScenarioStrings(
    const std::vector<std::pair<std::string, std::string>>& named_texts, const LoadOptions& options) {
  Loader loader(options);
  for (const auto& [name, text] : named_texts) {
    loader.StartFile();
    KUEUESIM_RETURN_IF_ERROR(doc::ReadString(
        text, name, [&](doc::Document&& document) { return loader.LoadDocument(std::move(document)); },
        SplitLists()));
  }
  return loader.Finish();
}

}  // namespace kueuesim::scenario
