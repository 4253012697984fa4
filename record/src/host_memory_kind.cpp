#include "hazardlab/host_memory_kind.hpp"

namespace hazardlab {

std::string_view to_string(HostMemoryKind kind) noexcept {
  switch (kind) {
    case HostMemoryKind::Pageable:
      return "pageable";
    case HostMemoryKind::Pinned:
      return "pinned";
    case HostMemoryKind::PinnedPortable:
      return "pinned-portable";
    case HostMemoryKind::Registered:
      return "registered";
    case HostMemoryKind::Mapped:
      return "mapped";
    case HostMemoryKind::WriteCombined:
      return "write-combined";
  }
  return "?";
}

std::optional<HostMemoryKind> host_memory_kind_from_string(std::string_view name) noexcept {
  for (HostMemoryKind k : {HostMemoryKind::Pageable, HostMemoryKind::Pinned, HostMemoryKind::PinnedPortable,
                           HostMemoryKind::Registered, HostMemoryKind::Mapped, HostMemoryKind::WriteCombined}) {
    if (to_string(k) == name) return k;
  }
  return std::nullopt;
}

bool is_page_locked(HostMemoryKind kind) noexcept { return kind != HostMemoryKind::Pageable; }

}  // namespace hazardlab
