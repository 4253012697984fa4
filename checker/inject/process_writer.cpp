#include "checker/inject/process_writer.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "checker/core/check_settings.hpp"

namespace hazardlab::check {

bool ProcessWriter::open(const std::string& folder) {
  const std::string file = folder + "/process-" + std::to_string(::getpid()) + ".jsonl";
  fd_ = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  return fd_ >= 0;
}

void ProcessWriter::write_line(const std::string& line) {
  if (fd_ < 0) return;
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

void ProcessWriter::header(bool watching, const std::string& not_watching_because) {
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  const std::string program = n > 0 ? std::string(exe, static_cast<std::size_t>(n)) : "";
  write_line(header_line(::getpid(), ::getppid(), program, watching, not_watching_because,
                         process_rank_from_environment()));
}

void ProcessWriter::protection(const std::string& backend, const std::string& why) {
  write_line(protection_line(backend, why));
}

void ProcessWriter::note(const std::string& text) { write_line(note_line(text)); }

void ProcessWriter::remember_site(SiteId site, std::vector<std::uintptr_t> frames, std::vector<PythonFrame> python) {
  std::lock_guard lock(mutex_);
  sites_.emplace(site, Site{std::move(frames), std::move(python)});
}

bool ProcessWriter::knows_site(SiteId site) {
  std::lock_guard lock(mutex_);
  return sites_.count(site) != 0;
}

std::vector<Frame> ProcessWriter::frames_of(const std::vector<std::uintptr_t>& pcs) const {
  std::vector<Frame> frames;
  for (std::size_t i = 0; i < pcs.size(); ++i) {
    // A return address points after its call: look up the call itself (except the faulting instruction).
    const std::uintptr_t pc = i == 0 ? pcs[i] : pcs[i] - 1;
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fname == nullptr) {
      frames.push_back(Frame{"?", pc, "", ""});
      continue;
    }
    std::string module = info.dli_fname;
    if (module.empty() || module.find('/') == std::string::npos) {
      // The main program's map has no path of its own in the loader's list.
      char exe[4096];
      const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
      if (n > 0) module.assign(exe, static_cast<std::size_t>(n));
    }
    frames.push_back(Frame{module, pc - reinterpret_cast<std::uintptr_t>(info.dli_fbase), "", ""});
  }
  return frames;
}

void ProcessWriter::findings(const std::vector<Finding>& findings, const std::vector<std::uintptr_t>& access_frames,
                             const std::vector<PythonFrame>& access_python, bool access_python_of_main_thread) {
  for (const Finding& f : findings) {
    Site copy;
    {
      std::lock_guard lock(mutex_);
      if (auto it = sites_.find(f.copy.site); it != sites_.end()) copy = it->second;
    }
    write_line(finding_line(
        LoggedFinding{f, frames_of(copy.frames), frames_of(access_frames), copy.python, access_python,
                      access_python_of_main_thread}));
  }
}

void ProcessWriter::races(std::vector<Finding> races) {
  for (Finding& f : races) {
    Site earlier, later;
    {
      std::lock_guard lock(mutex_);
      if (auto it = sites_.find(f.copy.site); it != sites_.end()) earlier = it->second;
      if (auto it = sites_.find(f.access_site); it != sites_.end()) later = it->second;
    }
    // Both issued from Python (PyTorch, CuPy): the fix is said in their words.
    if (f.race) f.race->python = !earlier.python.empty() && !later.python.empty();
    write_line(finding_line(
        LoggedFinding{f, frames_of(earlier.frames), frames_of(later.frames), earlier.python, later.python, false}));
  }
}

void ProcessWriter::summary(const CheckerStats& stats) {
  write_line(progress_line(driver_calls_.load()));
  write_line(summary_line(stats));
}

void ProcessWriter::count_driver_call() {
  const std::uint64_t n = driver_calls_.fetch_add(1, std::memory_order_relaxed) + 1;
  if ((n & (n - 1)) == 0) write_line(progress_line(n));
}

}  // namespace hazardlab::check
