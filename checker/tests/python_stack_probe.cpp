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

// The key of the calling thread's Python frames (python_stack_identity), 0 where there is none: loaded with
// ctypes.PyDLL the call keeps the GIL and has a key; with ctypes.CDLL it releases the GIL and has none.
extern "C" unsigned long long python_stack_key() {
  hazardlab::check::find_python();
  return hazardlab::check::python_stack_identity().value_or(0);
}

// Nanoseconds per capture of the calling thread's Python stack, as text (mode 0) or as a key (mode 1), over `n`
// captures: what a call site costs, printed by checker/benchmarks/python_site_benchmark.py, never asserted.
extern "C" double ns_per_python_capture(int mode, int n) {
  hazardlab::check::find_python();
  unsigned long long keys = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    if (mode == 0) capture_python_stack(taken, ThreadWithoutPython::NoFrames);
    else keys += hazardlab::check::python_stack_identity().value_or(1);
  }
  const auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(end - start).count() / n + (keys == 42 ? 1e-9 : 0);
}
