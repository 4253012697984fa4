// A program for the model: the entities (host threads, streams, events, buffers) and the sequence of
// CUDA and host commands, in the order they were issued. No CUDA headers: the model runs anywhere.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hazardlab::conformance {

enum class StreamKind {
  Legacy,       // the NULL stream, with its implicit synchronization
  Blocking,     // cudaStreamCreate (default flags): synchronizes with the legacy stream
  NonBlocking,  // cudaStreamNonBlocking: exempt from the legacy stream's implicit synchronization
};

enum class BufferKind { HostPinned, HostPageable, Device };

using StreamId = std::size_t;
using EventId = std::size_t;
using BufferId = std::size_t;
using HostThreadId = std::size_t;
using CommandIndex = std::size_t;

// Every buffer of a program holds this many bytes (the runner's and the printer's size too): the model
// needs it where a documented rule or a seen deviation depends on a copy's size.
inline constexpr std::size_t kBufferBytes = 16 * 1024;

// Stream 0 is the legacy stream, present in every program.
inline constexpr StreamId kLegacyStream = 0;

enum class CommandKind {
  HostWrite,
  HostRead,
  MemcpyAsync,
  Memcpy,  // synchronous cudaMemcpy
  MemsetAsync,
  Kernel,
  HostFunc,
  EventRecord,
  StreamWaitEvent,
  EventSynchronize,
  StreamSynchronize,
  DeviceSynchronize,
  EventQuery,
  StreamQuery,  // cudaStreamQuery: "cudaSuccess if all operations in stream have completed"
  // Schedule commands: what a runner adds to force an unlikely interleaving (conformance/schedule).
  GateClose,  // a gate queued on a stream: later work there waits until the host opens it
  GateOpen,   // the host opens a gate
  Drain,      // the host waits for all work the model says is not behind a closed gate
};

// How a gate holds its stream: a host function waiting on a latch (its edges are host-function edges,
// rule 9) or a spinning kernel (ordinary stream work, rule 1).
enum class GateStyle { HostFunction, SpinKernel };

using GateId = std::size_t;

// One issued command. A copy reads {src} and writes {dst}; a kernel or host function lists what it
// reads and writes. Fields a kind does not use stay at their defaults.
struct Command {
  CommandKind kind;
  HostThreadId thread = 0;
  StreamId stream = kLegacyStream;
  EventId event = 0;
  std::vector<BufferId> reads;
  std::vector<BufferId> writes;
  // EventQuery and StreamQuery: the program saw cudaSuccess. Otherwise the query orders nothing.
  bool observed_complete = false;
  GateId gate = 0;                               // GateClose, GateOpen
  GateStyle gate_style = GateStyle::SpinKernel;  // GateClose
  // A host call that found a gate closed and was not back within the call limit: every gate closed when
  // it began was opened while it waited (the watchdog), so the gates are open after it.
  bool watchdog_opened = false;
};

std::string_view to_string(CommandKind kind);
bool is_host_buffer(BufferKind kind);

// Builds a program. Each command method returns the command's index, which also names the writes it
// makes (see observed_writes.hpp).
class Program {
 public:
  Program();

  StreamId add_stream(StreamKind kind);
  EventId add_event();
  BufferId add_buffer(BufferKind kind, std::string name);

  CommandIndex host_write(BufferId buffer, HostThreadId thread = 0);
  CommandIndex host_read(BufferId buffer, HostThreadId thread = 0);
  CommandIndex memcpy_async(BufferId dst, BufferId src, StreamId stream, HostThreadId thread = 0);
  CommandIndex memcpy(BufferId dst, BufferId src, HostThreadId thread = 0);
  CommandIndex memset_async(BufferId buffer, StreamId stream, HostThreadId thread = 0);
  CommandIndex kernel(std::vector<BufferId> reads, std::vector<BufferId> writes, StreamId stream,
                      HostThreadId thread = 0);
  CommandIndex host_func(std::vector<BufferId> reads, std::vector<BufferId> writes, StreamId stream,
                         HostThreadId thread = 0);
  CommandIndex event_record(EventId event, StreamId stream, HostThreadId thread = 0);
  CommandIndex stream_wait_event(StreamId stream, EventId event, HostThreadId thread = 0);
  CommandIndex event_synchronize(EventId event, HostThreadId thread = 0);
  CommandIndex stream_synchronize(StreamId stream, HostThreadId thread = 0);
  CommandIndex device_synchronize(HostThreadId thread = 0);
  CommandIndex event_query(EventId event, bool observed_complete, HostThreadId thread = 0);
  CommandIndex stream_query(StreamId stream, bool observed_complete, HostThreadId thread = 0);
  GateId gate_close(StreamId stream, GateStyle style);
  CommandIndex gate_open(GateId gate);
  CommandIndex drain();
  // Appends a command as it is (the generator and the runner copy commands between programs).
  CommandIndex append(Command command);
  // The program cut after its first `count` commands (what had been issued by then).
  [[nodiscard]] Program prefix(std::size_t count) const {
    Program copy = *this;
    copy.commands_.resize(count);
    return copy;
  }
  // Marks the command as one during which the watchdog opened the closed gates.
  void set_watchdog_opened(CommandIndex index) { commands_.at(index).watchdog_opened = true; }
  // Records what an EventQuery or StreamQuery answered when the program ran.
  void set_observed_complete(CommandIndex index, bool complete) { commands_.at(index).observed_complete = complete; }

  [[nodiscard]] const std::vector<Command>& commands() const { return commands_; }
  [[nodiscard]] StreamKind stream_kind(StreamId stream) const { return streams_.at(stream); }
  [[nodiscard]] std::size_t stream_count() const { return streams_.size(); }
  [[nodiscard]] BufferKind buffer_kind(BufferId buffer) const { return buffers_.at(buffer); }
  [[nodiscard]] const std::string& buffer_name(BufferId buffer) const { return buffer_names_.at(buffer); }
  [[nodiscard]] std::size_t buffer_count() const { return buffers_.size(); }
  [[nodiscard]] std::size_t event_count() const { return event_count_; }
  [[nodiscard]] std::size_t gate_count() const { return gate_count_; }

 private:
  std::vector<StreamKind> streams_;
  std::vector<BufferKind> buffers_;
  std::vector<std::string> buffer_names_;
  std::size_t event_count_ = 0;
  std::size_t gate_count_ = 0;
  std::vector<Command> commands_;
};

}  // namespace hazardlab::conformance
