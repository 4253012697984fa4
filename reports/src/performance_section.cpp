// The performance section of a GPU's report: the checks, then each measurement group's figures
// (hazardlab/measurements.hpp) with their spread and every attempt, and plots of bandwidth against size.
#include <algorithm>
#include <cmath>
#include <map>

#include "gpu_content.hpp"
#include "hazardlab/number_text.hpp"

namespace hazardlab {
namespace {

using namespace perf;

std::string size_label(double bytes) {
  if (bytes >= 1 << 30) return number_text("%.0f GiB", bytes / (1 << 30));
  if (bytes >= 1 << 20) return number_text("%.0f MiB", bytes / (1 << 20));
  if (bytes >= 1 << 10) return number_text("%.0f KiB", bytes / (1 << 10));
  return number_text("%.0f B", bytes);
}

std::string gbps_list(const std::vector<double>& values) {
  std::string text;
  for (double v : values) text += (text.empty() ? "" : ", ") + number_text("%.2f", v);
  return text;
}

const char* colour_of(HostMemoryKind kind) {
  switch (kind) {
    case HostMemoryKind::Pinned:
      return "#1f77b4";
    case HostMemoryKind::Pageable:
      return "#d62728";
    case HostMemoryKind::Registered:
      return "#2ca02c";
    case HostMemoryKind::WriteCombined:
      return "#9467bd";
    default:
      return "#7f7f7f";
  }
}

// Bandwidth against size on a log2 axis, one line per host memory kind (each kind one colour in
// both directions), the link's raw rate dashed.
doc::Plot bandwidth_plot(const std::vector<BandwidthPoint>& points, Direction direction, double link) {
  const bool h2d = direction == Direction::HostToDevice;
  doc::Plot plot;
  plot.title = std::string(h2d ? "Host to device" : "Device to host") + " bandwidth (GB/s, median)";
  plot.description = std::string(h2d ? "host to device" : "device to host") + " bandwidth against size";
  plot.x_label = "copy size";
  plot.x_scale = doc::Plot::Scale::Log2;
  std::map<HostMemoryKind, doc::Plot::Series> series;
  double lo = 1e30, hi = 0, top = link;
  for (const BandwidthPoint& b : points) {
    if (b.direction != direction) continue;
    const double bytes = static_cast<double>(b.bytes);
    doc::Plot::Series& s = series[b.host];
    s.name = to_string(b.host);
    s.colour = colour_of(b.host);
    s.points.push_back({bytes, b.median_gbps,
                        s.name + ", " + size_label(bytes) + ": " + number_text("%.2f", b.median_gbps) + " GB/s"});
    lo = std::min(lo, bytes);
    hi = std::max(hi, bytes);
    top = std::max(top, b.median_gbps);
  }
  if (series.empty()) return plot;
  for (auto& [kind, s] : series) plot.series.push_back(std::move(s));
  plot.x_min = lo;
  plot.x_max = std::max(hi, 2 * lo);
  plot.y_max = std::ceil(top * 1.1 / 10) * 10;
  for (int i = 0; i <= 5; ++i) plot.y_ticks.push_back({plot.y_max * i / 5, number_text("%.0f", plot.y_max * i / 5)});
  for (double e = std::ceil(std::log2(lo)); e <= std::log2(plot.x_max); e += 2)
    plot.x_ticks.push_back({std::pow(2.0, e), size_label(std::pow(2.0, e))});
  if (link > 0) plot.rules.push_back({link, "PCIe link raw rate " + number_text("%.1f", link) + " GB/s"});
  return plot;
}

void add_bandwidth(doc::Document& d, const PerfRecord& p, const BandwidthGroup& g) {
  d.subheading("Bandwidth (" + p.profile + " profile)");
  d.paragraph("Median GB/s of event-timed loops of copies, with the spread of the samples; link raw rate " +
              number_text("%g", g.link_raw_gbps_per_direction) +
              " GB/s per direction. A figure under its floor was measured again: every attempt is listed.");
  d.plot(bandwidth_plot(g.points, Direction::HostToDevice, g.link_raw_gbps_per_direction));
  d.plot(bandwidth_plot(g.points, Direction::DeviceToHost, g.link_raw_gbps_per_direction));
  doc::Table t;
  t.headers = {"Direction", "Host memory", "Bytes", "Median", "Min", "Max", "CV", "IQR", "Attempts"};
  for (const BandwidthPoint& b : g.points) {
    std::string attempts = std::to_string(b.attempt_count());
    if (b.attempts.size() > 1) {
      std::vector<double> medians;
      for (const Attempt& a : b.attempts) medians.push_back(a.spread.median);
      attempts += " (" + gbps_list(medians) + (b.confirmed_miss ? "; every one under " : "; floor ") +
                  number_text("%.2f", b.floor_gbps) + ")";
    }
    t.add({std::string(to_string(b.direction)), std::string(to_string(b.host)), std::to_string(b.bytes),
           number_text("%.2f", b.median_gbps), number_text("%.2f", b.min_gbps), number_text("%.2f", b.max_gbps),
           number_text("%.1f%%", b.cv * 100), number_text("%.2f", b.iqr_gbps), attempts});
  }
  d.table(std::move(t));
  for (const BidirectionalResult& r : g.bidirectional) {
    d.paragraph(
        "Bidirectional (nvbandwidth's method: the opposite direction runs alongside, twice the bytes per "
        "copy): " +
        std::string(to_string(r.measured)) + " measured at " + std::to_string(r.bytes) +
        " B: " + number_text("%.2f", r.spread.median) + " GB/s (CV " + number_text("%.1f", r.spread.cv * 100) + "%).");
  }
  if (const auto& ref = g.reference) {
    d.paragraph("Beside nvbandwidth, measured on this GPU in the same case (" + doc::code(ref->tool) +
                "; its figure is the median of " + std::to_string(ref->runs_per_size) +
                " runs; ours is measured "
                "again when under " +
                number_text("%.0f%%", ref->remeasured_below_fraction * 100) + " of it):");
    doc::Table beside;
    beside.headers = {"Figure", "Bytes", "hazardlab GB/s", "our attempts", "nvbandwidth GB/s", "its runs", "Ratio"};
    for (const ReferenceFigure& f : ref->figures) {
      beside.add({f.figure, std::to_string(f.bytes), number_text("%.2f", f.hazardlab_gbps),
                  f.hazardlab_attempts_gbps.empty() ? "1" : gbps_list(f.hazardlab_attempts_gbps),
                  number_text("%.2f", f.nvbandwidth_gbps), gbps_list(f.nvbandwidth_runs_gbps),
                  number_text("%.3f", f.ratio())});
    }
    d.table(std::move(beside));
    for (const std::string& e : ref->errors) d.note("nvbandwidth: " + e);
  }
  for (const AllGpusResult& all : g.all_gpus_at_once) {
    std::string per_gpu;
    for (const auto& [index, gbps] : all.per_gpu)
      per_gpu += " GPU " + std::to_string(index) + " " + number_text("%.2f;", gbps);
    d.paragraph(doc::strong("All GPUs at once") + " (" + std::string(to_string(all.direction)) + ", " +
                std::to_string(all.bytes) + " B per GPU, released together): " + number_text("%.2f", all.total_gbps) +
                " GB/s in total;" + per_gpu);
  }
  if (!g.peer_matrix.empty()) {
    d.paragraph(doc::strong("Peer copies") +
                " between every ordered pair of GPUs (cudaMemcpyPeerAsync, one pair at a time, alone on the host). "
                "A pair without peer access is copied through the host by the driver: its figure is no link's.");
    doc::Table peers;
    peers.headers = {"From", "To", "Peer access", "Bytes", "GB/s"};
    for (const PeerBandwidth& pair : g.peer_matrix) {
      peers.add({"GPU " + std::to_string(pair.source), "GPU " + std::to_string(pair.destination),
                 pair.peer_access ? "yes" : "no: staged through the host", std::to_string(pair.bytes),
                 number_text("%.2f", pair.gbps)},
                pair.peer_access ? "" : "idle");
    }
    d.table(std::move(peers));
  }
}

void add_overlap(doc::Document& d, const OverlapGroup& g) {
  d.subheading("Copy/compute overlap");
  const bool several = g.attempts.size() > 1;
  d.paragraph(std::string("The share of the shorter operation hidden behind the longer one") +
              (several ? "; a miss was measured again, every attempt shown, the last one decided." : "."));
  doc::Table t;
  t.headers = {"Attempt", "Host memory", "Streams", "Kernel ms", "Copy ms", "Together ms", "Hidden"};
  for (std::size_t i = 0; i < g.attempts.size(); ++i) {
    for (const OverlapResult& o : g.attempts[i]) {
      t.add({std::to_string(i + 1), std::string(to_string(o.host)), o.separate_streams ? "separate" : "same",
             number_text("%.2f", o.kernel_ms), number_text("%.2f", o.copy_ms), number_text("%.2f", o.both_ms),
             number_text("%.0f%%", o.fraction * 100)},
            i + 1 < g.attempts.size() ? "idle" : "");
    }
  }
  d.table(std::move(t));
}

void add_findings(doc::Document& d, const std::vector<Comparison>& findings) {
  d.subheading("The tutorial's comparisons, measured here");
  doc::Table t;
  t.headers = {"Question", "A", "ms", "B", "ms", "B/A"};
  for (const Comparison& c : findings) {
    t.add({c.question, c.a, number_text("%.2f", c.a_ms), c.b, number_text("%.2f", c.b_ms),
           number_text("%.2f", c.ratio())});
  }
  d.table(std::move(t));
}

void add_placement(doc::Document& d, const PerfRecord& p) {
  const Measurements& m = p.measurements;
  if (!m.host_placement) return;
  const HostPlacement& h = *m.host_placement;
  std::string text = std::string(to_string(p.part)) + ": host thread on NUMA node " + std::to_string(h.numa_node) + ", CPUs " +
                     (h.cpus.empty() ? "?" : h.cpus) +
                     (h.bound ? " (bound to the GPU's CPUs)" : " (not bound: " + h.not_bound_reason + ")");
  if (const auto& i = m.isolation) {
    text += std::string(i->alone_on_host ? "; measured alone on the host" : "; NOT measured alone on the host") +
            " (waited " + std::to_string(i->waited_ms) + " ms for the lock " + i->lock + ")";
  }
  d.paragraph(text + ".");
}

}  // namespace

void add_performance(doc::Document& d, const GpuReport& report) {
  if (report.perf.empty()) return;
  d.heading("Performance");
  doc::Table checks;
  checks.headers = {"Check", "Result", "Measured", "Why this threshold"};
  for (const PerfRecord& p : report.perf) {
    if (p.status != PerfStatus::Measured) {
      checks.add({std::string(to_string(p.part)) + " measurements", std::string(to_string(p.status)), p.reason, ""},
                 p.status == PerfStatus::Skipped ? "idle" : "bad");
    }
    for (const Check& c : p.checks) {
      checks.add({c.description, doc::strong(c.result_word()), c.detail(), c.rationale}, !c.decided() ? "idle"
                                                                                         : c.passed   ? "good"
                                                                                                      : "bad");
    }
  }
  d.table(std::move(checks));
  for (const PerfRecord& p : report.perf) {
    for (const Check& c : p.checks) {
      if (c.attempts.empty()) continue;
      d.paragraph(doc::code(c.id) + ": a miss was measured again before deciding:");
      std::vector<doc::Item> attempts;
      for (const std::string& a : c.attempts) attempts.push_back({a, {}});
      d.list(std::move(attempts));
    }
  }
  for (const PerfRecord& p : report.perf) {
    const Measurements& m = p.measurements;
    if (m.bandwidth) add_bandwidth(d, p, *m.bandwidth);
    if (m.overlap && !m.overlap->attempts.empty()) add_overlap(d, *m.overlap);
    if (m.findings) add_findings(d, *m.findings);
    add_placement(d, p);
  }
}

}  // namespace hazardlab
