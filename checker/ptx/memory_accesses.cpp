// The instructions that touch memory, and which of their accesses are global memory's: explicit `.global`, or a
// generic address made from a pointer parameter. Shared, local, constant and parameter space are the kernel's own
// (no other work reaches them). Anything that reaches memory in a way the reading does not follow (a texture, a
// surface, a bulk or tensor copy, an address it cannot trace) makes the footprint incomplete.
#include <algorithm>
#include <charconv>

#include "checker/ptx/reading_state.hpp"

namespace hazardlab::check::ptx {
namespace {

bool private_space(const Instruction& in) {
  return in.has("shared") || in.has("local") || in.has("const") || in.has("param");
}

// The bytes one access moves: the type's size times a vector's width.
std::uint32_t access_bytes(const Instruction& in) {
  std::uint32_t width = 1;
  for (const char* v : {"v2", "v4", "v8"})
    if (in.has(v)) width = static_cast<std::uint32_t>(v[1] - '0');
  const std::string& type = in.opcode.back();
  if (type.size() < 2) return 0;
  unsigned bits = 0;
  if (std::from_chars(type.data() + 1, type.data() + type.size(), bits).ec != std::errc{}) return 0;
  return width * std::max(1u, bits / 8);
}

// `[%rd1+-4]`: the register's value plus the offset; none when it is not a register the reading follows.
std::optional<Value> address_value(const State& state, const std::string& operand) {
  if (operand.size() < 3 || operand.front() != '[' || operand.back() != ']') return std::nullopt;
  const std::string inner = operand.substr(1, operand.size() - 2);
  const std::size_t plus = inner.find('+');
  std::optional<Value> base = operand_value(state, inner.substr(0, plus));
  if (!base || plus == std::string::npos) return base;
  std::int64_t offset = 0;
  const char* b = inner.data() + plus + 1;
  if (std::from_chars(b, inner.data() + inner.size(), offset).ec != std::errc{}) return std::nullopt;
  base->polynomial = base->polynomial + Polynomial::constant(offset);
  return base;
}

// Whether an address is made from a pointer parameter: a term that is one 8-byte word of a parameter.
bool from_a_parameter(const Polynomial& address) {
  return std::any_of(address.terms().begin(), address.terms().end(), [](const auto& term) {
    return term.first.size() == 1 && term.first[0].kind == SymbolKind::Parameter && term.first[0].bytes == 8;
  });
}

bool has_term(const Polynomial& address, SymbolKind kind) {
  return std::any_of(address.terms().begin(), address.terms().end(), [&](const auto& term) {
    return std::any_of(term.first.begin(), term.first.end(), [&](const Symbol& s) { return s.kind == kind; });
  });
}

void record(State& state, const Instruction& in, const std::string& address, DeviceAccessKind kind,
            std::uint32_t bytes, Reading& reading) {
  const std::optional<Value> value = address_value(state, address);
  // The kernel's own space made generic, and the module's variables: not the program's allocations.
  if (value && has_term(value->polynomial, SymbolKind::Private)) return;
  if (value && has_term(value->polynomial, SymbolKind::Variable) && !from_a_parameter(value->polynomial)) return;
  if (!value || !from_a_parameter(value->polynomial) || bytes == 0) {
    reading.not_followed(in, "an address the reading cannot trace to a pointer parameter");
    return;
  }
  if (!reading.recording) return;
  std::optional<Fact> guard;
  if (!in.guard.empty())
    if (auto at = state.predicates.find(in.guard); at != state.predicates.end())
      guard = in.guard_negated ? at->second.negated() : at->second;
  reading.footprint.accesses.push_back(
      MemoryAccess{value->polynomial, bytes, kind, value->checks,
                   conditions_of(state, reading, guard ? &*guard : nullptr)});
}

}  // namespace

bool memory(State& state, const Instruction& in, const PtxFunction&, Reading& reading) {
  const std::string& op = in.opcode.front();
  const bool reaches = std::any_of(in.operands.begin(), in.operands.end(),
                                   [](const std::string& o) { return o.front() == '['; });
  if (op == "prefetch" || op == "prefetchu" || op == "applypriority" || op == "createpolicy") return true;
  if (op == "cp" && in.has("async") && !in.has("bulk") && in.operands.size() >= 3) {
    // cp.async.ca.shared.global [shared], [global], bytes: a read of global memory.
    std::uint32_t bytes = 0;
    const std::string& size = in.operands[2];
    if (std::from_chars(size.data(), size.data() + size.size(), bytes).ec != std::errc{}) bytes = 0;
    record(state, in, in.operands[1], DeviceAccessKind::Read, bytes, reading);
    return true;
  }
  if (op == "cp" && in.has("async") && !reaches) return true;  // commit_group, wait_group, wait_all
  if (op == "ld" || op == "ldu") {
    if (!private_space(in)) record(state, in, in.operands.size() > 1 ? in.operands[1] : "", DeviceAccessKind::Read,
                                   access_bytes(in), reading);
    for (const std::string& reg : destinations(in)) define(state, reg, std::nullopt);
    return true;
  }
  if (op == "st") {
    if (!private_space(in)) record(state, in, in.operands.empty() ? "" : in.operands[0], DeviceAccessKind::Write,
                                   access_bytes(in), reading);
    return true;
  }
  if (op == "atom" || op == "red") {
    const std::size_t at = op == "atom" ? 1 : 0;
    if (!private_space(in) && in.operands.size() > at)
      record(state, in, in.operands[at], DeviceAccessKind::Write, access_bytes(in), reading);
    if (op == "atom" && !in.operands.empty()) define(state, in.operands[0], std::nullopt);
    return true;
  }
  if (reaches && private_space(in) && !in.has("global")) {  // mbarrier, ldmatrix, ... on shared memory
    for (const std::string& reg : destinations(in)) define(state, reg, std::nullopt);
    return true;
  }
  if (reaches || op == "tex" || op == "tld4" || op == "suld" || op == "sust" || op == "sured" || op == "txq") {
    reading.not_followed(in, "an instruction that reaches memory the reading does not follow");
    if (!in.operands.empty() && in.operands[0].front() == '%') define(state, in.operands[0], std::nullopt);
    return true;
  }
  return false;
}

}  // namespace hazardlab::check::ptx
