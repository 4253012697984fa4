#include "child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <thread>

extern char** environ;

namespace hazardlab {

ChildEnd run_child(const std::vector<std::string>& argv, const std::filesystem::path& log, std::chrono::seconds limit) {
  ChildEnd end;
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  std::filesystem::create_directories(log.parent_path(), ec);
  if (ec) {
    end.how = "could not start: cannot create the log folder " + log.parent_path().string() + ": " + ec.message();
    return end;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    end.how = "could not start " + argv[0] + ": " + std::strerror(rc);
    return end;
  }
  int status = 0;
  bool timed_out = false;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - start > limit) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  end.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (timed_out) {
    end.how = "timed out after " + std::to_string(limit.count()) + " s";
  } else if (WIFSIGNALED(status)) {
    end.how = "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  } else {
    end.exit_code = WEXITSTATUS(status);
    end.how = "exit " + std::to_string(end.exit_code);
  }
  return end;
}

}  // namespace hazardlab
