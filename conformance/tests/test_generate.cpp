// The generator makes runnable programs of every command and stream kind, and the printer turns them
// into CUDA C++.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <set>

#include "conformance/generate/generate.hpp"
#include "conformance/print/print_program.hpp"
#include "conformance/schedule/predict.hpp"

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

}  // namespace
}  // namespace hazardlab::conformance
