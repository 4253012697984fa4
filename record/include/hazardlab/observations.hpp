#pragma once
// What a variant measured beyond its outcome, typed: each judge and each hazard that measures something
// of its own fills its part, the reports read the types, and the JSON (a result's "observations", closed
// in reports/schema/gpu-report.schema.json) names each key once (record/src/observations.cpp).
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hazardlab/race_window.hpp"

namespace hazardlab {

// Which copy calls returned while their stream was held closed, and which waited for it
// (harness/judge/blocking_profile.hpp): the evidence for "this call is asynchronous to the host".
struct BlockingTally {
  int trials = 0;
  int returned_while_stream_held = 0;
  int waited_for_stream = 0;
  std::size_t largest_bytes_returned_while_held = 0;
  std::size_t smallest_bytes_that_waited = 0;
  int damage_reached_data = 0;  // trials in which the hazard showed in the data
};

// An observation's trials at one copy size.
struct SizeTally {
  std::size_t bytes = 0;
  int trials = 0;
  int waited = 0;  // the call waited for the held stream
  int raced = 0;   // the hazard showed
};

// A positive control's trials behind one kind of gate.
struct GateTally {
  int trials = 0;
  int reproduced = 0;
};

// The race-window sweep's checks of its own instrument (harness/sweep/self_check.hpp).
struct SweepSelfCheck {
  bool held = false;
  std::vector<std::string> problems;
};

// Host reads of the same buffer, write-combined against ordinary pinned memory.
struct HostReadSpeed {
  double write_combined_gbps = 0;
  double pinned_gbps = 0;
};

// The conformance run (conformance_gpu/cases): what it ran, what it checked, and what it found.
struct ConformanceMutant {
  std::string rule;
  std::string citation;
  bool refuted = false;
  std::optional<long> programs_to_refute;  // the programs it took, when refuted
  std::string why_not;                     // when not refuted
};

struct ConformanceDeviation {
  std::string deviation;
  std::string allows;
  std::string evidence;
  long programs_taking_it = 0;
};

struct UploadProbe {
  std::size_t bytes = 0;
  int skipped = 0, obeyed = 0, neither = 0;
};

struct SmallUploadThresholdFound {
  std::optional<std::size_t> largest_skipping_bytes;  // empty when the search could not decide
  std::size_t model_bytes = 0;                         // what the model was given
  std::string problem;
  std::string summary;
  std::vector<UploadProbe> probes;  // in the order probed
};

struct ConformanceRun {
  std::string profile;
  long programs = 0;
  long operations = 0;
  long reads_checked = 0;
  long racy_reads = 0;
  long racy_reads_non_latest = 0;
  long violations = 0;
  double wall_ms = 0;
  std::vector<ConformanceMutant> mutants;
  std::vector<ConformanceDeviation> deviations;
  SmallUploadThresholdFound small_upload_threshold;
};

// Each part is present only where a variant measured it.
struct Observations {
  std::optional<BlockingTally> blocking;                        // properties and observations
  std::optional<int> property_runs_including_shrinking;         // properties
  std::vector<SizeTally> per_size;                              // observations over sizes
  std::map<std::string, GateTally> by_gate;                     // positive controls, by gate kind
  std::optional<RaceWindow> race_window;                        // race-window sweeps
  std::optional<SweepSelfCheck> self_check;                     // race-window sweeps
  std::optional<HostReadSpeed> host_read;                       // write-combined-memory
  std::optional<ConformanceRun> conformance;                    // stream-ordering-conformance
};

// The keys of a result's "observations" that these types fill; "finding" and "mutation_check" are the
// result's own (result.cpp).
void write_observations(nlohmann::json& into, const Observations& o);
// Reads the keys above from `from`; a key that none of them names is an error naming it
// (throws nlohmann::json::exception), so that a reader never drops what it does not know.
Observations read_observations(const nlohmann::json& from, const std::vector<std::string>& also_allowed);

}  // namespace hazardlab
