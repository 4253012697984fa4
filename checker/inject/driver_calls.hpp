// Driver calls, as CUPTI reports them, told to the checker (driver_calls.cpp): the callback, and the calls it
// takes, which the entry (injection.cpp) enables one by one.
#pragma once

#include <cupti.h>

#include <vector>

namespace hazardlab::check::inject {

void CUPTIAPI on_driver_call(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
const std::vector<CUpti_CallbackId>& watched_calls();

}  // namespace hazardlab::check::inject
