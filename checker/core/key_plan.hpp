// Page protection by memory protection keys, as a plan: which key each pinned page carries, and which rights
// each thread holds for each key. Plain data, no system calls: the caller applies the actions (pkey_mprotect for
// a tag, WRPKRU for the calling thread's own rights outside a signal handler, the signal frame's saved PKRU
// inside one). Every action on rights is the calling thread's own: a thread's rights can be changed by no other.
//
// Why a plan of its own: a key's rights belong to one thread, and a thread inherits its creator's at creation.
// Every thread must fault on owned bytes, not only the one that issued the copy, so:
// - every thread starts with every range key closed (the launcher's thread shim runs thread_started first on
//   each new thread, so a thread never inherits an open key unseen; threads that ran before the keys existed
//   have them closed already, the kernel's initial rights), and a range key is opened in a thread only by its
//   own release or by a fault of its own on bytes nobody owns: once per thread and key until the key is needed
//   closed again;
// - a copy issued by a thread closes its range's key in that thread's own rights (one WRPKRU, no system call)
//   when no other thread holds that key open; otherwise the owned pages move to a strict key (one
//   pkey_mprotect, what the mprotect backend pays for every copy), and come home when released. The two strict
//   keys are closed so in every thread: `no_writes` write-disabled, `no_access` access-disabled;
// - each pinned range gets a key of its own from the pool, so that writing a neighbour buffer does not fault;
//   with more ranges than keys, ranges share keys. With no range keys at all (no thread shim to close keys in
//   new threads), every hold moves its pages to a strict key.
#pragma once

#include <cstdint>
#include <array>
#include <map>
#include <utility>
#include <vector>

#include "checker/core/pages.hpp"

namespace hazardlab::check {

using ThreadId = std::uint64_t;

// One thing to do, in order.
struct KeyAction {
  enum class Kind {
    TagPages,          // pkey_mprotect(begin, end - begin, PROT_READ | PROT_WRITE, key)
    SetThreadRights,   // the calling thread's rights for `key` become `rights`
  } kind = Kind::TagPages;
  std::uintptr_t begin = 0, end = 0;  // TagPages: page aligned, end exclusive
  int key = 0;
  PageAccess rights = PageAccess::ReadWrite;  // SetThreadRights: ReadWrite open, ReadOnly no writes, None closed
  friend bool operator==(const KeyAction&, const KeyAction&) = default;
};

// What a fault asks of the handler.
struct KeyFaultDecision {
  enum class Kind {
    NotOurs,         // the page carries no key of the plan: the program's own fault
    OpenForGood,     // the access conflicts with no hold: set the thread's rights for `key` to `rights`, run it again
    OneInstruction,  // a held page: judge the access, then open `key` as far as `rights` for one instruction
  } kind = Kind::NotOurs;
  int key = 0;
  PageAccess rights = PageAccess::ReadWrite;
  std::vector<KeyAction> actions;  // first, before the access runs again: pages that move to a strict key
};

class KeyPlan {
 public:
  // Keys are 0 to 15 (x86-64 PKRU holds two bits for each of 16); key 0 is every page's own and never the plan's.
  static constexpr int kKeyCount = 16;

  // `range_keys`: the keys pkey_alloc gave for ranges (none: every hold moves its pages to a strict key);
  // `no_writes`, `no_access`: the strict keys. A key outside 1 to 15: std::invalid_argument.
  KeyPlan(std::vector<int> range_keys, int no_writes, int no_access);

  // A thread starts: its rights for every key closed (range keys no access, strict keys as every thread keeps
  // them). A thread ends: it holds nothing open any more.
  std::vector<KeyAction> thread_started(ThreadId thread);
  void thread_exited(ThreadId thread);
  // Pinned or registered memory, by `thread`: tagged with the next key of the pool. Ranges that share a page
  // share a key. The pinning thread's rights for the key are opened first: the pages may hold what it is using
  // right now (a registered buffer on its own stack, or heap data beside the buffer), and a fault there, before
  // the tag's system call even returns, could not be handled (the kernel writes the signal frame on that stack).
  std::vector<KeyAction> pinned(ThreadId thread, std::uintptr_t begin, std::uintptr_t end);
  // The memory is no longer pinned (its holds released first): its pages go back to key 0 once no range of
  // the plan covers them, so that no thread faults on them afterwards.
  std::vector<KeyAction> unpinned(std::uintptr_t begin, std::uintptr_t end);

  // A copy issued by `thread` holds [begin, end); its release (on any thread that learns of it) lets it go.
  // The actions are in a buffer the plan keeps and reuses (valid until its next hold or release): the path
  // every watched copy takes allocates no list of actions.
  const std::vector<KeyAction>& hold(ThreadId thread, std::uintptr_t begin, std::uintptr_t end, Hold hold);
  const std::vector<KeyAction>& release(ThreadId thread, std::uintptr_t begin, std::uintptr_t end, Hold hold);

  // A system call of `thread` will reach [begin, end) (`write`: the kernel writes there, as read(2) does). The
  // kernel's access obeys the thread's rights but raises no fault: where they forbid it, the call fails with
  // EFAULT. So every range key of those pages is opened first, as far as a fault of the thread's own on them
  // would open it: as far as the key's holds allow, or, where a hold forbids the access, fully once the held
  // pages have moved to the strict keys. Pages a copy holds then meet the kernel exactly as under the
  // mprotect backend, and the rest of the buffer does not fail a correct program's call.
  std::vector<KeyAction> kernel_access(ThreadId thread, std::uintptr_t begin, std::uintptr_t end, bool write);

  // A protection-key fault of `thread` at `address`. Whether it is a finding is the checker's to say; this
  // says how the access goes on. Records the rights it opens for good.
  KeyFaultDecision fault(ThreadId thread, std::uintptr_t address, bool write);

  // What the plan believes a page carries now (0: none of the plan's keys), for the tests.
  [[nodiscard]] int tag_at(std::uintptr_t address) const;

 private:
  struct Range {
    std::uintptr_t end;  // page aligned
    int key;             // 0: no range key (the pool is empty)
    int pinnings;        // ranges merged into this one because they share pages
  };
  using Ranges = std::map<std::uintptr_t, Range>;  // begin -> range, disjoint
  // The first range that ends after `address`: the one that holds it, else the next one (or end()).
  [[nodiscard]] Ranges::iterator first_range_from(std::uintptr_t address);
  [[nodiscard]] Ranges::const_iterator first_range_from(std::uintptr_t address) const;
  [[nodiscard]] const Range* range_at(std::uintptr_t address) const;
  [[nodiscard]] PageAccess needed(int key) const;  // the strictest hold on pages that still carry `key`
  [[nodiscard]] bool others_hold_open(ThreadId thread, int key, PageAccess needed) const;
  [[nodiscard]] PageAccess rights(ThreadId thread, int key) const;  // a thread's rights for a key, as believed
  [[nodiscard]] int strict_key_of(PageAccess access) const;
  void set_rights(ThreadId thread, int key, PageAccess rights);
  // Both append to `actions`.
  void to_strict(const std::vector<PageChange>& changes, std::vector<KeyAction>& actions) const;
  void move_to_strict(int key, std::vector<KeyAction>& actions);  // every held page that still carries `key`

  // A copy's hold, and where its pages are: under their range's key, or moved to a strict key.
  struct HeldCopy {
    std::uintptr_t begin, end;
    Hold hold;
    int key;
    bool strict;
  };
  std::vector<HeldCopy>::iterator held_copy(std::uintptr_t begin, std::uintptr_t end, Hold hold);

  std::vector<int> keys_;
  int no_writes_, no_access_;
  std::vector<HeldCopy> held_;
  std::size_t next_key_ = 0;
  Ranges ranges_;
  // Indexed by key: a copy's hold and release find their key's holds and open threads in place, with no tree to
  // walk in the cold caches between the program's driver calls.
  std::array<PageHolds, kKeyCount> holds_;  // per range key: the held pages that still carry it
  PageHolds strict_holds_;                  // held pages moved to a strict key
  // Per range key, the threads that hold it open further than closed (a thread absent has it closed): only
  // these can reach a page of the key without a fault.
  using OpenThreads = std::vector<std::pair<ThreadId, PageAccess>>;
  std::array<OpenThreads, kKeyCount> open_;
  std::vector<KeyAction> actions_;  // hold's and release's
  std::vector<int> span_keys_;      // hold's
};

}  // namespace hazardlab::check
