// The fleet report for machines: fleet.json (schema in reports/schema/fleet-report.schema.json)
// and fleet.csv (RFC 4180, for spreadsheets and scripts).
#include <cstdio>

#include "hazardlab/fleet.hpp"
#include "hazardlab/number_text.hpp"

namespace hazardlab {
namespace {

nlohmann::json figure_json(const std::optional<double>& figure) {
  return figure ? nlohmann::json(*figure) : nlohmann::json(nullptr);
}

nlohmann::json row_json(const FleetRow& row) {
  nlohmann::json later = nlohmann::json::array();
  for (const NewerPartialRun& p : row.newer_partial_runs) {
    later.push_back({{"run_id", p.run_id}, {"started_at", p.started_at}, {"verdict", to_string(p.verdict)}});
  }
  return {{"key", row.key()},
          {"host", row.host},
          {"has_gpu", row.has_gpu},
          {"pci_bus_id", row.pci_bus_id},
          {"uuid", row.uuid},
          {"nvidia_smi_index", row.nvidia_smi_index},
          {"cuda_index", row.cuda_index},
          {"mig", row.mig},
          {"name", row.name},
          {"driver_release", row.driver_release},
          {"no_device_reason", row.no_device_reason},
          {"verdict", to_string(row.verdict)},
          {"verdict_reason", row.verdict_reason},
          {"failing_checks", row.failing_checks},
          {"failing_cases", row.failing_cases},
          {"inconclusive_cases", row.inconclusive_cases},
          {"pinned_h2d_gbps", figure_json(row.pinned_h2d_gbps)},
          {"pinned_d2h_gbps", figure_json(row.pinned_d2h_gbps)},
          {"controls", {{"reproduced", row.controls_reproduced}, {"run", row.controls_run}}},
          {"run",
           {{"id", row.run_id},
            {"started_at", row.run_started_at},
            {"folder", row.run_folder.string()},
            {"profile", std::string(to_string(row.profile))}}},
          {"partial", row.partial},
          {"stale", row.stale},
          {"stale_reason", row.stale_reason},
          {"outlier", row.outlier},
          {"outlier_reason", row.outlier_reason},
          {"superseded_runs", row.superseded_runs},
          {"newer_partial_runs", later}};
}

// RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

std::string csv_figure(const std::optional<double>& figure) {
  if (!figure) return "";
  return number_text("%.2f", *figure);
}

const char* csv_bool(bool value) { return value ? "true" : "false"; }

}  // namespace

nlohmann::json fleet_to_json(const FleetReport& report) {
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& [verdict, count] : report.counts()) counts[std::string(to_string(verdict))] = count;
  nlohmann::json rows = nlohmann::json::array();
  for (const FleetRow& row : report.rows) rows.push_back(row_json(row));
  nlohmann::json models = nlohmann::json::array();
  for (const ModelFigure& m : report.models) {
    models.push_back({{"model", m.model},
                      {"figure", m.figure},
                      {"gpus", m.gpus},
                      {"tested", m.tested},
                      {"median_gbps", m.median_gbps},
                      {"mad_gbps", m.mad_gbps},
                      {"scale_gbps", m.scale_gbps},
                      {"note", m.note}});
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const MergedRun& r : report.runs) {
    runs.push_back({{"id", r.id},
                    {"host", r.host},
                    {"started_at", r.started_at},
                    {"folder", r.folder.string()},
                    {"complete", r.complete},
                    {"rows_shown", r.rows_shown},
                    {"unreadable", r.unreadable}});
  }
  return {{"schema", kFleetSchema},
          {"schema_version", kFleetSchemaVersion},
          {"hazardlab_version", report.hazardlab_version},
          {"generated_at", report.generated_at},
          {"newest_run_started_at", report.newest_run_started_at},
          {"rules",
           {{"outlier_mads", report.outlier_mads},
            {"mad_to_sigma", kMadToSigma},
            {"mad_floor_share_of_median", kMadFloorShareOfMedian},
            {"min_gpus_per_model", kMinGpusForOutliers},
            {"stale_after_hours", report.stale_after_hours}}},
          {"counts", counts},
          {"exit_status", fleet_exit_status(report)},
          {"rows", rows},
          {"models", models},
          {"runs", runs},
          {"notes", report.notes}};
}

std::string fleet_to_csv(const FleetReport& report) {
  static const char* const kColumns[] = {"host",
                                         "pci_bus_id",
                                         "uuid",
                                         "nvidia_smi_index",
                                         "cuda_index",
                                         "name",
                                         "driver_release",
                                         "verdict",
                                         "failing_checks",
                                         "failing_cases",
                                         "pinned_h2d_gbps",
                                         "pinned_d2h_gbps",
                                         "controls_reproduced",
                                         "controls_run",
                                         "run_id",
                                         "run_started_at",
                                         "partial",
                                         "stale",
                                         "outlier",
                                         "outlier_reason",
                                         "superseded_runs",
                                         "newer_partial_runs",
                                         "no_device_reason",
                                         "profile"};
  std::string csv;
  for (const char* column : kColumns) csv += std::string(csv.empty() ? "" : ",") + column;
  csv += "\r\n";
  for (const FleetRow& row : report.rows) {
    std::vector<std::string> later;
    for (const NewerPartialRun& p : row.newer_partial_runs)
      later.push_back(p.run_id + ":" + std::string(to_string(p.verdict)));
    const std::string fields[] = {row.host,
                                  row.pci_bus_id,
                                  row.uuid,
                                  std::to_string(row.nvidia_smi_index),
                                  std::to_string(row.cuda_index),
                                  row.name,
                                  row.driver_release,
                                  std::string(to_string(row.verdict)),
                                  joined(row.failing_checks),
                                  joined(row.failing_cases),
                                  csv_figure(row.pinned_h2d_gbps),
                                  csv_figure(row.pinned_d2h_gbps),
                                  std::to_string(row.controls_reproduced),
                                  std::to_string(row.controls_run),
                                  row.run_id,
                                  row.run_started_at,
                                  csv_bool(row.partial),
                                  csv_bool(row.stale),
                                  csv_bool(row.outlier),
                                  row.outlier_reason,
                                  std::to_string(row.superseded_runs),
                                  joined(later),
                                  row.no_device_reason,
                                  std::string(to_string(row.profile))};
    static_assert(sizeof fields / sizeof fields[0] == sizeof kColumns / sizeof kColumns[0], "one field per column");
    for (std::size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) csv += (i ? "," : "") + csv_field(fields[i]);
    csv += "\r\n";
  }
  return csv;
}

}  // namespace hazardlab
