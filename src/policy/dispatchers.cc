// Kueue's MultiKueue dispatchers; see dispatch.h.
//
// AllAtOnce follows pkg/controller/admissionchecks/multikueue/workload.go
// (nominateAndSynchronizeWorkers: every connected cluster, sorted by name);
// Incremental follows pkg/controller/workloaddispatcher/
// incrementaldispatcher.go (append the next `step` clusters not yet
// nominated once the round has passed).
#include <algorithm>

#include "kueuesim/policy/dispatch.h"

namespace kueuesim::policy {
namespace {

class AllAtOnceDispatcher : public DispatchPolicy {
 public:
  DispatchDecision Nominate(const DispatchRequest& request) override {
    DispatchDecision decision;
    for (size_t i = 0; i < request.clusters.size(); ++i) {
      if (request.clusters[i].connected) decision.nominated.push_back(static_cast<int32_t>(i));
    }
    // Kueue stores the names sorted.
    std::sort(decision.nominated.begin(), decision.nominated.end(), [&](int32_t a, int32_t b) {
      return request.clusters[static_cast<size_t>(a)].name < request.clusters[static_cast<size_t>(b)].name;
    });
    return decision;
  }
};

class IncrementalDispatcher : public DispatchPolicy {
 public:
  IncrementalDispatcher(int32_t step, SimDuration round, bool config_order)
      : step_(step), round_(round), config_order_(config_order) {}

  DispatchDecision Nominate(const DispatchRequest& request) override {
    DispatchDecision decision;
    decision.nominated = request.nominated;
    // A round still in progress: wait for its end. Kueue requeues for the
    // remaining time and nominates when more than the round has passed; a
    // real reconcile always runs a little after its requeue time, so the
    // next round starts at the end of this one.
    if (request.last_nomination >= 0 && request.now < request.last_nomination + round_) {
      decision.recheck_at = request.last_nomination + round_;
      return decision;
    }
    std::vector<int32_t> candidates;
    for (size_t i = 0; i < request.clusters.size(); ++i) {
      const int32_t index = static_cast<int32_t>(i);
      if (std::find(request.nominated.begin(), request.nominated.end(), index) == request.nominated.end()) {
        candidates.push_back(index);
      }
    }
    if (!config_order_) {
      std::sort(candidates.begin(), candidates.end(), [&](int32_t a, int32_t b) {
        return request.clusters[static_cast<size_t>(a)].name < request.clusters[static_cast<size_t>(b)].name;
      });
    }
    if (candidates.empty()) return decision;  // Kueue logs "no more workers"
    const size_t take = std::min(candidates.size(), static_cast<size_t>(step_));
    decision.nominated.insert(decision.nominated.end(), candidates.begin(),
                              candidates.begin() + static_cast<std::ptrdiff_t>(take));
    if (take < candidates.size()) decision.recheck_at = request.now + round_;
    return decision;
  }

 private:
  int32_t step_;
  SimDuration round_;
  bool config_order_;
};

}  // namespace

std::unique_ptr<DispatchPolicy> NewAllAtOnceDispatcher() { return std::make_unique<AllAtOnceDispatcher>(); }

std::unique_ptr<DispatchPolicy> NewIncrementalDispatcher(int32_t step, SimDuration round, bool config_order) {
  return std::make_unique<IncrementalDispatcher>(step, round, config_order);
}

}  // namespace kueuesim::policy
