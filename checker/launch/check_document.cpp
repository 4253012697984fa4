#include "checker/launch/check_document.hpp"

namespace hazardlab::check {
namespace {

// The verdicts' colours; the rest is the style every page shares (document/src/document.cpp).
constexpr const char* kStyle =
    ".clean{background:#d9f2d9}.found{background:#f8d0d0}.not-checked,.sampled{background:#fcefc7}";

// The command as a shell would take it back: an argument with anything but plain characters is quoted.
std::string shell_text(const std::vector<std::string>& command) {
  static constexpr std::string_view kPlain =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%";
  std::string text;
  for (const std::string& argument : command) {
    if (!text.empty()) text += ' ';
    if (!argument.empty() && argument.find_first_not_of(kPlain) == std::string::npos) {
      text += argument;
      continue;
    }
    text += '\'';
    for (char c : argument) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
    text += '\'';
  }
  return text;
}

std::vector<doc::Text> native_frames(const std::vector<Frame>& stack) {
  std::vector<doc::Text> frames;
  for (const Frame& f : stack)
    if (tells_about_the_program(f))
      frames.push_back(doc::code("#" + std::to_string(frames.size()) + " " + frame_text(f)));
  return frames;
}

// One stack, folded: the Python frames first when the program is Python, then the native ones.
void add_stack(doc::Document& d, const std::string& title, const std::vector<PythonFrame>& python,
               const std::vector<Frame>& native, const std::string& python_title = "Python") {
  std::vector<doc::Text> natives = native_frames(native);
  const std::size_t count = python.size() + natives.size();
  if (natives.empty()) natives.push_back("(no frames)");
  std::vector<doc::Item> items;
  if (python.empty()) {
    for (doc::Text& t : natives) items.push_back({std::move(t), {}});
  } else {
    doc::Item python_item{python_title, {}};
    for (const PythonFrame& f : python) python_item.children.push_back(doc::code(python_frame_text(f)));
    items.push_back(std::move(python_item));
    items.push_back({"Native", std::move(natives)});
  }
  d.folded(title + " (" + std::to_string(count) + " frame" + (count == 1 ? "" : "s") + ")", std::move(items));
}

void add_findings(doc::Document& d, const CheckReport& report) {
  d.heading("Findings");
  if (report.finding_count() == 0) {
    d.paragraph(report.verdict == CheckVerdict::Clean
                    ? "None."
                    : "None in what was watched; the verdict above says why the run is not called clean.");
    return;
  }
  doc::Table table;
  table.headers = {"#", "Hazard", "Kind", "Process / thread", "What happened", "Missing", "Fix", "Explained"};
  std::size_t number = 0;
  for (const ProcessLog& p : report.processes)
    for (const LoggedFinding& lf : p.findings) {
      const Finding& f = lf.finding;
      table.add({std::to_string(++number), doc::code(f.hazard()), std::string(to_string(f.kind)),
                 process_name(p) + " / thread " + std::to_string(f.thread), f.what(), f.missing(), f.smallest_fix(),
                 doc::code(f.explain_command())});
    }
  d.table(std::move(table));
  number = 0;
  for (const ProcessLog& p : report.processes)
    for (const LoggedFinding& lf : p.findings) {
      d.subheading("Finding " + std::to_string(++number) + ": " + doc::code(lf.finding.hazard()) + ", " +
                   process_name(p) + " (" + p.program + ")");
      std::string first = lf.finding.first_heading(), second = lf.finding.second_heading();
      first.pop_back(), second.pop_back();  // their colons
      add_stack(d, first, lf.access_python, lf.access_stack,
                lf.access_python_of_main_thread ? std::string("Python (") + kAccessPythonOfMainThread + ")" : "Python");
      add_stack(d, second, lf.copy_python, lf.copy_stack);
    }
}

std::string count_text(const std::optional<CheckerStats>& s, std::uint64_t CheckerStats::*field) {
  return s ? std::to_string((*s).*field) : std::string("-");
}

void add_summary(doc::Document& d, const CheckReport& report) {
  d.heading("Summary");
  d.paragraph(report.summary() + ".");
  if (report.processes.empty()) return;
  doc::Table table;
  table.headers = {"Process", "Rank", "Parent", "Program", "Watched", "Findings", "Occurrences", "Copy ends watched",
                   "Copy ends sampled out", "Pageable D2H copies (not watched)", "Faults on neighbours",
                   "Page protection"};
  for (const ProcessLog& p : report.processes) {
    const std::optional<CheckerStats>& s = p.summary;
    table.add({std::to_string(p.pid), p.rank.value_or("-"), std::to_string(p.parent), p.program,
               !made_watched_calls(p) ? "yes (no CUDA call it watches)" : p.watching ? (s ? "yes" : "yes, until it ended without a summary") : "no",
               std::to_string(p.findings.size()), count_text(s, &CheckerStats::occurrences),
               count_text(s, &CheckerStats::copies_watched), count_text(s, &CheckerStats::copies_sampled_out),
               count_text(s, &CheckerStats::pageable_d2h_async), count_text(s, &CheckerStats::neighbour_faults),
               p.protection.empty() ? "-" : p.protection + (p.protection_why.empty() ? "" : ": " + p.protection_why)});
  }
  d.table(std::move(table));
}

}  // namespace

doc::Document check_document(const CheckReport& report) {
  doc::Document d{"hazardlab check report", kStyle, {}};
  const std::string verdict(to_string(report.verdict));
  d.paragraph(doc::strong("Verdict: " + verdict), "verdict " + verdict);
  d.paragraph(std::string(meaning(report.verdict)) + ".");
  d.paragraph("Command: " + doc::code(shell_text(report.command)));
  d.paragraph("The program " + ending_text(report.end) + ".");
  for (const std::string& why : report.not_checked_because) d.note(doc::strong("Not checked:") + " " + why);
  if (const std::string sampled = report.sampled_warning(); !sampled.empty())
    d.note(doc::strong("Sampled:") + " " + sampled);
  add_findings(d, report);
  add_summary(d, report);
  return d;
}

}  // namespace hazardlab::check
