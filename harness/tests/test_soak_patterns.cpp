// The soak's pattern and its description of damage, on the CPU: every kind of damage a copy engine
// or a driver can do to a copy (a stale destination, a swap, a shift, stuck bytes, one flipped
// byte) is caught and named with its first bad offset.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "soak/pattern.hpp"

using namespace hazardlab::soak;

namespace {

constexpr std::uint64_t kSeed = 1234, kPoison = 99;

std::vector<std::byte> patterned(std::size_t n, std::uint64_t seed = kSeed) {
  std::vector<std::byte> data(n);
  fill_pattern(data, seed);
  return data;
}

}  // namespace

TEST(SoakPattern, AnIntactCopyVerifiesWholeAtEverySize) {
  for (std::size_t n : {1u, 7u, 8u, 9u, 4093u, 65536u, 1u << 20}) {
    const auto data = patterned(n);
    EXPECT_FALSE(verify_pattern(data, kSeed, kPoison)) << n << " bytes";
    for (std::size_t i = 0; i < n; i += 997) EXPECT_EQ(data[i], expected_byte(kSeed, i));
  }
}

TEST(SoakPattern, NeighbouringBytesAndRoundsDiffer) {
  const auto a = patterned(4096), b = patterned(4096, kSeed + 1);
  std::size_t equal_neighbours = 0, equal_rounds = 0;
  for (std::size_t i = 0; i + 1 < a.size(); ++i) equal_neighbours += a[i] == a[i + 1];
  for (std::size_t i = 0; i < a.size(); ++i) equal_rounds += a[i] == b[i];
  // Random bytes agree 1 time in 256: a pattern that repeated would agree far more often.
  EXPECT_LT(equal_neighbours, 4096u / 64);
  EXPECT_LT(equal_rounds, 4096u / 64);
}

TEST(SoakPattern, OneFlippedByteIsFoundAtItsOffset) {
  auto data = patterned(1 << 20);
  data[4093] ^= std::byte{0x01};
  const auto c = verify_pattern(data, kSeed, kPoison);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->first_bad_offset, 4093u);
  EXPECT_EQ(c->bad_bytes, 1u);
  EXPECT_EQ(c->got, static_cast<std::uint8_t>(c->expected ^ 0x01));
  EXPECT_EQ(c->kind, "a wrong value");
  const std::string text = describe(*c, "pinned d2h, copy 3 of 1 MiB");
  EXPECT_NE(text.find("pinned d2h, copy 3 of 1 MiB: 1 byte(s) wrong from offset 4093 to 4093"), std::string::npos)
      << text;
}

TEST(SoakPattern, ACopyThatDidNothingIsStale) {
  auto data = patterned(65536, kPoison);  // the destination's poison, never overwritten
  const auto c = verify_pattern(data, kSeed, kPoison);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->first_bad_offset, 0u);
  EXPECT_EQ(c->kind.rfind("stale", 0), 0u) << c->kind;
}

TEST(SoakPattern, SwappedNeighboursAreNamed) {
  auto data = patterned(65536);
  std::swap(data[1000], data[1001]);
  const auto c = verify_pattern(data, kSeed, kPoison);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->first_bad_offset, 1000u);
  EXPECT_EQ(c->kind.rfind("swapped", 0), 0u) << c->kind;
}

TEST(SoakPattern, AShiftedCopyIsNamedWithItsDistance) {
  const auto source = patterned(65536 + 64);
  std::vector<std::byte> data(65536);
  std::memcpy(data.data(), source.data(), 8192);
  std::memcpy(data.data() + 8192, source.data() + 8192 + 4, 65536 - 8192);  // from 8192 on, 4 bytes early
  const auto c = verify_pattern(data, kSeed, kPoison);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->first_bad_offset, 8192u);
  EXPECT_EQ(c->kind, "shifted: the data arrived 4 byte(s) early");
}

TEST(SoakPattern, StuckBytesAreNamedWithTheirValue) {
  auto data = patterned(65536);
  std::fill(data.begin() + 512, data.begin() + 640, std::byte{0xff});
  const auto c = verify_pattern(data, kSeed, kPoison);
  ASSERT_TRUE(c);
  EXPECT_GE(c->first_bad_offset, 512u);
  EXPECT_LE(c->last_bad_offset, 639u);
  EXPECT_EQ(c->kind, "stuck: the bytes read 0xff");
}
