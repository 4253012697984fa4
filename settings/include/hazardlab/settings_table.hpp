#pragma once
// Every setting hazardlab reads from the environment, declared once: name, type, default, range
// and help. The harness's typed settings, `hazardlab settings`, the unknown-name check and the
// README's settings table (checked by a test) all come from this table. Plain C++, no CUDA and no
// other hazardlab library, so every layer can use it, the record and the checker included.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace hazardlab {

enum class SettingType {
  Flag,      // 1/0, true/false, yes/no, on/off
  Count,     // a whole number within [min, max]
  Bytes,     // a whole number of bytes within [min, max]
  Millis,    // a whole number of milliseconds within [min, max]
  Seed,      // a whole number of 64 bits
  Choice,    // one of the words in `range`
  List,      // comma-separated words of `range`
  Fraction,  // a decimal number from 0 to 1
  Duration,  // 90s, 10m, 2h or a number of seconds
  Path,      // a file or folder
  Text,      // anything `range` allows
};

struct SettingDeclaration {
  std::string_view name;
  SettingType type;
  std::string_view default_text;  // as the README's settings table shows it
  std::string_view range;         // what a value may be, in words
  std::string_view help;
  std::uint64_t min = 0;  // whole-number types: the smallest and largest value allowed
  std::uint64_t max = UINT64_MAX;
};

// Each setting by the name the code reads it with, so that its spelling, type and range are written
// once, in settings_table.cpp; code never spells a HAZARDLAB_* or HL_CHECK_* name again (a lint rule).
namespace setting {
extern const SettingDeclaration kRequireGpu;
extern const SettingDeclaration kTrials;
extern const SettingDeclaration kPropertyCases;
extern const SettingDeclaration kSeed;
extern const SettingDeclaration kMaxBytes;
extern const SettingDeclaration kGateTimeoutMs;
extern const SettingDeclaration kCallLimitMs;
extern const SettingDeclaration kGates;
extern const SettingDeclaration kSabotageGuards;
extern const SettingDeclaration kMutationCheck;
extern const SettingDeclaration kPerfProfile;
extern const SettingDeclaration kSweepProfile;
extern const SettingDeclaration kConformanceProfile;
extern const SettingDeclaration kPinnedBudgetMb;
extern const SettingDeclaration kMinLinkFraction;
extern const SettingDeclaration kMinOverlap;
extern const SettingDeclaration kNvbandwidth;
extern const SettingDeclaration kHostLock;
extern const SettingDeclaration kTimedTurns;
extern const SettingDeclaration kSanitize;
extern const SettingDeclaration kResultsRoot;
extern const SettingDeclaration kReportsDir;
extern const SettingDeclaration kKeepRuns;
extern const SettingDeclaration kStrict;
extern const SettingDeclaration kHostName;
extern const SettingDeclaration kFreshProcesses;
extern const SettingDeclaration kProfile;
extern const SettingDeclaration kPrometheusDir;
extern const SettingDeclaration kSoakDuration;
extern const SettingDeclaration kSoakInjectFault;
extern const SettingDeclaration kRunDir;
extern const SettingDeclaration kCheckLogFolder;
extern const SettingDeclaration kCheckSample;
extern const SettingDeclaration kCheckEveryOccurrence;
extern const SettingDeclaration kCheckKernelsOwnMappedMemory;
extern const SettingDeclaration kCheckManagedMemory;
extern const SettingDeclaration kCheckGraphNodes;
extern const SettingDeclaration kCheckPtxFootprints;
extern const SettingDeclaration kCheckProtection;
extern const SettingDeclaration kFootprintMode;
extern const SettingDeclaration kFootprintPatch;
extern const SettingDeclaration kFootprintCupti;
extern const SettingDeclaration kFootprintPrint;
extern const SettingDeclaration kProfileOut;
extern const SettingDeclaration kProfileIntervalUs;
}  // namespace setting

// The whole table, in the order `hazardlab settings` lists it.
std::span<const SettingDeclaration> declared_settings();
// The declaration of `name`; throws std::logic_error for a name nobody declared (a bug, not input).
const SettingDeclaration& declared_setting(std::string_view name);
bool is_declared_setting(std::string_view name);
// The declared name nearest to a mistyped HAZARDLAB_* or HL_CHECK_* one, of the same family (setting_names.cpp).
std::string_view nearest_known_setting(std::string_view name);
// Where `name` stands in the table (the order every list of settings keeps); the table's size for a name
// nobody declared.
std::size_t declared_position(std::string_view name);

}  // namespace hazardlab
