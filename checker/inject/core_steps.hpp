// What the typed events do to the core (the Checker and its registries) where no driver call and no log is
// needed: each family's take() calls these with the session's checker, and checker/tests/test_driver_replay.cpp
// replays recorded driver-call streams through them on the CPU.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string_view>
#include <vector>

#include "checker/core/checker.hpp"
#include "checker/inject/events.hpp"

namespace hazardlab::check::inject {

// cuMemcpy2D's description as the 3D one of depth 1.
CUDA_MEMCPY3D as_3d(const CUDA_MEMCPY2D& copy);
std::size_t copy_bytes(const CUDA_MEMCPY3D& copy);
// The device bytes a 2D or 3D copy reads (its source end) and writes (its destination end): row by row where an
// end is pitched, one range where it is packed.
std::vector<DeviceRange> copy_device_ranges(const CUDA_MEMCPY3D& copy);

// An allocation of any kind: pinned memory's kind kept for copies, and every kind looked up by launches. A
// stream-ordered pool's block is renewed: the pool orders its new owner after the free that returned it.
void allocated(Checker& checker, const Allocated& allocation);
// The holds a kernel takes on the managed memory its arguments point into (`launch_ranges`, as the launch looked
// them up): one per allocation, the whole of it (the kernel's extent is not known), may-write if any argument into
// it may write.
std::vector<KernelHold> managed_holds(const Allocations& allocations, std::string_view kernel, StreamKey stream,
                                      const std::vector<DeviceRange>& launch_ranges);
// A prefetch or an attach, taken on its stream (not while it is captured: `captured`): it lets nothing go, and the
// holds on its bytes say it was queued behind their kernels.
void managed_work_queued(Checker& checker, const ManagedWorkQueued& work, bool captured);
// A synchronous free or an unmap: it waits for the device, so nothing that touched the memory can race with what
// comes after.
void released_synchronously(Checker& checker, const Released& release);
// A stream-ordered free (cudaFreeAsync): the block is the pool's again once the free runs, so the free writes
// all of it on its stream (nothing while the stream is capturing: `captured`).
DeviceWorkItem freed_on_stream(Checker& checker, const Released& release, bool captured);

}  // namespace hazardlab::check::inject
