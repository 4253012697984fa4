// Recorded driver calls replayed on the CPU through what the injected library's typed events do to the core
// (checker/inject/core_steps.hpp) and the checker's device races: the decoders' arithmetic and the registries
// they keep are tested without a GPU. Each replay is the few calls of a program that a GPU run would make.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "checker/core/checker.hpp"
#include "checker/core/handles.hpp"
#include "checker/inject/core_steps.hpp"
#include "checker/tests/no_protection.hpp"

namespace hazardlab::check::inject {
namespace {

struct Replay {
  NoProtection protection;
  Checker checker{protection};
  const StreamKey a{1, 0xa}, b{1, 0xb};
  Replay() {
    checker.stream_created(a, StreamKind::NonBlocking);
    checker.stream_created(b, StreamKind::NonBlocking);
  }
  // A kernel launched on `stream`, handed one pointer argument (a `T*`: it may write through it).
  void kernel(StreamKey stream, std::uintptr_t pointer, SiteId site) {
    const KernelArgument argument{std::as_bytes(std::span(&pointer, 1)), ArgumentAccess::MayWrite};
    checker.device_work(stream, DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel,
                                               checker.allocations().kernel_ranges(std::span(&argument, 1)), "fill"},
                        [site] { return site; });
  }
};

constexpr std::uintptr_t kDevice = 0x7f0000100000;

// cudaMemcpy2DAsync from pageable host memory into a pitched device allocation: 4 rows of 64 bytes, 512 apart.
CUDA_MEMCPY3D pitched_upload() {
  CUDA_MEMCPY2D m{};
  m.srcMemoryType = CU_MEMORYTYPE_HOST;
  m.srcPitch = 64;
  m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  m.dstDevice = kDevice;
  m.dstPitch = 512;
  m.WidthInBytes = 64;
  m.Height = 4;
  return as_3d(m);
}

TEST(DriverReplay, APitchedDeviceEndOfA2DCopyIsWrittenRowByRowAtItsPitch) {
  const std::vector<DeviceRange> ranges = copy_device_ranges(pitched_upload());
  ASSERT_EQ(ranges.size(), 4u);  // the host end is no device memory
  for (std::size_t row = 0; row < 4; ++row) {
    EXPECT_EQ(ranges[row].begin, kDevice + row * 512) << row;
    EXPECT_EQ(ranges[row].end, kDevice + row * 512 + 64) << row;
    EXPECT_EQ(ranges[row].kind, DeviceAccessKind::Write) << row;
  }
  EXPECT_EQ(copy_bytes(pitched_upload()), 256u);
}

// The copy on one stream, then kernels on another handed pointers into the allocation: one into the gap between
// two rows races with nothing, one into the third row races with the copy.
TEST(DriverReplay, AKernelRacesWithAPitchedCopyOnlyInTheRowsItWrites) {
  Replay r;
  r.checker.allocations().device_visible(kDevice, 4 * 512);
  r.checker.copy_async(AsyncCopy{"cuMemcpy2DAsync", r.a, {MemoryKind::PageableHost, {}}, {MemoryKind::Device, {}}, 256,
                                 1, CopyOrigin::StreamCall, GraphHostNodes::None, copy_device_ranges(pitched_upload())});
  r.kernel(r.b, kDevice + 100, 2);
  EXPECT_TRUE(r.checker.take_races().empty()) << "a byte between two rows, which the copy does not write";
  r.kernel(r.b, kDevice + 2 * 512 + 8, 3);
  const std::vector<Finding> races = r.checker.take_races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].race->earlier.work, DeviceWorkKind::Copy);
  EXPECT_EQ(races[0].race->later.kernel, "fill");
}

constexpr std::uintptr_t kBlock = 0x7f0000200000;

// cudaMallocAsync's block, a kernel on stream a handed a pointer into it, and cudaFreeAsync on stream b with
// nothing ordering it after the kernel: the free writes the whole block (the pool may hand it out again at once),
// so it races with the kernel, which may only read through its pointer.
TEST(DriverReplay, AStreamOrderedFreeOfAPoolBlockRacesWithAKernelHandedItOnAnotherStream) {
  Replay r;
  allocated(r.checker, Allocated{Allocation::PoolBlock, kBlock, 256});
  r.kernel(r.a, kBlock + 16, 1);
  r.checker.device_work(r.b, freed_on_stream(r.checker, Released{Release::StreamOrdered, kBlock, 0, nullptr, r.b}, false),
                        [] { return SiteId{2}; });
  const std::vector<Finding> races = r.checker.take_races();
  ASSERT_EQ(races.size(), 1u) << "the pool's block was looked up by the launch, and the free writes it";
  EXPECT_EQ(races[0].race->earlier.work, DeviceWorkKind::Kernel);
  EXPECT_EQ(races[0].race->later.work, DeviceWorkKind::FreeAsync);
  EXPECT_EQ(races[0].race->later.access, DeviceAccessKind::Write);
  // Freed, the block is no allocation a launch finds any more.
  r.kernel(r.a, kBlock + 16, 3);
  EXPECT_TRUE(r.checker.take_races().empty());
}

// The free ordered after the kernel (the free's stream waits for an event recorded after it) races with nothing; a
// free into a capture writes nothing when it is recorded.
TEST(DriverReplay, AStreamOrderedFreeOrderedAfterTheKernelOrCapturedRacesWithNothing) {
  Replay r;
  allocated(r.checker, Allocated{Allocation::PoolBlock, kBlock, 256});
  r.checker.event_created(0xe);
  r.kernel(r.a, kBlock, 1);
  r.checker.event_recorded(0xe, r.a);
  r.checker.stream_waited_event(r.b, 0xe);
  r.checker.device_work(r.b, freed_on_stream(r.checker, Released{Release::StreamOrdered, kBlock, 0, nullptr, r.b}, false),
                        [] { return SiteId{2}; });
  EXPECT_TRUE(r.checker.take_races().empty());
  allocated(r.checker, Allocated{Allocation::PoolBlock, kBlock, 256});
  r.kernel(r.a, kBlock, 3);
  EXPECT_TRUE(freed_on_stream(r.checker, Released{Release::StreamOrdered, kBlock, 0, nullptr, r.b}, true).ranges.empty());
}

// Pinned memory is an allocation launches find (a kernel reaches it at its host address), and its kind is kept.
TEST(DriverReplay, PinnedMemoryIsFoundByLaunchesAndKeepsItsKind) {
  Replay r;
  allocated(r.checker, Allocated{Allocation::Pinned, kBlock, 4096, PinnedKind::WriteCombined});
  EXPECT_EQ(r.checker.pinned_kind(kBlock + 8), PinnedKind::WriteCombined);
  const std::uintptr_t pointer = kBlock + 8;
  const KernelArgument argument{std::as_bytes(std::span(&pointer, 1)), ArgumentAccess::ReadOnly};
  EXPECT_EQ(r.checker.allocations().kernel_ranges(std::span(&argument, 1)).size(), 1u);
  released_synchronously(r.checker, Released{Release::PinnedFree, kBlock});
  EXPECT_TRUE(r.checker.allocations().kernel_ranges(std::span(&argument, 1)).empty());
}

// `--managed-memory`: cudaMallocManaged, a launch handed pointers into it, what the launch holds, and the host's
// accesses before and after each step the program takes.
constexpr std::uintptr_t kManaged = 0x7e0000200000;
constexpr std::size_t kManagedBytes = 3 * 4096;

struct ManagedReplay : Replay {
  ManagedReplay() { allocated(checker, Allocated{Allocation::Managed, kManaged, kManagedBytes}); }
  // A kernel handed `pointers` (each read-only or not), as the launch looks them up and takes its holds.
  std::vector<KernelHold> launch(StreamKey stream, std::vector<std::pair<std::uintptr_t, ArgumentAccess>> pointers) {
    std::vector<KernelArgument> arguments;
    for (auto& [pointer, access] : pointers) arguments.push_back({std::as_bytes(std::span(&pointer, 1)), access});
    const std::vector<DeviceRange> ranges = checker.allocations().kernel_ranges(arguments);
    std::vector<KernelHold> holds = managed_holds(checker.allocations(), "fill", stream, ranges);
    for (const KernelHold& hold : holds) checker.kernel_holds(hold);
    return holds;
  }
  std::vector<Finding> read(std::uintptr_t address) {
    return checker.host_access(address, false, std::nullopt, SiteId{100}, 1).findings;
  }
};

TEST(DriverReplay, AKernelHandedAPointerIntoManagedMemoryHoldsTheWholeAllocationUntilTheHostSynchronizes) {
  ManagedReplay r;
  const std::vector<KernelHold> holds = r.launch(r.a, {{kManaged + 4096 + 8, ArgumentAccess::MayWrite}});
  ASSERT_EQ(holds.size(), 1u);
  EXPECT_EQ(holds[0].host.base, kManaged);
  EXPECT_EQ(holds[0].host.bytes(), kManagedBytes);
  EXPECT_EQ(holds[0].use, KernelUse::MayWrite);
  EXPECT_EQ(holds[0].memory, KernelHeldMemory::Managed);
  const std::vector<Finding> early = r.read(kManaged + 2);  // before the pointer: the whole allocation is held
  ASSERT_EQ(early.size(), 1u);
  EXPECT_EQ(early[0].hazard(), "managed-host-access-during-kernel");
  r.checker.context_synchronized(1);  // cudaDeviceSynchronize
  EXPECT_TRUE(r.read(kManaged + 2).empty());
}

TEST(DriverReplay, OneHoldPerManagedAllocationMayWriteIfAnyPointerMayAndNoneOnOtherMemory) {
  ManagedReplay r;
  allocated(r.checker, Allocated{Allocation::Device, kDevice, 4096});
  allocated(r.checker, Allocated{Allocation::Pinned, kBlock, 4096, PinnedKind::HostAlloc});
  const std::vector<KernelHold> holds = r.launch(r.a, {{kManaged, ArgumentAccess::ReadOnly},
                                                       {kManaged + 64, ArgumentAccess::MayWrite},
                                                       {kDevice, ArgumentAccess::MayWrite},
                                                       {kBlock, ArgumentAccess::MayWrite}});
  ASSERT_EQ(holds.size(), 1u);
  EXPECT_EQ(holds[0].use, KernelUse::MayWrite);
  ManagedReplay reading;
  ASSERT_EQ(reading.launch(reading.a, {{kManaged, ArgumentAccess::ReadOnly}}).size(), 1u);
  EXPECT_TRUE(reading.read(kManaged).empty());  // the host may read what a kernel only reads
}

TEST(DriverReplay, APrefetchToTheCpuOrAnAttachIsQueuedWorkThatLetsNothingGo) {
  ManagedReplay r;
  r.launch(r.a, {{kManaged, ArgumentAccess::MayWrite}});
  managed_work_queued(r.checker, ManagedWorkQueued{QueuedBehindKernel::PrefetchToHost, nullptr, r.a, kManaged, 4096},
                      false);
  const std::vector<Finding> after_prefetch = r.read(kManaged + 8);
  ASSERT_EQ(after_prefetch.size(), 1u);
  EXPECT_EQ(after_prefetch[0].hazard(), "managed-prefetch-not-a-fence");

  ManagedReplay attached;
  attached.launch(attached.a, {{kManaged, ArgumentAccess::MayWrite}});
  // Length 0: the whole allocation is attached.
  managed_work_queued(attached.checker,
                      ManagedWorkQueued{QueuedBehindKernel::StreamAttach, nullptr, attached.a, kManaged + 64, 0}, false);
  const std::vector<Finding> after_attach = attached.read(kManaged + 2 * 4096);
  ASSERT_EQ(after_attach.size(), 1u);
  EXPECT_EQ(after_attach[0].hazard(), "managed-stream-attach");
  attached.checker.stream_synchronized(attached.a);  // the stream idle after the attach ran: the host's again
  EXPECT_TRUE(attached.read(kManaged + 8).empty());

  // A prefetch recorded into a capture is not run: it names nothing.
  ManagedReplay captured;
  captured.launch(captured.a, {{kManaged, ArgumentAccess::MayWrite}});
  managed_work_queued(captured.checker,
                      ManagedWorkQueued{QueuedBehindKernel::PrefetchToHost, nullptr, captured.a, kManaged, 4096}, true);
  const std::vector<Finding> read = captured.read(kManaged);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].hazard(), "managed-host-access-during-kernel");
}

TEST(DriverReplay, FreeingManagedMemoryLetsItsHoldsGoAndForgetsIt) {
  ManagedReplay r;
  r.launch(r.b, {{kManaged, ArgumentAccess::MayWrite}});
  released_synchronously(r.checker, Released{Release::Free, kManaged});
  EXPECT_FALSE(r.checker.allocations().managed_at(kManaged));
  EXPECT_FALSE(r.checker.host_access(kManaged, true, std::nullopt, SiteId{100}, 1).ours);
}

// A graph built with a memcpy node into pinned memory and a host node, cloned, and the clone instantiated: each
// launch of the executable issues the copy, and says the graph has host nodes; a graph without either issues
// nothing.
TEST(DriverReplay, AClonedGraphsLaunchIssuesItsOriginalsCopiesAndKnowsItsHostNodes) {
  Handles handles;
  const CopyEnd pinned{MemoryKind::PinnedHost, HostFootprint::linear(kBlock, 64)};
  handles.graph_copy(0x91, GraphCopy{"cudaGraphAddMemcpyNode", pinned, {MemoryKind::Device, {}}, 64});
  handles.graph_host_nodes(0x91);
  handles.graph_cloned(0x91, 0x92);
  handles.instantiated(0xe2, 0x92);
  handles.instantiated(0xe3, 0x93);
  const GraphLaunchWork work = handles.launch_of(0xe2);
  ASSERT_EQ(work.copies.size(), 1u);
  EXPECT_EQ(work.copies[0].src.host.base, kBlock);
  EXPECT_EQ(work.host_nodes, GraphHostNodes::Present);
  EXPECT_EQ(handles.host_nodes_of(0xe2), GraphHostNodes::Present);
  EXPECT_TRUE(handles.launch_of(0xe3).copies.empty());
  EXPECT_EQ(handles.host_nodes_of(0xe3), GraphHostNodes::None);
}

// A stream the checker did not see created is made once, however often it is named; destroyed, its handle may
// name another stream.
TEST(DriverReplay, AStreamFirstSeenIsMadeOnceAndForgottenWhenDestroyed) {
  Handles handles;
  int made = 0;
  const auto make = [&] {
    ++made;
    return StreamKey{1, 0x5};
  };
  EXPECT_EQ(handles.stream(0x5, make), (StreamKey{1, 0x5}));
  EXPECT_EQ(handles.stream(0x5, make), (StreamKey{1, 0x5}));
  EXPECT_EQ(made, 1);
  handles.stream_destroyed(0x5);
  handles.stream(0x5, make);
  EXPECT_EQ(made, 2);
}

}  // namespace
}  // namespace hazardlab::check::inject
