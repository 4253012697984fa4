// Driver calls, as CUPTI reports them, told to the checker (driver_calls.cpp): the callback, and the calls it
// takes, which the entry (injection.cpp) enables one by one.
#pragma once

#include <cupti.h>

#include <vector>

namespace hazardlab::check::inject {

// The checker's own driver calls are not the program's: while an OurCall lives on a thread, the callbacks of
// that thread's driver calls are ignored.
inline thread_local bool inside_our_call = false;
struct OurCall {
  OurCall() { inside_our_call = true; }
  ~OurCall() { inside_our_call = false; }
  OurCall(const OurCall&) = delete;
  OurCall& operator=(const OurCall&) = delete;
};

void CUPTIAPI on_driver_call(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
const std::vector<CUpti_CallbackId>& watched_calls();

}  // namespace hazardlab::check::inject
