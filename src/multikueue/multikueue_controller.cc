// The MultiKueue controller; see multikueue_controller.h.
#include "kueuesim/multikueue/multikueue_controller.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "kueuesim/base/quantity.h"
#include "kueuesim/base/status.h"
#include "kueuesim/runtime/provisioning.h"

namespace kueuesim::multikueue {

using cluster::EventType;
using cluster::SimEvent;
using cluster::WorkloadPhase;
using cluster::WorkloadRecord;
using runtime::ClusterRuntime;
using cluster::CheckState;

namespace {
// Kueue's singleClusterPreemptionTimeout: at most one worker opens its
// preemption gate per workload in this window.
constexpr SimDuration kSingleClusterPreemptionTimeout = 5 * kMinute;
constexpr const char* kMultiKueuePreemptionGate = "kueue.x-k8s.io/multikueue";

double Seconds(SimDuration d) { return static_cast<double>(d) / static_cast<double>(kSecond); }

// The MultiKueueCluster controller's connection attempts after a loss
// (remoteClient.increaseFailedConnAttempt, retryAfter): the first at once,
// then after 5 s, 10 s, 20 s, ... doubling up to 5 m 20 s. A worker that is
// reachable again is found at the first attempt from then on.
SimTime NextConnectAttempt(SimTime lost_since, SimTime now) {
  constexpr SimDuration kRetryIncrement = 5 * kSecond;
  constexpr int kRetryMaxSteps = 7;
  SimTime attempt = lost_since;
  for (int failed = 1; attempt < now; ++failed) {
    attempt += kRetryIncrement << (std::min(failed, kRetryMaxSteps) - 1);
  }
  return attempt;
}

// What a workload holds, in resource units (cpu in cores), by resource.
std::vector<std::pair<std::string, double>> HeldResources(const cluster::ClusterState& state,
                                                          const WorkloadRecord& wl) {
  std::vector<std::pair<std::string, double>> out;
  if (!wl.admission.has_value()) return out;
  for (const auto& ps : wl.admission->pod_sets) {
    for (const auto& entry : ps.entries) {
      const std::string& name = state.resource_name(entry.resource);
      double amount = static_cast<double>(entry.usage);
      if (IsMilliResource(name)) amount /= 1000.0;
      auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == name; });
      if (it == out.end()) {
        out.emplace_back(name, amount);
      } else {
        it->second += amount;
      }
    }
  }
  return out;
}

void AddAll(std::map<std::string, double>* to, const std::map<std::string, double>& from) {
  for (const auto& [name, value] : from) (*to)[name] += value;
}
}  // namespace

// A copy that exists on a worker (created there, not yet deleted), whether
// or not the manager workload's current dispatch still tracks it; its cost
// is accounted here, per copy instance.
struct MultiKueueController::LiveCopy {
  WorkloadId manager = kNone;
  std::string key;       // the manager's workload
  std::string copy_key;  // the copy's on the worker (the same name, unless it clashed there)
  int32_t report = kNone;
  bool detached = false;     // the manager let go of it while the worker was unreachable
  bool deleting = false;     // its deletion is on its way
  bool job_created = false;  // the job object was created next to it
  bool won = false;          // the selected copy of its dispatch: the job runs there
  bool reservation_counted = false;
  bool losing_counted = false;
  bool running = false;      // its pods run (job created, pods ready)
  SimTime holding_since = -1;  // worker quota
  std::vector<std::pair<std::string, double>> held;  // what it holds
  int32_t undecided_preemptions = 0;  // issued before it won or lost
  std::map<std::string, double> undecided_victim_work;
};

struct MultiKueueController::RunState {
  int32_t running = 0;  // copies running the job
  SimTime since = 0;
};

// One MultiKueueCluster: the connection to a worker runtime. It owns the
// copies it creates there and hears what happens to them.
class MultiKueueController::WorkerLink : public runtime::WorkloadOwner {
 public:
  WorkerLink(MultiKueueController* controller, int32_t index, std::string name, ClusterRuntime* worker,
             bool connected)
      : controller_(controller), index_(index), name_(std::move(name)), worker_(worker), connected_(connected) {
    owner_id_ = worker_->RegisterOwner(this);
  }

  const std::string& name() const { return name_; }
  ClusterRuntime* worker() const { return worker_; }
  // Whether the worker's API server can be reached (the Changes), and when
  // the next connection attempt is due.
  bool reachable = true;
  SimTime attempt_at = -1;
  int32_t owner_id() const { return owner_id_; }
  bool connected() const { return connected_; }
  SimTime lost_since() const { return lost_since_; }
  // When the manager next sees the worker's status (its watch delivered).
  SimTime readable_from() const { return readable_from_; }
  void SetConnected(bool connected, SimTime now, SimDuration sync_latency) {
    connected_ = connected;
    if (!connected && lost_since_ < 0) lost_since_ = now;
    if (connected) {
      lost_since_ = -1;
      readable_from_ = now + sync_latency;
    }
  }
  // The copies that exist there, by worker workload id (ordered: the
  // reconnect and garbage collection passes are deterministic).
  std::map<WorkloadId, LiveCopy>& live() { return live_; }
  const std::map<WorkloadId, LiveCopy>& live() const { return live_; }
  LiveCopy* Live(WorkloadId copy) {
    auto it = live_.find(copy);
    return it == live_.end() ? nullptr : &it->second;
  }

  // Whether `copy` in the worker is still the copy of manager workload
  // `manager_id` named `key`.
  // Whether `copy` is still the copy of the manager's workload `manager_id`
  // (key `key`): its record may have been recycled meanwhile. A copy renamed
  // on the worker (its name clashed there) is known by its live entry.
  bool IsCopy(WorkloadId copy, WorkloadId manager_id, const std::string& key) const {
    if (copy == kNone || copy >= worker_->state().num_workloads()) return false;
    const WorkloadRecord& wl = worker_->state().workload(copy);
    if (wl.owner != owner_id_ || wl.owner_index != manager_id) return false;
    auto it = live_.find(copy);
    if (it != live_.end() && it->second.key == key) return wl.key == it->second.copy_key;
    return wl.key == key;
  }

  // runtime::WorkloadOwner
  void OnAdmitted(WorkloadId id, int32_t index) override { controller_->OnCopyAdmitted(index_, index, id); }
  void OnEvicted(WorkloadId id, int32_t index) override { controller_->OnCopyEvicted(index_, index, id); }
  void OnRequeued(WorkloadId /*id*/, int32_t /*index*/) override {}
  void OnQuotaReserved(WorkloadId id, int32_t index) override { controller_->OnCopyReserved(index_, index, id); }
  void OnPreemptionIssued(WorkloadId id, int32_t index, int32_t victims) override {
    controller_->OnCopyPreempting(index_, index, id, victims);
  }
  void OnPreemptionGated(WorkloadId id, int32_t index) override { controller_->OnCopyGated(index_, index, id); }
  void OnPreemptionVictim(WorkloadId id, int32_t index, WorkloadId victim) override {
    controller_->OnCopyVictim(index_, index, id, victim);
  }
  void OnQuotaReleased(WorkloadId id, int32_t index) override {
    controller_->OnCopyQuotaReleased(index_, index, id);
  }

 private:
  MultiKueueController* controller_;
  int32_t index_;
  std::string name_;
  ClusterRuntime* worker_;
  int32_t owner_id_ = kNone;
  bool connected_ = true;
  SimTime lost_since_ = -1;
  SimTime readable_from_ = 0;
  std::map<WorkloadId, LiveCopy> live_;
};

struct MultiKueueController::Config {
  std::string name;
  std::vector<int32_t> links;  // in spec.clusters order
};

// What the manager knows of the copy on one worker of the config.
struct MultiKueueController::Copy {
  WorkloadId id = kNone;  // in the worker
  bool creating = false;  // a create is on its way
  uint32_t token = 0;     // bumped on deletion: cancels operations in flight
  bool admitted = false;
  SimTime admitted_at = -1;
  bool evicted = false;  // condition Evicted=True (until it reserves quota again)
  SimTime evicted_at = -1;
  SimTime pods_ready_at = -1;
  SimTime finished_at = -1;
  SimTime gate_signal = -1;     // BlockedOnPreemptionGates since
  SimTime gate_opened_at = -1;  // -1: closed
};

struct MultiKueueController::Group {
  bool active = false;  // holds manager quota, MultiKueue check not finished
  uint32_t epoch = 0;   // bumped when manager quota is released
  int32_t config = kNone;
  int32_t check = kNone;
  bool ready = false;  // the check is Ready (a worker was selected)
  std::vector<int32_t> nominated;  // positions in the config
  SimTime last_nomination = -1;
  std::vector<Copy> copies;  // by position in the config
  int32_t winner = kNone;    // position in the config
  SimTime reserved_at = 0;
  SimTime scheduled_reconcile = -1;
  int32_t report = kNone;
};

struct MultiKueueController::Operation {
  enum Kind { kCreate, kDelete, kStartJob, kPodsReady, kFinishCopy, kOpenGate };
  Kind kind = kCreate;
  WorkloadId manager = kNone;
  uint32_t epoch = 0;
  int32_t position = kNone;  // in the group's config
  int32_t link = kNone;
  WorkloadId copy = kNone;
  uint32_t token = 0;
  std::string key;
};

absl::StatusOr<std::unique_ptr<MultiKueueController>> MultiKueueController::Create(
    const scenario::ClusterSpec& spec, ClusterRuntime* manager,
    const std::vector<std::pair<std::string, ClusterRuntime*>>& clusters,
    std::unique_ptr<policy::DispatchPolicy> dispatcher, std::string dispatcher_name, MultiKueueOptions options) {
  std::unique_ptr<MultiKueueController> controller(new MultiKueueController());
  controller->manager_ = manager;
  controller->engine_ = manager->engine();
  controller->dispatcher_ = std::move(dispatcher);
  controller->options_ = options;
  controller->settings_ = spec.configuration.multi_kueue;
  controller->orchestrated_preemption_ = spec.feature_gates.multikueue_orchestrated_preemption;
  controller->report_.manager = spec.name;
  controller->report_.dispatcher = std::move(dispatcher_name);
  std::map<std::string, int32_t> link_index;
  for (const auto& mkc : spec.multikueue_clusters) {
    ClusterRuntime* worker = nullptr;
    for (const auto& [name, runtime] : clusters) {
      if (name == mkc.target_cluster) worker = runtime;
    }
    if (worker == nullptr) {
      return InvalidArgument(fmt::format("{}: MultiKueueCluster \"{}\": no cluster named \"{}\"",
                                         mkc.meta.source.ToString(), mkc.meta.name, mkc.target_cluster));
    }
    const int32_t index = static_cast<int32_t>(controller->links_.size());
    link_index[mkc.meta.name] = index;
    controller->links_.push_back(
        std::make_unique<WorkerLink>(controller.get(), index, mkc.meta.name, worker, mkc.active));
    WorkerReport report;
    report.name = mkc.meta.name;
    report.cluster = mkc.target_cluster;
    report.connectivity.emplace_back(0, mkc.active);
    controller->report_.workers.push_back(std::move(report));
    if (!mkc.active) {
      controller->links_.back()->SetConnected(false, 0, 0);
      controller->links_.back()->reachable = false;
    }
  }
  std::map<std::string, int32_t> config_index;
  for (const auto& mk_config : spec.multikueue_configs) {
    Config config;
    config.name = mk_config.meta.name;
    // A MultiKueueCluster that does not exist is skipped (Kueue lists it as
    // missing in the check's Active condition).
    for (const auto& name : mk_config.clusters) {
      auto link = link_index.find(name);
      if (link != link_index.end()) config.links.push_back(link->second);
    }
    config_index[config.name] = static_cast<int32_t>(controller->configs_.size());
    controller->configs_.push_back(std::move(config));
  }
  controller->config_of_check_.assign(spec.admission_checks.size(), kNone);
  controller->check_active_.assign(spec.admission_checks.size(), -1);
  for (size_t i = 0; i < spec.admission_checks.size(); ++i) {
    const model::AdmissionCheck& check = spec.admission_checks[i];
    if (check.controller_name != model::kMultiKueueControllerName) continue;
    auto it = check.parameters_kind == "MultiKueueConfig" ? config_index.find(check.parameters_name)
                                                          : config_index.end();
    if (it != config_index.end()) {
      controller->config_of_check_[i] = it->second;
    } else {
      // Kueue's ACReconciler: the parameters cannot be loaded, so the check
      // is Active=False (BadConfig) for good, and its ClusterQueues inactive.
      controller->check_active_[i] = 0;
      manager->SetAdmissionCheckActive(static_cast<int32_t>(i), false);
    }
  }
  // A ClusterQueue may use one MultiKueue check, for every flavor, and no
  // ProvisioningRequest check next to it; else Kueue keeps it inactive
  // (clusterQueue.updateQueueStatus).
  cluster::ClusterState& state = manager->mutable_state();
  for (cluster::CqId cq = 0; cq < state.num_cluster_queues(); ++cq) {
    cluster::ClusterQueueInfo& info = state.cq(cq);
    int multikueue_checks = 0;
    int provisioning_checks = 0;
    bool per_flavor = false;
    for (const auto& ref : info.spec->admission_checks) {
      const int32_t check = manager->FindAdmissionCheck(ref.name);
      if (check == kNone) continue;
      const std::string& controller_name = manager->admission_check(check).controller_name;
      if (controller_name == "kueue.x-k8s.io/provisioning-request") ++provisioning_checks;
      if (controller_name != model::kMultiKueueControllerName) continue;
      ++multikueue_checks;
      per_flavor = per_flavor || !ref.on_flavors.empty();
    }
    if (multikueue_checks > 1) {
      info.active = false;
      info.inactive_reason = "MultipleMultiKueueAdmissionChecks";
    } else if (per_flavor) {
      info.active = false;
      info.inactive_reason = "MultiKueueAdmissionCheckAppliedPerFlavor";
    } else if (multikueue_checks > 0 && provisioning_checks > 0) {
      info.active = false;
      info.inactive_reason = "MultiKueueWithProvisioningRequest";
    }
  }
  for (const auto& change : spec.changes) {
    if (change.target_kind == "MultiKueueCluster") controller->changes_.push_back(change);
  }
  manager->RegisterAdmissionCheckController(model::kMultiKueueControllerName, controller.get());
  // The checks' Active condition follows the workers from the start (it
  // overrides a status given in the input, as Kueue's reconciler does).
  controller->UpdateCheckActivity();
  return controller;
}

MultiKueueController::~MultiKueueController() = default;

void MultiKueueController::Start() {
  for (size_t i = 0; i < changes_.size(); ++i) {
    engine_->Schedule(changes_[i].at, this, kConnectivity, static_cast<int64_t>(i));
  }
}

void MultiKueueController::UpdateCheckActivity() {
  for (size_t check = 0; check < config_of_check_.size(); ++check) {
    const int32_t config = config_of_check_[check];
    if (config == kNone) continue;
    // Active (reason Active or SomeActiveClusters) while one worker is
    // Active; else Active=False, reason NoUsableClusters.
    bool any = false;
    for (int32_t link : configs_[static_cast<size_t>(config)].links) {
      any = any || links_[static_cast<size_t>(link)]->connected();
    }
    const int8_t active = any ? 1 : 0;
    if (check_active_[check] == active) continue;
    check_active_[check] = active;
    manager_->SetAdmissionCheckActive(static_cast<int32_t>(check), any);
  }
}

MultiKueueController::Group& MultiKueueController::GroupOf(WorkloadId id) {
  if (static_cast<size_t>(id) >= groups_.size()) groups_.resize(static_cast<size_t>(id) + 1);
  return groups_[static_cast<size_t>(id)];
}

bool MultiKueueController::Visible(SimTime event_time) const {
  return event_time >= 0 && event_time + options_.status_sync_latency <= engine_->now();
}

bool MultiKueueController::Readable(int32_t link) const {
  const WorkerLink& worker = *links_[static_cast<size_t>(link)];
  return worker.connected() && engine_->now() >= worker.readable_from();
}

void MultiKueueController::Emit(EventType type, WorkloadId id, int32_t link, int64_t value) {
  SimEvent event;
  event.type = type;
  event.time = engine_->now();
  event.cycle = manager_->cycle();
  event.cluster = &manager_->state();
  event.workload = id;
  if (id != kNone) {
    const WorkloadRecord& wl = manager_->state().workload(id);
    event.cq = wl.admission.has_value() ? wl.admission->cq : manager_->state().ClusterQueueOf(wl);
  }
  if (link != kNone) event.worker = links_[static_cast<size_t>(link)]->name();
  event.value = value;
  manager_->EmitEvent(event);
}

WorkloadDispatchReport& MultiKueueController::ReportOf(Group& group) {
  return report_.workloads[static_cast<size_t>(group.report)];
}

int32_t MultiKueueController::AddOperation(Operation op) {
  int32_t index;
  if (!free_operations_.empty()) {
    index = free_operations_.back();
    free_operations_.pop_back();
    operations_[static_cast<size_t>(index)] = std::move(op);
  } else {
    index = static_cast<int32_t>(operations_.size());
    operations_.push_back(std::move(op));
  }
  return index;
}

void MultiKueueController::ScheduleReconcile(WorkloadId id, SimTime at) {
  Group& group = GroupOf(id);
  if (!group.active) return;
  if (group.scheduled_reconcile == at) return;  // already due then
  group.scheduled_reconcile = at;
  engine_->Schedule(at, this, kReconcile, id, group.epoch);
}

int32_t MultiKueueController::PositionOf(const Group& group, int32_t link) const {
  if (group.config == kNone) return kNone;
  const std::vector<int32_t>& links = configs_[static_cast<size_t>(group.config)].links;
  auto it = std::find(links.begin(), links.end(), link);
  return it == links.end() ? kNone : static_cast<int32_t>(it - links.begin());
}

bool MultiKueueController::ManagerAlive(const LiveCopy& copy) const {
  const cluster::ClusterState& state = manager_->state();
  if (copy.manager == kNone || copy.manager >= state.num_workloads()) return false;
  const WorkloadRecord& wl = state.workload(copy.manager);
  return wl.spec != nullptr && wl.phase != WorkloadPhase::kNotArrived && wl.key == copy.key;
}

// --- Invariants ---

absl::Status MultiKueueController::CheckOneSelectedCopy(const std::string& where) const {
  // The first worker holding a selected copy, by manager workload.
  std::map<WorkloadId, size_t> selected;
  for (size_t l = 0; l < links_.size(); ++l) {
    for (const auto& [copy_id, live] : links_[l]->live()) {
      // A copy the manager let go of (unreachable worker) keeps its verdict
      // until the worker is back; it is no longer the manager's choice.
      if (!live.won || live.detached || !ManagerAlive(live)) continue;
      const auto [first, inserted] = selected.emplace(live.manager, l);
      if (inserted) continue;
      return absl::InternalError(fmt::format(
          "invariant violated: a MultiKueue workload has at most one selected copy ({}): manager {}, workload {} "
          "has a selected copy on worker {} and another on worker {}",
          where, report_.manager, live.key, links_[first->second]->name(), links_[l]->name()));
    }
  }
  return absl::OkStatus();
}

void MultiKueueController::SelectEveryCopyForTesting() {
  for (auto& link : links_) {
    for (auto& [copy_id, live] : link->live()) {
      live.won = true;
      live.detached = false;
    }
  }
}

// --- Cost accounting ---

void MultiKueueController::AddStatusSync(int32_t link) {
  if (Readable(link)) ++report_.workers[static_cast<size_t>(link)].status_syncs;
}

void MultiKueueController::ResolveLoser(int32_t link, LiveCopy& copy) {
  if (copy.won || copy.report == kNone) return;
  WorkloadDispatchReport& report = report_.workloads[static_cast<size_t>(copy.report)];
  WorkerReport& worker = report_.workers[static_cast<size_t>(link)];
  if (copy.reservation_counted && !copy.losing_counted) {
    copy.losing_counted = true;
    ++report.losing_reservations;
    ++worker.losing_reservations;
  }
  report.losing_preemptions += copy.undecided_preemptions;
  worker.losing_preemptions += copy.undecided_preemptions;
  copy.undecided_preemptions = 0;
  AddAll(&report.losing_victim_work, copy.undecided_victim_work);
  AddAll(&worker.losing_victim_work, copy.undecided_victim_work);
  copy.undecided_victim_work.clear();
}

void MultiKueueController::ResolveWinner(LiveCopy& copy) {
  copy.won = true;
  if (copy.report == kNone) return;
  report_.workloads[static_cast<size_t>(copy.report)].winning_preemptions += copy.undecided_preemptions;
  copy.undecided_preemptions = 0;
  copy.undecided_victim_work.clear();
}

void MultiKueueController::SetRunning(LiveCopy& copy, bool running) {
  if (copy.running == running || copy.report == kNone) return;
  copy.running = running;
  if (static_cast<size_t>(copy.report) >= runs_.size()) runs_.resize(static_cast<size_t>(copy.report) + 1);
  RunState& run = runs_[static_cast<size_t>(copy.report)];
  const SimTime now = engine_->now();
  if (run.running > 1) {
    report_.workloads[static_cast<size_t>(copy.report)].duplicate_run_time +=
        static_cast<SimDuration>(run.running - 1) * (now - run.since);
  }
  run.running += running ? 1 : -1;
  run.since = now;
}

// --- The manager's side ---

void MultiKueueController::OnCheckPending(WorkloadId id, int32_t check) {
  const int32_t config = config_of_check_[static_cast<size_t>(check)];
  if (config == kNone) return;
  Group& group = GroupOf(id);
  const WorkloadRecord& wl = manager_->state().workload(id);
  ++group.epoch;
  group.active = true;
  group.config = config;
  group.check = check;
  group.ready = false;
  group.nominated.clear();
  group.last_nomination = -1;
  group.copies.assign(configs_[static_cast<size_t>(config)].links.size(), Copy());
  group.winner = kNone;
  group.reserved_at = engine_->now();
  group.scheduled_reconcile = -1;
  // A requeued workload keeps its report; a new one (or a recycled record)
  // gets its own.
  if (group.report == kNone || ReportOf(group).workload != wl.key || ReportOf(group).arrival != wl.arrival ||
      ReportOf(group).finished_at >= 0) {
    group.report = static_cast<int32_t>(report_.workloads.size());
    WorkloadDispatchReport report;
    report.workload = wl.key;
    report.cluster_queue = manager_->state().cq(wl.admission->cq).name;
    report.arrival = wl.arrival;
    report.first_reserved_at = engine_->now();
    report_.workloads.push_back(std::move(report));
  }
  ++ReportOf(group).dispatches;
  ScheduleReconcile(id, engine_->now());
}

void MultiKueueController::OnCheckStateChanged(WorkloadId id, int32_t /*check*/, CheckState /*state*/) {
  // The workload changed: its reconcile runs (the other checks may all be
  // Ready now).
  ScheduleReconcile(id, engine_->now());
}

bool MultiKueueController::OtherChecksReady(WorkloadId id, const Group& group) const {
  // allNonMKAdmissionChecksReady: every check but the MultiKueue one.
  for (const auto& status : manager_->state().workload(id).rare->checks) {
    if (status.check == group.check) continue;
    if (status.state != CheckState::kReady) return false;
  }
  return true;
}

void MultiKueueController::OnAdmitted(WorkloadId /*id*/) {}

void MultiKueueController::OnEvicted(WorkloadId /*id*/) {
  // The copies go when the manager's quota is released (OnQuotaReleased);
  // Kueue deactivates the running copy meanwhile.
}

void MultiKueueController::OnQuotaReleased(WorkloadId id) {
  Group& group = GroupOf(id);
  if (!group.active) return;
  // Every remote object goes (reconcileGroup step 2); unreachable workers
  // keep theirs until they come back.
  for (size_t pos = 0; pos < group.copies.size(); ++pos) DeleteCopy(id, group, static_cast<int32_t>(pos));
  group.active = false;
  ++group.epoch;
  group.nominated.clear();
  group.winner = kNone;
  group.ready = false;
}

void MultiKueueController::IssueDelete(int32_t link, WorkloadId copy_id) {
  WorkerLink& worker = *links_[static_cast<size_t>(link)];
  LiveCopy* live = worker.Live(copy_id);
  if (live == nullptr || live->deleting) return;
  live->deleting = true;
  live->detached = false;
  Operation op;
  op.kind = Operation::kDelete;
  op.manager = live->manager;
  op.link = link;
  op.copy = copy_id;
  op.key = live->key;
  engine_->ScheduleAfter(options_.dispatch_latency, this, kOperation, AddOperation(std::move(op)));
  const WorkloadId manager_id = ManagerAlive(*live) ? live->manager : kNone;
  Emit(EventType::kCopyDeleted, manager_id, link);
  ++report_.workers[static_cast<size_t>(link)].deleted;
}

void MultiKueueController::DeleteCopy(WorkloadId /*id*/, Group& group, int32_t position) {
  Copy& copy = group.copies[static_cast<size_t>(position)];
  const int32_t link = configs_[static_cast<size_t>(group.config)].links[static_cast<size_t>(position)];
  WorkerLink& worker = *links_[static_cast<size_t>(link)];
  ++copy.token;
  copy.creating = false;
  if (copy.id != kNone) {
    LiveCopy* live = worker.Live(copy.id);
    if (live != nullptr) {
      ResolveLoser(link, *live);
      if (worker.connected()) {
        IssueDelete(link, copy.id);
      } else {
        // Left on the unreachable worker; see OnReconnected.
        live->detached = true;
      }
    }
  }
  copy = Copy{.token = copy.token};
}

// Kueue's reconcileGroup for a workload that holds manager quota, in its
// order: a finished copy finishes the workload (step 3); an evicted copy
// sends a Ready check to Retry (4); with the check Ready and no admitted
// copy in sight, the admitting worker is waited for (workerLostTimeout) or
// given up (6a); the copy admitted first wins and every other copy goes
// (6b); else preemption gates (7), then, once the other checks are Ready,
// nomination and copies (8). Only reachable workers whose status the
// manager has read count.
void MultiKueueController::Reconcile(WorkloadId id) {
  Group& group = GroupOf(id);
  if (!group.active) return;
  const Config& config = configs_[static_cast<size_t>(group.config)];
  const WorkloadRecord& wl = manager_->state().workload(id);
  const SimTime now = engine_->now();

  // Earliest visible copy in the given state, over readable workers.
  auto best = [&](auto time_of) {
    int32_t found = kNone;
    for (size_t pos = 0; pos < group.copies.size(); ++pos) {
      const Copy& copy = group.copies[pos];
      const SimTime at = time_of(copy);
      if (copy.id == kNone || at < 0 || !Readable(config.links[pos])) continue;
      if (!Visible(at)) {
        ScheduleReconcile(id, at + options_.status_sync_latency);
        continue;
      }
      if (found == kNone || at < time_of(group.copies[static_cast<size_t>(found)])) found = static_cast<int32_t>(pos);
    }
    return found;
  };

  // 3. A copy finished: the manager's workload finishes with it.
  const int32_t finished = best([](const Copy& c) { return c.finished_at; });
  if (finished != kNone) {
    WorkloadDispatchReport& report = ReportOf(group);
    report.finished_at = now;
    const int32_t link = config.links[static_cast<size_t>(finished)];
    report.worker = links_[static_cast<size_t>(link)]->name();
    if (finished != group.winner) {
      // A copy taken back after a reconnection finished first: the others
      // (the re-run among them) were for nothing.
      const WorkloadId finished_id = group.copies[static_cast<size_t>(finished)].id;
      for (size_t l = 0; l < links_.size(); ++l) {
        for (auto& [copy_id, other] : links_[l]->live()) {
          if (other.manager != id || other.key != wl.key) continue;
          if (static_cast<int32_t>(l) == link && copy_id == finished_id) {
            ResolveWinner(other);
          } else {
            other.won = false;
            ResolveLoser(static_cast<int32_t>(l), other);
          }
        }
      }
    }
    manager_->FinishWorkload(id);  // releases quota: the copies are deleted
    return;
  }

  // 4. A copy was evicted on its worker while the check is Ready: Retry.
  const int32_t evicted = best([](const Copy& c) { return c.evicted ? c.evicted_at : SimTime{-1}; });
  if (evicted != kNone) {
    // Evicted on the manager too: the job's status is synced, nothing more.
    if (wl.evicted) return;
    if (group.ready) {
      manager_->SetAdmissionCheckState(id, group.check, CheckState::kRetry);
      return;
    }
  }

  const int32_t admitted = best([](const Copy& c) { return c.admitted ? c.admitted_at : SimTime{-1}; });
  if (admitted == kNone && group.ready) {
    // 6a. The admitting worker: unreachable, it gets workerLostTimeout from
    // the loss; reachable without an admitted copy, it is given up.
    const int32_t link = config.links[static_cast<size_t>(group.winner)];
    const WorkerLink& worker = *links_[static_cast<size_t>(link)];
    if (!worker.connected()) {
      const SimTime deadline = worker.lost_since() + settings_.worker_lost_timeout;
      if (now < deadline) {
        ScheduleReconcile(id, deadline);
        return;
      }
      manager_->SetAdmissionCheckState(id, group.check, CheckState::kRetry);  // "Admitting remote lost"
      return;
    }
    if (!Readable(link)) {
      ScheduleReconcile(id, worker.readable_from());
      return;
    }
    manager_->SetAdmissionCheckState(id, group.check, CheckState::kRetry);  // "no longer exists"
    return;
  }

  if (admitted != kNone) {
    // 6b. Converge onto the copy admitted first (ties: the earlier cluster
    // of the MultiKueueConfig): every other copy goes.
    for (size_t pos = 0; pos < group.copies.size(); ++pos) {
      if (static_cast<int32_t>(pos) == admitted) continue;
      const Copy& other = group.copies[pos];
      if (other.id == kNone && !other.creating) continue;
      if (!links_[static_cast<size_t>(config.links[pos])]->connected()) continue;
      DeleteCopy(id, group, static_cast<int32_t>(pos));
    }
    Copy& winner = group.copies[static_cast<size_t>(admitted)];
    const int32_t link = config.links[static_cast<size_t>(admitted)];
    WorkerLink& worker = *links_[static_cast<size_t>(link)];
    LiveCopy* live = worker.Live(winner.id);
    if (group.winner != admitted) {
      WorkloadDispatchReport& report = ReportOf(group);
      if (!group.ready) {
        report.admitted_at = winner.admitted_at;
        report.time_to_admission.push_back(winner.admitted_at - group.reserved_at);
      }
      // A copy admitted before the current winner (one the manager had to
      // leave on a worker that was unreachable) takes over: Kueue deletes
      // the other copies and syncs this one (its ClusterName stays).
      report.worker = worker.name();
      ++report_.workers[static_cast<size_t>(link)].won;
      group.winner = admitted;
      group.nominated.clear();
      // Every copy of the workload that is not this one lost, including
      // the ones on unreachable workers.
      for (size_t l = 0; l < links_.size(); ++l) {
        for (auto& [copy_id, other] : links_[l]->live()) {
          // A copy the manager let go of keeps its verdict.
          if (other.manager != id || other.key != wl.key || other.detached) continue;
          if (static_cast<int32_t>(l) == link && copy_id == winner.id) continue;
          other.won = false;
          ResolveLoser(static_cast<int32_t>(l), other);
        }
      }
      if (live != nullptr) ResolveWinner(*live);
      Emit(EventType::kWorkerSelected, id, link);
      if (live == nullptr || !live->job_created) {
        // The job object is created on the winner; its pods start there.
        Operation op;
        op.kind = Operation::kStartJob;
        op.manager = id;
        op.epoch = group.epoch;
        op.position = admitted;
        op.link = link;
        op.copy = winner.id;
        op.token = winner.token;
        op.key = wl.key;
        engine_->ScheduleAfter(options_.dispatch_latency, this, kOperation, AddOperation(std::move(op)));
      }
      if (!group.ready) {
        group.ready = true;
        const uint32_t epoch = group.epoch;
        manager_->SetAdmissionCheckState(id, group.check, CheckState::kReady);
        if (GroupOf(id).epoch == epoch && wl.owner != kNone) ReconcileComponents(id);
        return;
      }
    }
    // The job's status comes back to the manager.
    if (winner.pods_ready_at >= 0 && wl.owner == kNone && !wl.pods_ready) {
      if (Visible(winner.pods_ready_at)) {
        manager_->SetPodsReady(id, true);
      } else {
        ScheduleReconcile(id, winner.pods_ready_at + options_.status_sync_latency);
      }
    }
    return;
  }

  // 7. Orchestrated preemption.
  if (orchestrated_preemption_) OpenPreemptionGateIfDue(id, group);
  // 8. Copies wait for every other admission check
  // (nominateAndSynchronizeWorkers). So does AllAtOnce's nomination, made
  // there; the Incremental and external dispatchers nominate in reconcilers
  // of their own, whatever the other checks say, and their rounds go on.
  const bool others_ready = OtherChecksReady(id, group);
  if (others_ready || report_.dispatcher != policy::kAllAtOnceDispatcher) Nominate(id, group);
  if (!others_ready) return;
  SyncCopies(id, group);
}

void MultiKueueController::Nominate(WorkloadId id, Group& group) {
  const WorkloadRecord& wl = manager_->state().workload(id);
  const Config& config = configs_[static_cast<size_t>(group.config)];
  if (wl.owner != kNone) {
    // Workloads of one LeaderWorkerSet go where the first was admitted; the
    // lowest group index nominates.
    const int32_t assigned = ComponentCluster(id, group);
    if (assigned != kNone) {
      if (group.nominated != std::vector<int32_t>{assigned}) {
        group.nominated = {assigned};
        group.last_nomination = engine_->now();
        ++ReportOf(group).nomination_patches;
        Emit(EventType::kNominated, id, config.links[static_cast<size_t>(assigned)], 1);
      }
      return;
    }
    if (!IsPrimaryComponent(id)) return;
  }
  policy::DispatchRequest request;
  request.workload = wl.key;
  request.priority = wl.priority;
  request.now = engine_->now();
  request.reserved_at = group.reserved_at;
  request.nominated = group.nominated;
  request.last_nomination = group.last_nomination;
  const cluster::ClusterState& manager_state = manager_->state();
  std::vector<std::pair<std::string, Amount>> requests;
  for (const auto& ps : wl.pod_sets) {
    for (const auto& r : ps.per_pod) {
      const std::string& name = manager_state.resource_name(r.resource);
      const Amount total = MulAmount(r.amount, ps.count);
      auto it = std::find_if(requests.begin(), requests.end(), [&](const auto& e) { return e.first == name; });
      if (it == requests.end()) {
        requests.emplace_back(name, total);
      } else {
        it->second = AddAmounts(it->second, total);
      }
    }
  }
  for (const auto& [name, amount] : requests) request.requests.emplace_back(name, amount);
  for (int32_t link : config.links) {
    const WorkerLink& worker = *links_[static_cast<size_t>(link)];
    policy::DispatchCandidate candidate;
    candidate.name = worker.name();
    candidate.connected = worker.connected();
    const cluster::ClusterState& ws = worker.worker()->state();
    const cluster::LqId lq = ws.FindLocalQueue(manager_state.namespace_info(wl.ns).name, wl.spec->queue_name);
    const cluster::CqId cq = lq == kNone ? kNone : ws.lq(lq).cq;
    candidate.has_queue = cq != kNone;
    if (cq != kNone) {
      candidate.pending = worker.worker()->PendingCount(cq);
      const cluster::ClusterQueueInfo& info = ws.cq(cq);
      for (const auto& [name, amount] : requests) {
        const cluster::ResourceId resource = ws.FindResource(name);
        Amount free = 0;
        const int32_t g = resource == kNone ? kNone : info.GroupOf(resource);
        if (g != kNone) {
          const cluster::ResourceGroupInfo& rg = info.groups[static_cast<size_t>(g)];
          const auto r_index = static_cast<size_t>(
              std::find(rg.covered.begin(), rg.covered.end(), resource) - rg.covered.begin());
          for (size_t f = 0; f < rg.flavors.size(); ++f) {
            free = AddAmounts(free, std::max<Amount>(0, ws.tree().Available(info.node, rg.Fr(f, r_index))));
          }
        }
        candidate.free.emplace_back(name, free);
      }
    }
    request.clusters.push_back(std::move(candidate));
  }
  // The candidate views hold string_views into `requests`.
  for (auto& candidate : request.clusters) {
    for (size_t i = 0; i < candidate.free.size(); ++i) candidate.free[i].first = requests[i].first;
  }
  for (size_t i = 0; i < requests.size(); ++i) request.requests[i].first = requests[i].first;
  policy::DispatchDecision decision = dispatcher_->Nominate(request);
  for (int32_t pos : decision.nominated) {
    KUEUESIM_CHECK_MSG(pos >= 0 && static_cast<size_t>(pos) < config.links.size(),
                       fmt::format("dispatcher \"{}\" nominated cluster index {} of {}", report_.dispatcher, pos,
                                   config.links.size()));
  }
  if (decision.nominated != group.nominated) {
    group.nominated = std::move(decision.nominated);
    group.last_nomination = engine_->now();
    ++ReportOf(group).nomination_patches;
    Emit(EventType::kNominated, id, kNone, static_cast<int64_t>(group.nominated.size()));
  }
  if (decision.recheck_at.has_value()) ScheduleReconcile(id, std::max(*decision.recheck_at, engine_->now()));
}

void MultiKueueController::SyncCopies(WorkloadId id, Group& group) {
  const Config& config = configs_[static_cast<size_t>(group.config)];
  const WorkloadRecord& wl = manager_->state().workload(id);
  for (size_t pos = 0; pos < config.links.size(); ++pos) {
    const int32_t link = config.links[pos];
    if (!links_[static_cast<size_t>(link)]->connected()) continue;
    Copy& copy = group.copies[pos];
    const bool nominated =
        std::find(group.nominated.begin(), group.nominated.end(), static_cast<int32_t>(pos)) != group.nominated.end();
    // A reconnected worker gets copies once the manager has read what it
    // already holds (OnReconnected).
    if (nominated && copy.id == kNone && !copy.creating && Readable(link)) {
      copy.creating = true;
      Operation op;
      op.kind = Operation::kCreate;
      op.manager = id;
      op.epoch = group.epoch;
      op.position = static_cast<int32_t>(pos);
      op.link = link;
      op.token = copy.token;
      op.key = wl.key;
      engine_->ScheduleAfter(options_.dispatch_latency, this, kOperation, AddOperation(std::move(op)));
    } else if (!nominated && (copy.id != kNone || copy.creating)) {
      DeleteCopy(id, group, static_cast<int32_t>(pos));
    }
  }
}

void MultiKueueController::OpenPreemptionGateIfDue(WorkloadId id, Group& group) {
  const Config& config = configs_[static_cast<size_t>(group.config)];
  SimTime latest_open = -1;
  int32_t candidate = kNone;
  for (size_t pos = 0; pos < group.copies.size(); ++pos) {
    const Copy& copy = group.copies[pos];
    if (copy.id == kNone || !Readable(config.links[pos])) continue;
    // Only gates open now count (an eviction closed its copy's gate).
    if (copy.gate_opened_at >= 0) {
      latest_open = std::max(latest_open, copy.gate_opened_at);
      continue;
    }
    if (!Visible(copy.gate_signal)) continue;
    if (candidate == kNone || copy.gate_signal < group.copies[static_cast<size_t>(candidate)].gate_signal) {
      candidate = static_cast<int32_t>(pos);
    }
  }
  if (candidate == kNone) return;
  const SimTime now = engine_->now();
  if (latest_open >= 0 && now - latest_open < kSingleClusterPreemptionTimeout) {
    ScheduleReconcile(id, latest_open + kSingleClusterPreemptionTimeout);
    return;
  }
  Copy& copy = group.copies[static_cast<size_t>(candidate)];
  copy.gate_opened_at = now;
  const int32_t link = config.links[static_cast<size_t>(candidate)];
  Operation op;
  op.kind = Operation::kOpenGate;
  op.manager = id;
  op.epoch = group.epoch;
  op.position = candidate;
  op.link = link;
  op.copy = copy.id;
  op.token = copy.token;
  op.key = manager_->state().workload(id).key;
  engine_->ScheduleAfter(options_.dispatch_latency, this, kOperation, AddOperation(std::move(op)));
  ++report_.workers[static_cast<size_t>(link)].gate_opens;
  Emit(EventType::kPreemptionGateOpened, id, link);
  ScheduleReconcile(id, now + kSingleClusterPreemptionTimeout);
}

int32_t MultiKueueController::ComponentCluster(WorkloadId id, const Group& group) const {
  const cluster::ClusterState& state = manager_->state();
  const WorkloadRecord& wl = state.workload(id);
  for (size_t other = 0; other < groups_.size(); ++other) {
    const Group& g = groups_[other];
    if (static_cast<WorkloadId>(other) == id || !g.active || g.winner == kNone || g.config != group.config) continue;
    if (static_cast<int>(other) >= state.num_workloads()) continue;
    if (state.workload(static_cast<WorkloadId>(other)).owner == wl.owner) return g.winner;
  }
  return kNone;
}

bool MultiKueueController::IsPrimaryComponent(WorkloadId id) const {
  const cluster::ClusterState& state = manager_->state();
  const WorkloadRecord& wl = state.workload(id);
  for (WorkloadId other = 0; other < state.num_workloads(); ++other) {
    const WorkloadRecord& o = state.workload(other);
    if (other == id || o.owner != wl.owner) continue;
    if (o.phase == WorkloadPhase::kNotArrived || o.phase == WorkloadPhase::kFinished ||
        o.phase == WorkloadPhase::kDeactivated) {
      continue;
    }
    if (o.owner_index < wl.owner_index) return false;
  }
  return true;
}

void MultiKueueController::ReconcileComponents(WorkloadId id) {
  const cluster::ClusterState& state = manager_->state();
  const int32_t owner = state.workload(id).owner;
  for (size_t other = 0; other < groups_.size() && static_cast<int>(other) < state.num_workloads(); ++other) {
    if (static_cast<WorkloadId>(other) == id || !groups_[other].active) continue;
    if (state.workload(static_cast<WorkloadId>(other)).owner == owner) {
      ScheduleReconcile(static_cast<WorkloadId>(other), engine_->now());
    }
  }
}


// --- Operations on workers ---

void MultiKueueController::RunOperation(int32_t index) {
  const Operation op = std::move(operations_[static_cast<size_t>(index)]);
  free_operations_.push_back(index);
  WorkerLink& worker = *links_[static_cast<size_t>(op.link)];
  if (op.kind == Operation::kDelete) {
    if (worker.IsCopy(op.copy, op.manager, op.key)) worker.worker()->DeleteWorkload(op.copy, /*release_record=*/true);
    LiveCopy* live = worker.Live(op.copy);
    if (live != nullptr && live->manager == op.manager && live->key == op.key) worker.live().erase(op.copy);
    return;
  }
  Group& group = GroupOf(op.manager);
  const bool current = group.active && group.epoch == op.epoch &&
                       group.copies[static_cast<size_t>(op.position)].token == op.token;
  if (op.kind == Operation::kPodsReady || op.kind == Operation::kFinishCopy) {
    // A job that runs on a worker carries on whatever the manager does
    // meanwhile (a lost worker keeps running it). The manager hears of it
    // if its dispatch tracks the copy (also one it took back after a
    // reconnection).
    if (!worker.IsCopy(op.copy, op.manager, op.key)) return;
    const WorkloadRecord& remote = worker.worker()->state().workload(op.copy);
    if (remote.phase != WorkloadPhase::kAdmitted || remote.evicted) return;
    // Untracked copies' state is read when they are taken back.
    int32_t tracked = group.active ? PositionOf(group, op.link) : kNone;
    if (tracked != kNone && group.copies[static_cast<size_t>(tracked)].id != op.copy) tracked = kNone;
    if (op.kind == Operation::kPodsReady) {
      worker.worker()->SetPodsReady(op.copy, true);
      if (LiveCopy* live = worker.Live(op.copy)) SetRunning(*live, true);
      if (remote.duration.has_value()) {
        Operation finish = op;
        finish.kind = Operation::kFinishCopy;
        engine_->ScheduleAfter(*remote.duration, this, kOperation, AddOperation(std::move(finish)));
      }
      if (tracked != kNone) {
        group.copies[static_cast<size_t>(tracked)].pods_ready_at = engine_->now();
        AddStatusSync(op.link);
        ScheduleReconcile(op.manager, engine_->now() + options_.status_sync_latency);
      }
      return;
    }
    if (!remote.pods_ready) return;
    worker.worker()->FinishWorkload(op.copy);
    if (tracked != kNone) {
      Copy& copy = group.copies[static_cast<size_t>(tracked)];
      // A finished workload keeps its Admitted condition (Kueue's Finish
      // only adds Finished): until the manager sees the finish,
      // statusSyncLatency from now, it still sees the copy admitted. Clearing
      // it here made a reconcile in between (the PodsReady sync of a job
      // shorter than the latency) take the copy for gone and Retry.
      copy.finished_at = engine_->now();
      AddStatusSync(op.link);
      ScheduleReconcile(op.manager, engine_->now() + options_.status_sync_latency);
    }
    return;
  }
  if (!current) return;
  Copy& copy = group.copies[static_cast<size_t>(op.position)];
  switch (op.kind) {
    case Operation::kCreate: {
      copy.creating = false;
      if (!worker.connected()) return;  // retried when it reconnects
      const WorkloadRecord& wl = manager_->state().workload(op.manager);
      model::Workload clone = *wl.spec;
      clone.admission.reset();
      if (clone.rare.allocated()) clone.rare.Mutable().preemption_gates.clear();
      if (orchestrated_preemption_) clone.rare.Mutable().preemption_gates.push_back(kMultiKueuePreemptionGate);
      LiveCopy live;
      live.manager = op.manager;
      live.key = wl.key;
      live.report = group.report;
      const std::string name = clone.meta.name;
      auto created = worker.worker()->AddOwnedWorkload(clone, worker.owner_id(), op.manager);
      // The worker already has a Workload of that name (a job of its own, or
      // another manager's copy of a job of the same name). Kueue's Workload
      // names carry a hash of the job's UID and never collide; the copy takes
      // a suffix from its manager cluster and key instead.
      for (uint64_t attempt = 0; !created.ok() && attempt < 16; ++attempt) {
        clone.meta.name = fmt::format(
            "{}-{:05x}", name,
            runtime::HashString(fmt::format("{}/{}/{}", manager_->state().name(), wl.key, attempt)) & 0xfffff);
        created = worker.worker()->AddOwnedWorkload(clone, worker.owner_id(), op.manager);
      }
      if (!created.ok()) {
        KUEUESIM_CHECK_MSG(false, fmt::format("MultiKueue copy of {} on {}: {}", wl.key, worker.name(),
                                              StatusMessage(created.status())));
      }
      live.copy_key = worker.worker()->state().workload(*created).key;
      // It arrives in the worker's queue now; the worker schedules it later.
      copy.id = *created;
      worker.live()[*created] = std::move(live);
      WorkerReport& worker_report = report_.workers[static_cast<size_t>(op.link)];
      worker_report.peak_live_copies =
          std::max<int64_t>(worker_report.peak_live_copies, static_cast<int64_t>(worker.live().size()));
      ++ReportOf(group).copies;
      ++worker_report.copies;
      Emit(EventType::kDispatched, op.manager, op.link);
      return;
    }
    case Operation::kStartJob: {
      if (!worker.connected() || !worker.IsCopy(op.copy, op.manager, op.key)) return;
      const WorkloadRecord& remote = worker.worker()->state().workload(op.copy);
      if (remote.phase != WorkloadPhase::kAdmitted || remote.evicted) return;
      if (LiveCopy* live = worker.Live(op.copy)) live->job_created = true;
      Operation ready = op;
      ready.kind = Operation::kPodsReady;
      engine_->ScheduleAfter(remote.startup_delay, this, kOperation, AddOperation(std::move(ready)));
      return;
    }
    case Operation::kPodsReady:
    case Operation::kFinishCopy:
      return;  // handled above
    case Operation::kOpenGate:
      if (worker.connected() && worker.IsCopy(op.copy, op.manager, op.key)) {
        worker.worker()->OpenPreemptionGate(op.copy);
      }
      return;
    case Operation::kDelete:
      return;
  }
}

// --- Copy events ---
// Each finds the copy's cost entry (any copy that exists) and, when the
// manager's current dispatch tracks it, its position there.

void MultiKueueController::OnCopyReserved(int32_t link, WorkloadId manager_id, WorkloadId copy_id) {
  WorkerLink& worker = *links_[static_cast<size_t>(link)];
  LiveCopy* live = worker.Live(copy_id);
  if (live == nullptr) return;
  live->holding_since = engine_->now();
  live->held = HeldResources(worker.worker()->state(), worker.worker()->state().workload(copy_id));
  if (!live->reservation_counted && live->report != kNone) {
    live->reservation_counted = true;
    ++report_.workloads[static_cast<size_t>(live->report)].reserving_workers;
    ++report_.workers[static_cast<size_t>(link)].reservations;
  }
  Group& group = GroupOf(manager_id);
  const int32_t pos = group.active ? PositionOf(group, link) : kNone;
  const bool tracked = pos != kNone && group.copies[static_cast<size_t>(pos)].id == copy_id;
  // Reserving after another copy won (or after the manager let it go):
  // a duplicate reservation.
  if (live->detached || (!tracked && !live->won) || (tracked && group.winner != kNone && group.winner != pos)) {
    ResolveLoser(link, *live);
  }
  if (!tracked) return;
  Copy& copy = group.copies[static_cast<size_t>(pos)];
  copy.evicted = false;  // QuotaReserved resets Evicted
  AddStatusSync(link);
}

void MultiKueueController::OnCopyQuotaReleased(int32_t link, WorkloadId /*manager_id*/, WorkloadId copy_id) {
  LiveCopy* live = links_[static_cast<size_t>(link)]->Live(copy_id);
  if (live == nullptr) return;
  SetRunning(*live, false);
  if (live->holding_since < 0) return;
  const double seconds = Seconds(engine_->now() - live->holding_since);
  live->holding_since = -1;
  if (live->won || live->report == kNone) return;
  WorkloadDispatchReport& report = report_.workloads[static_cast<size_t>(live->report)];
  WorkerReport& worker = report_.workers[static_cast<size_t>(link)];
  for (const auto& [name, amount] : live->held) {
    report.losing_quota_seconds[name] += amount * seconds;
    worker.losing_quota_seconds[name] += amount * seconds;
  }
}

void MultiKueueController::OnCopyAdmitted(int32_t link, WorkloadId manager_id, WorkloadId copy_id) {
  Group& group = GroupOf(manager_id);
  if (!group.active) return;
  const int32_t pos = PositionOf(group, link);
  if (pos == kNone || group.copies[static_cast<size_t>(pos)].id != copy_id) return;
  Copy& copy = group.copies[static_cast<size_t>(pos)];
  copy.admitted = true;
  copy.admitted_at = engine_->now();
  copy.evicted = false;
  copy.gate_signal = -1;
  if (group.winner == pos) {
    // Re-admitted where its job already exists: the pods start again.
    Operation op;
    op.kind = Operation::kStartJob;
    op.manager = manager_id;
    op.epoch = group.epoch;
    op.position = pos;
    op.link = link;
    op.copy = copy_id;
    op.token = copy.token;
    op.key = manager_->state().workload(manager_id).key;
    engine_->Schedule(engine_->now(), this, kOperation, AddOperation(std::move(op)));
  }
  AddStatusSync(link);
  ScheduleReconcile(manager_id, engine_->now() + options_.status_sync_latency);
}

void MultiKueueController::OnCopyEvicted(int32_t link, WorkloadId manager_id, WorkloadId copy_id) {
  if (LiveCopy* live = links_[static_cast<size_t>(link)]->Live(copy_id)) SetRunning(*live, false);  // pods stop
  Group& group = GroupOf(manager_id);
  if (!group.active) return;
  const int32_t pos = PositionOf(group, link);
  if (pos == kNone || group.copies[static_cast<size_t>(pos)].id != copy_id) return;
  Copy& copy = group.copies[static_cast<size_t>(pos)];
  copy.admitted = false;
  copy.evicted = true;
  copy.evicted_at = engine_->now();
  copy.pods_ready_at = -1;
  copy.gate_signal = -1;
  // The eviction closed its preemption gate (prepareForEviction): it no
  // longer holds off the other copies' gates.
  copy.gate_opened_at = -1;
  AddStatusSync(link);
  ScheduleReconcile(manager_id, engine_->now() + options_.status_sync_latency);
}

void MultiKueueController::OnCopyPreempting(int32_t link, WorkloadId manager_id, WorkloadId copy_id,
                                            int32_t victims) {
  LiveCopy* live = links_[static_cast<size_t>(link)]->Live(copy_id);
  if (live == nullptr || live->report == kNone) return;
  (void)manager_id;
  if (live->won) {
    report_.workloads[static_cast<size_t>(live->report)].winning_preemptions += victims;
    return;
  }
  live->undecided_preemptions += victims;
  if (live->losing_counted || live->detached) ResolveLoser(link, *live);  // already lost
}

void MultiKueueController::OnCopyVictim(int32_t link, WorkloadId /*manager_id*/, WorkloadId copy_id,
                                        WorkloadId victim) {
  WorkerLink& worker = *links_[static_cast<size_t>(link)];
  LiveCopy* live = worker.Live(copy_id);
  if (live == nullptr || live->won) return;
  const cluster::ClusterState& ws = worker.worker()->state();
  const WorkloadRecord& v = ws.workload(victim);
  if (!v.pods_ready) return;  // nothing ran yet: nothing lost
  const double seconds = Seconds(engine_->now() - v.running_since);
  for (const auto& [name, amount] : HeldResources(ws, v)) live->undecided_victim_work[name] += amount * seconds;
  if (live->losing_counted || live->detached) ResolveLoser(link, *live);
}

void MultiKueueController::OnCopyGated(int32_t link, WorkloadId manager_id, WorkloadId copy_id) {
  Group& group = GroupOf(manager_id);
  if (!group.active) return;
  const int32_t pos = PositionOf(group, link);
  if (pos == kNone || group.copies[static_cast<size_t>(pos)].id != copy_id) return;
  Copy& copy = group.copies[static_cast<size_t>(pos)];
  if (copy.gate_signal >= 0) return;
  copy.gate_signal = engine_->now();
  AddStatusSync(link);
  ScheduleReconcile(manager_id, engine_->now() + options_.status_sync_latency);
}

// --- Connectivity and garbage collection ---

void MultiKueueController::OnConnectivity(int32_t link, bool connected) {
  WorkerLink& worker = *links_[static_cast<size_t>(link)];
  if (worker.connected() == connected) return;
  worker.SetConnected(connected, engine_->now(), options_.status_sync_latency);
  report_.workers[static_cast<size_t>(link)].connectivity.emplace_back(engine_->now(), connected);
  Emit(connected ? EventType::kWorkerConnected : EventType::kWorkerDisconnected, kNone, link);
  // The MultiKueueCluster's Active condition follows at once (a failed or
  // a successful connection attempt), and with it its checks'.
  UpdateCheckActivity();
  if (connected) {
    // The new watch lists the worker's copies: the manager reads them and
    // reconciles their workloads.
    engine_->Schedule(worker.readable_from(), this, kReconnected, link);
    return;
  }
  // Every workload is reconciled: nominations follow connectivity, a lost
  // winner starts its timeout.
  for (size_t id = 0; id < groups_.size(); ++id) {
    if (groups_[id].active) ScheduleReconcile(static_cast<WorkloadId>(id), engine_->now());
  }
}

void MultiKueueController::SetReachable(int32_t link, bool reachable) {
  WorkerLink& worker = *links_[static_cast<size_t>(link)];
  worker.reachable = reachable;
  if (!reachable) {
    // The watch ends: disconnected at once.
    OnConnectivity(link, false);
    return;
  }
  if (worker.connected()) return;
  const SimTime at = NextConnectAttempt(worker.lost_since(), engine_->now());
  if (at == engine_->now()) {
    OnConnectivity(link, true);
    return;
  }
  if (worker.attempt_at == at) return;
  worker.attempt_at = at;
  engine_->Schedule(at, this, kConnectAttempt, link);
}

void MultiKueueController::OnConnectAttempt(int32_t link) {
  WorkerLink& worker = *links_[static_cast<size_t>(link)];
  if (worker.attempt_at != engine_->now()) return;  // superseded
  worker.attempt_at = -1;
  if (worker.reachable) OnConnectivity(link, true);
}

// Kueue: the watch's events queue the manager workload of every copy on the
// worker; its reconcile then sees the copy like any other (reconcileGroup:
// no quota or finished -> deleted; else a candidate like the copies it
// created). Copies of manager workloads that are gone wait for the garbage
// collector.
void MultiKueueController::OnReconnected(int32_t link) {
  WorkerLink& worker = *links_[static_cast<size_t>(link)];
  if (!worker.connected() || engine_->now() < worker.readable_from()) return;  // lost again meanwhile
  const cluster::ClusterState& ws = worker.worker()->state();
  bool orphans = false;
  std::vector<WorkloadId> to_delete;
  std::vector<WorkloadId> gone;
  for (auto& [copy_id, live] : worker.live()) {
    if (!live.detached || live.deleting) continue;
    if (!worker.IsCopy(copy_id, live.manager, live.key)) {
      gone.push_back(copy_id);  // its record was recycled (streaming runs): nothing left to read
      continue;
    }
    if (!ManagerAlive(live)) {
      orphans = true;
      continue;
    }
    Group& group = GroupOf(live.manager);
    const int32_t pos = group.active ? PositionOf(group, link) : kNone;
    if (pos == kNone || group.copies[static_cast<size_t>(pos)].id != kNone ||
        group.copies[static_cast<size_t>(pos)].creating) {
      to_delete.push_back(copy_id);  // step 2: the workload finished or waits without quota
      continue;
    }
    // Back to its workload: the copy's state as the worker has it.
    live.detached = false;
    live.won = false;
    live.report = group.report;
    Copy& copy = group.copies[static_cast<size_t>(pos)];
    copy.id = copy_id;
    const WorkloadRecord& remote = ws.workload(copy_id);
    if (remote.phase == WorkloadPhase::kFinished) {
      copy.finished_at = remote.finished_at;
    } else if (remote.phase == WorkloadPhase::kAdmitted && !remote.evicted) {
      copy.admitted = true;
      copy.admitted_at = remote.admitted_at;
      if (remote.pods_ready) copy.pods_ready_at = remote.running_since;
    } else if (remote.evicted || (remote.phase == WorkloadPhase::kPending && remote.rare->times_evicted > 0)) {
      // Evicted=True until it reserves quota again; read just now.
      copy.evicted = true;
      copy.evicted_at = std::max<SimTime>(0, engine_->now() - options_.status_sync_latency);
    }
    AddStatusSync(link);
    ScheduleReconcile(live.manager, engine_->now());
  }
  for (WorkloadId copy_id : gone) worker.live().erase(copy_id);
  for (WorkloadId copy_id : to_delete) IssueDelete(link, copy_id);
  if (orphans) ScheduleGarbageCollection();
  // Every workload is reconciled: nominations follow connectivity, the
  // worker's status is seen again.
  for (size_t id = 0; id < groups_.size(); ++id) {
    if (groups_[id].active) ScheduleReconcile(static_cast<WorkloadId>(id), engine_->now());
  }
}

void MultiKueueController::ScheduleGarbageCollection() {
  if (settings_.gc_interval <= 0 || gc_scheduled_) return;
  // The garbage collector runs every gcInterval over connected workers.
  const SimTime next = (engine_->now() / settings_.gc_interval + 1) * settings_.gc_interval;
  gc_scheduled_ = true;
  engine_->Schedule(next, this, kGarbageCollection);
}

// runGC: copies whose manager workload is gone are deleted; the others are
// the workload reconciler's.
void MultiKueueController::CollectGarbage() {
  gc_scheduled_ = false;
  for (size_t link = 0; link < links_.size(); ++link) {
    WorkerLink& worker = *links_[link];
    if (!worker.connected()) continue;  // its orphans wait for its reconnection
    std::vector<WorkloadId> gone;
    for (const auto& [copy_id, live] : worker.live()) {
      if (live.detached && !live.deleting && !ManagerAlive(live)) gone.push_back(copy_id);
    }
    for (WorkloadId copy_id : gone) IssueDelete(static_cast<int32_t>(link), copy_id);
  }
}

const MultiKueueReport& MultiKueueController::report() const {
  // Copies still running together at the end count up to now.
  const SimTime now = engine_->now();
  for (size_t r = 0; r < runs_.size(); ++r) {
    RunState& run = runs_[r];
    if (run.running > 1) report_.workloads[r].duplicate_run_time += static_cast<SimDuration>(run.running - 1) * (now - run.since);
    run.since = now;
  }
  return report_;
}

void MultiKueueController::HandleEvent(int32_t kind, int64_t a, int64_t b) {
  switch (kind) {
    case kReconcile: {
      const WorkloadId id = static_cast<WorkloadId>(a);
      Group& group = GroupOf(id);
      if (group.epoch != static_cast<uint32_t>(b)) return;
      if (group.scheduled_reconcile == engine_->now()) group.scheduled_reconcile = -1;
      Reconcile(id);
      break;
    }
    case kOperation:
      RunOperation(static_cast<int32_t>(a));
      break;
    case kConnectivity: {
      const model::Change& change = changes_[static_cast<size_t>(a)];
      for (size_t link = 0; link < links_.size(); ++link) {
        if (links_[link]->name() == change.target_name) {
          SetReachable(static_cast<int32_t>(link), change.connected.value_or(true));
        }
      }
      break;
    }
    case kConnectAttempt:
      OnConnectAttempt(static_cast<int32_t>(a));
      break;
    case kReconnected:
      OnReconnected(static_cast<int32_t>(a));
      break;
    case kGarbageCollection:
      CollectGarbage();
      break;
    default:
      KUEUESIM_CHECK_MSG(false, fmt::format("unknown MultiKueue event {}", kind));
  }
}

}  // namespace kueuesim::multikueue
