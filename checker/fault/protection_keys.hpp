// Memory protection keys on x86-64 Linux: whether this machine offers them, the PKRU bits of a key's rights,
// and the signal frame's saved PKRU. The kernel restores PKRU from the frame when a handler returns, so a
// handler changes a faulting thread's rights there (XSAVE component 9 at the offset CPUID leaf 0xD sub-leaf 9
// gives, with bit 9 of XSTATE_BV set), never with WRPKRU, which the return would undo.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "checker/core/pages.hpp"

namespace hazardlab::check {

struct KeySupport {
  bool available = false;
  std::string why_not;  // when not: what is missing (the CPU's PKU, the kernel's OSPKE, pkey_alloc's answer)
};
// Asks the CPU and the kernel (a key allocated and freed again). The answer does not change: asked once.
KeySupport protection_key_support();

// PKRU holds two bits per key: access disable (2k) and write disable (2k + 1).
std::uint32_t with_rights(std::uint32_t pkru, int key, PageAccess rights);
PageAccess rights_in(std::uint32_t pkru, int key);

// The XSAVE area of a signal frame (512 bytes of legacy area, the 64-byte header, then the components).
inline constexpr std::size_t kXsaveHeaderOffset = 512;
inline constexpr int kPkruComponent = 9;
// Writes `pkru` as the saved PKRU at `offset` (CPUID 0xD.9's EBX) and marks the component present.
// False when the area is too small for it.
bool write_saved_pkru(std::byte* xsave, std::size_t size, std::size_t offset, std::uint32_t pkru);
// The saved PKRU, or nullopt-like `fallback` when the component is not present in the area.
std::uint32_t read_saved_pkru(const std::byte* xsave, std::size_t size, std::size_t offset, std::uint32_t fallback);
// Where this CPU puts PKRU in an XSAVE area (0 when it has none).
std::size_t pkru_offset();
// The calling thread's PKRU (RDPKRU, WRPKRU: no system call). Only where protection_key_support() says keys are
// available: elsewhere the instructions fault.
std::uint32_t read_thread_pkru();
void write_thread_pkru(std::uint32_t pkru);

}  // namespace hazardlab::check
