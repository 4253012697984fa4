#include "checker/footprints/footprint_probe_cupti.hpp"

#include <cupti.h>

#include <atomic>

namespace hazardlab::check::footprints {

namespace {

std::atomic<long> launches{0};

void CUPTIAPI on_cupti(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* d = static_cast<const CUpti_CallbackData*>(data);
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || d->callbackSite != CUPTI_API_EXIT) return;
  if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
      cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz)
    ++launches;
}

}  // namespace

int count_cupti_launches() {
  CUpti_SubscriberHandle subscriber{};
  const CUptiResult r = cuptiSubscribe(&subscriber, on_cupti, nullptr);
  if (r != CUPTI_SUCCESS) return static_cast<int>(r);
  const CUptiResult e = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  return e == CUPTI_SUCCESS ? 0 : static_cast<int>(e);
}

long cupti_launches() { return launches.load(); }

}  // namespace hazardlab::check::footprints
