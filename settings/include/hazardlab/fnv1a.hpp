#pragma once
// FNV-1a, 64 bits: the one hash hazardlab names things with where the name must not change between runs
// (a warm worker's socket, a code site, a finding's fingerprint). Not for security. Plain and
// async-signal-safe: the fault path hashes a stack inside its signal handler.
#include <cstdint>
#include <string_view>

namespace hazardlab {

inline constexpr std::uint64_t kFnv1aOffsetBasis = 14695981039346656037ull;
inline constexpr std::uint64_t kFnv1aPrime = 1099511628211ull;

// The hash of `bytes`, continuing from `hash`.
constexpr std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash = kFnv1aOffsetBasis) noexcept {
  for (const char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * kFnv1aPrime;
  return hash;
}

// One 64-bit word folded in at once (a return address), continuing from `hash`.
constexpr std::uint64_t fnv1a_word(std::uint64_t word, std::uint64_t hash = kFnv1aOffsetBasis) noexcept {
  return (hash ^ word) * kFnv1aPrime;
}

}  // namespace hazardlab
