#include "perf/interference.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>

#include "perf/statistics.hpp"

namespace hazardlab::perf {

std::string configuration_name(const Together& t) {
  std::string name;
  for (const int g : t.gpus) name += (name.empty() ? "gpu" : "+gpu") + std::to_string(g);
  return t.gpus.size() == 1 ? name + " alone" : name;
}

namespace {

const std::vector<double>& figures(const InterferenceInput& in, std::size_t configuration, int gpu, Direction d) {
  static const std::vector<double> none;
  const auto it = in.gbps.find({configuration, gpu, d});
  return it == in.gbps.end() ? none : it->second;
}

int numa_node(const InterferenceInput& in, int gpu) {
  for (const PlacedGpu& p : in.gpus)
    if (p.index == gpu) return p.numa_node;
  return -1;
}

// One GPU per NUMA node, each node known: what HAZARDLAB_TIMED_TURNS=numa-node times at once.
bool across_nodes(const InterferenceInput& in, const Together& t) {
  std::set<int> nodes;
  for (const int g : t.gpus) {
    const int node = numa_node(in, g);
    if (node < 0 || !nodes.insert(node).second) return false;
  }
  return true;
}

// The GPUs joined by a disagreeing pair, as connected groups.
std::vector<std::vector<int>> groups_of(const InterferenceInput& in, const std::vector<Disagreement>& rows) {
  std::map<int, int> parent;
  for (const PlacedGpu& p : in.gpus) parent[p.index] = p.index;
  const auto root = [&](int g) {
    while (parent[g] != g) g = parent[g] = parent[parent[g]];
    return g;
  };
  for (const Disagreement& r : rows) {
    const Together& t = in.configurations[r.configuration];
    if (r.beyond && t.gpus.size() == 2) parent[root(t.gpus[0])] = root(t.gpus[1]);
  }
  std::map<int, std::vector<int>> by_root;
  for (const PlacedGpu& p : in.gpus) by_root[root(p.index)].push_back(p.index);
  std::vector<std::vector<int>> groups;
  for (auto& [r, members] : by_root) {
    std::sort(members.begin(), members.end());
    groups.push_back(std::move(members));
  }
  return groups;
}

}  // namespace

InterferenceDecision decide_timed_turns(const InterferenceInput& in) {
  InterferenceDecision out;
  std::map<std::pair<int, Direction>, Spread> alone;
  for (std::size_t c = 0; c < in.configurations.size(); ++c) {
    if (in.configurations[c].gpus.size() != 1) continue;
    for (const Direction d : {Direction::HostToDevice, Direction::DeviceToHost}) {
      const std::vector<double>& f = figures(in, c, in.configurations[c].gpus[0], d);
      if (!f.empty()) alone[{in.configurations[c].gpus[0], d}] = spread_of(f);
    }
  }
  bool any_beyond = false, beyond_across_nodes = false, nodes_known = true;
  std::set<int> nodes;
  for (const PlacedGpu& p : in.gpus) {
    nodes_known = nodes_known && p.numa_node >= 0;
    nodes.insert(p.numa_node);
  }
  for (std::size_t c = 0; c < in.configurations.size(); ++c) {
    const Together& t = in.configurations[c];
    if (t.gpus.size() < 2) continue;
    for (const int g : t.gpus) {
      for (const Direction d : {Direction::HostToDevice, Direction::DeviceToHost}) {
        const std::vector<double>& f = figures(in, c, g, d);
        if (f.empty()) continue;
        const auto a = alone.find({g, d});
        if (a == alone.end() || a->second.median <= 0) {
          throw std::invalid_argument("gpu" + std::to_string(g) + " has no " + std::string(to_string(d)) +
                                      " figures alone to set its figures in " + configuration_name(t) + " beside");
        }
        Disagreement r{c, g, d, a->second, spread_of(f), 0, false};
        r.change = (r.together.median - r.alone.median) / r.alone.median;
        r.beyond = r.together.median < r.alone.min || r.together.median > r.alone.max;
        any_beyond = any_beyond || r.beyond;
        beyond_across_nodes = beyond_across_nodes || (r.beyond && across_nodes(in, t));
        out.rows.push_back(r);
      }
    }
  }
  out.groups = groups_of(in, out.rows);
  if (!any_beyond) {
    out.turns = TimedTurns::Gpu;
    out.why = "no GPU's figure at once with others left the range of its figures alone: no timed part need wait";
  } else if (nodes_known && nodes.size() > 1 && !beyond_across_nodes) {
    out.turns = TimedTurns::NumaNode;
    out.why =
        "figures moved beyond their spread only with GPUs of the same NUMA node; GPUs of different nodes "
        "timed at once stayed within theirs";
  } else {
    out.turns = TimedTurns::Host;
    out.why = !nodes_known       ? "figures moved beyond their spread, and not every GPU's NUMA node is known"
              : nodes.size() < 2 ? "figures moved beyond their spread, and every GPU is on one NUMA node"
                                 : "figures moved beyond their spread with GPUs of other NUMA nodes too";
  }
  return out;
}

}  // namespace hazardlab::perf
