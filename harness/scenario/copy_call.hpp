#pragma once
// The call a transfer scenario issues: the asynchronous copy, the synchronous one, or a kernel
// that dereferences the host pointer itself.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string_view>

#include "scenario/scenario.hpp"

namespace hazardlab {

enum class CopyCall {
  MemcpyAsync,  // cudaMemcpyAsync on the case's stream
  Memcpy,       // cudaMemcpy: always the legacy default stream
  Kernel,       // a kernel that reads the host pointer itself (mapped or pageable-accessible memory)
};
std::string_view to_string(CopyCall call) noexcept;

void issue_copy(CopyCall call, void* dst, const void* src, std::size_t bytes, cudaMemcpyKind direction,
                cudaStream_t stream);

// A transfer trial written with its fence and copy call as arguments.
using TransferTrial = TrialObservation (*)(Rig&, const TrialCase&, FenceKind, CopyCall, const TrialSettings&);
// The scenario that runs `trial` with `call`, the fence still to choose.
Scenario transfer_scenario(TransferTrial trial, CopyCall call);

}  // namespace hazardlab
