// Tags: the 32-bit value each write stores in every word, unique per command and per run (a nonce), so
// that every word a read holds names the write it came from. cudaMemsetAsync sets bytes, so a memset's
// tag is one byte repeated; no other tag repeats one byte.
#pragma once

#include <cstdint>

#include "conformance/check/compare.hpp"

namespace hazardlab::conformance {

struct Tags {
  const Program& program;
  std::uint32_t nonce;  // 12 bits

  [[nodiscard]] std::uint32_t write(CommandIndex k) const {
    return 0xB0000000U | (nonce << 12) | static_cast<std::uint32_t>(k);
  }
  [[nodiscard]] std::uint32_t initial(BufferId b) const {
    return 0xA0000000U | (nonce << 12) | (0x800U + static_cast<std::uint32_t>(b));
  }
  [[nodiscard]] static int memset_byte(CommandIndex k) { return 0x10 + static_cast<int>(k); }
  [[nodiscard]] ValueId decode(std::uint32_t tag) const {
    const std::uint32_t byte = tag & 0xFFU;
    const std::size_t n = program.commands().size();
    if (tag == byte * 0x01010101U && byte >= 0x10 && byte - 0x10 < n &&
        program.commands()[byte - 0x10].kind == CommandKind::MemsetAsync)
      return byte - 0x10;
    if (((tag >> 12) & 0xFFFU) != nonce) return kUnknownValue;
    const std::uint32_t low = tag & 0xFFFU;
    if ((tag >> 28) == 0xB && low < n) return low;
    if ((tag >> 28) == 0xA && low >= 0x800 && low - 0x800 < program.buffer_count()) return initial_value(low - 0x800);
    return kUnknownValue;
  }
};

}  // namespace hazardlab::conformance
