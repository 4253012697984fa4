// The happens-before relation of a program under a set of rules. Each command becomes one or more
// actions: its call on the issuing host thread, its execution on a stream, and, when the call waits for
// that execution, a return on the host thread. Edges come from host program order (always) and from
// the rules the RuleSet enables.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "conformance/model/program.hpp"
#include "conformance/model/rules.hpp"

namespace hazardlab::conformance {

enum class ActionSite {
  HostCall,    // the call itself, on the issuing host thread
  StreamWork,  // the work as it runs on its stream
  HostReturn,  // the call returning, after the stream work it waited for
};

using ActionId = std::size_t;

struct Action {
  CommandIndex command;
  ActionSite site;
  HostThreadId thread;  // the issuing thread (host actions run on it)
  StreamId stream;      // StreamWork only
  bool host_function;   // StreamWork of a cudaLaunchHostFunc
  std::vector<BufferId> reads;
  std::vector<BufferId> writes;
};

inline constexpr ActionId kNoAction = static_cast<ActionId>(-1);

// Where one command's actions are, and which gates were closed when the host began it.
struct CommandActions {
  ActionId call = kNoAction;
  ActionId work = kNoAction;  // kNoAction when the command has no stream work (under these rules)
  ActionId ret = kNoAction;
  // An EventRecord: what a wait on, or a synchronize or query of, the event waits for. Its work, except
  // where a deviation lets the stream's synchronize skip what the event still captures (rules.hpp).
  ActionId event = kNoAction;
  std::vector<ActionId> closed_gates;  // the stream work of every gate closed when the command began
};

class HappensBefore {
 public:
  HappensBefore(const Program& program, const RuleSet& rules);

  [[nodiscard]] const std::vector<Action>& actions() const { return actions_; }
  // True when `before` happens-before `after` (irreflexive, transitive).
  [[nodiscard]] bool ordered(ActionId before, ActionId after) const { return reaches_[after][before]; }
  [[nodiscard]] const std::vector<CommandActions>& commands() const { return commands_; }
  // The gates still closed after the last command (the runner opens them before it synchronizes).
  [[nodiscard]] const std::vector<ActionId>& closed_at_end() const { return closed_at_end_; }

  struct Builder;  // happens_before.cpp

 private:
  std::vector<Action> actions_;
  std::vector<CommandActions> commands_;
  std::vector<ActionId> closed_at_end_;
  // reaches_[b][a]: a happens-before b. Edges only go from earlier actions to later ones (an action can
  // only wait for something already issued), so creation order is a topological order. A gate's opening
  // is no edge here: it is a fact of the schedule (conformance/schedule).
  std::vector<std::vector<bool>> reaches_;
};

}  // namespace hazardlab::conformance
