#include "checker/core/key_plan.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hazardlab::check {

namespace {

// ReadWrite < ReadOnly < None: the order of strictness.
int strictness(PageAccess a) { return a == PageAccess::None ? 2 : a == PageAccess::ReadOnly ? 1 : 0; }
PageAccess stricter(PageAccess a, PageAccess b) { return strictness(a) >= strictness(b) ? a : b; }
PageAccess access_of(Hold hold) { return hold == Hold::NoAccess ? PageAccess::None : PageAccess::ReadOnly; }
bool allows(PageAccess rights, bool write) { return write ? rights == PageAccess::ReadWrite : rights != PageAccess::None; }
// As far as one instruction needs: a read is opened for reading only, so that the same instruction's write
// (a read-modify-write) faults again and is seen.
PageAccess as_far_as(bool write) { return write ? PageAccess::ReadWrite : PageAccess::ReadOnly; }

}  // namespace

KeyPlan::KeyPlan(std::vector<int> range_keys, int no_writes, int no_access)
    : keys_(std::move(range_keys)), no_writes_(no_writes), no_access_(no_access) {
  const auto valid = [](int key) { return key > 0 && key < kKeyCount; };
  if (!valid(no_writes_) || !valid(no_access_) || !std::all_of(keys_.begin(), keys_.end(), valid))
    throw std::invalid_argument("a protection key outside 1 to " + std::to_string(kKeyCount - 1));
}

std::vector<KeyAction> KeyPlan::thread_started(ThreadId thread) {
  for (int key = 0; key < kKeyCount; ++key) set_rights(thread, key, PageAccess::None);  // an id used again
  std::vector<KeyAction> actions;
  for (int key : keys_) actions.push_back({KeyAction::Kind::SetThreadRights, 0, 0, key, PageAccess::None});
  actions.push_back({KeyAction::Kind::SetThreadRights, 0, 0, no_writes_, PageAccess::ReadOnly});
  actions.push_back({KeyAction::Kind::SetThreadRights, 0, 0, no_access_, PageAccess::None});
  return actions;
}

void KeyPlan::thread_exited(ThreadId thread) {
  for (int key = 0; key < kKeyCount; ++key) set_rights(thread, key, PageAccess::None);
}

std::vector<KeyAction> KeyPlan::pinned(ThreadId thread, std::uintptr_t begin, std::uintptr_t end) {
  begin = page_floor(begin);
  end = page_ceil(end);
  if (begin >= end) return {};
  const int key = keys_.empty() ? 0 : keys_[next_key_++ % keys_.size()];
  // Pages another range covers already keep its key (the two share those pages); the rest is this range's.
  std::vector<KeyAction> actions;
  std::uintptr_t at = begin;
  auto it = first_range_from(begin);
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> gaps;
  for (; it != ranges_.end() && it->first < end; ++it) {
    ++it->second.pinnings;
    if (it->first > at) gaps.emplace_back(at, it->first);
    at = std::max(at, it->second.end);
  }
  if (at < end) gaps.emplace_back(at, end);
  if (key != 0 && !gaps.empty()) {
    // Opened fully for the pinning thread, before the tag: the key's holds on other ranges move to the strict
    // keys first, as at a fault beside them.
    if (needed(key) != PageAccess::ReadWrite) move_to_strict(key, actions);
    if (rights(thread, key) != PageAccess::ReadWrite) {
      set_rights(thread, key, PageAccess::ReadWrite);
      actions.push_back({KeyAction::Kind::SetThreadRights, 0, 0, key, PageAccess::ReadWrite});
    }
  }
  for (const auto& [b, e] : gaps) {
    ranges_[b] = Range{e, key, 1};
    if (key != 0) actions.push_back({KeyAction::Kind::TagPages, b, e, key, {}});
  }
  return actions;
}

std::vector<KeyAction> KeyPlan::unpinned(std::uintptr_t begin, std::uintptr_t end) {
  begin = page_floor(begin);
  end = page_ceil(end);
  std::vector<KeyAction> actions;
  auto it = first_range_from(begin);
  while (it != ranges_.end() && it->first < end) {
    if (--it->second.pinnings > 0) {
      ++it;
      continue;
    }
    if (it->second.key != 0) actions.push_back({KeyAction::Kind::TagPages, it->first, it->second.end, 0, {}});
    it = ranges_.erase(it);
  }
  return actions;
}

namespace {
// For both constnesses of the map of ranges.
template <class Ranges>
auto first_range_in(Ranges& ranges, std::uintptr_t address) {
  auto it = ranges.upper_bound(address);
  if (it != ranges.begin() && std::prev(it)->second.end > address) --it;
  return it;
}
}  // namespace

KeyPlan::Ranges::iterator KeyPlan::first_range_from(std::uintptr_t address) {
  return first_range_in(ranges_, address);
}

KeyPlan::Ranges::const_iterator KeyPlan::first_range_from(std::uintptr_t address) const {
  return first_range_in(ranges_, address);
}

const KeyPlan::Range* KeyPlan::range_at(std::uintptr_t address) const {
  const auto it = first_range_from(address);
  return it != ranges_.end() && it->first <= address ? &it->second : nullptr;
}

PageAccess KeyPlan::needed(int key) const {
  return holds_[static_cast<std::size_t>(key)].strictest();
}

PageAccess KeyPlan::rights(ThreadId thread, int key) const {
  if (key == no_writes_) return PageAccess::ReadOnly;
  if (key == no_access_) return PageAccess::None;
  const OpenThreads& threads = open_[static_cast<std::size_t>(key)];
  const auto t = std::find_if(threads.begin(), threads.end(), [&](const auto& o) { return o.first == thread; });
  return t == threads.end() ? PageAccess::None : t->second;
}

void KeyPlan::set_rights(ThreadId thread, int key, PageAccess rights) {
  OpenThreads& threads = open_[static_cast<std::size_t>(key)];
  const auto t = std::find_if(threads.begin(), threads.end(), [&](const auto& o) { return o.first == thread; });
  if (rights == PageAccess::None) {
    if (t != threads.end()) threads.erase(t);
  } else if (t != threads.end()) {
    t->second = rights;
  } else {
    threads.emplace_back(thread, rights);
  }
}

bool KeyPlan::others_hold_open(ThreadId thread, int key, PageAccess need) const {
  for (const auto& [other, rights] : open_[static_cast<std::size_t>(key)])
    if (other != thread && strictness(rights) < strictness(need)) return true;
  return false;
}

int KeyPlan::strict_key_of(PageAccess access) const { return access == PageAccess::None ? no_access_ : no_writes_; }

int KeyPlan::tag_at(std::uintptr_t address) const {
  if (const PageAccess a = strict_holds_.access_at(address); a != PageAccess::ReadWrite) return strict_key_of(a);
  const Range* r = range_at(address);
  return r == nullptr ? 0 : r->key;
}

void KeyPlan::to_strict(const std::vector<PageChange>& changes, std::vector<KeyAction>& actions) const {
  // Pages whose strict access changed: tagged with the strict key of their access now, or, let go of by every
  // hold, with their range's key again (0 between ranges).
  for (const PageChange& c : changes) {
    if (c.access != PageAccess::ReadWrite) {
      actions.push_back({KeyAction::Kind::TagPages, c.begin, c.end, strict_key_of(c.access), {}});
      continue;
    }
    std::uintptr_t at = c.begin;
    while (at < c.end) {
      const auto it = first_range_from(at);
      const Range* r = it != ranges_.end() && it->first <= at ? &it->second : nullptr;
      const std::uintptr_t next = r != nullptr ? std::min(r->end, c.end)
                                  : it != ranges_.end() ? std::min(it->first, c.end)
                                                        : c.end;
      actions.push_back({KeyAction::Kind::TagPages, at, next, r != nullptr ? r->key : 0, {}});
      at = next;
    }
  }
}

const std::vector<KeyAction>& KeyPlan::hold(ThreadId thread, std::uintptr_t begin, std::uintptr_t end, Hold hold) {
  std::vector<KeyAction>& actions = actions_;
  actions.clear();
  if (begin >= end) return actions;
  // The range keys of the copy's pages (0 for pages of no range); pages already held on a strict key stay
  // there, so that the two holds' access is one tag.
  const bool on_strict = strict_holds_.any_held(page_floor(begin), page_ceil(end));
  std::vector<int>& span_keys = span_keys_;
  span_keys.clear();
  for (std::uintptr_t p = page_floor(begin); p < end;) {
    const Range* r = range_at(p);
    const int k = r == nullptr ? 0 : r->key;
    if (std::find(span_keys.begin(), span_keys.end(), k) == span_keys.end()) span_keys.push_back(k);
    p = r == nullptr ? p + page_size() : std::max(p + page_size(), r->end);
  }
  const int key = span_keys.size() == 1 ? span_keys.front() : 0;
  const PageAccess need = key > 0 ? stricter(needed(key), access_of(hold)) : PageAccess::None;
  if (key <= 0 || on_strict || others_hold_open(thread, key, need)) {
    // Another thread holds the key open, and only a signal could close it there; or the pages carry several
    // keys: the pages move instead, with every page their keys hold now (a page of them held again must carry
    // the two holds' strictest access).
    for (int k : span_keys)
      if (k != 0) move_to_strict(k, actions);
    held_.push_back({begin, end, hold, key, true});
    to_strict(strict_holds_.add(begin, end, hold), actions);
    return actions;
  }
  held_.push_back({begin, end, hold, key, false});
  holds_[static_cast<std::size_t>(key)].add(begin, end, hold);
  // The issuing thread's rights become exactly what the key's holds allow: closed further if it had the key
  // open, opened as far as they allow if it had it closed (reading its own held source is no fault).
  if (rights(thread, key) == need) return actions;
  set_rights(thread, key, need);
  actions.push_back({KeyAction::Kind::SetThreadRights, 0, 0, key, need});
  return actions;
}

std::vector<KeyPlan::HeldCopy>::iterator KeyPlan::held_copy(std::uintptr_t begin, std::uintptr_t end, Hold hold) {
  return std::find_if(held_.begin(), held_.end(),
                      [&](const HeldCopy& h) { return h.begin == begin && h.end == end && h.hold == hold; });
}

const std::vector<KeyAction>& KeyPlan::release(ThreadId thread, std::uintptr_t begin, std::uintptr_t end, Hold hold) {
  std::vector<KeyAction>& actions = actions_;
  actions.clear();
  const auto h = held_copy(begin, end, hold);
  if (h == held_.end()) return actions;
  const int key = h->key;
  const bool strict = h->strict;
  held_.erase(h);
  if (strict) {
    to_strict(strict_holds_.remove(begin, end, hold), actions);  // the pages go home as holds let go
    return actions;
  }
  holds_[static_cast<std::size_t>(key)].remove(begin, end, hold);
  // The thread that learnt of the release opens its own rights as far as the key's other holds allow; the other
  // threads keep theirs closed and open them at their next access, once.
  const PageAccess need = needed(key);
  if (strictness(rights(thread, key)) <= strictness(need)) return actions;
  set_rights(thread, key, need);
  actions.push_back({KeyAction::Kind::SetThreadRights, 0, 0, key, need});
  return actions;
}

KeyFaultDecision KeyPlan::fault(ThreadId thread, std::uintptr_t address, bool write) {
  using Kind = KeyFaultDecision::Kind;
  if (const PageAccess strict = strict_holds_.access_at(address); strict != PageAccess::ReadWrite) {
    // A thread that keeps the no-writes key closed further than every thread does (one that ran before the
    // keys were allocated, or a signal handler, which starts with every key closed) takes the usual rights:
    // reading a copy's source is never a finding.
    if (strict == PageAccess::ReadOnly && !write) return {Kind::OpenForGood, no_writes_, PageAccess::ReadOnly, {}};
    return {Kind::OneInstruction, strict_key_of(strict), as_far_as(write), {}};
  }
  const Range* r = range_at(address);
  if (r == nullptr || r->key == 0) return {};
  const int key = r->key;
  const PageAccess need = needed(key);
  if (allows(need, write)) {
    set_rights(thread, key, need);
    return {Kind::OpenForGood, key, need, {}};
  }
  if (!allows(holds_[static_cast<std::size_t>(key)].access_at(address), write))
    return {Kind::OneInstruction, key, as_far_as(write), {}};  // the page itself forbids it
  // A neighbour of held pages under the same key: the held pages move to the strict keys, so that this
  // thread's accesses to the rest of the key's ranges stop faulting (once per hold, not once per access).
  KeyFaultDecision d{Kind::OpenForGood, key, PageAccess::ReadWrite, {}};
  move_to_strict(key, d.actions);
  set_rights(thread, key, PageAccess::ReadWrite);
  return d;
}

void KeyPlan::move_to_strict(int key, std::vector<KeyAction>& actions) {
  for (HeldCopy& moved : held_)
    if (moved.key == key) moved.strict = true;
  to_strict(holds_[static_cast<std::size_t>(key)].move_all_into(strict_holds_), actions);
}

std::vector<KeyAction> KeyPlan::kernel_access(ThreadId thread, std::uintptr_t begin, std::uintptr_t end, bool write) {
  std::vector<KeyAction> actions;
  if (begin >= end) return actions;
  // Held pages on the no-writes key may be read by every thread: a thread that ran before the keys existed has
  // that key closed further, and the kernel's read would fail where its own read would have faulted once.
  if (!write && strict_holds_.any_held(page_floor(begin), page_ceil(end)))
    actions.push_back({KeyAction::Kind::SetThreadRights, 0, 0, no_writes_, PageAccess::ReadOnly});
  std::vector<int> span_keys;
  for (auto it = first_range_from(page_floor(begin)); it != ranges_.end() && it->first < end; ++it)
    if (it->second.key != 0 && std::find(span_keys.begin(), span_keys.end(), it->second.key) == span_keys.end())
      span_keys.push_back(it->second.key);
  for (int key : span_keys) {
    PageAccess open_to = needed(key);
    if (!allows(open_to, write)) {
      // A hold of the key forbids the access (on these pages or on others of the key): as at a fault beside
      // held pages, they move to the strict keys, and the key opens fully.
      move_to_strict(key, actions);
      open_to = PageAccess::ReadWrite;
    }
    if (strictness(rights(thread, key)) <= strictness(open_to)) continue;  // open that far already
    set_rights(thread, key, open_to);
    actions.push_back({KeyAction::Kind::SetThreadRights, 0, 0, key, open_to});
  }
  return actions;
}

}  // namespace hazardlab::check
