// A kernel's PTX as text: its parameters' names in order and its instructions, each with its guard, its opcode
// split at the dots and its operands as written. Only what the reading of addresses needs (kernel_reading.hpp):
// directives inside the body (.reg, .loc, .pragma) are left out, and so are comments. CUDA-free.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hazardlab::check::ptx {

struct Instruction {
  std::string guard;                  // the guarding predicate register; empty when none
  bool guard_negated = false;         // `@!%p`
  std::vector<std::string> opcode;    // "ld.global.nc.f32" as {"ld", "global", "nc", "f32"}
  std::vector<std::string> operands;  // trimmed; a vector operand ("{%f1, %f2}") and an address ("[%rd1+4]") whole
  [[nodiscard]] bool has(std::string_view part) const;  // whether the opcode has this part after its name
  bool operator==(const Instruction&) const = default;
};

struct PtxFunction {
  std::string name;
  std::vector<std::string> parameters;          // the parameters' names, in order
  std::vector<Instruction> instructions;
  std::map<std::string, std::size_t> labels;    // a label and the index of the instruction after it
};

// The names of the kernels (`.entry`) a module's PTX holds, in order.
std::vector<std::string> entry_names(std::string_view ptx);
// The kernel `name` of a module's PTX; none when the module has no such kernel or its text is not understood.
std::optional<PtxFunction> read_entry(std::string_view ptx, std::string_view name);

}  // namespace hazardlab::check::ptx
