#include "checker/footprints/footprint_recorder.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "checker/footprints/footprint_record.hpp"

namespace hazardlab::check::footprints {

namespace {

constexpr std::size_t kArenasPerContext = 4;  // 4 x 64 MiB: records of launches not yet read back
thread_local std::uint64_t last_ticket = 0;

void SANITIZERAPI on_sanitizer(void*, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* data) {
  recorder().on_callback(domain, cbid, data);
}

}  // namespace

Recorder& recorder() {
  static Recorder* r = new Recorder;
  return *r;
}

bool Recorder::ok(SanitizerResult r, const char* call, const char* file, int line) {
  if (r == SANITIZER_SUCCESS) return true;
  const char* text = nullptr;
  sanitizerGetResultString(r, &text);
  ++counts_.failures;
  if (first_failure_.empty())
    first_failure_ = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + (text ? text : "?");
  failed_ = true;
  return false;
}

bool Recorder::start(const std::string& patch_path, Patching patching, std::string& why) {
  std::lock_guard lock(mutex_);
  patch_path_ = patch_path;
  patching_ = patching;
  Sanitizer_SubscriberHandle handle{};
  if (!SAN(sanitizerSubscribe(&handle, on_sanitizer, nullptr)) ||
      !SAN(sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_RESOURCE)) ||
      !SAN(sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_LAUNCH))) {
    why = first_failure_;
    return false;
  }
  return true;
}

std::uint64_t Recorder::take_ticket() { return std::exchange(last_ticket, 0); }

RecorderCounts Recorder::counts() {
  std::lock_guard lock(mutex_);
  return counts_;
}

std::string Recorder::first_failure() {
  std::lock_guard lock(mutex_);
  return first_failure_;
}

void Recorder::on_callback(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* data) {
  if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN)
    return launch_begin(*static_cast<const Sanitizer_LaunchData*>(data));
  if (domain != SANITIZER_CB_DOMAIN_RESOURCE) return;
  switch (cbid) {
    case SANITIZER_CBID_RESOURCE_MODULE_LOADED:
      return module_loaded(*static_cast<const Sanitizer_ResourceModuleData*>(data));
    case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC:
    case SANITIZER_CBID_RESOURCE_HOST_MEMORY_ALLOC:
    case SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC:
      return memory(*static_cast<const Sanitizer_ResourceMemoryData*>(data), true);
    case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE:
    case SANITIZER_CBID_RESOURCE_HOST_MEMORY_FREE:
    case SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC:
      return memory(*static_cast<const Sanitizer_ResourceMemoryData*>(data), false);
    default:
      return;
  }
}

void Recorder::module_loaded(const Sanitizer_ResourceModuleData& m) {
  std::lock_guard lock(mutex_);
  if (patching_ == Patching::None || failed_) return;
  Context& c = contexts_[m.context];
  if (!c.patches_loaded) {
    if (!SAN(sanitizerAddPatchesFromFile(patch_path_.c_str(), m.context))) return;
    c.patches_loaded = true;
  }
  if (SAN(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, m.module,
                                     "hazardlab_footprint_access")) &&
      SAN(sanitizerPatchModule(m.module)))
    ++counts_.modules_patched;
}

void Recorder::memory(const Sanitizer_ResourceMemoryData& d, bool allocated) {
  std::lock_guard lock(mutex_);
  Context& c = contexts_[d.context];
  if (allocated) c.allocations[d.address] = d.address + d.size;
  else c.allocations.erase(d.address);
  c.table_stale = true;
}

// A context's arena with room for one more record: the current one, a recycled one, or a new one (at most
// kArenasPerContext; past that the launch is not recorded, and the rule judges it).
bool Recorder::arena_with_room(CUcontext context, Context& c) {
  auto has_room = [](const Arena& a) { return a.next + kRecordBytes <= a.base + kArenaBytes; };
  if (c.current < c.arenas.size() && has_room(c.arenas[c.current])) return true;
  for (std::size_t i = 0; i < c.arenas.size(); ++i)
    if (has_room(c.arenas[i])) return (c.current = i, true);
  if (c.arenas.size() == kArenasPerContext) return false;
  void* raw = nullptr;
  if (!SAN(sanitizerAlloc(context, &raw, 2 * kArenaBytes))) return false;  // twice: room to align
  Arena a;
  a.base = (reinterpret_cast<std::uint64_t>(raw) + kArenaBytes - 1) & ~(kArenaBytes - 1);
  a.next = a.base + kArenaHeaderBytes;
  const ArenaHeader header{c.table};
  if (!SAN(sanitizerMemset(reinterpret_cast<void*>(a.base), 0, kArenaBytes, nullptr)) ||
      !SAN(sanitizerMemcpyHostToDeviceAsync(reinterpret_cast<void*>(a.base), const_cast<ArenaHeader*>(&header),
                                            sizeof header, nullptr)) ||
      !SAN(sanitizerStreamSynchronize(nullptr)))
    return false;
  c.arenas.push_back(a);
  c.current = c.arenas.size() - 1;
  return true;
}

// The allocation table uploaded afresh when allocations changed, and every arena's header pointed at it. A table a
// record may still use is never rewritten (the old ones are kept).
bool Recorder::upload_table(CUcontext context, Context& c) {
  std::vector<std::uint64_t> words(table_words(c.allocations.size()));
  words[0] = c.allocations.size();
  std::size_t i = 0;
  for (const auto& [base, end] : c.allocations) {
    words[1 + i] = base;
    words[1 + c.allocations.size() + i] = end;
    ++i;
  }
  void* table = nullptr;
  if (!SAN(sanitizerAlloc(context, &table, words.size() * sizeof(std::uint64_t)))) return false;
  if (!SAN(sanitizerMemcpyHostToDeviceAsync(table, words.data(), words.size() * sizeof(std::uint64_t), nullptr)))
    return false;
  c.table = reinterpret_cast<std::uint64_t>(table);
  const ArenaHeader header{c.table};
  for (const Arena& a : c.arenas)
    if (!SAN(sanitizerMemcpyHostToDeviceAsync(reinterpret_cast<void*>(a.base), const_cast<ArenaHeader*>(&header),
                                              sizeof header, nullptr)))
      return false;
  if (!SAN(sanitizerStreamSynchronize(nullptr))) return false;  // in force before the launch, on any stream
  c.table_stale = false;
  return true;
}

void Recorder::launch_begin(const Sanitizer_LaunchData& l) {
  std::lock_guard lock(mutex_);
  ++counts_.launches;
  last_ticket = 0;
  if (patching_ != Patching::Record || failed_) return;
  Context& c = contexts_[l.context];
  if ((c.table_stale && !upload_table(l.context, c)) || !arena_with_room(l.context, c)) {
    ++counts_.unrecorded;
    return;
  }
  Arena& a = c.arenas[c.current];
  const std::uint64_t record = a.next;
  if (!SAN(sanitizerSetLaunchCallbackData(l.hLaunch, l.function, l.hStream, reinterpret_cast<void*>(record)))) return;
  a.next += kRecordBytes;
  ++a.unread;
  ++counts_.recorded;
  last_ticket = next_ticket_++;
  tickets_[last_ticket] = Ticketed{l.context, record, c.current};
}

}  // namespace hazardlab::check::footprints
