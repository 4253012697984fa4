// The byte patterns: original, mutated and sentinel must differ in every byte, or a census could
// mistake one for another.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <vector>

#include "trial/patterns.hpp"

using namespace hazardlab;

namespace {
PatternSpec spec_of(int family, std::uint64_t seed, std::uint8_t mutated, std::uint8_t sentinel) {
  return PatternSpec{static_cast<PatternFamily>(family % 4), seed, mutated, sentinel};
}
}  // namespace

TEST(Patterns, TheThreeVersionsDifferInEveryByteForAnyValidSpec) {
  EXPECT_TRUE(rc::check([](std::uint64_t seed, unsigned family) {
    const auto mutated = static_cast<std::uint8_t>(*rc::gen::inRange(1, 256));
    const auto sentinel = static_cast<std::uint8_t>(*rc::gen::distinctFrom(rc::gen::inRange(1, 256), int{mutated}));
    const PatternSpec p = spec_of(static_cast<int>(family % 4), seed, mutated, sentinel);
    RC_ASSERT(p.valid());
    const auto index = *rc::gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 40);
    const auto a = pattern_byte(p, PatternVersion::Original, index);
    const auto b = pattern_byte(p, PatternVersion::Mutated, index);
    const auto c = pattern_byte(p, PatternVersion::Sentinel, index);
    RC_ASSERT(a != b);
    RC_ASSERT(a != c);
    RC_ASSERT(b != c);
  }));
}

TEST(Patterns, FillMatchesTheBytewiseDefinition) {
  for (int family = 0; family < 4; ++family) {
    const PatternSpec p = spec_of(family, 0x1234567890abcdefull, 0x11, 0x22);
    for (PatternVersion v : {PatternVersion::Original, PatternVersion::Mutated, PatternVersion::Sentinel}) {
      std::vector<std::byte> buffer(1000);
      fill_pattern(buffer, p, v);
      for (std::size_t i = 0; i < buffer.size(); ++i) {
        ASSERT_EQ(static_cast<std::uint8_t>(buffer[i]), pattern_byte(p, v, i)) << "family " << family << " byte " << i;
      }
    }
  }
}

TEST(Patterns, CensusCountsEachVersionAndForeignBytes) {
  const PatternSpec p = spec_of(1, 42, 0x5A, 0xA5);
  std::vector<std::byte> buffer(100);
  fill_pattern(buffer, p, PatternVersion::Original);
  std::vector<std::byte> mutated(100), sentinel(100);
  fill_pattern(mutated, p, PatternVersion::Mutated);
  fill_pattern(sentinel, p, PatternVersion::Sentinel);
  for (int i = 10; i < 20; ++i) buffer[i] = mutated[i];
  for (int i = 50; i < 53; ++i) buffer[i] = sentinel[i];
  buffer[99] = static_cast<std::byte>(static_cast<std::uint8_t>(buffer[99]) ^ 0x01);

  const ByteCensus c = take_census(buffer, p);
  EXPECT_EQ(c.original, 86u);
  EXPECT_EQ(c.mutated, 10u);
  EXPECT_EQ(c.sentinel, 3u);
  EXPECT_EQ(c.foreign, 1u);
  EXPECT_EQ(c.first_not_original, 10u);
  EXPECT_FALSE(c.all_original());
}

TEST(Patterns, AnEmptyBufferIsNotCorrect) { EXPECT_FALSE(take_census({}, PatternSpec{}).all_original()); }

TEST(Patterns, InvalidMasksAreRejected) {
  EXPECT_FALSE((PatternSpec{PatternFamily::Counter, 0, 0, 1}).valid());
  EXPECT_FALSE((PatternSpec{PatternFamily::Counter, 0, 7, 7}).valid());
  EXPECT_TRUE((PatternSpec{PatternFamily::Counter, 0, 7, 8}).valid());
}

// The fill and the census work a word at a time; the bytewise definition is the reference, at
// any start address (a case's host offset) and any length (a tail shorter than a word).
TEST(Patterns, WordwiseFillAndCensusAgreeWithTheBytewiseDefinitionAtAnyOffsetAndLength) {
  EXPECT_TRUE(rc::check([](std::uint64_t seed, unsigned family) {
    const PatternSpec p = spec_of(static_cast<int>(family % 4), seed, 0x3C, 0xC3);
    const auto offset = *rc::gen::inRange<std::size_t>(0, 16);
    const auto length = *rc::gen::inRange<std::size_t>(0, 300);
    std::vector<std::byte> storage(offset + length);
    const std::span<std::byte> buffer = std::span<std::byte>(storage).subspan(offset);
    fill_pattern(buffer, p, PatternVersion::Original);
    ByteCensus expected;
    for (std::size_t i = 0; i < length; ++i) {
      RC_ASSERT(static_cast<std::uint8_t>(buffer[i]) == pattern_byte(p, PatternVersion::Original, i));
      // Damage some bytes with each version and with foreign values.
      const int what = *rc::gen::weightedElement<int>({{6, 0}, {1, 1}, {1, 2}, {1, 3}});
      const PatternVersion v = what == 1 ? PatternVersion::Mutated : PatternVersion::Sentinel;
      if (what == 1 || what == 2) buffer[i] = static_cast<std::byte>(pattern_byte(p, v, i));
      if (what == 3) buffer[i] = static_cast<std::byte>(pattern_byte(p, PatternVersion::Original, i) ^ 0x01);
      if (what != 0 && expected.first_not_original == SIZE_MAX) expected.first_not_original = i;
      (what == 0   ? expected.original
       : what == 1 ? expected.mutated
       : what == 2 ? expected.sentinel
                   : expected.foreign)++;
    }
    const ByteCensus c = take_census(buffer, p);
    RC_ASSERT(c.original == expected.original);
    RC_ASSERT(c.mutated == expected.mutated);
    RC_ASSERT(c.sentinel == expected.sentinel);
    RC_ASSERT(c.foreign == expected.foreign);
    RC_ASSERT(c.first_not_original == expected.first_not_original);
  }));
}
