#include "soak/soak.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <map>
#include <optional>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/host_memory.hpp"
#include "cuda/stream.hpp"
#include "soak/pattern.hpp"

namespace hazardlab::soak {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kInjectedOffset = 4093;  // not word-aligned: the verifier reads bytes, not words

constexpr HostMemoryKind kKinds[] = {HostMemoryKind::Pageable, HostMemoryKind::Pinned, HostMemoryKind::Registered,
                                     HostMemoryKind::WriteCombined};

// Throughput per copy in buckets of time, so a 10-minute soak keeps a plot's worth of points.
class Sampler {
 public:
  explicit Sampler(double bucket_s) : bucket_s_(bucket_s) {}
  void add(const std::string& copy, double t_s, std::size_t bytes, float ms) {
    Bucket& b = open_[copy];
    const long index = static_cast<long>(t_s / bucket_s_);
    if (b.bytes && index != b.index) flush(copy, b);
    b.index = index;
    b.bytes += static_cast<double>(bytes);
    b.ms += ms;
  }
  std::vector<SoakSample> finish() {
    for (auto& [copy, b] : open_)
      if (b.bytes) flush(copy, b);
    return std::move(samples_);
  }

 private:
  struct Bucket {
    long index = 0;
    double bytes = 0, ms = 0;
  };
  void flush(const std::string& copy, Bucket& b) {
    if (b.ms > 0) samples_.push_back({(static_cast<double>(b.index) + 0.5) * bucket_s_, copy, b.bytes / (b.ms * 1e6)});
    b = Bucket{};
  }
  double bucket_s_;
  std::map<std::string, Bucket> open_;
  std::vector<SoakSample> samples_;
};

class Soak {
 public:
  explicit Soak(const SoakOptions& o)
      : o_(o), stream_(StreamKind::NonBlocking), check_(HostMemoryKind::Pinned, o.bytes), device_(o.bytes),
        sampler_(std::max(1.0, static_cast<double>(o.duration.count()) / 120)) {
    make_host_buffers();
    for (const int peer : o.peer_devices) {
      DeviceScope on_peer(peer);
      peers_.emplace(peer, DeviceBuffer(o.bytes));
    }
  }

  SoakResult run() {
    begin_ = Clock::now();
    const auto deadline = begin_ + o_.duration;
    for (int round = 0; o_.one_round ? round < 1 : Clock::now() < deadline; ++round) {
      for (std::size_t k = 0; k < std::size(kKinds) && (o_.one_round || Clock::now() < deadline); ++k) {
        const std::uint64_t seed = splitmix64(o_.seed ^ (static_cast<std::uint64_t>(round) << 8 | k));
        if (host_to_device(round, kKinds[k], seed) && (o_.one_round || Clock::now() < deadline))
          device_to_host(round, kKinds[k], seed);
      }
      for (const int peer : o_.peer_devices)
        if (o_.one_round || Clock::now() < deadline) peer_copy(round, peer);
      ++result_.rounds;
      if (!o_.one_round && Clock::now() < deadline) {
        make_host_buffers();  // churn: cudaFreeHost / cudaHostUnregister, then allocate and register again
        ++result_.churns;
      }
    }
    result_.seconds = seconds_since_begin();
    result_.overshoot_s = o_.one_round ? 0 : std::max(0.0, result_.seconds - static_cast<double>(o_.duration.count()));
    result_.bytes = o_.bytes;
    result_.samples = sampler_.finish();
    for (auto& [copy, t] : tallies_) result_.tallies.push_back(t);
    return result_;
  }

 private:
  double seconds_since_begin() const { return std::chrono::duration<double>(Clock::now() - begin_).count(); }

  void make_host_buffers() {
    for (HostMemoryKind k : kKinds) {
      host_[static_cast<int>(k)] = HostBuffer();  // the old one is freed (or unregistered) first
      host_[static_cast<int>(k)] = HostBuffer(k, o_.bytes);
    }
  }

  // One timed copy on the stream, then everything queued finished.
  float timed_copy(void* to, const void* from, cudaMemcpyKind kind, const std::string& copy) {
    Event start(cudaEventDefault), end(cudaEventDefault);
    start.record(stream_.get());
    HL_CUDA(cudaMemcpyAsync(to, from, o_.bytes, kind, stream_.get()));
    end.record(stream_.get());
    HL_CUDA(cudaStreamSynchronize(stream_.get()));
    float ms = 0;
    HL_CUDA(cudaEventElapsedTime(&ms, start.get(), end.get()));
    sampler_.add(copy, seconds_since_begin(), o_.bytes, ms);
    return ms;
  }

  // The check buffer may still be the source of a queued copy (peer_copy uploads the round's pattern
  // from it): the host rewrites it only once the stream has read it (the hazard h2d-pinned-mutate,
  // which on two H200s left the first 4 to 24 KiB of every peer copy stale).
  void poison_device(void* buffer, std::uint64_t poison) {
    HL_CUDA(cudaStreamSynchronize(stream_.get()));
    fill_pattern(check_.span(), poison);
    HL_CUDA(cudaMemcpyAsync(buffer, check_.data(), o_.bytes, cudaMemcpyDefault, stream_.get()));
  }

  bool judge(std::span<const std::byte> got, std::uint64_t seed, std::uint64_t poison, const std::string& copy,
             int round) {
    CopyTally& t = tallies_[copy];
    t.copy = copy;
    ++t.copies;
    if (const auto c = verify_pattern(got, seed, poison)) {
      ++t.corrupted;
      t.bytes_verified += o_.bytes - c->bad_bytes;
      char where[160];  // the pattern's seed replays the exact bytes that were sent (pattern.hpp)
      std::snprintf(where, sizeof where, "%s, round %d, pattern seed %llu, copy of %zu MiB at %.1f s", copy.c_str(),
                    round + 1, static_cast<unsigned long long>(seed), o_.bytes >> 20, seconds_since_begin());
      result_.errors.push_back(describe(*c, where));
      std::printf("   CORRUPTED: %s\n", result_.errors.back().c_str());
      return false;
    }
    t.bytes_verified += o_.bytes;
    return true;
  }

  // Host (of `kind`) to device, read back through the pinned check buffer, which the device was
  // first filled from with the poison: a copy that did nothing reads back as stale.
  bool host_to_device(int round, HostMemoryKind kind, std::uint64_t seed) {
    const std::uint64_t poison = ~seed;
    const std::string copy = std::string(to_string(kind)) + " h2d";
    poison_device(device_.data(), poison);
    HostBuffer& source = host_[static_cast<int>(kind)];
    fill_pattern(source.span(), seed);
    timed_copy(device_.data(), source.data(), cudaMemcpyHostToDevice, copy);
    HL_CUDA(cudaMemcpyAsync(check_.data(), device_.data(), o_.bytes, cudaMemcpyDeviceToHost, stream_.get()));
    HL_CUDA(cudaStreamSynchronize(stream_.get()));
    return judge(check_.span(), seed, poison, copy, round);
  }

  // The device holds the round's pattern (verified): to host memory of `kind`, poisoned first.
  void device_to_host(int round, HostMemoryKind kind, std::uint64_t seed) {
    const std::uint64_t poison = ~seed;
    const std::string copy = std::string(to_string(kind)) + " d2h";
    HostBuffer& target = host_[static_cast<int>(kind)];
    fill_pattern(target.span(), poison);
    timed_copy(target.data(), device_.data(), cudaMemcpyDeviceToHost, copy);
    if (kind == HostMemoryKind::Pinned) inject_fault_into(target.span(), SoakFault::PinnedDeviceToHost, copy);
    judge(target.span(), seed, poison, copy, round);
  }

  // The test-only fault (HAZARDLAB_SOAK_INJECT_FAULT): one byte of the first copy of the chosen kind,
  // flipped after it landed, where the verifier reads it next.
  void inject_fault_into(std::span<std::byte> landed, SoakFault here, const std::string& copy) {
    if (o_.fault != here || result_.fault_injected || landed.size() <= kInjectedOffset) return;
    landed[kInjectedOffset] ^= std::byte{0x01};
    result_.fault_injected = true;
    std::printf("   HAZARDLAB_SOAK_INJECT_FAULT: flipped byte %zu of this %s copy\n", kInjectedOffset, copy.c_str());
  }

  // This GPU's buffer (holding a fresh pattern) to `peer`'s, read back from there.
  void peer_copy(int round, int peer) {
    const std::uint64_t seed = splitmix64(o_.seed ^ (static_cast<std::uint64_t>(round) << 16 | 0xff00 | peer));
    const std::uint64_t poison = ~seed;
    const std::string copy = "peer gpu" + std::to_string(o_.device) + "->gpu" + std::to_string(peer);
    DeviceBuffer& peer_buffer = peers_.at(peer);
    fill_pattern(check_.span(), seed);
    HL_CUDA(cudaMemcpyAsync(device_.data(), check_.data(), o_.bytes, cudaMemcpyHostToDevice, stream_.get()));
    poison_device(peer_buffer.data(), poison);
    Event start(cudaEventDefault), end(cudaEventDefault);
    start.record(stream_.get());
    HL_CUDA(cudaMemcpyPeerAsync(peer_buffer.data(), peer, device_.data(), o_.device, o_.bytes, stream_.get()));
    end.record(stream_.get());
    HL_CUDA(cudaStreamSynchronize(stream_.get()));
    float ms = 0;
    HL_CUDA(cudaEventElapsedTime(&ms, start.get(), end.get()));
    sampler_.add(copy, seconds_since_begin(), o_.bytes, ms);
    fill_pattern(check_.span(), poison);  // it held the source: poisoned before reading back into it
    HL_CUDA(cudaMemcpyAsync(check_.data(), peer_buffer.data(), o_.bytes, cudaMemcpyDefault, stream_.get()));
    HL_CUDA(cudaStreamSynchronize(stream_.get()));
    inject_fault_into(check_.span(), SoakFault::Peer, copy);
    judge(check_.span(), seed, poison, copy, round);
  }

  SoakOptions o_;
  Stream stream_;
  HostBuffer check_;
  DeviceBuffer device_;
  std::map<int, DeviceBuffer> peers_;  // by GPU index
  HostBuffer host_[6];  // by HostMemoryKind
  Sampler sampler_;
  std::map<std::string, CopyTally> tallies_;
  SoakResult result_;
  Clock::time_point begin_;
};

}  // namespace

SoakResult run_soak(const SoakOptions& options) { return Soak(options).run(); }

perf::Check soak_check(const SoakResult& r) {
  perf::Check c;
  c.id = "copies-verified-byte-for-byte";
  c.description = "every copy of every host memory kind and direction arrives byte for byte as sent";
  c.rationale =
      "A copy that succeeds with wrong data is the failure no API call reports: public reports show corrupted peer "
      "copies and pinned copies that did nothing after allocation churn. Any corrupted byte fails.";
  std::uint64_t copies = 0, bytes = 0;
  for (const CopyTally& t : r.tallies) copies += t.copies, bytes += t.bytes_verified;
  char text[200];
  std::snprintf(text, sizeof text, "%llu copies, %.2f GB verified in %.1f s (%d rounds, %d churns), %zu corrupted",
                static_cast<unsigned long long>(copies), static_cast<double>(bytes) / 1e9, r.seconds, r.rounds,
                r.churns, r.errors.size());
  c.measured = text;
  if (!r.errors.empty()) c.measured += ": first " + r.errors.front();
  c.passed = copies > 0 && r.errors.empty();
  return c;
}

}  // namespace hazardlab::soak
