#include <cstdio>
#include <sstream>

#include "hazardlab/report.hpp"
#include "number_text.hpp"
#include "race_window_section.hpp"
#include "soak_section.hpp"

namespace hazardlab {
namespace {

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string cuda_version(int v) {
  return v ? std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10) : std::string("unknown");
}

// Table cells must not break the table.
std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string outcome_text(const VariantEntry& v) {
  if (!v.result) return "not run";
  std::string text = std::string(to_string(v.result->outcome));
  for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string headline(const VariantEntry& v) {
  if (!v.result)
    return "no result in this run (not selected, the run ended before it, or its result could not be written).";
  const VariantResult& r = *v.result;
  std::ostringstream out;
  switch (r.outcome) {
    case Outcome::Reproduced:
      out << "the hazard showed in all " << r.trials << " gated trials.";
      break;
    case Outcome::Passed:
      out << "held in all " << r.trials << " generated cases (seed " << (r.seed ? std::to_string(*r.seed) : "-")
          << ").";
      break;
    default:
      out << r.reason;
  }
  return out.str();
}

// What the run was: its id, complete or partial (and what did not run), the selection, the
// settings in force.
void run_section(std::ostringstream& md, const GpuReport& report) {
  const RunRecord& run = report.run;
  md << "Run `" << run.id << "`, started " << run.started_at << (run.ended_at.empty() ? "" : ", ended " + run.ended_at)
     << ". ";
  if (report.complete()) {
    md << "**Complete**: "
       << (report.device ? "every registered case ran on this GPU.\n\n"
                         : "every registered case was recorded (skipped: no usable GPU).\n\n");
  } else {
    md << "**Partial**: " << report.not_run.size()
       << " registered case(s) did not run on this GPU, so this report does not replace the last complete one.\n\n"
       << "<details><summary>Did not run</summary>\n\n";
    for (const std::string& name : report.not_run) md << "- `" << name << "`\n";
    md << "\n</details>\n\n";
  }
  md << "Selection: " << (run.selection.all() ? std::string("all cases") : std::string("filtered by"));
  for (const std::string& f : run.selection.filters) md << " `" << cell(f) << '`';
  if (!run.sanitizer.empty()) md << "; under compute-sanitizer `" << run.sanitizer << '`';
  md << ".\n\nSettings in force:";
  for (const RecordedSetting& s : run.settings) {
    md << " `" << s.name << '=' << s.value << '`' << (s.from_environment ? " (set)" : "")
       << (s.note.empty() ? "" : " (" + s.note + ")") << ';';
  }
  md << "\n\n";
  for (const std::string& w : run.warnings) md << "> Warning: " << w << "\n\n";
}

void device_section(std::ostringstream& md, const GpuReport& report) {
  md << "## Device\n\n";
  if (!report.device) {
    md << "No usable GPU: " << report.no_device_reason << ".\n\n";
    return;
  }
  const DeviceFingerprint& d = *report.device;
  char memory[64];
  std::snprintf(memory, sizeof memory, "%.1f GiB, %d multiprocessors",
                static_cast<double>(d.total_memory_bytes) / (1024.0 * 1024.0 * 1024.0), d.multiprocessor_count);
  std::string link = "unknown (" + d.pcie.unavailable_reason + ")";
  if (d.pcie.available) {
    char text[160];
    std::snprintf(text, sizeof text, "Gen%d x%d at most (%.1f GB/s raw per direction); Gen%d x%d when read",
                  d.pcie.max_generation, d.pcie.max_width, d.pcie.max_raw_gbps_per_direction(),
                  d.pcie.current_generation, d.pcie.current_width);
    link = text;
  }
  md << "| Property | Value |\n|---|---|\n"
     << "| Name | " << cell(d.name) << " |\n"
     << "| UUID | `" << d.uuid << "` |\n"
     << "| PCI bus id | `" << d.pci_bus_id << "` |\n"
     << "| nvidia-smi index | " << (d.nvidia_smi_index >= 0 ? std::to_string(d.nvidia_smi_index) : "?")
     << (d.mig ? " (MIG instance)" : "") << " |\n"
     << "| Compute capability | " << d.compute_capability() << " |\n"
     << "| Driver | " << (d.driver_release.empty() ? "?" : d.driver_release) << " (supports CUDA "
     << cuda_version(d.driver_version) << ") |\n"
     << "| CUDA runtime | " << cuda_version(d.runtime_version) << " |\n"
     << "| Memory | " << memory << " |\n"
     << "| Copy engines (asyncEngineCount) | " << d.async_engine_count << " |\n"
     << "| concurrentKernels | " << yes_no(d.concurrent_kernels) << " |\n"
     << "| canMapHostMemory | " << yes_no(d.can_map_host_memory) << " |\n"
     << "| unifiedAddressing | " << yes_no(d.unified_addressing) << " |\n"
     << "| integrated | " << yes_no(d.integrated) << " |\n"
     << "| pageableMemoryAccess | " << yes_no(d.pageable_memory_access)
     << " (uses host page tables: " << yes_no(d.pageable_memory_access_uses_host_page_tables) << ") |\n"
     << "| hostRegisterSupported | " << yes_no(d.host_register_supported) << " |\n"
     << "| memoryPoolsSupported | " << yes_no(d.memory_pools_supported) << " |\n"
     << "| ECC | " << yes_no(d.ecc_enabled) << " |\n"
     << "| PCIe link (NVML) | " << cell(link) << " |\n\n";
}

void performance_section(std::ostringstream& md, const GpuReport& report) {
  if (report.perf.empty()) return;
  md << "## Performance\n\n";
  for (const PerfRecord& p : report.perf) {
    if (p.status != PerfStatus::Measured)
      md << "- " << p.part << ": " << to_string(p.status) << ": " << p.reason << '\n';
  }
  md << "\n| Check | Result | Measured | Why this threshold |\n|---|---|---|---|\n";
  for (const PerfRecord& p : report.perf) {
    for (const perf::Check& c : p.checks) {
      md << "| " << cell(c.description) << " | **" << c.result_word() << "** | " << cell(c.detail()) << " | "
         << cell(c.rationale) << " |\n";
    }
  }
  for (const PerfRecord& p : report.perf) {
    for (const perf::Check& c : p.checks) {
      if (c.attempts.empty()) continue;
      md << "\n`" << c.id << "`: a miss was measured again before deciding:\n\n";
      for (const std::string& a : c.attempts) md << "- " << cell(a) << '\n';
    }
  }
  char text[200];
  for (const PerfRecord& p : report.perf) {
    const auto& m = p.measurements;
    if (m.contains("bandwidth")) {
      md << "\nBandwidth (" << p.profile << " profile; median GB/s of event-timed loops of copies, with the spread "
         << "of the samples; link raw rate " << m.value("link_raw_gbps_per_direction", 0.0)
         << " GB/s per direction):\n\n"
         << "| Direction | Host memory | Bytes | Median | Min | Max | CV | IQR | Attempts |\n"
         << "|---|---|---|---|---|---|---|---|---|\n";
      for (const auto& b : m["bandwidth"]) {
        std::snprintf(text, sizeof text, "| %s | %s | %zu | %.2f | %.2f | %.2f | %.1f%% | %.2f | %zu |\n",
                      b["direction"].get<std::string>().c_str(), b["host_memory"].get<std::string>().c_str(),
                      b["bytes"].get<std::size_t>(), b["median_gbps"].get<double>(), b["min_gbps"].get<double>(),
                      b["max_gbps"].get<double>(), b.value("cv", 0.0) * 100, b.value("iqr_gbps", 0.0),
                      b.contains("attempts") ? b["attempts"].size() : std::size_t{1});
        md << text;
      }
      for (const auto& r : m.value("bidirectional", nlohmann::json::array())) {
        std::snprintf(text, sizeof text,
                      "\nBidirectional (nvbandwidth's method: the opposite direction runs alongside, twice the bytes "
                      "per copy): %s measured at %zu B: %.2f GB/s (CV %.1f%%).\n",
                      r["measured"].get<std::string>().c_str(), r["bytes"].get<std::size_t>(),
                      r["median_gbps"].get<double>(), r["spread"].value("cv", 0.0) * 100);
        md << text;
      }
      if (m.contains("reference")) {
        md << "\nBeside nvbandwidth, measured on this GPU in the same case (`" << m["reference"].value("tool", "")
           << "`; its figure is the median of " << m["reference"].value("runs_per_size", 1)
           << " runs):\n\n| Figure | Bytes | hazardlab GB/s | nvbandwidth GB/s | its runs | Ratio |\n"
              "|---|---|---|---|---|---|\n";
        for (const auto& f : m["reference"]["figures"]) {
          std::string runs;
          for (const auto& v : f.value("nvbandwidth_runs_gbps", nlohmann::json::array()))
            runs += (runs.empty() ? "" : ", ") + number_text("%.2f", v.get<double>());
          std::snprintf(text, sizeof text, "| %s | %zu | %.2f | %.2f | %s | %.3f |\n",
                        f["figure"].get<std::string>().c_str(), f["bytes"].get<std::size_t>(),
                        f["hazardlab_gbps"].get<double>(), f["nvbandwidth_gbps"].get<double>(), runs.c_str(),
                        f["ratio"].get<double>());
          md << text;
        }
        for (const auto& e : m["reference"].value("errors", nlohmann::json::array()))
          md << "\n> nvbandwidth: " << cell(e.get<std::string>()) << '\n';
      }
      for (const auto& all : m.value("all_gpus_at_once", nlohmann::json::array())) {
        std::snprintf(text, sizeof text,
                      "\n**All GPUs at once** (%s, %zu B per GPU, released together): %.2f GB/s in total;",
                      all["direction"].get<std::string>().c_str(), all["bytes"].get<std::size_t>(),
                      all["total_gbps"].get<double>());
        md << text;
        for (const auto& g : all["per_gpu"]) {
          std::snprintf(text, sizeof text, " GPU %d %.2f;", g["device_index"].get<int>(), g["gbps"].get<double>());
          md << text;
        }
        md << '\n';
      }
    }
    if (m.contains("host_placement")) {
      const auto& h = m["host_placement"];
      md << "\n"
         << p.part << ": host thread on NUMA node " << h.value("numa_node", -1) << ", CPUs "
         << h.value("cpus", std::string("?"))
         << (h.value("bound_to_gpu_cpus", false) ? " (bound to the GPU's CPUs)"
                                                 : " (not bound: " + h.value("not_bound_reason", std::string()) + ")");
      if (m.contains("isolation"))
        md << (m["isolation"].value("alone_on_host", false) ? "; measured alone on the host"
                                                            : "; NOT measured alone on the host");
      md << ".\n";
    }
    if (m.contains("overlap")) {
      md << "\nCopy/compute overlap (share of the shorter operation hidden):\n\n"
         << "| Host memory | Streams | Kernel ms | Copy ms | Together ms | Hidden |\n|---|---|---|---|---|---|\n";
      for (const auto& o : m["overlap"]) {
        std::snprintf(text, sizeof text, "| %s | %s | %.2f | %.2f | %.2f | %.0f%% |\n",
                      o["host_memory"].get<std::string>().c_str(), o["streams"].get<std::string>().c_str(),
                      o["kernel_ms"].get<double>(), o["copy_ms"].get<double>(), o["both_ms"].get<double>(),
                      o["fraction_hidden"].get<double>() * 100);
        md << text;
      }
    }
    if (m.contains("findings")) {
      md << "\nThe tutorial's comparisons, measured here:\n\n| Question | A | ms | B | ms | B/A "
            "|\n|---|---|---|---|---|---|\n";
      for (const auto& f : m["findings"]) {
        std::snprintf(text, sizeof text, " | %.2f | ", f["a_ms"].get<double>());
        md << "| " << cell(f["question"].get<std::string>()) << " | " << cell(f["a"].get<std::string>()) << text
           << cell(f["b"].get<std::string>());
        std::snprintf(text, sizeof text, " | %.2f | %.2f |\n", f["b_ms"].get<double>(), f["b_over_a"].get<double>());
        md << text;
      }
    }
  }
  md << '\n';
}

}  // namespace

std::string report_to_markdown(const GpuReport& report) {
  std::ostringstream md;
  const std::string gpu = report.device ? "GPU " + std::to_string(report.device->index) + ": " + report.device->name
                                        : std::string("no GPU");
  md << "# hazardlab report: " << gpu << "\n\n"
     << "**Verdict: " << to_string(report.verdict) << "**: " << report.verdict_reason << ".\n\n"
     << "Generated " << report.generated_at << " on host `" << report.host << "` by hazardlab "
     << report.hazardlab_version << " (report schema " << kReportSchema << " version " << kReportSchemaVersion
     << ").\n\n";

  run_section(md, report);
  md << "Totals:";
  for (const auto& [name, count] : report.totals) md << ' ' << name << ' ' << count << ';';
  md << "\n\n## Results\n\n| Hazard | Variant | Kind | Outcome | Trials | Hazard seen | Seed "
        "|\n|---|---|---|---|---|---|---|\n";
  for (const HazardEntry& he : report.hazards) {
    for (const VariantEntry& v : he.variants) {
      md << "| " << he.hazard.id << " | " << v.id << " | " << to_string(v.kind) << " | " << outcome_text(v) << " | "
         << (v.result && v.result->trials > 0 ? std::to_string(v.result->trials) : "-") << " | "
         << (v.result && v.result->trials > 0 && (v.kind == VariantKind::Control || v.kind == VariantKind::Observation)
                 ? std::to_string(v.result->reproduced) + " of " + std::to_string(v.result->trials)
                 : std::string("-"))
         << " | " << (v.result && v.result->seed ? std::to_string(*v.result->seed) : "-") << " |\n";
    }
  }
  md << '\n';
  device_section(md, report);
  performance_section(md, report);
  race_windows_markdown(md, report);
  soak_markdown(md, report);

  md << "## Hazards\n\n";
  const std::string prefix = report.file_stem();
  for (const HazardEntry& he : report.hazards) {
    const CatalogHazard& h = he.hazard;
    md << "### " << h.id << ": " << h.title << "\n\n" << h.explanation << "\n\nDocumented rules:\n";
    for (const Citation& c : h.rules) md << "- *" << c.document << "*, " << c.section << ": " << c.says << '\n';
    md << "\nVariants:\n";
    for (const VariantEntry& v : he.variants) {
      md << "- **" << v.id << "** (" << to_string(v.kind) << ", " << v.title << "): **" << outcome_text(v) << "**, "
         << headline(v) << '\n';
      if (!v.result) continue;
      const VariantResult& r = *v.result;
      if (!r.finding.empty()) md << "  - Finding: " << r.finding << ".\n";
      if (r.mutation_check) {
        md << "  - Mutation check (the same property without the guard's synchronization): "
           << (r.mutation_check->caught ? "caught, " : "NOT caught, ")
           << to_string(r.mutation_check->outcome_without_synchronization) << ".\n";
      }
      if (!r.minimal_case.is_null()) md << "  - Smallest failing case: `" << r.minimal_case.dump() << "`\n";
      if (r.seed && r.outcome != Outcome::Passed) {
        md << "  - Replay: `HAZARDLAB_SEED=" << *r.seed << " ctest --test-dir <build> -R '^" << prefix << '/' << h.id
           << '/' << v.id << "$' --output-on-failure`\n";
      }
    }
    md << '\n';
  }
  for (const VariantResult& r : report.unknown_results) {
    md << "- Result for an unregistered case `" << r.hazard_id << '/' << r.variant_id << "`: " << to_string(r.outcome)
       << ", " << r.reason << '\n';
  }

  md << "## How to read this report\n\n"
     << "- **control** variants do the unsafe thing on purpose while a gate holds the stream closed. "
        "REPRODUCED means the hazard showed in every trial, which proves the suite can see it. NOT-REPRODUCED "
        "fails the GPU; INCONCLUSIVE says why the trials could not decide (a copy call that waited for the "
        "stream, a gate that timed out).\n"
     << "- **guard** variants add one synchronization. PASSED means every generated case (size, host offset, "
        "pattern, memory and stream kind, gate and device delays) was correct. INCORRECT gives the smallest "
        "failing case and the seed that replays it.\n"
     << "- **rule** variants check what the CUDA documentation promises without a guard, the same way.\n"
     << "- **observation** variants report what this GPU and driver do where the documentation leaves it open; "
        "they never fail the GPU.\n"
     << "- FAILED means a CUDA call failed (the call, file and line are given); SKIPPED means the case could not "
        "run here and says why. Neither counts as passed.\n"
     << "- The verdict is FAIL if any case failed, was incorrect or missed its hazard; INCONCLUSIVE if any "
        "could not decide; PARTIAL if some registered case did not run in this run (never a pass for what did "
        "not run); SKIPPED if nothing ran; PASS otherwise.\n";
  return md.str();
}

}  // namespace hazardlab
