#pragma once
// Scenario helper: a second host thread that does one piece of CUDA work when told to. A lesson
// says what the thread does; this class does the choreography. It starts the thread and lets it
// make the device current and finish its set-up before anything is held (a first use of a
// stream may wait for the device), hands it the go signal, tells whether its work finished
// within a window, and always releases and joins it, whatever throws in between.
//
//   OtherThread consumer(device, [&] { return cudaStreamSynchronize(0); },   // set-up
//                                [&] { return cudaMemcpyAsync(...); });       // the work
//   ... hold a stream, queue the producer ...
//   consumer.go();
//   bool first = consumer.finishes_within(window);
//   HL_CUDA(consumer.join());
#include <cuda_runtime_api.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace hazardlab {

class OtherThread {
 public:
  using Step = std::function<cudaError_t()>;

  // Returns once the thread has made `device` current and run `prepare`.
  OtherThread(int device, Step prepare, Step work);
  ~OtherThread();  // releases the thread if nobody did, and joins it
  OtherThread(const OtherThread&) = delete;
  OtherThread& operator=(const OtherThread&) = delete;

  void go();  // lets the thread run its work (if its set-up succeeded)
  bool finishes_within(std::chrono::microseconds window);
  // Releases and joins the thread; the first CUDA error of its steps, or cudaSuccess.
  cudaError_t join();

 private:
  enum class Phase { Starting, Prepared, Released, Finished };
  void advance(Phase phase);

  std::mutex mutex_;
  std::condition_variable changed_;
  Phase phase_ = Phase::Starting;
  cudaError_t status_ = cudaSuccess;
  std::thread thread_;
};

}  // namespace hazardlab
