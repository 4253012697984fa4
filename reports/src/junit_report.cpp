// JUnit XML, the format CI systems read: one <testsuite> per GPU, one <testcase> per variant and
// per measurement group. Only what held passes; a case that did not run is <skipped>.
#include <cstdio>
#include <sstream>

#include "hazardlab/report.hpp"
#include "markup_escape.hpp"

namespace hazardlab {
namespace {

std::string xml(std::string_view text) { return escape_markup(text); }

struct Case {
  std::string classname, name;
  double seconds = 0;
  enum class Kind { Passed, Failure, Error, Skipped } kind = Kind::Passed;
  std::string type{}, message{};
};

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", s);
  return text;
}

}  // namespace

std::string report_to_junit(const GpuReport& report) {
  const std::string label = report.file_stem();
  std::vector<Case> cases;
  for (const HazardEntry& he : report.hazards) {
    for (const VariantEntry& v : he.variants) {
      Case c{label + "." + he.hazard.id, v.id};
      if (!v.result) {
        c.kind = Case::Kind::Skipped;
        c.message = "did not run in run " + report.run.id + " (not selected, or the run ended before it)";
        cases.push_back(std::move(c));
        continue;
      }
      const VariantResult& r = *v.result;
      c.seconds = r.duration_ms / 1000;
      c.type = std::string(to_string(r.outcome));
      c.message = r.reason;
      switch (standing_of(r.outcome)) {
        case Standing::Good:
          c.kind = Case::Kind::Passed;
          break;
        case Standing::Bad:
          c.kind = Case::Kind::Failure;
          break;
        case Standing::Undecided:
          c.kind = Case::Kind::Error;
          break;
        case Standing::NotRun:
          c.kind = Case::Kind::Skipped;
          break;
      }
      cases.push_back(std::move(c));
    }
  }
  for (std::string_view part : kPerfParts) {
    Case c{label + ".perf", std::string(part)};
    const PerfRecord* record = nullptr;
    for (const PerfRecord& p : report.perf) {
      if (p.part == part) record = &p;
    }
    if (!record) {
      c.kind = Case::Kind::Skipped;
      c.message = "did not run in run " + report.run.id;
    } else {
      c.seconds = record->duration_ms / 1000;
      c.type = std::string(to_string(record->status));
      c.message = record->reason;
      if (record->status == PerfStatus::Failed) c.kind = Case::Kind::Failure;
      if (record->status == PerfStatus::Skipped) c.kind = Case::Kind::Skipped;
      for (const perf::Check& check : record->checks) {
        if (check.missed() || (check.applicable && !check.decided())) {
          c.kind = Case::Kind::Failure;
          c.type = check.missed() ? "threshold-missed" : "untrusted-measurement";
          c.message += (c.message.empty() ? "" : "; ") + check.description + ": " + check.detail();
        }
      }
    }
    cases.push_back(std::move(c));
  }

  int failures = 0, errors = 0, skipped = 0;
  double total = 0;
  for (const Case& c : cases) {
    failures += c.kind == Case::Kind::Failure;
    errors += c.kind == Case::Kind::Error;
    skipped += c.kind == Case::Kind::Skipped;
    total += c.seconds;
  }
  const std::string device =
      report.device ? report.device->name + " (" + report.device->uuid + ", " + report.device->pci_bus_id + ")"
                    : "no usable GPU: " + report.no_device_reason;
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"hazardlab\" tests=\"" << cases.size() << "\" failures=\"" << failures << "\" errors=\""
      << errors << "\" skipped=\"" << skipped << "\" time=\"" << seconds_text(total) << "\">\n"
      << "  <testsuite name=\"hazardlab." << xml(label) << "\" hostname=\"" << xml(report.host) << "\" timestamp=\""
      << xml(report.run.started_at) << "\" tests=\"" << cases.size() << "\" failures=\"" << failures << "\" errors=\""
      << errors << "\" skipped=\"" << skipped << "\" time=\"" << seconds_text(total) << "\">\n"
      << "    <properties>\n"
      << "      <property name=\"run\" value=\"" << xml(report.run.id) << "\"/>\n"
      << "      <property name=\"device\" value=\"" << xml(device) << "\"/>\n"
      << "      <property name=\"verdict\" value=\"" << to_string(report.verdict) << "\"/>\n"
      << "      <property name=\"complete\" value=\"" << (report.complete() ? "true" : "false") << "\"/>\n"
      << "    </properties>\n";
  for (const Case& c : cases) {
    out << "    <testcase classname=\"" << xml(c.classname) << "\" name=\"" << xml(c.name) << "\" time=\""
        << seconds_text(c.seconds) << '"';
    const std::string message = " message=\"" + xml(c.message) + "\"";
    switch (c.kind) {
      case Case::Kind::Passed:
        out << "/>\n";
        break;
      case Case::Kind::Failure:
        out << ">\n      <failure type=\"" << xml(c.type) << '"' << message << "/>\n    </testcase>\n";
        break;
      case Case::Kind::Error:
        out << ">\n      <error type=\"" << xml(c.type) << '"' << message << "/>\n    </testcase>\n";
        break;
      case Case::Kind::Skipped:
        out << ">\n      <skipped" << message << "/>\n    </testcase>\n";
        break;
    }
  }
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

}  // namespace hazardlab
