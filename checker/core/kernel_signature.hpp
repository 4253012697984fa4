// What a kernel's symbol says of its parameters, for the device's half of a race: a `const T*` parameter is only
// read through; any other (a `T*`, a struct by value that holds pointers, a parameter of a kernel whose symbol
// is not a C++ one) may be written through. CUDA-free: the injected library hands in the symbol.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hazardlab::check {

struct KernelSignature {
  std::string name;                // the demangled name without its parameters, or the symbol itself
  std::vector<bool> read_only;     // one per parameter: a pointer to const
  bool parameters_known = false;   // false: an `extern "C"` kernel, or a symbol that did not demangle
};

KernelSignature kernel_signature(std::string_view symbol);

// Whether parameter `index` of a kernel with `count` parameters (as the driver's layout gives them) is read only:
// only when the signature names exactly as many parameters, so that a mismatch never turns a write into a read.
bool parameter_read_only(const KernelSignature& signature, std::size_t index, std::size_t count);

}  // namespace hazardlab::check
