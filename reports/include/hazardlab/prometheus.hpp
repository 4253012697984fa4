#pragma once
// A run's verdicts and figures in Prometheus's text exposition format, for node_exporter's textfile
// collector: `--prometheus DIR` writes DIR/hazardlab.prom after the reports. Every GPU's series
// carry the labels dcgm-exporter gives the same GPU (gpu, UUID, pci_bus_id, modelName, Hostname),
// so a query can join hazardlab's verdict with DCGM's telemetry.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "hazardlab/report.hpp"

namespace hazardlab {

inline constexpr const char* kPrometheusFile = "hazardlab.prom";

// The exposition text: per GPU the verdict (one series per verdict, 1 for the GPU's), case counts by
// outcome, each checked bandwidth figure beside its threshold, each check's result; per run its
// start, end, duration, profile and whether it was complete.
std::string reports_to_prometheus(const std::vector<GpuReport>& reports, const RunRecord& run);

// node_exporter's textfile folder must already exist (the collector reads it; hazardlab makes no
// folder there). Throws std::invalid_argument naming the folder, as it was given (`given_as`: the option, or
// HAZARDLAB_PROMETHEUS_DIR), when it is not one.
void require_prometheus_folder(const std::filesystem::path& dir, std::string_view given_as = "--prometheus");

// Writes DIR/hazardlab.prom atomically: a hidden temporary file (the collector reads only *.prom)
// renamed over the previous one, so a scrape never sees half a file. Throws std::runtime_error.
void write_prometheus(const std::filesystem::path& dir, const std::string& text);

// NVML's form of a PCI bus id (00000000:41:00.0), which dcgm-exporter's pci_bus_id carries, from
// CUDA's (0000:41:00.0).
std::string nvml_pci_bus_id(const std::string& cuda_pci_bus_id);

}  // namespace hazardlab
