#include "scenario/copy_call.hpp"

#include "cuda/check.hpp"
#include "cuda/kernel_copy.hpp"

namespace hazardlab {

std::string_view to_string(CopyCall call) noexcept {
  switch (call) {
    case CopyCall::Memcpy:
      return "cudaMemcpy";
    case CopyCall::Kernel:
      return "a kernel";
    case CopyCall::MemcpyAsync:
      break;
  }
  return "cudaMemcpyAsync";
}

void issue_copy(CopyCall call, void* dst, const void* src, std::size_t bytes, cudaMemcpyKind direction,
                cudaStream_t stream) {
  if (call == CopyCall::Memcpy) {
    HL_CUDA(cudaMemcpy(dst, src, bytes, direction));
  } else if (call == CopyCall::Kernel) {
    enqueue_kernel_copy(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), bytes, stream);
  } else {
    HL_CUDA(cudaMemcpyAsync(dst, src, bytes, direction, stream));
  }
}

Scenario transfer_scenario(TransferTrial trial, CopyCall call) {
  return [trial, call](FenceKind fence) -> TrialFn {
    return
        [trial, call, fence](Rig& rig, const TrialCase& c, const TrialSettings& s) { return trial(rig, c, fence, call, s); };
  };
}

}  // namespace hazardlab
