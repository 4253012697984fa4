#include "catalog_commands.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cuda/device.hpp"
#include "hazard/registry.hpp"
#include "hazardlab/settings_table.hpp"
#include "hazardlab/usage_error.hpp"
#include "program_paths.hpp"

#ifndef HAZARDLAB_LESSON_IDS
#define HAZARDLAB_LESSON_IDS ""
#endif

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

// Where the hazard's plain-CUDA lesson is, if it has one: next to this program when built
// (<build>/lessons) or installed (<prefix>/libexec/hazardlab/lessons).
std::string lesson_of(const std::string& id) {
  const std::string ids = "," + std::string(HAZARDLAB_LESSON_IDS) + ",";
  if (ids.find("," + id + ",") == std::string::npos) return "";
  std::string file = id;
  std::replace(file.begin(), file.end(), '-', '_');
  std::string text = "Plain-CUDA lesson: lessons/" + file + ".cu, the unsafe and the fixed code side by side";
  if (const fs::path program = find_companion("lesson-" + id, {"../lessons", "../libexec/hazardlab/lessons"});
      !program.empty()) {
    return text + ".\nRun it: " + program.string() + " [--delay-us N] [--trials N]\n";
  }
  return text + "; the build makes it lesson-" + id + " (`ctest -L lesson -R " + id + "` runs it).\n";
}

void print_variants(const Hazard& h) {
  std::cout << "\nVariants:\n";
  for (const Variant& v : h.variants) {
    std::cout << "  - " << v.id << " (" << to_string(v.kind) << "): " << v.title << '\n';
    for (const Parameter& p : v.space.parameters) {
      std::string values = p.value_text(p.min);
      for (std::uint32_t x = p.min + 1; x <= p.max && !p.labels.empty(); ++x) values += " or " + p.value_text(x);
      if (p.labels.empty() && p.max > p.min) values += " to " + p.value_text(p.max);
      std::cout << "      parameter " << p.name << " = " << values << ": " << p.meaning << '\n';
    }
  }
}

}  // namespace

int list_hazards() {
  for (const Hazard& h : Registry::instance().hazards()) {
    std::cout << h.id << ": " << h.title << '\n';
    for (const Variant& v : h.variants)
      std::cout << "  " << v.id << " (" << to_string(v.kind) << "): " << v.title << '\n';
  }
  return 0;
}

int explain_hazard(const std::string& id) {
  const Hazard* h = Registry::instance().find(id);
  if (!h) throw UsageError("no hazard '" + id + "'; `hazardlab list` shows them");
  std::cout << h->id << ": " << h->title << "\n\n" << h->explanation << "\n\nDocumented rules:\n";
  for (const Citation& c : h->rules) std::cout << "  - " << c.document << ", " << c.section << ": " << c.says << '\n';
  if (!h->requirements.empty()) {
    std::cout << "\nNeeds:";
    for (const Requirement& r : h->requirements) std::cout << ' ' << r.what << ';';
    std::cout << '\n';
  }
  if (!h->pytorch.empty()) {
    std::cout << "\nThe same mistake in PyTorch:\n";
    std::size_t start = 0;
    while (start < h->pytorch.size()) {
      const std::size_t end = std::min(h->pytorch.find('\n', start), h->pytorch.size());
      std::cout << "    " << h->pytorch.substr(start, end - start) << '\n';
      start = end + 1;
    }
  }
  if (const std::string lesson = lesson_of(h->id); !lesson.empty()) std::cout << '\n' << lesson;
  if (!h->unjudged_because.empty()) std::cout << "\nReported, not judged: " << h->unjudged_because << ".\n";
  print_variants(*h);
  return 0;
}

int list_devices(bool as_json) {
  const DeviceInventory inv = discover_devices();
  if (as_json) {
    std::cout << nlohmann::json(inv).dump(2) << '\n';
    return 0;
  }
  if (inv.devices.empty()) std::cout << "no usable GPU: " << inv.no_device_reason << '\n';
  for (const DeviceFingerprint& d : inv.devices) {
    std::cout << "GPU " << d.index << ": " << d.name << " (" << d.uuid << ", " << d.pci_bus_id << "), compute "
              << d.compute_capability() << ", asyncEngineCount " << d.async_engine_count << '\n';
  }
  return 0;
}

int list_settings() {
  for (const SettingDeclaration& s : declared_settings())
    std::cout << s.name << ": " << s.help << " (default " << s.default_text << ")\n";
  return 0;
}

}  // namespace hazardlab
