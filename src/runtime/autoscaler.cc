// The simulated cluster autoscaler answering ProvisioningRequests; see
// kueuesim/runtime/provisioning.h.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/model/selectors.h"
#include "kueuesim/runtime/provisioning.h"

namespace kueuesim::runtime {

namespace {

constexpr std::string_view kCheckCapacity = "check-capacity.autoscaling.x-k8s.io";
constexpr std::string_view kBestEffortAtomic = "best-effort-atomic-scale-up.autoscaling.x-k8s.io";
constexpr std::string_view kQueuedProvisioning = "queued-provisioning.gke.io";

uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

bool Tolerates(const std::vector<model::Toleration>& tolerations, const model::Taint& taint) {
  for (const auto& t : tolerations) {
    if (t.effect.has_value() && *t.effect != taint.effect) continue;
    if (t.op == model::TolerationOperator::kExists) {
      if (t.key.empty() || t.key == taint.key) return true;
      continue;
    }
    if (t.key == taint.key && t.value == taint.value) return true;
  }
  return false;
}

}  // namespace

double HashUnit(uint64_t seed, uint64_t key) {
  const uint64_t x = Mix(seed * 0x9e3779b97f4a7c15ULL ^ Mix(key + 0x632be59bd9b4e019ULL));
  return static_cast<double>(x >> 11) / static_cast<double>(1ULL << 53);
}

uint64_t HashString(std::string_view text) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : text) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ULL;
  return h;
}

SimDuration SampleDuration(const model::DurationDistribution& d, double unit, double unit2) {
  using Kind = model::DurationDistribution::Kind;
  double value = 0;
  switch (d.kind) {
    case Kind::kFixed:
      return d.a;
    case Kind::kUniform:
      value = static_cast<double>(d.a) + unit * static_cast<double>(d.b - d.a);
      break;
    case Kind::kExponential:
      value = -std::log1p(-unit) * static_cast<double>(d.a);
      break;
    case Kind::kNormal: {
      // Box-Muller.
      const double u1 = std::max(unit, 1e-12);
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * unit2);
      value = static_cast<double>(d.a) + z * static_cast<double>(d.b);
      break;
    }
  }
  if (!(value > 0)) return 0;
  if (value > 1e17) return static_cast<SimDuration>(1e17);
  // Whole milliseconds keep event times readable.
  return static_cast<SimDuration>(std::llround(value / static_cast<double>(kMillisecond))) * kMillisecond;
}

struct Autoscaler::Node {
  std::string name;
  int32_t pool = 0;
  SimTime ready_at = 0;
  bool ready = false;
  bool alive = true;
  int64_t holder = -1;  // the request that booked it
  bool in_use = false;  // the holder's workload consumed the booking
  uint32_t generation = 0;  // invalidates scale-down checks
  model::Node node;
};

struct Autoscaler::Pool {
  const model::AutoscalerPool* spec = nullptr;
  int32_t index = 0;
  int32_t alive = 0;
  int32_t ready_idle = 0;  // ready and not in use
  int32_t in_use = 0;
  int32_t capacity = 0;  // nodes the cloud can supply (pool size cap)
  int32_t stockouts = 0;  // open stockout windows (declared, or set by a Change)
  bool change_stockout = false;
  int64_t next_number = 0;
  SimTime last_update = 0;
  AutoscalerPoolReport* report = nullptr;
  // Labels, allocatable and taints shared by the pool's nodes (made on the
  // first node).
  std::shared_ptr<const model::NodeTemplate> node_template;
};

struct Autoscaler::Request {
  std::string name;
  std::string class_name;
  std::map<std::string, std::string> parameters;
  std::vector<ProvisioningRequestPodSet> pod_sets;
  Listener* listener = nullptr;
  SimTime created = 0;
  ProvisioningRequestConditions conditions;
  int32_t backoff_step = 0;  // CA retry backoff after Provisioned=False
  SimTime retry_after = 0;   // eligible when provisioned_time + this < now
  bool deleted = false;
  bool consumed = false;
  std::vector<int32_t> nodes;  // booked
  SimTime ready_at = 0;
  uint32_t lease_token = 0;
};

Autoscaler::Autoscaler(ClusterRuntime* runtime, const scenario::ClusterSpec& spec,
                       const scenario::SimulationSettings& settings)
    : runtime_(runtime), engine_(runtime->engine()), settings_(settings.autoscaler), seed_(settings.seed) {
  pool_specs_ = spec.autoscaler_pools;
  report_.pools.resize(pool_specs_.size());
  pools_.resize(pool_specs_.size());
  for (size_t i = 0; i < pool_specs_.size(); ++i) {
    Pool& pool = pools_[i];
    pool.spec = &pool_specs_[i];
    pool.index = static_cast<int32_t>(i);
    pool.capacity = pool.spec->max_nodes;
    pool.report = &report_.pools[i];
    pool.report->name = pool.spec->meta.name;
    pool.report->min_nodes = pool.spec->min_nodes;
    pool.report->max_nodes = pool.spec->max_nodes;
  }
  for (const auto& change : spec.changes) {
    if (change.target_kind == "AutoscalerPool") changes_.push_back(change);
  }
}

Autoscaler::~Autoscaler() = default;

void Autoscaler::Start() {
  for (Pool& pool : pools_) {
    const int32_t initial = pool.spec->initial_nodes.value_or(pool.spec->min_nodes);
    for (int32_t n = 0; n < initial; ++n) AddPoolNode(pool.index, 0);
    for (size_t k = 0; k < pool.spec->capacity.size(); ++k) {
      engine_->Schedule(pool.spec->capacity[k].first, this, kCapacity, pool.index,
                        static_cast<int64_t>(pool.spec->capacity[k].second));
    }
    for (const auto& [from, until] : pool.spec->stockouts) {
      engine_->Schedule(from, this, kStockout, pool.index, 1);
      engine_->Schedule(until, this, kStockout, pool.index, -1);
    }
  }
  for (const model::Change& change : changes_) {
    int32_t pool = -1;
    for (const Pool& p : pools_) {
      if (p.spec->meta.name == change.target_name) pool = p.index;
    }
    if (pool < 0) continue;
    if (change.pool_capacity.has_value()) engine_->Schedule(change.at, this, kCapacity, pool, *change.pool_capacity);
    if (change.pool_stockout.has_value()) {
      // A Change sets the stockout on or off (2 and -2 mark Change-driven
      // windows so that they do not cancel the declared ones).
      engine_->Schedule(change.at, this, kStockout, pool, *change.pool_stockout ? 2 : -2);
    }
  }
}

void Autoscaler::Advance(Pool& pool) const {
  const SimTime now = engine_->now();
  const SimDuration dt = now - pool.last_update;
  if (dt > 0) {
    const double seconds = static_cast<double>(dt) / static_cast<double>(kSecond);
    pool.report->node_seconds += pool.alive * seconds;
    pool.report->idle_node_seconds += pool.ready_idle * seconds;
    for (const auto& [resource, amount] : pool.spec->allocatable) {
      double unit = static_cast<double>(amount);
      if (IsMilliResource(resource)) unit /= 1000.0;
      if (pool.alive > 0) pool.report->provisioned_amount_seconds[resource] += unit * pool.alive * seconds;
      if (pool.ready_idle > 0) pool.report->idle_amount_seconds[resource] += unit * pool.ready_idle * seconds;
    }
    const bool blocked = pool.alive < pool.spec->max_nodes && (pool.stockouts > 0 || pool.alive >= pool.capacity);
    if (blocked) pool.report->stockout_time += dt;
  }
  pool.last_update = now;
}

void Autoscaler::RecordNodes(Pool& pool) {
  auto& series = pool.report->nodes_over_time;
  const SimTime now = engine_->now();
  if (!series.empty() && series.back().first == now) {
    series.back().second = pool.alive;
  } else if (series.empty() || series.back().second != pool.alive) {
    series.emplace_back(now, pool.alive);
  }
  pool.report->peak_nodes = std::max(pool.report->peak_nodes, pool.alive);
}

AutoscalerReport Autoscaler::ReportNow() const {
  // Advance copies of the pools against a copy of the report.
  AutoscalerReport out = report_;
  for (const Pool& pool : pools_) {
    Pool copy = pool;
    copy.report = &out.pools[static_cast<size_t>(pool.index)];
    Advance(copy);
  }
  return out;
}

void Autoscaler::AddPoolNode(int32_t pool_index, SimTime ready_at) {
  Pool& pool = pools_[static_cast<size_t>(pool_index)];
  Advance(pool);
  Node node;
  node.pool = pool_index;
  node.name = fmt::format("{}-{}", pool.spec->meta.name, pool.next_number++);
  node.ready_at = ready_at;
  if (pool.node_template == nullptr) {
    model::NodeTemplate shared;
    shared.labels = pool.spec->node_labels;
    shared.labels.erase("kubernetes.io/hostname");  // each node's own (hostname_label)
    shared.allocatable = pool.spec->allocatable;
    shared.taints = pool.spec->taints;
    shared.source = pool.spec->meta.source;
    shared.cluster = pool.spec->meta.cluster();
    pool.node_template = std::make_shared<const model::NodeTemplate>(std::move(shared));
  }
  node.node.name = node.name;
  node.node.shared = pool.node_template;
  node.node.hostname_label = true;
  const int32_t id = static_cast<int32_t>(nodes_.size());
  nodes_.push_back(std::move(node));
  ++pool.alive;
  RecordNodes(pool);
  if (ready_at <= engine_->now()) {
    HandleEvent(kNodeReady, id, 0);
  } else {
    engine_->Schedule(ready_at, this, kNodeReady, id);
  }
}

void Autoscaler::RemovePoolNode(int32_t id) {
  Node& node = nodes_[static_cast<size_t>(id)];
  if (!node.alive) return;
  Pool& pool = pools_[static_cast<size_t>(node.pool)];
  Advance(pool);
  node.alive = false;
  ++node.generation;
  --pool.alive;
  if (node.ready && !node.in_use) --pool.ready_idle;
  if (node.in_use) --pool.in_use;
  ++pool.report->nodes_removed;
  RecordNodes(pool);
  if (node.ready) runtime_->RemoveNode(node.name, "ScaleDown");
}

void Autoscaler::ScheduleScaleDown(int32_t id) {
  Node& node = nodes_[static_cast<size_t>(id)];
  ++node.generation;
  const Pool& pool = pools_[static_cast<size_t>(node.pool)];
  engine_->ScheduleAfter(pool.spec->scale_down_delay, this, kScaleDownCheck, id, node.generation);
}

void Autoscaler::ReleaseNodes(Request& r) {
  for (int32_t id : r.nodes) {
    Node& node = nodes_[static_cast<size_t>(id)];
    if (!node.alive || node.holder < 0) continue;
    Pool& pool = pools_[static_cast<size_t>(node.pool)];
    Advance(pool);
    if (node.in_use) {
      --pool.in_use;
      if (node.ready) ++pool.ready_idle;
    }
    node.holder = -1;
    node.in_use = false;
    if (node.ready) ScheduleScaleDown(id);  // unneeded from now
  }
  r.nodes.clear();
}

int32_t Autoscaler::PodsPerNode(const Pool& pool, const ProvisioningRequestPodSet& ps) const {
  int64_t fit = cluster::kDefaultNodePods;
  if (auto it = pool.spec->allocatable.find("pods"); it != pool.spec->allocatable.end()) fit = it->second;
  for (const auto& request : ps.requests) {
    if (request.amount <= 0 || request.name == "pods") continue;
    auto it = pool.spec->allocatable.find(request.name);
    if (it == pool.spec->allocatable.end()) return 0;
    fit = std::min<int64_t>(fit, it->second / request.amount);
  }
  return static_cast<int32_t>(std::min<int64_t>(fit, std::numeric_limits<int32_t>::max()));
}

int32_t Autoscaler::PoolFor(const ProvisioningRequestPodSet& ps, const std::string& class_name) const {
  for (const Pool& pool : pools_) {
    const auto& classes = pool.spec->provisioning_classes;
    if (!classes.empty() && std::find(classes.begin(), classes.end(), class_name) == classes.end()) continue;
    bool labels_match = true;
    for (const auto& [key, value] : ps.node_selector) {
      auto it = pool.spec->node_labels.find(key);
      labels_match = labels_match && it != pool.spec->node_labels.end() && it->second == value;
    }
    if (!labels_match) continue;
    bool tolerated = true;
    for (const auto& taint : pool.spec->taints) {
      if (taint.effect == model::TaintEffect::kPreferNoSchedule) continue;
      tolerated = tolerated && Tolerates(ps.tolerations, taint);
    }
    if (!tolerated) continue;
    if (PodsPerNode(pool, ps) < 1) continue;
    return pool.index;
  }
  return -1;
}

int32_t Autoscaler::Obtainable(const Pool& pool) const {
  if (pool.stockouts > 0) return 0;
  return std::max(0, std::min(pool.spec->max_nodes, pool.capacity) - pool.alive);
}

int64_t Autoscaler::Create(std::string name, std::string class_name, std::map<std::string, std::string> parameters,
                           std::vector<ProvisioningRequestPodSet> pod_sets, Listener* listener) {
  Request r;
  r.name = std::move(name);
  r.class_name = std::move(class_name);
  r.parameters = std::move(parameters);
  r.pod_sets = std::move(pod_sets);
  r.listener = listener;
  r.created = engine_->now();
  requests_.push_back(std::move(r));
  ++report_.requests;
  EnsureLoop();
  return static_cast<int64_t>(requests_.size() - 1);
}

void Autoscaler::Delete(int64_t id) {
  Request& r = requests_[static_cast<size_t>(id)];
  if (r.deleted) return;
  r.deleted = true;
  ++r.lease_token;
  if (r.conditions.provisioned.value_or(false) && !r.consumed && !r.conditions.booking_expired) {
    ++report_.deleted_unused;
  }
  ReleaseNodes(r);
}

void Autoscaler::Consume(int64_t id) {
  Request& r = requests_[static_cast<size_t>(id)];
  if (r.deleted || r.consumed) return;
  r.consumed = true;
  for (int32_t node_id : r.nodes) {
    Node& node = nodes_[static_cast<size_t>(node_id)];
    if (!node.alive || node.in_use) continue;
    Pool& pool = pools_[static_cast<size_t>(node.pool)];
    Advance(pool);
    node.in_use = true;
    ++node.generation;  // no scale-down while in use
    ++pool.in_use;
    if (node.ready) --pool.ready_idle;
  }
}

const ProvisioningRequestConditions& Autoscaler::conditions(int64_t id) const {
  return requests_[static_cast<size_t>(id)].conditions;
}

const std::string& Autoscaler::name(int64_t id) const { return requests_[static_cast<size_t>(id)].name; }

SimTime Autoscaler::NodesReadyAt(int64_t id) const { return requests_[static_cast<size_t>(id)].ready_at; }

void Autoscaler::EnsureLoop() {
  const SimTime now = engine_->now();
  const SimTime next = (now / settings_.scan_interval + 1) * settings_.scan_interval;
  if (loop_at_ >= 0 && loop_at_ <= next && loop_at_ > now) return;
  loop_at_ = next;
  engine_->Schedule(next, this, kLoop, next);
}

bool Autoscaler::Eligible(const Request& r) const {
  const SimTime now = engine_->now();
  if (r.deleted || r.conditions.failed || r.conditions.provisioned.value_or(false) || r.created >= now) return false;
  if (!r.nodes.empty()) return false;  // queued-provisioning: nodes booting for it
  if (!r.conditions.provisioned.has_value() || r.class_name == kQueuedProvisioning) return true;
  // Provisioned=False: the CA retries once its backoff has passed
  // (injector.IsAvailableForProvisioning: lastTransitionTime + backoff < now).
  return r.conditions.provisioned_time + r.retry_after < now;
}

void Autoscaler::RunLoop() {
  const SimTime now = engine_->now();
  loop_at_ = -1;
  bool work_left = false;
  // Refresh (processors/provreq/processor.go): bookings expire after
  // bookingTime unless consumed; requests never provisioned expire.
  for (size_t i = 0; i < requests_.size(); ++i) {
    Request& r = requests_[i];
    if (r.deleted || r.conditions.failed) continue;
    if (r.conditions.provisioned.value_or(false)) {
      if (r.consumed || r.conditions.booking_expired || r.conditions.capacity_revoked) continue;
      if (r.conditions.provisioned_time + settings_.booking_time < now) {
        r.conditions.booking_expired = true;
        r.conditions.booking_expired_message = "Capacity reservation time expired";
        ++report_.booking_expired;
        ReleaseNodes(r);
        Notify(static_cast<int64_t>(i));
      } else {
        work_left = true;
      }
      continue;
    }
    if (r.created + settings_.request_expiry < now) {
      r.conditions.failed = true;
      r.conditions.failed_message = "Provisioning Request wasn't provisioned. ExpiredProvisioningRequest";
      ++report_.failed;
      ReleaseNodes(r);
      Notify(static_cast<int64_t>(i));
    }
  }
  // The oldest eligible requests, requests_per_loop of them.
  int32_t handled = 0;
  for (size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i].deleted || requests_[i].conditions.failed || requests_[i].conditions.provisioned.value_or(false)) {
      continue;
    }
    work_left = true;
    if (handled >= settings_.requests_per_loop || !Eligible(requests_[i])) continue;
    ++handled;
    Process(static_cast<int64_t>(i));
  }
  if (handled > 0) ++report_.loops;
  // Requests still waiting or booked keep the loop running.
  for (const Request& r : requests_) {
    if (r.deleted || r.conditions.failed) continue;
    if (!r.conditions.provisioned.value_or(false)) work_left = true;
    if (r.conditions.provisioned.value_or(false) && !r.consumed && !r.conditions.booking_expired) work_left = true;
  }
  if (work_left) EnsureLoop();
}

void Autoscaler::SetProvisionedFalse(Request& r, const std::string& message, bool backoff) {
  const bool changed = r.conditions.provisioned != std::optional<bool>(false) || r.conditions.provisioned_message != message;
  r.conditions.provisioned = false;
  r.conditions.provisioned_time = engine_->now();
  r.conditions.provisioned_message = message;
  if (backoff) {
    SimDuration d = settings_.initial_backoff;
    for (int32_t k = 0; k < r.backoff_step && d < settings_.max_backoff; ++k) d = std::min(d * 2, settings_.max_backoff);
    r.retry_after = std::min(d, settings_.max_backoff);
    ++r.backoff_step;
  }
  if (changed) Notify(static_cast<int64_t>(&r - requests_.data()));
}

void Autoscaler::Process(int64_t id) {
  Request& r = requests_[static_cast<size_t>(id)];
  r.conditions.accepted = true;
  const bool check_capacity = r.class_name == kCheckCapacity;
  const bool queued = r.class_name == kQueuedProvisioning;
  const bool atomic = r.class_name == kBestEffortAtomic;
  if (!check_capacity && !queued && !atomic) {
    r.conditions.failed = true;
    r.conditions.failed_message = fmt::format("Provisioning Request's class \"{}\" is not supported", r.class_name);
    ++report_.failed;
    Notify(id);
    return;
  }
  auto no_retry = r.parameters.find("noRetry");
  const bool fail_fast = check_capacity && no_retry != r.parameters.end() && no_retry->second == "true";
  // Nodes needed per pool (each pod set on the first pool that fits it; a
  // node runs pods of one pod set).
  std::map<int32_t, int32_t> needed;
  for (const auto& ps : r.pod_sets) {
    const int32_t pool = PoolFor(ps, r.class_name);
    if (pool < 0) {
      const std::string message =
          fmt::format("no node group can fit the pods of pod template {}", ps.template_name);
      if (fail_fast) {
        r.conditions.failed = true;
        r.conditions.failed_message = "CapacityIsNotFound: " + message;
        ++report_.failed;
        Notify(id);
      } else {
        SetProvisionedFalse(r, message, !queued);
      }
      return;
    }
    const int32_t per_node = PodsPerNode(pools_[static_cast<size_t>(pool)], ps);
    needed[pool] += (ps.count + per_node - 1) / per_node;
  }
  // Free nodes per pool: not booked; check-capacity counts only ready ones.
  std::map<int32_t, std::vector<int32_t>> free;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    const Node& node = nodes_[n];
    if (!node.alive || node.holder >= 0 || !needed.count(node.pool)) continue;
    if (check_capacity && !node.ready) continue;
    free[node.pool].push_back(static_cast<int32_t>(n));
  }
  bool fits = true;
  bool pool_blocked = false;
  std::string why;
  for (const auto& [pool_index, count] : needed) {
    const Pool& pool = pools_[static_cast<size_t>(pool_index)];
    const int32_t have = static_cast<int32_t>(free[pool_index].size());
    if (have >= count) continue;
    fits = false;
    if (check_capacity) {
      why = fmt::format("{} of {} nodes free in {}", have, count, pool.spec->meta.name);
      continue;
    }
    const int32_t missing = count - have;
    if (missing > Obtainable(pool)) {
      pool_blocked = true;
      why = pool.stockouts > 0 ? fmt::format("{}: stockout, no node can be obtained", pool.spec->meta.name)
            : pool.alive + missing > pool.spec->max_nodes
                ? fmt::format("{}: max node group size reached ({})", pool.spec->meta.name, pool.spec->max_nodes)
                : fmt::format("{}: only {} more nodes available", pool.spec->meta.name, Obtainable(pool));
    }
  }
  if (check_capacity && !fits) {
    if (fail_fast) {
      r.conditions.failed = true;
      r.conditions.failed_message = "CapacityIsNotFound: Provisioning Request wasn't provisioned. " + why;
      ++report_.failed;
      Notify(id);
    } else {
      SetProvisionedFalse(r, "Capacity is not found, CA will try to find it later. " + why, true);
    }
    return;
  }
  if (pool_blocked) {
    for (const auto& [pool_index, count] : needed) ++pools_[static_cast<size_t>(pool_index)].report->refused_scale_ups;
    if (queued) {
      SetProvisionedFalse(r, "Waiting for resources. " + why, false);
    } else {
      SetProvisionedFalse(r, "Capacity is not found, CA will try to find it later. " + why, true);
    }
    return;
  }
  // Book the free nodes, scale up for the rest.
  const SimTime now = engine_->now();
  SimTime ready_at = now;
  bool scaled = false;
  for (const auto& [pool_index, count] : needed) {
    Pool& pool = pools_[static_cast<size_t>(pool_index)];
    std::vector<int32_t>& candidates = free[pool_index];
    const int32_t take = std::min<int32_t>(count, static_cast<int32_t>(candidates.size()));
    for (int32_t k = 0; k < take; ++k) r.nodes.push_back(candidates[static_cast<size_t>(k)]);
    const int32_t missing = count - take;
    if (missing > 0) {
      ++pool.report->scale_ups;
      scaled = true;
    }
    for (int32_t k = 0; k < missing; ++k) {
      const uint64_t key = HashString(pool.spec->meta.name) ^ (static_cast<uint64_t>(pool.next_number) << 20);
      const SimDuration boot =
          SampleDuration(pool.spec->provisioning_time, HashUnit(seed_, key), HashUnit(seed_ + 1, key));
      ++pool.report->nodes_added;
      r.nodes.push_back(static_cast<int32_t>(nodes_.size()));
      AddPoolNode(pool_index, now + boot);
    }
  }
  for (int32_t node_id : r.nodes) {
    Node& node = nodes_[static_cast<size_t>(node_id)];
    Pool& pool = pools_[static_cast<size_t>(node.pool)];
    Advance(pool);
    node.holder = id;
    ++node.generation;  // booked: no scale-down
    ready_at = std::max(ready_at, node.ready_at);
  }
  r.ready_at = ready_at;
  if (queued && ready_at > now) {
    // GKE reports Provisioned once the VMs are up (CheckQueuedReady).
    SetProvisionedFalse(r, "Provisioning: nodes are being created", false);
    return;
  }
  r.conditions.provisioned = true;
  r.conditions.provisioned_time = now;
  r.conditions.provisioned_message = scaled ? "Provisioning Request was successfully provisioned. CapacityIsProvisioned"
                                            : "Provisioning Request was successfully provisioned. CapacityIsFound";
  ++report_.provisioned;
  if (queued) {
    auto lease = settings_.queued_lease;
    if (auto it = r.parameters.find("maxRunDurationSeconds"); it != r.parameters.end()) {
      char* end = nullptr;
      const long long seconds = std::strtoll(it->second.c_str(), &end, 10);
      if (end != it->second.c_str() && *end == '\0' && seconds > 0) lease = std::min<SimDuration>(lease, static_cast<SimDuration>(seconds) * kSecond);
    }
    engine_->ScheduleAfter(lease, this, kLease, id, r.lease_token);
  }
  Notify(id);
}

void Autoscaler::CheckQueuedReady(int64_t id) {
  Request& r = requests_[static_cast<size_t>(id)];
  if (r.deleted || r.conditions.provisioned.value_or(false) || r.nodes.empty()) return;
  for (int32_t node_id : r.nodes) {
    if (!nodes_[static_cast<size_t>(node_id)].ready) return;
  }
  r.conditions.provisioned = true;
  r.conditions.provisioned_time = engine_->now();
  r.conditions.provisioned_message = "Provisioning Request was successfully provisioned. CapacityIsProvisioned";
  ++report_.provisioned;
  auto lease = settings_.queued_lease;
  if (auto it = r.parameters.find("maxRunDurationSeconds"); it != r.parameters.end()) {
    char* end = nullptr;
    const long long seconds = std::strtoll(it->second.c_str(), &end, 10);
    if (end != it->second.c_str() && *end == '\0' && seconds > 0) lease = std::min<SimDuration>(lease, static_cast<SimDuration>(seconds) * kSecond);
  }
  engine_->ScheduleAfter(lease, this, kLease, id, r.lease_token);
  EnsureLoop();  // the booking is watched by the loop
  Notify(id);
}

void Autoscaler::Notify(int64_t id) {
  Request& r = requests_[static_cast<size_t>(id)];
  if (r.listener != nullptr && !r.deleted) r.listener->OnRequestChanged(id);
}

void Autoscaler::HandleEvent(int32_t kind, int64_t a, int64_t b) {
  switch (kind) {
    case kLoop:
      if (a == loop_at_) RunLoop();
      break;
    case kNodeReady: {
      Node& node = nodes_[static_cast<size_t>(a)];
      if (!node.alive || node.ready) break;
      Pool& pool = pools_[static_cast<size_t>(node.pool)];
      Advance(pool);
      node.ready = true;
      if (!node.in_use) ++pool.ready_idle;
      runtime_->AddNode(node.node, "ScaleUp");
      if (node.holder < 0) {
        ScheduleScaleDown(static_cast<int32_t>(a));
      } else if (requests_[static_cast<size_t>(node.holder)].class_name == kQueuedProvisioning) {
        CheckQueuedReady(node.holder);
      }
      break;
    }
    case kScaleDownCheck: {
      Node& node = nodes_[static_cast<size_t>(a)];
      if (!node.alive || node.holder >= 0 || node.generation != static_cast<uint32_t>(b)) break;
      const Pool& pool = pools_[static_cast<size_t>(node.pool)];
      if (pool.alive <= pool.spec->min_nodes) break;
      RemovePoolNode(static_cast<int32_t>(a));
      break;
    }
    case kCapacity: {
      Pool& pool = pools_[static_cast<size_t>(a)];
      Advance(pool);
      pool.capacity = static_cast<int32_t>(b);
      EnsureLoop();
      break;
    }
    case kStockout: {
      Pool& pool = pools_[static_cast<size_t>(a)];
      Advance(pool);
      if (b == 2 || b == -2) {
        // A Change turns its own stockout on or off.
        if ((b > 0) != pool.change_stockout) pool.stockouts += b > 0 ? 1 : -1;
        pool.change_stockout = b > 0;
      } else {
        pool.stockouts += static_cast<int32_t>(b);
      }
      if (pool.stockouts == 0) EnsureLoop();
      break;
    }
    case kLease: {
      Request& r = requests_[static_cast<size_t>(a)];
      if (r.deleted || r.lease_token != static_cast<uint32_t>(b)) break;
      // The VMs reach the end of their lease and are deleted
      // (CapacityRevoked; see ../shared/design/provisioning.md §6).
      r.conditions.capacity_revoked = true;
      r.conditions.capacity_revoked_message = "The nodes reached the end of their run duration and were deleted";
      ++report_.capacity_revoked;
      std::vector<int32_t> nodes = r.nodes;
      ReleaseNodes(r);
      for (int32_t node_id : nodes) RemovePoolNode(node_id);
      Notify(a);
      break;
    }
    default:
      KUEUESIM_CHECK_MSG(false, fmt::format("unknown autoscaler event {}", kind));
  }
}

}  // namespace kueuesim::runtime
