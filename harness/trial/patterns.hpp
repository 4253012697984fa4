#pragma once
// Byte patterns for transfers on the host side: filling buffers and taking a census of what
// arrived. The patterns themselves are defined in pattern_spec.hpp, shared with device code.
#include <cstddef>
#include <span>
#include <string>

#include "trial/pattern_spec.hpp"

namespace hazardlab {

void fill_pattern(std::span<std::byte> buffer, const PatternSpec& p, PatternVersion v);

// How many observed bytes came from each version. Anything else is "foreign": neither the
// data, the damage nor the sentinel, which means a copy went somewhere it should not have.
struct ByteCensus {
  std::size_t original = 0;
  std::size_t mutated = 0;
  std::size_t sentinel = 0;
  std::size_t foreign = 0;
  std::size_t first_not_original = SIZE_MAX;  // index of the first byte that is not A

  std::size_t total() const noexcept { return original + mutated + sentinel + foreign; }
  bool all_original() const noexcept { return total() > 0 && original == total(); }
  std::string describe() const;
};

ByteCensus take_census(std::span<const std::byte> observed, const PatternSpec& p);

}  // namespace hazardlab
