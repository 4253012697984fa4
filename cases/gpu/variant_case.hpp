#pragma once
// One variant on one GPU, start to end: the crash marker, the host lock, the judgement, the
// record and what a person reads. The GoogleTest runner and the warm worker both end a case here,
// so a case reads and records the same whichever process runs it.
#include <optional>
#include <ostream>
#include <string>

#include "hazardlab/device_fingerprint.hpp"
#include "hazardlab/outcome.hpp"
#include "hazard/hazard.hpp"
#include "settings/settings.hpp"

namespace hazardlab {

struct CaseEnd {
  Standing standing = Standing::Bad;
  std::string message;  // why it is not a pass; empty for a pass
};

CaseEnd run_variant_case(const Hazard& hazard, const Variant& variant, const std::optional<DeviceFingerprint>& device,
                         const std::string& no_device_reason, const Settings& settings, std::ostream& out);

// What a case records before it starts, so that a process that dies mid-case leaves a failure, not
// nothing: Failed, saying the process ended before writing its result.
VariantResult crash_marker(const Hazard& hazard, const Variant& variant, int device_index);

// ctest's reading of a case: 0 passed, 77 skipped (SKIP_RETURN_CODE), 1 anything else.
inline constexpr int kSkipExitCode = 77;
int exit_code_of(const CaseEnd& end) noexcept;

// After a case: empty if `device` synchronizes and holds no error, else what went wrong. A worker
// process that gets a non-empty answer must not take another case.
std::string cuda_error_left_behind(int device);

}  // namespace hazardlab
