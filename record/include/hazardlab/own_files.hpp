#pragma once
// What hazardlab itself writes into a folder it marks as its own (a run folder, a report set), by name and
// kind: a folder hazardlab prunes or replaces must hold nothing else, or a user's file left in it (notes beside
// the results, an analysis) would be deleted with it.
#include <filesystem>
#include <string>
#include <string_view>

namespace hazardlab {

// The first entry of `folder` (a folder carrying `marker`: kRunMarker or kReportSetMarker) that hazardlab does
// not write there, as a path relative to `folder`: "my-notes.txt", "gpu0/plot.png"; "" when it holds nothing
// but hazardlab's own files. An entry that cannot be read counts as not hazardlab's. For any other marker only
// the marker itself is hazardlab's.
std::string first_foreign_entry(const std::filesystem::path& folder, std::string_view marker);

}  // namespace hazardlab
