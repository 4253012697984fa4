#include "checker/ptx/reading_state.hpp"

#include <algorithm>
#include <charconv>

namespace hazardlab::check::ptx {

Fact Fact::negated() const {
  Fact f = *this;
  switch (comparison) {
    case Comparison::Less: f.comparison = Comparison::GreaterEqual; break;
    case Comparison::LessEqual: f.comparison = Comparison::Greater; break;
    case Comparison::Greater: f.comparison = Comparison::LessEqual; break;
    case Comparison::GreaterEqual: f.comparison = Comparison::Less; break;
    case Comparison::Equal: f.comparison = Comparison::NotEqual; break;
    case Comparison::NotEqual: f.comparison = Comparison::Equal; break;
  }
  return f;
}

void Reading::not_followed(const Instruction& in, const char* why) {
  if (!footprint.complete) return;
  footprint.complete = false;
  std::string text;
  for (std::size_t i = 0; i < in.opcode.size(); ++i) text += (i ? "." : "") + in.opcode[i];
  for (std::size_t i = 0; i < in.operands.size(); ++i) text += (i ? ", " : " ") + in.operands[i];
  footprint.why_not = std::string(why) + ": " + text;
}

Symbol Reading::variable(const std::string& name) {
  auto& names = footprint.module_variables;
  const auto at = std::find(names.begin(), names.end(), name);
  const std::size_t index = static_cast<std::size_t>(at - names.begin());
  if (at == names.end()) names.push_back(name);
  return Symbol{.kind = SymbolKind::Variable, .index = static_cast<std::uint16_t>(index)};
}

std::size_t Reading::check(const Polynomial& value, Wide min, Wide max, const State* place) {
  auto& checks = footprint.checks;
  std::size_t index = 0;
  while (index < checks.size() &&
         !(checks[index].min == min && checks[index].max == max && checks[index].value == value))
    ++index;
  if (index == checks.size()) checks.push_back(RangeCheck{value, min, max, {}});
  // Only the last pass over the kernel, at its fixed point, says where each value is made.
  if (recording) {
    std::vector<Condition> conditions = place ? conditions_of(*place, *this) : std::vector<Condition>{};
    auto& places = checks[index].places;
    if (std::find(places.begin(), places.end(), conditions) == places.end()) places.push_back(std::move(conditions));
  }
  return index;
}

std::optional<std::pair<Wide, Wide>> type_range(const std::string& type) {
  if (type.size() < 2 || (type[0] != 's' && type[0] != 'u' && type[0] != 'b')) return std::nullopt;
  unsigned bits = 0;
  if (std::from_chars(type.data() + 1, type.data() + type.size(), bits).ec != std::errc{}) return std::nullopt;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return std::nullopt;
  const Wide half = static_cast<Wide>(1) << (bits - 1), full = static_cast<Wide>(1) << bits;
  if (type[0] == 's') return std::pair{-half, half - 1};
  if (type[0] == 'u') return std::pair{static_cast<Wide>(0), full - 1};
  return std::pair{-half, full - 1};  // bits: either reading of them
}

std::optional<Value> operand_value(const State& state, const std::string& operand) {
  if (operand.empty()) return std::nullopt;
  if (operand.front() == '%') {
    const auto at = state.registers.find(operand);
    if (at == state.registers.end()) return std::nullopt;
    return at->second;
  }
  std::int64_t value = 0;
  const char* begin = operand.data();
  const char* end = operand.data() + operand.size();
  int base = 10;
  bool negative = false;
  if (*begin == '-') {
    negative = true;
    ++begin;
  }
  if (end - begin > 2 && begin[0] == '0' && (begin[1] == 'x' || begin[1] == 'X')) {
    begin += 2;
    base = 16;
  }
  if (end > begin && (end[-1] == 'U' || end[-1] == 'u')) --end;  // 0x10U
  const auto [at, ec] = std::from_chars(begin, end, value, base);
  if (ec != std::errc{} || at != end) return std::nullopt;
  return Value{Polynomial::constant(negative ? -value : value), {}};
}

std::vector<Condition> conditions_of(const State& state, Reading& reading, const Fact* also) {
  std::vector<Condition> out;
  auto add = [&](const Fact& fact) {
    const auto lhs = operand_value(state, fact.lhs), rhs = operand_value(state, fact.rhs);
    const auto range = type_range(fact.type);
    if (!lhs || !rhs || !range) return;
    // The comparison is of the values as the type reads them: usable where both lie in its range. The checks of
    // a condition's operands carry no condition of their own; a side their own checks already bound (a loop's
    // count has no bound of its own above, but its sum was checked where it was made) is not checked again.
    std::vector<std::size_t> checks = lhs->checks;
    checks.insert(checks.end(), rhs->checks.begin(), rhs->checks.end());
    for (const Value* v : {&*lhs, &*rhs}) {
      Wide min = range->first, max = range->second;
      for (std::size_t c : v->checks) {
        if (reading.footprint.checks[c].value != v->polynomial) continue;
        if (reading.footprint.checks[c].min >= min) min = -Interval::kInfinity;
        if (reading.footprint.checks[c].max <= max) max = Interval::kInfinity;
      }
      checks.push_back(reading.check(v->polynomial, min, max, nullptr));
    }
    const Polynomial difference = lhs->polynomial - rhs->polynomial;
    const Polynomial one = Polynomial::constant(1);
    switch (fact.comparison) {
      case Comparison::Less: out.push_back({difference + one, checks}); break;
      case Comparison::LessEqual: out.push_back({difference, checks}); break;
      case Comparison::Greater: out.push_back({one - difference, checks}); break;
      case Comparison::GreaterEqual: out.push_back({difference.scaled(-1), checks}); break;
      case Comparison::Equal:
        out.push_back({difference, checks});
        out.push_back({difference.scaled(-1), checks});
        break;
      case Comparison::NotEqual: break;
    }
  };
  for (const Fact& fact : state.facts) add(fact);
  if (also) add(*also);
  return out;
}

std::vector<std::string> destinations(const Instruction& in) {
  if (in.operands.empty()) return {};
  const std::string& first = in.operands.front();
  std::vector<std::string> out;
  if (first.front() != '{' && first.front() != '%') return out;
  const std::string inner = first.front() == '{' ? first.substr(1, first.size() - 2) : first;
  for (std::size_t begin = 0; begin <= inner.size();) {
    const std::size_t cut = std::min(inner.find_first_of(",|", begin), inner.size());
    std::string reg = inner.substr(begin, cut - begin);
    std::erase_if(reg, [](char c) { return c == ' ' || c == '\t'; });
    if (!reg.empty()) out.push_back(reg);
    begin = cut + 1;
  }
  return out;
}

void define(State& state, const std::string& reg, std::optional<Value> value) {
  std::erase_if(state.facts, [&](const Fact& f) { return f.mentions(reg); });
  std::erase_if(state.predicates, [&](const auto& p) { return p.first == reg || p.second.mentions(reg); });
  if (value) state.registers[reg] = std::move(*value);
  else state.registers.erase(reg);
}

}  // namespace hazardlab::check::ptx
