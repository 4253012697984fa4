#pragma once
// Two GPUs of one host: the case's GPU and its peer, the next GPU in PCI bus order (the last one's
// peer is GPU 0): a ring, so that a run over N >= 2 GPUs covers every GPU as a source and as a
// destination, and on two GPUs both directions, in N pairs rather than N(N-1). What these hazards
// teach is stream order, which is the same over every link; what differs from link to link is the
// data path, which the soak and the peer bandwidth matrix cover on every ordered pair. Peer access
// is switched on or off per trial.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "cuda/device.hpp"
#include "hazardlab/device_fingerprint.hpp"
#include "trial/parameter.hpp"

namespace hazardlab {

struct PeerPair {
  int source = 0;                // the case's GPU: its stream queues the peer copy
  int destination = 1;           // the peer GPU
  std::string describe() const;  // "gpu0 -> gpu1"
};

// The pair of the case's device. Throws std::runtime_error on a machine with fewer than two GPUs.
PeerPair peer_pair_of(int device);

// "" when `device` and its peer can access each other both ways (cudaDeviceCanAccessPeer); otherwise
// why the peer cases cannot run on it: no second GPU, or a pair without peer access. Such a pair's
// cases are not run and say so, since a trial asking for peer access would be copied without it.
std::string unmet_peer_pair(const DeviceFingerprint& device);

// Whether the two GPUs' contexts may address each other's memory (cudaDeviceEnablePeerAccess).
// The enumerators follow kPeerAccess's labels.
enum class PeerAccess : std::uint32_t { Enabled, Disabled };
inline const Parameter kPeerAccess = Parameter::choice(
    "peer-access", {"enabled", "disabled"},
    "cudaDeviceEnablePeerAccess both ways (a direct copy over NVLink or PCIe), or not (the driver stages it)");

// Sets peer access between the pair both ways for the scope and puts it back afterwards. Where
// the GPUs cannot access each other (cudaDeviceCanAccessPeer), "enabled" is not possible: the
// scope leaves access off and says so in `note`.
class PeerAccessScope {
 public:
  PeerAccessScope(const PeerPair& pair, PeerAccess wanted);
  ~PeerAccessScope();
  PeerAccessScope(const PeerAccessScope&) = delete;
  PeerAccessScope& operator=(const PeerAccessScope&) = delete;
  std::string note;
  std::string describe() const;  // "gpu0 -> gpu1", and the note if there is one

 private:
  PeerPair pair_;
  bool was_enabled_[2] = {false, false};  // source -> destination, destination -> source
  bool enabled_ = false;
};

// An owner (DeviceBuffer, Stream, Event) made and released with `device` current, so that the peer
// GPU's resources go back to their own GPU whichever device is current when the trial ends, or throws.
template <typename Owner>
class OnDevice {
 public:
  template <typename... Args>
  explicit OnDevice(int device, Args&&... args) : device_(device) {
    DeviceScope on(device);
    owner_.emplace(std::forward<Args>(args)...);
  }
  ~OnDevice() {
    try {
      DeviceScope on(device_);
      owner_.reset();
    } catch (const std::exception&) {
      // Could not make the device current (a sticky error): the owner is released as it is.
    }
  }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;
  Owner& operator*() { return *owner_; }
  Owner* operator->() { return &*owner_; }

 private:
  int device_;
  std::optional<Owner> owner_;
};

}  // namespace hazardlab
