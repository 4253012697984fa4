#include "checker/core/kernel_signature.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace hazardlab::check {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// A parameter as the demangler writes it: "float const*", "float const* __restrict__", "float*",
// "at::detail::Array<char*, 3>". Only a pointer whose pointee is const, and no pointer beyond it, is read only.
bool pointer_to_const(std::string_view parameter) {
  parameter = trim(parameter);
  for (std::string_view qualifier : {"__restrict__", "__restrict", "restrict"})
    if (parameter.ends_with(qualifier)) parameter = trim(parameter.substr(0, parameter.size() - qualifier.size()));
  if (!parameter.ends_with('*')) return false;
  parameter.remove_suffix(1);
  return trim(parameter).ends_with(" const") && parameter.find('*') == std::string_view::npos;
}

// TensorIterator's pointer array: `at::detail::Array<char*, N>`, or `std::array<char*, N>` in later PyTorch.
bool outputs_first(std::string_view parameter) {
  parameter = trim(parameter);
  return parameter.starts_with("at::detail::Array<char*, ") || parameter.starts_with("std::array<char*, ");
}

}  // namespace

KernelSignature kernel_signature(std::string_view symbol) {
  KernelSignature signature{std::string(symbol), {}, false};
  if (!symbol.starts_with("_Z")) return signature;  // extern "C": no parameter types in the symbol
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(std::string(symbol).c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || text == nullptr) return signature;
  const std::string_view demangled(text.get());
  if (!demangled.ends_with(')')) return signature;
  // The parameter list is the last parenthesis: find where it opens, across nested ones.
  int depth = 0;
  std::size_t open = std::string_view::npos;
  for (std::size_t i = demangled.size(); i-- > 0;) {
    if (demangled[i] == ')') ++depth;
    if (demangled[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string_view::npos) return signature;
  signature.name = std::string(trim(demangled.substr(0, open)));
  if (signature.name.starts_with("void ")) signature.name.erase(0, 5);
  const std::string_view list = demangled.substr(open + 1, demangled.size() - open - 2);
  const bool elementwise = signature.name.starts_with("at::native::") &&
                           signature.name.find("elementwise_kernel") != std::string::npos;
  // Split at the commas outside any <>, () or [] ("()" and "(void)": no parameters).
  const bool no_parameters = trim(list).empty() || trim(list) == "void";
  std::size_t start = 0;
  depth = 0;
  for (std::size_t i = 0; !no_parameters && i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      const std::string_view parameter = trim(list.substr(start, i - start));
      signature.parameters.push_back(pointer_to_const(parameter)            ? ArgumentAccess::ReadOnly
                                     : elementwise && outputs_first(parameter) ? ArgumentAccess::OutputFirst
                                                                               : ArgumentAccess::MayWrite);
      start = i + 1;
    }
  }
  signature.parameters_known = true;
  return signature;
}

ArgumentAccess parameter_access(const KernelSignature& signature, std::size_t index, std::size_t count) {
  if (!signature.parameters_known || signature.parameters.size() != count || index >= count)
    return ArgumentAccess::MayWrite;
  return signature.parameters[index];
}

}  // namespace hazardlab::check
