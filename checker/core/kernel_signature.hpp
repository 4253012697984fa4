// What a kernel's symbol says of its parameters, for the device's half of a race: a `const T*` parameter is only
// read through; any other (a `T*`, a struct by value that holds pointers, a parameter of a kernel whose symbol
// is not a C++ one) may be written through. One family is known better: PyTorch's elementwise kernels
// (`at::native::vectorized_elementwise_kernel`, `unrolled_elementwise_kernel`) take their tensors' pointers as an
// `at::detail::Array<char*, N>` (a `std::array<char*, N>` in later versions) in which TensorIterator puts the output first and the inputs after it.
// CUDA-free: the injected library hands in the symbol.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "checker/core/device_conflicts.hpp"

namespace hazardlab::check {

struct KernelSignature {
  std::string name;                // the demangled name without its parameters, or the symbol itself
  std::vector<ArgumentAccess> parameters;  // one per parameter
  bool parameters_known = false;   // false: an `extern "C"` kernel, or a symbol that did not demangle
};

KernelSignature kernel_signature(std::string_view symbol);

// What the kernel does through parameter `index` of `count` (as the driver's layout gives them): MayWrite unless
// the signature names exactly as many parameters, so that a mismatch never turns a write into a read.
ArgumentAccess parameter_access(const KernelSignature& signature, std::size_t index, std::size_t count);

}  // namespace hazardlab::check
