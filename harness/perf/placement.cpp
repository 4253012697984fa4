// Where the measuring thread runs and its host memory lives. A pinned buffer on the far NUMA node
// of a two-socket host crosses the socket link on every copy, so nvbandwidth binds its thread to
// the GPU's CPUs (NVML's CPU affinity) before allocating; this does the same and records it.
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>

#include "cuda/nvml.hpp"
#include "perf/perf.hpp"

namespace hazardlab::perf {
namespace {

// "0-3,8,10-11" for the CPUs this thread may run on.
std::string affinity_list() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "unknown";
  std::string list;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    list += (list.empty() ? "" : ",") + std::to_string(cpu) + (last > cpu ? "-" + std::to_string(last) : "");
    cpu = last;
  }
  return list;
}

}  // namespace

int numa_node_of(std::string bus_id) {
  std::transform(bus_id.begin(), bus_id.end(), bus_id.begin(), [](unsigned char c) { return std::tolower(c); });
  std::ifstream in("/sys/bus/pci/devices/" + bus_id + "/numa_node");
  int node = -1;
  if (!(in >> node)) return -1;
  return node;
}

HostPlacement bind_to_device(const DeviceFingerprint& device) {
  HostPlacement h;
  h.numa_node = numa_node_of(device.pci_bus_id);
  h.not_bound_reason = nvml::bind_thread_to_device_cpus(device.pci_bus_id);
  h.bound = h.not_bound_reason.empty();
  h.cpus = affinity_list();
  return h;
}

}  // namespace hazardlab::perf
