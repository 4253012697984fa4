// A GPU's report, laid out once: the verdict, what the run was, every case's outcome, the device,
// the measurements, the race windows, the verified copies, every hazard's lesson, and how to read it.
#include "gpu_content.hpp"

#include <cstdio>

#include "hazardlab/number_text.hpp"
#include "hazardlab/settings_table.hpp"

namespace hazardlab {
namespace {

// The verdicts' and rows' colours; the rest is the style every page shares (document.cpp).
constexpr const char* kStyle =
    ".PASS,.good{background:#d9f2d9}.FAIL,.bad{background:#f8d0d0}.INCONCLUSIVE,.warn{background:#fcefc7}"
    ".SKIPPED,.PARTIAL,.idle{background:#eee}";

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string cuda_version(int v) {
  return v ? std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10) : std::string("unknown");
}

std::string upper(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string outcome_text(const VariantEntry& v) {
  return v.result ? upper(std::string(to_string(v.result->outcome))) : "not run";
}

std::string headline(const VariantEntry& v) {
  if (!v.result)
    return "no result in this run (not selected, the run ended before it, or its result could not be written).";
  const VariantResult& r = *v.result;
  if (r.outcome == Outcome::Reproduced) return "the hazard showed in all " + std::to_string(r.trials) + " gated trials.";
  if (r.outcome == Outcome::Passed)
    return "held in all " + std::to_string(r.trials) + " generated cases (seed " +
           (r.seed ? std::to_string(*r.seed) : "-") + ").";
  return r.reason;
}

// What the run was: its id, complete or partial (and what did not run), the selection, the settings.
void add_run(doc::Document& d, const GpuReport& report) {
  const RunRecord& run = report.run;
  doc::Text t = "Run " + doc::code(run.id) + ", started " + run.started_at +
                (run.ended_at.empty() ? "" : ", ended " + run.ended_at) + ". ";
  if (report.complete()) {
    d.paragraph(t + doc::strong("Complete") + ": " +
                (report.device ? "every registered case ran on this GPU."
                               : "every registered case was recorded (skipped: no usable GPU)."));
  } else {
    d.paragraph(t + doc::strong("Partial") + ": " + std::to_string(report.not_run.size()) +
                " registered case(s) did not run on this GPU, so this report does not replace the last complete one.");
    std::vector<doc::Item> names;
    for (const std::string& name : report.not_run) names.push_back({doc::code(name), {}});
    d.folded("Did not run", std::move(names));
  }
  doc::Text selection = "Selection: " + std::string(run.selection.all() ? "all cases" : "filtered by");
  for (const std::string& f : run.selection.filters) selection += " " + doc::code(f);
  if (!run.sanitizer.empty()) selection += "; under compute-sanitizer " + doc::code(run.sanitizer);
  d.paragraph(selection + ".");
  doc::Text settings = "Settings in force:";
  for (const RecordedSetting& s : run.settings) {
    settings += " " + doc::code(s.name + '=' + s.value) + (s.from_environment ? " (set)" : "") +
                (s.note.empty() ? "" : " (" + s.note + ")") + ";";
  }
  d.paragraph(settings);
  for (const std::string& w : run.warnings) d.note("Warning: " + w);
  std::string totals = "Totals:";
  for (const auto& [outcome, count] : report.totals.outcomes) totals += " " + std::string(to_string(outcome)) + " " + std::to_string(count) + ";";
  if (report.totals.not_run) totals += " not-run " + std::to_string(report.totals.not_run) + ";";
  d.paragraph(totals);
}

void add_results(doc::Document& d, const GpuReport& report) {
  d.heading("Results");
  doc::Table t;
  t.headers = {"Hazard", "Variant", "Kind", "Outcome", "Trials", "Hazard seen", "Seed"};
  for (const CaseLine& c : case_lines(report))
    t.add({c.group, c.name, c.kind, c.outcome, c.trials, c.seen, c.seed}, standing_class(c.standing));
  d.table(std::move(t));
}

void add_device(doc::Document& d, const GpuReport& report) {
  d.heading("Device");
  if (!report.device) {
    d.paragraph("No usable GPU: " + report.no_device_reason + ".");
    return;
  }
  const DeviceFingerprint& g = *report.device;
  std::string link = "unknown (" + g.pcie.unavailable_reason + ")";
  if (g.pcie.available) {
    char text[160];
    std::snprintf(text, sizeof text, "Gen%d x%d at most (%.1f GB/s raw per direction); Gen%d x%d when read",
                  g.pcie.max_generation, g.pcie.max_width, g.pcie.max_raw_gbps_per_direction(),
                  g.pcie.current_generation, g.pcie.current_width);
    link = text;
  }
  doc::Table t;
  t.headers = {"Property", "Value"};
  t.add({"Name", g.name});
  t.add({"UUID", doc::code(g.uuid)});
  t.add({"PCI bus id", doc::code(g.pci_bus_id)});
  t.add({"nvidia-smi index",
         (g.nvidia_smi_index >= 0 ? std::to_string(g.nvidia_smi_index) : "?") + (g.mig ? " (MIG instance)" : "")});
  t.add({"Compute capability", g.compute_capability()});
  t.add({"Driver", (g.driver_release.empty() ? "?" : g.driver_release) + " (supports CUDA " +
                       cuda_version(g.driver_version) + ")"});
  t.add({"CUDA runtime", cuda_version(g.runtime_version)});
  t.add({"Memory", number_text("%.1f GiB, ", static_cast<double>(g.total_memory_bytes) / (1024.0 * 1024.0 * 1024.0)) +
                       std::to_string(g.multiprocessor_count) + " multiprocessors"});
  t.add({"Copy engines (asyncEngineCount)", std::to_string(g.async_engine_count)});
  t.add({"concurrentKernels", yes_no(g.concurrent_kernels)});
  t.add({"canMapHostMemory", yes_no(g.can_map_host_memory)});
  t.add({"unifiedAddressing", yes_no(g.unified_addressing)});
  t.add({"integrated", yes_no(g.integrated)});
  t.add({"pageableMemoryAccess", yes_no(g.pageable_memory_access) + " (uses host page tables: " +
                                     yes_no(g.pageable_memory_access_uses_host_page_tables) + ")"});
  t.add({"hostRegisterSupported", yes_no(g.host_register_supported)});
  t.add({"memoryPoolsSupported", yes_no(g.memory_pools_supported)});
  t.add({"ECC", yes_no(g.ecc_enabled)});
  t.add({"PCIe link (NVML)", link});
  d.table(std::move(t));
}

void add_hazards(doc::Document& d, const GpuReport& report) {
  d.heading("Hazards");
  const std::string prefix = report.file_stem();
  for (const HazardEntry& he : report.hazards) {
    const CatalogHazard& h = he.hazard;
    d.subheading(h.id + ": " + h.title);
    d.paragraph(h.explanation);
    d.paragraph("Documented rules:");
    std::vector<doc::Item> rules;
    for (const Citation& c : h.rules) rules.push_back({c.document + ", " + c.section + ": " + c.says, {}});
    d.list(std::move(rules));
    d.paragraph("Variants:");
    std::vector<doc::Item> variants;
    for (const VariantEntry& v : he.variants) {
      doc::Item item{doc::strong(v.id) + " (" + std::string(to_string(v.kind)) + ", " + v.title + "): " +
                         doc::strong(outcome_text(v)) + ", " + headline(v),
                     {}};
      if (const auto& r = v.result) {
        if (!r->finding.empty()) item.children.push_back("Finding: " + r->finding + ".");
        if (r->mutation_check) {
          item.children.push_back(
              "Mutation check (the same property without the guard's synchronization): " +
              std::string(r->mutation_check->caught ? "caught, " : "NOT caught, ") +
              std::string(to_string(r->mutation_check->outcome_without_synchronization)) + ".");
        }
        if (!r->minimal_case.is_null()) item.children.push_back("Smallest failing case: " + doc::code(r->minimal_case.dump()));
        if (r->seed && r->outcome != Outcome::Passed) {
          item.children.push_back("Replay: " + doc::code(std::string(setting::kSeed.name) + "=" + std::to_string(*r->seed) +
                                                         " ctest --test-dir <build> -R '^" + prefix + '/' + h.id + '/' +
                                                         v.id + "$' --output-on-failure"));
        }
      }
      variants.push_back(std::move(item));
    }
    d.list(std::move(variants));
  }
  std::vector<doc::Item> unknown;
  for (const VariantResult& r : report.unknown_results) {
    unknown.push_back({"Result for an unregistered case " + doc::code(r.hazard_id + '/' + r.variant_id) + ": " +
                           std::string(to_string(r.outcome)) + ", " + r.reason,
                       {}});
  }
  if (!unknown.empty()) d.list(std::move(unknown));
}

void add_how_to_read(doc::Document& d) {
  d.heading("How to read this report");
  d.list({{doc::strong("control") + " variants do the unsafe thing on purpose while a gate holds the stream closed. "
                                    "REPRODUCED means the hazard showed in every trial, which proves the suite can see "
                                    "it. NOT-REPRODUCED fails the GPU; INCONCLUSIVE says why the trials could not "
                                    "decide (a copy call that waited for the stream, a gate that timed out).",
           {}},
          {doc::strong("guard") + " variants add one synchronization. PASSED means every generated case (size, host "
                                  "offset, pattern, memory and stream kind, gate and device delays) was correct. "
                                  "INCORRECT gives the smallest failing case and the seed that replays it.",
           {}},
          {doc::strong("rule") + " variants check what the CUDA documentation promises without a guard, the same way.",
           {}},
          {doc::strong("observation") + " variants report what this GPU and driver do where the documentation leaves "
                                        "it open; they never fail the GPU.",
           {}},
          {"FAILED means a CUDA call failed (the call, file and line are given); SKIPPED means the case could not run "
           "here and says why. Neither counts as passed.",
           {}},
          {"The verdict is FAIL if any case failed, was incorrect or missed its hazard; INCONCLUSIVE if any could not "
           "decide; PARTIAL if some registered case did not run in this run (never a pass for what did not run); "
           "SKIPPED if nothing ran; PASS otherwise.",
           {}}});
}

doc::Document gpu_document(const GpuReport& report) {
  const std::string gpu = report.device ? "GPU " + std::to_string(report.device->index) + ": " + report.device->name
                                        : std::string("no GPU");
  doc::Document d{"hazardlab report: " + gpu, kStyle, {}};
  const std::string verdict(to_string(report.verdict));
  d.paragraph(doc::strong("Verdict: " + verdict) + ": " + report.verdict_reason + ".", "verdict " + verdict);
  d.paragraph("Generated " + report.generated_at + " on host " + doc::code(report.host) + " by hazardlab " +
              report.hazardlab_version + " (report schema " + kReportSchema + " version " +
              std::to_string(kReportSchemaVersion) + ").");
  add_run(d, report);
  add_results(d, report);
  add_device(d, report);
  add_performance(d, report);
  add_race_windows(d, report);
  add_soak(d, report);
  add_hazards(d, report);
  add_how_to_read(d);
  return d;
}

}  // namespace

std::vector<CaseLine> case_lines(const GpuReport& report) {
  std::vector<CaseLine> lines;
  for (const HazardEntry& he : report.hazards) {
    for (const VariantEntry& v : he.variants) {
      CaseLine c{he.hazard.id, v.id, std::string(to_string(v.kind)), Standing::NotRun, outcome_text(v)};
      if (!v.result) {
        c.message = "did not run in run " + report.run.id + " (not selected, or the run ended before it)";
      } else {
        const VariantResult& r = *v.result;
        c.standing = standing_of(r.outcome);
        c.seconds = r.duration_ms / 1000;
        c.type = std::string(to_string(r.outcome));
        c.message = r.reason;
        if (r.trials > 0) {
          c.trials = std::to_string(r.trials);
          if (v.kind == VariantKind::Control || v.kind == VariantKind::Observation)
            c.seen = std::to_string(r.reproduced) + " of " + std::to_string(r.trials);
        }
        if (r.seed) c.seed = std::to_string(*r.seed);
      }
      lines.push_back(std::move(c));
    }
  }
  for (const MeasurementGroup part : kPerfParts) {
    CaseLine c{"perf", std::string(to_string(part)), "measurement", Standing::NotRun, "NOT RUN"};
    const PerfRecord* record = nullptr;
    for (const PerfRecord& p : report.perf)
      if (p.part == part) record = &p;
    if (!record) {
      c.message = "did not run in run " + report.run.id;
      lines.push_back(std::move(c));
      continue;
    }
    c.seconds = record->duration_ms / 1000;
    c.type = std::string(to_string(record->status));
    c.outcome = upper(c.type);
    c.message = record->reason;
    c.standing = record->status == PerfStatus::Failed    ? Standing::Bad
                 : record->status == PerfStatus::Skipped ? Standing::NotRun
                                                         : Standing::Good;
    for (const perf::Check& check : record->checks) {
      if (check.missed() || (check.applicable && !check.decided())) {
        c.standing = Standing::Bad;  // CI reads an undecided threshold as a failure of the run
        c.type = check.missed() ? "threshold-missed" : "untrusted-measurement";
        c.message += (c.message.empty() ? "" : "; ") + check.description + ": " + check.detail();
      }
    }
    lines.push_back(std::move(c));
  }
  return lines;
}

const char* standing_class(Standing s) noexcept {
  switch (s) {
    case Standing::Good:
      return "good";
    case Standing::Bad:
      return "bad";
    case Standing::Undecided:
      return "warn";
    case Standing::NotRun:
      return "idle";
  }
  return "bad";
}

std::string report_to_markdown(const GpuReport& report) { return doc::to_markdown(gpu_document(report)); }

std::string report_to_html(const GpuReport& report) { return doc::to_html(gpu_document(report)); }

}  // namespace hazardlab
