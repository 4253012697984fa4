#pragma once
// One fleet row from one GPU's report: the parts of fleet.cpp that read a GpuReport.
#include <string>

#include "hazardlab/fleet.hpp"

namespace hazardlab {

inline constexpr std::size_t kKeyFigureBytes = std::size_t{256} << 20;  // the link check's middle size

// The row's identity, verdict, failures, key figures and control counts; the run-level fields
// (run id, folder, flags, superseded runs) are the caller's.
FleetRow row_from_report(const GpuReport& report);

// The report's verdict as a fleet row shows it: without a GPU nothing about a GPU was decided, so
// a no-GPU report of a filtered run (PARTIAL) is SKIPPED; a FAIL or INCONCLUSIVE stays what it is.
Verdict fleet_verdict(const GpuReport& report);

// "2026-11-22T00:00:00Z" as seconds since the epoch; false unless the text is exactly that form.
bool parse_utc(const std::string& text, long long& seconds);

}  // namespace hazardlab
