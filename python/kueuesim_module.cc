// The `kueuesim` Python module: load a scenario, change quotas, weights and
// policies between runs, run it (all at once or step by step), read the
// event log and the summary as plain Python lists and dicts, and write
// policies in Python: queue ordering, preemption and MultiKueue dispatch.
// See docs/python.md.
//
// Errors: a library absl::Status becomes kueuesim.InputError (a subclass of
// kueuesim.Error and ValueError) for bad input, kueuesim.Error otherwise,
// with the library's message. The GIL is released while a simulation runs,
// so that Python threads can run several simulations at once; a Python
// policy takes it back for each call from the scheduler.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "kueuesim/base/quantity.h"
#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "kueuesim/cluster/cluster_state.h"
#include "kueuesim/cluster/snapshot.h"
#include "kueuesim/metrics/event_log.h"
#include "kueuesim/metrics/summary.h"
#include "kueuesim/metrics/timeseries.h"
#include "kueuesim/metrics/workload_table.h"
#include "kueuesim/policy/dispatch.h"
#include "kueuesim/policy/preemption.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/sim/simulation.h"
#include "tables.h"

namespace py = pybind11;

// Labels and annotations (model::Labels, an absl::btree_map) convert to and
// from dicts as std::map does.
namespace pybind11::detail {
template <typename Key, typename Value, typename Compare, typename Alloc>
struct type_caster<absl::btree_map<Key, Value, Compare, Alloc>>
    : map_caster<absl::btree_map<Key, Value, Compare, Alloc>, Key, Value> {};
}  // namespace pybind11::detail

namespace kueuesim::python {
namespace {

PyObject* g_error = nullptr;        // kueuesim.Error
PyObject* g_input_error = nullptr;  // kueuesim.InputError(Error, ValueError)

[[noreturn]] void Raise(const absl::Status& status) {
  const bool bad_input = status.code() == absl::StatusCode::kInvalidArgument ||
                         status.code() == absl::StatusCode::kNotFound ||
                         status.code() == absl::StatusCode::kAlreadyExists ||
                         status.code() == absl::StatusCode::kOutOfRange ||
                         status.code() == absl::StatusCode::kPermissionDenied;
  PyErr_SetString(bad_input ? g_input_error : g_error, StatusMessage(status).c_str());
  throw py::error_already_set();
}

void Check(const absl::Status& status) {
  if (!status.ok()) Raise(status);
}

template <typename T>
T Value(absl::StatusOr<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(result).value();
}

// The registry every scenario of this process selects its policies from:
// the built-ins plus the Python policies registered with
// register_queue_ordering, register_preemption and register_dispatcher.
// Never destroyed: it holds Python objects, which must not be released
// after the interpreter is gone.
policy::PolicyRegistry& Registry() {
  static policy::PolicyRegistry* registry = new policy::PolicyRegistry(policy::PolicyRegistry::WithBuiltins());
  return *registry;
}

py::object JsonLoads(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

double Seconds(int64_t micros) { return static_cast<double>(micros) / static_cast<double>(kSecond); }

// A duration from Python: a number of seconds or a string like "2h30m".
SimDuration DurationArg(const py::handle& value, const char* what) {
  if (py::isinstance<py::str>(value)) {
    absl::StatusOr<SimDuration> parsed = ParseDuration(value.cast<std::string>());
    if (!parsed.ok()) Raise(Annotate(parsed.status(), what));
    return *parsed;
  }
  const double seconds = value.cast<double>();
  if (!(seconds >= 0) || seconds > 9.2e12) {
    Raise(InvalidArgument(std::string(what) + ": must be a non-negative number of seconds"));
  }
  return static_cast<SimDuration>(seconds * static_cast<double>(kSecond) + 0.5);
}

// --- Helpers shared by the Python policies ---------------------------------------

py::dict ParametersDict(const policy::PolicyParameters& parameters) {
  py::dict args;
  for (const auto& [key, value] : parameters) args[py::str(key)] = value;
  return args;
}

std::string TypeName(const py::handle& value) { return Py_TYPE(value.ptr())->tp_name; }

// The method `method` of the object a policy factory returned, or an
// InvalidArgument error saying that it is missing.
absl::StatusOr<py::object> PolicyMethod(const py::object& policy, const std::string& method,
                                        const std::string& signature, const std::string& what) {
  if (!py::hasattr(policy, method.c_str()) || !PyCallable_Check(policy.attr(method.c_str()).ptr())) {
    return InvalidArgument(what + ": the factory returned an object without a " + signature + " method (got " +
                           TypeName(policy) + ")");
  }
  return policy.attr(method.c_str());
}

// Runs `expire` when it goes out of scope, also when a Python exception
// unwinds the call: a request object must not outlive the call it was made for.
class ExpireOnExit {
 public:
  explicit ExpireOnExit(std::function<void()> expire) : expire_(std::move(expire)) {}
  ~ExpireOnExit() { expire_(); }
  ExpireOnExit(const ExpireOnExit&) = delete;
  ExpireOnExit& operator=(const ExpireOnExit&) = delete;

 private:
  std::function<void()> expire_;
};

// --- Python queue-ordering policies -------------------------------------------

// Calls `compare(a, b)` of a Python object for every comparison of two
// pending workloads; a and b are read-only kueuesim.Workload views valid
// during the call only.
class PythonQueueOrdering : public policy::QueueOrderingPolicy {
 public:
  PythonQueueOrdering(std::string name, py::object policy)
      : name_(std::move(name)), policy_(std::move(policy)), compare_(policy_.attr("compare")) {}
  std::string_view Name() const override { return name_; }
  int Compare(const cluster::ClusterState& /*state*/, const cluster::WorkloadRecord& a,
              const cluster::WorkloadRecord& b) const override {
    py::gil_scoped_acquire gil;
    py::object result = compare_(py::cast(&a, py::return_value_policy::reference),
                                 py::cast(&b, py::return_value_policy::reference));
    const long order = result.cast<long>();
    return order < 0 ? -1 : (order > 0 ? 1 : 0);
  }

 private:
  std::string name_;
  py::object policy_;
  py::object compare_;
};

void RegisterQueueOrdering(const std::string& name, py::object factory, const std::string& description) {
  if (name.empty()) Raise(InvalidArgument("register_queue_ordering: the name must not be empty"));
  Check(Registry().RegisterQueueOrdering(
      name, description.empty() ? "Python queue ordering policy" : description,
      [name, factory](const policy::PolicyParameters& parameters)
          -> absl::StatusOr<std::unique_ptr<policy::QueueOrderingPolicy>> {
        py::object policy = factory(ParametersDict(parameters));
        if (!py::hasattr(policy, "compare")) {
          return InvalidArgument("Python queue ordering policy \"" + name + "\": the factory returned an object " +
                                 "without a compare(a, b) method");
        }
        return std::unique_ptr<policy::QueueOrderingPolicy>(new PythonQueueOrdering(name, std::move(policy)));
      }));
}

// --- Python preemption policies -----------------------------------------------

std::string_view QueuePreemptionPolicyName(model::PreemptionPolicy policy) {
  switch (policy) {
    case model::PreemptionPolicy::kNever:
      return "Never";
    case model::PreemptionPolicy::kLowerPriority:
      return "LowerPriority";
    case model::PreemptionPolicy::kLowerOrNewerEqualPriority:
      return "LowerOrNewerEqualPriority";
    case model::PreemptionPolicy::kAny:
      return "Any";
  }
  return "";
}

constexpr policy::PreemptionReason kAllPreemptionReasons[] = {
    policy::PreemptionReason::kInClusterQueue,
    policy::PreemptionReason::kInCohortReclamation,
    policy::PreemptionReason::kInCohortFairSharing,
    policy::PreemptionReason::kInCohortReclaimWhileBorrowing,
};

// A (flavor, resource) pair as Python sees it: a tuple of two names.
py::tuple FlavorResourceKey(const cluster::ClusterState& state, cluster::FrId fr) {
  return py::make_tuple(state.flavor(state.fr_flavor(fr)).name, state.resource_name(state.fr_resource(fr)));
}

// Quota usage as {(flavor, resource): canonical amount}.
py::dict UsageDict(const cluster::ClusterState& state, std::span<const cluster::FrAmount> usage) {
  py::dict out;
  for (const cluster::FrAmount& u : usage) out[FlavorResourceKey(state, u.fr)] = u.amount;
  return out;
}

// An admitted workload that a preemption policy may choose (a copy: it may
// be kept after the call, except for `workload`).
struct PreemptionCandidate {
  std::string key;
  int32_t priority = 0;
  std::string cluster_queue;
  bool in_preemptor_queue = false;
  bool cluster_queue_borrowing = false;  // on a resource needing preemption
  bool uses_needed_resources = false;
  bool evicted = false;
  double reserved_at = 0;  // simulated seconds
  py::dict usage;
  py::object workload;  // a kueuesim.Workload view, valid during the call only
};

// What a Python preemption policy receives: the preemptor, its
// ClusterQueue, the quota it needs, the candidates, and fits() to try a
// set of victims on the snapshot. Valid during the get_targets call only.
class PreemptionCall {
 public:
  PreemptionCall(const policy::PreemptionRequest& request, cluster::SchedulingSnapshot& snapshot,
                 const std::string& policy_name)
      : request_(&request), snapshot_(&snapshot), policy_name_(policy_name) {
    const cluster::ClusterState& state = snapshot.state();
    const quota::QuotaTree& tree = state.tree();
    const cluster::NodeId node = state.cq(request.cq).node;
    auto collect = [&](cluster::CqId cq) {
      snapshot.ForEachWorkload(cq, [&](cluster::WorkloadId id) {
        if (id != request.preemptor) candidate_ids_.push_back(id);
      });
    };
    collect(request.cq);
    if (tree.has_parent(node)) {
      const cluster::NodeId root = tree.Root(node);
      for (cluster::CqId other = 0; other < state.num_cluster_queues(); ++other) {
        const cluster::ClusterQueueInfo& info = state.cq(other);
        if (other == request.cq || !info.active || !tree.has_parent(info.node)) continue;
        if (tree.Root(info.node) == root) collect(other);
      }
    }
  }

  void Expire() {
    request_ = nullptr;
    snapshot_ = nullptr;
  }

  py::object Preemptor() const {
    CheckActive();
    return py::cast(&state().workload(request_->preemptor), py::return_value_policy::reference);
  }
  std::string ClusterQueueName() const {
    CheckActive();
    return state().cq(request_->cq).name;
  }
  py::object Cohort() const {
    CheckActive();
    const quota::QuotaTree& tree = state().tree();
    const cluster::NodeId node = state().cq(request_->cq).node;
    if (!tree.has_parent(node)) return py::none();
    return py::str(tree.name(tree.Root(node)));
  }
  py::dict Usage() const {
    CheckActive();
    return UsageDict(state(), request_->usage);
  }
  py::list ResourcesNeedingPreemption() const {
    CheckActive();
    py::list out;
    for (cluster::FrId fr : request_->frs_needing_preemption) out.append(FlavorResourceKey(state(), fr));
    return out;
  }
  std::string WithinClusterQueue() const {
    CheckActive();
    return std::string(QueuePreemptionPolicyName(state().cq(request_->cq).spec->preemption.within_cluster_queue));
  }
  std::string ReclaimWithinCohort() const {
    CheckActive();
    return std::string(QueuePreemptionPolicyName(state().cq(request_->cq).spec->preemption.reclaim_within_cohort));
  }
  bool FairSharing() const {
    CheckActive();
    return state().fair_sharing_enabled();
  }
  double Now() const {
    CheckActive();
    return Seconds(snapshot_->now());
  }

  // Built on first use and kept for the rest of the call.
  py::list Candidates() {
    CheckActive();
    if (candidates_.has_value()) return *candidates_;
    const cluster::ClusterState& s = state();
    py::list out;
    for (cluster::WorkloadId id : candidate_ids_) {
      const cluster::WorkloadRecord& wl = s.workload(id);
      const cluster::CqId cq = snapshot_->HoldingCq(id);
      PreemptionCandidate candidate;
      candidate.key = wl.key;
      candidate.priority = snapshot_->Priority(id);
      candidate.cluster_queue = s.cq(cq).name;
      candidate.in_preemptor_queue = cq == request_->cq;
      candidate.cluster_queue_borrowing = !s.tree().IsWithinNominal(s.cq(cq).node, request_->frs_needing_preemption);
      candidate.uses_needed_resources = snapshot_->UsesResources(id, request_->frs_needing_preemption);
      candidate.evicted = snapshot_->IsEvicted(id);
      candidate.reserved_at = Seconds(snapshot_->QuotaReservationTime(id) - s.start_time());
      candidate.usage = UsageDict(s, snapshot_->UsageOf(id));
      candidate.workload = py::cast(&wl, py::return_value_policy::reference);
      out.append(py::cast(std::move(candidate)));
    }
    candidates_ = out;
    return out;
  }

  // Whether the preemptor fits once `workloads` (keys or candidates) are
  // removed: the snapshot's quota check (and, without borrowing, that no
  // quota is borrowed; and the topology check when the preemptor uses
  // topology-aware scheduling). The snapshot is left as it was.
  bool Fits(const py::iterable& workloads, bool allow_borrowing) {
    CheckActive();
    std::vector<cluster::WorkloadId> removed;
    for (const py::handle& item : workloads) {
      const cluster::WorkloadId id = Resolve(item, "fits()");
      if (std::find(removed.begin(), removed.end(), id) == removed.end()) removed.push_back(id);
    }
    for (cluster::WorkloadId id : removed) snapshot_->RemoveWorkload(id);
    bool fits = snapshot_->FitsQuota(request_->cq, request_->usage);
    if (fits && !allow_borrowing) {
      const cluster::NodeId node = state().cq(request_->cq).node;
      for (const cluster::FrAmount& u : request_->usage) {
        if (state().tree().BorrowingWith(node, u.fr, u.amount)) fits = false;
      }
    }
    if (fits && request_->topology_fits != nullptr && *request_->topology_fits) fits = (*request_->topology_fits)();
    for (cluster::WorkloadId id : removed) snapshot_->AddWorkload(id);
    return fits;
  }

  // The targets get_targets returned: a list of keys, candidates, or
  // (key or candidate, reason) pairs.
  std::vector<policy::PreemptionTarget> Targets(const py::handle& result) {
    if (!py::isinstance<py::list>(result) && !py::isinstance<py::tuple>(result)) {
      Raise(InvalidArgument(Where() + ": get_targets must return a list of workload keys, candidates or " +
                            "(workload, reason) pairs, not " + TypeName(result)));
    }
    std::vector<policy::PreemptionTarget> targets;
    for (const py::handle& item : result) {
      py::handle workload = item;
      std::optional<policy::PreemptionReason> reason;
      if (py::isinstance<py::tuple>(item)) {
        py::tuple pair = py::reinterpret_borrow<py::tuple>(item);
        if (pair.size() != 2) {
          Raise(InvalidArgument(Where() + ": a target given as a tuple must be (workload, reason), got " +
                                std::to_string(pair.size()) + " items"));
        }
        workload = pair[0];
        reason = Reason(pair[1]);
      }
      const cluster::WorkloadId id = Resolve(workload, "get_targets");
      for (const policy::PreemptionTarget& earlier : targets) {
        if (earlier.workload == id) {
          Raise(InvalidArgument(Where() + ": get_targets returned \"" + state().workload(id).key + "\" twice"));
        }
      }
      if (!reason.has_value()) {
        reason = snapshot_->HoldingCq(id) == request_->cq ? policy::PreemptionReason::kInClusterQueue
                                                          : policy::PreemptionReason::kInCohortReclamation;
      }
      targets.push_back({id, *reason});
    }
    return targets;
  }

 private:
  const cluster::ClusterState& state() const { return snapshot_->state(); }

  std::string Where() const { return "Python preemption policy \"" + policy_name_ + "\""; }

  void CheckActive() const {
    if (request_ == nullptr) {
      Raise(FailedPrecondition("a kueuesim.PreemptionRequest is valid only during the get_targets call that "
                               "received it"));
    }
  }

  // A candidate named by its key or given as a kueuesim.PreemptionCandidate.
  cluster::WorkloadId Resolve(const py::handle& item, const std::string& where) {
    CheckActive();
    std::string key;
    if (py::isinstance<py::str>(item)) {
      key = item.cast<std::string>();
    } else if (py::isinstance<PreemptionCandidate>(item)) {
      key = item.cast<const PreemptionCandidate&>().key;
    } else {
      Raise(InvalidArgument(Where() + ": " + where + ": expected a workload key (\"namespace/name\") or a " +
                            "kueuesim.PreemptionCandidate, got " + TypeName(item)));
    }
    if (by_key_.empty()) {
      for (cluster::WorkloadId id : candidate_ids_) by_key_.emplace(state().workload(id).key, id);
    }
    auto it = by_key_.find(key);
    if (it == by_key_.end()) {
      Raise(InvalidArgument(Where() + ": " + where + ": \"" + key + "\" is not a preemption candidate (an " +
                            "admitted workload of ClusterQueue \"" + state().cq(request_->cq).name +
                            "\" or of another ClusterQueue of its cohort)"));
    }
    return it->second;
  }

  policy::PreemptionReason Reason(const py::handle& value) const {
    const bool is_text = py::isinstance<py::str>(value);
    const std::string text = is_text ? value.cast<std::string>() : std::string();
    std::string valid;
    for (policy::PreemptionReason reason : kAllPreemptionReasons) {
      if (is_text && text == policy::PreemptionReasonName(reason)) return reason;
      valid += (valid.empty() ? "" : ", ") + std::string(policy::PreemptionReasonName(reason));
    }
    const std::string got = is_text ? "\"" + text + "\"" : "a " + TypeName(value);
    Raise(InvalidArgument(Where() + ": unknown preemption reason " + got + " (valid: " + valid + ")"));
  }

  const policy::PreemptionRequest* request_;
  cluster::SchedulingSnapshot* snapshot_;
  std::string policy_name_;
  std::vector<cluster::WorkloadId> candidate_ids_;
  std::optional<py::list> candidates_;
  std::unordered_map<std::string, cluster::WorkloadId> by_key_;
};

// Calls `get_targets(request)` of a Python object every time the scheduler
// (or the flavor assigner, asking whether preemption could help) needs
// preemption targets.
class PythonPreemption : public policy::PreemptionPolicy {
 public:
  PythonPreemption(std::string name, py::object policy, py::object get_targets)
      : name_(std::move(name)), policy_(std::move(policy)), get_targets_(std::move(get_targets)) {}
  std::string_view Name() const override { return name_; }

  std::vector<policy::PreemptionTarget> GetTargets(const policy::PreemptionRequest& request,
                                                   cluster::SchedulingSnapshot& snapshot) override {
    py::gil_scoped_acquire gil;
    auto owned = std::make_unique<PreemptionCall>(request, snapshot, name_);
    PreemptionCall* call = owned.get();
    py::object handle = py::cast(std::move(owned));
    ExpireOnExit expire([call] { call->Expire(); });
    py::object result = get_targets_(handle);
    return call->Targets(result);
  }

 private:
  std::string name_;
  py::object policy_;
  py::object get_targets_;
};

void RegisterPreemption(const std::string& name, py::object factory, const std::string& description) {
  if (name.empty()) Raise(InvalidArgument("register_preemption: the name must not be empty"));
  Check(Registry().RegisterPreemption(
      name, description.empty() ? "Python preemption policy" : description,
      [name, factory](const policy::PolicyParameters& parameters)
          -> absl::StatusOr<std::unique_ptr<policy::PreemptionPolicy>> {
        py::object policy = factory(ParametersDict(parameters));
        absl::StatusOr<py::object> get_targets = PolicyMethod(policy, "get_targets", "get_targets(request)",
                                                             "Python preemption policy \"" + name + "\"");
        if (!get_targets.ok()) return get_targets.status();
        return std::unique_ptr<policy::PreemptionPolicy>(
            new PythonPreemption(name, std::move(policy), *std::move(get_targets)));
      }));
}

// --- Python MultiKueue dispatchers -----------------------------------------------

// One worker cluster of a DispatchRequest (a copy).
struct DispatchCluster {
  std::string name;
  bool connected = false;
  bool has_queue = false;
  std::map<std::string, int64_t> free;  // canonical amounts, per requested resource
  int64_t pending = 0;
};

// What a Python dispatcher receives (a copy of policy::DispatchRequest;
// times in simulated seconds).
struct DispatchRequestView {
  std::string workload;
  int32_t priority = 0;
  std::map<std::string, int64_t> requests;
  double now = 0;
  double reserved_at = 0;
  std::optional<double> last_nomination;
  py::list clusters;  // of DispatchCluster
  std::vector<int32_t> nominated;
};

std::map<std::string, int64_t> AmountsByResource(const std::vector<std::pair<std::string_view, Amount>>& amounts) {
  std::map<std::string, int64_t> out;
  for (const auto& [resource, amount] : amounts) out[std::string(resource)] = amount;
  return out;
}

// Calls `nominate(request)` of a Python object whenever the MultiKueue
// controller asks which workers get a copy of a workload.
class PythonDispatcher : public policy::DispatchPolicy {
 public:
  PythonDispatcher(std::string name, py::object policy, py::object nominate)
      : name_(std::move(name)), policy_(std::move(policy)), nominate_(std::move(nominate)) {}

  policy::DispatchDecision Nominate(const policy::DispatchRequest& request) override {
    py::gil_scoped_acquire gil;
    DispatchRequestView view;
    view.workload = std::string(request.workload);
    view.priority = request.priority;
    view.requests = AmountsByResource(request.requests);
    view.now = Seconds(request.now);
    view.reserved_at = Seconds(request.reserved_at);
    if (request.last_nomination >= 0) view.last_nomination = Seconds(request.last_nomination);
    for (const policy::DispatchCandidate& candidate : request.clusters) {
      DispatchCluster cluster;
      cluster.name = std::string(candidate.name);
      cluster.connected = candidate.connected;
      cluster.has_queue = candidate.has_queue;
      cluster.free = AmountsByResource(candidate.free);
      cluster.pending = candidate.pending;
      view.clusters.append(py::cast(std::move(cluster)));
    }
    view.nominated = request.nominated;
    py::object result = nominate_(py::cast(std::move(view)));
    return Decision(result, request);
  }

 private:
  std::string Where() const { return "Python dispatcher \"" + name_ + "\""; }

  // nominate's result: a list of cluster indexes or names; or
  // {"nominated": [...], "recheck_at": seconds}; or (nominated, recheck_at).
  policy::DispatchDecision Decision(const py::handle& result, const policy::DispatchRequest& request) const {
    py::handle nominated = result;
    py::handle recheck_at = py::none();
    if (py::isinstance<py::dict>(result)) {
      py::dict fields = py::reinterpret_borrow<py::dict>(result);
      for (const auto& [key, value] : fields) {
        const std::string name = py::str(key).cast<std::string>();
        if (name != "nominated" && name != "recheck_at") {
          Raise(InvalidArgument(Where() + ": nominate returned a dict with the unknown key \"" + name +
                                "\" (valid: nominated, recheck_at)"));
        }
      }
      if (!fields.contains("nominated")) {
        Raise(InvalidArgument(Where() + ": nominate returned a dict without \"nominated\""));
      }
      nominated = fields["nominated"];
      if (fields.contains("recheck_at")) recheck_at = fields["recheck_at"];
    } else if (py::isinstance<py::tuple>(result) && py::len(result) == 2 &&
               (py::isinstance<py::list>(result[py::int_(0)]) || py::isinstance<py::tuple>(result[py::int_(0)]))) {
      nominated = result[py::int_(0)];
      recheck_at = result[py::int_(1)];
    }
    if (!py::isinstance<py::list>(nominated) && !py::isinstance<py::tuple>(nominated)) {
      Raise(InvalidArgument(Where() + ": nominate must return a list of cluster indexes or names, a dict " +
                            "{\"nominated\": [...], \"recheck_at\": seconds} or a tuple (nominated, recheck_at), " +
                            "not " + TypeName(nominated)));
    }
    policy::DispatchDecision decision;
    for (const py::handle& item : nominated) {
      const int32_t index = ClusterIndex(item, request);
      if (std::find(decision.nominated.begin(), decision.nominated.end(), index) != decision.nominated.end()) {
        Raise(InvalidArgument(Where() + ": nominate returned cluster \"" +
                              std::string(request.clusters[static_cast<size_t>(index)].name) + "\" twice"));
      }
      decision.nominated.push_back(index);
    }
    if (!recheck_at.is_none()) {
      const bool number = (py::isinstance<py::int_>(recheck_at) || py::isinstance<py::float_>(recheck_at)) &&
                          !py::isinstance<py::bool_>(recheck_at);
      const double seconds = number ? recheck_at.cast<double>() : -1;
      if (!number || !std::isfinite(seconds) || seconds < 0 || seconds > 9.2e12) {
        Raise(InvalidArgument(Where() + ": recheck_at must be None or a simulated time in seconds (>= 0), got " +
                              py::repr(recheck_at).cast<std::string>()));
      }
      decision.recheck_at = static_cast<SimTime>(std::llround(seconds * static_cast<double>(kSecond)));
    }
    return decision;
  }

  // A nominated cluster: its index in request.clusters or its name.
  int32_t ClusterIndex(const py::handle& item, const policy::DispatchRequest& request) const {
    const auto count = static_cast<int64_t>(request.clusters.size());
    if (py::isinstance<py::int_>(item) && !py::isinstance<py::bool_>(item)) {
      const int64_t index = item.cast<int64_t>();
      if (index < 0 || index >= count) {
        Raise(InvalidArgument(Where() + ": nominate returned cluster index " + std::to_string(index) +
                              "; the MultiKueueConfig has " + std::to_string(count) + " clusters"));
      }
      return static_cast<int32_t>(index);
    }
    if (py::isinstance<py::str>(item)) {
      const std::string name = item.cast<std::string>();
      std::string valid;
      for (int64_t i = 0; i < count; ++i) {
        const std::string_view candidate = request.clusters[static_cast<size_t>(i)].name;
        if (candidate == name) return static_cast<int32_t>(i);
        valid += (valid.empty() ? "" : ", ") + std::string(candidate);
      }
      Raise(InvalidArgument(Where() + ": nominate returned the unknown cluster \"" + name + "\" (valid: " + valid +
                            ")"));
    }
    Raise(InvalidArgument(Where() + ": a nominated cluster must be an index or a name, not " + TypeName(item)));
  }

  std::string name_;
  py::object policy_;
  py::object nominate_;
};

void RegisterDispatcher(const std::string& name, py::object factory, const std::string& description) {
  if (name.empty()) Raise(InvalidArgument("register_dispatcher: the name must not be empty"));
  Check(Registry().RegisterDispatcher(
      name, description.empty() ? "Python MultiKueue dispatcher" : description,
      [name, factory](const policy::PolicyParameters& parameters)
          -> absl::StatusOr<std::unique_ptr<policy::DispatchPolicy>> {
        py::object policy = factory(ParametersDict(parameters));
        absl::StatusOr<py::object> nominate =
            PolicyMethod(policy, "nominate", "nominate(request)", "Python dispatcher \"" + name + "\"");
        if (!nominate.ok()) return nominate.status();
        return std::unique_ptr<policy::DispatchPolicy>(
            new PythonDispatcher(name, std::move(policy), *std::move(nominate)));
      }));
}

// --- Scenario ------------------------------------------------------------------

struct PyScenario {
  scenario::Scenario scenario;

  scenario::ClusterSpec& ClusterNamed(const std::string& cluster) {
    for (scenario::ClusterSpec& spec : scenario.clusters) {
      if (spec.name == cluster) return spec;
    }
    Raise(InvalidArgument("no cluster \"" + cluster + "\" in the scenario"));
  }

  model::ClusterQueue& ClusterQueueNamed(const std::string& name, const std::string& cluster) {
    for (model::ClusterQueue& cq : ClusterNamed(cluster).cluster_queues) {
      if (cq.meta.name == name) return cq;
    }
    Raise(InvalidArgument("no ClusterQueue \"" + name + "\" in the scenario"));
  }

  void SetQuota(const std::string& cq_name, const std::string& flavor, const std::string& resource,
                const py::object& nominal, const py::object& borrowing_limit, const py::object& lending_limit,
                const std::string& cluster) {
    model::ClusterQueue& cq = ClusterQueueNamed(cq_name, cluster);
    model::ResourceQuota* quota = nullptr;
    for (model::ResourceGroup& group : cq.resource_groups) {
      for (model::FlavorQuotas& fq : group.flavors) {
        if (fq.name != flavor) continue;
        for (model::ResourceQuota& rq : fq.resources) {
          if (rq.name == resource) quota = &rq;
        }
      }
    }
    const std::string where = "ClusterQueue \"" + cq_name + "\" flavor \"" + flavor + "\" resource \"" + resource + "\"";
    if (quota == nullptr) Raise(InvalidArgument(where + ": not in the ClusterQueue's resourceGroups"));
    auto amount = [&](const py::object& value, const char* field) -> std::optional<Amount> {
      std::string text = py::isinstance<py::str>(value) ? value.cast<std::string>() : py::str(value).cast<std::string>();
      if (text == "none") return std::nullopt;
      absl::StatusOr<int64_t> parsed = ParseCanonicalValue(text, resource);
      if (!parsed.ok()) Raise(Annotate(parsed.status(), where + ": " + field));
      if (*parsed < 0) Raise(InvalidArgument(where + ": " + field + ": must not be negative"));
      return *parsed;
    };
    model::ResourceQuota updated = *quota;
    if (!nominal.is_none()) {
      std::optional<Amount> value = amount(nominal, "nominalQuota");
      if (!value.has_value()) Raise(InvalidArgument(where + ": nominalQuota: \"none\" applies to limits only"));
      updated.nominal_quota = *value;
    }
    if (!borrowing_limit.is_none()) updated.borrowing_limit = amount(borrowing_limit, "borrowingLimit");
    if (!lending_limit.is_none()) updated.lending_limit = amount(lending_limit, "lendingLimit");
    // The ClusterQueue webhook's rules for the fields changed here.
    if (cq.cohort.empty() && (updated.borrowing_limit.has_value() || updated.lending_limit.has_value())) {
      Raise(InvalidArgument(where + ": borrowingLimit and lendingLimit must be unset when cohortName is empty"));
    }
    if (updated.lending_limit.has_value() && *updated.lending_limit > updated.nominal_quota) {
      Raise(InvalidArgument(where + ": lendingLimit must be less than or equal to nominalQuota"));
    }
    *quota = updated;
  }

  void SetFairSharingWeight(const std::string& name, double weight, const std::string& kind,
                            const std::string& cluster) {
    if (!(weight >= 0) || weight > 1e15) Raise(InvalidArgument("fair sharing weight must be a non-negative number"));
    if (kind == "ClusterQueue") {
      ClusterQueueNamed(name, cluster).fair_weight = weight;
      return;
    }
    if (kind == "Cohort") {
      for (model::Cohort& cohort : ClusterNamed(cluster).cohorts) {
        if (cohort.meta.name == name) {
          cohort.fair_weight = weight;
          return;
        }
      }
      Raise(InvalidArgument("no Cohort \"" + name + "\" in the scenario (only Cohort objects carry a weight)"));
    }
    if (kind == "LocalQueue") {
      const auto slash = name.find('/');
      for (model::LocalQueue& lq : ClusterNamed(cluster).local_queues) {
        if (slash != std::string::npos && lq.meta.namespace_ == name.substr(0, slash) &&
            lq.meta.name == name.substr(slash + 1)) {
          lq.fair_weight = weight;
          return;
        }
      }
      Raise(InvalidArgument("no LocalQueue \"" + name + "\" (written namespace/name) in the scenario"));
    }
    Raise(InvalidArgument("kind must be ClusterQueue, Cohort or LocalQueue, not \"" + kind + "\""));
  }

  void SetPolicy(const std::string& kind, const std::string& name, const std::map<std::string, std::string>& parameters) {
    scenario::PolicyChoice* choice = nullptr;
    policy::PolicyKind policy_kind;
    if (kind == "queueOrdering") {
      choice = &scenario.settings.queue_ordering;
      policy_kind = policy::PolicyKind::kQueueOrdering;
    } else if (kind == "preemption") {
      choice = &scenario.settings.preemption;
      policy_kind = policy::PolicyKind::kPreemption;
    } else if (kind == "dispatcher") {
      choice = &scenario.settings.dispatcher;
      policy_kind = policy::PolicyKind::kDispatcher;
    } else {
      Raise(InvalidArgument("policy kind must be queueOrdering, preemption or dispatcher, not \"" + kind + "\""));
    }
    std::string valid;
    bool found = name.empty();
    for (const policy::PolicyInfo& info : Registry().List()) {
      if (info.kind != policy_kind) continue;
      valid += (valid.empty() ? "" : ", ") + info.name;
      if (info.name == name) found = true;
    }
    if (!found) Raise(InvalidArgument("unknown " + kind + " policy \"" + name + "\" (valid: " + valid + ")"));
    choice->name = name;
    choice->parameters = parameters;
  }

  py::list ClusterQueues(const std::string& cluster) {
    py::list out;
    for (const model::ClusterQueue& cq : ClusterNamed(cluster).cluster_queues) {
      py::list groups;
      for (const model::ResourceGroup& group : cq.resource_groups) {
        py::list flavors;
        for (const model::FlavorQuotas& fq : group.flavors) {
          py::list resources;
          for (const model::ResourceQuota& rq : fq.resources) {
            py::dict r;
            r["name"] = rq.name;
            r["nominalQuota"] = FormatAmount(rq.nominal_quota, rq.name);
            r["borrowingLimit"] = rq.borrowing_limit.has_value() ? py::object(py::str(FormatAmount(*rq.borrowing_limit, rq.name))) : py::none();
            r["lendingLimit"] = rq.lending_limit.has_value() ? py::object(py::str(FormatAmount(*rq.lending_limit, rq.name))) : py::none();
            resources.append(r);
          }
          py::dict f;
          f["name"] = fq.name;
          f["resources"] = resources;
          flavors.append(f);
        }
        py::dict g;
        g["coveredResources"] = group.covered_resources;
        g["flavors"] = flavors;
        groups.append(g);
      }
      py::dict d;
      d["name"] = cq.meta.name;
      d["cohort"] = cq.cohort;
      d["fairSharingWeight"] = cq.fair_weight;
      d["resourceGroups"] = groups;
      out.append(d);
    }
    return out;
  }

  py::dict Policies() const {
    py::dict out;
    out["queueOrdering"] = scenario.settings.queue_ordering.name;
    out["preemption"] = scenario.settings.preemption.name;
    out["dispatcher"] = scenario.settings.dispatcher.name;
    return out;
  }
};

// --- Simulation ----------------------------------------------------------------

class PySimulation {
 public:
  explicit PySimulation(const PyScenario& scenario) {
    sim_ = Value(sim::Simulation::Create(scenario.scenario, Registry()));
    events_file_ = open_memstream(&events_buffer_, &events_size_);
    if (events_file_ == nullptr) Raise(Internal("cannot allocate the in-memory event log"));
    event_log_ = std::make_unique<metrics::EventLogWriter>(events_file_);
    sim_->AddEventSink(event_log_.get());
    sim_->AddEventSink(&collector_);
    workload_table_ =
        std::make_unique<metrics::WorkloadTableWriter>(workload_rows_.file(), metrics::TimeSeriesFormat::kJsonLines);
    sim_->AddEventSink(workload_table_.get());
    timeseries_ =
        std::make_unique<metrics::TimeSeriesRecorder>(timeseries_rows_.file(), metrics::TimeSeriesFormat::kJsonLines);
    sim_->AddEventSink(timeseries_.get());
  }
  ~PySimulation() {
    sim_.reset();
    if (events_file_ != nullptr) std::fclose(events_file_);
    std::free(events_buffer_);
  }
  PySimulation(const PySimulation&) = delete;
  PySimulation& operator=(const PySimulation&) = delete;

  void Run(const py::object& until, const py::object& max_cycles, bool check_invariants) {
    sim::RunOptions options;
    if (!until.is_none()) options.until = DurationArg(until, "until");
    if (!max_cycles.is_none()) options.max_cycles = max_cycles.cast<int64_t>();
    options.check_invariants = check_invariants;
    RunWith(options);
  }

  void StepTo(const py::object& time, bool check_invariants) {
    sim::RunOptions options;
    options.check_invariants = check_invariants;
    options.until = DurationArg(time, "step_to");
    if (*options.until < sim_->now()) {
      Raise(InvalidArgument("step_to: " + FormatSeconds(*options.until) + " s is before the current time " +
                            FormatSeconds(sim_->now()) + " s"));
    }
    RunWith(options);
  }

  py::list Events() {
    std::fflush(events_file_);
    py::list out;
    py::object loads = py::module_::import("json").attr("loads");
    size_t start = 0;
    for (size_t i = 0; i < events_size_; ++i) {
      if (events_buffer_[i] != '\n') continue;
      out.append(loads(py::str(events_buffer_ + start, i - start)));
      start = i + 1;
    }
    return out;
  }

  py::object EventsFrame() {
    py::object pandas;
    try {
      pandas = py::module_::import("pandas");
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_ImportError)) throw;
      PyErr_SetString(PyExc_ImportError,
                      "Simulation.events_frame() needs pandas, which is not installed (Debian: apt-get install "
                      "python3-pandas); Simulation.events() gives the same rows as a list of dicts");
      throw py::error_already_set();
    }
    return pandas.attr("DataFrame")(Events());
  }

  py::object Summary() {
    CheckUsable();
    // Finish closes the time integrals; work on a copy so that the run can go on.
    metrics::SummaryCollector collector = collector_;
    metrics::Summary summary =
        collector.Finish(sim_->end_time(), sim_->cluster_pointers(), sim_->multikueue_reports());
    summary.unknown_kinds = sim_->scenario().report.unknown_kinds;
    summary.warnings = sim_->scenario().report.warnings;
    metrics::AddLoadReport(sim_->scenario().report, sim_->scenario().settings, &summary);
    for (const sim::CronJobReport& cron_job : sim_->cron_job_reports()) {
      summary.cron_jobs.push_back({cron_job.cluster, cron_job.name, cron_job.created, cron_job.already_active,
                                   cron_job.missed, cron_job.replaced});
    }
    return JsonLoads(metrics::SummaryToJson(summary));
  }

  // The per-workload table (the CLI's --workloads), workloads still in
  // flight included as of now.
  py::object Workloads(const py::object& as_frame) {
    CheckUsable();
    const TableShape shape = ShapeArg(as_frame, "Simulation.workloads");
    MemoryFile in_flight;
    workload_table_->WriteInFlight(in_flight.file(), sim_->end_time());
    py::list rows = ParseJsonLines(workload_rows_.text());
    for (const py::handle& row : ParseJsonLines(in_flight.text())) rows.append(row);
    return WorkloadTable(rows, WallClockStart(), shape);
  }

  // The time series (the CLI's --timeseries) up to now.
  py::object TimeSeries(const py::object& as_frame) {
    CheckUsable();
    const TableShape shape = ShapeArg(as_frame, "Simulation.timeseries");
    return TimeSeriesTable(TimeSeriesRows(), WallClockStart(), shape);
  }

  // The summary's tables: {"clusterQueues", "resources", "cohorts"}.
  py::dict SummaryFrames(const py::object& as_frame) {
    CheckUsable();
    const TableShape shape = ShapeArg(as_frame, "Simulation.summary_frames");
    py::dict summary(Summary());
    return SummaryTables(summary, TimeSeriesRows(), Seconds(sim_->end_time()), shape);
  }

  // The time the run has reached: the summary's endTime once a run is over
  // (the engine may have stepped past the last event), the `until` or
  // step_to time when it stopped there.
  double Now() const { return ran_ ? Seconds(sim_->end_time()) : Seconds(sim_->now()); }
  int64_t Cycles() const { return sim_->cycles(); }

  // Why a workload waits now: its QuotaReserved=False condition, or None
  // when it holds quota or has none (not evaluated yet).
  py::object Pending(const std::string& workload, const std::string& cluster) {
    CheckUsable();
    const std::string key = workload.find('/') == std::string::npos ? "default/" + workload : workload;
    for (const auto& runtime : sim_->clusters()) {
      const cluster::ClusterState& state = runtime->state();
      if (!cluster.empty() && state.name() != cluster) continue;
      for (cluster::WorkloadId id = 0; id < state.num_workloads(); ++id) {
        const cluster::WorkloadRecord& wl = state.workload(id);
        if (wl.spec == nullptr || wl.key != key) continue;
        if (wl.admission.has_value() || !wl.pending->has_condition()) return py::none();
        return ConditionDict(state, wl);
      }
    }
    Raise(NotFound("pending: no workload " + key + (cluster.empty() ? "" : " in cluster " + cluster)));
    return py::none();
  }

  // Every workload without quota (queued, held or refused; not finished or
  // deactivated) with its condition.
  py::list PendingWorkloads(const std::string& cluster) {
    CheckUsable();
    py::list out;
    for (const auto& runtime : sim_->clusters()) {
      const cluster::ClusterState& state = runtime->state();
      if (!cluster.empty() && state.name() != cluster) continue;
      for (cluster::WorkloadId id = 0; id < state.num_workloads(); ++id) {
        const cluster::WorkloadRecord& wl = state.workload(id);
        if (wl.spec == nullptr || wl.phase != cluster::WorkloadPhase::kPending || wl.admission.has_value()) continue;
        out.append(ConditionDict(state, wl));
      }
    }
    return out;
  }

 private:
  static py::dict ConditionDict(const cluster::ClusterState& state, const cluster::WorkloadRecord& wl) {
    py::dict d;
    d["workload"] = wl.key;
    d["cluster"] = state.name();
    const cluster::CqId cq = state.ClusterQueueOf(wl);
    d["clusterQueue"] = cq == cluster::kNone ? py::object(py::none()) : py::object(py::str(state.cq(cq).name));
    if (wl.pending->has_condition()) {
      d["reason"] = std::string(cluster::QuotaReservedReasonName(wl.pending->reason));
      d["message"] = cluster::PendingMessageText(state, wl, *wl.pending);
      d["since"] = Seconds(wl.pending->since);
    } else {
      d["reason"] = py::none();
      d["message"] = py::none();
      d["since"] = py::none();
    }
    return d;
  }

  void CheckUsable() const {
    if (broken_) {
      Raise(FailedPrecondition("this simulation stopped at an exception raised by a Python policy; create a new "
                               "one with scenario.simulation()"));
    }
  }
  // The wall-clock time of simulated time 0 when the input gives one.
  std::optional<UnixMicros> WallClockStart() const {
    const scenario::SimulationSettings& settings = sim_->scenario().settings;
    if (!settings.start_time_from_input) return std::nullopt;
    return settings.start_time;
  }

  py::list TimeSeriesRows() {
    MemoryFile pending;
    timeseries_->WritePending(pending.file());
    py::list rows = ParseJsonLines(timeseries_rows_.text());
    for (const py::handle& row : ParseJsonLines(pending.text())) rows.append(row);
    return rows;
  }

  void RunWith(const sim::RunOptions& options) {
    CheckUsable();
    ran_ = true;
    absl::Status status;
    try {
      // Without the GIL: other Python threads (another simulation, say) run
      // meanwhile; Python policies take the GIL back for each call.
      py::gil_scoped_release released;
      status = sim_->Run(options);
    } catch (...) {
      // An exception from a Python policy unwound the scheduler mid-cycle:
      // the simulation's state is no longer consistent.
      broken_ = true;
      throw;
    }
    Check(status);
  }

  std::unique_ptr<sim::Simulation> sim_;
  metrics::SummaryCollector collector_;
  std::unique_ptr<metrics::EventLogWriter> event_log_;
  std::FILE* events_file_ = nullptr;
  char* events_buffer_ = nullptr;
  size_t events_size_ = 0;
  MemoryFile workload_rows_;
  MemoryFile timeseries_rows_;
  std::unique_ptr<metrics::WorkloadTableWriter> workload_table_;
  std::unique_ptr<metrics::TimeSeriesRecorder> timeseries_;
  bool broken_ = false;
  bool ran_ = false;
};

PyScenario Load(const py::object& files) {
  std::vector<std::string> paths;
  if (py::isinstance<py::str>(files)) {
    paths.push_back(files.cast<std::string>());
  } else {
    for (const py::handle& f : files) paths.push_back(py::str(f).cast<std::string>());
  }
  if (paths.empty()) Raise(InvalidArgument("load: no files"));
  return PyScenario{Value(scenario::LoadScenarioFiles(paths))};
}

PyScenario Loads(const std::string& text, const std::string& name) {
  return PyScenario{Value(scenario::LoadScenarioStrings({{name, text}}))};
}

PyScenario FromObjects(const py::iterable& objects, const std::string& name) {
  py::object dumps = py::module_::import("json").attr("dumps");
  std::string text;
  for (const py::handle& object : objects) {
    if (!py::isinstance<py::dict>(object)) Raise(InvalidArgument("from_objects: every object must be a dict"));
    // A JSON text is YAML flow syntax: one document per object.
    text += "---\n" + dumps(object).cast<std::string>() + "\n";
  }
  return Loads(text, name);
}

}  // namespace
}  // namespace kueuesim::python

PYBIND11_MODULE(kueuesim, m) {
  using namespace kueuesim;
  using namespace kueuesim::python;
  m.doc() = "kueuesim: simulate Kubernetes Kueue's quota management and admission decisions (docs/python.md)";

  g_error = PyErr_NewException("kueuesim.Error", PyExc_Exception, nullptr);
  py::tuple input_bases = py::make_tuple(py::handle(g_error), py::handle(PyExc_ValueError));
  g_input_error = PyErr_NewException("kueuesim.InputError", input_bases.ptr(), nullptr);
  m.attr("Error") = py::handle(g_error);
  m.attr("InputError") = py::handle(g_input_error);
  m.attr("NO_LIMIT") = "none";

  py::class_<cluster::WorkloadRecord>(m, "Workload",
                                      "A workload as a Python policy sees it (read-only, valid during the policy "
                                      "call only)")
      .def_property_readonly("key", [](const cluster::WorkloadRecord& w) { return w.key; })
      .def_property_readonly("name", [](const cluster::WorkloadRecord& w) { return w.spec->meta.name; })
      .def_property_readonly("namespace", [](const cluster::WorkloadRecord& w) { return w.spec->meta.namespace_; })
      .def_property_readonly("uid", [](const cluster::WorkloadRecord& w) { return w.spec->meta.uid(); })
      .def_property_readonly("priority", [](const cluster::WorkloadRecord& w) { return w.priority; })
      .def_property_readonly("queue_order_timestamp",
                             [](const cluster::WorkloadRecord& w) { return Seconds(w.queue_order_timestamp); })
      .def_property_readonly("creation", [](const cluster::WorkloadRecord& w) { return Seconds(w.creation); })
      .def_property_readonly("arrival", [](const cluster::WorkloadRecord& w) { return Seconds(w.arrival); })
      .def_property_readonly("duration",
                             [](const cluster::WorkloadRecord& w) -> py::object {
                               if (!w.duration.has_value()) return py::none();
                               return py::float_(Seconds(*w.duration));
                             })
      .def_property_readonly("pods",
                             [](const cluster::WorkloadRecord& w) {
                               int64_t pods = 0;
                               for (const cluster::PodSetInfo& ps : w.pod_sets) pods += ps.count;
                               return pods;
                             })
      .def_property_readonly("requests",
                             [](const cluster::WorkloadRecord& w) {
                               // Total canonical requests (milli-CPU for cpu) over all pods.
                               std::map<std::string, int64_t> total;
                               for (const cluster::PodSetInfo& ps : w.pod_sets) {
                                 for (const model::ResourceAmount& r : ps.spec->requests) {
                                   total[r.name] = AddAmounts(total[r.name], MulAmount(r.amount, ps.count));
                                 }
                               }
                               return total;
                             })
      .def_property_readonly("labels", [](const cluster::WorkloadRecord& w) { return w.spec->meta.labels; })
      .def_property_readonly("annotations",
                             [](const cluster::WorkloadRecord& w) { return w.spec->meta.annotations; })
      .def("__repr__", [](const cluster::WorkloadRecord& w) { return "<kueuesim.Workload " + w.key + ">"; });

  py::class_<PreemptionCandidate>(m, "PreemptionCandidate",
                                  "An admitted workload a preemption policy may choose (a copy; `workload` is "
                                  "valid during the get_targets call only)")
      .def_readonly("key", &PreemptionCandidate::key, "namespace/name")
      .def_readonly("priority", &PreemptionCandidate::priority)
      .def_readonly("cluster_queue", &PreemptionCandidate::cluster_queue,
                    "the ClusterQueue it holds quota in")
      .def_readonly("in_preemptor_queue", &PreemptionCandidate::in_preemptor_queue,
                    "whether it holds quota in the preemptor's ClusterQueue")
      .def_readonly("cluster_queue_borrowing", &PreemptionCandidate::cluster_queue_borrowing,
                    "whether its ClusterQueue uses more than its nominal quota of a (flavor, resource) of "
                    "request.resources_needing_preemption")
      .def_readonly("uses_needed_resources", &PreemptionCandidate::uses_needed_resources,
                    "whether it uses a (flavor, resource) of request.resources_needing_preemption")
      .def_readonly("evicted", &PreemptionCandidate::evicted, "eviction issued, quota not yet released")
      .def_readonly("reserved_at", &PreemptionCandidate::reserved_at,
                    "when it reserved quota, simulated seconds")
      .def_readonly("usage", &PreemptionCandidate::usage,
                    "the quota it holds: {(flavor, resource): canonical amount (milli-CPU for cpu)}")
      .def_readonly("workload", &PreemptionCandidate::workload, "the kueuesim.Workload (during the call only)")
      .def("__repr__", [](const PreemptionCandidate& c) {
        return "<kueuesim.PreemptionCandidate " + c.key + " in " + c.cluster_queue + ">";
      });

  py::class_<PreemptionCall>(m, "PreemptionRequest",
                             "What a preemption policy's get_targets receives (valid during the call only)")
      .def_property_readonly("preemptor", &PreemptionCall::Preemptor, "the kueuesim.Workload to make room for")
      .def_property_readonly("cluster_queue", &PreemptionCall::ClusterQueueName, "the preemptor's ClusterQueue")
      .def_property_readonly("cohort", &PreemptionCall::Cohort,
                             "the root cohort of the preemptor's ClusterQueue, or None")
      .def_property_readonly("usage", &PreemptionCall::Usage,
                             "the quota the preemptor needs: {(flavor, resource): canonical amount}")
      .def_property_readonly("resources_needing_preemption", &PreemptionCall::ResourcesNeedingPreemption,
                             "the (flavor, resource) pairs whose assignment needs preemption")
      .def_property_readonly("within_cluster_queue", &PreemptionCall::WithinClusterQueue,
                             "the ClusterQueue's preemption.withinClusterQueue")
      .def_property_readonly("reclaim_within_cohort", &PreemptionCall::ReclaimWithinCohort,
                             "the ClusterQueue's preemption.reclaimWithinCohort")
      .def_property_readonly("fair_sharing", &PreemptionCall::FairSharing,
                             "whether the Configuration enables fair sharing")
      .def_property_readonly("now", &PreemptionCall::Now, "simulated seconds")
      .def_property_readonly("candidates", &PreemptionCall::Candidates,
                             "the admitted workloads of the preemptor's ClusterQueue and of the other "
                             "ClusterQueues of its cohort, as kueuesim.PreemptionCandidate (no particular order)")
      .def("fits", &PreemptionCall::Fits, py::arg("workloads") = py::tuple(), py::arg("allow_borrowing") = true,
           "Whether the preemptor fits once `workloads` (keys or candidates) are removed; the cluster is left "
           "as it was")
      .def("__repr__", [](const PreemptionCall&) { return std::string("<kueuesim.PreemptionRequest>"); });

  py::class_<DispatchCluster>(m, "DispatchCluster", "One worker cluster of a DispatchRequest (a copy)")
      .def_readonly("name", &DispatchCluster::name, "the MultiKueueCluster name")
      .def_readonly("connected", &DispatchCluster::connected)
      .def_readonly("has_queue", &DispatchCluster::has_queue,
                    "the worker has the workload's LocalQueue, pointing to an existing ClusterQueue")
      .def_readonly("free", &DispatchCluster::free,
                    "free quota in the worker's ClusterQueue per requested resource (canonical amounts)")
      .def_readonly("pending", &DispatchCluster::pending, "workloads pending in the worker's ClusterQueue")
      .def("__repr__", [](const DispatchCluster& c) { return "<kueuesim.DispatchCluster " + c.name + ">"; });

  py::class_<DispatchRequestView>(m, "DispatchRequest", "What a dispatcher's nominate receives (a copy)")
      .def_readonly("workload", &DispatchRequestView::workload, "namespace/name on the manager")
      .def_readonly("priority", &DispatchRequestView::priority)
      .def_readonly("requests", &DispatchRequestView::requests,
                    "total requests per resource, canonical amounts (milli-CPU for cpu)")
      .def_readonly("now", &DispatchRequestView::now, "simulated seconds")
      .def_readonly("reserved_at", &DispatchRequestView::reserved_at,
                    "when the manager reserved quota, simulated seconds")
      .def_readonly("last_nomination", &DispatchRequestView::last_nomination,
                    "when the nomination last changed (simulated seconds), or None")
      .def_readonly("clusters", &DispatchRequestView::clusters,
                    "the MultiKueueConfig's clusters in its order, as kueuesim.DispatchCluster")
      .def_readonly("nominated", &DispatchRequestView::nominated, "indexes into clusters nominated now")
      .def("__repr__", [](const DispatchRequestView& r) { return "<kueuesim.DispatchRequest " + r.workload + ">"; });

  py::class_<PySimulation>(m, "Simulation")
      .def("run", &PySimulation::Run, py::arg("until") = py::none(), py::arg("max_cycles") = py::none(),
           py::kw_only(), py::arg("check_invariants") = false,
           "Runs until `until` (seconds or a duration string like \"2h\"), else until nothing is left to do; "
           "check_invariants=True verifies Kueue's invariants after every event and cycle (RuntimeError on a "
           "violation; stays on for later calls)")
      .def("step_to", &PySimulation::StepTo, py::arg("time"), py::kw_only(), py::arg("check_invariants") = false,
           "Runs up to simulated time `time` (seconds or a duration string); events at that time happen")
      .def("events", &PySimulation::Events, "The event log so far: a list of dicts, the JSONL event log's fields")
      .def("events_frame", &PySimulation::EventsFrame, "events() as a pandas DataFrame (needs pandas)")
      .def("summary", &PySimulation::Summary, "The run summary as a dict (the CLI's --summary JSON)")
      .def("workloads", &PySimulation::Workloads, py::arg("as_frame") = py::none(),
           "The per-workload table (the CLI's --workloads): a pandas DataFrame when pandas is present (or "
           "as_frame=True), else a list of dicts; times as UTC datetimes when the scenario has a startTime")
      .def("timeseries", &PySimulation::TimeSeries, py::arg("as_frame") = py::none(),
           "The time series (the CLI's --timeseries) with numeric values and a unit column; DataFrame or rows "
           "as workloads()")
      .def("summary_frames", &PySimulation::SummaryFrames, py::arg("as_frame") = py::none(),
           "The summary's tables as a dict: clusterQueues, resources, cohorts (quantities as floats in "
           "cores / bytes / units); DataFrames or rows as workloads()")
      .def("pending", &PySimulation::Pending, py::arg("workload"), py::arg("cluster") = "",
           "Why a workload waits now: {workload, cluster, clusterQueue, reason, message, since} with Kueue's "
           "QuotaReserved=False reason and message, or None when it holds quota or was not evaluated yet")
      .def("pending_workloads", &PySimulation::PendingWorkloads, py::arg("cluster") = "",
           "Every workload without quota now, as pending() describes it")
      .def_property_readonly("now", &PySimulation::Now, "Simulated time, seconds")
      .def_property_readonly("cycles", &PySimulation::Cycles, "Scheduling cycles so far");

  py::class_<PyScenario>(m, "Scenario")
      .def("simulation", [](const PyScenario& s) { return std::make_unique<PySimulation>(s); },
           "A new simulation of this scenario as it is now (later changes do not affect it)")
      .def("copy", [](const PyScenario& s) { return PyScenario{s.scenario}; })
      .def("set_quota", &PyScenario::SetQuota, py::arg("cluster_queue"), py::arg("flavor"), py::arg("resource"),
           py::kw_only(), py::arg("nominal") = py::none(), py::arg("borrowing_limit") = py::none(),
           py::arg("lending_limit") = py::none(), py::arg("cluster") = "",
           "Changes a ClusterQueue's quota for one flavor and resource (quantities like \"8\" or \"680Gi\"; "
           "NO_LIMIT removes a limit)")
      .def("set_fair_sharing_weight", &PyScenario::SetFairSharingWeight, py::arg("name"), py::arg("weight"),
           py::arg("kind") = "ClusterQueue", py::arg("cluster") = "")
      .def("set_policy", &PyScenario::SetPolicy, py::arg("kind"), py::arg("name"),
           py::arg("parameters") = std::map<std::string, std::string>{},
           "Selects a registered policy: kind queueOrdering, preemption or dispatcher")
      .def("cluster_queues", &PyScenario::ClusterQueues, py::arg("cluster") = "")
      .def(
          "quotas",
          [](PyScenario& s, const std::string& cluster, const py::object& as_frame) {
            const TableShape shape = ShapeArg(as_frame, "Scenario.quotas");
            return QuotaTable(s.ClusterQueues(cluster), cluster, shape);
          },
          py::arg("cluster") = "", py::arg("as_frame") = py::none(),
          "The ClusterQueues' quotas as a table: nominalQuota, borrowingLimit, lendingLimit as floats in "
          "cores / bytes / units (None or NaN: no limit); a DataFrame when pandas is present")
      .def_property_readonly("policies", &PyScenario::Policies)
      .def_property(
          "seed", [](const PyScenario& s) { return s.scenario.settings.seed; },
          [](PyScenario& s, uint64_t seed) { s.scenario.settings.seed = seed; })
      .def_property_readonly("clusters",
                             [](const PyScenario& s) {
                               std::vector<std::string> names;
                               for (const auto& c : s.scenario.clusters) names.push_back(c.name);
                               return names;
                             })
      .def_property_readonly("warnings", [](const PyScenario& s) { return s.scenario.report.warnings; });

  m.def("load", &Load, py::arg("files"), "Loads scenario files (a path or a list of paths)");
  m.def("loads", &Loads, py::arg("text"), py::arg("name") = "<string>", "Loads a scenario from YAML or JSON text");
  m.def("from_objects", &FromObjects, py::arg("objects"), py::arg("name") = "<objects>",
        "Loads a scenario from a list of Kubernetes objects as dicts");
  m.def("register_queue_ordering", &RegisterQueueOrdering, py::arg("name"), py::arg("factory"),
        py::arg("description") = "",
        "Registers a queue-ordering policy: factory(parameters: dict) returns an object with compare(a, b)");
  m.def("register_preemption", &RegisterPreemption, py::arg("name"), py::arg("factory"), py::arg("description") = "",
        "Registers a preemption policy: factory(parameters: dict) returns an object with get_targets(request), "
        "which returns the workloads to preempt (keys or candidates, optionally as (workload, reason) pairs)");
  m.def("register_dispatcher", &RegisterDispatcher, py::arg("name"), py::arg("factory"), py::arg("description") = "",
        "Registers a MultiKueue dispatcher: factory(parameters: dict) returns an object with nominate(request), "
        "which returns the nominated clusters (indexes or names), or {\"nominated\": [...], \"recheck_at\": s}");
  m.def("policies", []() {
    py::list out;
    for (const policy::PolicyInfo& info : Registry().List()) {
      py::dict d;
      d["kind"] = std::string(policy::PolicyKindName(info.kind));
      d["name"] = info.name;
      d["description"] = info.description;
      out.append(d);
    }
    return out;
  });
}
