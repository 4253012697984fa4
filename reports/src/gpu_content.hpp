#pragma once
// A GPU's report for people, laid out once (gpu_content.cpp, with document.hpp) and rendered in Markdown and
// HTML; and its cases, listed once for the results table and JUnit. Each section is built in its own file.
#include <optional>
#include <string>
#include <vector>

#include "hazardlab/document.hpp"
#include "hazardlab/report.hpp"

namespace hazardlab {

// One case of the report, as a CI system or a results table counts it: each variant, each
// measurement group.
struct CaseLine {
  std::string group;  // the hazard id, or "perf"
  std::string name;   // the variant id, or the measurement group
  std::string kind;   // the variant's kind, or "measurement"
  Standing standing = Standing::NotRun;
  std::string outcome;  // in capitals, as the reports show it ("NOT RUN" for no result)
  double seconds = 0;
  std::string type{};   // what ended it: the outcome, the status, or the check that missed
  std::string message{};  // why, in words
  std::string trials = "-", seen = "-", seed = "-";
};
std::vector<CaseLine> case_lines(const GpuReport& report);      // case_lines.cpp, as are the two below
std::string outcome_text(const VariantEntry& v);                // "PASSED", ..., "not run"
// The row colour of a standing ("good", "bad", "warn", "idle").
const char* standing_class(Standing s) noexcept;

void add_device(doc::Document& d, const GpuReport& report);        // device_section.cpp
void add_performance(doc::Document& d, const GpuReport& report);   // performance_section.cpp
void add_race_windows(doc::Document& d, const GpuReport& report);  // race_window_section.cpp
void add_soak(doc::Document& d, const GpuReport& report);          // soak_section.cpp
void add_hazards(doc::Document& d, const GpuReport& report);       // hazards_section.cpp, as is the one below
void add_how_to_read(doc::Document& d);

}  // namespace hazardlab
