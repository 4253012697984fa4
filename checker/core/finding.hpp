// What the checker found: a host access (or a free) of memory that an asynchronous copy still owned,
// with the copy, the access, the synchronization that was missing and the smallest fix. Typed, so the
// injected library, the launcher and the report writers agree without parsing text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/model/rules.hpp"

namespace hazardlab::check {

// A call site, named by the hash of its stack; the stack itself is kept by whoever captured it.
using SiteId = std::uint64_t;

enum class FindingKind {
  HostWroteCopySource,       // the host wrote the source of a host-to-device copy before the copy read it
  HostReadCopyDestination,   // the host read the destination of a device-to-host copy before it landed
  HostWroteCopyDestination,  // the host wrote the destination of a device-to-host copy before it landed
  FreedWhileCopyOwns,        // cuMemFreeHost / cudaFreeHost of memory a copy still owned
  UnregisteredWhileCopyOwns, // cuMemHostUnregister / cudaHostUnregister of memory a copy still owned
  DeviceWorkRace,            // two items of device work on two streams touch the same memory, one writing,
                             // with nothing ordering them (the device's half: `race` says which)
};
std::string_view to_string(FindingKind kind);

// How an item of device work touches memory, and what the item is (for the finding's words and its fix). A
// kernel's pointer that its signature does not promise to only read through (`T*`, an `extern "C"` kernel's, a
// pointer in a struct) may write: it races with a read or a write, and never with another such pointer (both
// may only read, and a false alarm in correct code is worse than a race missed).
enum class DeviceAccessKind { Read, Write, MayWrite };
enum class DeviceWorkKind { Copy, Memset, Kernel, FreeAsync };
// How the device bytes of an item of device work were known: named by its call (a copy, a memset, a free: exactly),
// recorded by the device while the kernel ran (its exact footprint: checker/footprints/), read from the kernel's PTX
// and bounded for the launch's arguments, grid and block (checker/ptx/), or, for a kernel whose footprint could
// not be had, the rule: the element each pointer argument points to, read or written as the
// kernel's signature says (kernel_ranges in device_conflicts.hpp). A finding says which judged each side.
enum class RangeSource { Named, Recorded, PointedElement, ReadFromPtx };
std::string_view to_string(DeviceAccessKind kind);
std::string_view to_string(DeviceWorkKind kind);
std::string_view to_string(RangeSource source);

// The kinds of host-reachable memory the checker tells apart (from what it saw allocate or register them): pinned
// host memory, and managed memory (cuMemAllocManaged), which a kernel handed a pointer into holds as a copy holds
// its pinned end (`--managed-memory`).
enum class PinnedKind { HostAlloc, WriteCombined, Registered, Managed };
std::string_view to_string(PinnedKind kind);

enum class HostEnd { Source, Destination };

// What the program queued behind a kernel that holds managed memory, before the host touched it: neither waits for
// the kernel, so the host must still synchronize (hazards managed-prefetch-not-a-fence, managed-stream-attach).
enum class QueuedBehindKernel { Nothing, PrefetchToHost, StreamAttach };
std::string_view to_string(QueuedBehindKernel queued);  // "", "prefetch-to-host", "stream-attach"

// "legacy", "blocking", "non-blocking": the stream kinds as the log and the JSON report name them.
std::string_view to_string(conformance::StreamKind kind);

// One asynchronous copy, as far as one of its host ends is concerned.
struct CopyFacts {
  std::uint64_t id = 0;       // the n-th copy the checker watched, from 1
  std::string api;            // the driver call, e.g. cuMemcpyHtoDAsync_v2
  std::uint64_t stream = 0;   // the stream handle as the program passed it (0: the legacy stream)
  conformance::StreamKind stream_kind = conformance::StreamKind::Legacy;
  HostEnd end = HostEnd::Source;
  std::uintptr_t host_begin = 0;  // the first host byte the copy owns
  std::size_t bytes = 0;          // the host bytes it owns
  PinnedKind memory = PinnedKind::HostAlloc;
  bool graph_node = false;  // a memcpy node of a launched CUDA graph
  SiteId site = 0;
  // Not empty: not a copy but a kernel of this name, handed a pointer into the pinned memory it owns
  // (`--kernels-own-mapped-memory`, a KernelHold): its source is what it reads, its destination what it may write.
  std::string kernel = {};
  // A kernel's hold on managed memory: a cudaMemPrefetchAsync to the CPU or a cudaStreamAttachMemAsync queued after
  // the kernel on that memory, which the program may have taken for a fence.
  QueuedBehindKernel queued_behind = QueuedBehindKernel::Nothing;
  [[nodiscard]] bool held_by_kernel() const { return !kernel.empty(); }
};

// One of the two items of device work in a race.
struct DeviceWorkFacts {
  std::string api;           // the driver call, e.g. cuLaunchKernel
  std::uint64_t stream = 0;  // the stream handle as the program passed it (0: the legacy stream)
  conformance::StreamKind stream_kind = conformance::StreamKind::Legacy;
  DeviceWorkKind work = DeviceWorkKind::Kernel;
  DeviceAccessKind access = DeviceAccessKind::Read;
  std::string kernel;        // the kernel's name, for a launch ("" otherwise)
  RangeSource source = RangeSource::Named;  // how its bytes were known
};

// A race between two items of device work: the earlier enqueued and the later. Their sites are the finding's
// `copy.site` (earlier) and `access_site` (later), so that every report shows two stacks the same way.
struct DeviceRace {
  DeviceWorkFacts earlier, later;
  bool python = false;  // both were issued from Python: the fix is said in PyTorch's words
};

struct Finding {
  FindingKind kind = FindingKind::HostWroteCopySource;
  CopyFacts copy;
  std::uintptr_t address = 0;  // the byte the host touched (or the base of the freed allocation)
  std::size_t offset = 0;      // its offset from the copy's first host byte
  SiteId access_site = 0;
  std::uint64_t thread = 0;
  // Not empty: the documented rules order the copy before the access, but a GPU was measured not to keep
  // the rule this program relies on (conformance/README.md, "Deviations"); these deviations leave it racing.
  std::vector<conformance::Deviation> relies_on;
  std::optional<DeviceRace> race;  // DeviceWorkRace only

  // The two stacks' headings: the access and the copy, or the later and the earlier device work.
  [[nodiscard]] std::string first_heading() const;   // the stack of `access_site`
  [[nodiscard]] std::string second_heading() const;  // the stack of `copy.site`

  [[nodiscard]] std::string hazard() const;      // the hazard `hazardlab explain` explains
  [[nodiscard]] std::string what() const;        // one line: what happened
  [[nodiscard]] std::string missing() const;     // the synchronization that was missing
  [[nodiscard]] std::string smallest_fix() const;
  [[nodiscard]] std::string explain_command() const;  // the command that explains it: hazardlab explain <hazard>
};

}  // namespace hazardlab::check
