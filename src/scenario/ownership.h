// Which objects of the input get no Workload of their own because another
// object stands for them, as Kueue's job framework decides in a cluster
// (an export holds parents and children together):
//
//  - A child of a job Kueue manages: jobframework.FindAncestorJobManagedByKueue
//    walks the controller owners (metadata.ownerReferences with controller:
//    true) through the kinds Kueue integrates; when an ancestor is a job with
//    a queue name, the object is not a top-level job and its ancestor's
//    Workload admits it (a JobSet's Jobs, the RayCluster of a RayJob, an
//    AppWrapper's components, the pods of a StatefulSet or of a
//    LeaderWorkerSet's groups). The walk stops at an owner that is not in
//    the input, whose uid differs from the reference's, or whose kind Kueue
//    does not integrate (a Deployment's ReplicaSet: its pods are managed one
//    by one).
//  - The pods of a Deployment of the input: Kueue's pod integration admits
//    a Deployment's pods one by one, and kueuesim makes the Deployment's
//    replicas as such pods; the pods of the input (owned by a ReplicaSet
//    that the Deployment owns, or named "<deployment>-<pod-template-hash>"
//    as the Deployment controller names its ReplicaSets when the ReplicaSet
//    is not in the input) are its current replicas, with their state, and
//    stand for as many of the replicas kueuesim would make.
//  - The group Workloads of a LeaderWorkerSet of the input (Kueue's LWS
//    reconciler makes one per group, owned by the LeaderWorkerSet through
//    an owner reference that is not a controller reference): kueuesim's LWS
//    controller makes and runs the groups from the LeaderWorkerSet itself,
//    so the exported ones go.
//  - A job whose Workload is in the input: Kueue keeps one Workload per job
//    (ensureOneWorkload); an exported Workload whose controller owner is a
//    job of the input stands for that job, with its status (admission,
//    conditions), and the Workload kueuesim would make from the job goes.
//
// Objects are identified by cluster, namespace, API group, kind and name.
// Only objects that can take part are kept: those with a controller owner,
// and objects that made Workloads (not Workload objects without an owner),
// so that an export of Workloads alone costs nothing here.
#ifndef KUEUESIM_SCENARIO_OWNERSHIP_H_
#define KUEUESIM_SCENARIO_OWNERSHIP_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kueuesim/doc/document.h"

namespace kueuesim::scenario {

class Ownership {
 public:
  // Records `object` of `cluster`, read by the loader, whose Workloads got
  // the input sequences [first_sequence, end_sequence).
  void Note(const std::string& cluster, std::string_view api_version, std::string_view kind, const doc::Node& object,
            int64_t first_sequence, int64_t end_sequence);

  struct Dropped {
    // Input sequences whose Workloads go, as [first, end) ranges, sorted.
    std::vector<std::pair<int64_t, int64_t>> ranges;
    // One line per object that lost its Workloads, with the reason
    // ("<file>:<line>: Job \"x\" ...").
    std::vector<std::string> warnings;
    // Input sequences of the Workloads that are a Deployment's current
    // replicas (its pods', or the exported Workloads standing for them), as
    // [first, end) ranges: they are the Deployment's replicas (object kind
    // Deployment, serving) like those kueuesim makes.
    std::vector<std::pair<int64_t, int64_t>> deployment_replicas;
    bool Contains(int64_t sequence) const;  // in `ranges`
    bool IsDeploymentReplica(int64_t sequence) const;  // in `deployment_replicas`
  };
  Dropped Resolve() const;

 private:
  struct Owner {
    std::string key;  // Key() of the owner
    std::string uid;
    std::string group;  // its API group, kind and name, as the reference gives them
    std::string kind;
    std::string name;
  };
  struct Record {
    std::string kind;  // "Job", "JobSet", ...
    std::string name;
    std::string uid;
    std::string where;  // "<file>:<line>"
    bool known_kind = false;     // a kind Kueue integrates (walks go through it)
    bool is_workload = false;    // a kueue.x-k8s.io Workload
    bool is_pod = false;         // a core Pod
    std::string cluster;         // where it is (a Pod's, to find its Deployment)
    std::string ns;
    std::string pod_template_hash;  // a Pod's pod-template-hash label
    bool has_owner = false;
    Owner owner;
    // A Workload's LeaderWorkerSet (an owner reference that is not a
    // controller reference: Kueue's LWS reconciler sets it so).
    bool has_group_owner = false;
    Owner group_owner;
    int64_t first_sequence = 0;
    int64_t end_sequence = 0;
    bool made_workloads() const { return end_sequence > first_sequence; }
  };
  static std::string Key(std::string_view cluster, std::string_view ns, std::string_view group, std::string_view kind,
                         std::string_view name);

  std::unordered_map<std::string, Record> records_;
  std::vector<std::string> order_;  // keys in input order (deterministic output)
};

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_OWNERSHIP_H_
