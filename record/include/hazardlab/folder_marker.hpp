#pragma once
// A marker file says that a folder is hazardlab's, and so may be written into, pruned or overwritten. It names
// the folder it was made for by the folder's device and inode number, which a copy of the folder does not keep
// (cp -a, rsync, a backup restored): a copied or hand-written marker does not make a folder hazardlab's, and
// nothing of hazardlab's deletes or adopts a folder on such a marker's word. A folder moved with mv keeps its
// inode, and stays hazardlab's.
#include <filesystem>
#include <string>
#include <string_view>

namespace hazardlab {

// Writes `folder`/`marker` (atomically): `text`, then the line naming the folder.
void write_marker(const std::filesystem::path& folder, std::string_view marker, std::string_view text);

// Whether `folder` carries `marker`, written for this very folder: a regular file whose last line names the
// folder's device and inode. A symlink, a folder or a marker made for another folder is not.
bool carries_marker(const std::filesystem::path& folder, std::string_view marker);

// Why `folder`/`marker` does not make the folder hazardlab's ("" if it does, or if there is no marker):
// "it was made for another folder (a copy?)", "it is not a regular file".
std::string marker_problem(const std::filesystem::path& folder, std::string_view marker);

}  // namespace hazardlab
