#include "scenario/other_thread.hpp"

namespace hazardlab {

OtherThread::OtherThread(int device, Step prepare, Step work) {
  thread_ = std::thread([this, device, prepare = std::move(prepare), work = std::move(work)] {
    cudaError_t rc = cudaSetDevice(device);
    if (rc == cudaSuccess) rc = prepare();
    {
      std::lock_guard lock(mutex_);
      status_ = rc;
    }
    advance(Phase::Prepared);
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return phase_ == Phase::Released; });
    }
    if (rc == cudaSuccess) rc = work();
    {
      std::lock_guard lock(mutex_);
      if (status_ == cudaSuccess) status_ = rc;
    }
    advance(Phase::Finished);
  });
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return phase_ != Phase::Starting; });
}

OtherThread::~OtherThread() { join(); }

void OtherThread::advance(Phase phase) {
  {
    std::lock_guard lock(mutex_);
    phase_ = phase;
  }
  changed_.notify_all();
}

void OtherThread::go() {
  std::lock_guard lock(mutex_);
  if (phase_ == Phase::Prepared) phase_ = Phase::Released;
  changed_.notify_all();
}

bool OtherThread::finishes_within(std::chrono::microseconds window) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, window, [this] { return phase_ == Phase::Finished; });
}

cudaError_t OtherThread::join() {
  go();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  return status_;
}

}  // namespace hazardlab
