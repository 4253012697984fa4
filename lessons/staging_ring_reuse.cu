// Lesson staging-ring-reuse: a ring of pinned staging slots refills a slot before its previous copy ran.
//
// PyTorch: a loader that stages batch i in `staging[i % 2]` (`staging[i % 2].copy_(batch)`), then
// `staging[i % 2].to('cuda', non_blocking=True)`, and refills the slot without waiting for its last copy.
// Rule (CUDA Runtime API, API synchronization behavior): an async copy from pinned memory may return before the
// copy has read its source: each slot is read when its copy runs, not when the call returns.
// Two slots, three batches: batch 2 refills slot 0 while batch 0's copy from it is still queued behind a sleep
// kernel, so batch 0 arrives holding batch 2's bytes, every time.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "lesson_scaffold.hpp"

constexpr size_t kBytes = 1 << 20;       // 1 MiB a batch: the sleep must outlast the host filling two of them
constexpr int kSlots = 2, kBatches = 3;  // at least one batch more than slots: a slot is reused
static unsigned char batch_byte(int b) { return static_cast<unsigned char>(0x10 + b); }  // batch b is all this byte

// UNSAFE: a slot is refilled as soon as its turn comes again.
static void unsafe(unsigned char* slot[], unsigned char* dev, cudaStream_t s, long delay_us) {
  sleep_on(s, delay_us);  // the device is behind: every copy below waits behind this kernel
  for (int b = 0; b < kBatches; ++b) {
    const int i = b % kSlots;
    std::memset(slot[i], batch_byte(b), kBytes);  // BUG: the slot's previous copy may not have read it yet
    CHECK(cudaMemcpyAsync(dev + b * kBytes, slot[i], kBytes, cudaMemcpyHostToDevice, s));
  }
}

// FIXED: an event per slot, recorded after the slot's copy and waited for before the slot is refilled.
static void fixed(unsigned char* slot[], unsigned char* dev, cudaStream_t s, cudaEvent_t slot_read[], long delay_us) {
  sleep_on(s, delay_us);
  for (int b = 0; b < kBatches; ++b) {
    const int i = b % kSlots;
    CHECK(cudaEventSynchronize(slot_read[i]));  // the slot's previous copy has read it (at once if none yet)
    std::memset(slot[i], batch_byte(b), kBytes);
    CHECK(cudaMemcpyAsync(dev + b * kBytes, slot[i], kBytes, cudaMemcpyHostToDevice, s));
    CHECK(cudaEventRecord(slot_read[i], s));
  }
}

// Once the stream has drained: did any batch arrive with bytes other than its own? Then clears the device.
static bool a_batch_arrived_wrong(unsigned char* dev, unsigned char* readback, cudaStream_t s) {
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(readback, dev, kBatches * kBytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemset(dev, 0, kBatches * kBytes));
  CHECK(cudaDeviceSynchronize());
  size_t wrong = 0;
  for (size_t i = 0; i < kBatches * kBytes; ++i) wrong += readback[i] != batch_byte(int(i / kBytes));
  return wrong > 0;
}

int main(int argc, char** argv) {
  long delay_us = 2000, trials = 20;
  parse_args(argc, argv, delay_us, trials);
  const char* gpu = gpu_name_or_exit();
  unsigned char *slot[kSlots], *readback, *dev;
  cudaEvent_t slot_read[kSlots];
  cudaStream_t s;
  for (int i = 0; i < kSlots; ++i) {  // allocating may synchronize the device: all done before the trials
    CHECK(cudaMallocHost(&slot[i], kBytes));
    CHECK(cudaEventCreate(&slot_read[i]));
  }
  CHECK(cudaMallocHost(&readback, kBatches * kBytes));
  CHECK(cudaMalloc(&dev, kBatches * kBytes));
  CHECK(cudaStreamCreate(&s));
  std::printf("staging-ring-reuse on %s, %d slots, %d batches, sleep %ld us ahead of the copies (measured %.0f us)\n",
              gpu, kSlots, kBatches, delay_us, measured_sleep_us(s, delay_us));
  long unsafe_wrong = 0, fixed_right = 0;
  for (long t = 0; t < trials; ++t) {
    unsafe(slot, dev, s, delay_us);
    unsafe_wrong += a_batch_arrived_wrong(dev, readback, s);
    fixed(slot, dev, s, slot_read, delay_us);
    fixed_right += !a_batch_arrived_wrong(dev, readback, s);
  }
  std::printf("unsafe: batch 0 arrived holding another batch's bytes in %ld of %ld trials\n", unsafe_wrong, trials);
  std::printf("fixed:  every batch arrived holding its own bytes in %ld of %ld trials\n", fixed_right, trials);
  return verdict(unsafe_wrong, fixed_right, trials);
}
