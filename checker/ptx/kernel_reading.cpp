// The kernel's blocks and branches, followed to a fixed point: a branch on a predicate adds what the predicate
// compared (or its negation) to the facts of each way; where ways meet, what both know is kept; at a loop's
// header, a register that changes by a launch-exact step each pass becomes its value on entry plus the loop's
// iteration count times the step. A last pass over the fixed point records the accesses and where each value is
// made (reading_state.hpp).
#include <algorithm>

#include "checker/ptx/reading_state.hpp"

namespace hazardlab::check::ptx {
namespace {

struct Edge {
  std::size_t from = 0, to = 0;
  std::string guard;  // the predicate the way depends on; empty: always taken
  bool when_true = true;
};

bool ends_block(const Instruction& in) {
  const std::string& op = in.opcode.front();
  return op == "bra" || op == "ret" || op == "exit" || op == "trap" || op == "brx";
}

std::vector<std::size_t> merged(std::vector<std::size_t> a, const std::vector<std::size_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
}

// Whether a fact holds in a state: it is one of its facts, or one of them compares the same values the same way
// (`mov.u32 %r30, %r1` before a loop: the exit test on %r1 is one on %r30 too).
bool holds_in(const Fact& fact, const State& s) {
  if (std::find(s.facts.begin(), s.facts.end(), fact) != s.facts.end()) return true;
  const auto lhs = operand_value(s, fact.lhs), rhs = operand_value(s, fact.rhs);
  if (!lhs || !rhs) return false;
  return std::any_of(s.facts.begin(), s.facts.end(), [&](const Fact& g) {
    if (g.comparison != fact.comparison || g.type != fact.type) return false;
    const auto gl = operand_value(s, g.lhs), gr = operand_value(s, g.rhs);
    return gl && gr && gl->polynomial == lhs->polynomial && gr->polynomial == rhs->polynomial;
  });
}

// The facts of any of the states that hold in all of them.
std::vector<Fact> common_facts(const std::vector<const State*>& states) {
  std::vector<Fact> out;
  for (const State* s : states)
    for (const Fact& f : s->facts)
      if (std::find(out.begin(), out.end(), f) == out.end() &&
          std::all_of(states.begin(), states.end(), [&](const State* t) { return holds_in(f, *t); }))
        out.push_back(f);
  return out;
}

// What every one of the states knows.
State meet(const std::vector<State>& states) {
  State out = states.front();
  for (std::size_t i = 1; i < states.size(); ++i) {
    const State& s = states[i];
    for (auto at = out.registers.begin(); at != out.registers.end();) {
      const auto other = s.registers.find(at->first);
      if (other == s.registers.end() || other->second.polynomial != at->second.polynomial) {
        at = out.registers.erase(at);
        continue;
      }
      at->second.checks = merged(at->second.checks, other->second.checks);
      ++at;
    }
    std::erase_if(out.predicates, [&](const auto& p) {
      const auto other = s.predicates.find(p.first);
      return other == s.predicates.end() || !(other->second == p.second);
    });
  }
  std::vector<const State*> all;
  for (const State& s : states) all.push_back(&s);
  out.facts = common_facts(all);
  return out;
}

bool exact(const Polynomial& p) {
  return std::all_of(p.terms().begin(), p.terms().end(), [](const auto& term) {
    return std::all_of(term.first.begin(), term.first.end(), [](const Symbol& s) { return s.exact(); });
  });
}

class Flow {
 public:
  Flow(const PtxFunction& f, Reading& reading) : f_(f), reading_(reading) {}

  bool blocks() {
    std::vector<std::size_t> leaders{0};
    for (const auto& [label, at] : f_.labels) leaders.push_back(at);
    for (std::size_t i = 0; i < f_.instructions.size(); ++i)
      if (ends_block(f_.instructions[i])) leaders.push_back(i + 1);
    std::erase_if(leaders, [&](std::size_t at) { return at >= f_.instructions.size(); });
    std::sort(leaders.begin(), leaders.end());
    leaders.erase(std::unique(leaders.begin(), leaders.end()), leaders.end());
    begins_ = leaders;
    auto block_at = [&](std::size_t at) {
      return static_cast<std::size_t>(std::upper_bound(begins_.begin(), begins_.end(), at) - begins_.begin()) - 1;
    };
    for (std::size_t b = 0; b < begins_.size(); ++b) {
      const Instruction& last = f_.instructions[end(b) - 1];
      const std::string& op = last.opcode.front();
      const bool has_next = b + 1 < begins_.size();
      if (op == "bra") {
        const auto target = f_.labels.find(last.operands.empty() ? "" : last.operands[0]);
        if (target == f_.labels.end() || target->second >= f_.instructions.size()) {
          reading_.not_followed(last, "a branch to a place the reading does not know");
          return false;
        }
        edges_.push_back({b, block_at(target->second), last.guard, !last.guard_negated});
        if (!last.guard.empty() && has_next) edges_.push_back({b, b + 1, last.guard, last.guard_negated});
      } else if (op == "brx") {
        reading_.not_followed(last, "an indirect branch");
        return false;
      } else if (ends_block(last)) {
        if (!last.guard.empty() && has_next) edges_.push_back({b, b + 1, last.guard, last.guard_negated});
      } else if (has_next) {
        edges_.push_back({b, b + 1, "", true});
      }
    }
    return true;
  }

  // Passes until the blocks' entry states no longer change; false when they did not settle.
  bool settle() {
    in_.assign(begins_.size(), std::nullopt);
    out_.assign(begins_.size(), std::nullopt);
    reading_.recording = false;
    for (std::size_t pass = 0; pass < 8 * begins_.size() + 16; ++pass) {
      bool changed = false;
      for (std::size_t b = 0; b < begins_.size(); ++b) {
        std::optional<State> s = b == 0 ? std::optional<State>(State{}) : entry(b);
        if (!s) continue;
        if (!in_[b] || !(*in_[b] == *s)) changed = true;
        in_[b] = *s;
        out_[b] = run(b, *s);
      }
      if (!changed) return true;
    }
    return false;
  }

  void record() {
    reading_.recording = true;
    for (std::size_t b = 0; b < begins_.size(); ++b)
      if (in_[b]) run(b, *in_[b]);
  }

 private:
  [[nodiscard]] std::size_t end(std::size_t b) const {
    return b + 1 < begins_.size() ? begins_[b + 1] : f_.instructions.size();
  }

  State run(std::size_t b, State s) {
    for (std::size_t i = begins_[b]; i < end(b); ++i)
      if (!ends_block(f_.instructions[i])) step(s, f_.instructions[i], f_, reading_);
    return s;
  }

  std::optional<State> along(const Edge& e) const {
    if (!out_[e.from]) return std::nullopt;
    State s = *out_[e.from];
    if (!e.guard.empty())
      if (auto p = s.predicates.find(e.guard); p != s.predicates.end()) {
        const Fact fact = e.when_true ? p->second : p->second.negated();
        if (std::find(s.facts.begin(), s.facts.end(), fact) == s.facts.end()) s.facts.push_back(fact);
      }
    return s;
  }

  std::optional<State> entry(std::size_t b) {
    std::vector<State> forward, back;
    for (const Edge& e : edges_)
      if (e.to == b)
        if (auto s = along(e)) (e.from < b ? forward : back).push_back(std::move(*s));
    if (forward.empty()) return back.empty() ? std::nullopt : std::optional<State>(meet(back));
    State head = meet(forward);
    if (back.empty()) return head;
    const State entered = head;
    const State looped = meet(back);
    const Polynomial count = Polynomial::of(Symbol{.kind = SymbolKind::Iteration, .index = static_cast<std::uint16_t>(b)});
    auto& steps = steps_[b];
    for (auto at = head.registers.begin(); at != head.registers.end();) {
      const auto again = looped.registers.find(at->first);
      std::optional<Polynomial>* step = steps.contains(at->first) ? &steps[at->first] : nullptr;
      Value& v = at->second;
      if (again == looped.registers.end() || (step && !*step)) {
        at = head.registers.erase(at);
        continue;
      }
      if (!step && again->second.polynomial == v.polynomial) {
        v.checks = merged(v.checks, again->second.checks);
        ++at;
        continue;
      }
      // A step each pass: the first time the register changes, its step; after that, the step must be the same.
      if (!step) {
        const Polynomial d = again->second.polynomial - v.polynomial;
        steps[at->first] = exact(d) ? std::optional<Polynomial>(d) : std::nullopt;
        step = &steps[at->first];
      }
      const std::optional<Polynomial> passes = *step ? count.times(**step) : std::nullopt;
      const Polynomial widened = passes ? v.polynomial + *passes : Polynomial{};
      if (!passes || (!(again->second.polynomial == widened + **step) &&
                      !(again->second.polynomial == v.polynomial + **step))) {
        *step = std::nullopt;
        at = head.registers.erase(at);
        continue;
      }
      v = Value{widened, merged(v.checks, again->second.checks)};
      ++at;
    }
    head.facts = common_facts({&entered, &looped});
    std::erase_if(head.predicates, [&](const auto& p) {
      const auto other = looped.predicates.find(p.first);
      return other == looped.predicates.end() || !(other->second == p.second);
    });
    return head;
  }

  const PtxFunction& f_;
  Reading& reading_;
  std::vector<std::size_t> begins_;
  std::vector<Edge> edges_;
  std::vector<std::optional<State>> in_, out_;
  std::map<std::size_t, std::map<std::string, std::optional<Polynomial>>> steps_;  // per loop header
};

}  // namespace

KernelFootprint read_kernel(const PtxFunction& function) {
  Reading reading;
  if (function.instructions.empty()) return reading.footprint;
  Flow flow(function, reading);
  if (!flow.blocks()) return reading.footprint;
  if (!flow.settle()) {
    reading.footprint = KernelFootprint{};
    reading.footprint.why_not = "its loops did not settle";
    return reading.footprint;
  }
  reading.footprint.complete = true;  // what the passes on the way said is said again by the last one
  reading.footprint.why_not.clear();
  flow.record();
  return reading.footprint;
}

}  // namespace hazardlab::check::ptx
