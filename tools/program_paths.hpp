#pragma once
// Where this program's companions are, one lookup for all of them: the case and measurement
// runners of `hazardlab run`, the lessons `hazardlab explain` names and the report tool behind
// `hazardlab merge`, in a build tree and in an installed prefix alike.
#include <filesystem>
#include <initializer_list>
#include <string>

namespace hazardlab {

// The folder of this executable (from /proc/self/exe).
std::filesystem::path program_folder();

// This executable (from /proc/self/exe).
std::filesystem::path this_program();

// A case or measurement runner beside this program: installed, <prefix>/bin/hazardlab and
// <prefix>/libexec/hazardlab/<name>; in a build tree, <build>/tools/hazardlab and <build>/cases/<name>.
// Throws std::invalid_argument when it is in neither.
std::filesystem::path sibling_program(const std::string& name);

// The first `<program_folder()>/<folder>/<name>` that is executable, or an empty path.
std::filesystem::path find_companion(const std::string& name, std::initializer_list<const char*> folders);

// `p` made absolute and normal; `p` itself when that fails.
std::filesystem::path absolute_path(const std::filesystem::path& p);

}  // namespace hazardlab
