// One set of rules, two uses: programs from the conformance generator, replayed command by command into
// the checker, give exactly the findings the happens-before model predicts for them, deviations included.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>

#include "checker/agreement/checked_program.hpp"
#include "checker/core/checker.hpp"
#include "checker/tests/no_protection.hpp"
#include "conformance/generate/generate.hpp"

namespace hazardlab::check {
namespace {

namespace cf = conformance;
using cf::CommandKind;
using namespace agreement;

const std::uintptr_t kBase = 0x7f0000000000;
std::uintptr_t address_of(cf::BufferId b) { return kBase + b * 2 * cf::kBufferBytes; }

bool pinned(const cf::Program& p, cf::BufferId b) { return p.buffer_kind(b) == cf::BufferKind::HostPinned; }

// The same program told to the checker as the injected library tells it a running one.
Expected checked(const cf::Program& p) {
  NoProtection none;
  Checker checker(none);
  for (cf::BufferId b = 0; b < p.buffer_count(); ++b)
    if (pinned(p, b)) checker.pinned_allocated(address_of(b), cf::kBufferBytes, PinnedKind::HostAlloc);
  auto key = [](cf::StreamId s) { return StreamKey{0, s}; };
  for (cf::StreamId s = 1; s < p.stream_count(); ++s) checker.stream_created(key(s), p.stream_kind(s));
  for (cf::EventId e = 0; e < p.event_count(); ++e) checker.event_created(1000 + e);
  auto end_of = [&](cf::BufferId b) {
    const cf::BufferKind k = p.buffer_kind(b);
    const MemoryKind kind = k == cf::BufferKind::HostPinned     ? MemoryKind::PinnedHost
                            : k == cf::BufferKind::HostPageable ? MemoryKind::PageableHost
                                                                : MemoryKind::Device;
    return CopyEnd{kind, HostFootprint::linear(address_of(b), cf::kBufferBytes)};
  };
  Expected out;
  auto touch = [&](cf::CommandIndex i, std::optional<WorkStamp> host_function) {
    for (const Access& a : accesses(p, i)) {
      for (const Finding& f : checker.host_access(address_of(a.buffer), a.write, host_function, i, 0).findings) {
        out[{i, f.copy.site}] = f.relies_on;
        // The GPU run names a copy by the checker's number for it: the numbering must be the one predicted.
        const std::vector<HeldEnd> numbered = numbered_copy_ends(p);
        if (f.copy.id == 0 || f.copy.id > numbered.size() || numbered[f.copy.id - 1].command != f.copy.site)
          throw std::logic_error("copy #" + std::to_string(f.copy.id) + " is not the numbered end predicted");
      }
    }
  };
  for (cf::CommandIndex i = 0; i < p.commands().size(); ++i) {
    const cf::Command& c = p.commands()[i];
    switch (c.kind) {
      case CommandKind::HostWrite:
      case CommandKind::HostRead: touch(i, std::nullopt); break;
      case CommandKind::MemcpyAsync:
        checker.copy_async(AsyncCopy{"cuMemcpyAsync", key(c.stream), end_of(c.reads.at(0)), end_of(c.writes.at(0)),
                                     cf::kBufferBytes, i});
        break;
      case CommandKind::MemsetAsync:
        checker.copy_async(AsyncCopy{"cuMemsetD8Async", key(c.stream), CopyEnd{}, end_of(c.writes.at(0)),
                                     cf::kBufferBytes, i});
        break;
      case CommandKind::Memcpy: checker.copy_sync(0, end_of(c.reads.at(0)).kind, end_of(c.writes.at(0)).kind); break;
      case CommandKind::Kernel: checker.work_enqueued(key(c.stream)); break;
      case CommandKind::HostFunc: touch(i, checker.host_function_enqueued(key(c.stream))); break;
      case CommandKind::EventRecord: checker.event_recorded(1000 + c.event, key(c.stream)); break;
      case CommandKind::StreamWaitEvent: checker.stream_waited_event(key(c.stream), 1000 + c.event); break;
      case CommandKind::EventSynchronize: checker.event_synchronized(1000 + c.event); break;
      case CommandKind::EventQuery:
        if (c.observed_complete) checker.event_synchronized(1000 + c.event);
        break;
      case CommandKind::StreamSynchronize: checker.stream_synchronized(key(c.stream)); break;
      case CommandKind::StreamQuery:
        if (c.observed_complete) checker.stream_synchronized(key(c.stream));
        break;
      case CommandKind::DeviceSynchronize: checker.context_synchronized(0); break;
      case CommandKind::GateClose:
      case CommandKind::GateOpen:
      case CommandKind::Drain: throw std::logic_error("schedule commands are removed first");
    }
  }
  return out;
}

// At least 1,000 programs a run, stated here rather than left to rapidcheck's default of 100.
TEST(ModelAgreement, TheCheckerFindsWhatTheModelPredicts) {
  std::size_t with_findings = 0, with_deviations = 0, with_host_functions = 0;
  // RC_PARAMS="seed=..." replays a run; the size is this test's own.
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = 1500;
  rc::detail::TestMetadata metadata;
  metadata.id = metadata.description = "model agreement";
  const auto result = rc::detail::checkTestable(
      [&] {
        const cf::Program generated = without_schedule(cf::build_program(*cf::gen_program_spec()));
        const cf::Program program = with_deviation_motif(generated, *rc::gen::inRange(0, kDeviationMotifs),
                                                         *rc::gen::inRange<std::size_t>(0, generated.commands().size() + 1));
        const Expected model = predicted(program);
        with_findings += !model.empty();
        for (const auto& [pair, relies] : model) {
          with_deviations += !relies.empty();
          with_host_functions += program.commands()[pair.first].kind == CommandKind::HostFunc;
        }
        RC_ASSERT(describe(checked(program)) == describe(model));
      },
      metadata, params);
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    std::ostringstream counterexample;
    for (const auto& [type, value] : failure.counterExample) counterexample << type << ": " << value << "\n";
    FAIL() << failure.description << "\n" << counterexample.str();
  }
  std::cout << "programs with findings " << with_findings << ", findings relying on a deviation " << with_deviations
            << ", found in host functions " << with_host_functions << "\n";
  // The programs must exercise what is compared: plain findings, deviations, host functions.
  EXPECT_GT(with_findings, 100u);
  EXPECT_GT(with_deviations, 0u);
  EXPECT_GT(with_host_functions, 0u);
}

}  // namespace
}  // namespace hazardlab::check
