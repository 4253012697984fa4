#include "conformance/check/compare.hpp"

#include <algorithm>
#include <cstdio>

namespace hazardlab::conformance {
namespace {

std::string name(ValueId v) {
  if (v == kUnknownValue) return "unknown";
  if (v >= kInitialValueBase) return "initial(buffer " + std::to_string(v - kInitialValueBase) + ")";
  return "#" + std::to_string(v);
}

std::string names(const std::set<ValueId>& values) {
  std::string text = "{";
  for (ValueId v : values) text += (text.size() > 1 ? ", " : "") + name(v);
  return text + "}";
}

// The raw words a read held, in hexadecimal: what the next run needs to tell a wrong value's origin.
std::string raw_text(const Observation& observation, const std::pair<CommandIndex, BufferId>& read) {
  const auto it = observation.raw_words.find(read);
  if (it == observation.raw_words.end()) return "";
  std::string text = " (raw words";
  for (std::uint32_t w : it->second) {
    char hex[12];
    std::snprintf(hex, sizeof hex, " %08x", w);
    text += hex;
  }
  return text + ")";
}

const char* to_text(Wait w) { return w == Wait::Waits ? "to wait" : "not to wait"; }

// One disagreement: `key` names the item (a value of a read, a command at a drain or gate, a call, a query)
// the same way for every model, so that findings under two models can be matched.
struct Finding {
  std::string key;
  std::string text;
};

std::vector<Finding> findings(const Program& executed, const Prediction& prediction, const Observation& observation) {
  std::vector<Finding> found;
  for (const auto& [read, values] : observation.reads) {
    const ReadPrediction* p = prediction.find(read.first, read.second);
    if (p == nullptr) continue;  // a read this model does not make (a mutant that moved it)
    for (ValueId v : values)
      if (!p->values.contains(v))
        found.push_back(
            {"read " + std::to_string(read.first) + "/" + std::to_string(read.second) + " " + name(v),
             p->reader + ": saw " + names({v}) + ", allowed " + names(p->values) + raw_text(observation, read)});
  }
  for (const auto& [open, finished] : observation.finished_at_gate_open) {
    const auto it = prediction.held_at_gate_open.find(open);
    if (it == prediction.held_at_gate_open.end()) continue;
    for (CommandIndex k : it->second)
      if (finished.contains(k))
        found.push_back({"open " + std::to_string(open) + " ran " + std::to_string(k),
                         "gate open #" + std::to_string(open) + ": #" + std::to_string(k) +
                             " finished although behind a gate still closed"});
  }
  for (const auto& [drain, finished] : observation.finished_at_drain) {
    const auto it = prediction.drains.find(drain);
    if (it == prediction.drains.end()) continue;
    const std::string at = "drain #" + std::to_string(drain) + ": #";
    for (CommandIndex k : it->second.done)
      if (!finished.contains(k))
        found.push_back({"drain " + std::to_string(drain) + " held " + std::to_string(k),
                         at + std::to_string(k) + " expected finished, still held back"});
    for (CommandIndex k : it->second.held)
      if (finished.contains(k))
        found.push_back({"drain " + std::to_string(drain) + " ran " + std::to_string(k),
                         at + std::to_string(k) + " finished although behind a gate still closed"});
  }
  for (const auto& [k, blocked] : observation.blocked) {
    const auto it = prediction.waits.find(k);
    if (it == prediction.waits.end() || it->second == Wait::MayWait) continue;
    if (blocked != (it->second == Wait::Waits))
      found.push_back({"call " + std::to_string(k), "#" + std::to_string(k) + " " +
                                                        std::string(to_string(executed.commands()[k].kind)) +
                                                        ": expected " + to_text(it->second) + " for a closed gate, " +
                                                        (blocked ? "waited" : "returned at once")});
  }
  for (const auto& [k, answer] : prediction.queries) {
    const bool complete = executed.commands()[k].observed_complete;
    if ((answer == QueryAnswer::Complete && !complete) || (answer == QueryAnswer::NotReady && complete))
      found.push_back(
          {"query " + std::to_string(k), "#" + std::to_string(k) + " " +
                                             std::string(to_string(executed.commands()[k].kind)) + ": expected " +
                                             (answer == QueryAnswer::Complete ? "cudaSuccess" : "cudaErrorNotReady") +
                                             ", got " + (complete ? "cudaSuccess" : "cudaErrorNotReady")});
  }
  return found;
}

}  // namespace

std::vector<std::string> disagreements(const Program& executed, const Prediction& prediction,
                                       const Observation& observation) {
  std::vector<std::string> texts;
  for (Finding& f : findings(executed, prediction, observation)) texts.push_back(std::move(f.text));
  return texts;
}

std::vector<std::string> disagreements(const Program& executed, const Prediction& prediction,
                                       const Prediction& alternative, const Observation& observation) {
  std::set<std::string> rejected_by_alternative;
  for (const Finding& f : findings(executed, alternative, observation)) rejected_by_alternative.insert(f.key);
  std::vector<std::string> texts;
  for (Finding& f : findings(executed, prediction, observation))
    if (rejected_by_alternative.contains(f.key)) texts.push_back(std::move(f.text));
  return texts;
}

void Coverage::add(const Prediction& full, const Observation& observation) {
  for (const auto& [read, values] : observation.reads) {
    const ReadPrediction* p = full.find(read.first, read.second);
    if (p == nullptr) continue;
    ++reads_checked;
    if (p->racy_values.size() < 2) continue;
    ++racy_reads;
    if (std::any_of(values.begin(), values.end(), [&](ValueId v) { return !p->latest_values.contains(v); }))
      ++racy_reads_non_latest;
  }
}

}  // namespace hazardlab::conformance
