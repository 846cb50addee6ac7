// The MultiKueue controller; see multikueue_controller.h.
#include "kueuesim/multikueue/multikueue_controller.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "kueuesim/base/status.h"

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
}  // namespace

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
  int32_t owner_id() const { return owner_id_; }
  bool connected() const { return connected_; }
  SimTime lost_since() const { return lost_since_; }
  void SetConnected(bool connected, SimTime now) {
    connected_ = connected;
    if (!connected && lost_since_ < 0) lost_since_ = now;
    if (connected) lost_since_ = -1;
  }
  // Copies left behind while the worker was unreachable.
  std::vector<std::pair<WorkloadId, std::string>>& orphans() { return orphans_; }

  // Whether `copy` in the worker is still the copy of manager workload
  // `manager_id` named `key`.
  bool IsCopy(WorkloadId copy, WorkloadId manager_id, const std::string& key) const {
    if (copy == kNone || copy >= worker_->state().num_workloads()) return false;
    const WorkloadRecord& wl = worker_->state().workload(copy);
    return wl.owner == owner_id_ && wl.owner_index == manager_id && wl.key == key;
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

 private:
  MultiKueueController* controller_;
  int32_t index_;
  std::string name_;
  ClusterRuntime* worker_;
  int32_t owner_id_ = kNone;
  bool connected_ = true;
  SimTime lost_since_ = -1;
  std::vector<std::pair<WorkloadId, std::string>> orphans_;
};

struct MultiKueueController::Config {
  std::string name;
  std::vector<int32_t> links;  // in spec.clusters order
};

struct MultiKueueController::Copy {
  WorkloadId id = kNone;  // in the worker
  bool creating = false;  // a create is on its way
  uint32_t token = 0;     // bumped on deletion: cancels operations in flight
  bool admitted = false;
  SimTime admitted_at = -1;
  bool evicted = false;
  SimTime evicted_at = -1;
  bool job_started = false;
  SimTime pods_ready_at = -1;
  SimTime finished_at = -1;
  SimTime gate_signal = -1;     // BlockedOnPreemptionGates since
  SimTime gate_opened_at = -1;  // -1: closed
  bool reserved_counted = false;
  int32_t undecided_preemptions = 0;  // issued before a winner was chosen
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
    if (!mkc.active) controller->links_.back()->SetConnected(false, 0);
  }
  std::map<std::string, int32_t> config_index;
  for (const auto& mk_config : spec.multikueue_configs) {
    Config config;
    config.name = mk_config.meta.name;
    for (const auto& name : mk_config.clusters) config.links.push_back(link_index.at(name));
    config_index[config.name] = static_cast<int32_t>(controller->configs_.size());
    controller->configs_.push_back(std::move(config));
  }
  controller->config_of_check_.assign(spec.admission_checks.size(), kNone);
  for (size_t i = 0; i < spec.admission_checks.size(); ++i) {
    const model::AdmissionCheck& check = spec.admission_checks[i];
    if (check.controller_name != model::kMultiKueueControllerName) continue;
    auto it = config_index.find(check.parameters_name);
    if (it != config_index.end()) controller->config_of_check_[i] = it->second;
  }
  // A ClusterQueue may use one MultiKueue check, for every flavor; else
  // Kueue keeps it inactive.
  cluster::ClusterState& state = manager->mutable_state();
  for (cluster::CqId cq = 0; cq < state.num_cluster_queues(); ++cq) {
    cluster::ClusterQueueInfo& info = state.cq(cq);
    int multikueue_checks = 0;
    bool per_flavor = false;
    for (const auto& ref : info.spec->admission_checks) {
      const int32_t check = manager->FindAdmissionCheck(ref.name);
      if (check == kNone || manager->admission_check(check).controller_name != model::kMultiKueueControllerName) {
        continue;
      }
      ++multikueue_checks;
      per_flavor = per_flavor || !ref.on_flavors.empty();
    }
    if (multikueue_checks > 1) {
      info.active = false;
      info.inactive_reason = "MultipleMultiKueueAdmissionChecks";
    } else if (per_flavor) {
      info.active = false;
      info.inactive_reason = "MultiKueueAdmissionCheckAppliedPerFlavor";
    }
  }
  for (const auto& change : spec.changes) {
    if (change.target_kind == "MultiKueueCluster") controller->changes_.push_back(change);
  }
  manager->RegisterAdmissionCheckController(model::kMultiKueueControllerName, controller.get());
  return controller;
}

MultiKueueController::~MultiKueueController() = default;

void MultiKueueController::Start() {
  for (size_t i = 0; i < changes_.size(); ++i) {
    engine_->Schedule(changes_[i].at, this, kConnectivity, static_cast<int64_t>(i));
  }
}

MultiKueueController::Group& MultiKueueController::GroupOf(WorkloadId id) {
  if (static_cast<size_t>(id) >= groups_.size()) groups_.resize(static_cast<size_t>(id) + 1);
  return groups_[static_cast<size_t>(id)];
}

bool MultiKueueController::Visible(SimTime event_time) const {
  return event_time >= 0 && event_time + options_.status_sync_latency <= engine_->now();
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
  for (size_t pos = 0; pos < group.copies.size(); ++pos) {
    Copy& copy = group.copies[pos];
    if (copy.undecided_preemptions > 0) {
      ReportOf(group).losing_preemptions += copy.undecided_preemptions;
      copy.undecided_preemptions = 0;
    }
    DeleteCopy(id, group, static_cast<int32_t>(pos));
  }
  group.active = false;
  ++group.epoch;
  group.nominated.clear();
  group.winner = kNone;
  group.ready = false;
}

void MultiKueueController::DeleteCopy(WorkloadId id, Group& group, int32_t position) {
  Copy& copy = group.copies[static_cast<size_t>(position)];
  const int32_t link = configs_[static_cast<size_t>(group.config)].links[static_cast<size_t>(position)];
  WorkerLink& worker = *links_[static_cast<size_t>(link)];
  const WorkloadRecord& wl = manager_->state().workload(id);
  ++copy.token;
  copy.creating = false;
  if (copy.id != kNone) {
    if (worker.connected()) {
      Operation op;
      op.kind = Operation::kDelete;
      op.manager = id;
      op.link = link;
      op.copy = copy.id;
      op.key = wl.key;
      engine_->ScheduleAfter(options_.dispatch_latency, this, kOperation, AddOperation(std::move(op)));
      Emit(EventType::kCopyDeleted, id, link);
      ++report_.workers[static_cast<size_t>(link)].deleted;
    } else {
      worker.orphans().emplace_back(copy.id, wl.key);
    }
  }
  copy = Copy{.token = copy.token};
}

void MultiKueueController::Reconcile(WorkloadId id) {
  Group& group = GroupOf(id);
  if (!group.active) return;
  const Config& config = configs_[static_cast<size_t>(group.config)];
  const WorkloadRecord& wl = manager_->state().workload(id);
  const SimTime now = engine_->now();

  if (group.winner != kNone) {
    Copy& copy = group.copies[static_cast<size_t>(group.winner)];
    const int32_t link = config.links[static_cast<size_t>(group.winner)];
    const WorkerLink& worker = *links_[static_cast<size_t>(link)];
    if (!worker.connected()) {
      // The admitting worker is unreachable: give it workerLostTimeout from
      // the loss, then Retry.
      const SimTime deadline = worker.lost_since() + settings_.worker_lost_timeout;
      if (now < deadline) {
        ScheduleReconcile(id, deadline);
        return;
      }
      manager_->SetAdmissionCheckState(id, group.check, CheckState::kRetry);
      return;
    }
    if (copy.finished_at >= 0) {
      if (!Visible(copy.finished_at)) {
        ScheduleReconcile(id, copy.finished_at + options_.status_sync_latency);
        return;
      }
      ReportOf(group).finished_at = now;
      manager_->FinishWorkload(id);  // releases quota: the copies are deleted
      return;
    }
    if (copy.evicted) {
      if (!Visible(copy.evicted_at)) {
        ScheduleReconcile(id, copy.evicted_at + options_.status_sync_latency);
        return;
      }
      manager_->SetAdmissionCheckState(id, group.check, CheckState::kRetry);
      return;
    }
    if (copy.id == kNone) {
      manager_->SetAdmissionCheckState(id, group.check, CheckState::kRetry);  // "no longer exists"
      return;
    }
    if (copy.pods_ready_at >= 0 && wl.owner == kNone && !wl.pods_ready) {
      if (Visible(copy.pods_ready_at)) {
        manager_->SetPodsReady(id, true);
      } else {
        ScheduleReconcile(id, copy.pods_ready_at + options_.status_sync_latency);
      }
    }
    return;
  }

  // The copy admitted first (as the manager sees it) wins; ties go to the
  // earlier cluster of the MultiKueueConfig.
  int32_t best = kNone;
  for (size_t pos = 0; pos < group.copies.size(); ++pos) {
    const Copy& copy = group.copies[pos];
    if (!copy.admitted || !links_[static_cast<size_t>(config.links[pos])]->connected()) continue;
    if (!Visible(copy.admitted_at)) {
      ScheduleReconcile(id, copy.admitted_at + options_.status_sync_latency);
      continue;
    }
    if (best == kNone || copy.admitted_at < group.copies[static_cast<size_t>(best)].admitted_at) {
      best = static_cast<int32_t>(pos);
    }
  }
  if (best != kNone) {
    group.winner = best;
    group.ready = true;
    group.nominated.clear();
    Copy& winner = group.copies[static_cast<size_t>(best)];
    const int32_t link = config.links[static_cast<size_t>(best)];
    WorkloadDispatchReport& report = ReportOf(group);
    report.worker = links_[static_cast<size_t>(link)]->name();
    report.admitted_at = winner.admitted_at;
    report.time_to_admission.push_back(winner.admitted_at - group.reserved_at);
    report.winning_preemptions += winner.undecided_preemptions;
    winner.undecided_preemptions = 0;
    ++report_.workers[static_cast<size_t>(link)].won;
    for (size_t pos = 0; pos < group.copies.size(); ++pos) {
      if (static_cast<int32_t>(pos) == best) continue;
      Copy& loser = group.copies[pos];
      if (loser.reserved_counted) ++report.losing_reservations;
      report.losing_preemptions += loser.undecided_preemptions;
      report_.workers[static_cast<size_t>(config.links[pos])].losing_preemptions += loser.undecided_preemptions;
      loser.undecided_preemptions = 0;
      if (!links_[static_cast<size_t>(config.links[pos])]->connected()) continue;
      DeleteCopy(id, group, static_cast<int32_t>(pos));
    }
    Emit(EventType::kWorkerSelected, id, link);
    // The job object is created on the winner; its pods start there.
    Operation op;
    op.kind = Operation::kStartJob;
    op.manager = id;
    op.epoch = group.epoch;
    op.position = best;
    op.link = link;
    op.copy = winner.id;
    op.token = winner.token;
    op.key = wl.key;
    engine_->ScheduleAfter(options_.dispatch_latency, this, kOperation, AddOperation(std::move(op)));
    const uint32_t epoch = group.epoch;
    manager_->SetAdmissionCheckState(id, group.check, CheckState::kReady);
    if (GroupOf(id).epoch == epoch && wl.owner != kNone) ReconcileComponents(id);
    return;
  }

  if (orchestrated_preemption_) OpenPreemptionGateIfDue(id, group);
  Nominate(id, group);
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
    if (nominated && copy.id == kNone && !copy.creating) {
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
    if (copy.id == kNone || !links_[static_cast<size_t>(config.links[pos])]->connected()) continue;
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
    return;
  }
  Group& group = GroupOf(op.manager);
  const bool current = group.active && group.epoch == op.epoch &&
                       group.copies[static_cast<size_t>(op.position)].token == op.token;
  if (op.kind == Operation::kPodsReady || op.kind == Operation::kFinishCopy) {
    // A job that runs on a worker carries on whatever the manager does
    // meanwhile (a lost worker keeps running it).
    if (!worker.IsCopy(op.copy, op.manager, op.key)) return;
    const WorkloadRecord& remote = worker.worker()->state().workload(op.copy);
    if (remote.phase != WorkloadPhase::kAdmitted || remote.evicted) return;
    if (op.kind == Operation::kPodsReady) {
      worker.worker()->SetPodsReady(op.copy, true);
      if (remote.duration.has_value()) {
        Operation finish = op;
        finish.kind = Operation::kFinishCopy;
        engine_->ScheduleAfter(*remote.duration, this, kOperation, AddOperation(std::move(finish)));
      }
      if (current) {
        group.copies[static_cast<size_t>(op.position)].pods_ready_at = engine_->now();
        ScheduleReconcile(op.manager, engine_->now() + options_.status_sync_latency);
      }
      return;
    }
    if (!remote.pods_ready) return;
    worker.worker()->FinishWorkload(op.copy);
    if (current) {
      Copy& copy = group.copies[static_cast<size_t>(op.position)];
      copy.finished_at = engine_->now();
      copy.admitted = false;
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
      clone.preemption_gates.clear();
      if (orchestrated_preemption_) clone.preemption_gates.push_back(kMultiKueuePreemptionGate);
      auto created = worker.worker()->AddOwnedWorkload(std::move(clone), worker.owner_id(), op.manager);
      if (!created.ok()) {
        KUEUESIM_CHECK_MSG(false, fmt::format("MultiKueue copy of {} on {}: {}", wl.key, worker.name(),
                                              StatusMessage(created.status())));
      }
      // The worker may have admitted it already (copy events): keep them.
      copy.id = *created;
      ++ReportOf(group).copies;
      ++report_.workers[static_cast<size_t>(op.link)].copies;
      Emit(EventType::kDispatched, op.manager, op.link);
      return;
    }
    case Operation::kStartJob: {
      if (!worker.connected() || !worker.IsCopy(op.copy, op.manager, op.key)) return;
      const WorkloadRecord& remote = worker.worker()->state().workload(op.copy);
      if (remote.phase != WorkloadPhase::kAdmitted || remote.evicted) return;
      copy.job_started = true;
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

void MultiKueueController::OnCopyReserved(int32_t link, WorkloadId manager_id, WorkloadId copy_id) {
  Group& group = GroupOf(manager_id);
  if (!group.active) return;
  const Config& config = configs_[static_cast<size_t>(group.config)];
  for (size_t pos = 0; pos < config.links.size(); ++pos) {
    if (config.links[pos] != link) continue;
    Copy& copy = group.copies[pos];
    if (copy.id != copy_id) continue;
    if (!copy.reserved_counted) {
      copy.reserved_counted = true;
      ++ReportOf(group).reserving_workers;
      ++report_.workers[static_cast<size_t>(link)].reservations;
    }
  }
}

void MultiKueueController::OnCopyAdmitted(int32_t link, WorkloadId manager_id, WorkloadId copy_id) {
  Group& group = GroupOf(manager_id);
  if (!group.active) return;
  const Config& config = configs_[static_cast<size_t>(group.config)];
  for (size_t pos = 0; pos < config.links.size(); ++pos) {
    if (config.links[pos] != link) continue;
    Copy& copy = group.copies[pos];
    if (copy.id != copy_id) continue;
    copy.admitted = true;
    copy.admitted_at = engine_->now();
    copy.evicted = false;
    copy.gate_signal = -1;
    if (group.winner == static_cast<int32_t>(pos)) {
      // Re-admitted where its job already exists: the pods start again.
      Operation op;
      op.kind = Operation::kStartJob;
      op.manager = manager_id;
      op.epoch = group.epoch;
      op.position = static_cast<int32_t>(pos);
      op.link = link;
      op.copy = copy_id;
      op.token = copy.token;
      op.key = manager_->state().workload(manager_id).key;
      engine_->Schedule(engine_->now(), this, kOperation, AddOperation(std::move(op)));
    }
    ScheduleReconcile(manager_id, engine_->now() + options_.status_sync_latency);
  }
}

void MultiKueueController::OnCopyEvicted(int32_t link, WorkloadId manager_id, WorkloadId copy_id) {
  Group& group = GroupOf(manager_id);
  if (!group.active) return;
  const Config& config = configs_[static_cast<size_t>(group.config)];
  for (size_t pos = 0; pos < config.links.size(); ++pos) {
    if (config.links[pos] != link || group.copies[pos].id != copy_id) continue;
    Copy& copy = group.copies[pos];
    copy.admitted = false;
    copy.evicted = true;
    copy.evicted_at = engine_->now();
    copy.job_started = false;
    copy.pods_ready_at = -1;
    copy.gate_signal = -1;
    ScheduleReconcile(manager_id, engine_->now() + options_.status_sync_latency);
  }
}

void MultiKueueController::OnCopyPreempting(int32_t link, WorkloadId manager_id, WorkloadId copy_id,
                                            int32_t victims) {
  Group& group = GroupOf(manager_id);
  if (!group.active) return;
  const Config& config = configs_[static_cast<size_t>(group.config)];
  for (size_t pos = 0; pos < config.links.size(); ++pos) {
    if (config.links[pos] != link || group.copies[pos].id != copy_id) continue;
    if (group.winner == static_cast<int32_t>(pos)) {
      ReportOf(group).winning_preemptions += victims;
    } else {
      group.copies[pos].undecided_preemptions += victims;
    }
  }
}

void MultiKueueController::OnCopyGated(int32_t link, WorkloadId manager_id, WorkloadId copy_id) {
  Group& group = GroupOf(manager_id);
  if (!group.active) return;
  const Config& config = configs_[static_cast<size_t>(group.config)];
  for (size_t pos = 0; pos < config.links.size(); ++pos) {
    if (config.links[pos] != link || group.copies[pos].id != copy_id) continue;
    Copy& copy = group.copies[pos];
    if (copy.gate_signal >= 0) continue;
    copy.gate_signal = engine_->now();
    ScheduleReconcile(manager_id, engine_->now() + options_.status_sync_latency);
  }
}

// --- Connectivity and garbage collection ---

void MultiKueueController::OnConnectivity(int32_t link, bool connected) {
  WorkerLink& worker = *links_[static_cast<size_t>(link)];
  if (worker.connected() == connected) return;
  worker.SetConnected(connected, engine_->now());
  report_.workers[static_cast<size_t>(link)].connectivity.emplace_back(engine_->now(), connected);
  Emit(connected ? EventType::kWorkerConnected : EventType::kWorkerDisconnected, kNone, link);
  if (connected && !worker.orphans().empty() && settings_.gc_interval > 0 && !gc_scheduled_) {
    // The garbage collector runs every gcInterval over connected workers.
    const SimTime next =
        (engine_->now() / settings_.gc_interval + 1) * settings_.gc_interval;
    gc_scheduled_ = true;
    engine_->Schedule(next, this, kGarbageCollection);
  }
  // Every workload is reconciled: nominations follow connectivity, a lost
  // winner starts its timeout, a reconnected worker's status is seen again.
  const SimTime at = engine_->now() + (connected ? options_.status_sync_latency : 0);
  for (size_t id = 0; id < groups_.size(); ++id) {
    if (groups_[id].active) ScheduleReconcile(static_cast<WorkloadId>(id), at);
  }
}

void MultiKueueController::CollectGarbage() {
  gc_scheduled_ = false;
  bool remaining = false;
  for (auto& link : links_) {
    if (!link->connected()) {
      remaining = remaining || !link->orphans().empty();
      continue;
    }
    for (const auto& [copy, key] : link->orphans()) {
      const cluster::ClusterState& ws = link->worker()->state();
      if (copy < ws.num_workloads() && ws.workload(copy).owner == link->owner_id() && ws.workload(copy).key == key) {
        link->worker()->DeleteWorkload(copy, /*release_record=*/true);
      }
    }
    link->orphans().clear();
  }
  (void)remaining;  // orphans on unreachable workers wait for their reconnection
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
          OnConnectivity(static_cast<int32_t>(link), change.connected.value_or(true));
        }
      }
      break;
    }
    case kGarbageCollection:
      CollectGarbage();
      break;
    default:
      KUEUESIM_CHECK_MSG(false, fmt::format("unknown MultiKueue event {}", kind));
  }
}

}  // namespace kueuesim::multikueue
