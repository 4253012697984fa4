// The entry CUDA calls when it loads this library (CUDA_INJECTION64_PATH), at the program's first cuInit.
#include <pthread.h>

#include <cstdlib>
#include <string>

#include "checker/core/check_settings.hpp"
#include "checker/fault/python_stack.hpp"
#include "checker/inject/driver_calls.hpp"
#include "checker/inject/process_state.hpp"

namespace hazardlab::check::inject {

namespace {

void in_forked_child() {
  // The child of a fork has no CUDA; the pages it inherited protected are its own memory again.
  Injection& in = injection();
  in.disabled = true;
  in.protector.forked_child();
  in.checker.release_everything();
}

void at_exit() {
  Injection& in = injection();
  if (in.disabled) return;
  if (const char* why = FaultHandler::failure()) {
    in.writer.note(std::string("the checker stopped watching after an error of its own (") + why + ")");
    return;
  }
  if (const auto failure = in.protector.first_failure(); failure && !in.said_protection.exchange(true))
    in.writer.note("page protection failed, so some owned bytes were not watched: " + *failure);
  in.writer.summary(in.checker.stats());
}

}  // namespace

}  // namespace hazardlab::check::inject

using namespace hazardlab::check;

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  inject::Injection& in = inject::injection();
  const std::optional<std::string> folder = check_log_folder_from_environment();
  if (!folder || !in.writer.open(*folder)) return 1;  // not started by `hazardlab check`: stay out of the way
  if (!FaultHandler::supported()) {
    in.writer.header(false, "the checker watches host accesses on x86-64 Linux only");
    return 1;
  }
  // Which backend protects the pages, chosen before any is held, and why.
  const HostPageProtector::Choice protection = in.protector.choose(protection_from_environment());
  CUpti_SubscriberHandle subscriber;
  if (const CUptiResult r = cuptiSubscribe(&subscriber, inject::on_driver_call, nullptr); r != CUPTI_SUCCESS) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    in.writer.header(false, std::string("CUPTI refused a subscriber (") + (text ? text : "?") +
                                "): another tool, such as a profiler, already holds it");
    return 1;
  }
  for (CUpti_CallbackId cbid : inject::watched_calls()) {
    if (const CUptiResult r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid); r != CUPTI_SUCCESS) {
      const char* text = nullptr;
      cuptiGetResultString(r, &text);
      in.writer.header(false, "CUPTI did not enable the callback of driver call " + std::to_string(cbid) + " (" +
                                  (text ? text : "?") + ")");
      cuptiUnsubscribe(subscriber);
      return 1;
    }
  }
  FaultHandler::install(in.checker, [](std::vector<Finding>&& findings, const std::vector<std::uintptr_t>& frames,
                                       const PythonStackText& python) {
    inject::injection().writer.findings(findings, frames, parse_python_stack(python.view()), python.of_main_thread);
  });
  for (const std::string& refused : refused_check_settings())
    in.writer.note("a checker setting was refused, and its default taken: " + refused);
  if (const unsigned long n = sample_from_environment(); n > 0) in.checker.set_sampling(Sampling{n, n});
  in.checker.set_every_occurrence(every_occurrence_from_environment());
  pthread_atfork(nullptr, nullptr, inject::in_forked_child);
  std::atexit(inject::at_exit);
  in.writer.header(true, "");
  in.writer.protection(std::string(name_of(protection.backend)), protection.why);
  return 1;
}
