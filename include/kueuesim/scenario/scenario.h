// A scenario: the Kueue objects of one or more clusters, the workloads that
// arrive over time, and the simulation settings, as read from YAML or JSON
// manifests (see docs/scenario-format.md).
//
// Objects are grouped by cluster. A plain `kubectl get -o yaml` dump belongs
// to the default cluster (named ""); a `kueuesim.io/v1alpha1 Cluster`
// document starts a named cluster for the documents that follow it in the
// same file, and the annotation `kueuesim.io/cluster` places one object.
#ifndef KUEUESIM_SCENARIO_SCENARIO_H_
#define KUEUESIM_SCENARIO_SCENARIO_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/base/time.h"
#include "kueuesim/doc/document.h"
#include "kueuesim/model/feature_gates.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/scenario/limits.h"
#include "kueuesim/trace/trace_spec.h"

namespace kueuesim::scenario {

// A policy chosen by name, with its parameters as strings (each policy
// parses its own; see docs/policies.md).
struct PolicyChoice {
  std::string name;
  std::map<std::string, std::string> parameters;
  model::SourceRef source;
};

// A run time drawn for workloads without kueuesim.io/duration
// (Simulation spec.defaultDurations[].duration or .distribution).
struct DurationDistribution {
  enum class Type : uint8_t { kFixed, kExponential, kLogNormal, kEmpirical };
  Type type = Type::kFixed;
  SimDuration value = 0;    // fixed: the duration; exponential: the mean; logNormal: the median
  double sigma = 0;         // logNormal: the standard deviation of ln(duration)
  std::vector<SimDuration> samples;  // empirical: the CSV column's values
  std::string description;  // e.g. "exponential, mean 20m"
};

// One entry of Simulation spec.defaultDurations: which workloads it applies
// to (every given condition must hold; none: every workload) and their run
// time. The first matching rule wins.
struct DefaultDurationRule {
  std::string queue;        // match.queue: the LocalQueue name
  std::string namespace_;   // match.namespace
  std::string kind;         // match.kind: the object's kind (Job, Pod, ...)
  model::Labels labels;     // match.labels: all must be equal
  DurationDistribution distribution;
  std::string description;  // "defaultDurations[0] (kind Job): exponential, mean 20m"
  model::SourceRef source;
};

// kueuesim.io/v1alpha1 Simulation: settings that are not Kueue's.
struct SimulationSettings {
  // Wall-clock time of simulated time 0; workloads without a
  // creationTimestamp are created at start_time + arrival. Default: the
  // latest creationTimestamp in the input, or 2025-01-01T00:00:00Z.
  std::optional<UnixMicros> start_time;
  // Whether start_time comes from the input (the Simulation's startTime or
  // the workloads' creationTimestamps) rather than the fixed default: only
  // then is wall-clock time meaningful to show.
  bool start_time_from_input = false;
  // Delay between an eviction and the release of its quota (pod
  // termination). Default 0, as Kueue's own performance runner.
  SimDuration eviction_delay = 0;
  // Time a NotReady node's pods take to terminate (Kubernetes' default
  // not-ready NoExecute toleration, 300 s); then Kueue counts the node as
  // failed for the TAS workloads placed there.
  SimDuration node_failure_delay = 300 * kSecond;
  // Delay between admission and pods ready, for workloads without the
  // kueuesim.io/startup-delay annotation. Default 0.
  SimDuration default_startup_delay = 0;
  // Simulated time one scheduling cycle takes. Default 0: cycles repeat at
  // the same instant until nothing changes.
  SimDuration cycle_duration = 0;
  // Delay before parked (inadmissible) workloads return to their queue
  // after a requeue notification (Kueue batches them). Default 1 s.
  SimDuration inadmissible_requeue_delay = kSecond;
  // Stop the simulation at this time (nullopt: when nothing is left to do).
  std::optional<SimTime> until;
  uint64_t seed = 1;
  // Policies by name; empty name means Kueue's own behaviour.
  PolicyChoice queue_ordering;
  PolicyChoice preemption;
  // The MultiKueue dispatcher; empty: the Configuration's dispatcherName.
  PolicyChoice dispatcher;
  // MultiKueue: the time the manager takes to write to a worker (create or
  // delete a copy, open a preemption gate) and to see a worker's status
  // change. Default 0.
  SimDuration multikueue_dispatch_latency = 0;
  SimDuration multikueue_status_sync_latency = 0;
  // LeaderWorkerSet behaviour that changed across releases or with the
  // Kubernetes version (see docs/serving.md):
  std::string lws_version = "v0.10";             // or "v0.8"
  std::string statefulset_replacement = "concurrent";  // or "serial" (Kubernetes < 1.35)
  // Kueue reads a percentage maxSurge as 0 (upstream, PR #14405 open);
  // "fixed" scales it as LWS does.
  std::string kueue_percentage_max_surge = "upstream";
  // Run times for workloads without kueuesim.io/duration, first match wins
  // (scenario/default_durations.h).
  std::vector<DefaultDurationRule> default_durations;
  // CronJobs create Jobs until `until`; without one, until this horizon.
  SimDuration cron_job_horizon = 24 * 3600 * kSecond;
  // When Kueue deletes a surge group's Workload: "upstream" (Kueue
  // ff69552e: once status.updatedReplicas reaches spec.replicas, which
  // stops the surge pods) or "fixed" (once the surge group is gone).
  std::string kueue_surge_workloads = "upstream";
  // spec.limits: the budget of what the scenario may make kueuesim build
  // (below the command line's --limits; see limits.h).
  LimitOverrides limits;
  // The simulated cluster autoscaler that answers ProvisioningRequests
  // (spec.autoscaler), with the defaults of the OSS cluster-autoscaler.
  struct Autoscaler {
    SimDuration scan_interval = 10 * kSecond;       // --scan-interval
    int32_t requests_per_loop = 1;                  // ProvisioningRequests handled per loop
    SimDuration initial_backoff = kMinute;          // after Provisioned=False
    SimDuration max_backoff = 10 * kMinute;
    SimDuration booking_time = 10 * kMinute;        // booked capacity kept for unscheduled pods
    SimDuration request_expiry = 7 * 24 * kHour;    // never Provisioned: Failed (Expired)
    SimDuration queued_lease = 7 * 24 * kHour;      // queued-provisioning VM lifetime (maxRunDurationSeconds)
  } autoscaler;
  // Kueue's eviction of a workload whose check went to Retry: "AtRequeueAt"
  // (the code at the reference commit: quota held until requeueAt) or
  // "Immediate" (KEP-3258: evicted at once, requeued at requeueAt).
  std::string admission_check_retry_eviction = "AtRequeueAt";
  // A Retry eviction loses the retry count of a check scoped to some of the
  // ClusterQueue's flavors (the workload controller drops it while the
  // workload has no admission); "false" keeps it.
  bool flavor_scoped_retry_count_lost = true;
  model::SourceRef source;
};

// Everything one cluster (one Kueue instance) is made of.
struct ClusterSpec {
  std::string name;  // "" for the default cluster
  model::Configuration configuration;
  model::FeatureGates feature_gates;
  std::vector<model::ResourceFlavor> resource_flavors;
  std::vector<model::ClusterQueue> cluster_queues;
  std::vector<model::Cohort> cohorts;
  std::vector<model::LocalQueue> local_queues;
  std::vector<model::WorkloadPriorityClass> workload_priority_classes;
  std::vector<model::PriorityClass> priority_classes;
  std::vector<model::Namespace> namespaces;
  std::vector<model::LimitRange> limit_ranges;      // applied to pod templates at load
  std::vector<model::RuntimeClass> runtime_classes;  // likewise (overhead)
  std::vector<model::AdmissionCheck> admission_checks;
  std::vector<model::ProvisioningRequestConfig> provisioning_request_configs;
  std::vector<model::AutoscalerPool> autoscaler_pools;
  std::vector<model::MultiKueueConfig> multikueue_configs;
  std::vector<model::MultiKueueCluster> multikueue_clusters;
  std::vector<model::Topology> topologies;
  std::vector<model::Node> nodes;
  std::vector<model::BoundPod> bound_pods;  // pods outside Kueue on the nodes
  std::vector<model::ResourceSlice> resource_slices;
  std::vector<model::DeviceClass> device_classes;
  std::vector<model::ResourceClaimTemplate> resource_claim_templates;
  std::vector<model::Workload> workloads;
  std::vector<model::LeaderWorkerSet> leader_worker_sets;
  std::vector<model::Change> changes;
  std::vector<model::CronJob> cron_jobs;
};

// What the loader noticed without failing: unknown kinds, ignored fields
// with a scheduling effect, objects Kueue accepts but cannot run.
struct LoadReport {
  int64_t documents = 0;
  int64_t objects = 0;
  std::map<std::string, int64_t> unknown_kinds;  // "apiVersion/kind" -> count
  std::vector<std::string> warnings;
  // The unknown kinds that carry workloads (pods), a subset of
  // unknown_kinds: their workloads are not in the run.
  std::map<std::string, int64_t> unsimulated_workload_kinds;  // "apiVersion/kind" -> count
  // Workloads that got their run time from a default-duration rule, by
  // rule index (SimulationSettings::default_durations); CronJob Jobs are
  // added as the run creates them.
  std::vector<int64_t> default_duration_uses;
  // Workloads without a run time (no annotation, no default): they run
  // until the end of the simulation. The first few keys ("ns/name").
  int64_t workloads_without_duration = 0;
  std::vector<std::string> without_duration_examples;
};

struct Scenario {
  std::vector<ClusterSpec> clusters;  // the default cluster first when present
  SimulationSettings settings;
  // Traces to replay (kueuesim.io/v1alpha1 Trace), opened as streaming
  // sources when the simulation is built.
  std::vector<trace::TraceSpec> traces;
  LoadReport report;
  // The budget the scenario was loaded under (defaults, the Simulation's
  // spec.limits, the caller's overrides).
  Limits limits;

  // The cluster named `name`, created if missing.
  ClusterSpec& Cluster(const std::string& name);
  const ClusterSpec* FindCluster(const std::string& name) const;
};

// Reads and validates scenario files (multi-document YAML or JSON, `kind:
// List` included). A directory in `paths` stands for its .yaml, .yml and
// .json files, in name order (not its subdirectories), as `kubectl apply -f
// DIR` reads it. Errors name the file, the line, the object and the field
// path; an invalid scenario yields InvalidArgument, an unreadable file
// NotFound.
//
// Loading counts what the scenario makes kueuesim build against a budget
// (limits.h); `options.limits` overrides the defaults and the Simulation's
// spec.limits.
struct LoadOptions {
  LimitOverrides limits;
  // Called, when set, with the root of each kueuesim.io/v1alpha1 Sweep
  // document in the order read; an error ends the load with it. The loader
  // itself ignores Sweeps: `kueuesim sweep` reads its grid this way, in the
  // same pass over the files as the scenario.
  std::function<absl::Status(const doc::Node& root)> on_sweep;
};
absl::StatusOr<Scenario> LoadScenarioFiles(const std::vector<std::string>& paths,
                                           const LoadOptions& options = {});

// As LoadScenarioFiles, over in-memory texts: (display name, text) pairs.
absl::StatusOr<Scenario> LoadScenarioStrings(
    const std::vector<std::pair<std::string, std::string>>& named_texts, const LoadOptions& options = {});

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_SCENARIO_H_
