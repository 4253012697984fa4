#include "checker/launch/sarif.hpp"

#include <cstdio>
#include <map>
#include <set>

#include "hazardlab/fnv1a.hpp"
#include "hazardlab/run_record.hpp"

namespace hazardlab::check {
namespace fs = std::filesystem;

namespace {

constexpr const char* kSarifSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr const char* kSourceRoot = "SRCROOT";

// "path/file.cpp:42" or "path/file.cpp:42 (discriminator 3)": the file and the line; nothing for "??:0".
std::optional<SourceLine> parse_location(const std::string& location) {
  const std::string text = location.substr(0, location.find(' '));
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  int line = 0;
  for (std::size_t i = colon + 1; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    line = line * 10 + (text[i] - '0');
  }
  if (line <= 0 || text.substr(0, colon) == "??") return std::nullopt;
  return SourceLine{text.substr(0, colon), line};
}

nlohmann::json artifact(const fs::path& file, const fs::path& root) {
  const fs::path absolute = fs::absolute(file).lexically_normal();
  const fs::path relative = absolute.lexically_relative(root);
  if (!relative.empty() && *relative.begin() != "..") return {{"uri", relative.generic_string()}, {"uriBaseId", kSourceRoot}};
  return {{"uri", "file://" + absolute.generic_string()}};
}

nlohmann::json physical(const SourceLine& where, const fs::path& root) {
  return {{"artifactLocation", artifact(where.file, root)}, {"region", {{"startLine", where.line}}}};
}

std::string relative_text(const std::optional<SourceLine>& where, const fs::path& root) {
  if (!where) return "?";
  const fs::path absolute = fs::absolute(where->file).lexically_normal();
  const fs::path relative = absolute.lexically_relative(root);
  return (relative.empty() || *relative.begin() == ".." ? absolute : relative).generic_string() + ":" +
         std::to_string(where->line);
}

// FNV-1a of what names a finding whatever the run: the hazard, the kind of access and the two lines, never an
// address, a process or a thread.
std::string fingerprint(const LoggedFinding& f, const fs::path& root) {
  const std::string key = f.finding.hazard() + "|" + std::string(to_string(f.finding.kind)) + "|" +
                          relative_text(source_line(f.copy_stack, f.copy_python), root) + "|" +
                          relative_text(source_line(f.access_stack, f.access_python), root);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  return text;
}

nlohmann::json rule(const std::string& hazard, const LoggedFinding& example, const ExplanationOf& explanation) {
  const std::optional<HazardExplanation> l = explanation ? explanation(hazard) : std::nullopt;
  const std::string help = (l ? l->explanation + "\n\n" : std::string()) + "Explained: hazardlab explain " + hazard;
  return {{"id", hazard},
          {"shortDescription", {{"text", l ? l->title : example.finding.what()}}},
          {"fullDescription", {{"text", l ? l->explanation : example.finding.missing()}}},
          {"help", {{"text", help}}},
          {"defaultConfiguration", {{"level", "error"}}}};
}

}  // namespace

std::optional<SourceLine> source_line(const std::vector<Frame>& native, const std::vector<PythonFrame>& python) {
  for (const PythonFrame& p : python)
    if (p.line > 0 && !p.file.empty() && p.file.front() != '<') return SourceLine{p.file, p.line};
  for (const Frame& f : native) {
    if (!tells_about_the_program(f) || f.location.empty()) continue;
    if (auto where = parse_location(f.location)) return where;
  }
  return std::nullopt;
}

nlohmann::json to_sarif(const CheckReport& report, const SarifContext& context) {
  const fs::path root = fs::absolute(context.source_root).lexically_normal();
  nlohmann::json results = nlohmann::json::array(), rules = nlohmann::json::array();
  std::map<std::string, std::size_t> rule_index;
  for (const ProcessLog& p : report.processes) {
    for (const LoggedFinding& f : p.findings) {
      const std::string hazard = f.finding.hazard();
      if (!rule_index.count(hazard)) {
        rule_index[hazard] = rules.size();
        rules.push_back(rule(hazard, f, context.explanation));
      }
      const std::optional<SourceLine> access = source_line(f.access_stack, f.access_python);
      const std::optional<SourceLine> copy = source_line(f.copy_stack, f.copy_python);
      nlohmann::json result = {{"ruleId", hazard},
                               {"ruleIndex", rule_index[hazard]},
                               {"level", "error"},
                               {"message", {{"text", f.finding.what() + ". Missing: " + f.finding.missing() +
                                                         " Fix: " + f.finding.smallest_fix()}}},
                               {"partialFingerprints", {{"hazardlabFinding/v1", fingerprint(f, root)}}}};
      // A finding whose access has no source line (a module without line information) still has a location:
      // the module, so that code scanning shows it.
      nlohmann::json access_location = nlohmann::json::object();
      if (access) {
        access_location["physicalLocation"] = physical(*access, root);
      } else if (!f.access_stack.empty()) {
        access_location["physicalLocation"] = {{"artifactLocation", artifact(f.access_stack.front().module, root)}};
      }
      access_location["message"] = {
          {"text", f.finding.race ? std::string("later device work: ") + f.finding.race->later.api
                   : f.access_python_of_main_thread ? std::string("host access; its line is ") + kAccessPythonOfMainThread
                                                    : std::string("host access")}};
      result["locations"] = nlohmann::json::array({access_location});
      nlohmann::json copy_location = {
          {"message", {{"text", f.finding.race                    ? "earlier device work: " + f.finding.copy.api
                                : f.finding.copy.held_by_kernel() ? "kernel launched: " + f.finding.copy.kernel
                                                                  : "copy issued: " + f.finding.copy.api}}}};
      if (copy) {
        copy_location["physicalLocation"] = physical(*copy, root);
        copy_location["id"] = 1;
        result["relatedLocations"] = nlohmann::json::array({copy_location});
      }
      nlohmann::json missing = {{"message", {{"text", "missing: " + f.finding.missing()}}}};
      result["codeFlows"] = nlohmann::json::array({{{"threadFlows",
                                                     nlohmann::json::array({{{"locations",
                                                                              nlohmann::json::array({
                                                                                  {{"location", copy_location}},
                                                                                  {{"location", missing}},
                                                                                  {{"location", access_location}},
                                                                              })}}})}}});
      // Which process of a parallel job (its pid and launcher rank): not in the fingerprint, which is the same
      // finding in every run and every rank.
      result["properties"] = {{"process", p.pid}};
      if (p.rank) result["properties"]["rank"] = *p.rank;
      results.push_back(std::move(result));
    }
  }
  nlohmann::json run = {
      {"tool",
       {{"driver",
         {{"name", "hazardlab"},
          {"version", context.tool_version},
          {"rules", rules}}}}},
      {"originalUriBaseIds", {{kSourceRoot, {{"uri", "file://" + root.generic_string() + "/"}}}}},
      {"results", results},
      {"invocations",
       nlohmann::json::array({{{"executionSuccessful", report.verdict != CheckVerdict::NotChecked},
                               {"toolExecutionNotifications", nlohmann::json::array()}}})}};
  for (const std::string& why : report.not_checked_because)
    run["invocations"][0]["toolExecutionNotifications"].push_back(
        {{"level", "warning"}, {"message", {{"text", "not watched: " + why}}}});
  return {{"$schema", kSarifSchema}, {"version", "2.1.0"}, {"runs", nlohmann::json::array({run})}};
}

}  // namespace hazardlab::check
