// A GPU's report reduced to its fleet row: what failed, the key bandwidth figures, how many
// positive controls showed their hazard.
#include "fleet_rows.hpp"

#include <ctime>

namespace hazardlab {
namespace {

// The pinned median at the key size in one direction, if the bandwidth group measured it.
std::optional<double> key_figure(const std::vector<PerfRecord>& perf, perf::Direction direction) {
  for (const PerfRecord& p : perf) {
    if (p.part != MeasurementGroup::Bandwidth || p.status != PerfStatus::Measured || !p.measurements.bandwidth) continue;
    for (const perf::BandwidthPoint& b : p.measurements.bandwidth->points) {
      if (b.direction == direction && b.host == HostMemoryKind::Pinned && b.bytes == kKeyFigureBytes)
        return b.median_gbps;
    }
  }
  return std::nullopt;
}

void count_outcome(FleetRow& row, const std::string& name, const VariantResult& r) {
  switch (standing_of(r.outcome)) {
    case Standing::Bad:
      row.failing_cases.push_back(name);
      break;
    case Standing::Undecided:
      row.inconclusive_cases.push_back(name);
      break;
    default:
      break;
  }
  if (r.kind == VariantKind::Control && r.outcome != Outcome::Skipped) {
    ++row.controls_run;
    row.controls_reproduced += r.outcome == Outcome::Reproduced;
  }
}

}  // namespace

FleetRow row_from_report(const GpuReport& report) {
  FleetRow row;
  row.host = report.run.host.empty() ? report.host : report.run.host;
  row.has_gpu = report.device.has_value();
  if (const auto& d = report.device) {
    row.pci_bus_id = d->pci_bus_id;
    row.uuid = d->uuid;
    row.nvidia_smi_index = d->nvidia_smi_index;
    row.cuda_index = d->index;
    row.mig = d->mig;
    row.name = d->name;
    row.driver_release = d->driver_release;
  }
  row.no_device_reason = report.no_device_reason;
  row.verdict = fleet_verdict(report);
  row.verdict_reason = report.verdict_reason;
  for (const HazardEntry& h : report.hazards) {
    for (const VariantEntry& v : h.variants) {
      if (v.result) count_outcome(row, h.hazard.id + "/" + v.id, *v.result);
    }
  }
  for (const VariantResult& r : report.unknown_results) count_outcome(row, r.hazard_id + "/" + r.variant_id, r);
  for (const PerfRecord& p : report.perf) {
    if (p.status == PerfStatus::Failed) row.failing_checks.push_back("perf/" + std::string(to_string(p.part)));
    for (const perf::Check& c : p.checks) {
      if (c.missed()) row.failing_checks.push_back(c.id);
    }
  }
  row.pinned_h2d_gbps = key_figure(report.perf, perf::Direction::HostToDevice);
  row.pinned_d2h_gbps = key_figure(report.perf, perf::Direction::DeviceToHost);
  row.run_id = report.run.id;
  row.run_started_at = report.run.started_at;
  row.partial = !report.complete();
  row.profile = report.run.profile;
  return row;
}

Verdict fleet_verdict(const GpuReport& report) {
  return !report.device && report.verdict == Verdict::Partial ? Verdict::Skipped : report.verdict;
}

bool parse_utc(const std::string& text, long long& seconds) {
  static constexpr std::string_view kForm = "dddd-dd-ddTdd:dd:ddZ";
  if (text.size() != kForm.size()) return false;
  for (std::size_t i = 0; i < kForm.size(); ++i) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    if (kForm[i] == 'd' ? !digit : text[i] != kForm[i]) return false;
  }
  const auto number = [&](std::size_t at, std::size_t digits) { return std::stoi(text.substr(at, digits)); };
  const int year = number(0, 4), month = number(5, 2), day = number(8, 2);
  const int hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return false;
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  seconds = static_cast<long long>(::timegm(&tm));
  return true;
}

}  // namespace hazardlab
