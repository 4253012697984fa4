#include "hazardlab/outcome.hpp"

namespace hazardlab {

namespace {
constexpr Outcome kAll[] = {Outcome::Passed,     Outcome::Failed,        Outcome::Incorrect,    Outcome::Skipped,
                            Outcome::Reproduced, Outcome::NotReproduced, Outcome::Inconclusive, Outcome::Observed};
}

std::string_view to_string(Outcome outcome) noexcept {
  switch (outcome) {
    case Outcome::Passed:
      return "passed";
    case Outcome::Failed:
      return "failed";
    case Outcome::Incorrect:
      return "incorrect";
    case Outcome::Skipped:
      return "skipped";
    case Outcome::Reproduced:
      return "reproduced";
    case Outcome::NotReproduced:
      return "not-reproduced";
    case Outcome::Inconclusive:
      return "inconclusive";
    case Outcome::Observed:
      return "observed";
  }
  return "?";
}

std::optional<Outcome> outcome_from_string(std::string_view name) noexcept {
  for (Outcome o : kAll) {
    if (to_string(o) == name) return o;
  }
  return std::nullopt;
}

Standing standing_of(Outcome outcome) noexcept {
  switch (outcome) {
    case Outcome::Passed:
    case Outcome::Reproduced:
    case Outcome::Observed:
      return Standing::Good;
    case Outcome::Failed:
    case Outcome::Incorrect:
    case Outcome::NotReproduced:
      return Standing::Bad;
    case Outcome::Inconclusive:
      return Standing::Undecided;
    case Outcome::Skipped:
      return Standing::NotRun;
  }
  return Standing::Bad;
}

}  // namespace hazardlab
