#pragma once
// The one place hazardlab reads its process environment (the layout lint refuses getenv anywhere
// else), so that what a run was given is read, and can be recorded, the same way everywhere.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hazardlab {

// The value of `name`, or nullopt when it is not set. An empty value is returned as set: the
// reader of a setting decides whether empty means unset or is refused.
std::optional<std::string> environment_value(std::string_view name);
// The value of `name` when it is set and not empty.
std::optional<std::string> environment_value_given(std::string_view name);
// Every "NAME=value" entry of the environment, in its order.
std::vector<std::string> environment_entries();
// Where execvp would find `program`: itself when it names a path (holds a '/'), else the first runnable
// regular file of that name in PATH's folders (an empty entry is the current folder; with PATH unset, the
// system's default path, confstr(_CS_PATH)). nullopt when there is none.
std::optional<std::filesystem::path> find_program(const std::string& program);

}  // namespace hazardlab
