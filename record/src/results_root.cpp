#include "hazardlab/results_root.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "hazardlab/atomic_file.hpp"
#include "hazardlab/folder_marker.hpp"
#include "hazardlab/own_files.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/run_record.hpp"
#include "hazardlab/environment.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

fs::path canonical_or_self(const fs::path& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(p, ec);
  return ec ? fs::absolute(p) : c;
}

bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

// A file hazardlab is writing next to one of its own entries at this moment (another run's marker
// or pointer on its way into place, a stale lock being moved away): ".<entry>.tmp.<pid>".
bool own_transient(const std::string& name, const std::vector<std::string>& allowed) {
  if (name.starts_with(".hazardlab-probe-")) return true;  // another run proving the folder takes new entries
  for (const std::string& entry : allowed) {
    for (const char* kind : {".tmp.", ".stale."}) {
      const std::string prefix = "." + entry + kind;
      if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
          name.find_first_not_of("0123456789", prefix.size()) == std::string::npos) {
        return true;
      }
    }
  }
  return false;
}

constexpr std::string_view kOwnFolderText = "This folder is written by hazardlab; see its README.";

// What a folder carrying `marker` is, in words: "a run folder"; "" for no marker of hazardlab's.
std::string folder_kind(std::string_view marker) {
  static const std::pair<std::string_view, const char*> kKinds[] = {
      {kResultsRootMarker, "a results root"}, {kRunMarker, "a run folder"},       {kReportsMarker, "a report folder"},
      {kReportSetMarker, "a report set"},     {".hazardlab-fleet", "a fleet report folder"}};  // reports' kFleetMarker
  for (const auto& [name, kind] : kKinds)
    if (name == marker) return kind;
  return "";
}

// Why `entry` (named as one of hazardlab's entries) is not what hazardlab makes of that name, as words that follow
// "holds ": "runs/x, which is not a run folder hazardlab made (...)"; "" if it is.
std::string not_own_entry(const fs::path& entry, const OwnEntry& own) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(entry, ec);
  switch (own.kind) {
    case OwnEntry::Kind::Marker:
    case OwnEntry::Kind::Lock:
      return fs::is_regular_file(status) ? "" : own.name + ", which is not a regular file";
    case OwnEntry::Kind::LinkIntoRuns: {
      if (!fs::is_symlink(status)) return own.name + ", which is not a symbolic link (hazardlab's " + own.name + " is one)";
      const fs::path target = fs::read_symlink(entry, ec);
      const auto parts = std::distance(target.begin(), target.end());
      if (ec || target.is_absolute() || parts != 2 || *target.begin() != kRunsFolder)
        return own.name + ", a link to " + target.string() + ", not to runs/<run-id> as hazardlab's is";
      return "";
    }
    case OwnEntry::Kind::FolderOfMarked: {
      if (!fs::is_directory(status)) return own.name + ", which is not a folder";
      for (const auto& child : fs::directory_iterator(entry, ec)) {
        const std::string name = child.path().filename().string();
        if (!name.empty() && name.front() == '.') continue;  // a set or run on its way in (".<id>.staging.<pid>")
        if (child.is_symlink() || !child.is_directory() || !carries_marker(child.path(), own.child_marker)) {
          const std::string why = child.is_symlink()      ? "it is a symbolic link"
                                  : !child.is_directory() ? "it is not a folder"
                                                          : marker_problem(child.path(), own.child_marker);
          return own.name + "/" + name + ", which is not " + folder_kind(own.child_marker) + " hazardlab made (" +
                 (why.empty() ? "it has no " + std::string(own.child_marker) + " file" : why) + ")";
        }
      }
      return ec ? own.name + ", which cannot be read (" + ec.message() + ")" : "";
    }
  }
  return "";
}

// Why `folder`, which does not exist, could not be made ("" if it could): its nearest existing folder must take
// a new folder, which one made there under a unique name and removed proves (access(2) says yes to root in /proc).
std::string cannot_create(const fs::path& folder) {
  std::error_code ec;
  fs::path up = fs::absolute(folder, ec).parent_path();
  while (!up.empty() && !fs::exists(fs::symlink_status(up, ec)) && up != up.root_path()) up = up.parent_path();
  if (!fs::is_directory(up, ec)) return up.string() + " is not a folder";
  std::string probe = (up / ".hazardlab-probe-XXXXXX").string();
  if (::mkdtemp(probe.data()) == nullptr)
    return up.string() + " does not take a new folder (" + std::strerror(errno) + ")";
  ::rmdir(probe.c_str());
  return "";
}

}  // namespace

std::vector<OwnEntry> results_root_entries() {
  return {{std::string(kResultsRootMarker), OwnEntry::Kind::Marker},
          {std::string(kRunsFolder), OwnEntry::Kind::FolderOfMarked, kRunMarker},
          {std::string(kLockFile), OwnEntry::Kind::Lock}};
}

bool judge_folder(const fs::path& folder, std::string_view marker, std::string_view what,
                  const std::vector<OwnEntry>& allowed) {
  const std::string named = std::string(what) + " '" + folder.string() + "'";
  if (folder.empty()) throw FolderRefused("the " + std::string(what) + " is empty: give a folder");
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(folder, ec);
  if (!fs::exists(status)) {
    if (const std::string why = cannot_create(folder); !why.empty())
      throw FolderRefused("cannot create the " + named + ": " + why);
    return false;
  }
  // A link is not the folder hazardlab marks: the marker names the folder itself, which a link is not.
  if (fs::is_symlink(status)) {
    throw FolderRefused("the " + named + " is a symbolic link (to " + fs::read_symlink(folder, ec).string() +
                        "); give the folder itself");
  }
  if (!fs::is_directory(status)) {
    throw FolderRefused("the " + named + " is not a folder; hazardlab writes only into a folder of its own");
  }
  const fs::path real = canonical_or_self(folder);
  if (real == real.root_path()) throw FolderRefused("the " + named + " is the root folder; refused");
  if (const std::optional<std::string> home = environment_value_given("HOME"); home && same_folder(real, *home)) {
    throw FolderRefused("the " + named + " is the home folder; refused");
  }
  if (same_folder(real, fs::current_path(ec))) {
    throw FolderRefused("the " + named + " is the current folder; give a folder of hazardlab's own");
  }
  // Entries with hazardlab's names must be what hazardlab makes of them, marked folder or not: hazardlab
  // replaces its links and prunes under runs/, and must never do so to a user's file of the same name.
  for (const OwnEntry& own : allowed) {
    if (!fs::exists(fs::symlink_status(folder / own.name, ec))) continue;
    if (const std::string why = not_own_entry(folder / own.name, own); !why.empty())
      throw FolderRefused("the " + named + " holds " + why + "; hazardlab leaves it alone: give a new or empty folder");
  }
  // It must take new files (access(2) says yes to root on a read-only file system): said before anything is written.
  if (const std::string why = cannot_create(folder / "entry"); !why.empty())
    throw FolderRefused("cannot write into the " + named + ": " + why);
  if (carries_marker(folder, marker)) return true;
  const std::string lying = marker_problem(folder, marker);
  std::vector<std::string> foreign, names;
  for (const OwnEntry& e : allowed) names.push_back(e.name);
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    const bool own = std::find(names.begin(), names.end(), name) != names.end();
    if ((!own || (name == marker && !lying.empty())) && !own_transient(name, names)) foreign.push_back(name);
  }
  if (ec) throw FolderRefused("cannot read the " + named + ": " + ec.message());
  if (!foreign.empty()) {
    // Another of hazardlab's own folders is named as what it is, never as a folder of files hazardlab did not write.
    for (std::string_view other : {kResultsRootMarker, kRunMarker, kReportsMarker, kReportSetMarker,
                                   std::string_view(".hazardlab-fleet")})
      if (other != marker && carries_marker(folder, other))
        throw FolderRefused("the " + named + " is " + folder_kind(other) + " (it has a " + std::string(other) +
                            " file made for it), not a " + std::string(what) + "; give the " + std::string(what) +
                            " a folder of its own: a new or empty one, or one hazardlab made as such");
    std::string list;
    for (std::size_t i = 0; i < foreign.size() && i < 5; ++i) list += (i ? ", " : "") + foreign[i];
    if (foreign.size() > 5) list += ", ...";
    throw FolderRefused("the " + named + " holds files hazardlab did not write (" + list + ")" +
                        (lying.empty() ? "" : "; " + lying) +
                        "; give an empty or new folder, or one hazardlab made (it has a " + std::string(marker) +
                        " file made for it)");
  }
  return true;
}

void claim_folder(const fs::path& folder, std::string_view marker, std::string_view what,
                  const std::vector<OwnEntry>& allowed) {
  std::error_code ec;
  if (!judge_folder(folder, marker, what, allowed)) {
    fs::create_directories(folder, ec);
    if (ec)
      throw FolderRefused("cannot create the " + std::string(what) + " '" + folder.string() + "': " + ec.message());
  }
  if (!carries_marker(folder, marker)) write_marker(folder, marker, kOwnFolderText);
}

std::string folder_text_problem(std::string_view text) {
  const auto blank = [](unsigned char c) { return std::isspace(c) || std::iscntrl(c); };
  if (text.empty() || std::all_of(text.begin(), text.end(), blank)) return "expected a folder path, not a blank";
  if (blank(text.front()) || blank(text.back()))
    return "expected a folder path without spaces or control characters at either end";
  return "";
}

bool folders_overlap(const fs::path& a, const fs::path& b) {
  const auto real = [](const fs::path& p) {
    fs::path r = canonical_or_self(p).lexically_normal();
    return r.filename().empty() ? r.parent_path() : r;
  };
  const fs::path x = real(a), y = real(b);
  const auto within = [](const fs::path& inner, const fs::path& outer) {
    return std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end()).first == outer.end();
  };
  return within(x, y) || within(y, x);
}

Pruned prune_marked_folders(const fs::path& parent, std::string_view marker, std::size_t keep,
                            const std::vector<std::string>& protect) {
  std::vector<std::string> marked;
  Pruned pruned;
  std::error_code ec;
  if (!fs::is_directory(parent, ec)) return pruned;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    if (entry.is_directory() && !entry.is_symlink() && carries_marker(entry.path(), marker)) {
      marked.push_back(entry.path().filename().string());
    }
  }
  std::sort(marked.begin(), marked.end());
  for (std::size_t i = 0; i + keep < marked.size(); ++i) {
    if (std::find(protect.begin(), protect.end(), marked[i]) != protect.end()) continue;
    // A user's file left inside (notes, an analysis) keeps the whole folder: it is not hazardlab's to delete.
    std::string foreign = first_foreign_entry(parent / marked[i], marker);
    if (!foreign.empty()) pruned.kept.push_back({marked[i], std::move(foreign)});
    else if (fs::remove_all(parent / marked[i], ec); !ec) pruned.removed.push_back(marked[i]);
  }
  return pruned;
}

}  // namespace hazardlab
