#include "checker/ptx/polynomial.hpp"

#include <algorithm>

namespace hazardlab::check::ptx {
namespace {

constexpr Wide kInf = Interval::kInfinity;

Wide clamp(Wide v) { return std::clamp(v, -kInf, kInf); }

// A product of two bounds, saturating at the infinities: a product past 2^100 in size is unbounded, decided by
// division before multiplying, so that nothing overflows 128 bits.
Wide product(Wide a, Wide b) {
  if (a == 0 || b == 0) return 0;
  const bool negative = (a < 0) != (b < 0);
  const Wide ma = a < 0 ? -a : a, mb = b < 0 ? -b : b;
  if (ma >= kInf || mb >= kInf || ma > kInf / mb) return negative ? -kInf : kInf;
  return negative ? -(ma * mb) : ma * mb;
}

}  // namespace

Interval operator+(Interval a, Interval b) {
  auto sum = [](Wide x, Wide y) {
    if (x <= -kInf || y <= -kInf) return -kInf;
    if (x >= kInf || y >= kInf) return kInf;
    return clamp(x + y);
  };
  return {sum(a.lo, b.lo), sum(a.hi, b.hi)};
}

Interval operator*(Interval a, Interval b) {
  const Wide c[4] = {product(a.lo, b.lo), product(a.lo, b.hi), product(a.hi, b.lo), product(a.hi, b.hi)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

Polynomial Polynomial::constant(std::int64_t value) {
  Polynomial p;
  p.add({}, value);
  return p;
}

Polynomial Polynomial::of(Symbol symbol) {
  Polynomial p;
  p.add({symbol}, 1);
  return p;
}

void Polynomial::add(const Monomial& m, Wide coefficient) {
  if (coefficient == 0) return;
  auto [at, inserted] = terms_.try_emplace(m, coefficient);
  if (inserted) return;
  at->second += coefficient;
  if (at->second == 0) terms_.erase(at);
}

Polynomial Polynomial::operator+(const Polynomial& other) const {
  Polynomial p = *this;
  for (const auto& [m, c] : other.terms_) p.add(m, c);
  return p;
}

Polynomial Polynomial::operator-(const Polynomial& other) const { return *this + other.scaled(-1); }

Polynomial Polynomial::scaled(std::int64_t factor) const {
  Polynomial p;
  for (const auto& [m, c] : terms_) p.add(m, c * factor);
  return p;
}

std::optional<Polynomial> Polynomial::times(const Polynomial& other) const {
  Polynomial p;
  for (const auto& [ma, ca] : terms_)
    for (const auto& [mb, cb] : other.terms_) {
      if (ma.size() + mb.size() > 4) return std::nullopt;
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      p.add(m, ca * cb);
    }
  return p;
}

std::optional<std::int64_t> Polynomial::as_constant() const {
  if (terms_.empty()) return 0;
  if (terms_.size() == 1 && terms_.begin()->first.empty()) return static_cast<std::int64_t>(terms_.begin()->second);
  return std::nullopt;
}

std::string to_string(const Polynomial& p) {
  auto name = [](const Symbol& s) -> std::string {
    const std::string axis(1, static_cast<char>('x' + s.axis));
    switch (s.kind) {
      case SymbolKind::Parameter:
        return "arg" + std::to_string(s.index) + (s.offset ? "+" + std::to_string(s.offset) : "");
      case SymbolKind::BlockDim: return "ntid." + axis;
      case SymbolKind::GridDim: return "nctaid." + axis;
      case SymbolKind::Thread: return "tid." + axis;
      case SymbolKind::Block: return "ctaid." + axis;
      case SymbolKind::Iteration: return "pass" + std::to_string(s.index);
      case SymbolKind::Variable: return "var" + std::to_string(s.index);
      case SymbolKind::Private: return "private";
    }
    return "?";
  };
  std::string out;
  for (const auto& [monomial, coefficient] : p.terms()) {
    const bool negative = coefficient < 0;
    const Wide size = negative ? -coefficient : coefficient;
    out += out.empty() ? (negative ? "-" : "") : (negative ? " - " : " + ");
    std::string factors;
    for (const Symbol& s : monomial) factors += (factors.empty() ? "" : "*") + name(s);
    const std::string number = std::to_string(static_cast<std::int64_t>(size));
    out += factors.empty() ? number : (size == 1 ? factors : number + "*" + factors);
  }
  return out.empty() ? "0" : out;
}

}  // namespace hazardlab::check::ptx
