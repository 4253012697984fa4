// Memsets on a stream, decoded into MemsetEnqueued and taken at the call's exit when it succeeded: device work
// that writes its bytes, or, for a memset of pinned host memory, a copy's hold on them.
#include <vector>

#include "checker/inject/call.hpp"
#include "checker/inject/events.hpp"
#include "checker/inject/handlers.hpp"
#include "checker/inject/reporting.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

// The element's size of cuMemsetD8, D16 or D32 (and their 2D forms), by the call's name.
std::size_t element_of(std::string_view name, std::string_view stem) {
  name.remove_prefix(stem.size());
  return name.starts_with("8") ? 1 : name.starts_with("16") ? 2 : 4;
}

void take(const MemsetEnqueued& memset) {
  Session& in = session();
  if (memset.shape == MemsetShape::Linear && in.checker.pinned_kind(memset.base)) {
    // A memset of pinned host memory writes it on the stream, as a copy to it would.
    inject::take(CopyEnqueued{"cuMemsetAsync", memset.handle, memset.stream, {MemoryKind::Device, {}},
                              {MemoryKind::PinnedHost, HostFootprint::linear(memset.base, memset.width)},
                              memset.width});
    return;
  }
  std::vector<DeviceRange> ranges;
  if (!capturing(memset.handle)) {
    if (memset.shape == MemsetShape::Linear)
      add_range(memset.base, memset.width, DeviceAccessKind::Write, ranges);
    else
      add_copy_end_ranges(CopyEndShape{CU_MEMORYTYPE_DEVICE, memset.base, 0, 0, 0, memset.pitch, memset.rows,
                                       memset.width, memset.rows, 1},
                          DeviceAccessKind::Write, ranges);
  }
  in.checker.device_work(memset.stream, DeviceWorkItem{memset.api, DeviceWorkKind::Memset, std::move(ranges)},
                         [] { return capture_site(); });
  write_races();
}

}  // namespace

void memset_async(const Call& c) {
  // D8, D16 and D32: the same first three fields.
  const auto& p = PARAMS(cuMemsetD8Async);
  const std::size_t bytes = p.N * element_of(c.name(), "cuMemsetD");
  take(MemsetEnqueued{"cuMemsetAsync", p.hStream, c.stream(p.hStream), MemsetShape::Linear, p.dstDevice, bytes,
                      bytes, 1});
}
void memset_2d_async(const Call& c) {
  // D2D8, D2D16 and D2D32: the same fields but the value's type, which comes after the pitch.
  const auto& p = PARAMS(cuMemsetD2D8Async);
  take(MemsetEnqueued{"cuMemset2DAsync", p.hStream, c.stream(p.hStream), MemsetShape::Pitched, p.dstDevice,
                      p.Width * element_of(c.name(), "cuMemsetD2D"), p.dstPitch, p.Height});
}

}  // namespace hazardlab::check::inject
