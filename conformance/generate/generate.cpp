#include "conformance/generate/generate.hpp"

#include <algorithm>
#include <map>

#include "conformance/generate/program_builder.hpp"

namespace hazardlab::conformance {
namespace {

using detail::kFirstMotif;

rc::Gen<RawCommand> gen_raw_command() {
  return rc::gen::apply(
      [](int kind, unsigned a, unsigned b, unsigned c, int probe) {
        return RawCommand{kind, a, b, c, probe == 0};
      },
      rc::gen::inRange(0, kFirstMotif + kMotifCount), rc::gen::inRange(0U, 8U), rc::gen::inRange(0U, 8U),
      rc::gen::inRange(0U, 8U), rc::gen::inRange(0, 6));
}

}  // namespace

rc::Gen<ProgramSpec> gen_program_spec() {
  return rc::gen::exec([] {
    ProgramSpec spec;
    spec.streams = *rc::gen::container<std::vector<int>>(*rc::gen::inRange(0, 3), rc::gen::inRange(0, 2));
    spec.events = *rc::gen::inRange(1, 4);
    spec.extra_buffers = *rc::gen::container<std::vector<int>>(*rc::gen::inRange(0, 2), rc::gen::inRange(0, 3));
    spec.commands = *rc::gen::container<std::vector<RawCommand>>(*rc::gen::inRange(4, 21), gen_raw_command());
    return spec;
  });
}

Program build_program(const ProgramSpec& spec) {
  detail::ProgramBuilder b;
  b.streams.push_back(kLegacyStream);
  for (int kind : spec.streams)
    b.streams.push_back(b.p.add_stream(kind == 0 ? StreamKind::Blocking : StreamKind::NonBlocking));
  for (int i = 0; i < std::max(1, spec.events); ++i) b.p.add_event();
  // Two of each kind, so that a copy, kernel or host function always has a second buffer to write.
  std::vector<int> kinds{0, 1, 2, 0, 1, 2};
  kinds.insert(kinds.end(), spec.extra_buffers.begin(), spec.extra_buffers.end());
  std::map<int, int> count;
  for (int k : kinds) {
    static const char* names[] = {"pinned", "pageable", "device"};
    const BufferKind kind = k == 0 ? BufferKind::HostPinned : k == 1 ? BufferKind::HostPageable : BufferKind::Device;
    const BufferId id = b.p.add_buffer(kind, names[k] + std::to_string(count[k]++));
    (kind == BufferKind::Device ? b.device : b.host).push_back(id);
    if (kind != BufferKind::HostPageable) b.settable.push_back(id);
    b.all.push_back(id);
  }
  for (const RawCommand& r : spec.commands)
    b.has_host_func = b.has_host_func || r.kind == int(CommandKind::HostFunc) ||
                      r.kind == kFirstMotif + int(Motif::HostFunctionBehindGate);
  for (const RawCommand& r : spec.commands) b.interpret(r);
  b.open_all();
  b.p.device_synchronize();
  for (BufferId id : b.all) b.p.host_read(id);
  return b.p;
}

}  // namespace hazardlab::conformance
