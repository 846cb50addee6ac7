// Kueue feature gates that change scheduling decisions, with the defaults of
// the reference Kueue version (main at ff69552e, v0.20 development:
// pkg/features/kube_features.go). A Configuration's featureGates override
// them; unknown gate names are accepted and ignored (Kueue has many that do
// not affect admission), but reported as a warning by the loader.
#ifndef KUEUESIM_MODEL_FEATURE_GATES_H_
#define KUEUESIM_MODEL_FEATURE_GATES_H_

#include <map>
#include <string>
#include <vector>

namespace kueuesim::model {

struct FeatureGates {
  // Beta, on by default.
  bool partial_admission = true;
  bool flavor_fungibility = true;
  bool priority_sorting_within_cohort = true;
  bool fair_sharing_preempt_within_nominal = true;
  bool fair_sharing_prioritize_non_borrowing = true;
  bool topology_aware_scheduling = true;
  bool tas_profile_mixed = true;
  bool tas_failed_node_replacement = true;
  bool tas_failed_node_replacement_fail_fast = true;
  bool admission_fair_sharing = true;
  bool scheduling_equivalence_hashing = true;
  bool tas_recompute_assignment_within_scheduling_cycle = true;
  bool tas_multi_layer_topology = true;
  bool tas_handle_overlapping_flavors = true;
  bool flavor_fungibility_preserve_scan_progress = true;
  bool recompute_assignment_upon_preemption_targets_overlap = true;
  bool reclaimable_pods = true;
  bool quota_check_strategy = true;
  bool kueue_dra_integration = true;
  bool kueue_dra_integration_extended_resource = true;
  bool kueue_dra_integration_partitionable_devices = true;
  bool kueue_dra_reject_workloads_when_dra_disabled = true;
  bool workload_priority_class_defaulting = true;
  bool admission_gated_by = true;
  bool multikueue = true;
  bool multikueue_incremental_dispatcher_config = true;
  bool multikueue_incremental_dispatcher_respect_config_order = true;
  // The QuotaReserved=False reasons of pending workloads: granular
  // (WaitingForQuota, NoMatchingFlavor, ...) when on, "Pending" /
  // "Inadmissible" when off. Changes no decision.
  bool unadmitted_workloads_observability = true;
  // Alpha, off by default.
  bool tas_balanced_placement = false;
  bool tas_respect_node_affinity_preferred = false;
  bool prioritize_preemptor_workloads = false;
  bool priority_boost = false;
  bool concurrent_admission = false;
  bool multikueue_orchestrated_preemption = false;
  bool disable_wait_for_pods_ready = false;
  bool kueue_dra_integration_consumable_capacity = false;
  // Stamps QuotaReserved=False (PendingEvaluation) on a workload as soon as
  // it is created (requires UnadmittedWorkloadsObservability).
  bool unadmitted_workloads_explicit_status = false;

  // Applies `overrides` (gate name -> enabled). Returns the names this
  // struct does not model, for a warning.
  std::vector<std::string> Apply(const std::map<std::string, bool>& overrides);
};

}  // namespace kueuesim::model

#endif  // KUEUESIM_MODEL_FEATURE_GATES_H_
