// hazardlab: the suite's command line. Lists and explains hazards, fingerprints the GPUs,
// starts a session's results directory and writes the per-GPU reports.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "hazardlab/hazard.hpp"
#include "hazardlab/perf_store.hpp"
#include "hazardlab/report.hpp"
#include "hazardlab/result_store.hpp"

namespace fs = std::filesystem;
using namespace hazardlab;

namespace {

int list_hazards() {
  for (const Hazard& h : Registry::instance().hazards()) {
    std::cout << h.id << ": " << h.title << '\n';
    for (const Variant& v : h.variants)
      std::cout << "  " << v.id << " (" << to_string(v.kind) << "): " << v.title << '\n';
  }
  return 0;
}

int explain(const std::string& id) {
  const Hazard* h = Registry::instance().find(id);
  if (!h) {
    std::cerr << "hazardlab: no hazard '" << id << "'; `hazardlab list` shows them\n";
    return 2;
  }
  std::cout << h->id << ": " << h->title << "\n\n" << h->explanation << "\n\nDocumented rules:\n";
  for (const Citation& c : h->rules) std::cout << "  - " << c.document << ", " << c.section << ": " << c.says << '\n';
  if (!h->requirements.empty()) {
    std::cout << "\nNeeds:";
    for (const Requirement& r : h->requirements) std::cout << ' ' << r.what << ';';
    std::cout << '\n';
  }
  std::cout << "\nVariants:\n";
  for (const Variant& v : h->variants)
    std::cout << "  - " << v.id << " (" << to_string(v.kind) << "): " << v.title << '\n';
  return 0;
}

int devices(bool as_json) {
  const DeviceInventory inv = discover_devices();
  if (as_json) {
    std::cout << nlohmann::json{{"no_device_reason", inv.no_device_reason}, {"devices", inv.devices}}.dump(2) << '\n';
    return 0;
  }
  if (inv.devices.empty()) std::cout << "no usable GPU: " << inv.no_device_reason << '\n';
  for (const DeviceFingerprint& d : inv.devices) {
    std::cout << "GPU " << d.index << ": " << d.name << " (" << d.uuid << ", " << d.pci_bus_id << "), compute "
              << d.compute_capability() << ", asyncEngineCount " << d.async_engine_count << '\n';
  }
  return 0;
}

// Read by the ctest script that registers one test per GPU and variant.
int ctest_manifest() {
  const DeviceInventory inv = discover_devices();
  if (inv.devices.empty()) std::cout << "nodevice\t" << inv.no_device_reason << '\n';
  for (const DeviceFingerprint& d : inv.devices) std::cout << "device\t" << d.index << '\t' << d.name << '\n';
  for (const Hazard& h : Registry::instance().hazards()) {
    for (const Variant& v : h.variants)
      std::cout << "case\t" << h.id << '\t' << v.id << '\t' << to_string(v.kind) << '\n';
  }
  return 0;
}

int session_start(const fs::path& results) {
  std::error_code ec;
  fs::remove_all(results, ec);
  if (ec) throw std::runtime_error("cannot clear " + results.string() + ": " + ec.message());
  const DeviceInventory inv = discover_devices();
  store_inventory(results, inv);
  if (inv.devices.empty()) {
    std::cout << "hazardlab: no usable GPU: " << inv.no_device_reason << "; GPU cases will be skipped\n";
  }
  for (const DeviceFingerprint& d : inv.devices) std::cout << "hazardlab: GPU " << d.index << ": " << d.name << '\n';
  return 0;
}

int report(const fs::path& results, const fs::path& out, const Settings& settings) {
  DeviceInventory inv;
  try {
    inv = load_inventory(results);
  } catch (const std::exception& e) {
    std::cerr << "hazardlab: " << e.what() << "; fingerprinting the GPUs again\n";
    inv = discover_devices();
  }
  const LoadedResults loaded = load_results(results);
  for (const std::string& bad : loaded.unreadable) std::cerr << "hazardlab: unreadable result: " << bad << '\n';
  std::map<int, std::vector<PerfRecord>> perf;
  perf[-1] = load_perf(results, -1);
  for (const DeviceFingerprint& d : inv.devices) perf[d.index] = load_perf(results, d.index);
  const auto reports = build_reports(Registry::instance().hazards(), inv, loaded.results, settings.require_gpu, perf);
  for (const std::string& path : write_reports(reports, out.string())) std::cout << "hazardlab: wrote " << path << '\n';
  int status = loaded.unreadable.empty() ? 0 : 1;
  for (const GpuReport& r : reports) {
    std::cout << "hazardlab: "
              << (r.device ? "GPU " + std::to_string(r.device->index) + " " + r.device->name : "no GPU") << ": "
              << to_string(r.verdict) << ": " << r.verdict_reason << '\n';
    if (r.verdict == Verdict::Fail || r.verdict == Verdict::Inconclusive) status = 1;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hazardlab: hazards of asynchronous host<->device transfers, reproduced and guarded"};
  app.require_subcommand(1);
  std::string hazard_id;
  bool as_json = false;
  fs::path results, out;

  auto* list_cmd = app.add_subcommand("list", "list the hazards and their variants");
  auto* explain_cmd = app.add_subcommand("explain", "explain one hazard: what is unsafe, the rule, the guards");
  explain_cmd->add_option("hazard", hazard_id, "hazard id")->required();
  auto* devices_cmd = app.add_subcommand("devices", "fingerprint the GPUs this process can see");
  devices_cmd->add_flag("--json", as_json, "print JSON");
  auto* manifest_cmd = app.add_subcommand("ctest-manifest", "devices and cases, for the ctest registration script");
  auto* start_cmd = app.add_subcommand("session-start", "clear a results directory and record the GPUs");
  start_cmd->add_option("--results", results, "results directory")->required();
  auto* report_cmd = app.add_subcommand("report", "write one JSON and one Markdown report per GPU");
  report_cmd->add_option("--results", results, "results directory")->required();
  report_cmd->add_option("--out", out, "report directory")->required();

  CLI11_PARSE(app, argc, argv);
  try {
    const Settings settings = Settings::from_environment();
    if (*list_cmd) return list_hazards();
    if (*explain_cmd) return explain(hazard_id);
    if (*devices_cmd) return devices(as_json);
    if (*manifest_cmd) return ctest_manifest();
    if (*start_cmd) return session_start(results);
    if (*report_cmd) return report(results, out, settings);
  } catch (const SettingsError& e) {
    std::cerr << "hazardlab: bad setting: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "hazardlab: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
