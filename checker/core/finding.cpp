#include "checker/core/finding.hpp"

#include <algorithm>
#include <sstream>

namespace hazardlab::check {

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

// The teaching table's words for a race between device work (the hazard each pattern is explained by).
bool frees(const DeviceRace& r) {
  return r.earlier.work == DeviceWorkKind::FreeAsync || r.later.work == DeviceWorkKind::FreeAsync;
}
bool legacy_and_non_blocking(const DeviceRace& r) {
  using conformance::StreamKind;
  const auto kinds = {r.earlier.stream_kind, r.later.stream_kind};
  return std::count(kinds.begin(), kinds.end(), StreamKind::Legacy) == 1 &&
         std::count(kinds.begin(), kinds.end(), StreamKind::NonBlocking) == 1;
}

// Both sides are nodes of launched graphs (their driver call is named "cuGraphLaunch <kind> node").
bool graph_nodes(const DeviceRace& r) {
  return r.earlier.api.starts_with("cuGraphLaunch ") && r.later.api.starts_with("cuGraphLaunch ");
}

std::string work_text(const DeviceWorkFacts& w) {
  std::string text = w.work == DeviceWorkKind::Kernel && !w.kernel.empty() ? "kernel " + w.kernel + " (" + w.api + ")"
                                                                           : w.api;
  return text + " on stream " + hex(w.stream) + " (" + stream_kind_text(w.stream_kind) + ")";
}

const char* verb(DeviceAccessKind kind) {
  switch (kind) {
    case DeviceAccessKind::Read: return "reads";
    case DeviceAccessKind::Write: return "writes";
    case DeviceAccessKind::MayWrite: return "is handed (through a pointer it may write)";
  }
  return "?";
}

// Which bytes of a kernel side were judged: its recorded footprint, or the rule where none could be had.
std::string judged_by(const DeviceRace& r) {
  std::string text;
  for (const DeviceWorkFacts* w : {&r.earlier, &r.later}) {
    if (w->work != DeviceWorkKind::Kernel || w->source == RangeSource::Named) continue;
    if (w->source == RangeSource::Recorded)
      text += " (kernel " + w->kernel + ": the bytes it touched, as recorded while it ran)";
    else if (w->source == RangeSource::ReadFromPtx)
      text += " (kernel " + w->kernel + ": the bytes its PTX reads and writes with these arguments, grid and block)";
    else
      text += " (kernel " + w->kernel + ": judged by the rule, the element each pointer argument points to, read or "
              "written as its signature says)";
  }
  return text;
}

std::string race_what(const DeviceRace& r, std::uintptr_t address) {
  std::ostringstream out;
  if (r.later.work == DeviceWorkKind::FreeAsync) {
    out << work_text(r.later) << " frees the block at " << hex(address) << " while " << work_text(r.earlier)
        << ", enqueued before it, may still " << to_string(r.earlier.access) << " it";
  } else if (r.earlier.work == DeviceWorkKind::FreeAsync) {
    out << work_text(r.later) << " " << verb(r.later.access) << " device memory at " << hex(address) << " that "
        << work_text(r.earlier) << " freed, with nothing ordering it after the free: the pool may hand the block out "
        << "again";
  } else {
    out << work_text(r.later) << " " << verb(r.later.access) << " device memory at " << hex(address) << " that "
        << work_text(r.earlier) << ", enqueued before it, " << verb(r.earlier.access) << ", and nothing orders the two";
  }
  out << judged_by(r);
  return out.str();
}

}  // namespace

std::string Finding::first_heading() const { return race ? "Later work:" : "Host access:"; }
std::string Finding::second_heading() const {
  if (race) return "Earlier work:";
  return copy.held_by_kernel() ? "Kernel launched:" : "Copy issued:";
}

std::string Finding::hazard() const {
  if (race) {
    if (frees(*race)) return "stream-ordered-allocator-reuse";
    if (legacy_and_non_blocking(*race)) return "legacy-stream-nonblocking-consumer";
    return "cross-stream-no-event";
  }
  if (kind == FindingKind::FreedWhileCopyOwns || kind == FindingKind::UnregisteredWhileCopyOwns)
    return "free-while-in-flight";
  if (copy.held_by_kernel() && copy.memory == PinnedKind::Managed) {
    if (copy.queued_behind == QueuedBehindKernel::PrefetchToHost) return "managed-prefetch-not-a-fence";
    if (copy.queued_behind == QueuedBehindKernel::StreamAttach) return "managed-stream-attach";
    return "managed-host-access-during-kernel";
  }
  if (copy.held_by_kernel()) return "mapped-memory-visibility";  // a kernel on mapped pinned memory
  if (copy.graph_node) return "graph-memcpy-by-reference";
  if (copy.end == HostEnd::Destination) return "d2h-pinned-read-early";
  if (copy.memory == PinnedKind::WriteCombined) return "write-combined-memory";
  if (copy.memory == PinnedKind::Registered) return "registered-h2d-mutate";
  return "h2d-pinned-mutate";
}

std::string Finding::explain_command() const { return "hazardlab explain " + hazard(); }

std::string Finding::what() const {
  if (race) return race_what(*race, address);
  std::ostringstream out;
  const std::string on_stream = " on stream " + hex(copy.stream) + " (" + stream_kind_text(copy.stream_kind) + ")";
  if (copy.held_by_kernel()) {
    // A kernel's extent is not known: it owns the bytes its pointer argument points to.
    const std::string kernel_text = "kernel " + copy.kernel + " (" + copy.api + ")" + on_stream;
    const std::string memory = copy.memory == PinnedKind::Managed ? std::string("managed memory")
                                                                  : std::string(to_string(copy.memory)) + " host memory";
    switch (kind) {
      case FindingKind::HostWroteCopySource:
        out << "host write to " << memory << " that " << kernel_text
            << " reads (it was handed a pointer to it) before the kernel was known to have finished";
        break;
      case FindingKind::HostReadCopyDestination:
      case FindingKind::HostWroteCopyDestination:
        out << "host " << (kind == FindingKind::HostReadCopyDestination ? "read of" : "write to") << " " << memory
            << " that " << kernel_text
            << " may write (it was handed a pointer to it) before the kernel was known to have finished";
        break;
      case FindingKind::FreedWhileCopyOwns:
      case FindingKind::UnregisteredWhileCopyOwns:
        out << (kind == FindingKind::FreedWhileCopyOwns ? "freed" : "unregistered") << " host memory at "
            << hex(address) << " while " << kernel_text << ", handed a pointer into it, may still run";
        break;
      case FindingKind::DeviceWorkRace: break;
    }
    if (copy.queued_behind == QueuedBehindKernel::PrefetchToHost)
      out << "; a cudaMemPrefetchAsync to the CPU was queued after the kernel, and a prefetch waits for nothing";
    if (copy.queued_behind == QueuedBehindKernel::StreamAttach)
      out << "; the memory was attached to a stream (cudaStreamAttachMemAsync) after the kernel, and the attach is "
             "queued: it orders nothing until the host synchronizes with that stream";
    return out.str();
  }
  const std::string copy_text = copy.api + " of " + std::to_string(copy.bytes) + " bytes" + on_stream;
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
    case FindingKind::DeviceWorkRace: break;  // said by race_what
  }
  if (copy.graph_node) out << " (a memcpy node of a launched CUDA graph)";
  return out.str();
}

std::string Finding::missing() const {
  if (race) {
    std::string text = "nothing orders the later work after the earlier: no event recorded on the earlier's stream "
                       "after it and waited for by the later's stream (cudaStreamWaitEvent), and no host "
                       "synchronization with the earlier work before the later was enqueued";
    if (legacy_and_non_blocking(*race))
      text += "; a stream created with cudaStreamNonBlocking does not synchronize with the legacy default stream";
    if (graph_nodes(*race))
      text = "nothing orders the two graph nodes: no path of edges leads from the earlier node to the later in their "
             "graph (a stream capture makes an edge from each stream's order and from each event recorded and waited "
             "for while capturing), and, for nodes of two launches, nothing orders the later launch after the earlier";
    return text;
  }
  if (!relies_on.empty()) {
    std::string text = "the documented rules order the copy before this access, but the program relies on a rule a "
                       "GPU was measured not to keep:";
    for (conformance::Deviation d : relies_on) {
      const auto& info = conformance::deviation_info(d);
      text += " " + std::string(info.name) + " (" + std::string(info.summary) + "; " + std::string(info.evidence) + ")";
    }
    return text;
  }
  const std::string_view owner = copy.held_by_kernel() ? "the kernel between its launch" : "the copy between the copy call";
  return "no synchronization of the host with " + std::string(owner) +
         " and this access: no cudaStreamSynchronize of its stream, no cudaEventSynchronize (or successful "
         "cudaEventQuery) of an event recorded after it, no cudaDeviceSynchronize, and no synchronous call that waits "
         "for it";
}

std::string Finding::smallest_fix() const {
  if (race && race->python)
    return "in PyTorch, make the later work's stream wait for the earlier's before the later work "
           "(`later.wait_stream(earlier)`, or a torch.cuda.Event recorded on one and waited for on the other); a "
           "tensor used on a side stream and then freed needs `tensor.record_stream(side)` first, so that its block "
           "is not handed out before the side stream is done; in CuPy, record a cupy.cuda.Event on the earlier "
           "stream and `stream.wait_event(event)` on the later";
  if (race && graph_nodes(*race))
    return "add a dependency from the earlier node to the later (cudaGraphAddDependencies), or, when the graph is "
           "captured, make the later node's stream wait for an event recorded after the earlier node "
           "(cudaStreamWaitEvent) before capturing the later node";
  if (race && frees(*race))
    return "free the block on the stream that used it last, or record an event after the last use and "
           "cudaStreamWaitEvent the freeing stream on it before cudaFreeAsync";
  if (race)
    return "record an event on the earlier work's stream right after it (cudaEventRecord) and cudaStreamWaitEvent "
           "the later work's stream on it before the later work";
  if (copy.held_by_kernel() && copy.memory == PinnedKind::Managed)
    return "cudaDeviceSynchronize, cudaStreamSynchronize the kernel's stream, or cudaEventSynchronize an event "
           "recorded after the kernel, before the host touches managed memory the kernel was handed; a prefetch to "
           "the CPU (cudaMemPrefetchAsync) or an attach (cudaStreamAttachMemAsync) is queued like the kernel, so "
           "synchronize after it";
  if (copy.held_by_kernel())
    return "cudaStreamSynchronize the kernel's stream (or cudaEventSynchronize an event recorded after the kernel) "
           "before the host touches memory the kernel was handed; a host and a kernel that talk through mapped "
           "memory while it runs need system-scope atomics and __threadfence_system, which the checker does not "
           "see (run without --kernels-own-mapped-memory)";
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
    case FindingKind::DeviceWorkRace: break;  // said above
  }
  return "";
}

}  // namespace hazardlab::check
