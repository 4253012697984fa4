#pragma once
// The race-window sections of a GPU's reports: for each hazard with a sweep result, its headline,
// its curves (a table in Markdown, a plot in HTML, a summary in JSON) and the tutorial's demo
// beside them. Read from the sweep variants' observations["race_window"].
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hazardlab/race_window.hpp"
#include "hazardlab/report.hpp"

namespace hazardlab {

struct RaceWindowEntry {
  std::string hazard_id;
  std::string hazard_title;
  RaceWindow window;
  // A sentence when the gated control reproduced while no delay did without a gate, "" otherwise.
  std::string gate_note;
};

std::vector<RaceWindowEntry> race_windows(const GpuReport& report);

nlohmann::json race_windows_json(const GpuReport& report);
void race_windows_markdown(std::ostringstream& md, const GpuReport& report);
std::string race_windows_html(const GpuReport& report);

}  // namespace hazardlab
