// What the simulated cluster autoscaler did (see provisioning.h), for the
// summary.
#ifndef KUEUESIM_RUNTIME_AUTOSCALER_REPORT_H_
#define KUEUESIM_RUNTIME_AUTOSCALER_REPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kueuesim/base/time.h"

namespace kueuesim::runtime {

struct AutoscalerPoolReport {
  std::string name;
  int32_t min_nodes = 0;
  int32_t max_nodes = 0;
  int32_t peak_nodes = 0;
  int64_t nodes_added = 0;    // created by scale-ups (initial nodes excluded)
  int64_t nodes_removed = 0;  // scale-downs and revoked VMs
  int64_t scale_ups = 0;
  int64_t refused_scale_ups = 0;  // requests it could not grow for (max size, capacity, stockout)
  // Integrals over the run: node-seconds of nodes that existed (booting
  // included), of ready nodes no admitted workload used (idle: free or
  // booked but not consumed), and the same per resource of the node shape
  // (amount-seconds: GPU-seconds, core-seconds).
  double node_seconds = 0;
  double idle_node_seconds = 0;
  std::map<std::string, double> provisioned_amount_seconds;
  std::map<std::string, double> idle_amount_seconds;
  // Time during which the pool was below maxNodes but could not grow
  // (stockout window, or the cloud's capacity reached).
  SimDuration stockout_time = 0;
  std::vector<std::pair<SimTime, int32_t>> nodes_over_time;  // one point per change
};

struct AutoscalerReport {
  int64_t requests = 0;
  int64_t provisioned = 0;
  int64_t failed = 0;
  int64_t booking_expired = 0;   // bookings that expired unused
  int64_t capacity_revoked = 0;
  int64_t deleted_unused = 0;    // deleted while booked and not consumed
  int64_t loops = 0;             // autoscaler loops that handled a request
  std::vector<AutoscalerPoolReport> pools;
};

}  // namespace kueuesim::runtime

#endif  // KUEUESIM_RUNTIME_AUTOSCALER_REPORT_H_
