#include "conformance/model/program.hpp"

#include <stdexcept>
#include <utility>

namespace hazardlab::conformance {

namespace {

Command make(CommandKind kind, HostThreadId thread, StreamId stream, std::vector<BufferId> reads,
             std::vector<BufferId> writes, EventId event = 0) {
  return Command{.kind = kind,
                 .thread = thread,
                 .stream = stream,
                 .event = event,
                 .reads = std::move(reads),
                 .writes = std::move(writes),
                 .observed_complete = false};
}

}  // namespace

Program::Program() : streams_{StreamKind::Legacy} {}

StreamId Program::add_stream(StreamKind kind) {
  // Only stream 0 is the legacy stream: a second one would make "the" legacy stream ambiguous.
  if (kind == StreamKind::Legacy) throw std::invalid_argument("the legacy stream is stream 0 (kLegacyStream)");
  streams_.push_back(kind);
  return streams_.size() - 1;
}

EventId Program::add_event() { return event_count_++; }

BufferId Program::add_buffer(BufferKind kind, std::string name) {
  buffers_.push_back(kind);
  buffer_names_.push_back(std::move(name));
  return buffers_.size() - 1;
}

CommandIndex Program::append(Command command) {
  // Reject references to undeclared entities here, so the analysis can index without checks.
  if (command.stream >= streams_.size()) throw std::out_of_range("unknown stream");
  const bool uses_event = command.kind == CommandKind::EventRecord || command.kind == CommandKind::StreamWaitEvent ||
                          command.kind == CommandKind::EventSynchronize || command.kind == CommandKind::EventQuery;
  if (uses_event && command.event >= event_count_) throw std::out_of_range("unknown event");
  if (command.kind == CommandKind::GateClose) command.gate = gate_count_++;
  if (command.kind == CommandKind::GateOpen && command.gate >= gate_count_) throw std::out_of_range("unknown gate");
  for (BufferId b : command.reads)
    if (b >= buffers_.size()) throw std::out_of_range("unknown buffer");
  for (BufferId b : command.writes)
    if (b >= buffers_.size()) throw std::out_of_range("unknown buffer");
  commands_.push_back(std::move(command));
  return commands_.size() - 1;
}

CommandIndex Program::host_write(BufferId buffer, HostThreadId thread) {
  return append(make(CommandKind::HostWrite, thread, kLegacyStream, {}, {buffer}));
}

CommandIndex Program::host_read(BufferId buffer, HostThreadId thread) {
  return append(make(CommandKind::HostRead, thread, kLegacyStream, {buffer}, {}));
}

CommandIndex Program::memcpy_async(BufferId dst, BufferId src, StreamId stream, HostThreadId thread) {
  return append(make(CommandKind::MemcpyAsync, thread, stream, {src}, {dst}));
}

CommandIndex Program::memcpy(BufferId dst, BufferId src, HostThreadId thread) {
  return append(make(CommandKind::Memcpy, thread, kLegacyStream, {src}, {dst}));
}

CommandIndex Program::memset_async(BufferId buffer, StreamId stream, HostThreadId thread) {
  // cudaMemset needs device-accessible memory; pageable host memory is not.
  if (buffer < buffers_.size() && buffers_[buffer] == BufferKind::HostPageable)
    throw std::invalid_argument("cudaMemsetAsync on pageable host memory is invalid");
  return append(make(CommandKind::MemsetAsync, thread, stream, {}, {buffer}));
}

CommandIndex Program::kernel(std::vector<BufferId> reads, std::vector<BufferId> writes, StreamId stream,
                             HostThreadId thread) {
  return append(make(CommandKind::Kernel, thread, stream, std::move(reads), std::move(writes)));
}

CommandIndex Program::host_func(std::vector<BufferId> reads, std::vector<BufferId> writes, StreamId stream,
                                HostThreadId thread) {
  return append(make(CommandKind::HostFunc, thread, stream, std::move(reads), std::move(writes)));
}

CommandIndex Program::event_record(EventId event, StreamId stream, HostThreadId thread) {
  return append(make(CommandKind::EventRecord, thread, stream, {}, {}, event));
}

CommandIndex Program::stream_wait_event(StreamId stream, EventId event, HostThreadId thread) {
  return append(make(CommandKind::StreamWaitEvent, thread, stream, {}, {}, event));
}

CommandIndex Program::event_synchronize(EventId event, HostThreadId thread) {
  return append(make(CommandKind::EventSynchronize, thread, kLegacyStream, {}, {}, event));
}

CommandIndex Program::stream_synchronize(StreamId stream, HostThreadId thread) {
  return append(make(CommandKind::StreamSynchronize, thread, stream, {}, {}));
}

CommandIndex Program::device_synchronize(HostThreadId thread) {
  return append(make(CommandKind::DeviceSynchronize, thread, kLegacyStream, {}, {}));
}

CommandIndex Program::stream_query(StreamId stream, bool observed_complete, HostThreadId thread) {
  Command query = make(CommandKind::StreamQuery, thread, stream, {}, {});
  query.observed_complete = observed_complete;
  return append(std::move(query));
}

CommandIndex Program::event_query(EventId event, bool observed_complete, HostThreadId thread) {
  Command query = make(CommandKind::EventQuery, thread, kLegacyStream, {}, {}, event);
  query.observed_complete = observed_complete;
  return append(std::move(query));
}

}  // namespace hazardlab::conformance

namespace hazardlab::conformance {

GateId Program::gate_close(StreamId stream, GateStyle style) {
  Command close = make(CommandKind::GateClose, 0, stream, {}, {});
  close.gate_style = style;
  return commands_[append(std::move(close))].gate;
}

CommandIndex Program::gate_open(GateId gate) {
  Command open = make(CommandKind::GateOpen, 0, kLegacyStream, {}, {});
  open.gate = gate;
  return append(std::move(open));
}

CommandIndex Program::drain() { return append(make(CommandKind::Drain, 0, kLegacyStream, {}, {})); }

bool is_host_buffer(BufferKind kind) { return kind != BufferKind::Device; }

std::string_view to_string(CommandKind kind) {
  static constexpr std::string_view kNames[] = {
      "HostWrite",       "HostRead",         "MemcpyAsync",       "Memcpy",
      "MemsetAsync",     "Kernel",           "HostFunc",          "EventRecord",
      "StreamWaitEvent", "EventSynchronize", "StreamSynchronize", "DeviceSynchronize",
      "EventQuery",      "StreamQuery",      "GateClose",         "GateOpen",
      "Drain"};
  return kNames[static_cast<std::size_t>(kind)];
}

}  // namespace hazardlab::conformance
