#include "cuda/kernel_loading.hpp"

#include <vector>

namespace hazardlab {
namespace {

// A function-local static: loaders register during static initialisation, in any order.
std::vector<void (*)()>& loaders() {
  static std::vector<void (*)()> registered;
  return registered;
}

}  // namespace

bool detail::register_kernel_loader(void (*load)()) {
  loaders().push_back(load);
  return true;
}

void load_harness_kernels() {
  for (auto* load : loaders()) load();
}

}  // namespace hazardlab
