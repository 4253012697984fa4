// Where a program keeps its kernels' PTX (checker/ptx/fatbin.hpp), on what nvcc 13 makes of ptx_reading_cases.cu
// for compute_75 and compute_90: a fatbin with compressed PTX (nvcc's default), one without compression, an
// object's .nv_fatbin section, nvcc's fatbin wrapper, PTX text; and the catalog that finds a kernel by its name.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "checker/ptx/fatbin.hpp"
#include "checker/ptx/kernel_catalog.hpp"

namespace hazardlab::check::ptx {
namespace {

std::vector<std::byte> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> chars{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_FALSE(chars.empty()) << path;
  std::vector<std::byte> out(chars.size());
  std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

std::vector<std::byte> packed(const char* form) {
  return file_bytes(std::string(HAZARDLAB_PTX_CASES) + form + ".bin");
}

TEST(PtxFatbin, AnUncompressedFatbinGivesThePtxOfItsNewestArchitecture) {
  const FoundPtx found = ptx_of_fatbin(packed("plain"));
  ASSERT_EQ(found.texts.size(), 1u);
  EXPECT_EQ(found.unreadable, 0u);
  EXPECT_NE(found.texts[0].find(".target sm_90"), std::string::npos);
  EXPECT_EQ(entry_names(found.texts[0]).size(), 7u);
}

TEST(PtxFatbin, CompressedPtxIsReadWithZstdAndCountedUnreadableWithout) {
  const FoundPtx plain = ptx_of_fatbin(packed("plain"));
  const FoundPtx compressed = ptx_of_fatbin(packed("compressed"));
  if (!reads_compressed_ptx()) {
    EXPECT_TRUE(compressed.texts.empty());
    EXPECT_EQ(compressed.unreadable, 1u);
    GTEST_SKIP() << "built without zstd: compressed PTX is counted unreadable, as checked";
  }
  ASSERT_EQ(compressed.texts.size(), 1u);
  EXPECT_EQ(compressed.texts, plain.texts);
}

TEST(PtxFatbin, AnObjectsSectionHoldsTheSameFatbin) {
  const std::vector<std::byte> section = fatbin_section(std::string(HAZARDLAB_PTX_CASES) + "object.bin");
  ASSERT_FALSE(section.empty());
  const FoundPtx in_section = ptx_of_fatbin(section);
  EXPECT_EQ(in_section.texts, ptx_of_fatbin(packed("compressed")).texts);
  EXPECT_EQ(in_section.unreadable, ptx_of_fatbin(packed("compressed")).unreadable);
  // Not ELF, or no such section: nothing.
  EXPECT_TRUE(fatbin_section(std::string(HAZARDLAB_PTX_CASES) + "plain.bin").empty());
  EXPECT_TRUE(fatbin_section("/no/such/file").empty());
}

TEST(PtxFatbin, AnImageHandedToTheDriverIsReadByWhatItIs) {
  const std::vector<std::byte> fatbin = packed("plain");
  const std::string text = ptx_of_fatbin(fatbin).texts.at(0);
  EXPECT_EQ(fatbin_size(fatbin.data()), fatbin.size());
  EXPECT_EQ(ptx_of_image(fatbin.data()).texts, std::vector<std::string>{text});
  // nvcc's wrapper around a module's fatbin: {magic, version, data, filename_or_fatbins}.
  struct {
    int magic = 0x466243B1, version = 1;
    const void* data;
    const void* rest = nullptr;
  } wrapper{.data = fatbin.data()};
  EXPECT_EQ(ptx_of_image(&wrapper).texts, std::vector<std::string>{text});
  EXPECT_EQ(ptx_of_image(text.c_str()).texts, std::vector<std::string>{text});
  // A cubin is SASS: no PTX.
  const std::vector<std::byte> object = packed("object");
  EXPECT_TRUE(ptx_of_image(object.data()).texts.empty());
  EXPECT_FALSE(fatbin_size(object.data()));
  EXPECT_TRUE(ptx_of_image("not a module").texts.empty());
}

TEST(PtxFatbin, ADamagedFatbinGivesWhatItCanAndNothingPastItsEnd) {
  std::vector<std::byte> fatbin = packed("plain");
  fatbin.resize(fatbin.size() / 2);  // the container says more than there is
  EXPECT_TRUE(ptx_of_fatbin(fatbin).texts.empty());
  std::vector<std::byte> entry_too_long = packed("plain");
  const std::uint32_t huge = 0x7fffffff;
  // The PTX entry claims more data than its container holds (entries follow the 16-byte container header, each
  // its own header's size and its data's aligned size after the one before).
  for (std::size_t e = 16; e + 64 <= entry_too_long.size();) {
    std::uint16_t kind = 0;
    std::uint32_t header = 0, stored = 0;
    std::memcpy(&kind, entry_too_long.data() + e, sizeof kind);
    std::memcpy(&header, entry_too_long.data() + e + 4, sizeof header);
    std::memcpy(&stored, entry_too_long.data() + e + 8, sizeof stored);
    if (kind == 1) {
      std::memcpy(entry_too_long.data() + e + 8, &huge, sizeof huge);
      break;
    }
    e += header + stored;
  }
  const FoundPtx found = ptx_of_fatbin(entry_too_long);
  EXPECT_TRUE(found.texts.empty());
  EXPECT_EQ(found.unreadable, 1u);
}

const char* kTwoKernels = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry copy_one(.param .u64 out, .param .u64 in)
{
  .reg .b64 %rd<5>; .reg .f32 %f<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  ld.global.f32 %f1, [%rd4];
  st.global.f32 [%rd3], %f1;
  ret;
}
)";

TEST(PtxFatbin, TheCatalogFindsAKernelByNameAndRefusesANameTwoModulesUseDifferently) {
  KernelCatalog catalog;
  catalog.add(FoundPtx{{kTwoKernels}, 0});
  const KernelFootprint* found = catalog.find("copy_one");
  ASSERT_NE(found, nullptr);
  EXPECT_TRUE(found->complete) << found->why_not;
  EXPECT_EQ(found->accesses.size(), 2u);
  EXPECT_EQ(catalog.find("copy_one"), found);  // read once
  EXPECT_EQ(catalog.find("no_such_kernel"), nullptr);

  // A module loaded later with the kernel asked for before: found then.
  KernelCatalog later;
  EXPECT_EQ(later.find("copy_one"), nullptr);
  later.add(FoundPtx{{kTwoKernels}, 0});
  EXPECT_NE(later.find("copy_one"), nullptr);

  // Two modules, the same name, different code: which one a launch ran is not known.
  std::string other = kTwoKernels;
  other.replace(other.find("[%rd3]"), 6, "[%rd3+4]");
  KernelCatalog two;
  two.add(FoundPtx{{kTwoKernels, other}, 2});
  EXPECT_EQ(two.find("copy_one"), nullptr);
  EXPECT_EQ(two.unreadable(), 2u);
  // The same module twice (loaded twice): the same kernel.
  KernelCatalog same;
  same.add(FoundPtx{{kTwoKernels, kTwoKernels}, 0});
  EXPECT_NE(same.find("copy_one"), nullptr);
}

}  // namespace
}  // namespace hazardlab::check::ptx
