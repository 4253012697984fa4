// Every kernel's footprint by its name, read from the PTX the program's modules carry (fatbin.hpp): a text is
// searched for its entries only when a launch asks for a name not yet found, and a kernel is read once. CUDA-free;
// the caller serializes the calls.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "checker/ptx/fatbin.hpp"
#include "checker/ptx/kernel_reading.hpp"

namespace hazardlab::check::ptx {

class KernelCatalog {
 public:
  void add(FoundPtx found);

  // The footprint of the kernel whose entry is named `name` (its symbol, mangled as PTX has it); none when no text
  // holds it, or when texts of two modules hold different kernels of that name (which one a launch ran is not known).
  // A name found is kept: a module loaded later with another kernel of that name is not weighed against it.
  const KernelFootprint* find(std::string_view name);

  std::size_t texts() const { return texts_.size(); }
  std::size_t unreadable() const { return unreadable_; }

 private:
  void index_new_texts();
  std::vector<std::string> texts_;
  std::size_t indexed_ = 0, unreadable_ = 0;
  std::unordered_map<std::string, std::vector<std::size_t>> holders_;  // a name's texts
  std::unordered_map<std::string, std::optional<KernelFootprint>> read_;
};

}  // namespace hazardlab::check::ptx
