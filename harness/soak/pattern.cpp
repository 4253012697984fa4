#include "soak/pattern.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace hazardlab::soak {
namespace {

std::uint64_t word_at(std::uint64_t seed, std::size_t word) noexcept { return splitmix64(seed + word); }

std::uint8_t byte_of(std::uint64_t seed, std::size_t offset) noexcept {
  return static_cast<std::uint8_t>(word_at(seed, offset / 8) >> (8 * (offset % 8)));  // little-endian order
}

std::uint8_t at(std::span<const std::byte> data, std::size_t i) { return static_cast<std::uint8_t>(data[i]); }

// What the bad bytes from `first` look like. Looks at a window after the first bad byte: enough to tell
// a shift or a swap, cheap on a buffer of gigabytes.
std::string classify(std::span<const std::byte> data, std::uint64_t seed, std::uint64_t poison, std::size_t first) {
  constexpr std::size_t kWindow = 64;
  const std::size_t end = std::min(data.size(), first + kWindow);
  const auto matches = [&](std::uint64_t s, long shift) {
    for (std::size_t i = first; i < end; ++i) {
      const long source = static_cast<long>(i) + shift;
      if (source < 0) return false;
      if (at(data, i) != byte_of(s, static_cast<std::size_t>(source))) return false;
    }
    return true;
  };
  if (matches(poison, 0)) return "stale: the destination kept what it held before the copy";
  if (first + 1 < data.size() && at(data, first) == byte_of(seed, first + 1) &&
      at(data, first + 1) == byte_of(seed, first))
    return "swapped: the byte and its neighbour traded places";
  for (long shift = 1; shift <= 64; ++shift) {
    if (matches(seed, shift)) return "shifted: the data arrived " + std::to_string(shift) + " byte(s) early";
    if (matches(seed, -shift)) return "shifted: the data arrived " + std::to_string(shift) + " byte(s) late";
  }
  // Stuck: several bad bytes, all reading the same value.
  std::size_t bad = 0;
  bool same = true;
  for (std::size_t i = first; i < end; ++i) {
    if (at(data, i) == byte_of(seed, i)) continue;
    ++bad;
    same = same && at(data, i) == at(data, first);
  }
  char text[64];
  if (same && bad > 1) {
    std::snprintf(text, sizeof text, "stuck: the bytes read 0x%02x", at(data, first));
    return text;
  }
  return "a wrong value";
}

}  // namespace

std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::byte expected_byte(std::uint64_t seed, std::size_t offset) noexcept { return std::byte{byte_of(seed, offset)}; }

void fill_pattern(std::span<std::byte> data, std::uint64_t seed) noexcept {
  const std::size_t words = data.size() / 8;
  for (std::size_t w = 0; w < words; ++w) {
    const std::uint64_t v = word_at(seed, w);
    std::memcpy(data.data() + 8 * w, &v, 8);
  }
  for (std::size_t i = words * 8; i < data.size(); ++i) data[i] = expected_byte(seed, i);
}

std::optional<Corruption> verify_pattern(std::span<const std::byte> data, std::uint64_t seed,
                                         std::uint64_t poison_seed) {
  std::optional<Corruption> found;
  const std::size_t words = data.size() / 8;
  const auto bad_byte = [&](std::size_t i) {
    if (!found) {
      found = Corruption{};
      found->first_bad_offset = i;
      found->expected = byte_of(seed, i);
      found->got = at(data, i);
    }
    ++found->bad_bytes;
    found->last_bad_offset = i;
  };
  // Word by word: a whole 64 MiB buffer in a few milliseconds; bytes only inside a bad word.
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t v;
    std::memcpy(&v, data.data() + 8 * w, 8);
    if (v == word_at(seed, w)) continue;
    for (std::size_t i = 8 * w; i < 8 * w + 8; ++i)
      if (at(data, i) != byte_of(seed, i)) bad_byte(i);
  }
  for (std::size_t i = words * 8; i < data.size(); ++i)
    if (at(data, i) != byte_of(seed, i)) bad_byte(i);
  if (found) found->kind = classify(data, seed, poison_seed, found->first_bad_offset);
  return found;
}

std::string describe(const Corruption& c, const std::string& copy) {
  char text[160];
  std::snprintf(text, sizeof text, "%s: %zu byte(s) wrong from offset %zu to %zu (expected 0x%02x, got 0x%02x): ",
                copy.c_str(), c.bad_bytes, c.first_bad_offset, c.last_bad_offset, c.expected, c.got);
  return text + c.kind;
}

}  // namespace hazardlab::soak
