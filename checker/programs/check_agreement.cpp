// One set of rules, two uses, on a GPU: programs from the conformance generator (streams of each kind,
// events, queries, host reads and writes, host functions, the deviation motifs) executed with real CUDA
// calls, so that `hazardlab check --every-occurrence` watches them as it watches any program. For each
// program the happens-before model (checker/agreement) predicts the findings from the calls as they were
// made (each query's answer is the GPU's), and this writes that prediction for expect_agreement.py to set
// beside what the checker reported.
//
// A finding is matched by the checker's own facts: the copy's number (CopyFacts::id, the n-th pinned copy
// end it watched) and the offset of the byte touched. Every access of command i touches byte i of its
// buffer first, so the offset names the access.
//   check-agreement --programs N --seed S --expect FILE
//   check-agreement --programs N --seed S --describe K   program K of that run as CUDA source, and the model's
//                                                        findings for it (taking every query as not complete)
// Exit 77 without a GPU.
#include <cuda_runtime.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "agreement_kernel.hpp"
#include "checker/agreement/checked_program.hpp"
#include "checker/agreement/device_races.hpp"
#include "conformance/generate/generate.hpp"
#include "conformance/print/print_program.hpp"
#include "cuda_check.hpp"

namespace {

namespace cf = hazardlab::conformance;
namespace agree = hazardlab::check::agreement;
using cf::CommandKind;

// A host function's access, as the command lists it.
struct HostFunctionAccess {
  std::vector<volatile unsigned char*> reads, writes;
  std::size_t offset = 0;
};

void CUDART_CB host_function(void* data) {
  const auto* a = static_cast<const HostFunctionAccess*>(data);
  for (volatile unsigned char* p : a->reads) (void)p[a->offset];
  for (volatile unsigned char* p : a->writes) p[a->offset] = 1;
}

class Execution {
 public:
  // Even programs name the legacy stream by 0 and copy with the direction spelled out; odd ones by
  // cudaStreamLegacy and cudaMemcpyDefault: both forms reach the driver differently.
  // Device buffers go to `kept` instead of being freed: a race the checker reports names its memory by
  // address, and a buffer no later program reuses names its program.
  Execution(cf::Program& program, bool odd, std::vector<void*>& kept) : p_(program), odd_(odd), kept_(kept) {
    streams_.push_back(odd ? cudaStreamLegacy : nullptr);
    for (cf::StreamId s = 1; s < p_.stream_count(); ++s) {
      cudaStream_t stream{};
      const bool non_blocking = p_.stream_kind(s) == cf::StreamKind::NonBlocking;
      CHECK(cudaStreamCreateWithFlags(&stream, non_blocking ? cudaStreamNonBlocking : cudaStreamDefault));
      streams_.push_back(stream);
    }
    for (cf::EventId e = 0; e < p_.event_count(); ++e) {
      cudaEvent_t event{};
      CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
      events_.push_back(event);
    }
    for (cf::BufferId b = 0; b < p_.buffer_count(); ++b) {
      void* memory = nullptr;
      switch (p_.buffer_kind(b)) {
        case cf::BufferKind::HostPinned: CHECK(cudaHostAlloc(&memory, cf::kBufferBytes, cudaHostAllocDefault)); break;
        case cf::BufferKind::HostPageable: memory = std::calloc(1, cf::kBufferBytes); break;
        case cf::BufferKind::Device: CHECK(cudaMalloc(&memory, cf::kBufferBytes)); break;
      }
      buffers_.push_back(static_cast<unsigned char*>(memory));
    }
    host_functions_.reserve(p_.commands().size());
  }

  ~Execution() {
    CHECK(cudaDeviceSynchronize());
    for (cf::StreamId s = 1; s < streams_.size(); ++s) CHECK(cudaStreamDestroy(streams_[s]));
    for (cudaEvent_t e : events_) CHECK(cudaEventDestroy(e));
    for (cf::BufferId b = 0; b < buffers_.size(); ++b) {
      switch (p_.buffer_kind(b)) {
        case cf::BufferKind::HostPinned: CHECK(cudaFreeHost(buffers_[b])); break;
        case cf::BufferKind::HostPageable: std::free(buffers_[b]); break;
        case cf::BufferKind::Device: kept_.push_back(buffers_[b]); break;
      }
    }
  }

  // Each stream as the checker names it (the legacy stream is 0), and each buffer's address.
  std::vector<std::uint64_t> stream_handles() const {
    std::vector<std::uint64_t> handles{0};
    for (std::size_t s = 1; s < streams_.size(); ++s) handles.push_back(reinterpret_cast<std::uintptr_t>(streams_[s]));
    return handles;
  }
  std::uintptr_t address(cf::BufferId b) const { return reinterpret_cast<std::uintptr_t>(buffers_[b]); }

  void run() {
    for (cf::CommandIndex i = 0; i < p_.commands().size(); ++i) issue(i, p_.commands()[i]);
  }

 private:
  bool host(cf::BufferId b) const { return p_.buffer_kind(b) != cf::BufferKind::Device; }

  cudaMemcpyKind direction(cf::BufferId src, cf::BufferId dst) const {
    if (odd_) return cudaMemcpyDefault;
    return host(src) ? (host(dst) ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice)
                     : (host(dst) ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice);
  }

  void issue(cf::CommandIndex i, const cf::Command& c) {
    const cudaStream_t s = streams_[c.stream];
    switch (c.kind) {
      case CommandKind::HostRead:
        for (cf::BufferId b : c.reads)
          if (host(b)) (void)static_cast<volatile unsigned char*>(buffers_[b])[i];
        return;
      case CommandKind::HostWrite:
        for (cf::BufferId b : c.writes)
          if (host(b)) static_cast<volatile unsigned char*>(buffers_[b])[i] = 1;
        return;
      case CommandKind::MemcpyAsync:
        CHECK(cudaMemcpyAsync(buffers_[c.writes[0]], buffers_[c.reads[0]], cf::kBufferBytes,
                              direction(c.reads[0], c.writes[0]), s));
        return;
      case CommandKind::Memcpy:
        CHECK(cudaMemcpy(buffers_[c.writes[0]], buffers_[c.reads[0]], cf::kBufferBytes,
                         direction(c.reads[0], c.writes[0])));
        return;
      case CommandKind::MemsetAsync:
        CHECK(cudaMemsetAsync(buffers_[c.writes[0]], static_cast<int>(i & 0xFF), cf::kBufferBytes, s));
        return;
      case CommandKind::Kernel:
        launch_touch(s, c.reads.empty() ? nullptr : buffers_[c.reads[0]],
                     c.writes.empty() ? nullptr : buffers_[c.writes[0]]);
        return;
      case CommandKind::HostFunc: {
        HostFunctionAccess& a = host_functions_.emplace_back();
        a.offset = i;
        for (cf::BufferId b : c.reads) a.reads.push_back(buffers_[b]);
        for (cf::BufferId b : c.writes) a.writes.push_back(buffers_[b]);
        CHECK(cudaLaunchHostFunc(s, host_function, &a));
        return;
      }
      case CommandKind::EventRecord: CHECK(cudaEventRecord(events_[c.event], s)); return;
      case CommandKind::StreamWaitEvent: CHECK(cudaStreamWaitEvent(s, events_[c.event], 0)); return;
      case CommandKind::EventSynchronize: CHECK(cudaEventSynchronize(events_[c.event])); return;
      case CommandKind::StreamSynchronize: CHECK(cudaStreamSynchronize(s)); return;
      case CommandKind::DeviceSynchronize: CHECK(cudaDeviceSynchronize()); return;
      case CommandKind::EventQuery:
      case CommandKind::StreamQuery: {
        const cudaError_t answer = c.kind == CommandKind::EventQuery ? cudaEventQuery(events_[c.event]) : cudaStreamQuery(s);
        if (answer != cudaErrorNotReady) CHECK(answer);
        p_.set_observed_complete(i, answer == cudaSuccess);  // the model orders by what the GPU answered
        return;
      }
      case CommandKind::GateClose:
      case CommandKind::GateOpen:
      case CommandKind::Drain:
        std::fprintf(stderr, "check-agreement: a schedule command was left in the program\n");
        std::exit(1);
    }
  }

  cf::Program& p_;
  bool odd_;
  std::vector<void*>& kept_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> events_;
  std::vector<unsigned char*> buffers_;
  std::vector<HostFunctionAccess> host_functions_;  // reserved up front: the host functions hold their addresses
};

// The device's half of program k: its device buffers' addresses, and each pair of commands the model leaves
// racing, with the streams and the kinds of work the checker names them by.
const char* work_name(CommandKind kind) {
  return kind == CommandKind::Kernel ? "kernel" : kind == CommandKind::MemsetAsync ? "memset" : "copy";
}
void describe_device(const cf::Program& program, unsigned long long k, const Execution& run, nlohmann::json& device) {
  const std::vector<std::uint64_t> streams = run.stream_handles();
  for (cf::BufferId b = 0; b < program.buffer_count(); ++b)
    if (program.buffer_kind(b) == cf::BufferKind::Device)
      device["buffers"].push_back({{"program", k}, {"buffer", b}, {"begin", run.address(b)},
                                   {"end", run.address(b) + cf::kBufferBytes}});
  for (const agree::DeviceRacePair& r : agree::device_races(program)) {
    const cf::Command &e = program.commands()[r.earlier], &l = program.commands()[r.later];
    device["races"].push_back({{"program", k},
                               {"earlier", r.earlier},
                               {"later", r.later},
                               {"buffer", r.buffer},
                               {"earlier_stream", streams[e.stream]},
                               {"later_stream", streams[l.stream]},
                               {"earlier_work", work_name(e.kind)},
                               {"later_work", work_name(l.kind)},
                               {"earlier_access", agree::to_string(r.earlier_touch)},
                               {"later_access", agree::to_string(r.later_touch)},
                               {"clearable", r.clearable}});
  }
}

// Program k of a run: the generator's program for seed S + k, without its schedule, with motif k mod 5
// spliced in where the run's own random sequence says.
cf::Program program_number(unsigned long long k, unsigned long long seed, std::mt19937_64& choose) {
  const cf::ProgramSpec spec = cf::gen_program_spec()(rc::Random(seed + k), static_cast<int>(k % 101)).value();
  const cf::Program generated = agree::without_schedule(cf::build_program(spec));
  const int motif = static_cast<int>(k % agree::kDeviationMotifs);
  return agree::with_deviation_motif(generated, motif, choose() % (generated.commands().size() + 1));
}

bool parse(const char* text, unsigned long long max, unsigned long long& out) {
  char* end = nullptr;
  if (text == nullptr || *text < '0' || *text > '9') return false;
  out = std::strtoull(text, &end, 10);
  return *end == '\0' && out <= max;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long long programs = 0, seed = 0, describe = 0;
  const char* expect = nullptr;
  bool describing = false;
  bool ok = argc == 7;
  for (int a = 1; ok && a + 1 < argc; a += 2) {
    const std::string option = argv[a];
    if (option == "--programs") ok = parse(argv[a + 1], 100000, programs) && programs > 0;
    else if (option == "--seed") ok = parse(argv[a + 1], ~0ull, seed);
    else if (option == "--expect") expect = argv[a + 1];
    else if (option == "--describe") ok = describing = parse(argv[a + 1], 100000, describe);
    else ok = false;
  }
  if (!ok || (expect == nullptr) == !describing || (describing && describe >= programs)) {
    std::fprintf(stderr, "usage: check-agreement --programs N(1..100000) --seed S (--expect FILE | --describe K(0..N-1))\n");
    return 2;
  }
  if (describing) {
    std::mt19937_64 choose(seed);
    for (unsigned long long k = 0; k < describe; ++k) (void)program_number(k, seed, choose);
    cf::Program program = program_number(describe, seed, choose);
    for (cf::CommandIndex i = 0; i < program.commands().size(); ++i) program.set_observed_complete(i, false);
    std::printf("%s\n// the model's findings: %s\n", cf::to_cuda_source(program).c_str(),
                agree::describe(agree::predicted(program)).c_str());
    return 0;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("check-agreement: no usable GPU: skipped\n");
    return 77;
  }

  nlohmann::json copies = nlohmann::json::array(), findings = nlohmann::json::array();
  nlohmann::json device = {{"buffers", nlohmann::json::array()}, {"races", nlohmann::json::array()}};
  std::vector<void*> kept;
  std::uint64_t numbered_so_far = 0;
  std::mt19937_64 choose(seed);
  for (unsigned long long k = 0; k < programs; ++k) {
    cf::Program program = program_number(k, seed, choose);
    {
      Execution run(program, k % 2 == 1, kept);
      run.run();
      describe_device(program, k, run, device);
    }
    const std::vector<agree::HeldEnd> numbered = agree::numbered_copy_ends(program);
    for (std::size_t n = 0; n < numbered.size(); ++n)
      copies.push_back({{"id", numbered_so_far + n + 1}, {"program", k}, {"command", numbered[n].command}});
    const agree::Expected expected = agree::predicted(program);
    for (const auto& [pair, relies] : expected) {
      // The numbered end of this copy that the access conflicts with: the one on the accessed buffer.
      const auto [access, copy] = pair;
      std::uint64_t id = 0;
      for (std::size_t n = 0; n < numbered.size(); ++n)
        if (numbered[n].command == copy) {
          for (const agree::Access& a : agree::accesses(program, access))
            if (a.buffer == numbered[n].buffer) id = numbered_so_far + n + 1;
        }
      const bool in_host_function = program.commands()[access].kind == CommandKind::HostFunc;
      nlohmann::json names = nlohmann::json::array();
      for (cf::Deviation d : relies) names.push_back(cf::deviation_info(d).name);
      findings.push_back({{"program", k},
                          {"access", access},
                          {"copy", copy},
                          {"copy_id", id},
                          {"offset", access},
                          {"relies_on", names},
                          {"timing_dependent", agree::a_started_host_function_may_order(program, pair)},
                          {"in_host_function", in_host_function},
                          // A host function runs when its stream reaches it: a later access may come first.
                          {"or_offsets", in_host_function ? agree::later_racing_accesses(program, pair)
                                                          : std::vector<cf::CommandIndex>{}}});
    }
    for (const agree::Pair& race : agree::host_function_races_with_later_copies(program)) {
      const auto [access, copy] = race;
      for (std::size_t n = 0; n < numbered.size(); ++n) {
        if (numbered[n].command != copy) continue;
        findings.push_back({{"program", k},
                            {"access", access},
                            {"copy", copy},
                            {"copy_id", numbered_so_far + n + 1},
                            {"offset", access},
                            {"relies_on", nlohmann::json::array()},
                            {"timing_dependent", true},
                            {"in_host_function", true},
                            {"or_offsets", agree::later_racing_accesses(program, race)}});
      }
    }
    numbered_so_far += numbered.size();
  }
  for (void* buffer : kept) CHECK(cudaFree(buffer));
  std::ofstream out(expect);
  out << nlohmann::json{{"programs", programs}, {"seed", seed}, {"copies", copies}, {"expected", findings},
                        {"device", device}}.dump()
      << '\n';
  if (!out.flush()) {
    std::fprintf(stderr, "check-agreement: could not write %s: %s\n", expect, std::strerror(errno));
    return 1;
  }
  std::printf("check-agreement: %llu programs run, %zu copy ends numbered, %zu findings predicted, %zu device races\n",
              programs, copies.size(), findings.size(), device["races"].size());
  return 0;
}
