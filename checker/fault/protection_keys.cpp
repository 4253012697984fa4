#include "checker/fault/protection_keys.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace hazardlab::check {

namespace {

KeySupport ask() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return {false, "the CPU does not answer CPUID leaf 7"};
  if ((ecx & (1u << 3)) == 0) return {false, "the CPU has no memory protection keys (no pku)"};
  if ((ecx & (1u << 4)) == 0) return {false, "the kernel has not enabled memory protection keys (no ospke)"};
  const int key = ::pkey_alloc(0, 0);
  if (key < 0) return {false, std::string("pkey_alloc failed: ") + std::strerror(errno)};
  ::pkey_free(key);
  if (pkru_offset() == 0) return {false, "the CPU gives no place for PKRU in a signal frame (CPUID 0xD.9)"};
  return {true, ""};
#else
  return {false, "memory protection keys are used on x86-64 only"};
#endif
}

}  // namespace

KeySupport protection_key_support() {
  static const KeySupport support = ask();
  return support;
}

std::uint32_t with_rights(std::uint32_t pkru, int key, PageAccess rights) {
  const std::uint32_t access_disable = 1u << (2 * key), write_disable = 1u << (2 * key + 1);
  pkru &= ~(access_disable | write_disable);
  if (rights == PageAccess::None) pkru |= access_disable;
  if (rights == PageAccess::ReadOnly) pkru |= write_disable;
  return pkru;
}

PageAccess rights_in(std::uint32_t pkru, int key) {
  if (pkru & (1u << (2 * key))) return PageAccess::None;
  if (pkru & (1u << (2 * key + 1))) return PageAccess::ReadOnly;
  return PageAccess::ReadWrite;
}

bool write_saved_pkru(std::byte* xsave, std::size_t size, std::size_t offset, std::uint32_t pkru) {
  if (offset < kXsaveHeaderOffset + 64 || offset + sizeof pkru > size) return false;
  std::memcpy(xsave + offset, &pkru, sizeof pkru);
  std::uint64_t present = 0;
  std::memcpy(&present, xsave + kXsaveHeaderOffset, sizeof present);
  present |= std::uint64_t{1} << kPkruComponent;
  std::memcpy(xsave + kXsaveHeaderOffset, &present, sizeof present);
  return true;
}

std::uint32_t read_saved_pkru(const std::byte* xsave, std::size_t size, std::size_t offset, std::uint32_t fallback) {
  if (offset < kXsaveHeaderOffset + 64 || offset + sizeof fallback > size) return fallback;
  std::uint64_t present = 0;
  std::memcpy(&present, xsave + kXsaveHeaderOffset, sizeof present);
  if ((present & (std::uint64_t{1} << kPkruComponent)) == 0) return fallback;  // in its initial state: all open
  std::uint32_t pkru = 0;
  std::memcpy(&pkru, xsave + offset, sizeof pkru);
  return pkru;
}

std::size_t pkru_offset() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(0xD, kPkruComponent, &eax, &ebx, &ecx, &edx) == 0 || eax == 0) return 0;
  return ebx;
#else
  return 0;
#endif
}

std::uint32_t read_thread_pkru() {
#if defined(__x86_64__)
  std::uint32_t pkru = 0, edx = 0;
  asm volatile(".byte 0x0f, 0x01, 0xee" : "=a"(pkru), "=d"(edx) : "c"(0));  // RDPKRU
  return pkru;
#else
  return 0;
#endif
}

void write_thread_pkru(std::uint32_t pkru) {
#if defined(__x86_64__)
  asm volatile(".byte 0x0f, 0x01, 0xef" : : "a"(pkru), "c"(0), "d"(0) : "memory");  // WRPKRU
#else
  (void)pkru;
#endif
}

}  // namespace hazardlab::check
