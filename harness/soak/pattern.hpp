#pragma once
// The soak's data: a pattern that differs in every 8-byte word from round to round and from word to
// word, so that a copy which moved bytes is told from one that did its job, and a description of
// the first thing that went wrong. No CUDA: the self-tests check it on the CPU.
//
// Word i of a round with seed s is splitmix64(s + i): neighbouring bytes differ, so a swap shows;
// a shifted copy lands words where other words belong; a stuck byte (0x00, 0xFF) differs from
// almost every byte; a copy that did nothing leaves the destination's poison (another seed's pattern).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace hazardlab::soak {

std::uint64_t splitmix64(std::uint64_t x) noexcept;

// Fills (or checks) `data` as the pattern of `seed`, starting at word 0; a tail under 8 bytes takes
// the first bytes of its word.
void fill_pattern(std::span<std::byte> data, std::uint64_t seed) noexcept;
std::byte expected_byte(std::uint64_t seed, std::size_t offset) noexcept;

struct Corruption {
  std::size_t first_bad_offset = 0;
  std::size_t bad_bytes = 0;   // in the whole buffer
  std::size_t last_bad_offset = 0;
  std::uint8_t expected = 0;   // at the first bad offset
  std::uint8_t got = 0;
  std::string kind;            // stale, shifted, swapped, stuck, or wrong value, in words
};

// The first bad byte of `data` against the pattern of `seed`, with what the damage looks like;
// `poison_seed` is the pattern the destination held before the copy. Empty: every byte is right.
std::optional<Corruption> verify_pattern(std::span<const std::byte> data, std::uint64_t seed,
                                         std::uint64_t poison_seed);

// "pinned h2d, copy 12 of 64 MiB: 1 byte wrong from offset 4093 (expected 0x3a, got 0x3b): a wrong value"
std::string describe(const Corruption& c, const std::string& copy);

}  // namespace hazardlab::soak
