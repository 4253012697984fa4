// The device side of exact footprints: the Compute Sanitizer API calls this before every global memory access of a
// patched kernel. It finds the allocation the access falls in (a binary search of the context's table) and, unless
// the access already lies inside the launch's read or write hull of that allocation, widens the hull, once per warp.
// Built with `--compile-as-tools-patch` into a fatbin the injected library loads into each context.
#include <sanitizer_patching.h>

#include "checker/footprints/footprint_record.hpp"

namespace fp = hazardlab::check::footprints;

namespace {

__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

__device__ __forceinline__ unsigned long long read_volatile(const unsigned long long* p) {
  return *reinterpret_cast<const volatile unsigned long long*>(p);
}

// The slot of `allocation` in the record, claimed on first use; null when every slot holds another allocation.
__device__ fp::Slot* slot_of(fp::LaunchRecord* record, unsigned long long allocation) {
  const unsigned first = static_cast<unsigned>(allocation >> 8) % fp::kSlotsPerRecord;
  for (unsigned i = 0; i < fp::kSlotsPerRecord; ++i) {
    fp::Slot* slot = &record->slots[(first + i) % fp::kSlotsPerRecord];
    const unsigned long long held = read_volatile(&slot->allocation);
    if (held == allocation) return slot;
    if (held == 0) {
      const unsigned long long was = atomicCAS(&slot->allocation, 0ull, allocation);
      if (was == 0 || was == allocation) return slot;
    }
  }
  return nullptr;
}

__device__ bool inside(const fp::Hull* hull, unsigned long long least, unsigned long long end) {
  return ~read_volatile(&hull->least_inverted) <= least && end <= read_volatile(&hull->end);
}

}  // namespace

extern "C" __device__ __noinline__ SanitizerPatchResult hazardlab_footprint_access(void* userdata, uint64_t, void* ptr,
                                                                                   uint32_t size, uint32_t flags,
                                                                                   const void*) {
  if (userdata == nullptr) return SANITIZER_PATCH_SUCCESS;  // patched but not recorded
  auto* record = static_cast<fp::LaunchRecord*>(userdata);
  const auto* header =
      reinterpret_cast<const fp::ArenaHeader*>(reinterpret_cast<unsigned long long>(userdata) & ~(fp::kArenaBytes - 1));
  const auto* table = reinterpret_cast<const unsigned long long*>(
      *reinterpret_cast<const volatile unsigned long long*>(&header->table));
  const unsigned long long address = reinterpret_cast<unsigned long long>(ptr);
  const bool write = (flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE) != 0;

  unsigned long long base = 0, end = 0;
  if (table != nullptr) {
    const unsigned long long count = table[0];
    const unsigned long long* bases = table + 1;
    const unsigned long long* ends = bases + count;
    unsigned long long low = 0, high = count;  // the last allocation whose base is at or below the address
    while (low < high) {
      const unsigned long long mid = (low + high) / 2;
      if (bases[mid] <= address) low = mid + 1; else high = mid;
    }
    if (low > 0 && address < ends[low - 1]) {
      base = bases[low - 1];
      end = ends[low - 1];
    }
  }
  if (base == 0) {
    atomicOr(&record->outside_every_allocation, 1u);
    return SANITIZER_PATCH_SUCCESS;
  }

  fp::Slot* slot = slot_of(record, base);
  if (slot == nullptr) {
    atomicOr(&record->more_allocations_than_slots, 1u);
    return SANITIZER_PATCH_SUCCESS;
  }
  fp::Hull* hull = write ? &slot->write : &slot->read;
  unsigned long long least = address, past = address + size;
  if (inside(hull, least, past)) return SANITIZER_PATCH_SUCCESS;  // the common case once a kernel is under way

  // The lanes that widen the same hull agree on their least and greatest byte, and the first of them writes it:
  // one pair of atomics per warp, not one per lane (the patch may not use redux: shuffles instead).
  const unsigned peers = __match_any_sync(__activemask(), reinterpret_cast<unsigned long long>(hull));
  if (end - base < 0xffffffffull) {  // offsets and ends fit 32 bits
    unsigned low = static_cast<unsigned>(address - base), high = static_cast<unsigned>(address + size - base);
    const unsigned mine_low = low, mine_high = high;
    for (unsigned rest = peers; rest != 0; rest &= rest - 1) {
      const int lane = __ffs(rest) - 1;
      low = min(low, __shfl_sync(peers, mine_low, lane));
      high = max(high, __shfl_sync(peers, mine_high, lane));
    }
    least = base + low;
    past = base + high;
    if (lane_id() != static_cast<unsigned>(__ffs(peers) - 1)) return SANITIZER_PATCH_SUCCESS;
  }
  atomicMax(&hull->least_inverted, ~least);
  atomicMax(&hull->end, past);
  return SANITIZER_PATCH_SUCCESS;
}
