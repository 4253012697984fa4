// The supervisor of a GPU's warm worker and the worker it forks: the worker takes cases one after another; the
// supervisor hands each client's request to it and the case's end (or the worker's death) back to the client.
#include "warm_supervisor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "warm_protocol.hpp"
#include "warm_socket.hpp"

namespace hazardlab::warm {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kIdleLimit = std::chrono::minutes(2);
constexpr int kMaxFd = 1024;  // the descriptors a forked process closes (a case client opens a handful)

std::string status_text(int status) {
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

// The worker: takes cases until told to retire or until the supervisor closes its socket.
[[noreturn]] void work(int channel, const CaseRunner& runner) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int quiet = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (;;) {
    std::optional<Message> m = receive_message(channel);
    if (!m) ::_exit(0);
    const std::optional<CaseRequest> request = decode(m->bytes);
    if (!request || m->fds.size() != 2) ::_exit(3);
    ::dup2(m->fds[0], STDOUT_FILENO);
    ::dup2(m->fds[1], STDERR_FILENO);
    close_all(m->fds);
    const CaseReply reply = runner(*request);
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    // The client's pipes must not stay open here: ctest waits for them to close.
    ::dup2(quiet, STDOUT_FILENO);
    ::dup2(quiet, STDERR_FILENO);
    if (!send_message(channel, reply_bytes(reply)) || reply.retire) ::_exit(0);
  }
}

struct Worker {
  pid_t pid = -1;
  int channel = -1;
  bool alive() const { return pid > 0; }
  int reap(bool kill_first) {
    if (kill_first) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ::close(channel);
    pid = -1;
    channel = -1;
    return status;
  }
};

Worker start_worker(const CaseRunner& runner) {
  int pair[2];
  if (!socket_pair(pair)) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Nothing of the supervisor's: above all no client's pipe, which would keep its ctest waiting.
    for (int fd = 3; fd < kMaxFd; ++fd)
      if (fd != pair[1]) ::close(fd);
    work(pair[1], runner);
  }
  ::close(pair[1]);
  if (pid < 0) {
    ::close(pair[0]);
    return {};
  }
  return {pid, pair[0]};
}

// One client: forward its request to the worker and the worker's answer (or its death) back.
void serve(int client, Worker& worker, const CaseRunner& runner) {
  std::optional<Message> request = receive_message(client);
  if (!request) return;
  if (!worker.alive()) worker = start_worker(runner);
  const int client_stderr = request->fds.size() == 2 ? ::dup(request->fds[1]) : -1;
  const bool sent = worker.alive() && send_message(worker.channel, request->bytes, request->fds);
  close_all(request->fds);
  const auto tell_client = [&](const std::string& why) {
    if (client_stderr >= 0) {
      const std::string text = "hazardlab-cases: " + why + '\n';
      [[maybe_unused]] ssize_t ignored = ::write(client_stderr, text.data(), text.size());
    }
  };
  if (!sent) {
    tell_client("the warm worker could not be started or reached; the case did not run");
    send_message(client, "1 stay");
  } else if (send_message(client, kTaken)) {
    pollfd watch[2] = {{worker.channel, POLLIN, 0}, {client, POLLIN, 0}};
    while (::poll(watch, 2, -1) < 0 && errno == EINTR) {
    }
    if (watch[0].revents) {
      std::optional<Message> answer = receive_message(worker.channel);
      if (answer) {
        send_message(client, answer->bytes);
        if (answer->bytes.ends_with("retire")) worker.reap(false);
      } else {
        const int status = worker.reap(false);
        tell_client("the worker process running this case died: " + status_text(status) +
                    "; the case stays recorded as failed, and the next case gets a new process");
        send_message(client, "1 retire");
      }
    } else {
      worker.reap(true);  // the client is gone (ctest's timeout killed it): so is its case
    }
  } else {
    worker.reap(true);
  }
  if (client_stderr >= 0) ::close(client_stderr);
}

[[noreturn]] void supervise(int listener, pid_t owner, const CaseRunner& runner) {
  std::signal(SIGPIPE, SIG_IGN);
  Worker worker;
  auto idle_since = Clock::now();
  for (;;) {
    pollfd ready{listener, POLLIN, 0};
    const int n = ::poll(&ready, 1, 1000);
    if (::kill(owner, 0) != 0 && errno == ESRCH) break;
    if (n <= 0) {
      if (Clock::now() - idle_since > kIdleLimit) break;
      continue;
    }
    const int client = accept_client(listener);
    if (client < 0) continue;
    if (peer_is_same_user(client)) serve(client, worker, runner);
    ::close(client);
    idle_since = Clock::now();
  }
  if (worker.alive()) worker.reap(true);
  ::_exit(0);
}

}  // namespace

// Detached from the client (its own session, no inherited pipes), so that ctest sees the client
// end when its case does.
void start_supervisor(int listener, const CaseRunner& runner) {
  const pid_t owner = ::getppid();
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    ::setsid();
    if (::fork() != 0) ::_exit(0);
    const int quiet = ::open("/dev/null", O_RDWR);
    for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) ::dup2(quiet, fd);
    for (int fd = 3; fd < kMaxFd; ++fd)
      if (fd != listener) ::close(fd);
    supervise(listener, owner, runner);
  }
  if (child > 0) ::waitpid(child, nullptr, 0);
}

}  // namespace hazardlab::warm
