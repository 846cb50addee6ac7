// LeaderWorkerSet and Change decoders.
#include "scenario/decode_workloads.h"

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/workloads/lws_rollout.h"
#include "scenario/decode.h"
#include "scenario/decode_nodes.h"
#include "scenario/decode_provisioning.h"

namespace kueuesim::scenario {
namespace {

constexpr char kQueueNameLabel[] = "kueue.x-k8s.io/queue-name";
constexpr char kPriorityClassLabel[] = "kueue.x-k8s.io/priority-class";

absl::Status DecodeLwsTemplate(const FieldReader& field, const std::string& name, model::PodSet* out) {
  out->name = name;
  KUEUESIM_RETURN_IF_ERROR(DecodePodTemplate(field, out));
  KUEUESIM_ASSIGN_OR_RETURN(out->topology_request,
                            DecodeTopologyAnnotations(field.Field("metadata").Field("annotations")));
  return absl::OkStatus();
}

absl::Status CheckIntOrPercent(const FieldReader& field, std::string* out) {
  if (!field.present()) return absl::OkStatus();
  KUEUESIM_ASSIGN_OR_RETURN(std::string text, field.String());
  auto parsed = workloads::IntOrPercent::Parse(text);
  if (!parsed.ok()) return field.Error(StatusMessage(parsed.status()));
  if (parsed->percent && parsed->value > 100) return field.Error("must not exceed 100%");
  *out = text;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<model::LeaderWorkerSet> DecodeLeaderWorkerSet(const FieldReader& object) {
  model::LeaderWorkerSet lws;
  KUEUESIM_ASSIGN_OR_RETURN(lws.meta, DecodeMeta(object, true));
  if (auto it = lws.meta.labels.find(kQueueNameLabel); it != lws.meta.labels.end()) lws.queue_name = it->second;
  if (auto it = lws.meta.labels.find(kPriorityClassLabel); it != lws.meta.labels.end()) {
    lws.priority_class_name = it->second;
  }
  FieldReader annotations = object.Field("metadata").Field("annotations");
  if (annotations.Field("kueuesim.io/leader-startup-delay").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(lws.leader_startup_delay,
                              annotations.Field("kueuesim.io/leader-startup-delay").Duration());
  }
  if (annotations.Field("kueuesim.io/worker-startup-delay").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(lws.worker_startup_delay,
                              annotations.Field("kueuesim.io/worker-startup-delay").Duration());
  }
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  if (spec.Field("replicas").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(lws.replicas, spec.Field("replicas").Int32());
  }
  if (lws.replicas < 0 || lws.replicas > 1000000) {
    return spec.Field("replicas").Error("must be between 0 and 1,000,000");
  }
  FieldReader lwt = spec.Field("leaderWorkerTemplate");
  KUEUESIM_RETURN_IF_ERROR(lwt.ExpectMapping());
  if (lwt.Field("size").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(lws.size, lwt.Field("size").Int32());
  }
  if (lws.size < 1) return lwt.Field("size").Error("must be at least 1");
  if (!lwt.Field("workerTemplate").present()) return lwt.Field("workerTemplate").Error("is required");
  const bool has_leader = lwt.Field("leaderTemplate").present();
  if (has_leader) {
    model::PodSet leader;
    KUEUESIM_RETURN_IF_ERROR(DecodeLwsTemplate(lwt.Field("leaderTemplate"), "leader", &leader));
    leader.count = 1;
    lws.leader_template = std::move(leader);
  }
  KUEUESIM_RETURN_IF_ERROR(
      DecodeLwsTemplate(lwt.Field("workerTemplate"), has_leader ? "worker" : "main", &lws.worker_template));
  lws.worker_template.count = has_leader ? lws.size - 1 : lws.size;
  if (lws.worker_template.topology_request.has_value()) {
    // Kueue's LWS integration under TAS: the worker (or main) pod set ranks
    // its pods by their worker index (the leader is 0); next to a leader
    // template and outside a pod-set group, the LWS webhook adds
    // pod-index-offset 1 to the worker template, so worker w has rank w - 1.
    model::TopologyRequest& request = *lws.worker_template.topology_request;
    request.pod_index_label = "leaderworkerset.sigs.k8s.io/worker-index";
    if (has_leader && !request.pod_set_group_name.has_value()) request.pod_index_offset = 1;
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto restart, lwt.Field("restartPolicy").OptString());
  lws.restart_policy = restart.value_or("RecreateGroupOnPodRestart");
  if (lws.restart_policy == "Default") lws.restart_policy = "None";
  if (lws.restart_policy != "RecreateGroupOnPodRestart" && lws.restart_policy != "RecreateGroupAfterStart" &&
      lws.restart_policy != "None") {
    return lwt.Field("restartPolicy").Error(fmt::format(
        "unknown value \"{}\" (valid: RecreateGroupOnPodRestart, RecreateGroupAfterStart, None)",
        lws.restart_policy));
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto startup, spec.Field("startupPolicy").OptString());
  if (startup.has_value() && *startup != "LeaderCreated" && *startup != "LeaderReady") {
    return spec.Field("startupPolicy").Error(
        fmt::format("unknown value \"{}\" (valid: LeaderCreated, LeaderReady)", *startup));
  }
  lws.startup_leader_ready = startup.value_or("LeaderCreated") == "LeaderReady";
  FieldReader rolling = spec.Field("rolloutStrategy").Field("rollingUpdateConfiguration");
  KUEUESIM_RETURN_IF_ERROR(CheckIntOrPercent(rolling.Field("maxUnavailable"), &lws.max_unavailable));
  KUEUESIM_RETURN_IF_ERROR(CheckIntOrPercent(rolling.Field("maxSurge"), &lws.max_surge));
  if (rolling.Field("partition").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(lws.partition, rolling.Field("partition").Int32());
    if (lws.partition < 0) return rolling.Field("partition").Error("must not be negative");
  }
  auto mu = workloads::IntOrPercent::Parse(lws.max_unavailable);
  auto ms = workloads::IntOrPercent::Parse(lws.max_surge);
  if (lws.replicas > 0 && mu->Scaled(lws.replicas, false) == 0 && ms->Scaled(lws.replicas, true) == 0) {
    return rolling.Error("maxUnavailable and maxSurge must not both be 0");
  }
  return lws;
}

namespace {

// Changes to Kueue objects over time: quota edits, fair-sharing weights,
// stop policies, WorkloadPriorityClass values.
absl::StatusOr<model::Change> DecodeKueueObjectChange(const FieldReader& object, const FieldReader& spec,
                                                     model::Change change) {
  (void)object;
  const std::string& kind = change.target_kind;
  if (kind == "LocalQueue") {
    KUEUESIM_ASSIGN_OR_RETURN(auto ns, spec.Field("target").Field("namespace").OptString());
    change.target_namespace = ns.value_or("default");
  }
  bool any = false;
  FieldReader resources = spec.Field("resources");
  if (resources.present()) {
    if (kind != "ClusterQueue" && kind != "Cohort") return resources.Error("only a ClusterQueue or Cohort has quotas");
    KUEUESIM_RETURN_IF_ERROR(resources.ExpectSequence());
    for (size_t i = 0; i < resources.size(); ++i) {
      FieldReader item = resources.Index(i);
      KUEUESIM_RETURN_IF_ERROR(item.ExpectMapping());
      model::Change::QuotaEdit edit;
      KUEUESIM_ASSIGN_OR_RETURN(edit.flavor, item.Field("flavor").String());
      KUEUESIM_ASSIGN_OR_RETURN(edit.resource, item.Field("name").String());
      if (item.Field("nominalQuota").present()) {
        KUEUESIM_ASSIGN_OR_RETURN(edit.nominal, item.Field("nominalQuota").AmountOf(edit.resource, true));
      }
      struct Limit {
        const char* name;
        bool* set;
        std::optional<Amount>* value;
      };
      for (const Limit& limit : {Limit{"borrowingLimit", &edit.set_borrowing_limit, &edit.borrowing_limit},
                                 Limit{"lendingLimit", &edit.set_lending_limit, &edit.lending_limit}}) {
        if (!item.node().Get(limit.name).valid()) continue;
        *limit.set = true;
        FieldReader field = item.Field(limit.name);
        if (field.present()) {  // null removes the limit
          KUEUESIM_ASSIGN_OR_RETURN(Amount amount, field.AmountOf(edit.resource, true));
          *limit.value = amount;
        }
      }
      if (!edit.nominal.has_value() && !edit.set_borrowing_limit && !edit.set_lending_limit) {
        return item.Error("must set nominalQuota, borrowingLimit or lendingLimit");
      }
      change.quota_edits.push_back(std::move(edit));
    }
    any = true;
  }
  FieldReader weight = spec.Field("fairSharing").Field("weight");
  if (weight.present()) {
    if (kind != "ClusterQueue" && kind != "Cohort") return weight.Error("only a ClusterQueue or Cohort has a weight");
    KUEUESIM_ASSIGN_OR_RETURN(Quantity q, weight.QuantityValue());
    auto milli = ScaledValue(q, -3);
    if (!milli.ok() || *milli < 0) return weight.Error("must be a non-negative quantity");
    change.fair_weight = static_cast<double>(*milli) / 1000.0;
    any = true;
  }
  FieldReader stop = spec.Field("stopPolicy");
  if (stop.present()) {
    if (kind != "ClusterQueue" && kind != "LocalQueue") return stop.Error("only a ClusterQueue or LocalQueue stops");
    KUEUESIM_ASSIGN_OR_RETURN(std::string value, stop.String());
    if (value == "None") {
      change.stop_policy = model::StopPolicy::kNone;
    } else if (value == "Hold") {
      change.stop_policy = model::StopPolicy::kHold;
    } else if (value == "HoldAndDrain") {
      change.stop_policy = model::StopPolicy::kHoldAndDrain;
    } else {
      return stop.Error(fmt::format("unknown value \"{}\" (valid: None, Hold, HoldAndDrain)", value));
    }
    any = true;
  }
  FieldReader value = spec.Field("value");
  if (value.present()) {
    if (kind != "WorkloadPriorityClass") return value.Error("only a WorkloadPriorityClass has a value");
    KUEUESIM_ASSIGN_OR_RETURN(change.priority_value, value.OptInt32());
    any = true;
  }
  if (!any) return spec.Error(fmt::format("a {} change must set resources, fairSharing.weight, stopPolicy or value", kind));
  return change;
}

// Node changes: a node added (spec.node) or removed, its Ready condition or
// spec.unschedulable changed.
absl::StatusOr<model::Change> DecodeNodeChange(const FieldReader& spec, model::Change change) {
  FieldReader action = spec.Field("action");
  if (action.present()) {
    KUEUESIM_ASSIGN_OR_RETURN(std::string value, action.String());
    if (value == "Add") {
      change.node_action = model::Change::NodeAction::kAdd;
    } else if (value == "Remove") {
      change.node_action = model::Change::NodeAction::kRemove;
    } else {
      return action.Error(fmt::format("unknown value \"{}\" (valid: Add, Remove)", value));
    }
  }
  FieldReader node = spec.Field("node");
  if (node.present() != (change.node_action == model::Change::NodeAction::kAdd)) {
    return node.present() ? node.Error("only an Add change describes the node")
                          : spec.Error("an Add change must describe the node in `node` (labels, allocatable, taints)");
  }
  if (node.present()) {
    KUEUESIM_RETURN_IF_ERROR(node.ExpectMapping());
    model::NodeTemplate own;
    own.source = change.source;
    KUEUESIM_ASSIGN_OR_RETURN(own.labels, node.Field("labels").StringMap());
    KUEUESIM_ASSIGN_OR_RETURN(own.taints, DecodeTaintList(node.Field("taints")));
    FieldReader allocatable = node.Field("allocatable");
    if (!allocatable.present()) return allocatable.Error("is required");
    KUEUESIM_RETURN_IF_ERROR(allocatable.ExpectMapping());
    for (size_t i = 0; i < allocatable.node().size(); ++i) {
      std::string resource(allocatable.node().key(i));
      KUEUESIM_ASSIGN_OR_RETURN(own.allocatable[resource], allocatable.Field(resource).AmountOf(resource, true));
    }
    // kubernetes.io/hostname is the node's name unless the labels say (as the kubelet sets it).
    const bool hostname_given = own.labels.contains(kHostnameLabel);
    model::Node n(change.target_name, std::move(own));
    n.hostname_label = !hostname_given;
    if (node.Field("unschedulable").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(n.unschedulable, node.Field("unschedulable").Bool());
    }
    if (node.Field("ready").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(n.ready, node.Field("ready").Bool());
    }
    change.node = std::move(n);
  }
  for (const auto& [name, target] : {std::pair{"ready", &change.node_ready},
                                     std::pair{"unschedulable", &change.node_unschedulable}}) {
    FieldReader field = spec.Field(name);
    if (!field.present()) continue;
    if (change.node_action != model::Change::NodeAction::kNone) {
      return field.Error("set it in the node of an Add change; a removed node has none");
    }
    KUEUESIM_ASSIGN_OR_RETURN(bool value, field.Bool());
    *target = value;
  }
  if (change.node_action == model::Change::NodeAction::kNone && !change.node_ready.has_value() &&
      !change.node_unschedulable.has_value()) {
    return spec.Error("a Node change must set action (Add, Remove), ready or unschedulable");
  }
  return change;
}

}  // namespace

absl::StatusOr<model::Change> DecodeChange(const FieldReader& object) {
  model::Change change;
  change.source.file = object.node().shared_file();
  change.source.line = object.node().position().line;
  KUEUESIM_ASSIGN_OR_RETURN(auto name, object.Field("metadata").Field("name").OptString());
  change.name = name.value_or("");
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(change.at, spec.Field("at").Duration());
  FieldReader target = spec.Field("target");
  KUEUESIM_ASSIGN_OR_RETURN(change.target_kind, target.Field("kind").String());
  KUEUESIM_ASSIGN_OR_RETURN(change.target_name, target.Field("name").String());
  if (change.target_kind == "MultiKueueCluster") {
    if (!spec.Field("connected").present()) return spec.Error("a MultiKueueCluster change must set connected");
    KUEUESIM_ASSIGN_OR_RETURN(bool connected, spec.Field("connected").Bool());
    change.connected = connected;
    return change;
  }
  if (change.target_kind == "ClusterQueue" || change.target_kind == "Cohort" ||
      change.target_kind == "LocalQueue" || change.target_kind == "WorkloadPriorityClass") {
    return DecodeKueueObjectChange(object, spec, std::move(change));
  }
  if (change.target_kind == "Node") return DecodeNodeChange(spec, std::move(change));
  if (change.target_kind == "AutoscalerPool") return DecodeAutoscalerPoolChange(spec, std::move(change));
  KUEUESIM_ASSIGN_OR_RETURN(auto ns, target.Field("namespace").OptString());
  change.target_namespace = ns.value_or("default");
  if (change.target_kind != "LeaderWorkerSet") {
    return target.Field("kind").Error(
        fmt::format("unsupported kind \"{}\" (valid: ClusterQueue, Cohort, LocalQueue, WorkloadPriorityClass, "
                    "Node, LeaderWorkerSet, MultiKueueCluster, AutoscalerPool)",
                    change.target_kind));
  }
  KUEUESIM_ASSIGN_OR_RETURN(change.replicas, spec.Field("replicas").OptInt32());
  if (change.replicas.has_value() && *change.replicas < 0) return spec.Field("replicas").Error("must not be negative");
  if (spec.Field("rollout").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(change.rollout, spec.Field("rollout").Bool());
  }
  KUEUESIM_ASSIGN_OR_RETURN(change.partition, spec.Field("partition").OptInt32());
  KUEUESIM_ASSIGN_OR_RETURN(change.fail_group, spec.Field("failGroup").OptInt32());
  if (!change.replicas.has_value() && !change.rollout && !change.partition.has_value() &&
      !change.fail_group.has_value()) {
    return spec.Error("must set at least one of replicas, rollout, partition, failGroup");
  }
  return change;
}

}  // namespace kueuesim::scenario
