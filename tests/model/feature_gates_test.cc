// Tests for kueuesim/model/feature_gates.h: the defaults of the reference
// Kueue version (kueue-semantics.md §1.11) and Apply with Kueue's gate names.
#include "kueuesim/model/feature_gates.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kueuesim::model {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Invariant: beta gates are on, alpha gates off, as at Kueue ff69552e.
TEST(FeatureGatesTest, DefaultsMatchReferenceKueue) {
  const FeatureGates g;
  EXPECT_TRUE(g.partial_admission);
  EXPECT_TRUE(g.flavor_fungibility);
  EXPECT_TRUE(g.priority_sorting_within_cohort);
  EXPECT_TRUE(g.fair_sharing_preempt_within_nominal);
  EXPECT_TRUE(g.fair_sharing_prioritize_non_borrowing);
  EXPECT_TRUE(g.topology_aware_scheduling);
  EXPECT_TRUE(g.tas_profile_mixed);
  EXPECT_TRUE(g.admission_fair_sharing);
  EXPECT_TRUE(g.scheduling_equivalence_hashing);
  EXPECT_TRUE(g.flavor_fungibility_preserve_scan_progress);
  EXPECT_TRUE(g.recompute_assignment_upon_preemption_targets_overlap);
  EXPECT_TRUE(g.reclaimable_pods);
  EXPECT_TRUE(g.quota_check_strategy);
  EXPECT_TRUE(g.workload_priority_class_defaulting);
  EXPECT_FALSE(g.tas_balanced_placement);
  EXPECT_FALSE(g.tas_respect_node_affinity_preferred);
  EXPECT_FALSE(g.prioritize_preemptor_workloads);
  EXPECT_FALSE(g.priority_boost);
  EXPECT_FALSE(g.concurrent_admission);
  EXPECT_FALSE(g.disable_wait_for_pods_ready);
}

// Setup: overrides {PartialAdmission: false, PriorityBoost: true,
// VisibilityOnDemand: true, NotAGate: false}. Invariant: known names are
// applied, the two unknown ones are returned (in map order) and change
// nothing else.
TEST(FeatureGatesTest, ApplyKnownAndUnknownNames) {
  FeatureGates g;
  const std::map<std::string, bool> overrides = {{"PartialAdmission", false},
                                                 {"PriorityBoost", true},
                                                 {"VisibilityOnDemand", true},
                                                 {"NotAGate", false}};
  EXPECT_THAT(g.Apply(overrides), ElementsAre("NotAGate", "VisibilityOnDemand"));
  EXPECT_FALSE(g.partial_admission);
  EXPECT_TRUE(g.priority_boost);
  EXPECT_TRUE(g.flavor_fungibility);
  EXPECT_FALSE(g.concurrent_admission);
}

// Invariant: every modelled gate is reachable by its Kueue name (a typo in
// the table would make one unsettable); names are case-sensitive.
TEST(FeatureGatesTest, EveryGateNameIsKnown) {
  FeatureGates g;
  const std::map<std::string, bool> all_off = {
      {"PartialAdmission", false},
      {"FlavorFungibility", false},
      {"PrioritySortingWithinCohort", false},
      {"FairSharingPreemptWithinNominal", false},
      {"FairSharingPrioritizeNonBorrowing", false},
      {"TopologyAwareScheduling", false},
      {"TASProfileMixed", false},
      {"TASFailedNodeReplacement", false},
      {"TASFailedNodeReplacementFailFast", false},
      {"AdmissionFairSharing", false},
      {"SchedulingEquivalenceHashing", false},
      {"TASRecomputeAssignmentWithinSchedulingCycle", false},
      {"TASMultiLayerTopology", false},
      {"TASHandleOverlappingFlavors", false},
      {"FlavorFungibilityPreserveScanProgress", false},
      {"RecomputeAssignmentUponPreemptionTargetsOverlap", false},
      {"ReclaimablePods", false},
      {"QuotaCheckStrategy", false},
      {"KueueDRAIntegration", false},
      {"WorkloadPriorityClassDefaulting", false},
      {"UnadmittedWorkloadsObservability", false},
  };
  EXPECT_THAT(g.Apply(all_off), IsEmpty());
  EXPECT_FALSE(g.partial_admission || g.flavor_fungibility || g.priority_sorting_within_cohort ||
               g.fair_sharing_preempt_within_nominal || g.fair_sharing_prioritize_non_borrowing ||
               g.topology_aware_scheduling || g.tas_profile_mixed || g.tas_failed_node_replacement ||
               g.tas_failed_node_replacement_fail_fast || g.admission_fair_sharing ||
               g.scheduling_equivalence_hashing ||
               g.tas_recompute_assignment_within_scheduling_cycle || g.tas_multi_layer_topology ||
               g.tas_handle_overlapping_flavors || g.flavor_fungibility_preserve_scan_progress ||
               g.recompute_assignment_upon_preemption_targets_overlap || g.reclaimable_pods ||
               g.quota_check_strategy || g.kueue_dra_integration ||
               g.workload_priority_class_defaulting || g.unadmitted_workloads_observability);
  const std::map<std::string, bool> alpha_on = {
      {"TASBalancedPlacement", true},     {"TASRespectNodeAffinityPreferred", true},
      {"PrioritizePreemptorWorkloads", true}, {"PriorityBoost", true},
      {"ConcurrentAdmission", true},      {"MultiKueueOrchestratedPreemption", true},
      {"DisableWaitForPodsReady", true},  {"UnadmittedWorkloadsExplicitStatus", true}};
  EXPECT_THAT(g.Apply(alpha_on), IsEmpty());
  EXPECT_TRUE(g.tas_balanced_placement && g.tas_respect_node_affinity_preferred &&
              g.prioritize_preemptor_workloads && g.priority_boost && g.concurrent_admission &&
              g.multikueue_orchestrated_preemption && g.disable_wait_for_pods_ready &&
              g.unadmitted_workloads_explicit_status);
  EXPECT_THAT(g.Apply({{"partialadmission", true}}), ElementsAre("partialadmission"));
  EXPECT_FALSE(g.partial_admission);
}

}  // namespace
}  // namespace kueuesim::model
