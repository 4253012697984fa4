// Loaded into Python by test_python_stack_wait.py (ctypes.PyDLL: the call keeps the GIL, as a PyTorch operation
// does): a thread that never ran Python takes the Python stack as the fault path does for a host access, while
// the main thread first runs (a parallel operation's own share, or OpenMP's spin at the join) and then sleeps
// joining it. The main thread's frames must come: taken once it sleeps, said to be the main thread's.
#include <chrono>
#include <cstring>
#include <thread>

#include "checker/fault/python_stack.hpp"

using hazardlab::check::capture_python_stack;
using hazardlab::check::PythonStackText;
using hazardlab::check::ThreadWithoutPython;

namespace {
PythonStackText taken;  // too large for a thread's stack in a test; one call at a time
}

// Runs the main thread for `busy_ms` before it joins the worker. Copies the frames the worker took into `out`
// (NUL-terminated, at most `capacity` bytes) and returns 1 when they were said to be the main thread's.
extern "C" int take_stack_while_main_thread_is_busy(int busy_ms, char* out, int capacity) {
  hazardlab::check::find_python();
  std::thread worker([] { capture_python_stack(taken, ThreadWithoutPython::MainThreadWhileWaiting); });
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_ms);
  while (std::chrono::steady_clock::now() < until) {
  }
  worker.join();
  const int n = taken.length < capacity - 1 ? taken.length : capacity - 1;
  std::memcpy(out, taken.text, static_cast<std::size_t>(n));
  out[n] = '\0';
  return taken.of_main_thread ? 1 : 0;
}
