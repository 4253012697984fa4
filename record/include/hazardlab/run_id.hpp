#pragma once
// A run's id. It names the run's folder (<results root>/runs/<id>) and its report set, so it is 1 to 128
// letters, digits, '-', '.' or '_', and not "." or "..". It is checked once, where its text comes in: the
// command line (`hazardlab session-start --run-id`) and a run record read back (load_run_record) parse it
// here; an id made from a run's start (make) is checked the same way. What holds a RunId holds a checked one.
#include <string>
#include <string_view>

namespace hazardlab {

class RunId {
 public:
  // The id `text` spells; else std::invalid_argument "<where> '<text>': <why>" (bad input: exit 2), `where`
  // naming what gave it ("--run-id", "the run record <path> has the run id").
  static RunId parse(std::string_view text, std::string_view where);
  // "<UTC yyyymmddThhmmssZ>-<host>-<pid>", with the host reduced to [A-Za-z0-9.-]: unique per host and process.
  static RunId make(const std::string& started_at_compact, const std::string& host, long pid);

  const std::string& text() const noexcept { return text_; }
  bool operator==(const RunId&) const = default;

 private:
  explicit RunId(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

}  // namespace hazardlab
