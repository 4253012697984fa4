#pragma once
// The soak's section of a GPU's reports (and the health profile's integrity part): per copy the
// copies and bytes verified, every corrupted copy with its first bad offset and what the damage looks
// like, and (HTML) the throughput over time, one line per copy. Read from measurements["soak"].
#include <sstream>
#include <string>

#include "hazardlab/report.hpp"

namespace hazardlab {

void soak_markdown(std::ostringstream& md, const GpuReport& report);
std::string soak_html(const GpuReport& report);

}  // namespace hazardlab
