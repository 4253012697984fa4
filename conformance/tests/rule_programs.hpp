// Hand-written programs, each showing one rule: either the read is ordered (exactly one allowed write)
// or it races (two or more). The tests check the expected answers, and that switching the rule off
// changes the answer of at least one of its programs (the mutant test).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/model/observed_writes.hpp"
#include "conformance/model/program.hpp"
#include "conformance/model/rules.hpp"

namespace hazardlab::conformance::testing {

struct RuleProgram {
  std::string name;  // also the test's name
  Rule rule;         // the rule the program shows
  Program program;
  CommandIndex reader;         // the command whose read is checked
  BufferId buffer;             // the buffer it reads
  std::set<WriteId> expected;  // the writes the read may observe with every rule on
};

// Built by rule_programs_streams.cpp (rules 1-4, 9) and rule_programs_copies.cpp (rules 5-8, 10).
std::vector<RuleProgram> stream_rule_programs();
std::vector<RuleProgram> copy_rule_programs();

std::vector<RuleProgram> all_rule_programs();
// Throws std::out_of_range for an unknown name.
RuleProgram rule_program(std::string_view name);

}  // namespace hazardlab::conformance::testing
