// One conformance run on one GPU (conformance_run.hpp), a function per concern: each program run and tallied
// (run_one_program), the rounds of programs (run_rounds), the run recorded (recorded_run, finding_of), judged (judge).
#include "conformance_gpu/cases/conformance_run.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <random>

#include "conformance/generate/generate.hpp"
#include "conformance/print/print_program.hpp"
#include "conformance_gpu/runner/run_program.hpp"
#include "conformance_gpu/runner/upload_probe.hpp"
#include "settings/settings.hpp"

namespace hazardlab::conformance {
namespace {

// A mutant is refuted when the GPU contradicts it; rule 7's mutant (completion at return) is weaker than
// nothing the hardware does when pageable device-to-host copies are synchronous, as they usually are.
constexpr const char* kWhyNot7 =
    "the older rule (pageable device-to-host cudaMemcpyAsync returns complete) is what this GPU did, so the "
    "weaker 12.x rule cannot be told apart from it here";

struct MutantTally {
  Rule rule;
  std::optional<int> refuted_at;
};

// What a run of a program shows against a model: the documented rules, accepting also what the deviations
// seen on GPUs allow (rules.hpp); an item only the weakened model allows is that deviation taken.
std::vector<std::string> disagreements_with(const Program& executed, const RuleSet& rules,
                                            const Observation& observation) {
  return disagreements(executed, predict(executed, rules), predict(executed, rules.with_seen_deviations()),
                       observation);
}

// The threshold as the run records it: the measured figure (none when not measured), why not, every probe.
SmallUploadThresholdFound threshold_found(const SmallUploadThreshold& t) {
  SmallUploadThresholdFound found{t.largest_skipping, t.largest_skipping.value_or(kSmallUploadBytes), t.problem,
                                  describe(t), {}};
  for (const UploadProbeTally& p : t.probes) found.probes.push_back({p.bytes, p.skipped, p.obeyed, p.neither});
  return found;
}

// What the programs of a run showed, added up program by program.
struct Tally {
  std::vector<MutantTally> mutants;
  // Per deviation, the programs in which the GPU did what only that deviation allows.
  std::vector<long> deviation_taken = std::vector<long>(kDeviationCount, 0);
  Coverage coverage;
  int programs = 0;
  long operations = 0, violations = 0;
  bool timed_out = false;
  std::string last_violation, last_source;

  Tally() {
    for (const RuleInfo& info : all_rules()) mutants.push_back({info.rule, std::nullopt});
  }
  // A mutant that the GPU could refute is still standing (rule 7's never can: kWhyNot7).
  bool refutable_standing() const {
    return std::any_of(mutants.begin(), mutants.end(), [](const MutantTally& m) {
      return !m.refuted_at && m.rule != Rule::kAsyncCopyPageableD2HNoHostGuarantee;
    });
  }
};

// One generated program run on the GPU and compared with the models, added to `t`: RC_FAIL on a disagreement
// that no deviation seen before explains (rapidcheck shrinks it), or on a gate that timed out.
void run_one_program(Tally& t, const RuleSet& measured, const RunLimits& limits, std::mt19937& nonces) {
  const Program program = build_program(*gen_program_spec());
  ++t.programs;
  t.operations += static_cast<long>(program.commands().size());
  const Run run = run_program(program, limits, static_cast<std::uint32_t>(nonces()));
  if (run.gate_timed_out) {
    t.timed_out = true;
    RC_FAIL("a gate timed out");
  }
  const Prediction documented = predict(run.executed);
  t.coverage.add(documented, run.observation);
  const std::vector<std::string> found = disagreements(
      run.executed, documented, predict(run.executed, measured.with_seen_deviations()), run.observation);
  // Only a run the model explains counts against a mutant or for a deviation: a violation disagrees with
  // every model, and would "refute" a mutant no GPU can refute (rule 7 did so in an H100 run).
  if (found.empty()) {
    if (!disagreements(run.executed, documented, run.observation).empty())
      for (const DeviationInfo& d : all_deviations())
        if (disagreements(run.executed, predict(run.executed, measured.with(d.deviation)), run.observation).empty())
          ++t.deviation_taken[static_cast<std::size_t>(d.deviation)];
    for (MutantTally& m : t.mutants)
      if (!m.refuted_at && !disagreements_with(run.executed, measured.without(m.rule), run.observation).empty())
        m.refuted_at = t.programs;
    return;
  }
  ++t.violations;
  // Every disagreement of the run, so that one report shows all that it saw.
  t.last_violation.clear();
  for (const std::string& f : found) t.last_violation += (t.last_violation.empty() ? "" : "; ") + f;
  t.last_source = to_cuda_source(run.executed);
  RC_FAIL(found.front());
}

// The programs, in rounds of the profile's count. A mutant left standing after the planned programs most often
// means they did not happen to hold the program that shows the GPU needing its rule (one health run in ten on two
// H200s left the model without sync-memcpy standing after 300). More programs, up to kExtraRounds more rounds,
// each from the next seed so that HAZARDLAB_SEED still replays the whole run, settle it; a disagreement or a
// timeout ends the run at once.
template <class Property>
rc::detail::TestResult run_rounds(const Property& property, const Tally& tally, std::uint64_t seed, int programs) {
  constexpr int kExtraRounds = 3;
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = programs;
  rc::detail::TestMetadata metadata;
  metadata.id = metadata.description = "conformance";
  rc::detail::TestResult result = rc::detail::checkTestable(property, metadata, params);
  rc::detail::SuccessResult round_success;
  for (int round = 1; round <= kExtraRounds && result.match(round_success) && tally.refutable_standing(); ++round) {
    params.seed = seed + static_cast<std::uint64_t>(round);
    result = rc::detail::checkTestable(property, metadata, params);
  }
  return result;
}

// The run as its result records it (observations.conformance): each mutant and deviation, the coverage, the
// threshold.
ConformanceRun recorded_run(const Tally& t, const Profile& profile, const SmallUploadThreshold& threshold,
                            double wall_ms) {
  ConformanceRun recorded;
  for (const MutantTally& m : t.mutants) {
    const RuleInfo& info = rule_info(m.rule);
    std::string why_not;
    if (!m.refuted_at) {
      why_not = m.rule == Rule::kAsyncCopyPageableD2HNoHostGuarantee
                    ? kWhyNot7
                    : "not refuted within " + std::to_string(t.programs) + " programs";
    }
    recorded.mutants.push_back({std::string(info.name), std::string(info.citation), m.refuted_at.has_value(),
                                m.refuted_at ? std::optional<long>(*m.refuted_at) : std::nullopt, why_not});
  }
  for (const DeviationInfo& d : all_deviations())
    recorded.deviations.push_back({std::string(d.name), std::string(d.summary), std::string(d.evidence),
                                   t.deviation_taken[static_cast<std::size_t>(d.deviation)]});
  recorded.profile = profile.name;
  recorded.programs = t.programs;
  recorded.operations = t.operations;
  recorded.reads_checked = t.coverage.reads_checked;
  recorded.racy_reads = t.coverage.racy_reads;
  recorded.racy_reads_non_latest = t.coverage.racy_reads_non_latest;
  recorded.violations = t.violations;
  recorded.wall_ms = wall_ms;
  recorded.small_upload_threshold = threshold_found(threshold);
  return recorded;
}

// The run in one sentence: its programs, violations, racy reads, deviations taken and threshold.
std::string finding_of(const Tally& t, const Profile& profile, const SmallUploadThreshold& threshold) {
  long programs_with_deviation = 0;
  for (long n : t.deviation_taken) programs_with_deviation += n;
  const std::string beyond_plan = t.programs > profile.programs
                                      ? " (" + std::to_string(t.programs - profile.programs) +
                                            " beyond the profile's " + std::to_string(profile.programs) +
                                            ", to refute every refutable mutant)"
                                      : "";
  return std::to_string(t.programs) + " generated programs (" + profile.name + ")" + beyond_plan + ", " +
         std::to_string(t.violations) + " violations; " + std::to_string(t.coverage.racy_reads_non_latest) + " of " +
         std::to_string(t.coverage.racy_reads) + " racy reads seen at a value other than the latest; " +
         std::to_string(programs_with_deviation) + " program(s) took a deviation seen before; " + describe(threshold);
}

// Judged like a documented rule: a disagreement with the documented model that no deviation seen before
// explains is wrong data (a bug in CUDA or in the model, shrunk and printed for whoever settles it); a
// mutant left standing means these programs did not show that the GPU needs the rule, so nothing is
// proved either way; a gate that timed out, or a run that could not finish, is undecided too.
void judge(VariantResult& r, const rc::detail::TestResult& result, const Tally& t,
           const SmallUploadThreshold& threshold, std::uint64_t seed) {
  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  const std::string replay = " (replay with HAZARDLAB_SEED=" + std::to_string(seed) + ")";
  r.outcome = Outcome::Passed;
  if (result.match(failure) && t.timed_out) {
    r.outcome = Outcome::Inconclusive;
    r.reason = "a gate timed out" + replay;
  } else if (result.match(failure)) {
    r.outcome = Outcome::Incorrect;
    r.reason = "the GPU and the model disagree; smallest program: " + t.last_violation + replay + "\n" + t.last_source;
    r.minimal_case = {{"violation", t.last_violation}, {"cuda_source", t.last_source}, {"seed", seed}};
  } else if (!result.match(success)) {
    r.outcome = Outcome::Inconclusive;
    r.reason = "the run could not decide" + replay;
  } else if (t.refutable_standing()) {
    r.outcome = Outcome::Inconclusive;
    std::string standing;
    for (const MutantTally& m : t.mutants)
      if (!m.refuted_at && m.rule != Rule::kAsyncCopyPageableD2HNoHostGuarantee)
        standing += (standing.empty() ? "" : ", ") + std::string(rule_info(m.rule).name);
    r.reason = "0 disagreements, but the programs did not refute the model without " + standing +
               ", so they did not show the GPU keeping that rule" + replay;
  } else if (!threshold.largest_skipping) {
    r.outcome = Outcome::Inconclusive;
    r.reason = "0 disagreements, but the small-upload threshold was " + describe(threshold) +
               "; the model used the 24 KiB seen before" + replay;
  } else {
    r.reason = "0 disagreements, and every refutable mutant refuted" + replay;
  }
}

}  // namespace

// HAZARDLAB_CONFORMANCE_PROFILE, validated with every other setting (settings.hpp).
Profile profile_for(const Settings& settings) {
  return settings.conformance_full ? Profile{"full", 3000} : Profile{"quick", 300};
}

VariantResult run_conformance(const DeviceFingerprint&, const Settings& settings) {
  const auto start = std::chrono::steady_clock::now();
  const Profile profile = profile_for(settings);
  prepare_runner();
  const RunLimits limits{settings.call_limit, std::min(settings.gate_timeout, std::chrono::milliseconds(2000))};
  // This GPU's small-upload threshold, to the byte: the figure the deviation's model takes (24 KiB if it
  // could not be measured, and then the run cannot pass).
  const SmallUploadThreshold threshold = measure_small_upload_threshold(limits.gate_timeout);
  const RuleSet measured =
      RuleSet::all().with_small_upload_bytes(threshold.largest_skipping.value_or(kSmallUploadBytes));
  Tally tally;
  std::mt19937 nonces(std::random_device{}());
  const std::uint64_t seed = settings.seed.value_or(std::random_device{}());
  const rc::detail::TestResult result =
      run_rounds([&] { run_one_program(tally, measured, limits, nonces); }, tally, seed, profile.programs);

  VariantResult r;
  r.seed = seed;
  r.trials = tally.programs;
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.observations.conformance = recorded_run(tally, profile, threshold, wall_ms);
  r.finding = finding_of(tally, profile, threshold);
  judge(r, result, tally, threshold, seed);
  return r;
}

}  // namespace hazardlab::conformance
