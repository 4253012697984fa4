// The checker: told what the program's driver calls did and which host accesses faulted, it keeps which
// host bytes each asynchronous copy still owns, under the documented rules and under the rules weakened by
// each deviation a GPU was measured to take, holds those pages protected through a PageProtector, and
// returns a Finding for every access or free of memory a copy still owned. No CUDA: the injected library
// (checker/inject) translates driver calls and faults into these calls, and the tests replay programs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/core/accessor.hpp"
#include "checker/core/allocations.hpp"
#include "checker/core/device_conflicts.hpp"
#include "checker/core/site_of.hpp"
#include "checker/core/finding.hpp"
#include "checker/core/graph_lanes.hpp"
#include "checker/core/graph_nodes.hpp"
#include "checker/core/order.hpp"
#include "checker/core/page_protection.hpp"
#include "checker/core/pages.hpp"
#include "checker/core/work_items.hpp"

namespace hazardlab::check {

// The faster mode (`hazardlab check --sample`): each host range is watched in its first `first` copies, then
// in one copy of every `every`. A copy that is not watched costs no page protection and no stack; what it
// gives up: a hazard that shows only in copies of a range that was not watched is not found.
struct Sampling {
  std::uint64_t first = 0;  // 0: every copy is watched (the default)
  std::uint64_t every = 1;
  [[nodiscard]] bool on() const { return first > 0; }
};

struct CheckerStats {
  std::uint64_t copies_watched = 0;       // host ends of async copies whose pages were held
  std::uint64_t pageable_d2h_async = 0;   // device to pageable async copies: written by the CPU, not watched
  std::uint64_t findings = 0;             // distinct pairs of call sites
  std::uint64_t occurrences = 0;          // every conflicting access, repeats of a pair included
  std::uint64_t neighbour_faults = 0;     // accesses to protected pages outside the bytes any copy owned
  std::uint64_t copies_sampled_out = 0;   // host ends the faster mode chose not to watch
};

class Checker {
 public:
  explicit Checker(PageProtector& protector);

  void stream_created(StreamKey stream, StreamKind kind);
  void stream_destroyed(StreamKey stream);
  void event_created(std::uint64_t event);

  void pinned_allocated(std::uintptr_t base, std::size_t bytes, PinnedKind kind);
  // cuMemFreeHost or cuMemHostUnregister: findings for every copy that still owned bytes of it.
  std::vector<Finding> pinned_released(std::uintptr_t base, bool unregister, SiteId site, std::uint64_t thread);
  [[nodiscard]] std::optional<PinnedKind> pinned_kind(std::uintptr_t address) const;
  // Every allocation the checker looks up, pinned and device-visible (allocations.hpp): it locks itself.
  [[nodiscard]] Allocations& allocations() { return allocations_; }

  void set_sampling(Sampling sampling);
  // Off (the default): a finding is reported once per pair of call sites, as compute-sanitizer and
  // ThreadSanitizer do; on: every conflicting access (each copy's first) is reported.
  void set_every_occurrence(bool on);
  // The copy's order is always kept; its pinned host ends are watched unless sampling leaves them out. The
  // site is named only then (a stack costs time).
  template <class Site>
  void copy_async(const AsyncCopy& copy, Site&& site) {
    if constexpr (std::is_invocable_r_v<SiteId, Site&>) {
      issue(copy, SiteOf(site, 0));
    } else {
      issue(copy, SiteOf(static_cast<SiteId>(site)));
    }
  }
  void copy_async(const AsyncCopy& copy) { issue(copy, SiteOf(copy.site)); }
  // A kernel's hold on pinned memory it was handed (KernelHold), kept as a copy's hold on its host end is.
  template <class Site>
  void kernel_holds(const KernelHold& hold, Site&& site) {
    hold_for_kernel(hold, SiteOf(site, 0));
  }
  void kernel_holds(const KernelHold& hold) { hold_for_kernel(hold, SiteOf(hold.site)); }
  // Work queued behind kernels that hold managed memory in [begin, end): a prefetch to the CPU or an attach to a
  // stream. Neither waits for a kernel, so neither lets a hold go; a finding on those bytes says the program
  // may have taken it for a fence.
  void queued_behind_managed_holds(std::uintptr_t begin, std::uintptr_t end, QueuedBehindKernel queued);
  // Every kernel hold on managed memory is let go, unwatched: its pages could not be protected.
  void let_go_managed_holds();
  // Memory [begin, end) is freed by a call that waits for the device: the holds on it are let go with no finding
  // (pinned memory, whose free a copy in flight makes a finding, goes through pinned_released).
  void holds_freed(std::uintptr_t begin, std::uintptr_t end);
  void copy_sync(std::uint64_t context, MemoryKind src_kind, MemoryKind dst_kind);
  // Device work with the memory it touches: it takes its place in its stream's order, as work_enqueued, and each
  // race with earlier device work on another stream becomes a finding (take_races). The site is asked for only
  // while the program has more than one stream: with one, nothing can race.
  template <class Site>
  WorkStamp device_work(StreamKey stream, const DeviceWorkItem& item, Site&& site) {
    return enqueue_device_work(stream, item, SiteOf(site, 0));
  }
  // A launch of a graph's executable whose nodes are known: each node an item on its lane, after the launch stream's
  // earlier work, the previous launch and its predecessors; then the stream's later work (graph_launch.cpp).
  template <class Site>
  WorkStamp graph_launched(StreamKey stream, const GraphNodes& graph, Site&& site) {
    return launch_graph(stream, graph, SiteOf(site, 0));
  }
  void graph_instance_gone(std::uint64_t instance);  // its lanes are given back (graph_lanes.hpp)
  [[nodiscard]] std::size_t graph_lanes_made() const;
  // The memory no longer holds what earlier work touched (a synchronous free; a block a pool handed out again).
  void device_memory_renewed(std::uintptr_t begin, std::uintptr_t end);
  // The races found since the last call, each a DeviceWorkRace finding.
  std::vector<Finding> take_races();
  WorkStamp work_enqueued(StreamKey stream);
  WorkStamp host_function_enqueued(StreamKey stream);
  void host_function_returned(const WorkStamp& item);
  void host_function_started(const WorkStamp& item);
  void event_recorded(std::uint64_t event, StreamKey stream);
  void stream_waited_event(StreamKey stream, std::uint64_t event);
  void stream_synchronized(StreamKey stream);  // also a cuStreamQuery that returned CUDA_SUCCESS
  void event_synchronized(std::uint64_t event);  // also a cuEventQuery that returned CUDA_SUCCESS
  void context_synchronized(std::uint64_t context);

  using FaultOutcome = check::FaultOutcome;  // accessor.hpp
  // A host access that faulted on a page the checker may hold, made by `by`. `site` names the access; it is asked
  // for only when it conflicts with a copy (a fault handler then names the Python line too; never for a neighbour).
  template <class Site>
  FaultOutcome host_access(std::uintptr_t address, bool write, Accessor by, Site&& site, std::uint64_t thread) {
    if constexpr (std::is_invocable_r_v<SiteId, Site&>) {
      return access(address, write, by, SiteOf(site, 0), thread);
    } else {
      return access(address, write, by, SiteOf(static_cast<SiteId>(site)), thread);
    }
  }
  template <class Site>
  FaultOutcome host_access(std::uintptr_t address, bool write, std::optional<WorkStamp> host_function, Site&& site,
                           std::uint64_t thread) {
    return host_access(address, write, Accessor::of(host_function), std::forward<Site>(site), thread);
  }
  // The host functions that have started and not returned.
  [[nodiscard]] std::size_t host_functions_running() const;
  [[nodiscard]] PageAccess access_at(std::uintptr_t address) const;
  // Protects a page again as the holds want it now (after a single step), under the checker's lock so that
  // a release or a new hold made meanwhile by another thread is not undone.
  void restore_page(std::uintptr_t page);
  [[nodiscard]] CheckerStats stats() const;
  // How many order engines take each step (the documented one alone until a deviation could tell them apart).
  [[nodiscard]] std::size_t engines_taking_steps() const;
  // Removes every hold (a forked child, which has no CUDA, gets its memory back as it was).
  void release_everything();

 private:
  void issue(const AsyncCopy& copy, const SiteOf& site) { own(copy, site, {}); }
  void hold_for_kernel(const KernelHold& hold, const SiteOf& site);
  // A copy's order and holds; or, when `kernel` names one, a kernel's hold on its pinned bytes as such a copy's.
  // `memory`: the kind of memory held, where the caller knows it (else looked up among the pinned allocations).
  void own(const AsyncCopy& copy, const SiteOf& site, std::string_view kernel,
           std::optional<PinnedKind> memory = std::nullopt);
  // Lets go of the holds `which` picks, with no finding (the caller holds the lock).
  template <class Which>
  void let_go_holds(Which which);
  WorkStamp enqueue_device_work(StreamKey stream, const DeviceWorkItem& item, const SiteOf& site);
  WorkStamp launch_graph(StreamKey stream, const GraphNodes& graph, const SiteOf& site);  // the site asked for once
  StreamSlot graph_lane(std::uint64_t instance, std::size_t lane, StreamKey launch_stream);
  // The device's half, for work just enqueued on `slot` (the caller holds the lock).
  void device_accesses(StreamSlot slot, const WorkStamp& stamp, std::string_view api, DeviceWorkKind kind,
                       std::string_view kernel, const std::vector<DeviceRange>& ranges,
                       RangeSource kernel_ranges_from, const SiteOf& site);
  void record_races(const std::vector<DeviceConflict>& found);
  [[nodiscard]] DeviceWorkFacts work_facts(const DeviceAccess& access) const;
  [[nodiscard]] StreamKind named_stream_kind(StreamSlot slot) const;  // a graph node's lane: its launch stream's
  bool sampled_in(const HostFootprint& footprint, Hold hold);
  // The driver call's name, kept once: a watched copy then allocates no string of its own.
  std::string_view api_name(std::string_view api);
  FaultOutcome access(std::uintptr_t address, bool write, Accessor by, const SiteOf& site, std::uint64_t thread);
  struct Owned {
    CopyFacts facts;        // but its api, which a finding gets from `api`
    std::string_view api;   // one of api_names_
    HostFootprint footprint;
    WorkStamp stamp;
    // What the copy waits for, under each engine's rules: a host function it waits for runs before it, so
    // that function's accesses never race with it. Empty when no host function was waiting or running.
    std::vector<Clock> waits_for;
    Hold hold;
    bool armed = true;  // its pages are held; a reported copy is disarmed so the program runs on as it would
    bool ordered_with_host_function_threads = false;  // GraphHostNodes::Present
  };
  StreamSlot slot_of(StreamKey stream);
  EventSlot event_slot(std::uint64_t event);
  // Every engine sees the same items in the same order, so an item has one stamp in all of them.
  template <class Step>
  WorkStamp on_every_engine(Step step) {
    const WorkStamp stamp = step(engines_[0]);
    for (std::size_t e = 1; e < live_engines_; ++e)
      if (step(engines_[e]) != stamp) throw std::logic_error("the order engines disagree on an item's position");
    return stamp;
  }
  // The engines that take each step: the documented one alone until a step the rule sets tell apart.
  std::span<OrderEngine> live_engines() { return {engines_.data(), live_engines_}; }
  // Engine `e` as it stands: the documented one while the others have taken no step of their own.
  const OrderEngine& engine(std::size_t e) const { return engines_[e < live_engines_ ? e : 0]; }
  // Before a step whose own work the rules are asked about: the first one some engine would take differently
  // gives every engine the documented one's state, and from then on each takes every step.
  void before_step(const conformance::StreamWorkFacts& facts);
  void release_known();
  void disarm(Owned& owned);
  std::vector<conformance::Deviation> deviations_still_racing(const Owned& owned, const Accessor& by) const;
  bool racing(std::size_t engine, const Owned& owned, const Accessor& by) const;
  bool host_function_orders(std::size_t engine, const Owned& owned, const WorkStamp& host_function) const;
  void hold(const Owned& owned);
  Finding make_finding(FindingKind kind, const Owned& owned, std::uintptr_t address, SiteId site,
                       std::uint64_t thread, const Accessor& by) const;
  bool first_report(const Finding& finding);

  mutable std::mutex mutex_;
  PageProtector& protector_;
  std::vector<OrderEngine> engines_;  // [0] documented, [1..n] one deviation each, [n+1] all of them
  // How many of them take each step. A deviation changes only what the rules say of some work's own steps (a
  // small pinned upload, a marker on a blocking stream, a wait for an unrecorded event on the legacy stream):
  // until the program enqueues such work, every engine would hold the documented one's state, so only that one
  // takes the steps (a launch-heavy program on non-blocking streams never pays for the others).
  std::size_t live_engines_ = 1;
  std::map<StreamKey, StreamSlot> streams_;
  std::vector<StreamKey> stream_of_slot_;  // the reverse, to name a stream in a finding
  std::map<std::uint64_t, EventSlot> events_;
  GraphLanes graph_lanes_;
  Allocations allocations_;
  std::vector<Owned> owned_;
  // Started and not returned: a host-function thread's access is made inside one of these.
  std::set<WorkStamp> running_host_functions_;
  PageHolds holds_;
  std::set<std::pair<SiteId, SiteId>> reported_;
  std::set<std::string, std::less<>> api_names_;
  std::uint64_t next_copy_ = 1;
  Sampling sampling_;
  bool every_occurrence_ = false;
  std::map<std::tuple<std::uintptr_t, std::size_t, Hold>, std::uint64_t> copies_of_range_;
  EventSlot next_event_slot_ = 0;
  CheckerStats stats_;
  DeviceConflicts device_;
  std::vector<Finding> races_;
};

}  // namespace hazardlab::check
