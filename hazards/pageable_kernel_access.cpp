// Hazard: on systems where the GPU can dereference pageable memory (HMM or ATS), a kernel can read
// a malloc'd buffer directly. The launch copies nothing: the kernel reads the bytes when it runs.
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

Hazard pageable_kernel_access() {
  CaseSpace space;
  space.host_kinds = {HostMemoryKind::Pageable};
  const Scenario scenario = mutate_source_after_h2d(CopyCall::Kernel);
  return Hazard{
      .id = "pageable-kernel-access",
      .title = "A kernel reading pageable host memory sees what the buffer holds when it runs",
      .rules = {{"CUDA Programming Guide", "Unified and System Memory",
                 "On devices with pageableMemoryAccess, kernels may access pageable host memory directly "
                 "through the same pointer; nothing is copied at launch."}},
      .requirements = {{"pageableMemoryAccess = 1",
                        [](const DeviceFingerprint& d) {
                          return d.pageable_memory_access
                                     ? std::string()
                                     : std::string(
                                           "the device reports pageableMemoryAccess = 0: kernels cannot "
                                           "dereference pageable memory here (it would be an illegal "
                                           "address)");
                        }}},
      .explanation =
          "With heterogeneous memory management or address translation services, a kernel can take a "
          "malloc'd pointer and read it. That feels like passing the data, but the launch captures only "
          "the pointer: the kernel reads host memory when its threads run, which may be long after the "
          "launch returned. The positive control holds the stream closed, launches a kernel that reads the "
          "buffer, rewrites the buffer, and opens the stream: the kernel reads the new bytes. The guard "
          "synchronizes before the host writes. On GPUs without pageableMemoryAccess the hazard does not "
          "apply (the access would fault) and is reported as not applicable.",
      .variants = {make_variant(VariantKind::Control, "unsafe-mutate-after-launch",
                                "rewrite the pageable buffer right after launching the kernel that reads it", space,
                                scenario(FenceKind::None)),
                   guard(FenceKind::StreamSynchronize, space, scenario)},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::pageable_kernel_access)
