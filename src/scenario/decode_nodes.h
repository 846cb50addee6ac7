// Decoders for node inventories: kueuesim.io/v1alpha1 NodePool, a compact
// form that generates many alike v1 Nodes laid out over topology levels.
//
//   apiVersion: kueuesim.io/v1alpha1
//   kind: NodePool
//   metadata: {name: gpu}
//   spec:
//     count: 512                              # nodes in the pool
//     namePattern: "gpu-{block}-{rack}-{index}"
//     levels:                                 # top down; hosts per innermost
//     - label: cloud.com/topology-block       # domain = count / product(counts)
//       count: 8
//       valuePattern: "b{i}"
//     - label: cloud.com/topology-rack
//       count: 8
//       valuePattern: "r{i}"
//     labels: {cloud.com/gpu: h100}
//     taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
//     allocatable: {cpu: 96, memory: 1Ti, nvidia.com/gpu: 8, pods: 110}
//
// Every generated node carries kubernetes.io/hostname = its name (as the
// kubelet sets it), the pool's labels and one label per level.
#ifndef KUEUESIM_SCENARIO_DECODE_NODES_H_
#define KUEUESIM_SCENARIO_DECODE_NODES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "kueuesim/model/objects.h"
#include "scenario/budget.h"
#include "scenario/field.h"

namespace kueuesim::scenario {

// The label the kubelet sets on every node to the node's name.
inline constexpr char kHostnameLabel[] = "kubernetes.io/hostname";

// The nodes a kueuesim.io/v1alpha1 NodePool describes, in layout order (the
// first level's first domain first, hosts in index order within a domain).
// They share one model::NodeTemplate, and the nodes of an innermost domain
// one list of level labels. spec.count is counted against `budget` before
// any node is made; without a budget a pool has at most 1,000,000 nodes,
// unless the caller `counted` it against its own budget already.
absl::StatusOr<std::vector<model::Node>> DecodeNodePool(const FieldReader& object, Budget* budget = nullptr,
                                                       bool counted = false);

}  // namespace kueuesim::scenario

#endif  // KUEUESIM_SCENARIO_DECODE_NODES_H_
