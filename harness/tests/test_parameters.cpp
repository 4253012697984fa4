// A hazard's own parameters: declared once, read back by declaration, planned and described.
#include <gtest/gtest.h>

#include "trial/case_space.hpp"
#include "trial/parameter.hpp"

using namespace hazardlab;

namespace {

const Parameter kSlots{"slots", 1, 8, "staging slots"};
const Parameter kBatches{"batches", 2, 16, "batches"};
enum class Reader : std::uint32_t { CopyEngine, Kernel };
const Parameter kReader = Parameter::choice("reader", {"copy-engine", "kernel"}, "what reads");

}  // namespace

TEST(Parameters, AValueIsReadBackThroughItsDeclaration) {
  ParameterValues values;
  values.set(kSlots, 3);
  values.set(kReader, 1);
  EXPECT_EQ(values[kSlots], 3u);
  EXPECT_EQ(values.as<Reader>(kReader), Reader::Kernel);
  values.set(kSlots, 5);  // setting again replaces
  EXPECT_EQ(values[kSlots], 5u);
  EXPECT_EQ(values.describe(), ", slots 5, reader kernel");
}

TEST(Parameters, ReadingAnUndeclaredParameterIsAnErrorThatNamesIt) {
  ParameterValues values;
  values.set(kSlots, 3);
  try {
    (void)values[kBatches];
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("'batches'"), std::string::npos) << e.what();
  }
}

TEST(Parameters, ValuesAndNarrowingsOutsideTheDeclaredRangeAreRefused) {
  ParameterValues values;
  EXPECT_THROW(values.set(kSlots, 0), std::invalid_argument);
  EXPECT_THROW(values.set(kSlots.only(2), 3), std::invalid_argument);
  EXPECT_THROW((void)kSlots.between(0, 4), std::invalid_argument);
  EXPECT_THROW((void)kSlots.between(5, 4), std::invalid_argument);
  EXPECT_EQ(kSlots.between(2, 4).count(), 3u);
  EXPECT_EQ(kReader.only(1).value_text(1), "kernel");
}

TEST(Parameters, JsonNamesChoicesByLabelAndCountsByNumber) {
  ParameterValues values;
  values.set(kSlots, 2);
  values.set(kReader, 0);
  nlohmann::json j = nlohmann::json::object();
  values.add_to(j);
  EXPECT_EQ(j, (nlohmann::json{{"slots", 2}, {"reader", "copy-engine"}}));
}

TEST(Parameters, ThePlanCoversEveryValueOfEachParameterWithItsOwnPeriod) {
  CaseSpace space;
  space.parameters = {kSlots.between(1, 3), kBatches.between(2, 3)};
  const std::vector<GateKind> gates{GateKind::HostFunction};
  std::vector<std::uint32_t> slots, batches;
  for (int trial = 0; trial < 6; ++trial) {
    const TrialCase c = planned_case(space, gates, trial, 1 << 20);
    slots.push_back(c.params[kSlots]);
    batches.push_back(c.params[kBatches]);
  }
  EXPECT_EQ(slots, (std::vector<std::uint32_t>{1, 2, 3, 1, 2, 3}));    // period 1
  EXPECT_EQ(batches, (std::vector<std::uint32_t>{2, 2, 2, 3, 3, 3}));  // period 3
}
