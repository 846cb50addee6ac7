// LeaderWorkerSet and Change decoders.
#include "scenario/decode_workloads.h"

#include <fmt/format.h>

#include "kueuesim/base/status.h"
#include "kueuesim/workloads/lws_rollout.h"
#include "scenario/decode.h"

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

absl::StatusOr<model::Change> DecodeChange(const FieldReader& object) {
  model::Change change;
  change.source.file = object.node().file();
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
  KUEUESIM_ASSIGN_OR_RETURN(auto ns, target.Field("namespace").OptString());
  change.target_namespace = ns.value_or("default");
  if (change.target_kind != "LeaderWorkerSet") {
    return target.Field("kind").Error(fmt::format(
        "unsupported kind \"{}\" (valid: LeaderWorkerSet, MultiKueueCluster)", change.target_kind));
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
