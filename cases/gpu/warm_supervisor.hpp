#pragma once
// The supervisor of a GPU's warm worker (warm_worker.hpp): started by the first client, detached from it, it
// forks the worker, hands it each client's request and tells the client how its case ended; it goes when the
// ctest that started it does, or after two idle minutes.
#include "warm_worker.hpp"

namespace hazardlab::warm {

// Starts the supervisor on `listener`, a socket bound to the worker's name, in a process of its own session.
void start_supervisor(int listener, const CaseRunner& runner);

}  // namespace hazardlab::warm
