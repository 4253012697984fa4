// Runs the injected library's entry twice in one process, as a process meets it when it lists OpenCL platforms
// before its first cuInit (Open MPI started in-process does: hwloc's OpenCL plugin, then NVIDIA's OpenCL driver,
// run CUDA_INJECTION64_PATH's entry; libcuda's cuInit runs it again). The process log must hold one header:
// the second run does nothing. Needs no GPU: with the driver's stub library, CUPTI refuses the subscription, and
// the first run says so in its one header.
//
// Usage: entry-once-probe INJECTED-LIBRARY
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "checker/core/process_log.hpp"
#include "hazardlab/settings_table.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: entry-once-probe INJECTED-LIBRARY\n");
    return 2;
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "hazardlab-entry-once-XXXXXX").string();
  char* folder = pattern.data();
  if (::mkdtemp(folder) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  ::setenv(std::string(hazardlab::setting::kCheckLogFolder.name).c_str(), folder, 1);
  void* library = ::dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "FAIL: dlopen(%s): %s\n", argv[1], ::dlerror());
    return 1;
  }
  using Entry = int (*)();
  const auto entry = reinterpret_cast<Entry>(::dlsym(library, "InitializeInjection"));
  if (entry == nullptr) {
    std::fprintf(stderr, "FAIL: %s exports no InitializeInjection\n", argv[1]);
    return 1;
  }
  entry();
  entry();
  const std::filesystem::path log =
      std::filesystem::path(folder) / ("process-" + std::to_string(::getpid()) + ".jsonl");
  // The log as the launcher reads it, and its header as the entry writes it: the one line of the log that is it.
  hazardlab::check::ProcessLog read;
  try {
    read = hazardlab::check::read_process_log(log);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: the process log was refused: %s\n", e.what());
    std::filesystem::remove_all(folder);
    return 1;
  }
  const std::string header =
      hazardlab::check::header_line(read.pid, read.parent, read.program, read.watching, read.not_watching_because);
  std::ifstream in(log);
  int headers = 0, lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    if (line + "\n" != header && line != header) continue;
    ++headers;
    std::printf("header: %s\n", line.c_str());
  }
  std::filesystem::remove_all(folder);
  if (headers != 1) {
    std::fprintf(stderr,
                 "FAIL: the entry ran twice and the process log holds %d header(s) in %d line(s); one "
                 "expected\n",
                 headers, lines);
    return 1;
  }
  std::printf("PASS: two runs of the entry, one header\n");
  return 0;
}
