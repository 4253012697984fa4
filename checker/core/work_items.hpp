// The work the program enqueues, as the checker is told it: a copy with its two ends (the host bytes a host end
// touches, the device bytes it reads and writes), and device work other than a copy, each on a stream named by
// its key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "checker/core/device_conflicts.hpp"
#include "checker/core/finding.hpp"

namespace hazardlab::check {

// Host bytes a copy touches: `slices` slices `slice_pitch` apart, each of `rows` rows of `width` bytes,
// `pitch` apart (one row and one slice for a linear copy).
struct HostFootprint {
  std::uintptr_t base = 0;
  std::size_t width = 0, pitch = 0, rows = 1, slices = 1, slice_pitch = 0;
  [[nodiscard]] std::uintptr_t end() const {
    if (rows == 0 || slices == 0) return base;
    return base + slice_pitch * (slices - 1) + pitch * (rows - 1) + width;
  }
  [[nodiscard]] std::size_t bytes() const { return width * rows * slices; }
  [[nodiscard]] bool contains(std::uintptr_t address) const {
    if (address < base || address >= end()) return false;
    const std::size_t in_slice = slices > 1 ? (address - base) % slice_pitch : address - base;
    return in_slice / pitch < rows && in_slice % pitch < width;
  }
  [[nodiscard]] std::size_t offset_of(std::uintptr_t address) const {
    const std::size_t slice = slices > 1 ? (address - base) / slice_pitch : 0;
    const std::size_t in_slice = slices > 1 ? (address - base) % slice_pitch : address - base;
    return (slice * rows + in_slice / pitch) * width + in_slice % pitch;
  }
  static HostFootprint linear(std::uintptr_t base, std::size_t bytes) { return {base, bytes, bytes, 1, 1, 0}; }
};

enum class MemoryKind { PinnedHost, PageableHost, Device, Managed };

struct CopyEnd {
  MemoryKind kind = MemoryKind::Device;
  HostFootprint host;  // host ends only
};

// A stream as the program names it: the handle within its context (handle 0 is the context's legacy stream).
struct StreamKey {
  std::uint64_t context = 0;
  std::uint64_t handle = 0;
  friend auto operator<=>(const StreamKey&, const StreamKey&) = default;
};

// Where a copy comes from: a driver call on a stream, or a memcpy node of a graph the program launched.
enum class CopyOrigin { StreamCall, GraphLaunch };
// Whether the graph of a memcpy node also has host nodes. The checker does not see those nodes start, so an
// access from a thread that runs host functions is taken as one of them, ordered with the copy (a race between
// two nodes of one graph is not found; a false alarm in a correct graph would be worse).
enum class GraphHostNodes { None, Present };

struct AsyncCopy {
  std::string_view api;
  StreamKey stream;
  CopyEnd src, dst;
  std::size_t bytes = 0;
  SiteId site = 0;  // unless copy_async is given a way to name it when a host end is watched
  CopyOrigin origin = CopyOrigin::StreamCall;
  GraphHostNodes host_nodes = GraphHostNodes::None;
  // The device bytes it reads and writes, exactly (its device ends; a pinned end too, which the device reads or
  // writes as well), for the device's half of a race.
  std::vector<DeviceRange> device = {};
};

// Not a copy: a kernel handed a pointer into pinned host memory (`hazardlab check --kernels-own-mapped-memory`)
// owns the bytes it points to while it may run, as a copy owns its host end. What it reads, the host may not
// write; what it may write, the host may neither read nor write. Its extent is not known: the bytes its argument
// points to. It is no upload: the deviation measured on small pinned uploads is not its rule.
//
// Managed memory (`--managed-memory`) is held the same way, the whole allocation: the host reaches it at the
// kernel's address, and on GPUs with concurrentManagedAccess nothing stops a host access while the kernel runs.
enum class KernelUse { Reads, MayWrite };
enum class KernelHeldMemory { MappedPinned, Managed };
struct KernelHold {
  std::string_view kernel;  // its name (one that outlives the checker)
  StreamKey stream;
  HostFootprint host;
  KernelUse use = KernelUse::Reads;
  SiteId site = 0;  // unless kernel_holds is given a way to name it
  KernelHeldMemory memory = KernelHeldMemory::MappedPinned;
};

// An item of device work other than a copy: a memset, a kernel launch or a stream-ordered free.
struct DeviceWorkItem {
  std::string_view api;
  DeviceWorkKind kind = DeviceWorkKind::Kernel;
  std::vector<DeviceRange> ranges;
  std::string_view kernel = {};  // a launch's kernel name
  // How a kernel's ranges were had: by the rule (the default), or read from its PTX (checker/ptx/).
  RangeSource kernel_ranges_from = RangeSource::PointedElement;
};

}  // namespace hazardlab::check
