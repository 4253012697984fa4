// The GPU's probe of one upload size for the small-upload threshold (measure/small_upload_threshold.hpp):
// gated, so its answer does not depend on timing. A gate holds a blocking stream closed with a memset
// of the pinned source queued behind it; a cudaMemcpyAsync of that source to the device is queued on the
// legacy stream, which CUDA documents must wait for the blocking stream's earlier work. The gate stays
// closed until the copy has finished or a wait no copy needs has passed; then it opens. The device holding
// the memset's bytes: the copy obeyed; the source's earlier bytes: it skipped the implicit synchronization.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

#include "conformance/measure/small_upload_threshold.hpp"

namespace hazardlab::conformance {

class UploadProbe {
 public:
  // Buffers for uploads of up to `largest_bytes`, made once; `gate_timeout` bounds a stuck gate.
  UploadProbe(std::size_t largest_bytes, std::chrono::milliseconds gate_timeout);
  ~UploadProbe();
  UploadProbe(const UploadProbe&) = delete;
  UploadProbe& operator=(const UploadProbe&) = delete;

  // Throws CudaError on a failed call, std::runtime_error if the gate timed out.
  UploadSeen operator()(std::size_t bytes);

 private:
  struct Rig;
  std::unique_ptr<Rig> rig_;
};

// Measures the threshold on the current GPU (prepare_runner() first: no kernel may load behind a gate).
SmallUploadThreshold measure_small_upload_threshold(std::chrono::milliseconds gate_timeout);

}  // namespace hazardlab::conformance
