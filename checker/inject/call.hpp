// One driver call as a decoder sees it (CUPTI's callback data), and what the driver says of the handles and
// pointers it names: the checker's key for a stream, the kind of memory at a pointer, the graph a stream is
// capturing into. A `_ptsz`/`_ptds` form is the same call on the per-thread default stream.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "checker/core/checker.hpp"
#include "checker/inject/device_ranges.hpp"

namespace hazardlab::check::inject {

std::uint64_t key_of(CUcontext context);
// The checker's key for a stream handle as the program passed it (`per_thread_form`: the call's _ptsz/_ptds form,
// in which a null stream is the calling thread's default stream).
StreamKey stream_key(CUstream handle, const CUpti_CallbackData* data, bool per_thread_form);
// The context the call runs in.
std::uint64_t context_key(const CUpti_CallbackData* data);

// The kind of memory at a pointer the driver may know (pinned, device, managed; else ordinary host memory).
MemoryKind kind_of(CUdeviceptr pointer);
// The kind of host memory at a host pointer: pinned if the checker saw it pinned.
MemoryKind host_kind(const void* pointer);
// One end of a 2D or 3D copy, by its memory type: its kind and, for a host end, the bytes it touches.
CopyEnd end_of(const CUDA_MEMCPY3D& copy, CopySide side);
// The kind of one end of a 2D or 3D copy.
MemoryKind kind_of_end(CUmemorytype type, const void* host, CUdeviceptr device);

// The graph a stream is capturing into (null: the driver did not name it), or nothing when it is not capturing.
std::optional<CUgraph> capture_graph(CUstream handle);
// Whether work enqueued on the stream now is run, or recorded into a graph being built (a capture).
bool capturing(CUstream handle);

struct Call {
  const CUpti_CallbackData* d;
  CUpti_CallbackId cbid;
  bool per_thread;  // the _ptsz / _ptds form: a null stream is the calling thread's default stream

  template <class Params>
  const Params& params() const { return *static_cast<const Params*>(d->functionParams); }
  StreamKey stream(CUstream handle) const { return stream_key(handle, d, per_thread); }
  std::uint64_t context() const { return context_key(d); }
  std::string_view name() const { return d->functionName != nullptr ? d->functionName : ""; }
  bool is(CUpti_CallbackId id) const { return cbid == id; }
};
using Handler = void (*)(const Call&);
#define PARAMS(type) c.params<type##_params>()

}  // namespace hazardlab::check::inject
