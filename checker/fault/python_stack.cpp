#include "checker/fault/python_stack.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <string>
#include <string_view>
#include <system_error>

#include "checker/fault/fault_state.hpp"
#include "hazardlab/fnv1a.hpp"

namespace hazardlab::check {

namespace {
using ThreadStateOf = void* (*)();
using DumpTraceback = void (*)(int, void*);
using MainInterpreter = void* (*)();
using FirstThreadState = void* (*)(void*);
using NextThreadState = void* (*)(void*);

// The main interpreter's oldest thread state: its list is newest first, and the main thread's state is made
// first. Plain pointer reads, as faulthandler's dump of every thread does.
void* main_thread_state() {
  const PythonFunctions& python = fault_state().python;
  const MainInterpreter main = python.main_interpreter.load();
  const FirstThreadState head = python.thread_head.load();
  const NextThreadState next = python.next_thread.load();
  if (main == nullptr || head == nullptr || next == nullptr) return nullptr;
  void* interpreter = main();
  if (interpreter == nullptr) return nullptr;
  void* state = head(interpreter);
  for (int hops = 0; state != nullptr && hops < 4096; ++hops) {
    void* later = next(state);
    if (later == nullptr) return state;
    state = later;
  }
  return nullptr;
}

// Whether the process's main thread sleeps in the kernel now (state S or D in /proc/self/task/PID/stat),
// read with system calls alone: signal safe. A thread that runs, or is about to, may be changing its frames.
bool main_thread_sleeps() {
  char path[64] = "/proc/self/task/";
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, static_cast<long>(::getpid()));
  if (ec != std::errc{}) return false;
  std::size_t at = std::char_traits<char>::length(path);
  for (const char* d = digits; d < end; ++d) path[at++] = *d;
  for (const char* rest = "/stat"; *rest != '\0'; ++rest) path[at++] = *rest;
  path[at] = '\0';
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char stat[512];
  const ssize_t n = ::read(fd, stat, sizeof stat - 1);
  ::close(fd);
  if (n <= 0) return false;
  // "PID (COMM) STATE ...": COMM may hold spaces and parentheses, so the state follows the last ')'.
  const std::string_view line(stat, static_cast<std::size_t>(n));
  const std::size_t close = line.rfind(')');
  if (close == std::string_view::npos || close + 2 >= line.size()) return false;
  const char state = line[close + 2];
  return state == 'S' || state == 'D';
}
// Whether the main thread sleeps in the kernel within a short wait. A worker of a parallel operation (PyTorch's
// fill_ of a large pinned tensor, split over OpenMP threads) faults while the main thread still runs its own
// share or spins at the join, as OpenMP's threads spin before they sleep; the faulting worker holds the join, so
// the main thread sleeps soon. Polled every quarter millisecond with signal-safe calls, for at most
// kMainThreadWaitMs: only an access that is a finding asks, once per pair of sites.
constexpr long kMainThreadWaitMs = 100;
bool main_thread_comes_to_sleep() {
  timespec start{};
  ::clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    if (main_thread_sleeps()) return true;
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    const long waited_ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (waited_ms >= kMainThreadWaitMs) return false;
    const timespec quarter_ms{0, 250000};
    ::nanosleep(&quarter_ms, nullptr);
  }
}
}  // namespace

void find_python() {
  PythonFunctions& python = fault_state().python;
  python.this_thread_state = reinterpret_cast<ThreadStateOf>(::dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState"));
  python.dump_traceback = reinterpret_cast<DumpTraceback>(::dlsym(RTLD_DEFAULT, "_Py_DumpTraceback"));
  python.main_interpreter = reinterpret_cast<MainInterpreter>(::dlsym(RTLD_DEFAULT, "PyInterpreterState_Main"));
  python.thread_head = reinterpret_cast<FirstThreadState>(::dlsym(RTLD_DEFAULT, "PyInterpreterState_ThreadHead"));
  python.next_thread = reinterpret_cast<NextThreadState>(::dlsym(RTLD_DEFAULT, "PyThreadState_Next"));
  python.holds_gil = reinterpret_cast<int (*)()>(::dlsym(RTLD_DEFAULT, "PyGILState_Check"));
  python.is_initialized = reinterpret_cast<int (*)()>(::dlsym(RTLD_DEFAULT, "Py_IsInitialized"));
  python.current_frame = reinterpret_cast<void* (*)()>(::dlsym(RTLD_DEFAULT, "PyEval_GetFrame"));
  python.frame_code = reinterpret_cast<void* (*)(void*)>(::dlsym(RTLD_DEFAULT, "PyFrame_GetCode"));
  python.frame_back = reinterpret_cast<void* (*)(void*)>(::dlsym(RTLD_DEFAULT, "PyFrame_GetBack"));
  python.frame_line = reinterpret_cast<int (*)(void*)>(::dlsym(RTLD_DEFAULT, "PyFrame_GetLineNumber"));
  python.release = reinterpret_cast<void (*)(void*)>(::dlsym(RTLD_DEFAULT, "Py_DecRef"));
}

std::optional<std::uint64_t> python_stack_identity() {
  const PythonFunctions& py = fault_state().python;
  const auto holds_gil = py.holds_gil.load();
  const auto is_initialized = py.is_initialized.load();
  const auto current = py.current_frame.load();
  const auto code_of = py.frame_code.load();
  const auto back_of = py.frame_back.load();
  const auto line_of = py.frame_line.load();
  const auto release = py.release.load();
  if (holds_gil == nullptr || is_initialized == nullptr || current == nullptr || code_of == nullptr ||
      back_of == nullptr || line_of == nullptr || release == nullptr || is_initialized() == 0 || holds_gil() == 0)
    return std::nullopt;
  // Each frame's code object and line, innermost first: the frames' identity, not their text. A code object lives
  // as long as its function, so two stacks with the same pairs name the same lines (one freed and another made at
  // its address before this stack is seen again is the one way two stacks could share a key).
  std::uint64_t hash = kFnv1aOffsetBasis;
  const auto mix = [&](std::uint64_t word) { hash = fnv1a_word(word, hash); };
  void* frame = current();  // borrowed; every frame behind it is a new reference
  bool owned = false;
  for (int depth = 0; frame != nullptr && depth < 256; ++depth) {
    void* code = code_of(frame);
    mix(reinterpret_cast<std::uintptr_t>(code));
    mix(static_cast<std::uint64_t>(line_of(frame)));
    release(code);
    void* back = back_of(frame);
    if (owned) release(frame);
    frame = back;
    owned = true;
  }
  if (owned && frame != nullptr) release(frame);
  return hash;
}

void capture_python_stack(PythonStackText& out, ThreadWithoutPython without) {
  out.length = 0;
  out.of_main_thread = false;
  const ThreadStateOf state_of = fault_state().python.this_thread_state.load();
  const DumpTraceback dump = fault_state().python.dump_traceback.load();
  if (state_of == nullptr || dump == nullptr) return;
  void* state = state_of();
  if (state == nullptr) {  // a thread that never ran Python: the main thread's frames, said to be so, or none
    if (without == ThreadWithoutPython::NoFrames || !main_thread_comes_to_sleep()) return;
    state = main_thread_state();
    if (state == nullptr) return;
    out.of_main_thread = true;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return;
  dump(fds[1], state);
  ::close(fds[1]);
  for (;;) {
    const ssize_t n = ::read(fds[0], out.text + out.length, sizeof out.text - static_cast<std::size_t>(out.length));
    if (n <= 0) break;
    out.length += static_cast<int>(n);
    if (out.length == static_cast<int>(sizeof out.text)) break;
  }
  ::close(fds[0]);
}

std::vector<PythonFrame> parse_python_stack(std::string_view text) {
  std::vector<PythonFrame> frames;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    const std::size_t file = line.find("File \"");
    const std::size_t close = line.find("\", line ", file == std::string_view::npos ? 0 : file + 6);
    if (file == std::string_view::npos || close == std::string_view::npos) continue;
    PythonFrame f;
    f.file = std::string(line.substr(file + 6, close - file - 6));
    const std::string_view rest = line.substr(close + 8);
    std::from_chars(rest.data(), rest.data() + rest.size(), f.line);
    if (const std::size_t in = rest.find(" in "); in != std::string_view::npos)
      f.function = std::string(rest.substr(in + 4));
    frames.push_back(std::move(f));
  }
  return frames;
}

}  // namespace hazardlab::check
