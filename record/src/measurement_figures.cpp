// Each figure of a measurement record, written as JSON by its keys (measurement_keys.hpp) and read back:
// bandwidth points, bidirectional and all-GPU figures, the peer matrix, nvbandwidth's comparison, overlap, the
// findings and the soak.
#include "measurement_figures.hpp"

#include "measurement_keys.hpp"

namespace hazardlab::perf {
namespace {

constexpr const char* kSameStreams = "same";
constexpr const char* kSeparateStreams = "separate";

[[noreturn]] void unknown(const json& j, const std::string& what) {
  throw json::other_error::create(501, "unknown " + what + " '" + j.dump() + "'", &j);
}

Direction direction_of(const json& j) {
  const auto d = direction_from_string(j.get<std::string>());
  if (!d) unknown(j, "direction");
  return *d;
}

HostMemoryKind host_of(const json& j) {
  const auto h = host_memory_kind_from_string(j.get<std::string>());
  if (!h) unknown(j, "host memory kind");
  return *h;
}

}  // namespace

json write(const BandwidthPoint& b) {
  json j = {{key::direction, to_string(b.direction)}, {key::host_memory, to_string(b.host)},
            {key::bytes, b.bytes},                    {key::copies_per_repeat, b.copies_per_repeat},
            {key::median_gbps, b.median_gbps},        {key::min_gbps, b.min_gbps},
            {key::max_gbps, b.max_gbps},              {key::cv, b.cv},
            {key::iqr_gbps, b.iqr_gbps},              {key::samples, b.samples}};
  if (b.attempts.size() > 1) {
    json attempts = json::array();
    for (const Attempt& a : b.attempts) attempts.push_back({{key::samples_gbps, a.samples}, {key::spread, a.spread}});
    j[key::attempts] = attempts;
    j[key::floor_gbps] = b.floor_gbps;
    j[key::confirmed_miss] = b.confirmed_miss;
  }
  return j;
}

BandwidthPoint read_point(const json& j) {
  BandwidthPoint b;
  b.direction = direction_of(j.at(key::direction));
  b.host = host_of(j.at(key::host_memory));
  j.at(key::bytes).get_to(b.bytes);
  j.at(key::median_gbps).get_to(b.median_gbps);
  read_if(j, key::copies_per_repeat, b.copies_per_repeat);
  read_if(j, key::min_gbps, b.min_gbps);
  read_if(j, key::max_gbps, b.max_gbps);
  read_if(j, key::cv, b.cv);
  read_if(j, key::iqr_gbps, b.iqr_gbps);
  read_if(j, key::samples, b.samples);
  if (const auto it = j.find(key::attempts); it != j.end()) {
    for (const json& a : *it) b.attempts.push_back({a.at(key::samples_gbps).get<std::vector<double>>(),
                                                    a.at(key::spread).get<Spread>()});
  }
  read_if(j, key::floor_gbps, b.floor_gbps);
  read_if(j, key::confirmed_miss, b.confirmed_miss);
  return b;
}

json write(const BidirectionalResult& b) {
  return {{key::measured, to_string(b.measured)},
          {key::bytes, b.bytes},
          {key::median_gbps, b.spread.median},
          {key::spread, b.spread}};
}

BidirectionalResult read_bidirectional(const json& j) {
  return {direction_of(j.at(key::measured)), j.at(key::bytes).get<std::size_t>(), j.at(key::spread).get<Spread>()};
}

json write(const AllGpusResult& r) {
  json per_gpu = json::array();
  for (const auto& [index, gbps] : r.per_gpu) per_gpu.push_back({{key::device_index, index}, {key::gbps, gbps}});
  return {{key::direction, to_string(r.direction)},
          {key::bytes, r.bytes},
          {key::per_gpu, per_gpu},
          {key::total_gbps, r.total_gbps}};
}

AllGpusResult read_all_gpus(const json& j) {
  AllGpusResult r{direction_of(j.at(key::direction)), j.at(key::bytes).get<std::size_t>(), {}, 0};
  for (const json& g : j.at(key::per_gpu)) r.per_gpu.emplace_back(g.at(key::device_index), g.at(key::gbps));
  j.at(key::total_gbps).get_to(r.total_gbps);
  return r;
}

json write(const PeerBandwidth& p) {
  return {{key::source_index, p.source},
          {key::destination_index, p.destination},
          {key::peer_access, p.peer_access},
          {key::bytes, p.bytes},
          {key::gbps, p.gbps}};
}

PeerBandwidth read_peer(const json& j) {
  return {j.at(key::source_index).get<int>(), j.at(key::destination_index).get<int>(),
          j.at(key::peer_access).get<bool>(), j.at(key::bytes).get<std::size_t>(), j.at(key::gbps).get<double>()};
}

json write(const ReferenceComparison& c) {
  json figures = json::array();
  for (const ReferenceFigure& f : c.figures) {
    json one = {{key::figure, f.figure},
                {key::bytes, f.bytes},
                {key::hazardlab_gbps, f.hazardlab_gbps},
                {key::nvbandwidth_gbps, f.nvbandwidth_gbps},
                {key::ratio, f.ratio()},
                {key::nvbandwidth_runs, f.nvbandwidth_runs_gbps}};
    if (!f.hazardlab_attempts_gbps.empty()) one[key::hazardlab_attempts] = f.hazardlab_attempts_gbps;
    figures.push_back(std::move(one));
  }
  json j = {{key::tool, c.tool},
            {key::runs_per_size, c.runs_per_size},
            {key::remeasured_below, c.remeasured_below_fraction},
            {key::figures, figures}};
  if (!c.errors.empty()) j[key::errors] = c.errors;
  return j;
}

ReferenceComparison read_reference(const json& j) {
  ReferenceComparison c;
  read_if(j, key::tool, c.tool);
  read_if(j, key::runs_per_size, c.runs_per_size);
  read_if(j, key::remeasured_below, c.remeasured_below_fraction);
  for (const json& f : j.at(key::figures)) {
    ReferenceFigure one;
    f.at(key::figure).get_to(one.figure);
    f.at(key::bytes).get_to(one.bytes);
    f.at(key::hazardlab_gbps).get_to(one.hazardlab_gbps);
    f.at(key::nvbandwidth_gbps).get_to(one.nvbandwidth_gbps);
    read_if(f, key::nvbandwidth_runs, one.nvbandwidth_runs_gbps);
    read_if(f, key::hazardlab_attempts, one.hazardlab_attempts_gbps);
    c.figures.push_back(std::move(one));
  }
  read_if(j, key::errors, c.errors);
  return c;
}

json write(const OverlapResult& o) {
  return {{key::host_memory, to_string(o.host)},
          {key::streams, o.separate_streams ? kSeparateStreams : kSameStreams},
          {key::bytes, o.bytes},
          {key::kernel_ms, o.kernel_ms},
          {key::copy_ms, o.copy_ms},
          {key::both_ms, o.both_ms},
          {key::fraction_hidden, o.fraction}};
}

OverlapResult read_overlap(const json& j) {
  const std::string streams = j.at(key::streams).get<std::string>();
  if (streams != kSameStreams && streams != kSeparateStreams) unknown(j.at(key::streams), "streams");
  return {host_of(j.at(key::host_memory)), streams == kSeparateStreams, j.at(key::bytes).get<std::size_t>(),
          j.at(key::kernel_ms).get<double>(),  j.at(key::copy_ms).get<double>(),   j.at(key::both_ms).get<double>(),
          j.at(key::fraction_hidden).get<double>()};
}

json write(const Comparison& c) {
  return {{key::id, c.id}, {key::question, c.question}, {key::a, c.a},           {key::a_ms, c.a_ms},
          {key::b, c.b},   {key::b_ms, c.b_ms},         {key::b_over_a, c.ratio()}};
}

Comparison read_comparison(const json& j) {
  return {j.at(key::id).get<std::string>(), j.at(key::question).get<std::string>(), j.at(key::a).get<std::string>(),
          j.at(key::b).get<std::string>(),  j.at(key::a_ms).get<double>(),          j.at(key::b_ms).get<double>()};
}

json write(const soak::SoakResult& r) {
  json tallies = json::array(), samples = json::array();
  for (const soak::CopyTally& t : r.tallies)
    tallies.push_back({{key::copy, t.copy}, {key::copies, t.copies}, {key::bytes_verified, t.bytes_verified},
                       {key::corrupted, t.corrupted}});
  for (const soak::SoakSample& s : r.samples) samples.push_back({{key::t_s, s.t_s}, {key::copy, s.copy}, {key::gbps, s.gbps}});
  return {{key::seconds, r.seconds}, {key::overshoot_s, r.overshoot_s}, {key::rounds, r.rounds},
          {key::churns, r.churns},   {key::bytes_per_copy, r.bytes},    {key::copies, tallies},
          {key::errors, r.errors},   {key::samples, samples},           {key::fault_injected, r.fault_injected}};
}

soak::SoakResult read_soak(const json& j) {
  soak::SoakResult r;
  read_if(j, key::seconds, r.seconds);
  read_if(j, key::overshoot_s, r.overshoot_s);
  read_if(j, key::rounds, r.rounds);
  read_if(j, key::churns, r.churns);
  read_if(j, key::bytes_per_copy, r.bytes);
  if (const auto it = j.find(key::copies); it != j.end())
    for (const json& t : *it)
      r.tallies.push_back({t.at(key::copy), t.at(key::copies), t.at(key::bytes_verified), t.at(key::corrupted)});
  read_if(j, key::errors, r.errors);
  if (const auto it = j.find(key::samples); it != j.end())
    for (const json& s : *it) r.samples.push_back({s.at(key::t_s), s.at(key::copy), s.at(key::gbps)});
  read_if(j, key::fault_injected, r.fault_injected);
  return r;
}

}  // namespace hazardlab::perf
