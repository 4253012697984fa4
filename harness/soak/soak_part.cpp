#include <cstdio>
#include <string>

#include "cuda/device.hpp"
#include "soak/soak.hpp"

namespace hazardlab::soak {

Measurements measure_soak_part(SoakOptions o, int device_index, std::vector<perf::Check>& checks) {
  o.device = device_index;
  if (o.one_round) o.bytes = std::size_t{8} << 20;
  const DeviceInventory inventory = discover_devices();
  for (const auto& other : inventory.devices)
    if (other.index != device_index) o.peer_devices.push_back(other.index);
  std::printf("   %s: %zu MiB per copy, %s, seed %llu%s\n", o.one_round ? "integrity" : "soak", o.bytes >> 20,
              o.one_round ? "one round" : (std::to_string(o.duration.count()) + " s").c_str(),
              static_cast<unsigned long long>(o.seed),
              o.peer_devices.empty() ? "" : (", with peer copies to " + std::to_string(o.peer_devices.size()) + " GPU(s)").c_str());
  Measurements m;
  m.soak = run_soak(o);
  const SoakResult& r = *m.soak;
  for (const CopyTally& t : r.tallies) {
    std::printf("   %-22s %8llu copies, %10.2f GB verified, %llu corrupted\n", t.copy.c_str(),
                static_cast<unsigned long long>(t.copies), static_cast<double>(t.bytes_verified) / 1e9,
                static_cast<unsigned long long>(t.corrupted));
  }
  std::printf("   %d rounds, %d churns of the pinned and registered buffers, %.1f s (%.1f s past the duration)\n",
              r.rounds, r.churns, r.seconds, r.overshoot_s);
  checks = {soak_check(r)};
  return m;
}

}  // namespace hazardlab::soak
