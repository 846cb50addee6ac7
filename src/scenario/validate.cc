// Scenario validation. Mirrors Kueue's admission webhooks
// (pkg/webhooks/clusterqueue_webhook.go, cohort_webhook.go,
// workload_webhook.go) for errors, and the cache's "inactive" and
// "missing" states (pkg/cache/scheduler) for warnings.
#include "scenario/validate.h"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <fmt/format.h>

#include "absl/container/flat_hash_map.h"

#include "kueuesim/base/status.h"
#include "kueuesim/scenario/default_durations.h"
#include "scenario/decode_provisioning.h"

namespace kueuesim::scenario {
namespace {

std::string Where(const model::ObjectMeta& meta) {
  return fmt::format("{}:{}", meta.source.file.str(), meta.source.line);
}

absl::Status ObjectError(const model::ObjectMeta& meta, const std::string& kind,
                         const std::string& field, const std::string& message) {
  std::string name = meta.namespace_.empty() ? meta.name : meta.namespace_ + "/" + meta.name;
  return InvalidArgument(fmt::format("{}: {} \"{}\": {}: {}", Where(meta), kind, name, field, message));
}

template <typename T>
absl::Status CheckDuplicates(const std::vector<T>& objects, const std::string& kind,
                             const std::string& cluster) {
  // Keyed by views of (namespace, name): no copy per object (a scenario may
  // hold a hundred thousand Workloads).
  absl::flat_hash_map<std::pair<std::string_view, std::string_view>, const model::ObjectMeta*> seen;
  seen.reserve(objects.size());
  for (const auto& object : objects) {
    auto [it, inserted] = seen.emplace(std::make_pair(std::string_view(object.meta.namespace_),
                                                      std::string_view(object.meta.name)),
                                       &object.meta);
    if (!inserted) {
      return ObjectError(object.meta, kind, "metadata.name",
                         fmt::format("duplicate object: already defined at {}{}", Where(*it->second),
                                     cluster.empty() ? "" : " in cluster \"" + cluster + "\""));
    }
  }
  return absl::OkStatus();
}

// CheckDuplicates for Nodes (cluster-scoped, compact: names are viewed, not
// copied, as a scenario may have a million).
absl::Status CheckDuplicateNodes(const std::vector<model::Node>& nodes, const std::string& cluster) {
  absl::flat_hash_map<std::string_view, const model::Node*> seen;
  seen.reserve(nodes.size());
  for (const model::Node& node : nodes) {
    auto [it, inserted] = seen.emplace(node.name, &node);
    if (!inserted) {
      return InvalidArgument(fmt::format("{}: Node \"{}\": metadata.name: duplicate object: already defined at {}{}",
                                         node.source().ToString(), node.name, it->second->source().ToString(),
                                         cluster.empty() ? "" : " in cluster \"" + cluster + "\""));
    }
  }
  return absl::OkStatus();
}

// Validation shared by ClusterQueue and Cohort resource groups.
absl::Status ValidateResourceGroups(const std::vector<model::ResourceGroup>& groups,
                                    const model::ObjectMeta& meta, const std::string& kind,
                                    bool has_parent) {
  if (groups.size() > 16) {
    return ObjectError(meta, kind, "spec.resourceGroups", "must have at most 16 resource groups");
  }
  std::map<std::string, size_t> resource_group;
  std::map<std::string, size_t> flavor_group;
  size_t total_flavors = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto& group = groups[g];
    std::string group_path = fmt::format("spec.resourceGroups[{}]", g);
    if (group.covered_resources.empty() || group.covered_resources.size() > 64) {
      return ObjectError(meta, kind, group_path + ".coveredResources", "must list 1 to 64 resources");
    }
    if (group.flavors.empty() || group.flavors.size() > 64) {
      return ObjectError(meta, kind, group_path + ".flavors", "must list 1 to 64 flavors");
    }
    for (size_t r = 0; r < group.covered_resources.size(); ++r) {
      const std::string& resource = group.covered_resources[r];
      auto [it, inserted] = resource_group.emplace(resource, g);
      if (!inserted) {
        return ObjectError(meta, kind, fmt::format("{}.coveredResources[{}]", group_path, r),
                           fmt::format("resource \"{}\" is already covered by resourceGroups[{}]",
                                       resource, it->second));
      }
    }
    total_flavors += group.flavors.size();
    for (size_t f = 0; f < group.flavors.size(); ++f) {
      const auto& flavor = group.flavors[f];
      std::string flavor_path = fmt::format("{}.flavors[{}]", group_path, f);
      auto [it, inserted] = flavor_group.emplace(flavor.name, g);
      if (!inserted) {
        return ObjectError(meta, kind, flavor_path + ".name",
                           fmt::format("flavor \"{}\" is listed twice", flavor.name));
      }
      if (flavor.resources.size() != group.covered_resources.size()) {
        return ObjectError(meta, kind, flavor_path + ".resources",
                           "must list the group's coveredResources, in the same order");
      }
      for (size_t r = 0; r < flavor.resources.size(); ++r) {
        const auto& quota = flavor.resources[r];
        std::string quota_path = fmt::format("{}.resources[{}]", flavor_path, r);
        if (quota.name != group.covered_resources[r]) {
          return ObjectError(meta, kind, quota_path + ".name",
                             fmt::format("is \"{}\" but coveredResources[{}] is \"{}\"; flavors must "
                                         "list the covered resources in the same order",
                                         quota.name, r, group.covered_resources[r]));
        }
        if (quota.borrowing_limit.has_value() && !has_parent) {
          return ObjectError(meta, kind, quota_path + ".borrowingLimit",
                             kind == "Cohort" ? "must be nil when the cohort has no parent"
                                              : "must be nil when cohortName is empty");
        }
        if (quota.lending_limit.has_value()) {
          if (!has_parent) {
            return ObjectError(meta, kind, quota_path + ".lendingLimit",
                               kind == "Cohort" ? "must be nil when the cohort has no parent"
                                                : "must be nil when cohortName is empty");
          }
          if (kind == "ClusterQueue" && *quota.lending_limit > quota.nominal_quota) {
            return ObjectError(meta, kind, quota_path + ".lendingLimit",
                               "must be less than or equal to nominalQuota");
          }
        }
      }
    }
  }
  if (total_flavors > 256) {
    return ObjectError(meta, kind, "spec.resourceGroups", "must list at most 256 flavors in total");
  }
  return absl::OkStatus();
}

absl::Status ValidateClusterQueue(const model::ClusterQueue& cq) {
  KUEUESIM_RETURN_IF_ERROR(
      ValidateResourceGroups(cq.resource_groups, cq.meta, "ClusterQueue", !cq.cohort.empty()));
  const auto& fungibility = cq.flavor_fungibility;
  if (fungibility.preference != model::FungibilityPreference::kNone &&
      (fungibility.when_can_borrow != model::FungibilityPolicy::kTryNextFlavor ||
       fungibility.when_can_preempt != model::FungibilityPolicy::kTryNextFlavor)) {
    return ObjectError(cq.meta, "ClusterQueue", "spec.flavorFungibility.preference",
                       "may only be set when whenCanBorrow and whenCanPreempt are both TryNextFlavor");
  }
  if (cq.preemption.borrow_within_cohort.has_value() &&
      cq.preemption.borrow_within_cohort->policy != model::BorrowWithinCohortPolicy::kNever &&
      cq.preemption.reclaim_within_cohort == model::PreemptionPolicy::kNever) {
    return ObjectError(cq.meta, "ClusterQueue", "spec.preemption.borrowWithinCohort.policy",
                       "must be Never when reclaimWithinCohort is Never");
  }
  if (cq.fair_weight < 0 || (cq.fair_weight > 0 && cq.fair_weight <= 1e-9)) {
    return ObjectError(cq.meta, "ClusterQueue", "spec.fairSharing.weight",
                       "must be 0 or greater than 1e-9");
  }
  return absl::OkStatus();
}

bool IsDns1123Subdomain(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  size_t start = 0;
  while (true) {
    const size_t dot = host.find('.', start);
    const std::string_view label = host.substr(start, dot == std::string_view::npos ? host.npos : dot - start);
    if (label.empty()) return false;
    for (size_t i = 0; i < label.size(); ++i) {
      const char c = label[i];
      const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
      if (!alnum && (c != '-' || i == 0 || i + 1 == label.size())) return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// Kueue's webhooks (ValidateAdmissionGatedByAnnotationOnCreate, on Workloads
// and on every job kind) refuse a kueue.x-k8s.io/admission-gated-by value
// whose comma-separated gates (spaces trimmed) are empty, repeated, not
// domain-prefixed paths (validation.IsDomainPrefixedPath) or longer than 63.
absl::Status ValidateAdmissionGatedBy(const model::ObjectMeta& meta, const std::string& kind) {
  auto it = meta.annotations.find("kueue.x-k8s.io/admission-gated-by");
  if (it == meta.annotations.end() || it->second.empty()) return absl::OkStatus();
  const std::string& value = it->second;
  const std::string field = "metadata.annotations[kueue.x-k8s.io/admission-gated-by]";
  const auto reject = [&](const std::string& rule) {
    return ObjectError(meta, kind, field,
                       fmt::format("Kueue's webhook rejects \"{}\": {}", value, rule));
  };
  if (value.find_first_not_of(" \t\n\v\f\r") == std::string::npos) return absl::OkStatus();
  std::set<std::string> seen;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    std::string gate = value.substr(start, comma - start);
    const size_t first = gate.find_first_not_of(" \t\n\v\f\r");
    gate = first == std::string::npos ? "" : gate.substr(first, gate.find_last_not_of(" \t\n\v\f\r") - first + 1);
    start = comma + 1;
    if (gate.empty()) return reject("cannot contain empty gate names");
    if (!seen.insert(gate).second) return reject("duplicate gate name: " + gate);
    const size_t slash = gate.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == gate.size()) {
      return reject("must be a domain-prefixed path (such as \"acme.io/foo\")");
    }
    if (!IsDns1123Subdomain(std::string_view(gate).substr(0, slash))) {
      return reject(
          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
          "start and end with an alphanumeric character");
    }
    for (const char c : gate.substr(slash + 1)) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string_view("/-._~%!$&'()*+,;=:").find(c) != std::string_view::npos;
      if (!ok) return reject("Invalid path: must match the regex ^(?:[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+)$");
    }
    if (gate.size() > 63) return reject("may not be more than 63 bytes");
  }
  return absl::OkStatus();
}

// Finds a cycle in the cohort parent graph with a depth-first search;
// returns its members in order, or an empty list.
std::vector<std::string> FindCohortCycle(const ClusterSpec& cluster) {
  std::map<std::string, int> index;
  std::vector<std::string> names;
  auto id = [&](const std::string& name) {
    auto [it, inserted] = index.emplace(name, static_cast<int>(names.size()));
    if (inserted) names.push_back(name);
    return it->second;
  };
  std::vector<std::pair<int, int>> edges;
  for (const auto& cohort : cluster.cohorts) {
    int child = id(cohort.meta.name);
    if (!cohort.parent.empty()) edges.emplace_back(child, id(cohort.parent));
  }
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph graph(names.size());
  for (const auto& [from, to] : edges) boost::add_edge(from, to, graph);

  struct BackEdgeFinder : boost::default_dfs_visitor {
    int* target;
    void back_edge(Graph::edge_descriptor e, const Graph& g) const {
      if (*target < 0) *target = static_cast<int>(boost::target(e, g));
    }
  };
  int cycle_start = -1;
  BackEdgeFinder visitor;
  visitor.target = &cycle_start;
  boost::depth_first_search(graph, boost::visitor(visitor));
  if (cycle_start < 0) return {};
  // Walk parent edges from a vertex on the cycle until it repeats.
  std::map<int, int> parent;
  for (const auto& [from, to] : edges) parent[from] = to;
  std::vector<std::string> cycle;
  int node = cycle_start;
  do {
    cycle.push_back(names[static_cast<size_t>(node)]);
    node = parent[node];
  } while (node != cycle_start && cycle.size() <= names.size());
  return cycle;
}

absl::Status ValidateCluster(ClusterSpec* cluster, LoadReport* report) {
  const std::string& cname = cluster->name;
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicates(cluster->resource_flavors, "ResourceFlavor", cname));
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicates(cluster->cluster_queues, "ClusterQueue", cname));
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicates(cluster->cohorts, "Cohort", cname));
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicates(cluster->local_queues, "LocalQueue", cname));
  KUEUESIM_RETURN_IF_ERROR(
      CheckDuplicates(cluster->workload_priority_classes, "WorkloadPriorityClass", cname));
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicates(cluster->priority_classes, "PriorityClass", cname));
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicates(cluster->namespaces, "Namespace", cname));
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicates(cluster->admission_checks, "AdmissionCheck", cname));
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicates(cluster->topologies, "Topology", cname));
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicateNodes(cluster->nodes, cname));
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicates(cluster->workloads, "Workload", cname));

  std::set<std::string> flavors;
  for (const auto& flavor : cluster->resource_flavors) flavors.insert(flavor.meta.name);
  std::set<std::string> checks;
  for (const auto& check : cluster->admission_checks) checks.insert(check.meta.name);
  std::set<std::string> cohort_names;
  for (const auto& cohort : cluster->cohorts) {
    KUEUESIM_RETURN_IF_ERROR(
        ValidateResourceGroups(cohort.resource_groups, cohort.meta, "Cohort", !cohort.parent.empty()));
    cohort_names.insert(cohort.meta.name);
  }
  // Kueue accepts cohorts whose parents form a cycle (no webhook checks it)
  // and never admits from the ClusterQueues of such a tree (the snapshot
  // leaves them out as inactive, reason HasCycle); ClusterState does the same.
  std::vector<std::string> cycle = FindCohortCycle(*cluster);
  if (!cycle.empty()) {
    const model::Cohort* first = nullptr;
    for (const auto& cohort : cluster->cohorts) {
      if (cohort.meta.name == cycle.front()) first = &cohort;
    }
    std::string path;
    for (const auto& name : cycle) path += name + " -> ";
    path += cycle.front();
    report->warnings.push_back(fmt::format(
        "{}: Cohort \"{}\": spec.parentName: cohorts form a cycle: {}; Kueue admits nothing from the ClusterQueues "
        "of that tree",
        Where(first->meta), first->meta.name, path));
  }
  // Kueue builds a topology only from nodes carrying every level label
  // (kubelet sets kubernetes.io/hostname on real nodes; hand-written ones
  // may lack it). Say how many nodes a TAS flavor's topology leaves out.
  for (const auto& flavor : cluster->resource_flavors) {
    if (flavor.topology_name.empty()) continue;
    for (const auto& topology : cluster->topologies) {
      if (topology.meta.name != flavor.topology_name) continue;
      int64_t left_out = 0;
      std::string first_missing;
      for (const auto& node : cluster->nodes) {
        if (!node.HasLabels(flavor.node_labels)) continue;
        for (const auto& level : topology.levels) {
          if (node.FindLabel(level) != nullptr) continue;
          if (left_out++ == 0) first_missing = fmt::format("Node \"{}\" has no label {}", node.name, level);
          break;
        }
      }
      if (left_out > 0) {
        report->warnings.push_back(fmt::format(
            "{}: {} node(s) matching ResourceFlavor \"{}\" lack a level label of Topology \"{}\" ({}); Kueue "
            "leaves them out of the topology",
            Where(flavor.meta), left_out, flavor.meta.name, topology.meta.name, first_missing));
      }
    }
  }
  std::set<std::string> cq_names;
  for (const auto& cq : cluster->cluster_queues) {
    KUEUESIM_RETURN_IF_ERROR(ValidateClusterQueue(cq));
    cq_names.insert(cq.meta.name);
    for (const auto& group : cq.resource_groups) {
      for (const auto& flavor : group.flavors) {
        if (!flavors.count(flavor.name)) {
          report->warnings.push_back(fmt::format(
              "{}: ClusterQueue \"{}\" references missing ResourceFlavor \"{}\"; Kueue keeps it "
              "inactive",
              Where(cq.meta), cq.meta.name, flavor.name));
        }
      }
    }
    for (const auto& check : cq.admission_checks) {
      if (!checks.count(check.name)) {
        report->warnings.push_back(fmt::format(
            "{}: ClusterQueue \"{}\" references missing AdmissionCheck \"{}\"; Kueue keeps it inactive",
            Where(cq.meta), cq.meta.name, check.name));
      }
    }
  }
  std::set<std::string> lq_keys;
  for (const auto& lq : cluster->local_queues) {
    lq_keys.insert(lq.meta.namespace_ + "/" + lq.meta.name);
    if (lq.cluster_queue.empty()) {
      report->warnings.push_back(
          fmt::format("{}: LocalQueue \"{}/{}\" has no spec.clusterQueue; its workloads stay pending", Where(lq.meta),
                      lq.meta.namespace_, lq.meta.name));
    } else if (!cq_names.count(lq.cluster_queue)) {
      report->warnings.push_back(fmt::format(
          "{}: LocalQueue \"{}/{}\" points to missing ClusterQueue \"{}\"; its workloads stay pending",
          Where(lq.meta), lq.meta.namespace_, lq.meta.name, lq.cluster_queue));
    }
  }
  for (const auto& wl : cluster->workloads) {
    KUEUESIM_RETURN_IF_ERROR(
        ValidateAdmissionGatedBy(wl.meta, std::string(WorkloadObjectKind(wl))));
  }
  for (const auto& lws : cluster->leader_worker_sets) {
    KUEUESIM_RETURN_IF_ERROR(ValidateAdmissionGatedBy(lws.meta, "LeaderWorkerSet"));
  }
  // A Workload admitted in its status holds its quota from the start on the
  // ClusterQueue its admission names, which must exist (the run cannot give
  // the quota a home otherwise).
  for (const auto& wl : cluster->workloads) {
    if (!wl.admission.has_value() || cq_names.count(wl.admission->cluster_queue)) continue;
    return ObjectError(wl.meta, "Workload", "status.admission.clusterQueue",
                       fmt::format("ClusterQueue \"{}\" does not exist", wl.admission->cluster_queue));
  }
  for (const auto& wl : cluster->workloads) {
    if (wl.admission.has_value()) continue;
    if (!lq_keys.count(wl.meta.namespace_ + "/" + wl.queue_name)) {
      report->warnings.push_back(fmt::format(
          "{}: Workload \"{}/{}\" names missing LocalQueue \"{}\"; it stays pending",
          Where(wl.meta), wl.meta.namespace_, wl.meta.name, wl.queue_name));
    }
  }
  return absl::OkStatus();
}

}  // namespace

// MultiKueue wiring: MultiKueueClusters reach other clusters of the
// scenario; connection changes name a MultiKueueCluster. A config naming a
// missing MultiKueueCluster, or a MultiKueue admission check whose
// MultiKueueConfig is missing or of another kind, loads as in Kueue (the
// cluster is skipped, the check is inactive with reason BadConfig or
// NoUsableClusters, and so are its ClusterQueues) and gets a warning.
absl::Status ValidateMultiKueue(const Scenario& scenario, const ClusterSpec& cluster, LoadReport* report) {
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicates(cluster.multikueue_configs, "MultiKueueConfig", cluster.name));
  KUEUESIM_RETURN_IF_ERROR(CheckDuplicates(cluster.multikueue_clusters, "MultiKueueCluster", cluster.name));
  std::set<std::string> mk_clusters;
  for (const auto& mkc : cluster.multikueue_clusters) {
    mk_clusters.insert(mkc.meta.name);
    if (mkc.target_cluster == cluster.name) {
      return ObjectError(mkc.meta, "MultiKueueCluster", "metadata.name",
                         "a MultiKueueCluster must reach another cluster than its manager");
    }
    if (scenario.FindCluster(mkc.target_cluster) == nullptr) {
      std::string known;
      for (const auto& c : scenario.clusters) {
        if (c.name.empty()) continue;
        known += known.empty() ? c.name : ", " + c.name;
      }
      return ObjectError(mkc.meta, "MultiKueueCluster", "metadata.name",
                         fmt::format("no cluster named \"{}\" in the scenario (clusters: {}); name the "
                                     "worker's kueuesim.io/v1alpha1 Cluster like the MultiKueueCluster, or "
                                     "set the kueuesim.io/cluster-ref annotation",
                                     mkc.target_cluster, known.empty() ? "none" : known));
    }
  }
  std::set<std::string> configs;
  for (const auto& config : cluster.multikueue_configs) {
    configs.insert(config.meta.name);
    for (size_t i = 0; i < config.clusters.size(); ++i) {
      if (!mk_clusters.count(config.clusters[i])) {
        report->warnings.push_back(fmt::format(
            "{}: MultiKueueConfig \"{}\": spec.clusters[{}]: MultiKueueCluster \"{}\" does not exist; Kueue "
            "skips it (the admission checks using this config list it as missing)",
            Where(config.meta), config.meta.name, i, config.clusters[i]));
      }
    }
  }
  for (const auto& check : cluster.admission_checks) {
    if (check.controller_name != model::kMultiKueueControllerName) continue;
    if (check.parameters_kind != "MultiKueueConfig") {
      report->warnings.push_back(fmt::format(
          "{}: AdmissionCheck \"{}\": spec.parameters: a MultiKueue admission check needs parameters of kind "
          "MultiKueueConfig; Kueue keeps the check inactive (BadConfig), and the ClusterQueues using it",
          Where(check.meta), check.meta.name));
    } else if (!configs.count(check.parameters_name)) {
      report->warnings.push_back(fmt::format(
          "{}: AdmissionCheck \"{}\": spec.parameters.name: MultiKueueConfig \"{}\" does not exist; Kueue "
          "keeps the check inactive (BadConfig), and the ClusterQueues using it",
          Where(check.meta), check.meta.name, check.parameters_name));
    }
  }
  for (const auto& change : cluster.changes) {
    if (change.target_kind == "MultiKueueCluster" && !mk_clusters.count(change.target_name)) {
      return InvalidArgument(fmt::format("{}: Change \"{}\": spec.target.name: no MultiKueueCluster \"{}\"",
                                         change.source.ToString(), change.name, change.target_name));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateScenario(Scenario* scenario) {
  for (auto& cluster : scenario->clusters) {
    KUEUESIM_RETURN_IF_ERROR(ValidateCluster(&cluster, &scenario->report));
    KUEUESIM_RETURN_IF_ERROR(ValidateMultiKueue(*scenario, cluster, &scenario->report));
    KUEUESIM_RETURN_IF_ERROR(ValidateProvisioning(&cluster, &scenario->report));
  }
  return absl::OkStatus();
}

}  // namespace kueuesim::scenario
