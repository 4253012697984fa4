#include "program_paths.hpp"

#include <unistd.h>

#include <stdexcept>

namespace hazardlab {
namespace fs = std::filesystem;

fs::path program_folder() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec).parent_path();
}

fs::path this_program() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

fs::path sibling_program(const std::string& name) {
  const fs::path found = find_companion(name, {"../libexec/hazardlab", "../cases"});
  if (found.empty()) {
    throw std::invalid_argument(name + " was not found next to " + program_folder().string() +
                                " (looked in ../libexec/hazardlab and ../cases): a broken install?");
  }
  return found;
}

fs::path find_companion(const std::string& name, std::initializer_list<const char*> folders) {
  const fs::path here = program_folder();
  for (const char* folder : folders) {
    const fs::path candidate = (here / folder / name).lexically_normal();
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

fs::path absolute_path(const fs::path& p) {
  std::error_code ec;
  const fs::path a = fs::absolute(p, ec);
  return ec ? p : a.lexically_normal();
}

}  // namespace hazardlab
