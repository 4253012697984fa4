#include "checker/launch/session.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "checker/core/check_settings.hpp"
#include "checker/launch/decided_settings.hpp"
#include "checker/launch/report_files.hpp"
#include "checker/launch/symbolize.hpp"
#include "hazardlab/atomic_file.hpp"
#include "hazardlab/environment.hpp"
#include "hazardlab/run_record.hpp"
#include "hazardlab/setting_source.hpp"

namespace fs = std::filesystem;

namespace hazardlab::check {

namespace {

// Where execvp would find the program, or empty.
std::string resolve(const std::string& program) {
  const std::optional<fs::path> found = find_program(program);
  return found ? found->string() : "";
}

// The folder the processes write their logs into: made here, private, and removed afterwards with only
// the files the processes wrote in it.
struct LogFolder {
  fs::path path;
  LogFolder() {
    const std::optional<std::string> tmpdir = environment_value_given("TMPDIR");
    std::string pattern = tmpdir.value_or("/tmp") + "/hazardlab-check-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      const int err = errno;
      const std::string what = "cannot make the checker's log folder in " +
                               (tmpdir ? "TMPDIR='" + *tmpdir + "'" : std::string("/tmp")) + ": " + std::strerror(err);
      if (tmpdir) throw UsageError(what + " (set TMPDIR to a folder that exists and is writable)");
      throw std::runtime_error(what);
    }
    path = pattern;
  }
  ~LogFolder() {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(path, ec))
      if (entry.path().filename().string().starts_with("process-")) fs::remove(entry.path(), ec);
    fs::remove(path, ec);  // only if empty: anything else in it is not ours
  }
};

ProgramEnd run(const CheckOptions& options, const fs::path& folder) {
  // The checker's preloads go first, before the program's own, which stay. The thread shim (pthread_create and
  // the C library's calls that have the kernel reach a buffer) unless the two held-page keys or mprotect are
  // decided (by the option, or else by the environment the launcher was started in), which need no range keys. The
  // signal shim (sigaction and its kin) always: without it, a SIGSEGV handler the program installs while a copy
  // holds pages would stand in front of the checker's until the next copy, and meet the checker's faults.
  const CheckSettings settings = decided_settings(options);
  const ProtectionRequest asked = settings.protection;
  std::string preload;
  if ((asked == ProtectionRequest::Auto || asked == ProtectionRequest::RangeKeys) && !options.thread_shim.empty())
    preload = options.thread_shim.string();
  if (!options.signal_shim.empty()) preload += (preload.empty() ? "" : " ") + options.signal_shim.string();
  if (!preload.empty()) {
    const std::optional<std::string> theirs = environment_value_given("LD_PRELOAD");
    if (theirs && !theirs->empty()) preload += " " + *theirs;
  }
  // The settings cross the exec as decided here, each in its one spelling (check_settings.hpp).
  std::vector<std::pair<std::string, std::optional<std::string>>> handed;
  for (const auto& [name, text] : handed_over(settings)) handed.emplace_back(std::string(name), text);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    ::close(report[0]);
    ::setenv(std::string(kInjectionPath).c_str(), options.inject_library.c_str(), 1);
    if (!preload.empty()) ::setenv("LD_PRELOAD", preload.c_str(), 1);
    ::setenv(std::string(setting::kCheckLogFolder.name).c_str(), folder.c_str(), 1);
    for (const auto& [variable, text] : handed) {
      if (text)
        ::setenv(variable.c_str(), text->c_str(), 1);
      else
        ::unsetenv(variable.c_str());
    }
    std::vector<char*> argv;
    for (const std::string& a : options.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    const int err = errno;
    (void)!::write(report[1], &err, sizeof err);
    ::_exit(127);
  }
  ::close(report[1]);
  int exec_error = 0;
  const bool failed_to_start = ::read(report[0], &exec_error, sizeof exec_error) == sizeof exec_error;
  ::close(report[0]);
  // Like system(): a Ctrl-C goes to the program, which decides; the checker waits for it and reports.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  if (failed_to_start)
    throw UsageError("cannot run '" + options.command.front() + "': " + std::strerror(exec_error));
  if (WIFSIGNALED(status)) return ProgramEnd{true, WTERMSIG(status)};
  return ProgramEnd{false, WEXITSTATUS(status)};
}

}  // namespace

std::vector<std::string> validate(const CheckOptions& options) {
  if (options.command.empty())
    throw UsageError("no program to check: hazardlab check [options] -- PROGRAM [ARGS...]");
  const std::string program = resolve(options.command.front());
  if (program.empty())
    throw UsageError("program '" + options.command.front() +
                          "' was not found or is not an executable file (a path, or a name on PATH)");
  for (const auto& [name, value] : {std::pair{"--error-exitcode", options.error_exitcode},
                                    std::pair{"--unchecked-exitcode", options.unchecked_exitcode}})
    if (value < 1 || value > 255)
      throw UsageError(std::string(name) + " " + std::to_string(value) + ": allowed are 1 to 255");
  // The checker's settings the program would inherit: refused here, with their names, rather than replaced
  // by a default in the program without a word.
  for (const std::string& refused : refused_check_settings())
    throw UsageError("the environment's " + refused + " (unset it, or give the option instead)");
  // The log folder is the launcher's to make and name: one set by hand would be replaced without a word.
  if (const std::optional<std::string> folder = environment_value_given(std::string(setting::kCheckLogFolder.name)))
    throw UsageError(std::string(setting::kCheckLogFolder.name) + "='" + *folder +
                     "' is set: it is hazardlab check's own variable, which it sets to the log folder it makes for "
                     "the program; unset it");
  // The suite's settings, judged as every hazardlab command judges them (the checker's own were judged above): a
  // misspelt HAZARDLAB_* name is a warning, an error under HAZARDLAB_STRICT=1, and a bad value an error.
  std::vector<std::string> others;
  for (const std::string& entry : environment_entries())
    if (!entry.starts_with("HL_CHECK_")) others.push_back(entry);
  std::vector<std::string> warnings;
  try {
    warnings = judge_given_settings(SettingSource(others));
  } catch (const SettingsError& e) {
    throw UsageError(std::string("the environment's ") + e.what());
  }
  if (options.sample > setting::kCheckSample.max)
    throw UsageError("--sample " + std::to_string(options.sample) + ": allowed are 1 to " +
                          std::to_string(setting::kCheckSample.max));
  validate_report_files(options, program);
  if (options.sarif && !fs::is_directory(options.source_root))
    throw UsageError("--source-root " + options.source_root.string() + ": is not a folder");
  const auto must_exist = [](const fs::path& library) {
    if (!fs::is_regular_file(library))
      throw UsageError("the checker's library " + library.string() + " is missing: the installation is incomplete");
  };
  must_exist(options.inject_library);
  if (!options.signal_shim.empty()) must_exist(options.signal_shim);
  if (const std::optional<std::string> set = environment_value_given(kInjectionPath))
    throw UsageError(std::string(kInjectionPath) + " is already set (" + *set +
                          "): another tool injects into CUDA; hazardlab check needs that variable, so unset it");
  return warnings;
}

CheckOutcome run_check(const CheckOptions& options, std::ostream& err) {
  for (const std::string& warning : validate(options)) err << "hazardlab check: warning: " << warning << '\n';
  // What each report path held before the program ran: the program may write there itself.
  const std::vector<ReportFile> files = report_files(options);
  std::vector<ReportPathBefore> before;
  for (const ReportFile& file : files) before.push_back(report_path_before(file.path));
  LogFolder folder;
  const ProgramEnd end = run(options, folder.path);
  std::vector<ProcessLog> processes;
  for (const auto& entry : fs::directory_iterator(folder.path)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("process-")) continue;
    try {
      processes.push_back(read_process_log(entry.path()));
    } catch (const ProcessLogError& e) {
      // A log that is not what the injected library writes: that process cannot be called watched, and the
      // report says why, naming the file and the line (the verdict is not-checked, never clean).
      ProcessLog unreadable;
      unreadable.pid = std::strtoll(name.c_str() + std::strlen("process-"), nullptr, 10);
      unreadable.not_watching_because = std::string("its log could not be read: ") + e.what();
      processes.push_back(std::move(unreadable));
    }
  }
  const bool named = symbolize(processes);
  CheckOutcome out{CheckReport::judge(options.command, end, std::move(processes)), 0, 0};
  out.report.print(err);
  if (!named && out.report.finding_count() > 0)
    err << "========= (addr2line was not found: frames are named by module and offset; binutils has it)\n";
  // Each file whole or not at all (a temporary beside it, renamed over it); a write that fails is an error,
  // after the console report is out, never a silent clean. A path judged before the run is judged again: a file
  // the program made or changed there meanwhile is left as it is, and the report is not written over it.
  std::string not_written;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string what = files[i].option + " " + files[i].path.string();
    if (const std::string why = report_path_changed(files[i].path, before[i]); !why.empty()) {
      err << "hazardlab check: " << what << ": " << why << "; the report is not written there\n";
      not_written += (not_written.empty() ? "" : ", ") + what;
      continue;
    }
    write_file_atomically(files[i].path, files[i].spell(out.report));
  }
  if (!not_written.empty())
    throw std::runtime_error("the report was not written to " + not_written +
                             ": a file there appeared or changed while the program ran, and is left as it is");
  if (end.signalled) out.reraise = end.code;
  switch (out.report.verdict) {
    case CheckVerdict::Found:
      out.exit_status = options.error_exitcode;
      break;
    case CheckVerdict::NotChecked:
      out.exit_status = options.unchecked_exitcode;
      break;
    case CheckVerdict::Clean:
    case CheckVerdict::Sampled:  // asked for: the program's own status, with the report saying what was left out
      out.exit_status = end.signalled ? 128 + end.code : end.code;
      break;
  }
  return out;
}

}  // namespace hazardlab::check
