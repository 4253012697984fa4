// The environment the launcher hands the injected library. The checker's own variables, HL_CHECK_*, are
// declared with every other setting (settings/src/settings_table.cpp: name, type, range, help) and read
// through those declarations; CUDA's own variable is named here, once.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hazardlab/setting_source.hpp"
#include "hazardlab/settings_table.hpp"

namespace hazardlab::check {

// CUDA's own variable: the library the driver loads at cuInit.
inline constexpr std::string_view kInjectionPath = "CUDA_INJECTION64_PATH";

// Where each process of the checked program writes its log (process-<pid>.jsonl): setting::kCheckLogFolder.
std::optional<std::string> check_log_folder_from_environment();
// This process's rank as the launcher that started it set it (Open MPI's mpirun, PMI and PMIx launchers, Slurm's
// srun; the first of OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID that holds a whole number), so that
// each process of a parallel job names its rank in the reports; nothing outside such a launcher.
std::optional<std::string> process_rank_from_environment();
// How owned pages are protected (`hazardlab check --protection`, setting::kCheckProtection). `RangeKeys` asks for
// protection keys with a key per pinned range (the launcher then preloads the thread shim; the fault path
// chooses as for `Auto`, and uses range keys because the shim is there). Spelled once, by to_string (the
// setting's declaration lists the same words, a self-test holds them equal).
enum class ProtectionRequest { Auto, Keys, RangeKeys, Mprotect };
inline constexpr ProtectionRequest kProtectionRequests[] = {ProtectionRequest::Auto, ProtectionRequest::Keys,
                                                            ProtectionRequest::RangeKeys, ProtectionRequest::Mprotect};
std::string_view to_string(ProtectionRequest request) noexcept;  // "auto", "keys", "range-keys", "mprotect"
std::optional<ProtectionRequest> protection_request_named(std::string_view name) noexcept;
// The request a command-line option gave; else a SettingsError naming the option, the value and the words allowed.
ProtectionRequest protection_request_given(std::string_view option, const std::string& value);

// The checker's settings (every HL_CHECK_* setting but the log folder), decided once: by the launcher, from its
// options over the environment it was started in. It hands them across the exec one variable each, from one
// table (check_settings.cpp: each setting's declaration, its reading and its spelling), and the injected library
// reads the typed values back from the same table.
struct CheckSettings {
  unsigned long sample = 0;  // 0: every copy watched; N: each host range's first N copies, then one in N
  bool every_occurrence = false;           // every conflicting access, not one per pair of call sites
  bool kernels_own_mapped_memory = false;  // a kernel owns the pinned host memory it is handed, as a copy does
  // A kernel owns the managed allocations it is handed until the host knows it ran. Off by default until a GPU run
  // shows that protecting a managed range changes nothing the program computes (checker/README.md).
  bool managed_memory = false;
  ProtectionRequest protection = ProtectionRequest::Auto;
  bool ptx_footprints = false;  // a kernel's ranges read from its PTX where it can be followed
  bool graph_nodes = false;  // a launched graph's nodes are device work of their own, ordered by its edges
};
// The settings a source gives, each value its declaration refuses said as "HL_CHECK_SAMPLE='abc': why" in
// `refused`, with the setting left at its default: every copy watched, one finding per pair, kernels owning
// nothing, `auto`. The launcher refuses to start with any; the injected library, started some other way, says a
// refused sample or flag in the log (the run is then not checked) and watches on the side that cannot hide a
// finding, and does not watch at all on a protection it does not know (the launcher chose the preloads for the
// protection it decided, so no other is a safe stand-in).
struct CheckSettingsRead {
  CheckSettings settings;
  std::vector<std::string> refused;
  std::optional<std::string> protection_refused;  // the protection's refusal, among `refused` too
};
CheckSettingsRead read_check_settings(const SettingSource& source);
// How the launcher hands `settings` over: each setting's variable and its text, or nothing where the setting is at
// its default (the variable is then removed, so that the program inherits no other value).
std::vector<std::pair<std::string_view, std::optional<std::string>>> handed_over(const CheckSettings& settings);

// Each checker setting in the environment that its declaration refuses, said as "HL_CHECK_SAMPLE='abc': why".
// The launcher refuses to start with any (exit 2); the injected library, started some other way, says each in
// the process's log, which makes the run not-checked: a value is never replaced without a word.
std::vector<std::string> refused_check_settings();

}  // namespace hazardlab::check
