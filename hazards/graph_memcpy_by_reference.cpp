// Hazard: a memcpy node in a CUDA graph stores the host pointer, not the bytes. Rewriting the
// host buffer after cudaGraphLaunch, before the graph ran, changes what is copied.
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

// A graph holding one host-to-device copy, captured from a stream.
class CopyGraph {
 public:
  CopyGraph(std::byte* device, const std::byte* host, std::size_t bytes, cudaStream_t stream) {
    cudaGraph_t graph = nullptr;
    HL_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    HL_CUDA(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
    HL_CUDA(cudaStreamEndCapture(stream, &graph));
    const cudaError_t rc = cudaGraphInstantiate(&exec_, graph, 0);
    HL_CUDA_WARN(cudaGraphDestroy(graph));
    HL_CUDA(rc);
  }
  ~CopyGraph() { HL_CUDA_WARN(cudaGraphExecDestroy(exec_)); }
  CopyGraph(const CopyGraph&) = delete;
  CopyGraph& operator=(const CopyGraph&) = delete;
  void launch(cudaStream_t stream) { HL_CUDA(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

TrialObservation mutate_after_graph_launch(Rig& rig, const TrialCase& c, FenceKind fence, const TrialSettings& s) {
  Stream stream(c.stream);  // capture is not allowed on the legacy stream
  const std::span<std::byte> source = rig.host_region(c);
  std::byte* destination = rig.device().data();
  CopyGraph graph(destination, source.data(), c.bytes, stream.get());
  fill_pattern(source, c.pattern, PatternVersion::Original);
  enqueue_device_fill(destination, c.bytes, c.pattern, PatternVersion::Sentinel, stream.get());
  HL_CUDA(cudaStreamSynchronize(stream.get()));

  TrialObservation obs;
  {
    HeldStream held(c.hold(s), stream.get(), fence);
    obs.call_blocked = held.issue([&] { graph.launch(stream.get()); });
    s.guard().fence(fence, stream.get());
    fill_pattern(source, c.pattern, PatternVersion::Mutated);  // the damage: the next batch
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }
  obs.seen = rig.census_of_device(destination, c);
  obs.hazard_visible = obs.seen.mutated > 0;
  obs.data_correct = obs.seen.all_original();
  return obs;
}

// The intended use: each synchronized launch copies what the buffer holds at that launch.
TrialObservation relaunch_copies_current_contents(Rig& rig, const TrialCase& c, const TrialSettings&) {
  Stream stream(c.stream);
  const std::span<std::byte> source = rig.host_region(c);
  std::byte* destination = rig.device().data();
  CopyGraph graph(destination, source.data(), c.bytes, stream.get());
  TrialObservation obs;

  fill_pattern(source, c.pattern, PatternVersion::Original);
  graph.launch(stream.get());
  HL_CUDA(cudaStreamSynchronize(stream.get()));
  const ByteCensus first = rig.census_of_device(destination, c);

  fill_pattern(source, c.pattern, PatternVersion::Mutated);
  graph.launch(stream.get());
  HL_CUDA(cudaStreamSynchronize(stream.get()));
  const ByteCensus second = rig.census_of_device(destination, c);

  obs.seen = first;
  obs.detail = "second launch: " + second.describe();
  obs.data_correct = first.all_original() && second.mutated == second.total();
  obs.hazard_visible = !obs.data_correct;
  return obs;
}

Hazard graph_memcpy_by_reference() {
  CaseSpace space;
  space.streams = {StreamKind::Blocking, StreamKind::NonBlocking};
  space.host_kinds = {HostMemoryKind::Pinned, HostMemoryKind::Mapped};
  const auto with = [](FenceKind fence) -> TrialFn {
    return [fence](Rig& rig, const TrialCase& c, const TrialSettings& s) {
      return mutate_after_graph_launch(rig, c, fence, s);
    };
  };
  return Hazard{
      .id = "graph-memcpy-by-reference",
      .title = "A CUDA graph's memcpy node copies whatever the host buffer holds when the graph runs",
      .rules = {{"CUDA Runtime API reference", "cudaGraphAddMemcpyNode",
                 "The node records the copy's parameters, including the host pointer; the copy is performed "
                 "when the graph is launched and reaches the node."},
                {"CUDA Programming Guide", "CUDA Graphs",
                 "Launching a graph enqueues its work in a stream, asynchronously to the host, like any other "
                 "stream work."}},
      .requirements = {},
      .explanation =
          "Capturing cudaMemcpyAsync into a graph does not snapshot the data: the memcpy node keeps the "
          "pointer, and each cudaGraphLaunch copies what the buffer holds when the node executes. That is "
          "the point of graphs (refill the buffer, launch again), and also a trap: cudaGraphLaunch returns "
          "before the copy ran, so refilling right after launching sends the new data. The positive "
          "control holds the stream closed, launches, refills the pinned buffer and lets the graph run: "
          "the device gets the refill. The guard synchronizes before refilling. The rule variant shows the "
          "intended use: between synchronized launches the node copies the current contents each time.",
      .variants = {make_variant(VariantKind::Control, "unsafe-mutate-after-launch",
                                "rewrite the host buffer right after cudaGraphLaunch returns", space,
                                with(FenceKind::None)),
                   make_variant(VariantKind::Guard, "stream-synchronize",
                                "cudaStreamSynchronize after cudaGraphLaunch, before rewriting the buffer", space,
                                with(FenceKind::StreamSynchronize)),
                   make_variant(VariantKind::Rule, "relaunch-copies-current-contents",
                                "refill, launch, synchronize, twice: each launch copies the current contents", space,
                                relaunch_copies_current_contents)},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::graph_memcpy_by_reference)
