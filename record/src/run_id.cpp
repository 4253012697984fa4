#include "hazardlab/run_id.hpp"

#include <cctype>
#include <stdexcept>

namespace hazardlab {
namespace {

// Why `text` is no run id; "" when it is one.
std::string problem_of(std::string_view text) {
  if (text.empty()) return "a run id cannot be empty";
  if (text.size() > 128) return "a run id is at most 128 characters";
  if (text == "." || text == "..") return "a run id cannot be '.' or '..'";
  for (const char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '.' || c == '_';
    if (!plain) return "a run id holds only letters, digits, '-', '.' and '_' (it names a folder)";
  }
  // A folder under runs/ whose name starts with '.' is one on its way in, which every check of runs/ passes over.
  if (text.front() == '.') return "a run id cannot start with '.' (it would name a hidden folder)";
  return "";
}

}  // namespace

RunId RunId::parse(std::string_view text, std::string_view where) {
  if (const std::string why = problem_of(text); !why.empty())
    throw std::invalid_argument(std::string(where) + " '" + std::string(text) + "': " + why);
  return RunId(std::string(text));
}

RunId RunId::make(const std::string& started_at_compact, const std::string& host, long pid) {
  std::string clean;
  for (unsigned char c : host) clean += (std::isalnum(c) || c == '.' || c == '-') ? static_cast<char>(c) : '_';
  if (clean.empty()) clean = "host";
  return parse(started_at_compact + "-" + clean + "-" + std::to_string(pid), "the run id made for this run");
}

}  // namespace hazardlab
