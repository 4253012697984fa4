#pragma once
// The one place hazardlab reads its process environment (the layout lint refuses getenv anywhere
// else), so that what a run was given is read, and can be recorded, the same way everywhere.
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

}  // namespace hazardlab
