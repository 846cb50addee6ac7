// Objects that another object of the input stands for; see ownership.h.
#include "scenario/ownership.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

namespace kueuesim::scenario {
namespace {

// The API group of an apiVersion ("batch/v1" -> "batch", "v1" -> "").
std::string_view GroupOf(std::string_view api_version) {
  const size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

std::string_view ScalarOf(const doc::Node& node) { return node.IsScalar() ? node.scalar() : std::string_view(); }

// The kinds Kueue integrates (IntegrationManager.isKnownOwner): a walk up
// the owners goes through them and stops at any other kind.
bool KnownKind(std::string_view group, std::string_view kind) {
  if (group.empty()) return kind == "Pod";
  if (group == "batch") return kind == "Job";
  if (group == "apps") return kind == "StatefulSet" || kind == "Deployment";
  return group == "jobset.x-k8s.io" || group == "kubeflow.org" || group == "trainer.kubeflow.org" ||
         group == "ray.io" || group == "workload.codeflare.dev" || group == "sparkoperator.k8s.io" ||
         group == "leaderworkerset.x-k8s.io";
}

// Walks longer than this are cut (Kueue's managedOwnersChainLimit is 10).
constexpr int kMaxOwnerDepth = 10;

}  // namespace

std::string Ownership::Key(std::string_view cluster, std::string_view ns, std::string_view group,
                           std::string_view kind, std::string_view name) {
  std::string key;
  key.reserve(cluster.size() + ns.size() + group.size() + kind.size() + name.size() + 4);
  for (std::string_view part : {cluster, ns, group, kind}) {
    key.append(part);
    key.push_back('\0');
  }
  key.append(name);
  return key;
}

void Ownership::Note(const std::string& cluster, std::string_view api_version, std::string_view kind,
                     const doc::Node& object, int64_t first_sequence, int64_t end_sequence) {
  if (!object.IsMapping()) return;
  const std::string_view group = GroupOf(api_version);
  const doc::Node metadata = object.Get("metadata");
  const std::string_view name = ScalarOf(metadata.Get("name"));
  if (name.empty()) return;
  std::string_view ns = ScalarOf(metadata.Get("namespace"));
  if (ns.empty()) ns = "default";
  // The controller owner (metav1.GetControllerOf).
  const doc::Node* controller = nullptr;
  const doc::Node owners = metadata.Get("ownerReferences");
  doc::Node controller_node;
  for (size_t i = 0; owners.IsSequence() && i < owners.size(); ++i) {
    const doc::Node owner = owners.at(i);
    if (ScalarOf(owner.Get("controller")) == "true") {
      controller_node = owner;
      controller = &controller_node;
      break;
    }
  }
  const bool is_workload = group == "kueue.x-k8s.io" && kind == "Workload";
  const bool made_workloads = end_sequence > first_sequence;
  // A Workload's LeaderWorkerSet: Kueue's LWS reconciler sets an owner
  // reference that is not a controller reference (taken as the group owner
  // also if an older version made it one).
  doc::Node group_owner;
  for (size_t i = 0; is_workload && owners.IsSequence() && i < owners.size(); ++i) {
    const doc::Node owner = owners.at(i);
    if (ScalarOf(owner.Get("kind")) == "LeaderWorkerSet" &&
        GroupOf(ScalarOf(owner.Get("apiVersion"))) == "leaderworkerset.x-k8s.io") {
      group_owner = owner;
      break;
    }
  }
  bool has_group_owner = group_owner.IsMapping();
  if (has_group_owner && controller != nullptr) {
    if (ScalarOf(controller->Get("kind")) == "LeaderWorkerSet") {
      controller = nullptr;  // the group owner
    } else {
      has_group_owner = false;  // another controller: the rules below
    }
  }
  if (controller == nullptr && !has_group_owner && (!made_workloads || is_workload)) return;
  std::string key = Key(cluster, ns, group, kind, name);
  if (records_.count(key) != 0) return;  // a duplicate: the loader reports it where it matters
  Record record;
  record.kind = std::string(kind);
  record.name = std::string(name);
  record.uid = std::string(ScalarOf(metadata.Get("uid")));
  record.where = fmt::format("{}:{}", object.file(), object.position().line);
  record.known_kind = KnownKind(group, kind);
  record.is_workload = is_workload;
  record.is_pod = group.empty() && kind == "Pod";
  if (record.is_pod) {
    record.cluster = cluster;
    record.ns = std::string(ns);
    record.pod_template_hash = std::string(ScalarOf(metadata.Get("labels").Get("pod-template-hash")));
  }
  record.first_sequence = first_sequence;
  record.end_sequence = end_sequence;
  if (controller != nullptr) {
    record.has_owner = true;
    record.owner.group = std::string(GroupOf(ScalarOf(controller->Get("apiVersion"))));
    record.owner.kind = std::string(ScalarOf(controller->Get("kind")));
    record.owner.name = std::string(ScalarOf(controller->Get("name")));
    record.owner.key = Key(cluster, ns, record.owner.group, record.owner.kind, record.owner.name);
    record.owner.uid = std::string(ScalarOf(controller->Get("uid")));
  }
  if (has_group_owner) {
    record.has_group_owner = true;
    record.group_owner.group = "leaderworkerset.x-k8s.io";
    record.group_owner.kind = "LeaderWorkerSet";
    record.group_owner.name = std::string(ScalarOf(group_owner.Get("name")));
    record.group_owner.key = Key(cluster, ns, record.group_owner.group, record.group_owner.kind,
                                 record.group_owner.name);
    record.group_owner.uid = std::string(ScalarOf(group_owner.Get("uid")));
  }
  order_.push_back(key);
  records_.emplace(std::move(key), std::move(record));
}

namespace {

// Whether `sequence` is in one of `ranges` ([first, end), sorted, not
// overlapping: one per object).
bool InRanges(const std::vector<std::pair<int64_t, int64_t>>& ranges, int64_t sequence) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), sequence,
                             [](int64_t s, const std::pair<int64_t, int64_t>& range) { return s < range.first; });
  return it != ranges.begin() && sequence < std::prev(it)->second;
}

}  // namespace

bool Ownership::Dropped::Contains(int64_t sequence) const { return InRanges(ranges, sequence); }

bool Ownership::Dropped::IsDeploymentReplica(int64_t sequence) const {
  return InRanges(deployment_replicas, sequence);
}

Ownership::Dropped Ownership::Resolve() const {
  Dropped dropped;
  // The record a reference names, or null when it is not in the input or
  // its uid is not the reference's (when both are known).
  const auto follow = [this](const Owner& owner) -> const Record* {
    auto it = records_.find(owner.key);
    if (it == records_.end()) return nullptr;
    if (!owner.uid.empty() && !it->second.uid.empty() && owner.uid != it->second.uid) return nullptr;
    return &it->second;
  };
  std::set<std::string> dropped_jobs;  // keys of objects whose Workloads went
  // The exported Workload standing for an object, by the object's key.
  std::unordered_map<std::string, const Record*> standing_for;
  for (const std::string& key : order_) {
    const Record& record = records_.at(key);
    if (record.has_group_owner && record.made_workloads()) {
      // A group Workload of a LeaderWorkerSet kueuesim runs.
      const Record* lws = follow(record.group_owner);
      if (lws == nullptr || !lws->made_workloads()) continue;
      dropped.ranges.emplace_back(record.first_sequence, record.end_sequence);
      dropped.warnings.push_back(fmt::format(
          "{}: Workload \"{}\" is a group Workload of LeaderWorkerSet \"{}\" ({}): kueuesim makes and runs the "
          "LeaderWorkerSet's groups from it, so this Workload and its status are not used",
          record.where, record.name, lws->name, lws->where));
      continue;
    }
    if (!record.has_owner) continue;
    if (record.is_workload) {
      // An exported Workload stands for the job that owns it.
      const Record* job = follow(record.owner);
      if (job == nullptr || job->is_workload || !job->made_workloads() || !dropped_jobs.insert(record.owner.key).second) {
        continue;
      }
      dropped.ranges.emplace_back(job->first_sequence, job->end_sequence);
      standing_for[record.owner.key] = &record;
      dropped.warnings.push_back(fmt::format(
          "{}: {} \"{}\" has its Workload \"{}\" in the input ({}), which stands for it (Kueue keeps one Workload "
          "per job)",
          job->where, job->kind, job->name, record.name, record.where));
      continue;
    }
    if (!record.made_workloads()) continue;
    // FindAncestorJobManagedByKueue: the highest managed job among the
    // controller owners.
    const Record* top = nullptr;
    const Record* current = &record;
    for (int depth = 0; depth < kMaxOwnerDepth && current->has_owner; ++depth) {
      const Record* owner = follow(current->owner);
      if (owner == nullptr || !owner->known_kind || owner == &record) break;
      if (owner->made_workloads()) top = owner;
      current = owner;
    }
    if (top == nullptr || !dropped_jobs.insert(key).second) continue;
    dropped.ranges.emplace_back(record.first_sequence, record.end_sequence);
    dropped.warnings.push_back(fmt::format(
        "{}: {} \"{}\" belongs to {} \"{}\" ({}), a job Kueue manages: the ancestor's Workload admits it, it gets "
        "none of its own",
        record.where, record.kind, record.name, top->kind, top->name, top->where));
  }
  // A Deployment's pods in the input are its current replicas. Their
  // ReplicaSet is the Deployment's when the ReplicaSet is in the input and
  // names the Deployment as its controller, or, when it is not in the input,
  // when its name is the Deployment's name and the pod's pod-template-hash
  // label (the Deployment controller's naming).
  struct DeploymentPods {
    int64_t count = 0;
    const Record* first = nullptr;  // for the warning
  };
  std::unordered_map<std::string, DeploymentPods> pods_of_deployment;
  std::vector<std::string> deployments;  // keys, in the order their first pod came
  for (const std::string& key : order_) {
    const Record& pod = records_.at(key);
    if (!pod.is_pod || !pod.has_owner || !pod.made_workloads()) continue;
    if (pod.owner.group != "apps" || pod.owner.kind != "ReplicaSet") continue;
    const Record* deployment = nullptr;
    std::string deployment_key;
    if (const Record* replica_set = follow(pod.owner); replica_set != nullptr) {
      if (!replica_set->has_owner || replica_set->owner.group != "apps" || replica_set->owner.kind != "Deployment") {
        continue;
      }
      deployment = follow(replica_set->owner);
      deployment_key = replica_set->owner.key;
    } else {
      const std::string& hash = pod.pod_template_hash;
      const std::string& replica_set_name = pod.owner.name;
      if (hash.empty() || replica_set_name.size() <= hash.size() + 1 ||
          !replica_set_name.ends_with(hash) || replica_set_name[replica_set_name.size() - hash.size() - 1] != '-') {
        continue;
      }
      deployment_key = Key(pod.cluster, pod.ns, "apps", "Deployment",
                           std::string_view(replica_set_name).substr(0, replica_set_name.size() - hash.size() - 1));
      auto it = records_.find(deployment_key);
      if (it != records_.end()) deployment = &it->second;
    }
    if (deployment == nullptr || deployment->kind != "Deployment" || !deployment->made_workloads() ||
        dropped_jobs.count(deployment_key) != 0) {
      continue;
    }
    DeploymentPods& pods = pods_of_deployment[deployment_key];
    if (pods.count++ == 0) {
      pods.first = &pod;
      deployments.push_back(deployment_key);
    }
    auto standing = standing_for.find(key);
    const Record& replica = standing != standing_for.end() ? *standing->second : pod;
    dropped.deployment_replicas.emplace_back(replica.first_sequence, replica.end_sequence);
  }
  for (const std::string& key : deployments) {
    const Record& deployment = records_.at(key);
    const DeploymentPods& pods = pods_of_deployment.at(key);
    const int64_t replicas = deployment.end_sequence - deployment.first_sequence;
    const int64_t stood_for = std::min(replicas, pods.count);
    dropped.ranges.emplace_back(deployment.end_sequence - stood_for, deployment.end_sequence);
    dropped.warnings.push_back(fmt::format(
        "{}: Deployment \"{}\" has {} pod(s) in the input (first: {} \"{}\"): they are its current replicas and "
        "stand for {} of the {} replica Workload(s) it would make; {} more are made",
        deployment.where, deployment.name, pods.count, pods.first->where, pods.first->name, stood_for, replicas,
        replicas - stood_for));
  }
  std::sort(dropped.ranges.begin(), dropped.ranges.end());
  std::sort(dropped.deployment_replicas.begin(), dropped.deployment_replicas.end());
  return dropped;
}

}  // namespace kueuesim::scenario
