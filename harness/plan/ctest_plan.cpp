#include "plan/ctest_plan.hpp"

#include <ostream>
#include <stdexcept>

#include "hazard/hazard.hpp"

namespace hazardlab {

namespace {

constexpr const char* kSessionFixture = "hazardlab_session";

// One value as ctest's script receives it: it splits lines at newlines, fields at tabs and lists at ';'.
const std::string& passable(const std::string& value, const std::string& where) {
  if (value.empty() || value.find_first_of("\t\n;") != std::string::npos) {
    throw std::invalid_argument("'" + value + "' (for " + where + ") " +
                                (value.empty() ? "is empty" : "holds a tab, a newline or a ';'") +
                                ", which ctest's registration cannot pass on; use folders and programs without them");
  }
  return value;
}

// `kind` `first` `values`..., one line; `where` names it in an error.
void line(std::ostream& out, const std::string& kind, const std::string& where, const std::string& first,
          const std::vector<std::string>& values) {
  out << kind << '\t' << passable(first, where);
  for (const std::string& v : values) out << '\t' << passable(v, where);
  out << '\n';
}

void line(std::ostream& out, const std::string& kind, const std::string& test, const std::vector<std::string>& values) {
  line(out, kind, "the test " + test, test, values);
}

void property(std::ostream& out, const std::string& test, const std::string& name, const std::vector<std::string>& values) {
  line(out, "property", test, [&] {
    std::vector<std::string> fields{name};
    fields.insert(fields.end(), values.begin(), values.end());
    return fields;
  }());
}

}  // namespace

void write_ctest_plan(std::ostream& out, const RunPlan& plan, const std::vector<std::string>& warnings) {
  for (std::string w : warnings) {
    for (char& c : w) c = (c == ';' ? ',' : c == '\t' || c == '\n' ? ' ' : c);  // said as one line
    out << "warning\t" << w << '\n';
  }
  line(out, "environment", "every test's environment", plan.environment.front(),
       std::vector<std::string>(plan.environment.begin() + 1, plan.environment.end()));
  std::vector<std::string> timed;
  for (const PlannedTest& t : plan.tests)
    if (t.phase == Phase::Timed) timed.push_back(t.name);
  for (const PlannedTest& t : plan.tests) {
    line(out, "test", t.name, t.command);
    if (t.phase == Phase::Start || t.phase == Phase::Report) {
      property(out, t.name, t.phase == Phase::Start ? "FIXTURES_SETUP" : "FIXTURES_CLEANUP", {kSessionFixture});
      property(out, t.name, "ENVIRONMENT", plan.environment);
      property(out, t.name, "LABELS", t.labels);
      continue;
    }
    property(out, t.name, "LABELS", t.labels);
    property(out, t.name, "ENVIRONMENT", plan.environment);
    property(out, t.name, "FIXTURES_REQUIRED", {kSessionFixture});
    property(out, t.name, "RESOURCE_LOCK", {t.lock});
    // The measurements start first: their set-up overlaps, their timed parts take turns.
    if (t.phase != Phase::Case) property(out, t.name, "COST", {"1000"});
    property(out, t.name, "SKIP_RETURN_CODE", {"77"});
    property(out, t.name, "TIMEOUT", {std::to_string(t.timeout.count())});
    // DEPENDS only orders; it does not pull the measurements into a selection. A case that uses two GPUs
    // also follows its GPU's other cases, as in the plan (run_plan.cpp says why): ctest would otherwise
    // order them by the times of earlier runs.
    std::vector<std::string> before = t.phase == Phase::Case ? timed : std::vector<std::string>{};
    if (t.phase == Phase::Case && uses_two_gpus(t.labels))
      for (const PlannedTest& other : plan.tests)
        if (other.phase == Phase::Case && other.device_index == t.device_index && !uses_two_gpus(other.labels))
          before.push_back(other.name);
    if (!before.empty()) property(out, t.name, "DEPENDS", before);
  }
}

void write_resource_spec_line(std::ostream& out, const std::filesystem::path& spec) {
  out << "resource-spec\t" << passable(spec.string(), "ctest's resource spec") << '\n';
}

void write_failed_ctest_plan(std::ostream& out, const RunPlan& plan, const std::vector<std::string>& failing) {
  for (const PlannedTest& t : plan.tests) {
    if (t.phase == Phase::Start || t.phase == Phase::Report) continue;
    line(out, "test", t.name, failing);
    property(out, t.name, "LABELS", t.labels);
  }
}

}  // namespace hazardlab
