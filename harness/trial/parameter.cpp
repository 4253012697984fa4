#include "trial/parameter.hpp"

#include <stdexcept>

namespace hazardlab {

Parameter Parameter::choice(std::string name, std::vector<std::string> labels, std::string meaning) {
  if (labels.empty()) throw std::invalid_argument("parameter '" + name + "': a choice needs at least one label");
  const auto top = static_cast<std::uint32_t>(labels.size() - 1);
  Parameter choice(std::move(name), 0, top, std::move(meaning));
  choice.labels = std::move(labels);
  return choice;
}

Parameter Parameter::between(std::uint32_t lo, std::uint32_t hi) const {
  if (lo > hi || lo < min || hi > max) {
    throw std::invalid_argument("parameter '" + name + "': [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "] is not within its declared range [" + std::to_string(min) + ", " +
                                std::to_string(max) + "]");
  }
  Parameter narrower = *this;
  narrower.min = lo;
  narrower.max = hi;
  return narrower;
}

std::string Parameter::value_text(std::uint32_t value) const {
  if (value < labels.size()) return labels[value];
  return std::to_string(value);
}

void ParameterValues::set(const Parameter& parameter, std::uint32_t value) {
  if (value < parameter.min || value > parameter.max) {
    throw std::invalid_argument("parameter '" + parameter.name + "' = " + std::to_string(value) + " is outside [" +
                                std::to_string(parameter.min) + ", " + std::to_string(parameter.max) + "]");
  }
  Value entry{parameter.name, value, parameter.labels.empty() ? std::string() : parameter.value_text(value)};
  for (Value& v : values_) {
    if (v.name == parameter.name) {
      v = std::move(entry);
      return;
    }
  }
  values_.push_back(std::move(entry));
}

std::uint32_t ParameterValues::operator[](const Parameter& parameter) const {
  for (const Value& v : values_) {
    if (v.name == parameter.name) return v.value;
  }
  throw std::logic_error("the case has no parameter '" + parameter.name +
                         "': add it to the parameters of the variant's case space");
}

std::string ParameterValues::describe() const {
  std::string out;
  for (const Value& v : values_) out += ", " + v.name + ' ' + (v.label.empty() ? std::to_string(v.value) : v.label);
  return out;
}

void ParameterValues::add_to(nlohmann::json& j) const {
  for (const Value& v : values_) {
    if (v.label.empty()) {
      j[v.name] = v.value;
    } else {
      j[v.name] = v.label;
    }
  }
}

}  // namespace hazardlab
