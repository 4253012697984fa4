// The run plan for a machine with two GPUs (made up: the plan takes the GPUs' indexes), as ctest's
// registration and `hazardlab run` both execute it: the same names, commands, labels, locks, limits
// and phases that the registration gave each test before the plan existed.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "hazardlab/results_layout.hpp"
#include "hazard/registry.hpp"
#include "plan/ctest_plan.hpp"
#include "plan/profile.hpp"
#include "plan/run_plan.hpp"

using namespace hazardlab;
using Strings = std::vector<std::string>;

namespace {

PlanRequest two_gpus(RunProfile profile = RunProfile::Validation) {
  PlanRequest r;
  r.place = {"/r/results", "/r/reports", "20261125T000000Z-host-42", 42};
  r.programs = {"/b/hazardlab", "/b/hazardlab-cases", "/b/hazardlab-perf"};
  r.devices = {0, 1};
  r.profile = profile;
  return r;
}

const PlannedTest& named(const RunPlan& plan, const std::string& name) {
  const auto it = std::find_if(plan.tests.begin(), plan.tests.end(), [&](const PlannedTest& t) { return t.name == name; });
  if (it == plan.tests.end()) throw std::runtime_error("no planned test " + name);
  return *it;
}

Strings names_of(const std::vector<const PlannedTest*>& tests) {
  Strings names;
  for (const PlannedTest* t : tests) names.push_back(t->name);
  return names;
}

Strings lines_about(const std::string& text, const std::string& test) {
  Strings found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find('\t' + test + '\t') == line.find('\t')) found.push_back(line);  // the line's own test
  return found;
}

}  // namespace

TEST(RunPlan, NamesAreBuiltOneWay) {
  EXPECT_EQ(case_name(1, "h2d-pinned-mutate", "stream-synchronize"), "gpu1/h2d-pinned-mutate/stream-synchronize");
  EXPECT_EQ(case_name(-1, "h2d-pinned-mutate", "host-function"), "nogpu/h2d-pinned-mutate/host-function");
  EXPECT_EQ(measurement_name(0, "bandwidth"), "gpu0/perf/bandwidth");
}

TEST(RunPlan, TwoGpusGetTheFixturesThenEachGpusCasesThenItsMeasurements) {
  const RunPlan plan = plan_run(two_gpus());
  EXPECT_EQ(plan.run_dir, "/r/results/runs/20261125T000000Z-host-42");
  EXPECT_EQ(plan.environment, (Strings{"HAZARDLAB_RUN_DIR=/r/results/runs/20261125T000000Z-host-42",
                                       "CUDA_DEVICE_ORDER=PCI_BUS_ID"}));
  Strings expected = {"hazardlab/session-start", "hazardlab/report"};
  for (const int d : {0, 1}) {
    for (const bool two_gpus : {false, true})  // the cases that use two GPUs last
      for (const Hazard& h : Registry::instance().hazards())
        for (const Variant& v : h.variants)
          if (uses_two_gpus(v) == two_gpus) expected.push_back("gpu" + std::to_string(d) + "/" + h.id + "/" + v.id);
    for (const char* part : {"bandwidth", "overlap", "findings"})
      expected.push_back("gpu" + std::to_string(d) + "/perf/" + part);
  }
  Strings names;
  for (const PlannedTest& t : plan.tests) names.push_back(t.name);
  EXPECT_EQ(names, expected);
  // session-start's registered cases are the plan's tests, fixtures aside.
  EXPECT_EQ(registered_names({0, 1}, RunProfile::Validation), Strings(expected.begin() + 2, expected.end()));
}

TEST(RunPlan, EachTestHasItsCommandLabelsLockLimitAndPhase) {
  const RunPlan plan = plan_run(two_gpus());
  const PlannedTest& start = named(plan, "hazardlab/session-start");
  EXPECT_EQ(start.command, (Strings{"/b/hazardlab", "session-start", "--results-root", "/r/results", "--run-id",
                                    "20261125T000000Z-host-42", "--owner-pid", "42"}));
  EXPECT_EQ(start.phase, Phase::Start);
  EXPECT_EQ(start.labels, (Strings{"gpu", "session"}));
  const PlannedTest& report = named(plan, "hazardlab/report");
  EXPECT_EQ(report.command, (Strings{"/b/hazardlab", "report", "--run", "/r/results/runs/20261125T000000Z-host-42",
                                     "--out", "/r/reports"}));
  EXPECT_EQ(report.phase, Phase::Report);

  const PlannedTest& guard = named(plan, "gpu1/h2d-pinned-mutate/stream-synchronize");
  EXPECT_EQ(guard.command, (Strings{"/b/hazardlab-cases", "--device", "1", "--hazard", "h2d-pinned-mutate", "--variant",
                                    "stream-synchronize", "--warm"}));
  EXPECT_EQ(guard.labels, (Strings{"gpu", "gpu1", "hazard:h2d-pinned-mutate", "kind:guard"}));
  EXPECT_EQ(guard.lock, "gpu1");
  EXPECT_EQ(guard.timeout, std::chrono::seconds(600));
  EXPECT_EQ(guard.phase, Phase::Case);
  EXPECT_EQ(guard.log, "logs/gpu1/h2d-pinned-mutate--stream-synchronize.log");
  // A case that uses two GPUs holds its own GPU's lock only, and carries its variant's own labels.
  const PlannedTest& peer = named(plan, "gpu0/peer-copy-source-rewritten/unsafe-rewrite-on-other-stream");
  EXPECT_EQ(peer.labels, (Strings{"gpu", "gpu0", "hazard:peer-copy-source-rewritten", "kind:control", "peer"}));
  EXPECT_EQ(peer.lock, "gpu0");

  const PlannedTest& bandwidth = named(plan, "gpu1/perf/bandwidth");
  EXPECT_EQ(bandwidth.command, (Strings{"/b/hazardlab-perf", "--device", "1", "--part", "bandwidth"}));
  EXPECT_EQ(bandwidth.labels, (Strings{"gpu", "perf", "gpu1"}));
  EXPECT_EQ(bandwidth.lock, "gpu1");
  EXPECT_EQ(bandwidth.timeout, std::chrono::seconds(600));
  EXPECT_EQ(bandwidth.phase, Phase::Timed);
  EXPECT_EQ(bandwidth.log, "logs/gpu1/perf--bandwidth.log");
  EXPECT_EQ(named(plan, "gpu0/perf/overlap").phase, Phase::Timed);
  EXPECT_EQ(named(plan, "gpu0/perf/findings").phase, Phase::Untimed);
}

TEST(RunPlan, EachGpuTakesItsTurnsInThePlansOrder) {
  const RunPlan plan = plan_run(two_gpus());
  const auto timed = turns_by_gpu(plan, {Phase::Timed});
  ASSERT_EQ(timed.size(), 2u);
  EXPECT_EQ(names_of(timed[0]), (Strings{"gpu0/perf/bandwidth", "gpu0/perf/overlap"}));
  EXPECT_EQ(names_of(timed[1]), (Strings{"gpu1/perf/bandwidth", "gpu1/perf/overlap"}));
  const auto rest = turns_by_gpu(plan, {Phase::Case, Phase::Untimed});
  ASSERT_EQ(rest.size(), 2u);
  for (const auto& turn : rest) {
    ASSERT_FALSE(turn.empty());
    EXPECT_EQ(turn.front()->phase, Phase::Case);
    EXPECT_EQ(turn.back()->name.substr(4), "/perf/findings");  // the verified copies after the cases
    EXPECT_TRUE(std::all_of(turn.begin(), turn.end(), [&](const PlannedTest* t) { return t->lock == turn[0]->lock; }));
  }
}

TEST(RunPlan, TheCasesThatUseTwoGpusComeLastOnEachGpu) {
  const RunPlan plan = plan_run(two_gpus());
  for (const auto& turn : turns_by_gpu(plan, {Phase::Case})) {
    std::vector<bool> two;
    for (const PlannedTest* t : turn)
      two.push_back(uses_two_gpus(t->labels));
    ASSERT_EQ(std::count(two.begin(), two.end(), true), 4);  // two hazards, two variants each
    EXPECT_TRUE(std::is_partitioned(two.begin(), two.end(), [](bool b) { return !b; }));
  }
}

TEST(RunPlan, WithoutAGpuEveryCaseRunsOnNoneAndSkips) {
  PlanRequest r = two_gpus();
  r.devices.clear();
  const RunPlan plan = plan_run(r);
  const PlannedTest& c = named(plan, "nogpu/h2d-pinned-mutate/stream-synchronize");
  EXPECT_EQ(c.command[2], "none");
  EXPECT_EQ(c.lock, "nogpu");
  EXPECT_EQ(named(plan, "nogpu/perf/overlap").command[2], "none");
}

TEST(RunPlan, UnderASanitizerCasesRunInItsOwnProcessAndNothingIsTimed) {
  PlanRequest r = two_gpus();
  r.sanitizer = "/cuda/bin/compute-sanitizer";
  r.sanitizer_tool = "memcheck";
  const RunPlan plan = plan_run(r);
  EXPECT_EQ(named(plan, "gpu0/h2d-pinned-mutate/stream-synchronize").command,
            (Strings{"/cuda/bin/compute-sanitizer", "--tool", "memcheck", "--track-stream-ordered-races", "all",
                     "--error-exitcode", "1", "/b/hazardlab-cases", "--device", "0", "--hazard", "h2d-pinned-mutate",
                     "--variant", "stream-synchronize"}));
  // A control may misuse the API on purpose: what the sanitizer says does not fail it.
  const Strings control = named(plan, "gpu0/h2d-pinned-mutate/unsafe-mutate-after-call").command;
  EXPECT_EQ(std::count(control.begin(), control.end(), "--error-exitcode"), 0);
  EXPECT_TRUE(std::none_of(plan.tests.begin(), plan.tests.end(), [](const PlannedTest& t) {
    return t.name.find("/perf/") != std::string::npos;
  }));
  r.sanitizer_tool = "racecheck";
  EXPECT_EQ(named(plan_run(r), "gpu0/h2d-pinned-mutate/stream-synchronize").command[3], "--error-exitcode");
}

TEST(RunPlan, TheProfileChoosesTheCasesAndMeasurements) {
  const RunPlan health = plan_run(two_gpus(RunProfile::Health));
  EXPECT_EQ(turns_by_gpu(health, {Phase::Timed})[0].size(), 1u);  // bandwidth alone
  EXPECT_EQ(named(health, "gpu1/perf/integrity").phase, Phase::Untimed);
  EXPECT_EQ(health.tests.size(), 2 + 2 * (profile_cases(RunProfile::Health).size() + 2));
  PlanRequest soak = two_gpus(RunProfile::Soak);
  soak.soak_duration = std::chrono::hours(2);
  const RunPlan plan = plan_run(soak);
  ASSERT_EQ(plan.tests.size(), 2u + 2u);
  // A soak stops on time; its limit only catches one that does not.
  EXPECT_EQ(named(plan, "gpu0/perf/soak").timeout, std::chrono::seconds(600 + 7200));
}

TEST(CtestPlan, GivesCtestEachTestWithItsProperties) {
  const RunPlan plan = plan_run(two_gpus());
  std::ostringstream text;
  write_ctest_plan(text, plan, {"HAZARDLAB_TRAILS is unknown; did you mean HAZARDLAB_TRIALS"});
  EXPECT_EQ(text.str().rfind("warning\tHAZARDLAB_TRAILS is unknown, did you mean HAZARDLAB_TRIALS\n", 0), 0u);
  EXPECT_NE(text.str().find("\nenvironment\tHAZARDLAB_RUN_DIR=/r/results/runs/20261125T000000Z-host-42\t"
                            "CUDA_DEVICE_ORDER=PCI_BUS_ID\n"),
            std::string::npos);
  const std::string env = "property\tgpu1/h2d-pinned-mutate/stream-synchronize\tENVIRONMENT\t" +
                          plan.environment[0] + "\t" + plan.environment[1];
  EXPECT_EQ(lines_about(text.str(), "gpu1/h2d-pinned-mutate/stream-synchronize"),
            (Strings{"test\tgpu1/h2d-pinned-mutate/stream-synchronize\t/b/hazardlab-cases\t--device\t1\t--hazard\t"
                     "h2d-pinned-mutate\t--variant\tstream-synchronize\t--warm",
                     "property\tgpu1/h2d-pinned-mutate/stream-synchronize\tLABELS\tgpu\tgpu1\t"
                     "hazard:h2d-pinned-mutate\tkind:guard",
                     env, "property\tgpu1/h2d-pinned-mutate/stream-synchronize\tFIXTURES_REQUIRED\thazardlab_session",
                     "property\tgpu1/h2d-pinned-mutate/stream-synchronize\tRESOURCE_LOCK\tgpu1",
                     "property\tgpu1/h2d-pinned-mutate/stream-synchronize\tSKIP_RETURN_CODE\t77",
                     "property\tgpu1/h2d-pinned-mutate/stream-synchronize\tTIMEOUT\t600",
                     "property\tgpu1/h2d-pinned-mutate/stream-synchronize\tDEPENDS\tgpu0/perf/bandwidth\t"
                     "gpu0/perf/overlap\tgpu1/perf/bandwidth\tgpu1/perf/overlap"}));
  const Strings findings = lines_about(text.str(), "gpu0/perf/findings");
  EXPECT_NE(std::find(findings.begin(), findings.end(), "property\tgpu0/perf/findings\tCOST\t1000"), findings.end());
  EXPECT_EQ(lines_about(text.str(), "hazardlab/session-start")[1],
            "property\thazardlab/session-start\tFIXTURES_SETUP\thazardlab_session");
  EXPECT_EQ(lines_about(text.str(), "hazardlab/report")[1],
            "property\thazardlab/report\tFIXTURES_CLEANUP\thazardlab_session");
}

TEST(CtestPlan, ACaseThatUsesTwoGpusFollowsItsGpusOtherCases) {
  const RunPlan plan = plan_run(two_gpus());
  std::ostringstream text;
  write_ctest_plan(text, plan, {});
  const std::string peer = "gpu1/peer-copy-source-rewritten/stream-wait-event";
  std::string depends;
  for (const std::string& line : lines_about(text.str(), peer))
    if (const auto at = line.find("\tDEPENDS\t"); at != std::string::npos) depends = line.substr(at + 8) + '\t';
  EXPECT_NE(depends.find("\tgpu1/perf/bandwidth\t"), std::string::npos);
  EXPECT_NE(depends.find("\tgpu0/perf/bandwidth\t"), std::string::npos);
  EXPECT_NE(depends.find("\tgpu1/h2d-pinned-mutate/stream-synchronize\t"), std::string::npos);
  EXPECT_EQ(depends.find("\tgpu0/h2d-pinned-mutate/stream-synchronize\t"), std::string::npos);  // not another GPU's
  EXPECT_EQ(depends.find("\tgpu1/peer-copy"), std::string::npos);  // not its fellow peer cases
  // An ordinary case follows the measurements only.
  for (const std::string& line : lines_about(text.str(), "gpu1/h2d-pinned-mutate/stream-synchronize"))
    if (line.find("\tDEPENDS\t") != std::string::npos) {
      EXPECT_EQ(line.find("\tgpu1/d2h"), std::string::npos);
    }
}

TEST(CtestPlan, RefusesWhatCtestCannotPassOn) {
  PlanRequest r = two_gpus();
  r.place.results_root = "/r/a;b";
  std::ostringstream text;
  try {
    write_ctest_plan(text, plan_run(r), {});
    ADD_FAILURE() << "a results root with a ';' was written for ctest";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("HAZARDLAB_RUN_DIR=/r/a;b/runs/"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("every test's environment"), std::string::npos) << e.what();
  }
}

TEST(CtestPlan, AFailedPlanStillNamesEveryTestAsOneThatFails) {
  const RunPlan plan = plan_run(two_gpus());
  std::ostringstream text;
  write_failed_ctest_plan(text, plan, {"/b/hazardlab", "ctest-manifest"});
  const std::string lines = text.str();
  EXPECT_EQ(lines_about(lines, "gpu1/perf/overlap"),
            (Strings{"test\tgpu1/perf/overlap\t/b/hazardlab\tctest-manifest",
                     "property\tgpu1/perf/overlap\tLABELS\tgpu\tperf\tgpu1"}));
  EXPECT_EQ(lines.find("hazardlab/session-start"), std::string::npos);
  // A test line and a labels line for each name.
  EXPECT_EQ(static_cast<std::size_t>(std::count(lines.begin(), lines.end(), '\n')),
            2 * registered_names({0, 1}, RunProfile::Validation).size());
}
