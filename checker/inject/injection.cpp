// The entry CUDA calls when it loads this library (CUDA_INJECTION64_PATH), at the program's first cuInit.
#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "checker/core/check_settings.hpp"
#include "checker/fault/python_stack.hpp"
#include "checker/inject/dispatch.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

void in_forked_child() {
  // The child of a fork has no CUDA; the pages it inherited protected are its own memory again.
  Session& in = session();
  in.disabled = true;
  in.protector.forked_child();
  in.checker.release_everything();
}

void at_exit() {
  Session& in = session();
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

namespace {

// The name this checker gives CUPTI, which another tool that asks for CUPTI after it is told.
constexpr const char* kSubscriberName = "hazardlab check";

// Subscribes the checker's callback. Where CUPTI can name the tool that already holds it (cuptiSubscribe_v2,
// CUDA 13.0 and later), a refusal names it: a profiler, or the program's own subscriber.
CUptiResult subscribe(CUpti_SubscriberHandle& subscriber, std::string& holder) {
#if defined(CUPTI_API_VERSION) && CUPTI_API_VERSION >= 130000
  char old_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = kSubscriberName;
  params.oldSubscriberName = old_name;
  params.oldSubscriberSize = sizeof old_name;
  const CUptiResult r = cuptiSubscribe_v2(&subscriber, inject::on_driver_call, nullptr, &params);
  old_name[sizeof old_name - 1] = '\0';
  holder = old_name;
  return r;
#else
  holder.clear();
  return cuptiSubscribe(&subscriber, inject::on_driver_call, nullptr);
#endif
}

std::string refused_subscription(CUptiResult r, const std::string& holder) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::string why = std::string("CUPTI refused a subscriber (") + (text ? text : "?") + ")";
  if (!holder.empty()) return why + ": it is held by \"" + holder + "\"";
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
    return why + ": another tool, such as a profiler, already holds it (this CUPTI does not say which)";
  return why;
}

// Everything the entry does, once per process (InitializeInjection).
int start_watching() {
  inject::Session& in = inject::session();
  const std::optional<std::string> folder = check_log_folder_from_environment();
  if (!folder || !in.writer.open(*folder)) return 1;  // not started by `hazardlab check`: stay out of the way
  if (!FaultHandler::supported()) {
    in.writer.header(false, "the checker watches host accesses on x86-64 Linux only");
    return 1;
  }
  // The settings as the launcher decided them; a protection it would not have handed over is refused, never
  // taken for another (check_settings.hpp).
  const CheckSettingsRead read = read_check_settings(hazardlab::SettingSource::from_environment());
  if (read.protection_refused) {
    in.writer.header(false, "a checker setting was refused: " + *read.protection_refused +
                                " (`hazardlab check --protection` hands it over)");
    return 1;
  }
  in.core.settings = read.settings;
  // Which backend protects the pages, chosen before any is held, and why.
  const HostPageProtector::Choice protection = in.protector.choose(in.core.settings.protection);
  CUpti_SubscriberHandle subscriber;
  std::string holder;
  if (const CUptiResult r = subscribe(subscriber, holder); r != CUPTI_SUCCESS) {
    in.writer.header(false, refused_subscription(r, holder));
    return 1;
  }
  for (CUpti_CallbackId cbid : inject::watched_calls()) {
    if (const CUptiResult r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
        r != CUPTI_SUCCESS) {
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
    inject::session().writer.findings(findings, frames, parse_python_stack(python.view()), python.of_main_thread);
  });
  for (const std::string& refused : refused_check_settings())
    in.writer.note("a checker setting was refused, and its default taken: " + refused);
  if (const unsigned long n = in.core.settings.sample; n > 0) in.checker.set_sampling(Sampling{n, n});
  in.checker.set_every_occurrence(in.core.settings.every_occurrence);
  pthread_atfork(nullptr, nullptr, inject::in_forked_child);
  std::atexit(inject::at_exit);
  in.writer.header(true, "");
  in.writer.protection(std::string(name_of(protection.backend)), protection.why);
  return 1;
}

}  // namespace

// CUDA runs this entry when it starts in a process, and may run it more than once there: NVIDIA's OpenCL driver
// runs it too, so a process that lists OpenCL platforms before its first cuInit (Open MPI started in-process
// does: hwloc's OpenCL plugin) meets it twice. The first run watches every driver call of the process; a second
// would open a second log header and ask CUPTI for a second subscription, which CUPTI refuses. So it runs once,
// guarded before anything else, and calls no CUDA API itself: the first run may be inside MPI_Init, before the
// program's own cuInit.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  if (!inject::first_entry()) return 1;
  return start_watching();
}
