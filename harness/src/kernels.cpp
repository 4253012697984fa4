#include "hazardlab/kernels.hpp"

namespace hazardlab {

void load_sleep_kernel();
void load_fill_kernel();
namespace detail {
void load_spin_gate_kernel();
}

void load_harness_kernels() {
  load_sleep_kernel();
  load_fill_kernel();
  detail::load_spin_gate_kernel();
}

}  // namespace hazardlab
