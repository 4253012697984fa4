#pragma once
// The four kinds of stream a copy can be issued on. They differ in how they order against
// each other (CUDA Runtime API, "Stream synchronization behavior").
#include <cuda_runtime_api.h>

#include <string_view>

namespace hazardlab {

enum class StreamKind {
  Legacy,       // the legacy default stream (cudaStreamLegacy): implicitly orders blocking streams
  PerThread,    // the per-thread default stream (cudaStreamPerThread)
  Blocking,     // cudaStreamCreate: waits for and is waited on by the legacy stream
  NonBlocking,  // cudaStreamCreateWithFlags(cudaStreamNonBlocking): no implicit ordering
};

std::string_view to_string(StreamKind kind) noexcept;

class Stream {
 public:
  explicit Stream(StreamKind kind);
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const noexcept { return handle_; }
  StreamKind kind() const noexcept { return kind_; }
  bool owned() const noexcept { return kind_ == StreamKind::Blocking || kind_ == StreamKind::NonBlocking; }

 private:
  StreamKind kind_;
  cudaStream_t handle_ = nullptr;
};

class Event {
 public:
  explicit Event(unsigned flags = cudaEventDisableTiming);
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const noexcept { return handle_; }
  void record(cudaStream_t stream);
  void synchronize();
  // True once the work captured by the last record has completed.
  bool query();

 private:
  cudaEvent_t handle_ = nullptr;
};

}  // namespace hazardlab
