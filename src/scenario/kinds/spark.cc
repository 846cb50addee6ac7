// sparkoperator.k8s.io/v1beta2 SparkApplication, as kueue
// pkg/controller/jobs/sparkapplication (sparkapplication_controller.go,
// sparkapplication_podset.go, sparkapplication_webhook.go) turns it into a
// Workload: pod sets "driver" (1 pod) and "executor" (spec.executor.instances
// pods), each from a pod Kueue synthesises as the Spark operator's pod
// mutator would: one Spark container whose cpu request is coreRequest (not
// cores), memory request `memory` (Java units k/m/g/t/p[b] as Ki/Mi/Gi/Ti/Pi,
// no memory overhead), limits coreLimit / memoryLimit and the gpu as a limit
// (a limit stands in for a missing request); plus the role's sidecars and
// init containers, nodeSelector, affinity, tolerations and priorityClassName.
// The operator's defaulting is applied first (memory 1g; one executor unless
// dynamic allocation or sparkConf says otherwise).
#include <fmt/format.h>

#include "kueuesim/base/quantity.h"
#include "kueuesim/base/status.h"
#include "scenario/kinds/common.h"
#include "scenario/kinds/kinds.h"

namespace kueuesim::scenario::kinds {
namespace {

// spark-operator pkg/util ConvertJavaMemoryStringToK8sMemoryString: a
// lowercase-matched Java unit suffix is trimmed case-sensitively, so "1G"
// becomes "1GGi" (not a quantity), as in the operator.
std::string JavaMemoryToQuantity(const std::string& memory) {
  const std::string lower = Lower(memory);
  static const std::pair<const char*, const char*> kUnits[] = {{"kb", "Ki"}, {"mb", "Mi"}, {"gb", "Gi"}, {"tb", "Ti"},
                                                               {"pb", "Pi"}, {"k", "Ki"},  {"m", "Mi"},  {"g", "Gi"},
                                                               {"t", "Ti"},  {"p", "Pi"}};
  for (const auto& [unit, k8s] : kUnits) {
    const std::string_view u(unit);
    if (lower.size() >= u.size() && lower.compare(lower.size() - u.size(), u.size(), u) == 0) {
      std::string trimmed = memory;
      if (trimmed.size() >= u.size() && trimmed.compare(trimmed.size() - u.size(), u.size(), u) == 0) {
        trimmed.resize(trimmed.size() - u.size());
      }
      return trimmed + k8s;
    }
  }
  return memory;
}

absl::Status AddQuantity(const FieldReader& field, const std::string& text, const std::string& resource,
                         std::map<std::string, Amount>* into) {
  auto amount = ParseCanonicalValue(text, resource);
  if (!amount.ok()) return field.Error(fmt::format("\"{}\" is not a {} quantity: {}", text, resource,
                                                   StatusMessage(amount.status())));
  if (*amount < 0) return field.Error(fmt::format("\"{}\" must not be negative", text));
  (*into)[resource] = *amount;
  return absl::OkStatus();
}

// The pod set of one role (`role`: spec.driver or spec.executor).
absl::StatusOr<model::PodSet> RolePodSet(const FieldReader& spec, const char* role_name, const char* pod_set_name,
                                         int32_t count) {
  FieldReader role = spec.Field(role_name);
  KUEUESIM_RETURN_IF_ERROR(role.ExpectMapping());
  PodSpecExtras extras;
  extras.containers_field = "sidecars";
  PodSpecExtras::Container spark;
  KUEUESIM_ASSIGN_OR_RETURN(auto core_request, role.Field("coreRequest").OptString());
  if (core_request.has_value()) {
    KUEUESIM_RETURN_IF_ERROR(AddQuantity(role.Field("coreRequest"), *core_request, "cpu", &spark.requests));
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto core_limit, role.Field("coreLimit").OptString());
  if (core_limit.has_value()) {
    KUEUESIM_RETURN_IF_ERROR(AddQuantity(role.Field("coreLimit"), *core_limit, "cpu", &spark.limits));
  }
  // The operator's defaulting: memory 1g unless sparkConf names it.
  KUEUESIM_ASSIGN_OR_RETURN(auto memory, role.Field("memory").OptString());
  KUEUESIM_ASSIGN_OR_RETURN(model::Labels spark_conf, spec.Field("sparkConf").StringMap());
  if (!memory.has_value() && !spark_conf.count(fmt::format("spark.{}.memory", role_name))) memory = "1g";
  if (memory.has_value()) {
    KUEUESIM_RETURN_IF_ERROR(
        AddQuantity(role.Field("memory"), JavaMemoryToQuantity(*memory), "memory", &spark.requests));
  }
  KUEUESIM_ASSIGN_OR_RETURN(auto memory_limit, role.Field("memoryLimit").OptString());
  if (memory_limit.has_value()) {
    KUEUESIM_RETURN_IF_ERROR(
        AddQuantity(role.Field("memoryLimit"), JavaMemoryToQuantity(*memory_limit), "memory", &spark.limits));
  }
  FieldReader gpu = role.Field("gpu");
  if (gpu.present()) {
    KUEUESIM_ASSIGN_OR_RETURN(auto gpu_name, gpu.Field("name").OptString());
    int64_t quantity = 0;
    if (gpu.Field("quantity").present()) {
      KUEUESIM_ASSIGN_OR_RETURN(quantity, gpu.Field("quantity").Int64());
    }
    if (!gpu_name.value_or("").empty() && quantity > 0) {
      KUEUESIM_RETURN_IF_ERROR(AddQuantity(gpu.Field("quantity"), std::to_string(quantity), *gpu_name, &spark.limits));
    }
  }
  extras.extra_containers.push_back(std::move(spark));
  model::PodSet pod_set;
  pod_set.name = pod_set_name;
  pod_set.count = count;
  KUEUESIM_RETURN_IF_ERROR(DecodePodSpec(role, extras, &pod_set));

  // Metadata: the role template's, overridden by the role's own annotations.
  FieldReader template_annotations = role.Field("template").Field("metadata").Field("annotations");
  FieldReader role_annotations = role.Field("annotations");
  KUEUESIM_RETURN_IF_ERROR(template_annotations.ExpectMapping());
  KUEUESIM_RETURN_IF_ERROR(role_annotations.ExpectMapping());
  KUEUESIM_ASSIGN_OR_RETURN(model::Labels annotations, template_annotations.StringMap());
  KUEUESIM_ASSIGN_OR_RETURN(model::Labels overrides, role_annotations.StringMap());
  for (auto& [key, value] : overrides) annotations[key] = value;
  KUEUESIM_ASSIGN_OR_RETURN(
      pod_set.topology_request,
      TopologyRequestFromMap(
          annotations, role_annotations.present() ? role_annotations : template_annotations,
          [&](std::string_view key) {
            return overrides.count(std::string(key)) ? role_annotations.Field(key) : template_annotations.Field(key);
          },
          count, TopologyIndex{}));
  return pod_set;
}

}  // namespace

absl::StatusOr<Decoded> DecodeSparkApplication(const FieldReader& object) {
  KUEUESIM_ASSIGN_OR_RETURN(JobObject job, ReadJobObject(object, "SparkApplication"));
  Decoded out;
  if (job.queue_name.empty()) {
    out.ignored = NoQueueNameReason();
    return out;
  }
  FieldReader spec = object.Field("spec");
  KUEUESIM_RETURN_IF_ERROR(spec.ExpectMapping());
  // The operator defaults mode to cluster; Kueue manages only that mode.
  KUEUESIM_ASSIGN_OR_RETURN(auto mode, spec.Field("mode").OptString());
  if (mode.value_or("cluster") != "cluster") {
    return spec.Field("mode").Error(
        fmt::format("\"{}\": only Cluster mode is supported for a kueue managed job", *mode));
  }
  bool dynamic_allocation = false;
  FieldReader dynamic = spec.Field("dynamicAllocation");
  if (dynamic.Field("enabled").present()) {
    KUEUESIM_ASSIGN_OR_RETURN(dynamic_allocation, dynamic.Field("enabled").Bool());
  }
  // Dynamic allocation needs an elastic job, which the elastic-job
  // annotation cannot make of a SparkApplication (ValidateJobOnCreate).
  if (dynamic_allocation && !IsElastic(job)) {
    return dynamic.Field("enabled").Error(
        "a kueue managed job can use dynamicAllocation only when the ElasticJobsViaWorkloadSlices feature gate is on "
        "and the job is an elastic job");
  }
  KUEUESIM_RETURN_IF_ERROR(ValidateJobOnCreate(object, job, /*elastic_supported=*/false));
  KUEUESIM_ASSIGN_OR_RETURN(model::Workload wl,
                            NewWorkload(object, job, model::WorkloadSourceKind::kSparkApplication));
  // Executors: spec.executor.instances; the operator defaults it to 1 unless
  // sparkConf sets spark.executor.instances or enables dynamic allocation
  // (then Kueue counts 0, its fallback for nil).
  KUEUESIM_ASSIGN_OR_RETURN(model::Labels spark_conf, spec.Field("sparkConf").StringMap());
  const bool conf_dynamic = !dynamic.present() && (spark_conf["spark.dynamicallocation.enabled"] == "true" ||
                                                   spark_conf["spark.dynamicallocation.enabled"] == "True" ||
                                                   spark_conf["spark.dynamicallocation.enabled"] == "1");
  const int32_t default_instances =
      spark_conf["spark.executor.instances"].empty() && !dynamic_allocation && !conf_dynamic ? 1 : 0;
  KUEUESIM_ASSIGN_OR_RETURN(int32_t instances,
                            CountField(spec.Field("executor").Field("instances"), default_instances));
  KUEUESIM_ASSIGN_OR_RETURN(model::PodSet driver, RolePodSet(spec, "driver", "driver", 1));
  KUEUESIM_ASSIGN_OR_RETURN(model::PodSet executor, RolePodSet(spec, "executor", "executor", instances));
  wl.pod_sets.push_back(std::move(driver));
  wl.pod_sets.push_back(std::move(executor));
  out.workload = std::move(wl);
  return out;
}

}  // namespace kueuesim::scenario::kinds
