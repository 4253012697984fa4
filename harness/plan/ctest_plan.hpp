#pragma once
// The run plan as ctest's registration reads it (cmake/RegisterGpuCases.cmake.in): one line a test and
// one a property, tab-separated, which the script turns into add_test and set_tests_properties as they
// come. The phases become ctest's own scheduling: Start and Report are the session fixture's set-up and
// clean-up, every case DEPENDS on the Timed measurements, and the measurements start first (COST).
//
//   resource-spec <file>                             (ctest's resource spec of the GPUs: gpu_resources.hpp)
//   warning      <text>
//   environment  <NAME=value>...                     (also for scripts that add tests beside these)
//   test         <name> <program> <argument>...
//   property     <name> <PROPERTY> <value>...        (a list property takes several values)
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "plan/run_plan.hpp"

namespace hazardlab {

// Throws std::invalid_argument naming the value when one holds what ctest's script cannot pass on (a
// tab, a newline or a ';', which CMake takes for a list's separator), or is empty (which it drops).
void write_ctest_plan(std::ostream& out, const RunPlan& plan, const std::vector<std::string>& warnings);

// The line that names ctest's resource spec, which the registration hands to ctest (CTEST_RESOURCE_SPEC_FILE).
// Throws std::invalid_argument as write_ctest_plan does.
void write_resource_spec_line(std::ostream& out, const std::filesystem::path& spec);

// When the run cannot be planned (a bad setting): every test name the plan has (the fixtures aside) as a
// test that runs `failing` (which says why) with the test's labels, so that a selection by name or label
// fails too instead of finding no test.
void write_failed_ctest_plan(std::ostream& out, const RunPlan& plan, const std::vector<std::string>& failing);

}  // namespace hazardlab
