#include "conformance/model/observed_writes.hpp"

#include <stdexcept>

#include "conformance/model/happens_before.hpp"

namespace hazardlab::conformance {
namespace {

std::string describe_read(const Program& program, const Action& action, BufferId buffer) {
  std::string text =
      "#" + std::to_string(action.command) + " " + std::string(to_string(program.commands()[action.command].kind));
  text += action.site == ActionSite::StreamWork ? " (on stream " + std::to_string(action.stream) + ")"
                                                : " (host thread " + std::to_string(action.thread) + ")";
  return text + " reads " + program.buffer_name(buffer);
}

struct WriteAction {
  ActionId action;
  WriteId write;
};

}  // namespace

std::vector<ReadResult> analyze(const Program& program, const RuleSet& rules) {
  const HappensBefore hb(program, rules);
  const auto& actions = hb.actions();
  std::vector<std::vector<WriteAction>> writes_of(program.buffer_count());
  for (ActionId a = 0; a < actions.size(); ++a)
    for (BufferId b : actions[a].writes) writes_of[b].push_back({a, actions[a].command});

  std::vector<ReadResult> results;
  for (ActionId read = 0; read < actions.size(); ++read) {
    for (BufferId buffer : actions[read].reads) {
      // Candidates: writes the read does not happen-before. A command's own write is not one of its inputs.
      std::vector<WriteAction> candidates;
      for (const WriteAction& w : writes_of[buffer])
        if (w.action != read && !hb.ordered(read, w.action)) candidates.push_back(w);
      // A candidate stays visible unless another write is ordered after it and before the read.
      auto overwritten = [&](ActionId w) {
        for (const WriteAction& later : writes_of[buffer])
          if (hb.ordered(w, later.action) && hb.ordered(later.action, read)) return true;
        return false;
      };
      ReadResult result{actions[read].command, buffer, describe_read(program, actions[read], buffer), {}, false};
      bool any_write_before_read = false;
      for (const WriteAction& w : candidates) {
        if (hb.ordered(w.action, read)) any_write_before_read = true;
        if (!overwritten(w.action)) result.allowed_writes.insert(w.write);
      }
      // The initial value happens-before every write, so any write ordered before the read hides it.
      if (!any_write_before_read) result.allowed_writes.insert(kInitialValue);
      result.racy = result.allowed_writes.size() > 1;
      results.push_back(std::move(result));
    }
  }
  return results;
}

const ReadResult& find_read(const std::vector<ReadResult>& results, CommandIndex command, BufferId buffer) {
  for (const ReadResult& r : results)
    if (r.command == command && r.buffer == buffer) return r;
  throw std::out_of_range("no read of buffer " + std::to_string(buffer) + " by command " + std::to_string(command));
}

}  // namespace hazardlab::conformance
