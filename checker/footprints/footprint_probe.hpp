// The footprint probe's state, shared by its callbacks (footprint_probe.cpp) and its report at exit
// (footprint_probe_exit.cpp).
#pragma once

#include <cupti.h>
#include <sanitizer.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace hazardlab::check::footprints::probe_state {

enum class Mode { Off, Null, Record };

struct Launch {
  std::string kernel;
  CUcontext context = nullptr;
  std::uint64_t record = 0;  // device address
};

struct Context {
  std::uint64_t arena = 0;  // aligned to kArenaBytes
  std::uint64_t next = 0;   // the next free record
  std::uint64_t table = 0;  // the table in force (device)
  bool patches_loaded = false;
  bool table_stale = true;
  std::map<std::uint64_t, std::uint64_t> allocations;  // base -> end
};

struct Probe {
  Mode mode = Mode::Record;
  std::string patch_path;
  bool cupti = false;
  long print = 0;
  std::mutex mutex;
  std::map<CUcontext, Context> contexts;
  std::vector<Launch> launches;
  std::atomic<long> sanitizer_launches{0}, cupti_launches{0}, modules_patched{0}, unrecorded{0}, failures{0};
  bool failed = false;
};

// The one state of the probe, never destroyed: callbacks may come during the program's exit.
Probe& probe();

// A Sanitizer call's result: false, named with its file and line, stops the recording (the program runs on).
bool ok(SanitizerResult r, const char* call, const char* file, int line);
#define SAN(call) ok((call), #call, __FILE__, __LINE__)

// At exit: the footprints asked for, then the probe's one line.
void report_at_exit();

}  // namespace hazardlab::check::footprints::probe_state
