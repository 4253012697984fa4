#include "hazardlab/run_record.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <stdexcept>

#include "hazardlab/atomic_file.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/run_id.hpp"
#include "hazardlab/environment.hpp"
#include "hazardlab/settings_table.hpp"

namespace hazardlab {
namespace {

std::string utc_now(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, format, &tm);
  return text;
}

}  // namespace

const RecordedSetting* RunRecord::setting(std::string_view name) const {
  for (const RecordedSetting& s : settings) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Selection selection_from_ctest_command(const std::vector<std::string>& command) {
  // ctest's options that narrow the selection, with whether each takes a value.
  static const std::vector<std::pair<std::string, bool>> narrowing = {{"-R", true},
                                                                      {"--tests-regex", true},
                                                                      {"-E", true},
                                                                      {"--exclude-regex", true},
                                                                      {"-L", true},
                                                                      {"--label-regex", true},
                                                                      {"-LE", true},
                                                                      {"--label-exclude", true},
                                                                      {"-I", true},
                                                                      {"--tests-information", true},
                                                                      {"-U", false},
                                                                      {"--union", false},
                                                                      {"--rerun-failed", false},
                                                                      {"--tests-from-file", true},
                                                                      {"--exclude-from-file", true},
                                                                      {"-FA", true},
                                                                      {"--fixture-exclude-any", true},
                                                                      {"-FS", true},
                                                                      {"--fixture-exclude-setup", true},
                                                                      {"-FC", true},
                                                                      {"--fixture-exclude-cleanup", true}};
  Selection selection;
  selection.command = command;
  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string& arg = command[i];
    for (const auto& [option, takes_value] : narrowing) {
      if (arg == option) {
        selection.filters.push_back(takes_value && i + 1 < command.size() ? arg + " " + command[++i] : arg);
        break;
      }
      if (takes_value && arg.rfind(option + "=", 0) == 0) {
        selection.filters.push_back(arg);
        break;
      }
    }
  }
  return selection;
}

void to_json(nlohmann::json& j, const RunRecord& r) {
  nlohmann::json settings = nlohmann::json::array();
  for (const RecordedSetting& s : r.settings) {
    nlohmann::json entry = {{"name", s.name}, {"value", s.value}, {"from_environment", s.from_environment}};
    if (!s.note.empty()) entry["note"] = s.note;
    settings.push_back(entry);
  }
  nlohmann::json devices = nlohmann::json::array();
  for (const DeviceFingerprint& d : r.devices) {
    devices.push_back({{"label", device_label(d.index)},
                       {"index", d.index},
                       {"uuid", d.uuid},
                       {"pci_bus_id", d.pci_bus_id},
                       {"name", d.name},
                       {"driver_release", d.driver_release},
                       {"driver_version", d.driver_version}});
  }
  j = {{"schema", kRunRecordSchema},
       {"schema_version", kRunRecordSchemaVersion},
       {"id", r.id},
       {"host", r.host},
       {"pid", r.pid},
       {"started_at", r.started_at},
       {"ended_at", r.ended_at.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.ended_at)},
       {"hazardlab_version", r.hazardlab_version},
       {"devices", devices},
       {"no_device_reason", r.no_device_reason},
       {"settings", settings},
       {"sanitizer", r.sanitizer.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.sanitizer)},
       {"warnings", r.warnings},
       {"profile", std::string(to_string(r.profile))},
       {"selection", {{"all", r.selection.all()}, {"filters", r.selection.filters}, {"command", r.selection.command}}},
       {"registered", r.registered},
       {"state", r.state == RunState::Running ? "running" : "finished"},
       {"complete", r.complete},
       {"not_run", r.not_run},
       {"verdicts", r.verdicts}};
}

void from_json(const nlohmann::json& j, RunRecord& r) {
  if (j.at("schema").get<std::string>() != kRunRecordSchema) {
    throw nlohmann::json::other_error::create(501, "not a hazardlab run record", &j);
  }
  j.at("id").get_to(r.id);
  j.at("host").get_to(r.host);
  j.at("pid").get_to(r.pid);
  j.at("started_at").get_to(r.started_at);
  r.ended_at = j.at("ended_at").is_null() ? std::string() : j.at("ended_at").get<std::string>();
  j.at("hazardlab_version").get_to(r.hazardlab_version);
  r.devices.clear();
  for (const auto& d : j.at("devices")) {
    DeviceFingerprint f;
    d.at("index").get_to(f.index);
    d.at("uuid").get_to(f.uuid);
    d.at("pci_bus_id").get_to(f.pci_bus_id);
    d.at("name").get_to(f.name);
    f.driver_release = d.value("driver_release", "");
    f.driver_version = d.value("driver_version", 0);
    r.devices.push_back(f);
  }
  r.no_device_reason = j.value("no_device_reason", "");
  r.settings.clear();
  for (const auto& s : j.at("settings")) {
    r.settings.push_back({s.at("name").get<std::string>(), s.at("value").get<std::string>(),
                          s.at("from_environment").get<bool>(), s.value("note", "")});
  }
  r.sanitizer = j.at("sanitizer").is_null() ? std::string() : j.at("sanitizer").get<std::string>();
  j.at("warnings").get_to(r.warnings);
  // Records from before profiles ran every case.
  const std::string profile = j.value("profile", std::string(to_string(RunProfile::Validation)));
  const std::optional<RunProfile> named = run_profile_named(profile);
  if (!named) throw nlohmann::json::other_error::create(501, "unknown run profile '" + profile + "'", &j);
  r.profile = *named;
  j.at("selection").at("filters").get_to(r.selection.filters);
  j.at("selection").at("command").get_to(r.selection.command);
  j.at("registered").get_to(r.registered);
  const std::string state = j.at("state").get<std::string>();
  if (state != "running" && state != "finished") {
    throw nlohmann::json::other_error::create(501, "unknown run state '" + state + "'", &j);
  }
  r.state = state == "running" ? RunState::Running : RunState::Finished;
  j.at("complete").get_to(r.complete);
  j.at("not_run").get_to(r.not_run);
  j.at("verdicts").get_to(r.verdicts);
}

void store_run_record(const std::filesystem::path& run_dir, const RunRecord& r) {
  write_file_atomically(run_dir / kRunRecordFile, nlohmann::json(r).dump(2) + "\n");
}

RunRecord load_run_record(const std::filesystem::path& run_dir) {
  const auto path = run_dir / kRunRecordFile;
  nlohmann::json j;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::invalid_argument("the run record " + path.string() + " is a folder, not the file hazardlab writes");
  const std::string text = read_text_file(path);  // missing or unreadable: says which
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // A record cut short (a full disk, a copy interrupted) or not hazardlab's: bad input, said as such.
    throw std::invalid_argument("the run record " + path.string() + " is not whole JSON (" +
                                (text.empty() ? std::string("it is empty") : std::to_string(text.size()) + " bytes") +
                                "; cut short by a full disk or an interrupted copy?): " + e.what());
  }
  // A newer program may have changed what the fields mean: read it with that program, never guess.
  const auto v = j.is_object() ? j.find("schema_version") : j.end();
  if (v == j.end() || !v->is_number_integer() || v->get<long long>() < 1) {
    throw std::runtime_error("cannot read the run record " + path.string() +
                             ": its schema_version is missing or not a whole number from 1");
  }
  if (v->get<long long>() > kRunRecordSchemaVersion) {
    throw std::invalid_argument("the run record " + path.string() + " has schema_version " +
                                std::to_string(v->get<long long>()) + ", newer than this hazardlab reads (" +
                                std::to_string(kRunRecordSchemaVersion) + "); it was written by hazardlab " +
                                (j.contains("hazardlab_version") && j["hazardlab_version"].is_string()
                                     ? j["hazardlab_version"].get<std::string>()
                                     : std::string("(unknown)")) +
                                ": report or merge it with that version or a later one");
  }
  RunRecord record;
  try {
    record = j.get<RunRecord>();
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot read the run record " + path.string() + ": " + e.what());
  }
  // The id names the folders the report writes: one that is no folder name is refused (bad input).
  (void)RunId::parse(record.id, "the run record " + path.string() + " has the run id");
  return record;
}

#ifndef HAZARDLAB_VERSION
#define HAZARDLAB_VERSION "unknown"
#endif

std::string_view hazardlab_version() noexcept { return HAZARDLAB_VERSION; }

std::string host_name() {
  // A container's or a job's host name is often not the node's; the fleet's scripts say which.
  if (std::optional<std::string> given = environment_value_given(setting::kHostName.name)) return *given;
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 && name[0] ? std::string(name) : std::string("unknown-host");
}

std::string utc_now_iso8601() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_now_compact() { return utc_now("%Y%m%dT%H%M%SZ"); }

}  // namespace hazardlab
