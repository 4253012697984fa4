#include "hazardlab/runners.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <iostream>
#include <random>
#include <sstream>

#include "hazardlab/cuda_check.hpp"

namespace hazardlab {

// rapidcheck prints counterexamples with this.
void showValue(const TransferCase& c, std::ostream& os) { os << c.describe(); }

namespace {

constexpr std::size_t kControlSizes[] = {
    1, 4095, 4096, 4097, 65535, 65536, 65537, std::size_t{1} << 20, std::size_t{4} << 20};
constexpr std::size_t kControlRigBytes = std::size_t{4} << 20;

// Sizes from 1 byte to `max`: the page and 64 KiB edges (where copy paths change) often, the
// rest spread evenly over powers of two so that every magnitude is covered.
rc::Gen<std::size_t> gen_bytes(std::size_t min, std::size_t max) {
  std::vector<std::size_t> edges{1, 4095, 4096, 4097, 65535, 65536, 65537, max};
  edges.erase(std::remove_if(edges.begin(), edges.end(), [min, max](std::size_t b) { return b < min || b > max; }),
              edges.end());
  if (edges.empty()) edges.push_back(max);
  int bottom = 0, top = 0;
  while ((std::size_t{2} << bottom) <= min) ++bottom;
  while ((std::size_t{2} << top) <= max) ++top;
  auto magnitude = rc::gen::mapcat(rc::gen::inRange(bottom, top + 1), [min, max](int e) {
    const std::size_t lo = std::max(min, std::size_t{1} << e);
    const std::size_t hi = std::min(max, (std::size_t{2} << e) - 1);
    return rc::gen::inRange<std::size_t>(lo, hi + 1);
  });
  return rc::gen::weightedOneOf<std::size_t>({{1, rc::gen::elementOf(edges)}, {3, magnitude}});
}

rc::Gen<PatternSpec> gen_pattern() {
  auto spec = rc::gen::apply(
      [](PatternFamily family, std::uint64_t seed, int mutated, int sentinel) {
        return PatternSpec{family, seed, static_cast<std::uint8_t>(mutated), static_cast<std::uint8_t>(sentinel)};
      },
      rc::gen::element(PatternFamily::Counter, PatternFamily::Random, PatternFamily::Alternating,
                       PatternFamily::Constant),
      rc::gen::arbitrary<std::uint64_t>(), rc::gen::inRange(1, 256), rc::gen::inRange(1, 256));
  return rc::gen::suchThat(spec, [](const PatternSpec& p) { return p.valid(); });
}

rc::Gen<TransferCase> gen_case(const CaseSpace& space, const std::vector<GateKind>& gates, std::size_t max_bytes) {
  return rc::gen::apply(
      [first = space.knob.name, second = space.second_knob.name](
          std::size_t bytes, std::size_t offset, PatternSpec pattern, HostMemoryKind host, StreamKind stream,
          GateKind gate, std::uint32_t gate_delay, std::uint32_t device_delay, std::uint32_t knob,
          std::uint32_t knob2) {
        return TransferCase{bytes,      offset,       pattern, host,  stream, gate,
                            gate_delay, device_delay, knob,    first, knob2,  second};
      },
      gen_bytes(std::min(space.min_bytes, max_bytes), max_bytes), rc::gen::inRange<std::size_t>(0, 4096), gen_pattern(),
      rc::gen::elementOf(space.host_kinds), rc::gen::elementOf(space.streams), rc::gen::elementOf(gates),
      rc::gen::inRange<std::uint32_t>(0, space.max_gate_delay_us + 1),
      rc::gen::inRange<std::uint32_t>(0, space.max_device_delay_us + 1),
      rc::gen::inRange<std::uint32_t>(space.knob.min, space.knob.max + 1),
      rc::gen::inRange<std::uint32_t>(space.second_knob.min, space.second_knob.max + 1));
}

std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace

std::vector<GateKind> usable_gates(const CaseSpace& space, const DeviceFingerprint& device, const Settings& settings) {
  std::vector<GateKind> gates;
  for (GateKind g : space.gates) {
    if (g == GateKind::SpinKernel && !device.can_map_host_memory) continue;
    if (!settings.gates.empty() && std::find(settings.gates.begin(), settings.gates.end(), g) == settings.gates.end()) {
      continue;
    }
    gates.push_back(g);
  }
  if (gates.empty()) gates.push_back(GateKind::HostFunction);
  return gates;
}

TransferCase planned_case(const CaseSpace& space, const std::vector<GateKind>& gates, int trial,
                          std::size_t max_bytes) {
  constexpr int kSizes = static_cast<int>(std::size(kControlSizes));
  const int streams = static_cast<int>(space.streams.size());
  TransferCase c;
  c.bytes = std::min(std::max(kControlSizes[trial % kSizes], space.min_bytes), max_bytes);
  c.host_offset = static_cast<std::size_t>(trial) * 1237 % 4096;
  c.pattern.family = static_cast<PatternFamily>(trial % 4);
  c.pattern.seed = splitmix64(static_cast<std::uint64_t>(trial));
  c.host_kind = space.host_kinds[trial % space.host_kinds.size()];
  c.stream = space.streams[(trial / kSizes) % streams];
  c.gate = gates[(trial / (kSizes * streams)) % gates.size()];
  c.knob_name = space.knob.name;
  c.knob = space.knob.min + static_cast<std::uint32_t>(trial) % (space.knob.max - space.knob.min + 1);
  c.second_knob_name = space.second_knob.name;
  c.second_knob = space.second_knob.min +
                  static_cast<std::uint32_t>(trial / 3) % (space.second_knob.max - space.second_knob.min + 1);
  return c;
}

void BlockingProfile::add(std::size_t bytes, bool blocked, bool hazard_visible) {
  ++trials_;
  if (hazard_visible) ++visible_;
  if (blocked) {
    ++blocked_;
    if (smallest_blocked_ == 0 || bytes < smallest_blocked_) smallest_blocked_ = bytes;
  } else {
    largest_returned_early_ = std::max(largest_returned_early_, bytes);
  }
}

nlohmann::json BlockingProfile::to_json() const {
  return {{"trials", trials_},
          {"returned_while_stream_held", trials_ - blocked_},
          {"waited_for_stream", blocked_},
          {"largest_bytes_returned_while_held", largest_returned_early_},
          {"smallest_bytes_that_waited", smallest_blocked_},
          {"damage_reached_data", visible_}};
}

std::string BlockingProfile::summary() const {
  std::ostringstream out;
  out << "the call under test returned at once in " << trials_ - blocked_ << " of " << trials_ << " trials";
  if (trials_ > blocked_) out << " (largest " << largest_returned_early_ << " B)";
  if (blocked_) {
    out << " and waited for the held stream, until the watchdog opened it, in " << blocked_ << " (smallest "
        << smallest_blocked_ << " B)";
  }
  out << "; the race showed in " << visible_;
  return out.str();
}

VariantResult check_positive_control(const RunContext& ctx, const CaseSpace& space, const TrialFn& trial) {
  const auto gates = usable_gates(space, ctx.device, ctx.settings);
  TransferRig rig(std::min(space.largest(ctx.settings), std::max(kControlRigBytes, space.min_bytes)), ctx.device);
  VariantResult r;
  std::string first_blocked, first_missed;
  nlohmann::json by_gate = nlohmann::json::object();
  for (int i = 0; i < ctx.settings.control_trials; ++i) {
    const TransferCase c = planned_case(space, gates, i, rig.max_bytes());
    const TrialObservation obs = trial(rig, c, ctx.settings);
    ++r.trials;
    auto& tally = by_gate[std::string(to_string(c.gate))];
    if (tally.is_null()) tally = {{"trials", 0}, {"reproduced", 0}};
    tally["trials"] = tally["trials"].get<int>() + 1;
    if (obs.call_blocked || obs.gate_timed_out || !obs.undecided.empty()) {
      ++r.inconclusive;
      if (first_blocked.empty()) first_blocked = c.describe() + ": " + obs.describe();
    } else if (obs.hazard_visible) {
      ++r.reproduced;
      tally["reproduced"] = tally["reproduced"].get<int>() + 1;
    } else if (first_missed.empty()) {
      first_missed = c.describe() + ": " + obs.describe();
      r.minimal_case = c;
    }
  }
  r.observations["by_gate"] = by_gate;
  std::ostringstream why;
  if (r.reproduced == r.trials) {
    r.outcome = Outcome::Reproduced;
  } else if (r.reproduced + r.inconclusive == r.trials) {
    r.outcome = Outcome::Inconclusive;
    why << r.inconclusive << " of " << r.trials
        << " trials could not hold the copy back (the call blocked while the gate was closed, or the gate timed "
           "out), so they prove nothing; first: "
        << first_blocked;
  } else {
    r.outcome = Outcome::NotReproduced;
    why << "the hazard showed in only " << r.reproduced << " of " << r.trials
        << " gated trials: the suite cannot rely on seeing it; first trial without it: " << first_missed;
  }
  r.reason = why.str();
  return r;
}

VariantResult check_property(const RunContext& ctx, const CaseSpace& space, const TrialFn& trial) {
  const Settings& settings = ctx.settings;
  const auto gates = usable_gates(space, ctx.device, ctx.settings);
  TransferRig rig(space.largest(settings), ctx.device);
  BlockingProfile blocking;

  struct Failure {
    TransferCase c;
    std::string what;
  };
  std::optional<Failure> last_failure;  // the last failing run is the shrunk minimal case
  std::string api_error, inconclusive;
  bool poisoned = false;
  int runs = 0;

  const auto cases = gen_case(space, gates, rig.max_bytes());
  const auto property = [&] {
    const TransferCase c = *cases;
    if (poisoned) RC_FAIL("not run: an earlier case left the CUDA context unusable");
    ++runs;
    TrialObservation obs;
    try {
      obs = trial(rig, c, settings);
    } catch (const CudaError& e) {
      api_error = e.what();
      poisoned = e.sticky();
      last_failure = Failure{c, e.what()};
      RC_FAIL(e.what());
    } catch (const std::exception& e) {
      api_error = std::string("error: ") + e.what();
      last_failure = Failure{c, e.what()};
      RC_FAIL(e.what());
    }
    blocking.add(c.bytes, obs.call_blocked, obs.hazard_visible);
    if (obs.gate_timed_out) {
      inconclusive = "a gate timed out: " + c.describe();
      poisoned = true;
      last_failure = Failure{c, obs.describe()};
      RC_FAIL("gate timed out");
    }
    if (!obs.data_correct) {
      last_failure = Failure{c, obs.describe()};
      RC_FAIL(obs.describe());
    }
  };

  rc::detail::TestParams params;
  params.seed = settings.seed.value_or(fresh_seed());
  params.maxSuccess = settings.property_cases;
  rc::detail::TestMetadata metadata;
  metadata.id = metadata.description = "property";
  const rc::detail::TestResult result = rc::detail::checkTestable(property, metadata, params);

  VariantResult r;
  r.seed = params.seed;
  r.observations["blocking"] = blocking.to_json();
  r.finding = blocking.summary();
  r.observations["property_runs_including_shrinking"] = runs;
  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error error;
  if (result.match(success)) {
    r.outcome = Outcome::Passed;
    r.trials = success.numSuccess;
  } else if (result.match(failure)) {
    std::cerr << "rapidcheck: ";
    rc::detail::printResultMessage(result, std::cerr);
    std::cerr << '\n';
    r.trials = failure.numSuccess + 1;
    if (last_failure) r.minimal_case = last_failure->c;
    std::ostringstream why;
    if (!inconclusive.empty()) {
      r.outcome = Outcome::Inconclusive;
      why << inconclusive;
    } else if (!api_error.empty()) {
      r.outcome = Outcome::Failed;
      why << api_error;
    } else {
      r.outcome = Outcome::Incorrect;
      why << "wrong data after " << failure.numSuccess << " passing cases; smallest failing case: "
          << (last_failure ? last_failure->c.describe() + " -> " + last_failure->what : failure.description);
    }
    why << " (replay with HAZARDLAB_SEED=" << params.seed << ")";
    r.reason = why.str();
  } else if (result.match(gave_up)) {
    r.outcome = Outcome::Inconclusive;
    r.trials = gave_up.numSuccess;
    r.reason = "rapidcheck gave up: " + gave_up.description;
  } else if (result.match(error)) {
    r.outcome = Outcome::Failed;
    r.reason = "rapidcheck could not run the property: " + error.description;
  }
  return r;
}

VariantResult observe(const RunContext& ctx, const CaseSpace& space, const TrialFn& trial) {
  const auto gates = usable_gates(space, ctx.device, ctx.settings);
  TransferRig rig(space.largest(ctx.settings), ctx.device);
  BlockingProfile blocking;
  VariantResult r;
  int stale = 0;
  nlohmann::json per_size_json = nlohmann::json::array();
  int index = 0;
  int sizes = 0;
  for (std::size_t bytes = space.min_bytes; bytes <= rig.max_bytes(); bytes *= 2) ++sizes;
  const int per_size = static_cast<int>(space.streams.size());
  const int repeats = std::max(1, (ctx.settings.control_trials + sizes * per_size - 1) / (sizes * per_size));
  for (std::size_t bytes = space.min_bytes; bytes <= rig.max_bytes(); bytes *= 2) {
    int size_blocked = 0, size_stale = 0, size_trials = 0;
    for (int repeat = 0; repeat < repeats * per_size; ++repeat) {
      TransferCase c = planned_case(space, gates, index++, rig.max_bytes());
      c.bytes = bytes;
      c.stream = space.streams[static_cast<std::size_t>(repeat % per_size)];
      const TrialObservation obs = trial(rig, c, ctx.settings);
      if (obs.gate_timed_out) {
        r.outcome = Outcome::Inconclusive;
        r.reason = "a gate timed out: " + c.describe();
        return r;
      }
      blocking.add(bytes, obs.call_blocked, obs.hazard_visible);
      ++r.trials;
      ++size_trials;
      size_blocked += obs.call_blocked;
      size_stale += obs.hazard_visible;
    }
    stale += size_stale;
    per_size_json.push_back(
        {{"bytes", bytes}, {"trials", size_trials}, {"waited", size_blocked}, {"raced", size_stale}});
  }
  r.outcome = Outcome::Observed;
  r.reproduced = stale;
  r.observations["blocking"] = blocking.to_json();
  r.observations["per_size"] = per_size_json;
  r.reason = blocking.summary() + ".";
  return r;
}

Variant make_variant(VariantKind kind, std::string id, std::string title, CaseSpace space, TrialFn trial) {
  Variant v{std::move(id), kind, std::move(title), nullptr};
  v.run = [kind, space = std::move(space), trial = std::move(trial)](const RunContext& ctx) {
    switch (kind) {
      case VariantKind::Control:
        return check_positive_control(ctx, space, trial);
      case VariantKind::Observation:
        return observe(ctx, space, trial);
      case VariantKind::Guard:
      case VariantKind::Rule:
        break;
    }
    VariantResult r = check_property(ctx, space, trial);
    if (kind == VariantKind::Guard) r.finding.clear();  // how calls behaved matters for rules
    return r;
  };
  return v;
}

}  // namespace hazardlab
