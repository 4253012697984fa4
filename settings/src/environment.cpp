#include "hazardlab/environment.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

extern char** environ;

namespace hazardlab {

std::optional<std::string> environment_value(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::optional<std::string> environment_value_given(std::string_view name) {
  std::optional<std::string> value = environment_value(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

std::vector<std::string> environment_entries() {
  std::vector<std::string> entries;
  for (char** e = environ; e && *e; ++e) entries.emplace_back(*e);
  return entries;
}

std::optional<std::filesystem::path> find_program(const std::string& program) {
  auto runnable = [](const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.empty()) return std::nullopt;
  if (program.find('/') != std::string::npos)
    return runnable(program) ? std::optional<std::filesystem::path>(program) : std::nullopt;
  std::string dirs;
  if (const std::optional<std::string> path = environment_value("PATH")) {
    dirs = *path;
  } else {
    dirs.resize(::confstr(_CS_PATH, nullptr, 0));
    if (!dirs.empty()) dirs.resize(::confstr(_CS_PATH, dirs.data(), dirs.size()) - 1);
  }
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (runnable(candidate)) return std::filesystem::path(candidate);
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace hazardlab
