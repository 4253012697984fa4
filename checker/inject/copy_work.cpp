// A copy taken by the checker: issued on its stream, or recorded into a graph being built (a capture), whose
// launches issue it. The copy's hold on its pinned host end starts here.
#include <optional>
#include <string_view>

#include "checker/inject/call.hpp"
#include "checker/inject/events.hpp"
#include "checker/inject/reporting.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

// Recorded into a graph being built, not issued: each launch of the graph issues it. False when the stream is
// not capturing.
bool recorded_into_capture(const CopyEnqueued& copy) {
  const std::optional<CUgraph> graph = capture_graph(copy.handle);
  if (!graph) return false;
  Session& in = session();
  if (*graph != nullptr) {
    in.core.handles.graph_copy(reinterpret_cast<std::uint64_t>(*graph),
                               GraphCopy{std::string(copy.api), copy.src, copy.dst, copy.bytes});
  } else if (in.captured_copies++ == 0) {
    // Said at once, so that a process that never reaches its exit handlers still says it.
    in.writer.note("a copy was issued into a stream capture whose graph the driver did not name: launches of "
                   "that graph are not watched");
  }
  return true;
}

// What holding pinned pages asks first: the program's SIGSEGV handler put behind the checker's again.
void before_holding() {
  Session& in = session();
  // A handler the program put in front of the checker's while no page was held hid nothing: it goes behind,
  // and the run can still be clean.
  if (FaultHandler::ensure_installed_at_copy() == FaultHandler::HandlerAtCopy::ReplacedWhilePagesWereHeld &&
      !in.handler_replaced.exchange(true))
    in.writer.note("the program replaced the SIGSEGV handler around the C library while the checker held pages; the "
                   "checker put its own back in front and passes the program's handler every fault that is not the "
                   "checker's (accesses while it was replaced were not watched)");
}

// What the checker found meanwhile, and a failure of page protection, said once.
void after_taken() {
  Session& in = session();
  write_races();
  if (in.protector.failed() && !in.said_protection.exchange(true))
    in.writer.note("page protection failed, so some owned bytes were not watched: " +
                   in.protector.first_failure().value_or("?"));
}

}  // namespace

void take(CopyEnqueued copy) {
  const bool holds = copy.src.kind == MemoryKind::PinnedHost || copy.dst.kind == MemoryKind::PinnedHost;
  const bool graph_node = copy.origin == CopyOrigin::GraphLaunch;
  if (holds && !graph_node && recorded_into_capture(copy)) return;
  if (holds) before_holding();
  // A graph's nodes and work recorded into a capture touch device memory when a launch runs them, which the
  // device's half does not follow yet. A copy with a pinned end was asked above, and returned if it was captured:
  // the driver is asked once.
  if (graph_node || (!holds && capturing(copy.handle))) copy.device.clear();
  session().checker.copy_async(AsyncCopy{copy.api, copy.stream, copy.src, copy.dst, copy.bytes, 0, copy.origin,
                                         copy.host_nodes, std::move(copy.device)},
                               [] { return capture_site(); });
  after_taken();
}

// A kernel's hold, asked as a copy with the pinned end would be whether its stream is capturing (the launch was
// asked already while a capture was open).
void take(const KernelHeld& held) {
  const CopyEnd pinned{MemoryKind::PinnedHost, held.hold.host}, device{MemoryKind::Device, {}};
  const bool reads = held.hold.use == KernelUse::Reads;
  if (recorded_into_capture(CopyEnqueued{"cuLaunchKernel", held.handle, held.hold.stream, reads ? pinned : device,
                                         reads ? device : pinned, held.hold.host.bytes()}))
    return;
  before_holding();
  session().checker.kernel_holds(held.hold, [] { return capture_site(); });
  after_taken();
}

}  // namespace hazardlab::check::inject
