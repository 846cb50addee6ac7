// Tests for kueuesim/model/selectors.h: Kubernetes label selectors, node
// affinity, taints and tolerations, and Kueue's flavor matching
// (flavorassigner.flavorSelector: only the flavor's own label keys count).
#include "kueuesim/model/selectors.h"

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/model/objects.h"

namespace kueuesim::model {
namespace {

SelectorRequirement Req(std::string key, SelectorOperator op, std::vector<std::string> values = {}) {
  return SelectorRequirement{std::move(key), op, std::move(values)};
}

NodeSelectorTerm Term(std::vector<SelectorRequirement> expressions) {
  NodeSelectorTerm term;
  term.match_expressions = std::move(expressions);
  return term;
}

// --- Label selectors ---

// Setup: a label set {team: a, tier: gold}. Invariant: a selector that is not
// present (nil, ClusterQueue.namespaceSelector unset) matches nothing, not
// even an empty label set; {} matches everything.
TEST(LabelSelectorTest, NilMatchesNothingEmptyMatchesEverything) {
  const Labels labels = {{"team", "a"}, {"tier", "gold"}};
  LabelSelector nil_selector;
  EXPECT_FALSE(MatchesLabelSelector(nil_selector, labels));
  EXPECT_FALSE(MatchesLabelSelector(nil_selector, {}));
  LabelSelector everything;
  everything.present = true;
  EXPECT_TRUE(MatchesLabelSelector(everything, labels));
  EXPECT_TRUE(MatchesLabelSelector(everything, {}));
}

// Invariant: matchLabels require every pair exactly; matchExpressions are
// ANDed with them (In, NotIn, Exists, DoesNotExist; NotIn and DoesNotExist
// match an absent key).
TEST(LabelSelectorTest, MatchLabelsAndExpressions) {
  const Labels labels = {{"team", "a"}, {"tier", "gold"}};
  LabelSelector s;
  s.present = true;
  s.match_labels = {{"team", "a"}};
  EXPECT_TRUE(MatchesLabelSelector(s, labels));
  s.match_labels = {{"team", "b"}};
  EXPECT_FALSE(MatchesLabelSelector(s, labels));
  s.match_labels = {{"team", "a"}, {"missing", "x"}};
  EXPECT_FALSE(MatchesLabelSelector(s, labels));

  s.match_labels = {{"team", "a"}};
  s.match_expressions = {Req("tier", SelectorOperator::kIn, {"silver", "gold"})};
  EXPECT_TRUE(MatchesLabelSelector(s, labels));
  s.match_expressions.push_back(Req("env", SelectorOperator::kDoesNotExist));
  EXPECT_TRUE(MatchesLabelSelector(s, labels));
  s.match_expressions.push_back(Req("env", SelectorOperator::kNotIn, {"prod"}));
  EXPECT_TRUE(MatchesLabelSelector(s, labels));
  s.match_expressions.push_back(Req("team", SelectorOperator::kNotIn, {"a"}));
  EXPECT_FALSE(MatchesLabelSelector(s, labels));
}

// Invariant, per operator: In needs the key with a listed value; NotIn
// matches absent keys and unlisted values; Exists/DoesNotExist test
// presence only (an empty value still "exists").
TEST(SelectorRequirementTest, SetOperators) {
  const Labels labels = {{"zone", "a"}, {"empty", ""}};
  EXPECT_TRUE(MatchesRequirement(Req("zone", SelectorOperator::kIn, {"a", "b"}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("zone", SelectorOperator::kIn, {"b"}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("other", SelectorOperator::kIn, {"a"}), labels));
  EXPECT_TRUE(MatchesRequirement(Req("zone", SelectorOperator::kNotIn, {"b"}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("zone", SelectorOperator::kNotIn, {"a"}), labels));
  EXPECT_TRUE(MatchesRequirement(Req("other", SelectorOperator::kNotIn, {"a"}), labels));
  EXPECT_TRUE(MatchesRequirement(Req("empty", SelectorOperator::kExists), labels));
  EXPECT_TRUE(MatchesRequirement(Req("empty", SelectorOperator::kIn, {""}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("other", SelectorOperator::kExists), labels));
  EXPECT_TRUE(MatchesRequirement(Req("other", SelectorOperator::kDoesNotExist), labels));
  EXPECT_FALSE(MatchesRequirement(Req("zone", SelectorOperator::kDoesNotExist), labels));
}

// Invariant: Gt/Lt compare integers strictly; a non-integer label or bound,
// an absent key, or a value list not of size one never matches.
TEST(SelectorRequirementTest, GtLtCompareIntegers) {
  const Labels labels = {{"gen", "5"}, {"neg", "-3"}, {"word", "five"}, {"zeros", "007"}};
  EXPECT_TRUE(MatchesRequirement(Req("gen", SelectorOperator::kGt, {"4"}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("gen", SelectorOperator::kGt, {"5"}), labels));
  EXPECT_TRUE(MatchesRequirement(Req("gen", SelectorOperator::kLt, {"6"}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("gen", SelectorOperator::kLt, {"5"}), labels));
  EXPECT_TRUE(MatchesRequirement(Req("neg", SelectorOperator::kLt, {"0"}), labels));
  EXPECT_TRUE(MatchesRequirement(Req("neg", SelectorOperator::kGt, {"-10"}), labels));
  EXPECT_TRUE(MatchesRequirement(Req("zeros", SelectorOperator::kGt, {"6"}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("word", SelectorOperator::kGt, {"1"}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("word", SelectorOperator::kLt, {"1"}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("gen", SelectorOperator::kGt, {"x"}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("gen", SelectorOperator::kGt, {"1.5"}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("missing", SelectorOperator::kGt, {"1"}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("missing", SelectorOperator::kLt, {"1"}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("gen", SelectorOperator::kGt, {}), labels));
  EXPECT_FALSE(MatchesRequirement(Req("gen", SelectorOperator::kGt, {"1", "2"}), labels));
}

// --- Node affinity ---

// Setup: node labels {zone: a, gpu: t4}. Invariant: terms are ORed, each
// term's expressions ANDed; a term with no requirements matches nothing; no
// terms at all means no affinity (matches).
TEST(NodeAffinityTest, TermsAreOredExpressionsAnded) {
  const Labels node = {{"zone", "a"}, {"gpu", "t4"}};
  EXPECT_TRUE(MatchesNodeAffinity({}, node));
  const NodeSelectorTerm zone_b = Term({Req("zone", SelectorOperator::kIn, {"b"})});
  const NodeSelectorTerm zone_a_t4 = Term({Req("zone", SelectorOperator::kIn, {"a"}),
                                           Req("gpu", SelectorOperator::kIn, {"t4"})});
  const NodeSelectorTerm zone_a_a100 = Term({Req("zone", SelectorOperator::kIn, {"a"}),
                                             Req("gpu", SelectorOperator::kIn, {"a100"})});
  EXPECT_FALSE(MatchesNodeAffinity({zone_b}, node));
  EXPECT_TRUE(MatchesNodeAffinity({zone_b, zone_a_t4}, node));
  EXPECT_FALSE(MatchesNodeAffinity({zone_a_a100}, node));
  EXPECT_FALSE(MatchesNodeAffinity({zone_b, zone_a_a100}, node));
  const NodeSelectorTerm empty;
  EXPECT_FALSE(MatchesNodeAffinity({empty}, node));
  EXPECT_FALSE(MatchesNodeAffinity({empty}, {}));
  EXPECT_TRUE(MatchesNodeAffinity({empty, zone_a_t4}, node));
}

// Invariant: matchFields test metadata.name (In/NotIn) and are ANDed with the
// term's expressions; without a node name an In field fails.
TEST(NodeAffinityTest, MatchFieldsUseNodeName) {
  NodeSelectorTerm by_name;
  by_name.match_fields = {Req("metadata.name", SelectorOperator::kIn, {"node-1"})};
  EXPECT_TRUE(MatchesNodeAffinity({by_name}, {}, "node-1"));
  EXPECT_FALSE(MatchesNodeAffinity({by_name}, {}, "node-2"));
  EXPECT_FALSE(MatchesNodeAffinity({by_name}, {}));
  by_name.match_expressions = {Req("zone", SelectorOperator::kIn, {"a"})};
  EXPECT_TRUE(MatchesNodeAffinity({by_name}, {{"zone", "a"}}, "node-1"));
  EXPECT_FALSE(MatchesNodeAffinity({by_name}, {{"zone", "b"}}, "node-1"));
}

// Invariant: nodeSelector pairs must all be present with equal values, AND
// the affinity must match.
TEST(NodeAffinityTest, NodeSelectionCombinesSelectorAndAffinity) {
  const Labels node = {{"zone", "a"}, {"gpu", "t4"}};
  EXPECT_TRUE(MatchesNodeSelection({{"zone", "a"}}, {}, node));
  EXPECT_FALSE(MatchesNodeSelection({{"zone", "b"}}, {}, node));
  EXPECT_FALSE(MatchesNodeSelection({{"rack", "1"}}, {}, node));
  EXPECT_TRUE(MatchesNodeSelection({{"zone", "a"}}, {Term({Req("gpu", SelectorOperator::kExists)})}, node));
  EXPECT_FALSE(MatchesNodeSelection({{"zone", "a"}}, {Term({Req("gpu", SelectorOperator::kDoesNotExist)})},
                                    node));
}

// --- Kueue flavor matching ---

// Setup: flavor labels {cloud.google.com/gke-accelerator: a100}. Invariant:
// nodeSelector keys the flavor does not have are ignored (zone: b is not the
// flavor's business), keys it has must match.
TEST(FlavorLabelsTest, OnlyFlavorKeysOfNodeSelectorCount) {
  const Labels flavor = {{"cloud.google.com/gke-accelerator", "a100"}};
  EXPECT_TRUE(MatchesFlavorLabels({{"zone", "b"}}, {}, flavor));
  EXPECT_TRUE(MatchesFlavorLabels({{"cloud.google.com/gke-accelerator", "a100"}, {"zone", "b"}}, {}, flavor));
  EXPECT_FALSE(MatchesFlavorLabels({{"cloud.google.com/gke-accelerator", "t4"}}, {}, flavor));
  // A flavor without labels accepts every selector.
  EXPECT_TRUE(MatchesFlavorLabels({{"cloud.google.com/gke-accelerator", "t4"}}, {}, {}));
}

// Setup: flavor {zone: a, spot: "true"}. Invariant: affinity expressions on
// other keys are dropped; a term whose expressions are all dropped drops the
// whole affinity (terms are ORed, so it would match anything), even when
// another term fails on the flavor's keys.
TEST(FlavorLabelsTest, TermLosingAllExpressionsDropsAffinity) {
  const Labels flavor = {{"zone", "a"}, {"spot", "true"}};
  const NodeSelectorTerm zone_b = Term({Req("zone", SelectorOperator::kIn, {"b"})});
  const NodeSelectorTerm zone_b_and_other = Term({Req("zone", SelectorOperator::kIn, {"b"}),
                                                  Req("rack", SelectorOperator::kIn, {"r1"})});
  const NodeSelectorTerm other_only = Term({Req("rack", SelectorOperator::kIn, {"r1"})});
  const NodeSelectorTerm zone_a_other = Term({Req("zone", SelectorOperator::kIn, {"a"}),
                                              Req("rack", SelectorOperator::kIn, {"r9"})});
  // zone b fails on the flavor's own key.
  EXPECT_FALSE(MatchesFlavorLabels({}, {zone_b}, flavor));
  // The rack expression is dropped; zone b still fails.
  EXPECT_FALSE(MatchesFlavorLabels({}, {zone_b_and_other}, flavor));
  // The rack expression is dropped, zone a matches.
  EXPECT_TRUE(MatchesFlavorLabels({}, {zone_a_other}, flavor));
  // A term with only other keys empties: the affinity is dropped entirely.
  EXPECT_TRUE(MatchesFlavorLabels({}, {other_only}, flavor));
  EXPECT_TRUE(MatchesFlavorLabels({}, {zone_b, other_only}, flavor));
  EXPECT_TRUE(MatchesFlavorLabels({}, {other_only, zone_b}, flavor));
  // The nodeSelector still applies when the affinity is dropped.
  EXPECT_FALSE(MatchesFlavorLabels({{"spot", "false"}}, {other_only}, flavor));
  // A term of matchFields only has no expressions left either.
  NodeSelectorTerm fields_only;
  fields_only.match_fields = {Req("metadata.name", SelectorOperator::kIn, {"n1"})};
  EXPECT_TRUE(MatchesFlavorLabels({}, {zone_b, fields_only}, flavor));
}

// Invariant: NotIn/DoesNotExist/Gt on the flavor's keys are evaluated
// against the flavor labels as a fake node.
TEST(FlavorLabelsTest, OperatorsOnFlavorKeys) {
  const Labels flavor = {{"zone", "a"}, {"gen", "3"}};
  EXPECT_FALSE(MatchesFlavorLabels({}, {Term({Req("zone", SelectorOperator::kNotIn, {"a"})})}, flavor));
  EXPECT_TRUE(MatchesFlavorLabels({}, {Term({Req("zone", SelectorOperator::kNotIn, {"b"})})}, flavor));
  EXPECT_FALSE(MatchesFlavorLabels({}, {Term({Req("zone", SelectorOperator::kDoesNotExist)})}, flavor));
  EXPECT_TRUE(MatchesFlavorLabels({}, {Term({Req("gen", SelectorOperator::kGt, {"2"})})}, flavor));
  EXPECT_FALSE(MatchesFlavorLabels({}, {Term({Req("gen", SelectorOperator::kLt, {"2"})})}, flavor));
}

// --- Taints and tolerations ---

Toleration Tol(std::string key, TolerationOperator op, std::string value = "",
               std::optional<TaintEffect> effect = std::nullopt) {
  return Toleration{std::move(key), op, std::move(value), effect};
}

// Invariant (v1.Toleration.ToleratesTaint): Exists ignores the value; Equal
// needs the same value; an empty key with Exists tolerates every key; a set
// effect must equal the taint's.
TEST(TolerationTest, ToleratesTaint) {
  const Taint gpu{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule};
  EXPECT_TRUE(ToleratesTaint(Tol("nvidia.com/gpu", TolerationOperator::kExists), gpu));
  EXPECT_TRUE(ToleratesTaint(Tol("nvidia.com/gpu", TolerationOperator::kEqual, "present"), gpu));
  EXPECT_FALSE(ToleratesTaint(Tol("nvidia.com/gpu", TolerationOperator::kEqual, "absent"), gpu));
  EXPECT_FALSE(ToleratesTaint(Tol("nvidia.com/gpu", TolerationOperator::kEqual), gpu));
  EXPECT_FALSE(ToleratesTaint(Tol("other", TolerationOperator::kExists), gpu));
  EXPECT_TRUE(ToleratesTaint(Tol("", TolerationOperator::kExists), gpu));
  EXPECT_TRUE(ToleratesTaint(Tol("", TolerationOperator::kExists, "", TaintEffect::kNoSchedule), gpu));
  EXPECT_FALSE(ToleratesTaint(Tol("", TolerationOperator::kExists, "", TaintEffect::kNoExecute), gpu));
  EXPECT_FALSE(ToleratesTaint(
      Tol("nvidia.com/gpu", TolerationOperator::kEqual, "present", TaintEffect::kPreferNoSchedule), gpu));
  // A taint without a value is tolerated by Equal with an empty value.
  const Taint bare{"dedicated", "", TaintEffect::kNoExecute};
  EXPECT_TRUE(ToleratesTaint(Tol("dedicated", TolerationOperator::kEqual), bare));
}

// Invariant: only NoSchedule and NoExecute taints must be tolerated; the
// first untolerated one is returned; PreferNoSchedule is ignored.
TEST(TolerationTest, FindUntoleratedTaintFiltersEffects) {
  const Taint prefer{"soft", "", TaintEffect::kPreferNoSchedule};
  const Taint sched{"a", "1", TaintEffect::kNoSchedule};
  const Taint exec{"b", "", TaintEffect::kNoExecute};
  EXPECT_EQ(FindUntoleratedTaint({prefer}, {}), std::nullopt);
  auto first = FindUntoleratedTaint({prefer, sched, exec}, {});
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->key, "a");
  auto second = FindUntoleratedTaint({prefer, sched, exec}, {Tol("a", TolerationOperator::kEqual, "1")});
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->key, "b");
  EXPECT_EQ(FindUntoleratedTaint({prefer, sched, exec}, {Tol("", TolerationOperator::kExists)}),
            std::nullopt);
  EXPECT_EQ(FindUntoleratedTaint({}, {}), std::nullopt);
}

// Invariant: Taint.ToString as kubectl prints it: key=value:Effect, or
// key:Effect without a value.
TEST(TolerationTest, TaintToString) {
  EXPECT_EQ(TaintToString({"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}),
            "nvidia.com/gpu=present:NoSchedule");
  EXPECT_EQ(TaintToString({"spot", "", TaintEffect::kNoExecute}), "spot:NoExecute");
  EXPECT_EQ(TaintToString({"soft", "x", TaintEffect::kPreferNoSchedule}), "soft=x:PreferNoSchedule");
}

}  // namespace
}  // namespace kueuesim::model
