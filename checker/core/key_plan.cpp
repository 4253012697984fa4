#include "checker/core/key_plan.hpp"

#include <stdexcept>

namespace hazardlab::check {

namespace {

// ReadWrite < ReadOnly < None: the order of strictness.
int strictness(PageAccess a) { return a == PageAccess::None ? 2 : a == PageAccess::ReadOnly ? 1 : 0; }
PageAccess stricter(PageAccess a, PageAccess b) { return strictness(a) >= strictness(b) ? a : b; }
PageAccess access_of(Hold hold) { return hold == Hold::NoAccess ? PageAccess::None : PageAccess::ReadOnly; }
bool allows(PageAccess rights, bool write) { return write ? rights == PageAccess::ReadWrite : rights != PageAccess::None; }

}  // namespace

KeyPlan::KeyPlan(std::vector<int> keys, int strict) : keys_(std::move(keys)), strict_(strict) {
  if (keys_.empty()) throw std::invalid_argument("a key plan needs at least one key for ranges");
}

std::vector<KeyAction> KeyPlan::thread_started(ThreadId thread) {
  rights_[thread].clear();  // every key closed
  std::vector<KeyAction> actions;
  for (int key : keys_) actions.push_back({KeyAction::Kind::SetThreadRights, 0, 0, key, thread, PageAccess::None});
  actions.push_back({KeyAction::Kind::SetThreadRights, 0, 0, strict_, thread, PageAccess::None});
  return actions;
}

std::vector<KeyAction> KeyPlan::pinned(std::uintptr_t begin, std::uintptr_t end) {
  begin = page_floor(begin);
  end = page_ceil(end);
  const int key = keys_[next_key_++ % keys_.size()];
  ranges_[begin] = Range{end, key};
  return {{KeyAction::Kind::TagPages, begin, end, key, 0, PageAccess::ReadWrite}};
}

void KeyPlan::unpinned(std::uintptr_t begin, std::uintptr_t) { ranges_.erase(page_floor(begin)); }

const KeyPlan::Range* KeyPlan::range_at(std::uintptr_t address) const {
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return nullptr;
  --it;
  return address < it->second.end ? &it->second : nullptr;
}

PageAccess KeyPlan::needed(int key) const {
  auto it = holds_.find(key);
  return it == holds_.end() ? PageAccess::ReadWrite : it->second.strictest();
}

PageAccess KeyPlan::rights(ThreadId thread, int key) const {
  auto t = rights_.find(thread);
  if (t == rights_.end()) return PageAccess::None;
  auto k = t->second.find(key);
  return k == t->second.end() ? PageAccess::None : k->second;
}

bool KeyPlan::others_hold_open(ThreadId thread, int key, PageAccess need) const {
  for (const auto& [other, keys] : rights_) {
    if (other == thread) continue;
    if (strictness(rights(other, key)) < strictness(need)) return true;
  }
  return false;
}

KeyPlan::HeldCopy* KeyPlan::held_copy(std::uintptr_t begin, std::uintptr_t end, Hold hold) {
  for (HeldCopy& h : held_)
    if (h.begin == begin && h.end == end && h.hold == hold) return &h;
  return nullptr;
}

int KeyPlan::tag_at(std::uintptr_t address) const {
  const Range* r = range_at(address);
  if (r == nullptr) return 0;
  return strict_holds_.access_at(address) != PageAccess::ReadWrite ? strict_ : r->key;
}

std::vector<KeyAction> KeyPlan::hold(ThreadId thread, std::uintptr_t begin, std::uintptr_t end, Hold hold) {
  const Range* r = range_at(begin);
  if (r == nullptr || begin >= end) return {};
  const int key = r->key;
  std::vector<KeyAction> actions;
  // Pages already on the strict key stay there: every thread has it closed.
  bool on_strict = false;
  for (std::uintptr_t p = page_floor(begin); p < end && !on_strict; p += page_size())
    on_strict = strict_holds_.access_at(p) != PageAccess::ReadWrite;
  const PageAccess need = stricter(needed(key), access_of(hold));
  if (on_strict || others_hold_open(thread, key, need)) {
    // Another thread holds the key open and only a signal could close it there: the pages move instead.
    held_.push_back({begin, end, hold, key, true});
    for (const PageChange& c : strict_holds_.add(begin, end, hold))
      if (c.access != PageAccess::ReadWrite) actions.push_back({KeyAction::Kind::TagPages, c.begin, c.end, strict_, 0, {}});
    return actions;
  }
  held_.push_back({begin, end, hold, key, false});
  holds_[key].add(begin, end, hold);
  // The issuing thread's rights become exactly what the key's holds allow: closed further if it had the key
  // open, opened as far as they allow if it had it closed (reading its own held source is no fault).
  if (rights(thread, key) != need) {
    rights_[thread][key] = need;
    actions.push_back({KeyAction::Kind::SetThreadRights, 0, 0, key, thread, need});
  }
  return actions;
}

std::vector<KeyAction> KeyPlan::release(ThreadId thread, std::uintptr_t begin, std::uintptr_t end, Hold hold) {
  HeldCopy* h = held_copy(begin, end, hold);
  if (h == nullptr) return {};
  const int key = h->key;
  const bool strict = h->strict;
  held_.erase(held_.begin() + (h - held_.data()));
  std::vector<KeyAction> actions;
  if (strict) {
    // Held on the strict key: the pages no copy holds any more go home to their key.
    for (const PageChange& c : strict_holds_.remove(begin, end, hold))
      if (c.access == PageAccess::ReadWrite) actions.push_back({KeyAction::Kind::TagPages, c.begin, c.end, key, 0, {}});
    return actions;
  }
  holds_[key].remove(begin, end, hold);
  // The thread that learnt of the release opens its own rights as far as the key's other holds allow; the other
  // threads keep theirs closed and open them at their next access, once.
  const PageAccess need = needed(key);
  if (strictness(rights(thread, key)) > strictness(need)) {
    rights_[thread][key] = need;
    actions.push_back({KeyAction::Kind::SetThreadRights, 0, 0, key, thread, need});
  }
  return actions;
}

KeyFaultDecision KeyPlan::fault(ThreadId thread, std::uintptr_t address, bool write) {
  const Range* r = range_at(address);
  if (r == nullptr) return {};
  const int tag = tag_at(address);
  if (tag == strict_) return {KeyFaultDecision::Kind::OneInstruction, strict_, PageAccess::ReadWrite, {}};
  const int key = r->key;
  KeyFaultDecision d{KeyFaultDecision::Kind::OpenForGood, key, needed(key), {}};
  auto held = holds_.find(key);
  if (!allows(d.rights, write) && held != holds_.end() && !allows(held->second.access_at(address), write))
    return {KeyFaultDecision::Kind::OneInstruction, key, PageAccess::ReadWrite, {}};  // the page itself forbids it
  if (!allows(d.rights, write)) {
    // A neighbour of held pages under the same key: the held pages move to the strict key, so that this
    // thread's accesses to the rest of the range stop faulting (once per hold, not once per access).
    for (const PageChange& c : holds_[key].move_all_into(strict_holds_))
      d.actions.push_back({KeyAction::Kind::TagPages, c.begin, c.end, strict_, 0, {}});
    for (HeldCopy& moved : held_)
      if (moved.key == key) moved.strict = true;
    d.rights = PageAccess::ReadWrite;
  }
  rights_[thread][key] = d.rights;
  return d;
}

}  // namespace hazardlab::check
