// The `kueuesim` Python module: load a scenario, change quotas, weights and
// policies between runs, run it (all at once or step by step), read the
// event log and the summary as plain Python lists and dicts, and write
// queue-ordering policies in Python. See docs/python.md.
//
// Errors: a library absl::Status becomes kueuesim.InputError (a subclass of
// kueuesim.Error and ValueError) for bad input, kueuesim.Error otherwise,
// with the library's message. The GIL is held during runs: a Python policy
// is called directly from the scheduler.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kueuesim/base/quantity.h"
#include "kueuesim/base/status.h"
#include "kueuesim/base/time.h"
#include "kueuesim/cluster/cluster_state.h"
#include "kueuesim/metrics/event_log.h"
#include "kueuesim/metrics/summary.h"
#include "kueuesim/policy/registry.h"
#include "kueuesim/scenario/scenario.h"
#include "kueuesim/sim/simulation.h"

namespace py = pybind11;

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
// register_queue_ordering. Never destroyed: it holds Python objects, which
// must not be released after the interpreter is gone.
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
        py::dict args;
        for (const auto& [key, value] : parameters) args[py::str(key)] = value;
        py::object policy = factory(args);
        if (!py::hasattr(policy, "compare")) {
          return InvalidArgument("Python queue ordering policy \"" + name + "\": the factory returned an object " +
                                 "without a compare(a, b) method");
        }
        return std::unique_ptr<policy::QueueOrderingPolicy>(new PythonQueueOrdering(name, std::move(policy)));
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
  }
  ~PySimulation() {
    sim_.reset();
    if (events_file_ != nullptr) std::fclose(events_file_);
    std::free(events_buffer_);
  }
  PySimulation(const PySimulation&) = delete;
  PySimulation& operator=(const PySimulation&) = delete;

  void Run(const py::object& until, const py::object& max_cycles) {
    sim::RunOptions options;
    if (!until.is_none()) options.until = DurationArg(until, "until");
    if (!max_cycles.is_none()) options.max_cycles = max_cycles.cast<int64_t>();
    RunWith(options);
  }

  void StepTo(const py::object& time) {
    sim::RunOptions options;
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
    return JsonLoads(metrics::SummaryToJson(summary));
  }

  double Now() const { return Seconds(sim_->now()); }
  int64_t Cycles() const { return sim_->cycles(); }

 private:
  void CheckUsable() const {
    if (broken_) {
      Raise(FailedPrecondition("this simulation stopped at an exception raised by a Python policy; create a new "
                               "one with scenario.simulation()"));
    }
  }
  void RunWith(const sim::RunOptions& options) {
    CheckUsable();
    absl::Status status;
    try {
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
  bool broken_ = false;
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
                                      "A pending workload as a queue-ordering policy sees it (read-only, valid "
                                      "during the compare call only)")
      .def_property_readonly("key", [](const cluster::WorkloadRecord& w) { return w.key; })
      .def_property_readonly("name", [](const cluster::WorkloadRecord& w) { return w.spec->meta.name; })
      .def_property_readonly("namespace", [](const cluster::WorkloadRecord& w) { return w.spec->meta.namespace_; })
      .def_property_readonly("uid", [](const cluster::WorkloadRecord& w) { return w.spec->meta.uid; })
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

  py::class_<PySimulation>(m, "Simulation")
      .def("run", &PySimulation::Run, py::arg("until") = py::none(), py::arg("max_cycles") = py::none(),
           "Runs until `until` (seconds or a duration string like \"2h\"), else until nothing is left to do")
      .def("step_to", &PySimulation::StepTo, py::arg("time"),
           "Runs up to simulated time `time` (seconds or a duration string); events at that time happen")
      .def("events", &PySimulation::Events, "The event log so far: a list of dicts, the JSONL event log's fields")
      .def("events_frame", &PySimulation::EventsFrame, "events() as a pandas DataFrame (needs pandas)")
      .def("summary", &PySimulation::Summary, "The run summary as a dict (the CLI's --summary JSON)")
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
