// The Python stack of the calling thread, for a finding in a Python program: CPython's own traceback
// writer (_Py_DumpTraceback, the one faulthandler uses), which is signal safe, takes no lock and needs no
// GIL, writes the frames of the thread's state into a pipe. Outside Python (no such symbol) it is empty.
//
// A thread that never ran Python (a PyTorch intra-op worker filling a large pinned tensor for a Python
// line on the main thread, an OpenMP thread) has no frames of its own. For it, the main thread's frames
// are taken, and said to be the main thread's: the line that started the work when the main thread
// waits for it, which is how PyTorch's parallel operations run.
#pragma once

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
// Signal safe: allocates nothing.
void capture_python_stack(PythonStackText& out);
// "  File "train.py", line 12 in step" lines, innermost first.
std::vector<PythonFrame> parse_python_stack(std::string_view text);

}  // namespace hazardlab::check
