#pragma once
// One line for a whole node that a health-check wrapper (NHC, Slurm's HealthCheckProgram) can use
// as the drain reason, printed last by every report:
//
//   hazardlab: PASS: 8 GPUs healthy (health profile)
//   hazardlab: gpu3 (0000:41:00.0) FAIL: pinned H2D 31.2 GB/s < 80% of PCIe Gen5 x16
//   hazardlab: gpu1 (0000:07:00.0) FAIL: soak: 1 corrupted copy, pinned h2d at offset 4093 (+1 more GPU not PASS)
//
// It starts with "hazardlab: " and fits Slurm's reason field; the first GPU that did not pass speaks
// for the node, the others are counted.
#include <string>
#include <vector>

#include "hazardlab/report.hpp"

namespace hazardlab {

// Why one GPU did not pass, in a few words: the missed link check with its figure, the first bad
// case, a failed measurement, no GPU. Empty for PASS.
std::string gpu_problem(const GpuReport& report);

std::string node_health_line(const std::vector<GpuReport>& reports, const RunRecord& run);

}  // namespace hazardlab
