#pragma once
// A hazard's own parameters. Beyond size, memory kind, stream and gate, which every case has, a
// hazard may vary things of its own (ring slots, registered pages, what consumes a buffer). It
// declares each one once, with its range and meaning, and its trials read the value back through
// the same declaration: no code gives a bare number a meaning by convention.
//
//   const Parameter kSlots{"slots", 1, 8, "pinned staging slots used in turn"};
//   space.parameters = {kSlots.only(2)};          // the positive control: always two slots
//   const std::uint32_t slots = c.params[kSlots];  // in the trial
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hazardlab {

struct Parameter {
  // A count or size, valued min .. max.
  Parameter(std::string name_, std::uint32_t min_, std::uint32_t max_, std::string meaning_)
      : name(std::move(name_)), min(min_), max(max_), meaning(std::move(meaning_)) {}

  std::string name;  // lower-case-dashed: how cases name it in descriptions and JSON
  std::uint32_t min = 0;
  std::uint32_t max = 0;
  std::string meaning;              // one line for the reader of the lesson or of a failing case
  std::vector<std::string> labels;  // a choice: labels[v] names value v (then min is 0); empty: a count

  // A choice among named alternatives, valued 0 .. labels.size() - 1.
  static Parameter choice(std::string name, std::vector<std::string> labels, std::string meaning);
  // The same parameter over a narrower range (throws std::invalid_argument outside the declared one).
  Parameter between(std::uint32_t lo, std::uint32_t hi) const;
  Parameter only(std::uint32_t value) const { return between(value, value); }
  std::uint32_t count() const noexcept { return max - min + 1; }
  std::string value_text(std::uint32_t value) const;  // the label of a choice, else the number
};

// The values one case has, for the parameters of its variant's case space.
class ParameterValues {
 public:
  // Throws std::invalid_argument when `value` is outside the parameter's range.
  void set(const Parameter& parameter, std::uint32_t value);
  // Throws std::logic_error when the case has no parameter of that name: a trial that reads a
  // parameter its case space does not declare is a bug in the hazard.
  std::uint32_t operator[](const Parameter& parameter) const;
  // A choice read as the enum whose enumerators are listed in the same order as its labels.
  template <typename Enum>
  Enum as(const Parameter& parameter) const {
    return static_cast<Enum>((*this)[parameter]);
  }
  bool empty() const noexcept { return values_.empty(); }
  std::string describe() const;          // ", slots 2, batches 3"
  void add_to(nlohmann::json& j) const;  // {"slots": 2, "consumer": "kernel"}

 private:
  struct Value {
    std::string name;
    std::uint32_t value;
    std::string label;  // a choice's label for the value; empty for a count
  };
  std::vector<Value> values_;
};

}  // namespace hazardlab
