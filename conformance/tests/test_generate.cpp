// The generator makes runnable programs of every command and stream kind, and the printer turns them
// into CUDA C++.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <set>

#include "conformance/generate/generate.hpp"
#include "conformance/print/print_program.hpp"
#include "conformance/schedule/predict.hpp"
#include "conformance/tests/simulated_gpu.hpp"

namespace hazardlab::conformance {
namespace {

std::vector<Program> sample(int count) {
  std::vector<Program> programs;
  const auto gen = gen_program_spec();
  for (int i = 0; i < count; ++i)
    programs.push_back(build_program(gen(rc::Random(static_cast<std::uint64_t>(i) + 1), 100).value()));
  return programs;
}

TEST(Generate, EveryCommandKindAndStreamKindAppears) {
  std::set<CommandKind> kinds;
  std::set<StreamKind> streams;
  std::set<GateStyle> gates;
  for (const Program& p : sample(300)) {
    for (const Command& c : p.commands()) {
      kinds.insert(c.kind);
      if (c.kind == CommandKind::GateClose) gates.insert(c.gate_style);
      if (c.kind != CommandKind::Memcpy) streams.insert(p.stream_kind(c.stream));
    }
  }
  EXPECT_EQ(kinds.size(), static_cast<std::size_t>(CommandKind::Drain) + 1);
  EXPECT_EQ(streams.size(), 3U);
  EXPECT_EQ(gates.size(), 2U);
}

// Runnable: host commands touch host memory, kernels device memory, no copy is host to host, no
// host function shares the run with a host-function gate, every gate is open at the end, and no call
// the full model says waits for a closed gate is left to chance (it is opened first, or a probe).
TEST(Generate, ProgramsAreRunnable) {
  for (const Program& p : sample(200)) {
    bool host_func = false, host_function_gate = false;
    for (CommandIndex k = 0; k < p.commands().size(); ++k) {
      const Command& c = p.commands()[k];
      if (c.kind == CommandKind::HostWrite || c.kind == CommandKind::HostFunc) {
        for (BufferId b : c.writes) EXPECT_TRUE(is_host_buffer(p.buffer_kind(b)));
      }
      if (c.kind == CommandKind::Kernel) {
        for (BufferId b : c.writes) EXPECT_FALSE(is_host_buffer(p.buffer_kind(b)));
      }
      if (c.kind == CommandKind::MemcpyAsync || c.kind == CommandKind::Memcpy) {
        EXPECT_FALSE(is_host_buffer(p.buffer_kind(c.reads[0])) && is_host_buffer(p.buffer_kind(c.writes[0])));
      }
      host_func = host_func || c.kind == CommandKind::HostFunc;
      host_function_gate =
          host_function_gate || (c.kind == CommandKind::GateClose && c.gate_style == GateStyle::HostFunction);
    }
    EXPECT_FALSE(host_func && host_function_gate);
    const Prediction full = predict(p);
    for (const auto& [k, wait] : full.waits) {
      if (wait == Wait::Waits) {
        EXPECT_TRUE(p.commands()[k].watchdog_opened) << "#" << k;
      }
    }
  }
}

// Each motif comes out whole: its gate, then the pattern on the streams it chose.
TEST(Generate, EveryMotifBuildsItsPattern) {
  const auto program_of = [](Motif m, std::vector<int> streams) {
    ProgramSpec spec;
    spec.streams = std::move(streams);
    spec.commands = {RawCommand{.kind = static_cast<int>(CommandKind::Drain) + 4 + static_cast<int>(m)}};
    return build_program(spec);
  };
  const auto kinds = [](const Program& p) {
    std::vector<CommandKind> k;
    for (const Command& c : p.commands()) k.push_back(c.kind);
    k.resize(std::min<std::size_t>(k.size(), 5));
    return k;
  };
  using enum CommandKind;
  const Program event = program_of(Motif::EventWaitAcrossStreams, {1});
  EXPECT_EQ(kinds(event), (std::vector{GateClose, EventRecord, StreamWaitEvent, Kernel, Drain}));
  EXPECT_NE(event.commands()[1].stream, event.commands()[2].stream);
  const Program implicit = program_of(Motif::LegacyAndBlockingStream, {1, 0});
  EXPECT_EQ(kinds(implicit), (std::vector{GateClose, Kernel, Drain, GateOpen, DeviceSynchronize}));
  EXPECT_EQ(implicit.stream_kind(implicit.commands()[0].stream), StreamKind::Legacy);
  EXPECT_EQ(implicit.stream_kind(implicit.commands()[1].stream), StreamKind::Blocking);
  const Program upload = program_of(Motif::PageableUploadThenRewrite, {});
  EXPECT_EQ(kinds(upload), (std::vector{GateClose, MemcpyAsync, HostWrite, GateOpen, StreamSynchronize}));
  EXPECT_EQ(upload.buffer_kind(upload.commands()[1].reads[0]), BufferKind::HostPageable);
  EXPECT_EQ(upload.commands()[2].writes, upload.commands()[1].reads);
  EXPECT_EQ(upload.commands()[5].kind, HostRead);
  EXPECT_EQ(upload.commands()[5].reads, upload.commands()[1].writes);
  // The read right after the synchronize is ordered: a GPU that keeps the rules refutes the mutant that
  // reads the pageable source when the copy runs, whatever one value each read shows.
  const Observation documented_gpu = testing::as_predicted(predict(upload));
  for (const auto& [read, values] : documented_gpu.reads) {
    if (read.first == 5) {
      EXPECT_EQ(values.size(), 1U);
    }
  }
  const RuleSet mutant = RuleSet::all().without(Rule::kAsyncCopyPageableH2DStaged);
  EXPECT_FALSE(
      disagreements(upload, predict(upload, mutant), predict(upload, mutant.with_seen_deviations()), documented_gpu)
          .empty());
  // The same with a pinned source refutes the mutant whose pinned copy takes its source at the call.
  const Program pinned = program_of(Motif::PinnedUploadThenRewrite, {});
  EXPECT_EQ(kinds(pinned), (std::vector{GateClose, MemcpyAsync, HostWrite, GateOpen, StreamSynchronize}));
  EXPECT_EQ(pinned.buffer_kind(pinned.commands()[1].reads[0]), BufferKind::HostPinned);
  const Observation pinned_gpu = testing::as_predicted(predict(pinned));
  const RuleSet eager = RuleSet::all().without(Rule::kAsyncCopyPinnedOnStream);
  EXPECT_FALSE(
      disagreements(pinned, predict(pinned, eager), predict(pinned, eager.with_seen_deviations()), pinned_gpu).empty());
  const Program host_function = program_of(Motif::HostFunctionBehindGate, {0});
  EXPECT_EQ(kinds(host_function), (std::vector{GateClose, HostFunc, Drain, GateOpen, DeviceSynchronize}));
  EXPECT_EQ(host_function.commands()[0].gate_style, GateStyle::SpinKernel);
}

// The generator has teeth: against a GPU that keeps the documented rules, and against one that also takes
// every deviation seen, the model without any one refutable rule disagrees within the quick profile's 300
// programs. (Rule 7 is the exception the case explains: its mutant is the stronger, older promise.)
TEST(Generate, EveryRefutableMutantIsRefutedWithinTheQuickProfile) {
  const std::vector<Program> programs = sample(300);
  for (const RuleSet& gpu_rules : {RuleSet::all(), RuleSet::all().with_seen_deviations()}) {
    for (const RuleInfo& info : all_rules()) {
      if (info.rule == Rule::kAsyncCopyPageableD2HNoHostGuarantee) continue;
      int refuted_at = 0;
      for (std::size_t i = 0; i < programs.size() && refuted_at == 0; ++i) {
        const Program& p = programs[i];
        const Observation gpu = testing::as_predicted(predict(p, gpu_rules));
        const RuleSet mutant = RuleSet::all().without(info.rule);
        if (!disagreements(p, predict(p, mutant), predict(p, mutant.with_seen_deviations()), gpu).empty())
          refuted_at = static_cast<int>(i) + 1;
      }
      EXPECT_GT(refuted_at, 0) << info.name;
    }
  }
}

TEST(Generate, AFailingProgramShrinks) {
  // A property that fails on any program with a kernel: rapidcheck must find and shrink it.
  const auto result = rc::detail::checkTestable([] {
    const Program p = build_program(*gen_program_spec());
    for (const Command& c : p.commands()) RC_ASSERT(c.kind != CommandKind::Kernel);
  });
  rc::detail::FailureResult failure;
  ASSERT_TRUE(result.match(failure));
  EXPECT_LE(failure.counterExample.size(), 1U);
}

TEST(Print, ProgramPrintsAsCudaSource) {
  const Program p = sample(1).front();
  const std::string source = to_cuda_source(p);
  EXPECT_NE(source.find("int main()"), std::string::npos);
  EXPECT_NE(source.find("cudaDeviceSynchronize"), std::string::npos);
  EXPECT_NE(source.find("print_tags"), std::string::npos);
}

TEST(Print, GateOpeningPrintsWhatFinishedWhileItWasClosed) {
  Program p;
  const BufferId h = p.add_buffer(BufferKind::HostPinned, "pinned0");
  const StreamId s = p.add_stream(StreamKind::Blocking);
  const GateId g = p.gate_close(s, GateStyle::SpinKernel);
  p.memset_async(h, s);
  p.host_write(h);
  p.gate_open(g);
  const std::string source = to_cuda_source(p);
  EXPECT_NE(source.find("std::printf(\"#3 finished before the gate opened:\"); if (cudaEventQuery(done[0]) == "
                        "cudaSuccess) std::printf(\" #0\"); if (cudaEventQuery(done[1]) == cudaSuccess) "
                        "std::printf(\" #1\"); std::printf(\"\\n\");\n  open_gate(0);"),
            std::string::npos)
      << source;
}

TEST(Print, TheCheckMacroDoesNotShadowTheProgramsNames) {
  // The printed program names its events e[...]; a CHECK macro whose local was also `e` made
  // `CHECK(cudaEventRecord(e[0], s))` fail to compile (found building a printed program with nvcc).
  Program p;
  const StreamId s = p.add_stream(StreamKind::Blocking);
  const EventId e = p.add_event();
  p.event_record(e, s);
  const std::string source = to_cuda_source(p);
  EXPECT_NE(source.find("cudaEventRecord(e[0], s1)"), std::string::npos) << source;
  EXPECT_EQ(source.find("cudaError_t e "), std::string::npos);
  EXPECT_NE(source.find("cudaError_t status_ = (call)"), std::string::npos);
}

TEST(PrintProgram, AHostReadOfADeviceBufferWaitsForNothingOnTheLegacyStream) {
  // A cudaMemcpy would wait for a gate closed on the legacy stream, which the model's read does not
  // (found on an H100: "HostRead: expected not to wait for a closed gate, waited").
  Program p;
  const BufferId device = p.add_buffer(BufferKind::Device, "device0");
  p.host_read(device);
  const std::string source = to_cuda_source(p);
  EXPECT_NE(source.find("cudaMemcpyAsync(read_back, device0, kBytes, cudaMemcpyDefault, reader)"), std::string::npos)
      << source;
  EXPECT_NE(source.find("cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking)"), std::string::npos);
  EXPECT_EQ(source.find("cudaMemcpy("), std::string::npos) << source;
}

}  // namespace
}  // namespace hazardlab::conformance
