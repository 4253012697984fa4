// Settings come from the environment; a malformed value is an error, never the default.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "hazardlab/environment.hpp"
#include "hazardlab/fnv1a.hpp"
#include "scoped_env.hpp"
#include "settings/settings.hpp"

using namespace hazardlab;

namespace {
using test_support::ScopedEnv;
}  // namespace

TEST(Settings, DefaultsMatchTheDocumentation) {
  const Settings s = Settings::from_environment();
  EXPECT_EQ(s.control_trials, 100);
  EXPECT_EQ(s.property_cases, 100);
  EXPECT_EQ(s.max_transfer_bytes, std::size_t{64} << 20);
  EXPECT_FALSE(s.require_gpu);
  EXPECT_FALSE(s.sabotage_guards);
  EXPECT_FALSE(s.seed.has_value());
  EXPECT_TRUE(s.gates.empty());
  EXPECT_FALSE(s.sweep_full);
  EXPECT_FALSE(s.conformance_full);
}

TEST(Settings, ProfilesAreQuickOrFull) {
  ScopedEnv sweep("HAZARDLAB_SWEEP_PROFILE", "full");
  ScopedEnv conformance("HAZARDLAB_CONFORMANCE_PROFILE", "quick");
  const Settings s = Settings::from_environment();
  EXPECT_TRUE(s.sweep_full);
  EXPECT_FALSE(s.conformance_full);
}

TEST(Settings, RequireGpuAcceptsTheUsualSpellings) {
  for (const char* yes : {"1", "true", "YES", "on"}) {
    ScopedEnv env("HAZARDLAB_REQUIRE_GPU", yes);
    EXPECT_TRUE(Settings::from_environment().require_gpu) << yes;
  }
  ScopedEnv env("HAZARDLAB_REQUIRE_GPU", "0");
  EXPECT_FALSE(Settings::from_environment().require_gpu);
}

TEST(Settings, MalformedValuesAreErrorsThatNameTheVariable) {
  const std::pair<const char*, const char*> bad[] = {{"HAZARDLAB_REQUIRE_GPU", "maybe"},
                                                     {"HAZARDLAB_TRIALS", "ten"},
                                                     {"HAZARDLAB_TRIALS", "0"},
                                                     {"HAZARDLAB_TRIALS", "12abc"},
                                                     {"HAZARDLAB_PROPERTY_CASES", "-5"},
                                                     {"HAZARDLAB_MAX_BYTES", "100"},
                                                     {"HAZARDLAB_SEED", "0x10"},
                                                     {"HAZARDLAB_GATES", "host-function,semaphore"},
                                                     {"HAZARDLAB_CALL_LIMIT_MS", "20000"},
                                                     {"HAZARDLAB_SWEEP_PROFILE", "medium"},
                                                     {"HAZARDLAB_CONFORMANCE_PROFILE", "Full"}};
  for (const auto& [name, value] : bad) {
    ScopedEnv env(name, value);
    try {
      (void)Settings::from_environment();
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const SettingsError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

TEST(Settings, SeedAndGatesAreRead) {
  ScopedEnv seed("HAZARDLAB_SEED", "18446744073709551615");
  ScopedEnv gates("HAZARDLAB_GATES", "spin-kernel,host-function");
  const Settings s = Settings::from_environment();
  ASSERT_TRUE(s.seed.has_value());
  EXPECT_EQ(*s.seed, 18446744073709551615ull);
  ASSERT_EQ(s.gates.size(), 2u);
  EXPECT_EQ(s.gates[0], GateKind::SpinKernel);
}

TEST(Settings, EveryVariableReadIsKnownAndExplained) {
  std::set<std::string_view> names;
  for (const SettingDeclaration& s : declared_settings()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_FALSE(s.help.empty()) << s.name;
  }
  for (const char* name : {"HAZARDLAB_REQUIRE_GPU",
                           "HAZARDLAB_TRIALS",
                           "HAZARDLAB_PROPERTY_CASES",
                           "HAZARDLAB_SEED",
                           "HAZARDLAB_MAX_BYTES",
                           "HAZARDLAB_GATE_TIMEOUT_MS",
                           "HAZARDLAB_CALL_LIMIT_MS",
                           "HAZARDLAB_SABOTAGE_GUARDS",
                           "HAZARDLAB_MUTATION_CHECK",
                           "HAZARDLAB_GATES",
                           "HAZARDLAB_PERF_PROFILE",
                           "HAZARDLAB_SWEEP_PROFILE",
                           "HAZARDLAB_CONFORMANCE_PROFILE",
                           "HAZARDLAB_PINNED_BUDGET_MB",
                           "HAZARDLAB_MIN_LINK_FRACTION",
                           "HAZARDLAB_MIN_OVERLAP",
                           "HAZARDLAB_SANITIZE",
                           "HAZARDLAB_RESULTS_ROOT",
                           "HAZARDLAB_REPORTS_DIR",
                           "HAZARDLAB_KEEP_RUNS",
                           "HAZARDLAB_STRICT",
                           "HAZARDLAB_RUN_DIR"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
}

TEST(Settings, AnUnknownNameWarnsWithTheNearestKnownOne) {
  const Settings s = Settings::from_entries({"HAZARDLAB_TRAILS=5", "PATH=/bin", "HAZARDLABX=1"});
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("HAZARDLAB_TRAILS"), std::string::npos) << s.warnings[0];
  EXPECT_NE(s.warnings[0].find("did you mean HAZARDLAB_TRIALS"), std::string::npos) << s.warnings[0];
  EXPECT_EQ(s.control_trials, 100);  // the misspelt value is not taken
  EXPECT_NE(Settings::from_entries({"HAZARDLAB_RESULTS_DIR=x"}).warnings.at(0).find("HAZARDLAB_RESULTS_ROOT"),
            std::string::npos);
}

TEST(Settings, StrictModeMakesAnUnknownNameAnError) {
  EXPECT_THROW(Settings::from_entries({"HAZARDLAB_TRAILS=5", "HAZARDLAB_STRICT=1"}), SettingsError);
  EXPECT_NO_THROW(Settings::from_entries({"HAZARDLAB_TRIALS=5", "HAZARDLAB_STRICT=1"}));
}

TEST(Settings, AnEmptyValueIsAnErrorNamingTheVariable) {
  for (const char* entry : {"HAZARDLAB_TRIALS=", "HAZARDLAB_GATES=", "HAZARDLAB_SANITIZE=", "HAZARDLAB_REQUIRE_GPU="}) {
    try {
      (void)Settings::from_entries({entry});
      ADD_FAILURE() << entry << " was accepted";
    } catch (const SettingsError& e) {
      const std::string name = std::string(entry).substr(0, std::string(entry).size() - 1);
      EXPECT_NE(std::string(e.what()).find(name + " is set but empty"), std::string::npos) << e.what();
    }
  }
}

TEST(Settings, TheHostLockMustBeAFileInAnExistingFolder) {
  const std::string folder = ::testing::TempDir() + "host-lock-setting";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder + "/a-folder");
  const auto refusal = [](const std::string& value) -> std::string {
    try {
      (void)Settings::from_entries({"HAZARDLAB_HOST_LOCK=" + value});
      return "";
    } catch (const SettingsError& e) {
      return e.what();
    }
  };
  EXPECT_EQ(refusal(folder + "/lock"), "");  // made when first taken
  std::ofstream(folder + "/user-file") << "kept";
  EXPECT_EQ(refusal(folder + "/user-file"), "");  // opened, never truncated (host_lock.cpp)
  EXPECT_NE(refusal(folder + "/a-folder").find("HAZARDLAB_HOST_LOCK='" + folder + "/a-folder': " + folder +
                                               "/a-folder exists and is not a regular file"),
            std::string::npos)
      << refusal(folder + "/a-folder");
  std::filesystem::create_directories(folder + "/other.intent");
  EXPECT_NE(refusal(folder + "/other").find("other.intent exists and is not a regular file"), std::string::npos);
  EXPECT_NE(refusal(folder + "/missing/lock").find("does not exist"), std::string::npos);
  std::filesystem::remove_all(folder);
}

TEST(Settings, TheSanitizerMustBeAComputeSanitizerTool) {
  EXPECT_EQ(Settings::from_entries({"HAZARDLAB_SANITIZE=synccheck"}).sanitizer, "synccheck");
  try {
    (void)Settings::from_entries({"HAZARDLAB_SANITIZE=garbage"});
    ADD_FAILURE() << "garbage accepted";
  } catch (const SettingsError& e) {
    EXPECT_NE(std::string(e.what()).find("memcheck, racecheck, initcheck or synccheck"), std::string::npos);
  }
}

TEST(Settings, RunsAreKeptUpToALimit) {
  EXPECT_EQ(Settings::from_entries({}).keep_runs, 20u);
  EXPECT_EQ(Settings::from_entries({"HAZARDLAB_KEEP_RUNS=3"}).keep_runs, 3u);
  EXPECT_THROW(Settings::from_entries({"HAZARDLAB_KEEP_RUNS=0"}), SettingsError);
}

TEST(Settings, TheHealthProfileChoosesShortTrialsAndRequiresAGpuUnlessTheEnvironmentSays) {
  const Settings health = Settings::from_entries({"HAZARDLAB_PROFILE=health"});
  EXPECT_EQ(health.profile, RunProfile::Health);
  EXPECT_EQ(health.control_trials, 20);
  EXPECT_EQ(health.property_cases, 20);
  EXPECT_EQ(health.max_transfer_bytes, std::size_t{16} << 20);
  EXPECT_FALSE(health.mutation_check);
  EXPECT_TRUE(health.require_gpu);
  EXPECT_EQ(health.chosen_by_profile.size(), 5u);
  EXPECT_EQ(health.chosen_by(setting::kTrials), "health profile");
  EXPECT_EQ(health.chosen_by(setting::kGateTimeoutMs), "");
  const Settings told = Settings::from_entries({"HAZARDLAB_PROFILE=health", "HAZARDLAB_TRIALS=7", "HAZARDLAB_REQUIRE_GPU=0"});
  EXPECT_EQ(told.control_trials, 7);
  EXPECT_FALSE(told.require_gpu);
  EXPECT_EQ(told.chosen_by(setting::kTrials), "") << "the environment's own value is nobody's choice";
  EXPECT_EQ(Settings::from_entries({}).profile, RunProfile::Validation);
  EXPECT_EQ(Settings::from_entries({}).control_trials, 100);
  try {
    (void)Settings::from_entries({"HAZARDLAB_PROFILE=healthy"});
    ADD_FAILURE() << "healthy accepted";
  } catch (const SettingsError& e) {
    EXPECT_NE(std::string(e.what()).find("HAZARDLAB_PROFILE='healthy': expected validation, health or soak"),
              std::string::npos)
        << e.what();
  }
}

// The run profile's words are spelled once, by RunProfile (hazardlab/run_profile.hpp); the setting's declaration,
// which `hazardlab settings` and the README show, lists the same words in the same order.
TEST(Settings, TheProfileSettingListsTheRunProfilesWords) {
  std::vector<std::string> words;
  for (const RunProfile p : kRunProfiles) words.emplace_back(to_string(p));
  EXPECT_EQ(declared_words(setting::kProfile), words);
  EXPECT_EQ(setting::kProfile.default_text, to_string(RunProfile::Validation));
  for (const RunProfile p : kRunProfiles) EXPECT_EQ(run_profile_named(to_string(p)), p);
  EXPECT_EQ(run_profile_named("healthy"), std::nullopt);
}

// `hazardlab run --profile` and `--duration` are settings given on the command line: they stand above the
// environment's, and the record says the environment set them (as ctest's environment would have).
TEST(Settings, ACommandLineSettingStandsAboveTheEnvironment) {
  const ScopedEnv soak("HAZARDLAB_PROFILE", "soak");
  EXPECT_EQ(Settings::from_environment().profile, RunProfile::Soak);
  const Settings given = Settings::from_environment({{&setting::kProfile, "health"}, {&setting::kSoakDuration, "90s"}});
  EXPECT_EQ(given.profile, RunProfile::Health);
  EXPECT_EQ(given.soak_duration, std::chrono::seconds(90));
  EXPECT_EQ(given.chosen_by(setting::kTrials), "health profile");
  EXPECT_EQ(CommandLineSetting({&setting::kProfile, "health"}).entry(), "HAZARDLAB_PROFILE=health");
}

TEST(Settings, ASoakDurationIsSecondsMinutesHoursOrDaysUpToAWeek) {
  EXPECT_EQ(Settings::from_entries({}).soak_duration, std::chrono::minutes(10));
  EXPECT_EQ(Settings::from_entries({"HAZARDLAB_SOAK_DURATION=90s"}).soak_duration, std::chrono::seconds(90));
  EXPECT_EQ(Settings::from_entries({"HAZARDLAB_SOAK_DURATION=2m"}).soak_duration, std::chrono::seconds(120));
  EXPECT_EQ(Settings::from_entries({"HAZARDLAB_SOAK_DURATION=3h"}).soak_duration, std::chrono::hours(3));
  EXPECT_EQ(Settings::from_entries({"HAZARDLAB_SOAK_DURATION=45"}).soak_duration, std::chrono::seconds(45));
  for (const char* bad : {"0s", "10x", "-5m", "8d", "m", "1.5h"}) {
    EXPECT_THROW(Settings::from_entries({std::string("HAZARDLAB_SOAK_DURATION=") + bad}), SettingsError) << bad;
  }
  EXPECT_EQ(Settings::from_entries({}).soak_inject_fault, SoakFault::None);
  EXPECT_EQ(Settings::from_entries({"HAZARDLAB_SOAK_INJECT_FAULT=1"}).soak_inject_fault,
            SoakFault::PinnedDeviceToHost);
  EXPECT_EQ(Settings::from_entries({"HAZARDLAB_SOAK_INJECT_FAULT=peer"}).soak_inject_fault, SoakFault::Peer);
  EXPECT_THROW(Settings::from_entries({"HAZARDLAB_SOAK_INJECT_FAULT=yes"}), SettingsError);
}

// The settings page's table is the declaration as a user reads it: the same names, defaults and
// meanings, row for row (docs/settings.md).
std::map<std::string, std::pair<std::string, std::string>> readme_settings_table(const std::string& readme) {
  std::map<std::string, std::pair<std::string, std::string>> rows;
  std::ifstream in(readme);
  std::string line;
  bool in_settings = false;
  while (std::getline(in, line)) {
    if (line.starts_with("## ")) in_settings = line == "## Settings";
    if (!in_settings || !line.starts_with("| `")) continue;
    // | `NAME` | default | meaning |
    const std::size_t name_end = line.find("` | ");
    const std::size_t default_end = line.find(" | ", name_end + 4);
    if (name_end == std::string::npos || default_end == std::string::npos || !line.ends_with(" |")) continue;
    rows[line.substr(3, name_end - 3)] = {line.substr(name_end + 4, default_end - name_end - 4),
                                          line.substr(default_end + 3, line.size() - default_end - 5)};
  }
  return rows;
}

TEST(Settings, TheReadmeTableIsTheDeclaration) {
  const auto rows = readme_settings_table(HAZARDLAB_SOURCE_DIR "/docs/settings.md");
  ASSERT_FALSE(rows.empty()) << "no settings table found in docs/settings.md";
  for (const SettingDeclaration& d : declared_settings()) {
    const auto row = rows.find(std::string(d.name));
    if (row == rows.end()) {
      ADD_FAILURE() << d.name << " is declared but has no row in docs/settings.md's settings table";
      continue;
    }
    EXPECT_EQ(row->second.first, d.default_text) << d.name << ": the README's default is not the declared one";
    EXPECT_EQ(row->second.second, d.help) << d.name << ": the README's meaning is not the declared help";
  }
  for (const auto& [name, row] : rows) {
    EXPECT_TRUE(is_declared_setting(name)) << name << " is in docs/settings.md's settings table but declared nowhere";
  }
}

TEST(SettingSource, ReadsEachValueByItsDeclaredTypeAndRange) {
  const SettingSource source({"HAZARDLAB_TRIALS=7", "HAZARDLAB_GATES=spin-kernel", "HAZARDLAB_SOAK_DURATION=90s",
                              "HAZARDLAB_MIN_OVERLAP=0.25", "HAZARDLAB_PERF_PROFILE=full", "PATH=/bin"});
  EXPECT_EQ(source.whole(setting::kTrials, 100), 7u);
  EXPECT_EQ(source.whole(setting::kPropertyCases, 100), 100u) << "not given: the caller's default";
  EXPECT_EQ(source.list(setting::kGates), std::vector<std::string>{"spin-kernel"});
  EXPECT_EQ(source.duration(setting::kSoakDuration, std::chrono::seconds(600)), std::chrono::seconds(90));
  EXPECT_DOUBLE_EQ(source.fraction(setting::kMinOverlap, 0.5), 0.25);
  EXPECT_EQ(source.choice(setting::kPerfProfile, "quick"), "full");
  EXPECT_EQ(source.entries().size(), 5u) << "only hazardlab's own variables are kept";
  // The declaration's range is the one every reader enforces, with the same words.
  for (const char* bad : {"HAZARDLAB_TRIALS=100001", "HAZARDLAB_SOAK_DURATION=8d", "HAZARDLAB_PERF_PROFILE=medium"}) {
    const SettingSource refused({bad});
    const std::string name = std::string(bad).substr(0, std::string(bad).find('='));
    try {
      (void)refused.whole(setting::kTrials, 0);
      (void)refused.duration(setting::kSoakDuration, std::chrono::seconds(1));
      (void)refused.choice(setting::kPerfProfile, "quick");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const SettingsError& e) {
      EXPECT_NE(std::string(e.what()).find(name + "='"), std::string::npos) << e.what();
    }
  }
}

TEST(SettingSource, AProfileChoosesOnlyWhereTheEnvironmentIsSilentAndIsReadLikeAnyValue) {
  SettingSource source({"HAZARDLAB_TRIALS=7"});
  source.choose(setting::kTrials, "20", "health profile");
  source.choose(setting::kPropertyCases, "20", "health profile");
  EXPECT_EQ(source.whole(setting::kTrials, 100), 7u);
  EXPECT_EQ(source.chosen_by(setting::kTrials), "");
  EXPECT_EQ(source.whole(setting::kPropertyCases, 100), 20u);
  EXPECT_EQ(source.chosen_by(setting::kPropertyCases), "health profile");
  source.choose(setting::kMaxBytes, "12", "broken profile");  // below the declared 4096: refused like a person's
  EXPECT_THROW((void)source.whole(setting::kMaxBytes, 0), SettingsError);
}

TEST(Settings, EachGroupRecordsTheSettingsItReads) {
  const Settings s = Settings::from_entries({"HAZARDLAB_TRIALS=7", "HAZARDLAB_GATE_TIMEOUT_MS=500"});
  std::map<std::string, std::string> recorded;
  for (const SettingInForce& v : s.in_force()) EXPECT_TRUE(recorded.emplace(v.setting->name, v.value).second);
  EXPECT_EQ(recorded.at("HAZARDLAB_TRIALS"), "7");
  EXPECT_EQ(recorded.at("HAZARDLAB_GATE_TIMEOUT_MS"), "500");
  EXPECT_EQ(recorded.at("HAZARDLAB_GATES"), "host-function,spin-kernel");
  // A trial sees its own group: what it waits for and whether its guard is on.
  const TrialSettings& trial = s;
  EXPECT_EQ(trial.fence_timeout(), std::chrono::milliseconds(1000));
  EXPECT_FALSE(trial.under_sanitizer);
  EXPECT_TRUE(static_cast<const TrialSettings&>(Settings::from_entries({"HAZARDLAB_SANITIZE=memcheck"})).under_sanitizer);
}

// The one PATH search (hazardlab/environment.hpp), as execvp searches: the launcher, the reference tool and
// compute-sanitizer all find their programs through it.
TEST(Environment, FindProgramSearchesPathAsExecvpDoes) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("hazardlab-find-program-" + std::to_string(::getpid()));
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  for (const fs::path& p : {dir / "a" / "tool", dir / "b" / "tool", dir / "b" / "plain"}) std::ofstream(p) << "#!/bin/sh\n";
  fs::permissions(dir / "b" / "tool", fs::perms::owner_all);  // a/tool stays not runnable
  const std::optional<std::string> saved = environment_value("PATH");
  ::setenv("PATH", (dir / "a").string().append(":").append((dir / "b").string()).c_str(), 1);
  EXPECT_EQ(find_program("tool"), dir / "b" / "tool");  // the first runnable one, past a/tool
  EXPECT_EQ(find_program("plain"), std::nullopt);       // there, but not runnable
  EXPECT_EQ(find_program("absent"), std::nullopt);
  EXPECT_EQ(find_program((dir / "b" / "tool").string()), dir / "b" / "tool");  // a path is itself
  EXPECT_EQ(find_program((dir / "a" / "tool").string()), std::nullopt);
  ::setenv("PATH", (dir / "a").string().append(":").c_str(), 1);  // an empty entry: the current folder
  const fs::path here = fs::current_path();
  fs::current_path(dir / "b");
  EXPECT_EQ(find_program("tool"), fs::path("./tool"));
  fs::current_path(here);
  if (saved) ::setenv("PATH", saved->c_str(), 1); else ::unsetenv("PATH");
  fs::remove_all(dir);
}

// The one hash is FNV-1a as published (the reference values of "" and "a").
static_assert(hazardlab::fnv1a("") == 0xcbf29ce484222325ull);
static_assert(hazardlab::fnv1a("a") == 0xaf63dc4c8601ec8cull);
static_assert(hazardlab::fnv1a("b", hazardlab::fnv1a("a")) == hazardlab::fnv1a("ab"));
