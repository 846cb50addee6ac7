// The static tree of topology domains built from a flavor's nodes
// (kueue pkg/cache/scheduler/tas_topology_tree.go, tas_nodes_cache.go).
#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "topology/tas_internal.h"

namespace kueuesim::topology::internal {

std::string JoinDomainId(std::span<const std::string> values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += values[i];
  }
  return out;
}

int CompareLevelValues(std::span<const std::string> a, std::span<const std::string> b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const int c = a[i].compare(b[i]);
    if (c != 0) return c < 0 ? -1 : 1;
  }
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

int32_t Tree::LevelIndex(std::string_view key) const {
  for (size_t i = 0; i < levels.size(); ++i) {
    if (levels[i] == key) return static_cast<int32_t>(i);
  }
  return -1;
}

Tree Tree::Build(std::vector<std::string> levels, std::vector<NodeSpec> nodes,
                 ResourceId pods_resource) {
  Tree t;
  t.levels = std::move(levels);
  const auto num_levels = static_cast<int32_t>(t.levels.size());
  t.lowest_is_hostname = num_levels > 0 && t.levels.back() == kHostnameLabel;
  t.per_level.resize(t.levels.size());

  int32_t max_id = pods_resource;
  for (const NodeSpec& node : nodes) {
    for (const ResourceAmount& ra : node.allocatable) max_id = std::max(max_id, ra.resource);
  }
  t.num_resources = std::max(0, max_id + 1);
  if (num_levels == 0) return t;  // a Topology has at least one level

  // Leaves in the order their first node comes (Kueue keys them by the
  // hostname, or by the joined level values when the lowest level is not the
  // hostname; the nodes of one leaf add up).
  std::vector<std::vector<std::string>> leaf_values;
  std::vector<std::string> leaf_ids;
  for (NodeSpec& node : nodes) {
    // Ready and schedulable nodes only (nodesCache.sync); every level label
    // must be present (utiltas.NodeMatchesFlavor; the caller checks the
    // flavor's nodeLabels).
    if (!node.schedulable) continue;
    bool has_levels = true;
    for (const std::string& level : t.levels) {
      if (!node.labels.contains(level)) {
        has_levels = false;
        break;
      }
    }
    if (!has_levels) continue;
    std::vector<std::string> values;
    values.reserve(t.levels.size());
    for (const std::string& level : t.levels) values.push_back(node.labels.at(level));
    std::string id = t.lowest_is_hostname ? values.back() : JoinDomainId(values);
    auto [it, inserted] = t.leaf_by_id.try_emplace(id, static_cast<int32_t>(leaf_ids.size()));
    const int32_t leaf = it->second;
    const auto node_index = static_cast<int32_t>(t.nodes.size());
    if (inserted) {
      leaf_values.push_back(std::move(values));
      leaf_ids.push_back(std::move(id));
      t.leaf_node.push_back(t.lowest_is_hostname ? node_index : -1);
      t.capacity.resize(t.capacity.size() + static_cast<size_t>(t.num_resources), 0);
    }
    Amount* cap = t.capacity.data() + static_cast<ptrdiff_t>(leaf) * t.num_resources;
    for (const ResourceAmount& ra : node.allocatable) {
      if (ra.resource >= 0) cap[ra.resource] += ra.amount;
    }
    t.leaf_by_node_name[node.name] = leaf;
    t.nodes.push_back(std::move(node));
  }

  // Domains: every prefix of a leaf's values is a domain of that level
  // (initialize / initializeHelper).
  std::vector<std::unordered_map<std::string, int32_t>> by_id(t.levels.size());
  const auto num_leaves = static_cast<int32_t>(leaf_ids.size());
  t.leaf_domain.assign(static_cast<size_t>(num_leaves), -1);
  for (int32_t leaf = 0; leaf < num_leaves; ++leaf) {
    const std::vector<std::string>& values = leaf_values[static_cast<size_t>(leaf)];
    int32_t parent = -1;
    for (int32_t level = 0; level < num_levels; ++level) {
      const bool is_leaf = level == num_levels - 1;
      std::string id = is_leaf
                           ? leaf_ids[static_cast<size_t>(leaf)]
                           : JoinDomainId(std::span(values).first(static_cast<size_t>(level) + 1));
      auto [it, inserted] = by_id[static_cast<size_t>(level)].try_emplace(id, t.num_domains());
      if (inserted) {
        TreeDomain d;
        d.parent = parent;
        d.level = level;
        d.leaf = is_leaf ? leaf : -1;
        d.values.assign(values.begin(), values.begin() + level + 1);
        d.id = std::move(id);
        t.domains.push_back(std::move(d));
        if (parent >= 0) t.domains[static_cast<size_t>(parent)].children.push_back(it->second);
      }
      parent = it->second;
    }
    t.leaf_domain[static_cast<size_t>(leaf)] = parent;
  }

  t.Finalize();
  return t;
}

void Tree::Finalize() {
  // Lexicographic ranks (compareDomainLevelValues), used for every tie-break
  // and for the order of the assignment.
  std::vector<int32_t> order(domains.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return CompareLevelValues(domains[static_cast<size_t>(a)].values,
                              domains[static_cast<size_t>(b)].values) < 0;
  });
  lex_ranks.assign(domains.size(), 0);
  for (size_t i = 0; i < order.size(); ++i) {
    domains[static_cast<size_t>(order[i])].lex_rank = static_cast<int32_t>(i);
    lex_ranks[static_cast<size_t>(order[i])] = static_cast<int32_t>(i);
  }
  per_level.assign(levels.size(), {});
  for (const int32_t d : order) {
    per_level[static_cast<size_t>(domains[static_cast<size_t>(d)].level)].push_back(d);
  }
  for (TreeDomain& d : domains) {
    std::sort(d.children.begin(), d.children.end(), [&](int32_t a, int32_t b) {
      return domains[static_cast<size_t>(a)].lex_rank < domains[static_cast<size_t>(b)].lex_rank;
    });
  }
  roots = per_level.empty() ? std::vector<int32_t>{} : per_level[0];
}

}  // namespace kueuesim::topology::internal
