// Generated programs of streams, events, copies, memsets, kernels and host functions, run on the GPU
// with gates held and released at generated points: nothing may be seen that CUDA's rules forbid.
#include "conformance_gpu/cases/conformance_run.hpp"
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

Hazard stream_ordering_conformance() {
  Variant generated = measurement("generated-programs", "random programs checked against the happens-before model",
                                  conformance::run_conformance);
  // Judged like a documented rule: the documented model, with the deviations GPUs were seen to take
  // (conformance/README.md), must explain everything the GPU did.
  generated.kind = VariantKind::Rule;
  generated.labels = {"conformance"};
  return Hazard{
      "stream-ordering-conformance",
      "The GPU orders streams, events, copies and host calls as CUDA documents",
      {{"CUDA Runtime API", "API synchronization behavior",
        "which copies and memsets return before their work is done, and which wait"},
       {"CUDA Runtime API", "Stream synchronization behavior",
        "the legacy stream orders blocking streams; non-blocking streams are exempt"},
       {"CUDA Runtime API", "cudaEventRecord, cudaStreamWaitEvent, cudaLaunchHostFunc",
        "events capture prior work; a wait follows the latest record; host functions run in stream order"},
       {"CUDA C++ Programming Guide", "Asynchronous Concurrent Execution: Streams",
        "work on one stream runs in issue order"}},
      {},
      "A happens-before model of ten documented rules says, for every read of a generated program, which writes it "
      "may observe. The program runs on the GPU with every write storing its own tag, gates holding streams closed "
      "so that races take their unlikely side, and drains that wait for everything not held back. Any tag the model "
      "forbids, or a call that waits where the model says it returns (or the reverse), is a disagreement, shrunk "
      "to the smallest program and printed as CUDA C++. Each rule is also removed in turn: the GPU must refute "
      "that weaker model, or the run says why it cannot. Two behaviours GPUs were seen to show where the documentation "
      "promises more (small pinned uploads and event records skipping the legacy stream's implicit "
      "synchronization) are accepted as such and counted, never silently.",
      {generated}};
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::stream_ordering_conformance)
