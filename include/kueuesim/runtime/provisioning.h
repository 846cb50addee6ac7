// Capacity that arrives late or never: Kueue's ProvisioningRequest admission
// check, a model of the cluster autoscaler that answers its requests, and
// declared answers for the checks of controllers kueuesim does not model.
//
// ProvisioningController mirrors pkg/controller/admissionchecks/provisioning
// (controller.go, provisioning.go) at the reference commit: after quota
// reservation it creates one ProvisioningRequest per check (named
// <workload>-<check>-<attempt>) for the pod sets that use the
// ProvisioningRequestConfig's managedResources, maps the request's
// conditions to the check's state in Kueue's precedence (Failed,
// CapacityRevoked, BookingExpired, Provisioned, Accepted), retries with
// Kueue's backoff (requeueAfterSeconds = base * 2^(n-1), capped, n =
// retryCount + 1), keeps retryCount across evictions as
// workload/evict.resetChecksOnEviction does, and deletes the requests when
// the workload finishes or is evicted (CleanupProvisioningRequestsOnEviction,
// on by default). See ../shared/design/provisioning.md.
//
// Autoscaler models the cluster autoscaler's ProvisioningRequest processing
// (kubernetes-sigs/cluster-autoscaler processors/provreq and
// provisioningrequest/): a loop every scanInterval handling the oldest
// eligible requests, the classes check-capacity.autoscaling.x-k8s.io
// (capacity that exists now), best-effort-atomic-scale-up.autoscaling.x-k8s.io
// (all nodes or none, Provisioned as soon as the scale-up is requested,
// nodes ready after the pool's provisioning time) and GKE's
// queued-provisioning.gke.io (waits until every node can be had, Provisioned
// once they are up, VMs revoked at the end of their lease), bookings that
// expire after bookingTime unless the workload consumes them, retry backoff
// after Provisioned=False, and node groups (kueuesim.io/v1alpha1
// AutoscalerPool) that grow within min/max and the cloud's capacity over
// time, and shrink after scaleDownDelay. Nodes join and leave the cluster's
// node inventory (the TAS cache sees them); without Nodes in the scenario
// the pools are counted only.
//
// SimulatedCheckController answers the AdmissionChecks of other
// controllers as their kueuesim.io/check-* annotations declare.
#ifndef KUEUESIM_RUNTIME_PROVISIONING_H_
#define KUEUESIM_RUNTIME_PROVISIONING_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kueuesim/engine/event_queue.h"
#include "kueuesim/model/objects.h"
#include "kueuesim/runtime/cluster_runtime.h"
#include "kueuesim/scenario/scenario.h"

namespace kueuesim::runtime {

// A duration drawn from `distribution` with a uniform `unit` in [0, 1) (and
// a second one for the normal distribution).
SimDuration SampleDuration(const model::DurationDistribution& distribution, double unit, double unit2);
// A deterministic uniform number in [0, 1) from a seed and a key.
double HashUnit(uint64_t seed, uint64_t key);
uint64_t HashString(std::string_view text);

// Kueue's requeueAfterSeconds for retry n (n = retryCount + 1):
// wait.NewBackoff(base, max, 2, 1e-4).WaitTime(n) truncated to seconds.
// The first step is `base` even above `max`; later ones are base * 2^(n-1)
// capped at max (max 0: no cap). `jitter_unit` in [0, 1) adds up to 1e-4 of
// the step (below a second unless the step exceeds 10^4 s).
int32_t ProvisioningBackoffSeconds(int32_t base_seconds, int32_t max_seconds, int32_t n, double jitter_unit);

// Kueue's limitObjectName: names over 247 characters become their first 247,
// '-', and the first 5 hex digits of the SHA-1 of the full name.
std::string LimitObjectName(const std::string& name);

// --- The autoscaler ---

struct ProvisioningRequestPodSet {
  std::string template_name;  // ppt-<request>-<pod set>
  int32_t count = 0;
  std::vector<model::ResourceAmount> requests;  // per pod
  model::Labels node_selector;                  // the pod's, plus the flavor's node labels
  std::vector<model::Toleration> tolerations;   // the pod's, plus the flavor's
};

struct ProvisioningRequestConditions {
  bool accepted = false;
  // Provisioned: nullopt (absent), false (with a message: CA retries), true.
  std::optional<bool> provisioned;
  SimTime provisioned_time = 0;  // lastTransitionTime
  std::string provisioned_message;
  bool failed = false;
  std::string failed_message;
  bool booking_expired = false;
  std::string booking_expired_message;
  bool capacity_revoked = false;
  std::string capacity_revoked_message;
};

class Autoscaler : public engine::EventHandler {
 public:
  class Listener {
   public:
    virtual ~Listener() = default;
    // The request's conditions changed.
    virtual void OnRequestChanged(int64_t request) = 0;
  };

  Autoscaler(ClusterRuntime* runtime, const scenario::ClusterSpec& spec, const scenario::SimulationSettings& settings);
  ~Autoscaler() override;

  // Creates the pools' initial nodes and schedules the capacity timeline.
  void Start();

  // A new ProvisioningRequest; returns its id.
  int64_t Create(std::string name, std::string class_name, std::map<std::string, std::string> parameters,
                 std::vector<ProvisioningRequestPodSet> pod_sets, Listener* listener);
  // The request is deleted: its booking ends; its nodes become unneeded.
  void Delete(int64_t request);
  // The workload's pods were scheduled on the booked capacity: the nodes
  // are in use until the request is deleted.
  void Consume(int64_t request);
  const ProvisioningRequestConditions& conditions(int64_t request) const;
  const std::string& name(int64_t request) const;
  // When the nodes booked for the request are all ready (now or earlier if
  // they are).
  SimTime NodesReadyAt(int64_t request) const;

  // The report with the integrals closed at the current time.
  AutoscalerReport ReportNow() const;

  // engine::EventHandler
  void HandleEvent(int32_t kind, int64_t a, int64_t b) override;

 private:
  enum EventKind : int32_t { kLoop = 1, kNodeReady, kScaleDownCheck, kCapacity, kStockout, kLease };
  struct Node;
  struct Pool;
  struct Request;

  void EnsureLoop();
  void RunLoop();
  bool Eligible(const Request& r) const;
  void Process(int64_t id);
  // The pool for a pod set of a request of `class_name`, or -1.
  int32_t PoolFor(const ProvisioningRequestPodSet& ps, const std::string& class_name) const;
  int32_t PodsPerNode(const Pool& pool, const ProvisioningRequestPodSet& ps) const;
  int32_t Obtainable(const Pool& pool) const;
  void AddPoolNode(int32_t pool, SimTime ready_at);
  void RemovePoolNode(int32_t node);
  void ReleaseNodes(Request& r);
  void ScheduleScaleDown(int32_t node);
  void Advance(Pool& pool) const;
  void RecordNodes(Pool& pool);
  void SetProvisionedFalse(Request& r, const std::string& message, bool backoff);
  void Notify(int64_t id);
  void CheckQueuedReady(int64_t id);

  ClusterRuntime* runtime_;
  engine::Engine* engine_;
  scenario::SimulationSettings::Autoscaler settings_;
  uint64_t seed_ = 1;
  std::vector<model::AutoscalerPool> pool_specs_;
  std::vector<Pool> pools_;
  std::vector<Node> nodes_;
  std::vector<Request> requests_;
  std::vector<model::Change> changes_;
  SimTime loop_at_ = -1;  // the scheduled loop, -1: none
  AutoscalerReport report_;
};

// --- Kueue's ProvisioningRequest admission check controller ---

class ProvisioningController : public AdmissionCheckController, public Autoscaler::Listener {
 public:
  // What the controller knows of one check of one workload.
  struct CheckInfo {
    CheckState state = CheckState::kPending;
    int32_t retry_count = 0;  // status.admissionChecks[].retryCount
    int32_t attempt = 0;      // attempt of the latest request (0: none yet)
    int64_t request = -1;     // the live request, -1: none
    std::string request_name;  // the latest request's name
    std::string message;
    std::optional<int32_t> requeue_after_seconds;
  };

  ProvisioningController(ClusterRuntime* runtime, const scenario::ClusterSpec& spec,
                         const scenario::SimulationSettings& settings);
  ~ProvisioningController() override;

  void Start() { autoscaler_.Start(); }
  Autoscaler& autoscaler() { return autoscaler_; }
  const Autoscaler& autoscaler() const { return autoscaler_; }
  // The check's state for a workload, or null.
  const CheckInfo* Find(WorkloadId id, int32_t check) const;
  // Requests created per check (by check index), and their outcomes.
  struct CheckCounters {
    int64_t requests = 0;
    int64_t failed = 0;
    int64_t booking_expired = 0;
    int64_t capacity_revoked = 0;
    int64_t not_needed = 0;  // Ready without a request (no managed resource)
  };
  const std::vector<CheckCounters>& counters() const { return counters_; }

  // AdmissionCheckController
  void OnCheckPending(WorkloadId id, int32_t check) override;
  void OnAdmitted(WorkloadId id) override;
  void OnEvicted(WorkloadId id) override;
  void OnQuotaReleased(WorkloadId id) override;

  // Autoscaler::Listener
  void OnRequestChanged(int64_t request) override;

 private:
  using Key = std::pair<WorkloadId, int32_t>;
  void CreateRequest(WorkloadId id, int32_t check, CheckInfo& info);
  void DeleteRequests(WorkloadId id);

  ClusterRuntime* runtime_;
  bool flavor_scoped_retry_count_lost_ = true;
  std::vector<model::ProvisioningRequestConfig> configs_;
  std::vector<const model::ProvisioningRequestConfig*> config_of_check_;  // by check; null: inactive
  std::map<Key, CheckInfo> checks_;
  std::map<int64_t, Key> request_owner_;
  std::vector<CheckCounters> counters_;
  Autoscaler autoscaler_;
};

// --- Declared answers for other controllers' checks ---

class SimulatedCheckController : public AdmissionCheckController, public engine::EventHandler {
 public:
  explicit SimulatedCheckController(ClusterRuntime* runtime) : runtime_(runtime) {}

  // AdmissionCheckController
  void OnCheckPending(WorkloadId id, int32_t check) override;
  void OnQuotaReleased(WorkloadId id) override;
  // engine::EventHandler
  void HandleEvent(int32_t kind, int64_t a, int64_t b) override;

 private:
  struct Pending {
    WorkloadId workload = kNone;
    int32_t check = kNone;
  };
  ClusterRuntime* runtime_;
  std::map<int64_t, Pending> pending_;             // by token
  std::map<std::pair<WorkloadId, int32_t>, int32_t> attempts_;
  int64_t next_token_ = 0;
};

}  // namespace kueuesim::runtime

#endif  // KUEUESIM_RUNTIME_PROVISIONING_H_
