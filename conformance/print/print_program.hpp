// Prints a program as a standalone CUDA C++ file (compile with nvcc) that issues the same calls, so that
// a failing program, shrunk by rapidcheck, can be read, replayed and sent to someone without the suite.
#pragma once

#include <string>

#include "conformance/model/program.hpp"

namespace hazardlab::conformance {

std::string to_cuda_source(const Program& program);

}  // namespace hazardlab::conformance
