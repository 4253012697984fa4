#include "checker/ptx/kernel_catalog.hpp"

namespace hazardlab::check::ptx {

void KernelCatalog::add(FoundPtx found) {
  unreadable_ += found.unreadable;
  for (std::string& text : found.texts) texts_.push_back(std::move(text));
}

void KernelCatalog::index_new_texts() {
  for (; indexed_ < texts_.size(); ++indexed_)
    for (std::string& name : entry_names(texts_[indexed_])) holders_[std::move(name)].push_back(indexed_);
}

const KernelFootprint* KernelCatalog::find(std::string_view name) {
  const std::string key(name);
  if (auto it = read_.find(key); it != read_.end() && (it->second || indexed_ == texts_.size()))
    return it->second ? &*it->second : nullptr;
  index_new_texts();
  std::optional<KernelFootprint> footprint;
  if (auto holders = holders_.find(key); holders != holders_.end()) {
    std::optional<PtxFunction> first;
    bool same_everywhere = true;
    for (std::size_t text : holders->second) {
      std::optional<PtxFunction> function = read_entry(texts_[text], name);
      if (!first) first = std::move(function);
      else if (!function || function->instructions != first->instructions) same_everywhere = false;
    }
    if (first && same_everywhere) footprint = read_kernel(*first);
  }
  auto& slot = read_[key];
  slot = std::move(footprint);
  return slot ? &*slot : nullptr;
}

}  // namespace hazardlab::check::ptx
