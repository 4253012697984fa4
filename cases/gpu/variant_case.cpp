#include "variant_case.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>

#include "hazardlab/result_store.hpp"
#include "judge/judge_variant.hpp"
#include "perf/host_lock.hpp"

namespace hazardlab {
namespace {

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

// A result that cannot be written (a full disk) ends the case as a failure that names the file,
// never as an uncaught exception that aborts the process.
class RecordFailed : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

void record(const Settings& settings, const VariantResult& r) {
  if (settings.run_dir.empty()) return;
  try {
    store_result(settings.run_dir, r);
  } catch (const std::exception& e) {
    throw RecordFailed(e.what());
  }
}

void print(const VariantResult& r, std::ostream& out) {
  out << "   outcome: " << upper(to_string(r.outcome)) << " after " << r.trials << " trial(s)";
  if (r.kind == VariantKind::Control || r.kind == VariantKind::Observation) out << ", hazard seen in " << r.reproduced;
  if (r.seed) out << ", seed " << *r.seed;
  out << " (" << static_cast<long>(r.duration_ms) << " ms)\n";
  if (!r.reason.empty()) out << "   " << r.reason << '\n';
  if (!r.finding.empty()) out << "   finding: " << r.finding << '\n';
  if (!r.minimal_case.is_null()) out << "   smallest failing case: " << r.minimal_case.dump() << '\n';
  if (r.mutation_check) {
    const MutationCheck& m = *r.mutation_check;
    out << "   mutation check (the same property without the guard's synchronization): "
        << (m.caught ? "CAUGHT, " : "NOT CAUGHT, ") << to_string(m.outcome_without_synchronization) << ": " << m.reason
        << '\n';
  }
}

CaseEnd without_device(const Hazard& hazard, const Variant& variant, const std::string& no_device_reason,
                       const Settings& settings) {
  const std::string why = "no usable GPU: " + no_device_reason;
  VariantResult r;
  r.hazard_id = hazard.id;
  r.variant_id = variant.id;
  r.kind = variant.kind;
  r.outcome = Outcome::Skipped;
  r.reason = why;
  record(settings, r);
  if (settings.require_gpu) return {Standing::Bad, "HAZARDLAB_REQUIRE_GPU=1, but there is " + why};
  return {Standing::NotRun, why};
}

CaseEnd run_and_record(const Hazard& hazard, const Variant& variant, const std::optional<DeviceFingerprint>& device,
                       const std::string& no_device_reason, const Settings& settings, std::ostream& out);

}  // namespace

VariantResult crash_marker(const Hazard& hazard, const Variant& variant, int device_index) {
  VariantResult marker;
  marker.hazard_id = hazard.id;
  marker.variant_id = variant.id;
  marker.kind = variant.kind;
  marker.device_index = device_index;
  marker.outcome = Outcome::Failed;
  marker.reason = "the case process ended before writing its result (crashed, killed or timed out)";
  return marker;
}

CaseEnd run_variant_case(const Hazard& hazard, const Variant& variant, const std::optional<DeviceFingerprint>& device,
                         const std::string& no_device_reason, const Settings& settings, std::ostream& out) {
  try {
    return run_and_record(hazard, variant, device, no_device_reason, settings, out);
  } catch (const RecordFailed& e) {
    out << "   FAILED: the result could not be recorded: " << e.what() << '\n';
    return {Standing::Bad, std::string("the result could not be recorded: ") + e.what()};
  }
}

namespace {

CaseEnd run_and_record(const Hazard& hazard, const Variant& variant, const std::optional<DeviceFingerprint>& device,
                       const std::string& no_device_reason, const Settings& settings, std::ostream& out) {
  out << "\n== " << hazard.id << " / " << variant.id << " (" << to_string(variant.kind) << ") on "
      << (device ? "GPU " + std::to_string(device->index) + " (" + device->name + ")" : "no GPU") << "\n   "
      << hazard.title << "\n   variant: " << variant.title << '\n';
  if (!device) return without_device(hazard, variant, no_device_reason, settings);

  // Recorded first, so that a case whose process dies leaves a failure, not nothing.
  record(settings, crash_marker(hazard, variant, device->index));

  // Shared with every other case of the host; a bandwidth or overlap measurement of its timing group (the whole
  // host, unless HAZARDLAB_TIMED_TURNS says otherwise) takes it alone.
  const perf::HostLock host_in_use(perf::HostLock::Mode::Shared, std::chrono::minutes(2),
                                   {perf::timing_group(*device, perf::timed_turns_from_environment())});
  const VariantResult r = judge_variant(hazard, variant, *device, settings);
  record(settings, r);
  print(r, out);
  const Standing standing = standing_of(r.outcome);
  switch (standing) {
    case Standing::Good:
      return {standing, ""};
    case Standing::NotRun:
      return {standing, r.reason};
    case Standing::Undecided:
      return {standing, "INCONCLUSIVE (not a pass): " + r.reason};
    case Standing::Bad:
      break;
  }
  return {standing, upper(to_string(r.outcome)) + ": " + r.reason};
}

}  // namespace

int exit_code_of(const CaseEnd& end) noexcept {
  switch (end.standing) {
    case Standing::Good:
      return 0;
    case Standing::NotRun:
      return kSkipExitCode;
    default:
      return 1;
  }
}

std::string cuda_error_left_behind(int device) {
  for (const cudaError_t rc : {cudaSetDevice(device), cudaDeviceSynchronize(), cudaGetLastError()}) {
    if (rc != cudaSuccess) return std::string(cudaGetErrorName(rc)) + ": " + cudaGetErrorString(rc);
  }
  return "";
}

}  // namespace hazardlab
