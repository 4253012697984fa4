// The runner of one program (run_program.hpp), inside the runner's files: it makes the program's buffers, streams
// and events (run_program.cpp), issues each command as the program says (issue_command.cpp) and observes what
// each read found.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "conformance/check/tags.hpp"
#include "conformance_gpu/runner/run_program.hpp"
#include "conformance_gpu/runner/tag_kernels.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/host_memory.hpp"
#include "cuda/stream.hpp"
#include "hold/gate.hpp"

namespace hazardlab::conformance {

inline constexpr std::size_t kBytes = kWords * sizeof(std::uint32_t);

// A host function's buffers: it must not call CUDA, so it only reads and writes host memory.
struct HostOp {
  const std::uint32_t* read = nullptr;
  std::vector<std::uint32_t> seen = std::vector<std::uint32_t>(kWords);
  std::uint32_t* write = nullptr;
  std::uint32_t tag = 0;
};

class Runner {
 public:
  Runner(const Program& p, const RunLimits& limits, std::uint32_t nonce)
      : run_{p, {}, false}, limits_(limits), tags_{run_.executed, nonce} {}
  Run execute();

 private:
  std::uint32_t* ptr(BufferId b) const { return static_cast<std::uint32_t*>(pointers_[b]); }
  cudaStream_t stream(StreamId s) const { return s == kLegacyStream ? cudaStreamLegacy : streams_[s - 1]; }
  void allocate();
  void issue(CommandIndex k, const Command& c);
  // Decodes the words read `k` found in buffer `b`, and keeps the first few distinct raw words for a report.
  void observe(CommandIndex k, BufferId b, const std::uint32_t* words) {
    std::set<ValueId>& values = run_.observation.reads[{k, b}];
    std::set<std::uint32_t>& raw = run_.observation.raw_words[{k, b}];
    for (std::size_t i = 0; i < kWords; ++i) {
      values.insert(tags_.decode(words[i]));
      if (raw.size() < 8) raw.insert(words[i]);
    }
  }
  // The stream work before command `k` whose completion event has been reached (nothing waits here).
  std::set<CommandIndex> finished_before(CommandIndex k) {
    std::set<CommandIndex> finished;
    for (CommandIndex j = 0; j < k; ++j)
      if (done_[j] && done_[j]->query()) finished.insert(j);
    return finished;
  }

  Run run_;
  RunLimits limits_;
  Tags tags_;
  std::vector<cudaStream_t> streams_;  // the pool's (stream_pool), by StreamId - 1
  std::vector<Event> events_;
  std::vector<std::optional<Event>> done_;  // recorded after each command's stream work
  std::vector<HostBuffer> host_;
  std::vector<DeviceBuffer> device_;
  std::vector<void*> pointers_;
  std::vector<std::unique_ptr<Gate>> gates_;
  std::vector<std::unique_ptr<Gate>> all_gates_;  // kept until the end, to ask whether one timed out
  std::map<CommandIndex, DeviceBuffer> kernel_seen_;
  std::map<CommandIndex, std::unique_ptr<HostOp>> host_ops_;
};

}  // namespace hazardlab::conformance
