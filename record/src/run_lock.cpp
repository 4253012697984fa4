// One run at a time holds a results root's lock (results_root.hpp): taken with an exclusive create, taken over
// from a process of this host that is gone, and let go of by the run that holds it.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "hazardlab/results_layout.hpp"
#include "hazardlab/results_root.hpp"
#include "hazardlab/run_record.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

bool process_alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

}  // namespace

std::string LockHolder::describe() const {
  return "run " + run_id + " (host " + host + ", pid " + std::to_string(pid) + ", started " + started_at + ")";
}

std::optional<LockHolder> read_run_lock(const fs::path& root) {
  try {
    const auto j = nlohmann::json::parse(read_text_file(root / kLockFile));
    return LockHolder{j.at("run_id").get<std::string>(), j.at("host").get<std::string>(), j.at("pid").get<long>(),
                      j.at("started_at").get<std::string>()};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

LockAttempt acquire_run_lock(const fs::path& root, const LockHolder& me) {
  const fs::path lock = root / kLockFile;
  const std::string text =
      nlohmann::json{{"run_id", me.run_id}, {"host", me.host}, {"pid", me.pid}, {"started_at", me.started_at}}.dump(2) +
      "\n";
  LockAttempt attempt;
  for (int tries = 0; tries < 2; ++tries) {
    const int fd = ::open(lock.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      ::fsync(fd);
      ::close(fd);
      if (!ok) {
        ::unlink(lock.c_str());
        throw std::runtime_error("cannot write the lock " + lock.string() + ": " + std::strerror(errno));
      }
      attempt.acquired = true;
      return attempt;
    }
    if (errno != EEXIST)
      throw std::runtime_error("cannot create the lock " + lock.string() + ": " + std::strerror(errno));
    const std::optional<LockHolder> holder = read_run_lock(root);
    // A holder on this host whose process is gone left the lock behind (a killed ctest): stale.
    if (holder && holder->host == me.host && !process_alive(holder->pid) && tries == 0) {
      attempt.taken_over = holder;
      // Rename, not unlink: of two runs taking over at once, only one moves the stale lock away.
      const fs::path moved = root / (".lock.stale." + std::to_string(me.pid));
      if (::rename(lock.c_str(), moved.c_str()) == 0) ::unlink(moved.c_str());
      continue;
    }
    attempt.holder = holder ? *holder : LockHolder{"(unreadable lock file)", "?", 0, "?"};
    return attempt;
  }
  attempt.holder = read_run_lock(root);
  return attempt;
}

bool lock_holder_may_be_running(const LockHolder& holder) {
  if (holder.host != host_name()) return true;
  if (holder.pid == static_cast<long>(::getpid()) || holder.pid == static_cast<long>(::getppid())) return false;
  return process_alive(holder.pid);
}

bool release_run_lock(const fs::path& root, std::string_view run_id) {
  const std::optional<LockHolder> holder = read_run_lock(root);
  if (!holder || holder->run_id != run_id) return false;
  return ::unlink((root / kLockFile).c_str()) == 0;
}

}  // namespace hazardlab
