// Page protection by memory protection keys, as a plan: which key each pinned page carries, and which rights
// each thread holds for each key. Plain data, no system calls: the caller applies the actions (pkey_mprotect for
// a tag, WRPKRU for the calling thread's own rights, the signal frame's saved PKRU for a faulting thread).
//
// Why a plan of its own: a key's rights belong to one thread, and a thread inherits its creator's at creation.
// Every thread must fault on owned bytes, not only the one that issued the copy, so:
// - every thread starts with every watched key closed (the launcher's thread shim sets it, so a thread never
//   inherits an open key unseen), and a key is opened in a thread only by its own release or by a fault of its
//   own on bytes nobody owns: once per thread and key until the key is needed closed again;
// - a copy issued by a thread closes the key in that thread's own rights (one WRPKRU, no system call) when no
//   other thread holds that key open; otherwise the owned pages move to the strict key, which every thread
//   keeps closed (one pkey_mprotect, what the mprotect backend pays for every copy), and come back when freed;
// - each pinned range gets a key of its own from the pool, so that writing a neighbour buffer does not fault;
//   with more ranges than keys, ranges share keys.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "checker/core/pages.hpp"

namespace hazardlab::check {

using ThreadId = std::uint64_t;

// One thing to do, in order.
struct KeyAction {
  enum class Kind {
    TagPages,          // pkey_mprotect(begin, end - begin, PROT_READ | PROT_WRITE, key)
    SetThreadRights,   // the thread's rights for `key` become `rights` (its own PKRU, or its saved one at a fault)
  } kind = Kind::TagPages;
  std::uintptr_t begin = 0, end = 0;  // TagPages: page aligned, end exclusive
  int key = 0;
  ThreadId thread = 0;                       // SetThreadRights
  PageAccess rights = PageAccess::ReadWrite;  // SetThreadRights: ReadWrite open, ReadOnly no writes, None closed
  friend bool operator==(const KeyAction&, const KeyAction&) = default;
};

// What a fault asks of the handler.
struct KeyFaultDecision {
  enum class Kind {
    NotOurs,         // the page carries no key of the plan: the program's own fault
    OpenForGood,     // set the faulting thread's saved rights for `key` to `rights` and run the access again
    OneInstruction,  // open `key` for the faulting thread for one instruction, then close it again
  } kind = Kind::NotOurs;
  int key = 0;
  PageAccess rights = PageAccess::ReadWrite;
  std::vector<KeyAction> actions;  // first, before the access runs again: pages that move to the strict key
};

class KeyPlan {
 public:
  // `keys`: the keys pkey_alloc gave for ranges (at least one); `strict`: one more, closed in every thread.
  KeyPlan(std::vector<int> keys, int strict);

  // A thread starts (or is first seen) with every watched key closed.
  std::vector<KeyAction> thread_started(ThreadId thread);
  // Pinned or registered memory, page aligned: tagged with the next key of the pool.
  std::vector<KeyAction> pinned(std::uintptr_t begin, std::uintptr_t end);
  void unpinned(std::uintptr_t begin, std::uintptr_t end);

  // A copy issued by `thread` holds [begin, end); its release (any thread that learns of it) lets it go.
  std::vector<KeyAction> hold(ThreadId thread, std::uintptr_t begin, std::uintptr_t end, Hold hold);
  std::vector<KeyAction> release(ThreadId thread, std::uintptr_t begin, std::uintptr_t end, Hold hold);

  // A protection-key fault of `thread` at `address`. Whether it is a finding is the checker's to say; this
  // says how the access goes on. Records the rights it opens.
  KeyFaultDecision fault(ThreadId thread, std::uintptr_t address, bool write);

  // What the plan believes, for tests and the handler: the key a page carries now (0: none of the plan's),
  // and a thread's rights for a key.
  [[nodiscard]] int tag_at(std::uintptr_t address) const;
  [[nodiscard]] PageAccess rights(ThreadId thread, int key) const;
  [[nodiscard]] int strict_key() const { return strict_; }

 private:
  struct Range {
    std::uintptr_t end;
    int key;
  };
  [[nodiscard]] const Range* range_at(std::uintptr_t address) const;
  [[nodiscard]] PageAccess needed(int key) const;  // the strictest hold on pages that still carry `key`
  [[nodiscard]] bool others_hold_open(ThreadId thread, int key, PageAccess needed) const;

  // A copy's hold, and where its pages are: under their range's key, or moved to the strict key.
  struct HeldCopy {
    std::uintptr_t begin, end;
    Hold hold;
    int key;
    bool strict;
  };
  HeldCopy* held_copy(std::uintptr_t begin, std::uintptr_t end, Hold hold);

  std::vector<int> keys_;
  std::vector<HeldCopy> held_;
  int strict_;
  std::size_t next_key_ = 0;
  std::map<std::uintptr_t, Range> ranges_;                 // begin -> range
  std::map<int, PageHolds> holds_;                         // per key: the held pages that still carry it
  PageHolds strict_holds_;                                 // held pages moved to the strict key
  std::map<ThreadId, std::map<int, PageAccess>> rights_;  // per thread and key; a key absent is closed
};

}  // namespace hazardlab::check
