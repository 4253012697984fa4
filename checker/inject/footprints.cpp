// Exact footprints (`hazardlab check --footprints`): the recorder (checker/footprints/) is loaded with dlopen, since
// it links NVIDIA's Sanitizer library and the checker runs where that library is not. Each launch takes the ticket
// of the record the recorder gave it; after a synchronization the footprints of the launches the host now knows ran
// are read back and judged (footprint_order.hpp); at the end the ones that never came are judged by the rule.
#include <dlfcn.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checker/inject/handlers.hpp"
#include "checker/inject/reporting.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

void take_footprint(void*, std::uint64_t ticket, const hl_footprint_range* ranges, std::size_t count, int complete) {
  std::optional<std::vector<DeviceRange>> exact;
  if (complete != 0) {
    exact.emplace();
    for (std::size_t i = 0; i < count; ++i)
      exact->push_back({ranges[i].begin, ranges[i].end, ranges[i].write ? DeviceAccessKind::Write : DeviceAccessKind::Read});
  }
  session().checker.kernel_footprint(ticket, std::move(exact));
}

}  // namespace

void start_footprints(const std::string& library) {
  Session& in = session();
  const auto without = [&](const std::string& why) {
    in.writer.note("exact footprints were asked for but not taken (" + why +
                   "): every kernel was judged by the element its pointer arguments point to");
  };
  void* recorder = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (recorder == nullptr) return without(std::string("the recorder did not load: ") + ::dlerror());
  const auto start = reinterpret_cast<hl_footprints_start_fn>(::dlsym(recorder, HL_FOOTPRINTS_START));
  const auto ticket = reinterpret_cast<hl_footprints_take_ticket_fn>(::dlsym(recorder, HL_FOOTPRINTS_TAKE_TICKET));
  const auto collect = reinterpret_cast<hl_footprints_collect_fn>(::dlsym(recorder, HL_FOOTPRINTS_COLLECT));
  if (start == nullptr || ticket == nullptr || collect == nullptr) return without(library + " is not the recorder");
  const std::string patch = (std::filesystem::path(library).parent_path() / "footprint_patch.fatbin").string();
  char why[512] = {};
  if (start(patch.c_str(), why, sizeof why) != 0) return without(std::string("the Sanitizer API refused: ") + why);
  in.footprint_ticket = ticket;
  in.collect_footprints = collect;
}

FootprintTicket launch_footprint() {
  const hl_footprints_take_ticket_fn ticket = session().footprint_ticket;
  return ticket != nullptr ? ticket() : 0;
}

void collect_footprints() {
  Session& in = session();
  if (in.collect_footprints == nullptr) return;
  const std::vector<FootprintTicket> known = in.checker.footprints_known();
  if (known.empty()) return;
  {
    const OurCall ours;  // the recorder's own copies are not the program's
    in.collect_footprints(known.data(), known.size(), take_footprint, nullptr);
  }
  write_races();
}

void footprints_at_exit() {
  collect_footprints();
  session().checker.give_up_footprints();
  write_races();
}

}  // namespace hazardlab::check::inject
