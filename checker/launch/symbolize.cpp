#include "checker/launch/symbolize.hpp"

#include <elf.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace hazardlab::check {

namespace {

// addr2line wants the address the module's own tables use: the offset for a position-independent module,
// the offset plus the load address of its first segment for a fixed-address executable.
std::uint64_t link_time_base(const std::string& module) {
  std::ifstream in(module, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header) || header.e_type != ET_EXEC) return 0;
  std::uint64_t lowest = ~0ull;
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(header.e_phoff + static_cast<std::uint64_t>(i) * header.e_phentsize));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) break;
    if (ph.p_type == PT_LOAD && ph.p_vaddr < lowest) lowest = ph.p_vaddr;
  }
  return lowest == ~0ull ? 0 : lowest & ~0xfffull;
}

bool have_addr2line() { return std::system("command -v addr2line >/dev/null 2>&1") == 0; }

// One frame as addr2line names it: the function and file:line, innermost inlined function first.
using Names = std::vector<std::pair<std::string, std::string>>;

// Runs addr2line on one module's addresses (with -a, so each address's answer starts with the address, and
// -i, so inlined functions come out as frames of their own).
std::vector<Names> addr2line(const std::string& module, const std::vector<std::uint64_t>& addresses) {
  std::ostringstream command;
  command << "addr2line -a -i -C -f -e '" << module << "'";
  for (std::uint64_t a : addresses) command << " 0x" << std::hex << a;
  command << " 2>/dev/null";
  std::vector<Names> out;
  FILE* pipe = ::popen(command.str().c_str(), "r");
  if (pipe == nullptr) return out;
  char line[8192];
  std::vector<std::string> lines;
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    std::string text(line);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    lines.push_back(text);
  }
  ::pclose(pipe);
  for (std::size_t i = 0; i < lines.size();) {
    if (!lines[i].starts_with("0x")) {
      ++i;
      continue;
    }
    Names names;
    for (++i; i < lines.size() && !lines[i].starts_with("0x"); i += 2) {
      const std::string function = lines[i] == "??" ? "" : lines[i];
      const std::string location = i + 1 < lines.size() && !lines[i + 1].starts_with("??") ? lines[i + 1] : "";
      names.emplace_back(function, location);
    }
    out.push_back(names);
  }
  return out;
}

}  // namespace

bool symbolize(std::vector<ProcessLog>& processes) {
  if (!have_addr2line()) return false;
  std::map<std::string, std::set<std::uint64_t>> wanted;
  for (ProcessLog& p : processes)
    for (LoggedFinding& lf : p.findings)
      for (const auto* stack : {&lf.copy_stack, &lf.access_stack})
        for (const Frame& f : *stack)
          if (f.module != "?" && f.module.find('\'') == std::string::npos) wanted[f.module].insert(f.offset);
  std::map<std::pair<std::string, std::uint64_t>, Names> names;
  for (const auto& [module, offsets] : wanted) {
    const std::uint64_t base = link_time_base(module);
    std::vector<std::uint64_t> addresses;
    for (std::uint64_t o : offsets) addresses.push_back(o + base);
    const std::vector<Names> found = addr2line(module, addresses);
    std::size_t i = 0;
    for (std::uint64_t o : offsets) {
      if (i < found.size()) names[{module, o}] = found[i];
      ++i;
    }
  }
  // Each frame becomes its inlined functions, innermost first, then the function they were inlined into.
  auto expand = [&](std::vector<Frame>& stack) {
    std::vector<Frame> expanded;
    for (const Frame& f : stack) {
      const auto it = names.find({f.module, f.offset});
      if (it == names.end() || it->second.empty()) {
        expanded.push_back(f);
        continue;
      }
      for (const auto& [function, location] : it->second) expanded.push_back(Frame{f.module, f.offset, function, location});
    }
    stack = std::move(expanded);
  };
  for (ProcessLog& p : processes)
    for (LoggedFinding& f : p.findings) {
      expand(f.copy_stack);
      expand(f.access_stack);
    }
  return true;
}

}  // namespace hazardlab::check
