// The metrics file, hazardlab.prom, in node_exporter's textfile-collector folder: written whole in one rename,
// signed on its last line, and never written over when it is someone else's.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "hazardlab/atomic_file.hpp"
#include "hazardlab/fleet.hpp"
#include "hazardlab/fnv1a.hpp"
#include "hazardlab/prometheus.hpp"
#include "hazardlab/results_layout.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

// The last line of every hazardlab.prom hazardlab writes: a comment (the collector reads no other comment than
// HELP and TYPE) that names the file by its device and inode, and the hash of every line above it. A file is
// hazardlab's only when its last line names this very file and the hash of what is above it: a file written by
// hand, a copy, or one with a line added or changed is someone's, even when every line is a hazardlab_ metric.
constexpr std::string_view kSignature = "# written by hazardlab for file ";
constexpr std::string_view kHashed = ", fnv1a of the lines above ";

std::string hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string signature_line(const std::string& identity, std::string_view above) {
  return std::string(kSignature) + identity + std::string(kHashed) + hex(fnv1a(above)) + "\n";
}

// A metrics file is read whole to check its signature; one larger than this is no file hazardlab wrote.
constexpr std::uintmax_t kLargestOwnFile = 64u << 20;

bool written_by_hazardlab(const fs::path& file) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec || size > kLargestOwnFile) return false;
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return false;
  if (text.empty() || text.back() != '\n') return false;
  const std::size_t last = text.rfind('\n', text.size() - 2);
  const std::size_t start = last == std::string::npos ? 0 : last + 1;
  const std::string_view above = std::string_view(text).substr(0, start);
  return std::string_view(text).substr(start) == signature_line(file_identity(file), above);
}

}  // namespace

void require_prometheus_folder(const fs::path& dir, std::string_view given_as) {
  // Named as it was given: "--prometheus 'x'", or "HAZARDLAB_PROMETHEUS_DIR='x'".
  const std::string named = std::string(given_as) + (given_as.starts_with("--") ? " '" : "='") + dir.string() + "'";
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) {
    throw std::invalid_argument(named +
                                " is not a folder: name node_exporter's textfile-collector folder "
                                "(--collector.textfile.directory), which must already exist");
  }
  // A folder hazardlab keeps holds only hazardlab's own files: a hazardlab.prom in it, or in a folder inside it,
  // would make every later run or report refuse that folder as holding a file it did not write.
  const fs::path real = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  for (fs::path at = real; !at.empty(); at = at.parent_path()) {
    for (const auto& [marker, what] : {std::pair{kResultsRootMarker, "a results root"}, {kRunMarker, "a run folder"},
                                       {kReportsMarker, "a report folder"}, {kReportSetMarker, "a report set"},
                                       {kFleetMarker, "a fleet report folder"}}) {
      if (fs::exists(fs::symlink_status(at / marker, ec)))
        throw std::invalid_argument(named + " is " + (at == real ? "" : "inside ") + what + " (" + at.string() +
                                    "), which holds only hazardlab's own files; name node_exporter's "
                                    "textfile-collector folder, outside every folder hazardlab writes");
    }
    if (at == at.root_path()) break;
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    const int err = errno;
    throw std::invalid_argument(named + " cannot be written (" + std::strerror(err) + ")");
  }
  const fs::path file = dir / kPrometheusFile;
  const fs::file_status status = fs::symlink_status(file, ec);
  if (!fs::exists(status)) return;
  if (!fs::is_regular_file(status) || !written_by_hazardlab(file)) {
    throw std::invalid_argument(named + ": " + file.string() +
                                " exists and was not written by hazardlab (it is not a regular file, or its last line "
                                "is not the signature hazardlab writes for that very file: a copy, a file written or "
                                "changed by hand, or one an earlier hazardlab wrote without it); it is left as it is: move it, "
                                "or name another folder");
  }
}

void write_prometheus(const fs::path& dir, const std::string& text) {
  const std::string whole = text.empty() || text.back() == '\n' ? text : text + "\n";
  write_file_atomically(dir / kPrometheusFile,
                        [&whole](const std::string& identity) { return whole + signature_line(identity, whole); });
}

}  // namespace hazardlab
