// What one instruction does to the reading's state (reading_state.hpp). Integer arithmetic the addresses are made
// of is followed as polynomials, each result checked to lie in its type's range; the launch's special registers
// and the parameters' words are symbols; anything else a register is given is a value the reading does not know.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>

#include "checker/ptx/reading_state.hpp"

namespace hazardlab::check::ptx {
namespace {

std::optional<Value> with_check(Reading& reading, const State& state, Polynomial p, std::vector<std::size_t> checks,
                                const std::string& type) {
  const auto range = type_range(type);
  if (!range) return std::nullopt;
  checks.push_back(reading.check(p, range->first, range->second, &state));
  std::sort(checks.begin(), checks.end());
  checks.erase(std::unique(checks.begin(), checks.end()), checks.end());
  return Value{std::move(p), std::move(checks)};
}

std::vector<std::size_t> merged(const Value& a, const Value& b) {
  std::vector<std::size_t> out = a.checks;
  out.insert(out.end(), b.checks.begin(), b.checks.end());
  return out;
}

// The type part of an opcode: its last part ("add.s32" -> "s32"; "mul.wide.u32" -> "u32").
const std::string& type_of(const Instruction& in) { return in.opcode.back(); }

std::optional<Symbol> special_register(std::string_view name) {
  static constexpr std::pair<std::string_view, SymbolKind> kinds[] = {
      {"%tid.", SymbolKind::Thread}, {"%ntid.", SymbolKind::BlockDim}, {"%ctaid.", SymbolKind::Block},
      {"%nctaid.", SymbolKind::GridDim}};
  for (const auto& [prefix, kind] : kinds) {
    if (name.size() != prefix.size() + 1 || !name.starts_with(prefix)) continue;
    const char axis = name.back();
    if (axis < 'x' || axis > 'z') return std::nullopt;
    return Symbol{.kind = kind, .axis = static_cast<std::uint8_t>(axis - 'x')};
  }
  return std::nullopt;
}

// `[NAME+8]` of a parameter: its word, as type `type` reads it.
std::optional<Value> parameter_word(const std::string& address, const std::string& type, const PtxFunction& f,
                                    std::size_t word) {
  if (address.size() < 3 || address.front() != '[' || address.back() != ']') return std::nullopt;
  const std::string inner = address.substr(1, address.size() - 2);
  const std::size_t plus = inner.find('+');
  const std::string name = inner.substr(0, plus);
  std::uint32_t offset = 0;
  if (plus != std::string::npos) {
    const char* b = inner.data() + plus + 1;
    if (std::from_chars(b, inner.data() + inner.size(), offset).ec != std::errc{}) return std::nullopt;
  }
  const auto at = std::find(f.parameters.begin(), f.parameters.end(), name);
  const auto range = type_range(type);
  if (at == f.parameters.end() || !range) return std::nullopt;
  const int bits = std::stoi(type.substr(1));
  const auto bytes = static_cast<std::uint8_t>(bits / 8);
  return Value{Polynomial::of(Symbol{.kind = SymbolKind::Parameter,
                                     .index = static_cast<std::uint16_t>(at - f.parameters.begin()),
                                     .offset = static_cast<std::uint16_t>(offset + word * bytes),
                                     .bytes = bytes,
                                     .is_signed = type.front() == 's'}),
               {}};
}

void forget_destinations(State& state, const Instruction& in) {
  for (const std::string& reg : destinations(in)) define(state, reg, std::nullopt);
}

std::optional<Comparison> comparison_of(std::string_view part) {
  if (part == "lt" || part == "lo") return Comparison::Less;
  if (part == "le" || part == "ls") return Comparison::LessEqual;
  if (part == "gt" || part == "hi") return Comparison::Greater;
  if (part == "ge" || part == "hs") return Comparison::GreaterEqual;
  if (part == "eq") return Comparison::Equal;
  if (part == "ne") return Comparison::NotEqual;
  return std::nullopt;
}

// Integer arithmetic the reading follows; false when the instruction is not one of them.
bool arithmetic(State& state, const Instruction& in, Reading& reading) {
  const std::string& op = in.opcode.front();
  const std::string& type = type_of(in);
  if (in.operands.size() < 2 || in.has("cc") || in.has("sat") || in.has("hi") || !type_range(type)) return false;
  std::vector<std::optional<Value>> v;
  for (std::size_t i = 1; i < in.operands.size(); ++i) v.push_back(operand_value(state, in.operands[i]));
  const bool known = std::all_of(v.begin(), v.end(), [](const auto& x) { return x.has_value(); });
  std::optional<Value> result;
  const bool wide = in.has("wide");
  const std::string result_type = wide ? std::string(1, type.front()) + std::to_string(std::stoi(type.substr(1)) * 2)
                                       : type;
  if (known && (op == "add" || op == "sub") && v.size() == 2)
    result = with_check(reading, state, op == "add" ? v[0]->polynomial + v[1]->polynomial
                                                    : v[0]->polynomial - v[1]->polynomial, merged(*v[0], *v[1]), type);
  else if (known && op == "mul" && v.size() == 2 && (in.has("lo") || wide)) {
    auto p = v[0]->polynomial.times(v[1]->polynomial);
    if (p) result = with_check(reading, state, *p, merged(*v[0], *v[1]), result_type);
  } else if (known && op == "mad" && v.size() == 3 && (in.has("lo") || wide)) {
    auto p = v[0]->polynomial.times(v[1]->polynomial);
    if (p) result = with_check(reading, state, *p + v[2]->polynomial, merged(Value{{}, merged(*v[0], *v[1])}, *v[2]),
                               result_type);
  } else if (known && op == "shl" && v.size() == 2 && v[1]->polynomial.as_constant()) {
    const std::int64_t shift = *v[1]->polynomial.as_constant();
    if (shift >= 0 && shift < 62)
      result = with_check(reading, state, v[0]->polynomial.scaled(std::int64_t{1} << shift), v[0]->checks, type);
  } else if (known && op == "neg" && v.size() == 1) {
    result = with_check(reading, state, v[0]->polynomial.scaled(-1), v[0]->checks, type);
  } else if (op != "add" && op != "sub" && op != "mul" && op != "mad" && op != "shl" && op != "neg") {
    return false;
  }
  // Each operand, read as the type, must be in its range too (a wide multiply of a value above 2^31 as s32 wraps).
  if (result)
    for (const auto& x : v)
      if (auto operand = with_check(reading, state, x->polynomial, x->checks, type))
        result = Value{result->polynomial, merged(*result, *operand)};
  if (result) {
    std::sort(result->checks.begin(), result->checks.end());
    result->checks.erase(std::unique(result->checks.begin(), result->checks.end()), result->checks.end());
  }
  define(state, in.operands[0], result);
  return true;
}

}  // namespace

void step(State& state, const Instruction& in, const PtxFunction& f, Reading& reading) {
  const std::string& op = in.opcode.front();
  if (!in.guard.empty() && op != "ld" && op != "st" && op != "atom" && op != "red") {
    forget_destinations(state, in);  // a guarded result is the old value or the new one
    return;
  }
  if (op == "mov" && in.operands.size() == 2) {
    const std::string& source = in.operands[1];
    std::optional<Value> v = operand_value(state, source);
    if (auto s = special_register(source)) v = Value{Polynomial::of(*s), {}};
    if (!v && !source.empty() && (std::isalpha(static_cast<unsigned char>(source.front())) || source.front() == '_' ||
                                  source.front() == '$'))
      v = Value{Polynomial::of(reading.variable(source)), {}};  // a variable's address: `mov.u64 %rd1, table;`
    define(state, in.operands[0], v);
  } else if (op == "cvta" && in.has("global") && in.operands.size() == 2) {
    define(state, in.operands[0], operand_value(state, in.operands[1]));  // a global address is its generic one
  } else if (op == "cvta" && in.operands.size() == 2) {
    define(state, in.operands[0], Value{Polynomial::of(Symbol{.kind = SymbolKind::Private}), {}});
  } else if (op == "cvt" && in.opcode.size() == 3 && type_range(in.opcode[1]) && type_range(in.opcode[2])) {
    std::optional<Value> v = operand_value(state, in.operands[1]);
    if (v) v = with_check(reading, state, v->polynomial, v->checks, in.opcode[2]);  // the source read as its type
    if (v) v = with_check(reading, state, v->polynomial, v->checks, in.opcode[1]);  // and fits the destination's
    define(state, in.operands[0], v);
  } else if (op == "setp" && in.opcode.size() == 3 && in.operands.size() == 3 && type_range(in.opcode[2]) &&
             comparison_of(in.opcode[1]) && in.operands[0].find('|') == std::string::npos) {
    define(state, in.operands[0], std::nullopt);
    state.predicates[in.operands[0]] = Fact{in.operands[1], in.operands[2], *comparison_of(in.opcode[1]), in.opcode[2]};
  } else if (op == "ld" && in.has("param") && in.operands.size() == 2) {
    const std::vector<std::string> regs = destinations(in);
    for (std::size_t word = 0; word < regs.size(); ++word)
      define(state, regs[word], parameter_word(in.operands[1], type_of(in), f, word));
  } else if (op == "call") {
    reading.not_followed(in, "a call (what the callee touches is not read)");
    forget_destinations(state, in);
  } else if (!arithmetic(state, in, reading) && !memory(state, in, f, reading)) {
    forget_destinations(state, in);
  }
}

}  // namespace hazardlab::check::ptx
