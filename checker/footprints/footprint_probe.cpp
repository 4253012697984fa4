// A measuring probe for exact kernel footprints, loaded into a program by CUDA_INJECTION64_PATH or, beside the
// checker, by LD_PRELOAD. It runs the recorder (footprint_recorder.hpp) on its own and answers, on a GPU, the questions
// that decide how the checker takes footprints: what patching costs (patched with no record, and recording), whether
// it runs in one process beside a CUPTI subscriber, and whether the hulls read back are the bytes the kernels touched.
//
// Its settings (docs/settings.md): HL_FOOTPRINT_MODE (off: subscribed and nothing patched; null: every module
// patched and no launch recorded; record), HL_FOOTPRINT_PATCH (the patch fatbin), HL_FOOTPRINT_CUPTI (also subscribe
// to CUPTI's driver-API callbacks and count the launches they see), HL_FOOTPRINT_PRINT (print the first N launches'
// footprints at exit, in launch order, as offsets into their allocations). At exit it prints one line
// `footprint-probe ...` with what it saw, on stderr; a failed Sanitizer call is named there with its file and line.
#include <cuda.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "checker/footprints/footprint_probe_cupti.hpp"
#include "checker/footprints/footprint_recorder.hpp"
#include "hazardlab/environment.hpp"
#include "hazardlab/settings_table.hpp"

namespace fp = hazardlab::check::footprints;

namespace {

struct Options {
  fp::Patching patching = fp::Patching::Record;
  std::string patch = "footprint_patch.fatbin";
  bool cupti = false;
  long print = 0;
};

Options& options() {
  static Options* o = new Options;  // never destroyed: read at the program's exit
  return *o;
}

[[noreturn]] void refuse(const hazardlab::SettingDeclaration& s, const std::string& value) {
  std::fprintf(stderr, "footprint-probe: %s=%s is not allowed: %s\n", std::string(s.name).c_str(), value.c_str(),
               std::string(s.range).c_str());
  std::exit(2);
}

Options read_options() {
  using namespace hazardlab::setting;
  Options o;
  const std::string mode = hazardlab::environment_value_given(kFootprintMode.name).value_or("record");
  if (mode == "off") o.patching = fp::Patching::None;
  else if (mode == "null") o.patching = fp::Patching::PatchOnly;
  else if (mode != "record") refuse(kFootprintMode, mode);
  o.patch = hazardlab::environment_value_given(kFootprintPatch.name).value_or(o.patch);
  const std::string cupti = hazardlab::environment_value_given(kFootprintCupti.name).value_or("0");
  if (cupti != "0" && cupti != "1") refuse(kFootprintCupti, cupti);
  o.cupti = cupti == "1";
  const std::string print = hazardlab::environment_value_given(kFootprintPrint.name).value_or("0");
  char* end = nullptr;
  o.print = std::strtol(print.c_str(), &end, 10);
  if (print.empty() || *end != '\0' || o.print < 0 || o.print > 100000) refuse(kFootprintPrint, print);
  return o;
}

void print_one(void*, std::uint64_t ticket, const hl_footprint_range* ranges, std::size_t count, int complete) {
  std::fprintf(stderr, "footprint launch %llu%s", static_cast<unsigned long long>(ticket), complete ? "" : " incomplete");
  for (std::size_t i = 0; i < count; ++i)
    std::fprintf(stderr, " %s[%#llx,%#llx)", ranges[i].write ? "write" : "read",
                 static_cast<unsigned long long>(ranges[i].begin), static_cast<unsigned long long>(ranges[i].end));
  std::fprintf(stderr, "\n");
}

void report_at_exit() {
  const Options& o = options();
  if (o.patching == fp::Patching::Record && o.print > 0) {
    const CUresult done = cuCtxSynchronize();  // every launch has run: its record is whole
    if (done != CUDA_SUCCESS)
      std::fprintf(stderr, "footprint-probe: cuCtxSynchronize failed at %s:%d (%d)\n", __FILE__, __LINE__,
                   static_cast<int>(done));
    std::vector<std::uint64_t> first;
    for (long t = 1; t <= o.print; ++t) first.push_back(static_cast<std::uint64_t>(t));
    fp::recorder().collect(first, print_one, nullptr);
  }
  const fp::RecorderCounts n = fp::recorder().counts();
  std::fprintf(stderr,
               "footprint-probe patching=%d modules_patched=%ld launches=%ld recorded=%ld unrecorded=%ld "
               "cupti_launches=%ld failures=%ld%s%s\n",
               static_cast<int>(o.patching), n.modules_patched, n.launches, n.recorded, n.unrecorded,
               o.cupti ? fp::cupti_launches() : -1L, n.failures, n.failures ? " first: " : "",
               fp::recorder().first_failure().c_str());
}

int initialize() {
  options() = read_options();
  const Options& o = options();
  std::string why;
  if (!fp::recorder().start(o.patch, o.patching, why)) {
    std::fprintf(stderr, "footprint-probe: the Sanitizer API refused: %s\n", why.c_str());
    return 1;
  }
  if (o.cupti) {
    const int refused = fp::count_cupti_launches();
    if (refused != 0)
      std::fprintf(stderr, "footprint-probe: cuptiSubscribe beside the Sanitizer API failed (%d)\n", refused);
  }
  std::atexit(report_at_exit);
  return 0;
}

}  // namespace

// The injection entry point (CUDA_INJECTION64_PATH). Preloaded instead, the probe starts when it is loaded.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  static const int once = initialize();
  return once == 0 ? 1 : 0;
}

namespace {
const int started_when_loaded = InitializeInjection();
}  // namespace
