#include "cuda/stream.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "cuda/check.hpp"

namespace hazardlab {

std::string_view to_string(StreamKind kind) noexcept {
  switch (kind) {
    case StreamKind::Legacy:
      return "legacy-default";
    case StreamKind::PerThread:
      return "per-thread-default";
    case StreamKind::Blocking:
      return "blocking";
    case StreamKind::NonBlocking:
      return "non-blocking";
  }
  return "?";
}

Stream::Stream(StreamKind kind) : kind_(kind) {
  switch (kind) {
    case StreamKind::Legacy:
      handle_ = cudaStreamLegacy;
      break;
    case StreamKind::PerThread:
      handle_ = cudaStreamPerThread;
      break;
    case StreamKind::Blocking:
      HL_CUDA(cudaStreamCreateWithFlags(&handle_, cudaStreamDefault));
      break;
    case StreamKind::NonBlocking:
      HL_CUDA(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking));
      break;
  }
}

Stream::~Stream() {
  if (owned() && handle_) HL_CUDA_WARN(cudaStreamDestroy(handle_));
}

Stream::Stream(Stream&& other) noexcept : kind_(other.kind_), handle_(std::exchange(other.handle_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (owned() && handle_) HL_CUDA_WARN(cudaStreamDestroy(handle_));
    kind_ = other.kind_;
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

Event::Event(unsigned flags) { HL_CUDA(cudaEventCreateWithFlags(&handle_, flags)); }

Event::~Event() {
  if (handle_) HL_CUDA_WARN(cudaEventDestroy(handle_));
}

Event::Event(Event&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (handle_) HL_CUDA_WARN(cudaEventDestroy(handle_));
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void Event::record(cudaStream_t stream) { HL_CUDA(cudaEventRecord(handle_, stream)); }
void Event::synchronize() { HL_CUDA(cudaEventSynchronize(handle_)); }

bool Event::query() {
  const cudaError_t rc = cudaEventQuery(handle_);
  if (rc == cudaErrorNotReady) {
    (void)cudaGetLastError();  // NotReady is an answer, not an error
    return false;
  }
  HL_CUDA(rc);
  return true;
}

}  // namespace hazardlab
