#include "hazardlab/measurements.hpp"

#include <nlohmann/json.hpp>

namespace hazardlab {
namespace perf {
namespace {

using json = nlohmann::json;

// Every key of a measurement record, named once: the writer and the reader below use these, and
// reports/schema/gpu-report.schema.json lists the same ones (a self-test compares the two).
namespace key {
// The groups, at the top of a record's "measurements".
constexpr const char* bandwidth = "bandwidth";
constexpr const char* bidirectional = "bidirectional";
constexpr const char* link_raw_gbps = "link_raw_gbps_per_direction";
constexpr const char* checked_sizes = "checked_sizes";
constexpr const char* link_threshold_gbps = "link_threshold_gbps";
constexpr const char* reference = "reference";
constexpr const char* all_gpus_at_once = "all_gpus_at_once";
constexpr const char* peer_matrix = "peer_matrix";
constexpr const char* overlap = "overlap";
constexpr const char* overlap_attempts = "overlap_attempts";
constexpr const char* findings = "findings";
constexpr const char* soak = "soak";
constexpr const char* host_placement = "host_placement";
constexpr const char* isolation = "isolation";
// Inside them.
constexpr const char* direction = "direction";
constexpr const char* host_memory = "host_memory";
constexpr const char* bytes = "bytes";
constexpr const char* copies_per_repeat = "copies_per_repeat";
constexpr const char* median_gbps = "median_gbps";
constexpr const char* min_gbps = "min_gbps";
constexpr const char* max_gbps = "max_gbps";
constexpr const char* cv = "cv";
constexpr const char* iqr_gbps = "iqr_gbps";
constexpr const char* samples = "samples";
constexpr const char* attempts = "attempts";
constexpr const char* samples_gbps = "samples_gbps";
constexpr const char* spread = "spread";
constexpr const char* floor_gbps = "floor_gbps";
constexpr const char* confirmed_miss = "confirmed_miss";
constexpr const char* measured = "measured";
constexpr const char* per_gpu = "per_gpu";
constexpr const char* device_index = "device_index";
constexpr const char* gbps = "gbps";
constexpr const char* total_gbps = "total_gbps";
constexpr const char* source_index = "source_index";
constexpr const char* destination_index = "destination_index";
constexpr const char* peer_access = "peer_access";
constexpr const char* tool = "tool";
constexpr const char* runs_per_size = "runs_per_size";
constexpr const char* remeasured_below = "remeasured_below_fraction";
constexpr const char* figures = "figures";
constexpr const char* errors = "errors";
constexpr const char* figure = "figure";
constexpr const char* hazardlab_gbps = "hazardlab_gbps";
constexpr const char* nvbandwidth_gbps = "nvbandwidth_gbps";
constexpr const char* ratio = "ratio";
constexpr const char* nvbandwidth_runs = "nvbandwidth_runs_gbps";
constexpr const char* hazardlab_attempts = "hazardlab_attempts_gbps";
constexpr const char* numa_node = "numa_node";
constexpr const char* cpus = "cpus";
constexpr const char* bound = "bound_to_gpu_cpus";
constexpr const char* not_bound_reason = "not_bound_reason";
constexpr const char* alone_on_host = "alone_on_host";
constexpr const char* waited_ms = "waited_ms";
constexpr const char* lock = "lock";
constexpr const char* streams = "streams";
constexpr const char* kernel_ms = "kernel_ms";
constexpr const char* copy_ms = "copy_ms";
constexpr const char* both_ms = "both_ms";
constexpr const char* fraction_hidden = "fraction_hidden";
constexpr const char* id = "id";
constexpr const char* question = "question";
constexpr const char* a = "a";
constexpr const char* b = "b";
constexpr const char* a_ms = "a_ms";
constexpr const char* b_ms = "b_ms";
constexpr const char* b_over_a = "b_over_a";
// Spread.
constexpr const char* n = "n";
constexpr const char* median = "median";
constexpr const char* min = "min";
constexpr const char* max = "max";
constexpr const char* q1 = "q1";
constexpr const char* q3 = "q3";
constexpr const char* iqr = "iqr";
// The soak.
constexpr const char* seconds = "seconds";
constexpr const char* overshoot_s = "overshoot_s";
constexpr const char* rounds = "rounds";
constexpr const char* churns = "churns";
constexpr const char* bytes_per_copy = "bytes_per_copy";
constexpr const char* copies = "copies";
constexpr const char* copy = "copy";
constexpr const char* bytes_verified = "bytes_verified";
constexpr const char* corrupted = "corrupted";
constexpr const char* t_s = "t_s";
constexpr const char* fault_injected = "fault_injected";
}  // namespace key

constexpr const char* kSameStreams = "same";
constexpr const char* kSeparateStreams = "separate";

// A key a record may lack (another version's), read into `out` when it is there.
template <class T>
void read_if(const json& j, const char* k, T& out) {
  if (const auto it = j.find(k); it != j.end() && !it->is_null()) it->get_to(out);
}
template <class T>
void read_if(const json& j, const char* k, std::optional<T>& out) {
  if (const auto it = j.find(k); it != j.end() && !it->is_null()) out = it->get<T>();
}

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

template <class T, class Read>
std::vector<T> read_list(const json& j, Read read) {
  std::vector<T> out;
  for (const json& one : j) out.push_back(read(one));
  return out;
}

template <class T>
json write_list(const std::vector<T>& items) {
  json out = json::array();
  for (const T& one : items) out.push_back(write(one));
  return out;
}

}  // namespace

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
