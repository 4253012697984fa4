// The device's half of the agreement, on the CPU: programs from the conformance generator, their device work told
// to the checker as the injected library tells it a running program's, and the races the checker reports set
// beside the pairs the happens-before model leaves racing (agreement/device_races.hpp). The GPU run
// (checker/programs/check_agreement.cpp) compares the same prediction with a real run; this replay needs no GPU.
//
// The replay says what each command touches the way the injected library works it out, never from the model's
// own answer: a copy's and a memset's device ends exactly, and a kernel's by its argument words looked up among
// the device allocations, read or written as the runner's kernel's symbol says (a `const` pointer is read, a
// plain one may be written). So a model that took a plain pointer for a write would predict races the checker
// does not report, and disagree.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>

#include "checker/agreement/checked_program.hpp"
#include "checker/agreement/device_races.hpp"
#include "checker/core/checker.hpp"
#include "checker/core/kernel_signature.hpp"
#include "checker/tests/no_protection.hpp"
#include "conformance/generate/generate.hpp"
#include "conformance/print/print_program.hpp"

namespace hazardlab::check {
namespace {

namespace cf = conformance;
using cf::CommandKind;
using namespace agreement;

const std::uintptr_t kBase = 0x7f0000000000;
std::uintptr_t address_of(cf::BufferId b) { return kBase + b * 2 * cf::kBufferBytes; }
cf::BufferId buffer_at(std::uintptr_t address) { return (address - kBase) / (2 * cf::kBufferBytes); }
bool on_device(const cf::Program& p, cf::BufferId b) { return p.buffer_kind(b) == cf::BufferKind::Device; }

// The runner's kernel, `touch(const unsigned char* read, unsigned char* write)` in an anonymous namespace
// (checker/programs/agreement_kernel.cu), by the symbol the driver names it with.
constexpr const char* kRunnersKernel = "_ZN12_GLOBAL__N_15touchEPKhPh";

// A site per command: its index, plus one (0 names no site).
SiteId site_of(cf::CommandIndex i) { return i + 1; }
cf::CommandIndex command_of(SiteId site) { return site - 1; }

DeviceAccessKind access_of(Touch t) {
  return t == Touch::Read ? DeviceAccessKind::Read : t == Touch::Write ? DeviceAccessKind::Write : DeviceAccessKind::MayWrite;
}

// One race, by the commands, the buffer and the two accesses: as the checker reports it or as the model predicts it.
using Race = std::tuple<cf::CommandIndex, cf::CommandIndex, cf::BufferId, DeviceAccessKind, DeviceAccessKind>;

// The program's device work told to the checker as the injected library tells it a running one's; the races found.
std::set<Race> replayed(const cf::Program& p) {
  NoProtection none;
  Checker checker(none);
  std::vector<DeviceAllocation> allocations;  // sorted by base: buffers are laid out in order
  for (cf::BufferId b = 0; b < p.buffer_count(); ++b) {
    if (on_device(p, b)) allocations.push_back({address_of(b), cf::kBufferBytes});
    else if (p.buffer_kind(b) == cf::BufferKind::HostPinned)
      checker.pinned_allocated(address_of(b), cf::kBufferBytes, PinnedKind::HostAlloc);
  }
  auto key = [](cf::StreamId s) { return StreamKey{0, s}; };
  // The legacy stream from the start: the checker names device work (asks for its site) only once it knows a
  // second stream, and a race's earlier side is told apart here by its site.
  checker.stream_created(key(cf::kLegacyStream), cf::StreamKind::Legacy);
  for (cf::StreamId s = 1; s < p.stream_count(); ++s) checker.stream_created(key(s), p.stream_kind(s));
  for (cf::EventId e = 0; e < p.event_count(); ++e) checker.event_created(1000 + e);
  auto end_of = [&](cf::BufferId b) {
    const cf::BufferKind k = p.buffer_kind(b);
    const MemoryKind kind = k == cf::BufferKind::HostPinned     ? MemoryKind::PinnedHost
                            : k == cf::BufferKind::HostPageable ? MemoryKind::PageableHost
                                                                : MemoryKind::Device;
    return CopyEnd{kind, HostFootprint::linear(address_of(b), cf::kBufferBytes)};
  };
  auto device_end = [&](cf::BufferId b, DeviceAccessKind access, std::vector<DeviceRange>& out) {
    if (on_device(p, b)) out.push_back({address_of(b), address_of(b) + cf::kBufferBytes, access});
  };
  const KernelSignature signature = kernel_signature(kRunnersKernel);
  std::set<Race> out;
  for (cf::CommandIndex i = 0; i < p.commands().size(); ++i) {
    const cf::Command& c = p.commands()[i];
    auto site = [i] { return site_of(i); };
    switch (c.kind) {
      case CommandKind::HostWrite:
      case CommandKind::HostRead: break;  // the host's half (test_model_agreement.cpp)
      case CommandKind::MemcpyAsync: {
        std::vector<DeviceRange> device;
        device_end(c.reads.at(0), DeviceAccessKind::Read, device);
        device_end(c.writes.at(0), DeviceAccessKind::Write, device);
        checker.copy_async(AsyncCopy{"cuMemcpyAsync", key(c.stream), end_of(c.reads.at(0)), end_of(c.writes.at(0)),
                                     cf::kBufferBytes, 0, CopyOrigin::StreamCall, GraphHostNodes::None, std::move(device)},
                           site);
        break;
      }
      case CommandKind::MemsetAsync:
        if (on_device(p, c.writes.at(0))) {
          std::vector<DeviceRange> device;
          device_end(c.writes.at(0), DeviceAccessKind::Write, device);
          checker.device_work(key(c.stream), DeviceWorkItem{"cuMemsetAsync", DeviceWorkKind::Memset, std::move(device)}, site);
        } else {
          checker.copy_async(AsyncCopy{"cuMemsetAsync", key(c.stream), CopyEnd{}, end_of(c.writes.at(0)),
                                       cf::kBufferBytes, 0, CopyOrigin::StreamCall},
                             site);
        }
        break;
      case CommandKind::Kernel: {
        // The launch's two argument words: the buffers' addresses, or null where the runner passes none.
        std::array<std::array<std::byte, sizeof(std::uintptr_t)>, 2> words{};
        const std::uintptr_t read = c.reads.empty() ? 0 : address_of(c.reads[0]);
        const std::uintptr_t write = c.writes.empty() ? 0 : address_of(c.writes[0]);
        std::memcpy(words[0].data(), &read, sizeof read);
        std::memcpy(words[1].data(), &write, sizeof write);
        const std::array<KernelArgument, 2> arguments{KernelArgument{words[0], parameter_access(signature, 0, 2)},
                                                      KernelArgument{words[1], parameter_access(signature, 1, 2)}};
        checker.device_work(key(c.stream),
                            DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel, kernel_ranges(arguments, allocations),
                                           signature.name},
                            site);
        break;
      }
      case CommandKind::Memcpy: checker.copy_sync(0, end_of(c.reads.at(0)).kind, end_of(c.writes.at(0)).kind); break;
      case CommandKind::HostFunc: checker.host_function_enqueued(key(c.stream)); break;
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
    for (const Finding& f : checker.take_races())
      out.insert({command_of(f.copy.site), command_of(f.access_site), buffer_at(f.address), f.race->earlier.access,
                  f.race->later.access});
  }
  return out;
}

std::string describe(const Race& r) {
  const auto& [earlier, later, buffer, earlier_access, later_access] = r;
  std::ostringstream out;
  out << "#" << earlier << " (" << to_string(earlier_access) << ") and #" << later << " (" << to_string(later_access)
      << ") on buffer " << buffer;
  return out.str();
}

// Every race the checker reports is a pair the model leaves racing, with the same accesses; and every command the
// model says races with an earlier one is reported with one. Not every pair: an earlier access that a later one,
// ordered after it, stands for is reported through that one (device_conflicts.hpp). A host function's start, which
// may order a pair on a GPU (`clearable`), is not replayed, so none is excused.
TEST(DeviceRaceAgreement, TheCheckerReportsTheDeviceRacesTheModelPredicts) {
  std::size_t programs_with_races = 0, kernel_may_write_races = 0;
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = 2000;  // about one program in thirty has a device race
  rc::detail::TestMetadata metadata;
  metadata.id = metadata.description = "device race agreement";
  const auto result = rc::detail::checkTestable(
      [&] {
        const cf::Program generated = without_schedule(cf::build_program(*cf::gen_program_spec()));
        const cf::Program program = with_deviation_motif(generated, *rc::gen::inRange(0, kDeviationMotifs),
                                                         *rc::gen::inRange<std::size_t>(0, generated.commands().size() + 1));
        std::set<Race> predicted;
        std::map<cf::BufferId, cf::CommandIndex> first_racing;  // per buffer, the first command that races on it
        for (const DeviceRacePair& r : device_races(program)) {
          predicted.insert({r.earlier, r.later, r.buffer, access_of(r.earlier_touch), access_of(r.later_touch)});
          if (!first_racing.contains(r.buffer) || r.later < first_racing[r.buffer]) first_racing[r.buffer] = r.later;
          kernel_may_write_races += r.earlier_touch == Touch::MayWrite || r.later_touch == Touch::MayWrite;
        }
        programs_with_races += !predicted.empty();
        const std::set<Race> reported = replayed(program);
        RC_LOG() << cf::to_cuda_source(program);
        for (const Race& r : predicted) RC_LOG() << "predicted " << describe(r) << "\n";
        for (const Race& r : reported) RC_LOG() << "reported " << describe(r) << "\n";
        std::set<cf::CommandIndex> reported_laters;
        for (const Race& r : reported) {
          if (predicted.count(r) == 0) RC_FAIL("reported, not predicted: " + describe(r));
          reported_laters.insert(std::get<1>(r));
        }
        for (const auto& [buffer, later] : first_racing)
          if (reported_laters.count(later) == 0)
            RC_FAIL("#" + std::to_string(later) + " is the first to race on buffer " + std::to_string(buffer) +
                    ", and no race of it was reported");
      },
      metadata, params);
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    std::ostringstream counterexample;
    for (const auto& [type, value] : failure.counterExample) counterexample << type << ": " << value << "\n";
    FAIL() << failure.description << "\n" << counterexample.str();
  }
  std::cout << "programs with device races " << programs_with_races << ", racing pairs through a kernel's plain pointer "
            << kernel_may_write_races << "\n";
  // The programs must exercise what is compared: races, and kernels' pointers they may write through.
  EXPECT_GT(programs_with_races, 30u);
  EXPECT_GT(kernel_may_write_races, 0u);
}

// The symbol the replay reads is the runner's kernel's: a `const` pointer read, a plain one that may be written.
TEST(DeviceRaceAgreement, TheRunnersKernelReadsItsFirstPointerAndMayWriteItsSecond) {
  const KernelSignature signature = kernel_signature(kRunnersKernel);
  ASSERT_TRUE(signature.parameters_known);
  EXPECT_EQ(signature.parameters, (std::vector<ArgumentAccess>{ArgumentAccess::ReadOnly, ArgumentAccess::MayWrite}));
}

}  // namespace
}  // namespace hazardlab::check
