// The host side of exact footprints: the Compute Sanitizer API patches every module a context loads so that each
// global memory access calls footprint_patch.cu, and each launch gets a record of its own (footprint_record.hpp)
// from an arena of device memory. Records are read back only for launches the host knows have run, in one copy per
// collection, on a stream of the recorder's own, so reading them adds no order between the program's streams.
//
// What it costs the program (checker/README.md has the measured figures): every patched access of every kernel
// calls the patch; the host pays a callback per launch and one copy per collection. An allocation made since the
// last launch is uploaded before the next one, waiting for the legacy stream (the device patch must find it).
#pragma once

#include <sanitizer.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "checker/footprints/footprint_api.h"

namespace hazardlab::check::footprints {

// What the recorder does to kernels: nothing (subscribed only), patch them with no record (the patch returns at
// once: the cost of the instrumentation alone), or patch and record each launch.
enum class Patching { None, PatchOnly, Record };

struct RecorderCounts {
  long modules_patched = 0, launches = 0, recorded = 0, unrecorded = 0, failures = 0;
};

class Recorder {
 public:
  // Subscribes to the Sanitizer API. False, with why, when it refuses (another tool holds it, no device support).
  bool start(const std::string& patch_path, Patching patching, std::string& why);
  // The ticket of the last launch this thread began (0: not recorded), taken once.
  static std::uint64_t take_ticket();
  void collect(std::span<const std::uint64_t> tickets, hl_footprints_each_fn each, void* user);
  [[nodiscard]] RecorderCounts counts();
  [[nodiscard]] std::string first_failure();

  void on_callback(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* data);

 private:
  struct Arena {
    std::uint64_t base = 0;  // aligned to kArenaBytes
    std::uint64_t next = 0;  // the next free record
    std::size_t unread = 0;  // records handed out and not yet read back
  };
  struct Context {
    std::vector<Arena> arenas;
    std::size_t current = 0;
    std::uint64_t table = 0;
    bool patches_loaded = false;
    bool table_stale = true;
    std::map<std::uint64_t, std::uint64_t> allocations;  // base -> end
    CUstream readback = nullptr;                          // the recorder's own non-blocking stream
  };
  struct Ticketed {
    CUcontext context = nullptr;
    std::uint64_t record = 0;
    std::size_t arena = 0;
  };

  // A Sanitizer call's result; a failure is counted, its first kept with call, file and line, and recording stops.
  bool ok(SanitizerResult r, const char* call, const char* file, int line);
  void module_loaded(const Sanitizer_ResourceModuleData& m);
  void memory(const Sanitizer_ResourceMemoryData& d, bool allocated);
  void launch_begin(const Sanitizer_LaunchData& l);
  bool arena_with_room(CUcontext context, Context& c);
  bool upload_table(CUcontext context, Context& c);
  void recycle(CUcontext context, Context& c, std::size_t arena);

  std::mutex mutex_;
  std::string patch_path_;
  Patching patching_ = Patching::Record;
  bool failed_ = false;
  std::string first_failure_;
  RecorderCounts counts_;
  std::map<CUcontext, Context> contexts_;
  std::map<std::uint64_t, Ticketed> tickets_;
  std::uint64_t next_ticket_ = 1;
};

// Inside the recorder: every Sanitizer call goes through ok() with its text, file and line.
#define SAN(call) ok((call), #call, __FILE__, __LINE__)

// The process's one recorder, never destroyed: callbacks may come during the program's exit.
Recorder& recorder();

}  // namespace hazardlab::check::footprints
