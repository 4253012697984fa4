// `hazardlab gpu-test`: a GPU test run on the GPU ctest handed it (gpu_test_command.hpp).
#include "gpu_test_command.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "hazardlab/environment.hpp"
#include "hazardlab/run_main.hpp"
#include "plan/gpu_resources.hpp"
#include "settings/settings.hpp"

namespace hazardlab {

namespace {

constexpr int kSkip = 77;  // ctest's SKIP_RETURN_CODE for every GPU test

// Replaces this process with `command`; returns only when it could not be started (then throws).
[[noreturn]] void become(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  ::execvp(argv[0], argv.data());
  throw std::runtime_error(command.front() + " could not be started: " + std::strerror(errno));
}

}  // namespace

int gpu_test_main(int argc, char** argv) {
  bool all_gpus = false;
  CLI::App app{
      "hazardlab gpu-test: runs a GPU test's PROGRAM on the GPU ctest's resource allocation gave the test "
      "(hazardlab_add_gpu_test), with that GPU alone visible; exits 77 (a skip) where the run plan found no GPU"};
  app.name("hazardlab gpu-test");
  app.add_flag("--all-gpus", all_gpus, "the program sees every GPU this process sees (ctest runs the test alone)");
  app.prefix_command();
  app.footer("-- PROGRAM [ARGS...]: the test's command, run with CUDA_VISIBLE_DEVICES naming its GPU");
  return run_main("hazardlab gpu-test", app, argc - 1, argv + 1, [&]() -> int {
    std::vector<std::string> command = app.remaining();
    if (!command.empty() && command.front() == "--") command.erase(command.begin());
    if (command.empty()) throw UsageError("no program to run: hazardlab gpu-test [--all-gpus] -- PROGRAM [ARGS...]");
    // Bad input before anything is said or run: the settings, judged as every command judges them, and a program
    // that could not be started (as `hazardlab check` refuses one).
    const Settings settings = Settings::from_environment();
    for (const std::string& w : settings.warnings) std::cerr << "hazardlab gpu-test: warning: " << w << '\n';
    if (!find_program(command.front()))
      throw UsageError("program '" + command.front() +
                       "' was not found or is not an executable file (a path, or a name on PATH)");
    const std::optional<std::string> id =
        allocated_gpu([](const std::string& name) { return environment_value(name); });
    if (id && *id == kNoGpuResourceId) {
      // The plan found no usable GPU when ctest started (it said why, in the suite's session-start).
      if (settings.require_gpu) {
        std::cout << "hazardlab gpu-test: FAILED: HAZARDLAB_REQUIRE_GPU=1 requires a GPU, and ctest's run plan found "
                     "none on this machine\n";
        return 1;
      }
      std::cout << "hazardlab gpu-test: no usable GPU on this machine (ctest's run plan found none): skipped\n";
      return kSkip;
    }
    if (!id) {
      std::cerr << "hazardlab gpu-test: ctest allocated no GPU (resource allocation is off): " << command.front()
                << " sees every GPU this process sees\n";
    } else if (all_gpus) {
      std::cerr << "hazardlab gpu-test: " << command.front() << " sees every GPU (it runs alone)\n";
    } else {
      const std::string visible = visible_devices_for(*id, environment_value("CUDA_VISIBLE_DEVICES"));
      ::setenv("CUDA_VISIBLE_DEVICES", visible.c_str(), 1);
      std::cerr << "hazardlab gpu-test: ctest gave this test GPU " << *id << " (CUDA_VISIBLE_DEVICES=" << visible
                << ", PCI bus order)\n";
    }
    become(command);
  });
}

}  // namespace hazardlab
