// JUnit XML, the format CI systems read: one <testsuite> per GPU, one <testcase> per variant and
// per measurement group. Only what held passes; a case that did not run is <skipped>.
#include <cstdio>
#include <sstream>

#include "gpu_content.hpp"
#include "hazardlab/number_text.hpp"
#include "hazardlab/markup_escape.hpp"

namespace hazardlab {
namespace {

std::string xml(std::string_view text) { return escape_markup(text); }

}  // namespace

std::string report_to_junit(const GpuReport& report) {
  const std::string label = report.file_stem();
  const std::vector<CaseLine> cases = case_lines(report);
  int failures = 0, errors = 0, skipped = 0;
  double total = 0;
  // Only what held passes; what could not decide is an error; what did not run is skipped.
  for (const CaseLine& c : cases) {
    failures += c.standing == Standing::Bad;
    errors += c.standing == Standing::Undecided;
    skipped += c.standing == Standing::NotRun;
    total += c.seconds;
  }
  const std::string device =
      report.device ? report.device->name + " (" + report.device->uuid + ", " + report.device->pci_bus_id + ")"
                    : "no usable GPU: " + report.no_device_reason;
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"hazardlab\" tests=\"" << cases.size() << "\" failures=\"" << failures << "\" errors=\""
      << errors << "\" skipped=\"" << skipped << "\" time=\"" << number_text("%.3f", total) << "\">\n"
      << "  <testsuite name=\"hazardlab." << xml(label) << "\" hostname=\"" << xml(report.host) << "\" timestamp=\""
      << xml(report.run.started_at) << "\" tests=\"" << cases.size() << "\" failures=\"" << failures << "\" errors=\""
      << errors << "\" skipped=\"" << skipped << "\" time=\"" << number_text("%.3f", total) << "\">\n"
      << "    <properties>\n"
      << "      <property name=\"run\" value=\"" << xml(report.run.id) << "\"/>\n"
      << "      <property name=\"device\" value=\"" << xml(device) << "\"/>\n"
      << "      <property name=\"verdict\" value=\"" << to_string(report.verdict) << "\"/>\n"
      << "      <property name=\"complete\" value=\"" << (report.complete() ? "true" : "false") << "\"/>\n"
      << "    </properties>\n";
  for (const CaseLine& c : cases) {
    out << "    <testcase classname=\"" << xml(label + "." + c.group) << "\" name=\"" << xml(c.name) << "\" time=\""
        << number_text("%.3f", c.seconds) << '"';
    const std::string message = " message=\"" + xml(c.message) + "\"";
    switch (c.standing) {
      case Standing::Good:
        out << "/>\n";
        break;
      case Standing::Bad:
        out << ">\n      <failure type=\"" << xml(c.type) << '"' << message << "/>\n    </testcase>\n";
        break;
      case Standing::Undecided:
        out << ">\n      <error type=\"" << xml(c.type) << '"' << message << "/>\n    </testcase>\n";
        break;
      case Standing::NotRun:
        out << ">\n      <skipped" << message << "/>\n    </testcase>\n";
        break;
    }
  }
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

}  // namespace hazardlab
