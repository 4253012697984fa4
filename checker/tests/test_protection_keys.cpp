// Protection keys' arithmetic and the signal frame's saved PKRU, on any machine: the CI machines have no keys, so
// the frame is a played XSAVE area; whether this machine offers keys is asked, and a "no" must say why.
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "checker/fault/protection_keys.hpp"

namespace hazardlab::check {
namespace {

TEST(ProtectionKeys, EachKeyHasAnAccessAndAWriteBitOfItsOwn) {
  std::uint32_t pkru = 0;
  pkru = with_rights(pkru, 3, PageAccess::None);
  EXPECT_EQ(pkru, 1u << 6);
  pkru = with_rights(pkru, 5, PageAccess::ReadOnly);
  EXPECT_EQ(pkru, (1u << 6) | (1u << 11));
  EXPECT_EQ(rights_in(pkru, 3), PageAccess::None);
  EXPECT_EQ(rights_in(pkru, 5), PageAccess::ReadOnly);
  EXPECT_EQ(rights_in(pkru, 4), PageAccess::ReadWrite);
  pkru = with_rights(pkru, 3, PageAccess::ReadWrite);
  EXPECT_EQ(pkru, 1u << 11) << "opening one key leaves the others as they were";
  EXPECT_EQ(with_rights(0x55555554u, 1, PageAccess::ReadWrite), 0x55555550u) << "Linux's initial PKRU, key 1 opened";
}

TEST(ProtectionKeys, TheSavedPkruIsWrittenWhereTheCpuSaysAndMarkedPresent) {
  std::array<std::byte, 4096> area{};
  constexpr std::size_t kOffset = 2688;  // what CPUID 0xD.9 gave on the H200 hosts
  EXPECT_EQ(read_saved_pkru(area.data(), area.size(), kOffset, 0x1234u), 0x1234u)
      << "absent from the area: the component's initial state, which the caller knows";
  ASSERT_TRUE(write_saved_pkru(area.data(), area.size(), kOffset, 0x55555554u));
  EXPECT_EQ(read_saved_pkru(area.data(), area.size(), kOffset, 0), 0x55555554u);
  std::uint64_t present = 0;
  std::memcpy(&present, area.data() + kXsaveHeaderOffset, sizeof present);
  EXPECT_EQ(present, std::uint64_t{1} << 9) << "bit 9 of XSTATE_BV, or the kernel restores the initial PKRU";
  EXPECT_FALSE(write_saved_pkru(area.data(), 2690, kOffset, 0)) << "an area too small for the component";
  EXPECT_FALSE(write_saved_pkru(area.data(), area.size(), 100, 0)) << "an offset inside the legacy area or header";
}

TEST(ProtectionKeys, AMachineWithoutKeysSaysWhatIsMissing) {
  const KeySupport s = protection_key_support();
  if (s.available) {
    EXPECT_GT(pkru_offset(), kXsaveHeaderOffset);
    GTEST_SKIP() << "this machine has protection keys: the GPU machines' tests use them";
  }
  EXPECT_FALSE(s.why_not.empty());
}

}  // namespace
}  // namespace hazardlab::check
