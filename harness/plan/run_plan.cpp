#include "plan/run_plan.hpp"

#include <algorithm>
#include <map>

#include "hazardlab/results_layout.hpp"
#include "hazardlab/settings_table.hpp"
#include "plan/profile.hpp"

namespace hazardlab {

namespace {

constexpr std::chrono::seconds kTestLimit{600};

// The GPUs a run plans for: -1 alone where there is none, so that every case still runs, and skips.
std::vector<int> planned_devices(const std::vector<int>& devices) {
  return devices.empty() ? std::vector<int>{-1} : devices;
}

// Bandwidth and overlap are timed: they run before any case, with nothing else on the host's GPUs.
Phase phase_of_part(MeasurementGroup part) { return timed_alone(part) ? Phase::Timed : Phase::Untimed; }

std::string device_argument(int device_index) {
  return device_index < 0 ? std::string("none") : std::to_string(device_index);
}

// A case under compute-sanitizer runs in its own process: a sanitizer must see the process. A guard must
// be clean under it, so an error it reports fails the case; a positive control, a rule or an observation
// may misuse the API on purpose (a rule shows that a bad call is refused): what the sanitizer says is in
// the case's output, and its outcome decides. Without a sanitizer the GPU's warm worker runs the case.
std::vector<std::string> case_command(const PlanRequest& r, int device_index, const Hazard& h, const Variant& v) {
  std::vector<std::string> command;
  if (!r.sanitizer.empty()) {
    command = {r.sanitizer.string(), "--tool", r.sanitizer_tool};
    // memcheck also sees a stream-ordered allocation used before it is allocated or after it is freed.
    if (r.sanitizer_tool == "memcheck") command.insert(command.end(), {"--track-stream-ordered-races", "all"});
    if (v.kind == VariantKind::Guard) command.insert(command.end(), {"--error-exitcode", "1"});
  }
  command.insert(command.end(),
                 {r.programs.cases.string(), "--device", device_argument(device_index), "--hazard", h.id, "--variant", v.id});
  if (r.sanitizer.empty()) command.push_back("--warm");
  return command;
}

// A case that uses two GPUs comes last on its GPU. It leaves a context on the other GPU in this GPU's
// warm worker, and the driver then maps each later pinned allocation of that worker into both GPUs and
// takes longer for allocations on the other GPU too (on four H200s, the case chains ran up to 5 s
// longer with the peer cases among the others than without them).
std::vector<ProfileCase> cases_in_turn_order(RunProfile profile) {
  std::vector<ProfileCase> cases = profile_cases(profile);
  std::stable_partition(cases.begin(), cases.end(), [](const ProfileCase& c) { return !uses_two_gpus(*c.variant); });
  return cases;
}

}  // namespace

RunPlan plan_run(const PlanRequest& r) {
  RunPlan plan;
  plan.place = r.place;
  plan.run_dir = run_folder(r.place.results_root, r.place.run_id);
  // Every case numbers GPUs in PCI bus order, as nvidia-smi does (the binaries also set it).
  plan.environment = {std::string(setting::kRunDir.name) + "=" + plan.run_dir.string(), "CUDA_DEVICE_ORDER=PCI_BUS_ID"};
  const std::string tool = r.programs.tool.string();
  plan.tests.push_back({"hazardlab/session-start", Phase::Start, -1,
                        {tool, "session-start", "--results-root", r.place.results_root.string(), "--run-id",
                         r.place.run_id, "--owner-pid", std::to_string(r.place.owner_pid)},
                        {"gpu", "session"}, "", std::chrono::seconds{0}, {}});
  plan.tests.push_back({"hazardlab/report", Phase::Report, -1,
                        {tool, "report", "--run", plan.run_dir.string(), "--out", r.place.reports_dir.string()},
                        {"gpu", "session"}, "", std::chrono::seconds{0}, {}});

  const std::vector<ProfileCase> cases = cases_in_turn_order(r.profile);
  // Nothing is timed under a sanitizer: it slows every call.
  const std::vector<MeasurementGroup> parts =
      r.sanitizer.empty() ? profile_perf_parts(r.profile) : std::vector<MeasurementGroup>{};
  for (const int d : planned_devices(r.devices)) {
    const std::string gpu = device_label(d);
    const std::filesystem::path logs = std::filesystem::path("logs") / gpu;
    // A case that uses two GPUs (label peer) holds its own GPU's lock only, like every other case: the
    // other GPU's cases may run beside it. Its controls are gated and its guards must hold under any
    // load, and work it queues on the other GPU only delays what runs there (time-slicing never shortens
    // a sleep or opens a gate), so neither GPU's outcomes depend on the other's; only the measurements,
    // which run before every case, run alone.
    for (const auto& [h, v] : cases) {
      std::vector<std::string> labels = {"gpu", gpu, "hazard:" + h->id, "kind:" + std::string(to_string(v->kind))};
      labels.insert(labels.end(), v->labels.begin(), v->labels.end());
      plan.tests.push_back({case_name(d, h->id, v->id), Phase::Case, d, case_command(r, d, *h, *v), std::move(labels),
                            gpu, kTestLimit, logs / (h->id + "--" + v->id + ".log")});
    }
    for (const MeasurementGroup group : parts) {
      const std::string part(to_string(group));
      // A soak runs for its duration and stops on time; the limit only catches one that does not.
      const std::chrono::seconds limit = group == MeasurementGroup::Soak ? kTestLimit + r.soak_duration : kTestLimit;
      plan.tests.push_back({measurement_name(d, part), phase_of_part(group), d,
                            {r.programs.perf.string(), "--device", device_argument(d), "--part", part},
                            {"gpu", "perf", gpu}, gpu, limit, logs / ("perf--" + part + ".log")});
    }
  }
  return plan;
}

std::vector<std::string> registered_names(const std::vector<int>& devices, RunProfile profile) {
  std::vector<std::string> names;
  for (const int d : planned_devices(devices)) {
    for (const auto& [h, v] : cases_in_turn_order(profile)) names.push_back(case_name(d, h->id, v->id));
    for (const MeasurementGroup part : profile_perf_parts(profile)) names.push_back(measurement_name(d, to_string(part)));
  }
  return names;
}

std::vector<std::vector<const PlannedTest*>> turns_by_gpu(const RunPlan& plan, std::vector<Phase> phases) {
  std::map<int, std::vector<const PlannedTest*>> by_gpu;
  for (const PlannedTest& t : plan.tests) {
    if (std::find(phases.begin(), phases.end(), t.phase) != phases.end()) by_gpu[t.device_index].push_back(&t);
  }
  std::vector<std::vector<const PlannedTest*>> turns;
  for (auto& [device, tests] : by_gpu) turns.push_back(std::move(tests));
  return turns;
}

}  // namespace hazardlab
