#include "hazardlab/report.hpp"

#include <unistd.h>

#include <ctime>
#include <filesystem>

#include "hazardlab/atomic_file.hpp"
#include "hazardlab/result_store.hpp"

#ifndef HAZARDLAB_VERSION
#define HAZARDLAB_VERSION "unknown"
#endif

namespace hazardlab {
namespace {

constexpr const char* kNotRun = "not-run";

std::string host_name() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("unknown");
}

int count_of(const std::map<std::string, int>& totals, std::string_view key) {
  const auto it = totals.find(std::string(key));
  return it == totals.end() ? 0 : it->second;
}

GpuReport make_report(const std::vector<Hazard>& hazards, const std::vector<VariantResult>& results, int device_index) {
  GpuReport report;
  report.generated_at = utc_now_iso8601();
  report.host = host_name();
  report.hazardlab_version = HAZARDLAB_VERSION;
  std::vector<bool> used(results.size(), false);
  for (const Hazard& h : hazards) {
    HazardEntry entry{&h, {}};
    for (const Variant& v : h.variants) {
      VariantEntry ve{v.id, v.kind, v.title, std::nullopt};
      for (std::size_t i = 0; i < results.size(); ++i) {
        const VariantResult& r = results[i];
        if (r.device_index == device_index && r.hazard_id == h.id && r.variant_id == v.id) {
          ve.result = r;
          used[i] = true;
        }
      }
      ++report.totals[ve.result ? std::string(to_string(ve.result->outcome)) : kNotRun];
      entry.variants.push_back(std::move(ve));
    }
    report.hazards.push_back(std::move(entry));
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!used[i] && results[i].device_index == device_index) {
      report.unknown_results.push_back(results[i]);
      ++report.totals[std::string(to_string(results[i].outcome))];
    }
  }
  return report;
}

}  // namespace

std::string_view to_string(Verdict v) noexcept {
  switch (v) {
    case Verdict::Pass:
      return "PASS";
    case Verdict::Fail:
      return "FAIL";
    case Verdict::Inconclusive:
      return "INCONCLUSIVE";
    case Verdict::Skipped:
      return "SKIPPED";
  }
  return "?";
}

std::string GpuReport::file_stem() const { return device ? "gpu" + std::to_string(device->index) : "nogpu"; }

std::pair<Verdict, std::string> decide_verdict(const VerdictInput& in) {
  int bad = 0, undecided = 0, good = 0, skipped = 0;
  for (const auto& [name, count] : in.totals) {
    if (name == kNotRun) continue;
    const auto outcome = outcome_from_string(name);
    switch (outcome ? standing_of(*outcome) : Standing::Bad) {
      case Standing::Good:
        good += count;
        break;
      case Standing::Bad:
        bad += count;
        break;
      case Standing::Undecided:
        undecided += count;
        break;
      case Standing::NotRun:
        skipped += count;
        break;
    }
  }
  const int not_run = count_of(in.totals, kNotRun);
  const std::string partial =
      not_run ? "; " + std::to_string(not_run) + " registered case(s) did not run in this session" : "";
  if (!in.has_device && in.require_gpu) {
    return {Verdict::Fail, "no usable GPU, and HAZARDLAB_REQUIRE_GPU=1 requires one"};
  }
  if (bad || in.failed_checks || in.failed_measurements) {
    std::string why;
    if (bad) why = std::to_string(bad) + " case(s) failed, gave wrong data or missed their hazard";
    if (in.failed_checks) {
      why += (why.empty() ? "" : "; ") + std::to_string(in.failed_checks) + " validation threshold(s) missed";
    }
    if (in.failed_measurements) {
      why += (why.empty() ? "" : "; ") + std::to_string(in.failed_measurements) + " performance measurement(s) failed";
    }
    return {Verdict::Fail, why + partial};
  }
  if (undecided) return {Verdict::Inconclusive, std::to_string(undecided) + " case(s) could not decide" + partial};
  if (!good && !in.measured) {
    return {Verdict::Skipped, (in.has_device ? "no case ran" : "no usable GPU: every GPU case was skipped") + partial};
  }
  std::string what;
  if (good) what = "every positive control reproduced its hazard and every guard and rule held";
  if (in.measured) {
    what += std::string(what.empty() ? "" : "; ") + std::to_string(in.measured) + " performance measurement(s) taken" +
            (in.passed_checks ? " and every applicable validation threshold met" : "");
  }
  return {Verdict::Pass,
          what +
              (skipped ? "; " + std::to_string(skipped) + " case(s) not applicable here" : std::string()) + partial};
}

std::vector<GpuReport> build_reports(const std::vector<Hazard>& hazards, const DeviceInventory& inventory,
                                     const std::vector<VariantResult>& results, bool require_gpu,
                                     const std::map<int, std::vector<PerfRecord>>& perf) {
  const auto finish = [&](GpuReport& r, int index, bool has_device) {
    if (const auto it = perf.find(index); it != perf.end()) r.perf = it->second;
    VerdictInput in{r.totals, has_device, require_gpu};
    for (const PerfRecord& p : r.perf) {
      if (p.status == "failed") ++in.failed_measurements;
      if (p.status == "measured") ++in.measured;
      if (p.status == "skipped") ++in.totals["skipped"];
      for (const perf::Check& c : p.checks) {
        in.failed_checks += c.applicable && !c.passed;
        in.passed_checks += c.applicable && c.passed;
      }
    }
    std::tie(r.verdict, r.verdict_reason) = decide_verdict(in);
  };
  std::vector<GpuReport> reports;
  if (inventory.devices.empty()) {
    GpuReport r = make_report(hazards, results, -1);
    r.no_device_reason = inventory.no_device_reason;
    finish(r, -1, false);
    reports.push_back(std::move(r));
    return reports;
  }
  for (const DeviceFingerprint& d : inventory.devices) {
    GpuReport r = make_report(hazards, results, d.index);
    r.device = d;
    finish(r, d.index, true);
    reports.push_back(std::move(r));
  }
  return reports;
}

nlohmann::json report_to_json(const GpuReport& report) {
  nlohmann::json hazards = nlohmann::json::array();
  for (const HazardEntry& he : report.hazards) {
    const Hazard& h = *he.hazard;
    nlohmann::json rules = nlohmann::json::array();
    for (const Citation& c : h.rules)
      rules.push_back({{"document", c.document}, {"section", c.section}, {"says", c.says}});
    nlohmann::json requirements = nlohmann::json::array();
    for (const Requirement& q : h.requirements) requirements.push_back(q.what);
    nlohmann::json variants = nlohmann::json::array();
    for (const VariantEntry& v : he.variants) {
      nlohmann::json jv = v.result ? nlohmann::json(*v.result) : nlohmann::json{{"outcome", kNotRun}};
      jv["variant"] = v.id;
      jv["kind"] = std::string(to_string(v.kind));
      jv["title"] = v.title;
      jv.erase("hazard");
      variants.push_back(std::move(jv));
    }
    hazards.push_back({{"id", h.id},
                       {"title", h.title},
                       {"rules", rules},
                       {"requirements", requirements},
                       {"explanation", h.explanation},
                       {"variants", variants}});
  }
  return {{"schema", kReportSchema},
          {"schema_version", kReportSchemaVersion},
          {"hazardlab_version", report.hazardlab_version},
          {"generated_at", report.generated_at},
          {"host", report.host},
          {"device", report.device ? nlohmann::json(*report.device) : nlohmann::json(nullptr)},
          {"no_device_reason", report.no_device_reason},
          {"verdict", std::string(to_string(report.verdict))},
          {"verdict_reason", report.verdict_reason},
          {"totals", report.totals},
          {"hazards", hazards},
          {"performance", report.perf},
          {"unknown_results", report.unknown_results}};
}

std::vector<std::string> write_reports(const std::vector<GpuReport>& reports, const std::string& out_dir) {
  std::vector<std::string> written;
  for (const GpuReport& r : reports) {
    const std::filesystem::path base = std::filesystem::path(out_dir) / r.file_stem();
    const std::filesystem::path json = base.string() + ".json";
    const std::filesystem::path md = base.string() + ".md";
    const std::filesystem::path html = base.string() + ".html";
    write_file_atomically(json, report_to_json(r).dump(2) + "\n");
    write_file_atomically(md, report_to_markdown(r));
    write_file_atomically(html, report_to_html(r));
    written.push_back(json.string());
    written.push_back(md.string());
    written.push_back(html.string());
  }
  return written;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace hazardlab
