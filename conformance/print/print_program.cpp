#include "conformance/print/print_program.hpp"

#include <set>
#include <sstream>
#include <string>

#include "conformance/schedule/predict.hpp"

namespace hazardlab::conformance {
namespace {

constexpr const char* kPrologue = R"(// A conformance program, printed by hazardlab. Build: nvcc -o replay replay.cu
// Every write stores its own tag in every word; each read prints the tags it saw.
#include <cuda_runtime.h>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <thread>
#define CHECK(call) do { cudaError_t status_ = (call); if (status_ != cudaSuccess) { std::printf("%s: %s\n", #call, cudaGetErrorString(status_)); std::exit(1); } } while (0)
constexpr size_t kWords = KWORDS, kBytes = kWords * 4;
__global__ void fill(uint32_t* p, uint32_t tag) { for (size_t i = threadIdx.x; i < kWords; i += blockDim.x) p[i] = tag; }
__global__ void kernel_op(const uint32_t* in, uint32_t* seen, uint32_t* out, uint32_t tag) {
  for (size_t i = threadIdx.x; i < kWords; i += blockDim.x) { if (in) seen[i] = in[i]; if (out) out[i] = tag; }
}
__global__ void spin_gate(volatile int* open) { while (!*open) {} }
struct HostOp { uint32_t* in; uint32_t* seen; uint32_t* out; uint32_t tag; };
void host_op(void* p) { auto* o = static_cast<HostOp*>(p); for (size_t i = 0; i < kWords; ++i) { if (o->in) o->seen[i] = o->in[i]; if (o->out) o->out[i] = o->tag; } }
void host_gate(void* p) { while (!static_cast<std::atomic<int>*>(p)->load()) std::this_thread::yield(); }
void print_tags(const char* what, const uint32_t* p) { std::set<uint32_t> t(p, p + kWords); std::printf("%s:", what); for (uint32_t v : t) std::printf(" %08x", v); std::printf("\n"); }
int main() {
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  static uint32_t seen[64][kWords];
  std::atomic<int>* host_gates = new std::atomic<int>[8]();
  int* spin_flags; CHECK(cudaHostAlloc(&spin_flags, 8 * sizeof(int), cudaHostAllocMapped));
  int* spin_flags_dev; CHECK(cudaHostGetDevicePointer(&spin_flags_dev, spin_flags, 0));
  for (int i = 0; i < 8; ++i) spin_flags[i] = 0;
  auto open_gate = [&](int g) { host_gates[g] = 1; reinterpret_cast<volatile int*>(spin_flags)[g] = 1; };
  // The host reads a device buffer on its own non-blocking stream: ordered after nothing, like the model's read.
  cudaStream_t reader; CHECK(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
  uint32_t* read_back; CHECK(cudaMallocHost(&read_back, kBytes));
)";

// The commands after which the program records a `done` event on the stream: the runner's (predict.hpp).
bool is_stream_work(CommandKind kind) {
  return kind == CommandKind::MemcpyAsync || kind == CommandKind::MemsetAsync || kind == CommandKind::Kernel ||
         kind == CommandKind::HostFunc || kind == CommandKind::GateClose || kind == CommandKind::Memcpy;
}

std::string tag_of(CommandIndex k) {
  return "0x" + [&] {
    std::ostringstream o;
    o << std::hex << (0xB0000000U | k);
    return o.str();
  }();
}

}  // namespace

std::string to_cuda_source(const Program& program) {
  std::ostringstream out;
  // The buffers' size is the model's (program.hpp), written where the prologue says KWORDS.
  std::string prologue = kPrologue;
  prologue.replace(prologue.find("KWORDS"), 6, std::to_string(kBufferBytes / 4));
  out << prologue;
  for (StreamId s = 1; s < program.stream_count(); ++s)
    out << "  cudaStream_t s" << s << "; CHECK(cudaStreamCreateWithFlags(&s" << s << ", "
        << (program.stream_kind(s) == StreamKind::Blocking ? "cudaStreamDefault" : "cudaStreamNonBlocking") << "));\n";
  out << "  cudaStream_t s0 = cudaStreamLegacy;\n";
  out << "  cudaEvent_t e[" << program.event_count() << "], done[" << program.commands().size() << "];\n";
  out << "  for (auto& ev : e) CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));\n";
  out << "  for (auto& ev : done) CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));\n";
  for (BufferId b = 0; b < program.buffer_count(); ++b) {
    const std::string& n = program.buffer_name(b);
    const std::string init = "0xA0000" + std::to_string(800 + b);
    switch (program.buffer_kind(b)) {
      case BufferKind::HostPinned:
        out << "  uint32_t* " << n << "; CHECK(cudaMallocHost(&" << n << ", kBytes)); std::fill(" << n << ", " << n
            << " + kWords, " << init << "u);\n";
        break;
      case BufferKind::HostPageable:
        out << "  uint32_t* " << n << " = static_cast<uint32_t*>(std::malloc(kBytes)); std::fill(" << n << ", " << n
            << " + kWords, " << init << "u);\n";
        break;
      case BufferKind::Device:
        out << "  uint32_t* " << n << "; CHECK(cudaMalloc(&" << n << ", kBytes)); fill<<<1, 256>>>(" << n << ", "
            << init << "u);\n";
        break;
    }
  }
  out << "  CHECK(cudaDeviceSynchronize());\n";
  auto buf = [&](const std::vector<BufferId>& v) {
    return v.empty() ? std::string("nullptr") : program.buffer_name(v[0]);
  };
  std::set<GateId> closed;  // the gates closed at the current command
  for (CommandIndex k = 0; k < program.commands().size(); ++k) {
    const Command& c = program.commands()[k];
    const std::string s = "s" + std::to_string(c.stream), tag = tag_of(k), ev = "e[" + std::to_string(c.event) + "]";
    out << "  // #" << k << " " << to_string(c.kind) << "\n";
    if (c.watchdog_opened) {
      // Opens the gates closed now, as the runner's watchdog does; a gate closed later starts closed.
      out << "  std::thread watchdog" << k << "([&] { std::this_thread::sleep_for(std::chrono::milliseconds(10));";
      for (GateId g : closed) out << " open_gate(" << g << ");";
      out << " });  // the call below waits for a closed gate\n";
    }
    switch (c.kind) {
      case CommandKind::HostWrite:
        out << "  std::fill(" << buf(c.writes) << ", " << buf(c.writes) << " + kWords, " << tag << "u);\n";
        break;
      case CommandKind::HostRead:
        if (is_host_buffer(program.buffer_kind(c.reads[0])))
          out << "  print_tags(\"#" << k << " reads " << buf(c.reads) << "\", " << buf(c.reads) << ");\n";
        else
          out << "  CHECK(cudaMemcpyAsync(read_back, " << buf(c.reads)
              << ", kBytes, cudaMemcpyDefault, reader)); CHECK(cudaStreamSynchronize(reader)); print_tags(\"#" << k
              << " reads " << buf(c.reads) << "\", read_back);\n";
        break;
      case CommandKind::MemcpyAsync:
        out << "  CHECK(cudaMemcpyAsync(" << buf(c.writes) << ", " << buf(c.reads) << ", kBytes, cudaMemcpyDefault, "
            << s << "));\n";
        break;
      case CommandKind::Memcpy:
        out << "  CHECK(cudaMemcpy(" << buf(c.writes) << ", " << buf(c.reads) << ", kBytes, cudaMemcpyDefault));\n";
        break;
      case CommandKind::MemsetAsync:
        out << "  CHECK(cudaMemsetAsync(" << buf(c.writes) << ", 0x" << std::hex << (0x10 + k) << std::dec
            << ", kBytes, " << s << "));\n";
        break;
      case CommandKind::Kernel:
        out << "  uint32_t* seen_d" << k << "; CHECK(cudaMalloc(&seen_d" << k
            << ", kBytes));\n  kernel_op<<<1, 256, 0, " << s << ">>>(" << buf(c.reads) << ", seen_d" << k << ", "
            << buf(c.writes) << ", " << tag << "u);\n";
        break;
      case CommandKind::HostFunc:
        out << "  static HostOp op" << k << "{" << buf(c.reads) << ", seen[" << k << "], " << buf(c.writes) << ", "
            << tag << "u};\n  CHECK(cudaLaunchHostFunc(" << s << ", host_op, &op" << k << "));\n";
        break;
      case CommandKind::EventRecord:
        out << "  CHECK(cudaEventRecord(" << ev << ", " << s << "));\n";
        break;
      case CommandKind::StreamWaitEvent:
        out << "  CHECK(cudaStreamWaitEvent(" << s << ", " << ev << ", 0));\n";
        break;
      case CommandKind::EventSynchronize:
        out << "  CHECK(cudaEventSynchronize(" << ev << "));\n";
        break;
      case CommandKind::StreamSynchronize:
        out << "  CHECK(cudaStreamSynchronize(" << s << "));\n";
        break;
      case CommandKind::DeviceSynchronize:
        out << "  CHECK(cudaDeviceSynchronize());\n";
        break;
      case CommandKind::EventQuery:
        out << "  std::printf(\"#" << k << " query: %s\\n\", cudaGetErrorName(cudaEventQuery(" << ev
            << ")));  // the run saw " << (c.observed_complete ? "cudaSuccess" : "cudaErrorNotReady") << "\n";
        break;
      case CommandKind::StreamQuery:
        out << "  std::printf(\"#" << k << " stream query: %s\\n\", cudaGetErrorName(cudaStreamQuery(" << s
            << ")));  // the run saw " << (c.observed_complete ? "cudaSuccess" : "cudaErrorNotReady") << "\n";
        break;
      case CommandKind::GateClose:
        if (c.gate_style == GateStyle::HostFunction)
          out << "  CHECK(cudaLaunchHostFunc(" << s << ", host_gate, &host_gates[" << c.gate << "]));\n";
        else
          out << "  spin_gate<<<1, 1, 0, " << s << ">>>(spin_flags_dev + " << c.gate << ");\n";
        break;
      case CommandKind::GateOpen:
        // Prints the stream work finished while the gate was still closed (the runner checks it).
        out << "  std::printf(\"#" << k << " finished before the gate opened:\");";
        for (CommandIndex j = 0; j < k; ++j)
          if (is_stream_work(program.commands()[j].kind))
            out << " if (cudaEventQuery(done[" << j << "]) == cudaSuccess) std::printf(\" #" << j << "\");";
        out << " std::printf(\"\\n\");\n  open_gate(" << c.gate << ");\n";
        break;
      case CommandKind::Drain:
        out << "  // wait for the work the rules do not hold behind a closed gate\n";
        for (CommandIndex j : drain_waits_for(program.prefix(k + 1)))
          out << "  CHECK(cudaEventSynchronize(done[" << j << "]));\n";
        break;
    }
    if (is_stream_work(c.kind))
      out << "  CHECK(cudaEventRecord(done[" << k << "], " << (c.kind == CommandKind::Memcpy ? std::string("s0") : s)
          << "));\n";
    if (c.kind == CommandKind::GateClose) closed.insert(c.gate);
    if (c.kind == CommandKind::GateOpen) closed.erase(c.gate);
    if (c.watchdog_opened) {
      out << "  watchdog" << k << ".join();\n";
      closed.clear();
    }
  }
  out << "  return 0;\n}\n";
  return out.str();
}

}  // namespace hazardlab::conformance
