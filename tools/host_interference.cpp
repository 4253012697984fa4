// hazardlab-host-interference: what the host lock protects (harness/perf/host_lock.hpp), measured. Every GPU's
// pinned host-to-device and device-to-host copies are timed alone, beside each other GPU's (every pair), one GPU
// per NUMA node at once, and all GPUs at once, the way the bandwidth measurement times them (a loop of copies
// queued behind a gate, timed whole with events, every GPU's loop released together), over many rounds with the
// configurations interleaved. It prints each figure beside the GPU's figures alone and the decision input
// (harness/perf/interference.hpp): which GPUs' timed parts must take turns, and the HAZARDLAB_TIMED_TURNS that
// keeps them apart and no others.
//
//   hazardlab-host-interference [--rounds 9] [--mib 256] [--copies 8] [--json FILE]
//
// Exit status: 0 measured, 1 a CUDA call or a wait failed, 2 bad arguments, 77 no usable GPU (a skip).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_checks.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/host_memory.hpp"
#include "cuda/stream.hpp"
#include "hazardlab/atomic_file.hpp"
#include "hazardlab/number_option.hpp"
#include "hazardlab/run_main.hpp"
#include "hold/gate.hpp"
#include "perf/host_lock.hpp"
#include "perf/interference.hpp"
#include "perf/perf.hpp"
#include "perf/statistics.hpp"
#include "settings/settings.hpp"

using namespace hazardlab;
using namespace hazardlab::perf;

namespace {

constexpr std::chrono::seconds kGateTimeout{60};  // a gate nobody opens opens itself after this long
constexpr std::chrono::seconds kWaitLimit{120};   // every other wait of this program gives up after this long

// One GPU's buffers, made once on a thread bound to the GPU's CPUs (its NUMA node's memory).
struct Gpu {
  DeviceFingerprint device;
  int numa_node = -1;
  HostBuffer host;
  DeviceBuffer memory;
};

// A countdown whose wait gives up after kWaitLimit, naming what did not happen.
class Countdown {
 public:
  explicit Countdown(std::size_t n) : left_(n) {}
  void count_down() {
    const std::lock_guard<std::mutex> hold(mutex_);
    if (left_ > 0) --left_;
    done_.notify_all();
  }
  void wait(const std::string& what) {
    std::unique_lock<std::mutex> hold(mutex_);
    if (!done_.wait_for(hold, kWaitLimit, [this] { return left_ == 0; }))
      throw std::runtime_error(what + " did not happen within " + std::to_string(kWaitLimit.count()) + " s");
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  std::size_t left_;
};

// One GPU's loop: queued behind a closed gate, counted as queued, released with the others, timed by events.
double one_loop(Gpu& g, Direction d, int copies, Countdown& queued, bool& counted, Countdown& release) {
  (void)bind_to_device(g.device);
  DeviceScope scope(g.device.index);
  Stream stream(StreamKind::NonBlocking);
  Event start(cudaEventDefault), stop(cudaEventDefault);
  const std::size_t bytes = g.host.size();
  const std::unique_ptr<Gate> gate = close_gate(GateKind::HostFunction, stream.get(), kGateTimeout);
  try {
    const auto copy = [&] {
      if (d == Direction::HostToDevice)
        HL_CUDA(cudaMemcpyAsync(g.memory.data(), g.host.data(), bytes, cudaMemcpyHostToDevice, stream.get()));
      else
        HL_CUDA(cudaMemcpyAsync(g.host.data(), g.memory.data(), bytes, cudaMemcpyDeviceToHost, stream.get()));
    };
    copy();  // the warm-up, behind the gate like the timed loop
    start.record(stream.get());
    for (int c = 0; c < copies; ++c) copy();
    stop.record(stream.get());
    queued.count_down();
    counted = true;
    release.wait("the release of every GPU's loop");
  } catch (...) {
    gate->open(GateOpener::Host);
    throw;
  }
  gate->open(GateOpener::Host);
  const auto deadline = std::chrono::steady_clock::now() + kWaitLimit;
  while (!stop.query()) {
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("gpu" + std::to_string(g.device.index) + "'s loop did not end within " +
                               std::to_string(kWaitLimit.count()) + " s");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (gate->timed_out())
    throw std::runtime_error("a gate opened by its own timeout: the loops were not released together");
  float ms = 0;
  HL_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return gbps_of(bytes, copies, ms);
}

// The loops of `members` released together: GB/s of each.
std::vector<double> together(std::vector<Gpu>& gpus, const std::vector<int>& members, Direction d, int copies) {
  const std::size_t n = members.size();
  std::vector<double> gbps(n, 0);
  std::vector<std::string> errors(n);
  Countdown queued(n), release(1);
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < n; ++k) {
    threads.emplace_back([&, k] {
      bool counted = false;
      try {
        gbps[k] = one_loop(gpus[members[k]], d, copies, queued, counted, release);
      } catch (const std::exception& e) {
        errors[k] = e.what();
        if (!counted) queued.count_down();
      }
    });
  }
  std::string failed;
  try {
    queued.wait("every GPU's loop queued");
  } catch (const std::exception& e) {
    failed = e.what();
  }
  release.count_down();  // every loop is queued: open every gate at once
  for (std::thread& t : threads) t.join();
  for (std::size_t k = 0; k < n; ++k)
    if (!errors[k].empty()) throw std::runtime_error("gpu" + std::to_string(members[k]) + ": " + errors[k]);
  if (!failed.empty()) throw std::runtime_error(failed);
  return gbps;
}

// Alone, every pair, one GPU per NUMA node and all at once (each configuration once).
std::vector<Together> configurations(const std::vector<Gpu>& gpus) {
  std::vector<Together> out;
  const int n = static_cast<int>(gpus.size());
  for (int i = 0; i < n; ++i) out.push_back({{i}});
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) out.push_back({{i, j}});
  std::map<int, int> first_of_node;
  for (int i = 0; i < n; ++i) first_of_node.emplace(gpus[i].numa_node, i);
  Together per_node;
  for (const auto& [node, gpu] : first_of_node) per_node.gpus.push_back(gpu);
  std::sort(per_node.gpus.begin(), per_node.gpus.end());
  if (per_node.gpus.size() > 2 && static_cast<int>(per_node.gpus.size()) < n) out.push_back(per_node);
  if (n > 2) {
    Together all;
    for (int i = 0; i < n; ++i) all.gpus.push_back(i);
    out.push_back(all);
  }
  return out;
}

void print_decision(const InterferenceInput& in, const InterferenceDecision& decision) {
  std::printf("\n== decision input: each figure at once beside the same GPU's figures alone\n");
  std::printf("   %-22s %-5s %-4s %9s %19s %9s %8s  %s\n", "configuration", "GPU", "dir", "at once", "alone [min-max]",
              "change", "spread", "verdict");
  for (const Disagreement& r : decision.rows) {
    std::printf("   %-22s gpu%-2d %-4s %9.2f %6.2f [%5.2f-%5.2f] %+8.2f%% %7.2f%%  %s\n",
                configuration_name(in.configurations[r.configuration]).c_str(), r.gpu,
                std::string(to_string(r.direction)).c_str(), r.together.median, r.alone.median, r.alone.min,
                r.alone.max, r.change * 100, (r.alone.max - r.alone.min) / r.alone.median * 100,
                r.beyond ? "BEYOND its spread alone" : "within its spread alone");
  }
  std::printf("\n   GPUs that must take turns (joined by a pair that disagreed):");
  for (const std::vector<int>& g : decision.groups) {
    std::printf(" {");
    for (std::size_t k = 0; k < g.size(); ++k) std::printf("%sgpu%d", k ? "," : "", g[k]);
    std::printf("}");
  }
  std::printf("\n   NUMA nodes:");
  for (const PlacedGpu& p : in.gpus) std::printf(" gpu%d:%d", p.index, p.numa_node);
  std::printf("\n   decision: HAZARDLAB_TIMED_TURNS=%s: %s\n", std::string(setting_word(decision.turns)).c_str(),
              decision.why.c_str());
}

constexpr const char* kToolName = "hazardlab-host-interference";

// Whether `contents` is a --json file this program wrote (by its tool name, or by its keys before it named itself):
// only such a file is replaced by a new one.
bool written_by_us(const std::string& contents) {
  const nlohmann::json j = nlohmann::json::parse(contents, nullptr, false);
  if (!j.is_object()) return false;
  return j.value("tool", "") == kToolName ||
         (!j.contains("tool") && j.contains("copies_per_loop") && j.contains("figures") && j.contains("decision"));
}

nlohmann::json as_json(const InterferenceInput& in, const InterferenceDecision& decision, std::size_t bytes,
                       int copies) {
  nlohmann::json out = {{"tool", kToolName},
                        {"bytes", bytes},
                        {"copies_per_loop", copies},
                        {"gpus", nlohmann::json::array()},
                        {"figures", nlohmann::json::array()},
                        {"decision", std::string(setting_word(decision.turns))},
                        {"why", decision.why},
                        {"groups", decision.groups}};
  for (const PlacedGpu& p : in.gpus) out["gpus"].push_back({{"index", p.index}, {"numa_node", p.numa_node}});
  for (const auto& [key, gbps] : in.gbps) {
    const auto& [c, gpu, d] = key;
    out["figures"].push_back({{"configuration", configuration_name(in.configurations[c])},
                              {"gpu", gpu},
                              {"direction", std::string(to_string(d))},
                              {"gbps", gbps}});
  }
  return out;
}

int measure(int rounds, std::size_t bytes, int copies, const std::filesystem::path& json) {
  const DeviceInventory inventory = discover_devices();
  if (inventory.devices.empty()) {
    std::cout << "hazardlab-host-interference: no usable GPU: " << inventory.no_device_reason << "; skipped\n";
    return 77;
  }
  std::vector<Gpu> gpus(inventory.devices.size());
  std::vector<std::string> errors(gpus.size());
  std::vector<std::thread> setup;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    setup.emplace_back([&, i] {
      try {
        Gpu& g = gpus[i];
        g.device = inventory.devices[i];
        g.numa_node = bind_to_device(g.device).numa_node;  // bound first: the pinned pages land on its node
        DeviceScope scope(g.device.index);
        g.host = HostBuffer(HostMemoryKind::Pinned, bytes);
        std::fill(g.host.data(), g.host.data() + bytes, std::byte{0x5a});
        g.memory = DeviceBuffer(bytes);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  for (std::thread& t : setup) t.join();
  for (std::size_t i = 0; i < gpus.size(); ++i)
    if (!errors[i].empty()) throw std::runtime_error("gpu" + std::to_string(i) + ": " + errors[i]);

  InterferenceInput in;
  for (const Gpu& g : gpus) in.gpus.push_back({g.device.index, g.numa_node});
  in.configurations = configurations(gpus);
  std::printf("== pinned copies of %zu MiB, %d a loop, %d rounds, %zu configurations on %zu GPUs\n", bytes >> 20,
              copies, rounds, in.configurations.size(), gpus.size());
  for (const Gpu& g : gpus)
    std::printf("   gpu%d: %s, %s, NUMA node %d\n", g.device.index, g.device.name.c_str(), g.device.pci_bus_id.c_str(),
                g.numa_node);
  const auto started = std::chrono::steady_clock::now();
  for (int r = 0; r < rounds; ++r) {
    // Interleaved, and started at another configuration each round, so that a drift of the host touches all alike.
    for (std::size_t k = 0; k < in.configurations.size(); ++k) {
      const std::size_t c = (k + static_cast<std::size_t>(r)) % in.configurations.size();
      for (const Direction d : {Direction::HostToDevice, Direction::DeviceToHost}) {
        const std::vector<double> gbps = together(gpus, in.configurations[c].gpus, d, copies);
        for (std::size_t m = 0; m < gbps.size(); ++m) in.gbps[{c, in.configurations[c].gpus[m], d}].push_back(gbps[m]);
      }
    }
  }
  std::printf("   measured in %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  const InterferenceDecision decision = decide_timed_turns(in);
  print_decision(in, decision);
  if (!json.empty()) write_file_atomically(json, as_json(in, decision, bytes, copies).dump(1) + "\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (const std::string w = use_pci_bus_order(); !w.empty())
    std::cerr << "hazardlab-host-interference: warning: " << w << '\n';
  CLI::App app{
      "hazardlab-host-interference: pinned copies timed alone and beside other GPUs' copies; prints which "
      "GPUs' timed parts must take turns under the host lock (HAZARDLAB_TIMED_TURNS)"};
  int rounds = 9, copies = 8;
  std::uint64_t mib = 256;
  std::filesystem::path json;
  app.add_option("--rounds", rounds, "rounds of every configuration (the spread comes from these)")
      ->transform(cli::whole_number(3, 1000));
  app.add_option("--mib", mib, "bytes of each copy, in MiB (one pinned buffer of it per GPU)")
      ->transform(cli::whole_number(1, 4096));
  app.add_option("--copies", copies, "copies in each timed loop")->transform(cli::whole_number(1, 1000));
  app.add_option("--json", json, "also write every figure and the decision to this file")
      ->check(cli::output_file(written_by_us));
  return run_main("hazardlab-host-interference", app, argc, argv, [&]() -> int {
    // The setting this measurement decides is read as the suite reads it: a word that is no kind is refused here,
    // before anything is measured, as it is at the suite's start.
    (void)timed_turns_from_environment();
    // Every other setting too, as every command judges them: a misspelt name is said (an error under
    // HAZARDLAB_STRICT=1) before anything is measured.
    for (const std::string& w : Settings::from_environment().warnings)
      std::cerr << "hazardlab-host-interference: warning: " << w << '\n';
    return measure(rounds, static_cast<std::size_t>(mib) << 20, copies, json);
  });
}
