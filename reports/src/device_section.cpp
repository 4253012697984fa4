// The device's section of a GPU's report: its fingerprint as a table, the PCIe link as NVML read it.
#include <cstdio>

#include "gpu_content.hpp"
#include "hazardlab/number_text.hpp"

namespace hazardlab {
namespace {

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string cuda_version(int v) {
  return v ? std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10) : std::string("unknown");
}

}  // namespace

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

}  // namespace hazardlab
