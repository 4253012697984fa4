// A measuring probe for exact kernel footprints through NVIDIA's Compute Sanitizer API, loaded into a program by
// CUDA_INJECTION64_PATH (or LD_PRELOAD beside the checker). It answers, on a GPU, the questions that decide how the
// checker takes footprints: what patching costs (patched with no record, and recording), whether it runs in one
// process beside a CUPTI subscriber, and whether the hulls it reads back are the bytes the kernels touched.
//
// Its settings (docs/settings.md): HL_FOOTPRINT_MODE (off, null: every module patched and no launch recorded, or
// record), HL_FOOTPRINT_PATCH (the patch fatbin), HL_FOOTPRINT_CUPTI (also subscribe to CUPTI's driver-API callbacks
// and count the launches they see), HL_FOOTPRINT_PRINT (print the first N launches' footprints at exit).
//
// At exit it prints one line `footprint-probe ...` with what it saw, on stderr. Every Sanitizer and CUPTI call is
// checked; a failed one is named with its file and line and the probe stops recording (the program runs on).
#include <cupti.h>
#include <sanitizer.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "checker/footprints/footprint_probe.hpp"
#include "checker/footprints/footprint_record.hpp"
#include "hazardlab/environment.hpp"
#include "hazardlab/settings_table.hpp"

namespace fp = hazardlab::check::footprints;
using namespace hazardlab::check::footprints::probe_state;

namespace hazardlab::check::footprints::probe_state {

Probe& probe() {
  static Probe* p = new Probe;  // never destroyed: callbacks may come during the program's exit
  return *p;
}

bool ok(SanitizerResult r, const char* call, const char* file, int line) {
  if (r == SANITIZER_SUCCESS) return true;
  const char* text = nullptr;
  sanitizerGetResultString(r, &text);
  std::fprintf(stderr, "footprint-probe: %s failed at %s:%d: %s\n", call, file, line, text ? text : "?");
  probe().failures++;
  probe().failed = true;
  return false;
}

}  // namespace hazardlab::check::footprints::probe_state

namespace {

// An arena of records for a context, aligned to its size so that a record finds the header by masking.
bool make_arena(CUcontext context, Context& c) {
  void* raw = nullptr;
  if (!SAN(sanitizerAlloc(context, &raw, 2 * fp::kArenaBytes))) return false;
  const auto base = reinterpret_cast<std::uint64_t>(raw);
  c.arena = (base + fp::kArenaBytes - 1) & ~(fp::kArenaBytes - 1);
  if (!SAN(sanitizerMemset(reinterpret_cast<void*>(c.arena), 0, fp::kArenaBytes, nullptr))) return false;
  if (!SAN(sanitizerStreamSynchronize(nullptr))) return false;
  c.next = c.arena + fp::kArenaHeaderBytes;
  return true;
}

// The allocation table uploaded afresh when allocations changed; a table a record may point to is never rewritten.
bool upload_table(CUcontext context, Context& c) {
  static fp::AllocationTable staged;
  std::memset(&staged, 0, sizeof staged);
  for (const auto& [base, end] : c.allocations) {
    if (staged.count == fp::kTableCapacity) break;
    staged.base[staged.count] = base;
    staged.end[staged.count] = end;
    ++staged.count;
  }
  void* table = nullptr;
  if (!SAN(sanitizerAlloc(context, &table, sizeof staged))) return false;
  if (!SAN(sanitizerMemcpyHostToDeviceAsync(table, &staged, sizeof staged, nullptr))) return false;
  fp::ArenaHeader header{reinterpret_cast<std::uint64_t>(table)};
  if (!SAN(sanitizerMemcpyHostToDeviceAsync(reinterpret_cast<void*>(c.arena), &header, sizeof header, nullptr)))
    return false;
  if (!SAN(sanitizerStreamSynchronize(nullptr))) return false;  // in force before the next launch, on any stream
  c.table = header.table;
  c.table_stale = false;
  return true;
}

void module_loaded(const Sanitizer_ResourceModuleData& m) {
  Probe& p = probe();
  std::lock_guard lock(p.mutex);
  if (p.failed) return;
  Context& c = p.contexts[m.context];
  if (!c.patches_loaded) {
    if (!SAN(sanitizerAddPatchesFromFile(p.patch_path.c_str(), m.context))) return;
    c.patches_loaded = true;
  }
  if (!SAN(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, m.module,
                                      "hazardlab_footprint_access")))
    return;
  if (SAN(sanitizerPatchModule(m.module))) p.modules_patched++;
}

void memory(const Sanitizer_ResourceMemoryData& d, bool allocated) {
  Probe& p = probe();
  std::lock_guard lock(p.mutex);
  Context& c = p.contexts[d.context];
  if (allocated) c.allocations[d.address] = d.address + d.size;
  else c.allocations.erase(d.address);
  c.table_stale = true;
}

void launch_begin(const Sanitizer_LaunchData& l) {
  Probe& p = probe();
  p.sanitizer_launches++;
  if (p.mode != Mode::Record) return;
  std::lock_guard lock(p.mutex);
  if (p.failed) return;
  Context& c = p.contexts[l.context];
  if (c.arena == 0 && !make_arena(l.context, c)) return;
  if (c.table_stale && !upload_table(l.context, c)) return;
  if (c.next + fp::kRecordBytes > c.arena + fp::kArenaBytes) {  // full until a recycle: unrecorded, never guessed
    p.unrecorded++;
    return;
  }
  const std::uint64_t record = c.next;
  c.next += fp::kRecordBytes;
  if (!SAN(sanitizerSetLaunchCallbackData(l.hLaunch, l.function, l.hStream, reinterpret_cast<void*>(record)))) return;
  if (static_cast<long>(p.launches.size()) < p.print) p.launches.push_back({l.functionName ? l.functionName : "?", l.context, record});
}

void SANITIZERAPI on_sanitizer(void*, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* data) {
  if (domain == SANITIZER_CB_DOMAIN_RESOURCE) {
    switch (cbid) {
      case SANITIZER_CBID_RESOURCE_MODULE_LOADED:
        if (probe().mode != Mode::Off) module_loaded(*static_cast<const Sanitizer_ResourceModuleData*>(data));
        return;
      case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC:
      case SANITIZER_CBID_RESOURCE_HOST_MEMORY_ALLOC:
      case SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC:
        memory(*static_cast<const Sanitizer_ResourceMemoryData*>(data), true);
        return;
      case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE:
      case SANITIZER_CBID_RESOURCE_HOST_MEMORY_FREE:
      case SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC:
        memory(*static_cast<const Sanitizer_ResourceMemoryData*>(data), false);
        return;
      default:
        return;
    }
  }
  if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN)
    launch_begin(*static_cast<const Sanitizer_LaunchData*>(data));
}

void CUPTIAPI on_cupti(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* d = static_cast<const CUpti_CallbackData*>(data);
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || d->callbackSite != CUPTI_API_EXIT) return;
  if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
      cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz)
    probe().cupti_launches++;
}

[[noreturn]] void refuse(const hazardlab::SettingDeclaration& s, const std::string& value) {
  std::fprintf(stderr, "footprint-probe: %s=%s is not allowed: %s\n", std::string(s.name).c_str(), value.c_str(),
               std::string(s.range).c_str());
  std::exit(2);
}

int initialize() {
  using namespace hazardlab::setting;
  Probe& p = probe();
  const std::string m = hazardlab::environment_value_given(kFootprintMode.name).value_or("record");
  if (m == "off") p.mode = Mode::Off;
  else if (m == "null") p.mode = Mode::Null;
  else if (m == "record") p.mode = Mode::Record;
  else refuse(kFootprintMode, m);
  p.patch_path = hazardlab::environment_value_given(kFootprintPatch.name).value_or("footprint_patch.fatbin");
  const std::string cupti = hazardlab::environment_value_given(kFootprintCupti.name).value_or("0");
  if (cupti != "0" && cupti != "1") refuse(kFootprintCupti, cupti);
  p.cupti = cupti == "1";
  const std::string print = hazardlab::environment_value_given(kFootprintPrint.name).value_or("0");
  char* end = nullptr;
  p.print = std::strtol(print.c_str(), &end, 10);
  if (print.empty() || *end != '\0' || p.print < 0 || p.print > 100000) refuse(kFootprintPrint, print);
  Sanitizer_SubscriberHandle handle{};
  if (!SAN(sanitizerSubscribe(&handle, on_sanitizer, nullptr))) return 1;
  SAN(sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_RESOURCE));
  SAN(sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_LAUNCH));
  if (p.cupti) {
    CUpti_SubscriberHandle subscriber{};
    const CUptiResult r = cuptiSubscribe(&subscriber, on_cupti, nullptr);
    if (r != CUPTI_SUCCESS || cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
      std::fprintf(stderr, "footprint-probe: cuptiSubscribe beside the Sanitizer API failed (%d)\n", static_cast<int>(r));
      p.failures++;
    }
  }
  std::atexit(report_at_exit);
  return 0;
}

}  // namespace

// The injection entry point (CUDA_INJECTION64_PATH); under LD_PRELOAD the static initializer below runs it.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  static const int once = initialize();
  return once == 0 ? 1 : 0;
}

namespace {
// Preloaded beside the checker (which holds CUDA_INJECTION64_PATH), the probe starts when it is loaded.
const int started_when_loaded = InitializeInjection();
}  // namespace
