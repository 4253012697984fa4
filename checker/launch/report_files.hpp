// The files `hazardlab check` writes its report into (--json, --markdown, --html, --sarif): how each is spelled,
// and which paths may take one, judged before the program runs.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checker/launch/session.hpp"

namespace hazardlab::check {

// The first line of the Markdown and HTML reports: how a report of this command is told from a user's file.
inline constexpr const char* kReportMarkerLine = "<!-- A report written by hazardlab check. -->";

// A report file asked for: the option that named it, where, and how the report is spelled in it.
struct ReportFile {
  std::string option;
  std::filesystem::path path;
  std::function<std::string(const CheckReport&)> spell;
};
std::vector<ReportFile> report_files(const CheckOptions& options);

// Whether `contents` is a report `hazardlab check` wrote, in any of its four spellings: only such a file is
// replaced by a new report.
bool written_by_check(const std::string& contents);

// Throws UsageError naming the option and the path for a report path that cannot take the report
// (output_file_problem), that is the program (`program`, resolved) or one of its arguments, or that is the same
// file as another report.
void validate_report_files(const CheckOptions& options, const std::filesystem::path& program);

// What a report path held before the program ran: nothing, or these contents. The program may write that path
// itself while it runs; the report is written only where nothing changed since.
using ReportPathBefore = std::optional<std::string>;
ReportPathBefore report_path_before(const std::filesystem::path& path);

// Why the report may not be written at `path` now ("" if it may): the path no longer takes it
// (output_file_problem), or a file appeared there or changed during the run, which is the program's or a user's.
std::string report_path_changed(const std::filesystem::path& path, const ReportPathBefore& before);

}  // namespace hazardlab::check
