// Hazard: malloc'd memory registered with cudaHostRegister behaves like pinned memory, so the
// "rewrite the source after an async copy" hazard, harmless for pageable memory, comes back.
#include <cstring>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

constexpr std::size_t kPage = 4096;
constexpr std::uint32_t kPages = 8;
const Parameter kRegisteredPages{"registered-pages", 1, kPages - 1,
                                 "how many of the buffer's pages are registered; the copy starts before the "
                                 "boundary and ends after it"};

// One copy that starts in the registered first part of a buffer and runs on into the part that
// is not registered. The split page comes from kRegisteredPages, the two overhangs from size and offset.
TrialObservation copy_across_registration(Rig& rig, const TrialCase& c, const TrialSettings&) {
  HostBuffer buffer(HostMemoryKind::Pageable, kPages * kPage);
  const std::size_t split = c.params[kRegisteredPages] * kPage;
  const std::size_t before = 1 + c.host_offset % split;
  const std::size_t after = 1 + c.bytes % (buffer.size() - split);
  TrialObservation obs;
  cudaError_t rc;
  {
    HostRegistration registered(buffer.data(), split);
    Stream stream(c.stream);
    rc = cudaMemcpyAsync(rig.device().data(), buffer.data() + split - before, before + after, cudaMemcpyHostToDevice,
                         stream.get());
    (void)cudaGetLastError();
    HL_CUDA(cudaStreamSynchronize(stream.get()));
  }
  obs.detail = std::string("cudaMemcpyAsync over bytes [") + std::to_string(split - before) + ", " +
               std::to_string(split + after) + ") with [0, " + std::to_string(split) + ") registered returned " +
               cudaGetErrorName(rc);
  obs.data_correct = rc == cudaErrorInvalidValue;
  obs.hazard_visible = rc == cudaSuccess;
  obs.seen.original = obs.data_correct ? 1 : 0;
  return obs;
}

Hazard registered_h2d_mutate() {
  CaseSpace space;
  space.host_kinds = {HostMemoryKind::Registered};
  const Scenario scenario = mutate_source_after_h2d(CopyCall::MemcpyAsync);
  CaseSpace span;
  span.host_kinds = {HostMemoryKind::Pageable};
  span.parameters = {kRegisteredPages};

  return Hazard{
      .id = "registered-h2d-mutate",
      .title = "Registered (cudaHostRegister) source rewritten before an async host-to-device copy ran",
      .rules = {{"CUDA Runtime API reference", "cudaHostRegister",
                 "Registers an existing host range with the same tracking as cudaHostAlloc: it becomes "
                 "page-locked, and copies from it are treated like copies from pinned memory."},
                runtime_api_sync_behavior(
                    "Between device memory and pinned host memory, cudaMemcpyAsync is fully asynchronous.")},
      .requirements = {requires_host_register()},
      .explanation =
          "Registering malloc'd memory is a way to get pinned-memory copy speed without reallocating. It "
          "also changes the contract: copies from a pageable buffer are staged before the call returns, "
          "so the buffer may be reused at once, but a registered buffer is read by the copy engine when "
          "the copy runs. Code that was safe before registration becomes the pinned-memory hazard: the "
          "positive control rewrites the registered source while the copy is held back and the device "
          "receives the new data. The guards wait for the copy as for any pinned buffer. A single copy "
          "may not span registered and unregistered memory: the rule variant checks that such a copy is "
          "refused with cudaErrorInvalidValue wherever the boundary falls.",
      .variants = {make_variant(VariantKind::Control, "unsafe-mutate-after-call",
                                "rewrite the registered source right after cudaMemcpyAsync returns", space,
                                scenario(FenceKind::None)),
                   guard(FenceKind::StreamSynchronize, space, scenario),
                   guard(FenceKind::EventSynchronize, space, scenario),
                   make_variant(VariantKind::Rule, "copy-spanning-registration-is-refused",
                                "a copy from registered into unregistered memory returns cudaErrorInvalidValue", span,
                                copy_across_registration)},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::registered_h2d_mutate)
