#include "checker/core/checker.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace hazardlab::check {

using conformance::Deviation;
using conformance::kDeviationCount;

namespace {
constexpr std::size_t kDocumented = 0;
constexpr std::size_t kAllDeviations = kDeviationCount + 1;
}  // namespace

Checker::Checker(PageProtector& protector) : protector_(protector) {
  engines_.emplace_back(RuleSet::all());
  for (std::size_t d = 0; d < kDeviationCount; ++d) engines_.emplace_back(RuleSet::all().with(Deviation(d)));
  engines_.emplace_back(RuleSet::all().with_seen_deviations());
}

void Checker::before_step(const conformance::StreamWorkFacts& facts) {
  if (live_engines_ == engines_.size()) return;
  const bool documented = conformance::skips_implicit_sync(engines_[0].rules(), facts);
  for (std::size_t e = 1; e < engines_.size(); ++e) {
    if (conformance::skips_implicit_sync(engines_[e].rules(), facts) == documented) continue;
    for (std::size_t other = 1; other < engines_.size(); ++other) engines_[other].take_state_of(engines_[0]);
    live_engines_ = engines_.size();
    return;
  }
}

StreamSlot Checker::slot_of(StreamKey stream) {
  if (auto it = streams_.find(stream); it != streams_.end()) return it->second;
  // Handle 0 is the context's legacy stream. A stream the checker did not see created is taken as blocking:
  // the injected library asks the driver for its flags first, so this is only the fallback.
  const StreamKind kind = stream.handle == 0 ? StreamKind::Legacy : StreamKind::Blocking;
  const StreamSlot slot = engines_[0].stream_count();
  for (OrderEngine& e : live_engines()) e.add_stream(slot, kind, stream.context);
  streams_[stream] = slot;
  stream_of_slot_.push_back(stream);
  return slot;
}

EventSlot Checker::event_slot(std::uint64_t event) {
  if (auto it = events_.find(event); it != events_.end()) return it->second;
  const EventSlot slot = next_event_slot_++;
  events_[event] = slot;
  return slot;
}

void Checker::stream_created(StreamKey stream, StreamKind kind) {
  std::lock_guard lock(mutex_);
  // A handle can be reused after cuStreamDestroy: a new stream gets a new slot.
  const StreamSlot slot = engines_[0].stream_count();
  for (OrderEngine& e : live_engines()) e.add_stream(slot, kind, stream.context);
  streams_[stream] = slot;
  stream_of_slot_.push_back(stream);
}

void Checker::stream_destroyed(StreamKey stream) {
  std::lock_guard lock(mutex_);
  streams_.erase(stream);
}

void Checker::event_created(std::uint64_t event) {
  std::lock_guard lock(mutex_);
  events_[event] = next_event_slot_++;
}

void Checker::pinned_allocated(std::uintptr_t base, std::size_t bytes, PinnedKind kind) {
  std::lock_guard lock(mutex_);
  allocations_.pinned(base, bytes, kind);
  protector_.pinned(base, base + bytes);
}

std::optional<PinnedKind> Checker::pinned_kind(std::uintptr_t address) const {
  return allocations_.pinned_kind(address);
}

void Checker::hold(const Owned& owned) {
  const std::uintptr_t begin = owned.footprint.base, end = owned.footprint.end();
  protector_.held(begin, end, owned.hold, holds_.add(begin, end, owned.hold));
}

void Checker::disarm(Owned& owned) {
  if (!owned.armed) return;
  owned.armed = false;
  const std::uintptr_t begin = owned.footprint.base, end = owned.footprint.end();
  protector_.let_go(begin, end, owned.hold, holds_.remove(begin, end, owned.hold));
}

void Checker::set_every_occurrence(bool on) {
  std::lock_guard lock(mutex_);
  every_occurrence_ = on;
  device_.set_every_occurrence(on);
}

void Checker::set_sampling(Sampling sampling) {
  std::lock_guard lock(mutex_);
  sampling_ = sampling;
}

std::string_view Checker::api_name(std::string_view api) {
  auto it = api_names_.find(api);
  if (it == api_names_.end()) it = api_names_.emplace(api).first;
  return *it;
}

bool Checker::sampled_in(const HostFootprint& footprint, Hold hold) {
  if (!sampling_.on()) return true;
  const std::uint64_t n = copies_of_range_[{footprint.base, footprint.bytes(), hold}]++;
  return n < sampling_.first || (n - sampling_.first) % sampling_.every == sampling_.every - 1;
}

void Checker::hold_for_kernel(const KernelHold& hold, const SiteOf& site) {
  const CopyEnd host{MemoryKind::PinnedHost, hold.host}, device{MemoryKind::Device, {}};
  const bool reads = hold.use == KernelUse::Reads;
  const std::optional<PinnedKind> memory =
      hold.memory == KernelHeldMemory::Managed ? std::optional(PinnedKind::Managed) : std::nullopt;
  own(AsyncCopy{"cuLaunchKernel", hold.stream, reads ? host : device, reads ? device : host, hold.host.bytes()}, site,
      hold.kernel, memory);
}

template <class Which>
void Checker::let_go_holds(Which which) {
  for (Owned& o : owned_)
    if (which(o)) disarm(o);
  owned_.erase(std::remove_if(owned_.begin(), owned_.end(), which), owned_.end());
}

void Checker::queued_behind_managed_holds(std::uintptr_t begin, std::uintptr_t end, QueuedBehindKernel queued) {
  std::lock_guard lock(mutex_);
  for (Owned& o : owned_)
    if (o.armed && o.facts.memory == PinnedKind::Managed && o.footprint.base < end && o.footprint.end() > begin)
      o.facts.queued_behind = queued;
}

void Checker::let_go_managed_holds() {
  std::lock_guard lock(mutex_);
  let_go_holds([](const Owned& o) { return o.facts.memory == PinnedKind::Managed; });
}

void Checker::holds_freed(std::uintptr_t begin, std::uintptr_t end) {
  std::lock_guard lock(mutex_);
  let_go_holds([&](const Owned& o) { return o.footprint.base < end && o.footprint.end() > begin; });
}

void Checker::own(const AsyncCopy& copy, const SiteOf& site_of_copy, std::string_view kernel,
                  std::optional<PinnedKind> memory) {
  std::lock_guard lock(mutex_);
  const StreamSlot slot = slot_of(copy.stream);
  const StreamKind kind = engines_[0].stream_kind(slot);
  // A kernel's hold on pinned memory it reads is no upload: the deviation measured on small pinned uploads is not
  // its rule.
  const bool pinned_upload =
      copy.src.kind == MemoryKind::PinnedHost && copy.dst.kind == MemoryKind::Device && kernel.empty();
  const StreamWorkFacts facts{.stream = kind, .pinned_upload = pinned_upload, .bytes = copy.bytes};
  before_step(facts);
  const WorkStamp stamp = on_every_engine([&](OrderEngine& e) { return e.enqueue(slot, facts); });
  if (copy.dst.kind == MemoryKind::PageableHost && copy.src.kind != MemoryKind::PageableHost) ++stats_.pageable_d2h_async;
  std::optional<SiteId> site;
  if (!copy.device.empty()) {
    // One stack for both halves: the device's half asks for it first only when it needs it.
    auto named = [&]() -> SiteId { return *(site = site ? site : site_of_copy.get()); };
    device_accesses(slot, stamp, api_name(copy.api), DeviceWorkKind::Copy, {}, copy.device, RangeSource::Named,
                    SiteOf(named, 0));
  }
  // Rule 5: a pinned end is read or written when the copy runs. A pageable source is staged at the call
  // (rule 6); a pageable destination is written by the driver on the CPU, which a held page would stop.
  for (const auto& [end, hold_kind, host_end] :
       {std::tuple{copy.src, Hold::NoWrites, HostEnd::Source}, std::tuple{copy.dst, Hold::NoAccess, HostEnd::Destination}}) {
    if (end.kind != MemoryKind::PinnedHost || end.host.bytes() == 0) continue;
    if (!sampled_in(end.host, hold_kind)) {
      ++stats_.copies_sampled_out;
      continue;
    }
    if (!site) site = site_of_copy.get();
    Owned owned;
    owned.facts = CopyFacts{next_copy_++, {}, copy.stream.handle, kind, host_end, end.host.base,
                            end.host.bytes(), PinnedKind::HostAlloc, copy.origin == CopyOrigin::GraphLaunch, *site,
                            std::string(kernel)};
    owned.api = api_name(copy.api);
    if (memory)
      owned.facts.memory = *memory;
    else if (const std::optional<PinnedKind> pinned = allocations_.pinned_kind_below(end.host.base))
      owned.facts.memory = *pinned;
    owned.footprint = end.host;
    owned.stamp = stamp;
    // Only a host function enqueued before the copy and not returned can be one it waits for: with none, no
    // clock is kept (a copy per engine, on the path every watched copy takes).
    if (engines_[0].host_functions_waiting() || !running_host_functions_.empty())
      for (std::size_t e = 0; e < engines_.size(); ++e) owned.waits_for.push_back(engine(e).latest_clock(slot));
    owned.hold = hold_kind;
    owned.ordered_with_host_function_threads = copy.host_nodes == GraphHostNodes::Present;
    hold(owned);
    owned_.push_back(std::move(owned));
    ++stats_.copies_watched;
  }
}

void Checker::copy_sync(std::uint64_t context, MemoryKind src_kind, MemoryKind dst_kind) {
  std::lock_guard lock(mutex_);
  const StreamSlot legacy = slot_of(StreamKey{context, 0});
  auto host = [](MemoryKind k) { return k == MemoryKind::PinnedHost || k == MemoryKind::PageableHost; };
  const auto copy = src_kind == MemoryKind::PageableHost   ? OrderEngine::SyncCopy::PageableSource
                    : host(src_kind) || host(dst_kind) ? OrderEngine::SyncCopy::HostEnd
                                                       : OrderEngine::SyncCopy::DeviceToDevice;
  on_every_engine([&](OrderEngine& e) { return e.synchronous_copy(legacy, copy); });
  release_known();
}

WorkStamp Checker::work_enqueued(StreamKey stream) {
  std::lock_guard lock(mutex_);
  const StreamSlot slot = slot_of(stream);
  const StreamWorkFacts facts{.stream = engines_[0].stream_kind(slot)};
  return on_every_engine([&](OrderEngine& e) { return e.enqueue(slot, facts); });
}

WorkStamp Checker::enqueue_device_work(StreamKey stream, const DeviceWorkItem& item, const SiteOf& site) {
  std::lock_guard lock(mutex_);
  const StreamSlot slot = slot_of(stream);
  const StreamWorkFacts facts{.stream = engines_[0].stream_kind(slot)};
  const WorkStamp stamp = on_every_engine([&](OrderEngine& e) { return e.enqueue(slot, facts); });
  if (!item.ranges.empty())
    device_accesses(slot, stamp, api_name(item.api), item.kind, item.kernel.empty() ? "" : api_name(item.kernel),
                    item.ranges, item.kernel_ranges_from, site);
  return stamp;
}

void Checker::device_accesses(StreamSlot slot, const WorkStamp& stamp, std::string_view api, DeviceWorkKind kind,
                              std::string_view kernel, const std::vector<DeviceRange>& ranges,
                              RangeSource kernel_ranges_from, const SiteOf& site) {
  // The documented rules decide the device's half: a deviation was measured on copies the host waits for, not
  // on the order of work between streams.
  const OrderEngine& order = engines_[kDocumented];
  const SiteId named = order.stream_count() > 1 ? site.get() : 0;
  // A kernel's bytes come from its PTX or the rule: no recorder runs beside the checker (footprint_order.hpp waits
  // for one).
  const RangeSource source = kind == DeviceWorkKind::Kernel ? kernel_ranges_from : RangeSource::Named;
  record_races(device_.enqueued(
      DeviceWork{stamp, order.latest_clock(slot), api, named, ranges, kind, kernel, source}));
}

std::size_t Checker::engines_taking_steps() const {
  std::lock_guard lock(mutex_);
  return live_engines_;
}

void Checker::record_races(const std::vector<DeviceConflict>& found) {
  for (const DeviceConflict& c : found) {
    Finding f;
    f.kind = FindingKind::DeviceWorkRace;
    f.copy.api = std::string(c.earlier.api);
    f.copy.stream = stream_of_slot_.at(c.earlier.stamp.stream).handle;
    f.copy.stream_kind = named_stream_kind(c.earlier.stamp.stream);
    f.copy.site = c.earlier.site;
    f.address = c.address;
    f.access_site = c.later.site;
    f.race = DeviceRace{work_facts(c.earlier), work_facts(c.later), false};
    ++stats_.findings;
    ++stats_.occurrences;
    races_.push_back(std::move(f));
  }
}

DeviceWorkFacts Checker::work_facts(const DeviceAccess& access) const {
  return DeviceWorkFacts{std::string(access.api), stream_of_slot_.at(access.stamp.stream).handle,
                         named_stream_kind(access.stamp.stream), access.work, access.kind,
                         std::string(access.name), access.source};
}

void Checker::device_memory_renewed(std::uintptr_t begin, std::uintptr_t end) {
  std::lock_guard lock(mutex_);
  device_.forget(begin, end);
}

std::vector<Finding> Checker::take_races() {
  std::lock_guard lock(mutex_);
  return std::exchange(races_, {});
}

WorkStamp Checker::host_function_enqueued(StreamKey stream) {
  std::lock_guard lock(mutex_);
  const StreamSlot slot = slot_of(stream);
  return on_every_engine([&](OrderEngine& e) { return e.enqueue_host_function(slot); });
}

void Checker::host_function_returned(const WorkStamp& item) {
  std::lock_guard lock(mutex_);
  running_host_functions_.erase(item);
  for (OrderEngine& e : live_engines()) e.forget_host_function(item);
}

void Checker::host_function_started(const WorkStamp& item) {
  std::lock_guard lock(mutex_);
  running_host_functions_.insert(item);
  // Rule 9: the function runs after its stream's earlier work. Host threads are taken as one, so every
  // thread may rely on that from now on (a thread the function starts or wakes included), as after a
  // synchronization: the copies the function follows are let go for all of them.
  for (OrderEngine& e : live_engines()) e.host_function_started(item);
  release_known();
}

std::size_t Checker::host_functions_running() const {
  std::lock_guard lock(mutex_);
  return running_host_functions_.size();
}

void Checker::event_recorded(std::uint64_t event, StreamKey stream) {
  std::lock_guard lock(mutex_);
  const StreamSlot slot = slot_of(stream);
  const EventSlot e_slot = event_slot(event);
  before_step(engines_[0].record_facts(slot));
  on_every_engine([&](OrderEngine& e) { return e.record_event(e_slot, slot); });
}

void Checker::stream_waited_event(StreamKey stream, std::uint64_t event) {
  std::lock_guard lock(mutex_);
  const StreamSlot slot = slot_of(stream);
  const EventSlot e_slot = event_slot(event);
  before_step(engines_[0].wait_facts(slot, e_slot));
  on_every_engine([&](OrderEngine& e) { return e.wait_event(slot, e_slot); });
}

void Checker::stream_synchronized(StreamKey stream) {
  std::lock_guard lock(mutex_);
  const StreamSlot slot = slot_of(stream);
  for (OrderEngine& e : live_engines()) e.host_synchronizes_stream(slot);
  release_known();
}

void Checker::event_synchronized(std::uint64_t event) {
  std::lock_guard lock(mutex_);
  const EventSlot slot = event_slot(event);
  for (OrderEngine& e : live_engines()) e.host_synchronizes_event(slot);
  release_known();
}

void Checker::context_synchronized(std::uint64_t context) {
  std::lock_guard lock(mutex_);
  // The context's legacy stream may not have been seen yet; its slot makes the context known.
  (void)slot_of(StreamKey{context, 0});
  for (OrderEngine& e : live_engines()) e.host_synchronizes_context(context);
  release_known();
}

void Checker::release_known() {
  device_.forget_known(engines_[kDocumented]);
  // A copy is let go once the host knows it ran even under every deviation; until then an access the
  // documented rules allow is still a finding, one that names the deviation the program relies on.
  let_go_holds([&](const Owned& o) { return engine(kAllDeviations).host_knows(o.stamp); });
}

bool Checker::host_function_orders(std::size_t engine, const Owned& owned, const WorkStamp& host_function) const {
  // Rule 9: the function runs after the copy (its item's clock knows it), or the copy was queued behind the
  // function and waits for it to return.
  return this->engine(engine).host_function_knows(host_function, owned.stamp) ||
         (engine < owned.waits_for.size() && OrderEngine::clock_knows(owned.waits_for[engine], host_function));
}

bool Checker::racing(std::size_t engine, const Owned& owned, const Accessor& by) const {
  if (this->engine(engine).host_knows(owned.stamp)) return false;
  switch (by.kind) {
    case Accessor::Kind::ProgramThread: return true;
    case Accessor::Kind::HostFunction: return !host_function_orders(engine, owned, by.item);
    case Accessor::Kind::HostFunctionThread:
      if (owned.ordered_with_host_function_threads) return false;
      // The function making the access is one of those running: if any of them is ordered with the copy,
      // the access may be its, and no finding is made (a race between two running host functions' own
      // accesses and copies is given up rather than guessed).
      for (const WorkStamp& running : running_host_functions_)
        if (host_function_orders(engine, owned, running)) return false;
      return true;
  }
  return true;
}

std::vector<Deviation> Checker::deviations_still_racing(const Owned& owned, const Accessor& by) const {
  std::vector<Deviation> racing_under;
  if (racing(kDocumented, owned, by)) return racing_under;  // a plain finding
  for (std::size_t d = 0; d < kDeviationCount; ++d)
    if (racing(1 + d, owned, by)) racing_under.push_back(Deviation(d));
  if (racing_under.empty())  // only the deviations together leave it racing: name them all
    for (std::size_t d = 0; d < kDeviationCount; ++d) racing_under.push_back(Deviation(d));
  return racing_under;
}

Finding Checker::make_finding(FindingKind kind, const Owned& owned, std::uintptr_t address, SiteId site,
                              std::uint64_t thread, const Accessor& by) const {
  Finding f;
  f.kind = kind;
  f.copy = owned.facts;
  f.copy.api = owned.api;
  f.address = address;
  f.offset = owned.footprint.contains(address) ? owned.footprint.offset_of(address) : 0;
  f.access_site = site;
  f.thread = thread;
  f.relies_on = deviations_still_racing(owned, by);
  return f;
}

bool Checker::first_report(const Finding& finding) {
  ++stats_.occurrences;
  const bool new_pair = reported_.insert({finding.copy.site, finding.access_site}).second;
  if (new_pair) ++stats_.findings;
  return new_pair || every_occurrence_;
}

Checker::FaultOutcome Checker::access(std::uintptr_t address, bool write, Accessor by, const SiteOf& site_of_access,
                                      std::uint64_t thread) {
  std::lock_guard lock(mutex_);
  FaultOutcome out;
  const PageAccess access = holds_.access_at(address);
  out.ours = access != PageAccess::ReadWrite;
  if (!out.ours) return out;
  bool conflict_seen = false;
  SiteId site = 0;
  for (Owned& o : owned_) {
    if (!o.armed || !o.footprint.contains(address)) continue;
    const bool conflict = o.hold == Hold::NoAccess || write;
    if (!conflict || !racing(kAllDeviations, o, by)) continue;
    if (!conflict_seen) site = site_of_access.get();
    conflict_seen = true;
    const FindingKind kind = o.hold == Hold::NoWrites ? FindingKind::HostWroteCopySource
                             : write                  ? FindingKind::HostWroteCopyDestination
                                                      : FindingKind::HostReadCopyDestination;
    Finding f = make_finding(kind, o, address, site, thread, by);
    if (first_report(f)) out.findings.push_back(std::move(f));
    disarm(o);
  }
  if (!conflict_seen) ++stats_.neighbour_faults;
  const PageAccess now = holds_.access_at(address);
  out.step = now == PageAccess::None || (now == PageAccess::ReadOnly && write);
  return out;
}

std::vector<Finding> Checker::pinned_released(std::uintptr_t base, bool unregister, SiteId site,
                                              std::uint64_t thread) {
  std::lock_guard lock(mutex_);
  std::vector<Finding> findings;
  const std::optional<PinnedRange> gone = allocations_.unpinned(base);
  if (!gone) return findings;
  const std::uintptr_t end = base + gone->bytes;
  for (Owned& o : owned_) {
    if (o.footprint.base >= end || o.footprint.end() <= base) continue;
    if (racing(kAllDeviations, o, Accessor::program_thread())) {
      Finding f = make_finding(unregister ? FindingKind::UnregisteredWhileCopyOwns : FindingKind::FreedWhileCopyOwns,
                               o, base, site, thread, Accessor::program_thread());
      f.address = base;
      if (first_report(f)) findings.push_back(std::move(f));
    }
    disarm(o);
  }
  // The memory is gone (or no longer pinned): nothing of it is owned or held any more.
  owned_.erase(std::remove_if(owned_.begin(), owned_.end(),
                              [&](const Owned& o) { return o.footprint.base < end && o.footprint.end() > base; }),
               owned_.end());
  protector_.unpinned(base, end);
  return findings;
}

PageAccess Checker::access_at(std::uintptr_t address) const {
  std::lock_guard lock(mutex_);
  return holds_.access_at(address);
}

void Checker::restore_page(std::uintptr_t page) {
  std::lock_guard lock(mutex_);
  protector_.apply(PageChange{page, page + page_size(), holds_.access_at(page)});
}

CheckerStats Checker::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void Checker::release_everything() {
  std::lock_guard lock(mutex_);
  for (Owned& o : owned_) disarm(o);
  owned_.clear();
}

}  // namespace hazardlab::check
