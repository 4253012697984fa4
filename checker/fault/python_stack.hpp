// The Python stack of the calling thread, for a finding in a Python program: CPython's own traceback
// writer (_Py_DumpTraceback, the one faulthandler uses), which is signal safe, takes no lock and needs no
// GIL, writes the frames of the thread's state into a pipe. Outside Python (no such symbol) it is empty.
//
// A thread that never ran Python (a PyTorch intra-op worker filling a large pinned tensor for a Python
// line on the main thread, an OpenMP thread, a thread of XLA's runtime) has no frames of its own. Another
// thread's frames can be read only while that thread does not change them: the dump follows their pointers
// with no lock, and frames popped under it are freed memory (JAX, whose runtime threads issue the copies
// while the main thread runs Python, crashed so). So:
// - at a copy's call, such a thread names no Python line: the call site is the copy's own, not whatever
//   the main thread happens to be running;
// - at a host access the checker judges, the main thread's frames are taken only while the main thread waits
//   in the kernel (sleeping: PyTorch's parallel operations wait so for the work they started), and said to
//   be the main thread's. A main thread that runs is given up to 100 ms to come to sleep (OpenMP's threads
//   spin at a join before they sleep); one that still runs then gives none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/core/process_log.hpp"

namespace hazardlab::check {

struct PythonStackText {
  char text[16384];
  int length = 0;
  bool of_main_thread = false;  // the calling thread had no Python frames: these are the main thread's
  [[nodiscard]] std::string_view view() const { return {text, static_cast<std::size_t>(length)}; }
};

// Looks the interpreter's functions up (once, outside any signal handler).
void find_python();
// What a thread that never ran Python takes instead of its own frames.
enum class ThreadWithoutPython {
  NoFrames,               // a copy's call
  MainThreadWhileWaiting  // a host access: the main thread's, once it sleeps in the kernel (a bounded wait)
};
// Signal safe: allocates nothing.
void capture_python_stack(PythonStackText& out, ThreadWithoutPython without);
// A call site's Python stack, cheaply: a key of its frames (each frame's code object and line), read through
// CPython's C API while the calling thread holds the GIL, with no system call and no text. nullopt where the
// thread does not hold it (or outside Python): then only the text (capture_python_stack) can name the stack.
// Not signal safe: for a copy's or a launch's call, never for a fault. The text, 20 to 70 us a capture on the
// development machine (a pipe and a write per token), is then taken only for a key seen the first time.
std::optional<std::uint64_t> python_stack_identity();
// "  File "train.py", line 12 in step" lines, innermost first.
std::vector<PythonFrame> parse_python_stack(std::string_view text);

}  // namespace hazardlab::check
