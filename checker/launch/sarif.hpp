// hazardlab check's findings as SARIF 2.1.0, the format code scanning and editors read: one run whose tool is
// hazardlab, one rule per hazard found (its title and `hazardlab explain` text), and one result per
// finding at the access's source line, with the copy's line as a related location, a thread flow (copy
// issued, the synchronization that was missing, the access) and a fingerprint that stays the same from run to
// run, so that a finding is reported once however often the program is checked.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "checker/launch/check_report.hpp"

namespace hazardlab::check {

// What hazardlab says of a hazard: its title and `hazardlab explain`'s text.
struct HazardExplanation {
  std::string title;
  std::string explanation;
};
using ExplanationOf = std::function<std::optional<HazardExplanation>(std::string_view hazard)>;

struct SarifContext {
  std::string tool_version;
  std::filesystem::path source_root;  // paths under it are written relative to it (SRCROOT)
  ExplanationOf explanation;                    // may be empty: the rule then says only the finding's own words
};

nlohmann::json to_sarif(const CheckReport& report, const SarifContext& context);

// A source line a stack names: "file:line" of its innermost frame that tells about the program (Python first,
// for a Python program), if any.
struct SourceLine {
  std::filesystem::path file;
  int line = 0;
};
std::optional<SourceLine> source_line(const std::vector<Frame>& native, const std::vector<PythonFrame>& python);

}  // namespace hazardlab::check
