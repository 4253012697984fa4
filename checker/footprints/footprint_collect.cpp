// Reading footprints back: the records of launches the host knows have run, one copy per arena on the recorder's
// own non-blocking stream (no order between the program's streams is added), turned into ranges per allocation.
// An arena whose records have all been read is zeroed and used again.
#include <cuda.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "checker/footprints/footprint_record.hpp"
#include "checker/footprints/footprint_recorder.hpp"

namespace hazardlab::check::footprints {

namespace {

// A record's hulls as ranges; false when it could not say every byte.
bool ranges_of(const LaunchRecord& r, std::vector<hl_footprint_range>& out) {
  out.clear();
  for (const Slot& s : r.slots) {
    if (s.allocation == 0) continue;
    if (s.read.end != 0) out.push_back({~s.read.least_inverted, s.read.end, 0});
    if (s.write.end != 0) out.push_back({~s.write.least_inverted, s.write.end, 1});
  }
  return r.outside_every_allocation == 0 && r.more_allocations_than_slots == 0;
}

}  // namespace

void Recorder::recycle(CUcontext context, Context& c, std::size_t arena) {
  Arena& a = c.arenas[arena];
  if (a.unread != 0 || a.next == a.base + kArenaHeaderBytes) return;
  Sanitizer_StreamHandle stream{};
  if (!SAN(sanitizerGetStreamHandle(context, c.readback, &stream)) ||
      !SAN(sanitizerMemset(reinterpret_cast<void*>(a.base + kArenaHeaderBytes), 0,
                           a.next - a.base - kArenaHeaderBytes, stream)) ||
      !SAN(sanitizerStreamSynchronize(stream)))
    return;
  a.next = a.base + kArenaHeaderBytes;
}

void Recorder::collect(std::span<const std::uint64_t> tickets, hl_footprints_each_fn each, void* user) {
  std::lock_guard lock(mutex_);
  std::map<std::pair<CUcontext, std::size_t>, std::vector<std::uint64_t>> by_arena;
  for (std::uint64_t t : tickets) {
    auto it = tickets_.find(t);
    if (it == tickets_.end() || failed_) {
      each(user, t, nullptr, 0, 0);
      continue;
    }
    by_arena[{it->second.context, it->second.arena}].push_back(t);
  }
  std::vector<unsigned char> copy;
  std::vector<hl_footprint_range> ranges;
  for (auto& [where, group] : by_arena) {
    const auto [context, arena] = where;
    Context& c = contexts_[context];
    if (c.readback == nullptr) {
      CUcontext previous = nullptr;
      const bool made = cuCtxPushCurrent(context) == CUDA_SUCCESS &&
                        cuStreamCreate(&c.readback, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS;
      cuCtxPopCurrent(&previous);
      if (!made) c.readback = nullptr;
    }
    std::uint64_t low = UINT64_MAX, high = 0;
    for (std::uint64_t t : group) {
      low = std::min(low, tickets_[t].record);
      high = std::max(high, tickets_[t].record + kRecordBytes);
    }
    Sanitizer_StreamHandle stream{};
    copy.resize(high - low);
    const bool read = c.readback != nullptr && SAN(sanitizerGetStreamHandle(context, c.readback, &stream)) &&
                      SAN(sanitizerMemcpyDeviceToHost(copy.data(), reinterpret_cast<void*>(low), high - low, stream));
    for (std::uint64_t t : group) {
      LaunchRecord r{};
      if (read) std::memcpy(&r, copy.data() + (tickets_[t].record - low), sizeof r);
      const bool complete = read && ranges_of(r, ranges);
      each(user, t, read ? ranges.data() : nullptr, read ? ranges.size() : 0, complete ? 1 : 0);
      --c.arenas[arena].unread;
      tickets_.erase(t);
    }
    if (read) recycle(context, c, arena);
  }
}

}  // namespace hazardlab::check::footprints
