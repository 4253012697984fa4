#include "hazardlab/host_memory_kind.hpp"

#include <utility>

namespace hazardlab {
namespace {

// Each kind's one spelling, in the record and the reports alike.
constexpr std::pair<HostMemoryKind, std::string_view> kNames[] = {
    {HostMemoryKind::Pageable, "pageable"},     {HostMemoryKind::Pinned, "pinned"},
    {HostMemoryKind::PinnedPortable, "pinned-portable"}, {HostMemoryKind::Registered, "registered"},
    {HostMemoryKind::Mapped, "mapped"},         {HostMemoryKind::WriteCombined, "write-combined"}};

}  // namespace

std::string_view to_string(HostMemoryKind kind) noexcept {
  for (const auto& [k, name] : kNames)
    if (k == kind) return name;
  return "?";
}

std::optional<HostMemoryKind> host_memory_kind_from_string(std::string_view name) noexcept {
  for (const auto& [k, spelling] : kNames)
    if (spelling == name) return k;
  return std::nullopt;
}

bool is_page_locked(HostMemoryKind kind) noexcept { return kind != HostMemoryKind::Pageable; }

}  // namespace hazardlab
