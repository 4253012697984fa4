// What a kernel touches in global memory, read from its PTX once: for every load, store and atomic, the address
// as a polynomial over the launch's symbols (polynomial.hpp), with the conditions known to hold where it runs
// (the branches that lead there, its guard, a loop's exit test) and the checks that keep every value unwrapped.
// footprint_at_launch.hpp turns it into byte ranges for one launch's arguments, grid and block.
//
// The reading is sound or says it is not complete: an address it cannot follow to a parameter (a pointer read from
// memory, a value of `and`, `selp`, a division), a call, a texture or surface, a bulk copy: the kernel's footprint
// is not known, and the caller judges the kernel by its rule. Loops are followed by their iteration count: a value
// that changes by the same launch-exact step on each pass is its value on entry plus the count times the step.
// CUDA-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checker/core/finding.hpp"
#include "checker/ptx/polynomial.hpp"
#include "checker/ptx/ptx_text.hpp"

namespace hazardlab::check::ptx {

// A condition known to hold: `at_most_zero` <= 0, usable where its checks hold (the comparison was of values in
// the range of the type it compared them as).
struct Condition {
  Polynomial at_most_zero;
  std::vector<std::size_t> checks;
  bool operator==(const Condition&) const = default;
};

// A value that must lie in [min, max] for the polynomials that use it to mean what PTX computes (a 32-bit sum
// that does not wrap, an unsigned read of a value that is not negative): at each place it is made, given the
// conditions known there (an empty set: wherever it is).
struct RangeCheck {
  Polynomial value;
  Wide min = 0, max = 0;
  std::vector<std::vector<Condition>> places;
};

struct MemoryAccess {
  Polynomial address;                   // the first byte
  std::uint32_t bytes = 0;              // how many from it
  DeviceAccessKind kind = DeviceAccessKind::Read;
  std::vector<std::size_t> checks;      // into KernelFootprint::checks: all must hold, or the launch is not known
  std::vector<Condition> conditions;    // hold wherever the access runs
};

struct KernelFootprint {
  bool complete = false;                // false: some access was not followed; `why_not` names the first
  std::string why_not;
  std::vector<RangeCheck> checks;
  std::vector<MemoryAccess> accesses;   // global memory only: shared, local, constant and parameter space are not it
  // The module's own variables it reaches (`__device__` data, a math function's tables): not memory the program
  // allocated, so not among the accesses; a copy to such a variable beside the kernel is not judged.
  std::vector<std::string> module_variables;
};

KernelFootprint read_kernel(const PtxFunction& function);

}  // namespace hazardlab::check::ptx
