#include "checker/agreement/device_races.hpp"

#include "conformance/model/happens_before.hpp"

namespace hazardlab::check::agreement {

using cf::CommandKind;

bool conflicting(Touch a, Touch b) {
  if (a == Touch::Write || b == Touch::Write) return true;
  return (a == Touch::MayWrite) != (b == Touch::MayWrite);
}

const char* to_string(Touch t) { return t == Touch::Read ? "read" : t == Touch::Write ? "write" : "may-write"; }

std::vector<DeviceTouch> device_touches(const cf::Program& p, cf::CommandIndex i) {
  const cf::Command& c = p.commands()[i];
  std::vector<DeviceTouch> out;
  auto add = [&](const std::vector<cf::BufferId>& buffers, Touch touch) {
    if (!buffers.empty() && p.buffer_kind(buffers[0]) == cf::BufferKind::Device) out.push_back({buffers[0], touch});
  };
  switch (c.kind) {
    case CommandKind::MemcpyAsync:
      add(c.reads, Touch::Read);
      add(c.writes, Touch::Write);
      break;
    case CommandKind::Kernel:
      add(c.reads, Touch::Read);
      add(c.writes, Touch::MayWrite);
      break;
    case CommandKind::MemsetAsync: add(c.writes, Touch::Write); break;
    default: break;
  }
  return out;
}

std::vector<DeviceRacePair> device_races(const cf::Program& p) {
  const cf::HappensBefore documented(p, cf::RuleSet::all());
  const auto& acts = documented.commands();
  std::vector<DeviceRacePair> races;
  for (cf::CommandIndex later = 0; later < p.commands().size(); ++later) {
    const std::vector<DeviceTouch> touched_later = device_touches(p, later);
    if (touched_later.empty() || acts[later].work == cf::kNoAction) continue;
    for (cf::CommandIndex earlier = 0; earlier < later; ++earlier) {
      if (acts[earlier].work == cf::kNoAction) continue;
      if (documented.ordered(acts[earlier].work, acts[later].work) ||
          documented.ordered(acts[later].work, acts[earlier].work))
        continue;
      bool clearable = false;
      for (cf::CommandIndex h = earlier + 1; h < later && !clearable; ++h)
        clearable = p.commands()[h].kind == CommandKind::HostFunc && acts[h].work != cf::kNoAction &&
                    documented.ordered(acts[earlier].work, acts[h].work);
      for (const DeviceTouch& e : device_touches(p, earlier))
        for (const DeviceTouch& l : touched_later)
          if (e.buffer == l.buffer && conflicting(e.touch, l.touch))
            races.push_back({earlier, later, e.buffer, e.touch, l.touch, clearable});
    }
  }
  return races;
}

}  // namespace hazardlab::check::agreement
