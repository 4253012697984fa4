// The documented CUDA ordering rules the model knows, each with the document that states it.
// The citation is data, not only a comment, so that a report can list the rules a verdict rests on.
#pragma once

#include <bitset>
#include <cstddef>
#include <span>
#include <string_view>

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

// Which rules the model applies. Every rule is on by default; a mutant model switches one off to show
// that the rule changes at least one answer (the model has teeth).
class RuleSet {
 public:
  RuleSet() { enabled_.set(); }
  static RuleSet all() { return RuleSet{}; }
  [[nodiscard]] RuleSet without(Rule rule) const {
    RuleSet copy = *this;
    copy.enabled_.reset(static_cast<std::size_t>(rule));
    return copy;
  }
  [[nodiscard]] bool has(Rule rule) const { return enabled_.test(static_cast<std::size_t>(rule)); }

 private:
  std::bitset<kRuleCount> enabled_;
};

}  // namespace hazardlab::conformance
