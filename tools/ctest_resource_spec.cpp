#include "ctest_resource_spec.hpp"

#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "hazardlab/atomic_file.hpp"
#include "hazardlab/results_layout.hpp"
#include "plan/gpu_resources.hpp"
#include "program_paths.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

// Whether `path` is a resource spec file hazardlab wrote: a plain file (never a link or a folder) that carries the
// spec's marker. Only such a file is pruned or replaced.
bool our_spec_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(path, ec)) || fs::file_size(path, ec) > (1U << 20) || ec) return false;
  try {
    return spec_written_by_hazardlab(read_text_file(path));
  } catch (const std::exception&) {
    return false;
  }
}

// ctest-<pid>.json of a ctest that has ended (several ctests may start at once on one build tree).
bool of_an_ended_ctest(const std::string& name, long owner) {
  long pid = 0;
  return name.starts_with("ctest-") && name.ends_with(".json") &&
         std::sscanf(name.c_str(), "ctest-%ld.json", &pid) == 1 && pid != owner &&
         ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

fs::path write_ctest_resource_spec(const fs::path& folder, long owner, const std::vector<int>& devices) {
  if (folder.empty()) return {};
  std::error_code ec;
  // A link is written through to wherever it points, and its ended ctests' files pruned there: refused, as every
  // output folder of hazardlab's is.
  if (fs::is_symlink(fs::symlink_status(folder, ec))) {
    throw std::invalid_argument("--resource-spec-dir '" + folder.string() + "' is a symbolic link (to " +
                                fs::read_symlink(folder, ec).string() + "); give the folder itself");
  }
  if (fs::exists(fs::symlink_status(folder, ec)) && !fs::is_directory(folder, ec)) {
    throw std::invalid_argument("--resource-spec-dir '" + folder.string() + "' is not a folder; it must be a folder "
                                "(made when missing) where hazardlab writes ctest's resource spec");
  }
  const fs::path spec = absolute_path(folder / ("ctest-" + std::to_string(owner) + ".json"));
  if (fs::exists(fs::symlink_status(spec, ec)) && !our_spec_file(spec)) {
    throw std::invalid_argument("--resource-spec-dir '" + folder.string() + "': " + spec.filename().string() +
                                " is there and hazardlab did not write it (no '" + std::string(kSpecMarkerKey) +
                                "' marker); move it away, or give a folder of hazardlab's own");
  }
  fs::create_directories(folder);
  for (const fs::directory_entry& e : fs::directory_iterator(folder)) {
    std::error_code ignored;
    if (of_an_ended_ctest(e.path().filename().string(), owner) && our_spec_file(e.path())) fs::remove(e.path(), ignored);
  }
  write_file_atomically(spec, gpu_resource_spec(devices));
  return spec;
}

}  // namespace hazardlab
