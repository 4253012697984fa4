// What the library CUDA loads into a checked program (CUDA_INJECTION64_PATH) holds for the process's lifetime:
// the checker, the process log, and what the driver calls told it of streams and graphs. The entry
// (injection.cpp) sets it up; the driver calls (driver_calls.cpp) keep it.
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checker/core/checker.hpp"
#include "checker/fault/fault_handler.hpp"
#include "checker/inject/process_writer.hpp"

namespace hazardlab::check::inject {

struct Injection {
  HostPageProtector protector;
  Checker checker{protector};
  ProcessWriter writer;
  std::atomic<bool> disabled{false};  // a forked child: no CUDA there, and its memory is its own again
  bool kernels_own_mapped_memory = false;  // `--kernels-own-mapped-memory`, read once at the entry
  // What could not be watched, said at the end (each makes the run incomplete, never clean).
  std::atomic<std::uint64_t> captured_copies{0};  // copies issued into a stream capture (a graph being built)
  std::atomic<std::uint64_t> batch_copies{0};     // cuMemcpyBatchAsync, which the checker does not read yet
  // Stream captures begun and not ended: while there are none, no stream is capturing and a launch needs no
  // query (work launched into a capture is not run: it becomes a node of the graph being built).
  std::atomic<std::int64_t> captures_open{0};
  std::atomic<std::uint64_t> launches_without_layout{0};  // kernels whose parameters the driver could not list
  std::atomic<bool> handler_replaced{false};
  std::atomic<bool> said_protection{false};
  // Streams the program created, with the context each belongs to; graphs' memcpy nodes.
  std::mutex mutex;
  std::map<CUstream, StreamKey> streams;
  // A graph's copies that touch host memory (explicit memcpy nodes, or copies captured from a stream),
  // issued on the launch's stream each time the graph is launched.
  struct GraphCopy {
    std::string api;
    CopyEnd src, dst;
    std::size_t bytes;
  };
  std::map<CUgraph, std::vector<GraphCopy>> graph_copies;
  std::set<CUgraph> graphs_with_host_nodes;  // explicit host nodes, or host functions captured from a stream
  std::map<CUgraphExec, CUgraph> executables;
};

// The process's one Injection, never destroyed: driver calls and faults can come while static objects are
// being torn down.
Injection& injection();

}  // namespace hazardlab::check::inject
