#include "hazardlab/results_layout.hpp"

#include "hazardlab/folder_marker.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hazardlab {

std::string device_label(int device_index) {
  return device_index < 0 ? std::string("nogpu") : "gpu" + std::to_string(device_index);
}

int device_index_of_label(std::string_view label) {
  if (label == "nogpu") return -1;
  if (label.substr(0, 3) != "gpu" || label.size() == 3) return -2;
  int index = -1;
  const char* end = label.data() + label.size();
  const auto [ptr, ec] = std::from_chars(label.data() + 3, end, index);
  return (ec == std::errc() && ptr == end && index >= 0) ? index : -2;
}

std::string case_name(int device_index, std::string_view hazard_id, std::string_view variant_id) {
  return device_label(device_index) + "/" + std::string(hazard_id) + "/" + std::string(variant_id);
}

std::string measurement_name(int device_index, std::string_view part) {
  return case_name(device_index, "perf", part);
}

std::filesystem::path run_folder(const std::filesystem::path& results_root, std::string_view run_id) {
  return results_root / kRunsFolder / run_id;
}

std::filesystem::path device_folder(const std::filesystem::path& run_dir, int device_index) {
  return run_dir / device_label(device_index);
}

bool is_report_set(const std::filesystem::path& dir) {
  std::error_code ec;
  if (carries_marker(dir, kReportSetMarker)) return true;
  const std::filesystem::path real = std::filesystem::weakly_canonical(dir, ec);
  return !ec && !real.empty() && carries_marker(real.parent_path().parent_path(), kReportsMarker);
}

void require_run_folder(const std::filesystem::path& run_dir) {
  if (is_report_set(run_dir)) {
    throw std::invalid_argument("HAZARDLAB_RUN_DIR='" + run_dir.string() +
                                "' is a report set published in a report folder, not a run folder; a case writes its "
                                "result only into its run's folder under the results root");
  }
  if (!carries_marker(run_dir, kRunMarker)) {
    throw std::invalid_argument("HAZARDLAB_RUN_DIR='" + run_dir.string() +
                                "' is not a run folder started by `hazardlab session-start` (it has no " +
                                std::string(kRunMarker) + " marker); run the cases through ctest");
  }
}

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    // Missing, or there but unreadable: the reason says which.
    const int err = errno;
    throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(err));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace hazardlab
