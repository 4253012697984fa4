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

// Runs addr2line on one module's addresses: function and location of each, in order.
std::vector<std::pair<std::string, std::string>> addr2line(const std::string& module,
                                                           const std::vector<std::uint64_t>& addresses) {
  std::ostringstream command;
  command << "addr2line -C -f -e '" << module << "'";
  for (std::uint64_t a : addresses) command << " 0x" << std::hex << a;
  command << " 2>/dev/null";
  std::vector<std::pair<std::string, std::string>> out;
  FILE* pipe = ::popen(command.str().c_str(), "r");
  if (pipe == nullptr) return out;
  char line[8192];
  std::string function;
  bool want_function = true;
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    std::string text(line);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    if (want_function) {
      function = text == "??" ? "" : text;
    } else {
      out.emplace_back(function, text.rfind("??", 0) == 0 ? "" : text);
    }
    want_function = !want_function;
  }
  ::pclose(pipe);
  return out;
}

}  // namespace

bool symbolize(std::vector<ProcessLog>& processes) {
  if (!have_addr2line()) return false;
  std::map<std::string, std::set<std::uint64_t>> wanted;
  auto each_frame = [&](auto visit) {
    for (ProcessLog& p : processes)
      for (LoggedFinding& f : p.findings) {
        for (Frame& fr : f.copy_stack) visit(fr);
        for (Frame& fr : f.access_stack) visit(fr);
      }
  };
  each_frame([&](Frame& f) {
    if (f.module != "?" && f.module.find('\'') == std::string::npos) wanted[f.module].insert(f.offset);
  });
  std::map<std::pair<std::string, std::uint64_t>, std::pair<std::string, std::string>> names;
  for (const auto& [module, offsets] : wanted) {
    const std::uint64_t base = link_time_base(module);
    std::vector<std::uint64_t> addresses;
    for (std::uint64_t o : offsets) addresses.push_back(o + base);
    const auto found = addr2line(module, addresses);
    std::size_t i = 0;
    for (std::uint64_t o : offsets) {
      if (i < found.size()) names[{module, o}] = found[i];
      ++i;
    }
  }
  each_frame([&](Frame& f) {
    if (auto it = names.find({f.module, f.offset}); it != names.end()) {
      f.symbol = it->second.first;
      f.location = it->second.second;
    }
  });
  return true;
}

}  // namespace hazardlab::check
