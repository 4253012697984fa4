// The one home of the injected library's state (ground rule 1, session.hpp).
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

Session& session() {
  static Session* the = new Session;  // never destroyed: driver calls and faults can come during exit
  return *the;
}

ThreadState& this_thread() {
  thread_local ThreadState state;
  return state;
}

bool first_entry() {
  static std::atomic<bool> entered{false};  // set before anything else: constant-initialized, no constructor runs
  return !entered.exchange(true);
}

}  // namespace hazardlab::check::inject
