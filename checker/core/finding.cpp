#include "checker/core/finding.hpp"

#include <sstream>

namespace hazardlab::check {

std::string_view to_string(FindingKind kind) {
  switch (kind) {
    case FindingKind::HostWroteCopySource: return "host-wrote-copy-source";
    case FindingKind::HostReadCopyDestination: return "host-read-copy-destination";
    case FindingKind::HostWroteCopyDestination: return "host-wrote-copy-destination";
    case FindingKind::FreedWhileCopyOwns: return "freed-while-copy-owns";
    case FindingKind::UnregisteredWhileCopyOwns: return "unregistered-while-copy-owns";
  }
  return "?";
}

std::string_view to_string(PinnedKind kind) {
  switch (kind) {
    case PinnedKind::HostAlloc: return "pinned";
    case PinnedKind::WriteCombined: return "pinned write-combined";
    case PinnedKind::Registered: return "registered";
  }
  return "?";
}

std::string_view to_string(conformance::StreamKind kind) {
  switch (kind) {
    case conformance::StreamKind::Legacy: return "legacy";
    case conformance::StreamKind::Blocking: return "blocking";
    case conformance::StreamKind::NonBlocking: return "non-blocking";
  }
  return "?";
}

namespace {

std::string stream_kind_text(conformance::StreamKind kind) {
  if (kind == conformance::StreamKind::Legacy) return "the legacy default stream";
  return "a " + std::string(to_string(kind)) + " stream";
}

std::string hex(std::uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

}  // namespace

std::string Finding::hazard() const {
  if (kind == FindingKind::FreedWhileCopyOwns || kind == FindingKind::UnregisteredWhileCopyOwns)
    return "free-while-in-flight";
  if (copy.graph_node) return "graph-memcpy-by-reference";
  if (copy.end == HostEnd::Destination) return "d2h-pinned-read-early";
  if (copy.memory == PinnedKind::WriteCombined) return "write-combined-memory";
  if (copy.memory == PinnedKind::Registered) return "registered-h2d-mutate";
  return "h2d-pinned-mutate";
}

std::string Finding::explain_command() const { return "hazardlab explain " + hazard(); }

std::string Finding::what() const {
  std::ostringstream out;
  const std::string copy_text = copy.api + " of " + std::to_string(copy.bytes) + " bytes on stream " +
                                hex(copy.stream) + " (" + std::string(stream_kind_text(copy.stream_kind)) + ")";
  switch (kind) {
    case FindingKind::HostWroteCopySource:
      out << "host write to byte " << offset << " of the " << to_string(copy.memory) << " source of " << copy_text
          << " before the copy was known to have read it";
      break;
    case FindingKind::HostReadCopyDestination:
    case FindingKind::HostWroteCopyDestination:
      out << "host " << (kind == FindingKind::HostReadCopyDestination ? "read of" : "write to") << " byte " << offset
          << " of the " << to_string(copy.memory) << " destination of " << copy_text
          << " before the copy was known to have landed";
      break;
    case FindingKind::FreedWhileCopyOwns:
    case FindingKind::UnregisteredWhileCopyOwns:
      out << (kind == FindingKind::FreedWhileCopyOwns ? "freed" : "unregistered") << " host memory at " << hex(address)
          << " while " << copy_text << " still owned " << copy.bytes << " bytes of it";
      break;
  }
  if (copy.graph_node) out << " (a memcpy node of a launched CUDA graph)";
  return out.str();
}

std::string Finding::missing() const {
  if (!relies_on.empty()) {
    std::string text = "the documented rules order the copy before this access, but the program relies on a rule a "
                       "GPU was measured not to keep:";
    for (conformance::Deviation d : relies_on) {
      const auto& info = conformance::deviation_info(d);
      text += " " + std::string(info.name) + " (" + std::string(info.summary) + "; " + std::string(info.evidence) + ")";
    }
    return text;
  }
  return "no synchronization of the host with the copy between the copy call and this access: no "
         "cudaStreamSynchronize of its stream, no cudaEventSynchronize (or successful cudaEventQuery) of an event "
         "recorded after it, no cudaDeviceSynchronize, and no synchronous call that waits for it";
}

std::string Finding::smallest_fix() const {
  if (!relies_on.empty())
    return "record an event on the copy's stream right after the copy and cudaEventSynchronize it before the host "
           "touches the buffer: an event was measured to order these copies on every GPU";
  switch (kind) {
    case FindingKind::HostWroteCopySource:
      return "record an event on the copy's stream right after the copy, and cudaEventSynchronize it (or "
             "cudaStreamSynchronize the stream) before the host rewrites the buffer; or rewrite a second buffer";
    case FindingKind::HostReadCopyDestination:
    case FindingKind::HostWroteCopyDestination:
      return "cudaStreamSynchronize the copy's stream (or cudaEventSynchronize an event recorded after the copy) "
             "before the host touches the destination";
    case FindingKind::FreedWhileCopyOwns:
    case FindingKind::UnregisteredWhileCopyOwns:
      return "synchronize with the copy (its stream, or an event recorded after it) before freeing or unregistering "
             "the memory";
  }
  return "";
}

}  // namespace hazardlab::check
