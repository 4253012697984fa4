// The run in Prometheus's text exposition format (version 0.0.4): each metric family once, with its
// HELP and TYPE, then its samples. Every value is a gauge: a textfile holds the last run's state,
// and a counter would restart at every run.
#include "hazardlab/prometheus.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

#include "fleet_rows.hpp"
#include "hazardlab/settings_table.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// Label values escape backslash, double quote and newline; nothing else.
std::string escaped(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string number(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

// The families in order of first use; each gathers its samples so that a family is written whole.
class Exposition {
 public:
  void sample(const std::string& name, const std::string& help, const Labels& labels, double value) {
    auto it = std::find_if(families_.begin(), families_.end(), [&](const Family& f) { return f.name == name; });
    if (it == families_.end()) it = families_.insert(families_.end(), Family{name, help, {}});
    std::string line = name;
    if (!labels.empty()) {
      line += '{';
      for (std::size_t i = 0; i < labels.size(); ++i)
        line += (i ? "," : "") + labels[i].first + "=\"" + escaped(labels[i].second) + '"';
      line += '}';
    }
    it->lines.push_back(line + ' ' + number(value));
  }
  std::string text() const {
    std::string out;
    for (const Family& f : families_) {
      out += "# HELP " + f.name + ' ' + f.help + "\n# TYPE " + f.name + " gauge\n";
      for (const std::string& l : f.lines) out += l + '\n';
    }
    return out;
  }

 private:
  struct Family {
    std::string name, help;
    std::vector<std::string> lines;
  };
  std::vector<Family> families_;
};

// dcgm-exporter's labels for the same GPU: gpu is the NVML (nvidia-smi) index, as DCGM numbers GPUs.
Labels gpu_labels(const GpuReport& r, const std::string& host) {
  if (!r.device) return {{"Hostname", host}};
  const DeviceFingerprint& d = *r.device;
  const int gpu = d.nvidia_smi_index >= 0 ? d.nvidia_smi_index : d.index;
  return {{"gpu", std::to_string(gpu)},
          {"UUID", d.uuid},
          {"pci_bus_id", nvml_pci_bus_id(d.pci_bus_id)},
          {"modelName", d.name},
          {"Hostname", host}};
}

Labels with(Labels labels, const std::string& name, const std::string& value) {
  labels.emplace_back(name, value);
  return labels;
}

// The pinned figures the link check reads, and their threshold: the sizes and threshold the
// measurement recorded, else (an older run) the check's sizes and the recorded fraction of the link.
void bandwidth_samples(Exposition& e, const GpuReport& r, const Labels& labels, double fallback_fraction) {
  for (const PerfRecord& p : r.perf) {
    if (p.part != MeasurementGroup::Bandwidth || p.status != PerfStatus::Measured || !p.measurements.bandwidth) continue;
    const perf::BandwidthGroup& g = *p.measurements.bandwidth;
    const std::vector<std::size_t> checked = g.checked_sizes.value_or(
        std::vector<std::size_t>{std::size_t{64} << 20, std::size_t{256} << 20, std::size_t{1} << 30});
    const double threshold = g.link_threshold_gbps.value_or(g.link_raw_gbps_per_direction * fallback_fraction);
    for (const perf::BandwidthPoint& b : g.points) {
      if (b.host != HostMemoryKind::Pinned) continue;
      if (std::find(checked.begin(), checked.end(), b.bytes) == checked.end()) continue;
      const Labels l = with(with(with(labels, "direction", std::string(to_string(b.direction))), "host_memory",
                                 std::string(to_string(b.host))),
                            "bytes", std::to_string(b.bytes));
      e.sample("hazardlab_bandwidth_bytes_per_second",
               "Median bandwidth of a copy the link check reads (pinned host memory), in bytes per second.", l,
               std::round(b.median_gbps * 1e9));  // whole bytes: no 1e-6 tails
      if (threshold > 0) {
        e.sample("hazardlab_bandwidth_threshold_bytes_per_second",
                 "The link check's threshold for that figure (HAZARDLAB_MIN_LINK_FRACTION of the PCIe link's raw "
                 "rate), in bytes per second.",
                 l, std::round(threshold * 1e9));
      }
    }
  }
}

double recorded_fraction(const RunRecord& run) {
  if (const RecordedSetting* s = run.setting(setting::kMinLinkFraction.name)) {
    try {
      return std::stod(s->value);
    } catch (const std::exception&) {
    }
  }
  return 0;
}

}  // namespace

std::string nvml_pci_bus_id(const std::string& cuda_id) {
  const auto colon = cuda_id.find(':');
  if (colon == std::string::npos || colon >= 8) return cuda_id;
  std::string out = std::string(8 - colon, '0') + cuda_id;
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

std::string reports_to_prometheus(const std::vector<GpuReport>& reports, const RunRecord& run) {
  Exposition e;
  const std::string host = run.host.empty() ? host_name() : run.host;
  const std::string profile(to_string(run.profile));
  const double fraction = recorded_fraction(run);
  for (const GpuReport& r : reports) {
    const Labels labels = gpu_labels(r, host);
    for (Verdict v : {Verdict::Pass, Verdict::Fail, Verdict::Inconclusive, Verdict::Partial, Verdict::Skipped}) {
      e.sample("hazardlab_gpu_verdict",
               "The GPU's verdict in hazardlab's last run: 1 on the series of its verdict, 0 on the others.",
               with(with(labels, "verdict", std::string(to_string(v))), "profile", profile), r.verdict == v ? 1 : 0);
    }
  }
  for (const GpuReport& r : reports) {
    const Labels labels = gpu_labels(r, host);
    std::map<std::string, int> counts;  // every outcome, zero or not, by name (the label's order)
    for (Outcome o : {Outcome::Passed, Outcome::Failed, Outcome::Incorrect, Outcome::Skipped, Outcome::Reproduced,
                      Outcome::NotReproduced, Outcome::Inconclusive, Outcome::Observed})
      counts[std::string(to_string(o))] = r.totals.of(o);
    counts["not-run"] = r.totals.not_run;
    for (const auto& [name, count] : counts) {
      e.sample("hazardlab_gpu_cases", "The GPU's cases in the last run, by outcome (not-run: registered, no result).",
               with(labels, "outcome", name), count);
    }
  }
  for (const GpuReport& r : reports) bandwidth_samples(e, r, gpu_labels(r, host), fraction);
  for (const GpuReport& r : reports) {
    for (const PerfRecord& p : r.perf) {
      for (const perf::Check& c : p.checks) {
        if (!c.decided()) continue;
        e.sample("hazardlab_check_passed", "A validation threshold's check: 1 met, 0 missed (undecided ones absent).",
                 with(gpu_labels(r, host), "check", c.id), c.passed ? 1 : 0);
      }
    }
  }
  const Labels run_labels = {{"Hostname", host}, {"profile", profile}};
  long long start = 0, end = 0;
  const bool started = parse_utc(run.started_at, start), ended = parse_utc(run.ended_at, end);
  if (started) {
    e.sample("hazardlab_run_start_timestamp_seconds", "When the last run started, in seconds since the Unix epoch.",
             run_labels, static_cast<double>(start));
  }
  if (ended) {
    e.sample("hazardlab_run_end_timestamp_seconds", "When the last run ended, in seconds since the Unix epoch.",
             run_labels, static_cast<double>(end));
  }
  if (started && ended) {
    e.sample("hazardlab_run_duration_seconds", "How long the last run took, in seconds.", run_labels,
             static_cast<double>(end - start));
  }
  e.sample("hazardlab_run_complete", "1 if every case of the last run's profile ran, 0 for a partial run.",
           run_labels, run.complete ? 1 : 0);
  return e.text();
}

}  // namespace hazardlab
