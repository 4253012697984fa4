#include "checker/ptx/footprint_at_launch.hpp"

#include <algorithm>
#include <cstring>

namespace hazardlab::check::ptx {
namespace {

// A polynomial with the launch's exact symbols put in: terms over threads, blocks and iterations only.
using Ranged = std::map<Monomial, Wide>;

class Launch {
 public:
  Launch(const KernelFootprint& f, std::span<const std::span<const std::byte>> arguments, const LaunchShape& shape)
      : f_(f), arguments_(arguments), shape_(shape), held_(f.checks.size()) {}

  std::optional<Ranged> ranged(const Polynomial& p) const {
    Ranged out;
    for (const auto& [monomial, coefficient] : p.terms()) {
      Monomial rest;
      Wide c = coefficient;
      for (const Symbol& s : monomial) {
        if (!s.exact()) {
          rest.push_back(s);
          continue;
        }
        const std::optional<Wide> v = value_of(s);
        if (!v) return std::nullopt;
        const Wide size = *v < 0 ? -*v : *v, magnitude = c < 0 ? -c : c;
        if (size != 0 && magnitude > Interval::kInfinity / size) return std::nullopt;  // past any address
        c *= *v;
      }
      if (c != 0) out[rest] += c;
    }
    std::erase_if(out, [](const auto& t) { return t.second == 0; });
    return out;
  }

  [[nodiscard]] Interval natural(const Ranged& r) const {
    Interval sum{0, 0};
    for (const auto& [monomial, coefficient] : r) {
      Interval term{coefficient, coefficient};
      for (const Symbol& s : monomial) term = term * range_of(s);
      sum = sum + term;
    }
    return sum;
  }

  // The conditions usable here (their checks hold), as ranged polynomials that are at most zero; none when one of
  // them is false for this launch (the place is never reached).
  std::optional<std::vector<Ranged>> usable(const std::vector<Condition>& conditions) {
    std::vector<Ranged> out;
    for (const Condition& c : conditions) {
      if (!std::all_of(c.checks.begin(), c.checks.end(), [&](std::size_t i) { return holds(i); })) continue;
      std::optional<Ranged> r = ranged(c.at_most_zero);
      if (!r) continue;
      if (natural(*r).lo > 0) return std::nullopt;  // never true: nothing runs here
      out.push_back(std::move(*r));
    }
    return out;
  }

  // The value's interval where the conditions hold: for each condition L <= 0 that shares a term with the value,
  // value = a * L + rest, so value <= max(rest) when a > 0 and value >= min(rest) when a < 0.
  [[nodiscard]] Interval bounded(const Ranged& value, const std::vector<Ranged>& conditions) const {
    Interval r = natural(value);
    for (const Ranged& condition : conditions)
      for (const auto& [monomial, lc] : condition) {
        if (monomial.empty()) continue;
        const auto vc = value.find(monomial);
        if (vc == value.end() || vc->second % lc != 0) continue;
        const Wide a = vc->second / lc;
        Ranged rest = value;
        for (const auto& [m, c] : condition) rest[m] -= a * c;
        std::erase_if(rest, [](const auto& t) { return t.second == 0; });
        const Interval ri = natural(rest);
        if (a > 0) r.hi = std::min(r.hi, ri.hi);
        if (a < 0) r.lo = std::max(r.lo, ri.lo);
      }
    return r;
  }

  bool holds(std::size_t index) {
    if (held_[index]) return *held_[index];
    // While it is being decided, it is taken to hold. A check can need itself only around a loop: a loop's
    // index stays unwrapped while its exit test holds, and that test compares the index the check made on the
    // pass before. Its use is for the earlier passes, so the proof goes by induction over the passes.
    held_[index] = true;
    const RangeCheck& check = f_.checks[index];
    const std::optional<Ranged> value = ranged(check.value);
    bool ok = value.has_value();
    const std::vector<std::vector<Condition>> anywhere{{}};
    for (const auto& place : check.places.empty() ? anywhere : check.places) {
      if (!ok) break;
      const auto conditions = usable(place);
      if (!conditions) continue;  // not reached with this launch
      const Interval r = bounded(*value, *conditions);
      ok = r.within(check.min, check.max);
    }
    held_[index] = ok;
    return ok;
  }

 private:
  [[nodiscard]] std::optional<Wide> value_of(const Symbol& s) const {
    if (s.kind == SymbolKind::BlockDim) return shape_.block[s.axis];
    if (s.kind == SymbolKind::GridDim) return shape_.grid[s.axis];
    if (s.index >= arguments_.size() || s.offset + s.bytes > arguments_[s.index].size()) return std::nullopt;
    std::uint64_t bits = 0;
    std::memcpy(&bits, arguments_[s.index].data() + s.offset, s.bytes);  // the driver's words are little-endian
    if (!s.is_signed || s.bytes == 8) return s.is_signed ? static_cast<Wide>(static_cast<std::int64_t>(bits)) : bits;
    const int shift = 64 - 8 * s.bytes;
    return static_cast<Wide>(static_cast<std::int64_t>(bits << shift) >> shift);
  }

  [[nodiscard]] Interval range_of(const Symbol& s) const {
    if (s.kind == SymbolKind::Thread) return {0, static_cast<Wide>(shape_.block[s.axis]) - 1};
    if (s.kind == SymbolKind::Block) return {0, static_cast<Wide>(shape_.grid[s.axis]) - 1};
    return {0, Interval::kInfinity};  // a loop's iteration count
  }

  const KernelFootprint& f_;
  std::span<const std::span<const std::byte>> arguments_;
  LaunchShape shape_;
  std::vector<std::optional<bool>> held_;
};

}  // namespace

std::optional<std::vector<DeviceRange>> footprint_at_launch(const KernelFootprint& footprint,
                                                            std::span<const std::span<const std::byte>> arguments,
                                                            const LaunchShape& shape) {
  if (!footprint.complete) return std::nullopt;
  for (auto extent : {shape.grid, shape.block})
    if (std::find(extent.begin(), extent.end(), 0u) != extent.end()) return std::vector<DeviceRange>{};
  Launch launch(footprint, arguments, shape);
  std::vector<DeviceRange> ranges;
  for (const MemoryAccess& access : footprint.accesses) {
    if (!std::all_of(access.checks.begin(), access.checks.end(), [&](std::size_t i) { return launch.holds(i); }))
      return std::nullopt;
    const auto conditions = launch.usable(access.conditions);
    if (!conditions) continue;  // not reached with this launch's arguments
    const std::optional<Ranged> address = launch.ranged(access.address);
    if (!address) return std::nullopt;
    const Interval r = launch.bounded(*address, *conditions);
    const Wide top = static_cast<Wide>(UINT64_MAX);
    if (!r.bounded() || r.lo < 0 || r.hi + access.bytes > top) return std::nullopt;
    ranges.push_back({static_cast<std::uintptr_t>(r.lo), static_cast<std::uintptr_t>(r.hi + access.bytes), access.kind});
  }
  // One range per kind where they overlap or touch.
  std::sort(ranges.begin(), ranges.end(), [](const DeviceRange& a, const DeviceRange& b) {
    return a.kind != b.kind ? a.kind < b.kind : a.begin < b.begin;
  });
  std::vector<DeviceRange> merged;
  for (const DeviceRange& r : ranges) {
    if (!merged.empty() && merged.back().kind == r.kind && r.begin <= merged.back().end)
      merged.back().end = std::max(merged.back().end, r.end);
    else
      merged.push_back(r);
  }
  return merged;
}

}  // namespace hazardlab::check::ptx
