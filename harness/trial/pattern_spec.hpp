#pragma once
// Byte patterns for transfers. Every trial uses three versions of a buffer that differ from
// each other in every byte:
//   original  (A): what the host meant to send, or what the device holds
//   mutated   (B): what the host wrote afterwards (the damage)
//   sentinel  (C): what a destination held before the copy
// so that each observed byte tells which of the three it came from.
// C++17 and host/device: included by the device fill kernel.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#ifdef __CUDACC__
#define HL_HOST_DEVICE __host__ __device__
#else
#define HL_HOST_DEVICE
#endif

namespace hazardlab {

enum class PatternFamily : std::uint8_t { Counter, Random, Alternating, Constant };
std::string_view to_string(PatternFamily family) noexcept;

enum class PatternVersion : std::uint8_t { Original, Mutated, Sentinel };

struct PatternSpec {
  PatternFamily family = PatternFamily::Counter;
  std::uint64_t seed = 0;
  // Nonzero and distinct, so A, B = A ^ mutated_mask and C = A ^ sentinel_mask differ pairwise
  // in every byte.
  std::uint8_t mutated_mask = 0x5A;
  std::uint8_t sentinel_mask = 0xA5;

  bool valid() const noexcept { return mutated_mask != 0 && sentinel_mask != 0 && mutated_mask != sentinel_mask; }
  std::string describe() const;
};

HL_HOST_DEVICE inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Byte `index` of the original pattern.
HL_HOST_DEVICE inline std::uint8_t pattern_original(const PatternSpec& p, std::uint64_t index) {
  switch (p.family) {
    case PatternFamily::Counter:
      return static_cast<std::uint8_t>(index * 7u + p.seed);
    case PatternFamily::Random:
      return static_cast<std::uint8_t>(splitmix64(p.seed ^ (index >> 3)) >> (8 * (index & 7)));
    case PatternFamily::Alternating:
      return (index & 1) ? 0xAA : 0x55;
    case PatternFamily::Constant:
    default:
      return static_cast<std::uint8_t>(p.seed | 1u);
  }
}

HL_HOST_DEVICE inline std::uint8_t pattern_byte(const PatternSpec& p, PatternVersion v, std::uint64_t index) {
  const std::uint8_t a = pattern_original(p, index);
  switch (v) {
    case PatternVersion::Mutated:
      return a ^ p.mutated_mask;
    case PatternVersion::Sentinel:
      return a ^ p.sentinel_mask;
    case PatternVersion::Original:
    default:
      return a;
  }
}

}  // namespace hazardlab
