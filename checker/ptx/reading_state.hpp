// The reading's state at a point of a kernel (kernel_reading.cpp) and what one instruction does to it
// (instruction_values.cpp): each register's value, the comparisons that hold, what each predicate compared.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/ptx/kernel_reading.hpp"

namespace hazardlab::check::ptx {

struct Value {
  Polynomial polynomial;
  std::vector<std::size_t> checks;  // sorted: the range checks the polynomial relies on
  bool operator==(const Value&) const = default;
};

enum class Comparison : std::uint8_t { Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual };

// `lhs CMP rhs`, compared as an integer type; operands as written (registers or immediates).
struct Fact {
  std::string lhs, rhs;
  Comparison comparison = Comparison::Less;
  std::string type;  // "s32", "u64", ...
  bool operator==(const Fact&) const = default;
  [[nodiscard]] Fact negated() const;
  [[nodiscard]] bool mentions(const std::string& reg) const { return lhs == reg || rhs == reg; }
};

struct State {
  std::map<std::string, Value> registers;  // a register not here has a value the reading does not know
  std::vector<Fact> facts;
  std::map<std::string, Fact> predicates;  // what a predicate register holds, while its operands are unchanged
  bool operator==(const State&) const = default;
};

// Where the instructions' findings go: checks, accesses, and whether everything was followed.
struct Reading {
  Reading() { footprint.complete = true; }
  KernelFootprint footprint;
  bool recording = true;  // off while loops are being followed to their fixed point
  void not_followed(const Instruction& in, const char* why);
  // The symbol of a module variable's address (the same one for each mention of the name).
  Symbol variable(const std::string& name);
  // The check that `value` lies in [min, max] at `place` (its conditions; none: with no condition), its index.
  std::size_t check(const Polynomial& value, Wide min, Wide max, const State* place);
};

// The range of an integer type ("s32", "u64", "b16", ...); none for a type that is not an integer.
std::optional<std::pair<Wide, Wide>> type_range(const std::string& type);
// An operand's value in a state: a register's, an immediate's; none when not known.
std::optional<Value> operand_value(const State& state, const std::string& operand);
// The conditions the state's facts (and one more fact, if given) give, in polynomials of the state's values.
std::vector<Condition> conditions_of(const State& state, Reading& reading, const Fact* also = nullptr);
// The registers an instruction writes: its first operand, each of a vector's, both of `%p|%q`.
std::vector<std::string> destinations(const Instruction& in);
// A register written: its value (none: unknown), and every fact and predicate about its old value dropped.
void define(State& state, const std::string& reg, std::optional<Value> value);
// A load, store, atomic or asynchronous copy: its access recorded (memory_accesses.cpp); false when the
// instruction touches no memory.
bool memory(State& state, const Instruction& in, const PtxFunction& function, Reading& reading);
// One instruction that is not a branch: its effect on the state, its accesses recorded.
void step(State& state, const Instruction& in, const PtxFunction& function, Reading& reading);

}  // namespace hazardlab::check::ptx
