#include "checker/ptx/fatbin.hpp"

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

#if HAZARDLAB_HAVE_ZSTD
#include <zstd.h>
#endif

namespace hazardlab::check::ptx {

namespace {

constexpr std::uint32_t kContainerMagic = 0xBA55ED50;
constexpr std::uint32_t kWrapperMagic = 0x466243B1;  // FATBINC_MAGIC of the toolkit's fatbinary_section.h
constexpr std::uint16_t kPtxEntry = 1;
constexpr std::uint64_t kZstdCompressed = 0x8000;
constexpr std::size_t kContainerHeader = 16;
constexpr std::size_t kEntryHeaderMin = 64;
constexpr std::size_t kPtxLargest = std::size_t{1} << 31;  // a decompressed size past this is damage, not PTX

template <typename T>
T read(std::span<const std::byte> bytes, std::size_t at) {
  T value{};
  if (at + sizeof(T) <= bytes.size()) std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

// The text up to its first NUL (an uncompressed entry is padded with NULs).
std::string text_of(std::span<const std::byte> data) {
  const std::string_view all(reinterpret_cast<const char*>(data.data()), data.size());
  return std::string(all.substr(0, all.find('\0')));
}

std::optional<std::string> decompressed(std::span<const std::byte> data, std::uint64_t size) {
#if HAZARDLAB_HAVE_ZSTD
  if (size == 0 || size > kPtxLargest) return std::nullopt;
  std::string out(size, '\0');
  const std::size_t got = ZSTD_decompress(out.data(), out.size(), data.data(), data.size());
  if (ZSTD_isError(got) != 0) return std::nullopt;
  out.resize(got);
  return text_of(std::as_bytes(std::span(out)));
#else
  (void)data, (void)size;
  return std::nullopt;
#endif
}

std::uint32_t architecture(std::span<const std::byte> entry) { return read<std::uint32_t>(entry, 28); }

// One PTX entry's text into `found`.
void read_entry(std::span<const std::byte> entry, FoundPtx& found) {
  const std::uint32_t header = read<std::uint32_t>(entry, 4);
  const std::uint32_t stored = read<std::uint32_t>(entry, 8);     // the data's size, aligned
  const std::uint32_t packed = read<std::uint32_t>(entry, 16);    // the compressed data's own size, or 0
  const std::uint64_t flags = read<std::uint64_t>(entry, 40);
  const std::uint64_t unpacked = read<std::uint64_t>(entry, 56);  // the decompressed size
  if (header + std::size_t{stored} > entry.size()) return void(++found.unreadable);
  const std::span<const std::byte> data = entry.subspan(header, stored);
  if ((flags & kZstdCompressed) == 0) return found.texts.push_back(text_of(data));
  std::optional<std::string> text = decompressed(data.first(packed != 0 && packed <= stored ? packed : stored), unpacked);
  if (text) return found.texts.push_back(std::move(*text));
  ++found.unreadable;
}

}  // namespace

bool reads_compressed_ptx() { return HAZARDLAB_HAVE_ZSTD != 0; }

FoundPtx ptx_of_fatbin(std::span<const std::byte> bytes) {
  FoundPtx found;
  std::size_t at = 0;
  while (at + kContainerHeader <= bytes.size() && read<std::uint32_t>(bytes, at) == kContainerMagic) {
    const std::uint16_t header = read<std::uint16_t>(bytes, at + 6);
    const std::uint64_t size = read<std::uint64_t>(bytes, at + 8);
    if (header < kContainerHeader || size > bytes.size() - at - header) return found;
    // A module's PTX for one architecture is enough: the same source, read for the newest one it was built for.
    const std::span<const std::byte> entries = bytes.subspan(at + header, size);
    std::optional<std::size_t> newest;
    for (std::size_t e = 0; e + kEntryHeaderMin <= entries.size();) {
      const std::uint32_t entry_header = read<std::uint32_t>(entries, e + 4);
      if (entry_header < kEntryHeaderMin) break;
      if (read<std::uint16_t>(entries, e) == kPtxEntry &&
          (!newest || architecture(entries.subspan(e)) > architecture(entries.subspan(*newest))))
        newest = e;
      e += std::size_t{entry_header} + read<std::uint32_t>(entries, e + 8);
    }
    if (newest) read_entry(entries.subspan(*newest), found);
    at += header + size;
    at = (at + 7) & ~std::size_t{7};  // a section aligns each container to 8 bytes
  }
  return found;
}

std::optional<std::size_t> fatbin_size(const std::byte* start) {
  std::size_t at = 0;
  std::uint32_t magic = 0;
  std::memcpy(&magic, start, sizeof magic);
  if (magic != kContainerMagic) return std::nullopt;
  // One container: a fatbin handed to the driver is one module's.
  const std::span<const std::byte> header(start, kContainerHeader);
  at = read<std::uint16_t>(header, 6) + read<std::uint64_t>(header, 8);
  return at;
}

FoundPtx ptx_of_image(const void* image) {
  if (image == nullptr) return {};
  const auto* start = static_cast<const std::byte*>(image);
  std::uint32_t magic = 0;
  std::memcpy(&magic, start, sizeof magic);
  if (magic == kWrapperMagic) {  // {int magic; int version; const unsigned long long* data; void* filename_or_fatbins}
    const void* data = nullptr;
    std::memcpy(&data, start + 8, sizeof data);
    return data != nullptr && data != image ? ptx_of_image(data) : FoundPtx{};
  }
  if (const std::optional<std::size_t> size = fatbin_size(start))
    return ptx_of_fatbin(std::span<const std::byte>(start, *size));
  if (std::memcmp(start, ELFMAG, SELFMAG) == 0) return {};  // a cubin: SASS only
  const std::string_view text(static_cast<const char*>(image));
  if (text.find(".version") == std::string_view::npos || text.find(".entry") == std::string_view::npos) return {};
  return FoundPtx{{std::string(text)}, 0};
}

FoundPtx ptx_of_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (bytes.size() < kContainerHeader) return {};
  bytes.push_back('\0');  // PTX text ends at its NUL, as the driver reads it
  const std::span<const std::byte> all = std::as_bytes(std::span(bytes));
  if (read<std::uint32_t>(all, 0) == kContainerMagic) return ptx_of_fatbin(all);
  return ptx_of_image(bytes.data());
}

std::vector<std::byte> fatbin_section(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  Elf64_Ehdr elf{};
  if (!in.read(reinterpret_cast<char*>(&elf), sizeof elf) || std::memcmp(elf.e_ident, ELFMAG, SELFMAG) != 0 ||
      elf.e_ident[EI_CLASS] != ELFCLASS64 || elf.e_shentsize != sizeof(Elf64_Shdr) || elf.e_shstrndx >= elf.e_shnum)
    return {};
  std::vector<Elf64_Shdr> sections(elf.e_shnum);
  in.seekg(static_cast<std::streamoff>(elf.e_shoff));
  if (!in.read(reinterpret_cast<char*>(sections.data()), static_cast<std::streamsize>(sections.size() * sizeof(Elf64_Shdr))))
    return {};
  const Elf64_Shdr& names = sections[elf.e_shstrndx];
  std::string name_table(names.sh_size, '\0');
  in.seekg(static_cast<std::streamoff>(names.sh_offset));
  if (!in.read(name_table.data(), static_cast<std::streamsize>(name_table.size()))) return {};
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_name >= name_table.size() || std::string_view(name_table.c_str() + s.sh_name) != ".nv_fatbin") continue;
    if (s.sh_type == SHT_NOBITS) return {};
    std::vector<std::byte> out(s.sh_size);
    in.seekg(static_cast<std::streamoff>(s.sh_offset));
    if (!in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size()))) return {};
    return out;
  }
  return {};
}

}  // namespace hazardlab::check::ptx
