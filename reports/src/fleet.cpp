// Merging run folders: read each, tell which reports are the same GPU, and show each GPU's
// latest complete run (else its latest run, marked partial).
#include "hazardlab/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>
#include <stdexcept>

#include "fleet_rows.hpp"
#include "hazardlab/number_text.hpp"
#include "hazardlab/publish.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

constexpr const char* kRunFolderExpected =
    "expected a run folder (<results root>/runs/<run-id>/ holding run.json, catalog.json and inventory.json)";

struct ReadRun {
  MergedRun merged;
  long long started = 0;
  std::vector<GpuReport> reports;
};

ReadRun read_run(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec))
    throw std::invalid_argument("run folder " + dir.string() + " does not exist; " + kRunFolderExpected);
  if (!fs::is_directory(dir, ec)) throw std::invalid_argument(dir.string() + " is not a folder; " + kRunFolderExpected);
  ReadRun run;
  BuiltRun built;
  try {
    built = build_run(dir, false);
  } catch (const std::exception& e) {
    throw std::invalid_argument("cannot read the run folder " + dir.string() + ": " + e.what() + "; " +
                                kRunFolderExpected);
  }
  const RunRecord& record = built.contents.run;
  if (!parse_utc(record.started_at, run.started)) {
    throw std::invalid_argument("the run folder " + dir.string() + " has started_at '" + record.started_at +
                                "' in run.json; expected UTC ISO 8601 (2026-11-22T00:00:00Z)");
  }
  run.merged = {record.id, record.host, record.started_at, dir, record.complete, 0, std::move(built.unreadable)};
  run.reports = std::move(built.reports);
  return run;
}

// One GPU's report in one run.
struct Sighting {
  std::size_t run;
  std::size_t report;
};

// Sightings of the same GPU end up in one group: the same host and PCI bus id, or the same UUID
// (a GPU moved to another slot or host is still the GPU). A host without a GPU is one group.
std::vector<std::vector<Sighting>> group_sightings(const std::vector<ReadRun>& runs) {
  std::vector<Sighting> all;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    for (std::size_t g = 0; g < runs[r].reports.size(); ++g) all.push_back({r, g});
  }
  std::vector<std::size_t> parent(all.size());
  std::iota(parent.begin(), parent.end(), 0);
  const auto root = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  std::map<std::string, std::size_t> first_with;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const GpuReport& report = runs[all[i].run].reports[all[i].report];
    const std::string& host = runs[all[i].run].merged.host;
    std::vector<std::string> keys;
    if (!report.device) {
      keys.push_back("nogpu\n" + host);
    } else {
      if (!report.device->pci_bus_id.empty()) keys.push_back("bus\n" + host + "\n" + report.device->pci_bus_id);
      if (!report.device->uuid.empty()) keys.push_back("uuid\n" + report.device->uuid);
      if (keys.empty()) keys.push_back("index\n" + host + "\n" + std::to_string(report.device->index));
    }
    for (const std::string& key : keys) {
      const auto [it, added] = first_with.emplace(key, i);
      if (!added) parent[root(i)] = root(it->second);
    }
  }
  std::map<std::size_t, std::vector<Sighting>> groups;
  for (std::size_t i = 0; i < all.size(); ++i) groups[root(i)].push_back(all[i]);
  std::vector<std::vector<Sighting>> out;
  for (auto& [id, members] : groups) out.push_back(std::move(members));
  return out;
}

std::string days_text(long long seconds) { return number_text("%.1f", static_cast<double>(seconds) / 86400.0); }

// The row of one group: its latest complete sighting, else its latest.
FleetRow row_of_group(std::vector<Sighting> group, const std::vector<ReadRun>& runs) {
  const auto earlier = [&](const Sighting& a, const Sighting& b) {
    const MergedRun &x = runs[a.run].merged, &y = runs[b.run].merged;
    return std::tie(x.started_at, x.id) < std::tie(y.started_at, y.id);
  };
  std::sort(group.begin(), group.end(), earlier);
  const auto report_of = [&](const Sighting& s) -> const GpuReport& { return runs[s.run].reports[s.report]; };
  auto shown = std::find_if(group.rbegin(), group.rend(), [&](const Sighting& s) { return report_of(s).complete(); });
  if (shown == group.rend()) shown = group.rbegin();
  FleetRow row = row_from_report(report_of(*shown));
  row.run_folder = runs[shown->run].merged.folder;
  std::set<std::size_t> other_runs;
  for (const Sighting& s : group) {
    if (s.run != shown->run) other_runs.insert(s.run);
  }
  row.superseded_runs = static_cast<int>(other_runs.size());
  for (auto later = shown.base(); later != group.end(); ++later) {
    const GpuReport& r = report_of(*later);
    if (later->run != shown->run) row.newer_partial_runs.push_back({r.run.id, r.run.started_at, fleet_verdict(r)});
  }
  return row;
}

// A host's no-GPU row says its latest run found no GPU. When a later run of the host saw GPUs,
// the driver came back: the no-GPU row would only mislead, so it is left out, with a note.
bool superseded_by_gpu_run(const FleetRow& nogpu, const std::vector<ReadRun>& runs, std::vector<std::string>& notes) {
  for (const ReadRun& run : runs) {
    const bool saw_gpu =
        std::any_of(run.reports.begin(), run.reports.end(), [](const GpuReport& r) { return r.device.has_value(); });
    if (saw_gpu && run.merged.host == nogpu.host && run.merged.started_at > nogpu.run_started_at) {
      notes.push_back("host " + nogpu.host + ": run " + nogpu.run_id + " found no usable GPU, but the later run " +
                      run.merged.id + " saw GPUs; the host's no-GPU row is left out");
      return true;
    }
  }
  return false;
}

}  // namespace

std::string FleetRow::key() const { return host + "/" + (has_gpu ? pci_bus_id : std::string("nogpu")); }

std::map<Verdict, int> FleetReport::counts() const {
  std::map<Verdict, int> counts;
  for (Verdict v : {Verdict::Pass, Verdict::Fail, Verdict::Inconclusive, Verdict::Partial, Verdict::Skipped})
    counts[v] = 0;
  for (const FleetRow& row : rows) ++counts[row.verdict];
  return counts;
}

FleetReport merge_runs(const std::vector<fs::path>& run_dirs, const FleetOptions& options) {
  if (run_dirs.empty()) throw std::invalid_argument("no run folder to merge; " + std::string(kRunFolderExpected));
  if (!std::isfinite(options.outlier_mads) || options.outlier_mads <= 0) {
    throw std::invalid_argument("outlier_mads " + std::to_string(options.outlier_mads) +
                                " is not allowed; expected a number above 0 (default 3.5)");
  }
  if (options.stale_after.count() <= 0) {
    throw std::invalid_argument("stale_after " + std::to_string(options.stale_after.count()) +
                                " h is not allowed; expected at least 1 hour (default 168)");
  }
  long long ignored = 0;
  if (!options.now_utc.empty() && !parse_utc(options.now_utc, ignored)) {
    throw std::invalid_argument("now_utc '" + options.now_utc +
                                "' is not allowed; expected UTC ISO 8601 (2026-11-22T00:00:00Z) or empty");
  }
  FleetReport report;
  report.generated_at = options.now_utc.empty() ? utc_now_iso8601() : options.now_utc;
  report.hazardlab_version = std::string(hazardlab_version());
  report.outlier_mads = options.outlier_mads;
  report.stale_after_hours = static_cast<long>(options.stale_after.count());

  std::vector<ReadRun> runs;
  std::map<std::string, fs::path> seen;
  for (const fs::path& dir : run_dirs) {
    ReadRun run = read_run(dir);
    // A run id names one run of one host and process, so the same id twice is one run given
    // twice (a copy, or overlapping globs): it must not count as a second sighting.
    if (const auto [it, added] = seen.emplace(run.merged.id, dir); !added) {
      std::error_code ec;
      if (!fs::equivalent(it->second, dir, ec)) {
        // Two folders claiming one run: a copy, perhaps altered since. Which one is the run
        // cannot be told, so neither is picked silently.
        throw std::invalid_argument("two different run folders carry the run id " + run.merged.id + ": " +
                                    it->second.string() + " and " + dir.string() +
                                    "; a run id names one run, so one of them is a copy: give only one");
      }
      report.notes.push_back("run " + run.merged.id + " was given twice (" + it->second.string() + " and " +
                             dir.string() + "); it is read once");
      continue;
    }
    runs.push_back(std::move(run));
  }
  const auto newest = std::max_element(runs.begin(), runs.end(),
                                       [](const ReadRun& a, const ReadRun& b) { return a.started < b.started; });
  report.newest_run_started_at = newest->merged.started_at;

  for (const auto& group : group_sightings(runs)) {
    FleetRow row = row_of_group(group, runs);
    if (!row.has_gpu && superseded_by_gpu_run(row, runs, report.notes)) continue;
    long long started = 0;
    parse_utc(row.run_started_at, started);
    const long long behind = newest->started - started;
    if (behind > static_cast<long long>(options.stale_after.count()) * 3600) {
      row.stale = true;
      row.stale_reason = "its run started " + row.run_started_at + ", " + days_text(behind) +
                         " days before the newest run of the merge (" + report.newest_run_started_at +
                         "); stale after " + std::to_string(options.stale_after.count()) + " h";
    }
    report.rows.push_back(std::move(row));
  }
  std::sort(report.rows.begin(), report.rows.end(), [](const FleetRow& a, const FleetRow& b) {
    return std::tie(a.host, a.pci_bus_id, a.uuid) < std::tie(b.host, b.pci_bus_id, b.uuid);
  });
  for (ReadRun& run : runs) {
    run.merged.rows_shown = static_cast<int>(std::count_if(
        report.rows.begin(), report.rows.end(), [&](const FleetRow& row) { return row.run_id == run.merged.id; }));
    report.runs.push_back(std::move(run.merged));
  }
  flag_outliers(report);
  return report;
}

int fleet_exit_status(const FleetReport& report) {
  for (const FleetRow& row : report.rows) {
    if (row.verdict != Verdict::Pass) return 1;
    for (const NewerPartialRun& later : row.newer_partial_runs) {
      if (later.verdict == Verdict::Fail || later.verdict == Verdict::Inconclusive) return 1;
    }
  }
  for (const MergedRun& run : report.runs) {
    if (run.rows_shown > 0 && !run.unreadable.empty()) return 1;
  }
  return report.rows.empty() ? 1 : 0;
}

}  // namespace hazardlab
