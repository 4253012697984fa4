// The PTX a program's kernels were built from, found where the program keeps it: in a fatbin (nvcc's container of
// a module's SASS and PTX, in an ELF object's `.nv_fatbin` section or handed to the driver at a module's load), or
// as the PTX text itself. CUDA-free: the layout is read from the bytes.
//
// A fatbin is a run of containers, each a header (magic 0xBA55ED50, version, header size, size of what follows)
// and entries; an entry's header says its kind (1 PTX, 2 ELF), its sizes, its architecture and whether its data
// is compressed. Since CUDA 12.8 nvcc compresses PTX with zstd by default. The layout is NVIDIA's and not
// documented by NVIDIA: the offsets used here are those of nvopen-tools' fatbin/FORMAT_SPECIFICATION.md
// (GrigoryEvko/nvopen-tools), checked against nvcc 13.0's output by the tests (test_ptx_fatbin.cpp).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hazardlab::check::ptx {

struct FoundPtx {
  std::vector<std::string> texts;  // each entry's PTX, as text
  std::size_t unreadable = 0;      // PTX entries whose compression this build cannot read (or damaged entries)
};

// Whether this build reads zstd-compressed PTX (built with libzstd).
bool reads_compressed_ptx();

// The PTX of each fatbin container at the start of `bytes` (one after the other, as a section holds them: one a
// module), for the newest architecture the container has PTX for; nothing for bytes that are not a fatbin.
FoundPtx ptx_of_fatbin(std::span<const std::byte> bytes);

// The size of the fatbin at `start` (the containers one after the other), read from their headers; none when the
// bytes there are not a fatbin. For an image handed to the driver by address alone, whose size only its headers
// give. `start` must be readable for as long as the headers say.
std::optional<std::size_t> fatbin_size(const std::byte* start);

// What an image handed to the driver holds of PTX: a fatbin's PTX entries (also behind nvcc's fatbin wrapper), or
// the image itself when it is PTX text (NUL-terminated, as the driver takes it); nothing for a cubin.
FoundPtx ptx_of_image(const void* image);

// What a module file the driver loads by name holds of PTX (a fatbin, PTX text; nothing for a cubin).
FoundPtx ptx_of_file(const std::filesystem::path& file);

// The `.nv_fatbin` section of an ELF file (an executable or a shared library), read from the file; empty when it
// has none or is not an ELF file that can be read.
std::vector<std::byte> fatbin_section(const std::filesystem::path& file);

}  // namespace hazardlab::check::ptx
