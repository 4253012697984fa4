// The documented CUDA ordering rules the model knows, each with the document that states it.
// The citation is data, not only a comment, so that a report can list the rules a verdict rests on.
#pragma once

#include <bitset>
#include <cstddef>
#include <span>
#include <string_view>

#include "conformance/model/program.hpp"

namespace hazardlab::conformance {

enum class Rule : std::size_t {
  kStreamOrder,                          // 1
  kLegacyStreamImplicitSync,             // 2
  kEventRecordWait,                      // 3
  kHostSynchronization,                  // 4
  kAsyncCopyPinnedOnStream,              // 5
  kAsyncCopyPageableH2DStaged,           // 6
  kAsyncCopyPageableD2HNoHostGuarantee,  // 7
  kSyncMemcpy,                           // 8
  kHostFunctionOrder,                    // 9
  kMemsetAsyncOnStream,                  // 10
};
inline constexpr std::size_t kRuleCount = 10;

struct RuleInfo {
  Rule rule;
  std::string_view name;      // short, stable identifier for reports
  std::string_view summary;   // what the model does because of the rule
  std::string_view citation;  // the document and section that states it
};

// Every rule, in enum order.
std::span<const RuleInfo> all_rules();
const RuleInfo& rule_info(Rule rule);

// Behaviour GPUs were seen to show where the documents promise more: each weakens one rule in one case.
// Not a rule: the documented model stays the reference; a run accepts an observation that the documented
// model or the model with these deviations allows, and counts how often only the second did.
enum class Deviation : std::size_t {
  kSmallPinnedUploadSkipsImplicitSync,    // a pinned-to-device cudaMemcpyAsync of at most 24 KiB
  kStreamSyncSkipsWhatItsMarkersWaitFor,  // cudaStreamSynchronize of a blocking stream holding only markers
  kUnrecordedEventWaitOnLegacyIsNoWork,   // a legacy-stream cudaStreamWaitEvent of an event never recorded
};
inline constexpr std::size_t kDeviationCount = 3;

struct DeviationInfo {
  Deviation deviation;
  std::string_view name;
  std::string_view summary;   // what the weakened model allows
  std::string_view evidence;  // where it was seen, and what settled it
};

std::span<const DeviationInfo> all_deviations();
const DeviationInfo& deviation_info(Deviation deviation);

// The largest pinned-to-device copy that was seen to skip the legacy stream's implicit synchronization: the
// model's figure when a GPU's own was not measured (a run measures it: RuleSet::with_small_upload_bytes).
inline constexpr std::size_t kSmallUploadBytes = 24 * 1024;

// Which rules the model applies. Every rule is on by default; a mutant model switches one off to show
// that the rule changes at least one answer (the model has teeth). Deviations are off by default.
class RuleSet {
 public:
  RuleSet() { enabled_.set(); }
  static RuleSet all() { return RuleSet{}; }
  // The documented rules weakened by every deviation seen on GPUs.
  [[nodiscard]] RuleSet with_seen_deviations() const {
    RuleSet copy = *this;
    copy.deviations_.set();
    return copy;
  }
  [[nodiscard]] RuleSet with(Deviation deviation) const {
    RuleSet copy = *this;
    copy.deviations_.set(static_cast<std::size_t>(deviation));
    return copy;
  }
  [[nodiscard]] bool allows(Deviation deviation) const { return deviations_.test(static_cast<std::size_t>(deviation)); }
  [[nodiscard]] RuleSet without(Rule rule) const {
    RuleSet copy = *this;
    copy.enabled_.reset(static_cast<std::size_t>(rule));
    return copy;
  }
  [[nodiscard]] bool has(Rule rule) const { return enabled_.test(static_cast<std::size_t>(rule)); }
  // The largest pinned-to-device copy that kSmallPinnedUploadSkipsImplicitSync exempts, in bytes: the GPU's
  // measured threshold, else kSmallUploadBytes.
  [[nodiscard]] std::size_t small_upload_bytes() const { return small_upload_bytes_; }
  [[nodiscard]] RuleSet with_small_upload_bytes(std::size_t bytes) const {
    RuleSet copy = *this;
    copy.small_upload_bytes_ = bytes;
    return copy;
  }

 private:
  std::bitset<kRuleCount> enabled_;
  std::bitset<kDeviationCount> deviations_;
  std::size_t small_upload_bytes_ = kSmallUploadBytes;
};

// One piece of stream work, as far as rule 2 and the deviations that weaken it are concerned. The model
// (happens_before.cpp) and the checker (checker/core) both ask these two functions, so the rule and its
// deviations are written once.
struct StreamWorkFacts {
  StreamKind stream = StreamKind::Legacy;
  bool marker = false;                      // cudaEventRecord or cudaStreamWaitEvent: enqueues no work of its own
  bool waits_for_unrecorded_event = false;  // a cudaStreamWaitEvent of an event never recorded
  bool pinned_upload = false;               // a cudaMemcpyAsync from pinned host memory to the device
  std::size_t bytes = 0;                    // the copy's size, for pinned_upload
};

// Rule 2: work enqueued on a stream of kind `waiting` waits for prior work on streams of kind `other`.
bool implicitly_waits_for(const RuleSet& rules, StreamKind waiting, StreamKind other);
// A deviation the rule set allows lets this work skip the waits rule 2 would give it.
bool skips_implicit_sync(const RuleSet& rules, const StreamWorkFacts& work);

}  // namespace hazardlab::conformance
