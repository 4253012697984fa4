// The verdict of a GPU, decided in one place (decide_verdict): from its cases' outcomes, its measurements and
// checks, the cases that did not run and the cases seen failing without a result.
#include "hazardlab/report.hpp"

namespace hazardlab {
namespace {

// The cases' outcomes by standing.
struct Standings {
  int bad = 0, undecided = 0, good = 0, skipped = 0;
};

Standings standings_of(const Totals& totals) {
  Standings s;
  for (const auto& [outcome, count] : totals.outcomes) {
    switch (standing_of(outcome)) {
      case Standing::Good:
        s.good += count;
        break;
      case Standing::Bad:
        s.bad += count;
        break;
      case Standing::Undecided:
        s.undecided += count;
        break;
      case Standing::NotRun:
        s.skipped += count;
        break;
    }
  }
  return s;
}

// `why` and `more`, joined as the reasons are: "a; b".
std::string and_then(const std::string& why, const std::string& more) { return why + (why.empty() ? "" : "; ") + more; }

std::string failed_because(const Standings& s, const VerdictInput& in) {
  std::string why;
  if (s.bad) why = std::to_string(s.bad) + " case(s) failed, gave wrong data or missed their hazard";
  if (in.failed_checks) why = and_then(why, std::to_string(in.failed_checks) + " validation threshold(s) missed");
  if (in.failed_measurements)
    why = and_then(why, std::to_string(in.failed_measurements) + " performance measurement(s) failed");
  return why;
}

std::string undecided_because(const Standings& s, const VerdictInput& in) {
  std::string why;
  if (s.undecided) why = std::to_string(s.undecided) + " case(s) could not decide";
  if (in.untrusted_checks) {
    why = and_then(why, std::to_string(in.untrusted_checks) +
                            " validation threshold(s) measured beside other work, so no verdict on them");
  }
  return why;
}

// What held, said of everything registered (`all`) or only of what ran.
std::string what_held(const Standings& s, const VerdictInput& in, bool all) {
  std::string what;
  if (s.good) {
    what = all ? "every positive control reproduced its hazard and every guard and rule held"
               : "every positive control that ran reproduced its hazard and every guard and rule that ran held";
  }
  if (in.measured) {
    what = and_then(what, std::to_string(in.measured) + " performance measurement(s) taken" +
                              (in.passed_checks ? " and every applicable validation threshold met" : ""));
  }
  if (s.skipped) what = and_then(what, std::to_string(s.skipped) + " case(s) not applicable here");
  return what;
}

// The verdict of what the report holds: any failure fails the GPU; otherwise anything undecided makes it
// inconclusive; otherwise a case that did not run makes it partial; a GPU with nothing that ran is skipped.
std::pair<Verdict, std::string> verdict_of_what_ran(const VerdictInput& in) {
  const Standings s = standings_of(in.totals);
  const int not_run = in.totals.not_run;
  const std::string partial =
      not_run ? "; " + std::to_string(not_run) + " registered case(s) did not run in this run" : "";
  if (!in.has_device && in.require_gpu) {
    return {Verdict::Fail, "no usable GPU, and " + std::string(in.require_gpu_given_as) + " requires one"};
  }
  if (s.bad || in.failed_checks || in.failed_measurements) return {Verdict::Fail, failed_because(s, in) + partial};
  if (s.undecided || in.untrusted_checks) return {Verdict::Inconclusive, undecided_because(s, in) + partial};
  if (not_run) {
    const std::string what = what_held(s, in, false);
    return {Verdict::Partial, "not every registered case ran: " + std::to_string(not_run) +
                                  " did not run, so this is no verdict on them" +
                                  (what.empty() ? std::string() : "; " + what)};
  }
  if (!s.good && !in.measured) {
    return {Verdict::Skipped, in.has_device ? "no case ran" : "no usable GPU: every GPU case was skipped"};
  }
  return {Verdict::Pass, what_held(s, in, true)};
}

}  // namespace

std::string_view to_string(Verdict v) noexcept {
  switch (v) {
    case Verdict::Pass:
      return "PASS";
    case Verdict::Fail:
      return "FAIL";
    case Verdict::Inconclusive:
      return "INCONCLUSIVE";
    case Verdict::Partial:
      return "PARTIAL";
    case Verdict::Skipped:
      return "SKIPPED";
  }
  return "?";
}

std::pair<Verdict, std::string> decide_verdict(const VerdictInput& in) {
  auto [verdict, why] = verdict_of_what_ran(in);
  if (in.failed_without_result == 0) return {verdict, why};
  // The report alone sees only that such a case is missing, and would call the run partial; the caller saw it
  // fail. What the rest of the report says is kept after it.
  return {Verdict::Fail, std::to_string(in.failed_without_result) +
                             " case(s) FAILED without leaving a result (it could not be written, or the case "
                             "crashed: see its log); " +
                             why};
}

}  // namespace hazardlab
