#include "rule_programs.hpp"

#include <stdexcept>

namespace hazardlab::conformance::testing {

std::vector<RuleProgram> all_rule_programs() {
  std::vector<RuleProgram> all = stream_rule_programs();
  for (RuleProgram& p : copy_rule_programs()) all.push_back(std::move(p));
  return all;
}

RuleProgram rule_program(std::string_view name) {
  for (RuleProgram& p : all_rule_programs())
    if (p.name == name) return std::move(p);
  throw std::out_of_range("no rule program named " + std::string(name));
}

}  // namespace hazardlab::conformance::testing
