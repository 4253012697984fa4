#pragma once
// Loads the harness's kernels on the current device now.
//
// With lazy module loading (the default since CUDA 12.2) a kernel's module is loaded at its
// first launch, and loading waits for the device to go idle. A first launch behind a closed gate
// therefore waits for the gate, and the host never gets to open it: a deadlock that only the
// gate's timeout ends. Every case calls this before it closes its first gate.
//
// Each .cu file registers a loader for its own kernels (HAZARDLAB_KERNEL_LOADER), so this layer
// needs to know nothing about the kernels of the layers above it.
#include <cuda_runtime_api.h>

#include "cuda/check.hpp"

namespace hazardlab {

void load_harness_kernels();

namespace detail {
bool register_kernel_loader(void (*load)());

// Asks the runtime about each kernel, which loads its module.
template <typename... Kernels>
void load_kernels(Kernels... kernels) {
  cudaFuncAttributes attributes{};
  (check_cuda(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernels)), "cudaFuncGetAttributes",
              __FILE__, __LINE__),
   ...);
}
}  // namespace detail

}  // namespace hazardlab

// In a .cu file, after its kernels: `HAZARDLAB_KERNEL_LOADER(fill_kernel, copy_kernel)` makes
// load_harness_kernels load those kernels.
#define HAZARDLAB_KERNEL_LOADER(...)                                                                       \
  namespace {                                                                                              \
  [[maybe_unused]] const bool hazardlab_kernels_registered =                                               \
      ::hazardlab::detail::register_kernel_loader([] { ::hazardlab::detail::load_kernels(__VA_ARGS__); }); \
  }
