#include "trial/patterns.hpp"

#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace hazardlab {

std::string_view to_string(PatternFamily family) noexcept {
  switch (family) {
    case PatternFamily::Counter:
      return "counter";
    case PatternFamily::Random:
      return "random";
    case PatternFamily::Alternating:
      return "alternating";
    case PatternFamily::Constant:
      return "constant";
  }
  return "?";
}

std::string PatternSpec::describe() const {
  char text[128];
  std::snprintf(text, sizeof text, "%s(seed=%llu, B=A^0x%02x, C=A^0x%02x)", std::string(to_string(family)).c_str(),
                static_cast<unsigned long long>(seed), mutated_mask, sentinel_mask);
  return text;
}

namespace {

// The fill and the census run over every byte a trial moves (up to HAZARDLAB_MAX_BYTES, 64 MiB
// by default, twice per trial), so they work eight bytes at a time: the original pattern's word
// at a word index, compared or stored whole, and a byte-by-byte pass only for a word that holds
// more than one version, and for the tail. On a big-endian host the bytewise path does it all.
constexpr bool kWordwise = std::endian::native == std::endian::little;

constexpr std::uint64_t broadcast(std::uint8_t byte) noexcept { return 0x0101010101010101ull * byte; }

// Calls `body(words)` with `words(w)` = bytes 8w..8w+7 of the original pattern as one
// little-endian word, one instantiation per family so that the loops inside stay branch-free.
template <class Body>
void with_original_words(const PatternSpec& p, Body&& body) {
  switch (p.family) {
    case PatternFamily::Counter: {
      // Counter byte i is 7i + seed (mod 256), so a word depends only on its first byte.
      std::array<std::uint64_t, 256> table{};
      for (unsigned first = 0; first < 256; ++first) {
        for (unsigned b = 0; b < 8; ++b)
          table[first] |= std::uint64_t{static_cast<std::uint8_t>(first + 7 * b)} << (8 * b);
      }
      const std::uint64_t seed = p.seed;
      return body([&table, seed](std::uint64_t w) { return table[static_cast<std::uint8_t>(w * 56 + seed)]; });
    }
    case PatternFamily::Random: {
      const std::uint64_t seed = p.seed;
      return body([seed](std::uint64_t w) { return splitmix64(seed ^ w); });
    }
    case PatternFamily::Alternating:
      return body([](std::uint64_t) { return 0xAA55AA55AA55AA55ull; });  // byte 0 (even) is 0x55
    case PatternFamily::Constant:
    default: {
      const std::uint64_t word = broadcast(static_cast<std::uint8_t>(p.seed | 1u));
      return body([word](std::uint64_t) { return word; });
    }
  }
}

std::uint8_t mask_of(const PatternSpec& p, PatternVersion v) noexcept {
  return v == PatternVersion::Mutated ? p.mutated_mask : v == PatternVersion::Sentinel ? p.sentinel_mask : 0;
}

void count_byte(ByteCensus& c, const PatternSpec& p, std::size_t index, std::uint8_t diff) noexcept {
  if (diff == 0) {
    ++c.original;
    return;
  }
  if (c.first_not_original == SIZE_MAX) c.first_not_original = index;
  if (diff == p.mutated_mask)
    ++c.mutated;
  else if (diff == p.sentinel_mask)
    ++c.sentinel;
  else
    ++c.foreign;
}

}  // namespace

void fill_pattern(std::span<std::byte> buffer, const PatternSpec& p, PatternVersion v) {
  const std::uint8_t mask = mask_of(p, v);
  auto* out = reinterpret_cast<std::uint8_t*>(buffer.data());
  const std::size_t n = buffer.size();
  std::size_t i = 0;
  if constexpr (kWordwise) {
    const std::uint64_t mask_word = broadcast(mask);
    with_original_words(p, [&](auto original) {
      for (; i + 8 <= n; i += 8) {
        const std::uint64_t word = original(i / 8) ^ mask_word;
        std::memcpy(out + i, &word, 8);  // the buffer may start at any byte
      }
    });
  }
  for (; i < n; ++i) out[i] = pattern_original(p, i) ^ mask;
}

ByteCensus take_census(std::span<const std::byte> observed, const PatternSpec& p) {
  ByteCensus c;
  const auto* in = reinterpret_cast<const std::uint8_t*>(observed.data());
  const std::size_t n = observed.size();
  std::size_t i = 0;
  if constexpr (kWordwise) {
    const std::uint64_t mutated = broadcast(p.mutated_mask), sentinel = broadcast(p.sentinel_mask);
    with_original_words(p, [&](auto original) {
      std::size_t same = 0;  // counted apart so that the common, all-original loop stays tight
      for (; i + 8 <= n; i += 8) {
        std::uint64_t word;
        std::memcpy(&word, in + i, 8);
        const std::uint64_t diff = word ^ original(i / 8);
        if (diff == 0) {
          same += 8;
          continue;
        }
        if (c.first_not_original == SIZE_MAX && (diff == mutated || diff == sentinel)) c.first_not_original = i;
        if (diff == mutated) {
          c.mutated += 8;
        } else if (diff == sentinel) {
          c.sentinel += 8;
        } else {
          for (std::size_t b = 0; b < 8; ++b) count_byte(c, p, i + b, static_cast<std::uint8_t>(diff >> (8 * b)));
        }
      }
      c.original += same;
    });
  }
  for (; i < n; ++i) count_byte(c, p, i, in[i] ^ pattern_original(p, i));
  return c;
}

std::string ByteCensus::describe() const {
  std::ostringstream out;
  out << original << " original, " << mutated << " mutated, " << sentinel << " sentinel, " << foreign << " foreign of "
      << total() << " bytes";
  if (first_not_original != SIZE_MAX) out << " (first non-original at byte " << first_not_original << ')';
  return out.str();
}

}  // namespace hazardlab
