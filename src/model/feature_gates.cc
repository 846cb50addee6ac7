// Feature gate names as Kueue spells them (pkg/features/kube_features.go).
#include "kueuesim/model/feature_gates.h"

#include <utility>

namespace kueuesim::model {

std::vector<std::string> FeatureGates::Apply(const std::map<std::string, bool>& overrides) {
  const std::pair<const char*, bool FeatureGates::*> kGates[] = {
      {"PartialAdmission", &FeatureGates::partial_admission},
      {"FlavorFungibility", &FeatureGates::flavor_fungibility},
      {"PrioritySortingWithinCohort", &FeatureGates::priority_sorting_within_cohort},
      {"FairSharingPreemptWithinNominal", &FeatureGates::fair_sharing_preempt_within_nominal},
      {"FairSharingPrioritizeNonBorrowing", &FeatureGates::fair_sharing_prioritize_non_borrowing},
      {"TopologyAwareScheduling", &FeatureGates::topology_aware_scheduling},
      {"TASProfileMixed", &FeatureGates::tas_profile_mixed},
      {"TASFailedNodeReplacement", &FeatureGates::tas_failed_node_replacement},
      {"TASFailedNodeReplacementFailFast", &FeatureGates::tas_failed_node_replacement_fail_fast},
      {"AdmissionFairSharing", &FeatureGates::admission_fair_sharing},
      {"SchedulingEquivalenceHashing", &FeatureGates::scheduling_equivalence_hashing},
      {"TASRecomputeAssignmentWithinSchedulingCycle",
       &FeatureGates::tas_recompute_assignment_within_scheduling_cycle},
      {"TASMultiLayerTopology", &FeatureGates::tas_multi_layer_topology},
      {"TASHandleOverlappingFlavors", &FeatureGates::tas_handle_overlapping_flavors},
      {"FlavorFungibilityPreserveScanProgress",
       &FeatureGates::flavor_fungibility_preserve_scan_progress},
      {"RecomputeAssignmentUponPreemptionTargetsOverlap",
       &FeatureGates::recompute_assignment_upon_preemption_targets_overlap},
      {"ReclaimablePods", &FeatureGates::reclaimable_pods},
      {"QuotaCheckStrategy", &FeatureGates::quota_check_strategy},
      {"KueueDRAIntegration", &FeatureGates::kueue_dra_integration},
      {"KueueDRAIntegrationExtendedResource", &FeatureGates::kueue_dra_integration_extended_resource},
      {"KueueDRAIntegrationPartitionableDevices",
       &FeatureGates::kueue_dra_integration_partitionable_devices},
      {"KueueDRAIntegrationConsumableCapacity", &FeatureGates::kueue_dra_integration_consumable_capacity},
      {"KueueDRARejectWorkloadsWhenDRADisabled",
       &FeatureGates::kueue_dra_reject_workloads_when_dra_disabled},
      {"WorkloadPriorityClassDefaulting", &FeatureGates::workload_priority_class_defaulting},
      {"UnadmittedWorkloadsObservability", &FeatureGates::unadmitted_workloads_observability},
      {"UnadmittedWorkloadsExplicitStatus", &FeatureGates::unadmitted_workloads_explicit_status},
      {"TASBalancedPlacement", &FeatureGates::tas_balanced_placement},
      {"TASRespectNodeAffinityPreferred", &FeatureGates::tas_respect_node_affinity_preferred},
      {"PrioritizePreemptorWorkloads", &FeatureGates::prioritize_preemptor_workloads},
      {"PriorityBoost", &FeatureGates::priority_boost},
      {"ConcurrentAdmission", &FeatureGates::concurrent_admission},
      {"MultiKueueOrchestratedPreemption", &FeatureGates::multikueue_orchestrated_preemption},
      {"MultiKueue", &FeatureGates::multikueue},
      {"MultiKueueIncrementalDispatcherConfig", &FeatureGates::multikueue_incremental_dispatcher_config},
      {"MultiKueueIncrementalDispatcherRespectConfigOrder",
       &FeatureGates::multikueue_incremental_dispatcher_respect_config_order},
      {"DisableWaitForPodsReady", &FeatureGates::disable_wait_for_pods_ready},
      {"AdmissionGatedBy", &FeatureGates::admission_gated_by},
  };
  std::vector<std::string> unknown;
  for (const auto& [name, enabled] : overrides) {
    bool found = false;
    for (const auto& [gate_name, member] : kGates) {
      if (name == gate_name) {
        this->*member = enabled;
        found = true;
        break;
      }
    }
    if (!found) unknown.push_back(name);
  }
  return unknown;
}

}  // namespace kueuesim::model
