// The protection-key plan against a machine played in software: each page's key and each thread's rights (the
// stand-in for the key register, PKRU), applied as the plan says. The machines this runs on in CI have no keys.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "checker/core/key_plan.hpp"

namespace hazardlab::check {
namespace {

constexpr int kNoWrites = 14, kNoAccess = 15;

bool allows(PageAccess rights, bool write) { return write ? rights == PageAccess::ReadWrite : rights != PageAccess::None; }

// The played machine: page keys, thread rights, and what it cost (tags are system calls; faults are faults).
struct Machine {
  KeyPlan plan;
  std::map<std::uintptr_t, int> tag;                       // page -> key
  std::map<ThreadId, std::map<int, PageAccess>> rights;    // thread -> key -> rights (absent: the inherited default)
  int tags_applied = 0, faults = 0;

  explicit Machine(std::vector<int> keys) : plan(std::move(keys), kNoWrites, kNoAccess) {}

  // Every rights action is the calling thread's own.
  void apply(ThreadId t, const std::vector<KeyAction>& actions) {
    for (const KeyAction& a : actions) {
      if (a.kind == KeyAction::Kind::TagPages) {
        ++tags_applied;
        for (std::uintptr_t p = a.begin; p < a.end; p += page_size()) tag[p] = a.key;
      } else {
        rights[t][a.key] = a.rights;
      }
    }
  }
  PageAccess rights_of(ThreadId t, int key) {
    auto it = rights[t].find(key);
    return it == rights[t].end() ? PageAccess::ReadWrite : it->second;  // a key never set: open (inherited)
  }
  // A thread created by `creator` inherits its rights, then runs the shim's hook.
  void start(ThreadId t, std::optional<ThreadId> creator = std::nullopt) {
    rights[t] = creator ? rights[*creator] : std::map<int, PageAccess>{};
    apply(t, plan.thread_started(t));
  }
  // By thread 0 unless said: a thread of its own that pins and does nothing else.
  void pin(std::uintptr_t begin, std::uintptr_t end, ThreadId by = 0) {
    apply(by, plan.pinned(by, begin, end));
    tags_applied = 0;  // tagging at allocation is not the hot path
  }
  void hold(ThreadId t, std::uintptr_t begin, std::uintptr_t end, Hold h) { apply(t, plan.hold(t, begin, end, h)); }
  void release(ThreadId t, std::uintptr_t begin, std::uintptr_t end, Hold h) { apply(t, plan.release(t, begin, end, h)); }
  // A system call's access to [begin, end), as the kernel makes it: by the thread's rights, with no fault.
  // The pages it could not reach (the call would fail with EFAULT).
  std::vector<std::uintptr_t> kernel_access(ThreadId t, std::uintptr_t begin, std::uintptr_t end, bool write) {
    apply(t, plan.kernel_access(t, begin, end, write));
    std::vector<std::uintptr_t> failed;
    for (std::uintptr_t p = page_floor(begin); p < end; p += page_size()) {
      const auto it = tag.find(p);
      if (it != tag.end() && it->second != 0 && !allows(rights_of(t, it->second), write)) failed.push_back(p);
    }
    return failed;
  }
  // The access as the hardware runs it: true when it faulted (at least once).
  bool access(ThreadId t, std::uintptr_t address, bool write) {
    const auto it = tag.find(page_floor(address));
    if (it == tag.end() || it->second == 0 || allows(rights_of(t, it->second), write)) return false;
    ++faults;
    const KeyFaultDecision d = plan.fault(t, address, write);
    apply(t, d.actions);
    if (d.kind == KeyFaultDecision::Kind::OpenForGood) rights[t][d.key] = d.rights;
    return true;  // OneInstruction: the access runs once with the key open, and the rights stay as they were
  }
};

std::uintptr_t page(int n) { return static_cast<std::uintptr_t>(0x10000000) + static_cast<std::uintptr_t>(n) * page_size(); }

TEST(KeyPlan, AStagingLoopOnOneThreadChangesOnlyItsOwnRightsAndNeverFaults) {
  Machine m({1, 2, 3});
  m.start(1);
  m.pin(page(0), page(16), 1);  // pinned by the thread that copies: its key is open there from the start
  m.faults = 0;
  for (int round = 0; round < 100; ++round) {
    EXPECT_FALSE(m.access(1, page(0), true));   // fill the buffer
    EXPECT_FALSE(m.access(1, page(15), true));
    m.hold(1, page(0), page(16), Hold::NoWrites);  // cudaMemcpyAsync from it
    EXPECT_TRUE(m.access(1, page(3), true)) << "a write of the held source must fault";
    m.release(1, page(0), page(16), Hold::NoWrites);  // cudaStreamSynchronize
  }
  EXPECT_EQ(m.tags_applied, 0) << "no system call on the copy path or the release path";
  EXPECT_EQ(m.faults, 100) << "only the racing writes faulted";
}

// Two copies of one range share its key. The release of one opens the releasing thread's rights only as far as
// the other still allows: a readback into the first pages still owns them after an upload from others was synchronized.
TEST(KeyPlan, AReleaseOpensTheReleasingThreadOnlyAsFarAsTheKeysOtherHoldsAllow) {
  Machine m({1});
  m.start(1);
  m.pin(page(0), page(8), 1);
  m.hold(1, page(0), page(2), Hold::NoAccess);  // a readback into the first pages
  m.hold(1, page(4), page(6), Hold::NoWrites);  // an upload from others, the same range and key
  m.release(1, page(4), page(6), Hold::NoWrites);
  EXPECT_TRUE(m.access(1, page(1), false)) << "the readback still owns page 1: a read must fault";
  EXPECT_TRUE(m.access(1, page(0), true)) << "and a write";
  m.release(1, page(0), page(2), Hold::NoAccess);
  EXPECT_FALSE(m.access(1, page(1), false)) << "nothing is held: the key is open again";
}

TEST(KeyPlan, AnotherThreadFaultsOnOwnedBytesWhetherItStartedBeforeOrAfterTheCopy) {
  Machine m({1, 2});
  m.start(1);
  m.start(2);  // before the copy
  m.pin(page(0), page(4));
  m.access(2, page(1), true);  // it opened the key for itself
  m.hold(1, page(0), page(4), Hold::NoAccess);
  EXPECT_TRUE(m.access(2, page(1), false)) << "the thread that had the key open must fault";
  m.start(3);  // after the copy
  EXPECT_TRUE(m.access(3, page(2), false));
  EXPECT_TRUE(m.access(1, page(2), false));
}

TEST(KeyPlan, AThreadThatTouchesOnlyUnownedNeighboursFaultsOnceAndIsNotSlowed) {
  Machine m({1, 2});
  m.start(1);
  m.start(2);
  m.pin(page(0), page(4), 1);   // key 1: copied by thread 1
  m.pin(page(8), page(12), 2);  // key 2: written by thread 2
  for (int round = 0; round < 50; ++round) {
    m.hold(1, page(0), page(4), Hold::NoWrites);
    m.access(2, page(8 + round % 4), true);
    m.release(1, page(0), page(4), Hold::NoWrites);
  }
  EXPECT_EQ(m.faults, 0) << "thread 2 pinned its own range";
  EXPECT_EQ(m.tags_applied, 0);
}

TEST(KeyPlan, MoreRangesThanKeysShareKeysAndStayWatched) {
  Machine m({1, 2});
  m.start(1);
  // Pinned by the thread that copies, so that no other thread has the keys open: the hold closes key 1 in thread
  // 1's rights and leaves the pages on it (pinned by another thread, they would move to a strict key at once).
  for (int r = 0; r < 5; ++r) m.pin(page(4 * r), page(4 * r + 4), 1);
  m.hold(1, page(8), page(12), Hold::NoWrites);  // range 2 shares key 1 with ranges 0 and 4
  EXPECT_EQ(m.plan.tag_at(page(9)), 1);
  EXPECT_TRUE(m.access(1, page(9), true));
  EXPECT_FALSE(m.access(1, page(9), false)) << "reads of a held source are allowed";
  // A neighbour range under the same key: the held pages move to the strict key once, and the rest is free.
  EXPECT_TRUE(m.access(1, page(0), true));
  EXPECT_EQ(m.plan.tag_at(page(9)), kNoWrites) << "the held pages moved before the key opened";
  EXPECT_FALSE(m.access(1, page(1), true));
  EXPECT_TRUE(m.access(1, page(9), true)) << "the held pages still fault, now under the strict key";
  m.release(1, page(8), page(12), Hold::NoWrites);
  EXPECT_EQ(m.plan.tag_at(page(9)), 1) << "released pages go home to their key";
}

TEST(KeyPlan, ThePinningThreadHasTheNewRangesKeyOpenBeforeItsPagesAreTagged) {
  Machine m({1});
  m.start(1);
  m.start(2);
  m.pin(page(0), page(4), 1);
  m.hold(1, page(0), page(2), Hold::NoAccess);  // closed in thread 1 alone
  const std::vector<KeyAction> actions = m.plan.pinned(2, page(8), page(12));  // the same key again, by thread 2
  ASSERT_FALSE(actions.empty());
  EXPECT_EQ(actions.back().kind, KeyAction::Kind::TagPages);
  EXPECT_NE(std::find(actions.begin(), actions.end(),
                      KeyAction{KeyAction::Kind::SetThreadRights, 0, 0, 1, PageAccess::ReadWrite}),
            actions.end());
  m.apply(2, actions);
  EXPECT_FALSE(m.access(2, page(9), true)) << "its own new pages: no fault";
  EXPECT_TRUE(m.access(2, page(1), false)) << "the held pages moved to a strict key and still fault";
  EXPECT_TRUE(m.access(1, page(0), false));
  EXPECT_TRUE(m.access(1, page(3), true)) << "thread 1 had closed the key for its copy: it opens it again, once";
  EXPECT_FALSE(m.access(1, page(3), true));
}

TEST(KeyPlan, ASystemCallThatIsAThreadsFirstAccessOfARangeReachesItsUnheldPages) {
  Machine m({1, 2});
  m.start(1);
  m.start(2);
  m.pin(page(0), page(8));   // key 1
  m.pin(page(8), page(12));  // key 2
  EXPECT_EQ(m.kernel_access(2, page(4), page(8), true), std::vector<std::uintptr_t>{})
      << "read(2) into pages no copy holds, never touched by this thread: no EFAULT";
  EXPECT_EQ(m.kernel_access(2, page(8), page(9), false), std::vector<std::uintptr_t>{}) << "write(2) from them";
  m.hold(1, page(0), page(2), Hold::NoWrites);  // a copy from two pages of key 1, issued while 2 has it open
  EXPECT_EQ(m.kernel_access(2, page(0), page(4), false), std::vector<std::uintptr_t>{})
      << "reading a held source is allowed to the kernel as to the thread";
  EXPECT_EQ(m.kernel_access(2, page(0), page(4), true), (std::vector<std::uintptr_t>{page(0), page(1)}))
      << "writing it fails on the held pages alone, as under mprotect";
  EXPECT_TRUE(m.access(1, page(1), true)) << "and the held pages still fault for every thread";
  m.start(3);
  m.hold(1, page(8), page(12), Hold::NoAccess);
  EXPECT_EQ(m.kernel_access(3, page(6), page(7), true), std::vector<std::uintptr_t>{})
      << "a neighbour of a held range under another key";
  EXPECT_EQ(m.kernel_access(3, page(9), page(10), false), std::vector<std::uintptr_t>{page(9)});
  EXPECT_TRUE(m.access(1, page(10), false));
}

// Every access that a copy's hold forbids faults, in every thread, whatever happened before: threads created
// by threads that had keys open, threads that ended, more ranges than keys, ranges sharing a page, no range
// keys at all; and an access to a page no copy holds is never stopped twice in a row by the same thread.
RC_GTEST_PROP(KeyPlan, NoThreadReachesAHeldPageWithoutAFault, ()) {
  const int ranges = *rc::gen::inRange(1, 5);
  const int keys = *rc::gen::inRange(0, 4);
  std::vector<int> pool;
  for (int k = 1; k <= keys; ++k) pool.push_back(k);
  Machine m(pool);
  std::vector<ThreadId> threads{1, 2, 3};
  for (ThreadId t : threads) m.start(t);
  // Ranges of four pages, three apart: range r and r + 1 share a page when `shared` says so.
  const bool shared = *rc::gen::arbitrary<bool>();
  const int stride = shared ? 3 : 4;
  for (int r = 0; r < ranges; ++r) m.pin(page(stride * r), page(stride * r + 4), *rc::gen::elementOf(threads));
  RC_LOG() << ranges << " ranges" << (shared ? " sharing pages" : "") << ", " << keys << " range keys\n";
  struct Held {
    std::uintptr_t begin, end;
    Hold hold;
  };
  std::vector<Held> held;
  ThreadId next_thread = 4;
  const int steps = *rc::gen::inRange(1, 80);
  for (int step = 0; step < steps; ++step) {
    const int what = *rc::gen::inRange(0, 12);
    const ThreadId t = *rc::gen::elementOf(threads);
    if (what < 3) {  // a copy holds some pages of a range
      const int r = *rc::gen::inRange(0, ranges);
      const int first = *rc::gen::inRange(0, 4);
      const int last = *rc::gen::inRange(first, 4);
      const Hold hold = *rc::gen::element(Hold::NoWrites, Hold::NoAccess);
      held.push_back({page(stride * r + first), page(stride * r + last + 1), hold});
      m.hold(t, held.back().begin, held.back().end, hold);
      RC_LOG() << "thread " << t << " holds pages " << stride * r + first << " to " << stride * r + last
               << (hold == Hold::NoAccess ? " from any access\n" : " from writes\n");
    } else if (what < 5 && !held.empty()) {  // a synchronization releases one
      const std::size_t i = static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(held.size())));
      m.release(t, held[i].begin, held[i].end, held[i].hold);
      RC_LOG() << "thread " << t << " releases hold " << i << "\n";
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (what == 5) {  // a thread creates one, which inherits its rights
      m.start(next_thread, t);
      RC_LOG() << "thread " << t << " creates thread " << next_thread << "\n";
      threads.push_back(next_thread++);
    } else if (what == 6 && threads.size() > 1) {  // a thread ends
      threads.erase(std::find(threads.begin(), threads.end(), t));
      m.plan.thread_exited(t);
      RC_LOG() << "thread " << t << " ends\n";
    } else if (what == 7) {  // a system call reaches pages: it fails on exactly the pages a hold forbids
      const int first = *rc::gen::inRange(0, stride * (ranges - 1) + 4);
      const int last = *rc::gen::inRange(first, stride * (ranges - 1) + 4);
      const bool write = *rc::gen::arbitrary<bool>();
      std::vector<std::uintptr_t> forbidden;
      for (int n = first; n <= last; ++n)
        if (std::any_of(held.begin(), held.end(), [&](const Held& h) {
              return page(n) >= h.begin && page(n) < h.end && (write || h.hold == Hold::NoAccess);
            }))
          forbidden.push_back(page(n));
      RC_LOG() << "thread " << t << "'s system call " << (write ? "writes" : "reads") << " pages " << first << " to "
               << last << "\n";
      RC_ASSERT(m.kernel_access(t, page(first), page(last + 1), write) == forbidden);
    } else {  // an access
      const std::uintptr_t p = page(*rc::gen::inRange(0, stride * (ranges - 1) + 4));
      const bool write = *rc::gen::arbitrary<bool>();
      bool conflicts = false, unheld = true;
      for (const Held& h : held) {
        if (p >= h.begin && p < h.end) unheld = false;
        if (p >= h.begin && p < h.end && (write || h.hold == Hold::NoAccess)) conflicts = true;
      }
      const bool faulted = m.access(t, p, write);
      RC_LOG() << "thread " << t << (write ? " writes" : " reads") << " page " << (p - page(0)) / page_size()
               << (faulted ? ": fault" : "") << (conflicts ? " (held)" : "") << "\n";
      if (conflicts) RC_ASSERT(faulted);
      if (unheld && faulted) RC_ASSERT(!m.access(t, p, write));  // a page nobody holds: once, then free
    }
  }
  // Every hold released: no page is left on a strict key, and unpinning gives every page back to key 0.
  for (const Held& h : held) m.release(threads.front(), h.begin, h.end, h.hold);
  for (int r = 0; r < ranges; ++r) {
    RC_ASSERT(m.plan.tag_at(page(stride * r)) != kNoWrites);
    RC_ASSERT(m.plan.tag_at(page(stride * r)) != kNoAccess);
  }
  for (int r = 0; r < ranges; ++r) m.apply(0, m.plan.unpinned(page(stride * r), page(stride * r + 4)));
  for (const auto& [p, key] : m.tag) RC_ASSERT(key == 0);
}

TEST(KeyPlan, WithNoRangeKeysEveryHoldMovesItsPagesToAStrictKeyAndBack) {
  Machine m({});
  m.start(1);
  m.pin(page(0), page(4));
  EXPECT_TRUE(m.tag.empty()) << "no range key: pinned pages keep key 0";
  m.hold(1, page(0), page(2), Hold::NoWrites);
  EXPECT_EQ(m.tag[page(0)], kNoWrites);
  EXPECT_FALSE(m.access(1, page(0), false)) << "a held source is read freely";
  EXPECT_TRUE(m.access(1, page(1), true));
  m.hold(1, page(1), page(3), Hold::NoAccess);
  EXPECT_EQ(m.tag[page(1)], kNoAccess) << "two holds of a page: the stricter";
  m.release(1, page(0), page(2), Hold::NoWrites);
  EXPECT_EQ(m.tag[page(0)], 0);
  EXPECT_EQ(m.tag[page(1)], kNoAccess);
  m.release(1, page(1), page(3), Hold::NoAccess);
  EXPECT_EQ(m.tag[page(1)], 0);
  EXPECT_EQ(m.tag[page(2)], 0);
}

TEST(KeyPlan, AThreadCreatedWithAKeyOpenHasItClosedByTheHook) {
  Machine m({1});
  m.start(1);
  m.pin(page(0), page(4), 1);  // thread 1 has key 1 open
  m.start(2, 1);               // inherits it open; the hook closes it
  m.hold(1, page(0), page(4), Hold::NoWrites);
  EXPECT_EQ(m.tags_applied, 0) << "only thread 1 had the key open: closed in its own rights";
  EXPECT_TRUE(m.access(2, page(1), true));
}

TEST(KeyPlan, UnpinningGivesPagesBackToKeyZeroOnlyWhenNoRangeCoversThem) {
  Machine m({1, 2});
  m.start(1);
  m.pin(page(0), page(4));
  m.pin(page(3), page(6));  // shares page 3: keeps key 1 there
  EXPECT_EQ(m.plan.tag_at(page(3)), 1);
  EXPECT_EQ(m.plan.tag_at(page(4)), 2);
  m.apply(0, m.plan.unpinned(page(0), page(4)));
  EXPECT_EQ(m.tag[page(0)], 1) << "page 3 is still the second range's: the range it lies in stays";
  m.apply(0, m.plan.unpinned(page(3), page(6)));
  for (int p = 0; p < 6; ++p) EXPECT_EQ(m.tag[page(p)], 0) << p;
}

}  // namespace
}  // namespace hazardlab::check
