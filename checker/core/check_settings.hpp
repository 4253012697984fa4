// The environment the launcher hands the injected library. The checker's own variables, HL_CHECK_*, are
// declared with every other setting (settings/src/settings_table.cpp: name, type, range, help) and read
// through those declarations; CUDA's own variable is named here, once.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
// Every conflicting access reported, not one per pair of call sites: setting::kCheckEveryOccurrence.
bool every_occurrence_from_environment();
// Kernels handed pointers into pinned host memory own what they point to: setting::kCheckKernelsOwnMappedMemory.
bool kernels_own_mapped_memory_from_environment();
// The faster mode, setting::kCheckSample: 0 when unset (every copy watched). The launcher wrote it, so a
// value its declaration refuses is taken as 0: the injected library never stops a program, and watching
// every copy is the side that cannot hide a finding.
unsigned long sample_from_environment();
// How owned pages are protected (`hazardlab check --protection`, setting::kCheckProtection). `RangeKeys` asks for
// protection keys with a key per pinned range (the launcher then preloads the thread shim; the fault path
// chooses as for `Auto`, and uses range keys because the shim is there). The launcher hands the request across
// the exec as the setting, spelled by to_string, and the injected library reads it back with
// protection_request_named: one spelling, here (the setting's declaration lists the same words, a self-test
// holds them equal).
enum class ProtectionRequest { Auto, Keys, RangeKeys, Mprotect };
inline constexpr ProtectionRequest kProtectionRequests[] = {ProtectionRequest::Auto, ProtectionRequest::Keys,
                                                            ProtectionRequest::RangeKeys, ProtectionRequest::Mprotect};
std::string_view to_string(ProtectionRequest request) noexcept;  // "auto", "keys", "range-keys", "mprotect"
std::optional<ProtectionRequest> protection_request_named(std::string_view name) noexcept;
// The request a command-line option gave; else a SettingsError naming the option, the value and the words allowed.
ProtectionRequest protection_request_given(std::string_view option, const std::string& value);
// The request in the environment: `Auto` when unset or refused, for the same reason as the sample.
ProtectionRequest protection_from_environment();

// The checker's settings as the injected library takes them.
struct CheckSettings {
  unsigned long sample = 0;  // 0: every copy watched; N: each host range's first N copies, then one in N
  bool every_occurrence = false;           // every conflicting access, not one per pair of call sites
  bool kernels_own_mapped_memory = false;  // a kernel owns the pinned host memory it is handed, as a copy does
  ProtectionRequest protection = ProtectionRequest::Auto;
};
CheckSettings check_settings_from_environment();

// Each checker setting in the environment that its declaration refuses, said as "HL_CHECK_SAMPLE='abc': why".
// The launcher refuses to start with any (exit 2); the injected library, started some other way, says each in
// the process's log, which makes the run not-checked: a value is never replaced without a word.
std::vector<std::string> refused_check_settings();

}  // namespace hazardlab::check
