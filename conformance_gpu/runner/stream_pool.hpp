// The streams every program of a conformance run runs on, made once for the process.
#pragma once

#include <cstddef>
#include <vector>

#include "conformance/model/program.hpp"
#include "conformance_gpu/runner/tag_kernels.hpp"
#include "cuda/host_memory.hpp"
#include "cuda/stream.hpp"

namespace hazardlab::conformance {

// The streams every program runs on, made once. A GPU has a few hardware queues (8 by default) that
// streams are spread over as they are made; a stream made for each program sooner or later shares one
// with another, and then waits for work the rules do not order it after: on an H100 a cudaMemcpy on the
// legacy stream waited for a gate closed on a non-blocking stream (seed 1240139627), and a synchronize
// of a blocking stream waited for a legacy-stream gate that the same call alone never waited for. These
// few streams, made first, each get their own.
struct StreamPool {
  std::vector<Stream> blocking, non_blocking;
  Stream reader{hazardlab::StreamKind::NonBlocking};  // the host's reads of device buffers
  HostBuffer read_back{HostMemoryKind::Pinned, kWords * sizeof(std::uint32_t)};
  cudaStream_t take(StreamKind kind, std::size_t index) {
    std::vector<Stream>& streams = kind == StreamKind::Blocking ? blocking : non_blocking;
    while (streams.size() <= index)
      streams.emplace_back(kind == StreamKind::Blocking ? hazardlab::StreamKind::Blocking
                                                        : hazardlab::StreamKind::NonBlocking);
    return streams[index].get();
  }
};

StreamPool& stream_pool();

}  // namespace hazardlab::conformance
