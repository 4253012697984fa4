// Every number a setting holds is read by the one strict parser, and every folder a setting names
// is a real path: what one setting refuses, none accepts.
#include <gtest/gtest.h>

#include <cstdlib>

#include "perf/checks.hpp"
#include "perf/perf.hpp"
#include "scoped_env.hpp"
#include "settings/settings.hpp"

using namespace hazardlab;

namespace {
using test_support::ScopedEnv;

const char* const kLooseSpellings[] = {" 100", "100 ", "+100", "-100", "0x64", "1e2", "100.0", "1_00"};
}  // namespace

TEST(StrictSettings, WholeNumberSettingsRefuseLooseSpellings) {
  for (const char* name : {"HAZARDLAB_TRIALS", "HAZARDLAB_KEEP_RUNS", "HAZARDLAB_GATE_TIMEOUT_MS"}) {
    for (const char* text : kLooseSpellings) {
      EXPECT_THROW(Settings::from_entries({std::string(name) + "=" + text}), SettingsError) << name << "=" << text;
    }
  }
  EXPECT_EQ(Settings::from_entries({"HAZARDLAB_TRIALS=100"}).control_trials, 100);
}

TEST(StrictSettings, ThePinnedBudgetRefusesLooseSpellings) {
  for (const char* text : {" 100", "+100", "100 ", "0x100"}) {
    const ScopedEnv env("HAZARDLAB_PINNED_BUDGET_MB", text);
    EXPECT_THROW(perf::profile_from_environment(), SettingsError) << text;
  }
  const ScopedEnv env("HAZARDLAB_PINNED_BUDGET_MB", "100");
  EXPECT_EQ(perf::profile_from_environment().pinned_budget, std::size_t{100} << 20);
}

TEST(StrictSettings, ThresholdsRefuseHexFloatsUnderflowAndSpaces) {
  for (const char* name : {"HAZARDLAB_MIN_LINK_FRACTION", "HAZARDLAB_MIN_OVERLAP"}) {
    for (const char* text : {"0x0.8p0", "1e-400", " 0.5", "+0.5", "0.5 ", "nan", "-0.1", "1.5"}) {
      const ScopedEnv env(name, text);
      EXPECT_THROW(perf::thresholds_from_environment(), SettingsError) << name << "=" << text;
    }
  }
  const ScopedEnv env("HAZARDLAB_MIN_OVERLAP", "0.25");
  EXPECT_DOUBLE_EQ(perf::thresholds_from_environment().min_overlap, 0.25);
}

TEST(StrictSettings, FolderSettingsRefuseBlankNames) {
  for (const char* name : {"HAZARDLAB_RESULTS_ROOT", "HAZARDLAB_REPORTS_DIR", "HAZARDLAB_RUN_DIR"}) {
    for (const char* text : {" ", "  ", "\t", " /tmp/x", "/tmp/x "}) {
      EXPECT_THROW(Settings::from_entries({std::string(name) + "=" + text}), SettingsError) << name << "='" << text
                                                                                             << "'";
    }
  }
  EXPECT_EQ(Settings::from_entries({"HAZARDLAB_RESULTS_ROOT=/tmp/my results"}).results_root, "/tmp/my results");
}

// A list setting takes each word once, and the default's own name ("both") is not a word of it: either is said.
TEST(StrictSettings, AListRefusesAWordGivenTwiceAndSaysWhatItsDefaultMeans) {
  const auto refusal = [](const std::string& value) -> std::string {
    try {
      (void)Settings::from_entries({"HAZARDLAB_GATES=" + value});
    } catch (const SettingsError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(refusal("host-function,host-function").find("'host-function' is given twice"), std::string::npos)
      << refusal("host-function,host-function");
  EXPECT_NE(refusal("both,both").find("'both' is what leaving HAZARDLAB_GATES unset gives"), std::string::npos)
      << refusal("both,both");
  EXPECT_EQ(Settings::from_entries({"HAZARDLAB_GATES=host-function,spin-kernel"}).gates.size(), 2u);
}

// Every declared setting is judged by its declaration, whatever its prefix: the measuring tools' HL_FOOTPRINT_* and
// HL_PROFILE_* too, which `hazardlab settings` lists with their ranges.
TEST(StrictSettings, EveryDeclaredSettingIsJudgedWhateverItsPrefix) {
  for (const char* entry : {"HL_FOOTPRINT_MODE=bogus", "HL_PROFILE_INTERVAL_US=0", "HL_FOOTPRINT_PRINT=0x10"}) {
    try {
      (void)Settings::from_entries({entry});
      ADD_FAILURE() << entry << " was taken";
    } catch (const SettingsError& e) {
      const std::string name = std::string(entry).substr(0, std::string(entry).find('='));
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW((void)Settings::from_entries({"HL_FOOTPRINT_MODE=null", "HL_PROFILE_INTERVAL_US=50"}));
  // A misspelt name of those prefixes is a slip as a HAZARDLAB_* one is: warned about, an error under strict.
  const std::vector<std::string> warned = Settings::from_entries({"HL_PROFILE_OUTT=x"}).warnings;
  ASSERT_EQ(warned.size(), 1u);
  EXPECT_NE(warned[0].find("did you mean HL_PROFILE_OUT?"), std::string::npos) << warned[0];
  EXPECT_THROW((void)Settings::from_entries({"HL_FOOTPRINT_MODDE=x", "HAZARDLAB_STRICT=1"}), SettingsError);
}
