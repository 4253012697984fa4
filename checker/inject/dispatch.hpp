// The one CUPTI callback of the process, and the driver calls it takes, which the entry (injection.cpp) enables
// one by one: both from one table (dispatch.cpp).
#pragma once

#include <cupti.h>

#include <vector>

namespace hazardlab::check::inject {

void CUPTIAPI on_driver_call(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
const std::vector<CUpti_CallbackId>& watched_calls();

}  // namespace hazardlab::check::inject
