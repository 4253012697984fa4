#include "checker/inject/process_state.hpp"

namespace hazardlab::check::inject {

Injection& injection() {
  static Injection* the = new Injection;
  return *the;
}

}  // namespace hazardlab::check::inject
