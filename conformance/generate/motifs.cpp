// The motifs (generate.hpp): short patterns whose answer depends on one rule.
#include <algorithm>

#include "conformance/generate/program_builder.hpp"

namespace hazardlab::conformance::detail {

// A motif is a short pattern whose answer depends on one rule, with its streams, event and buffers still
// chosen at random: uniform commands make such a pattern rare, and a mutant it would refute stood.
void ProgramBuilder::motif(Motif m, const RawCommand& r) {
  const StreamId x = pick(streams, r.b);
  Command work = make(CommandKind::Kernel);
  work.reads = {pick(device, r.a)};
  work.writes = {pick(device, r.a + 1)};
  switch (m) {
    case Motif::EventWaitAcrossStreams: {
      // Rule 3: work behind an event recorded behind a closed gate waits for the gate.
      if (!close_gate(x, false)) return;
      const std::size_t at = static_cast<std::size_t>(std::find(streams.begin(), streams.end(), x) - streams.begin());
      const StreamId y = streams[(at + 1 + r.c) % streams.size()];
      Command record = make(CommandKind::EventRecord, x);
      record.event = r.a % p.event_count();
      Command wait = make(CommandKind::StreamWaitEvent, y);
      wait.event = record.event;
      work.stream = y;
      issue(std::move(record), false);
      issue(std::move(wait), false);
      issue(std::move(work), false);
      break;
    }
    case Motif::LegacyAndBlockingStream: {
      // Rule 2: the legacy stream and a blocking stream, one gated, the other given work.
      std::vector<StreamId> blocking;
      for (StreamId s : streams)
        if (p.stream_kind(s) == StreamKind::Blocking) blocking.push_back(s);
      const StreamId other = blocking.empty() ? x : pick(blocking, r.b);
      const bool legacy_gated = r.c % 2 == 0;
      if (!close_gate(legacy_gated ? kLegacyStream : other, false)) return;
      work.stream = legacy_gated ? other : kLegacyStream;
      issue(std::move(work), false);
      break;
    }
    case Motif::PageableUploadThenRewrite:
    case Motif::PinnedUploadThenRewrite: {
      // Rule 6 (pageable: the copy took the source at the call) and rule 5 (pinned: it reads the source when
      // it runs): an upload held behind a gate, its source rewritten before the gate opens; then the copy is
      // waited for and its destination read at once, before a later command can overwrite it (the readback at
      // the end alone left rule 6's mutant standing through 300 programs in 1 of 10 H100 runs, and rule 5's,
      // which the pinned uploads of uniform commands refuted after 13 to 244 programs, in one).
      const BufferKind kind = m == Motif::PageableUploadThenRewrite ? BufferKind::HostPageable : BufferKind::HostPinned;
      std::vector<BufferId> sources;
      for (BufferId b : host)
        if (p.buffer_kind(b) == kind) sources.push_back(b);
      if (!close_gate(x, false)) return;
      const GateId gate = closed.back();
      Command copy = make(CommandKind::MemcpyAsync, x);
      copy.reads = {pick(sources, r.a)};
      copy.writes = {pick(device, r.c)};
      Command rewrite = make(CommandKind::HostWrite);
      rewrite.writes = copy.reads;
      Command open = make(CommandKind::GateOpen);
      open.gate = gate;
      Command read = make(CommandKind::HostRead);
      read.reads = copy.writes;
      issue(std::move(copy), false);
      issue(std::move(rewrite), false);
      if (std::find(closed.begin(), closed.end(), gate) != closed.end()) {
        std::erase(closed, gate);
        issue(std::move(open), false);
      }
      issue(make(CommandKind::StreamSynchronize, x), false);
      issue(std::move(read), false);
      return;
    }
    case Motif::HostFunctionBehindGate: {
      // Rule 9: a host function waits for the gated work ahead of it on its stream.
      if (!close_gate(x, false)) return;
      Command host_function = make(CommandKind::HostFunc, x);
      host_function.reads = {pick(host, r.a)};
      host_function.writes = {pick(host, r.a + 1)};
      issue(std::move(host_function), false);
      break;
    }
  }
  issue(make(CommandKind::Drain), false);
}

}  // namespace hazardlab::conformance::detail
