#include "checker/launch/report_files.hpp"

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "checker/launch/check_document.hpp"
#include "hazardlab/output_file.hpp"
#include "hazardlab/run_record.hpp"

namespace fs = std::filesystem;

namespace hazardlab::check {

namespace {

std::string marked(const std::string& page) { return std::string(kReportMarkerLine) + "\n" + page; }

// The paths an argument of the program may name: the whole word, and what follows '=' in "--in=data.txt".
std::vector<fs::path> named_paths(const std::string& argument) {
  std::vector<fs::path> paths;
  if (!argument.empty()) paths.emplace_back(argument);
  const std::size_t eq = argument.find('=');
  if (eq != std::string::npos && eq + 1 < argument.size()) paths.emplace_back(argument.substr(eq + 1));
  return paths;
}

}  // namespace

std::vector<ReportFile> report_files(const CheckOptions& options) {
  std::vector<ReportFile> files;
  if (options.json)
    files.push_back({"--json", *options.json, [](const CheckReport& r) { return r.to_json().dump(2) + "\n"; }});
  if (options.markdown)
    files.push_back({"--markdown", *options.markdown,
                     [](const CheckReport& r) { return marked(doc::to_markdown(check_document(r))); }});
  if (options.html)
    files.push_back(
        {"--html", *options.html, [](const CheckReport& r) { return marked(doc::to_html(check_document(r))); }});
  if (options.sarif) {
    const SarifContext context{std::string(hazardlab_version()), options.source_root, options.explanation};
    files.push_back({"--sarif", *options.sarif,
                     [context](const CheckReport& r) { return to_sarif(r, context).dump(2) + "\n"; }});
  }
  return files;
}

bool written_by_check(const std::string& contents) {
  if (contents.rfind(std::string(kReportMarkerLine) + "\n", 0) == 0) return true;
  const nlohmann::json j = nlohmann::json::parse(contents, nullptr, false);
  if (!j.is_object()) return false;
  if (j.value("schema", "") == kCheckReportSchema) return true;
  const nlohmann::json* driver = nullptr;
  if (j.contains("runs") && j["runs"].is_array() && !j["runs"].empty() && j["runs"][0].is_object()) {
    const nlohmann::json& run = j["runs"][0];
    if (run.contains("tool") && run["tool"].is_object() && run["tool"].contains("driver")) driver = &run["tool"]["driver"];
  }
  return driver && driver->is_object() && driver->value("name", "") == "hazardlab";
}

void validate_report_files(const CheckOptions& options, const fs::path& program) {
  const std::vector<ReportFile> files = report_files(options);
  for (auto file = files.begin(); file != files.end(); ++file) {
    const std::string what = file->option + " " + file->path.string();
    if (file->path.empty()) throw UsageError(file->option + " \"\": allowed is a file name");
    // The program and its arguments first: a report written over its own input would be a user's file lost.
    if (same_file(file->path, program)) throw UsageError(what + ": is the program to check; give the report another name");
    for (std::size_t i = 1; i < options.command.size(); ++i)
      for (const fs::path& named : named_paths(options.command[i]))
        if (same_file(file->path, named))
          throw UsageError(what + ": is named by the program's argument '" + options.command[i] +
                           "'; give the report a file of its own");
    if (const std::string problem = output_file_problem(file->path, written_by_check); !problem.empty())
      throw UsageError(what + ": " + problem);
    for (auto earlier = files.begin(); earlier != file; ++earlier)
      if (same_file(earlier->path, file->path))
        throw UsageError(what + ": the same file as " + earlier->option + "; give each report its own file");
  }
}

ReportPathBefore report_path_before(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(path, ec))) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string report_path_changed(const fs::path& path, const ReportPathBefore& before) {
  if (report_path_before(path) != before)
    return before ? "changed while the program ran (it is not the report hazardlab check wrote there)"
                  : "was made while the program ran (hazardlab check did not write it)";
  return output_file_problem(path, written_by_check);
}

}  // namespace hazardlab::check
