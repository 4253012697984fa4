// Who made a host access the checker judges: a thread of the program, or a host function (rule 9 orders a host
// function's accesses with the work of its stream).
#pragma once

#include <optional>
#include <vector>

#include "checker/core/finding.hpp"
#include "checker/core/order.hpp"

namespace hazardlab::check {

// Who made a host access. Rule 9 orders a host function's accesses with the work of its stream, so the
// checker must know whether a host function made it, and which.
struct Accessor {
  enum class Kind {
    ProgramThread,       // a thread of the program
    HostFunction,        // a host function known by its item (the replay of a program on the CPU)
    HostFunctionThread,  // a thread the driver runs host functions on: the one running now is one of those
                         // that have started and not returned (the driver may start the next stream's
                         // function on the same thread before this one's returns), never what it last ran
  };
  Kind kind = Kind::ProgramThread;
  WorkStamp item{};  // HostFunction only

  static Accessor program_thread() { return {}; }
  static Accessor host_function(WorkStamp item) { return {Kind::HostFunction, item}; }
  static Accessor host_function_thread() { return {Kind::HostFunctionThread, {}}; }
  // The replay's spelling: a host function's item, or none for a program thread.
  static Accessor of(std::optional<WorkStamp> item) { return item ? host_function(*item) : program_thread(); }
};

// What the checker made of a host access that faulted.
struct FaultOutcome {
  bool ours = false;  // the page is one the checker holds
  bool step = false;  // the page still forbids this access: let one instruction through, then protect again
  std::vector<Finding> findings;
};

}  // namespace hazardlab::check
