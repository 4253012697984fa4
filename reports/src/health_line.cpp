#include "hazardlab/health_line.hpp"

#include <algorithm>
#include <cstdio>

namespace hazardlab {
namespace {

constexpr std::size_t kReasonLimit = 200;  // Slurm keeps a node's reason whole; short enough for sinfo -R

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// The link check's misses, with their figure: "pinned H2D 31.2 GB/s < 80% of PCIe Gen5 x16".
std::vector<std::string> link_misses(const GpuReport& r) {
  std::vector<std::string> misses;
  for (const PerfRecord& p : r.perf) {
    if (p.part != MeasurementGroup::Bandwidth || !p.measurements.bandwidth) continue;
    const perf::BandwidthGroup& g = *p.measurements.bandwidth;
    const double link = g.link_raw_gbps_per_direction;
    const double threshold = g.link_threshold_gbps.value_or(0);
    if (link <= 0 || threshold <= 0) continue;
    const std::vector<std::size_t> checked = g.checked_sizes.value_or(std::vector<std::size_t>{});
    for (const perf::BandwidthPoint& b : g.points) {
      if (b.host != HostMemoryKind::Pinned) continue;
      if (std::find(checked.begin(), checked.end(), b.bytes) == checked.end()) continue;
      if (b.median_gbps >= threshold) continue;
      char text[160];
      std::snprintf(text, sizeof text, "pinned %s %.1f GB/s < %.0f%% of PCIe Gen%d x%d",
                    upper(std::string(to_string(b.direction))).c_str(), b.median_gbps, threshold / link * 100,
                    r.device ? r.device->pcie.max_generation : 0, r.device ? r.device->pcie.max_width : 0);
      misses.emplace_back(text);
    }
  }
  return misses;
}

}  // namespace

std::string gpu_problem(const GpuReport& r) {
  if (r.verdict == Verdict::Pass) return "";
  if (!r.device) return "no usable GPU: " + r.no_device_reason;
  std::vector<std::string> problems = link_misses(r);
  for (const PerfRecord& p : r.perf) {
    if (p.status == PerfStatus::Failed) problems.push_back(std::string(to_string(p.part)) + " failed: " + p.reason);
    for (const perf::Check& c : p.checks) {
      if (c.missed() && c.id.rfind("pinned-", 0) != 0) problems.push_back(c.id + ": " + c.measured);
      if (c.missed() && c.id.rfind("pinned-", 0) == 0 && problems.empty()) problems.push_back(c.id + " missed");
      if (c.applicable && !c.decided()) problems.push_back(c.id + " undecided: " + c.untrusted_reason);
    }
  }
  std::vector<std::string> cases;
  for (const HazardEntry& h : r.hazards) {
    for (const VariantEntry& v : h.variants) {
      if (v.result && standing_of(v.result->outcome) != Standing::Good && v.result->outcome != Outcome::Skipped)
        cases.push_back(h.hazard.id + "/" + v.id + " " + std::string(to_string(v.result->outcome)));
    }
  }
  if (!cases.empty())
    problems.push_back(cases.front() + (cases.size() > 1 ? " (+" + std::to_string(cases.size() - 1) + " more)" : ""));
  if (problems.empty()) problems.push_back(r.verdict_reason);
  std::string text;
  for (const std::string& p : problems) text += (text.empty() ? "" : "; ") + p;
  return text;
}

std::string node_health_line(const std::vector<GpuReport>& reports, const RunRecord& run) {
  const std::string profile(to_string(run.profile));
  const GpuReport* first = nullptr;
  int others = 0;
  for (const GpuReport& r : reports) {
    if (r.verdict == Verdict::Pass) continue;
    if (!first) first = &r;
    else ++others;
  }
  if (!first) {
    return "hazardlab: PASS: " + std::to_string(reports.size()) + " GPU" + (reports.size() == 1 ? "" : "s") +
           " healthy (" + profile + " profile)";
  }
  std::string who = first->device ? first->file_stem() + " (" + first->device->pci_bus_id + ") " : "";
  std::string why = gpu_problem(*first);
  const std::string more = others ? " (+" + std::to_string(others) + " more GPU" + (others == 1 ? "" : "s") + " not PASS)" : "";
  const std::string head = "hazardlab: " + who + std::string(to_string(first->verdict)) + ": ";
  const std::size_t room = kReasonLimit > head.size() + more.size() ? kReasonLimit - head.size() - more.size() : 0;
  if (why.size() > room) why = why.substr(0, room > 3 ? room - 3 : 0) + "...";
  return head + why + more;
}

}  // namespace hazardlab
