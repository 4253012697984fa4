// The watchdog and the gate timer, with a gate that records who opened it (no GPU needed).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "hold/gate.hpp"

using namespace hazardlab;
using namespace std::chrono_literals;

namespace {
class RecordingGate final : public Gate {
 public:
  void open(GateOpener who) override {
    GateOpener expected = GateOpener::NotYet;
    opener_.compare_exchange_strong(expected, who);
  }
  GateOpener opened_by() const override { return opener_.load(); }
  bool timed_out() const override { return false; }
  GateKind kind() const noexcept override { return GateKind::HostFunction; }

 private:
  std::atomic<GateOpener> opener_{GateOpener::NotYet};
};
}  // namespace

TEST(Watchdog, OpensTheGateWhenTheCallOutlastsItsLimit) {
  RecordingGate gate;
  Watchdog watchdog(gate, 5ms);
  std::this_thread::sleep_for(50ms);  // a call that waits for the stream
  EXPECT_TRUE(watchdog.disarm());
  EXPECT_EQ(gate.opened_by(), GateOpener::Watchdog);
}

TEST(Watchdog, StaysOutOfTheWayOfACallThatReturns) {
  RecordingGate gate;
  Watchdog watchdog(gate, 10s);
  EXPECT_FALSE(watchdog.disarm());
  EXPECT_EQ(gate.opened_by(), GateOpener::NotYet);
}

TEST(GateTimer, OpensTheGateAfterItsDelayAndNotBefore) {
  RecordingGate gate;
  const auto start = std::chrono::steady_clock::now();
  {
    GateTimer timer(gate, 20ms);
    EXPECT_EQ(gate.opened_by(), GateOpener::NotYet);
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
  EXPECT_EQ(gate.opened_by(), GateOpener::Timer);
}

TEST(GateTimer, TheFirstOpenerIsRemembered) {
  RecordingGate gate;
  {
    GateTimer timer(gate, 10ms);
    gate.open(GateOpener::Host);
  }
  EXPECT_EQ(gate.opened_by(), GateOpener::Host);
}

TEST(GateKinds, NamesRoundTrip) {
  for (GateKind k : {GateKind::HostFunction, GateKind::SpinKernel}) EXPECT_EQ(gate_kind_from_string(to_string(k)), k);
  EXPECT_THROW(gate_kind_from_string("latch"), std::invalid_argument);
}
