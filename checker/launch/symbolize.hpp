// Names the frames of every finding: function and file:line, from each module's symbols and line
// information, by addr2line (binutils). Without it, or for a module without symbols, frames keep their
// module and offset.
#pragma once

#include <vector>

#include "checker/core/process_log.hpp"

namespace hazardlab::check {

// Fills Frame::symbol and Frame::location in every stack of every process. False if addr2line was not found.
bool symbolize(std::vector<ProcessLog>& processes);

}  // namespace hazardlab::check
