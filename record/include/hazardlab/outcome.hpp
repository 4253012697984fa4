#pragma once
// What a variant's run ended in. The outcomes keep apart what went wrong: the API failed, the
// data was wrong, the case could not run here, or the run could not decide.
#include <optional>
#include <string_view>

namespace hazardlab {

enum class Outcome {
  Passed,         // a guard or documented rule held in every case
  Failed,         // a CUDA API call failed
  Incorrect,      // a guard or documented rule let wrong data through
  Skipped,        // could not run here (no GPU, not supported): the reason says why
  Reproduced,     // the positive control showed the hazard in every trial
  NotReproduced,  // the positive control did not show the hazard: the suite cannot see it
  Inconclusive,   // the run could not decide (a call blocked, a gate timed out): the reason says why
  Observed,       // an observation with no expectation: the finding says what this GPU does
};

std::string_view to_string(Outcome outcome) noexcept;
std::optional<Outcome> outcome_from_string(std::string_view name) noexcept;

// Whether an outcome counts for or against a GPU's verdict.
enum class Standing { Good, Bad, Undecided, NotRun };
Standing standing_of(Outcome outcome) noexcept;

}  // namespace hazardlab
