// Building blocks of the placement algorithm on synthetic domains with
// hand-set states, ported from Kueue (ff69552e):
//   tas_flavor_snapshot_test.go: TestSortedDomainsWithLeader,
//     TestSortedDomains, TestCompareDomainLevelValues;
//   tas_balanced_placement_test.go: TestSelectOptimalDomainSetToFit(+StableTieBreak),
//     TestCompareDomainCapacityAndEntropy, TestPlaceSlicesOnDomainsBalanced(+StableTieBreak),
//     TestPruneDomainsBelowThreshold(+PreservesAffinityScore),
//     TestFindBestDomainsForBalancedPlacement.
#include "topology/tas_internal.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kueuesim::topology::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::UnorderedElementsAreArray;

// Specs name only the fields they set; GCC's -Wextra would flag the rest.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

struct Spec {
  std::string id;
  std::vector<std::string> values;
  DomainState state;
  std::string parent;  // id of the parent, empty for a root
};

// A synthetic tree (Kueue's tests add domains with states to an empty
// snapshot) and a Placement over it with the given states.
class Synthetic {
 public:
  Synthetic(std::vector<std::string> levels, const std::vector<Spec>& specs,
            TasOptions options = {})
      : tree_(MakeTree(std::move(levels), specs)), placement_(tree_, options, "dummy") {
    for (size_t i = 0; i < specs.size(); ++i)
      placement_.St(static_cast<int32_t>(i)) = specs[i].state;
  }
  Placement& p() { return placement_; }
  int32_t H(const std::string& id) const {
    for (int32_t i = 0; i < tree_.num_domains(); ++i) {
      if (tree_.domains[static_cast<size_t>(i)].id == id) return i;
    }
    ADD_FAILURE() << "no domain " << id;
    return 0;
  }
  std::vector<int32_t> Hs(const std::vector<std::string>& ids) const {
    std::vector<int32_t> out;
    for (const std::string& id : ids) out.push_back(H(id));
    return out;
  }
  std::vector<int32_t> All() const {
    std::vector<int32_t> out;
    for (int32_t i = 0; i < tree_.num_domains(); ++i) out.push_back(i);
    return out;
  }
  std::vector<std::string> Ids(const std::vector<int32_t>& handles) const {
    std::vector<std::string> out;
    for (const int32_t h : handles) {
      out.push_back(tree_.domains[static_cast<size_t>(placement_.Base(h))].id);
    }
    return out;
  }

 private:
  static Tree MakeTree(std::vector<std::string> levels, const std::vector<Spec>& specs) {
    Tree t;
    t.levels = std::move(levels);
    std::map<std::string, int32_t> index;
    for (const Spec& spec : specs) {
      TreeDomain d;
      d.id = spec.id;
      d.values = spec.values;
      if (!spec.parent.empty()) {
        d.parent = index.at(spec.parent);
        d.level = t.domains[static_cast<size_t>(d.parent)].level + 1;
        t.domains[static_cast<size_t>(d.parent)].children.push_back(t.num_domains());
      }
      index[spec.id] = t.num_domains();
      t.domains.push_back(std::move(d));
    }
    t.Finalize();
    return t;
  }

  Tree tree_;
  Placement placement_;
};

DomainState S(int32_t pods, int32_t slices, int32_t pods_with_leader, int32_t slices_with_leader,
              int32_t leaders, int64_t affinity = 0) {
  DomainState s;
  s.pod_count = pods;
  s.slice_count = slices;
  s.pod_count_with_leader = pods_with_leader;
  s.slice_count_with_leader = slices_with_leader;
  s.leader_count = leaders;
  s.affinity_score = affinity;
  return s;
}

// States for the with-leader order: leaderCount, sliceCountWithLeader,
// podCountWithLeader (and affinity).
DomainState WL(int32_t leaders, int32_t slices_with_leader, int32_t pods_with_leader,
               int64_t affinity = 0) {
  return S(0, 0, pods_with_leader, slices_with_leader, leaders, affinity);
}
// States for the plain order: sliceCount, podCount (and affinity).
DomainState P(int32_t slices, int32_t pods, int64_t affinity = 0) {
  return S(pods, slices, 0, 0, 0, affinity);
}

struct SortCase {
  const char* name;  // the Go case name
  bool affinity;
  bool unconstrained;
  std::vector<Spec> domains;
  std::vector<std::string> want;
};

std::vector<std::string> SortIds(const SortCase& c, bool with_leader) {
  TasOptions options;
  options.respect_node_affinity_preferred = c.affinity;
  Synthetic s({"block"}, c.domains, options);
  const std::vector<int32_t> all = s.All();
  return s.Ids(with_leader ? s.p().SortedDomainsWithLeader(all, c.unconstrained)
                           : s.p().SortedDomains(all, c.unconstrained));
}

TEST(SortedDomainsWithLeaderTest, KueueCases) {
  const std::vector<SortCase> cases = {
      {"affinityScore descending: higher affinity score comes first",
       true,
       false,
       {{"low-affinity", {"a"}, WL(1, 5, 10, 10)}, {"high-affinity", {"b"}, WL(1, 5, 10, 100)}},
       {"high-affinity", "low-affinity"}},
      {"affinityScore ignored when feature gate is disabled",
       false,
       false,
       {{"low-affinity", {"a"}, WL(1, 5, 10, 10)}, {"high-affinity", {"b"}, WL(1, 5, 10, 100)}},
       {"low-affinity", "high-affinity"}},
      {"leaderCount descending: domains that can host leader come first",
       false,
       false,
       {{"no-leader", {"a"}, WL(0, 10, 10)}, {"has-leader", {"b"}, WL(1, 1, 1)}},
       {"has-leader", "no-leader"}},
      {"leader capability prioritized over preferred affinity",
       true,
       false,
       {{"preferred-no-leader", {"a"}, WL(0, 0, 0, 100)},
        {"non-preferred-has-leader", {"b"}, WL(1, 5, 10, 10)}},
       {"non-preferred-has-leader", "preferred-no-leader"}},
      {"BestFit: sliceCountWithLeader descending",
       false,
       false,
       {{"a", {"a"}, WL(1, 3, 1)}, {"b", {"b"}, WL(1, 1, 1)}, {"c", {"c"}, WL(1, 2, 1)}},
       {"a", "c", "b"}},
      {"LeastFreeCapacity: sliceCountWithLeader ascending",
       false,
       true,
       {{"a", {"a"}, WL(1, 3, 1)}, {"b", {"b"}, WL(1, 1, 1)}, {"c", {"c"}, WL(1, 2, 1)}},
       {"b", "c", "a"}},
      {"BestFit: podCountWithLeader ascending as tiebreaker",
       false,
       false,
       {{"large", {"a"}, WL(1, 5, 100)},
        {"small", {"b"}, WL(1, 5, 10)},
        {"medium", {"c"}, WL(1, 5, 50)}},
       {"small", "medium", "large"}},
      {"LeastFreeCapacity: podCountWithLeader ascending as tiebreaker",
       false,
       true,
       {{"large", {"a"}, WL(1, 5, 100)},
        {"small", {"b"}, WL(1, 5, 10)},
        {"medium", {"c"}, WL(1, 5, 50)}},
       {"small", "medium", "large"}},
      {"levelValues ascending as final tiebreaker",
       false,
       false,
       {{"c", {"c"}, WL(1, 5, 10)}, {"a", {"a"}, WL(1, 5, 10)}, {"b", {"b"}, WL(1, 5, 10)}},
       {"a", "b", "c"}},
  };
  for (const SortCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(SortIds(c, true), ElementsAreArray(c.want));
  }
}

TEST(SortedDomainsTest, KueueCases) {
  const std::vector<SortCase> cases = {
      {"affinityScore descending: higher affinity score comes first",
       true,
       false,
       {{"low-affinity", {"a"}, P(5, 10, 10)}, {"high-affinity", {"b"}, P(5, 10, 100)}},
       {"high-affinity", "low-affinity"}},
      {"affinityScore ignored when feature gate is disabled",
       false,
       false,
       {{"low-affinity", {"a"}, P(5, 10, 10)}, {"high-affinity", {"b"}, P(5, 10, 100)}},
       {"low-affinity", "high-affinity"}},
      {"BestFit: sliceCount descending",
       false,
       false,
       {{"a", {"a"}, P(3, 1)}, {"b", {"b"}, P(1, 1)}, {"c", {"c"}, P(2, 1)}},
       {"a", "c", "b"}},
      {"LeastFreeCapacity: sliceCount ascending",
       false,
       true,
       {{"a", {"a"}, P(3, 1)}, {"b", {"b"}, P(1, 1)}, {"c", {"c"}, P(2, 1)}},
       {"b", "c", "a"}},
      {"BestFit: podCount ascending as tiebreaker",
       false,
       false,
       {{"large", {"a"}, P(5, 100)}, {"small", {"b"}, P(5, 10)}, {"medium", {"c"}, P(5, 50)}},
       {"small", "medium", "large"}},
      {"LeastFreeCapacity: podCount ascending as tiebreaker",
       false,
       true,
       {{"large", {"a"}, P(5, 100)}, {"small", {"b"}, P(5, 10)}, {"medium", {"c"}, P(5, 50)}},
       {"small", "medium", "large"}},
      {"levelValues ascending as final tiebreaker",
       false,
       false,
       {{"c", {"c"}, P(5, 10)}, {"a", {"a"}, P(5, 10)}, {"b", {"b"}, P(5, 10)}},
       {"a", "b", "c"}},
  };
  for (const SortCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(SortIds(c, false), ElementsAreArray(c.want));
  }
}

TEST(SortedDomainsTest, LeastFreeCapacityNeedsProfileMixed) {
  // useLeastFreeCapacityAlgorithm: unconstrained AND TASProfileMixed.
  TasOptions options;
  options.profile_mixed = false;
  Synthetic s({"block"}, {{"a", {"a"}, P(3, 1)}, {"b", {"b"}, P(1, 1)}, {"c", {"c"}, P(2, 1)}},
              options);
  EXPECT_THAT(s.Ids(s.p().SortedDomains(s.All(), true)), ElementsAre("a", "c", "b"));
  EXPECT_FALSE(s.p().UseLeastFreeCapacity(true));
}

TEST(CompareDomainLevelValuesTest, KueueCases) {
  // With the lowest level the hostname, Kueue compares same-parent siblings
  // by hostname only, which orders them as the full values do.
  // "isLowestLevelNode with same-parent sibling domains: ascending by hostname"
  EXPECT_LT(CompareLevelValues(std::vector<std::string>{"b1", "r1", "node-a"},
                               std::vector<std::string>{"b1", "r1", "node-b"}),
            0);
  // "... descending by hostname"
  EXPECT_GT(CompareLevelValues(std::vector<std::string>{"b1", "r1", "node-b"},
                               std::vector<std::string>{"b1", "r1", "node-a"}),
            0);
  // "... equal hostname"
  EXPECT_EQ(CompareLevelValues(std::vector<std::string>{"b1", "r1", "node-a"},
                               std::vector<std::string>{"b1", "r1", "node-a"}),
            0);
  // "fallback comparator: multi-level inputs with different parents sorted
  // lexicographically across levels"
  EXPECT_LT(CompareLevelValues(std::vector<std::string>{"b1", "r1", "node-z"},
                               std::vector<std::string>{"b1", "r2", "node-a"}),
            0);
  // "fallback comparator: non-hostname levels sorted lexicographically across levels"
  EXPECT_LT(CompareLevelValues(std::vector<std::string>{"b1", "r1"},
                               std::vector<std::string>{"b1", "r2"}),
            0);
  // A prefix sorts first (slices.CompareFunc).
  EXPECT_LT(
      CompareLevelValues(std::vector<std::string>{"b1"}, std::vector<std::string>{"b1", "r1"}), 0);
}

// --- Balanced placement ---

std::vector<Spec> OptimalSetDomains() {
  return {
      {"d1", {"d1"}, S(9, 9, 8, 8, 1)},
      {"d2", {"d2"}, S(6, 6, 6, 6, 0)},
      {"d3", {"d3"}, S(4, 4, 3, 3, 1)},
      {"d4", {"d4"}, S(2, 2, 2, 2, 0)},
  };
}

TEST(SelectOptimalDomainSetToFitTest, KueueCases) {
  struct C {
    const char* name;
    int32_t workers;
    int32_t leaders;
    std::vector<std::string> want;
  };
  const std::vector<C> cases = {
      {"no fit", 22, 0, {}},
      {"simple fit one domain", 5, 1, {"d1"}},
      {"perfect fit with two domains", 9, 1, {"d2", "d3"}},
      {"perfect fit with two domains 2", 10, 1, {"d1", "d4"}},
      {"best fit, single domain", 5, 0, {"d2"}},
  };
  for (const C& c : cases) {
    SCOPED_TRACE(c.name);
    Synthetic s({"block"}, OptimalSetDomains());
    const std::optional<std::vector<int32_t>> got =
        s.p().SelectOptimalDomainSetToFit(s.All(), c.workers, c.leaders, 1, true);
    EXPECT_THAT(got.has_value() ? s.Ids(*got) : std::vector<std::string>{},
                UnorderedElementsAreArray(c.want));
  }
}

TEST(SelectOptimalDomainSetToFitTest, StableTieBreak) {
  // "balanced selection" and "entropy-prioritized selection".
  for (const bool by_entropy : {false, true}) {
    SCOPED_TRACE(by_entropy);
    const DomainState equal = S(3, 3, 3, 3, 0);
    Synthetic s({"host"}, {{"leaf-a", {"block-b", "host-a"}, equal},
                           {"leaf-m", {"block-b", "host-m"}, equal},
                           {"leaf-z", {"block-a", "host-z"}, equal},
                           {"leaf-zz", {"block-a", "host-zz"}, equal}});
    const std::optional<std::vector<int32_t>> got =
        s.p().SelectOptimalDomainSetToFit(s.All(), 1, 0, 1, by_entropy);
    ASSERT_TRUE(got.has_value());
    EXPECT_THAT(s.Ids(*got), ElementsAre("leaf-z"));
  }
}

TEST(CompareDomainCapacityAndEntropyTest, KueueCases) {
  {
    SCOPED_TRACE("tie-breaking on level values when capacity and entropy are equal");
    const DomainState leader = S(0, 0, 0, 5, 1);
    const DomainState child = S(2, 0, 0, 0, 0);
    Synthetic s({"parent", "child"}, {{"leaf-a", {"block-b", "host-a"}, leader},
                                      {"leaf-a/1", {"block-b", "host-a", "1"}, child, "leaf-a"},
                                      {"leaf-a/2", {"block-b", "host-a", "2"}, child, "leaf-a"},
                                      {"leaf-m", {"block-b", "host-m"}, leader},
                                      {"leaf-m/1", {"block-b", "host-m", "1"}, child, "leaf-m"},
                                      {"leaf-m/2", {"block-b", "host-m", "2"}, child, "leaf-m"},
                                      {"leaf-z", {"block-a", "host-z"}, leader},
                                      {"leaf-z/1", {"block-a", "host-z", "1"}, child, "leaf-z"},
                                      {"leaf-z/2", {"block-a", "host-z", "2"}, child, "leaf-z"}});
    std::vector<int32_t> got = s.Hs({"leaf-a", "leaf-m", "leaf-z"});
    std::sort(got.begin(), got.end(),
              [&](int32_t a, int32_t b) { return s.p().CompareCapacityAndEntropy(a, b) < 0; });
    EXPECT_THAT(s.Ids(got), ElementsAre("leaf-z", "leaf-a", "leaf-m"));
  }
  {
    SCOPED_TRACE("capacity overrides entropy, and higher entropy overrides level values");
    Synthetic s({"parent", "child"},
                {{"lower-leader", {"a"}, S(0, 0, 0, 100, 0)},
                 {"lower-leader/1", {"a", "1"}, S(50, 0, 0, 0, 0), "lower-leader"},
                 {"lower-leader/2", {"a", "2"}, S(50, 0, 0, 0, 0), "lower-leader"},
                 {"lower-capacity", {"b"}, S(0, 0, 0, 4, 1)},
                 {"lower-capacity/1", {"b", "1"}, S(2, 0, 0, 0, 0), "lower-capacity"},
                 {"lower-capacity/2", {"b", "2"}, S(2, 0, 0, 0, 0), "lower-capacity"},
                 {"low-entropy", {"c"}, S(0, 0, 0, 5, 1)},
                 {"low-entropy/1", {"c", "1"}, S(4, 0, 0, 0, 0), "low-entropy"},
                 {"low-entropy/2", {"c", "2"}, S(0, 0, 0, 0, 0), "low-entropy"},
                 {"high-entropy", {"d"}, S(0, 0, 0, 5, 1)},
                 {"high-entropy/1", {"d", "1"}, S(2, 0, 0, 0, 0), "high-entropy"},
                 {"high-entropy/2", {"d", "2"}, S(2, 0, 0, 0, 0), "high-entropy"}});
    std::vector<int32_t> got =
        s.Hs({"lower-leader", "lower-capacity", "low-entropy", "high-entropy"});
    std::sort(got.begin(), got.end(),
              [&](int32_t a, int32_t b) { return s.p().CompareCapacityAndEntropy(a, b) < 0; });
    EXPECT_THAT(s.Ids(got),
                ElementsAre("high-entropy", "low-entropy", "lower-capacity", "lower-leader"));
  }
}

TEST(PlaceSlicesOnDomainsBalancedTest, KueueCases) {
  const Spec d1{"d1", {"d1"}, S(18, 18, 18, 18, 0)};
  const Spec d2{"d2", {"d2"}, S(18, 18, 18, 18, 0)};
  const Spec d3{"d3", {"d3"}, S(18, 18, 18, 18, 0)};
  const Spec d4{"d4", {"d4"}, S(10, 10, 10, 10, 0)};
  const Spec d5{"d5", {"d5"}, S(2, 2, 2, 2, 0)};
  struct C {
    const char* name;
    std::vector<Spec> domains;
    int32_t slices;
    int32_t threshold;
    // id -> {podCount, sliceCount, podCountWithLeader, sliceCountWithLeader, leaderCount}
    std::map<std::string, std::array<int32_t, 5>> want;
  };
  const std::vector<C> cases = {
      {"simple balanced placement on two domains",
       {d1, d2, d3},
       20,
       10,
       {{"d1", {10, 10, 10, 10, 0}}, {"d2", {10, 10, 10, 10, 0}}}},
      {"simple placement on three domains",
       {d1, d2, d3},
       40,
       13,
       {{"d1", {14, 14, 14, 14, 0}}, {"d2", {13, 13, 13, 13, 0}}, {"d3", {13, 13, 13, 13, 0}}}},
      {"find smallest domain that fits", {d1, d2, d3, d4, d5}, 2, 2, {{"d5", {2, 2, 2, 2, 0}}}},
      {"correctly select domains",
       {d1, d2, d3, d4, d5},
       25,
       10,
       {{"d1", {15, 15, 15, 15, 0}}, {"d4", {10, 10, 10, 10, 0}}}},
  };
  for (const C& c : cases) {
    SCOPED_TRACE(c.name);
    Synthetic s({"block"}, c.domains);
    std::string reason;
    const std::optional<std::vector<int32_t>> got =
        s.p().PlaceSlicesOnDomainsBalanced(s.All(), c.slices, 0, 1, c.threshold, reason);
    ASSERT_TRUE(got.has_value()) << reason;
    std::map<std::string, std::array<int32_t, 5>> got_states;
    for (const int32_t h : *got) {
      const DomainState& st = s.p().St(h);
      got_states[s.Ids({h})[0]] = {st.pod_count, st.slice_count, st.pod_count_with_leader,
                                   st.slice_count_with_leader, st.leader_count};
    }
    EXPECT_EQ(got_states, c.want);
  }
}

TEST(PlaceSlicesOnDomainsBalancedTest, StableTieBreak) {
  const DomainState equal = S(3, 3, 3, 3, 0);
  Synthetic s({"host"},
              {{"leaf-a", {"block-b", "host-a"}, equal}, {"leaf-z", {"block-a", "host-z"}, equal}});
  std::string reason;
  const std::optional<std::vector<int32_t>> got =
      s.p().PlaceSlicesOnDomainsBalanced(s.All(), 1, 0, 1, 1, reason);
  ASSERT_TRUE(got.has_value()) << reason;
  EXPECT_THAT(s.Ids(*got), ElementsAre("leaf-z"));
}

TEST(PruneDomainsBelowThresholdTest, KeepsWorkerOnlyDomain) {
  // "keeps worker only domain"
  Synthetic s({"l0", "l1", "l2"},
              {{"parent-domain", {"p"}, S(0, 0, 0, 0, 0)},
               {"leader-domain", {"p", "l"}, S(6, 6, 5, 5, 1), "parent-domain"},
               {"leader-leaf", {"p", "l", "x"}, S(6, 6, 5, 5, 1), "leader-domain"},
               {"worker-only-domain", {"p", "w"}, S(5, 5, 4, 4, 1), "parent-domain"},
               {"worker-only-leaf", {"p", "w", "x"}, S(5, 5, 4, 4, 1), "worker-only-domain"}});
  const std::vector<int32_t> roots = s.Hs({"parent-domain"});
  s.p().PruneDomainsBelowThreshold(roots, 5, 1, 2, 0, true);
  auto values = [&](const std::string& id) {
    const DomainState& st = s.p().St(s.H(id));
    return std::array<int32_t, 5>{st.pod_count, st.slice_count, st.pod_count_with_leader,
                                  st.slice_count_with_leader, st.leader_count};
  };
  EXPECT_EQ(values("leader-domain"), (std::array<int32_t, 5>{6, 6, 5, 5, 1}));
  EXPECT_EQ(values("parent-domain"), (std::array<int32_t, 5>{11, 11, 10, 10, 1}));
  EXPECT_EQ(values("worker-only-domain"), (std::array<int32_t, 5>{5, 5, 0, 0, 0}));
  EXPECT_EQ(values("worker-only-leaf"), (std::array<int32_t, 5>{5, 5, 0, 0, 0}));
}

TEST(PruneDomainsBelowThresholdTest, PreservesAffinityScore) {
  Synthetic s({"l0", "l1"}, {{"parent", {"p"}, S(0, 0, 0, 0, 0)},
                             {"pruned-leaf", {"p", "a"}, S(0, 1, 0, 0, 0, 100), "parent"},
                             {"kept-leaf", {"p", "b"}, S(4, 4, 4, 0, 0, 10), "parent"}});
  s.p().PruneDomainsBelowThreshold(s.Hs({"parent"}), 2, 1, 1, 0, false);
  EXPECT_EQ(s.p().St(s.H("pruned-leaf")).affinity_score, 100);
  EXPECT_EQ(s.p().St(s.H("parent")).affinity_score, 110);
}

TEST(FindBestDomainsForBalancedPlacementTest, KueueCases) {
  struct C {
    const char* name;
    std::vector<Spec> domains;
    int32_t count;
    int32_t want_threshold;
    size_t want_domains;
  };
  const std::vector<C> cases = {
      {"falls back after pruning",
       {{"b1", {"b1"}, {}},
        {"b2", {"b2"}, {}},
        {"b1/r1", {"b1", "r1"}, S(3, 3, 2, 2, 1), "b1"},
        {"b2/r1", {"b2", "r1"}, S(2, 2, 1, 1, 1), "b2"},
        {"b2/r2", {"b2", "r2"}, S(4, 4, 2, 2, 1), "b2"}},
       8,
       1,
       2},
      {"rejects after fallback",
       {{"b1", {"b1"}, {}},
        {"b2", {"b2"}, {}},
        {"b3", {"b3"}, {}},
        {"b1/r1", {"b1", "r1"}, S(2, 2, 1, 1, 1), "b1"},
        {"b2/r1", {"b2", "r1"}, S(3, 3, 1, 1, 1), "b2"},
        {"b2/r2", {"b2", "r2"}, S(4, 4, 2, 2, 1), "b2"},
        {"b3/r1", {"b3", "r1"}, S(4, 4, 3, 3, 1), "b3"}},
       12,
       0,
       0},
  };
  for (const C& c : cases) {
    SCOPED_TRACE(c.name);
    Synthetic s({"block", "rack"}, c.domains);
    PlacementParams params;
    params.count = c.count;
    params.slice_size = 1;
    params.leader_count = 1;
    params.requested_level = 0;
    params.slice_level = 1;
    params.slice_size_at_level.assign(2, 0);
    const auto [domains, threshold] = s.p().FindBestDomainsForBalancedPlacement(params);
    EXPECT_EQ(threshold, c.want_threshold);
    EXPECT_EQ(domains.size(), c.want_domains);
  }
}

}  // namespace
}  // namespace kueuesim::topology::internal
