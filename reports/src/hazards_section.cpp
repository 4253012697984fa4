// The hazards' section of a GPU's report, every hazard's lesson with its variants' outcomes, and how to read
// the report.
#include "gpu_content.hpp"
#include "hazardlab/settings_table.hpp"

namespace hazardlab {
namespace {

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

}  // namespace

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

}  // namespace hazardlab
