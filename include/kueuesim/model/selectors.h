// Label selectors, node affinity, taints and tolerations, evaluated as
// Kubernetes evaluates them (k8s.io/apimachinery/pkg/labels,
// k8s.io/component-helpers/scheduling/corev1).
#ifndef KUEUESIM_MODEL_SELECTORS_H_
#define KUEUESIM_MODEL_SELECTORS_H_

#include <optional>
#include <string>
#include <vector>

#include "kueuesim/model/objects.h"

namespace kueuesim::model {

// metav1.LabelSelector semantics: a selector that is not present matches
// nothing; {} matches everything.
bool MatchesLabelSelector(const LabelSelector& selector, const Labels& labels);

// One node-selector requirement against a label set (In, NotIn, Exists,
// DoesNotExist, Gt, Lt; NotIn and DoesNotExist match an absent key; Gt/Lt
// compare integers and fail on a non-integer).
bool MatchesRequirement(const SelectorRequirement& requirement, const Labels& labels);

// Required node affinity: the terms are ORed, each term's requirements
// ANDed; a term with no requirements matches nothing. An empty term list
// means "no affinity" and matches everything. match_fields are evaluated
// against metadata.name given as `node_name` (empty: no name).
bool MatchesNodeAffinity(const std::vector<NodeSelectorTerm>& terms, const Labels& labels,
                         const std::string& node_name = "");

// nodeSelector (all pairs must be present) AND required node affinity.
bool MatchesNodeSelection(const Labels& node_selector, const std::vector<NodeSelectorTerm>& affinity,
                          const Labels& labels, const std::string& node_name = "");

// Kueue's flavor matching (flavorassigner.flavorSelector): keeps only the
// nodeSelector keys and affinity match expressions whose key is one of the
// flavor's node label keys; when any affinity term loses all its expressions
// the whole affinity is dropped. Then evaluates against the flavor's labels.
bool MatchesFlavorLabels(const Labels& node_selector, const std::vector<NodeSelectorTerm>& affinity,
                         const Labels& flavor_labels);

bool ToleratesTaint(const Toleration& toleration, const Taint& taint);

// The first taint with effect NoSchedule or NoExecute that none of
// `tolerations` tolerates, or nullopt when all are tolerated.
std::optional<Taint> FindUntoleratedTaint(const std::vector<Taint>& taints,
                                          const std::vector<Toleration>& tolerations);

std::string TaintToString(const Taint& taint);

}  // namespace kueuesim::model

#endif  // KUEUESIM_MODEL_SELECTORS_H_
