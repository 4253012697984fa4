#include "scenario/peer_pair.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "cuda/check.hpp"
#include "cuda/device.hpp"

namespace hazardlab {
namespace {

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

// Enables or disables access from the current device to `peer`; returns whether it was enabled
// before. "Already enabled" and "not enabled" are how CUDA answers a request for the state it is
// in: they are the answer, not a failure (and not sticky).
bool set_access_to(int peer, bool enable) {
  const cudaError_t e = enable ? cudaDeviceEnablePeerAccess(peer, 0) : cudaDeviceDisablePeerAccess(peer);
  if (e == cudaErrorPeerAccessAlreadyEnabled || e == cudaErrorPeerAccessNotEnabled) {
    (void)cudaGetLastError();
    return e == cudaErrorPeerAccessAlreadyEnabled;
  }
  HL_CUDA(e);
  return !enable;
}

}  // namespace

std::string PeerPair::describe() const {
  return "gpu" + std::to_string(source) + " -> gpu" + std::to_string(destination);
}

PeerPair peer_pair_of(int device) {
  const int count = device_count();
  if (count < 2) throw std::runtime_error("peer copies need two GPUs; this machine has " + std::to_string(count));
  return {device, (device + 1) % count};
}

std::string unmet_peer_pair(const DeviceFingerprint& device) {
  const int count = device_count();
  if (count < 2) return "a second GPU (this machine has " + std::to_string(count) + ")";
  const PeerPair pair = peer_pair_of(device.index);
  int can[2] = {0, 0};
  if (cudaDeviceCanAccessPeer(&can[0], pair.source, pair.destination) != cudaSuccess ||
      cudaDeviceCanAccessPeer(&can[1], pair.destination, pair.source) != cudaSuccess) {
    (void)cudaGetLastError();
    return "peer access between " + pair.describe() + " (cudaDeviceCanAccessPeer failed)";
  }
  return can[0] && can[1] ? "" : "peer access between " + pair.describe() + ", which these GPUs do not offer";
}

PeerAccessScope::PeerAccessScope(const PeerPair& pair, PeerAccess wanted) : pair_(pair) {
  int can[2] = {0, 0};
  HL_CUDA(cudaDeviceCanAccessPeer(&can[0], pair.source, pair.destination));
  HL_CUDA(cudaDeviceCanAccessPeer(&can[1], pair.destination, pair.source));
  enabled_ = wanted == PeerAccess::Enabled && can[0] && can[1];
  if (wanted == PeerAccess::Enabled && !enabled_) note = "these GPUs cannot access each other: copied without";
  {
    DeviceScope on(pair.source);
    was_enabled_[0] = set_access_to(pair.destination, enabled_);
  }
  DeviceScope on(pair.destination);
  was_enabled_[1] = set_access_to(pair.source, enabled_);
}

std::string PeerAccessScope::describe() const { return pair_.describe() + (note.empty() ? "" : " (" + note + ")"); }

PeerAccessScope::~PeerAccessScope() {
  // Put back what the process had: another case of this worker may rely on it.
  try {
    {
      DeviceScope on(pair_.source);
      if (was_enabled_[0] != enabled_) set_access_to(pair_.destination, was_enabled_[0]);
    }
    DeviceScope on(pair_.destination);
    if (was_enabled_[1] != enabled_) set_access_to(pair_.source, was_enabled_[1]);
  } catch (const std::exception&) {
    // A destructor must not throw; a sticky error shows in the next call of the case anyway.
  }
}

}  // namespace hazardlab
