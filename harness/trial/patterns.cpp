#include "trial/patterns.hpp"

#include <cstdio>
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

void fill_pattern(std::span<std::byte> buffer, const PatternSpec& p, PatternVersion v) {
  const std::uint8_t mask = v == PatternVersion::Mutated    ? p.mutated_mask
                            : v == PatternVersion::Sentinel ? p.sentinel_mask
                                                            : 0;
  auto* out = reinterpret_cast<std::uint8_t*>(buffer.data());
  const std::size_t n = buffer.size();
  if (p.family == PatternFamily::Random) {
    // Eight bytes per hash: the same bytes pattern_original gives, much faster.
    for (std::size_t word = 0; word * 8 < n; ++word) {
      const std::uint64_t h = splitmix64(p.seed ^ word);
      for (std::size_t b = 0; b < 8 && word * 8 + b < n; ++b) {
        out[word * 8 + b] = static_cast<std::uint8_t>(h >> (8 * b)) ^ mask;
      }
    }
    return;
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = pattern_original(p, i) ^ mask;
}

ByteCensus take_census(std::span<const std::byte> observed, const PatternSpec& p) {
  ByteCensus c;
  const auto* in = reinterpret_cast<const std::uint8_t*>(observed.data());
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const std::uint8_t diff = in[i] ^ pattern_original(p, i);
    if (diff == 0) {
      ++c.original;
      continue;
    }
    if (c.first_not_original == SIZE_MAX) c.first_not_original = i;
    if (diff == p.mutated_mask)
      ++c.mutated;
    else if (diff == p.sentinel_mask)
      ++c.sentinel;
    else
      ++c.foreign;
  }
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
