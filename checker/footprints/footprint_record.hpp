// What a patched kernel writes about its own global memory accesses, laid out for the device patch
// (footprint_patch.cu) and the host that reads it back alike: plain integers, no pointers the host follows.
//
// One record per launch, taken from an arena of device memory. The arena's first bytes hold the pointer to the
// allocation table in use: a record finds its arena by masking its own address (the arena is aligned to its size),
// so a launch costs the host no copy to the device, only the record's address handed to the launch.
// A record holds, per allocation the kernel touched, the hull of its reads and the hull of its writes: the least and
// the greatest byte touched, exactly as the accesses happened. Zeroed memory means "nothing touched", which is why
// the least byte is kept inverted (an atomic maximum of ~address finds the least address).
#pragma once

#include <cstdint>

namespace hazardlab::check::footprints {

inline constexpr std::uint64_t kArenaBytes = 64ull << 20;  // records between two recycles, aligned to this size
inline constexpr std::uint64_t kArenaHeaderBytes = 4096;
inline constexpr std::uint32_t kSlotsPerRecord = 16;        // allocations one launch can touch and be told apart
inline constexpr std::uint32_t kRecordBytes = 1024;

// The allocations of a context as uploaded, immutable once a record can point to it: 8-byte words, the count, then
// the bases in ascending order, then each allocation's end (exclusive) in the same order.
inline constexpr std::uint64_t table_words(std::uint64_t count) { return 1 + 2 * count; }

struct ArenaHeader {
  std::uint64_t table;  // device address of the allocation table in force, 0 before the first upload
};

struct Hull {
  unsigned long long least_inverted;  // ~(least byte touched); 0: nothing touched
  unsigned long long end;             // one past the greatest byte touched
};

struct Slot {
  unsigned long long allocation;  // the allocation's base; 0: a free slot
  Hull read, write;
};

struct LaunchRecord {
  unsigned int outside_every_allocation;  // an access the table could not place: the footprint is incomplete
  unsigned int more_allocations_than_slots;
  unsigned long long unused;
  Slot slots[kSlotsPerRecord];
};

static_assert(sizeof(LaunchRecord) <= kRecordBytes, "a record must fit its place in the arena");
static_assert(sizeof(ArenaHeader) <= kArenaHeaderBytes, "the header must fit before the first record");

}  // namespace hazardlab::check::footprints
