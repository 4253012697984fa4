// What a kernel's integer values are made of, as the PTX reading (kernel_reading.hpp) keeps them: polynomials
// with integer coefficients over the launch's symbols. A parameter's word, the block's and the grid's extent are
// exact once the kernel is launched; a thread's index, a block's index and a loop's iteration count range over
// intervals. Values are mathematical integers: every place where PTX could wrap a value is a check, kept beside
// the value and tested at the launch (footprint_at_launch.hpp), so that a polynomial never stands for a wrapped
// value. CUDA-free.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hazardlab::check::ptx {

// Wide enough that no sum or product of 64-bit words the reading makes overflows before it is bounded.
__extension__ using Wide = __int128;

enum class SymbolKind : std::uint8_t {
  Parameter,  // a word of a kernel parameter: exact at the launch
  BlockDim,   // %ntid: exact
  GridDim,    // %nctaid: exact
  Thread,     // %tid: 0 .. %ntid - 1
  Block,      // %ctaid: 0 .. %nctaid - 1
  Iteration,  // how many times a loop's back edge was taken before: 0 and up
  Variable,   // the address of a variable of the module (`index` in KernelFootprint::module_variables)
  Private,    // an address in the kernel's own space: shared, local or constant memory made generic
};

struct Symbol {
  SymbolKind kind = SymbolKind::Parameter;
  std::uint8_t axis = 0;          // x, y, z for the launch's symbols
  std::uint16_t index = 0;        // the parameter's position, or the loop's header block
  std::uint16_t offset = 0;       // the word's byte offset in the parameter
  std::uint8_t bytes = 0;         // the word's size: 1, 2, 4 or 8
  bool is_signed = false;         // how the word is read
  auto operator<=>(const Symbol&) const = default;
  [[nodiscard]] bool exact() const {
    return kind == SymbolKind::Parameter || kind == SymbolKind::BlockDim || kind == SymbolKind::GridDim;
  }
};

using Monomial = std::vector<Symbol>;  // a product of symbols, sorted; empty: the constant term

// An interval of integers; a bound past kInfinity in size is unbounded.
struct Interval {
  static constexpr Wide kInfinity = static_cast<Wide>(1) << 100;
  Wide lo = 0, hi = 0;
  [[nodiscard]] bool bounded() const { return lo > -kInfinity && hi < kInfinity; }
  [[nodiscard]] bool within(Wide min, Wide max) const { return lo >= min && hi <= max; }
};
Interval operator+(Interval a, Interval b);
Interval operator*(Interval a, Interval b);

class Polynomial {
 public:
  Polynomial() = default;
  static Polynomial constant(std::int64_t value);
  static Polynomial of(Symbol symbol);

  Polynomial operator+(const Polynomial& other) const;
  Polynomial operator-(const Polynomial& other) const;
  Polynomial scaled(std::int64_t factor) const;
  // The product; none when a term would have more than four symbols (the reading then stops following it).
  std::optional<Polynomial> times(const Polynomial& other) const;
  bool operator==(const Polynomial&) const = default;

  [[nodiscard]] std::optional<std::int64_t> as_constant() const;
  [[nodiscard]] const std::map<Monomial, Wide>& terms() const { return terms_; }

 private:
  void add(const Monomial& m, Wide coefficient);
  std::map<Monomial, Wide> terms_;  // no zero coefficients
};

// As people read it: "4*ctaid.x*ntid.x + 4*tid.x + arg0 + 4*arg1" (arg1+8 for a word at offset 8, pass3 for a
// loop's iteration count).
std::string to_string(const Polynomial& p);

}  // namespace hazardlab::check::ptx
