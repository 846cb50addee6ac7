// Helpers for tests that start from YAML manifests: load a scenario from
// strings, and build the compiled ClusterState of its default cluster with
// every workload added (ClusterState::Build + AddWorkload, as the runtime
// does). Header-only; BuildClusterState needs kueuesim::cluster.
#ifndef KUEUESIM_TESTING_SCENARIO_FIXTURES_H_
#define KUEUESIM_TESTING_SCENARIO_FIXTURES_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/scenario/scenario.h"

namespace kueuesim::testing {

// Loads one in-memory file named `name`.
inline absl::StatusOr<scenario::Scenario> LoadYaml(std::string_view yaml,
                                                   const std::string& name = "test.yaml") {
  return scenario::LoadScenarioStrings({{name, std::string(yaml)}});
}

// A ClusterQueue manifest (v1beta2, namespaceSelector {}) with one resource
// group covering `resources`, one FlavorQuota per flavor in preference order
// (e.g. {"default", {"10", "10Gi"}}). `extra_spec` is inserted verbatim under
// spec (lines indented by 2 spaces).
struct FlavorQuota {
  std::string flavor;
  std::vector<std::string> quotas;           // nominalQuota per resource
  std::vector<std::string> borrowing_limits;  // "" for none; may be empty
};

inline std::string ClusterQueueYaml(const std::string& name, const std::vector<std::string>& resources,
                                    const std::vector<FlavorQuota>& flavors,
                                    const std::string& extra_spec = "") {
  std::string out = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: " + name +
                    "\nspec:\n  namespaceSelector: {}\n" + extra_spec + "  resourceGroups:\n  - coveredResources: [";
  for (size_t i = 0; i < resources.size(); ++i) out += (i ? ", " : "") + resources[i];
  out += "]\n    flavors:\n";
  for (const auto& f : flavors) {
    out += "    - name: " + f.flavor + "\n      resources:\n";
    for (size_t i = 0; i < resources.size(); ++i) {
      out += "      - name: " + resources[i] + "\n        nominalQuota: \"" + f.quotas[i] + "\"\n";
      if (i < f.borrowing_limits.size() && !f.borrowing_limits[i].empty()) {
        out += "        borrowingLimit: \"" + f.borrowing_limits[i] + "\"\n";
      }
    }
  }
  return out + "---\n";
}

inline std::string ResourceFlavorYaml(const std::string& name, const std::string& spec = "") {
  std::string out = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: " + name + "\n";
  if (!spec.empty()) out += "spec:\n" + spec;
  return out + "---\n";
}

inline std::string LocalQueueYaml(const std::string& ns, const std::string& name, const std::string& cq) {
  return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: " + name +
         "\n  namespace: " + ns + "\nspec:\n  clusterQueue: " + cq + "\n---\n";
}

// A Workload (v1beta2) with one pod set "main" of `count` pods, each with one
// container requesting `requests` ({resource, quantity} pairs).
struct WorkloadOptions {
  std::string ns = "default";
  std::string queue = "q";
  int count = 1;
  int min_count = 0;  // 0: not set
  std::vector<std::pair<std::string, std::string>> requests = {{"cpu", "1"}};
  int priority = 0;
  bool set_priority = false;
  std::string arrival;   // kueuesim.io/arrival
  std::string duration;  // kueuesim.io/duration
  std::string creation;  // metadata.creationTimestamp
  std::string uid;
  std::string pod_spec_extra;  // inserted under template.spec (8-space indent)
  std::string pod_set_extra;   // inserted under the pod set (4-space indent)
};

inline std::string WorkloadYaml(const std::string& name, const WorkloadOptions& o = {}) {
  std::string out = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: " + name +
                    "\n  namespace: " + o.ns + "\n";
  if (!o.uid.empty()) out += "  uid: " + o.uid + "\n";
  if (!o.creation.empty()) out += "  creationTimestamp: \"" + o.creation + "\"\n";
  if (!o.arrival.empty() || !o.duration.empty()) {
    out += "  annotations:\n";
    if (!o.arrival.empty()) out += "    kueuesim.io/arrival: \"" + o.arrival + "\"\n";
    if (!o.duration.empty()) out += "    kueuesim.io/duration: \"" + o.duration + "\"\n";
  }
  out += "spec:\n  queueName: " + o.queue + "\n";
  if (o.set_priority) out += "  priority: " + std::to_string(o.priority) + "\n";
  out += "  podSets:\n  - name: main\n    count: " + std::to_string(o.count) + "\n";
  if (o.min_count > 0) out += "    minCount: " + std::to_string(o.min_count) + "\n";
  out += o.pod_set_extra;
  out += "    template:\n      spec:\n" + o.pod_spec_extra +
         "        containers:\n        - name: c\n          resources:\n            requests:\n";
  for (const auto& [resource, amount] : o.requests) {
    out += "              " + resource + ": \"" + amount + "\"\n";
  }
  return out + "---\n";
}

}  // namespace kueuesim::testing

#endif  // KUEUESIM_TESTING_SCENARIO_FIXTURES_H_
