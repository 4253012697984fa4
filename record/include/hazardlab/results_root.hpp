#pragma once
// The folders hazardlab writes runs and reports into, kept safe: a folder is used only if it is
// new, empty or already marked as hazardlab's, and only folders carrying hazardlab's own marker
// are ever removed. One run at a time holds a root's lock.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hazardlab {

// A folder hazardlab will not write into or clear; the message names it and says why.
class FolderRefused : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What hazardlab keeps in a folder of its own, by name and by kind. An entry with one of these names that is
// not of that kind is not hazardlab's: a user's regular file named `latest`, a user's folder under `runs/`.
struct OwnEntry {
  enum class Kind {
    Marker,          // a marker file (folder_marker.hpp)
    Lock,            // a regular file
    LinkIntoRuns,    // a symbolic link to runs/<name>
    FolderOfMarked,  // a folder whose every entry is a folder carrying `child_marker` (or one on its way in)
  };
  std::string name;
  Kind kind = Kind::Marker;
  std::string_view child_marker = {};
};

// What hazardlab keeps in a results root: its marker, runs/ of marked run folders, and the lock.
std::vector<OwnEntry> results_root_entries();

// Makes `folder` hazardlab's: creates it (and its marker file `marker`) if it does not exist, or
// adopts it if it is empty or already carries `marker` made for it (folder_marker.hpp). Refuses `/`,
// the home folder, the current folder, a path that is not a folder, a folder holding anything but
// `allowed` entries, and an entry named as one of `allowed` that is not of its kind, even in a folder
// that carries the marker. `what` names the folder in messages ("results root", "report folder").
// Changes nothing when it refuses.
void claim_folder(const std::filesystem::path& folder, std::string_view marker, std::string_view what,
                  const std::vector<OwnEntry>& allowed);

// claim_folder's judgement alone, with nothing written: throws FolderRefused where claim_folder would refuse
// (a folder that does not exist is refused when it could not be made: its nearest folder takes no new one), so
// that a command judges all its output folders before it makes any. Returns whether `folder` exists. A symbolic
// link is refused by both: the marker names the folder itself.
bool judge_folder(const std::filesystem::path& folder, std::string_view marker, std::string_view what,
                  const std::vector<OwnEntry>& allowed);

// "" if `text` can name a folder given by a person, else why not: blank, or with spaces or control
// characters at either end (HAZARDLAB_RESULTS_ROOT=" ", --results-root ''), a slip of the keyboard,
// never a folder to create or a reason to fall back to a default.
std::string folder_text_problem(std::string_view text);

// Whether two folders are the same or one is inside the other (after following links): a results
// root and a report folder must not be, or each would look foreign to the other, or be mistaken
// for the other's.
bool folders_overlap(const std::filesystem::path& a, const std::filesystem::path& b);

// Removes the oldest subfolders of `parent` that carry `marker` made for them, keeping the newest `keep`
// (by name, which starts with the UTC start time) and every name in `protect`. Anything without the
// marker, or with a marker made for another folder (a copy), is left alone, and so is a marked folder
// holding anything hazardlab did not write there (own_files.hpp). Returns the names removed, and those
// kept for what they hold.
struct Pruned {
  struct Kept {
    std::string name;     // the folder's name under `parent`
    std::string foreign;  // the first entry in it that hazardlab did not write ("my-notes.txt")
  };
  std::vector<std::string> removed;
  std::vector<Kept> kept;
};
Pruned prune_marked_folders(const std::filesystem::path& parent, std::string_view marker, std::size_t keep,
                            const std::vector<std::string>& protect);

// Who holds a results root.
struct LockHolder {
  std::string run_id;
  std::string host;
  long pid = 0;
  std::string started_at;
  std::string describe() const;  // "run X (host H, pid P, started T)"
};

struct LockAttempt {
  bool acquired = false;
  std::optional<LockHolder> holder;      // who holds it, when not acquired
  std::optional<LockHolder> taken_over;  // a stale holder replaced (same host, process gone)
};

// Takes <root>/lock for `me` with an exclusive create. A lock left by a process of this host that
// no longer runs is stale and taken over; any other holder makes the attempt fail.
LockAttempt acquire_run_lock(const std::filesystem::path& root, const LockHolder& me);
// Whether the run holding a lock may still be going: its process runs on this host, or it ran on
// another host (whose processes cannot be seen from here). The caller and its parent (ctest,
// which runs the report as its last test) do not count: they are the run ending.
bool lock_holder_may_be_running(const LockHolder& holder);
// Removes the lock if `run_id` holds it; returns whether it did.
bool release_run_lock(const std::filesystem::path& root, std::string_view run_id);
std::optional<LockHolder> read_run_lock(const std::filesystem::path& root);

}  // namespace hazardlab
