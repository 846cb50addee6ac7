# Timed changes of Kueue objects, through the whole simulation.
# Included from tests/CMakeLists.txt.
kueuesim_test(NAME object_changes_test
  SOURCES runtime/object_changes_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario fmt::fmt)

# LeaderWorkerSet groups under topology-aware scheduling.
kueuesim_test(NAME lws_topology_test
  SOURCES runtime/lws_topology_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario fmt::fmt)

# The LeaderWorkerSet controller (rollouts, evictions) through the simulation.
kueuesim_test(NAME lws_controller_test
  SOURCES runtime/lws_controller_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario fmt::fmt)

# Timed Node changes under topology-aware scheduling (replacement, NodeFailures).
kueuesim_test(NAME node_changes_test
  SOURCES runtime/node_changes_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario fmt::fmt)

# Workloads admitted in their input status (quota held from time 0).
kueuesim_test(NAME admitted_at_start_test
  SOURCES runtime/admitted_at_start_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario fmt::fmt)

# The CronJob controller (schedules, concurrency policies, horizon) through
# the simulation.
kueuesim_test(NAME cronjob_controller_test
  SOURCES runtime/cronjob_controller_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario fmt::fmt)

# Why a workload waits: QuotaReserved=False conditions and Pending events.
kueuesim_test(NAME pending_conditions_test
  SOURCES runtime/pending_conditions_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario fmt::fmt)

# The ProvisioningRequest admission check, the simulated autoscaler and the
# declared answers of other checks, through the simulation.
kueuesim_test(NAME provisioning_test
  SOURCES runtime/provisioning_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario fmt::fmt)

# Preemption thrashing at one instant: an error naming the workloads; the
# PrioritizePreemptorWorkloads gate and evictions that take time settle it.
kueuesim_test(NAME thrashing_test
  SOURCES runtime/thrashing_test.cc
  DEPS kueuesim::sim kueuesim::policy kueuesim::scenario fmt::fmt)
