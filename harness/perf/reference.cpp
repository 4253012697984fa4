#include "perf/reference.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "perf/statistics.hpp"
#include "settings/settings.hpp"
#include "hazardlab/environment.hpp"

namespace hazardlab::perf {
namespace {

bool executable(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// Single quotes for the shell; a path with a single quote in it is refused earlier.
std::string quoted(const std::string& text) { return "'" + text + "'"; }

}  // namespace

std::optional<std::filesystem::path> reference_tool_from_environment() {
  const std::optional<std::string> v = environment_value_given(setting::kNvbandwidth.name);
  if (!v) return find_program("nvbandwidth");
  const std::string value = *v;
  if (value == "off") return std::nullopt;
  if (!executable(value) || value.find('\'') != std::string::npos) {
    throw SettingsError(std::string(setting::kNvbandwidth.name) + "='" + value +
                        "': expected the path of an executable nvbandwidth binary (without a single quote), or off");
  }
  return std::filesystem::absolute(value);
}

const std::vector<ReferenceTest>& reference_tests() {
  static const std::vector<ReferenceTest> tests = {
      {"h2d", "host_to_device_memcpy_ce"},
      {"d2h", "device_to_host_memcpy_ce"},
      {"h2d-bidirectional", "host_to_device_bidirectional_memcpy_ce"},
      {"d2h-bidirectional", "device_to_host_bidirectional_memcpy_ce"},
  };
  return tests;
}

std::map<std::string, double> parse_nvbandwidth_json(const std::string& text) {
  const std::size_t brace = text.find('{');  // anything printed before the JSON is skipped
  if (brace == std::string::npos) throw std::runtime_error("nvbandwidth printed no JSON");
  const nlohmann::json j = nlohmann::json::parse(text.substr(brace), nullptr, false);
  if (j.is_discarded() || !j.contains("nvbandwidth")) throw std::runtime_error("nvbandwidth's JSON is malformed");
  const nlohmann::json& root = j["nvbandwidth"];
  if (root.contains("error")) throw std::runtime_error("nvbandwidth: " + root["error"].dump());
  std::map<std::string, double> by_name;
  for (const nlohmann::json& test : root.value("testcases", nlohmann::json::array())) {
    const std::string name = test.value("name", "");
    const std::string status = test.value("status", "");
    if (status != "Passed") throw std::runtime_error("nvbandwidth test " + name + ": status " + status);
    if (!test.contains("sum") || !test["sum"].is_number())
      throw std::runtime_error("nvbandwidth test " + name + ": no sum");
    by_name[name] = test["sum"].get<double>();
  }
  return by_name;
}

ReferenceRun run_reference(const std::filesystem::path& tool, const std::string& uuid, std::size_t bytes) {
  ReferenceRun run;
  std::string command = "CUDA_VISIBLE_DEVICES=" + quoted(uuid) + " " + quoted(tool.string()) + " -j -b " +
                        std::to_string(bytes >> 20) + " -t";
  for (const ReferenceTest& t : reference_tests()) command += " " + t.nvbandwidth;
  run.command = command;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) {
    run.error = "could not start nvbandwidth";
    return run;
  }
  std::string output;
  std::array<char, 4096> chunk{};
  while (const std::size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe)) output.append(chunk.data(), n);
  const int status = pclose(pipe);
  try {
    const auto by_name = parse_nvbandwidth_json(output);
    for (const ReferenceTest& t : reference_tests()) {
      const auto it = by_name.find(t.nvbandwidth);
      if (it == by_name.end()) throw std::runtime_error("nvbandwidth did not report " + t.nvbandwidth);
      run.gbps[t.ours] = it->second;
    }
    if (status != 0) run.error = "nvbandwidth exited with status " + std::to_string(status);
  } catch (const std::exception& e) {
    run.error = e.what();
  }
  return run;
}

ReferenceFigures combine_runs(const std::vector<ReferenceRun>& runs) {
  ReferenceFigures f;
  for (const ReferenceRun& run : runs) {
    if (!run.error.empty()) {
      f.errors.push_back(run.command + ": " + run.error);
      continue;
    }
    for (const auto& [name, gbps] : run.gbps) f.values[name].push_back(gbps);
  }
  for (const auto& [name, values] : f.values) f.median[name] = spread_of(values).median;
  return f;
}

double confirmation_floor(double threshold_gbps, double reference_gbps) noexcept {
  return std::max(threshold_gbps, reference_gbps > 0 ? kReferenceAgreement * reference_gbps : 0.0);
}

std::map<std::size_t, ReferenceFigures> run_references(const std::filesystem::path& tool,
                                                       const std::vector<std::size_t>& checked_sizes,
                                                       const std::string& uuid) {
  std::map<std::size_t, std::vector<ReferenceRun>> runs;
  for (int r = 0; r < kReferenceRuns; ++r)
    for (std::size_t bytes : checked_sizes) runs[bytes].push_back(run_reference(tool, uuid, bytes));
  std::map<std::size_t, ReferenceFigures> figures;
  for (const auto& [bytes, of_size] : runs) figures[bytes] = combine_runs(of_size);
  return figures;
}

}  // namespace hazardlab::perf
