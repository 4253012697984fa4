// A tool of the program's own holds CUPTI before CUDA starts (as a profiler does): it subscribes, with a name,
// and then the program makes copies. Under `hazardlab check`, the checker's subscription is refused, and the
// report must name the holder.
//   cupti-holder-probe NAME
// Exit 77 without a GPU; 3 when CUPTI gave the program no subscription itself (it says who holds it).
#include <cuda_runtime.h>
#include <cupti.h>

#include <cstdio>
#include <string>

#include "cuda_check.hpp"

namespace {
void CUPTIAPI ignore(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]).empty()) {
    std::fprintf(stderr, "usage: cupti-holder-probe NAME\n");
    return 2;
  }
  CUpti_SubscriberHandle subscriber{};
#if defined(CUPTI_API_VERSION) && CUPTI_API_VERSION >= 130000
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = argv[1];
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = sizeof holder;
  const CUptiResult r = cuptiSubscribe_v2(&subscriber, &ignore, nullptr, &params);
#else
  const char holder[] = "(this CUPTI does not name holders)";
  const CUptiResult r = cuptiSubscribe(&subscriber, &ignore, nullptr);
#endif
  if (r != CUPTI_SUCCESS) {
    std::printf("CUPTI refused this program's subscriber (error %d): it is held by \"%s\"\n", static_cast<int>(r),
                holder);
    return 3;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("no usable GPU");
    return 77;
  }
  constexpr size_t kBytes = 1 << 16;
  unsigned char *pinned = nullptr, *device = nullptr;
  CHECK(cudaMallocHost(&pinned, kBytes));
  CHECK(cudaMalloc(&device, kBytes));
  CHECK(cudaMemcpy(device, pinned, kBytes, cudaMemcpyHostToDevice));
  CHECK(cudaFree(device));
  CHECK(cudaFreeHost(pinned));
  cuptiUnsubscribe(subscriber);
  std::puts("copies made while holding CUPTI");
  return 0;
}
