#include "hazardlab/observations.hpp"

#include <algorithm>

namespace hazardlab {

namespace {

// Each key of a result's observations, named once.
namespace key {
constexpr const char *blocking = "blocking", *property_runs = "property_runs_including_shrinking",
                     *per_size = "per_size", *by_gate = "by_gate", *race_window = "race_window",
                     *self_check = "self_check", *host_read = "host_read_gbps", *conformance = "conformance";
constexpr const char *trials = "trials", *returned = "returned_while_stream_held", *waited_for = "waited_for_stream",
                     *largest_returned = "largest_bytes_returned_while_held",
                     *smallest_waited = "smallest_bytes_that_waited", *damage = "damage_reached_data";
constexpr const char *bytes = "bytes", *waited = "waited", *raced = "raced", *reproduced = "reproduced";
constexpr const char *held = "held", *problems = "problems", *write_combined = "write_combined", *pinned = "pinned";
constexpr const char *profile = "profile", *programs = "programs", *operations = "operations",
                     *reads_checked = "reads_checked", *racy_reads = "racy_reads",
                     *racy_reads_non_latest = "racy_reads_non_latest", *violations = "violations",
                     *wall_ms = "wall_ms", *mutants = "mutants", *deviations = "deviations",
                     *small_upload_threshold = "small_upload_threshold";
constexpr const char *rule = "rule", *citation = "citation", *refuted = "refuted",
                     *programs_to_refute = "programs_to_refute", *why_not = "why_not";
constexpr const char *deviation = "deviation", *allows = "allows", *evidence = "evidence",
                     *programs_taking_it = "programs_taking_it";
constexpr const char *skipped = "skipped", *obeyed = "obeyed", *neither = "neither";
constexpr const char *largest_skipping = "largest_skipping_bytes", *model_bytes = "model_bytes",
                     *problem = "problem", *summary = "summary", *probes = "probes";
}  // namespace key

template <typename T>
nlohmann::json optional_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <typename T>
std::optional<T> optional_at(const nlohmann::json& j, const char* name) {
  const nlohmann::json& v = j.at(name);
  return v.is_null() ? std::nullopt : std::optional<T>(v.get<T>());
}

nlohmann::json blocking_json(const BlockingTally& b) {
  return {{key::trials, b.trials},
          {key::returned, b.returned_while_stream_held},
          {key::waited_for, b.waited_for_stream},
          {key::largest_returned, b.largest_bytes_returned_while_held},
          {key::smallest_waited, b.smallest_bytes_that_waited},
          {key::damage, b.damage_reached_data}};
}

BlockingTally blocking_from(const nlohmann::json& j) {
  BlockingTally b;
  j.at(key::trials).get_to(b.trials);
  j.at(key::returned).get_to(b.returned_while_stream_held);
  j.at(key::waited_for).get_to(b.waited_for_stream);
  j.at(key::largest_returned).get_to(b.largest_bytes_returned_while_held);
  j.at(key::smallest_waited).get_to(b.smallest_bytes_that_waited);
  j.at(key::damage).get_to(b.damage_reached_data);
  return b;
}

nlohmann::json threshold_json(const SmallUploadThresholdFound& t) {
  nlohmann::json probes = nlohmann::json::array();
  for (const UploadProbe& p : t.probes)
    probes.push_back({{key::bytes, p.bytes}, {key::skipped, p.skipped}, {key::obeyed, p.obeyed},
                      {key::neither, p.neither}});
  return {{key::largest_skipping, optional_json(t.largest_skipping_bytes)},
          {key::model_bytes, t.model_bytes},
          {key::problem, t.problem},
          {key::summary, t.summary},
          {key::probes, probes}};
}

SmallUploadThresholdFound threshold_from(const nlohmann::json& j) {
  SmallUploadThresholdFound t;
  t.largest_skipping_bytes = optional_at<std::size_t>(j, key::largest_skipping);
  j.at(key::model_bytes).get_to(t.model_bytes);
  j.at(key::problem).get_to(t.problem);
  j.at(key::summary).get_to(t.summary);
  for (const nlohmann::json& p : j.at(key::probes))
    t.probes.push_back({p.at(key::bytes).get<std::size_t>(), p.at(key::skipped).get<int>(),
                        p.at(key::obeyed).get<int>(), p.at(key::neither).get<int>()});
  return t;
}

nlohmann::json conformance_json(const ConformanceRun& c) {
  nlohmann::json mutants = nlohmann::json::array();
  for (const ConformanceMutant& m : c.mutants)
    mutants.push_back({{key::rule, m.rule},
                       {key::citation, m.citation},
                       {key::refuted, m.refuted},
                       {key::programs_to_refute, optional_json(m.programs_to_refute)},
                       {key::why_not, m.why_not}});
  nlohmann::json deviations = nlohmann::json::array();
  for (const ConformanceDeviation& d : c.deviations)
    deviations.push_back({{key::deviation, d.deviation},
                          {key::allows, d.allows},
                          {key::evidence, d.evidence},
                          {key::programs_taking_it, d.programs_taking_it}});
  return {{key::profile, c.profile},
          {key::programs, c.programs},
          {key::operations, c.operations},
          {key::reads_checked, c.reads_checked},
          {key::racy_reads, c.racy_reads},
          {key::racy_reads_non_latest, c.racy_reads_non_latest},
          {key::violations, c.violations},
          {key::wall_ms, c.wall_ms},
          {key::mutants, mutants},
          {key::deviations, deviations},
          {key::small_upload_threshold, threshold_json(c.small_upload_threshold)}};
}

ConformanceRun conformance_from(const nlohmann::json& j) {
  ConformanceRun c;
  j.at(key::profile).get_to(c.profile);
  j.at(key::programs).get_to(c.programs);
  j.at(key::operations).get_to(c.operations);
  j.at(key::reads_checked).get_to(c.reads_checked);
  j.at(key::racy_reads).get_to(c.racy_reads);
  j.at(key::racy_reads_non_latest).get_to(c.racy_reads_non_latest);
  j.at(key::violations).get_to(c.violations);
  j.at(key::wall_ms).get_to(c.wall_ms);
  for (const nlohmann::json& m : j.at(key::mutants))
    c.mutants.push_back({m.at(key::rule).get<std::string>(), m.at(key::citation).get<std::string>(),
                         m.at(key::refuted).get<bool>(), optional_at<long>(m, key::programs_to_refute),
                         m.at(key::why_not).get<std::string>()});
  for (const nlohmann::json& d : j.at(key::deviations))
    c.deviations.push_back({d.at(key::deviation).get<std::string>(), d.at(key::allows).get<std::string>(),
                            d.at(key::evidence).get<std::string>(), d.at(key::programs_taking_it).get<long>()});
  c.small_upload_threshold = threshold_from(j.at(key::small_upload_threshold));
  return c;
}

}  // namespace

void write_observations(nlohmann::json& into, const Observations& o) {
  if (o.blocking) into[key::blocking] = blocking_json(*o.blocking);
  if (o.property_runs_including_shrinking) into[key::property_runs] = *o.property_runs_including_shrinking;
  if (!o.per_size.empty()) {
    nlohmann::json sizes = nlohmann::json::array();
    for (const SizeTally& s : o.per_size)
      sizes.push_back({{key::bytes, s.bytes}, {key::trials, s.trials}, {key::waited, s.waited}, {key::raced, s.raced}});
    into[key::per_size] = sizes;
  }
  if (!o.by_gate.empty()) {
    nlohmann::json gates = nlohmann::json::object();
    for (const auto& [gate, t] : o.by_gate) gates[gate] = {{key::trials, t.trials}, {key::reproduced, t.reproduced}};
    into[key::by_gate] = gates;
  }
  if (o.race_window) into[key::race_window] = *o.race_window;
  if (o.self_check) into[key::self_check] = {{key::held, o.self_check->held}, {key::problems, o.self_check->problems}};
  if (o.host_read)
    into[key::host_read] = {{key::write_combined, o.host_read->write_combined_gbps},
                            {key::pinned, o.host_read->pinned_gbps}};
  if (o.conformance) into[key::conformance] = conformance_json(*o.conformance);
}

Observations read_observations(const nlohmann::json& from, const std::vector<std::string>& also_allowed) {
  Observations o;
  for (const auto& [name, v] : from.items()) {
    if (name == key::blocking) {
      o.blocking = blocking_from(v);
    } else if (name == key::property_runs) {
      o.property_runs_including_shrinking = v.get<int>();
    } else if (name == key::per_size) {
      for (const nlohmann::json& s : v)
        o.per_size.push_back({s.at(key::bytes).get<std::size_t>(), s.at(key::trials).get<int>(),
                              s.at(key::waited).get<int>(), s.at(key::raced).get<int>()});
    } else if (name == key::by_gate) {
      for (const auto& [gate, t] : v.items())
        o.by_gate[gate] = {t.at(key::trials).get<int>(), t.at(key::reproduced).get<int>()};
    } else if (name == key::race_window) {
      o.race_window = v.get<RaceWindow>();
    } else if (name == key::self_check) {
      o.self_check = SweepSelfCheck{v.at(key::held).get<bool>(), v.at(key::problems).get<std::vector<std::string>>()};
    } else if (name == key::host_read) {
      o.host_read = HostReadSpeed{v.at(key::write_combined).get<double>(), v.at(key::pinned).get<double>()};
    } else if (name == key::conformance) {
      o.conformance = conformance_from(v);
    } else if (std::find(also_allowed.begin(), also_allowed.end(), name) == also_allowed.end()) {
      throw nlohmann::json::other_error::create(501, "unknown observation '" + name + "'", &from);
    }
  }
  return o;
}

}  // namespace hazardlab
