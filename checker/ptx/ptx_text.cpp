#include "checker/ptx/ptx_text.hpp"

#include <algorithm>
#include <cctype>

namespace hazardlab::check::ptx {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }

// Where `.entry NAME` starts in the text (NAME whole), or npos.
std::size_t find_entry(std::string_view ptx, std::string_view name) {
  for (std::size_t at = ptx.find(".entry"); at != std::string_view::npos; at = ptx.find(".entry", at + 6)) {
    std::size_t begin = at + 6;
    while (begin < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[begin]))) ++begin;
    std::size_t end = begin;
    while (end < ptx.size() && identifier_char(ptx[end])) ++end;
    if (ptx.substr(begin, end - begin) == name) return at;
  }
  return std::string_view::npos;
}

// The text without comments (`//` to the end of the line, `/* */`), lines kept.
std::string without_comments(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
      if (i < text.size()) out += '\n';
    } else if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Operands split at the commas outside braces and brackets.
std::vector<std::string> split_operands(std::string_view text) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '{' || c == '[' || c == '(') ++depth;
    if (c == '}' || c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      const std::string_view operand = trim(text.substr(start, i - start));
      if (!operand.empty()) out.emplace_back(operand);
      start = i + 1;
    }
  }
  return out;
}

std::optional<Instruction> read_instruction(std::string_view statement) {
  Instruction in;
  statement = trim(statement);
  if (!statement.empty() && statement.front() == '@') {
    const std::size_t space = statement.find_first_of(" \t");
    if (space == std::string_view::npos) return std::nullopt;
    std::string_view guard = statement.substr(1, space - 1);
    if (!guard.empty() && guard.front() == '!') {
      in.guard_negated = true;
      guard.remove_prefix(1);
    }
    in.guard = guard;
    statement = trim(statement.substr(space));
  }
  const std::size_t space = statement.find_first_of(" \t");
  const std::string_view opcode = statement.substr(0, space);
  for (std::size_t begin = 0; begin <= opcode.size();) {
    const std::size_t dot = std::min(opcode.find('.', begin), opcode.size());
    if (dot > begin) in.opcode.emplace_back(opcode.substr(begin, dot - begin));
    begin = dot + 1;
  }
  if (in.opcode.empty()) return std::nullopt;
  if (space != std::string_view::npos) in.operands = split_operands(statement.substr(space));
  return in;
}

}  // namespace

bool Instruction::has(std::string_view part) const {
  return std::find(opcode.begin() + (opcode.empty() ? 0 : 1), opcode.end(), part) != opcode.end();
}

std::vector<std::string> entry_names(std::string_view ptx) {
  std::vector<std::string> names;
  for (std::size_t at = ptx.find(".entry"); at != std::string_view::npos; at = ptx.find(".entry", at + 6)) {
    std::size_t begin = at + 6;
    while (begin < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[begin]))) ++begin;
    std::size_t end = begin;
    while (end < ptx.size() && identifier_char(ptx[end])) ++end;
    if (end > begin) names.emplace_back(ptx.substr(begin, end - begin));
  }
  return names;
}

std::optional<PtxFunction> read_entry(std::string_view ptx, std::string_view name) {
  const std::size_t at = find_entry(ptx, name);
  if (at == std::string_view::npos) return std::nullopt;
  const std::size_t open = ptx.find('(', at), close = ptx.find(')', at), body = ptx.find('{', at);
  if (open == std::string_view::npos || close == std::string_view::npos || body == std::string_view::npos ||
      !(open < close && close < body))
    return std::nullopt;
  PtxFunction f;
  f.name = name;
  for (const std::string& declaration : split_operands(without_comments(ptx.substr(open + 1, close - open - 1)))) {
    // `.param .u64 NAME` or `.param .align 8 .b8 NAME[16]`: the name is the last word, before any brackets.
    std::string_view words = declaration;
    words = words.substr(0, words.find('['));
    const std::size_t last = words.find_last_of(" \t");
    f.parameters.emplace_back(trim(last == std::string_view::npos ? words : words.substr(last + 1)));
  }
  // The body: to the brace that closes the one at `body` (inner scopes of inline assembly nest).
  int depth = 0;
  std::size_t end = body;
  for (; end < ptx.size(); ++end) {
    if (ptx[end] == '{') ++depth;
    if (ptx[end] == '}' && --depth == 0) break;
  }
  if (end == ptx.size()) return std::nullopt;
  const std::string text = without_comments(ptx.substr(body + 1, end - body - 1));
  std::string pending;
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string::npos) line_end = text.size();
    std::string_view line = trim(std::string_view(text).substr(line_start, line_end - line_start));
    line_start = line_end + 1;
    if (line.empty() || line == "{" || line == "}") continue;
    if (line.front() == '.' && pending.empty()) continue;  // a directive: .reg, .loc, .pragma, .shared, ...
    // A label: `$L__BB0_2:` on its own.
    if (pending.empty() && line.back() == ':' && line.find_first_of(" \t") == std::string_view::npos) {
      f.labels[std::string(line.substr(0, line.size() - 1))] = f.instructions.size();
      continue;
    }
    pending += ' ';
    pending += line;
    for (std::size_t semicolon; (semicolon = pending.find(';')) != std::string::npos;) {
      const std::string statement = pending.substr(0, semicolon);
      pending.erase(0, semicolon + 1);
      if (auto in = read_instruction(statement)) f.instructions.push_back(std::move(*in));
    }
  }
  return f;
}

}  // namespace hazardlab::check::ptx
