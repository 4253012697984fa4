// A measurement record's groups as JSON and back (hazardlab/measurements.hpp): which groups a record holds and
// each group's figures (measurement_figures.cpp), by the keys named once in measurement_keys.hpp.
#include "hazardlab/measurements.hpp"

#include <nlohmann/json.hpp>

#include "measurement_figures.hpp"
#include "measurement_keys.hpp"

namespace hazardlab {
namespace perf {

std::string_view to_string(Direction d) noexcept { return d == Direction::HostToDevice ? "h2d" : "d2h"; }

std::optional<Direction> direction_from_string(std::string_view name) noexcept {
  for (Direction d : {Direction::HostToDevice, Direction::DeviceToHost})
    if (to_string(d) == name) return d;
  return std::nullopt;
}

double ReferenceFigure::ratio() const noexcept { return nvbandwidth_gbps > 0 ? hazardlab_gbps / nvbandwidth_gbps : 0; }

void to_json(json& j, const Spread& s) {
  j = {{key::n, s.n},   {key::median, s.median}, {key::min, s.min},   {key::max, s.max},
       {key::q1, s.q1}, {key::q3, s.q3},         {key::iqr, s.iqr()}, {key::cv, s.cv}};
}

void from_json(const json& j, Spread& s) {
  j.at(key::n).get_to(s.n);
  j.at(key::median).get_to(s.median);
  j.at(key::min).get_to(s.min);
  j.at(key::max).get_to(s.max);
  j.at(key::q1).get_to(s.q1);
  j.at(key::q3).get_to(s.q3);
  j.at(key::cv).get_to(s.cv);
}

}  // namespace perf

void to_json(nlohmann::json& j, const Measurements& m) {
  using namespace perf;
  j = json::object();
  if (const auto& g = m.bandwidth) {
    j[key::bandwidth] = write_list(g->points);
    j[key::bidirectional] = write_list(g->bidirectional);
    j[key::link_raw_gbps] = g->link_raw_gbps_per_direction;
    if (g->checked_sizes) j[key::checked_sizes] = *g->checked_sizes;
    if (g->link_threshold_gbps) j[key::link_threshold_gbps] = *g->link_threshold_gbps;
    if (g->reference) j[key::reference] = write(*g->reference);
    if (!g->all_gpus_at_once.empty()) j[key::all_gpus_at_once] = write_list(g->all_gpus_at_once);
    if (!g->peer_matrix.empty()) j[key::peer_matrix] = write_list(g->peer_matrix);
  }
  if (m.overlap && !m.overlap->attempts.empty()) {
    j[key::overlap] = write_list(m.overlap->deciding());
    // Every attempt, when a miss was measured again: the spread of the overlap figure.
    if (m.overlap->attempts.size() > 1) {
      for (const auto& attempt : m.overlap->attempts) j[key::overlap_attempts].push_back(write_list(attempt));
    }
  }
  if (m.findings) j[key::findings] = write_list(*m.findings);
  if (m.soak) j[key::soak] = write(*m.soak);
  if (const auto& h = m.host_placement) {
    j[key::host_placement] = {{key::numa_node, h->numa_node}, {key::cpus, h->cpus}, {key::bound, h->bound}};
    if (!h->bound) j[key::host_placement][key::not_bound_reason] = h->not_bound_reason;
  }
  if (const auto& i = m.isolation)
    j[key::isolation] = {{key::alone_on_host, i->alone_on_host}, {key::waited_ms, i->waited_ms}, {key::lock, i->lock}};
}

void from_json(const nlohmann::json& j, Measurements& m) {
  using namespace perf;
  m = {};
  if (!j.is_object()) throw json::type_error::create(302, "measurements must be an object", &j);
  if (const auto it = j.find(key::bandwidth); it != j.end()) {
    BandwidthGroup g;
    g.points = read_list<BandwidthPoint>(*it, read_point);
    if (const auto b = j.find(key::bidirectional); b != j.end())
      g.bidirectional = read_list<BidirectionalResult>(*b, read_bidirectional);
    read_if(j, key::link_raw_gbps, g.link_raw_gbps_per_direction);
    read_if(j, key::checked_sizes, g.checked_sizes);
    read_if(j, key::link_threshold_gbps, g.link_threshold_gbps);
    if (const auto r = j.find(key::reference); r != j.end()) g.reference = read_reference(*r);
    if (const auto a = j.find(key::all_gpus_at_once); a != j.end())
      g.all_gpus_at_once = read_list<AllGpusResult>(*a, read_all_gpus);
    if (const auto a = j.find(key::peer_matrix); a != j.end()) g.peer_matrix = read_list<PeerBandwidth>(*a, read_peer);
    m.bandwidth = std::move(g);
  }
  if (const auto it = j.find(key::overlap); it != j.end()) {
    OverlapGroup g;
    if (const auto a = j.find(key::overlap_attempts); a != j.end() && a->size() > 1) {
      for (const json& attempt : *a) g.attempts.push_back(read_list<OverlapResult>(attempt, read_overlap));
    } else {
      g.attempts.push_back(read_list<OverlapResult>(*it, read_overlap));
    }
    m.overlap = std::move(g);
  }
  if (const auto it = j.find(key::findings); it != j.end()) m.findings = read_list<Comparison>(*it, read_comparison);
  if (const auto it = j.find(key::soak); it != j.end()) m.soak = read_soak(*it);
  if (const auto it = j.find(key::host_placement); it != j.end()) {
    HostPlacement h;
    read_if(*it, key::numa_node, h.numa_node);
    read_if(*it, key::cpus, h.cpus);
    read_if(*it, key::bound, h.bound);
    read_if(*it, key::not_bound_reason, h.not_bound_reason);
    m.host_placement = h;
  }
  if (const auto it = j.find(key::isolation); it != j.end()) {
    Isolation i;
    read_if(*it, key::alone_on_host, i.alone_on_host);
    read_if(*it, key::waited_ms, i.waited_ms);
    read_if(*it, key::lock, i.lock);
    m.isolation = i;
  }
}

}  // namespace hazardlab
